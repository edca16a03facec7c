/* SPDX-License-Identifier: MIT */
/*
 * Device backend for a host process attached to an ivshmem-doorbell server
 * (ivwl-server, or QEMU's contrib server), once it is attached: the
 * server's news of peers, rings, and the device's ops.  Attaching is
 * device-ivshmem-client-open.c's.
 *
 * Later messages: id + fd adds one vector of a joining peer, a bare id
 * says that peer left.  Own vectors are the eventfds we read; a peer's
 * vector v is rung by writing to the v-th eventfd it came with.
 *
 * The eventfds we ring a peer through are the open file descriptions it
 * holds: it may clear O_NONBLOCK and fill them, so each peer we ring gets
 * a ringer, whose worker thread does the writing (ringer.h); no write to
 * them ever happens in the caller's thread.
 *
 * Unless the server rings for us (IVWL_DEVICE_SERVER_RINGS): a display
 * whose HELLO ivwl-server answered with an ACK that rings keeps none of
 * the peer's eventfds and asks the server to ring, with one request on
 * the socket per ring; requests the socket has no room for are owed, and
 * sent by ivwl_device_dispatch() once it is writable.  So are asks for
 * the region's fd (device-ivshmem-client-region.c).
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "device-ivshmem-client-internal.h"
#include "fd-flags.h"
#include "fdmsg.h"
#include "region.h"
#include "ringer.h"
#include "server-msg.h"

/* Messages handled per dispatch call: the event fd stays readable. */
#define DISPATCH_BUDGET 1024

/*
 * Ring requests of the event loop's thread wait for the end of its pass
 * (ivwl_device_defer_rings), as the ringer's wakes do: the app is woken
 * once the display has done all it had to, not in the middle of it.
 * Only that thread touches this.
 */
static struct {
	void (*schedule)(void *data);
	void *data;
	pthread_t thread;
	bool scheduled;
	struct server_device *pending;
} defer;

void
ivwl_sdev_peer_clear(struct peer *p)
{
	uint32_t i;

	/* Rings to a peer that left are moot: stop even a blocked write. */
	ivwl_ringer_destroy(p->ringer, 0);
	p->ringer = NULL;
	for (i = 0; i < p->nfds; i++)
		if (p->fds[i] >= 0)
			close(p->fds[i]);
	p->nfds = 0;
	p->present = false;
}

struct peer *
ivwl_sdev_peer_get(struct server_device *sd, uint32_t id)
{
	struct peer *peers;
	uint32_t n;

	if (id < sd->npeers)
		return &sd->peers[id];
	if (id > IVWL_MAX_PEER_ID)
		return NULL;
	n = id + 1 < 4 ? 4 : id + 1;
	peers = realloc(sd->peers, n * sizeof(*peers));
	if (!peers)
		return NULL;
	memset(peers + sd->npeers, 0, (n - sd->npeers) * sizeof(*peers));
	sd->peers = peers;
	sd->npeers = n;
	return &sd->peers[id];
}

int
ivwl_sdev_peer_add_fd(struct peer *p, int fd)
{
	int *fds, ret;
	uint32_t n;

	if (p->nfds == MAX_VECTORS)
		return -E2BIG;
	if (p->nfds == p->capacity) {
		n = p->capacity ? p->capacity * 2 : 8;
		if (n > MAX_VECTORS)
			n = MAX_VECTORS;
		fds = realloc(p->fds, n * sizeof(*fds));
		if (!fds)
			return -ENOMEM;
		p->fds = fds;
		p->capacity = n;
	}
	/*
	 * Ringing must never block, even with the counter near its limit,
	 * and draining must return at once when nothing is pending.
	 */
	ret = ivwl_fd_set_nonblock(fd, true);
	if (ret < 0)
		return ret;
	p->fds[p->nfds++] = fd;
	return 0;
}

