/* SPDX-License-Identifier: MIT */
/*
 * Which globals a VM's clients may see.  The default list holds what an
 * ordinary desktop client needs and nothing that reads other clients'
 * content, injects input or talks to the shell's private side.
 */
#include <stdlib.h>
#include <string.h>

#include "ivwl-plugin.h"

static const char *const default_allow[] = {
	"wl_compositor",
	"wl_subcompositor",
	"wl_shm",
	"wl_seat",
	"wl_output",
	"wl_data_device_manager",
	"xdg_wm_base",
	"wp_viewporter",
	"wp_presentation",
	"zxdg_output_manager_v1",
	"zxdg_decoration_manager_v1",
	"zwp_relative_pointer_manager_v1",
	"zwp_pointer_constraints_v1",
	"zwp_pointer_gestures_v1",
	"zwp_primary_selection_device_manager_v1",
	"zwp_idle_inhibit_manager_v1",
	"zwp_input_timestamps_manager_v1",
	"wp_single_pixel_buffer_manager_v1",
	"wp_fractional_scale_manager_v1",
	"xdg_activation_v1",
};

/* Never, whatever the configuration says. */
static const char *const always_deny[] = {
	"weston_screenshooter",
	"weston_debug_v1",
	"weston_capture_v1",
	"weston_desktop_shell",
	"weston_touch_calibration",
	"weston_direct_display_v1",
	"weston_content_protection",
	"ivi_application",
	"ivi_wm_service",
	"zwp_input_method_v1",
	"zwp_input_panel_v1",
	"zwp_input_method_manager_v2",
	"zwp_virtual_keyboard_manager_v1",
	"zwlr_virtual_pointer_manager_v1",
	"zwlr_screencopy_manager_v1",
	"zwlr_export_dmabuf_manager_v1",
	"zwlr_data_control_manager_v1",
	"ext_data_control_manager_v1",
	"zwp_fullscreen_shell_v1",
	"zwp_keyboard_shortcuts_inhibit_manager_v1",
	"text_cursor_position",
};

struct ivwl_policy {
	char **names;
	size_t count;
};

static bool
in_list(const char *const *list, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(list[i], name) == 0)
			return true;
	return false;
}

#define ARRAY_LENGTH(a) (sizeof(a) / sizeof((a)[0]))

struct ivwl_policy *
ivwl_policy_create(const char *allow)
{
	struct ivwl_policy *policy = calloc(1, sizeof(*policy));
	char *copy, *tok, *save = NULL;

	if (!policy)
		return NULL;
	if (!allow)
		return policy;

	copy = strdup(allow);
	if (!copy)
		goto err_policy;
	for (tok = strtok_r(copy, ", \t", &save); tok;
	     tok = strtok_r(NULL, ", \t", &save)) {
		char **n = realloc(policy->names,
				   (policy->count + 1) * sizeof(*n));

		if (!n)
			goto err_copy;
		policy->names = n;
		policy->names[policy->count] = strdup(tok);
		if (!policy->names[policy->count])
			goto err_copy;
		policy->count++;
	}
	free(copy);
	return policy;

err_copy:
	free(copy);
err_policy:
	ivwl_policy_destroy(policy);
	return NULL;
}

void
ivwl_policy_destroy(struct ivwl_policy *policy)
{
	size_t i;

	if (!policy)
		return;
	for (i = 0; i < policy->count; i++)
		free(policy->names[i]);
	free(policy->names);
	free(policy);
}

bool
ivwl_policy_allows(const struct ivwl_policy *policy, const char *interface)
{
	if (in_list(always_deny, ARRAY_LENGTH(always_deny), interface))
		return false;
	if (policy->names)
		return in_list((const char *const *)policy->names,
			       policy->count, interface);
	return in_list(default_allow, ARRAY_LENGTH(default_allow), interface);
}
