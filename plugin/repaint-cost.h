/* SPDX-License-Identifier: MIT */
/*
 * The cost model of each VM's share of weston's repaints
 * (repaint-cost.c): what a window's surfaces would draw, whether that is
 * too deep, and whether a window fits its VM's share.  repaint.c keeps
 * a share on each VM and judges the repaints with it.
 */
#ifndef IVWL_REPAINT_COST_H
#define IVWL_REPAINT_COST_H

#include <stdbool.h>
#include <stdint.h>

#include "window.h"

struct weston_surface;

/* Each VM's share of what weston's repaints draw (repaint.c's, on the
 * VM). */
struct ivwl_vm_share {
	uint64_t px;		/* drawn in the last repaint it took part in */
	uint64_t translucent_px;	/* of px, blended over what is below */
	uint64_t output_px;	/* that repaint's output */
	uint32_t views;
	uint64_t shown_px;	/* of px, in the windows still shown (no veil since) */
	uint32_t veiled;	/* its windows veiled for its share */
	uint64_t overs;		/* repaints it went over its share in */
	uint64_t veil_logged_ms;
	uint64_t hot_until_ms;	/* went over: new content must fit first */
	uint32_t pass;		/* the repaint px and views are of */
	uint64_t pending_px;	/* admitted since (ivwl_repaint_admit) */
	uint32_t pending_views;
	uint32_t summed_slow;	/* the pass it waited in for all VMs' sum */
	uint32_t sum_veiled;	/* its windows veiled for all VMs' sum */
};

/* Sets w's estimate: what its surface tree would draw inside its box. */
void
ivwl_repaint_estimate(struct ivwl_window_cost *w);

/* Adds to w's estimate what popup (of the window, at x, y of its
 * box) and its surface tree would draw inside the box. */
void
ivwl_repaint_estimate_add(struct ivwl_window_cost *w,
			  struct weston_surface *popup, int64_t x, int64_t y);

/* What a pixel of s costs a repaint, in blends: more than one where its
 * buffer is drawn scaled or rotated. */
uint32_t
ivwl_repaint_weight(const struct weston_surface *s);

/* Whether that estimate is more than a window may cost. */
bool
ivwl_repaint_too_deep(const struct ivwl_window_cost *w);

/* Whether px pixels in views views fit a VM's share sh of a repaint. */
bool
ivwl_repaint_fits(const struct ivwl_vm_share *sh, uint64_t px,
		  uint32_t views);

/*
 * Whether w may show as it is now: always, unless its VM (of share sh)
 * went over its share within IVWL_REPAINT_HOT_MS; then only if what w
 * would draw fits beside what the VM drew in the last repaint and the
 * windows admitted since (counted now).  Refused, it is veiled before
 * weston draws it.
 */
bool
ivwl_repaint_admit(struct ivwl_vm_share *sh, struct ivwl_window_cost *w);

#endif
