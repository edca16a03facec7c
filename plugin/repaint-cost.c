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
#include "label.h"
#include "mono-time.h"
#include "repaint.h"
#include "vm.h"

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

/* Its subsurfaces with content count, shown or veiled. */
static void
tree_cost(struct ivwl_window_cost *w, struct weston_surface *s, int64_t x,
	  int64_t y, int depth)
{
	struct weston_subsurface *sub;
	int32_t sx, sy;

	w->estimate_views++;
	w->estimate_px += overlap(x, y, s->width, s->height,
				  w->window->width, w->window->height);
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
ivwl_repaint_fits(const struct ivwl_vm *vm, uint64_t px, uint32_t views)
{
	return px <= IVWL_REPAINT_VM_AREA * vm->share.output_px &&
	       views <= IVWL_REPAINT_VM_VIEWS;
}

bool
ivwl_repaint_admit(struct ivwl_window_cost *w)
{
	struct ivwl_vm_share *sh = &w->vm->share;
	uint64_t px = sh->px + sh->pending_px;
	uint32_t views = sh->views + sh->pending_views;

	if (sh->hot_until_ms <= (uint64_t)ivwl_now_ms())
		return true;
	if (w->pass == sh->pass) {
		px -= w->px;
		views -= w->views;
	}
	/* a veil is one view: it spares views only of a window of more */
	if (!ivwl_repaint_fits(w->vm, px + w->estimate_px,
			       w->estimate_views > 1 ?
			       views + w->estimate_views : 0))
		return false;
	sh->pending_px += w->estimate_px;
	sh->pending_views += w->estimate_views;
	return true;
}
