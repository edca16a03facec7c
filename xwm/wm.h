/* SPDX-License-Identifier: MIT */
/*
 * The X side of ivwl-xwm: the window manager of its rootless Xwayland.
 * It decides what each X window is on the Wayland side (a window of its
 * own, a transient above its parent, a menu or tooltip over the window
 * it belongs to) and tells the proxy (proxy.h); what the compositor asks
 * of a window (its size, focus, closing) it asks of the X client.
 */
#ifndef IVWL_XWM_WM_H
#define IVWL_XWM_WM_H

#include <stdbool.h>
#include <stdint.h>

struct ivwl_xwm_proxy;
struct ivwl_xwm_selection;
struct ivwl_xwm_wm;

/* Connects to display (":N") as its window manager; NULL on failure. */
struct ivwl_xwm_wm *
ivwl_xwm_wm_create(const char *display, struct ivwl_xwm_proxy *proxy);

void
ivwl_xwm_wm_destroy(struct ivwl_xwm_wm *wm);

int
ivwl_xwm_wm_fd(const struct ivwl_xwm_wm *wm);

/* Handles what X sent: 0, or -EPIPE once the X server is gone. */
int
ivwl_xwm_wm_dispatch(struct ivwl_xwm_wm *wm);

/* The compositor's wishes for the window of Xwayland's surface. */
void
ivwl_xwm_wm_configure(struct ivwl_xwm_wm *wm, uint32_t surface,
		      int32_t width, int32_t height, bool activated,
		      bool fullscreen, bool maximized);

/*
 * The compositor draws the window's title bar (server_side), or leaves
 * it to the window manager: the frame's own bar goes, or comes back.
 */
void
ivwl_xwm_wm_decorated(struct ivwl_xwm_wm *wm, uint32_t surface,
		      bool server_side);

/* The close button: WM_DELETE_WINDOW, or the client disconnected. */
void
ivwl_xwm_wm_close(struct ivwl_xwm_wm *wm, uint32_t surface);

/* Its clipboard bridge (selection.h), NULL without one. */
struct ivwl_xwm_selection *
ivwl_xwm_wm_selection(const struct ivwl_xwm_wm *wm);

#endif
