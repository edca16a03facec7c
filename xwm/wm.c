/* SPDX-License-Identifier: MIT */
/*
 * ivwl-xwm's window manager (wm.h).  X toplevels come through
 * MapRequest (the manager maps them), menus and tooltips map themselves
 * (override-redirect).  Xwayland names each window's wl_surface in a
 * WL_SURFACE_ID client message once it made it, in either order with
 * the map: the window goes to the proxy when both are known.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <xcb/composite.h>
#include <xcb/xcb.h>

#include "atoms.h"
#include "frame.h"
#include "log.h"
#include "mono-time.h"
#include "proxy.h"
#include "selection.h"
#include "wm.h"

#define TITLE_MAX 1024u
/*
 * A close the application has not acted on this long after the ask,
 * and whose _NET_WM_PING it has not answered either, lets the next one
 * disconnect it.  One that does not take the ping is given that
 * benefit only until CLOSE_INSIST_MS (the user insists on a hung one);
 * a close after that asks anew.
 */
#define CLOSE_PATIENCE_MS 5000
#define CLOSE_INSIST_MS 30000

enum atom {
	WL_SURFACE_ID,
	WM_PROTOCOLS,
	WM_DELETE_WINDOW,
	NET_WM_NAME,
	UTF8_STRING,
	NET_WM_STATE,
	NET_WM_STATE_FULLSCREEN,
	NET_ACTIVE_WINDOW,
	NET_SUPPORTING_WM_CHECK,
	NET_SUPPORTED,
	NET_FRAME_EXTENTS,
	NET_WM_PING,
	ATOM_COUNT,
};

static const char *const atom_names[ATOM_COUNT] = {
	[WL_SURFACE_ID] = "WL_SURFACE_ID",
	[WM_PROTOCOLS] = "WM_PROTOCOLS",
	[WM_DELETE_WINDOW] = "WM_DELETE_WINDOW",
	[NET_WM_NAME] = "_NET_WM_NAME",
	[UTF8_STRING] = "UTF8_STRING",
	[NET_WM_STATE] = "_NET_WM_STATE",
	[NET_WM_STATE_FULLSCREEN] = "_NET_WM_STATE_FULLSCREEN",
	[NET_ACTIVE_WINDOW] = "_NET_ACTIVE_WINDOW",
	[NET_SUPPORTING_WM_CHECK] = "_NET_SUPPORTING_WM_CHECK",
	[NET_SUPPORTED] = "_NET_SUPPORTED",
	[NET_FRAME_EXTENTS] = "_NET_FRAME_EXTENTS",
	[NET_WM_PING] = "_NET_WM_PING",
};

struct window {
	xcb_window_t id;
	uint32_t surface;		/* Xwayland's wl_surface, 0: none */
	bool override_redirect;
	bool map_requested;		/* a toplevel the manager mapped */
	bool mapped;
	bool shown;			/* given to the proxy */
	bool asked_fullscreen;		/* the X application's wish */
	bool fullscreen, maximized, active;	/* the compositor's states */
	bool decorated;		/* the compositor draws its title bar */
	xcb_window_t owner;		/* a child's: what it is shown over */
	xcb_window_t frame;		/* a toplevel's (frame.h), 0: none */
	uint16_t bar;			/* its title bar's height now */
	/* its size before the compositor maximized it or made it
	 * fullscreen: a configure of 0x0 after either gives it back */
	uint16_t normal_width, normal_height;
	int64_t close_asked;		/* when a close was asked, ms */
	bool answered;			/* its client answered the ping */
	enum ivwl_xwm_frame_part pressed;	/* a bar's button, held */
	/* on the root: the frame's geometry for a framed window */
	int16_t x, y;
	uint16_t width, height;
	struct window *next;
};

struct ivwl_xwm_wm {
	xcb_connection_t *conn;
	xcb_screen_t *screen;
	xcb_atom_t atom[ATOM_COUNT];
	xcb_window_t check;		/* _NET_SUPPORTING_WM_CHECK */
	struct ivwl_xwm_proxy *proxy;
	struct ivwl_xwm_selection *selection;	/* NULL: no clipboard */
	struct ivwl_xwm_frames *frames;		/* NULL: no frames */
	struct window *windows;
	xcb_window_t focus;		/* the last window activated */
};

static struct window *
find(struct ivwl_xwm_wm *wm, xcb_window_t id)
{
	struct window *w;

	for (w = wm->windows; w; w = w->next)
		if (w->id == id)
			return w;
	return NULL;
}

static struct window *
find_frame(struct ivwl_xwm_wm *wm, xcb_window_t frame)
{
	struct window *w;

	for (w = wm->windows; w && frame; w = w->next)
		if (w->frame == frame)
			return w;
	return NULL;
}

