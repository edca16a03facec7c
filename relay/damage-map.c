/* SPDX-License-Identifier: MIT */
#include "damage-map.h"

/*
 * Buffers with a side of 2^23 pixels or more are taken whole: below that
 * every product in map_axis stays under 2^63.  A wl_shm buffer that wide
 * (stride * height fits in an int32) has at most 255 rows anyway.
 */
#define IVWL_DAMAGE_MAX_SIDE (1 << 23)

/* wl_fixed_t units per pixel */
#define FIXED_ONE 256

/*
 * One axis of surface coordinates -> transformed buffer pixels (the
 * buffer after buffer_transform, before buffer_scale is undone).
 */
struct axis {
	int64_t size;		/* surface size, surface units */
	int64_t start, length;	/* what it shows, 1/256 pixels */
	int64_t limit;		/* transformed buffer size, pixels */
};

/*
 * Surface interval [a0, a1) to pixels [*t0, *t1), outward.  A surface
 * point a shows the point start + a * length / size.  With
 * start + length <= limit * 256 < 2^31 (the source lies in the buffer),
 * size < 2^31 and 0 <= a <= size, the numerators stay below 2^62 + 2^39.
 * false when the interval misses the surface.
 */
static bool
map_axis(const struct axis *ax, int64_t a0, int64_t a1, int64_t *t0,
	 int64_t *t1)
{
	int64_t div = ax->size * FIXED_ONE;

	if (a0 < 0)
		a0 = 0;
	if (a1 > ax->size)
		a1 = ax->size;
	if (a0 >= a1)
		return false;
	*t0 = (ax->start * ax->size + a0 * ax->length) / div;
	*t1 = (ax->start * ax->size + a1 * ax->length + div - 1) / div;
	if (*t1 > ax->limit)
		*t1 = ax->limit;
	return *t0 < *t1;
}

/*
 * One axis of v for a transformed buffer side of limit pixels: the
 * source (or the whole buffer) and the surface size.  false for what the
 * protocol refuses (the display ends the client for it; until then the
 * caller copies everything).
 */
static bool
setup_axis(const struct ivwl_buffer_view *v, int64_t limit, int32_t src_pos,
	   int32_t src_len, int32_t dst_len, struct axis *ax)
{
	ax->limit = limit;
	if (v->has_source) {
		/* bad_value, or out_of_buffer at commit */
		if (src_pos < 0 || src_len <= 0)
			return false;
		ax->start = (int64_t)src_pos * v->scale;
		ax->length = (int64_t)src_len * v->scale;
		if (ax->start + ax->length > limit * FIXED_ONE)
			return false;
	} else {
		ax->start = 0;
		ax->length = limit * FIXED_ONE;
	}
	if (v->has_destination) {
		if (dst_len <= 0)
			return false;
		ax->size = dst_len;
	} else if (v->has_source) {
		/* bad_size: a crop alone must be whole surface units */
		if (src_len % FIXED_ONE != 0)
			return false;
		ax->size = src_len / FIXED_ONE;
	} else {
		ax->size = limit / v->scale;
	}
	return true;
}

/*
 * wl_surface.set_buffer_transform, from the transformed buffer back to
 * the buffer: mirror x over its width and/or y over its height, then
 * swap the axes (the rotations by 90 and 270 degrees).  Weston's
 * weston_transformed_coord() is the reference for which is which.
 */
static const struct {
	bool mirror_x, mirror_y, swap;
} transforms[8] = {
	[0] = { false, false, false },	/* normal */
	[1] = { true, false, true },	/* 90 */
	[2] = { true, true, false },	/* 180 */
	[3] = { false, true, true },	/* 270 */
	[4] = { true, false, false },	/* flipped */
	[5] = { false, false, true },	/* flipped_90 */
	[6] = { false, true, false },	/* flipped_180 */
	[7] = { true, true, true },	/* flipped_270 */
};

static void
mirror(int64_t *lo, int64_t *hi, int64_t size)
{
	int64_t old_lo = *lo;

	*lo = size - *hi;
	*hi = size - old_lo;
}

bool
ivwl_damage_map(const struct ivwl_buffer_view *v, int32_t width,
		int32_t height, struct ivwl_rect damage, struct ivwl_rect *out)
{
	int64_t tw, th, x0, x1, y0, y1, t;
	struct axis ax, ay;

	*out = (struct ivwl_rect){ 0, 0, 0, 0 };
	if (v->transform < 0 || v->transform > 7 || v->scale < 1 ||
	    width < 1 || height < 1 || width >= IVWL_DAMAGE_MAX_SIDE ||
	    height >= IVWL_DAMAGE_MAX_SIDE)
		return false;
	tw = transforms[v->transform].swap ? height : width;
	th = transforms[v->transform].swap ? width : height;
	/* invalid_size: the buffer must be whole surface units */
	if (tw % v->scale != 0 || th % v->scale != 0)
		return false;
	if (!setup_axis(v, tw, v->src_x, v->src_w, v->dst_w, &ax) ||
	    !setup_axis(v, th, v->src_y, v->src_h, v->dst_h, &ay))
		return false;

	if (damage.w <= 0 || damage.h <= 0 ||
	    !map_axis(&ax, damage.x, (int64_t)damage.x + damage.w, &x0, &x1) ||
	    !map_axis(&ay, damage.y, (int64_t)damage.y + damage.h, &y0, &y1))
		return true;

	if (transforms[v->transform].mirror_x)
		mirror(&x0, &x1, tw);
	if (transforms[v->transform].mirror_y)
		mirror(&y0, &y1, th);
	if (transforms[v->transform].swap) {
		t = x0, x0 = y0, y0 = t;
		t = x1, x1 = y1, y1 = t;
	}
	*out = (struct ivwl_rect){ (int32_t)x0, (int32_t)y0,
				   (int32_t)(x1 - x0), (int32_t)(y1 - y0) };
	return true;
}

bool
ivwl_buffer_view_same_pixels(const struct ivwl_buffer_view *a,
			     const struct ivwl_buffer_view *b)
{
	if (a->transform != b->transform || a->scale != b->scale ||
	    a->has_source != b->has_source)
		return false;
	return !a->has_source ||
	       (a->src_x == b->src_x && a->src_y == b->src_y &&
		a->src_w == b->src_w && a->src_h == b->src_h);
}
