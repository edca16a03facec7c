/* SPDX-License-Identifier: MIT */
/*
 * Times the display sends, put into the app's clock (docs/architecture.md,
 * "Time across VMs"): wp_presentation_feedback.presented through the
 * agent's clock estimate, wp_presentation.clock_id naming the app clock
 * it maps to; and the one time an app sends, wp_commit_timer_v1's, into
 * the display's.  Where the estimate cannot be trusted, wp_presentation
 * and wp_commit_timing_manager_v1 are hidden, a presented time becomes
 * discarded and a set_timestamp is dropped: a wrong time is never passed
 * on.
 */
#ifndef IVWL_RELAY_TIME_H
#define IVWL_RELAY_TIME_H

#include <stdbool.h>
#include <stdint.h>

#include "clock-link.h"
#include "wire.h"

struct ivwl_relay_time {
	void *base;
	int agent_fd;		/* to ask for the clock link, or -1 */
	int64_t wanted_at;	/* CLOCK_MONOTONIC ns of the last ask */
	bool translate;		/* IVWL_CLOCK_TRANSLATE is not "off" */
	int64_t test_offset;	/* IVWL_TEST_CLOCK_OFFSET_NS */
	uint32_t display_clock;	/* as the display's clock_id said */
	bool have_display_clock;
	bool said_untrusted;
	bool said_untrusted_request;
	uint64_t translated, discarded, hidden;
	uint64_t requests_translated, requests_dropped;
	uint32_t commits_batched;	/* not yet in the ring: frame trace */
	int64_t worst_err;
};

void
ivwl_relay_time_init(struct ivwl_relay_time *rt, void *base, int agent_fd);

/*
 * One event, decoded: writes what the client gets instead to out (at
 * most msg->size bytes) and returns its size, 0 to drop it.
 */
uint32_t
ivwl_relay_time_event(struct ivwl_relay_time *rt,
		      const struct ivwl_wire_msg *msg, const uint8_t *bytes,
		      uint8_t *out);

/*
 * One request, decoded, before it goes: its time put in the display's
 * clock in bytes (the request's own), or false to drop it.  Counts the
 * frame trace's commits too (then ivwl_relay_time_flushed).
 */
bool
ivwl_relay_time_request(struct ivwl_relay_time *rt,
			const struct ivwl_wire_msg *msg, uint8_t *bytes);
void
ivwl_relay_time_flushed(struct ivwl_relay_time *rt, uint64_t connection);

/* One thing the relay does with times (relay-time.c). */
enum ivwl_relay_time_kind {
	IVWL_RELAY_TIME_GLOBAL,	/* the global may be hidden */
	IVWL_RELAY_TIME_EVENT,	/* the event's times are put in ours */
	IVWL_RELAY_TIME_REQUEST,	/* the request's in the display's */
};

struct ivwl_relay_time_rule {
	const struct ivwl_interface *iface;
	enum ivwl_relay_time_kind kind;
	uint16_t opcode;	/* the event's or request's */
	/* true: hide the global from the client */
	bool (*global)(struct ivwl_relay_time *rt, const char *name);
	/* the event's new size (out holds its bytes) */
	uint32_t (*event)(struct ivwl_relay_time *rt,
			  const struct ivwl_wire_msg *msg, uint8_t *out);
	/* false: drop the request (bytes are its own, to rewrite) */
	bool (*request)(struct ivwl_relay_time *rt,
			const struct ivwl_wire_msg *msg, uint8_t *bytes);
};

extern const struct ivwl_relay_time_rule ivwl_relay_time_rules[];
extern const size_t ivwl_relay_time_rule_count;

#endif
