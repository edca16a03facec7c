/* SPDX-License-Identifier: MIT */
/*
 * The ivwl path: slot 0 of a region served by ivwl-server.  The app side
 * produces on the request ring and consumes the event ring; the display
 * side the other way round.  Both sides receive doorbells on the slot's
 * vector and sleep exactly as ring.h prescribes:
 *
 *   nothing to do -> ivwl_ring_prepare_sleep -> poll -> drain -> woken
 *   progress made -> ivwl_ring_kick_needed   -> ring the peer
 *
 * Two policies on top, both within that protocol:
 *  - kick batches: a consumer asks ivwl_ring_kick_needed() only once it
 *    has freed space_batch bytes since it last asked, a producer once it
 *    has published data_batch bytes or finished a message; both always
 *    ask before they sleep or go idle.  By default both are half a ring:
 *    a producer asleep on a full ring is woken to half a ring of room
 *    instead of to one record's worth, a consumer asleep on an empty ring
 *    to half a ring of data or a whole message, whichever comes first;
 *  - spin: retry for spin_us before announcing a sleep (0: never).
 *
 * The "local" backend replaces ivwl-server and device.h by a memfd and two
 * eventfds made before fork, to tell the ring apart from the device layer.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "device.h"
#include "link.h"
#include "record.h"
#include "region.h"
#include "ring.h"

#define RING_SLOT 0u
#define RING_RECORD_TYPE IVWL_RECORD_CHANNEL_DATA
#define RING_RECORD_HEADER ((uint32_t)sizeof(struct ivwl_record_header))
#define ATTACH_TIMEOUT_MS 10000

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define cpu_relax() __asm__ __volatile__("yield")
#else
#define cpu_relax() __asm__ __volatile__("" ::: "memory")
#endif

struct ring_link {
	struct ivwl_bench_link base;
	struct ivwl_bench_ring_config config;
	pid_t owner;

	/* server backend, set up before fork */
	char dir[64];
	char app_socket[96];
	char display_socket[96];
	int server_pid;

	/* local backend, set up before fork */
	void *local_map;
	int local_fd[2];	/* one eventfd per peer: its slot vector */

	/* after attach */
	struct ivwl_device *dev;
	uint8_t *region;
	struct ivwl_layout layout;
	struct ivwl_ring tx, rx;
	uint32_t own_peer, peer, vector;
	int wait_fd;
	uint32_t chunk;
	uint32_t space_batch;
	uint32_t data_batch;
	uint32_t freed;		/* consumed bytes not yet offered to kick */
	uint32_t published;	/* produced bytes not yet offered to kick */
};

static struct ring_link *
to_ring(struct ivwl_bench_link *link)
{
	return (struct ring_link *)link;
}

static int
doorbell_ring(struct ring_link *r)
{
	uint64_t one = 1;
	ssize_t n;

	r->base.stats.doorbells++;
	if (r->dev)
		return ivwl_device_ring(r->dev, r->peer, r->vector);
	n = write(r->local_fd[r->peer], &one, sizeof(one));
	return n == sizeof(one) ? 0 : -EIO;
}

static void
doorbell_drain(struct ring_link *r)
{
	uint64_t count;

	if (r->dev)
		ivwl_device_vector_drain(r->dev, r->vector);
	else if (read(r->wait_fd, &count, sizeof(count)) < 0)
		return;	/* nothing pending: fine */
}

/* After publishing progress on ring: ring the peer if it sleeps. */
static int
kick(struct ring_link *r, struct ivwl_ring *ring)
{
	if (!ivwl_ring_kick_needed(ring))
		return 0;
	return doorbell_ring(r);
}

/* Offers the space freed on rx to a producer that may sleep on it. */
static int
kick_freed(struct ring_link *r)
{
	if (r->freed == 0)
		return 0;
	r->freed = 0;
	return kick(r, &r->rx);
}

/* Offers the records published on tx to a consumer that may sleep. */
static int
kick_published(struct ring_link *r)
{
	if (r->published == 0)
		return 0;
	r->published = 0;
	return kick(r, &r->tx);
}

/* Before going idle or to sleep: nothing may stay owed to the peer. */
static int
kick_owed(struct ring_link *r)
{
	int ret = kick_freed(r);

	if (ret == 0)
		ret = kick_published(r);
	return ret;
}

static int
poll_vector(struct ring_link *r)
{
	struct pollfd pfd = { .fd = r->wait_fd, .events = POLLIN };
	int ret;

	for (;;) {
		ret = poll(&pfd, 1, -1);
		if (ret > 0)
			return 0;
		if (ret < 0 && errno == EINTR && !ivwl_bench_child_died)
			continue;
		return ret < 0 ? -errno : -EIO;
	}
}

