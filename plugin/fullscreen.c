/* SPDX-License-Identifier: MIT */
/*
 * Fullscreen VM windows (fullscreen.h).  label.c tells which windows are
 * fullscreen through its signal; the notice is one canvas image, drawn
 * again for the VM it names, shown in a layer of the plugin's own above
 * weston's top UI, right below the keyboard indicator.  Pointer motion
 * is watched on every seat for the top edge.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libweston/libweston.h>
#include <libweston/config-parser.h>
#include "weston-compat.h"

#include "binding.h"
#include "canvas.h"
#include "fullscreen.h"
#include "ivwl-plugin.h"
#include "label.h"
#include "log.h"
#include "nameplate.h"
#include "vm.h"

#define DEFAULT_KEY "super+esc"
#define NOTICE_MS 4000	/* how long the notice shows */
#define EDGE_PX 2	/* the top edge the pointer touches */

struct fullscreen_window {
	struct wl_list link;	/* ivwl_fullscreen.windows */
	struct ivwl_vm *vm;
	struct weston_surface *window;
	struct weston_view *view;
};

struct fullscreen_seat {
	struct wl_list link;	/* ivwl_fullscreen.seats */
	struct ivwl_fullscreen *fs;
	struct weston_seat *seat;
	struct weston_pointer *pointer;	/* watched, or NULL */
	struct wl_listener motion;
	struct wl_listener caps;
	struct wl_listener destroy;
	bool at_edge;
};

struct ivwl_fullscreen {
	struct ivwl_plugin *plugin;
	struct wl_listener label_fullscreen;
	struct wl_list windows;
	struct weston_layer layer;
	struct ivwl_canvas_image *image;
	struct weston_surface *surface;	/* the image's, once shown */
	struct wl_listener surface_destroy;
	struct fullscreen_window *named;	/* the notice is of it */
	struct weston_view *notice;		/* a view while it shows */
	struct wl_event_source *hide_timer;
	struct weston_binding *binding;
	char *key;	/* as weston.ini writes it */
	struct wl_listener seat_created;
	struct wl_list seats;
};

static void
notice_hide(struct ivwl_fullscreen *fs)
{
	if (fs->notice)
		weston_view_destroy(fs->notice);
	fs->notice = NULL;
	fs->named = NULL;
}

static int
on_hide_timer(void *data)
{
	notice_hide(data);
	return 0;
}

/* The notice's view at the top middle of the window's output, below
 * the indicator (a plate as high as this one). */
static void
notice_place(struct ivwl_fullscreen *fs)
{
	struct weston_output *o;
	int32_t ox, oy;

	if (!fs->named || !fs->surface)
		return;
	o = fs->named->view->output;
	if (!o) {
		notice_hide(fs);
		return;
	}
	if (!fs->notice) {
		fs->notice = weston_view_create(fs->surface);
		if (!fs->notice)
			return;
		ivwl_view_to_layer(fs->notice, &fs->layer);
	}
	ivwl_output_pos(o, &ox, &oy);
	ivwl_view_set_global_pos(fs->notice,
				 ox + (o->width - fs->surface->width) / 2,
				 oy + 2 * fs->surface->height);
	fs->surface->is_mapped = true;
	fs->notice->is_mapped = true;
	weston_view_geometry_dirty(fs->notice);
	weston_view_schedule_repaint(fs->notice);
}

/* Names w's VM for NOTICE_MS, drawn anew when another VM's was up. */
static void
notice_show(struct ivwl_fullscreen *fs, struct fullscreen_window *w)
{
	char title[128];
	struct ivwl_nameplate plate = {
		.font = fs->plugin->font,
		.name = w->vm->name,
		.title = title,
		.argb = w->vm->color,
		.max_width = 4096,
	};
	cairo_surface_t *pixels;
	int natural;
	bool same = fs->named && fs->named->vm == w->vm;

	fs->named = w;
	wl_event_source_timer_update(fs->hide_timer, NOTICE_MS);
	if (!fs->image)
		return;
	if (same && fs->notice) {
		notice_place(fs);
		return;
	}
	snprintf(title, sizeof(title), "is full screen \u2014 %s leaves",
		 fs->key);
	pixels = ivwl_nameplate_draw(&plate, &natural);
	if (!pixels)
		return;
	ivwl_canvas_image_show_cairo(fs->image, pixels);
	cairo_surface_destroy(pixels);
}

static void
on_surface_destroy(struct wl_listener *listener, void *data)
{
	struct ivwl_fullscreen *fs =
		wl_container_of(listener, fs, surface_destroy);

	/* weston destroys the view with it */
	wl_list_remove(&fs->surface_destroy.link);
	fs->surface = NULL;
	fs->notice = NULL;
	fs->named = NULL;
}

