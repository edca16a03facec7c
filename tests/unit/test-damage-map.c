/* SPDX-License-Identifier: MIT */
/*
 * ivwl_damage_map(): wl_surface.damage to the buffer pixels a copy-mode
 * relay copies.  A table of cases worked out by hand, and a sweep that
 * checks every transform, scale and a few viewports pixel by pixel
 * against weston's point formulas (weston_transformed_coord()).
 */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "damage-map.h"
#include "harness.h"

#define FIX(v) ((int32_t)((v) * 256))

enum {
	NORMAL, R90, R180, R270, FLIPPED, F90, F180, F270,
};

struct map_case {
	const char *what;
	struct ivwl_buffer_view v;
	int32_t width, height;		/* the buffer */
	struct ivwl_rect damage;	/* surface coordinates */
	bool ok;			/* false: the whole buffer */
	struct ivwl_rect want;
};

static const struct map_case map_cases[] = {
	{ "identity", { .scale = 1 }, 100, 50,
	  { 10, 20, 5, 5 }, true, { 10, 20, 5, 5 } },
	{ "identity, whole surface", { .scale = 1 }, 100, 50,
	  { 0, 0, 100, 50 }, true, { 0, 0, 100, 50 } },

	/* buffer 100x50, surface damage (10, 5, 20, 10), scale 1 */
	{ "normal", { .scale = 1, .transform = NORMAL }, 100, 50,
	  { 10, 5, 20, 10 }, true, { 10, 5, 20, 10 } },
	{ "90", { .scale = 1, .transform = R90 }, 100, 50,
	  { 10, 5, 20, 10 }, true, { 5, 20, 10, 20 } },
	{ "180", { .scale = 1, .transform = R180 }, 100, 50,
	  { 10, 5, 20, 10 }, true, { 70, 35, 20, 10 } },
	{ "270", { .scale = 1, .transform = R270 }, 100, 50,
	  { 10, 5, 20, 10 }, true, { 85, 10, 10, 20 } },
	{ "flipped", { .scale = 1, .transform = FLIPPED }, 100, 50,
	  { 10, 5, 20, 10 }, true, { 70, 5, 20, 10 } },
	{ "flipped-90", { .scale = 1, .transform = F90 }, 100, 50,
	  { 10, 5, 20, 10 }, true, { 5, 10, 10, 20 } },
	{ "flipped-180", { .scale = 1, .transform = F180 }, 100, 50,
	  { 10, 5, 20, 10 }, true, { 10, 35, 20, 10 } },
	{ "flipped-270", { .scale = 1, .transform = F270 }, 100, 50,
	  { 10, 5, 20, 10 }, true, { 85, 20, 10, 20 } },

	/* the same surfaces at scale 2: buffer 200x100, twice each */
	{ "normal, scale 2", { .scale = 2, .transform = NORMAL }, 200, 100,
	  { 10, 5, 20, 10 }, true, { 20, 10, 40, 20 } },
	{ "90, scale 2", { .scale = 2, .transform = R90 }, 200, 100,
	  { 10, 5, 20, 10 }, true, { 10, 40, 20, 40 } },
	{ "180, scale 2", { .scale = 2, .transform = R180 }, 200, 100,
	  { 10, 5, 20, 10 }, true, { 140, 70, 40, 20 } },
	{ "270, scale 2", { .scale = 2, .transform = R270 }, 200, 100,
	  { 10, 5, 20, 10 }, true, { 170, 20, 20, 40 } },
	{ "flipped, scale 2", { .scale = 2, .transform = FLIPPED }, 200, 100,
	  { 10, 5, 20, 10 }, true, { 140, 10, 40, 20 } },
	{ "flipped-90, scale 2", { .scale = 2, .transform = F90 }, 200, 100,
	  { 10, 5, 20, 10 }, true, { 10, 20, 20, 40 } },
	{ "flipped-180, scale 2", { .scale = 2, .transform = F180 }, 200,
	  100, { 10, 5, 20, 10 }, true, { 20, 70, 40, 20 } },
	{ "flipped-270, scale 2", { .scale = 2, .transform = F270 }, 200,
	  100, { 10, 5, 20, 10 }, true, { 170, 40, 20, 40 } },

	/* wp_viewport */
	{ "identity viewport (neither set)", { .scale = 1 }, 1920, 1080,
	  { 100, 200, 64, 64 }, true, { 100, 200, 64, 64 } },
	{ "crop", { .scale = 1, .has_source = true, .src_x = FIX(10),
		    .src_y = FIX(10), .src_w = FIX(40), .src_h = FIX(20) },
	  100, 50, { 0, 0, 5, 5 }, true, { 10, 10, 5, 5 } },
	{ "crop, damage past the surface",
	  { .scale = 1, .has_source = true, .src_x = FIX(10),
	    .src_y = FIX(10), .src_w = FIX(40), .src_h = FIX(20) },
	  100, 50, { 35, 15, 10, 10 }, true, { 45, 25, 5, 5 } },
	{ "crop at scale 2", { .scale = 2, .has_source = true,
			       .src_x = FIX(10), .src_y = FIX(10),
			       .src_w = FIX(40), .src_h = FIX(20) },
	  200, 100, { 1, 1, 2, 2 }, true, { 22, 22, 4, 4 } },
	{ "crop with transform 90",
	  { .scale = 1, .transform = R90, .has_source = true,
	    .src_x = FIX(10), .src_y = FIX(20), .src_w = FIX(30),
	    .src_h = FIX(40) },
	  100, 50, { 0, 0, 5, 5 }, true, { 20, 35, 5, 5 } },
	{ "destination scales up", { .scale = 1, .has_destination = true,
				     .dst_w = 200, .dst_h = 100 },
	  100, 50, { 10, 10, 5, 5 }, true, { 5, 5, 3, 3 } },
	{ "destination scales down", { .scale = 1, .has_destination = true,
				       .dst_w = 50, .dst_h = 25 },
	  100, 50, { 10, 10, 5, 5 }, true, { 20, 20, 10, 10 } },
	{ "destination, not a whole factor",
	  { .scale = 1, .has_destination = true, .dst_w = 30, .dst_h = 30 },
	  100, 50, { 1, 1, 1, 1 }, true, { 3, 1, 4, 3 } },
	/* weston-scaler -b: scale 2, source 21.25,25.25 54.75x76.75 */
	{ "fractional source, whole surface",
	  { .scale = 2, .has_source = true, .src_x = FIX(21.25),
	    .src_y = FIX(25.25), .src_w = FIX(54.75), .src_h = FIX(76.75),
	    .has_destination = true, .dst_w = 220, .dst_h = 308 },
	  842, 674, { 0, 0, 220, 308 }, true, { 42, 50, 110, 154 } },
	{ "fractional source, one pixel",
	  { .scale = 2, .has_source = true, .src_x = FIX(21.25),
	    .src_y = FIX(25.25), .src_w = FIX(54.75), .src_h = FIX(76.75),
	    .has_destination = true, .dst_w = 220, .dst_h = 308 },
	  842, 674, { 0, 0, 1, 1 }, true, { 42, 50, 1, 1 } },
	{ "fractional source, last pixel",
	  { .scale = 2, .has_source = true, .src_x = FIX(21.25),
	    .src_y = FIX(25.25), .src_w = FIX(54.75), .src_h = FIX(76.75),
	    .has_destination = true, .dst_w = 220, .dst_h = 308 },
	  842, 674, { 219, 307, 1, 1 }, true, { 151, 203, 1, 1 } },

	/* damage partly or wholly outside the surface, or empty */
	{ "above and left", { .scale = 1 }, 100, 50,
	  { -10, -10, 20, 20 }, true, { 0, 0, 10, 10 } },
	{ "below and right", { .scale = 1 }, 100, 50,
	  { 90, 40, 100, 100 }, true, { 90, 40, 10, 10 } },
	{ "outside", { .scale = 1 }, 100, 50,
	  { 100, 0, 10, 10 }, true, { 0, 0, 0, 0 } },
	{ "empty", { .scale = 1 }, 100, 50,
	  { 10, 10, 0, 5 }, true, { 0, 0, 0, 0 } },
	{ "negative size", { .scale = 1 }, 100, 50,
	  { 10, 10, -5, 5 }, true, { 0, 0, 0, 0 } },

	/* huge values and int32 extremes */
	{ "huge destination", { .scale = 1, .has_destination = true,
				.dst_w = INT32_MAX, .dst_h = INT32_MAX },
	  100, 50, { 0, 0, INT32_MAX, INT32_MAX }, true, { 0, 0, 100, 50 } },
	{ "huge destination, last pixel",
	  { .scale = 1, .has_destination = true, .dst_w = INT32_MAX,
	    .dst_h = INT32_MAX },
	  100, 50, { INT32_MAX - 1, INT32_MAX - 1, 1, 1 }, true,
	  { 99, 49, 1, 1 } },
	{ "huge destination, cropped",
	  { .scale = 4, .transform = F270, .has_source = true,
	    .src_x = FIX(1), .src_y = FIX(2), .src_w = FIX(3.5),
	    .src_h = FIX(4.25), .has_destination = true,
	    .dst_w = INT32_MAX, .dst_h = INT32_MAX },
	  1 << 22, 1 << 22, { 0, 0, INT32_MAX, INT32_MAX }, true,
	  { (1 << 22) - 25, (1 << 22) - 18, 17, 14 } },
	{ "widest buffer mapped", { .scale = 1, .transform = R90 },
	  (1 << 23) - 1, 1, { 0, (1 << 23) - 2, 1, 1 }, true,
	  { (1 << 23) - 2, 0, 1, 1 } },
	{ "whole plane", { .scale = 1 }, 100, 50,
	  { INT32_MIN, INT32_MIN, INT32_MAX, INT32_MAX }, true,
	  { 0, 0, 0, 0 } },
	{ "from 0 to int32 max", { .scale = 3, .transform = R180 }, 99, 48,
	  { 0, 0, INT32_MAX, INT32_MAX }, true, { 0, 0, 99, 48 } },
	{ "at int32 max", { .scale = 1 }, 100, 50,
	  { INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX }, true,
	  { 0, 0, 0, 0 } },

	/* what the protocol refuses or the arithmetic cannot hold: all */
	{ "transform 8", { .scale = 1, .transform = 8 }, 100, 50,
	  { 0, 0, 1, 1 }, false, { 0 } },
	{ "transform int32 min", { .scale = 1, .transform = INT32_MIN },
	  100, 50, { 0, 0, 1, 1 }, false, { 0 } },
	{ "scale 0", { .scale = 0 }, 100, 50, { 0, 0, 1, 1 }, false, { 0 } },
	{ "scale int32 max", { .scale = INT32_MAX }, 100, 50,
	  { 0, 0, 1, 1 }, false, { 0 } },
	{ "buffer not a multiple of the scale", { .scale = 2 }, 101, 50,
	  { 0, 0, 1, 1 }, false, { 0 } },
	{ "no buffer", { .scale = 1 }, 0, 0, { 0, 0, 1, 1 }, false, { 0 } },
	{ "buffer too wide", { .scale = 1 }, 1 << 23, 1, { 0, 0, 1, 1 },
	  false, { 0 } },
	{ "source out of the buffer", { .scale = 1, .has_source = true,
					.src_x = FIX(90), .src_w = FIX(20),
					.src_h = FIX(10) },
	  100, 50, { 0, 0, 1, 1 }, false, { 0 } },
	{ "source at int32 max", { .scale = 1, .has_source = true,
				   .src_x = INT32_MAX, .src_y = INT32_MAX,
				   .src_w = INT32_MAX, .src_h = INT32_MAX },
	  100, 50, { 0, 0, 1, 1 }, false, { 0 } },
	{ "negative source", { .scale = 1, .has_source = true,
			       .src_x = FIX(-1), .src_w = FIX(20),
			       .src_h = FIX(10) },
	  100, 50, { 0, 0, 1, 1 }, false, { 0 } },
	{ "fractional crop alone", { .scale = 1, .has_source = true,
				     .src_w = FIX(20.5), .src_h = FIX(10) },
	  100, 50, { 0, 0, 1, 1 }, false, { 0 } },
	{ "destination 0", { .scale = 1, .has_destination = true,
			     .dst_w = 0, .dst_h = 10 },
	  100, 50, { 0, 0, 1, 1 }, false, { 0 } },
	{ "destination int32 min", { .scale = 1, .has_destination = true,
				     .dst_w = INT32_MIN, .dst_h = INT32_MIN },
	  100, 50, { 0, 0, 1, 1 }, false, { 0 } },
};

