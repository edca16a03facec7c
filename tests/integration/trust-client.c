/* SPDX-License-Identifier: MIT */
/*
 * ivwl-trust-client: a plain Wayland client (no ivwl code) that plays
 * either side of the trusted-path cases (tests/hostile/cases_trust.py,
 * test-trusted-use.py).
 *
 *   ivwl-trust-client --mode typist [--title T] [--color 0xRRGGBB]
 *                     [--retitle T --seconds N]
 *   ivwl-trust-client --mode thief --seconds N [--interval-ms M]
 *   ivwl-trust-client --mode climber --seconds N [--interval-ms M]
 *   ivwl-trust-client --mode escape --fake-color 0xRRGGBB
 *                     [--cursor-size N] [--seconds N]
 *   ivwl-trust-client --mode fake-desktop --fake-color 0xRRGGBB
 *   ivwl-trust-client --mode title-flood --seconds N [--count N]
 *   ivwl-trust-client --mode offscreen [--seconds N]
 *   ivwl-trust-client --mode invisible [--seconds N]
 *   ivwl-trust-client --mode popups|scaled --count N [--seconds N]
 *   ivwl-trust-client --mode images [--cursor-size N] [--icon-offset N]
 *                     [--seconds N]
 *   ivwl-trust-client --mode fullscreener [--title T] [--color 0xRRGGBB]
 *                     [--delay-ms N] [--seconds N]
 *   ivwl-trust-client --mode decorations [--title T]
 *
 * typist: one window in --color that prints "enter", "leave" and
 *   "key K" (K the key code, on press) as its keyboard hears them; with
 *   --retitle, sets that title --seconds after it mapped and prints
 *   "retitled"; asked to close (xdg_toplevel.close), it prints "closed"
 *   and exits 0.
 * thief: every --interval-ms destroys its window and maps a new small
 *   one, asking in turn for nothing more, fullscreen, maximized, and a
 *   grabbing popup with the newest serial wl_display.sync gives; prints
 *   "key K" for every key it hears and ends with one line
 *   "thief: maps=N enters=N keys=N popups=N dismissed=N".  Its last
 *   window stays 5 s more.
 * climber: maps one 200x150 window, prints "mapped", then every
 *   --interval-ms asks in turn for maximized, not maximized,
 *   fullscreen, not fullscreen and its own size grown or shrunk, each answered with a new buffer of the size weston gives
 *   (its own for 0x0); prints "key K" for every key it hears and ends
 *   with one line "climber: asks=N enters=N keys=N".  Its window stays
 *   2 s more.
 * escape: content in magenta that tries to leave its VM's label: a
 *   16x16 toplevel with an 800x600 subsurface at (-300,-200) painted as
 *   a window of another VM (a --fake-color frame around magenta), a
 *   popup 200x150 placed far outside the toplevel, and, while the
 *   pointer is over its windows, a --cursor-size square cursor (4096 by
 *   default) reaching right and down from the pointer.  Prints "ready"
 *   once everything was committed and mapped, "cursor" when it set the
 *   cursor.
 * fake-desktop: a toplevel that asks for fullscreen and paints a fake
 *   desktop (magenta in a --fake-color frame); "ready" once mapped.
 * title-flood: --count windows (1) that set new titles ("flood N") in
 *   turn and commit, as fast as weston takes them, for --seconds; then
 *   prints "last T" with the last title, and stays.
 * invisible: a 2048x2048 window of fully transparent pixels, moved by
 *   an attach offset of (-600, -600) once mapped, so that on a small
 *   screen all its edges lie off it: an invisible layer; prints
 *   "ready", then "enter" and "key K" as a typist does.
 * offscreen: a 200x200 magenta window that moves itself far off the
 *   screen with an attach offset of (4000, 4000) once mapped; prints
 *   "gone", then "enter" and "key K" as a typist does.
 * popups: a 1024x768 window of quarter-opaque magenta with --count
 *   popups as large right on it; the window committed every 16 ms;
 *   prints "ready".
 * scaled: the same window with --count subsurfaces of a 256x192
 *   buffer scaled to 1024x768 (wp_viewport), every other one rotated
 *   by 90 degrees; the window committed every 16 ms; prints "ready".
 * images: a maximized magenta window that sets a --cursor-size (64)
 *   magenta cursor whenever the pointer enters it, and on the first
 *   button press on it starts a drag whose 64x64 magenta icon lies
 *   --icon-offset (400) px right of and below the pointer; prints
 *   "ready", "cursor", then "dragging".
 * fullscreener: a 300x200 window in --color that asks for fullscreen
 *   --delay-ms (0) after the first button press on it, prints "asked",
 *   then "size WxH" (0x0: its own) for every size weston gives it, and
 *   draws itself that size; ends after --seconds.
 * decorations: misuses zxdg_decoration_manager_v1 as an attacker
 *   would: asks client_side for a window and prints "mode M" for the
 *   mode told; destroys that window and asks again through its
 *   orphaned decoration object ("orphan asked"); then maps a --title
 *   window, prints "mapped", asks a second decoration object for it
 *   and prints "refused E" with the protocol error that ends the
 *   connection.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "viewporter-client-protocol.h"
#include "xdg-decoration-client-protocol.h"

#define MAGENTA 0xffff00ffu

struct window {
	struct ivwl_client_window base;
	struct xdg_popup *popup;
	bool dismissed;
	uint32_t color, fake;	/* fill; fake: a 4 px frame of it, or 0 */
	int w, h;
};