static void
on_shown(void *data, struct weston_surface *surface)
{
	struct ivwl_fullscreen *fs = data;

	if (!fs->surface) {
		fs->surface = surface;
		fs->surface_destroy.notify = on_surface_destroy;
		wl_signal_add(&surface->destroy_signal, &fs->surface_destroy);
	}
	notice_place(fs);
}

static struct fullscreen_window *
window_find(struct ivwl_fullscreen *fs, struct weston_surface *window)
{
	struct fullscreen_window *w;

	wl_list_for_each(w, &fs->windows,
			 link) if (w->window == window) return w;
	return NULL;
}

static void
on_label_fullscreen(struct wl_listener *listener, void *data)
{
	struct ivwl_fullscreen *fs =
		wl_container_of(listener, fs, label_fullscreen);
	const struct ivwl_label_fullscreen *ev = data;
	struct fullscreen_window *w = window_find(fs, ev->window);

	if (!ev->on) {
		if (!w)
			return;
		if (fs->named == w)
			notice_hide(fs);
		wl_list_remove(&w->link);
		free(w);
		return;
	}
	if (!w) {
		w = calloc(1, sizeof(*w));
		if (!w) {
			ivwl_log("out of memory: no notice for %s's fullscreen "
				 "window",
				 ev->vm->name);
			return;
		}
		w->vm = ev->vm;
		w->window = ev->window;
		wl_list_insert(&fs->windows, &w->link);
	}
	w->view = ev->view;
	notice_show(fs, w);
}

/* The fullscreen window on output o, if one is. */
static struct fullscreen_window *
window_on(struct ivwl_fullscreen *fs, struct weston_output *o)
{
	struct fullscreen_window *w;

	wl_list_for_each(w, &fs->windows,
			 link) if (w->view->output == o) return w;
	return NULL;
}

static void
on_motion(struct wl_listener *listener, void *data)
{
	struct fullscreen_seat *s = wl_container_of(listener, s, motion);
	struct weston_compositor *ec = s->fs->plugin->compositor;
	struct fullscreen_window *w = NULL;
	struct weston_output *o;
	int32_t ox, oy;
	float px, py;
	bool at_edge = false;

	ivwl_pointer_pos(s->pointer, &px, &py);
	wl_list_for_each(o, &ec->output_list, link)
	{
		ivwl_output_pos(o, &ox, &oy);
		if (px >= ox && px < ox + o->width && py >= oy &&
		    py < oy + EDGE_PX) {
			w = window_on(s->fs, o);
			at_edge = w != NULL;
			break;
		}
	}
	/* on arriving at the edge, not on every motion along it */
	if (at_edge && !s->at_edge)
		notice_show(s->fs, w);
	s->at_edge = at_edge;
}

static void
seat_watch_pointer(struct fullscreen_seat *s)
{
	struct weston_pointer *p = weston_seat_get_pointer(s->seat);

	if (p == s->pointer)
		return;
	if (s->pointer)
		wl_list_remove(&s->motion.link);
	s->pointer = p;
	if (p) {
		s->motion.notify = on_motion;
		wl_signal_add(&p->motion_signal, &s->motion);
	}
}

static void
on_caps(struct wl_listener *listener, void *data)
{
	struct fullscreen_seat *s = wl_container_of(listener, s, caps);

	seat_watch_pointer(s);
}

static void
seat_forget(struct fullscreen_seat *s)
{
	if (s->pointer)
		wl_list_remove(&s->motion.link);
	wl_list_remove(&s->caps.link);
	wl_list_remove(&s->destroy.link);
	wl_list_remove(&s->link);
	free(s);
}

static void
on_seat_destroy(struct wl_listener *listener, void *data)
{
	struct fullscreen_seat *s = wl_container_of(listener, s, destroy);

	seat_forget(s);
}

static void
seat_add(struct ivwl_fullscreen *fs, struct weston_seat *seat)
{
	struct fullscreen_seat *s = calloc(1, sizeof(*s));

	if (!s) {
		ivwl_log("out of memory: the pointer of seat %s does not show "
			 "the fullscreen notice",
			 seat->seat_name);
		return;
	}
	s->fs = fs;
	s->seat = seat;
	s->caps.notify = on_caps;
	wl_signal_add(&seat->updated_caps_signal, &s->caps);
	s->destroy.notify = on_seat_destroy;
	wl_signal_add(&seat->destroy_signal, &s->destroy);
	wl_list_insert(&fs->seats, &s->link);
	seat_watch_pointer(s);
}

