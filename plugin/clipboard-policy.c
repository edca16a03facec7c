/* SPDX-License-Identifier: MIT */
/*
 * The per-VM policy of clipboard, primary selection and drag-and-drop:
 * its values and the one rule that decides whether data may cross.
 */
#include <string.h>

#include "clipboard-policy.h"

static const char *const mode_names[] = {
	[IVWL_CLIP_ISOLATED] = "isolated",
	[IVWL_CLIP_IMPORT] = "import",
	[IVWL_CLIP_EXPORT] = "export",
	[IVWL_CLIP_SHARED] = "shared",
};

bool
ivwl_clip_mode_parse(const char *value, uint8_t *mode)
{
	uint8_t m;

	for (m = 0; m < sizeof(mode_names) / sizeof(mode_names[0]); m++) {
		if (strcmp(value, mode_names[m]) == 0) {
			*mode = m;
			return true;
		}
	}
	return false;
}

const char *
ivwl_clip_mode_name(uint8_t mode)
{
	return mode <= IVWL_CLIP_SHARED ? mode_names[mode] : "?";
}

bool
ivwl_clip_policy_allows(const struct ivwl_clip_policy *from,
			const struct ivwl_clip_policy *to,
			enum ivwl_clip_kind kind)
{
	if (from == to || !to)
		return true;
	if (!(to->mode[kind] & IVWL_CLIP_IMPORT))
		return false;
	return !from || (from->mode[kind] & IVWL_CLIP_EXPORT);
}

bool
ivwl_clip_policy_hides(const struct ivwl_clip_policy *policy,
		       const char *interface)
{
	if (strcmp(interface, "zwp_primary_selection_device_manager_v1") != 0)
		return false;
	return policy->mode[IVWL_CLIP_PRIMARY] != IVWL_CLIP_SHARED;
}

static const char *const key_names[] = {
	[IVWL_CLIP_SELECTION] = "clipboard",
	[IVWL_CLIP_PRIMARY] = "primary-selection",
	[IVWL_CLIP_DRAG] = "drag-and-drop",
};

const char *
ivwl_clip_policy_key(enum ivwl_clip_kind kind)
{
	return key_names[kind];
}

bool
ivwl_clip_policy_set(struct ivwl_clip_policy *policy,
		     enum ivwl_clip_kind kind, const char *value,
		     const char **choices)
{
	uint8_t mode;

	/* weston offers no hook on the primary selection: all or nothing */
	if (kind == IVWL_CLIP_PRIMARY) {
		*choices = "isolated, shared";
		if (!ivwl_clip_mode_parse(value, &mode) ||
		    (mode != IVWL_CLIP_ISOLATED && mode != IVWL_CLIP_SHARED))
			return false;
	} else {
		*choices = "isolated, import, export, shared";
		if (!ivwl_clip_mode_parse(value, &mode))
			return false;
	}
	policy->mode[kind] = mode;
	return true;
}
