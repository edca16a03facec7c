/* SPDX-License-Identifier: MIT */
/*
 * The clock link in one process: agent and display halves on one header
 * page, the relay's translation of presentation events, and garbage
 * where either side's words should be.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock-link.h"
#include "harness.h"
#include "ivwl-protocols.h"
#include "relay-time.h"
#include "shm-access.h"

#define NS_PER_S 1000000000ll

static void *
new_region(void)
{
	void *base = aligned_alloc(IVWL_PAGE_SIZE, IVWL_PAGE_SIZE);

	REQUIRE(base);
	memset(base, 0, IVWL_PAGE_SIZE);
	ivwl_region_side(base, IVWL_SIDE_DISPLAY)->state = IVWL_SIDE_READY;
	return base;
}

static int64_t
now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

/* One whole round trip, past the display's rate limit. */
static int
round_trip(struct ivwl_clock_asker *c, struct ivwl_clock_answerer *a)
{
	usleep(IVWL_CLOCK_ANSWER_MIN_NS / 1000 + 500);
	c->next_at = 0;
	ivwl_doorbell_take(c->base, IVWL_SIDE_DISPLAY);
	if (!ivwl_clock_ask(c))
		return -2;
	CHECK(ivwl_doorbell_take(c->base, IVWL_SIDE_DISPLAY) &
	      IVWL_DOORBELL_CLOCK);
	if (!ivwl_clock_answer(a, c->base))
		return -3;
	return ivwl_clock_heard(c);
}

static void
estimate(void *base, struct ivwl_clock_asker *c, int n)
{
	struct ivwl_clock_answerer a;
	int i;

	ivwl_clock_answerer_init(&a, CLOCK_MONOTONIC);
	ivwl_clock_asker_init(c, base);
	for (i = 0; i < n; i++)
		REQUIRE(round_trip(c, &a) != IVWL_CLOCK_REJECTED);
}

static void
test_round_trips_map_the_clock(void)
{
	void *base = new_region();
	struct ivwl_clock_asker c;
	struct ivwl_clock_view view;
	int64_t before, app, err, after;

	estimate(base, &c, 8);
	CHECK_EQ(c.est.accepted, 8);
	REQUIRE(ivwl_clock_view_read(base, &view));
	CHECK_EQ(view.display_clock_id, CLOCK_MONOTONIC);
	CHECK_EQ(view.app_clock_id, CLOCK_MONOTONIC);
	/* Same clock both sides: the translation is the identity. */
	before = now_ns(CLOCK_MONOTONIC);
	REQUIRE(ivwl_clock_view_translate(&view, before, before, &app, &err));
	after = now_ns(CLOCK_MONOTONIC);
	CHECK(app >= before - err && app <= before + err);
	CHECK(err <= IVWL_CLOCK_TRUST_NS);
	/* Stale: refused. */
	CHECK(!ivwl_clock_view_translate(&view, view.expires + 1, after, &app,
					 &err));
	free(base);
}

static void
test_answers_are_rate_limited(void)
{
	void *base = new_region();
	struct ivwl_clock_answerer a;

	ivwl_clock_answerer_init(&a, CLOCK_MONOTONIC);
	ivwl_region_side(base, IVWL_SIDE_APP)->clock.seq = 77;
	CHECK(ivwl_clock_answer(&a, base));
	CHECK(!ivwl_clock_answer(&a, base));
	CHECK_EQ(a.answered, 1);
	CHECK_EQ(a.refused, 1);
	CHECK_EQ(ivwl_region_side(base, IVWL_SIDE_DISPLAY)->clock.seq, 77);
	free(base);
}

static void
test_unasked_and_stale_answers(void)
{
	void *base = new_region();
	struct ivwl_clock_answerer a;
	struct ivwl_clock_asker c;
	struct ivwl_side_block *d = ivwl_region_side(base, IVWL_SIDE_DISPLAY);

	ivwl_clock_answerer_init(&a, CLOCK_MONOTONIC);
	ivwl_clock_asker_init(&c, base);
	CHECK_EQ(ivwl_clock_heard(&c), -1);
	REQUIRE(ivwl_clock_ask(&c));
	/* An answer to another request is not one. */
	d->clock.seq = c.seq + 5;
	CHECK_EQ(ivwl_clock_heard(&c), -1);
	REQUIRE(ivwl_clock_answer(&a, base));
	CHECK_EQ(ivwl_clock_heard(&c), IVWL_CLOCK_ACCEPTED);
	/* The same answer twice: the request is no longer outstanding. */
	CHECK_EQ(ivwl_clock_heard(&c), -1);
	/* Display gone: nothing asked, no timeout to wait for. */
	d->state = IVWL_SIDE_GONE;
	c.next_at = 0;
	CHECK(!ivwl_clock_ask(&c));
	CHECK_EQ(ivwl_clock_ask_timeout_ms(&c), -1);
	free(base);
}