struct client {
	struct wl_display *display;
	struct wl_compositor *compositor;
	struct wl_subcompositor *subcompositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm_base;
	struct wl_seat *seat;
	struct wl_keyboard *keyboard;
	struct wl_pointer *pointer;
	struct wl_surface *cursor;
	int cursor_size;
	struct wl_data_device_manager *ddm;	/* the images mode's */
	struct wp_viewporter *viewporter;	/* the scaled mode's */
	struct zxdg_decoration_manager_v1 *decoration;
	uint32_t press_serial;	/* of the first button press */
	uint32_t sync_serial;	/* newest serial a sync gave */
	int64_t pressed_ms;	/* the first button press, 0: none yet */
	unsigned maps, enters, keys, popups, dismissed;
	bool print_focus;
};

static void
die(const char *what)
{
	fprintf(stderr, "ivwl-trust-client: %s\n", what);
	exit(1);
}

/* One line on stdout, at once: the test reads them as they come. */
static void __attribute__((format(printf, 1, 2)))
say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct look {
	int w, h;
	uint32_t color, fake;
	struct wl_buffer *buffer;
};

/* Fills with the look's color, framed 4 px in its fake if set. */
static void
paint_look(uint32_t *px, int w, int h, void *data)
{
	const struct look *look = data;
	int x, y;

	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++)
			px[y * w + x] = look->fake && (x < 4 || y < 4 ||
						       x >= w - 4 ||
						       y >= h - 4) ?
					look->fake : look->color;
}

/*
 * Surfaces of one look share one buffer, kept to the end: the thief
 * maps hundreds of windows, and the region's heap is finite.
 */
static struct wl_buffer *
paint(struct client *c, struct wl_surface *surface, int w, int h,
      uint32_t color, uint32_t fake)
{
	static struct look looks[8];
	unsigned i;

	for (i = 0; i < 8 && looks[i].buffer; i++)
		if (looks[i].w == w && looks[i].h == h &&
		    looks[i].color == color && looks[i].fake == fake)
			break;
	if (i == 8)
		die("too many looks");
	if (!looks[i].buffer) {
		looks[i] = (struct look){ w, h, color, fake, NULL };
		looks[i].buffer = ivwl_client_fixed_buffer(c->shm, w, h,
			color >> 24 == 0xff ? WL_SHM_FORMAT_XRGB8888 :
					      WL_SHM_FORMAT_ARGB8888,
			"ivwl-trust", paint_look, &looks[i]);
		if (!looks[i].buffer)
			die("cannot make a buffer");
	}
	wl_surface_attach(surface, looks[i].buffer, 0, 0);
	wl_surface_damage_buffer(surface, 0, 0, w, h);
	return looks[i].buffer;
}

/* ---- xdg ------------------------------------------------------------- */

static void
popup_configure(void *data, struct xdg_popup *p, int32_t x, int32_t y,
		int32_t w, int32_t h)
{
}

static void
popup_done(void *data, struct xdg_popup *p)
{
	struct window *win = data;

	win->dismissed = true;
}

static const struct xdg_popup_listener popup_listener = {
	.configure = popup_configure,
	.popup_done = popup_done,
};

static void
window_init(struct window *win, int w, int h, uint32_t color, uint32_t fake)
{
	memset(win, 0, sizeof(*win));
	win->w = w;
	win->h = h;
	win->color = color;
	win->fake = fake;
}

