/* SPDX-License-Identifier: MIT */
/*
 * What a client of ivwl-server may ask, in the extension of server-msg.h
 * (docs/region.md, "The server protocol"): HELLO, then, from the display
 * the server rings for, RING, and from the display it lends the region
 * to, REGION.  Anything else means the client left.
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>

#include "region.h"
#include "server-msg.h"
#include "server-state.h"

/* Requests read from the display per poll round: the app's turn comes. */
#define MAX_REQUESTS 64

/*
 * How long a write to one of the app's eventfds may block before a timer
 * signal ends it.  The app holds the same open file descriptions: it can
 * clear O_NONBLOCK and fill the counter, and the next write sleeps until
 * it reads.  No honest write takes more than microseconds.
 */
#define RING_GUARD_US 2000

/*
 * A client that said HELLO hears of every leave from now on.  One that
 * left before is news to it only if it holds the eventfds: tell it now.
 */
static void
client_hello(struct server *s, struct client *c, uint32_t id,
	     uint32_t version)
{
	uint32_t other, flags = 0;

	c->hello = true;
	c->rings = id == IVWL_PEER_DISPLAY && !s->opt.no_rings;
	c->lends = id == IVWL_PEER_DISPLAY && !s->opt.no_lend;
	for (other = 0; other < ROLE_COUNT; other++) {
		if (other == id || !c->holds[other] ||
		    ivwl_client_present(&s->clients[other]))
			continue;
		c->holds[other] = false;
		ivwl_client_enqueue(c, id, other, NULL);
	}
	if (!c->rings)
		flags |= IVWL_SRV_ACK_NO_RINGS;
	if (c->lends)
		flags |= IVWL_SRV_ACK_REGION;
	ivwl_log("%s peer %u said hello (version %u)%s", ivwl_role_name[id],
		  id, version, c->rings && c->lends ?
		  ": ringing the app for it, lending it the region" :
		  c->rings ? ": ringing the app for it" :
		  c->lends ? ": lending it the region" : "");
	ivwl_client_enqueue(c, id, ivwl_srv_encode(IVWL_SRV_ACK, flags,
						   IVWL_SRV_VERSION), NULL);
	ivwl_client_flush(c, id);
}

static void
ring_request(struct server *s, struct client *c, uint32_t id, uint32_t peer,
	     uint32_t arg)
{
	char why[128];

	if (!c->rings) {
		ivwl_client_doom(c, id, id == IVWL_PEER_DISPLAY ?
				 "it asked for a ring (--no-rings)" :
				 "it asked for a ring (the server rings for "
				 "the display only)");
		return;
	}
	if (peer != IVWL_PEER_APP || arg >= s->opt.vectors) {
		snprintf(why, sizeof(why), "it asked to ring peer %u vector "
			 "%u (the app is peer %u, with %u vectors)", peer, arg,
			 IVWL_PEER_APP, s->opt.vectors);
		ivwl_client_doom(c, id, why);
		return;
	}
	/* An app that just left: the display has not heard yet. */
	if (!ivwl_client_present(&s->clients[IVWL_PEER_APP]))
		return;
	s->ring_pending[arg / 64] |= 1ull << (arg % 64);
	s->rings_pending = true;
}

/* Answered once the read is done (lend_region). */
static void
region_request(struct client *c, uint32_t id)
{
	if (!c->lends) {
		ivwl_client_doom(c, id, id == IVWL_PEER_DISPLAY ?
				 "it asked for the region (--no-lend)" :
				 "it asked for the region (the server lends "
				 "it to the display only)");
		return;
	}
	c->region_asked = true;
}

/*
 * HELLO first, then RING from a display the server rings for and REGION
 * from one it lends the region to; anything else means the client left.
 */
static void
client_request(struct server *s, struct client *c, uint32_t id,
	       int64_t value)
{
	uint32_t peer, arg, op = ivwl_srv_decode(value, &peer, &arg);
	char why[128];

	if (!c->hello) {
		if (op != IVWL_SRV_HELLO || arg == 0) {
			ivwl_client_doom(c, id, "it sent data");
			return;
		}
		client_hello(s, c, id, arg);
		return;
	}
	if (op == IVWL_SRV_RING) {
		ring_request(s, c, id, peer, arg);
		return;
	}
	if (op == IVWL_SRV_REGION && peer == 0 && arg == 0) {
		region_request(c, id);
		return;
	}
	snprintf(why, sizeof(why), "it sent an unknown request 0x%016" PRIx64,
		 (uint64_t)value);
	ivwl_client_doom(c, id, why);
}