static void
test_new_display_epoch_restarts(void)
{
	void *base = new_region();
	struct ivwl_clock_answerer a;
	struct ivwl_clock_asker c;
	struct ivwl_clock_view view;

	estimate(base, &c, 5);
	CHECK_EQ(c.est.count, 5);
	CHECK(ivwl_clock_view_read(base, &view));
	ivwl_region_side(base, IVWL_SIDE_DISPLAY)->epoch++;
	/* Relays stop using it at once; the agent asks again at once. */
	CHECK(!ivwl_clock_view_read(base, &view));
	c.next_at = INT64_MAX;
	ivwl_clock_answerer_init(&a, CLOCK_MONOTONIC);
	usleep(IVWL_CLOCK_ANSWER_MIN_NS / 1000 + 500);
	REQUIRE(ivwl_clock_ask(&c));
	REQUIRE(ivwl_clock_answer(&a, base));
	CHECK(ivwl_clock_heard(&c) >= 0);
	CHECK_EQ(c.est.count, 1);
	CHECK(ivwl_clock_view_read(base, &view));
	/* Another clock id: the same. */
	estimate(base, &c, 3);
	ivwl_clock_answerer_init(&a, CLOCK_MONOTONIC_RAW);
	CHECK(round_trip(&c, &a) >= 0);
	CHECK_EQ(c.est.count, 1);
	CHECK_EQ(c.display_clock, CLOCK_MONOTONIC_RAW);
	free(base);
}

static void
scribble(void *base, unsigned int *seed, uint32_t from, uint32_t len)
{
	uint8_t *p = (uint8_t *)base + from;
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)rand_r(seed);
}

static void
test_survives_garbage(void)
{
	void *base = new_region();
	struct ivwl_clock_answerer a;
	struct ivwl_clock_asker c;
	struct ivwl_clock_view view;
	unsigned int seed = 42;
	int64_t app, err;
	int i;

	ivwl_clock_answerer_init(&a, CLOCK_MONOTONIC);
	ivwl_clock_asker_init(&c, base);
	for (i = 0; i < 2000; i++) {
		/* Either side's block, then the other half runs on it. */
		scribble(base, &seed, i % 2 ? 0x100 : 0x200, 256);
		ivwl_region_side(base, IVWL_SIDE_DISPLAY)->state =
			IVWL_SIDE_READY;
		c.next_at = 0;
		c.asked_at = i % 3 ? c.asked_at : 0;
		ivwl_clock_ask(&c);
		a.last_ns = -IVWL_CLOCK_ANSWER_MIN_NS;
		if (i % 4)
			ivwl_clock_answer(&a, base);
		if (i % 5 == 0)
			ivwl_region_side(base, IVWL_SIDE_DISPLAY)->clock.seq =
				c.seq;
		ivwl_clock_heard(&c);
		if (ivwl_clock_view_read(base, &view) &&
		    ivwl_clock_view_translate(&view, now_ns(CLOCK_MONOTONIC),
					      (int64_t)rand_r(&seed) << 20,
					      &app, &err))
			CHECK(err >= 0 && err <= IVWL_CLOCK_TRUST_NS);
	}
	/* Torn for ever (odd seq): no view. */
	ivwl_region_side(base, IVWL_SIDE_APP)->estimate.seq = 3;
	CHECK(!ivwl_clock_view_read(base, &view));
	free(base);
}

/* ---- the relay's translation ------------------------------------------ */

struct event {
	uint8_t bytes[64];
	struct ivwl_wire_msg msg;
};

