/* SPDX-License-Identifier: MIT */
#ifndef IVWL_LABEL_H
#define IVWL_LABEL_H

#include <stdbool.h>
#include <stdint.h>

struct ivwl_plugin;
struct ivwl_vm;
struct weston_output;
struct weston_surface;
struct weston_view;
struct wl_listener;
struct ivwl_label;

/* Frames in each VM's colour around its toplevel windows (window.h),
 * and title bars with its name in font (label.c); NULL, logged, if the
 * font draws nothing. */
struct ivwl_label *
ivwl_label_create(struct ivwl_plugin *plugin, const char *font);

void
ivwl_label_destroy(struct ivwl_label *label);

/*
 * X-ray (xray.c): while on, every VM window is darkened and its VM's
 * name is shown large across it.
 */
void
ivwl_label_xray(struct ivwl_label *label, bool on);

/* What a click on a VM window's title bar does (bar.c). */
enum ivwl_bar_part {
	IVWL_BAR_NONE,		/* view is no title bar */
	IVWL_BAR_MOVE,		/* the bar or its nameplate: drag it */
	IVWL_BAR_CLOSE,		/* its close button */
	IVWL_BAR_MAXIMIZE,	/* its maximize button */
};

/*
 * The part of the title bar view that global column x falls on, with its
 * window's view and its VM.  A bar drawn inside its window (at the
 * screen's top or under the panel) takes no clicks when the client
 * draws its own bar there: they are that bar's.
 */
enum ivwl_bar_part
ivwl_label_bar_part(struct ivwl_label *label, struct weston_view *view,
		    float x, struct weston_view **window, struct ivwl_vm **vm);

/*
 * A VM's window went fullscreen (on) or left it, was unmapped or
 * destroyed (not on): the data of label's fullscreen signal.  Its frame
 * is drawn inside the output then, without a title bar.
 */
struct ivwl_label_fullscreen {
	struct ivwl_vm *vm;
	struct weston_surface *window;
	struct weston_view *view;
	bool on;
};

void
ivwl_label_add_fullscreen_listener(struct ivwl_label *label,
				   struct wl_listener *listener);

/*
 * What of output a framed window's content may fill, in global x, y, w,
 * h: below the panel and inside the frame, its title bar and attention
 * bar on the output.  False if nothing.
 */
bool
ivwl_label_room(struct ivwl_label *label, struct weston_output *output,
		int32_t room[4]);

#endif
