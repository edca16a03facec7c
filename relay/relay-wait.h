/* SPDX-License-Identifier: MIT */
/*
 * The relay's sleep: one epoll set kept for the whole connection, holding
 * the doorbell, the client's socket, the zero-copy sockets and the pipes.
 * A poll() over the same dozen fds set up and tore down a wait on each of
 * them at every sleep, twice a frame for chromium; the set changes only
 * when an fd comes or goes or what it waits for changes.
 *
 * Each fd's epoll data is a tag (kind and index) naming its owner, so a
 * wake-up finds the flag it sets without a search.  An fd leaves the set
 * before it is closed: another process may hold the same file (the agent
 * keeps the doorbell, the client its pipe's end), and the set would keep
 * reporting it under its old tag.
 */
#ifndef IVWL_RELAY_WAIT_H
#define IVWL_RELAY_WAIT_H

#include <stdbool.h>
#include <stdint.h>

#include "channel.h"

enum ivwl_relay_wait_kind {
	IVWL_RELAY_WAIT_DOORBELL = 1,
	IVWL_RELAY_WAIT_CLIENT,
	IVWL_RELAY_WAIT_ZC,	/* index: relay-zc.h's */
	IVWL_RELAY_WAIT_PIPE,
	IVWL_RELAY_WAIT_AGENT,	/* its socket, waited on for its end only */
};

#define IVWL_RELAY_WAIT_TAG(kind, index) \
	((uint64_t)(index) << 8 | (uint64_t)(kind))

/* A pipe channel's place in the set; the channel's user points to it. */
struct ivwl_relay_wait_pipe {
	const struct ivwl_channel *ch;	/* NULL: free */
	uint32_t events;		/* as registered */
	bool in_set;
};

struct ivwl_relay_wait {
	int epfd;			/* -1: released */
	int doorbell_fd;		/* in the set, or -1 */
	uint32_t sock_events;		/* the client socket's; 0: not in */
	struct ivwl_relay_wait_pipe pipes[IVWL_CHANNEL_MAX];
};

struct relay;

int
ivwl_relay_wait_init(struct ivwl_relay_wait *w);

/* No more sleeps: the set goes, and with it every fd in it. */
void
ivwl_relay_wait_release(struct ivwl_relay_wait *w);

/* 0 or a negative errno; 0 without a set (released). */
int
ivwl_relay_wait_add(struct ivwl_relay_wait *w, int fd, uint32_t events,
		    uint64_t tag);

/* Before fd is closed. */
void
ivwl_relay_wait_del(struct ivwl_relay_wait *w, int fd);

/*
 * Before the pipe channel is closed (the relay's channels only: it takes
 * the channel's user field).
 */
void
ivwl_relay_wait_forget_pipe(struct ivwl_relay_wait *w,
			    struct ivwl_channel *ch);

/*
 * Before the slot moves to another display: its doorbell is closed then.
 * The next sleep adds the new one.
 */
void
ivwl_relay_wait_forget_doorbell(struct ivwl_relay_wait *w);

/*
 * Makes the set say what each fd waits for now: sock_in says whether the
 * client's requests are read (else r->sock_ready is left alone).  -1 with
 * r->why set when the set refused an fd.
 */
int
ivwl_relay_wait_update(struct relay *r, bool sock_in);

/*
 * Waits up to timeout_ms (-1: no end) and sets the readiness flags of the
 * fds it waited on: true only for those reported, all of them after an
 * error.  True when the doorbell rang (or the wait failed).
 */
bool
ivwl_relay_wait_sleep(struct relay *r, bool sock_in, int timeout_ms);

#endif