static void
toplevel_init(struct client *c, struct window *win, const char *title,
	      int w, int h, uint32_t color, uint32_t fake)
{
	window_init(win, w, h, color, fake);
	ivwl_client_toplevel_init(&win->base, c->compositor, c->wm_base,
				  title, NULL);
}

/*
 * Commits the role, waits for the configure, maps the buffer: of the
 * size the compositor asked for (maximized, fullscreen), if it did.
 */
static void
window_map(struct client *c, struct window *win)
{
	if (ivwl_client_window_configure(&win->base, c->display) < 0)
		die("lost the display");
	if (win->base.width > 0) {
		win->w = win->base.width;
		win->h = win->base.height;
	}
	paint(c, win->base.surface, win->w, win->h, win->color, win->fake);
	wl_surface_commit(win->base.surface);
	c->maps++;
}

static void
window_fini(struct window *win)
{
	if (win->popup)
		xdg_popup_destroy(win->popup);
	ivwl_client_window_fini(&win->base);
	memset(win, 0, sizeof(*win));
}

static struct xdg_positioner *
positioner(struct client *c, int w, int h, int dx, int dy)
{
	struct xdg_positioner *p = xdg_wm_base_create_positioner(c->wm_base);

	xdg_positioner_set_size(p, w, h);
	xdg_positioner_set_anchor_rect(p, 0, 0, 1, 1);
	xdg_positioner_set_offset(p, dx, dy);
	return p;
}

static void
popup_init(struct client *c, struct window *popup, struct window *parent,
	   int w, int h, int dx, int dy)
{
	struct xdg_positioner *p = positioner(c, w, h, dx, dy);

	window_init(popup, w, h, MAGENTA, 0);
	ivwl_client_window_init(&popup->base, c->compositor, c->wm_base);
	popup->popup = xdg_surface_get_popup(popup->base.xdg_surface,
					     parent->base.xdg_surface, p);
	xdg_popup_add_listener(popup->popup, &popup_listener, popup);
	xdg_positioner_destroy(p);
}

/* ---- seat ------------------------------------------------------------ */

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
	struct client *c = data;

	c->enters++;
	if (c->print_focus) {
		say("enter");
	}
}

static void
kb_leave(void *data, struct wl_keyboard *k, uint32_t serial,
	 struct wl_surface *s)
{
	struct client *c = data;

	if (c->print_focus) {
		say("leave");
	}
}

static void
kb_key(void *data, struct wl_keyboard *k, uint32_t serial, uint32_t time,
       uint32_t key, uint32_t state)
{
	struct client *c = data;

	if (state != WL_KEYBOARD_KEY_STATE_PRESSED)
		return;
	c->keys++;
	say("key %u", key);
}

static void
kb_modifiers(void *data, struct wl_keyboard *k, uint32_t serial,
	     uint32_t depressed, uint32_t latched, uint32_t locked,
	     uint32_t group)
{
}

static void
kb_repeat(void *data, struct wl_keyboard *k, int32_t rate, int32_t delay)
{
}

static const struct wl_keyboard_listener keyboard_listener = {
	.keymap = kb_keymap,
	.enter = kb_enter,
	.leave = kb_leave,
	.key = kb_key,
	.modifiers = kb_modifiers,
	.repeat_info = kb_repeat,
};

static void
ptr_enter(void *data, struct wl_pointer *p, uint32_t serial,
	  struct wl_surface *s, wl_fixed_t x, wl_fixed_t y)
{
	struct client *c = data;
	int n = c->cursor_size;

	if (!n)
		return;
	if (!c->cursor) {
		c->cursor = wl_compositor_create_surface(c->compositor);
		paint(c, c->cursor, n, n, MAGENTA, 0);
		wl_surface_commit(c->cursor);
	}
	/* the image's corner at the pointer: it reaches right and down */
	wl_pointer_set_cursor(p, serial, c->cursor, 0, 0);
	say("cursor");
}

static void
ptr_leave(void *data, struct wl_pointer *p, uint32_t serial,
	  struct wl_surface *s)
{
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
	struct client *c = data;

	if (state == WL_POINTER_BUTTON_STATE_PRESSED && !c->pressed_ms) {
		c->pressed_ms = now_ms();
		c->press_serial = serial;
	}
}

static void
ptr_axis(void *data, struct wl_pointer *p, uint32_t t, uint32_t axis,
	 wl_fixed_t v)
{
}

/* wl_seat version 1: no frame or axis_source events come */
static const struct wl_pointer_listener pointer_listener = {
	.enter = ptr_enter,
	.leave = ptr_leave,
	.motion = ptr_motion,
	.button = ptr_button,
	.axis = ptr_axis,
};