int
ivwl_sdev_recv_message(struct server_device *sd, int64_t *value, int *fd)
{
	struct ivwl_fdmsg_fds fds;
	uint64_t wire;
	int flags = 0;
	ssize_t n;

	while (sd->have < sizeof(sd->partial)) {
		/* One fd at most per message: any other is a protocol error. */
		fds = (struct ivwl_fdmsg_fds){
			.fds = &sd->partial_fd,
			.cap = sd->partial_fd < 0 ? 1 : 0,
		};
		n = ivwl_fdmsg_recv(sd->sock, sd->partial + sd->have,
				    sizeof(sd->partial) - sd->have,
				    MSG_DONTWAIT, &fds, &flags);
		/* A cut means the kernel could not give us the fd (EMFILE),
		 * and the message means nothing without it. */
		if (n >= 0 && (flags & MSG_CTRUNC))
			sd->partial_lost = true;
		else if (fds.lost)
			sd->partial_bad = true;
		if (n == -EAGAIN)
			return 0;
		if (n <= 0)
			return -ECONNRESET;
		sd->have += (size_t)n;
	}

	memcpy(&wire, sd->partial, sizeof(wire));
	*value = (int64_t)le64toh(wire);
	*fd = sd->partial_fd;
	sd->partial_fd = -1;
	sd->have = 0;
	if (sd->partial_lost) {
		sd->partial_lost = false;
		sd->partial_bad = false;
		close_fd(fd);
		return -EMFILE;
	}
	if (sd->partial_bad) {
		sd->partial_bad = false;
		close_fd(fd);
		return -EPROTO;
	}
	return 1;
}

/*
 * Another peer's, when the server rings for us; any but vector 0, with
 * IVWL_DEVICE_SERVER_VECTOR0.
 */
void
ivwl_sdev_count_only_unused(struct server_device *sd, struct peer *p)
{
	if ((sd->vector0_only && p->nfds > 1) ||
	    (sd->dev.server_rings && p != &sd->peers[sd->dev.peer_id]))
		close_fd(&p->fds[p->nfds - 1]);
}

static void
peer_left(struct server_device *sd, uint32_t id)
{
	struct peer *p;
	bool was_present;

	if (id >= sd->npeers || id == sd->dev.peer_id)
		return;
	p = &sd->peers[id];
	was_present = p->present;
	ivwl_sdev_peer_clear(p);
	if (was_present && sd->dev.listener)
		sd->dev.listener(sd->dev.listener_data, id, false);
}

/*
 * One message after open.  A misbehaving server gets its message dropped,
 * as QEMU does: it is trusted, and dropping keeps every state consistent.
 */
void
ivwl_sdev_handle_message(struct server_device *sd, int64_t value, int fd)
{
	uint32_t peer, arg;
	struct peer *p;

	if (ivwl_srv_decode(value, &peer, &arg) == IVWL_SRV_REGION) {
		ivwl_sdev_region_answer(sd, fd);
		return;
	}
	if (value < 0 || value > IVWL_MAX_PEER_ID || (uint32_t)value ==
	    sd->dev.peer_id) {
		close_fd(&fd);
		return;
	}
	if (fd < 0) {
		peer_left(sd, (uint32_t)value);
		return;
	}
	p = ivwl_sdev_peer_get(sd, (uint32_t)value);
	if (!p || p->nfds >= sd->dev.nr_vectors ||
	    ivwl_sdev_peer_add_fd(p, fd) < 0) {
		close_fd(&fd);
		return;
	}
	ivwl_sdev_count_only_unused(sd, p);
	if (p->nfds == sd->dev.nr_vectors) {
		p->present = true;
		if (sd->dev.listener)
			sd->dev.listener(sd->dev.listener_data,
					 (uint32_t)value, true);
	}
}

void
ivwl_sdev_settle_peers(struct server_device *sd)
{
	uint32_t id;

	for (id = 0; id < sd->npeers; id++) {
		struct peer *p = &sd->peers[id];

		while (p->nfds > sd->dev.nr_vectors)
			if (p->fds[--p->nfds] >= 0)
				close(p->fds[p->nfds]);
		p->present = p->nfds == sd->dev.nr_vectors;
	}
}

static struct server_device *
to_server(struct ivwl_device *dev)
{
	return (struct server_device *)dev;
}

static void
want_write(struct server_device *sd, bool want)
{
	if (sd->want_write == want)
		return;
	sd->want_write = want;
	if (sd->dev.write_listener)
		sd->dev.write_listener(sd->dev.write_listener_data, want);
}

