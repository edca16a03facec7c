/* SPDX-License-Identifier: MIT */
/*
 * The clock estimator (clock.h).  Every sample says that the offset
 * app - display at display time t2 lies in [t1 - t2, t3 - t2].  Drift
 * comes from the tightest sample of the oldest third of the window and
 * the tightest of the newest third; the offset at the newest sample is
 * the intersection of every sample's interval carried forward under that
 * drift, each widened by the drift's own uncertainty.
 */
#include <stdlib.h>
#include <string.h>

#include "clock.h"

/* Readings beyond this are refused: arithmetic on them cannot overflow. */
#define CLOCK_MAX_NS (INT64_MAX / 4)
#define NS_PER_S 1000000000ll
/* Nothing is linear for ever: drift is believed to this much (100 ppb). */
#define DRIFT_FLOOR_PPB 100ll

static int64_t
saturate(__int128 v)
{
	if (v > INT64_MAX)
		return INT64_MAX;
	if (v < INT64_MIN)
		return INT64_MIN;
	return (int64_t)v;
}

/* dt * ppb / 1e9, rounded away from zero so bounds stay bounds. */
static int64_t
scale(int64_t dt, int64_t ppb)
{
	__int128 p = (__int128)dt * ppb;

	if (p >= 0)
		return saturate((p + NS_PER_S - 1) / NS_PER_S);
	return saturate((p - NS_PER_S + 1) / NS_PER_S);
}

static int64_t
half_rtt(const struct ivwl_clock_sample *s)
{
	return (s->t3 - s->t1 + 1) / 2;
}

/* Twice the offset at the sample's middle (kept doubled to stay exact). */
static int64_t
mid2(const struct ivwl_clock_sample *s)
{
	return s->t1 + s->t3 - 2 * s->t2;
}

static const struct ivwl_clock_sample *
nth(const struct ivwl_clock_est *est, uint32_t i)
{
	/* i = 0 is the oldest kept */
	return &est->s[(est->head + IVWL_CLOCK_SAMPLES - est->count + i) %
		       IVWL_CLOCK_SAMPLES];
}

static const struct ivwl_clock_sample *
tightest(const struct ivwl_clock_est *est, uint32_t from, uint32_t to)
{
	const struct ivwl_clock_sample *best = NULL, *s;
	uint32_t i;

	for (i = from; i < to; i++) {
		s = nth(est, i);
		if (!best || half_rtt(s) < half_rtt(best))
			best = s;
	}
	return best;
}

/* Drift and its uncertainty, or the default when it is not measured. */
static void
measure_drift(const struct ivwl_clock_est *est, int64_t *drift,
	      int64_t *growth)
{
	const struct ivwl_clock_sample *a, *b;
	int64_t dt, unc;
	__int128 d;
	uint32_t third = est->count / 3;

	*drift = 0;
	*growth = IVWL_CLOCK_MAX_DRIFT_PPB;
	if (third == 0)
		return;
	a = tightest(est, 0, third);
	b = tightest(est, est->count - third, est->count);
	dt = b->t2 - a->t2;
	if (dt < IVWL_CLOCK_DRIFT_SPAN_NS)
		return;
	d = (__int128)(mid2(b) - mid2(a)) * NS_PER_S / 2 / dt;
	unc = saturate(((__int128)(half_rtt(a) + half_rtt(b)) * NS_PER_S +
			dt - 1) / dt);
	if (d > IVWL_CLOCK_MAX_DRIFT_PPB || d < -IVWL_CLOCK_MAX_DRIFT_PPB ||
	    unc >= IVWL_CLOCK_MAX_DRIFT_PPB)
		return;
	*drift = (int64_t)d;
	*growth = unc + DRIFT_FLOOR_PPB;
}

static void
compute_map(struct ivwl_clock_est *est)
{
	const struct ivwl_clock_sample *n = nth(est, est->count - 1), *s;
	int64_t drift, growth, lo = INT64_MIN, hi = INT64_MAX, dt, l, h;
	int64_t best_err = INT64_MAX, best_off = 0, e;
	uint32_t i;

	measure_drift(est, &drift, &growth);
	for (i = 0; i < est->count; i++) {
		s = nth(est, i);
		dt = n->t2 - s->t2;
		l = s->t1 - s->t2 + scale(dt, drift) - scale(dt, growth);
		h = s->t3 - s->t2 + scale(dt, drift) + scale(dt, growth);
		if (l > lo)
			lo = l;
		if (h < hi)
			hi = h;
		/* The best single sample, should the intersection be empty. */
		e = (h - l + 1) / 2;
		if (e < best_err) {
			best_err = e;
			best_off = l + (h - l) / 2;
		}
	}
	est->map.ref_display = n->t2;
	est->map.drift_ppb = drift;
	est->map.growth_ppb = growth;
	if (lo <= hi) {
		est->map.ref_app = n->t2 + lo + (hi - lo) / 2;
		est->map.err_ns = (hi - lo + 1) / 2;
	} else {
		est->map.ref_app = n->t2 + best_off;
		est->map.err_ns = best_err;
	}
	est->have_map = true;
}