static struct window *
find_surface(struct ivwl_xwm_wm *wm, uint32_t surface)
{
	struct window *w;

	for (w = wm->windows; w && surface; w = w->next)
		if (w->surface == surface)
			return w;
	return NULL;
}

/* A property's value (malloc'ed, NUL-terminated), or NULL. */
static char *
property(struct ivwl_xwm_wm *wm, xcb_window_t win, xcb_atom_t prop,
	 xcb_atom_t type, uint32_t *len)
{
	xcb_get_property_reply_t *r;
	char *value = NULL;
	int n;

	r = xcb_get_property_reply(wm->conn, xcb_get_property(wm->conn, 0, win,
			prop, type, 0, TITLE_MAX / 4), NULL);
	if (!r)
		return NULL;
	n = xcb_get_property_value_length(r);
	if (r->type != XCB_ATOM_NONE && n >= 0 &&
	    (value = malloc((size_t)n + 1))) {
		memcpy(value, xcb_get_property_value(r), (size_t)n);
		value[n] = '\0';
		if (len)
			*len = (uint32_t)n;
	}
	free(r);
	return value;
}

static char *
title_of(struct ivwl_xwm_wm *wm, xcb_window_t win)
{
	char *t = property(wm, win, wm->atom[NET_WM_NAME],
			   wm->atom[UTF8_STRING], NULL);

	return t ? t : property(wm, win, XCB_ATOM_WM_NAME, XCB_ATOM_STRING,
				NULL);
}

static void
draw_frame(struct ivwl_xwm_wm *wm, struct window *w)
{
	char *title;

	if (!w->frame || !w->bar)
		return;
	title = title_of(wm, w->id);
	ivwl_xwm_frame_draw(wm->frames, w->frame, w->width, title, w->active);
	free(title);
}

/* WM_CLASS is "instance\0class\0": the class names the application. */
static char *
app_id_of(struct ivwl_xwm_wm *wm, xcb_window_t win)
{
	uint32_t len = 0, first;
	char *v = property(wm, win, XCB_ATOM_WM_CLASS, XCB_ATOM_STRING, &len);
	char *app;

	if (!v)
		return NULL;
	first = (uint32_t)strnlen(v, len);
	app = first + 1 < len ? strdup(v + first + 1) : strdup(v);
	free(v);
	return app;
}

static xcb_window_t
transient_for(struct ivwl_xwm_wm *wm, xcb_window_t win)
{
	uint32_t len = 0;
	xcb_window_t parent = XCB_NONE;
	char *v = property(wm, win, XCB_ATOM_WM_TRANSIENT_FOR,
			   XCB_ATOM_WINDOW, &len);

	if (v && len >= sizeof(parent))
		memcpy(&parent, v, sizeof(parent));
	free(v);
	return parent;
}

/* Whether the ATOM list property prop of win holds atom. */
static bool
lists_atom(struct ivwl_xwm_wm *wm, xcb_window_t win, xcb_atom_t prop,
	   xcb_atom_t atom)
{
	uint32_t len = 0, i;
	xcb_atom_t a;
	char *v = property(wm, win, prop, XCB_ATOM_ATOM, &len);
	bool yes = false;

	for (i = 0; v && i + sizeof(a) <= len; i += sizeof(a)) {
		memcpy(&a, v + i, sizeof(a));
		yes |= a == atom;
	}
	free(v);
	return yes;
}

static bool
supports_delete(struct ivwl_xwm_wm *wm, xcb_window_t win)
{
	return lists_atom(wm, win, wm->atom[WM_PROTOCOLS],
			  wm->atom[WM_DELETE_WINDOW]);
}

/* The toplevel a menu or tooltip belongs to: its transient-for, else
 * the window the user works in. */
static struct window *
owner_of(struct ivwl_xwm_wm *wm, struct window *w)
{
	struct window *o = find(wm, transient_for(wm, w->id));

	if (!o || !o->shown)
		o = find(wm, wm->focus);
	if (!o || !o->shown || o->override_redirect) {
		for (o = wm->windows; o; o = o->next)
			if (o->shown && !o->override_redirect)
				break;
	}
	return o;
}