/*
 * Nothing to do on ring: sleep until the peer rings, unless it moved
 * while we announced the sleep.  Either way the caller just retries.
 */
static int
sleep_on(struct ring_link *r, struct ivwl_ring *ring)
{
	int ret;

	/* Never sleep while owing the peer a kick. */
	ret = kick_owed(r);
	if (ret < 0)
		return ret;

	if (!ivwl_ring_prepare_sleep(ring))
		return 0;
	r->base.stats.sleeps++;
	ret = poll_vector(r);
	doorbell_drain(r);
	ivwl_ring_woken(ring);
	return ret;
}

/* Optional busy-polling before sleeping; true while still spinning. */
static bool
keep_spinning(struct ring_link *r, uint64_t *deadline)
{
	uint64_t now;

	if (r->config.spin_us <= 0)
		return false;
	now = ivwl_bench_now_ns();
	if (*deadline == 0)
		*deadline = now + (uint64_t)r->config.spin_us * 1000;
	if (now >= *deadline)
		return false;
	cpu_relax();
	return true;
}

/*
 * ring had nothing for us (no room, or no record).  Pay what we owe the
 * peer first, since it may be asleep waiting for exactly that; then spin
 * while allowed, then sleep.  The caller retries either way.
 */
static int
wait_for(struct ring_link *r, struct ivwl_ring *ring, uint64_t *deadline)
{
	int ret;

	if (*deadline == 0) {
		ret = kick_owed(r);
		if (ret < 0)
			return ret;
	}
	if (keep_spinning(r, deadline))
		return 0;
	*deadline = 0;
	return sleep_on(r, ring);
}

static int
ring_send(struct ivwl_bench_link *link, const void *buf, size_t len)
{
	struct ring_link *r = to_ring(link);
	const uint8_t *p = buf;
	uint64_t deadline = 0;
	uint32_t n;
	void *dst;
	int ret;

	while (len) {
		n = len < r->chunk ? (uint32_t)len : r->chunk;
		ret = ivwl_ring_reserve(&r->tx, n, &dst);
		if (ret == -EAGAIN) {
			ret = wait_for(r, &r->tx, &deadline);
			if (ret < 0)
				return ret;
			continue;
		}
		if (ret < 0)
			return ret;
		memcpy(dst, p, n);
		ivwl_ring_commit(&r->tx, RING_RECORD_TYPE);
		p += n;
		len -= n;
		deadline = 0;

		r->published += n + RING_RECORD_HEADER;
		if (r->published > r->data_batch) {
			ret = kick_published(r);
			if (ret < 0)
				return ret;
		}
	}
	/* The message is out: the caller may go idle now. */
	return kick_published(r);
}

static int
ring_recv(struct ivwl_bench_link *link, void *buf, size_t len)
{
	struct ring_link *r = to_ring(link);
	uint8_t *p = buf;
	uint64_t deadline = 0;
	uint32_t cap;
	uint16_t type;
	int ret;

	while (len) {
		/* Framing is agreed: a record never straddles messages. */
		cap = len < UINT32_MAX ? (uint32_t)len : UINT32_MAX;
		ret = ivwl_ring_read(&r->rx, &type, p, cap);
		if (ret == -EAGAIN) {
			ret = wait_for(r, &r->rx, &deadline);
			if (ret < 0)
				return ret;
			continue;
		}
		if (ret < 0)
			return ret;
		if (type != RING_RECORD_TYPE || ret == 0)
			return -EPROTO;
		p += ret;
		len -= (size_t)ret;
		deadline = 0;

		r->freed += (uint32_t)ret + RING_RECORD_HEADER;
		if (r->freed > r->space_batch) {
			ret = kick_freed(r);
			if (ret < 0)
				return ret;
		}
	}
	return 0;
}

static int
ring_flush(struct ivwl_bench_link *link)
{
	return kick_owed(to_ring(link));
}

static int
open_device(struct ring_link *r, const char *path, const char **err)
{
	uint64_t deadline = ivwl_bench_now_ns() +
			    (uint64_t)ATTACH_TIMEOUT_MS * 1000000;
	struct timespec nap = { 0, 20 * 1000 * 1000 };
	int ret;

	/* The server may still be creating its sockets. */
	for (;;) {
		ret = ivwl_device_open_server(path, ATTACH_TIMEOUT_MS, &r->dev,
					      err);
		if (ret == 0)
			return 0;
		if (ivwl_bench_now_ns() > deadline || ivwl_bench_child_died)
			return ret;
		nanosleep(&nap, NULL);
	}
}

