/* SPDX-License-Identifier: MIT */
/*
 * X-ray (xray.h).  A key binding starts a keyboard grab of the plugin's
 * own, which swallows every key until the binding's key or one of its
 * modifiers is let go.  focus.c takes no grab of ivwl.so's for the
 * user's choice of a window, so no VM takes the keyboard meanwhile.
 */
#include <stdlib.h>

#include <libweston/libweston.h>
#include <libweston/config-parser.h>
#include "weston-compat.h"

#include "binding.h"
#include "ivwl-plugin.h"
#include "label.h"
#include "log.h"
#include "xray.h"

#define DEFAULT_KEY "super+alt"

struct ivwl_xray {
	struct ivwl_plugin *plugin;
	struct weston_binding *binding;
	uint32_t key;
	enum weston_keyboard_modifier mods;
	struct weston_keyboard_grab grab;
	bool on;
};

static void
xray_end(struct ivwl_xray *xray)
{
	if (!xray->on)
		return;
	xray->on = false;
	weston_keyboard_end_grab(xray->grab.keyboard);
	ivwl_label_xray(xray->plugin->label, false);
}

static void
grab_key(struct weston_keyboard_grab *grab, IVWL_KEY_PARAMS)
{
	struct ivwl_xray *xray = wl_container_of(grab, xray, grab);

	/* every key is X-ray's while it is on; letting go of its own ends
	 * it */
	if (IVWL_KEY_STATE == WL_KEYBOARD_KEY_STATE_RELEASED &&
	    IVWL_KEY_CODE == xray->key)
		xray_end(xray);
}

static void
grab_modifiers(struct weston_keyboard_grab *grab, uint32_t serial,
	       uint32_t depressed, uint32_t latched, uint32_t locked,
	       uint32_t group)
{
	struct ivwl_xray *xray = wl_container_of(grab, xray, grab);

	/* weston's own view of the modifiers, updated before this */
	if ((grab->keyboard->seat->modifier_state & xray->mods) != xray->mods)
		xray_end(xray);
}

static void
grab_cancel(struct weston_keyboard_grab *grab)
{
	struct ivwl_xray *xray = wl_container_of(grab, xray, grab);

	xray_end(xray);
}

static const struct weston_keyboard_grab_interface grab_interface = {
	.key = grab_key,
	.modifiers = grab_modifiers,
	.cancel = grab_cancel,
};

static void
on_binding(struct weston_keyboard *keyboard, const struct timespec *time,
	   uint32_t key, void *data)
{
	struct ivwl_xray *xray = data;

	/* another grab (the switcher, a popup) has the keyboard */
	if (xray->on || keyboard->grab != &keyboard->default_grab)
		return;
	xray->on = true;
	xray->grab.interface = &grab_interface;
	weston_keyboard_start_grab(keyboard, &xray->grab);
	ivwl_label_xray(xray->plugin->label, true);
}

struct ivwl_xray *
ivwl_xray_create(struct ivwl_plugin *plugin)
{
	struct weston_config_section *s;
	struct ivwl_xray *xray;
	char *text = NULL;

	xray = calloc(1, sizeof(*xray));
	if (!xray)
		return NULL;
	xray->plugin = plugin;
	s = weston_config_get_section(wet_get_config(plugin->compositor),
				      "ivwl", NULL, NULL);
	weston_config_section_get_string(s, "xray-key", &text, DEFAULT_KEY);
	if (!text || !ivwl_binding_parse(text, &xray->key, &xray->mods)) {
		ivwl_log("[ivwl] xray-key=%s: want modifiers and a key, as in "
			 "%s",
			 text ? text : "", DEFAULT_KEY);
		free(text);
		free(xray);
		return NULL;
	}
	free(text);
	xray->binding =
		weston_compositor_add_key_binding(plugin->compositor, xray->key,
						  xray->mods, on_binding, xray);
	if (!xray->binding) {
		free(xray);
		return NULL;
	}
	return xray;
}

void
ivwl_xray_destroy(struct ivwl_xray *xray)
{
	if (!xray)
		return;
	if (xray->on) {
		xray->on = false;
		weston_keyboard_end_grab(xray->grab.keyboard);
	}
	weston_binding_destroy(xray->binding);
	free(xray);
}
