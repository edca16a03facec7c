/* SPDX-License-Identifier: MIT */
/*
 * ivwl-xwm's window manager (xwm/wm.c) on a real X server (Xvfb), with
 * the proxy replaced by a recorder: what a top-level X window, a
 * transient, a title change, a fullscreen request and a menu become,
 * what the compositor's configure does to the X window and its focus,
 * the frame's title bar (its buttons and a drag of it), and how a close
 * asks: WM_DELETE_WINDOW for a client that takes it, disconnection for
 * one that does not.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <xcb/xcb.h>

#include "frame.h"
#include "harness.h"
#include "proxy.h"
#include "wm.h"

/* ---- the proxy, recorded -------------------------------------------- */

static struct {
	uint32_t toplevel, parent;	/* the last ivwl_xwm_proxy_toplevel */
	char title[64], app_id[64];
	uint32_t retitled;
	char new_title[64];
	uint32_t fullscreen;		/* surface set fullscreen */
	uint32_t child, child_parent;
	int32_t child_x, child_y;
	uint32_t maximized, moved;	/* surfaces asked for */
} rec;

int
ivwl_xwm_proxy_set_maximized(struct ivwl_xwm_proxy *p, uint32_t surface,
			     bool maximized)
{
	rec.maximized = maximized ? surface : 0;
	return 0;
}

int
ivwl_xwm_proxy_move(struct ivwl_xwm_proxy *p, uint32_t surface)
{
	rec.moved = surface;
	return 0;
}

int
ivwl_xwm_proxy_toplevel(struct ivwl_xwm_proxy *p, uint32_t surface,
			const char *title, const char *app_id, uint32_t parent)
{
	rec.toplevel = surface;
	rec.parent = parent;
	snprintf(rec.title, sizeof(rec.title), "%s", title);
	snprintf(rec.app_id, sizeof(rec.app_id), "%s", app_id ? app_id : "");
	return 0;
}

int
ivwl_xwm_proxy_set_title(struct ivwl_xwm_proxy *p, uint32_t surface,
			 const char *title)
{
	rec.retitled = surface;
	snprintf(rec.new_title, sizeof(rec.new_title), "%s", title);
	return 0;
}

int
ivwl_xwm_proxy_set_fullscreen(struct ivwl_xwm_proxy *p, uint32_t surface,
			      bool fullscreen)
{
	rec.fullscreen = fullscreen ? surface : 0;
	return 0;
}

int
ivwl_xwm_proxy_child(struct ivwl_xwm_proxy *p, uint32_t surface,
		     uint32_t parent, int32_t x, int32_t y)
{
	rec.child = surface;
	rec.child_parent = parent;
	rec.child_x = x;
	rec.child_y = y;
	return 0;
}

int
ivwl_xwm_proxy_move_child(struct ivwl_xwm_proxy *p, uint32_t surface,
			  int32_t x, int32_t y)
{
	return 0;
}

void
ivwl_xwm_proxy_unmap(struct ivwl_xwm_proxy *p, uint32_t surface)
{
}

int
ivwl_xwm_proxy_set_selection(struct ivwl_xwm_proxy *p,
			     const char *const *mimes, uint32_t n)
{
	return 0;
}

int
ivwl_xwm_proxy_receive(struct ivwl_xwm_proxy *p, const char *mime, int fd)
{
	close(fd);
	return -ENOENT;
}

/* ---- an X server ----------------------------------------------------- */

static pid_t xvfb;
static char display[16];

/*
 * Xvfb on a display of its own: it picks a free number and says which
 * (-displayfd), so no number some other X server holds is taken.
 */
