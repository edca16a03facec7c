/* SPDX-License-Identifier: MIT */
/*
 * Clipboard, primary selection and drag-and-drop between VMs.
 *
 * weston keeps one selection per seat and offers it to whichever client
 * has keyboard focus, and a drag to whichever surface it enters.  The
 * plugin serves every VM client's socket itself, so it sees each
 * wl_data_offer weston makes for a VM and, through weston's public
 * weston_data_offer, the source it stands for: an offer the VM's policy
 * does not allow never reaches the VM (clipboard.c).  A trusted copy and
 * paste, two key bindings weston handles, moves a selection across
 * anyway when the user asks (clipboard-trusted.c).
 */
#ifndef IVWL_CLIPBOARD_H
#define IVWL_CLIPBOARD_H

#include <stdbool.h>
#include <stdint.h>

struct ivwl_plugin;
struct ivwl_channel;
struct ivwl_connection;
struct ivwl_wire_msg;
struct ivwl_vm;
struct weston_config_section;

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

/* clipboard-policy.c: no weston in there, for the unit tests. */

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

/* clipboard.c */

/* Reads clipboard=, primary-selection=, drag-and-drop=; false if bad. */
bool
ivwl_clip_policy_read(struct weston_config_section *section,
		      const char *vm_name, struct ivwl_clip_policy *policy);

struct ivwl_clipboard *
ivwl_clipboard_create(struct ivwl_plugin *plugin);

void
ivwl_clipboard_destroy(struct ivwl_clipboard *clipboard);

/* The clipboard's hooks in translation (translate.h), for the plugin
 * to register. */
struct ivwl_translate_clipboard;
extern const struct ivwl_translate_clipboard ivwl_clipboard_hooks;

/* connection.c: a channel ends; logs and frees what its note says. */
void
ivwl_clipboard_channel_end(struct ivwl_connection *conn,
			   struct ivwl_channel *ch);

#endif
