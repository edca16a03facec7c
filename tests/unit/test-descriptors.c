/* SPDX-License-Identifier: MIT */
/*
 * The protocol descriptors (protocol/wayland/descriptors/) are the one
 * source of what ivwl does with each interface.  The default allow-list and the
 * replayable set are generated from them; the firewall's rule tables and
 * the relay's time handlers are code, and must say the same: a rule the
 * descriptor does not list, or a listed rule the firewall lacks, fails
 * here.
 */
#include <stdio.h>

#include "firewall/firewall.h"
#include "harness.h"
#include "ivwl-protocols.h"
#include "relay-time.h"

static void
test_firewall_rules_match(void)
{
	const struct ivwl_interface *iface;
	bool listed, ruled;
	size_t i;
	uint16_t op;

	for (i = 0; i < IVWL_IFACE_COUNT; i++) {
		iface = ivwl_interfaces[i];
		for (op = 0; op < iface->request_count; op++) {
			listed = iface->requests[op].flags & IVWL_MESSAGE_RULED;
			ruled = ivwl_firewall_has_rule(iface, op);
			if (listed == ruled)
				continue;
			fprintf(stderr, "%s.%s: %s\n", iface->name,
				iface->requests[op].name,
				listed ? "its descriptor lists a rule the "
					 "firewall does not have" :
					 "the firewall has a rule its "
					 "descriptor does not list");
			ivwl_test_failures++;
		}
	}
}

static const struct ivwl_relay_time_rule *
time_rule(const struct ivwl_interface *iface, enum ivwl_relay_time_kind kind,
	  uint16_t opcode)
{
	const struct ivwl_relay_time_rule *r;
	size_t i;

	for (i = 0; i < ivwl_relay_time_rule_count; i++) {
		r = &ivwl_relay_time_rules[i];
		if (r->iface == iface && r->kind == kind &&
		    (kind == IVWL_RELAY_TIME_GLOBAL || r->opcode == opcode))
			return r;
	}
	return NULL;
}

static void
say_time(const char *iface, const char *sep, const char *what, bool listed)
{
	fprintf(stderr, "%s%s%s: %s\n", iface, sep, what,
		listed ? "its descriptor lists a time the relay does not "
			 "handle" :
			 "the relay handles a time its descriptor does not "
			 "list");
	ivwl_test_failures++;
}

static void
test_relay_times_match(void)
{
	const struct ivwl_interface *iface;
	const struct ivwl_relay_time_rule *r;
	bool listed;
	size_t i;
	uint16_t op;

	for (i = 0; i < IVWL_IFACE_COUNT; i++) {
		iface = ivwl_interfaces[i];
		listed = iface->flags & IVWL_IFACE_TIMED_GLOBAL;
		if (listed != !!time_rule(iface, IVWL_RELAY_TIME_GLOBAL, 0))
			say_time(iface->name, " ", "(global)", listed);
		for (op = 0; op < iface->event_count; op++) {
			listed = iface->events[op].flags & IVWL_MESSAGE_TIMED;
			if (listed !=
			    !!time_rule(iface, IVWL_RELAY_TIME_EVENT, op))
				say_time(iface->name, ".",
					 iface->events[op].name, listed);
		}
		for (op = 0; op < iface->request_count; op++) {
			listed = iface->requests[op].flags & IVWL_MESSAGE_TIMED;
			if (listed !=
			    !!time_rule(iface, IVWL_RELAY_TIME_REQUEST, op))
				say_time(iface->name, ".",
					 iface->requests[op].name, listed);
		}
	}
	/* and no handler of a message the tables do not have */
	for (i = 0; i < ivwl_relay_time_rule_count; i++) {
		r = &ivwl_relay_time_rules[i];
		switch (r->kind) {
		case IVWL_RELAY_TIME_GLOBAL:
			CHECK(r->global != NULL);
			break;
		case IVWL_RELAY_TIME_EVENT:
			CHECK(r->opcode < r->iface->event_count);
			CHECK(r->event != NULL);
			break;
		case IVWL_RELAY_TIME_REQUEST:
			CHECK(r->opcode < r->iface->request_count);
			CHECK(r->request != NULL);
			break;
		}
	}
}

/* A never-global is not offered by default, whatever table it is in. */
static void
test_globals_decided(void)
{
	size_t i;

	for (i = 0; i < IVWL_IFACE_COUNT; i++)
		CHECK(ivwl_interfaces[i]->global <= IVWL_GLOBAL_NEVER);
	for (i = 0; i < IVWL_PRIVATE_GLOBAL_COUNT; i++)
		CHECK(ivwl_wire_interface_find(ivwl_private_globals[i]) ==
		      NULL);
	CHECK_EQ(ivwl_iface_xdg_wm_base.global, IVWL_GLOBAL_ALLOW);
	CHECK(ivwl_iface_xdg_surface.flags & IVWL_IFACE_REPLAY);
}

IVWL_TEST_MAIN(TEST(test_firewall_rules_match), TEST(test_relay_times_match),
	       TEST(test_globals_decided))