static void
start_xvfb(void)
{
	int fds[2], n = 0;
	char fd[16], c = 0;

	REQUIRE(pipe(fds) == 0);
	xvfb = fork();
	REQUIRE(xvfb >= 0);
	if (xvfb == 0) {
		close(fds[0]);
		snprintf(fd, sizeof(fd), "%d", fds[1]);
		execlp("Xvfb", "Xvfb", "-displayfd", fd, "-nolisten", "tcp",
		       "-screen", "0", "1024x768x24", (char *)NULL);
		fprintf(stderr, "Xvfb: %s (tools/deps.sh installs it)\n",
			strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	while (read(fds[0], &c, 1) == 1 && c >= '0' && c <= '9')
		n = n * 10 + (c - '0');
	close(fds[0]);
	REQUIRE(c == '\n');
	snprintf(display, sizeof(display), ":%d", n);
}

static void
stop_xvfb(void)
{
	kill(xvfb, SIGTERM);
	waitpid(xvfb, NULL, 0);
}

/* ---- helpers ---------------------------------------------------------- */

static xcb_atom_t
atom(xcb_connection_t *c, const char *name)
{
	xcb_intern_atom_reply_t *r = xcb_intern_atom_reply(c,
		xcb_intern_atom(c, 0, (uint16_t)strlen(name), name), NULL);
	xcb_atom_t a = r ? r->atom : XCB_ATOM_NONE;

	free(r);
	return a;
}

/* The server has done what c asked. */
static void
sync_with(xcb_connection_t *c)
{
	free(xcb_get_input_focus_reply(c, xcb_get_input_focus(c), NULL));
}

/* Lets the window manager run until done(data) holds (or 3 s). */
static bool
settle_until(struct ivwl_xwm_wm *wm, xcb_connection_t *c,
	     bool (*done)(void *), void *data)
{
	struct timespec t0, t;
	struct pollfd pfd = { ivwl_xwm_wm_fd(wm), POLLIN, 0 };

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		sync_with(c);
		poll(&pfd, 1, 20);
		CHECK_EQ(ivwl_xwm_wm_dispatch(wm), 0);
		if (done(data))
			return true;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 3)
			return false;
	}
}

static bool
is_set(void *data)
{
	return *(uint32_t *)data != 0;
}

static xcb_window_t
window(xcb_connection_t *c, xcb_screen_t *s, bool override_redirect,
       int16_t x, int16_t y)
{
	xcb_window_t w = xcb_generate_id(c);
	uint32_t or = override_redirect;

	xcb_create_window(c, XCB_COPY_FROM_PARENT, w, s->root, x, y, 200, 150,
			  1, XCB_WINDOW_CLASS_INPUT_OUTPUT, s->root_visual,
			  XCB_CW_OVERRIDE_REDIRECT, &or);
	return w;
}

static void
set_string(xcb_connection_t *c, xcb_window_t w, const char *prop,
	   const char *type, const char *v, uint32_t len)
{
	xcb_change_property(c, XCB_PROP_MODE_REPLACE, w, atom(c, prop),
			    atom(c, type), 8, len, v);
}

/* What Xwayland does once the window's wl_surface exists. */
static void
surface_id(xcb_connection_t *c, xcb_screen_t *s, xcb_window_t w,
	   uint32_t surface)
{
	xcb_client_message_event_t e = {
		.response_type = XCB_CLIENT_MESSAGE, .format = 32,
		.window = w, .type = atom(c, "WL_SURFACE_ID"),
	};

	e.data.data32[0] = surface;
	xcb_send_event(c, 0, s->root, XCB_EVENT_MASK_SUBSTRUCTURE_REDIRECT,
		       (const char *)&e);
	xcb_flush(c);
}

/* The frame the window manager put w in (after its map request). */
static xcb_window_t
frame_of(struct ivwl_xwm_wm *wm, xcb_connection_t *c, xcb_window_t w)
{
	xcb_query_tree_reply_t *r;
	xcb_window_t parent = 0;
	xcb_screen_t *s = xcb_setup_roots_iterator(xcb_get_setup(c)).data;

	for (int i = 0; i < 100; i++) {
		sync_with(c);
		CHECK_EQ(ivwl_xwm_wm_dispatch(wm), 0);
		r = xcb_query_tree_reply(c, xcb_query_tree(c, w), NULL);
		parent = r ? r->parent : 0;
		free(r);
		if (parent && parent != s->root)
			return parent;
		usleep(10000);
	}
	return 0;
}

/* The first button pressed, or released, at x, y of a frame. */
static void
button_frame(xcb_connection_t *c, xcb_window_t frame, bool press, int16_t x,
	     int16_t y)
{
	xcb_button_press_event_t e = {
		.response_type = press ? XCB_BUTTON_PRESS : XCB_BUTTON_RELEASE,
		.detail = 1, .event = frame, .event_x = x, .event_y = y,
		.same_screen = 1,
	};

	xcb_send_event(c, 0, frame, press ? XCB_EVENT_MASK_BUTTON_PRESS :
		       XCB_EVENT_MASK_BUTTON_RELEASE, (const char *)&e);
	xcb_flush(c);
}