/* Both the map and the surface are known: the proxy gets the window. */
static void
show(struct ivwl_xwm_wm *wm, struct window *w)
{
	struct window *parent;
	char *title, *app_id;
	int ret;

	if (w->shown || !w->surface || !w->mapped)
		return;
	if (w->override_redirect) {
		parent = owner_of(wm, w);
		if (!parent)
			return;		/* nothing to show it over */
		w->owner = parent->id;
		ret = ivwl_xwm_proxy_child(wm->proxy, w->surface,
					   parent->surface, w->x - parent->x,
					   w->y - parent->y);
	} else {
		title = title_of(wm, w->id);
		app_id = app_id_of(wm, w->id);
		parent = find(wm, transient_for(wm, w->id));
		if (w->asked_fullscreen)
			ivwl_xwm_proxy_set_fullscreen(wm->proxy, w->surface,
						      true);
		ret = ivwl_xwm_proxy_toplevel(wm->proxy, w->surface,
					      title ? title : "",
					      app_id, parent && parent->shown ?
					      parent->surface : 0);
		free(title);
		free(app_id);
	}
	if (ret < 0)
		ivwl_log_error("X window 0x%x could not be shown", w->id);
	ivwl_log_debug("X window 0x%x: wl_surface@%u shown as %s", w->id,
		       w->surface, w->override_redirect ? "a child" :
		       "a toplevel");
	w->shown = true;
}

static void
hide(struct ivwl_xwm_wm *wm, struct window *w)
{
	if (w->surface)
		ivwl_xwm_proxy_unmap(wm->proxy, w->surface);
	if (w->frame)
		xcb_unmap_window(wm->conn, w->frame);
	/* Xwayland makes a new surface for the next map */
	w->surface = 0;
	w->shown = false;
	w->mapped = false;
}

static void
on_create(struct ivwl_xwm_wm *wm, xcb_create_notify_event_t *e)
{
	struct window *w;

	if (e->window == wm->check || find(wm, e->window) ||
	    find_frame(wm, e->window))
		return;
	w = calloc(1, sizeof(*w));
	if (!w) {
		ivwl_log_error("out of memory for an X window");
		return;
	}
	w->id = e->window;
	w->override_redirect = e->override_redirect;
	w->x = e->x;
	w->y = e->y;
	w->width = e->width;
	w->height = e->height;
	w->next = wm->windows;
	wm->windows = w;
}

static void
on_destroy(struct ivwl_xwm_wm *wm, xcb_window_t id)
{
	struct window **pp, *w;

	for (pp = &wm->windows; (w = *pp); pp = &w->next) {
		if (w->id != id)
			continue;
		if (w->shown)
			hide(wm, w);
		if (w->frame)
			xcb_destroy_window(wm->conn, w->frame);
		*pp = w->next;
		free(w);
		return;
	}
}

/*
 * Where a framed window is on the root, as ICCCM has the window manager
 * tell (a synthetic ConfigureNotify): X toolkits place their menus by
 * it, and the real event only gives the place in the frame.
 */
static void
tell_position(struct ivwl_xwm_wm *wm, struct window *w)
{
	xcb_configure_notify_event_t e = {
		.response_type = XCB_CONFIGURE_NOTIFY,
		.event = w->id, .window = w->id,
		.x = w->x, .y = (int16_t)(w->y + w->bar),
		.width = w->width,
		.height = (uint16_t)(w->height - w->bar),
	};

	xcb_send_event(wm->conn, 0, w->id, XCB_EVENT_MASK_STRUCTURE_NOTIFY,
		       (const char *)&e);
}

/*
 * The height of the bar a framed window should have: none where the
 * compositor draws its own (decorated) or the window is fullscreen
 * (ivwl.so makes a VM's fullscreen a maximize: the wish counts).
 */
static uint16_t
bar_height(const struct window *w)
{
	return w->fullscreen || w->asked_fullscreen || w->decorated ? 0 :
	       IVWL_XWM_TITLE_HEIGHT;
}

static void
set_frame_extents(struct ivwl_xwm_wm *wm, struct window *w)
{
	uint32_t extents[4] = { 0, 0, w->bar, 0 };

	xcb_change_property(wm->conn, XCB_PROP_MODE_REPLACE, w->id,
			    wm->atom[NET_FRAME_EXTENTS], XCB_ATOM_CARDINAL, 32,
			    4, extents);
}

/*
 * Kept free of a window fitted to the screen, for its title bar and
 * frame: ivwl-xwm's bar (IVWL_XWM_TITLE_HEIGHT) or the compositor's
 * decoration, whose size ivwl-xwm is not told (ivwl.so's takes 41 px
 * of height with its default font, its bar, attention bar and borders,
 * and 8 px of width).
 */
#define FIT_ROOM_X 16
#define FIT_ROOM_Y (2 * IVWL_XWM_TITLE_HEIGHT)

/*
 * The largest size the window manager grants a window that is not
 * fullscreen: the screen less FIT_ROOM_*, so that its bar and buttons
 * stay within reach, as a window manager fits a window (gnumeric's Save
 * dialog asks 1096x880 on a 1024x768 screen).  The size is the
 * client's own window's, without ivwl-xwm's bar.
 */