static void
seat_caps(void *data, struct wl_seat *seat, uint32_t caps)
{
	struct client *c = data;

	if ((caps & WL_SEAT_CAPABILITY_KEYBOARD) && !c->keyboard) {
		c->keyboard = wl_seat_get_keyboard(seat);
		wl_keyboard_add_listener(c->keyboard, &keyboard_listener, c);
	}
	if ((caps & WL_SEAT_CAPABILITY_POINTER) && !c->pointer) {
		c->pointer = wl_seat_get_pointer(seat);
		wl_pointer_add_listener(c->pointer, &pointer_listener, c);
	}
}

static void
seat_name(void *data, struct wl_seat *seat, const char *name)
{
}

static const struct wl_seat_listener seat_listener = {
	seat_caps, seat_name,
};

static void
sync_done(void *data, struct wl_callback *cb, uint32_t serial)
{
	struct client *c = data;

	c->sync_serial = serial;
	wl_callback_destroy(cb);
}

static const struct wl_callback_listener sync_listener = {
	sync_done,
};

/* Serves events for about ms, a round trip every 10 ms. */
static void
pump(struct client *c, int ms)
{
	int64_t end = now_ms() + ms;

	do {
		if (wl_display_roundtrip(c->display) < 0)
			die("lost the display");
		usleep(10000);
	} while (now_ms() < end);
}

/* ---- modes ----------------------------------------------------------- */

static void
typist(struct client *c, const char *title, uint32_t color,
       const char *retitle, int seconds)
{
	struct window win;

	c->print_focus = true;
	toplevel_init(c, &win, title, 300, 200, color, 0);
	window_map(c, &win);
	say("mapped");
	if (retitle) {
		pump(c, seconds * 1000);
		xdg_toplevel_set_title(win.base.toplevel, retitle);
		wl_surface_commit(win.base.surface);
		if (wl_display_roundtrip(c->display) < 0)
			die("lost the display");
		say("retitled");
	}
	while (!win.base.closed && wl_display_dispatch(c->display) >= 0)
		;
	if (!win.base.closed)
		die("lost the display");
	say("closed");
	exit(0);
}

static void
thief(struct client *c, int seconds, int interval_ms)
{
	int64_t end = now_ms() + (int64_t)seconds * 1000;
	struct window win = { 0 }, popup = { 0 };
	unsigned i = 0;

	while (now_ms() < end) {
		window_fini(&popup);
		window_fini(&win);
		toplevel_init(c, &win, "thief", 16, 16, MAGENTA, 0);
		if (i % 4 == 1)
			xdg_toplevel_set_fullscreen(win.base.toplevel, NULL);
		else if (i % 4 == 2)
			xdg_toplevel_set_maximized(win.base.toplevel);
		window_map(c, &win);
		if (i % 4 == 3) {
			wl_callback_add_listener(wl_display_sync(c->display),
						 &sync_listener, c);
			wl_display_roundtrip(c->display);
			popup_init(c, &popup, &win, 32, 32, 0, 0);
			xdg_popup_grab(popup.popup, c->seat, c->sync_serial);
			window_map(c, &popup);
			c->popups++;
		}
		i++;
		pump(c, interval_ms);
		if (popup.dismissed)
			c->dismissed++;
	}
	say("thief: maps=%u enters=%u keys=%u popups=%u dismissed=%u",
	    c->maps, c->enters, c->keys, c->popups, c->dismissed);
	/* the last window stays a while, for a look at its label */
	pump(c, 5000);
}

/* One of the climber's asks: i in turn. */
static void
climb(struct window *win, unsigned i, int *w, int *h)
{
	switch (i % 5) {
	case 0:
		xdg_toplevel_set_maximized(win->base.toplevel);
		break;
	case 1:
		xdg_toplevel_unset_maximized(win->base.toplevel);
		break;
	case 2:
		xdg_toplevel_set_fullscreen(win->base.toplevel, NULL);
		break;
	case 3:
		xdg_toplevel_unset_fullscreen(win->base.toplevel);
		break;
	default:
		*w = *w == 200 ? 260 : 200;
		*h = *h == 150 ? 190 : 150;
		break;
	}
}

