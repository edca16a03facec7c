/* SPDX-License-Identifier: MIT */
#ifndef IVWL_LABEL_H
#define IVWL_LABEL_H

#include <stdbool.h>
#include <stdint.h>

struct ivwl_plugin;
struct weston_surface;
struct weston_view;
struct ivwl_label;

/* Width of the frame's sides. */
#define IVWL_LABEL_BORDER 4

/* Frames in each VM's colour around its toplevel windows (label.c). */
struct ivwl_label *
ivwl_label_create(struct ivwl_plugin *plugin);

void
ivwl_label_destroy(struct ivwl_label *label);

/* Shows or hides the attention bar of a VM's toplevel window. */
void
ivwl_label_attention(struct ivwl_label *label, struct weston_surface *window,
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