static void
fit_size(const struct ivwl_xwm_wm *wm, const struct window *w,
	 uint16_t *width, uint16_t *height)
{
	const uint16_t sw = wm->screen->width_in_pixels;
	const uint16_t sh = wm->screen->height_in_pixels;
	const bool windowed = !w->fullscreen && !w->asked_fullscreen;
	const uint16_t room_x = windowed ? FIT_ROOM_X : 0;
	const uint16_t room_y = windowed ? FIT_ROOM_Y : 0;

	if (*width > sw - room_x)
		*width = (uint16_t)(sw > room_x ? sw - room_x : 1);
	if (*height > sh - room_y)
		*height = (uint16_t)(sh > room_y ? sh - room_y : 1);
	if (!*width)
		*width = 1;
	if (!*height)
		*height = 1;
}

/* A window larger than fit_size() is given that, before it is framed. */
static void
fit_screen(struct ivwl_xwm_wm *wm, struct window *w)
{
	uint16_t width = w->width, height = w->height;
	uint32_t size[2];

	fit_size(wm, w, &width, &height);
	if (width == w->width && height == w->height)
		return;
	w->width = width;
	w->height = height;
	size[0] = width;
	size[1] = height;
	xcb_configure_window(wm->conn, w->id, XCB_CONFIG_WINDOW_WIDTH |
			     XCB_CONFIG_WINDOW_HEIGHT, size);
}

/* The window goes into a frame of its own, under its title bar; the
 * frame takes its place on the root. */
static void
frame_window(struct ivwl_xwm_wm *wm, struct window *w)
{
	fit_screen(wm, w);
	w->frame = ivwl_xwm_frame_create(wm->frames, w->x, w->y, w->width,
					 w->height);
	w->bar = bar_height(w);
	w->height = (uint16_t)(w->height + w->bar);
	/* if ivwl-xwm goes, the window goes back to the root, not away */
	xcb_change_save_set(wm->conn, XCB_SET_MODE_INSERT, w->id);
	xcb_reparent_window(wm->conn, w->id, w->frame, 0, (int16_t)w->bar);
	set_frame_extents(wm, w);
}

static void
on_map_request(struct ivwl_xwm_wm *wm, xcb_map_request_event_t *e)
{
	struct window *w = find(wm, e->window);
	const uint32_t mask = XCB_EVENT_MASK_PROPERTY_CHANGE |
			      XCB_EVENT_MASK_FOCUS_CHANGE;

	const uint32_t no_border = 0;

	xcb_change_window_attributes(wm->conn, e->window, XCB_CW_EVENT_MASK,
				     &mask);
	/* the frame is the compositor's; an X border would be drawn into
	 * the window's buffer */
	xcb_configure_window(wm->conn, e->window,
			     XCB_CONFIG_WINDOW_BORDER_WIDTH, &no_border);
	/* EWMH: a window asks for its first state in this property */
	if (w && !w->map_requested &&
	    lists_atom(wm, e->window, wm->atom[NET_WM_STATE],
		       wm->atom[NET_WM_STATE_FULLSCREEN]))
		w->asked_fullscreen = true;
	if (w && !w->override_redirect && !w->frame && wm->frames)
		frame_window(wm, w);
	xcb_map_window(wm->conn, e->window);
	if (w && w->frame) {
		xcb_map_window(wm->conn, w->frame);
		tell_position(wm, w);
	}
	if (w)
		w->map_requested = true;
}

static void
on_map_notify(struct ivwl_xwm_wm *wm, xcb_map_notify_event_t *e)
{
	struct window *w = find(wm, e->window);

	if (!w)
		return;
	w->override_redirect = e->override_redirect;
	w->mapped = true;
	show(wm, w);
}

/* The client's own window and its frame, the bar above it. */
static void
place_in_frame(struct ivwl_xwm_wm *wm, struct window *w, uint16_t width,
	       uint16_t height)
{
	uint32_t frame[2] = { width, (uint32_t)height + w->bar };
	uint32_t client[4] = { 0, w->bar, width, height };

	xcb_configure_window(wm->conn, w->frame, XCB_CONFIG_WINDOW_WIDTH |
			     XCB_CONFIG_WINDOW_HEIGHT, frame);
	xcb_configure_window(wm->conn, w->id, XCB_CONFIG_WINDOW_X |
			     XCB_CONFIG_WINDOW_Y | XCB_CONFIG_WINDOW_WIDTH |
			     XCB_CONFIG_WINDOW_HEIGHT, client);
	w->width = width;
	w->height = (uint16_t)(height + w->bar);
	tell_position(wm, w);
}

