/* SPDX-License-Identifier: MIT */
/*
 * Results of one transport run and how they are printed: a table for
 * people, or one flat JSON object for scripts.
 */
#ifndef IVWL_BENCH_TRANSPORT_REPORT_H
#define IVWL_BENCH_TRANSPORT_REPORT_H

#include <stdbool.h>
#include <stdint.h>

enum ivwl_bench_link_id {
	IVWL_BENCH_RING = 0,		/* ring.h's protocol, sleeps at once */
	IVWL_BENCH_RING_SPIN = 1,	/* the same, polls a while first */
	IVWL_BENCH_SOCKET = 2,
	IVWL_BENCH_STOPWAIT = 3,
	IVWL_BENCH_LINKS = 4,
};

/* Names on the command line and in the table; JSON uses '_' for '-'. */
extern const char *const ivwl_bench_link_names[IVWL_BENCH_LINKS];

#define IVWL_BENCH_MAX_REPEAT 15u

/* Index 0: 64 KiB messages, 1: 1 MiB messages. */
struct ivwl_bench_link_result {
	bool has_doorbells;		/* shared memory links only */
	bool rtt_done;
	double rtt_p50_us;
	double rtt_p99_us;

	bool bulk_done[2];
	unsigned runs[2];
	double gbps_run[2][IVWL_BENCH_MAX_REPEAT];	/* 1e9 bytes/s */
	double gbps[2];			/* median of the runs */
	double gbps_min[2];
	double gbps_max[2];
	uint64_t bulk_messages[2];	/* all runs */
	uint64_t bulk_doorbells[2];	/* both sides, all runs */
	uint64_t bulk_switches[2];	/* voluntary context switches, ditto */

	bool flood_done;
	uint64_t flood_records;
	uint64_t flood_producer_doorbells;
	uint64_t flood_consumer_doorbells;
	uint64_t flood_producer_sleeps;
	uint64_t flood_consumer_sleeps;
	double flood_ns_per_record;
};

struct ivwl_bench_results {
	struct ivwl_bench_link_result link[IVWL_BENCH_LINKS];

	/* what the receivers checked, all phases and links */
	uint64_t messages;
	uint64_t verified;
	uint64_t bad;
	bool checksums_ok;

	/* configuration */
	bool quick;
	bool ring_local;
	uint64_t bytes;
	uint64_t repeat;
	uint64_t rtt_count;
	uint64_t work_ns;
	uint32_t space_batch;
	uint32_t data_batch;
	uint64_t spin_us;
	uint32_t ring_size;
	uint32_t ring_chunk;
	uint32_t stopwait_buffer;
};

/* Medians and spreads of the bulk runs, once all are in. */
void
ivwl_bench_report_summarize(struct ivwl_bench_results *res);

void
ivwl_bench_report_print(const struct ivwl_bench_results *res, bool json);

#endif
