/* SPDX-License-Identifier: MIT */
/*
 * What the live view (live-view.c) shows: counters that are plain
 * increments where things happen (no syscall, no timer), kept by a VM
 * (vm.c) and each of its connections (connection.c).
 */
#ifndef IVWL_LIVE_COUNTS_H
#define IVWL_LIVE_COUNTS_H

#include <stdint.h>

#include "region.h"

/* What one connection (or the ended connections of a VM) did. */
struct ivwl_traffic {
	uint64_t commits;		/* wl_surface.commit let through */
	uint64_t frames;		/* frame callbacks weston ended */
	uint64_t request_bytes;		/* request records read */
	uint64_t event_bytes;		/* event records written */
	uint64_t bells_in;		/* the app rang for the slot */
	uint64_t bells_out;		/* we rang the app for the slot */
	uint64_t presented_held;	/* presented held for a done's bell */
};

#define IVWL_LIVE_CLOSURES 8u

struct ivwl_closure {
	uint64_t when_ms;		/* CLOCK_MONOTONIC */
	uint32_t slot;
	uint32_t generation;
	char why[128];
};

/* Per VM: what outlives its connections. */
struct ivwl_vm_live {
	struct ivwl_traffic ended;	/* sums of connections gone */
	struct ivwl_slot_app_stats app_ended;	/* what their relays said */
	uint64_t copied_mark;		/* app copied bytes at the last tick */
	uint64_t wakeups;		/* doorbell vector wake-ups */
	uint64_t probes;		/* liveness probes rung */
	uint64_t region_loans;		/* region fds ivwl-server lent */
	uint64_t plates;		/* title bar nameplates drawn */
	uint64_t closed;		/* connections ended */
	struct ivwl_closure closures[IVWL_LIVE_CLOSURES];	/* ring */
	uint64_t printed;		/* closures already shown */
	/* the counts at the last tick, for rates */
	struct ivwl_traffic mark;
};

/* Per connection: its counts and their values at the last tick. */
struct ivwl_conn_live {
	struct ivwl_traffic now;
	struct ivwl_traffic mark;
	uint64_t copied_mark;		/* app copied bytes at the last tick */
};

static inline void
ivwl_traffic_sum(struct ivwl_traffic *sum, const struct ivwl_traffic *t)
{
	sum->commits += t->commits;
	sum->frames += t->frames;
	sum->request_bytes += t->request_bytes;
	sum->event_bytes += t->event_bytes;
	sum->bells_in += t->bells_in;
	sum->bells_out += t->bells_out;
	sum->presented_held += t->presented_held;
}

static inline void
ivwl_app_stats_sum(struct ivwl_slot_app_stats *sum,
		   const struct ivwl_slot_app_stats *a)
{
	sum->buffer_commits += a->buffer_commits;
	sum->damaged_bytes += a->damaged_bytes;
	sum->copied_bytes += a->copied_bytes;
	sum->zero_copy_commits += a->zero_copy_commits;
	sum->zero_copy_pools += a->zero_copy_pools;
	sum->copy_pools += a->copy_pools;
}

#endif