void
ivwl_clock_est_reset(struct ivwl_clock_est *est)
{
	uint64_t accepted = est->accepted, rejected = est->rejected;
	uint64_t restarts = est->restarts;

	memset(est, 0, sizeof(*est));
	est->accepted = accepted;
	est->rejected = rejected;
	est->restarts = restarts;
}

static bool
plausible(const struct ivwl_clock_sample *s)
{
	return s->t1 >= 0 && s->t2 >= 0 && s->t3 >= s->t1 &&
	       s->t3 < CLOCK_MAX_NS && s->t2 < CLOCK_MAX_NS &&
	       s->t3 - s->t1 <= IVWL_CLOCK_MAX_RTT_NS;
}

/* Does the sample's interval meet the estimate's at t2? */
static bool
agrees(const struct ivwl_clock_est *est, const struct ivwl_clock_sample *s)
{
	const struct ivwl_clock_sample *newest = nth(est, est->count - 1);
	int64_t app, err;

	/* The display's clock never goes back; ours neither. */
	if (s->t2 <= newest->t2 || s->t1 < newest->t1)
		return false;
	app = ivwl_clock_map_apply(&est->map, s->t2, &err);
	return app + err >= s->t1 && app - err <= s->t3;
}

static void
push(struct ivwl_clock_est *est, const struct ivwl_clock_sample *s)
{
	est->s[est->head] = *s;
	est->head = (est->head + 1) % IVWL_CLOCK_SAMPLES;
	if (est->count < IVWL_CLOCK_SAMPLES)
		est->count++;
	est->outliers = 0;
	est->accepted++;
	compute_map(est);
}

enum ivwl_clock_verdict
ivwl_clock_est_add(struct ivwl_clock_est *est,
		   const struct ivwl_clock_sample *sample)
{
	struct ivwl_clock_sample s = *sample;

	if (!plausible(&s)) {
		est->rejected++;
		return IVWL_CLOCK_REJECTED;
	}
	if (est->count > 0 && !agrees(est, &s)) {
		/*
		 * One odd answer is dropped; several in a row that agree
		 * with each other are a step of the display's clock (or of
		 * ours): start again from the newest.
		 */
		if (est->outliers > 0 &&
		    (s.t2 <= est->last_outlier.t2 ||
		     s.t1 < est->last_outlier.t1))
			est->outliers = 0;
		est->last_outlier = s;
		if (++est->outliers < IVWL_CLOCK_STEP_SAMPLES) {
			est->rejected++;
			return IVWL_CLOCK_REJECTED;
		}
		ivwl_clock_est_reset(est);
		est->restarts++;
		push(est, &s);
		return IVWL_CLOCK_RESTARTED;
	}
	push(est, &s);
	return IVWL_CLOCK_ACCEPTED;
}

bool
ivwl_clock_est_map(const struct ivwl_clock_est *est,
		   struct ivwl_clock_map *map)
{
	if (!est->have_map)
		return false;
	*map = est->map;
	return true;
}

int64_t
ivwl_clock_map_apply(const struct ivwl_clock_map *map, int64_t d,
		     int64_t *err_ns)
{
	__int128 dt = (__int128)d - map->ref_display;
	int64_t sdt = saturate(dt), adt = saturate(dt < 0 ? -dt : dt);

	*err_ns = saturate((__int128)map->err_ns +
			   scale(adt, map->growth_ppb));
	return saturate((__int128)map->ref_app + dt + scale(sdt,
							    map->drift_ppb));
}

int64_t
ivwl_clock_map_invert(const struct ivwl_clock_map *map, int64_t a,
		      int64_t *err_ns)
{
	__int128 da = (__int128)a - map->ref_app;
	__int128 dt = da * NS_PER_S / (NS_PER_S + map->drift_ppb);
	int64_t d = saturate((__int128)map->ref_display + dt), e;

	/*
	 * The bound at d, in app time, is one in display time too: the
	 * map's slope is within IVWL_CLOCK_MAX_DRIFT_PPB of 1 (a 512th
	 * covers it), and a nanosecond for the division's rounding.
	 */
	ivwl_clock_map_apply(map, d, &e);
	*err_ns = saturate((__int128)e + e / 512 + 1);
	return d;
}
