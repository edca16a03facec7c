/* SPDX-License-Identifier: MIT */
/*
 * Local protocol between ivwl-agent and the processes of one app-vm
 * (shims, tests).  AF_UNIX SOCK_SEQPACKET; every message is one fixed-size
 * struct; replies carry fds with SCM_RIGHTS where noted.  A process that
 * closes its socket (or dies) gives back every slot and heap range it had.
 */
#ifndef IVWL_AGENT_PROTO_H
#define IVWL_AGENT_PROTO_H

#include <stdint.h>

#define IVWL_AGENT_PROTO_VERSION 1u

/* Used when IVWL_AGENT is not set. */
#define IVWL_AGENT_DEFAULT_SOCKET "/run/ivwl/agent.sock"

enum ivwl_agent_op {
	/* -> version in arg0.  <- 0, or -EPROTONOSUPPORT */
	IVWL_AGENT_HELLO = 1,
	/*
	 * <- slot, generation, region size, doorbell kind, peer << 16 |
	 *    vector, wait vector; fds: region, doorbell, wait.
	 *    -EHOSTDOWN while no display side is attached, -EBUSY when every
	 *    slot is taken, -EDQUOT when the process holds
	 *    IVWL_AGENT_MAX_SLOTS_PER_CLIENT.
	 */
	IVWL_AGENT_OPEN_SLOT = 2,
	/* -> slot in arg0, generation in arg1.  <- 0 or -ENOENT */
	IVWL_AGENT_CLOSE_SLOT = 3,
	/* -> length in arg0.  <- region offset, length (page-rounded);
	 *    -ENOMEM when the heap has no such range, -EDQUOT past the
	 *    per-process limit */
	IVWL_AGENT_ALLOC = 4,
	/* -> region offset in arg0.  <- 0 or -ENOENT */
	IVWL_AGENT_FREE = 5,
	/* <- free slots, usable slots, heap free bytes, heap size,
	 *    quarantined slots, app epoch */
	IVWL_AGENT_STATUS = 6,
	/*
	 * A relay is about to translate the display's times with no
	 * estimate or an ageing one: sample the clock link for
	 * IVWL_AGENT_CLOCK_ACTIVE_MS from now.  <- 0
	 */
	IVWL_AGENT_CLOCK_WANTED = 7,
};

/*
 * The agent samples the display's clock only in bursts: when a relay
 * asked, it started or the display did.  A burst lasts until an answer
 * of its own leaves the estimate good for IVWL_AGENT_CLOCK_SETTLED_MS
 * more (within IVWL_CLOCK_GOOD_NS), at most IVWL_AGENT_CLOCK_ACTIVE_MS;
 * then no wake-ups.  The estimate's drift
 * keeps it good for long after (relay/relay-time.c asks again as
 * it ages).
 */
#define IVWL_AGENT_CLOCK_ACTIVE_MS 3000
#define IVWL_AGENT_CLOCK_SETTLED_MS 2000

struct ivwl_agent_request {
	uint32_t op;
	uint32_t reserved;
	uint64_t arg0;
	uint64_t arg1;
};

#define IVWL_AGENT_REPLY_VALUES 6

struct ivwl_agent_reply {
	uint32_t op;
	int32_t status;		/* 0 or -errno */
	uint64_t val[IVWL_AGENT_REPLY_VALUES];
};

/* Per-process limits, so one process cannot starve the others. */
#define IVWL_AGENT_MAX_SLOTS_PER_CLIENT 8u
#define IVWL_AGENT_MAX_RANGES_PER_CLIENT 1024u
#define IVWL_AGENT_MAX_CLIENTS 256u

#endif
