/* SPDX-License-Identifier: MIT */
/*
 * Device backend for a host process attached to an ivshmem-doorbell server
 * (ivwl-server, or QEMU's contrib server).
 *
 * The server speaks first and only: one little-endian int64 per message,
 * with at most one fd.  version 0; our id; -1 + the region fd; every other
 * peer's id with one eventfd per vector; our id with our own eventfds.
 * Later, id + fd adds one vector of a joining peer, a bare id says that
 * peer left.  Own vectors are the eventfds we read; a peer's vector v is
 * rung by writing to the v-th eventfd it came with.
 *
 * The protocol never states the vector count.  We take it from the peers
 * announced before us when there are any, else from our own fds as they
 * arrive, waiting SETTLE_MS for stragglers once the socket runs dry.  Own
 * fds that arrive after open are refused, so nr_vectors never changes.
 *
 * The eventfds we ring a peer through are the open file descriptions it
 * holds: it may clear O_NONBLOCK and fill them, so each peer we ring gets
 * a ringer, whose worker thread does the writing (ringer.h); no write to
 * them ever happens in the caller's thread.
 *
 * Every peer says HELLO after its setup (server-msg.h): ivwl-server tells
 * a peer that a peer left only once it said it, since QEMU, which never
 * does, cannot take that news.  A server that drops the HELLO (QEMU's,
 * an older ivwl-server) is connected to again without it, and tells
 * every peer anyway.
 *
 * Unless the server rings for us (IVWL_DEVICE_SERVER_RINGS): a display
 * whose HELLO ivwl-server answers with an ACK that rings keeps none of
 * the peer's eventfds and asks the server to ring, with one request on
 * the socket per ring; requests the socket has no room for are owed, and
 * sent by ivwl_device_dispatch() once it is writable.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "device-backend.h"
#include "fdmsg.h"
#include "mono-time.h"
#include "region.h"
#include "ringer.h"
#include "server-msg.h"

/* QEMU's IVSHMEM_MAX_PEERS: ids above it are not ivshmem. */
#define MAX_PEER_ID 65535u
#define MAX_VECTORS 1024u
#define PROTOCOL_VERSION 0
#define SHM_MESSAGE (-1)

/* How long to wait for more own vectors once the socket runs dry. */
#define SETTLE_MS 50
/* Messages handled per dispatch call: the event fd stays readable. */
#define DISPATCH_BUDGET 1024
/* Retry period while the server's listen backlog is full. */
#define CONNECT_RETRY_MS 10
/* open_once: the server dropped our HELLO once, say none. */
#define OPEN_SILENT 0x80000000u

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
};

static const struct ivwl_device_ops server_ops;

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

static void
close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void
peer_clear(struct peer *p)
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

static struct peer *
peer_get(struct server_device *sd, uint32_t id)
{
	struct peer *peers;
	uint32_t n;

	if (id < sd->npeers)
		return &sd->peers[id];
	if (id > MAX_PEER_ID)
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

static int
peer_add_fd(struct peer *p, int fd)
{
	int *fds;
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
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	p->fds[p->nfds++] = fd;
	return 0;
}

/*
 * 1 and a message, 0 when none is complete yet, -EPROTO for a message
 * with more than one fd (dropped), -EMFILE for one whose fd we could not
 * take, -ECONNRESET when the server is gone.
 */
static int
recv_message(struct server_device *sd, int64_t *value, int *fd)
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

/* Like recv_message, but waits until deadline (< 0: no limit). */
static int
wait_message(struct server_device *sd, int64_t deadline, int64_t *value,
	     int *fd)
{
	struct pollfd pfd = { .fd = sd->sock, .events = POLLIN };
	int ret;

	for (;;) {
		ret = recv_message(sd, value, fd);
		if (ret != 0)
			return ret;
		ret = poll(&pfd, 1, ivwl_ms_left(deadline));
		if (ret < 0 && errno != EINTR)
			return -errno;
		if (ret == 0 && deadline >= 0 && ivwl_now_ms() >= deadline)
			return -ETIMEDOUT;
	}
}

/*
 * The vector peer_add_fd() just added is counted; its fd is closed at
 * once when we will neither wait on it nor write it: another peer's,
 * when the server rings for us; any but vector 0, with
 * IVWL_DEVICE_SERVER_VECTOR0.
 */
static void
count_only_unused(struct server_device *sd, struct peer *p)
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
	peer_clear(p);
	if (was_present && sd->dev.listener)
		sd->dev.listener(sd->dev.listener_data, id, false);
}

/*
 * One message after open.  A misbehaving server gets its message dropped,
 * as QEMU does: it is trusted, and dropping keeps every state consistent.
 */