/*
 * The region's fd, the file every peer got at its setup, for all the
 * REGION asks of one read, and for none while an answer still waits in
 * the client's queue: that one answers them.  A display that asks faster
 * than it reads costs one queued message and one fd in flight, however
 * fast it asks.
 */
static void
lend_region(struct server *s, struct client *c, uint32_t id)
{
	if (!c->region_asked || c->doomed)
		return;
	c->region_asked = false;
	if (c->region_queued)
		return;
	c->region_queued = true;
	ivwl_client_enqueue(c, id, ivwl_srv_encode(IVWL_SRV_REGION, 0, 0),
			    s->shm);
	ivwl_client_flush(c, id);
}

/*
 * At most MAX_REQUESTS per call; a request may arrive in pieces.  No fd
 * is taken: one that comes along is closed by the kernel (MSG_CTRUNC).
 */
void
ivwl_client_readable(struct server *s, uint32_t id)
{
	struct client *c = &s->clients[id];
	uint8_t buf[MAX_REQUESTS * 8];
	struct iovec iov;
	struct msghdr mh;
	uint64_t wire;
	size_t len, off;
	ssize_t n;

	memcpy(buf, c->partial, c->have);
	iov = (struct iovec){ buf + c->have, sizeof(buf) - c->have };
	mh = (struct msghdr){ .msg_iov = &iov, .msg_iovlen = 1 };
	do {
		n = recvmsg(c->sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN)
		return;
	if (n == 0) {
		c->doomed = true;
		return;
	}
	if (n < 0) {
		ivwl_client_doom(c, id, strerror(errno));
		return;
	}
	if (mh.msg_flags & MSG_CTRUNC) {
		ivwl_client_doom(c, id, "it sent an fd");
		return;
	}
	len = c->have + (size_t)n;
	for (off = 0; off + 8 <= len && !c->doomed; off += 8) {
		memcpy(&wire, buf + off, sizeof(wire));
		client_request(s, c, id, (int64_t)le64toh(wire));
	}
	c->have = len - off;
	memcpy(c->partial, buf + off, c->have);
	lend_region(s, c, id);
}

static void
guard_set(suseconds_t us)
{
	struct itimerval it = { { 0, us }, { 0, us } };

	setitimer(ITIMER_REAL, &it, NULL);
}

/*
 * One doorbell of the app's.  A counter it filled (EAGAIN) wakes it
 * anyway: nothing is lost.  A write it keeps blocked (O_NONBLOCK cleared
 * on its side) ends with the guard's signal (EINTR); from then on its
 * counters are looked at first, so that only a race costs the guard's
 * period again.
 */
static void
app_ring(struct client *app, struct fd_bundle *eventfds, uint32_t vector)
{
	int fd = eventfds->fds[vector];
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	uint64_t one = 1;

	if (app->blocks_rings &&
	    (poll(&pfd, 1, 0) != 1 || !(pfd.revents & POLLOUT)))
		return;
	if (write(fd, &one, sizeof(one)) == (ssize_t)sizeof(one)) {
		ivwl_slog_verbose("app peer %u rung on vector %u",
				  IVWL_PEER_APP, vector);
		return;
	}
	if (errno == EINTR && !app->blocks_rings) {
		app->blocks_rings = true;
		ivwl_log("app peer %u keeps a write to its vector %u blocked "
			  "(it cleared O_NONBLOCK and filled it): its rings are "
			  "dropped while its counters stay full",
			  IVWL_PEER_APP, vector);
	}
}

/* Each vector asked for this round once, however many asked. */
void
ivwl_server_ring_app(struct server *s)
{
	struct client *app = &s->clients[IVWL_PEER_APP];
	uint32_t w, bit;

	if (!s->rings_pending)
		return;
	s->rings_pending = false;
	/* Rings for an app that left would wait for the next one. */
	if (ivwl_client_present(app)) {
		guard_set(RING_GUARD_US);
		for (w = 0; w * 64 < s->opt.vectors; w++)
			for (bit = 0; bit < 64; bit++)
				if (s->ring_pending[w] & 1ull << bit)
					app_ring(app, s->roles[IVWL_PEER_APP].
						 eventfds, w * 64 + bit);
		guard_set(0);
	}
	memset(s->ring_pending, 0, sizeof(s->ring_pending));
}
