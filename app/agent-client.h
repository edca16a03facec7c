/* SPDX-License-Identifier: MIT */
/*
 * Calls into ivwl-agent, for shims and tests.  Every call is a blocking
 * request/reply on the process's own agent socket.
 */
#ifndef IVWL_AGENT_CLIENT_H
#define IVWL_AGENT_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "agent-proto.h"
#include "device.h"
#include "heap.h"

struct ivwl_agent_slot {
	uint32_t slot;
	uint32_t generation;
	struct ivwl_endpoint ep;
};

struct ivwl_agent_status {
	uint32_t free_slots;
	uint32_t usable_slots;
	uint64_t heap_free;
	uint64_t heap_size;
	uint32_t quarantined_slots;
	uint32_t app_epoch;
};

/* $IVWL_AGENT, or IVWL_AGENT_DEFAULT_SOCKET. */
const char *
ivwl_agent_socket_path(void);

/* Connects and says hello.  Returns the socket fd or -errno. */
int
ivwl_agent_connect(const char *path);

int
ivwl_agent_open_slot(int fd, struct ivwl_agent_slot *out);

int
ivwl_agent_close_slot(int fd, uint32_t slot, uint32_t generation);

int
ivwl_agent_alloc(int fd, uint64_t length, struct ivwl_extent *out);

int
ivwl_agent_free(int fd, uint64_t offset);

int
ivwl_agent_status(int fd, struct ivwl_agent_status *out);

/*
 * Why a connection could not be had, in words for the user, from the
 * -errno ivwl_agent_connect(), ivwl_agent_open_slot() or the relay
 * gave.
 */
const char *
ivwl_agent_refusal(int err);

/*
 * How long a new connection waits for a display not attached yet:
 * $IVWL_DISPLAY_WAIT seconds (0 to 60), IVWL_DISPLAY_WAIT_DEFAULT_S
 * when unset.
 */
#define IVWL_DISPLAY_WAIT_DEFAULT_S 5
int
ivwl_display_wait_ms(void);

/* $IVWL_DISPLAY_WAIT when it is set to no number of 0 to 60, or NULL. */
const char *
ivwl_display_wait_bad(void);

/* The clock link is wanted now (agent-proto.h).  0 or -errno. */
int
ivwl_agent_clock_wanted(int fd);

#endif