/* A framed window asks for a size: it and its frame get it. */
static void
framed_configure_request(struct ivwl_xwm_wm *wm, struct window *w,
			 xcb_configure_request_event_t *e)
{
	uint16_t width = e->value_mask & XCB_CONFIG_WINDOW_WIDTH ? e->width :
			 w->width;
	uint16_t height = e->value_mask & XCB_CONFIG_WINDOW_HEIGHT ?
			  e->height : (uint16_t)(w->height - w->bar);

	fit_size(wm, w, &width, &height);
	place_in_frame(wm, w, width, height);
	draw_frame(wm, w);
}

/*
 * What a window not yet framed was granted is its geometry from now on
 * (ICCCM): its map request can come before the configure notify of a
 * resize it asked for just before (Tk does so), and the frame is made
 * at the map request.
 */
static void
granted(struct window *w, const xcb_configure_request_event_t *e,
	uint16_t mask)
{
	if (mask & XCB_CONFIG_WINDOW_X)
		w->x = e->x;
	if (mask & XCB_CONFIG_WINDOW_Y)
		w->y = e->y;
	if (mask & XCB_CONFIG_WINDOW_WIDTH)
		w->width = e->width;
	if (mask & XCB_CONFIG_WINDOW_HEIGHT)
		w->height = e->height;
}

static void
on_configure_request(struct ivwl_xwm_wm *wm,
		     xcb_configure_request_event_t *e)
{
	struct window *w = find(wm, e->window);
	uint32_t values[7], n = 0;
	uint16_t mask = e->value_mask & (XCB_CONFIG_WINDOW_X |
		XCB_CONFIG_WINDOW_Y | XCB_CONFIG_WINDOW_WIDTH |
		XCB_CONFIG_WINDOW_HEIGHT | XCB_CONFIG_WINDOW_BORDER_WIDTH);

	if (mask & XCB_CONFIG_WINDOW_X)
		values[n++] = (uint32_t)(int32_t)e->x;
	if (mask & XCB_CONFIG_WINDOW_Y)
		values[n++] = (uint32_t)(int32_t)e->y;
	if (mask & XCB_CONFIG_WINDOW_WIDTH)
		values[n++] = e->width;
	if (mask & XCB_CONFIG_WINDOW_HEIGHT)
		values[n++] = e->height;
	if (mask & XCB_CONFIG_WINDOW_BORDER_WIDTH)
		values[n++] = 0;	/* the frame is the compositor's */
	if (w && w->frame) {
		framed_configure_request(wm, w, e);
		return;
	}
	xcb_configure_window(wm->conn, e->window, mask, values);
	if (w)
		granted(w, e, mask);
}

static void
on_configure_notify(struct ivwl_xwm_wm *wm, xcb_configure_notify_event_t *e)
{
	struct window *w = find(wm, e->window), *owner;

	if (!w && (w = find_frame(wm, e->window))) {
		w->x = e->x;
		w->y = e->y;
		w->width = e->width;
		w->height = e->height;
		tell_position(wm, w);
		return;
	}
	if (!w || w->frame)
		return;		/* in its frame: the frame's geometry counts */
	w->x = e->x;
	w->y = e->y;
	w->width = e->width;
	w->height = e->height;
	if (w->shown && w->override_redirect && w->owner &&
	    (owner = find(wm, w->owner)))
		ivwl_xwm_proxy_move_child(wm->proxy, w->surface,
					  w->x - owner->x, w->y - owner->y);
}

static void
on_property(struct ivwl_xwm_wm *wm, xcb_property_notify_event_t *e)
{
	struct window *w = find(wm, e->window);
	char *title;

	if (!w || !w->shown || w->override_redirect ||
	    (e->atom != XCB_ATOM_WM_NAME && e->atom != wm->atom[NET_WM_NAME]))
		return;
	title = title_of(wm, w->id);
	if (title)
		ivwl_xwm_proxy_set_title(wm->proxy, w->surface, title);
	free(title);
	draw_frame(wm, w);
}

/* _NET_WM_STATE: 0 remove, 1 add, 2 toggle. */
static void
on_wm_state(struct ivwl_xwm_wm *wm, struct window *w,
	    const xcb_client_message_data_t *d)
{
	bool want;

	if (d->data32[1] != wm->atom[NET_WM_STATE_FULLSCREEN] &&
	    d->data32[2] != wm->atom[NET_WM_STATE_FULLSCREEN])
		return;
	want = d->data32[0] == 2 ? !w->asked_fullscreen : d->data32[0] == 1;
	w->asked_fullscreen = want;
	if (w->surface)
		ivwl_xwm_proxy_set_fullscreen(wm->proxy, w->surface, want);
}

