/* SPDX-License-Identifier: MIT */
/*
 * The clock estimator against a simulated pair of clocks: true time T,
 * the display's clock D0 + T, the app's A0 + T * (1 + drift), round trips
 * with random (and lopsided) delays.  Every check is that the truth lies
 * inside the bound the estimator gives, and that the bound is tight.
 */
#include <stdint.h>
#include <stdlib.h>

#include "clock.h"
#include "harness.h"

#define MS 1000000ll
#define S 1000000000ll

struct world {
	int64_t d0;		/* display clock at T = 0 */
	int64_t a0;		/* app clock at T = 0 */
	int64_t drift_ppb;	/* app clock rate - 1 */
	int64_t t;		/* true time */
	unsigned int seed;
};

static int64_t
app_at(const struct world *w, int64_t t)
{
	return w->a0 + t + (int64_t)((__int128)t * w->drift_ppb / S);
}

static int64_t
display_at(const struct world *w, int64_t t)
{
	return w->d0 + t;
}

/* The true app time of display time d. */
static int64_t
truth(const struct world *w, int64_t d)
{
	return app_at(w, d - w->d0);
}

/* One round trip: out and back take up to max_ns each, lopsided if asked. */
static struct ivwl_clock_sample
round_trip(struct world *w, int64_t max_ns, bool lopsided)
{
	struct ivwl_clock_sample s;
	int64_t out = rand_r(&w->seed) % max_ns;
	int64_t back = lopsided ? 1000 : rand_r(&w->seed) % max_ns;

	s.t1 = app_at(w, w->t);
	s.t2 = display_at(w, w->t + out);
	s.t3 = app_at(w, w->t + out + back);
	w->t += out + back;
	return s;
}

/*
 * The truth lies within the bound, for display times around now, and
 * the other way (an app's time put in the display's clock) too.
 */
static void
check_bounds(const struct ivwl_clock_est *est, const struct world *w,
	     int64_t ahead_ns)
{
	struct ivwl_clock_map map;
	int64_t d, app, err, diff, back;

	REQUIRE(ivwl_clock_est_map(est, &map));
	for (d = display_at(w, w->t) - S; d <= display_at(w, w->t) + ahead_ns;
	     d += 100 * MS) {
		app = ivwl_clock_map_apply(&map, d, &err);
		diff = app - truth(w, d);
		back = ivwl_clock_map_invert(&map, truth(w, d), &err) - d;
		if (diff > err || -diff > err || back > err || -back > err) {
			fprintf(stderr, "off by %lld ns (back %lld), bound "
				"%lld\n", (long long)diff, (long long)back,
				(long long)err);
			CHECK(false);
			return;
		}
	}
}

static void
test_offset_of_days(void)
{
	struct world w = { .d0 = 40ll * 86400 * S, .a0 = 3 * S, .seed = 1 };
	struct ivwl_clock_est est = { 0 };
	struct ivwl_clock_map map;
	struct ivwl_clock_sample s;
	int64_t err;
	int i;

	CHECK(!ivwl_clock_est_map(&est, &map));
	for (i = 0; i < 8; i++) {
		s = round_trip(&w, 200000, false);
		CHECK_EQ(ivwl_clock_est_add(&est, &s), IVWL_CLOCK_ACCEPTED);
		check_bounds(&est, &w, 2 * S);
		w.t += 50 * MS;
	}
	REQUIRE(ivwl_clock_est_map(&est, &map));
	ivwl_clock_map_apply(&map, map.ref_display, &err);
	/* No worse than the best round trip: half of 400 us at most. */
	CHECK(err <= 200000);
	CHECK(err > 0);
}

static void
test_drift_is_measured(void)
{
	struct world w = { .d0 = 5 * S, .a0 = 1000 * S, .drift_ppb = 50000,
			   .seed = 2 };
	struct ivwl_clock_est est = { 0 };
	struct ivwl_clock_map map;
	struct ivwl_clock_sample s;
	int64_t err;
	int i;

	for (i = 0; i < 90; i++) {
		s = round_trip(&w, 100000, false);
		CHECK_EQ(ivwl_clock_est_add(&est, &s), IVWL_CLOCK_ACCEPTED);
		check_bounds(&est, &w, 5 * S);
		w.t += S;
	}
	REQUIRE(ivwl_clock_est_map(&est, &map));
	/* 50 ppm, measured over ~20 s of 100 us round trips. */
	CHECK(map.drift_ppb > 40000 && map.drift_ppb < 60000);
	CHECK(map.growth_ppb < 20000);
	/* Five seconds without samples: still tens of microseconds. */
	ivwl_clock_map_apply(&map, map.ref_display + 5 * S, &err);
	CHECK(err < 200000);
}