static void
climber(struct client *c, int seconds, int interval_ms)
{
	int64_t end = now_ms() + (int64_t)seconds * 1000;
	struct window win;
	int w = 200, h = 150;
	unsigned i = 0;

	toplevel_init(c, &win, "climber", w, h, MAGENTA, 0);
	window_map(c, &win);
	say("mapped");
	while (now_ms() < end) {
		climb(&win, i++, &w, &h);
		if (wl_display_roundtrip(c->display) < 0)
			die("lost the display");
		win.w = win.base.width > 0 ? win.base.width : w;
		win.h = win.base.height > 0 ? win.base.height : h;
		paint(c, win.base.surface, win.w, win.h, win.color, win.fake);
		wl_surface_commit(win.base.surface);
		pump(c, interval_ms);
	}
	say("climber: asks=%u enters=%u keys=%u", i, c->enters, c->keys);
	pump(c, 2000);
}

static void
escape(struct client *c, uint32_t fake, int seconds)
{
	struct window top, popup;
	struct wl_surface *sub_surface;
	struct wl_subsurface *sub;

	toplevel_init(c, &top, "escape", 16, 16, MAGENTA, 0);
	window_map(c, &top);
	sub_surface = wl_compositor_create_surface(c->compositor);
	sub = wl_subcompositor_get_subsurface(c->subcompositor, sub_surface,
					      top.base.surface);
	wl_subsurface_set_position(sub, -300, -200);
	wl_subsurface_place_above(sub, top.base.surface);
	paint(c, sub_surface, 800, 600, MAGENTA, fake);
	wl_surface_commit(sub_surface);
	wl_surface_commit(top.base.surface);
	popup_init(c, &popup, &top, 200, 150, 300, 200);
	window_map(c, &popup);
	wl_display_roundtrip(c->display);
	say("ready");
	pump(c, seconds * 1000);
}

static void
fake_desktop(struct client *c, uint32_t fake, int seconds)
{
	struct window desk;

	toplevel_init(c, &desk, "fake desktop", 800, 600, MAGENTA, fake);
	xdg_toplevel_set_fullscreen(desk.base.toplevel, NULL);
	window_map(c, &desk);
	wl_display_roundtrip(c->display);
	say("ready");
	pump(c, seconds * 1000);
}

static void
title_flood(struct client *c, int count, int seconds)
{
	int64_t end;
	struct window *wins = calloc((size_t)count, sizeof(*wins));
	char title[64];
	unsigned n = 0;
	int i;

	if (!wins)
		die("out of memory");
	for (i = 0; i < count; i++) {
		toplevel_init(c, &wins[i], "flood 0", 200, 100, MAGENTA, 0);
		window_map(c, &wins[i]);
	}
	say("ready");
	end = now_ms() + (int64_t)seconds * 1000;
	while (now_ms() < end) {
		struct window *win = &wins[n % (unsigned)count];

		snprintf(title, sizeof(title), "flood %u", ++n);
		xdg_toplevel_set_title(win->base.toplevel, title);
		wl_surface_commit(win->base.surface);
		/* as fast as weston takes them, no faster */
		if (n % 50 == 0 && wl_display_roundtrip(c->display) < 0)
			die("lost the display");
	}
	if (wl_display_roundtrip(c->display) < 0)
		die("lost the display");
	say("last %s", title);
	pump(c, 60 * 1000);
}

#define OVERDRAW_W 1024
#define OVERDRAW_H 768
#define TRANSLUCENT 0x40400040u	/* quarter-opaque magenta, premultiplied */

/* Commits the window again, damaged whole, every 16 ms for seconds:
 * each repaint draws it and every layer on it. */
static void
redraw_loop(struct client *c, struct wl_surface *window,
	    struct wl_buffer *buffer, int seconds)
{
	int64_t end = now_ms() + (int64_t)seconds * 1000;

	while (now_ms() < end) {
		wl_surface_attach(window, buffer, 0, 0);
		wl_surface_damage_buffer(window, 0, 0, INT32_MAX, INT32_MAX);
		wl_surface_commit(window);
		if (wl_display_flush(c->display) < 0 ||
		    wl_display_dispatch_pending(c->display) < 0)
			die("lost the display");
		usleep(16000);
		if (wl_display_roundtrip(c->display) < 0)
			die("lost the display");
	}
}