static void
click_frame(xcb_connection_t *c, xcb_window_t frame, int16_t x, int16_t y)
{
	button_frame(c, frame, true, x, y);
	button_frame(c, frame, false, x, y);
}

/* A client message asking the window manager, as EWMH has it. */
static void
ask_wm(xcb_connection_t *c, xcb_screen_t *s, xcb_window_t w, xcb_atom_t type,
       uint32_t d0, uint32_t d1)
{
	xcb_client_message_event_t e = {
		.response_type = XCB_CLIENT_MESSAGE, .format = 32,
		.window = w, .type = type,
	};

	e.data.data32[0] = d0;
	e.data.data32[1] = d1;
	xcb_send_event(c, 0, s->root, XCB_EVENT_MASK_SUBSTRUCTURE_REDIRECT |
		       XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY, (const char *)&e);
	xcb_flush(c);
}

/* Whether c got the WM_PROTOCOLS message protocol for w (3 s at most);
 * a _NET_WM_PING is answered when answer says so. */
static bool
got_protocol(struct ivwl_xwm_wm *wm, xcb_connection_t *c, xcb_window_t w,
	     const char *protocol, bool answer)
{
	xcb_atom_t protocols = atom(c, "WM_PROTOCOLS");
	xcb_atom_t want = atom(c, protocol);
	xcb_screen_t *s = xcb_setup_roots_iterator(xcb_get_setup(c)).data;
	xcb_generic_event_t *ev;
	bool got = false;

	for (int i = 0; i < 150 && !got; i++) {
		CHECK_EQ(ivwl_xwm_wm_dispatch(wm), 0);
		while ((ev = xcb_poll_for_event(c))) {
			xcb_client_message_event_t *m = (void *)ev;

			if ((ev->response_type & 0x7f) == XCB_CLIENT_MESSAGE &&
			    m->window == w && m->type == protocols &&
			    m->data.data32[0] == want) {
				got = true;
				if (answer) {
					m->window = s->root;
					xcb_send_event(c, 0, s->root,
					XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY |
					XCB_EVENT_MASK_SUBSTRUCTURE_REDIRECT,
					(const char *)m);
					xcb_flush(c);
				}
			}
			free(ev);
		}
		usleep(20000);
	}
	return got;
}

static bool
delete_asked(struct ivwl_xwm_wm *wm, xcb_connection_t *c, xcb_window_t w)
{
	return got_protocol(wm, c, w, "WM_DELETE_WINDOW", false);
}

/* A window of a client of its own taking WM_DELETE_WINDOW and
 * _NET_WM_PING, shown as surface. */
static xcb_connection_t *
pinged_client(struct ivwl_xwm_wm *wm, uint32_t surface, xcb_window_t *w)
{
	xcb_connection_t *c = xcb_connect(display, NULL);
	xcb_screen_t *s = xcb_setup_roots_iterator(xcb_get_setup(c)).data;
	xcb_atom_t protocols[2];

	REQUIRE(!xcb_connection_has_error(c));
	protocols[0] = atom(c, "WM_DELETE_WINDOW");
	protocols[1] = atom(c, "_NET_WM_PING");
	*w = window(c, s, false, 0, 0);
	xcb_change_property(c, XCB_PROP_MODE_REPLACE, *w,
			    atom(c, "WM_PROTOCOLS"), XCB_ATOM_ATOM, 32, 2,
			    protocols);
	rec.toplevel = 0;
	xcb_map_window(c, *w);
	surface_id(c, s, frame_of(wm, c, *w), surface);
	REQUIRE(settle_until(wm, c, is_set, &rec.toplevel));
	return c;
}

/*
 * A close unheeded for 5 s lets the next one disconnect a client that
 * did not answer the ping with it; one that answered is asked again.
 */
