/* SPDX-License-Identifier: MIT */
/*
 * The X clipboard (the CLIPBOARD selection) bridged to the Wayland one
 * of the compositor, both ways, for the X applications of one
 * Xwayland.  When an X client owns CLIPBOARD, its targets become the
 * proxy's Wayland selection and a Wayland reader's pipe is filled by
 * converting the X selection; when the Wayland selection changes (and
 * an X window has the keyboard: the compositor tells only then), the
 * bridge owns CLIPBOARD and answers X requestors from the Wayland offer.
 * Large transfers use ICCCM's INCR both ways; nothing is cut short
 * silently: a transfer that fails is refused (X) or its pipe closed
 * (Wayland) and logged.
 */
#ifndef IVWL_XWM_SELECTION_H
#define IVWL_XWM_SELECTION_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

#include <xcb/xcb.h>

struct ivwl_xwm_proxy;
struct ivwl_xwm_selection;

/* Most file descriptors the bridge polls at once. */
#define IVWL_XWM_SELECTION_FDS 24

struct ivwl_xwm_selection *
ivwl_xwm_selection_create(xcb_connection_t *conn, xcb_screen_t *screen,
			  struct ivwl_xwm_proxy *proxy);

void
ivwl_xwm_selection_destroy(struct ivwl_xwm_selection *sel);

/* An X event; true when it was the bridge's. */
bool
ivwl_xwm_selection_handle(struct ivwl_xwm_selection *sel,
			  xcb_generic_event_t *ev);

/* The Wayland selection now (n 0: none for X). */
void
ivwl_xwm_selection_offered(struct ivwl_xwm_selection *sel,
			   const char *const *mimes, uint32_t n);

/* A Wayland reader wants mime of X's selection, written to fd (taken). */
void
ivwl_xwm_selection_send(struct ivwl_xwm_selection *sel, const char *mime,
			int fd);

/* The transfers' pipes to poll: how many filled in pfd (at most max). */
int
ivwl_xwm_selection_fds(struct ivwl_xwm_selection *sel, struct pollfd *pfd,
		       int max);

/* After poll: moves the transfers on, and gives up on stalled ones. */
void
ivwl_xwm_selection_io(struct ivwl_xwm_selection *sel,
		      const struct pollfd *pfd, int n);

/* Milliseconds until a transfer may stall out; -1 when none runs. */
int
ivwl_xwm_selection_timeout(const struct ivwl_xwm_selection *sel);

#endif
