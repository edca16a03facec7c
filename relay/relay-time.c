/* SPDX-License-Identifier: MIT */
/*
 * The relay's translation of the display's times (relay-time.h).  The
 * agent estimates; this reads the estimate from the region, which costs
 * a few loads per event and no syscall but the clock read.
 */
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent-client.h"
#include "frame-trace.h"
#include "log.h"
#include "ivwl-protocols.h"
#include "mono-time.h"
#include "relay-time.h"

#define NS_PER_S 1000000000ll
/*
 * The agent's first estimate takes a few round trips; on a machine so
 * loaded that they stretch to milliseconds (dozens of VMs starting at
 * once), a trustworthy one can take seconds.  Hiding wp_presentation is
 * for the client's whole life, so its start waits this long first.
 */
#define FIRST_ESTIMATE_WAIT_MS 3000
#define FIRST_ESTIMATE_POLL_MS 10

void
ivwl_relay_time_init(struct ivwl_relay_time *rt, void *base, int agent_fd)
{
	const char *tr = getenv("IVWL_CLOCK_TRANSLATE");

	memset(rt, 0, sizeof(*rt));
	rt->base = base;
	rt->agent_fd = agent_fd;
	rt->translate = !(tr && strcmp(tr, "off") == 0);
	rt->test_offset = ivwl_clock_test_offset();
}

static int64_t
app_now(const struct ivwl_relay_time *rt, clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec + rt->test_offset;
}

/*
 * The agent samples the display's clock only in bursts (agent-proto.h):
 * ask when a client binds wp_presentation and there is no estimate, and
 * when the one we use is WANT_AFTER_NS old or its bound has grown past
 * IVWL_CLOCK_GOOD_NS, at most once a second.
 */
#define WANT_AFTER_NS 20000000000ll

static void
want_clock(struct ivwl_relay_time *rt, const struct ivwl_clock_view *view)
{
	int64_t now;

	if (rt->agent_fd < 0)
		return;
	now = ivwl_now_ns();
	if (rt->wanted_at && now - rt->wanted_at < NS_PER_S)
		return;
	if (view && view->expires) {
		int64_t age = app_now(rt, view->app_clock_id) -
			      (view->expires - IVWL_CLOCK_STALE_NS);
		int64_t bound = view->map.err_ns +
				view->map.growth_ppb * (age / 1000) / 1000000;

		if (age < WANT_AFTER_NS && bound < IVWL_CLOCK_GOOD_NS)
			return;
	}
	rt->wanted_at = now;
	/* Without it the estimate ages and times turn discarded, said. */
	if (ivwl_agent_clock_wanted(rt->agent_fd) < 0)
		ivwl_log("cannot ask the agent for the clock link");
}

/* The published estimate, if it is of the clock clock_id named. */
static bool
read_view(struct ivwl_relay_time *rt, struct ivwl_clock_view *view)
{
	if (!ivwl_clock_view_read(rt->base, view))
		return false;
	return !rt->have_display_clock ||
	       view->display_clock_id == rt->display_clock;
}

/* App time of display time d, if the estimate can be trusted now. */
static bool
translate(struct ivwl_relay_time *rt, int64_t d, int64_t *app, int64_t *err,
	  struct ivwl_clock_view *view)
{
	*err = -1;
	return read_view(rt, view) &&
	       ivwl_clock_view_translate(view, app_now(rt, view->app_clock_id),
					 d, app, err);
}

/* The time of three words (tv_sec_hi, tv_sec_lo, tv_nsec), ns; false
 * for none we can hold. */
static bool
get_time(uint32_t sec_hi, uint32_t sec_lo, uint32_t nsec, int64_t *t)
{
	uint64_t sec = (uint64_t)sec_hi << 32 | sec_lo;

	if (nsec >= NS_PER_S || sec >= (uint64_t)(INT64_MAX / 4 / NS_PER_S))
		return false;
	*t = (int64_t)sec * NS_PER_S + nsec;
	return true;
}

/* Time t (ns, not negative) in three words. */
static void
put_time(int64_t t, uint32_t *sec_hi, uint32_t *sec_lo, uint32_t *nsec)
{
	*sec_hi = (uint32_t)((uint64_t)(t / NS_PER_S) >> 32);
	*sec_lo = (uint32_t)(t / NS_PER_S);
	*nsec = (uint32_t)(t % NS_PER_S);
}

static bool
trusted_soon(struct ivwl_relay_time *rt, struct ivwl_clock_view *view)
{
	int64_t app, err;
	int waited;

	memset(view, 0, sizeof(*view));
	for (waited = 0; waited < FIRST_ESTIMATE_WAIT_MS;
	     waited += FIRST_ESTIMATE_POLL_MS) {
		if (ivwl_clock_view_read(rt->base, view) &&
		    translate(rt, view->map.ref_display, &app, &err, view))
			return true;
		poll(NULL, 0, FIRST_ESTIMATE_POLL_MS);
	}
	return false;
}