static void
test_close_hung(void)
{
	xcb_connection_t *alive, *hung;
	xcb_window_t a, h;
	struct ivwl_xwm_wm *wm;

	start_xvfb();
	wm = ivwl_xwm_wm_create(display, (struct ivwl_xwm_proxy *)&rec);
	REQUIRE(wm);
	alive = pinged_client(wm, 20, &a);
	hung = pinged_client(wm, 21, &h);
	ivwl_xwm_wm_close(wm, 20);
	CHECK(delete_asked(wm, alive, a));
	ivwl_xwm_wm_close(wm, 20);	/* (the ping of the first close) */
	CHECK(got_protocol(wm, alive, a, "_NET_WM_PING", true));
	ivwl_xwm_wm_close(wm, 21);
	CHECK(got_protocol(wm, hung, h, "_NET_WM_PING", false));
	/* within the patience: asked again, not disconnected */
	ivwl_xwm_wm_close(wm, 21);
	CHECK(delete_asked(wm, hung, h));
	for (int i = 0; i < 55; i++) {
		CHECK_EQ(ivwl_xwm_wm_dispatch(wm), 0);
		usleep(100000);
	}
	ivwl_xwm_wm_close(wm, 20);
	CHECK(delete_asked(wm, alive, a));
	ivwl_xwm_wm_close(wm, 21);
	for (int i = 0; i < 100 && !xcb_connection_has_error(hung); i++) {
		free(xcb_get_input_focus_reply(hung,
			xcb_get_input_focus(hung), NULL));
		usleep(20000);
	}
	CHECK(xcb_connection_has_error(hung));
	sync_with(alive);
	CHECK(!xcb_connection_has_error(alive));
	xcb_disconnect(hung);
	xcb_disconnect(alive);
	ivwl_xwm_wm_destroy(wm);
	stop_xvfb();
}

/* ---- the test --------------------------------------------------------- */