static void
test_lopsided_delays_stay_inside(void)
{
	struct world w = { .d0 = 77 * S, .a0 = 0, .drift_ppb = -20000,
			   .seed = 3 };
	struct ivwl_clock_est est = { 0 };
	struct ivwl_clock_sample s;
	int i;

	/* All the delay on the way out: the middle is wrong, the bound not. */
	for (i = 0; i < 40; i++) {
		s = round_trip(&w, 2 * MS, true);
		CHECK(ivwl_clock_est_add(&est, &s) == IVWL_CLOCK_ACCEPTED);
		check_bounds(&est, &w, S);
		w.t += 500 * MS;
	}
}

static void
test_step_restarts(void)
{
	struct world w = { .d0 = 10 * S, .a0 = 500 * S, .seed = 4 };
	struct ivwl_clock_est est = { 0 };
	struct ivwl_clock_sample s;
	enum ivwl_clock_verdict v;
	int i;

	for (i = 0; i < 20; i++) {
		s = round_trip(&w, 100000, false);
		CHECK_EQ(ivwl_clock_est_add(&est, &s), IVWL_CLOCK_ACCEPTED);
		w.t += S;
	}
	/* The display's clock jumps back 3 s (a new display instance). */
	w.d0 -= 3 * S;
	for (i = 0; i < (int)IVWL_CLOCK_STEP_SAMPLES - 1; i++) {
		s = round_trip(&w, 100000, false);
		CHECK_EQ(ivwl_clock_est_add(&est, &s), IVWL_CLOCK_REJECTED);
		w.t += 100 * MS;
	}
	s = round_trip(&w, 100000, false);
	CHECK_EQ(ivwl_clock_est_add(&est, &s), IVWL_CLOCK_RESTARTED);
	CHECK_EQ(est.restarts, 1);
	check_bounds(&est, &w, S);
	/* Forward steps too, and the estimate keeps up after. */
	w.d0 += 60 * S;
	for (i = 0; i < 10; i++) {
		s = round_trip(&w, 100000, false);
		v = ivwl_clock_est_add(&est, &s);
		CHECK(i < 2 ? v == IVWL_CLOCK_REJECTED :
		      v != IVWL_CLOCK_REJECTED);
		w.t += 200 * MS;
	}
	CHECK_EQ(est.restarts, 2);
	check_bounds(&est, &w, S);
}

static void
test_hostile_samples(void)
{
	struct world w = { .d0 = 10 * S, .a0 = 500 * S, .seed = 5 };
	struct ivwl_clock_est est = { 0 };
	struct ivwl_clock_sample s, good;
	struct ivwl_clock_map before, after;
	int i;
	const struct ivwl_clock_sample bad[] = {
		{ .t1 = 5, .t2 = 7, .t3 = 4 },			/* t3 < t1 */
		{ .t1 = 0, .t2 = -1, .t3 = 10 },		/* negative */
		{ .t1 = 0, .t2 = INT64_MAX, .t3 = 10 },		/* absurd */
		{ .t1 = INT64_MAX - 5, .t2 = 0, .t3 = INT64_MAX },
		{ .t1 = 0, .t2 = 0, .t3 = 30 * MS },		/* too slow */
		{ .t1 = INT64_MIN, .t2 = 0, .t3 = 0 },
	};

	for (i = 0; i < (int)(sizeof(bad) / sizeof(bad[0])); i++)
		CHECK_EQ(ivwl_clock_est_add(&est, &bad[i]),
			 IVWL_CLOCK_REJECTED);
	CHECK(!ivwl_clock_est_map(&est, &before));
	for (i = 0; i < 10; i++) {
		good = round_trip(&w, 100000, false);
		CHECK_EQ(ivwl_clock_est_add(&est, &good), IVWL_CLOCK_ACCEPTED);
		w.t += 300 * MS;
	}
	REQUIRE(ivwl_clock_est_map(&est, &before));
	/* Lone lies between honest answers never move the estimate. */
	for (i = 0; i < 50; i++) {
		s = round_trip(&w, 100000, false);
		s.t2 += (i % 2 ? 1 : -1) * (int64_t)(rand_r(&w.seed) % S +
						     MS);
		CHECK_EQ(ivwl_clock_est_add(&est, &s), IVWL_CLOCK_REJECTED);
		s = round_trip(&w, 100000, false);
		CHECK_EQ(ivwl_clock_est_add(&est, &s), IVWL_CLOCK_ACCEPTED);
		w.t += 100 * MS;
	}
	CHECK_EQ(est.restarts, 0);
	check_bounds(&est, &w, S);
	/* An answer repeated (the display's clock did not move): refused. */
	CHECK_EQ(ivwl_clock_est_add(&est, &s), IVWL_CLOCK_REJECTED);
	REQUIRE(ivwl_clock_est_map(&est, &after));
	CHECK(after.ref_display == before.ref_display ||
	      after.ref_display > before.ref_display);
}

