/* SPDX-License-Identifier: MIT */
/*
 * The per-VM policy of clipboard, primary selection and drag-and-drop
 * (clipboard-policy.c): its values and the one rule that decides whether
 * data may cross.  No weston in there: the core reads it from weston.ini
 * (config.c), the unit tests use it alone.
 */
#ifndef IVWL_CLIPBOARD_POLICY_H
#define IVWL_CLIPBOARD_POLICY_H

#include <stdbool.h>
#include <stdint.h>

/* Bits of a policy value: what may come in, what may go out. */
enum ivwl_clip_mode {
	IVWL_CLIP_ISOLATED = 0,
	IVWL_CLIP_IMPORT = 1u << 0,
	IVWL_CLIP_EXPORT = 1u << 1,
	IVWL_CLIP_SHARED = IVWL_CLIP_IMPORT | IVWL_CLIP_EXPORT,
};

enum ivwl_clip_kind {
	IVWL_CLIP_SELECTION,
	IVWL_CLIP_PRIMARY,
	IVWL_CLIP_DRAG,
};

/* One VM's policy; every key defaults to isolated. */
struct ivwl_clip_policy {
	uint8_t mode[3];	/* by enum ivwl_clip_kind */
};

/* "isolated" ... "shared" into *mode; false for anything else. */
bool
ivwl_clip_mode_parse(const char *value, uint8_t *mode);

const char *
ivwl_clip_mode_name(uint8_t mode);

/*
 * May data of one party reach another?  NULL stands for the local
 * clients (the gui-VM's own, trusted: they read every selection, and
 * theirs count as exported).  from == to is one party.
 */
bool
ivwl_clip_policy_allows(const struct ivwl_clip_policy *from,
			const struct ivwl_clip_policy *to,
			enum ivwl_clip_kind kind);

/*
 * True when a VM of this policy must not see the global: weston
 * offers the primary selection without any hook, so a VM sees that
 * global only when its primary-selection= is shared.
 */
bool
ivwl_clip_policy_hides(const struct ivwl_clip_policy *policy,
		       const char *interface);

/* The weston.ini key of a kind: clipboard=, primary-selection=... */
const char *
ivwl_clip_policy_key(enum ivwl_clip_kind kind);

/*
 * One key's value into the policy; false when it is none of the values
 * the kind takes (*choices then lists them).
 */
bool
ivwl_clip_policy_set(struct ivwl_clip_policy *policy,
		     enum ivwl_clip_kind kind, const char *value,
		     const char **choices);

#endif