static void
handle_message(struct server_device *sd, int64_t value, int fd)
{
	struct peer *p;

	if (value < 0 || value > MAX_PEER_ID || (uint32_t)value ==
	    sd->dev.peer_id) {
		close_fd(&fd);
		return;
	}
	if (fd < 0) {
		peer_left(sd, (uint32_t)value);
		return;
	}
	p = peer_get(sd, (uint32_t)value);
	if (!p || p->nfds >= sd->dev.nr_vectors || peer_add_fd(p, fd) < 0) {
		close_fd(&fd);
		return;
	}
	count_only_unused(sd, p);
	if (p->nfds == sd->dev.nr_vectors) {
		p->present = true;
		if (sd->dev.listener)
			sd->dev.listener(sd->dev.listener_data,
					 (uint32_t)value, true);
	}
}

static int
connect_server(const char *path, int64_t deadline, const char **err)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd, ret;

	if (strlen(path) >= sizeof(addr.sun_path)) {
		*err = "socket path too long";
		return -ENAMETOOLONG;
	}
	strcpy(addr.sun_path, path);

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		*err = "cannot create a socket";
		return -errno;
	}
	/* EAGAIN: the server's backlog is full, it has not accepted yet. */
	while (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		ret = errno;
		if (ret == EINTR)
			continue;
		if (ret != EAGAIN) {
			*err = "cannot connect to the server socket";
			close(fd);
			return -ret;
		}
		if (deadline >= 0 && ivwl_now_ms() >= deadline) {
			*err = "timed out connecting to the server socket";
			close(fd);
			return -ETIMEDOUT;
		}
		poll(NULL, 0, CONNECT_RETRY_MS);
	}
	return fd;
}

/* A message before the region: peers announced before us, or ours. */
static int
setup_peer_message(struct server_device *sd, int64_t value, int fd,
		   const char **err)
{
	struct peer *p;

	if (value < 0 || value > MAX_PEER_ID) {
		close_fd(&fd);
		*err = "server sent an invalid peer id";
		return -EPROTO;
	}
	/* Someone left while we were being set up. */
	if (fd < 0) {
		if ((uint32_t)value != sd->dev.peer_id &&
		    (uint32_t)value < sd->npeers)
			peer_clear(&sd->peers[value]);
		return 0;
	}
	p = peer_get(sd, (uint32_t)value);
	if (!p || peer_add_fd(p, fd) < 0) {
		close_fd(&fd);
		*err = "too many vectors";
		return -E2BIG;
	}
	count_only_unused(sd, p);
	return 0;
}

static int
map_region(struct server_device *sd, int fd, const char **err)
{
	struct ivwl_layout layout;
	struct stat st;

	sd->dev.region_fd = fd;
	if (fstat(fd, &st) < 0) {
		*err = "cannot stat the region fd";
		return -errno;
	}
	if (st.st_size < 0 ||
	    ivwl_layout_compute((uint64_t)st.st_size, &layout) < 0) {
		*err = st.st_size < 0 ? "the region has a negative size" :
		       ivwl_region_size_problem((uint64_t)st.st_size);
		return -EINVAL;
	}
	sd->dev.size = (uint64_t)st.st_size;
	sd->dev.base = mmap(NULL, sd->dev.size, PROT_READ | PROT_WRITE,
			    MAP_SHARED, fd, 0);
	if (sd->dev.base == MAP_FAILED) {
		sd->dev.base = NULL;
		*err = "cannot map the region";
		return -errno;
	}
	return 0;
}

/* Version, id, then anything until the region comes. */
static int
receive_region(struct server_device *sd, int64_t deadline, const char **err)
{
	int64_t value;
	int fd, ret;

	ret = wait_message(sd, deadline, &value, &fd);
	if (ret < 0)
		goto err_recv;
	if (value != PROTOCOL_VERSION || fd >= 0) {
		close_fd(&fd);
		*err = "server speaks another protocol version";
		return -EPROTO;
	}

	ret = wait_message(sd, deadline, &value, &fd);
	if (ret < 0)
		goto err_recv;
	if (value < 0 || value > MAX_PEER_ID || fd >= 0) {
		close_fd(&fd);
		*err = "server sent no valid peer id";
		return -EPROTO;
	}
	sd->dev.peer_id = (uint32_t)value;
	if (!peer_get(sd, sd->dev.peer_id)) {
		*err = "out of memory";
		return -ENOMEM;
	}

	for (;;) {
		ret = wait_message(sd, deadline, &value, &fd);
		if (ret < 0)
			goto err_recv;
		if (value != SHM_MESSAGE) {
			ret = setup_peer_message(sd, value, fd, err);
			if (ret < 0)
				return ret;
			continue;
		}
		if (fd < 0) {
			*err = "server sent a region message without fd";
			return -EPROTO;
		}
		return map_region(sd, fd, err);
	}

err_recv:
	switch (ret) {
	case -ETIMEDOUT:
		*err = "timed out waiting for the region";
		break;
	case -ECONNRESET:
		*err = "server closed the connection (is the role taken?)";
		break;
	case -EPROTO:
		*err = "server sent a message with several fds";
		break;
	case -EMFILE:
		*err = "cannot take an fd the server sent";
		break;
	default:
		*err = "cannot read from the server";
		break;
	}
	return ret;
}