static void
test_table(void)
{
	struct ivwl_rect got;
	size_t i;
	bool ok;

	for (i = 0; i < sizeof(map_cases) / sizeof(map_cases[0]); i++) {
		const struct map_case *c = &map_cases[i];

		memset(&got, 0x55, sizeof(got));
		ok = ivwl_damage_map(&c->v, c->width, c->height, c->damage,
				     &got);
		if (ok != c->ok || (ok && memcmp(&got, &c->want,
						 sizeof(got)) != 0)) {
			fprintf(stderr, "%s: got %s (%d, %d, %d, %d), want "
				"%s (%d, %d, %d, %d)\n", c->what,
				ok ? "ok" : "all", got.x, got.y, got.w, got.h,
				c->ok ? "ok" : "all", c->want.x, c->want.y,
				c->want.w, c->want.h);
			ivwl_test_failures++;
		}
	}
}

/*
 * weston_transformed_coord(): a point of the transformed buffer (tw x th)
 * to the buffer.
 */
static void
weston_point(int t, int64_t tw, int64_t th, int64_t x, int64_t y,
	     int64_t *bx, int64_t *by)
{
	switch (t) {
	case NORMAL: *bx = x; *by = y; break;
	case FLIPPED: *bx = tw - x; *by = y; break;
	case R90: *bx = y; *by = tw - x; break;
	case F90: *bx = y; *by = x; break;
	case R180: *bx = tw - x; *by = th - y; break;
	case F180: *bx = x; *by = th - y; break;
	case R270: *bx = th - y; *by = x; break;
	case F270: *bx = th - y; *by = tw - x; break;
	}
}