static void
on_seat_created(struct wl_listener *listener, void *data)
{
	struct ivwl_fullscreen *fs =
		wl_container_of(listener, fs, seat_created);

	seat_add(fs, data);
}

/*
 * The key: every VM window leaves fullscreen.  The window gets a
 * configure without the state and a size of its own choosing; the shell
 * puts it back where it was once it commits that.
 */
static void
on_leave_key(struct weston_keyboard *keyboard, const struct timespec *time,
	     uint32_t key, void *data)
{
	struct ivwl_fullscreen *fs = data;
	struct fullscreen_window *w;
	struct weston_desktop_surface *ds;

	wl_list_for_each(w, &fs->windows, link)
	{
		if (!weston_surface_is_desktop_surface(w->window))
			continue;
		ds = weston_surface_get_desktop_surface(w->window);
		weston_desktop_surface_set_fullscreen(ds, false);
		weston_desktop_surface_set_size(ds, 0, 0);
		ivwl_log("[%s] %s: its fullscreen window leaves fullscreen",
			 w->vm->name, fs->key);
	}
	notice_hide(fs);
}

static bool
binding_add(struct ivwl_fullscreen *fs)
{
	struct weston_config_section *s;
	enum weston_keyboard_modifier mods;
	uint32_t key;

	s = weston_config_get_section(wet_get_config(fs->plugin->compositor),
				      "ivwl", NULL, NULL);
	weston_config_section_get_string(s, "leave-fullscreen-key", &fs->key,
					 DEFAULT_KEY);
	if (!fs->key || !ivwl_binding_parse(fs->key, &key, &mods)) {
		ivwl_log("[ivwl] leave-fullscreen-key=%s: want modifiers and "
			 "a key, as in %s",
			 fs->key ? fs->key : "", DEFAULT_KEY);
		return false;
	}
	fs->binding =
		weston_compositor_add_key_binding(fs->plugin->compositor, key,
						  mods, on_leave_key, fs);
	return fs->binding != NULL;
}

struct ivwl_fullscreen *
ivwl_fullscreen_create(struct ivwl_plugin *plugin)
{
	struct weston_compositor *ec = plugin->compositor;
	struct ivwl_fullscreen *fs = calloc(1, sizeof(*fs));
	struct weston_seat *seat;

	if (!fs)
		return NULL;
	fs->plugin = plugin;
	wl_list_init(&fs->windows);
	wl_list_init(&fs->seats);
	if (!binding_add(fs))
		goto err_fs;
	fs->hide_timer = wl_event_loop_add_timer(wl_display_get_event_loop(
							 plugin->display),
						 on_hide_timer, fs);
	if (!fs->hide_timer)
		goto err_binding;
	/* without a canvas (logged): the frame, no notice */
	fs->image =
		ivwl_canvas_image_create(plugin->canvas, false, on_shown, fs);
	weston_layer_init(&fs->layer, ec);
	weston_layer_set_position(&fs->layer, WESTON_LAYER_POSITION_TOP_UI);
	fs->label_fullscreen.notify = on_label_fullscreen;
	ivwl_label_add_fullscreen_listener(plugin->label,
					   &fs->label_fullscreen);
	fs->seat_created.notify = on_seat_created;
	wl_signal_add(&ec->seat_created_signal, &fs->seat_created);
	wl_list_for_each(seat, &ec->seat_list, link) seat_add(fs, seat);
	return fs;

err_binding:
	weston_binding_destroy(fs->binding);
err_fs:
	free(fs->key);
	free(fs);
	return NULL;
}

void
ivwl_fullscreen_destroy(struct ivwl_fullscreen *fs)
{
	struct fullscreen_window *w, *wtmp;
	struct fullscreen_seat *s, *stmp;

	if (!fs)
		return;
	notice_hide(fs);
	if (fs->surface)
		wl_list_remove(&fs->surface_destroy.link);
	wl_list_for_each_safe(w, wtmp, &fs->windows, link)
	{
		wl_list_remove(&w->link);
		free(w);
	}
	wl_list_for_each_safe(s, stmp, &fs->seats, link) seat_forget(s);
	wl_list_remove(&fs->seat_created.link);
	wl_list_remove(&fs->label_fullscreen.link);
	weston_layer_fini(&fs->layer);
	ivwl_canvas_image_destroy(fs->image);
	wl_event_source_remove(fs->hide_timer);
	weston_binding_destroy(fs->binding);
	free(fs->key);
	free(fs);
}