/* A message m of nuints 'u' arguments (and a string at index 1 if given). */
static void
message(struct event *e, const struct ivwl_interface *iface,
	const struct ivwl_message *m, uint16_t opcode, const uint32_t *u,
	uint32_t nu, const char *s)
{
	uint32_t off = IVWL_WIRE_HEADER_SIZE, i, len;

	memset(e, 0, sizeof(*e));
	e->msg.object = 5;
	e->msg.opcode = opcode;
	e->msg.iface = iface;
	e->msg.message = m;
	for (i = 0; i < nu + (s ? 1 : 0); i++) {
		struct ivwl_wire_arg *arg = &e->msg.args[i];

		if (s && i == 1) {
			len = (uint32_t)strlen(s) + 1;
			arg->type = 's';
			arg->offset = (uint16_t)off;
			arg->value = len;
			memcpy(e->bytes + off, &len, 4);
			memcpy(e->bytes + off + 4, s, len);
			arg->data = e->bytes + off + 4;
			arg->len = len;
			off += 4 + ((len + 3) & ~3u);
			continue;
		}
		arg->type = 'u';
		arg->offset = (uint16_t)off;
		arg->value = u[i > 1 && s ? i - 1 : i];
		memcpy(e->bytes + off, &arg->value, 4);
		off += 4;
	}
	e->msg.nargs = (uint8_t)i;
	e->msg.size = (uint16_t)off;
	memcpy(e->bytes, &e->msg.object, 4);
	i = off << 16 | opcode;
	memcpy(e->bytes + 4, &i, 4);
}

static void
event(struct event *e, const struct ivwl_interface *iface, uint16_t opcode,
      const uint32_t *u, uint32_t nu, const char *s)
{
	message(e, iface, &iface->events[opcode], opcode, u, nu, s);
}

static uint32_t
word(const uint8_t *p, uint32_t i)
{
	uint32_t v;

	memcpy(&v, p + 4 * i, 4);
	return v;
}

static void
presented_at(struct event *e, int64_t t)
{
	uint32_t u[7] = {
		(uint32_t)((uint64_t)(t / NS_PER_S) >> 32),
		(uint32_t)(t / NS_PER_S), (uint32_t)(t % NS_PER_S),
		16666666, 0, 9, 0,
	};

	event(e, &ivwl_iface_wp_presentation_feedback,
	      IVWL_EVT_WP_PRESENTATION_FEEDBACK_PRESENTED, u, 7, NULL);
}

/* wl_registry.global of iface (name 7, version 1). */
static void
global(struct event *e, const char *iface)
{
	uint32_t u[2] = { 7, 1 };

	event(e, &ivwl_iface_wl_registry, IVWL_EVT_WL_REGISTRY_GLOBAL, u, 2,
	      iface);
}

/* The relay as IVWL_CLOCK_TRANSLATE=off makes it. */
static void
init_untranslated(struct ivwl_relay_time *rt, void *base)
{
	setenv("IVWL_CLOCK_TRANSLATE", "off", 1);
	ivwl_relay_time_init(rt, base, -1);
	unsetenv("IVWL_CLOCK_TRANSLATE");
}

static void
test_relay_without_estimate(void)
{
	void *base = new_region();
	struct ivwl_relay_time rt;
	struct event e;
	uint8_t out[64];

	ivwl_relay_time_init(&rt, base, -1);
	global(&e, "wl_compositor");
	CHECK_EQ(ivwl_relay_time_event(&rt, &e.msg, e.bytes, out), e.msg.size);
	CHECK(memcmp(out, e.bytes, e.msg.size) == 0);
	/* No estimate (it waits 3 s for one): hidden. */
	global(&e, "wp_presentation");
	CHECK_EQ(ivwl_relay_time_event(&rt, &e.msg, e.bytes, out), 0);
	CHECK_EQ(rt.hidden, 1);
	/* A presented time it cannot translate becomes discarded. */
	presented_at(&e, 1000 * NS_PER_S);
	CHECK_EQ(ivwl_relay_time_event(&rt, &e.msg, e.bytes, out),
		 IVWL_WIRE_HEADER_SIZE);
	CHECK_EQ(word(out, 0), 5);
	CHECK_EQ(word(out, 1), IVWL_WIRE_HEADER_SIZE << 16 |
		 IVWL_EVT_WP_PRESENTATION_FEEDBACK_DISCARDED);
	CHECK_EQ(rt.discarded, 1);
	free(base);
}

/* Input times are in a clock the link does not measure: never shown. */
static void
test_relay_hides_input_timestamps(void)
{
	void *base = new_region();
	struct ivwl_relay_time rt;
	struct event e;
	uint8_t out[64];

	ivwl_relay_time_init(&rt, base, -1);
	global(&e, "zwp_input_timestamps_manager_v1");
	CHECK_EQ(ivwl_relay_time_event(&rt, &e.msg, e.bytes, out), 0);
	CHECK_EQ(rt.hidden, 1);

	/* Turned off: passed on like any other global. */
	init_untranslated(&rt, base);
	CHECK_EQ(ivwl_relay_time_event(&rt, &e.msg, e.bytes, out), e.msg.size);
	CHECK(memcmp(out, e.bytes, e.msg.size) == 0);
	CHECK_EQ(rt.hidden, 0);
	free(base);
}