static void
on_client_message(struct ivwl_xwm_wm *wm, xcb_client_message_event_t *e)
{
	struct window *w = find(wm, e->window);

	/* a client answers _NET_WM_PING by sending it to the root */
	if (e->window == wm->screen->root &&
	    e->type == wm->atom[WM_PROTOCOLS] &&
	    e->data.data32[0] == wm->atom[NET_WM_PING]) {
		w = find(wm, e->data.data32[2]);
		if (w)
			w->answered = true;
		return;
	}
	/* Xwayland names the surface of the root's child: the frame */
	if (!w && e->type == wm->atom[WL_SURFACE_ID])
		w = find_frame(wm, e->window);
	if (!w)
		return;
	if (e->type == wm->atom[WL_SURFACE_ID]) {
		ivwl_log_debug("X window 0x%x is wl_surface@%u", e->window,
			       e->data.data32[0]);
		if (w->shown)
			ivwl_xwm_proxy_unmap(wm->proxy, w->surface);
		w->shown = false;
		w->surface = e->data.data32[0];
		w->mapped = w->mapped || w->map_requested;
		show(wm, w);
	} else if (e->type == wm->atom[NET_WM_STATE]) {
		on_wm_state(wm, w, &e->data);
	}
}

/* WM_PROTOCOLS' message data (WM_DELETE_WINDOW, _NET_WM_PING) to w. */
static void
send_protocol(struct ivwl_xwm_wm *wm, struct window *w, xcb_atom_t protocol)
{
	xcb_client_message_event_t e = {
		.response_type = XCB_CLIENT_MESSAGE, .format = 32,
		.window = w->id, .type = wm->atom[WM_PROTOCOLS],
	};

	e.data.data32[0] = protocol;
	e.data.data32[1] = XCB_CURRENT_TIME;
	e.data.data32[2] = w->id;
	xcb_send_event(wm->conn, 0, w->id, XCB_EVENT_MASK_NO_EVENT,
		       (const char *)&e);
}

/* Politely if it speaks WM_DELETE_WINDOW, else its client goes; so does
 * one that let an ask go unheeded (CLOSE_PATIENCE_MS). */
static void
close_window(struct ivwl_xwm_wm *wm, struct window *w)
{
	int64_t now = ivwl_now_ms(), age = now - w->close_asked;
	bool pings = lists_atom(wm, w->id, wm->atom[WM_PROTOCOLS],
				wm->atom[NET_WM_PING]);
	bool unheeded = w->close_asked && age > CLOSE_PATIENCE_MS &&
			(pings ? !w->answered : age < CLOSE_INSIST_MS);

	if (!supports_delete(wm, w->id) || unheeded) {
		ivwl_log_debug("X window 0x%x: its client is disconnected",
			       w->id);
		xcb_kill_client(wm->conn, w->id);
		xcb_flush(wm->conn);
		return;
	}
	if (!w->close_asked || w->answered || age >= CLOSE_INSIST_MS) {
		w->close_asked = now;
		w->answered = false;
	}
	send_protocol(wm, w, wm->atom[WM_DELETE_WINDOW]);
	if (pings)
		send_protocol(wm, w, wm->atom[NET_WM_PING]);
	xcb_flush(wm->conn);
}

/*
 * A drag of the title bar moves the window at once (the compositor
 * wants the button still down); its buttons act when released over
 * them, after X has seen the release: the window changing size under a
 * held button would leave X's implicit grab behind when the compositor
 * sends the release nowhere.
 */
static void
on_button(struct ivwl_xwm_wm *wm, xcb_button_press_event_t *e, bool press)
{
	struct window *w = find_frame(wm, e->event);
	enum ivwl_xwm_frame_part part;

	if (!w || !w->shown || e->detail != 1)
		return;
	part = ivwl_xwm_frame_hit(w->width, e->event_x, e->event_y);
	if (press) {
		w->pressed = part;
		if (part == IVWL_XWM_FRAME_TITLE)
			ivwl_xwm_proxy_move(wm->proxy, w->surface);
		return;
	}
	if (part != w->pressed)
		part = IVWL_XWM_FRAME_NONE;
	w->pressed = IVWL_XWM_FRAME_NONE;
	if (part == IVWL_XWM_FRAME_CLOSE)
		close_window(wm, w);
	else if (part == IVWL_XWM_FRAME_MAXIMIZE)
		ivwl_xwm_proxy_set_maximized(wm->proxy, w->surface,
					     !w->maximized);
}

