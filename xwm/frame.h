/* SPDX-License-Identifier: MIT */
/*
 * The frame ivwl-xwm gives each X toplevel: an X window of the window
 * manager's that holds the client's window, under a title bar with a
 * maximize and a close button where the compositor does not decorate
 * the window itself (server-side decorations: wm.c drops the bar).  X
 * applications draw no bars: without one an X window could not be
 * moved, maximized or closed with the pointer.  The VM's
 * label, weston's coloured border, goes around the frame like around
 * any window of the VM; the bar is the VM's drawing, trusted no more.
 */
#ifndef IVWL_XWM_FRAME_H
#define IVWL_XWM_FRAME_H

#include <stdbool.h>
#include <stdint.h>

#include <xcb/xcb.h>

#define IVWL_XWM_TITLE_HEIGHT 24

enum ivwl_xwm_frame_part {
	IVWL_XWM_FRAME_NONE,
	IVWL_XWM_FRAME_TITLE,		/* drags move the window */
	IVWL_XWM_FRAME_MAXIMIZE,
	IVWL_XWM_FRAME_CLOSE,
};

struct ivwl_xwm_frames;

/* What frames are drawn with; NULL on failure. */
struct ivwl_xwm_frames *
ivwl_xwm_frames_create(xcb_connection_t *conn, xcb_screen_t *screen);

void
ivwl_xwm_frames_destroy(struct ivwl_xwm_frames *f);

/* A frame for a client window of width x height at x, y (unmapped). */
xcb_window_t
ivwl_xwm_frame_create(struct ivwl_xwm_frames *f, int16_t x, int16_t y,
		      uint16_t width, uint16_t height);

/* Draws the title bar of a frame width wide. */
void
ivwl_xwm_frame_draw(struct ivwl_xwm_frames *f, xcb_window_t frame,
		    uint16_t width, const char *title, bool active);

/* Which part of a frame width wide is at x, y. */
enum ivwl_xwm_frame_part
ivwl_xwm_frame_hit(uint16_t width, int16_t x, int16_t y);

#endif