static void
popups(struct client *c, int count, int seconds)
{
	struct window *win = calloc((size_t)count + 1, sizeof(*win));
	struct wl_surface **surfaces = calloc((size_t)count + 1,
					      sizeof(*surfaces));
	struct wl_buffer **buffers = calloc((size_t)count + 1,
					    sizeof(*buffers));
	int i;

	if (!win || !surfaces || !buffers)
		die("out of memory");
	toplevel_init(c, &win[0], "popups", OVERDRAW_W, OVERDRAW_H,
		      TRANSLUCENT, 0);
	window_map(c, &win[0]);
	for (i = 1; i <= count; i++) {
		/* each right on the window (a chain is bounded in depth) */
		struct xdg_positioner *p = positioner(c, OVERDRAW_W,
						      OVERDRAW_H, 0, 0);

		xdg_positioner_set_anchor(p, XDG_POSITIONER_ANCHOR_TOP_LEFT);
		xdg_positioner_set_gravity(p,
					   XDG_POSITIONER_GRAVITY_BOTTOM_RIGHT);
		window_init(&win[i], OVERDRAW_W, OVERDRAW_H, TRANSLUCENT, 0);
		ivwl_client_window_init(&win[i].base, c->compositor,
					c->wm_base);
		win[i].popup = xdg_surface_get_popup(win[i].base.xdg_surface,
						     win[0].base.xdg_surface,
						     p);
		xdg_popup_add_listener(win[i].popup, &popup_listener, &win[i]);
		xdg_positioner_destroy(p);
		window_map(c, &win[i]);
	}
	for (i = 0; i <= count; i++) {
		surfaces[i] = win[i].base.surface;
		buffers[i] = paint(c, surfaces[i], OVERDRAW_W, OVERDRAW_H,
				   TRANSLUCENT, 0);
	}
	wl_display_roundtrip(c->display);
	say("ready");
	redraw_loop(c, surfaces[0], buffers[0], seconds);
}

static void
scaled(struct client *c, int count, int seconds)
{
	struct wl_surface **surfaces = calloc((size_t)count + 1,
					      sizeof(*surfaces));
	struct wl_buffer **buffers = calloc((size_t)count + 1,
					    sizeof(*buffers));
	struct wp_viewport *vp;
	struct wl_subsurface *sub;
	struct window win;
	int i;

	if (!surfaces || !buffers)
		die("out of memory");
	if (!c->viewporter)
		die("no wp_viewporter");
	toplevel_init(c, &win, "scaled", OVERDRAW_W, OVERDRAW_H, TRANSLUCENT,
		      0);
	window_map(c, &win);
	surfaces[0] = win.base.surface;
	buffers[0] = paint(c, surfaces[0], OVERDRAW_W, OVERDRAW_H, TRANSLUCENT,
			   0);
	for (i = 1; i <= count; i++) {
		bool turned = i % 2 == 0;

		surfaces[i] = wl_compositor_create_surface(c->compositor);
		sub = wl_subcompositor_get_subsurface(c->subcompositor,
						      surfaces[i],
						      win.base.surface);
		wl_subsurface_set_desync(sub);
		vp = wp_viewporter_get_viewport(c->viewporter, surfaces[i]);
		wp_viewport_set_destination(vp, OVERDRAW_W, OVERDRAW_H);
		if (turned)
			wl_surface_set_buffer_transform(
				surfaces[i], WL_OUTPUT_TRANSFORM_90);
		buffers[i] = paint(c, surfaces[i], turned ? 192 : 256,
				   turned ? 256 : 192, TRANSLUCENT, 0);
		wl_surface_commit(surfaces[i]);
	}
	wl_surface_commit(win.base.surface);
	wl_display_roundtrip(c->display);
	say("ready");
	redraw_loop(c, surfaces[0], buffers[0], seconds);
}

static void
invisible(struct client *c, int seconds)
{
	struct window win;
	struct wl_buffer *buffer;

	c->print_focus = true;
	toplevel_init(c, &win, "invisible", 2048, 2048, 0x00000000u, 0);
	window_map(c, &win);
	wl_display_roundtrip(c->display);
	buffer = paint(c, win.base.surface, 2048, 2048, 0x00000000u, 0);
	wl_surface_attach(win.base.surface, buffer, -600, -600);
	wl_surface_commit(win.base.surface);
	wl_display_roundtrip(c->display);
	say("ready");
	pump(c, seconds * 1000);
}

static void
offscreen(struct client *c, int seconds)
{
	struct window win;
	struct wl_buffer *buffer;

	c->print_focus = true;
	toplevel_init(c, &win, "offscreen", 200, 200, MAGENTA, 0);
	window_map(c, &win);
	wl_display_roundtrip(c->display);
	buffer = paint(c, win.base.surface, 200, 200, MAGENTA, 0);
	wl_surface_attach(win.base.surface, buffer, 4000, 4000);
	wl_surface_commit(win.base.surface);
	wl_display_roundtrip(c->display);
	say("gone");
	pump(c, seconds * 1000);
}