static void
test_relay_translates(void)
{
	void *base = new_region();
	struct ivwl_clock_asker c;
	struct ivwl_clock_view view;
	struct ivwl_relay_time rt;
	struct event e;
	uint8_t out[64];
	uint32_t id = CLOCK_MONOTONIC_RAW;
	int64_t d, app, err, got;

	/* The display's clock is RAW here, the app's MONOTONIC. */
	ivwl_clock_asker_init(&c, base);
	{
		struct ivwl_clock_answerer a;
		int i;

		ivwl_clock_answerer_init(&a, CLOCK_MONOTONIC_RAW);
		for (i = 0; i < 8; i++)
			REQUIRE(round_trip(&c, &a) >= 0);
	}
	ivwl_relay_time_init(&rt, base, -1);
	event(&e, &ivwl_iface_wp_presentation,
	      IVWL_EVT_WP_PRESENTATION_CLOCK_ID, &id, 1, NULL);
	CHECK_EQ(ivwl_relay_time_event(&rt, &e.msg, e.bytes, out), e.msg.size);
	CHECK_EQ(word(out, 2), CLOCK_MONOTONIC);

	d = now_ns(CLOCK_MONOTONIC_RAW);
	presented_at(&e, d);
	REQUIRE(ivwl_clock_view_read(base, &view));
	REQUIRE(ivwl_clock_view_translate(&view, now_ns(CLOCK_MONOTONIC), d,
					  &app, &err));
	CHECK_EQ(ivwl_relay_time_event(&rt, &e.msg, e.bytes, out), e.msg.size);
	got = ((int64_t)word(out, 2) << 32 | word(out, 3)) * NS_PER_S +
	      word(out, 4);
	CHECK_EQ(got, app);
	/* refresh, sequence and flags untouched */
	CHECK(memcmp(out + 20, e.bytes + 20, 16) == 0);
	CHECK_EQ(rt.translated, 1);

	/* Off by more than a quarter of the refresh period: discarded, even
	 * within IVWL_CLOCK_TRUST_NS (a 4 ns refresh allows 1 ns). */
	CHECK(err > 1);
	presented_at(&e, d);
	e.msg.args[3].value = 4;
	memcpy(e.bytes + e.msg.args[3].offset, &e.msg.args[3].value, 4);
	CHECK_EQ(ivwl_relay_time_event(&rt, &e.msg, e.bytes, out),
		 IVWL_WIRE_HEADER_SIZE);
	CHECK_EQ(rt.discarded, 1);

	/* Absurd times are not translated: discarded. */
	presented_at(&e, 0);
	((uint32_t *)(void *)e.bytes)[2] = 0xffffffffu;
	e.msg.args[0].value = 0xffffffffu;
	CHECK_EQ(ivwl_relay_time_event(&rt, &e.msg, e.bytes, out),
		 IVWL_WIRE_HEADER_SIZE);

	/* Turned off: untouched. */
	init_untranslated(&rt, base);
	presented_at(&e, d);
	CHECK_EQ(ivwl_relay_time_event(&rt, &e.msg, e.bytes, out), e.msg.size);
	CHECK(memcmp(out, e.bytes, e.msg.size) == 0);
	free(base);
}

#ifdef IVWL_HAVE_WP_COMMIT_TIMER_V1
/* wp_commit_timer_v1.set_timestamp(t) */
static void
set_timestamp_at(struct event *e, int64_t t, uint32_t nsec)
{
	uint32_t u[3] = {
		(uint32_t)((uint64_t)(t / NS_PER_S) >> 32),
		(uint32_t)(t / NS_PER_S), nsec,
	};

	message(e, &ivwl_iface_wp_commit_timer_v1,
		&ivwl_iface_wp_commit_timer_v1.requests[
			IVWL_REQ_WP_COMMIT_TIMER_V1_SET_TIMESTAMP],
		IVWL_REQ_WP_COMMIT_TIMER_V1_SET_TIMESTAMP, u, 3, NULL);
}

