/* SPDX-License-Identifier: MIT */
/*
 * The replay fuzz client's seat and globals (replay-fuzz-client.c):
 * selections offered and pasted, focus followed, outputs that come and
 * go.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay-fuzz.h"

/* ---- clipboard -------------------------------------------------------- */

static void
source_target(void *data, struct wl_data_source *src, const char *mime)
{
}

static void
source_send(void *data, struct wl_data_source *src, const char *mime,
	    int32_t fd)
{
	char text[64];
	int n = snprintf(text, sizeof(text), "fuzz %u %s", app.seed, mime);

	if (write(fd, text, (size_t)n) != n)
		say("could not write a paste");
	close(fd);
}

static void
forget_source(struct wl_data_source *src)
{
	int i;

	for (i = 0; i < MAX_SOURCES; i++)
		if (app.sources[i] == src)
			app.sources[i] = NULL;
	wl_data_source_destroy(src);
}

static void
source_cancelled(void *data, struct wl_data_source *src)
{
	app.cancelled++;
	forget_source(src);
}

static void
source_dnd(void *data, struct wl_data_source *src)
{
}

static void
source_action(void *data, struct wl_data_source *src, uint32_t action)
{
}

static const struct wl_data_source_listener source_listener = {
	source_target, source_send, source_cancelled, source_dnd, source_dnd,
	source_action,
};

void
clipboard(void)
{
	static const char *const mimes[] = {
		"text/plain", "text/plain;charset=utf-8", "application/x-fuzz",
	};
	struct wl_data_source *src;
	int i, slot = -1, n;

	if (!app.data_device || !app.serial)
		return;
	for (i = 0; i < MAX_SOURCES; i++)
		if (!app.sources[i])
			slot = i;
	if (slot < 0 || chance(20)) {
		src = app.sources[pick(MAX_SOURCES)];
		if (src)
			forget_source(src);
		if (chance(30))
			wl_data_device_set_selection(app.data_device, NULL,
						     app.serial);
		return;
	}
	src = wl_data_device_manager_create_data_source(app.ddm);
	wl_data_source_add_listener(src, &source_listener, NULL);
	for (n = 1 + pick(3), i = 0; i < n; i++)
		wl_data_source_offer(src, mimes[(i + pick(2)) % 3]);
	maybe_split(10);
	wl_data_device_set_selection(app.data_device, src, app.serial);
	app.sources[slot] = src;
}

static void
offer_offer(void *data, struct wl_data_offer *o, const char *mime)
{
}

static void
offer_actions(void *data, struct wl_data_offer *o, uint32_t actions)
{
}

static const struct wl_data_offer_listener offer_listener = {
	offer_offer, offer_actions, offer_actions,
};

static void
dd_data_offer(void *data, struct wl_data_device *dd, struct wl_data_offer *o)
{
	wl_data_offer_add_listener(o, &offer_listener, NULL);
}

static void
dd_enter(void *data, struct wl_data_device *dd, uint32_t serial,
	 struct wl_surface *s, wl_fixed_t x, wl_fixed_t y,
	 struct wl_data_offer *o)
{
	if (app.dnd)
		wl_data_offer_destroy(app.dnd);
	app.dnd = o;
}

static void
dd_leave(void *data, struct wl_data_device *dd)
{
	if (app.dnd)
		wl_data_offer_destroy(app.dnd);
	app.dnd = NULL;
}

static void
dd_motion(void *data, struct wl_data_device *dd, uint32_t t, wl_fixed_t x,
	  wl_fixed_t y)
{
}

static void
dd_drop(void *data, struct wl_data_device *dd)
{
}

/* The selection, ours often: sometimes read it through a pipe. */
static void
dd_selection(void *data, struct wl_data_device *dd, struct wl_data_offer *o)
{
	int fds[2], i;

	if (app.selection && app.selection != o)
		wl_data_offer_destroy(app.selection);
	app.selection = o;
	if (!o || !chance(40))
		return;
	for (i = 0; i < MAX_PASTES && app.pastes[i].fd >= 0; i++)
		;
	if (i == MAX_PASTES || pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0)
		return;
	wl_data_offer_receive(o, "text/plain", fds[1]);
	close(fds[1]);
	app.pastes[i].fd = fds[0];
	app.pastes[i].since = now_ms();
}