static void
images(struct client *c, int icon_offset, int seconds)
{
	int64_t end = now_ms() + (int64_t)seconds * 1000;
	struct wl_data_source *source;
	struct wl_data_device *device;
	struct wl_surface *icon;
	struct wl_buffer *buffer;
	struct window win;

	if (!c->ddm || !c->seat)
		die("no wl_data_device_manager or wl_seat");
	toplevel_init(c, &win, "images", 200, 200, MAGENTA, 0);
	xdg_toplevel_set_maximized(win.base.toplevel);
	window_map(c, &win);
	wl_display_roundtrip(c->display);
	say("ready");
	while (now_ms() < end && !c->press_serial)
		pump(c, 20);
	if (!c->press_serial)
		return;
	device = wl_data_device_manager_get_data_device(c->ddm, c->seat);
	source = wl_data_device_manager_create_data_source(c->ddm);
	wl_data_source_offer(source, "text/plain");
	icon = wl_compositor_create_surface(c->compositor);
	buffer = paint(c, icon, 64, 64, MAGENTA, 0);
	wl_data_device_start_drag(device, source, win.base.surface, icon,
				  c->press_serial);
	/* the icon's offset from the pointer: the attach's dx, dy */
	wl_surface_attach(icon, buffer, icon_offset, icon_offset);
	wl_surface_commit(icon);
	wl_display_roundtrip(c->display);
	say("dragging");
	pump(c, (int)(end - now_ms()));
}

static void
fullscreener(struct client *c, const char *title, uint32_t color,
	     int delay_ms, int seconds)
{
	int64_t end = now_ms() + (int64_t)seconds * 1000;
	struct window win;
	int32_t w = -1, h = -1;
	bool asked = false;

	toplevel_init(c, &win, title, 300, 200, color, 0);
	window_map(c, &win);
	say("mapped");
	while (now_ms() < end && !win.base.closed) {
		pump(c, 20);
		if (!asked && c->pressed_ms &&
		    now_ms() >= c->pressed_ms + delay_ms) {
			xdg_toplevel_set_fullscreen(win.base.toplevel, NULL);
			asked = true;
			say("asked");
		}
		if (win.base.width == w && win.base.height == h)
			continue;
		w = win.base.width;
		h = win.base.height;
		paint(c, win.base.surface, w > 0 ? w : 300, h > 0 ? h : 200,
		      color, 0);
		wl_surface_commit(win.base.surface);
		say("size %dx%d", w, h);
	}
}

static void
decoration_configure(void *data,
		     struct zxdg_toplevel_decoration_v1 *decoration,
		     uint32_t mode)
{
	*(uint32_t *)data = mode;
}

static const struct zxdg_toplevel_decoration_v1_listener
decoration_listener = {
	.configure = decoration_configure,
};

static void
decorations(struct client *c, const char *title)
{
	struct zxdg_toplevel_decoration_v1 *d, *orphan;
	struct window a, b;
	uint32_t mode = 0;

	if (!c->decoration)
		die("no zxdg_decoration_manager_v1");
	toplevel_init(c, &a, "decorated", 200, 100, MAGENTA, 0);
	orphan = zxdg_decoration_manager_v1_get_toplevel_decoration(
		c->decoration, a.base.toplevel);
	zxdg_toplevel_decoration_v1_add_listener(orphan, &decoration_listener,
						 &mode);
	zxdg_toplevel_decoration_v1_set_mode(orphan,
		ZXDG_TOPLEVEL_DECORATION_V1_MODE_CLIENT_SIDE);
	window_map(c, &a);
	if (wl_display_roundtrip(c->display) < 0)
		die("lost the display");
	say("mode %s", mode == ZXDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE ?
	    "server_side" : mode ? "client_side" : "none");
	window_fini(&a);
	zxdg_toplevel_decoration_v1_set_mode(orphan,
		ZXDG_TOPLEVEL_DECORATION_V1_MODE_CLIENT_SIDE);
	zxdg_toplevel_decoration_v1_unset_mode(orphan);
	if (wl_display_roundtrip(c->display) < 0)
		die("lost the display");
	say("orphan asked");
	toplevel_init(c, &b, title, 300, 200, 0xff20c060u, 0);
	d = zxdg_decoration_manager_v1_get_toplevel_decoration(
		c->decoration, b.base.toplevel);
	window_map(c, &b);
	if (wl_display_roundtrip(c->display) < 0)
		die("lost the display");
	say("mapped");
	sleep(1);
	zxdg_decoration_manager_v1_get_toplevel_decoration(c->decoration,
							   b.base.toplevel);
	wl_display_roundtrip(c->display);
	say("refused %d", wl_display_get_error(c->display));
	(void)d;
}