/*
 * Does transformed pixel column p (1/256 units [p * 256, p * 256 + 256))
 * show any of surface interval [a0, a1) clipped to [0, size)?  A surface
 * point a shows start + a * len / size, with start and len in 1/256
 * transformed pixels.
 */
static bool
shows(int64_t p, int64_t a0, int64_t a1, int64_t size, int64_t start,
      int64_t len)
{
	a0 = a0 > 0 ? a0 : 0;
	a1 = a1 < size ? a1 : size;
	return a0 < a1 &&
	       start * size + a0 * len < (p + 1) * 256 * size &&
	       start * size + a1 * len > p * 256 * size;
}

/* Every pixel of the buffer: the damage must be their bounding box. */
static void
check_pixels(const struct ivwl_buffer_view *v, int32_t w, int32_t h,
	     struct ivwl_rect d)
{
	int swap = v->transform & 1;
	int64_t tw = swap ? h : w, th = swap ? w : h;
	int64_t sx = 0, sy = 0, sw = tw * 256, sh = th * 256, size_w, size_h;
	int64_t x0 = INT64_MAX, y0 = INT64_MAX, x1 = -1, y1 = -1, tx, ty;
	int64_t bx, by;
	struct ivwl_rect got;

	if (v->has_source) {
		sx = (int64_t)v->src_x * v->scale;
		sy = (int64_t)v->src_y * v->scale;
		sw = (int64_t)v->src_w * v->scale;
		sh = (int64_t)v->src_h * v->scale;
	}
	size_w = v->has_destination ? v->dst_w :
		 v->has_source ? v->src_w / 256 : tw / v->scale;
	size_h = v->has_destination ? v->dst_h :
		 v->has_source ? v->src_h / 256 : th / v->scale;
	for (ty = 0; ty < th; ty++) {
		if (!shows(ty, d.y, (int64_t)d.y + d.h, size_h, sy, sh))
			continue;
		for (tx = 0; tx < tw; tx++) {
			if (!shows(tx, d.x, (int64_t)d.x + d.w, size_w, sx,
				   sw))
				continue;
			/* the pixel's centre, in halves of a pixel */
			weston_point(v->transform, tw * 2, th * 2, tx * 2 + 1,
				     ty * 2 + 1, &bx, &by);
			bx /= 2;
			by /= 2;
			x0 = bx < x0 ? bx : x0;
			y0 = by < y0 ? by : y0;
			x1 = bx + 1 > x1 ? bx + 1 : x1;
			y1 = by + 1 > y1 ? by + 1 : y1;
		}
	}
	REQUIRE(ivwl_damage_map(v, w, h, d, &got));
	if (x1 < 0) {
		CHECK(got.w == 0 && got.h == 0);
		return;
	}
	if (got.x != x0 || got.y != y0 || got.w != x1 - x0 ||
	    got.h != y1 - y0) {
		fprintf(stderr, "transform %d scale %d src %d %d %d %d dst "
			"%d %d buffer %dx%d damage (%d, %d, %d, %d): got "
			"(%d, %d, %d, %d), want (%lld, %lld, %lld, %lld)\n",
			v->transform, v->scale, v->src_x, v->src_y, v->src_w,
			v->src_h, v->dst_w, v->dst_h, w, h, d.x, d.y, d.w,
			d.h, got.x, got.y, got.w, got.h, (long long)x0,
			(long long)y0, (long long)(x1 - x0),
			(long long)(y1 - y0));
		ivwl_test_failures++;
	}
}