static const struct wl_data_device_listener dd_listener = {
	dd_data_offer, dd_enter, dd_leave, dd_motion, dd_drop, dd_selection,
};

void
clipboard_start(void)
{
	if (!app.seat || !app.ddm)
		return;
	app.data_device = wl_data_device_manager_get_data_device(app.ddm,
								 app.seat);
	wl_data_device_add_listener(app.data_device, &dd_listener, NULL);
}

void
read_pastes(struct pollfd *pfd)
{
	char buf[256];
	ssize_t n;
	int i;

	for (i = 0; i < MAX_PASTES; i++) {
		struct paste *p = &app.pastes[i];

		if (p->fd < 0 || !pfd[i].revents)
			continue;
		n = read(p->fd, buf, sizeof(buf));
		if (n > 0 || (n < 0 && errno == EAGAIN))
			continue;
		if (n == 0)
			app.pasted++;
		close(p->fd);
		p->fd = -1;
	}
	for (i = 0; i < MAX_PASTES; i++)
		if (app.pastes[i].fd >= 0 &&
		    now_ms() - app.pastes[i].since > 15000) {
			say("a paste hung for 15 s");
			close(app.pastes[i].fd);
			app.pastes[i].fd = -1;
		}
}

/* ---- input ------------------------------------------------------------ */

static void
kb_keymap(void *data, struct wl_keyboard *k, uint32_t format, int32_t fd,
	  uint32_t size)
{
	close(fd);
}

static void
kb_enter(void *data, struct wl_keyboard *k, uint32_t serial,
	 struct wl_surface *s, struct wl_array *keys)
{
	app.serial = serial;
	say("keyboard enter");
}

static void
kb_leave(void *data, struct wl_keyboard *k, uint32_t serial,
	 struct wl_surface *s)
{
	app.leaves++;
	say("keyboard leave");
}

static void
kb_key(void *data, struct wl_keyboard *k, uint32_t serial, uint32_t t,
       uint32_t key, uint32_t state)
{
	app.serial = serial;
}

static void
kb_modifiers(void *data, struct wl_keyboard *k, uint32_t serial, uint32_t a,
	     uint32_t b, uint32_t c, uint32_t d)
{
}

static void
kb_repeat(void *data, struct wl_keyboard *k, int32_t rate, int32_t delay)
{
}

static const struct wl_keyboard_listener keyboard_listener = {
	kb_keymap, kb_enter, kb_leave, kb_key, kb_modifiers, kb_repeat,
};

static void
ptr_enter(void *data, struct wl_pointer *p, uint32_t serial,
	  struct wl_surface *s, wl_fixed_t x, wl_fixed_t y)
{
	say("pointer enter");
}

static void
ptr_leave(void *data, struct wl_pointer *p, uint32_t serial,
	  struct wl_surface *s)
{
	app.leaves++;
	say("pointer leave");
}

static void
ptr_motion(void *data, struct wl_pointer *p, uint32_t t, wl_fixed_t x,
	   wl_fixed_t y)
{
}

static void
ptr_button(void *data, struct wl_pointer *p, uint32_t serial, uint32_t t,
	   uint32_t button, uint32_t state)
{
	app.serial = serial;
}

static void
ptr_axis(void *data, struct wl_pointer *p, uint32_t t, uint32_t axis,
	 wl_fixed_t v)
{
}

static void
ptr_frame(void *data, struct wl_pointer *p)
{
}

static void
ptr_axis_source(void *data, struct wl_pointer *p, uint32_t source)
{
}

static void
ptr_axis_stop(void *data, struct wl_pointer *p, uint32_t t, uint32_t axis)
{
}

static void
ptr_axis_discrete(void *data, struct wl_pointer *p, uint32_t axis,
		  int32_t discrete)
{
}

/* Bound at version 5: no later events. */
static const struct wl_pointer_listener pointer_listener = {
	.enter = ptr_enter, .leave = ptr_leave, .motion = ptr_motion,
	.button = ptr_button, .axis = ptr_axis, .frame = ptr_frame,
	.axis_source = ptr_axis_source, .axis_stop = ptr_axis_stop,
	.axis_discrete = ptr_axis_discrete,
};

