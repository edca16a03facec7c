/* SPDX-License-Identifier: MIT */
/*
 * What the tests' and benchmarks' own Wayland clients share: globals
 * bound by interface name and version, an xdg toplevel that waits for
 * and acks its configures, wl_shm buffers in memfd pools with their
 * busy/release state, and frame callbacks.  Plain libwayland-client, no
 * ivwl code: these clients stand for any application.
 *
 * Each client keeps what it does differently to itself (its own pool
 * tricks, popups, object graphs); only what is the same in all is here.
 */
#ifndef IVWL_TEST_CLIENT_H
#define IVWL_TEST_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <wayland-client.h>

#include "xdg-shell-client-protocol.h"

/* ---- globals ---------------------------------------------------------- */

/*
 * A global a client wants: the first one offered of interface, bound at
 * the lower of version and what the display offers, into *proxy (a
 * struct wl_foo * of the client's).  A listener, if set, is added with
 * data as soon as it is bound, before any event can come.
 */
struct ivwl_client_global {
	const struct wl_interface *interface;
	uint32_t version;
	void *proxy;
	const void *listener;
	void *data;
	bool optional;		/* the client does without it */
};

/*
 * One entry of globals[]: IVWL_CLIENT_GLOBAL(wl_seat_interface, 5,
 * &app->seat, .listener = &seat_listener, .data = app).
 */
#define IVWL_CLIENT_GLOBAL(iface, ver, where, ...) \
	{ .interface = &(iface), .version = (ver), .proxy = (where), \
	  __VA_ARGS__ }

/* What a client with xdg windows and shm buffers binds, at least. */
#define IVWL_CLIENT_SHELL_GLOBALS(compositor, shm, wm_base) \
	IVWL_CLIENT_GLOBAL(wl_compositor_interface, 4, compositor), \
	IVWL_CLIENT_GLOBAL(wl_shm_interface, 1, shm), \
	IVWL_CLIENT_GLOBAL(xdg_wm_base_interface, 1, wm_base, \
			   .listener = &ivwl_client_wm_base_listener)

/* A client's registry: globals[] ends with { 0 }. */
struct ivwl_client_registry {
	struct wl_registry *wl;
	struct ivwl_client_global *globals;
	/* each global globals[] did not take, or NULL */
	void (*other)(struct ivwl_client_registry *reg, uint32_t name,
		      const char *interface, uint32_t version);
};

/* Answers xdg_wm_base.ping. */
extern const struct xdg_wm_base_listener ivwl_client_wm_base_listener;

/*
 * Connects to the display WAYLAND_DISPLAY names and, if reg is not NULL,
 * listens to its registry and waits roundtrips round trips for its
 * globals (a second one lets the first events of those bound come).
 * NULL, said on stderr after "who: ", when it cannot connect, the
 * display goes or a global that is not optional is missing.
 */
struct wl_display *
ivwl_client_connect(struct ivwl_client_registry *reg, int roundtrips,
		    const char *who);

/*
 * Binds the global (name, interface, version) if it is one of globals[]
 * not bound yet; whether it did.  For a client with a registry listener
 * of its own.
 */
bool
ivwl_client_bind_global(struct wl_registry *registry,
			struct ivwl_client_global *globals, uint32_t name,
			const char *interface, uint32_t version);

/* -1, said on stderr after "who: ", when a global not optional is missing. */
int
ivwl_client_check_globals(const struct ivwl_client_global *globals,
			  const char *who);

/* ---- windows ---------------------------------------------------------- */

struct ivwl_client_window {
	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *toplevel;	/* NULL for another role */
	bool configured;	/* a configure came and was acked */
	int32_t width, height;	/* the last size asked for, 0 x 0: ours */
	bool closed;		/* xdg_toplevel.close came */
	/* at xdg_toplevel.close, if set (after the init, which zeroes) */
	void (*close)(struct ivwl_client_window *win);
};

