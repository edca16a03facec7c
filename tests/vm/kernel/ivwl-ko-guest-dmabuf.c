/* SPDX-License-Identifier: MIT */
/*
 * ivwl-ko-guest's exchange with host-peer through the region: the host
 * block read through the node's mapping, the reply written through a
 * dma-buf of its range, and vgem importing that dma-buf (a device
 * attachment).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/dma-buf.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ivwl-ko-guest.h"
#include "../probe.h"

/* The two DRM ioctls used on vgem (uapi drm.h; no libdrm in the image). */
struct ivwl_drm_prime_handle {
	uint32_t handle;
	uint32_t flags;
	int32_t fd;
};

struct ivwl_drm_gem_close {
	uint32_t handle;
	uint32_t pad;
};

#define IVWL_DRM_IOCTL_GEM_CLOSE _IOW('d', 0x09, struct ivwl_drm_gem_close)
#define IVWL_DRM_IOCTL_PRIME_FD_TO_HANDLE \
	_IOWR('d', 0x2e, struct ivwl_drm_prime_handle)

/* Returns an fd of the first DRM card (vgem), or -1. */
static int
open_card(void)
{
	char path[64];
	int i, fd;

	for (i = 0; i < 8; i++) {
		snprintf(path, sizeof(path), "/dev/dri/card%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd >= 0)
			return fd;
	}
	return -1;
}

/*
 * Imports dfd into vgem, a device attachment (dma_buf_attach and
 * dma_buf_map_attachment in the exporter), and keeps it: *card and
 * *handle for vgem_release().  Returns 0 or -errno.
 */
int
vgem_import_keep(int dfd, int *card, uint32_t *handle)
{
	struct ivwl_drm_prime_handle prime = { .fd = dfd };
	int ret;

	*card = open_card();
	if (*card < 0)
		return -ENODEV;
	if (ioctl(*card, IVWL_DRM_IOCTL_PRIME_FD_TO_HANDLE, &prime) < 0) {
		ret = -errno;
		close(*card);
		*card = -1;
		return ret;
	}
	*handle = prime.handle;
	return 0;
}

/* Drops the import: the exporter's unmap and detach.  0 or -errno. */
int
vgem_release(int card, uint32_t handle)
{
	struct ivwl_drm_gem_close gc = { .handle = handle };
	int ret = 0;

	if (ioctl(card, IVWL_DRM_IOCTL_GEM_CLOSE, &gc) < 0)
		ret = -errno;
	close(card);
	return ret;
}

int
vgem_import(int dfd)
{
	uint32_t handle;
	int card, ret;

	ret = vgem_import_keep(dfd, &card, &handle);
	if (ret == 0)
		ret = vgem_release(card, handle);
	return ret;
}

int
wait_for_host_block(struct ivwl_guest *g, int64_t deadline)
{
	struct probe_block *b, copy;
	uint64_t badw, sum;

	b = probe_block_at(g->base, &g->layout, PROBE_BLOCK_HOST);
	while (__atomic_load_n(&b->magic, __ATOMIC_ACQUIRE) !=
	       PROBE_MAGIC_HOST) {
		if (ivwl_now_ms() > deadline)
			return -1;
		usleep(1000);
	}
	memcpy(&copy, b, sizeof(copy));
	if (copy.length != PROBE_LENGTH) {
		bad("host block has length %" PRIu64, copy.length);
		return -1;
	}
	badw = probe_verify(probe_block_data(b), copy.length, copy.seed, &sum);
	if (badw != copy.length / 8 || sum != copy.checksum) {
		bad("host pattern wrong through the mmap at word %" PRIu64,
		    badw);
		return -1;
	}
	g->host_seed = copy.seed;
	say("host pattern OK through mmap: %" PRIu64 " bytes, seed 0x%016"
	    PRIx64, copy.length, copy.seed);
	return 0;
}

/*
 * The reply block (one header page and PROBE_LENGTH bytes) is written
 * through a dma-buf of exactly that range and checked through the
 * node's mapping; host-peer checks it on the host.  Returns the dma-buf
 * fd and its mapping, kept for the unbind test.
 */
int
reply_through_dmabuf(struct ivwl_guest *g, void **map, uint64_t *map_size)
{
	uint64_t off = g->layout.heap_offset + PROBE_BLOCK_REPLY * PROBE_AREA;
	uint64_t len = PROBE_DATA_OFFSET + PROBE_LENGTH, t, sum, badw;
	struct probe_block *b, *dev_b;
	uint64_t seed = g->host_seed ^ PROBE_REPLY_XOR;
	int dfd, ret;
	void *p;

	t = ivwl_now_us();
	dfd = ivwl_export(g->fd, off, len, IVWL_EXPORT_F_RDWR);
	t = ivwl_now_us() - t;
	if (dfd < 0) {
		bad("EXPORT of the reply block (0x%" PRIx64 "+0x%" PRIx64
		    "): %s", off, len, strerror(errno));
		return -1;
	}
	say("MEASURE EXPORT_DMABUF of %" PRIu64 " bytes: %" PRIu64 " us",
	    len, t);
	check_dmabuf_fd(dfd, len, true, "reply dma-buf");

	t = ivwl_now_us();
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, dfd, 0);
	t = ivwl_now_us() - t;
	if (p == MAP_FAILED) {
		bad("mmap of the reply dma-buf: %s", strerror(errno));
		close(dfd);
		return -1;
	}
	say("MEASURE dma-buf mmap of %" PRIu64 " bytes: %" PRIu64 " us",
	    len, t);

	if (dmabuf_sync(dfd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE) < 0)
		bad("DMA_BUF_IOCTL_SYNC start: %s", strerror(errno));
	b = p;
	b->seed = seed;
	b->length = PROBE_LENGTH;
	t = ivwl_now_us();
	b->checksum = probe_fill(probe_block_data(b), PROBE_LENGTH, seed);
	t = ivwl_now_us() - t;
	b->value = 0;
	if (dmabuf_sync(dfd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE) < 0)
		bad("DMA_BUF_IOCTL_SYNC end: %s", strerror(errno));
	say("MEASURE pattern fill of %llu bytes through the dma-buf "
	    "mapping: %" PRIu64 " us", PROBE_LENGTH, t);

	/* The same bytes through the node's mapping. */
	dev_b = probe_block_at(g->base, &g->layout, PROBE_BLOCK_REPLY);
	badw = probe_verify(probe_block_data(dev_b), PROBE_LENGTH, seed, &sum);
	if (badw != PROBE_LENGTH / 8 || sum != b->checksum ||
	    dev_b->seed != seed) {
		bad("dma-buf writes not seen through /dev mapping (word %"
		    PRIu64 ")", badw);
	} else {
		say("reply pattern written through the dma-buf is seen "
		    "through the /dev mapping");
	}

	if (g->vgem) {
		ret = vgem_import(dfd);
		if (ret)
			bad("vgem import of the reply dma-buf: %s",
			    strerror(-ret));
		else
			say("vgem imported the reply dma-buf (device "
			    "attachment mapped and released)");
	}

	/* Publish through the dma-buf too. */
	__atomic_store_n(&b->magic, PROBE_MAGIC_REPLY, __ATOMIC_RELEASE);
	say("reply block published through the dma-buf");
	*map = p;
	*map_size = len;
	return dfd;
}