static void
test_windows(void)
{
	xcb_connection_t *c, *rude;
	xcb_screen_t *s;
	struct ivwl_xwm_wm *wm;
	xcb_window_t a, dialog, menu, b, frame;
	xcb_atom_t del;
	xcb_get_geometry_reply_t *geo;
	xcb_get_input_focus_reply_t *focus;

	start_xvfb();
	wm = ivwl_xwm_wm_create(display, (struct ivwl_xwm_proxy *)&rec);
	REQUIRE(wm);
	c = xcb_connect(display, NULL);
	REQUIRE(!xcb_connection_has_error(c));
	s = xcb_setup_roots_iterator(xcb_get_setup(c)).data;

	/* a window of its own: title, class, mapped by the manager */
	a = window(c, s, false, 10, 20);
	set_string(c, a, "_NET_WM_NAME", "UTF8_STRING", "probe \xe2\x9c\x93",
		   10);
	set_string(c, a, "WM_CLASS", "STRING", "probe\0Probe", 12);
	del = atom(c, "WM_DELETE_WINDOW");
	xcb_change_property(c, XCB_PROP_MODE_REPLACE, a,
			    atom(c, "WM_PROTOCOLS"), XCB_ATOM_ATOM, 32, 1,
			    &del);
	xcb_map_window(c, a);
	/* it is framed: Xwayland names the frame's surface */
	frame = frame_of(wm, c, a);
	REQUIRE(frame);
	surface_id(c, s, frame, 10);
	REQUIRE(settle_until(wm, c, is_set, &rec.toplevel));
	CHECK_EQ(rec.toplevel, 10);
	CHECK_EQ(rec.parent, 0);
	CHECK(strcmp(rec.title, "probe \xe2\x9c\x93") == 0);
	CHECK(strcmp(rec.app_id, "Probe") == 0);

	/* the title followed */
	set_string(c, a, "_NET_WM_NAME", "UTF8_STRING", "renamed", 7);
	xcb_flush(c);
	REQUIRE(settle_until(wm, c, is_set, &rec.retitled));
	CHECK(strcmp(rec.new_title, "renamed") == 0);

	/* a transient dialog: above its parent's window */
	rec.toplevel = 0;
	dialog = window(c, s, false, 40, 40);
	xcb_change_property(c, XCB_PROP_MODE_REPLACE, dialog,
			    XCB_ATOM_WM_TRANSIENT_FOR, XCB_ATOM_WINDOW, 32, 1,
			    &a);
	xcb_map_window(c, dialog);
	surface_id(c, s, frame_of(wm, c, dialog), 11);
	REQUIRE(settle_until(wm, c, is_set, &rec.toplevel));
	CHECK_EQ(rec.toplevel, 11);
	CHECK_EQ(rec.parent, 10);

	/* the compositor's size (the frame's) and focus reach the X
	 * window, under its title bar */
	ivwl_xwm_wm_configure(wm, 10, 640, 480, true, false, false);
	sync_with(c);
	geo = xcb_get_geometry_reply(c, xcb_get_geometry(c, a), NULL);
	REQUIRE(geo);
	CHECK_EQ(geo->width, 640);
	CHECK_EQ(geo->height, 480 - IVWL_XWM_TITLE_HEIGHT);
	CHECK_EQ(geo->y, IVWL_XWM_TITLE_HEIGHT);
	CHECK_EQ(geo->border_width, 0);	/* the label is weston's */
	free(geo);
	geo = xcb_get_geometry_reply(c, xcb_get_geometry(c, frame), NULL);
	REQUIRE(geo);
	CHECK_EQ(geo->width, 640);
	CHECK_EQ(geo->height, 480);
	free(geo);
	focus = xcb_get_input_focus_reply(c, xcb_get_input_focus(c), NULL);
	REQUIRE(focus);
	CHECK_EQ(focus->focus, a);
	free(focus);

	/* fullscreen as the application asks (_NET_WM_STATE add) */
	ask_wm(c, s, a, atom(c, "_NET_WM_STATE"), 1,
	       atom(c, "_NET_WM_STATE_FULLSCREEN"));
	REQUIRE(settle_until(wm, c, is_set, &rec.fullscreen));
	CHECK_EQ(rec.fullscreen, 10);

	/* a menu: over the window with the focus, where X put it (the
	 * frame took the window's place at 10, 20) */
	menu = window(c, s, true, 60, 90);
	xcb_map_window(c, menu);
	surface_id(c, s, menu, 12);
	REQUIRE(settle_until(wm, c, is_set, &rec.child));
	CHECK_EQ(rec.child, 12);
	CHECK_EQ(rec.child_parent, 10);
	CHECK_EQ(rec.child_x, 50);
	CHECK_EQ(rec.child_y, 70);

	/* the title bar: a drag moves, the buttons maximize and close */
	click_frame(c, frame, 100, 10);
	REQUIRE(settle_until(wm, c, is_set, &rec.moved));
	CHECK_EQ(rec.moved, 10);
	/* a button acts on its release over it, not when left */
	button_frame(c, frame, true, 640 - IVWL_XWM_TITLE_HEIGHT - 10, 10);
	button_frame(c, frame, false, 100, 10);
	for (int i = 0; i < 10; i++) {
		sync_with(c);
		CHECK_EQ(ivwl_xwm_wm_dispatch(wm), 0);
		usleep(10000);
	}
	CHECK_EQ(rec.maximized, 0);
	click_frame(c, frame, 640 - IVWL_XWM_TITLE_HEIGHT - 10, 10);
	REQUIRE(settle_until(wm, c, is_set, &rec.maximized));
	CHECK_EQ(rec.maximized, 10);
	click_frame(c, frame, 640 - 10, 10);
	CHECK(delete_asked(wm, c, a));

	/* the compositor's close asks politely too... */
	ivwl_xwm_wm_close(wm, 10);
	CHECK(delete_asked(wm, c, a));

	/* ...and disconnects a client that does not take WM_DELETE_WINDOW */
	rude = xcb_connect(display, NULL);
	REQUIRE(!xcb_connection_has_error(rude));
	rec.toplevel = 0;
	b = window(rude, s, false, 0, 0);
	xcb_map_window(rude, b);
	surface_id(rude, s, frame_of(wm, rude, b), 13);
	REQUIRE(settle_until(wm, rude, is_set, &rec.toplevel));
	CHECK_EQ(rec.toplevel, 13);
	ivwl_xwm_wm_close(wm, 13);
	for (int i = 0; i < 100 && !xcb_connection_has_error(rude); i++) {
		free(xcb_get_input_focus_reply(rude,
			xcb_get_input_focus(rude), NULL));
		usleep(20000);
	}
	CHECK(xcb_connection_has_error(rude));
	/* the polite one is still there */
	sync_with(c);
	CHECK(!xcb_connection_has_error(c));

	xcb_disconnect(rude);
	xcb_disconnect(c);
	ivwl_xwm_wm_destroy(wm);
	stop_xvfb();
}