/*
 * zwp_input_timestamps_v1 gives input times as absolute timespecs in
 * the clock of the display's input backend (libinput's
 * CLOCK_MONOTONIC, weston's test and X11 backends CLOCK_REALTIME),
 * which the display does not name and the clock link does not measure:
 * there is no trustworthy mapping, so the client never sees the global.
 */
static bool
hide_input_timestamps(struct ivwl_relay_time *rt, const char *name)
{
	rt->hidden++;
	ivwl_log("hiding %s from the client: the display's input clock is "
		 "not measured, so its times cannot be put in ours", name);
	return true;
}

/* wp_presentation: hidden until its times can be put in ours. */
static bool
presentation_global(struct ivwl_relay_time *rt, const char *name)
{
	struct ivwl_clock_view view;

	want_clock(rt, ivwl_clock_view_read(rt->base, &view) ? &view : NULL);
	if (trusted_soon(rt, &view))
		return false;
	rt->hidden++;
	ivwl_log("hiding %s from the client: no trustworthy mapping of the "
		 "display's clock to ours (bound %lld ns)",
		 name, view.expires ? (long long)view.map.err_ns : -1ll);
	return true;
}

static uint32_t
clock_id(struct ivwl_relay_time *rt, const struct ivwl_wire_msg *msg,
	 uint8_t *out)
{
	struct ivwl_evt_wp_presentation_clock_id args;
	struct ivwl_clock_view view;

	ivwl_evt_wp_presentation_clock_id_decode(msg, &args);
	rt->display_clock = args.clk_id;
	rt->have_display_clock = true;
	/* Until an estimate exists, CLOCK_MONOTONIC is what it will map to. */
	args.clk_id = ivwl_clock_view_read(rt->base, &view) ?
		      view.app_clock_id : CLOCK_MONOTONIC;
	ivwl_evt_wp_presentation_clock_id_rewrite(msg, out, &args);
	return msg->size;
}

static uint32_t
presented(struct ivwl_relay_time *rt, const struct ivwl_wire_msg *msg,
	  uint8_t *out)
{
	struct ivwl_evt_wp_presentation_feedback_presented args;
	struct ivwl_clock_view view;
	int64_t d, app, err = -1;
	bool ok;

	ivwl_evt_wp_presentation_feedback_presented_decode(msg, &args);
	ok = get_time(args.tv_sec_hi, args.tv_sec_lo, args.tv_nsec, &d) &&
	     translate(rt, d, &app, &err, &view) &&
	     (args.refresh == 0 || err <= args.refresh / 4);

	want_clock(rt, ok ? &view : NULL);
	if (ok) {
		put_time(app, &args.tv_sec_hi, &args.tv_sec_lo, &args.tv_nsec);
		ivwl_evt_wp_presentation_feedback_presented_rewrite(msg, out,
								    &args);
		rt->translated++;
		if (err > rt->worst_err)
			rt->worst_err = err;
		return msg->size;
	}
	/* The frame was shown, but when in our clock we cannot say. */
	rt->discarded++;
	if (!rt->said_untrusted)
		ivwl_log("%s: no trustworthy mapping of the display's clock "
		    "(bound %lld ns); sending discarded instead",
		    "wp_presentation_feedback.presented", (long long)err);
	rt->said_untrusted = true;
	return (uint32_t)ivwl_wire_write_msg(out, msg->size, msg->object,
		IVWL_MSG_EVT_WP_PRESENTATION_FEEDBACK_DISCARDED);
}

#ifdef IVWL_HAVE_WP_COMMIT_TIMER_V1 /* wayland-protocols 1.38 */
/* Display time of app time a, on the same terms. */
static bool
untranslate(struct ivwl_relay_time *rt, int64_t a, int64_t *d, int64_t *err,
	    struct ivwl_clock_view *view)
{
	*err = -1;
	return read_view(rt, view) &&
	       ivwl_clock_view_untranslate(view,
					   app_now(rt, view->app_clock_id), a,
					   d, err);
}

/*
 * wp_commit_timer_v1.set_timestamp: the app's time of its next commit,
 * in the display's clock.  Without a trustworthy mapping the request is
 * dropped: the commit is shown when it comes, as without commit-timing,
 * rather than at a time that may be seconds off.  A tv_nsec out of range
 * goes as it came, for the display to refuse (invalid_timestamp).
 */
static bool
set_timestamp(struct ivwl_relay_time *rt, const struct ivwl_wire_msg *msg,
	      uint8_t *bytes)
{
	struct ivwl_req_wp_commit_timer_v1_set_timestamp args;
	struct ivwl_clock_view view;
	int64_t a, d, err = -1;
	bool ok;

	ivwl_req_wp_commit_timer_v1_set_timestamp_decode(msg, &args);
	if (args.tv_nsec >= NS_PER_S)
		return true;
	ok = get_time(args.tv_sec_hi, args.tv_sec_lo, args.tv_nsec, &a) &&
	     untranslate(rt, a, &d, &err, &view);
	want_clock(rt, ok ? &view : NULL);
	if (ok) {
		put_time(d, &args.tv_sec_hi, &args.tv_sec_lo, &args.tv_nsec);
		ivwl_req_wp_commit_timer_v1_set_timestamp_rewrite(msg, bytes,
								  &args);
		rt->requests_translated++;
		if (err > rt->worst_err)
			rt->worst_err = err;
		return true;
	}
	rt->requests_dropped++;
	if (!rt->said_untrusted_request)
		ivwl_log("%s: no trustworthy mapping of our clock to the "
			 "display's (bound %lld ns); its commits are shown "
			 "untimed", "wp_commit_timer_v1.set_timestamp",
			 (long long)err);
	rt->said_untrusted_request = true;
	return false;
}
#endif