/* false when the socket takes no more now. */
static bool
send_out(struct server_device *sd)
{
	ssize_t n;

	while (sd->out_off < sd->out_len) {
		n = ivwl_fdmsg_send(sd->sock, sd->out + sd->out_off,
				    sd->out_len - sd->out_off, NULL, 0,
				    MSG_DONTWAIT);
		if (n == -EAGAIN)
			return false;
		if (n <= 0) {
			/* Gone: dispatch says so, requests are moot. */
			sd->out_off = sd->out_len = 0;
			memset(sd->owed, 0, sizeof(sd->owed));
			sd->region_owed = false;
			return false;
		}
		sd->out_off += (size_t)n;
	}
	sd->out_off = sd->out_len = 0;
	return true;
}

/* The next request to send, once the last one is out. */
static void
load_request(struct server_device *sd, uint32_t op, uint32_t peer,
	     uint32_t arg)
{
	uint64_t wire = htole64((uint64_t)ivwl_srv_encode(op, peer, arg));

	memcpy(sd->out, &wire, sizeof(wire));
	sd->out_len = sizeof(wire);
}

/*
 * Sends what is owed until the socket is full; never blocks.  A REGION
 * goes first: a connection waits for it, a ring only makes the app look.
 */
static void
send_owed(struct server_device *sd)
{
	uint32_t w, bit;
	bool more = true;

	if (sd->region_owed) {
		more = send_out(sd);
		if (more) {
			sd->region_owed = false;
			load_request(sd, IVWL_SRV_REGION, 0, 0);
		}
	}
	for (w = 0; more && w * 64 < sd->dev.ring_vectors; w++) {
		while (more && sd->owed[w]) {
			more = send_out(sd);
			if (!more)
				break;
			bit = (uint32_t)__builtin_ctzll(sd->owed[w]);
			sd->owed[w] &= ~(1ull << bit);
			load_request(sd, IVWL_SRV_RING, IVWL_PEER_APP,
				     w * 64 + bit);
		}
	}
	if (more)
		send_out(sd);
	for (w = 0; w < MAX_VECTORS / 64; w++)
		if (sd->owed[w])
			break;
	want_write(sd, sd->out_len > 0 || sd->region_owed ||
		   w < MAX_VECTORS / 64);
}

void
ivwl_sdev_request_owed(struct server_device *sd)
{
	if (!defer.schedule || !pthread_equal(pthread_self(), defer.thread)) {
		send_owed(sd);
		return;
	}
	if (!sd->deferred) {
		sd->deferred = true;
		sd->defer_next = defer.pending;
		defer.pending = sd;
	}
	if (!defer.scheduled) {
		defer.scheduled = true;
		defer.schedule(defer.data);
	}
}

/* A request to the server; one already owed carries this one too. */
static int
server_request_ring(struct server_device *sd, uint32_t peer, uint32_t vector)
{
	/* The server rings only the app, for the display (its ACK said). */
	if (peer != IVWL_PEER_APP)
		return -EINVAL;
	if (sd->gone)
		return 0;
	sd->owed[vector / 64] |= 1ull << (vector % 64);
	ivwl_sdev_request_owed(sd);
	return 0;
}

static void
undefer(struct server_device *sd)
{
	struct server_device **p;

	for (p = &defer.pending; *p; p = &(*p)->defer_next)
		if (*p == sd) {
			*p = sd->defer_next;
			break;
		}
	sd->deferred = false;
}

void
ivwl_device_defer_rings(void (*schedule)(void *data), void *data)
{
	defer.schedule = schedule;
	defer.data = data;
	defer.thread = pthread_self();
	defer.scheduled = false;
	/* Whatever waits goes now: nobody would flush it. */
	if (!schedule)
		ivwl_device_flush_rings();
}

void
ivwl_device_flush_rings(void)
{
	struct server_device *sd;

	defer.scheduled = false;
	while ((sd = defer.pending)) {
		defer.pending = sd->defer_next;
		sd->deferred = false;
		send_owed(sd);
	}
}