static void
handle(struct ivwl_xwm_wm *wm, xcb_generic_event_t *ev)
{
	if (wm->selection && ivwl_xwm_selection_handle(wm->selection, ev))
		return;
	switch (ev->response_type & 0x7f) {
	case XCB_CREATE_NOTIFY:
		on_create(wm, (xcb_create_notify_event_t *)ev);
		break;
	case XCB_DESTROY_NOTIFY:
		on_destroy(wm, ((xcb_destroy_notify_event_t *)ev)->window);
		break;
	case XCB_MAP_REQUEST:
		on_map_request(wm, (xcb_map_request_event_t *)ev);
		break;
	case XCB_MAP_NOTIFY:
		on_map_notify(wm, (xcb_map_notify_event_t *)ev);
		break;
	case XCB_UNMAP_NOTIFY: {
		struct window *w = find(wm,
			((xcb_unmap_notify_event_t *)ev)->window);

		if (w)
			hide(wm, w);
		break;
	}
	case XCB_CONFIGURE_REQUEST:
		on_configure_request(wm, (xcb_configure_request_event_t *)ev);
		break;
	case XCB_CONFIGURE_NOTIFY:
		on_configure_notify(wm, (xcb_configure_notify_event_t *)ev);
		break;
	case XCB_PROPERTY_NOTIFY:
		on_property(wm, (xcb_property_notify_event_t *)ev);
		break;
	case XCB_CLIENT_MESSAGE:
		on_client_message(wm, (xcb_client_message_event_t *)ev);
		break;
	case XCB_EXPOSE: {
		xcb_expose_event_t *e = (xcb_expose_event_t *)ev;
		struct window *w = find_frame(wm, e->window);

		if (w && e->count == 0)
			draw_frame(wm, w);
		break;
	}
	case XCB_BUTTON_PRESS:
	case XCB_BUTTON_RELEASE:
		on_button(wm, (xcb_button_press_event_t *)ev,
			  (ev->response_type & 0x7f) == XCB_BUTTON_PRESS);
		break;
	default:
		break;
	}
}

int
ivwl_xwm_wm_dispatch(struct ivwl_xwm_wm *wm)
{
	xcb_generic_event_t *ev;

	while ((ev = xcb_poll_for_event(wm->conn))) {
		handle(wm, ev);
		free(ev);
	}
	xcb_flush(wm->conn);
	return xcb_connection_has_error(wm->conn) ? -EPIPE : 0;
}

/* The size the compositor gives a framed window, and its bar. */
static bool
configure_framed(struct ivwl_xwm_wm *wm, struct window *w, int32_t width,
		 int32_t height)
{
	uint16_t bar = bar_height(w);

	if (width <= 0 || height <= bar ||
	    (width == w->width && height == w->height && bar == w->bar))
		return false;
	if (bar != w->bar) {
		w->bar = bar;
		set_frame_extents(wm, w);
	}
	place_in_frame(wm, w, (uint16_t)width, (uint16_t)(height - bar));
	return true;
}

void
ivwl_xwm_wm_configure(struct ivwl_xwm_wm *wm, uint32_t surface,
		      int32_t width, int32_t height, bool activated,
		      bool fullscreen, bool maximized)
{
	struct window *w = find_surface(wm, surface);
	bool redraw;
	uint32_t size[2];

	if (!w)
		return;
	redraw = w->active != activated;
	w->active = activated;
	if ((fullscreen || maximized) && !w->fullscreen && !w->maximized) {
		/* the size to give back when neither is any more */
		w->normal_width = w->width;
		w->normal_height = w->height;
	} else if (!fullscreen && !maximized && width <= 0 && height <= 0 &&
		   (w->fullscreen || w->maximized) && w->normal_width) {
		width = w->normal_width;
		height = w->normal_height;
	}
	w->fullscreen = fullscreen;
	w->maximized = maximized;
	if (w->frame) {
		redraw |= configure_framed(wm, w, width, height);
	} else if (width > 0 && height > 0 &&
		   (width != w->width || height != w->height)) {
		size[0] = (uint32_t)width;
		size[1] = (uint32_t)height;
		xcb_configure_window(wm->conn, w->id, XCB_CONFIG_WINDOW_WIDTH |
				     XCB_CONFIG_WINDOW_HEIGHT, size);
	}
	if (activated && wm->focus != w->id) {
		wm->focus = w->id;
		xcb_set_input_focus(wm->conn, XCB_INPUT_FOCUS_POINTER_ROOT,
				    w->id, XCB_CURRENT_TIME);
		xcb_change_property(wm->conn, XCB_PROP_MODE_REPLACE,
				    wm->screen->root,
				    wm->atom[NET_ACTIVE_WINDOW],
				    XCB_ATOM_WINDOW, 32, 1, &w->id);
	}
	if (redraw)
		draw_frame(wm, w);
	xcb_flush(wm->conn);
}

void
ivwl_xwm_wm_decorated(struct ivwl_xwm_wm *wm, uint32_t surface,
		      bool server_side)
{
	struct window *w = find_surface(wm, surface);
	uint16_t height;

	if (!w)
		return;
	w->decorated = server_side;
	if (!w->frame || bar_height(w) == w->bar)
		return;
	height = (uint16_t)(w->height - w->bar);
	w->bar = bar_height(w);
	place_in_frame(wm, w, w->width, height);
	set_frame_extents(wm, w);
	draw_frame(wm, w);
	xcb_flush(wm->conn);
}

