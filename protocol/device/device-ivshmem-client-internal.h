/* SPDX-License-Identifier: MIT */
/*
 * The ivshmem-client backend's own state (a client of an
 * ivshmem-doorbell server's socket), shared by its files and private to
 * them: device-ivshmem-client-open.c attaches (setup and HELLO),
 * device-ivshmem-client.c serves the attached device and
 * device-ivshmem-client-region.c borrows the region's fd.  ivwl_sdev_:
 * the device reached through the server.
 */
#ifndef IVWL_DEVICE_IVSHMEM_CLIENT_INTERNAL_H
#define IVWL_DEVICE_IVSHMEM_CLIENT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <unistd.h>

#include "device-backend.h"

#define MAX_VECTORS 1024u

struct peer {
	int *fds;		/* one eventfd per vector, in vector order */
	uint32_t nfds;
	uint32_t capacity;
	bool present;		/* has its full set of vectors */
	struct ivwl_ringer *ringer;	/* from its first ring on */
};

struct server_device {
	struct ivwl_device dev;	/* region_fd: the shm fd */
	int sock;
	bool gone;
	bool vector0_only;	/* IVWL_DEVICE_SERVER_VECTOR0 */

	/* The server rings the app peer for us (server-msg.h). */
	uint64_t owed[MAX_VECTORS / 64];	/* its vectors to ask for */
	uint8_t out[8];		/* a request the socket took in part */
	size_t out_off, out_len;
	bool want_write;
	struct server_device *defer_next;	/* in defer.pending */
	bool deferred;

	/* A message may come in pieces; its fd comes with the first. */
	uint8_t partial[8];
	size_t have;
	int partial_fd;
	bool partial_bad;
	bool partial_lost;	/* its fd did not fit: we are out of fds */

	struct peer *peers;	/* indexed by id, own id included */
	uint32_t npeers;

	/*
	 * The region's file, as mapped: a borrowed fd must be it
	 * (device-ivshmem-client-region.c).
	 */
	dev_t region_dev;
	ino_t region_ino;
	bool region_asked;	/* REGION out or owed, not answered yet */
	bool region_owed;	/* REGION not sent yet */
	int fault;		/* the server broke the protocol: -EPROTO */
};

extern const struct ivwl_device_ops ivwl_sdev_ops;

static inline void
close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Closes a peer's eventfds (a peer that left); its array stays. */
void
ivwl_sdev_peer_clear(struct peer *p);

/* The peer of id, made on first use; NULL above IVWL_MAX_PEER_ID or ENOMEM. */
struct peer *
ivwl_sdev_peer_get(struct server_device *sd, uint32_t id);

/* Takes fd as the peer's next vector, non-blocking.  0 or -errno. */
int
ivwl_sdev_peer_add_fd(struct peer *p, int fd);

/*
 * Closes the vector ivwl_sdev_peer_add_fd() just added when we neither
 * wait on it nor write it; it stays counted.
 */
void
ivwl_sdev_count_only_unused(struct server_device *sd, struct peer *p);

/*
 * 1 and a message, 0 when none is complete yet, -EPROTO for a message
 * with more than one fd (dropped), -EMFILE for one whose fd we could not
 * take, -ECONNRESET when the server is gone.  Never blocks.
 */
int
ivwl_sdev_recv_message(struct server_device *sd, int64_t *value, int *fd);

/* One message after the setup (a peer's join or leave); takes fd. */
void
ivwl_sdev_handle_message(struct server_device *sd, int64_t value, int fd);

/* Trims peers to our vector count and marks the complete ones present. */
void
ivwl_sdev_settle_peers(struct server_device *sd);

/*
 * Sends what is owed to the server (rings, REGION) now, or at the end of
 * the event loop's pass (ivwl_device_defer_rings).
 */
void
ivwl_sdev_request_owed(struct server_device *sd);

/* device-ivshmem-client-region.c: the ops' region_ask. */
int
ivwl_sdev_region_ask(struct ivwl_device *dev);

/* device-ivshmem-client-region.c: a REGION from the server; takes fd. */
void
ivwl_sdev_region_answer(struct server_device *sd, int fd);

#endif
