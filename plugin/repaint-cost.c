/* SPDX-License-Identifier: MIT */
/*
 * The cost model of each VM's share of weston's repaints (repaint.c):
 * what a window's surfaces would draw, whether that is too deep, and
 * whether a window fits its VM's share.  Only geometry and counts: no
 * weston loop, so tests/unit can drive it.
 */
#include <libweston/libweston.h>
#include "weston-compat.h"

#include "ivwl-limits.h"
#include "mono-time.h"
#include "repaint-cost.h"

/* Positions add up along the tree: a VM picks each, int32 to int32. */
static uint64_t
overlap(int64_t x, int64_t y, int32_t w, int32_t h, int32_t bw, int32_t bh)
{
	int64_t x1 = x > 0 ? x : 0, y1 = y > 0 ? y : 0;
	int64_t x2 = x + w, y2 = y + h;

	if (x2 > bw)
		x2 = bw;
	if (y2 > bh)
		y2 = bh;
	return x2 > x1 && y2 > y1 ? (uint64_t)((x2 - x1) * (y2 - y1)) : 0;
}

/*
 * Whether weston draws s's buffer other than 1:1: rotated or flipped
 * (wl_surface.set_buffer_transform), scaled (set_buffer_scale, or a
 * wp_viewport destination other than its source).  pixman then samples
 * every pixel through a transform, several times the cost of a blend.
 */
static bool
drawn_transformed(const struct weston_surface *s)
{
	const struct weston_buffer_viewport *vp = &s->buffer_viewport;
	int32_t w, h;

	if (vp->buffer.transform != WL_OUTPUT_TRANSFORM_NORMAL ||
	    vp->buffer.scale > 1)
		return true;
	if (vp->surface.width <= 0)
		return false;	/* no destination: a crop at most, 1:1 */
	if (vp->buffer.src_width != wl_fixed_from_int(-1)) {
		w = wl_fixed_to_int(vp->buffer.src_width);
		h = wl_fixed_to_int(vp->buffer.src_height);
	} else if (s->buffer_ref.buffer) {
		w = s->buffer_ref.buffer->width;
		h = s->buffer_ref.buffer->height;
	} else {
		return true;	/* unknown: the careful way */
	}
	return w != vp->surface.width || h != vp->surface.height;
}

uint32_t
ivwl_repaint_weight(const struct weston_surface *s)
{
	return drawn_transformed(s) ? IVWL_REPAINT_TRANSFORMED_COST : 1;
}

/* Its subsurfaces with content count, shown or veiled. */
static void
tree_cost(struct ivwl_window_cost *w, struct weston_surface *s, int64_t x,
	  int64_t y, int depth)
{
	struct weston_subsurface *sub;
	int32_t sx, sy;

	w->estimate_views++;
	w->estimate_px += ivwl_repaint_weight(s) *
			  overlap(x, y, s->width, s->height, w->window->width,
				  w->window->height);
	/* a connection has at most IVWL_FW_CONN_SURFACES to walk */
	wl_list_for_each(sub, &s->subsurface_list, parent_link) {
		struct weston_surface *c = sub->surface;

		if (c == s || c->width <= 0 || c->height <= 0)
			continue;
		if (depth == IVWL_REPAINT_TREE_DEPTH) {
			/* deeper than we look: too deep */
			w->estimate_views = IVWL_REPAINT_WINDOW_VIEWS + 1;
			return;
		}
		ivwl_subsurface_pos(sub, &sx, &sy);
		tree_cost(w, c, x + sx, y + sy, depth + 1);
	}
}

void
ivwl_repaint_estimate(struct ivwl_window_cost *w)
{
	w->estimate_px = 0;
	w->estimate_views = 0;
	tree_cost(w, w->window, 0, 0, 0);
}

void
ivwl_repaint_estimate_add(struct ivwl_window_cost *w,
			  struct weston_surface *popup, int64_t x, int64_t y)
{
	tree_cost(w, popup, x, y, 0);
}

bool
ivwl_repaint_too_deep(const struct ivwl_window_cost *w)
{
	int32_t width = w->window->width, height = w->window->height;
	uint64_t box = width > 0 && height > 0 ?
		       (uint64_t)width * (uint64_t)height : 0;

	return w->estimate_views > IVWL_REPAINT_WINDOW_VIEWS ||
	       w->estimate_px > IVWL_REPAINT_WINDOW_DEPTH * box;
}

bool
ivwl_repaint_fits(const struct ivwl_vm_share *sh, uint64_t px,
		  uint32_t views)
{
	return px <= IVWL_REPAINT_VM_AREA * sh->output_px &&
	       views <= IVWL_REPAINT_VM_VIEWS;
}

bool
ivwl_repaint_admit(struct ivwl_vm_share *sh, struct ivwl_window_cost *w)
{
	uint64_t px = sh->px + sh->pending_px;
	uint32_t views = sh->views + sh->pending_views;

	if (sh->hot_until_ms <= (uint64_t)ivwl_now_ms())
		return true;
	if (w->pass == sh->pass) {
		px -= w->px;
		views -= w->views;
	}
	/* a veil is one view: it spares views only of a window of more */
	if (!ivwl_repaint_fits(sh, px + w->estimate_px,
			       w->estimate_views > 1 ?
			       views + w->estimate_views : 0))
		return false;
	sh->pending_px += w->estimate_px;
	sh->pending_views += w->estimate_views;
	return true;
}