/*
 * A wl_surface and its xdg_surface, whose configures are acked as they
 * come; the role is the caller's to give (a popup, say).
 */
void
ivwl_client_window_init(struct ivwl_client_window *win,
			struct wl_compositor *compositor,
			struct xdg_wm_base *wm_base);

/* ivwl_client_window_init() and an xdg_toplevel; app_id may be NULL. */
void
ivwl_client_toplevel_init(struct ivwl_client_window *win,
			  struct wl_compositor *compositor,
			  struct xdg_wm_base *wm_base, const char *title,
			  const char *app_id);

/* Commits the role (no buffer yet) and waits for the first configure. */
int
ivwl_client_window_configure(struct ivwl_client_window *win,
			     struct wl_display *display);

/* Destroys what the window has (the role object first); zeroes it. */
void
ivwl_client_window_fini(struct ivwl_client_window *win);

/* ---- shm buffers ------------------------------------------------------ */

/* A memfd mapped shared, and the wl_shm_pool over it. */
struct ivwl_client_pool {
	struct wl_shm_pool *wl;	/* NULL once dropped */
	int fd;			/* -1 once dropped */
	uint8_t *map;
	size_t size;
};

/*
 * A pool of size bytes: over fd if it is not -1 (grown to size, and the
 * pool's from now on), else over a new memfd called name.  -1 on
 * failure, with nothing left open.
 */
int
ivwl_client_pool_init(struct ivwl_client_pool *pool, struct wl_shm *shm,
		      int fd, size_t size, const char *name);

/*
 * The wl_shm_pool and the fd go, the mapping stays: the buffers made
 * keep the memory.
 */
void
ivwl_client_pool_drop(struct ivwl_client_pool *pool);

/* Drops the pool and unmaps it. */
void
ivwl_client_pool_fini(struct ivwl_client_pool *pool);

/* A wl_buffer of 4-byte pixels (ARGB8888, XRGB8888) in a pool. */
struct ivwl_client_buffer {
	struct wl_buffer *wl;
	uint32_t *pixels;	/* width x height, rows of width */
	int width, height;
	bool busy;		/* attached, not released yet */
	/* after busy went false on a release, if set */
	void (*release)(struct ivwl_client_buffer *b);
};

/*
 * b's wl_buffer: width x height at offset in the pool, tracked busy
 * from ivwl_client_buffer_attach() to its release.  busy and release
 * are left as they are: a buffer made anew over one the display still
 * holds stays busy until that one's release.
 */
void
ivwl_client_buffer_init(struct ivwl_client_buffer *b,
			struct ivwl_client_pool *pool, size_t offset,
			int width, int height, uint32_t format);

/* Attaches b to the surface: busy until the display releases it. */
void
ivwl_client_buffer_attach(struct ivwl_client_buffer *b,
			  struct wl_surface *surface);

/*
 * A buffer drawn once and never again, release not tracked: paint
 * fills its pixels, then its memfd is unmapped before the display sees
 * it, so the display holds the only copy.  NULL on failure.
 */
struct wl_buffer *
ivwl_client_fixed_buffer(struct wl_shm *shm, int width, int height,
			 uint32_t format, const char *name,
			 void (*paint)(uint32_t *pixels, int width, int height,
				       void *data),
			 void *data);

/* ---- frames ----------------------------------------------------------- */

struct ivwl_client_frame {
	struct wl_callback *callback;	/* asked for, not done yet */
	unsigned int done;		/* callbacks that came */
};

/* Asks the surface's next frame callback (before the commit), when
 * none is pending. */
void
ivwl_client_frame_ask(struct ivwl_client_frame *frame,
		      struct wl_surface *surface);

/* Forgets a callback not done yet (its surface goes, say). */
void
ivwl_client_frame_cancel(struct ivwl_client_frame *frame);

/* Dispatches until the callback asked for came; -1 if the display went. */
int
ivwl_client_frame_wait(struct ivwl_client_frame *frame,
		       struct wl_display *display);

#endif
