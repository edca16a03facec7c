/* SPDX-License-Identifier: MIT */
/*
 * Attaching to an ivshmem-doorbell server (ivwl-server, or QEMU's
 * contrib server) as a host peer, its client; device-ivshmem-client.c
 * serves the device once it is attached.
 *
 * The server speaks first and only: one little-endian int64 per message,
 * with at most one fd.  version 0; our id; -1 + the region fd; every other
 * peer's id with one eventfd per vector; our id with our own eventfds.
 *
 * The protocol never states the vector count.  We take it from the peers
 * announced before us when there are any, else from our own fds as they
 * arrive, waiting SETTLE_MS for stragglers once the socket runs dry.  Own
 * fds that arrive after open are refused, so nr_vectors never changes.
 *
 * Every peer says HELLO after its setup (server-msg.h): ivwl-server tells
 * a peer that a peer left only once it said it, since QEMU, which never
 * does, cannot take that news.  A server that drops the HELLO (QEMU's,
 * an older ivwl-server) is connected to again without it, and tells
 * every peer anyway.  A display whose ACK says the server rings for it
 * (IVWL_DEVICE_SERVER_RINGS) closes the peer's eventfds; one whose ACK
 * says it lends the region (IVWL_DEVICE_SERVER_BORROW) closes the
 * region's fd once it is mapped (device-ivshmem-client-region.c).
 */
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "device-ivshmem-client-internal.h"
#include "fdmsg.h"
#include "mono-time.h"
#include "region.h"
#include "server-msg.h"

#define PROTOCOL_VERSION 0
#define SHM_MESSAGE (-1)

/* How long to wait for more own vectors once the socket runs dry. */
#define SETTLE_MS 50
/* Retry period while the server's listen backlog is full. */
#define CONNECT_RETRY_MS 10
/* open_once: the server dropped our HELLO once, say none. */
#define OPEN_SILENT 0x80000000u

/* Like ivwl_sdev_recv_message, but waits until deadline (< 0: no limit). */
static int
wait_message(struct server_device *sd, int64_t deadline, int64_t *value,
	     int *fd)
{
	struct pollfd pfd = { .fd = sd->sock, .events = POLLIN };
	int ret;

	for (;;) {
		ret = ivwl_sdev_recv_message(sd, value, fd);
		if (ret != 0)
			return ret;
		ret = poll(&pfd, 1, ivwl_ms_left(deadline));
		if (ret < 0 && errno != EINTR)
			return -errno;
		if (ret == 0 && deadline >= 0 && ivwl_now_ms() >= deadline)
			return -ETIMEDOUT;
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

	if (value < 0 || value > IVWL_MAX_PEER_ID) {
		close_fd(&fd);
		*err = "server sent an invalid peer id";
		return -EPROTO;
	}
	/* Someone left while we were being set up. */
	if (fd < 0) {
		if ((uint32_t)value != sd->dev.peer_id &&
		    (uint32_t)value < sd->npeers)
			ivwl_sdev_peer_clear(&sd->peers[value]);
		return 0;
	}
	p = ivwl_sdev_peer_get(sd, (uint32_t)value);
	if (!p || ivwl_sdev_peer_add_fd(p, fd) < 0) {
		close_fd(&fd);
		*err = "too many vectors";
		return -E2BIG;
	}
	ivwl_sdev_count_only_unused(sd, p);
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
	sd->region_dev = st.st_dev;
	sd->region_ino = st.st_ino;
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
	if (value < 0 || value > IVWL_MAX_PEER_ID || fd >= 0) {
		close_fd(&fd);
		*err = "server sent no valid peer id";
		return -EPROTO;
	}
	sd->dev.peer_id = (uint32_t)value;
	if (!ivwl_sdev_peer_get(sd, sd->dev.peer_id)) {
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

/*
 * What the ACK's flags offer the display peer (the server serves it
 * alone) and it asked for: with IVWL_DEVICE_SERVER_RINGS, a server that
 * rings, so the peers' eventfds can go; with IVWL_DEVICE_SERVER_BORROW,
 * a server that lends the region, so its fd can go too.
 */
static void
take_offers(struct server_device *sd, uint32_t flags, uint32_t ack_flags)
{
	uint32_t id, i;

	if (sd->dev.peer_id != IVWL_PEER_DISPLAY)
		return;
	if ((flags & IVWL_DEVICE_SERVER_BORROW) &&
	    (ack_flags & IVWL_SRV_ACK_REGION)) {
		sd->dev.region_borrowed = true;
		close_fd(&sd->dev.region_fd);
	}
	if (!(flags & IVWL_DEVICE_SERVER_RINGS) ||
	    (ack_flags & IVWL_SRV_ACK_NO_RINGS))
		return;
	/* The server rings any vector it has; the app's fds can go. */
	sd->dev.server_rings = true;
	sd->dev.rings_by_number = true;
	for (id = 0; id < sd->npeers; id++)
		for (i = 0; id != sd->dev.peer_id && i < sd->peers[id].nfds;
		     i++)
			close_fd(&sd->peers[id].fds[i]);
}

/*
 * HELLO, then the ACK: peers that come and go meanwhile are handled as
 * after open.  -EPROTONOSUPPORT when the server hangs up on it (it does
 * not know the extension).
 */
static int
say_hello(struct server_device *sd, uint32_t flags, int64_t deadline,
	  const char **err)
{
	uint64_t wire = htole64((uint64_t)ivwl_srv_encode(IVWL_SRV_HELLO,
				sd->dev.peer_id, IVWL_SRV_VERSION));
	uint32_t peer, arg;
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
		ivwl_sdev_handle_message(sd, value, fd);
	}
	take_offers(sd, flags, peer);
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
	sd->dev.ops = &ivwl_sdev_ops;
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
	ivwl_sdev_settle_peers(sd);
	if (!(flags & OPEN_SILENT)) {
		ret = say_hello(sd, flags, deadline, err);
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
	/* The server left us for speaking: it rings nobody for us, lends
	 * nothing, and tells us of every join and leave unasked. */
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
