/* SPDX-License-Identifier: MIT */
/*
 * A VM's windows (window.c): every surface a VM's client makes is known
 * here as an ivwl_window, and a VM's xdg_toplevel, once the shell maps
 * it, has its view, what it costs weston's repaints, its veil and its
 * attention.  The subsystems that frame a window (label.c), judge its
 * cost (repaint.c), guard the keyboard (focus.c), place it
 * (placement.c) or show it (live-view.c) listen to the windows' signals
 * and keep their own state on a window in its addon set; none calls
 * another.
 */
#ifndef IVWL_WINDOW_H
#define IVWL_WINDOW_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>

#include "addon.h"

struct ivwl_plugin;
struct ivwl_vm;
struct ivwl_windows;
struct weston_surface;
struct weston_view;

/* Width of the frame's sides (label.c draws the frame). */
#define IVWL_WINDOW_BORDER 4

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

struct ivwl_window {
	struct ivwl_windows *windows;
	struct wl_list link;		/* ivwl_windows.list */
	struct ivwl_vm *vm;
	struct weston_surface *surface;
	/* an xdg_toplevel's view while the shell shows it, else NULL */
	struct weston_view *view;
	struct wl_listener view_destroy;
	/* its frame's title bar while it has one (label.c) */
	struct weston_view *bar;
	struct ivwl_window_cost cost;	/* cost.veil: its veil */
	bool attention;			/* its attention bar shows */
	struct ivwl_addon_set addons;	/* the subsystems' state on it */

	struct wl_listener commit;
	struct wl_listener destroy;
	struct wl_event_source *recheck;	/* after weston is done */
	bool updating;			/* changed waits for the end */
	bool changed;
};

/*
 * The windows of all VMs, and their signals; each signal's data is the
 * struct ivwl_window.  Emitted in this order as a window is looked at
 * again (after a commit of its surfaces, a move, an activation):
 */
struct ivwl_windows_events {
	/* a toplevel has a new view: the shell mapped it (again) */
	struct wl_signal mapped;
	/* its surfaces or its place changed: what it costs, again */
	struct wl_signal committed;
	/* its view, veil or attention changed: draw it again */
	struct wl_signal changed;
	/* a VM's cursor image or drag icon was committed: bound it */
	struct wl_signal image;
	/* it goes; its addons go right after */
	struct wl_signal destroyed;
};

struct ivwl_windows *
ivwl_windows_create(struct ivwl_plugin *plugin);

/* At shutdown: forgets every window, leaving its surfaces to weston. */
void
ivwl_windows_destroy(struct ivwl_windows *windows);

struct ivwl_windows_events *
ivwl_windows_events(struct ivwl_windows *windows);

/* The window of a VM's surface, or NULL (a local client's, or ours). */
struct ivwl_window *
ivwl_window_from_surface(struct weston_surface *surface);

/*
 * The mapped toplevel whose view this is (itself, a subsurface's or a
 * popup's view hanging from it); NULL for any other view, its frame's
 * views too (they are weston's to draw, not the VM's).
 */
struct ivwl_window *
ivwl_window_of_view(struct weston_view *view);

/* The window whose title bar view is, or NULL. */
struct ivwl_window *
ivwl_window_of_bar(struct weston_view *view);

/* Calls fn for each mapped toplevel of vm. */
void
ivwl_windows_for_each(struct ivwl_windows *windows, struct ivwl_vm *vm,
		      void (*fn)(struct ivwl_window *w, void *data),
		      void *data);

/* Looks at w again once what weston is doing now is done. */
void
ivwl_window_recheck(struct ivwl_window *w);

/* Veils the window's content for reason, or lifts that reason. */
void
ivwl_window_veil(struct ivwl_window *w, enum ivwl_veil_reason reason,
		 bool on);

/* Shows or hides the attention bar of the window. */
void
ivwl_window_attention(struct ivwl_window *w, bool on);

/* Whether v hangs from window's view: a popup's, a subsurface's or its
 * frame's view. */
bool
ivwl_view_hangs_from(struct weston_view *v, struct weston_view *window);

/*
 * The lowest entry of window's stack in its layer: its own, or the
 * lowest of the views right below it that hang from it (its surfaces
 * placed below it, its frame's), up to the first that stop (if set)
 * says ends the walk.
 */
struct weston_layer_entry *
ivwl_view_stack_bottom(struct weston_view *window,
		       bool (*stop)(struct weston_view *v, void *data),
		       void *data);

/*
 * Clips view, which has no transform parent, to x, y, w, h of its own
 * coordinates (and the views parented to it with it), unless that is
 * its clip already.
 */
void
ivwl_view_clip(struct weston_view *view, int32_t x, int32_t y, int32_t w,
	       int32_t h);

#endif
