/* SPDX-License-Identifier: MIT */
/*
 * The clock link through the region (docs/region.md, "Clock link"): the
 * agent asks, the display answers with its presentation clock, the agent
 * estimates (clock.h) and publishes the estimate in its own side block,
 * where the app's relays read it to translate the display's times.
 */
#ifndef IVWL_CLOCK_LINK_H
#define IVWL_CLOCK_LINK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "clock.h"
#include "region.h"

/*
 * The display answers at most once per this (2 ms): an app ringing for
 * answers all the time gets one per period and no more work.
 */
#define IVWL_CLOCK_ANSWER_MIN_NS 2000000ll
/* No answer within this is a missing sample (200 ms). */
#define IVWL_CLOCK_ANSWER_TIMEOUT_NS 200000000ll
/*
 * What the link aims for (0.5 ms): the agent samples until its estimate
 * stays within this for a while, and relays ask for samples again when
 * theirs has grown past it.  Easily reached on a machine that schedules
 * the agent promptly; tens of microseconds under KVM.
 */
#define IVWL_CLOCK_GOOD_NS 500000ll
/*
 * The most a time relays pass on may be off (4 ms), and never more than
 * a quarter of the output's refresh period: within that it still names
 * the right vblank.  The gap to IVWL_CLOCK_GOOD_NS is for overloaded
 * machines, where the agent is scheduled late and round trips stretch:
 * there the choice is a time a few milliseconds off, said as such by its
 * bound, or none at all.
 */
#define IVWL_CLOCK_TRUST_NS 4000000ll
/* An estimate not refreshed for this long is stale (30 s). */
#define IVWL_CLOCK_STALE_NS 30000000000ll

/* ---- display side ---------------------------------------------------- */

struct ivwl_clock_answerer {
	clockid_t clock;	/* weston's presentation clock */
	int64_t last_ns;
	uint64_t answered, refused;
};

void
ivwl_clock_answerer_init(struct ivwl_clock_answerer *a, clockid_t clock);

/*
 * The app rang IVWL_DOORBELL_CLOCK: answer its latest request, rate
 * limited.  Reads one word the app wrote, and copies it as data.  True
 * when answered: the caller rings the app with IVWL_DOORBELL_CLOCK.
 */
bool
ivwl_clock_answer(struct ivwl_clock_answerer *a, void *base);

/* ---- app side (the agent) ---------------------------------------------- */

struct ivwl_clock_asker {
	void *base;
	clockid_t clock;	/* the app clock the estimate maps to */
	int64_t test_offset;	/* added to it: IVWL_TEST_CLOCK_OFFSET_NS */
	uint32_t seq;
	int64_t asked_at;	/* t1 of the outstanding request, or 0 */
	int64_t next_at;	/* when to ask next */
	uint32_t display_epoch;
	uint32_t display_clock;
	struct ivwl_clock_est est;
	uint64_t missing;
	int64_t best_rtt, last_rtt;
	int64_t accepted_at;	/* when an answer last went into est */
};

void
ivwl_clock_asker_init(struct ivwl_clock_asker *c, void *base);

int64_t
ivwl_clock_asker_now(const struct ivwl_clock_asker *c);

/*
 * Due to ask?  Then posts the request and returns true: the caller rings
 * the display (IVWL_DOORBELL_CLOCK is in its word).
 */
bool
ivwl_clock_ask(struct ivwl_clock_asker *c);

/* Milliseconds until ivwl_clock_ask wants to run again; -1: not before
 * the display rings. */
int
ivwl_clock_ask_timeout_ms(const struct ivwl_clock_asker *c);

/*
 * True when an answer taken at or after since (asker time) left an
 * estimate whose bound stays within IVWL_CLOCK_GOOD_NS for horizon_ns
 * more: what relays use is good, so sampling on would only cost
 * wake-ups.
 */
bool
ivwl_clock_asker_settled(const struct ivwl_clock_asker *c, int64_t since,
			 int64_t horizon_ns);

/*
 * The display rang IVWL_DOORBELL_CLOCK: take its answer, estimate and
 * publish.  Returns the estimator's verdict, or -1 when there was no
 * answer to an outstanding request.
 */
int
ivwl_clock_heard(struct ivwl_clock_asker *c);

/* ---- app side (relays) ------------------------------------------------- */

struct ivwl_clock_view {
	uint32_t display_clock_id;
	uint32_t display_epoch;
	uint32_t app_clock_id;
	struct ivwl_clock_map map;
	int64_t expires;
};

/*
 * A consistent copy of the published estimate; false when there is none,
 * or it was measured with another display instance than the one there.
 */
bool
ivwl_clock_view_read(void *base, struct ivwl_clock_view *view);

/*
 * App time of display time d (ns) if the published estimate is fresh at
 * app time now and bounds it within IVWL_CLOCK_TRUST_NS; else false.
 */
bool
ivwl_clock_view_translate(const struct ivwl_clock_view *view, int64_t now,
			  int64_t d, int64_t *app, int64_t *err);

/* The other way: display time of app time a (ns), on the same terms. */
bool
ivwl_clock_view_untranslate(const struct ivwl_clock_view *view, int64_t now,
			    int64_t a, int64_t *d, int64_t *err);

/*
 * IVWL_TEST_CLOCK_OFFSET_NS: what tests add to the app side's clock to
 * fake an app-VM whose clock runs apart from the display's; 0 unset.
 */
int64_t
ivwl_clock_test_offset(void);

#endif
