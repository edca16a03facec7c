/* SPDX-License-Identifier: MIT */
/*
 * Copy mode: the damage of a surface's commits, and the plan of which
 * rectangles to copy into a buffer's region copy so that it holds what
 * the client drew.  A region copy is only refreshed when its buffer is
 * committed, so a buffer attached again after other buffers needs the
 * damage of every commit of its surface since its copy was made.
 *
 * Each region copy keeps that damage itself, added up commit by commit
 * (struct ivwl_damage_plan), rather than the surface keeping the last N
 * commits: a client may rotate through any number of buffers (firefox
 * keeps 4 to 9, and commits twice a frame), and a history of fixed
 * length made every buffer older than it a whole copy.  The memory is
 * bounded per region copy instead: IVWL_DAMAGE_PLAN_MAX rectangles.
 *
 * Pure arithmetic, no relay state: tests/unit/test-damage-plan.c.
 */
#ifndef IVWL_DAMAGE_PLAN_H
#define IVWL_DAMAGE_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "damage-map.h"

/* Rectangles kept a commit; more become their bounding box. */
#define IVWL_DAMAGE_RECTS 8u
/* Rectangles a region copy's plan keeps; more are merged (below). */
#define IVWL_DAMAGE_PLAN_MAX 32u

/* The damage of one commit, or damage on its way to a commit. */
struct ivwl_damage {
	bool full;	/* not mapped exactly: all of it */
	uint32_t n;
	struct ivwl_rect rects[IVWL_DAMAGE_RECTS];	/* none below 0 */
};

/* A surface's damage: pending, and the state it is mapped with. */
struct ivwl_damage_tracker {
	struct ivwl_buffer_view view;	/* as last committed */
	int32_t width, height;		/* the buffer then, 0 for none */
	/* Since the last commit: wl_surface.damage_buffer's rectangles, and
	 * wl_surface.damage's, mapped at commit with the state it applies. */
	struct ivwl_damage pending_buffer;
	struct ivwl_damage pending_surface;
	struct ivwl_damage last;	/* the last commit's, buffer pixels */
};

/*
 * What may differ between a buffer and its region copy: the damage of
 * every commit of the copy's surface since the copy was made.  full: all
 * of it.  Else rects[0..n) cover that damage, none inside another; they
 * may reach past the buffer.
 */
struct ivwl_damage_plan {
	bool full;
	uint32_t n;
	struct ivwl_rect rects[IVWL_DAMAGE_PLAN_MAX];
};

void
ivwl_damage_tracker_init(struct ivwl_damage_tracker *t);

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
 * view.  Returns its damage in buffer coordinates (t->last).  The whole
 * buffer when the part of it the surface shows has moved since the last
 * commit (new size, transform, scale or crop): a client may have changed
 * pixels it showed nowhere without damaging them.  A new destination
 * size alone only scales the same pixels.
 */
const struct ivwl_damage *
ivwl_damage_commit(struct ivwl_damage_tracker *t,
		   const struct ivwl_buffer_view *view, int32_t width,
		   int32_t height);

/* The region copy was just filled: nothing differs. */
void
ivwl_damage_plan_clear(struct ivwl_damage_plan *p);

/*
 * Adds a commit's damage to p.  A rectangle inside one p has is dropped,
 * and those inside it go.  When p holds IVWL_DAMAGE_PLAN_MAX rectangles,
 * a new one is merged with the one whose bounding box with it grows
 * least: more than was damaged, far less than the whole buffer.
 */
void
ivwl_damage_plan_add(struct ivwl_damage_plan *p, const struct ivwl_damage *d);

/* Bytes d covers in a width x height buffer, clipped, overlaps counted. */
uint64_t
ivwl_damage_bytes(const struct ivwl_damage *d, int32_t width, int32_t height,
		  uint64_t bpp);

#endif
