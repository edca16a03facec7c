/* SPDX-License-Identifier: MIT */
/*
 * An X client that resizes its window just before it maps it, as Tk
 * does: created 1x1, resized to the size asked, mapped at once, with no
 * round trip between.  The window manager sees the map request before
 * the configure notify of the resize it granted (test-x11.py, x11-tk
 * and x11-oversize).  It fills the window with one colour and says on
 * stderr each size it is given ("configured WxH"), until killed.
 *
 *     ivwl-x11-resize-client WIDTH HEIGHT RRGGBB TITLE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xcb/xcb.h>

struct args {
	uint32_t width, height, rgb;
	const char *title;
};

static int
parse(int argc, char **argv, struct args *a)
{
	char *end;

	if (argc != 5)
		return -1;
	a->width = (uint32_t)strtoul(argv[1], &end, 10);
	if (*end || !a->width || a->width > 32767)
		return -1;
	a->height = (uint32_t)strtoul(argv[2], &end, 10);
	if (*end || !a->height || a->height > 32767)
		return -1;
	a->rgb = (uint32_t)strtoul(argv[3], &end, 16);
	if (*end)
		return -1;
	a->title = argv[4];
	return 0;
}

static void
fill(xcb_connection_t *conn, xcb_window_t win, xcb_gcontext_t gc,
     uint16_t width, uint16_t height)
{
	xcb_rectangle_t all = { 0, 0, width, height };

	xcb_poly_fill_rectangle(conn, win, gc, 1, &all);
	xcb_flush(conn);
}

/* Creates the window 1x1, resizes and maps it: one flush for all. */
static xcb_window_t
make_window(xcb_connection_t *conn, xcb_screen_t *screen,
	    const struct args *a)
{
	xcb_window_t win = xcb_generate_id(conn);
	const uint32_t values[2] = {
		a->rgb,
		XCB_EVENT_MASK_EXPOSURE | XCB_EVENT_MASK_STRUCTURE_NOTIFY,
	};
	const uint32_t size[2] = { a->width, a->height };

	xcb_create_window(conn, XCB_COPY_FROM_PARENT, win, screen->root, 0, 0,
			  1, 1, 0, XCB_WINDOW_CLASS_INPUT_OUTPUT,
			  screen->root_visual,
			  XCB_CW_BACK_PIXEL | XCB_CW_EVENT_MASK, values);
	xcb_change_property(conn, XCB_PROP_MODE_REPLACE, win,
			    XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 8,
			    (uint32_t)strlen(a->title), a->title);
	xcb_configure_window(conn, win, XCB_CONFIG_WINDOW_WIDTH |
			     XCB_CONFIG_WINDOW_HEIGHT, size);
	xcb_map_window(conn, win);
	xcb_flush(conn);
	return win;
}

static void
run(xcb_connection_t *conn, xcb_window_t win, xcb_gcontext_t gc,
    const struct args *a)
{
	xcb_generic_event_t *ev;
	xcb_configure_notify_event_t *c;
	uint16_t width = (uint16_t)a->width, height = (uint16_t)a->height;

	while ((ev = xcb_wait_for_event(conn))) {
		switch (ev->response_type & 0x7f) {
		case XCB_EXPOSE:
			fill(conn, win, gc, width, height);
			break;
		case XCB_CONFIGURE_NOTIFY:
			c = (xcb_configure_notify_event_t *)ev;
			if (c->width != width || c->height != height) {
				width = c->width;
				height = c->height;
				fprintf(stderr, "configured %ux%u\n", width,
					height);
				fill(conn, win, gc, width, height);
			}
			break;
		default:
			break;
		}
		free(ev);
	}
}

int
main(int argc, char **argv)
{
	struct args a;
	xcb_connection_t *conn;
	xcb_screen_t *screen;
	xcb_window_t win;
	xcb_gcontext_t gc;

	if (parse(argc, argv, &a) < 0) {
		fprintf(stderr, "usage: %s WIDTH HEIGHT RRGGBB TITLE\n",
			argv[0]);
		return 2;
	}
	conn = xcb_connect(NULL, NULL);
	if (xcb_connection_has_error(conn)) {
		fprintf(stderr, "cannot connect to the X display\n");
		goto err_conn;
	}
	screen = xcb_setup_roots_iterator(xcb_get_setup(conn)).data;
	win = make_window(conn, screen, &a);
	gc = xcb_generate_id(conn);
	xcb_create_gc(conn, gc, win, XCB_GC_FOREGROUND, &a.rgb);
	run(conn, win, gc, &a);
	xcb_disconnect(conn);
	return 0;

err_conn:
	xcb_disconnect(conn);
	return 1;
}
