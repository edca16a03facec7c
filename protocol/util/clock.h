/* SPDX-License-Identifier: MIT */
/*
 * Offset and drift between the display's presentation clock and a clock
 * of the app-vm, from round trips through the region (docs/region.md,
 * "Clock link").  One round trip is three readings: t1, the app's clock
 * when it asked; t2, the display's clock when it answered; t3, the app's
 * clock when it saw the answer.  The app's time at t2 lies in [t1, t3],
 * whatever the doorbells cost, so every sample is an interval and every
 * estimate comes with a bound that is never smaller than what the
 * intervals prove.
 *
 * Pure computation: no clocks read, no shared memory.  The samples are
 * data from another machine: the estimator rejects what cannot be right
 * and restarts when the display's clock stepped.
 */
#ifndef IVWL_CLOCK_H
#define IVWL_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#define IVWL_CLOCK_SAMPLES 32u
/* A round trip longer than this says little: dropped (20 ms). */
#define IVWL_CLOCK_MAX_RTT_NS 20000000ll
/*
 * Drift assumed before two samples far enough apart measure it, and the
 * largest believed: crystals are within 100 ppm, an NTP-slewed
 * CLOCK_MONOTONIC within 500 ppm more.
 */
#define IVWL_CLOCK_MAX_DRIFT_PPB 1000000ll
/* Samples this far apart (display time) measure drift (1 s). */
#define IVWL_CLOCK_DRIFT_SPAN_NS 1000000000ll
/* Consecutive samples that disagree with the estimate before it restarts. */
#define IVWL_CLOCK_STEP_SAMPLES 3u

struct ivwl_clock_sample {
	int64_t t1;		/* app, asked */
	int64_t t2;		/* display, answered */
	int64_t t3;		/* app, saw the answer */
};

/*
 * display time d maps to app time
 *     ref_app + (d - ref_display) + (d - ref_display) * drift_ppb / 1e9
 * within err_ns + |d - ref_display| * growth_ppb / 1e9.
 */
struct ivwl_clock_map {
	int64_t ref_display;
	int64_t ref_app;
	int64_t drift_ppb;
	int64_t err_ns;
	int64_t growth_ppb;
};

enum ivwl_clock_verdict {
	IVWL_CLOCK_ACCEPTED,
	IVWL_CLOCK_REJECTED,	/* impossible, too slow, or an outlier */
	IVWL_CLOCK_RESTARTED,	/* the display's clock stepped */
};

struct ivwl_clock_est {
	struct ivwl_clock_sample s[IVWL_CLOCK_SAMPLES];
	uint32_t count;		/* valid entries, newest at head - 1 */
	uint32_t head;
	uint32_t outliers;	/* consecutive */
	struct ivwl_clock_sample last_outlier;
	struct ivwl_clock_map map;
	bool have_map;
	uint64_t accepted, rejected, restarts;	/* for logs and benches */
};

void
ivwl_clock_est_reset(struct ivwl_clock_est *est);

/* Feeds one round trip.  Keeps at most IVWL_CLOCK_SAMPLES of them. */
enum ivwl_clock_verdict
ivwl_clock_est_add(struct ivwl_clock_est *est,
		   const struct ivwl_clock_sample *sample);

/* The current mapping; false while there is none. */
bool
ivwl_clock_est_map(const struct ivwl_clock_est *est,
		   struct ivwl_clock_map *map);

/*
 * App time of display time d, and its error bound.  Saturates rather
 * than wrapping on absurd input.
 */
int64_t
ivwl_clock_map_apply(const struct ivwl_clock_map *map, int64_t d,
		     int64_t *err_ns);

/*
 * Display time of app time a, and its error bound: the inverse of
 * ivwl_clock_map_apply, for times an app sends the display.
 */
int64_t
ivwl_clock_map_invert(const struct ivwl_clock_map *map, int64_t a,
		      int64_t *err_ns);

#endif
