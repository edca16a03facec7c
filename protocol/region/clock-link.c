/* SPDX-License-Identifier: MIT */
/*
 * Both halves of the clock link (clock-link.h).  The display's half reads
 * one word of the app's and writes its own line; the app's half treats
 * the display's answer as data for the estimator, which rejects what
 * cannot be right.
 */
#include <stdlib.h>
#include <string.h>

#include "clock-link.h"
#include "shm-access.h"

#define NS_PER_S 1000000000ll
#define NS_PER_MS 1000000ll
/* Round trips after a (re)start: fast at first, then slower. */
#define FAST_SAMPLES 8u
#define FAST_PERIOD_NS (20 * NS_PER_MS)
#define MEDIUM_PERIOD_NS (250 * NS_PER_MS)
#define SLOW_PERIOD_NS NS_PER_S
#define VIEW_TRIES 16

static int64_t
read_clock(clockid_t clock)
{
	struct timespec ts;

	if (clock_gettime(clock, &ts) < 0)
		return -1;
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

/* ---- display side ---------------------------------------------------- */

void
ivwl_clock_answerer_init(struct ivwl_clock_answerer *a, clockid_t clock)
{
	memset(a, 0, sizeof(*a));
	a->clock = clock;
	a->last_ns = -IVWL_CLOCK_ANSWER_MIN_NS;
}

bool
ivwl_clock_answer(struct ivwl_clock_answerer *a, void *base)
{
	struct ivwl_side_block *app = ivwl_region_side(base, IVWL_SIDE_APP);
	struct ivwl_side_block *own = ivwl_region_side(base, IVWL_SIDE_DISPLAY);
	uint32_t seq;
	int64_t now;

	/* The request first: our reading must come after it was made. */
	seq = ivwl_shm_load_acquire(&app->clock.seq);
	now = read_clock(a->clock);
	if (now < 0 || now - a->last_ns < IVWL_CLOCK_ANSWER_MIN_NS) {
		a->refused++;
		return false;
	}
	a->last_ns = now;
	a->answered++;
	ivwl_shm_store64(&own->clock.t, (uint64_t)now);
	ivwl_shm_store(&own->clock.clock_id, (uint32_t)a->clock);
	ivwl_shm_store_release(&own->clock.seq, seq);
	return true;
}

/* ---- app side (the agent) ---------------------------------------------- */

int64_t
ivwl_clock_test_offset(void)
{
	const char *s = getenv("IVWL_TEST_CLOCK_OFFSET_NS");

	return s ? strtoll(s, NULL, 10) : 0;
}

void
ivwl_clock_asker_init(struct ivwl_clock_asker *c, void *base)
{
	memset(c, 0, sizeof(*c));
	c->base = base;
	c->clock = CLOCK_MONOTONIC;
	c->test_offset = ivwl_clock_test_offset();
	c->best_rtt = INT64_MAX;
}

int64_t
ivwl_clock_asker_now(const struct ivwl_clock_asker *c)
{
	return read_clock(c->clock) + c->test_offset;
}

static struct ivwl_side_block *
side(const struct ivwl_clock_asker *c, enum ivwl_side s)
{
	return ivwl_region_side(c->base, s);
}

static bool
display_ready(const struct ivwl_clock_asker *c)
{
	return ivwl_shm_load_acquire(&side(c, IVWL_SIDE_DISPLAY)->state) ==
	       IVWL_SIDE_READY;
}

static void
publish(struct ivwl_clock_asker *c, int64_t now)
{
	struct ivwl_clock_estimate *e = &side(c, IVWL_SIDE_APP)->estimate;
	struct ivwl_clock_map map;
	bool have = ivwl_clock_est_map(&c->est, &map);
	uint32_t seq = ivwl_shm_load(&e->seq);

	if (!have)
		memset(&map, 0, sizeof(map));
	ivwl_shm_store(&e->seq, seq | 1);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	ivwl_shm_store(&e->display_clock_id, c->display_clock);
	ivwl_shm_store(&e->display_epoch, c->display_epoch);
	ivwl_shm_store(&e->app_clock_id, (uint32_t)c->clock);
	ivwl_shm_store64((uint64_t *)&e->ref_display, (uint64_t)map.ref_display);
	ivwl_shm_store64((uint64_t *)&e->ref_app, (uint64_t)map.ref_app);
	ivwl_shm_store64((uint64_t *)&e->drift_ppb, (uint64_t)map.drift_ppb);
	ivwl_shm_store64((uint64_t *)&e->err_ns, (uint64_t)map.err_ns);
	ivwl_shm_store64((uint64_t *)&e->growth_ppb, (uint64_t)map.growth_ppb);
	ivwl_shm_store64((uint64_t *)&e->expires,
			 have ? (uint64_t)(now + IVWL_CLOCK_STALE_NS) : 0);
	ivwl_shm_store_release(&e->seq, (seq | 1) + 1);
}

static void
restart(struct ivwl_clock_asker *c, int64_t now)
{
	ivwl_clock_est_reset(&c->est);
	c->next_at = now;
	publish(c, now);
}

static int64_t
period(const struct ivwl_clock_asker *c)
{
	if (c->est.count < FAST_SAMPLES)
		return FAST_PERIOD_NS;
	if (c->est.count < IVWL_CLOCK_SAMPLES)
		return MEDIUM_PERIOD_NS;
	return SLOW_PERIOD_NS;
}

bool
ivwl_clock_ask(struct ivwl_clock_asker *c)
{
	struct ivwl_side_block *app = side(c, IVWL_SIDE_APP);
	int64_t now = ivwl_clock_asker_now(c);

	if (!display_ready(c))
		return false;
	/* Another display instance: measure it now, not in a second. */
	if (ivwl_shm_load(&side(c, IVWL_SIDE_DISPLAY)->epoch) !=
	    c->display_epoch && c->est.count > 0)
		c->next_at = now;
	if (c->asked_at) {
		if (now - c->asked_at < IVWL_CLOCK_ANSWER_TIMEOUT_NS)
			return false;
		c->missing++;
		c->asked_at = 0;
	}
	if (now < c->next_at)
		return false;
	c->seq++;
	c->asked_at = now;
	c->next_at = now + period(c);
	ivwl_shm_store64(&app->clock.t, (uint64_t)now);
	ivwl_shm_store_release(&app->clock.seq, c->seq);
	return ivwl_doorbell_post(c->base, IVWL_SIDE_DISPLAY,
				  IVWL_DOORBELL_CLOCK);
}

int
ivwl_clock_ask_timeout_ms(const struct ivwl_clock_asker *c)
{
	int64_t now = ivwl_clock_asker_now(c), at = c->next_at;

	/* It rings our control bit when it comes. */
	if (!display_ready(c))
		return -1;
	if (c->asked_at && c->asked_at + IVWL_CLOCK_ANSWER_TIMEOUT_NS > at)
		at = c->asked_at + IVWL_CLOCK_ANSWER_TIMEOUT_NS;
	if (at <= now)
		return 0;
	return (int)((at - now + NS_PER_MS - 1) / NS_PER_MS);
}

int
ivwl_clock_heard(struct ivwl_clock_asker *c)
{
	struct ivwl_side_block *display = side(c, IVWL_SIDE_DISPLAY);
	struct ivwl_clock_sample s;
	enum ivwl_clock_verdict v;
	uint32_t epoch, clock, seq;
	int64_t now;

	seq = ivwl_shm_load_acquire(&display->clock.seq);
	s.t2 = (int64_t)ivwl_shm_load64(&display->clock.t);
	clock = ivwl_shm_load(&display->clock.clock_id);
	epoch = ivwl_shm_load(&display->epoch);
	now = ivwl_clock_asker_now(c);
	if (!c->asked_at || seq != c->seq)
		return -1;
	s.t1 = c->asked_at;
	s.t3 = now;
	c->asked_at = 0;
	/* Another display instance, or another clock: start again. */
	if (epoch != c->display_epoch || clock != c->display_clock) {
		c->display_epoch = epoch;
		c->display_clock = clock;
		restart(c, now);
	}
	c->last_rtt = s.t3 - s.t1;
	if (c->last_rtt < c->best_rtt)
		c->best_rtt = c->last_rtt;
	v = ivwl_clock_est_add(&c->est, &s);
	if (v != IVWL_CLOCK_REJECTED) {
		c->accepted_at = now;
		publish(c, now);
	}
	return (int)v;
}

bool
ivwl_clock_asker_settled(const struct ivwl_clock_asker *c, int64_t since,
			 int64_t horizon_ns)
{
	struct ivwl_clock_map map;
	int64_t err;

	/* An estimate of the display instance there now, not the last. */
	if (c->accepted_at < since || !c->accepted_at ||
	    c->display_epoch !=
		    ivwl_shm_load(&side(c, IVWL_SIDE_DISPLAY)->epoch) ||
	    !ivwl_clock_est_map(&c->est, &map))
		return false;
	ivwl_clock_map_apply(&map, map.ref_display + horizon_ns, &err);
	return err < IVWL_CLOCK_GOOD_NS;
}

/* ---- app side (relays) ------------------------------------------------- */

bool
ivwl_clock_view_read(void *base, struct ivwl_clock_view *view)
{
	struct ivwl_clock_estimate *e =
		&ivwl_region_side(base, IVWL_SIDE_APP)->estimate;
	uint32_t seq, again;
	int i;

	for (i = 0; i < VIEW_TRIES; i++) {
		seq = ivwl_shm_load_acquire(&e->seq);
		if (seq & 1)
			continue;
		view->display_clock_id = ivwl_shm_load(&e->display_clock_id);
		view->app_clock_id = ivwl_shm_load(&e->app_clock_id);
		view->map.ref_display =
			(int64_t)ivwl_shm_load64((uint64_t *)&e->ref_display);
		view->map.ref_app =
			(int64_t)ivwl_shm_load64((uint64_t *)&e->ref_app);
		view->map.drift_ppb =
			(int64_t)ivwl_shm_load64((uint64_t *)&e->drift_ppb);
		view->map.err_ns =
			(int64_t)ivwl_shm_load64((uint64_t *)&e->err_ns);
		view->map.growth_ppb =
			(int64_t)ivwl_shm_load64((uint64_t *)&e->growth_ppb);
		view->expires = (int64_t)ivwl_shm_load64((uint64_t *)
							 &e->expires);
		view->display_epoch = ivwl_shm_load(&e->display_epoch);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		again = ivwl_shm_load(&e->seq);
		/* Measured with another display instance: none. */
		if (again == seq)
			return view->expires != 0 &&
			       view->display_epoch == ivwl_shm_load(
				       &ivwl_region_side(base, IVWL_SIDE_DISPLAY)
						->epoch);
	}
	return false;
}

bool
ivwl_clock_view_translate(const struct ivwl_clock_view *view, int64_t now,
			  int64_t d, int64_t *app, int64_t *err)
{
	if (view->expires == 0 || now > view->expires || d < 0)
		return false;
	*app = ivwl_clock_map_apply(&view->map, d, err);
	return *err >= 0 && *err <= IVWL_CLOCK_TRUST_NS && *app >= 0;
}

bool
ivwl_clock_view_untranslate(const struct ivwl_clock_view *view, int64_t now,
			    int64_t a, int64_t *d, int64_t *err)
{
	if (view->expires == 0 || now > view->expires || a < 0)
		return false;
	*d = ivwl_clock_map_invert(&view->map, a, err);
	return *err >= 0 && *err <= IVWL_CLOCK_TRUST_NS && *d >= 0;
}
