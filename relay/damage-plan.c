/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "damage-plan.h"

void
ivwl_damage_tracker_init(struct ivwl_damage_tracker *t)
{
	memset(t, 0, sizeof(*t));
	t->view = IVWL_BUFFER_VIEW_IDENTITY;
}

static struct ivwl_rect
rect_union(struct ivwl_rect a, struct ivwl_rect b)
{
	int64_t x0 = a.x < b.x ? a.x : b.x, y0 = a.y < b.y ? a.y : b.y;
	int64_t ax1 = (int64_t)a.x + a.w, bx1 = (int64_t)b.x + b.w;
	int64_t ay1 = (int64_t)a.y + a.h, by1 = (int64_t)b.y + b.h;
	int64_t x1 = ax1 > bx1 ? ax1 : bx1, y1 = ay1 > by1 ? ay1 : by1;

	return (struct ivwl_rect){ (int32_t)x0, (int32_t)y0, (int32_t)(x1 - x0),
				   (int32_t)(y1 - y0) };
}

void
ivwl_damage_add(struct ivwl_damage *d, struct ivwl_rect r)
{
	int64_t x0 = r.x > 0 ? r.x : 0, y0 = r.y > 0 ? r.y : 0;
	int64_t x1 = (int64_t)r.x + r.w, y1 = (int64_t)r.y + r.h;
	uint32_t i;

	x1 = x1 < INT32_MAX ? x1 : INT32_MAX;
	y1 = y1 < INT32_MAX ? y1 : INT32_MAX;
	if (d->full || x1 <= x0 || y1 <= y0)
		return;
	r = (struct ivwl_rect){ (int32_t)x0, (int32_t)y0, (int32_t)(x1 - x0),
				(int32_t)(y1 - y0) };
	if (d->n == IVWL_DAMAGE_RECTS) {
		for (i = 0; i < d->n; i++)
			r = rect_union(r, d->rects[i]);
		d->n = 0;
	}
	d->rects[d->n++] = r;
}

const struct ivwl_damage *
ivwl_damage_commit(struct ivwl_damage_tracker *t,
		   const struct ivwl_buffer_view *view, int32_t width,
		   int32_t height)
{
	const struct ivwl_damage *sd = &t->pending_surface;
	struct ivwl_damage *d = &t->last;
	struct ivwl_rect r;
	uint32_t i;

	*d = t->pending_buffer;
	if (width != t->width || height != t->height || width == 0 ||
	    !ivwl_buffer_view_same_pixels(&t->view, view))
		d->full = true;
	for (i = 0; i < sd->n && !d->full; i++) {
		if (ivwl_damage_map(view, width, height, sd->rects[i], &r))
			ivwl_damage_add(d, r);
		else
			d->full = true;
	}
	memset(&t->pending_buffer, 0, sizeof(t->pending_buffer));
	memset(&t->pending_surface, 0, sizeof(t->pending_surface));
	t->view = *view;
	t->width = width;
	t->height = height;
	return d;
}

static bool
rect_contains(struct ivwl_rect outer, struct ivwl_rect inner)
{
	return inner.x >= outer.x && inner.y >= outer.y &&
	       (int64_t)inner.x + inner.w <= (int64_t)outer.x + outer.w &&
	       (int64_t)inner.y + inner.h <= (int64_t)outer.y + outer.h;
}

/* Rectangles are clipped to [0, INT32_MAX]: this fits in 62 bits. */
static uint64_t
rect_area(struct ivwl_rect r)
{
	return (uint64_t)r.w * (uint64_t)r.h;
}

void
ivwl_damage_plan_clear(struct ivwl_damage_plan *p)
{
	p->full = false;
	p->n = 0;
}

/* Index of the rectangle whose bounding box with r is the least more. */
static uint32_t
cheapest_merge(const struct ivwl_damage_plan *p, struct ivwl_rect r)
{
	uint64_t best_growth = UINT64_MAX, growth;
	uint32_t i, best = 0;

	for (i = 0; i < p->n; i++) {
		growth = rect_area(rect_union(p->rects[i], r)) -
			 rect_area(p->rects[i]);
		if (growth < best_growth) {
			best_growth = growth;
			best = i;
		}
	}
	return best;
}

/*
 * Keeps the rectangles in the order they came, so that a plan is the
 * same from run to run: a merged one leaves its place and comes last.
 * At most two rounds: a merge frees a place.
 */
static void
plan_insert(struct ivwl_damage_plan *p, struct ivwl_rect r)
{
	uint32_t i, j, m;

	for (;;) {
		for (i = 0; i < p->n; i++)
			if (rect_contains(p->rects[i], r))
				return;
		for (i = 0, j = 0; i < p->n; i++)
			if (!rect_contains(r, p->rects[i]))
				p->rects[j++] = p->rects[i];
		p->n = j;
		if (p->n < IVWL_DAMAGE_PLAN_MAX) {
			p->rects[p->n++] = r;
			return;
		}
		m = cheapest_merge(p, r);
		r = rect_union(r, p->rects[m]);
		memmove(&p->rects[m], &p->rects[m + 1],
			(p->n - m - 1) * sizeof(p->rects[0]));
		p->n--;
	}
}

void
ivwl_damage_plan_add(struct ivwl_damage_plan *p, const struct ivwl_damage *d)
{
	uint32_t i;

	if (p->full)
		return;
	if (d->full) {
		p->full = true;
		p->n = 0;
		return;
	}
	for (i = 0; i < d->n; i++)
		plan_insert(p, d->rects[i]);
}

uint64_t
ivwl_damage_bytes(const struct ivwl_damage *d, int32_t width, int32_t height,
		  uint64_t bpp)
{
	uint64_t total = 0;
	uint32_t i;

	if (d->full)
		return (uint64_t)width * (uint64_t)height * bpp;
	for (i = 0; i < d->n; i++) {
		int64_t x0 = d->rects[i].x > 0 ? d->rects[i].x : 0;
		int64_t y0 = d->rects[i].y > 0 ? d->rects[i].y : 0;
		int64_t x1 = (int64_t)d->rects[i].x + d->rects[i].w;
		int64_t y1 = (int64_t)d->rects[i].y + d->rects[i].h;

		x1 = x1 < width ? x1 : width;
		y1 = y1 < height ? y1 : height;
		if (x1 > x0 && y1 > y0)
			total +=
				(uint64_t)(x1 - x0) * (uint64_t)(y1 - y0) * bpp;
	}
	return total;
}