static void
check_size(xcb_connection_t *c, xcb_window_t w, uint16_t width,
	   uint16_t height)
{
	xcb_get_geometry_reply_t *geo;

	geo = xcb_get_geometry_reply(c, xcb_get_geometry(c, w), NULL);
	REQUIRE(geo);
	CHECK_EQ(geo->width, width);
	CHECK_EQ(geo->height, height);
	free(geo);
}

/* Xvfb, a window manager on it, and the test's connection to it. */
static struct ivwl_xwm_wm *
start_wm(xcb_connection_t **c, xcb_screen_t **s)
{
	struct ivwl_xwm_wm *wm;

	start_xvfb();
	wm = ivwl_xwm_wm_create(display, (struct ivwl_xwm_proxy *)&rec);
	REQUIRE(wm);
	*c = xcb_connect(display, NULL);
	REQUIRE(!xcb_connection_has_error(*c));
	*s = xcb_setup_roots_iterator(xcb_get_setup(*c)).data;
	return wm;
}

/* w resized to width x height just before its map, as Tk does: its
 * frame. */
static xcb_window_t
map_sized(struct ivwl_xwm_wm *wm, xcb_connection_t *c, xcb_window_t w,
	  uint32_t width, uint32_t height)
{
	const uint32_t size[2] = { width, height };
	xcb_window_t frame;

	xcb_configure_window(c, w, XCB_CONFIG_WINDOW_WIDTH |
			     XCB_CONFIG_WINDOW_HEIGHT, size);
	xcb_map_window(c, w);
	frame = frame_of(wm, c, w);
	REQUIRE(frame);
	return frame;
}

/*
 * A window resized just before it is mapped (Tk does so) is framed at
 * the size it asked for: the map request comes before the configure
 * notify of the resize the manager granted.  One larger than the
 * screen is fitted to it.
 */
static void
test_resize_before_map(void)
{
	xcb_connection_t *c;
	xcb_screen_t *s;
	struct ivwl_xwm_wm *wm;
	xcb_window_t w, frame;
	const uint32_t big[2] = { 1096, 880 };

	wm = start_wm(&c, &s);
	w = window(c, s, false, 30, 40);
	frame = map_sized(wm, c, w, 320, 240);
	sync_with(c);
	check_size(c, frame, 320, 240 + IVWL_XWM_TITLE_HEIGHT);
	check_size(c, w, 320, 240);

	/* larger than the screen (1024x768): it gets the screen less
	 * room for a bar and borders (wm.c's FIT_ROOM_X and _Y: 16
	 * and 48 px) */
	w = window(c, s, false, 0, 0);
	xcb_configure_window(c, w, XCB_CONFIG_WINDOW_WIDTH |
			     XCB_CONFIG_WINDOW_HEIGHT, big);
	xcb_map_window(c, w);
	frame = frame_of(wm, c, w);
	REQUIRE(frame);
	sync_with(c);
	check_size(c, frame, 1024 - 16, 768 - 48 + IVWL_XWM_TITLE_HEIGHT);
	check_size(c, w, 1024 - 16, 768 - 48);
	/* and its own resize past the screen, once framed, too */
	xcb_configure_window(c, w, XCB_CONFIG_WINDOW_WIDTH |
			     XCB_CONFIG_WINDOW_HEIGHT, big);
	for (int i = 0; i < 20; i++) {
		sync_with(c);
		CHECK_EQ(ivwl_xwm_wm_dispatch(wm), 0);
		usleep(10000);
	}
	check_size(c, frame, 1024 - 16, 768 - 48 + IVWL_XWM_TITLE_HEIGHT);
	check_size(c, w, 1024 - 16, 768 - 48);
	xcb_disconnect(c);
	ivwl_xwm_wm_destroy(wm);
	stop_xvfb();
}

/* Lets the window manager's requests reach the server (its connection
 * is not the test's), then checks w's size. */
