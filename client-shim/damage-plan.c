/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "damage-plan.h"

void
ivwl_damage_history_init(struct ivwl_damage_history *h)
{
	memset(h, 0, sizeof(*h));
	h->view = IVWL_BUFFER_VIEW_IDENTITY;
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
ivwl_damage_commit(struct ivwl_damage_history *h,
		   const struct ivwl_buffer_view *view, int32_t width,
		   int32_t height)
{
	const struct ivwl_damage *sd = &h->pending_surface;
	struct ivwl_damage *d;
	struct ivwl_rect r;
	uint32_t i;

	h->commits++;
	d = &h->last[h->commits % IVWL_DAMAGE_HISTORY];
	*d = h->pending_buffer;
	if (width != h->width || height != h->height || width == 0 ||
	    !ivwl_buffer_view_same_pixels(&h->view, view))
		d->full = true;
	for (i = 0; i < sd->n && !d->full; i++) {
		if (ivwl_damage_map(view, width, height, sd->rects[i], &r))
			ivwl_damage_add(d, r);
		else
			d->full = true;
	}
	memset(&h->pending_buffer, 0, sizeof(h->pending_buffer));
	memset(&h->pending_surface, 0, sizeof(h->pending_surface));
	h->view = *view;
	h->width = width;
	h->height = height;
	return d;
}

static bool
rect_contains(struct ivwl_rect outer, struct ivwl_rect inner)
{
	return inner.x >= outer.x && inner.y >= outer.y &&
	       (int64_t)inner.x + inner.w <= (int64_t)outer.x + outer.w &&
	       (int64_t)inner.y + inner.h <= (int64_t)outer.y + outer.h;
}

bool
ivwl_damage_plan(const struct ivwl_damage_history *h, uint64_t since,
		 struct ivwl_rect out[IVWL_DAMAGE_PLAN_MAX], uint32_t *n)
{
	struct ivwl_rect set[IVWL_DAMAGE_PLAN_MAX];
	uint32_t count = 0, i, j;
	uint64_t c;

	*n = 0;
	if (since > h->commits || h->commits - since > IVWL_DAMAGE_HISTORY)
		return false;
	for (c = since + 1; c <= h->commits; c++) {
		const struct ivwl_damage *d = &h->last[c % IVWL_DAMAGE_HISTORY];

		if (d->full)
			return false;
		for (i = 0; i < d->n; i++)
			set[count++] = d->rects[i];
	}
	/* Of two equal rectangles, the first one stays. */
	for (i = 0; i < count; i++) {
		for (j = 0; j < count; j++)
			if (j != i && rect_contains(set[j], set[i]) &&
			    (j < i || !rect_contains(set[i], set[j])))
				break;
		if (j == count)
			out[(*n)++] = set[i];
	}
	return true;
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
