/* SPDX-License-Identifier: MIT */
/*
 * The relay's half of zero-copy: serves grants to the process that owns
 * the Wayland connection (the primary channel, a socketpair made at
 * connect) and to the other processes of the same app, which connect to
 * the relay's listening socket (zero-copy-proto.h).
 */
#ifndef IVWL_RELAY_ZC_H
#define IVWL_RELAY_ZC_H

#include <stdbool.h>
#include <sys/types.h>

#include "zero-copy-proto.h"

struct ivwl_buffers;
struct ivwl_endpoint;
struct ivwl_relay_wait;

/* The listening socket's index in the relay's wait tags (relay-wait.h);
 * a channel's is its place in chans. */
#define IVWL_RELAY_ZC_LISTEN IVWL_ZC_MAX_CHANNELS

struct ivwl_relay_zc_follow {
	uint64_t dev, ino;
};

struct ivwl_relay_zc_chan {
	int fd;				/* -1: free */
	bool ready;			/* worth a read */
	uint32_t owner;			/* tags its grants; 0 is primary */
	pid_t pid;
	/* Grants of other processes it maps, to let go of if it dies. */
	struct ivwl_relay_zc_follow *follows;
	uint32_t nfollows, follows_cap;
};

struct ivwl_relay_zc {
	struct ivwl_buffers *buffers;
	const struct ivwl_endpoint *ep;
	struct ivwl_relay_wait *wait;	/* holds every fd below */
	pid_t client_pid;		/* the process that connected */
	int listen_fd;			/* -1 when not listening */
	bool listen_ready;
	uint32_t next_owner;
	struct ivwl_relay_zc_chan chans[IVWL_ZC_MAX_CHANNELS];
};

/*
 * No channel yet: ivwl_relay_zc_close is safe from here on.  Each fd the
 * relay serves enters wait as it comes and leaves it before it closes.
 */
void
ivwl_relay_zc_init(struct ivwl_relay_zc *zc, struct ivwl_buffers *buffers,
		   const struct ivwl_endpoint *ep,
		   struct ivwl_relay_wait *wait);

/*
 * primary_fd carries the connecting process's requests; client_sock is
 * the client's end of the Wayland socketpair, whose peer credentials say
 * which process tree may connect.  Takes primary_fd.
 */
void
ivwl_relay_zc_start(struct ivwl_relay_zc *zc, int primary_fd,
		    int client_sock);

/* Everything is worth a read (the wait failed, or was not made). */
void
ivwl_relay_zc_all_ready(struct ivwl_relay_zc *zc);

/* A wait came back: nothing is worth a read but what it reports. */
void
ivwl_relay_zc_none_ready(struct ivwl_relay_zc *zc);

/* Whether a wait reported anything to serve. */
bool
ivwl_relay_zc_any_ready(const struct ivwl_relay_zc *zc);

/* The wait reported the fd of index (IVWL_RELAY_ZC_LISTEN or a channel). */
void
ivwl_relay_zc_woken(struct ivwl_relay_zc *zc, uint32_t index);

/* Accepts and serves every pending request. */
void
ivwl_relay_zc_pump(struct ivwl_relay_zc *zc);

/*
 * The connection is over: stops listening, then serves reverts until no
 * process maps a grant any more (or they all closed their channels).
 */
void
ivwl_relay_zc_linger(struct ivwl_relay_zc *zc);

void
ivwl_relay_zc_close(struct ivwl_relay_zc *zc);

#endif