/* 12x6 buffers under every transform, scale and a few viewports. */
static void
test_sweep(void)
{
	static const struct ivwl_buffer_view viewports[] = {
		{ 0 },
		{ .has_destination = true, .dst_w = 7, .dst_h = 5 },
		{ .has_destination = true, .dst_w = 25, .dst_h = 13 },
		{ .has_source = true, .src_x = FIX(1), .src_y = FIX(0.5),
		  .src_w = FIX(2), .src_h = FIX(1) },
		{ .has_source = true, .src_x = FIX(0.25), .src_y = FIX(1.5),
		  .src_w = FIX(1.75), .src_h = FIX(0.75),
		  .has_destination = true, .dst_w = 9, .dst_h = 4 },
	};
	static const struct ivwl_rect damages[] = {
		{ 0, 0, 1, 1 }, { 1, 2, 3, 1 }, { 2, 0, 1, 9 },
		{ -3, -1, 5, 3 }, { 0, 0, 100, 100 }, { 4, 3, 2, 2 },
	};
	struct ivwl_buffer_view v;
	size_t i, j;
	int t, scale;

	for (t = 0; t < 8; t++)
		for (scale = 1; scale <= 2; scale++)
			for (i = 0; i < sizeof(viewports) /
				    sizeof(viewports[0]); i++)
				for (j = 0; j < sizeof(damages) /
					    sizeof(damages[0]); j++) {
					v = viewports[i];
					v.transform = t;
					v.scale = scale;
					check_pixels(&v, 12, 6, damages[j]);
				}
}

static void
test_same_pixels(void)
{
	struct ivwl_buffer_view a = IVWL_BUFFER_VIEW_IDENTITY, b = a;

	CHECK(ivwl_buffer_view_same_pixels(&a, &b));
	b.has_destination = true;
	b.dst_w = 30;
	b.dst_h = 40;
	CHECK(ivwl_buffer_view_same_pixels(&a, &b));
	b.transform = R90;
	CHECK(!ivwl_buffer_view_same_pixels(&a, &b));
	b = a;
	b.scale = 2;
	CHECK(!ivwl_buffer_view_same_pixels(&a, &b));
	b = a;
	b.has_source = true;
	CHECK(!ivwl_buffer_view_same_pixels(&a, &b));
	a = b;
	a.src_w = FIX(3);
	CHECK(!ivwl_buffer_view_same_pixels(&a, &b));
	/* unset sources match whatever values came with them */
	a.has_source = b.has_source = false;
	CHECK(ivwl_buffer_view_same_pixels(&a, &b));
}

IVWL_TEST_MAIN(TEST(test_table), TEST(test_sweep), TEST(test_same_pixels))