static int
wait_for_peer(struct ring_link *r, const char **err)
{
	uint64_t deadline = ivwl_bench_now_ns() +
			    (uint64_t)ATTACH_TIMEOUT_MS * 1000000;
	struct pollfd pfd;
	int ret;

	pfd.fd = ivwl_device_event_fd(r->dev);
	pfd.events = POLLIN;
	while (!ivwl_device_peer_present(r->dev, r->peer)) {
		if (ivwl_bench_now_ns() > deadline || pfd.fd < 0) {
			*err = "the other side never joined the region";
			return -ETIMEDOUT;
		}
		ret = poll(&pfd, 1, 100);
		if (ret < 0 && errno != EINTR)
			return -errno;
		if (ret > 0 && ivwl_device_dispatch(r->dev) < 0) {
			*err = "ivwl-server went away";
			return -ECONNRESET;
		}
	}
	return 0;
}

static int
attach_server(struct ring_link *r, enum ivwl_bench_role role,
	      const char **err)
{
	const char *path = role == IVWL_BENCH_ROLE_APP ? r->app_socket :
							 r->display_socket;
	int ret;

	ret = open_device(r, path, err);
	if (ret < 0)
		return ret;
	if (ivwl_device_peer_id(r->dev) != r->own_peer) {
		*err = "ivwl-server gave an unexpected peer id";
		return -EPROTO;
	}
	if (ivwl_device_nr_vectors(r->dev) <= r->vector) {
		*err = "ivwl-server has too few vectors";
		return -EINVAL;
	}
	ret = wait_for_peer(r, err);
	if (ret < 0)
		return ret;
	r->region = ivwl_device_base(r->dev);
	r->wait_fd = ivwl_device_vector_fd(r->dev, r->vector);
	return ivwl_layout_compute(ivwl_device_size(r->dev), &r->layout);
}

static int
attach_local(struct ring_link *r, const char **err)
{
	uint32_t size = r->config.local_ring_size;
	int ret;

	r->region = r->local_map;
	r->wait_fd = r->local_fd[r->own_peer];
	ret = ivwl_layout_compute(r->config.region_size, &r->layout);
	if (ret < 0 || !size)
		return ret;

	/* What-if: slot 0 with rings of another size than layout v1's. */
	r->layout.ring_size = size;
	r->layout.slot_stride = IVWL_PAGE_SIZE + 2ull * size;
	if (!ivwl_is_pow2(size) || size < IVWL_RING_MIN_SIZE ||
	    r->layout.slot_table_offset + r->layout.slot_stride >
	    r->layout.region_size) {
		*err = "local ring size must be a power of two that fits";
		return -EINVAL;
	}
	return 0;
}

/* A batch of a ring or more means: only before sleeping or idling. */
static uint32_t
batch_bytes(uint32_t configured, uint32_t automatic, uint32_t size)
{
	if (configured == IVWL_BENCH_KICK_BATCH_AUTO)
		return automatic;
	return configured < size ? configured : UINT32_MAX - 1;
}

static uint32_t
pick_chunk(const struct ring_link *r)
{
	uint32_t max = ivwl_ring_max_payload(&r->tx);
	/* A quarter ring minus the header: four records fill it exactly,
	 * no pad records, and four are in flight. */
	uint32_t chunk = r->config.chunk ? r->config.chunk :
			 r->layout.ring_size / 4 - RING_RECORD_HEADER;

	return chunk < max ? chunk : max;
}

static int
ring_attach(struct ivwl_bench_link *link, enum ivwl_bench_role role,
	    const char **err)
{
	struct ring_link *r = to_ring(link);
	struct ivwl_slot_view view;
	struct ivwl_ring_ctrl *tx_ctrl, *rx_ctrl;
	uint8_t *tx_data, *rx_data;
	uint32_t size;
	int ret;

	r->own_peer = role == IVWL_BENCH_ROLE_APP ? IVWL_PEER_APP :
						    IVWL_PEER_DISPLAY;
	r->peer = role == IVWL_BENCH_ROLE_APP ? IVWL_PEER_DISPLAY :
						IVWL_PEER_APP;
	r->vector = IVWL_DOORBELL_VECTOR;

	if (r->local_map)
		ret = attach_local(r, err);
	else
		ret = attach_server(r, role, err);
	if (ret < 0) {
		if (!*err)
			*err = "cannot attach to the region";
		return ret;
	}
	if (r->wait_fd < 0) {
		*err = "no fd for the slot vector";
		return -EINVAL;
	}

	ivwl_region_slot(r->region, &r->layout, RING_SLOT, &view);
	size = r->layout.ring_size;
	if (role == IVWL_BENCH_ROLE_APP) {
		tx_ctrl = &view.ctrl->request;
		tx_data = view.request_data;
		rx_ctrl = &view.ctrl->event;
		rx_data = view.event_data;
	} else {
		tx_ctrl = &view.ctrl->event;
		tx_data = view.event_data;
		rx_ctrl = &view.ctrl->request;
		rx_data = view.request_data;
	}
	if (ivwl_ring_init_producer(&r->tx, tx_ctrl, tx_data, size) < 0 ||
	    ivwl_ring_init_consumer(&r->rx, rx_ctrl, rx_data, size) < 0) {
		*err = "bad ring size";
		return -EINVAL;
	}
	r->chunk = pick_chunk(r);
	r->space_batch = batch_bytes(r->config.space_batch, size / 2, size);
	r->data_batch = batch_bytes(r->config.data_batch, size / 2, size);
	return 0;
}