static uint32_t
color_arg(const char *s)
{
	return 0xff000000u | (uint32_t)strtoul(s, NULL, 0);
}

int
main(int argc, char **argv)
{
	const char *mode = NULL, *title = "typist", *retitle = NULL;
	uint32_t color = 0xff20c060u, fake = 0xffc03030u;
	int seconds = 10, interval = 500, delay = 0, icon_offset = 400, i;
	int count = 200;
	struct client c = { 0 };
	struct ivwl_client_global globals[] = {
		IVWL_CLIENT_SHELL_GLOBALS(&c.compositor, &c.shm, &c.wm_base),
		IVWL_CLIENT_GLOBAL(wl_subcompositor_interface, 1,
				   &c.subcompositor),
		IVWL_CLIENT_GLOBAL(wl_seat_interface, 1, &c.seat,
				   .listener = &seat_listener, .data = &c,
				   .optional = true),
		IVWL_CLIENT_GLOBAL(wl_data_device_manager_interface, 3,
				   &c.ddm, .optional = true),
		IVWL_CLIENT_GLOBAL(wp_viewporter_interface, 1, &c.viewporter,
				   .optional = true),
		IVWL_CLIENT_GLOBAL(zxdg_decoration_manager_v1_interface, 1,
				   &c.decoration, .optional = true),
		{ 0 },
	};
	struct ivwl_client_registry reg = { .globals = globals };

	for (i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--mode") == 0)
			mode = argv[i + 1];
		else if (strcmp(argv[i], "--title") == 0)
			title = argv[i + 1];
		else if (strcmp(argv[i], "--retitle") == 0)
			retitle = argv[i + 1];
		else if (strcmp(argv[i], "--color") == 0)
			color = color_arg(argv[i + 1]);
		else if (strcmp(argv[i], "--fake-color") == 0)
			fake = color_arg(argv[i + 1]);
		else if (strcmp(argv[i], "--seconds") == 0)
			seconds = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--interval-ms") == 0)
			interval = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--delay-ms") == 0)
			delay = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--count") == 0)
			count = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--icon-offset") == 0)
			icon_offset = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--cursor-size") == 0)
			c.cursor_size = atoi(argv[i + 1]);
		else
			die("unknown option (see the top of trust-client.c)");
	}
	if (!mode || i != argc)
		die("usage: --mode typist|thief|escape [options]");
	/* the second round trip: the seat's capabilities */
	c.display = ivwl_client_connect(&reg, 2, "ivwl-trust-client");
	if (!c.display)
		exit(1);
	if (strcmp(mode, "typist") == 0)
		typist(&c, title, color, retitle, seconds);
	else if (strcmp(mode, "thief") == 0)
		thief(&c, seconds, interval);
	else if (strcmp(mode, "climber") == 0)
		climber(&c, seconds, interval);
	else if (strcmp(mode, "escape") == 0) {
		if (!c.cursor_size)
			c.cursor_size = 4096;
		escape(&c, fake, seconds);
	} else if (strcmp(mode, "fake-desktop") == 0)
		fake_desktop(&c, fake, seconds);
	else if (strcmp(mode, "title-flood") == 0)
		title_flood(&c, count > 0 && count <= 256 ? count : 1,
			    seconds);
	else if (strcmp(mode, "offscreen") == 0)
		offscreen(&c, seconds);
	else if (strcmp(mode, "invisible") == 0)
		invisible(&c, seconds);
	else if (strcmp(mode, "popups") == 0)
		popups(&c, count, seconds);
	else if (strcmp(mode, "scaled") == 0)
		scaled(&c, count, seconds);
	else if (strcmp(mode, "images") == 0) {
		if (!c.cursor_size)
			c.cursor_size = 64;
		images(&c, icon_offset, seconds);
	} else if (strcmp(mode, "decorations") == 0)
		decorations(&c, title);
	else if (strcmp(mode, "fullscreener") == 0)
		fullscreener(&c, title, color, delay, seconds);
	else
		die("unknown --mode");
	wl_display_disconnect(c.display);
	return 0;
}