static void
settle_size(struct ivwl_xwm_wm *wm, xcb_connection_t *c, xcb_window_t w,
	    uint16_t width, uint16_t height)
{
	xcb_get_geometry_reply_t *geo;

	for (int i = 0; i < 50; i++) {
		sync_with(c);
		CHECK_EQ(ivwl_xwm_wm_dispatch(wm), 0);
		geo = xcb_get_geometry_reply(c, xcb_get_geometry(c, w), NULL);
		if (geo && geo->width == width && geo->height == height) {
			free(geo);
			break;
		}
		free(geo);
		usleep(10000);
	}
	check_size(c, w, width, height);
}

/* The top of the window's _NET_FRAME_EXTENTS: its bar's height. */
static uint32_t
frame_top(xcb_connection_t *c, xcb_window_t w)
{
	xcb_get_property_reply_t *r;
	uint32_t top = UINT32_MAX;

	r = xcb_get_property_reply(c, xcb_get_property(c, 0, w,
			atom(c, "_NET_FRAME_EXTENTS"), XCB_ATOM_CARDINAL, 0, 4),
		NULL);
	if (r && xcb_get_property_value_length(r) == 16)
		top = ((uint32_t *)xcb_get_property_value(r))[2];
	free(r);
	return top;
}

/*
 * A window the compositor decorates (server-side) loses the frame's own
 * bar, its content at the frame's top; told otherwise, it gets it back.
 * _NET_FRAME_EXTENTS follows the bar, fullscreen's none included.
 */
static void
test_decorated(void)
{
	xcb_connection_t *c;
	xcb_screen_t *s;
	struct ivwl_xwm_wm *wm;
	xcb_window_t w, frame;
	const uint32_t big[2] = { 1096, 880 }, small[2] = { 400, 300 };

	wm = start_wm(&c, &s);
	w = window(c, s, false, 30, 40);
	frame = map_sized(wm, c, w, 320, 240);
	rec.toplevel = 0;
	surface_id(c, s, frame, 20);
	REQUIRE(settle_until(wm, c, is_set, &rec.toplevel));
	/* the resize asked before the map is served before going on: on
	 * a busy machine it could come after the compositor's sizes */
	for (int i = 0; i < 30; i++) {
		sync_with(c);
		CHECK_EQ(ivwl_xwm_wm_dispatch(wm), 0);
		usleep(10000);
	}
	check_size(c, frame, 320, 240 + IVWL_XWM_TITLE_HEIGHT);
	CHECK_EQ(frame_top(c, w), IVWL_XWM_TITLE_HEIGHT);

	ivwl_xwm_wm_decorated(wm, 20, true);
	settle_size(wm, c, frame, 320, 240);
	check_size(c, w, 320, 240);
	CHECK_EQ(frame_top(c, w), 0);
	/* the compositor's sizes are the window's whole now */
	ivwl_xwm_wm_configure(wm, 20, 400, 300, true, false, false);
	settle_size(wm, c, frame, 400, 300);
	check_size(c, w, 400, 300);

	/* its own resize past the screen leaves room for the
	 * compositor's bar, as for ivwl-xwm's (FIT_ROOM_Y) */
	xcb_configure_window(c, w, XCB_CONFIG_WINDOW_WIDTH |
			     XCB_CONFIG_WINDOW_HEIGHT, big);
	settle_size(wm, c, frame, 1024 - 16, 768 - 48);
	check_size(c, w, 1024 - 16, 768 - 48);
	xcb_configure_window(c, w, XCB_CONFIG_WINDOW_WIDTH |
			     XCB_CONFIG_WINDOW_HEIGHT, small);
	settle_size(wm, c, frame, 400, 300);

	ivwl_xwm_wm_decorated(wm, 20, false);
	settle_size(wm, c, frame, 400, 300 + IVWL_XWM_TITLE_HEIGHT);
	check_size(c, w, 400, 300);
	CHECK_EQ(frame_top(c, w), IVWL_XWM_TITLE_HEIGHT);
	/* fullscreen has no bar either, and says so */
	ivwl_xwm_wm_configure(wm, 20, 1024, 768, true, true, false);
	settle_size(wm, c, frame, 1024, 768);
	check_size(c, w, 1024, 768);
	CHECK_EQ(frame_top(c, w), 0);
	xcb_disconnect(c);
	ivwl_xwm_wm_destroy(wm);
	stop_xvfb();
}

IVWL_TEST_MAIN(TEST(test_windows), TEST(test_close_hung),
	       TEST(test_resize_before_map), TEST(test_decorated))