/* The app's time of a commit goes to the display in the display's clock. */
static void
test_relay_translates_set_timestamp(void)
{
	void *base = new_region();
	struct ivwl_clock_answerer a;
	struct ivwl_clock_asker c;
	struct ivwl_clock_view view;
	struct ivwl_relay_time rt;
	struct event e, before;
	int64_t t, d, err, got;
	uint8_t out[64];
	int i;

	/* No estimate: the global hidden, a time dropped. */
	ivwl_relay_time_init(&rt, base, -1);
	global(&e, "wp_commit_timing_manager_v1");
	CHECK_EQ(ivwl_relay_time_event(&rt, &e.msg, e.bytes, out), 0);
	t = now_ns(CLOCK_MONOTONIC) + 50000000;
	set_timestamp_at(&e, t, (uint32_t)(t % NS_PER_S));
	CHECK(!ivwl_relay_time_request(&rt, &e.msg, e.bytes));
	CHECK_EQ(rt.requests_dropped, 1);

	/* The display's clock is RAW here, the app's MONOTONIC. */
	ivwl_clock_asker_init(&c, base);
	ivwl_clock_answerer_init(&a, CLOCK_MONOTONIC_RAW);
	for (i = 0; i < 8; i++)
		REQUIRE(round_trip(&c, &a) >= 0);
	ivwl_relay_time_init(&rt, base, -1);
	REQUIRE(ivwl_clock_view_read(base, &view));
	REQUIRE(ivwl_clock_view_untranslate(&view, now_ns(CLOCK_MONOTONIC), t,
					    &d, &err));
	set_timestamp_at(&e, t, (uint32_t)(t % NS_PER_S));
	CHECK(ivwl_relay_time_request(&rt, &e.msg, e.bytes));
	got = ((int64_t)word(e.bytes, 2) << 32 | word(e.bytes, 3)) * NS_PER_S +
	      word(e.bytes, 4);
	CHECK_EQ(got, d);
	CHECK_EQ(rt.requests_translated, 1);
	/* and back again, within the bound */
	CHECK(ivwl_clock_map_apply(&view.map, got, &err) - t <= err + 1);
	CHECK(t - ivwl_clock_map_apply(&view.map, got, &err) <= err + 1);

	/* A tv_nsec of a second: as it came, for the firewall to refuse. */
	set_timestamp_at(&e, t, 1000000000u);
	before = e;
	CHECK(ivwl_relay_time_request(&rt, &e.msg, e.bytes));
	CHECK(memcmp(before.bytes, e.bytes, e.msg.size) == 0);

	/* Turned off: untouched. */
	init_untranslated(&rt, base);
	set_timestamp_at(&e, t, (uint32_t)(t % NS_PER_S));
	before = e;
	CHECK(ivwl_relay_time_request(&rt, &e.msg, e.bytes));
	CHECK(memcmp(before.bytes, e.bytes, e.msg.size) == 0);
	free(base);
}
#endif

/*
 * A burst ends once an answer of its own leaves an estimate good for a
 * while: not before an answer came, not while the drift is unmeasured.
 */
static void
test_settled_needs_fresh_answers_and_drift(void)
{
	void *base = new_region();
	struct ivwl_clock_answerer a;
	struct ivwl_clock_asker c;
	int64_t horizon = 2 * NS_PER_S;
	int i;

	ivwl_clock_asker_init(&c, base);
	CHECK(!ivwl_clock_asker_settled(&c, 0, 0));
	estimate(base, &c, 8);
	CHECK(ivwl_clock_asker_settled(&c, 0, 0));
	CHECK(!ivwl_clock_asker_settled(&c, c.accepted_at + 1, 0));
	/* 8 samples in 20 ms: drift unknown, the bound grows 1 ms/s */
	CHECK(!ivwl_clock_asker_settled(&c, 0, horizon));
	usleep(1100 * 1000);
	ivwl_clock_answerer_init(&a, CLOCK_MONOTONIC);
	for (i = 0; i < 8; i++)
		REQUIRE(round_trip(&c, &a) != IVWL_CLOCK_REJECTED);
	CHECK(ivwl_clock_asker_settled(&c, 0, horizon));
	/* Another display instance: what we had is not its estimate. */
	ivwl_region_side(base, IVWL_SIDE_DISPLAY)->epoch++;
	CHECK(!ivwl_clock_asker_settled(&c, 0, 0));
	free(base);
}

/* wayland-protocols 1.38 and later have commit-timing (its descriptor) */
#ifdef IVWL_HAVE_WP_COMMIT_TIMER_V1
#define COMMIT_TIMING_TESTS TEST(test_relay_translates_set_timestamp),
#else
#define COMMIT_TIMING_TESTS
#endif

IVWL_TEST_MAIN(
	TEST(test_round_trips_map_the_clock),
	TEST(test_answers_are_rate_limited),
	TEST(test_unasked_and_stale_answers),
	TEST(test_new_display_epoch_restarts),
	TEST(test_survives_garbage),
	TEST(test_relay_without_estimate),
	TEST(test_relay_hides_input_timestamps),
	TEST(test_relay_translates),
	COMMIT_TIMING_TESTS
	TEST(test_settled_needs_fresh_answers_and_drift),
)