/* The most vectors any peer announced before us: ours are as many. */
static uint32_t
expected_vectors(struct server_device *sd)
{
	uint32_t id, n = 0;

	for (id = 0; id < sd->npeers; id++)
		if (id != sd->dev.peer_id && sd->peers[id].nfds > n)
			n = sd->peers[id].nfds;
	return n;
}

static int
receive_own_vectors(struct server_device *sd, int64_t deadline,
		    const char **err)
{
	struct peer *own = &sd->peers[sd->dev.peer_id];
	uint32_t expected = expected_vectors(sd);
	int64_t value, settle;
	int fd, ret;

	while (expected == 0 || own->nfds < expected) {
		settle = deadline;
		if (own->nfds > 0 && expected == 0) {
			settle = ivwl_now_ms() + SETTLE_MS;
			if (deadline >= 0 && deadline < settle)
				settle = deadline;
		}
		ret = wait_message(sd, settle, &value, &fd);
		if (ret == -ETIMEDOUT && own->nfds > 0)
			break;
		if (ret == -EPROTO)
			continue;
		if (ret < 0) {
			*err = ret == -ETIMEDOUT ?
			       "timed out waiting for own vectors" :
			       ret == -EMFILE ?
			       "cannot take an fd the server sent" :
			       "server closed the connection during setup";
			return ret;
		}
		if (value == SHM_MESSAGE) {
			close_fd(&fd);
			continue;
		}
		ret = setup_peer_message(sd, value, fd, err);
		if (ret < 0)
			return ret;
		/* A peer joining after our vectors ends the burst. */
		if (fd >= 0 && (uint32_t)value != sd->dev.peer_id &&
		    own->nfds > 0)
			break;
		/* A peer that left is no guide to our count any more. */
		if (fd < 0)
			expected = expected_vectors(sd);
	}

	sd->dev.nr_vectors = own->nfds;
	sd->dev.ring_vectors = own->nfds;
	if (sd->dev.nr_vectors == 0) {
		*err = "server sent no vectors";
		return -EPROTO;
	}
	return 0;
}

/* Trims peers to our vector count and marks the complete ones present. */
static void
settle_peers(struct server_device *sd)
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

/*
 * HELLO, then the ACK: peers that come and go meanwhile are handled as
 * after open.  -EPROTONOSUPPORT when the server hangs up on it (it does
 * not know the extension).  With want_rings, a display whose ACK says
 * the server rings closes the peers' eventfds.
 */
static int
say_hello(struct server_device *sd, bool want_rings, int64_t deadline,
	  const char **err)
{
	uint64_t wire = htole64((uint64_t)ivwl_srv_encode(IVWL_SRV_HELLO,
				sd->dev.peer_id, IVWL_SRV_VERSION));
	uint32_t id, i, peer, arg;
	int64_t value;
	ssize_t n;
	int fd, ret;

	/* A fresh socket has room for 8 bytes: all or nothing. */
	n = ivwl_fdmsg_send(sd->sock, &wire, sizeof(wire), NULL, 0,
			    MSG_DONTWAIT);
	if (n == -EPIPE || n == -ECONNRESET)
		return -EPROTONOSUPPORT;
	if (n != (ssize_t)sizeof(wire)) {
		*err = "cannot say hello to the server";
		return n < 0 ? (int)n : -EIO;
	}
	for (;;) {
		ret = wait_message(sd, deadline, &value, &fd);
		if (ret == -EPROTO)
			continue;
		if (ret == -ECONNRESET)
			return -EPROTONOSUPPORT;
		if (ret < 0) {
			*err = ret == -ETIMEDOUT ?
			       "timed out waiting for the server's answer "
			       "to hello" :
			       "cannot read the server's answer to hello";
			return ret;
		}
		if (fd < 0 && ivwl_srv_decode(value, &peer, &arg) ==
		    IVWL_SRV_ACK)
			break;
		handle_message(sd, value, fd);
	}
	/* The server rings for the display peer only. */
	if (!want_rings || sd->dev.peer_id != IVWL_PEER_DISPLAY ||
	    (peer & IVWL_SRV_ACK_NO_RINGS))
		return 0;
	/* The server rings any vector it has; the app's fds can go. */
	sd->dev.server_rings = true;
	sd->dev.rings_by_number = true;
	for (id = 0; id < sd->npeers; id++)
		for (i = 0; id != sd->dev.peer_id && i < sd->peers[id].nfds;
		     i++)
			close_fd(&sd->peers[id].fds[i]);
	return 0;
}

