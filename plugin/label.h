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

/*
 * Why a window's content is veiled: not drawn, an opaque veil inside
 * its frame instead (repaint.c decides; docs/security.md, "Repaint
 * share").
 */
enum ivwl_veil_reason {
	IVWL_VEIL_DEPTH = 1 << 0,	/* its own surfaces cover it too often */
	IVWL_VEIL_SHARE = 1 << 1,	/* its VM is over its repaint share */
	IVWL_VEIL_SUM = 1 << 2,		/* all VMs together are, it drew most */
};

/* What a VM's toplevel window costs weston's repaints (repaint.c). */
struct ivwl_window_cost {
	struct ivwl_vm *vm;
	struct weston_surface *window;
	/* what its surface tree would draw inside its box, at most */
	uint64_t estimate_px;
	uint32_t estimate_views;
	/* what its views drew in repaint pass `pass` */
	uint64_t px;
	uint32_t views;
	uint32_t pass;
	uint32_t veil;			/* enum ivwl_veil_reason bits */
};

/* Width of the frame's sides. */
#define IVWL_LABEL_BORDER 4

/* Frames in each VM's colour around its toplevel windows, and title
 * bars with its name in font (label.c); NULL, logged, if the font draws
 * nothing. */
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
ivwl_label_bar_part(struct weston_view *view, float x,
		    struct weston_view **window, struct ivwl_vm **vm);

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
 * A VM's toplevel window was framed as it mapped (or mapped again): the
 * data of label's map signal.
 */
struct ivwl_label_map {
	struct ivwl_vm *vm;
	struct weston_surface *window;
	struct weston_view *view;
};

void
ivwl_label_add_map_listener(struct ivwl_label *label,
			    struct wl_listener *listener);

/*
 * What of output a framed window's content may fill, in global x, y, w,
 * h: below the panel and inside the frame, its title bar and attention
 * bar on the output.  False if nothing.
 */
bool
ivwl_label_room(struct ivwl_label *label, struct weston_output *output,
		int32_t room[4]);

/* Shows or hides the attention bar of a VM's toplevel window. */
void
ivwl_label_attention(struct ivwl_label *label, struct weston_surface *window,
		     bool on);

/*
 * The window view belongs to (as the toplevel itself, a subsurface or a
 * popup of it), if it is a VM's framed window; else NULL (also for the
 * views of its frame).
 */
struct ivwl_window_cost *
ivwl_label_window_of(struct weston_view *view);

/* Calls fn for each framed window of vm. */
void
ivwl_label_for_each_window(struct ivwl_label *label, struct ivwl_vm *vm,
			   void (*fn)(struct ivwl_window_cost *w, void *data),
			   void *data);

/* Veils the window's content for reason, or lifts that reason. */
void
ivwl_label_veil(struct ivwl_window_cost *w, enum ivwl_veil_reason reason,
		bool on);

/*
 * Clips view, which has no transform parent, to x, y, w, h of its own
 * coordinates (and the views parented to it with it), unless that is
 * its clip already.
 */
void
ivwl_view_clip(struct weston_view *view, int32_t x, int32_t y, int32_t w,
	       int32_t h);

#endif
