/* SPDX-License-Identifier: MIT */
/*
 * Windows that ask weston for a state and go in the same breath: each
 * round asks for maximized before the initial commit, commits, and
 * destroys the xdg_toplevel (then a popup on a toplevel likewise)
 * before weston's scheduled configure goes out.  weston 14 sends that configure through the freed
 * role object (use after free) unless ivwl holds the destroy back
 * (plugin/translate.c, "barrier").  Prints "done N" after N rounds.
 *
 *   ivwl-role-race-client [ROUNDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

struct race {
	struct wl_compositor *compositor;
	struct xdg_wm_base *wm_base;
	/* the last round's, destroyed after weston answered: weston
	 * cancels a scheduled configure with the xdg_surface */
	struct xdg_surface *xdg_surface;
	struct wl_surface *surface;
};

/* A toplevel that asks for states and is gone before their configure. */
static void
toplevel_round(struct race *r, struct wl_display *display)
{
	struct wl_surface *s = wl_compositor_create_surface(r->compositor);
	struct xdg_surface *xs = xdg_wm_base_get_xdg_surface(r->wm_base, s);
	struct xdg_toplevel *top = xdg_surface_get_toplevel(xs);

	/* asked before the initial commit: its configure is scheduled */
	xdg_toplevel_set_title(top, "role-race");
	xdg_toplevel_set_maximized(top);
	wl_surface_commit(s);
	xdg_toplevel_destroy(top);
	wl_display_flush(display);
	r->xdg_surface = xs;
	r->surface = s;
}

/* A popup on a toplevel, both gone before weston's configures. */
static void
popup_round(struct race *r, struct wl_display *display)
{
	struct wl_surface *ps = wl_compositor_create_surface(r->compositor);
	struct xdg_surface *pxs = xdg_wm_base_get_xdg_surface(r->wm_base, ps);
	struct xdg_toplevel *top = xdg_surface_get_toplevel(pxs);
	struct xdg_positioner *pos = xdg_wm_base_create_positioner(r->wm_base);
	struct wl_surface *cs = wl_compositor_create_surface(r->compositor);
	struct xdg_surface *cxs = xdg_wm_base_get_xdg_surface(r->wm_base, cs);
	struct xdg_popup *popup;

	xdg_positioner_set_size(pos, 40, 30);
	xdg_positioner_set_anchor_rect(pos, 0, 0, 10, 10);
	wl_surface_commit(ps);
	popup = xdg_surface_get_popup(cxs, pxs, pos);
	wl_surface_commit(cs);
	xdg_popup_destroy(popup);
	xdg_surface_destroy(cxs);
	wl_surface_destroy(cs);
	xdg_positioner_destroy(pos);
	xdg_toplevel_set_maximized(top);
	wl_surface_commit(ps);
	xdg_toplevel_destroy(top);
	xdg_surface_destroy(pxs);
	wl_surface_destroy(ps);
	wl_display_flush(display);
}

int
main(int argc, char *argv[])
{
	int rounds = argc > 1 ? atoi(argv[1]) : 50, i;
	struct race r = { 0 };
	struct ivwl_client_global globals[] = {
		IVWL_CLIENT_GLOBAL(wl_compositor_interface, 4, &r.compositor),
		IVWL_CLIENT_GLOBAL(xdg_wm_base_interface, 1, &r.wm_base,
				   .listener = &ivwl_client_wm_base_listener),
		{ 0 },
	};
	struct ivwl_client_registry reg = { .globals = globals };
	struct wl_display *display;

	display = ivwl_client_connect(&reg, 1, "ivwl-role-race-client");
	if (!display)
		return 1;
	for (i = 0; i < rounds; i++) {
		toplevel_round(&r, display);
		popup_round(&r, display);
		/* weston's answers, and its idle callbacks, in between */
		if (wl_display_roundtrip(display) < 0) {
			fprintf(stderr, "round %d: the display went: %s\n", i,
				strerror(wl_display_get_error(display)));
			return 1;
		}
		xdg_surface_destroy(r.xdg_surface);
		wl_surface_destroy(r.surface);
	}
	printf("done %d\n", rounds);
	fflush(stdout);
	wl_display_disconnect(display);
	return 0;
}