static void
seat_caps(void *data, struct wl_seat *seat, uint32_t caps)
{
	if ((caps & WL_SEAT_CAPABILITY_KEYBOARD) && !app.keyboard) {
		app.keyboard = wl_seat_get_keyboard(seat);
		wl_keyboard_add_listener(app.keyboard, &keyboard_listener,
					 NULL);
	}
	if ((caps & WL_SEAT_CAPABILITY_POINTER) && !app.pointer) {
		app.pointer = wl_seat_get_pointer(seat);
		wl_pointer_add_listener(app.pointer, &pointer_listener, NULL);
	}
}

static void
seat_name(void *data, struct wl_seat *seat, const char *name)
{
}

static const struct wl_seat_listener seat_listener = { seat_caps, seat_name };

/* ---- globals ---------------------------------------------------------- */

static void
output_geometry(void *data, struct wl_output *o, int32_t x, int32_t y,
		int32_t pw, int32_t ph, int32_t subpixel, const char *make,
		const char *model, int32_t transform)
{
}

static void
output_mode(void *data, struct wl_output *o, uint32_t flags, int32_t w,
	    int32_t h, int32_t refresh)
{
}

static void
output_done(void *data, struct wl_output *o)
{
}

static void
output_scale(void *data, struct wl_output *o, int32_t factor)
{
}

/* Bound at version 3 at most: no later events. */
static const struct wl_output_listener output_listener = {
	.geometry = output_geometry, .mode = output_mode,
	.done = output_done, .scale = output_scale,
};

/* Bound once, before the anchors are up; outputs are global()'s. */
struct ivwl_client_global fuzz_globals[] = {
	IVWL_CLIENT_GLOBAL(wl_compositor_interface, 4, &app.compositor),
	IVWL_CLIENT_GLOBAL(wl_subcompositor_interface, 1, &app.subcompositor,
			   .optional = true),
	IVWL_CLIENT_GLOBAL(wl_shm_interface, 1, &app.shm),
	IVWL_CLIENT_GLOBAL(xdg_wm_base_interface, 3, &app.wm,
			   .listener = &ivwl_client_wm_base_listener),
	IVWL_CLIENT_GLOBAL(wp_viewporter_interface, 1, &app.viewporter,
			   .optional = true),
	IVWL_CLIENT_GLOBAL(wp_presentation_interface, 1, &app.presentation,
			   .optional = true),
	IVWL_CLIENT_GLOBAL(wl_data_device_manager_interface, 3, &app.ddm,
			   .optional = true),
	IVWL_CLIENT_GLOBAL(wl_seat_interface, 5, &app.seat,
			   .listener = &seat_listener, .optional = true),
	{ 0 },
};

static void
global(void *data, struct wl_registry *r, uint32_t name, const char *iface,
       uint32_t version)
{
	int i;

	if (app.ready) {
		app.globals++;
		say("global %u %s", name, iface);
	}
	if (strcmp(iface, "wl_output") == 0) {
		for (i = 0; i < MAX_OUTPUTS && app.outputs[i]; i++)
			;
		if (i == MAX_OUTPUTS)
			return;
		app.outputs[i] = wl_registry_bind(r, name, &wl_output_interface,
						  version < 3 ? version : 3);
		app.output_names[i] = name;
		wl_output_add_listener(app.outputs[i], &output_listener, NULL);
	} else if (!app.ready) {
		/* the rest only once */
		ivwl_client_bind_global(r, fuzz_globals, name, iface,
					version);
	}
}

static void
global_remove(void *data, struct wl_registry *r, uint32_t name)
{
	int i;

	app.global_remove++;
	say("global_remove %u", name);
	for (i = 0; i < MAX_OUTPUTS; i++)
		if (app.outputs[i] && app.output_names[i] == name) {
			wl_output_release(app.outputs[i]);
			app.outputs[i] = NULL;
		}
}

const struct wl_registry_listener fuzz_registry_listener = {
	global, global_remove,
};

