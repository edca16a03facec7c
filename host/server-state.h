/* SPDX-License-Identifier: MIT */
/*
 * ivwl-server's state, shared by its files: the server itself
 * (ivwl-server.c: roles, joins and leaves, the poll loop), each client's
 * queue of messages (server-queue.c) and what a client may ask
 * (server-requests.c: the extension of server-msg.h).
 */
#ifndef IVWL_SERVER_STATE_H
#define IVWL_SERVER_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "log.h"
#include "server.h"

#define ROLE_COUNT 2

/*
 * A client's backlog, in batches (one id with its fds, or a bare id).  The
 * setup takes at most 5; every join/leave of the other peer adds one.  A
 * client this far behind is not reading: it is dropped.
 */
#define MAX_BATCHES 64

extern const char *const ivwl_role_name[ROLE_COUNT];

/*
 * A set of fds shared by every queued message that carries one of them:
 * a peer's eventfds stay open until the last message naming them is out,
 * even when the peer itself has already left.
 */
struct fd_bundle {
	unsigned int refs;
	uint32_t count;
	int fds[];
};

struct batch {
	int64_t value;
	struct fd_bundle *bundle;	/* NULL: one message without fd */
	uint32_t next;			/* next fd of bundle to send */
};

struct client {
	int sock;			/* -1 while the role is free */
	bool doomed;			/* leaves at the next reap */
	bool hello;		/* said HELLO: gets every join and leave */
	bool rings;		/* display: may ask for rings */
	bool lends;		/* display: may ask for the region */
	bool region_asked;	/* asked since the last answer was queued */
	bool region_queued;	/* a REGION answer waits in the queue */
	/* Was sent that role's eventfds and not told it left since. */
	bool holds[ROLE_COUNT];
	uint8_t partial[8];	/* a request in pieces */
	size_t have;
	bool blocks_rings;	/* app: kept a write to its eventfd blocked */
	struct batch queue[MAX_BATCHES];
	unsigned int head;
	unsigned int len;
};

struct listener {
	const char *path;
	int fd;
	dev_t dev;
	ino_t ino;
};

/*
 * A role's eventfds, made when its first instance joins and kept for
 * the next ones.  tainted: an instance cleared O_NONBLOCK on them or
 * kept a write blocked; they are made anew once nobody who is never
 * told about a new set holds them (role_refresh).
 */
struct role {
	struct fd_bundle *eventfds;
	bool tainted;
};

struct server {
	struct ivwl_server_options opt;
	struct role roles[ROLE_COUNT];		/* indexed by peer id */
	struct listener listeners[ROLE_COUNT];	/* indexed by peer id */
	struct client clients[ROLE_COUNT];	/* indexed by peer id */
	struct fd_bundle *shm;
	int signal_fd;
	/* App vectors the display asked to ring this poll round. */
	uint64_t ring_pending[IVWL_SERVER_MAX_VECTORS / 64];
	bool rings_pending;
};

extern bool ivwl_server_verbose;

/* Lines only with --verbose (protocol/util/log.h's logger). */
#define ivwl_slog_verbose(...)                                          \
	do {                                                            \
		if (ivwl_server_verbose)                                \
			ivwl_log(__VA_ARGS__);                          \
	} while (0)

/* count fds, all -1; one reference.  NULL when out of memory. */
struct fd_bundle *
ivwl_bundle_new(uint32_t count);

struct fd_bundle *
ivwl_bundle_ref(struct fd_bundle *b);

/* Closes its fds with the last reference; NULL is ignored. */
void
ivwl_bundle_unref(struct fd_bundle *b);

static inline bool
ivwl_client_present(const struct client *c)
{
	return c->sock >= 0 && !c->doomed;
}

/* Says why, once; the client leaves at the next reap. */
void
ivwl_client_doom(struct client *c, uint32_t id, const char *why);

/* Queues a message (with each fd of bundle, if any) for c. */
void
ivwl_client_enqueue(struct client *c, uint32_t id, int64_t value,
		    struct fd_bundle *bundle);

/* Sends what the socket takes now; the rest waits for POLLOUT. */
void
ivwl_client_flush(struct client *c, uint32_t id);

/* Frees the role: closes the socket and drops the queue. */
void
ivwl_client_release(struct client *c);

/* The client's socket is readable: a bounded number of its requests. */
void
ivwl_client_readable(struct server *s, uint32_t id);

/* Rings each app vector the display asked for this round, once. */
void
ivwl_server_ring_app(struct server *s);

#endif