static void
server_destroy(struct ivwl_device *dev)
{
	struct server_device *sd = to_server(dev);
	uint32_t id;

	/* Peers that stay hear our last doorbells (a display saying GONE). */
	if (sd->deferred) {
		undefer(sd);
		send_owed(sd);
	}
	for (id = 0; id < sd->npeers; id++) {
		ivwl_ringer_destroy(sd->peers[id].ringer, IVWL_RINGER_FLUSH_MS);
		sd->peers[id].ringer = NULL;
	}
	for (id = 0; id < sd->npeers; id++) {
		ivwl_sdev_peer_clear(&sd->peers[id]);
		free(sd->peers[id].fds);
	}
	free(sd->peers);
	if (sd->dev.base)
		munmap(sd->dev.base, sd->dev.size);
	close_fd(&sd->dev.region_fd);
	close_fd(&sd->partial_fd);
	close_fd(&sd->sock);
	free(sd);
}

static bool
server_peer_present(struct ivwl_device *dev, uint32_t peer)
{
	struct server_device *sd = to_server(dev);

	if (peer == sd->dev.peer_id)
		return true;
	return peer < sd->npeers && sd->peers[peer].present;
}

static int
server_ring(struct ivwl_device *dev, uint32_t peer, uint32_t vector)
{
	struct peer *p = &to_server(dev)->peers[peer];
	int ret;

	if (dev->server_rings)
		return server_request_ring(to_server(dev), peer, vector);

	/* Present: its fds are complete and stay until it leaves. */
	if (!p->ringer) {
		ret = ivwl_ringer_create(p->fds, p->nfds, &p->ringer);
		if (ret < 0)
			return ret;
	}
	return ivwl_ringer_ring(p->ringer, vector);
}

static int
server_vector_fd(struct ivwl_device *dev, uint32_t vector)
{
	struct server_device *sd = to_server(dev);

	return sd->peers[sd->dev.peer_id].fds[vector];
}

static int
server_event_fd(struct ivwl_device *dev)
{
	return to_server(dev)->sock;
}

static int
server_dispatch(struct ivwl_device *dev)
{
	struct server_device *sd = to_server(dev);
	int64_t value;
	int fd, i, ret;

	if (sd->fault)
		return sd->fault;
	if (sd->gone)
		return -ECONNRESET;
	if (sd->want_write)
		send_owed(sd);
	for (i = 0; i < DISPATCH_BUDGET; i++) {
		ret = ivwl_sdev_recv_message(sd, &value, &fd);
		if (ret == 0)
			return 0;
		if (ret == -EPROTO)
			continue;
		if (ret < 0) {
			/*
			 * Keep the socket: closing it would hand its fd
			 * number to someone else while callers still poll
			 * it.  At EOF it stays readable, so they see this.
			 */
			sd->gone = true;
			return ret == -EMFILE ? ret : -ECONNRESET;
		}
		ivwl_sdev_handle_message(sd, value, fd);
		if (sd->fault)
			return sd->fault;
	}
	return 0;
}

static int
server_export_doorbell(struct ivwl_device *dev, uint32_t peer,
		       uint32_t vector, struct ivwl_endpoint *ep)
{
	/* The server rings for us: we kept no fd to hand out. */
	if (dev->server_rings)
		return -EOPNOTSUPP;
	ep->doorbell_fd = fcntl(to_server(dev)->peers[peer].fds[vector],
				F_DUPFD_CLOEXEC, 0);
	if (ep->doorbell_fd < 0)
		return -errno;
	ep->doorbell_kind = IVWL_DOORBELL_EVENTFD;
	return 0;
}

static int
server_ring_health(struct ivwl_device *dev, uint32_t peer)
{
	struct peer *p = &to_server(dev)->peers[peer];

	return p->ringer ? ivwl_ringer_health(p->ringer) : 0;
}

static void
server_drop_vectors(struct ivwl_device *dev, uint32_t n)
{
	struct server_device *sd = to_server(dev);

	/* Own vectors too: ours are a peer entry like the others. */
	sd->dev.nr_vectors = n;
	ivwl_sdev_settle_peers(sd);
}

const struct ivwl_device_ops ivwl_sdev_ops = {
	.destroy = server_destroy,
	.ring = server_ring,
	.peer_present = server_peer_present,
	.vector_fd = server_vector_fd,
	.event_fd = server_event_fd,
	.dispatch = server_dispatch,
	.export_doorbell = server_export_doorbell,
	.ring_health = server_ring_health,
	.drop_vectors = server_drop_vectors,
	.region_ask = ivwl_sdev_region_ask,
};
