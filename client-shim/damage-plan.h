/* SPDX-License-Identifier: MIT */
/*
 * Copy mode: the damage of a surface's last commits, and the plan of
 * which rectangles to copy into a buffer's region copy so that it holds
 * what the client drew.  A region copy is only refreshed when its buffer
 * is committed, so a buffer attached again after other buffers needs the
 * damage of every commit since its copy was made (double and triple
 * buffering), and the whole buffer once that is more than is kept.
 *
 * Pure arithmetic, no relay state: tests/unit/test-damage-plan.c.
 */
#ifndef IVWL_DAMAGE_PLAN_H
#define IVWL_DAMAGE_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "damage-map.h"

/* Commits whose damage is kept. */
#define IVWL_DAMAGE_HISTORY 4u
/* Rectangles kept a commit; more become their bounding box. */
#define IVWL_DAMAGE_RECTS 8u
/* Most rectangles a plan holds. */
#define IVWL_DAMAGE_PLAN_MAX (IVWL_DAMAGE_HISTORY * IVWL_DAMAGE_RECTS)

/* The damage of one commit, or damage on its way to a commit. */
struct ivwl_damage {
	bool full;	/* not mapped exactly: all of it */
	uint32_t n;
	struct ivwl_rect rects[IVWL_DAMAGE_RECTS];	/* none below 0 */
};

struct ivwl_damage_history {
	struct ivwl_buffer_view view;	/* as last committed */
	int32_t width, height;		/* the buffer then, 0 for none */
	/* Since the last commit: wl_surface.damage_buffer's rectangles, and
	 * wl_surface.damage's, mapped at commit with the state it applies. */
	struct ivwl_damage pending_buffer;
	struct ivwl_damage pending_surface;
	uint64_t commits;
	struct ivwl_damage last[IVWL_DAMAGE_HISTORY];	/* [commits % N] */
};

void
ivwl_damage_history_init(struct ivwl_damage_history *h);

/*
 * Adds a rectangle, clipped to what lies at 0 or beyond (no surface or
 * buffer has pixels before that, and a union then fits in an int32).
 * Past IVWL_DAMAGE_RECTS they all become their bounding box: more than
 * was damaged, seldom the whole buffer.
 */
void
ivwl_damage_add(struct ivwl_damage *d, struct ivwl_rect r);

/*
 * A commit that shows a buffer of width x height (0 x 0: none) through
 * view.  Records its damage in buffer coordinates and returns it.  The
 * whole buffer when the part of it the surface shows has moved since the
 * last commit (new size, transform, scale or crop): a client may have
 * changed pixels it showed nowhere without damaging them.  A new
 * destination size alone only scales the same pixels.
 */
const struct ivwl_damage *
ivwl_damage_commit(struct ivwl_damage_history *h,
		   const struct ivwl_buffer_view *view, int32_t width,
		   int32_t height);

/*
 * What to copy into a buffer whose region copy was made at commit since
 * of this surface, for it to match the latest commit.  false: the whole
 * buffer.  Else out[0..*n) are the damaged rectangles, none inside
 * another (it is copied with that one); they may reach past the buffer.
 */
bool
ivwl_damage_plan(const struct ivwl_damage_history *h, uint64_t since,
		 struct ivwl_rect out[IVWL_DAMAGE_PLAN_MAX], uint32_t *n);

/* Bytes d covers in a width x height buffer, clipped, overlaps counted. */
uint64_t
ivwl_damage_bytes(const struct ivwl_damage *d, int32_t width, int32_t height,
		  uint64_t bpp);

#endif