/*
 * What the relay does with times, by interface: the "time" lists of the
 * descriptors (protocol/wayland/descriptors/), which test-descriptors holds
 * this table to.  A global handler returns non-zero to hide the global.
 */
const struct ivwl_relay_time_rule ivwl_relay_time_rules[] = {
	{ &ivwl_iface_wp_presentation, IVWL_RELAY_TIME_GLOBAL, 0,
	  .global = presentation_global },
	{ &ivwl_iface_zwp_input_timestamps_manager_v1, IVWL_RELAY_TIME_GLOBAL,
	  0, .global = hide_input_timestamps },
	{ &ivwl_iface_wp_presentation, IVWL_RELAY_TIME_EVENT,
	  IVWL_EVT_WP_PRESENTATION_CLOCK_ID, .event = clock_id },
	{ &ivwl_iface_wp_presentation_feedback, IVWL_RELAY_TIME_EVENT,
	  IVWL_EVT_WP_PRESENTATION_FEEDBACK_PRESENTED, .event = presented },
#ifdef IVWL_HAVE_WP_COMMIT_TIMER_V1
	/* wayland-protocols 1.38 and later (its descriptor's since) */
	{ &ivwl_iface_wp_commit_timing_manager_v1, IVWL_RELAY_TIME_GLOBAL, 0,
	  .global = presentation_global },
	{ &ivwl_iface_wp_commit_timer_v1, IVWL_RELAY_TIME_REQUEST,
	  IVWL_REQ_WP_COMMIT_TIMER_V1_SET_TIMESTAMP,
	  .request = set_timestamp },
#endif
};

const size_t ivwl_relay_time_rule_count =
	sizeof(ivwl_relay_time_rules) / sizeof(ivwl_relay_time_rules[0]);

static uint32_t
registry_global(struct ivwl_relay_time *rt, const struct ivwl_wire_msg *msg)
{
	const struct ivwl_relay_time_rule *r;
	struct ivwl_evt_wl_registry_global args;
	const char *name;
	size_t i;

	ivwl_evt_wl_registry_global_decode(msg, &args);
	name = args.interface;

	if (!name)
		return msg->size;
	for (i = 0; i < ivwl_relay_time_rule_count; i++) {
		r = &ivwl_relay_time_rules[i];
		if (r->kind == IVWL_RELAY_TIME_GLOBAL &&
		    strcmp(name, r->iface->name) == 0)
			return r->global(rt, name) ? 0 : msg->size;
	}
	return msg->size;
}

uint32_t
ivwl_relay_time_event(struct ivwl_relay_time *rt,
		      const struct ivwl_wire_msg *msg, const uint8_t *bytes,
		      uint8_t *out)
{
	const struct ivwl_relay_time_rule *r;
	size_t i;

	memcpy(out, bytes, msg->size);
	if (!rt->translate)
		return msg->size;
	if (msg->iface == &ivwl_iface_wl_registry &&
	    msg->opcode == IVWL_EVT_WL_REGISTRY_GLOBAL)
		return registry_global(rt, msg);
	if (!(msg->message->flags & IVWL_MESSAGE_TIMED))
		return msg->size;
	for (i = 0; i < ivwl_relay_time_rule_count; i++) {
		r = &ivwl_relay_time_rules[i];
		if (r->kind == IVWL_RELAY_TIME_EVENT &&
		    r->iface == msg->iface && r->opcode == msg->opcode)
			return r->event(rt, msg, out);
	}
	return msg->size;
}

bool
ivwl_relay_time_request(struct ivwl_relay_time *rt,
			const struct ivwl_wire_msg *msg, uint8_t *bytes)
{
	const struct ivwl_relay_time_rule *r;
	size_t i;

	if (msg->iface == &ivwl_iface_wl_surface &&
	    msg->opcode == IVWL_REQ_WL_SURFACE_COMMIT && ivwl_trace_on())
		rt->commits_batched++;
	if (!rt->translate || !(msg->message->flags & IVWL_MESSAGE_TIMED))
		return true;
	for (i = 0; i < ivwl_relay_time_rule_count; i++) {
		r = &ivwl_relay_time_rules[i];
		if (r->kind == IVWL_RELAY_TIME_REQUEST &&
		    r->iface == msg->iface && r->opcode == msg->opcode)
			return r->request(rt, msg, bytes);
	}
	return true;
}

void
ivwl_relay_time_flushed(struct ivwl_relay_time *rt, uint64_t connection)
{
	for (; rt->commits_batched > 0; rt->commits_batched--)
		ivwl_trace(IVWL_TRACE_COMMIT, connection);
}
