/* SPDX-License-Identifier: MIT */
/*
 * Title bar clicks (bar.h).  A button binding of the left button, with
 * no modifier, sees every press, as the shell's click-to-activate does;
 * it acts only on a press over a bar's strip (the plate and the button on
 * it take no clicks; the button is told by where the pointer is).  A drag
 * is a pointer grab of the plugin's own that moves the window's view with
 * the pointer until the last button is let go; the strips follow,
 * transform children of it.  The maximize button asks weston for what
 * the client's own button would: xdg_toplevel.set_maximized or
 * unset_maximized, sent on the VM's connection as if the client had,
 * so the shell's policy and the client's configure run as usual.
 */
#include <linux/input.h>
#include <stdlib.h>
#include <string.h>

#include <libweston/libweston.h>
#include "weston-compat.h"

#include "bar.h"
#include "connection.h"
#include "ivwl-plugin.h"
#include "ivwl-protocols.h"
#include "label.h"

struct ivwl_bar {
	struct ivwl_plugin *plugin;
	struct weston_binding *binding;
	/* a drag under way */
	struct weston_pointer_grab grab;
	struct weston_view *window;	/* NULL: none */
	struct wl_listener window_destroy;
	float dx, dy;	/* the window from the pointer */
};

static void
drag_end(struct ivwl_bar *bar)
{
	struct weston_pointer *pointer = bar->grab.pointer;

	if (!bar->window)
		return;
	wl_list_remove(&bar->window_destroy.link);
	bar->window = NULL;
	weston_pointer_end_grab(pointer);
}

static void
on_window_destroy(struct wl_listener *listener, void *data)
{
	struct ivwl_bar *bar = wl_container_of(listener, bar, window_destroy);

	drag_end(bar);
}

static void
grab_focus(struct weston_pointer_grab *grab)
{
}

static void
grab_motion(struct weston_pointer_grab *grab, IVWL_POINTER_MOTION_PARAMS)
{
	struct ivwl_bar *bar = wl_container_of(grab, bar, grab);
	float x, y;

	weston_pointer_move(grab->pointer, event);
	if (!bar->window)
		return;
	ivwl_pointer_pos(grab->pointer, &x, &y);
	ivwl_view_set_global_pos(bar->window, (int32_t)(x + bar->dx),
				 (int32_t)(y + bar->dy));
	weston_view_schedule_repaint(bar->window);
}

static void
grab_button(struct weston_pointer_grab *grab, IVWL_POINTER_BUTTON_PARAMS)
{
	struct ivwl_bar *bar = wl_container_of(grab, bar, grab);

	if (IVWL_POINTER_BUTTON_STATE == WL_POINTER_BUTTON_STATE_RELEASED &&
	    grab->pointer->button_count == 0)
		drag_end(bar);
}

static void
grab_axis(struct weston_pointer_grab *grab, IVWL_POINTER_AXIS_PARAMS)
{
}

static void
grab_axis_source(struct weston_pointer_grab *grab, uint32_t source)
{
}

static void
grab_frame(struct weston_pointer_grab *grab)
{
}

static void
grab_cancel(struct weston_pointer_grab *grab)
{
	struct ivwl_bar *bar = wl_container_of(grab, bar, grab);

	drag_end(bar);
}

static const struct weston_pointer_grab_interface drag_interface = {
	.focus = grab_focus,
	.motion = grab_motion,
	.button = grab_button,
	.axis = grab_axis,
	.axis_source = grab_axis_source,
	.frame = grab_frame,
	.cancel = grab_cancel,
};

/* Raises the window in its layer and gives it the keyboard, as the
 * shell does on a click into a window. */
static void
activate(struct weston_view *window, struct weston_seat *seat)
{
	if (window->layer_link.layer)
		ivwl_view_to_layer(window, window->layer_link.layer);
	weston_view_activate_input(window, seat, WESTON_ACTIVATE_FLAG_CLICKED);
	weston_view_schedule_repaint(window);
}

struct toplevel_search {
	struct weston_desktop_surface *ds;
	uint32_t id;
};

static enum wl_iterator_result
find_toplevel(struct wl_resource *resource, void *data)
{
	struct toplevel_search *search = data;

	if (strcmp(wl_resource_get_class(resource), "xdg_toplevel") != 0 ||
	    ivwl_toplevel_desktop_surface(resource) != search->ds)
		return WL_ITERATOR_CONTINUE;
	search->id = wl_resource_get_id(resource);
	return WL_ITERATOR_STOP;
}

/* Maximizes the VM's window, or gives it back its size. */
static void
toggle_maximized(struct weston_view *window)
{
	struct toplevel_search search = { 0 };
	struct ivwl_connection *conn;
	struct wl_client *client;

	if (!window->surface->resource ||
	    !weston_surface_is_desktop_surface(window->surface))
		return;
	client = wl_resource_get_client(window->surface->resource);
	conn = ivwl_connection_of_client(client);
	if (!conn)
		return;
	search.ds = weston_surface_get_desktop_surface(window->surface);
	wl_client_for_each_resource(client, find_toplevel, &search);
	if (!search.id)
		return;
	if (ivwl_connection_request(conn, search.id,
				    weston_desktop_surface_get_maximized(
					    search.ds) ?
				    IVWL_REQ_XDG_TOPLEVEL_UNSET_MAXIMIZED :
				    IVWL_REQ_XDG_TOPLEVEL_SET_MAXIMIZED) < 0)
		ivwl_connection_kill_later(conn);
}

static void
on_press(struct weston_pointer *pointer, const struct timespec *time,
	 uint32_t button, void *data)
{
	struct ivwl_bar *bar = data;
	struct weston_view *window;
	struct weston_desktop_surface *ds;
	enum ivwl_bar_part part;
	float x, y, wx, wy;

	ivwl_pointer_pos(pointer, &x, &y);
	part = ivwl_label_bar_part(bar->plugin->label, pointer->focus, x,
				  &window, NULL);
	if (part == IVWL_BAR_NONE || bar->window ||
	    pointer->grab != &pointer->default_grab)
		return;
	activate(window, pointer->seat);
	if (part == IVWL_BAR_CLOSE) {
		if (weston_surface_is_desktop_surface(window->surface)) {
			ds = weston_surface_get_desktop_surface(
				window->surface);
			weston_desktop_surface_close(ds);
		}
		return;
	}
	if (part == IVWL_BAR_MAXIMIZE) {
		toggle_maximized(window);
		return;
	}
	ivwl_view_pos(window, &wx, &wy);
	bar->dx = wx - x;
	bar->dy = wy - y;
	bar->window = window;
	bar->window_destroy.notify = on_window_destroy;
	wl_signal_add(&window->destroy_signal, &bar->window_destroy);
	bar->grab.interface = &drag_interface;
	weston_pointer_start_grab(pointer, &bar->grab);
}

struct ivwl_bar *
ivwl_bar_create(struct ivwl_plugin *plugin)
{
	struct ivwl_bar *bar = calloc(1, sizeof(*bar));

	if (!bar)
		return NULL;
	bar->plugin = plugin;
	bar->binding = weston_compositor_add_button_binding(plugin->compositor,
							    BTN_LEFT, 0,
							    on_press, bar);
	if (!bar->binding) {
		free(bar);
		return NULL;
	}
	return bar;
}

void
ivwl_bar_destroy(struct ivwl_bar *bar)
{
	if (!bar)
		return;
	drag_end(bar);
	weston_binding_destroy(bar->binding);
	free(bar);
}
