/* SPDX-License-Identifier: MIT */
/*
 * The transport benchmark's measurements.  The app process (parent)
 * drives each phase and times it; the display process (forked child)
 * plays the other end and reports what it verified over the control
 * socket.
 */
#ifndef IVWL_BENCH_TRANSPORT_H
#define IVWL_BENCH_TRANSPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "link.h"

#define IVWL_BENCH_SMALL_SIZE 64u	/* bytes of one small record */
#define IVWL_BENCH_SOURCES 4u		/* distinct bulk source buffers */

enum ivwl_bench_phase {
	IVWL_BENCH_PHASE_RTT = 1,	/* small ping-pong */
	IVWL_BENCH_PHASE_BULK = 2,	/* app -> display messages */
	IVWL_BENCH_PHASE_FLOOD = 3,	/* back-to-back small records */
	IVWL_BENCH_PHASE_QUIT = 4,
};

/* Control message, parent -> child: what to run. */
struct ivwl_bench_cmd {
	uint32_t phase;
	uint32_t link;		/* index into the link array */
	uint64_t count;		/* messages or round trips */
	uint64_t size;		/* message size */
	uint64_t work_ns;	/* flood: consumer work per record */
};

/* Control message, child -> parent: what it saw. */
struct ivwl_bench_report {
	int32_t status;		/* 0 or -errno */
	uint32_t pad;
	uint64_t messages;	/* received and stamp-checked */
	uint64_t verified;	/* of which fully checksummed */
	uint64_t bad;		/* stamps or checksums that did not match */
	uint64_t doorbells;	/* rung by the child during the phase */
	uint64_t sleeps;	/* child sleeps during the phase */
	uint64_t switches;	/* child's voluntary context switches */
};

/* Private bulk data, identical in both processes. */
struct ivwl_bench_payload {
	size_t max_size;
	uint8_t *src[IVWL_BENCH_SOURCES];
	uint8_t *dst;
	/* expected body hashes for the sizes measured */
	uint64_t hash_size[2];
	uint64_t hash[2][IVWL_BENCH_SOURCES];
};

int
ivwl_bench_payload_init(struct ivwl_bench_payload *pl, size_t max_size,
			const uint64_t sizes[2]);
void
ivwl_bench_payload_fini(struct ivwl_bench_payload *pl);

/* Parent side of each phase.  0 or -errno. */
int
ivwl_bench_rtt_run(struct ivwl_bench_link *link, uint64_t warmup,
		   uint64_t count, uint64_t *rtt_ns);
int
ivwl_bench_bulk_send(struct ivwl_bench_link *link,
		     struct ivwl_bench_payload *pl, uint64_t size,
		     uint64_t count);
int
ivwl_bench_flood_send(struct ivwl_bench_link *link, uint64_t count);

/* Child side: runs the phase named by cmd and fills rep. */
void
ivwl_bench_serve_phase(struct ivwl_bench_link *link,
		       struct ivwl_bench_payload *pl,
		       const struct ivwl_bench_cmd *cmd,
		       struct ivwl_bench_report *rep);

#endif