void
ivwl_xwm_wm_close(struct ivwl_xwm_wm *wm, uint32_t surface)
{
	struct window *w = find_surface(wm, surface);

	if (w)
		close_window(wm, w);
}

/* SubstructureRedirect on the root: the one window manager, or fails. */
static int
become_manager(struct ivwl_xwm_wm *wm)
{
	const uint32_t mask = XCB_EVENT_MASK_SUBSTRUCTURE_REDIRECT |
			      XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY |
			      XCB_EVENT_MASK_PROPERTY_CHANGE;
	xcb_generic_error_t *err;
	xcb_atom_t supported[2];

	err = xcb_request_check(wm->conn, xcb_change_window_attributes_checked(
		wm->conn, wm->screen->root, XCB_CW_EVENT_MASK, &mask));
	if (err) {
		free(err);
		ivwl_log_error("another window manager runs on this display");
		return -EBUSY;
	}
	/* rootless Xwayland gives a wl_surface only to windows redirected
	 * by the manager */
	xcb_composite_redirect_subwindows(wm->conn, wm->screen->root,
					  XCB_COMPOSITE_REDIRECT_MANUAL);
	wm->check = xcb_generate_id(wm->conn);
	xcb_create_window(wm->conn, XCB_COPY_FROM_PARENT, wm->check,
			  wm->screen->root, 0, 0, 1, 1, 0,
			  XCB_WINDOW_CLASS_INPUT_ONLY, XCB_COPY_FROM_PARENT,
			  0, NULL);
	xcb_change_property(wm->conn, XCB_PROP_MODE_REPLACE, wm->check,
			    wm->atom[NET_SUPPORTING_WM_CHECK], XCB_ATOM_WINDOW,
			    32, 1, &wm->check);
	xcb_change_property(wm->conn, XCB_PROP_MODE_REPLACE, wm->screen->root,
			    wm->atom[NET_SUPPORTING_WM_CHECK], XCB_ATOM_WINDOW,
			    32, 1, &wm->check);
	xcb_change_property(wm->conn, XCB_PROP_MODE_REPLACE, wm->check,
			    wm->atom[NET_WM_NAME], wm->atom[UTF8_STRING], 8,
			    8, "ivwl-xwm");
	supported[0] = wm->atom[NET_WM_STATE];
	supported[1] = wm->atom[NET_WM_STATE_FULLSCREEN];
	xcb_change_property(wm->conn, XCB_PROP_MODE_REPLACE, wm->screen->root,
			    wm->atom[NET_SUPPORTED], XCB_ATOM_ATOM, 32, 2,
			    supported);
	xcb_flush(wm->conn);
	return 0;
}

struct ivwl_xwm_wm *
ivwl_xwm_wm_create(const char *display, struct ivwl_xwm_proxy *proxy)
{
	struct ivwl_xwm_wm *wm = calloc(1, sizeof(*wm));

	if (!wm)
		return NULL;
	wm->proxy = proxy;
	wm->conn = xcb_connect(display, NULL);
	if (xcb_connection_has_error(wm->conn)) {
		ivwl_log_error("cannot connect to X display %s", display);
		goto err_conn;
	}
	wm->screen = xcb_setup_roots_iterator(xcb_get_setup(wm->conn)).data;
	if (!wm->screen || ivwl_xwm_intern_atoms(wm->conn, atom_names, ATOM_COUNT,
				  wm->atom) < 0 || become_manager(wm) < 0)
		goto err_conn;
	/* without them, windows still work */
	wm->selection = ivwl_xwm_selection_create(wm->conn, wm->screen,
						  proxy);
	wm->frames = ivwl_xwm_frames_create(wm->conn, wm->screen);
	return wm;

err_conn:
	xcb_disconnect(wm->conn);
	free(wm);
	return NULL;
}

void
ivwl_xwm_wm_destroy(struct ivwl_xwm_wm *wm)
{
	struct window *w, *next;

	for (w = wm->windows; w; w = next) {
		next = w->next;
		free(w);
	}
	ivwl_xwm_selection_destroy(wm->selection);
	ivwl_xwm_frames_destroy(wm->frames);
	xcb_disconnect(wm->conn);
	free(wm);
}

int
ivwl_xwm_wm_fd(const struct ivwl_xwm_wm *wm)
{
	return xcb_get_file_descriptor(wm->conn);
}

struct ivwl_xwm_selection *
ivwl_xwm_wm_selection(const struct ivwl_xwm_wm *wm)
{
	return wm->selection;
}