static void
test_missing_samples_widen_the_bound(void)
{
	struct world w = { .d0 = 10 * S, .a0 = 2 * S, .drift_ppb = 300000,
			   .seed = 6 };
	struct ivwl_clock_est est = { 0 };
	struct ivwl_clock_map map;
	struct ivwl_clock_sample s;
	int64_t e1, e2;

	s = round_trip(&w, 100000, false);
	CHECK_EQ(ivwl_clock_est_add(&est, &s), IVWL_CLOCK_ACCEPTED);
	REQUIRE(ivwl_clock_est_map(&est, &map));
	/* One sample: drift unknown, believed up to the maximum. */
	CHECK_EQ(map.growth_ppb, IVWL_CLOCK_MAX_DRIFT_PPB);
	ivwl_clock_map_apply(&map, map.ref_display + S, &e1);
	ivwl_clock_map_apply(&map, map.ref_display + 10 * S, &e2);
	CHECK(e2 > e1);
	w.t += 30 * S;
	check_bounds(&est, &w, 30 * S);
	/* After a gap the next honest sample still fits. */
	s = round_trip(&w, 100000, false);
	CHECK_EQ(ivwl_clock_est_add(&est, &s), IVWL_CLOCK_ACCEPTED);
	check_bounds(&est, &w, S);
}

static void
test_apply_saturates(void)
{
	struct ivwl_clock_map map = {
		.ref_display = 0, .ref_app = INT64_MAX - 10,
		.drift_ppb = IVWL_CLOCK_MAX_DRIFT_PPB, .err_ns = 5,
		.growth_ppb = IVWL_CLOCK_MAX_DRIFT_PPB,
	};
	int64_t err;

	CHECK_EQ(ivwl_clock_map_apply(&map, INT64_MAX, &err), INT64_MAX);
	CHECK(err > 0);
	map.ref_app = INT64_MIN + 10;
	CHECK_EQ(ivwl_clock_map_apply(&map, INT64_MIN, &err), INT64_MIN);
	CHECK(err > 0);
}

/* Inverting is exact but for rounding, and saturates as applying does. */
static void
test_invert(void)
{
	struct ivwl_clock_map map = {
		.ref_display = 40ll * 86400 * S, .ref_app = 100000 * S + 7,
		.drift_ppb = -35000, .err_ns = 20000, .growth_ppb = 1000,
	};
	int64_t d, a, err, e2;

	for (d = map.ref_display - 10 * S; d <= map.ref_display + 10 * S;
	     d += 777 * MS) {
		a = ivwl_clock_map_apply(&map, d, &err);
		CHECK(ivwl_clock_map_invert(&map, a, &e2) - d <= 1);
		CHECK(d - ivwl_clock_map_invert(&map, a, &e2) <= 1);
		CHECK(e2 > err && e2 <= err + err / 512 + 2);
	}
	map.drift_ppb = IVWL_CLOCK_MAX_DRIFT_PPB;
	map.ref_display = INT64_MAX - 10;
	map.ref_app = 0;
	CHECK_EQ(ivwl_clock_map_invert(&map, INT64_MAX, &err), INT64_MAX);
	map.ref_display = INT64_MIN + 10;
	CHECK_EQ(ivwl_clock_map_invert(&map, INT64_MIN, &err), INT64_MIN);
	CHECK(err > 0);
}

IVWL_TEST_MAIN(
	TEST(test_invert),
	TEST(test_offset_of_days),
	TEST(test_drift_is_measured),
	TEST(test_lopsided_delays_stay_inside),
	TEST(test_step_restarts),
	TEST(test_hostile_samples),
	TEST(test_missing_samples_widen_the_bound),
	TEST(test_apply_saturates),
)
