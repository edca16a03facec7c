/* SPDX-License-Identifier: MIT */
/*
 * The Wayland side of ivwl-xwm: a proxy between Xwayland (rootless) and
 * the compositor.  Xwayland's messages pass through with their object
 * ids renumbered, so that the proxy can add objects of its own to the
 * same connection: the xdg_surface and xdg_toplevel that make one of
 * Xwayland's wl_surfaces a window, the wl_subsurface that places a menu
 * over its window.  A wl_surface of Xwayland's that has no role yet
 * keeps its commits here until the window manager (wm.c) gives it one,
 * since xdg-shell wants a configure before the first buffer.
 */
#ifndef IVWL_XWM_PROXY_H
#define IVWL_XWM_PROXY_H

#include <stdbool.h>
#include <stdint.h>

struct ivwl_xwm_proxy;

/* What the compositor asks of a window (by Xwayland's surface id). */
struct ivwl_xwm_proxy_hooks {
	/* xdg_toplevel.configure: 0 for a size the window picks */
	void (*configure)(void *data, uint32_t surface, int32_t width,
			  int32_t height, bool activated, bool fullscreen,
			  bool maximized);
	/* xdg_toplevel.close: the user clicked the close button */
	void (*close)(void *data, uint32_t surface);
	/*
	 * The compositor decorates the window (a title bar of its own:
	 * server_side) or leaves that to it; NULL: not told.
	 */
	void (*decorated)(void *data, uint32_t surface, bool server_side);
	/*
	 * The clipboard as the compositor offers it now (n 0: empty or
	 * not this VM's to see), told when it changes and whenever an X
	 * window is given the keyboard; never the proxy's own selection.
	 */
	void (*selection)(void *data, const char *const *mimes, uint32_t n);
	/* A reader wants mime of the selection the proxy set: written to
	 * fd, which is then closed (fd is the callee's). */
	void (*send)(void *data, const char *mime, int fd);
};

/*
 * down: the socket Xwayland speaks on; up: the connection to the
 * compositor.  Both become the proxy's.  NULL on failure (errno).
 */
struct ivwl_xwm_proxy *
ivwl_xwm_proxy_create(int down, int up, const struct ivwl_xwm_proxy_hooks *hooks,
		      void *data);

void
ivwl_xwm_proxy_destroy(struct ivwl_xwm_proxy *p);

int
ivwl_xwm_proxy_down_fd(const struct ivwl_xwm_proxy *p);

int
ivwl_xwm_proxy_up_fd(const struct ivwl_xwm_proxy *p);

/*
 * Reads and forwards what one side sent.  0, or -errno when the
 * connection is over (EOF: -EPIPE), with the reason logged.
 */
int
ivwl_xwm_proxy_read_down(struct ivwl_xwm_proxy *p);

int
ivwl_xwm_proxy_read_up(struct ivwl_xwm_proxy *p);

/* Sends what is queued: 0, -EAGAIN (wait for POLLOUT), or -errno. */
int
ivwl_xwm_proxy_flush(struct ivwl_xwm_proxy *p);

/* True while output waits for a socket to take it. */
bool
ivwl_xwm_proxy_wants_write(const struct ivwl_xwm_proxy *p);

/*
 * The window manager's decisions, each about one of Xwayland's
 * surfaces (its id on Xwayland's side, as WL_SURFACE_ID names it).  A
 * surface Xwayland has not made yet gets it when it does.
 */

/* A window of its own: parent (a surface of a window, or 0) for a
 * transient, which stays above it. */
int
ivwl_xwm_proxy_toplevel(struct ivwl_xwm_proxy *p, uint32_t surface,
			const char *title, const char *app_id,
			uint32_t parent);

int
ivwl_xwm_proxy_set_title(struct ivwl_xwm_proxy *p, uint32_t surface,
			 const char *title);

int
ivwl_xwm_proxy_set_fullscreen(struct ivwl_xwm_proxy *p, uint32_t surface,
			      bool fullscreen);

int
ivwl_xwm_proxy_set_maximized(struct ivwl_xwm_proxy *p, uint32_t surface,
			     bool maximized);

/* The user drags the window (its title bar): the compositor moves it
 * while the button that was pressed last stays down. */
int
ivwl_xwm_proxy_move(struct ivwl_xwm_proxy *p, uint32_t surface);

/* Drawn over its window's surface parent at x, y of it (menus,
 * tooltips: X's override-redirect windows). */
int
ivwl_xwm_proxy_child(struct ivwl_xwm_proxy *p, uint32_t surface,
		     uint32_t parent, int32_t x, int32_t y);

/* A child moved (x, y over its parent). */
int
ivwl_xwm_proxy_move_child(struct ivwl_xwm_proxy *p, uint32_t surface,
			  int32_t x, int32_t y);

/*
 * The clipboard.  set_selection offers mimes as the compositor's
 * selection, asked for through the hooks' send (n 0: the proxy's offer
 * is withdrawn); receive asks the current selection for mime, written
 * into fd (taken).  0 or -errno.
 */
int
ivwl_xwm_proxy_set_selection(struct ivwl_xwm_proxy *p,
			     const char *const *mimes, uint32_t n);

int
ivwl_xwm_proxy_receive(struct ivwl_xwm_proxy *p, const char *mime, int fd);

/* No longer shown (its X window unmapped): its role objects go. */
void
ivwl_xwm_proxy_unmap(struct ivwl_xwm_proxy *p, uint32_t surface);

#endif
