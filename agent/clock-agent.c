/* SPDX-License-Identifier: MIT */
/*
 * Log lines of the agent's clock link.  Restarts are always said (the
 * display's clock stepped, or another display came); the estimate itself
 * at a few sample counts with --verbose, so a run shows what the link
 * reaches without a line per second.
 */
#include "clock-agent.h"
#include "log.h"

static bool
worth_saying(uint64_t accepted)
{
	return accepted == 1 || accepted == 8 || accepted == 32 ||
	       accepted % 300 == 0;
}

void
ivwl_agent_clock_heard(struct ivwl_clock_asker *c, bool verbose)
{
	struct ivwl_clock_map map;
	int v = ivwl_clock_heard(c);

	if (v < 0 || v == IVWL_CLOCK_REJECTED) {
		if (verbose && v == IVWL_CLOCK_REJECTED)
			ivwl_log("clock: answer rejected (round trip %lld us)",
				 (long long)(c->last_rtt / 1000));
		return;
	}
	if (v == IVWL_CLOCK_RESTARTED)
		ivwl_log("clock: the display's clock stepped; estimate "
			 "restarted");
	if (!(verbose && worth_saying(c->est.accepted)) ||
	    !ivwl_clock_est_map(&c->est, &map))
		return;
	ivwl_log("clock: display clock %u + %lld ns = ours, within %lld ns; "
		 "drift %lld ppb (+-%lld); %llu samples, round trip best %lld "
		 "us, last %lld us, %llu missing",
		 c->display_clock, (long long)(map.ref_app - map.ref_display),
		 (long long)map.err_ns, (long long)map.drift_ppb,
		 (long long)map.growth_ppb, (unsigned long long)c->est.accepted,
		 (long long)(c->best_rtt / 1000),
		 (long long)(c->last_rtt / 1000),
		 (unsigned long long)c->missing);
}
