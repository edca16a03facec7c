/* SPDX-License-Identifier: MIT */
/*
 * What the Ghaf proxy (memsocket) does today: one shared buffer per
 * direction, stop-and-wait.  The sender copies a chunk in and rings the
 * receiver; the receiver copies it out and rings an ack; only then may the
 * next chunk go.  One doorbell per chunk and one per ack, always.
 *
 * Doorbells are eventfds shared by the two processes, as a host-side
 * ivshmem doorbell would be.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench.h"
#include "link.h"
#include "shm-access.h"

#define SW_HEADER 4096u

struct sw_header {
	uint32_t len;		/* bytes of the chunk in flight */
};

struct sw_dir {
	struct sw_header *header;
	uint8_t *data;
	int data_fd;		/* sender -> receiver: a chunk is ready */
	int ack_fd;		/* receiver -> sender: the buffer is free */
};

struct stopwait_link {
	struct ivwl_bench_link base;
	size_t buffer_size;
	void *map;
	size_t map_size;
	struct sw_dir dir[2];	/* [0] app -> display, [1] display -> app */
	struct sw_dir *tx, *rx;
};

static struct stopwait_link *
to_stopwait(struct ivwl_bench_link *link)
{
	return (struct stopwait_link *)link;
}

static int
doorbell_ring(struct stopwait_link *s, int fd)
{
	uint64_t one = 1;

	s->base.stats.doorbells++;
	return ivwl_bench_write_full(fd, &one, sizeof(one));
}

/* Blocks until the doorbell fd was rung at least once. */
static int
doorbell_wait(struct stopwait_link *s, int fd)
{
	uint64_t count;

	s->base.stats.sleeps++;
	return ivwl_bench_read_full(fd, &count, sizeof(count));
}

static int
stopwait_attach(struct ivwl_bench_link *link, enum ivwl_bench_role role,
		const char **err)
{
	struct stopwait_link *s = to_stopwait(link);

	s->tx = &s->dir[role == IVWL_BENCH_ROLE_APP ? 0 : 1];
	s->rx = &s->dir[role == IVWL_BENCH_ROLE_APP ? 1 : 0];
	return 0;
}

static int
stopwait_send(struct ivwl_bench_link *link, const void *buf, size_t len)
{
	struct stopwait_link *s = to_stopwait(link);
	const uint8_t *p = buf;
	size_t n;
	int ret;

	while (len) {
		n = len < s->buffer_size ? len : s->buffer_size;
		memcpy(s->tx->data, p, n);
		ivwl_shm_store_release(&s->tx->header->len, (uint32_t)n);
		ret = doorbell_ring(s, s->tx->data_fd);
		if (ret < 0)
			return ret;
		ret = doorbell_wait(s, s->tx->ack_fd);
		if (ret < 0)
			return ret;
		p += n;
		len -= n;
	}
	return 0;
}

static int
stopwait_recv(struct ivwl_bench_link *link, void *buf, size_t len)
{
	struct stopwait_link *s = to_stopwait(link);
	uint8_t *p = buf;
	uint32_t n;
	int ret;

	while (len) {
		ret = doorbell_wait(s, s->rx->data_fd);
		if (ret < 0)
			return ret;
		n = ivwl_shm_load_acquire(&s->rx->header->len);
		if (n == 0 || n > len || n > s->buffer_size)
			return -EPROTO;
		memcpy(p, s->rx->data, n);
		ret = doorbell_ring(s, s->rx->ack_fd);
		if (ret < 0)
			return ret;
		p += n;
		len -= n;
	}
	return 0;
}

static int
stopwait_flush(struct ivwl_bench_link *link)
{
	return 0;
}

static void
stopwait_destroy(struct ivwl_bench_link *link)
{
	struct stopwait_link *s = to_stopwait(link);
	int i;

	for (i = 0; i < 2; i++) {
		if (s->dir[i].data_fd >= 0)
			close(s->dir[i].data_fd);
		if (s->dir[i].ack_fd >= 0)
			close(s->dir[i].ack_fd);
	}
	if (s->map)
		munmap(s->map, s->map_size);
	free(s);
}

static const struct ivwl_bench_link_ops stopwait_ops = {
	.attach = stopwait_attach,
	.send = stopwait_send,
	.recv = stopwait_recv,
	.flush = stopwait_flush,
	.destroy = stopwait_destroy,
};

static int
map_buffers(struct stopwait_link *s)
{
	size_t per_dir = SW_HEADER + s->buffer_size;
	uint8_t *base;
	int fd, i;

	fd = memfd_create("ivwl-bench-stopwait", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	s->map_size = 2 * per_dir;
	if (ftruncate(fd, (off_t)s->map_size) < 0)
		goto err_fd;
	/* MAP_SHARED before fork: both processes see the same pages. */
	base = mmap(NULL, s->map_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		    fd, 0);
	if (base == MAP_FAILED)
		goto err_fd;
	close(fd);

	s->map = base;
	for (i = 0; i < 2; i++) {
		s->dir[i].header = (struct sw_header *)(base + i * per_dir);
		s->dir[i].data = base + i * per_dir + SW_HEADER;
	}
	return 0;

err_fd:
	close(fd);
	return -errno;
}

struct ivwl_bench_link *
ivwl_bench_link_stopwait_create(size_t buffer_size, const char **err)
{
	struct stopwait_link *s;
	int i;

	s = calloc(1, sizeof(*s));
	if (!s) {
		*err = "out of memory";
		return NULL;
	}
	s->base.ops = &stopwait_ops;
	s->base.name = "stopwait";
	s->buffer_size = buffer_size;
	for (i = 0; i < 2; i++)
		s->dir[i].data_fd = s->dir[i].ack_fd = -1;
	for (i = 0; i < 2; i++) {
		s->dir[i].data_fd = eventfd(0, EFD_CLOEXEC);
		s->dir[i].ack_fd = eventfd(0, EFD_CLOEXEC);
		if (s->dir[i].data_fd < 0 || s->dir[i].ack_fd < 0) {
			*err = "eventfd failed";
			goto err_free;
		}
	}
	if (map_buffers(s) < 0) {
		*err = "cannot map the stop-and-wait buffers";
		goto err_free;
	}
	return &s->base;

err_free:
	stopwait_destroy(&s->base);
	return NULL;
}