static void
ring_destroy(struct ivwl_bench_link *link)
{
	struct ring_link *r = to_ring(link);
	int i;

	if (r->dev)
		ivwl_device_destroy(r->dev);
	for (i = 0; i < 2; i++)
		if (r->local_fd[i] >= 0)
			close(r->local_fd[i]);
	if (r->local_map)
		munmap(r->local_map, r->config.region_size);
	if (getpid() == r->owner && r->server_pid > 0) {
		ivwl_bench_server_stop(r->server_pid);
		unlink(r->app_socket);
		unlink(r->display_socket);
	}
	if (getpid() == r->owner && r->dir[0])
		rmdir(r->dir);
	free(r);
}

static const struct ivwl_bench_link_ops ring_ops = {
	.attach = ring_attach,
	.send = ring_send,
	.recv = ring_recv,
	.flush = ring_flush,
	.destroy = ring_destroy,
};

static int
create_local(struct ring_link *r, const char **err)
{
	void *map;
	int fd, i;

	for (i = 0; i < 2; i++) {
		r->local_fd[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (r->local_fd[i] < 0) {
			*err = "eventfd failed";
			return -errno;
		}
	}
	fd = memfd_create("ivwl-bench-region", MFD_CLOEXEC);
	if (fd < 0) {
		*err = "memfd_create failed";
		return -errno;
	}
	if (ftruncate(fd, (off_t)r->config.region_size) < 0)
		goto err_fd;
	map = mmap(NULL, r->config.region_size, PROT_READ | PROT_WRITE,
		   MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		goto err_fd;
	close(fd);
	r->local_map = map;
	return 0;

err_fd:
	*err = "cannot map a local region";
	close(fd);
	return -errno;
}

static int
create_server(struct ring_link *r, const char **err)
{
	strcpy(r->dir, "/tmp/ivwl-bench-XXXXXX");
	if (!mkdtemp(r->dir)) {
		r->dir[0] = '\0';
		*err = "cannot make a temporary directory";
		return -errno;
	}
	snprintf(r->app_socket, sizeof(r->app_socket), "%s/app.sock", r->dir);
	snprintf(r->display_socket, sizeof(r->display_socket),
		 "%s/display.sock", r->dir);
	return ivwl_bench_server_start(r->config.server_bin, r->app_socket,
				       r->display_socket,
				       r->config.region_size,
				       r->config.server_quiet, &r->server_pid,
				       err);
}

struct ivwl_bench_link *
ivwl_bench_link_ring_create(const struct ivwl_bench_ring_config *config,
			    const char **err)
{
	struct ivwl_layout layout;
	struct ring_link *r;
	int ret;

	if (ivwl_layout_compute(config->region_size, &layout) < 0) {
		*err = "region size must be a power of two, 2 MiB to 64 GiB";
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		*err = "out of memory";
		return NULL;
	}
	r->base.ops = &ring_ops;
	r->base.name = "ring";
	r->config = *config;
	r->owner = getpid();
	r->local_fd[0] = r->local_fd[1] = -1;
	r->wait_fd = -1;

	if (config->server_bin)
		ret = create_server(r, err);
	else
		ret = create_local(r, err);
	if (ret < 0) {
		ring_destroy(&r->base);
		return NULL;
	}
	return &r->base;
}

void
ivwl_bench_link_ring_info(struct ivwl_bench_link *link,
			  struct ivwl_bench_ring_info *info)
{
	struct ring_link *r = to_ring(link);

	info->size = r->layout.ring_size;
	info->chunk = r->chunk;
	info->space_batch = r->space_batch;
	info->data_batch = r->data_batch;
}
