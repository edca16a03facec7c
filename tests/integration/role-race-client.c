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
#include <wayland-client.h>

#include "xdg-shell-client-protocol.h"

struct race {
	struct wl_compositor *compositor;
	struct xdg_wm_base *wm_base;
	/* the last round's, destroyed after weston answered: weston
	 * cancels a scheduled configure with the xdg_surface */
	struct xdg_surface *xdg_surface;
	struct wl_surface *surface;
};

static void
on_global(void *data, struct wl_registry *registry, uint32_t name,
	  const char *interface, uint32_t version)
{
	struct race *r = data;

	if (strcmp(interface, wl_compositor_interface.name) == 0)
		r->compositor = wl_registry_bind(registry, name,
						 &wl_compositor_interface, 4);
	else if (strcmp(interface, xdg_wm_base_interface.name) == 0)
		r->wm_base = wl_registry_bind(registry, name,
					      &xdg_wm_base_interface, 1);
}

static void
on_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	on_global,
	on_global_remove,
};

static void
on_ping(void *data, struct xdg_wm_base *wm_base, uint32_t serial)
{
	xdg_wm_base_pong(wm_base, serial);
}

static const struct xdg_wm_base_listener wm_base_listener = {
	on_ping,
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
	struct wl_display *display = wl_display_connect(NULL);
	struct race r = { 0 };
	struct wl_registry *registry;

	if (!display) {
		perror("wl_display_connect");
		return 1;
	}
	registry = wl_display_get_registry(display);
	wl_registry_add_listener(registry, &registry_listener, &r);
	if (wl_display_roundtrip(display) < 0 || !r.compositor ||
	    !r.wm_base) {
		fprintf(stderr, "no wl_compositor or xdg_wm_base\n");
		return 1;
	}
	xdg_wm_base_add_listener(r.wm_base, &wm_base_listener, NULL);
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