static int
open_once(const char *socket_path, int64_t deadline, uint32_t flags,
	  struct ivwl_device **out, const char **err)
{
	struct server_device *sd;
	int ret;

	sd = calloc(1, sizeof(*sd));
	if (!sd) {
		*err = "out of memory";
		return -ENOMEM;
	}
	sd->dev.ops = &server_ops;
	sd->partial_fd = -1;
	sd->dev.region_fd = -1;
	sd->vector0_only = flags & IVWL_DEVICE_SERVER_VECTOR0;

	sd->sock = connect_server(socket_path, deadline, err);
	if (sd->sock < 0) {
		ret = sd->sock;
		goto err_free;
	}
	ret = receive_region(sd, deadline, err);
	if (ret < 0)
		goto err_destroy;
	ret = receive_own_vectors(sd, deadline, err);
	if (ret < 0)
		goto err_destroy;
	settle_peers(sd);
	if (!(flags & OPEN_SILENT)) {
		ret = say_hello(sd, flags & IVWL_DEVICE_SERVER_RINGS,
				deadline, err);
		if (ret < 0)
			goto err_destroy;
	}

	*out = &sd->dev;
	return 0;

err_destroy:
	ivwl_device_destroy(&sd->dev);
	return ret;
err_free:
	free(sd);
	return ret;
}

int
ivwl_device_open_server_flags(const char *socket_path, int timeout_ms,
			      uint32_t flags, struct ivwl_device **out,
			      const char **err)
{
	int64_t deadline = timeout_ms < 0 ? -1 : ivwl_now_ms() + timeout_ms;
	const char *dummy;
	int ret;

	if (!err)
		err = &dummy;
	*err = NULL;
	*out = NULL;
	ret = open_once(socket_path, deadline, flags, out, err);
	if (ret != -EPROTONOSUPPORT)
		return ret;
	/* The server left us for speaking: it rings nobody for us, and
	 * tells us of every join and leave without being asked. */
	*err = NULL;
	return open_once(socket_path, deadline,
			 (flags & ~IVWL_DEVICE_SERVER_RINGS) | OPEN_SILENT, out,
			 err);
}

int
ivwl_device_open_server(const char *socket_path, int timeout_ms,
			struct ivwl_device **out, const char **err)
{
	return ivwl_device_open_server_flags(socket_path, timeout_ms, 0, out,
					     err);
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
			/* Gone: dispatch says so, rings are moot. */
			sd->out_off = sd->out_len = 0;
			memset(sd->owed, 0, sizeof(sd->owed));
			return false;
		}
		sd->out_off += (size_t)n;
	}
	sd->out_off = sd->out_len = 0;
	return true;
}

/* Sends what is owed until the socket is full; never blocks. */
static void
send_owed(struct server_device *sd)
{
	uint32_t w, bit;
	uint64_t wire;
	bool more = true;

	for (w = 0; more && w * 64 < sd->dev.ring_vectors; w++) {
		while (more && sd->owed[w]) {
			more = send_out(sd);
			if (!more)
				break;
			bit = (uint32_t)__builtin_ctzll(sd->owed[w]);
			sd->owed[w] &= ~(1ull << bit);
			wire = htole64((uint64_t)ivwl_srv_encode(IVWL_SRV_RING,
					IVWL_PEER_APP, w * 64 + bit));
			memcpy(sd->out, &wire, sizeof(wire));
			sd->out_len = sizeof(wire);
		}
	}
	if (more)
		send_out(sd);
	for (w = 0; w < MAX_VECTORS / 64; w++)
		if (sd->owed[w])
			break;
	want_write(sd, sd->out_len > 0 || w < MAX_VECTORS / 64);
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
	if (!defer.schedule || !pthread_equal(pthread_self(), defer.thread)) {
		send_owed(sd);
		return 0;
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
		peer_clear(&sd->peers[id]);
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

	if (sd->gone)
		return -ECONNRESET;
	if (sd->want_write)
		send_owed(sd);
	for (i = 0; i < DISPATCH_BUDGET; i++) {
		ret = recv_message(sd, &value, &fd);
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
		handle_message(sd, value, fd);
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
	settle_peers(sd);
}

static const struct ivwl_device_ops server_ops = {
	.destroy = server_destroy,
	.ring = server_ring,
	.peer_present = server_peer_present,
	.vector_fd = server_vector_fd,
	.event_fd = server_event_fd,
	.dispatch = server_dispatch,
	.export_doorbell = server_export_doorbell,
	.ring_health = server_ring_health,
	.drop_vectors = server_drop_vectors,
};
