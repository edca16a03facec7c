/* SPDX-License-Identifier: MIT */
/*
 * Every bad argument of the node refused with the right errno: NULL and
 * unmapped pointers, unknown ioctls, doorbells, eventfds and exports out
 * of range, a read-only open file, mmaps of the node and of a dma-buf.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ivwl-ko-guest.h"

/* Each ioctl with an argument, and how its check names it. */
static const struct {
	unsigned long cmd;
	const char *what;	/* "NAME to" or "NAME from" */
} pointer_ioctls[] = {
	{ IVWL_IOCTL_GET_INFO, "GET_INFO to" },
	{ IVWL_IOCTL_DOORBELL, "DOORBELL from" },
	{ IVWL_IOCTL_SET_EVENTFD, "SET_EVENTFD from" },
	{ IVWL_IOCTL_EXPORT_DMABUF, "EXPORT_DMABUF from" },
};

/* Pointers: NULL and an address with nothing mapped. */
static void
check_bad_pointers(struct ivwl_guest *g)
{
	char what[64];
	size_t i;

	for (i = 0; i < sizeof(pointer_ioctls) / sizeof(pointer_ioctls[0]);
	     i++) {
		snprintf(what, sizeof(what), "%s NULL", pointer_ioctls[i].what);
		expect_ioctl_err(g->fd, pointer_ioctls[i].cmd, NULL, EFAULT,
				 what);
		snprintf(what, sizeof(what), "%s an unmapped page",
			 pointer_ioctls[i].what);
		expect_ioctl_err(g->fd, pointer_ioctls[i].cmd, g->hole, EFAULT,
				 what);
	}
}

void
check_bad_arguments(struct ivwl_guest *g)
{
	const struct ivwl_info *info = &g->info;
	uint64_t size = info->shm_size;
	struct ivwl_doorbell db;
	struct ivwl_eventfd ev;
	struct ivwl_event rec[2];
	int fd = g->fd, rofd, dfd;
	void *p;

	check_bad_pointers(g);

	/* Unknown commands, and known numbers with the wrong size. */
	expect_ioctl_err(fd, _IO(IVWL_IOCTL_MAGIC, 0x3f), NULL, ENOTTY,
			 "unknown ioctl");
	expect_ioctl_err(fd, _IO(IVWL_IOCTL_MAGIC, 4), NULL, ENOTTY,
			 "ioctl 4");
	expect_ioctl_err(fd, _IOR(IVWL_IOCTL_MAGIC, 0, uint32_t), &ev, ENOTTY,
			 "GET_INFO with a 4-byte argument");
	expect_ioctl_err(fd, _IOW(IVWL_IOCTL_MAGIC, 3, uint64_t), &ev, ENOTTY,
			 "EXPORT_DMABUF with an 8-byte argument");

	/* DOORBELL: vectors, peers, flags. */
	db = (struct ivwl_doorbell){ .peer = 0, .vector = info->nr_vectors };
	expect_ioctl_err(fd, IVWL_IOCTL_DOORBELL, &db, EINVAL,
			 "DOORBELL vector nr_vectors");
	db = (struct ivwl_doorbell){ .peer = 0, .vector = 0xffff };
	expect_ioctl_err(fd, IVWL_IOCTL_DOORBELL, &db, EINVAL,
			 "DOORBELL vector 0xffff");
	db = (struct ivwl_doorbell){ .peer = 2, .vector = 0 };
	expect_ioctl_err(fd, IVWL_IOCTL_DOORBELL, &db, EINVAL,
			 "DOORBELL peer 2 (max_peers 2)");
	db = (struct ivwl_doorbell){ .peer = 0xffff, .vector = 0 };
	expect_ioctl_err(fd, IVWL_IOCTL_DOORBELL, &db, EINVAL,
			 "DOORBELL peer 0xffff");
	db = (struct ivwl_doorbell){ .peer = 0, .vector = 0, .flags = 1 };
	expect_ioctl_err(fd, IVWL_IOCTL_DOORBELL, &db, EINVAL,
			 "DOORBELL flags 1");
	db = (struct ivwl_doorbell){ .peer = 0, .vector = 0,
				     .flags = 0x80000000u };
	expect_ioctl_err(fd, IVWL_IOCTL_DOORBELL, &db, EINVAL,
			 "DOORBELL flags 0x80000000");

	/* SET_EVENTFD */
	ev = (struct ivwl_eventfd){ .vector = info->nr_vectors, .fd = -1 };
	expect_ioctl_err(fd, IVWL_IOCTL_SET_EVENTFD, &ev, EINVAL,
			 "SET_EVENTFD vector nr_vectors");
	ev = (struct ivwl_eventfd){ .vector = 0xffffffffu, .fd = -1 };
	expect_ioctl_err(fd, IVWL_IOCTL_SET_EVENTFD, &ev, EINVAL,
			 "SET_EVENTFD vector 0xffffffff");
	ev = (struct ivwl_eventfd){ .vector = 0, .fd = -2 };
	expect_ioctl_err(fd, IVWL_IOCTL_SET_EVENTFD, &ev, EINVAL,
			 "SET_EVENTFD fd -2");
	ev = (struct ivwl_eventfd){ .vector = 0, .fd = 1000 };
	expect_ioctl_err(fd, IVWL_IOCTL_SET_EVENTFD, &ev, EBADF,
			 "SET_EVENTFD fd not open");
	ev = (struct ivwl_eventfd){ .vector = 0, .fd = fd };
	expect_ioctl_err(fd, IVWL_IOCTL_SET_EVENTFD, &ev, EINVAL,
			 "SET_EVENTFD fd not an eventfd");

	/* EXPORT_DMABUF: alignment, size, range, overflow, flags, pad. */
	expect_export_err(fd, 1, 4096, 0, 0, EINVAL, "EXPORT offset 1");
	expect_export_err(fd, 2048, 4096, 0, 0, EINVAL, "EXPORT offset 2048");
	expect_export_err(fd, 0, 0, 0, 0, EINVAL, "EXPORT size 0");
	expect_export_err(fd, 0, 100, 0, 0, EINVAL, "EXPORT size 100");
	expect_export_err(fd, 0, 4096 + 512, 0, 0, EINVAL,
			  "EXPORT size 4608");
	expect_export_err(fd, size, 4096, 0, 0, EINVAL,
			  "EXPORT at offset shm_size");
	expect_export_err(fd, size - 4096, 8192, 0, 0, EINVAL,
			  "EXPORT across the end");
	expect_export_err(fd, 0, size + 4096, 0, 0, EINVAL,
			  "EXPORT one page more than the region");
	expect_export_err(fd, 4096, -4096ull, 0, 0, EINVAL,
			  "EXPORT offset + size wraps to 0");
	expect_export_err(fd, -4096ull, 8192, 0, 0, EINVAL,
			  "EXPORT offset 2^64 - 4096");
	expect_export_err(fd, 1ull << 62, 4096, 0, 0, EINVAL,
			  "EXPORT offset 2^62");
	expect_export_err(fd, 0, 4096, 2, 0, EINVAL, "EXPORT flags 2");
	expect_export_err(fd, 0, 4096, 0x80000000u, 0, EINVAL,
			  "EXPORT flags 0x80000000");
	expect_export_err(fd, 0, 4096, IVWL_EXPORT_F_RDWR | 4, 0, EINVAL,
			  "EXPORT flags RDWR | 4");
	expect_export_err(fd, 0, 4096, 0, 1, EINVAL, "EXPORT pad 1");

	/* A read-only open file: no writable dma-buf, no writable mmap. */
	rofd = open(g->dev, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (rofd < 0) {
		bad("open %s O_RDONLY: %s", g->dev, strerror(errno));
	} else {
		expect_export_err(rofd, 0, 4096, IVWL_EXPORT_F_RDWR, 0, EACCES,
				  "EXPORT RDWR from an O_RDONLY file");
		expect_mmap_err(rofd, 4096, 0, PROT_READ | PROT_WRITE,
				MAP_SHARED, EACCES,
				"writable mmap of an O_RDONLY file");
		expect_mmap_err(rofd, 4096, 0, PROT_READ, MAP_PRIVATE, EINVAL,
				"MAP_PRIVATE mmap of an O_RDONLY file");
		p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, rofd, 0);
		if (p == MAP_FAILED)
			bad("read-only mmap of an O_RDONLY file: %s",
			    strerror(errno));
		else if (mprotect(p, 4096, PROT_READ | PROT_WRITE) == 0)
			bad("mprotect made a read-only mapping writable");
		if (p != MAP_FAILED)
			munmap(p, 4096);
		dfd = ivwl_export(rofd, 0, 4096, 0);
		if (dfd < 0)
			bad("read-only EXPORT from an O_RDONLY file: %s",
			    strerror(errno));
		else
			close(dfd);
		/* read(): buffer sizes, nothing pending */
		expect_read_err(rofd, rec, 0, EINVAL, "read of 0 bytes");
		expect_read_err(rofd, rec, sizeof(rec[0]) - 1, EINVAL,
				"read of 7 bytes");
		expect_read_err(rofd, rec, sizeof(rec), EAGAIN,
				"O_NONBLOCK read with nothing pending");
		close(rofd);
	}

	/* mmap of the node */
	expect_mmap_err(fd, size + 4096, 0, PROT_READ | PROT_WRITE, MAP_SHARED,
			ENXIO, "mmap one page more than the region");
	expect_mmap_err(fd, 4096, size, PROT_READ | PROT_WRITE, MAP_SHARED,
			ENXIO, "mmap at offset shm_size");
	expect_mmap_err(fd, 8192, size - 4096, PROT_READ | PROT_WRITE,
			MAP_SHARED, ENXIO, "mmap across the end");
	expect_mmap_err(fd, 4096, 1ull << 62, PROT_READ | PROT_WRITE,
			MAP_SHARED, ENXIO, "mmap at offset 2^62");
	expect_mmap_err(fd, 4096, 0, PROT_READ | PROT_WRITE, MAP_PRIVATE,
			EINVAL, "mmap MAP_PRIVATE");

	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 size - 4096);
	if (p == MAP_FAILED)
		bad("mmap of the last page: %s", strerror(errno));
	else
		munmap(p, 4096);

	/* mmap of a dma-buf: beyond its size, private, writable read-only */
	dfd = ivwl_export(fd, size - 8192, 8192, 0);
	if (dfd < 0) {
		bad("EXPORT of the last two pages: %s", strerror(errno));
		return;
	}
	expect_mmap_err(dfd, 12288, 0, PROT_READ, MAP_SHARED, EINVAL,
			"dma-buf mmap of 3 pages of 2");
	expect_mmap_err(dfd, 4096, 8192, PROT_READ, MAP_SHARED, EINVAL,
			"dma-buf mmap at offset 8192 of 8192");
	expect_mmap_err(dfd, 4096, 0, PROT_READ, MAP_PRIVATE, EINVAL,
			"dma-buf mmap MAP_PRIVATE");
	expect_mmap_err(dfd, 4096, 0, PROT_READ | PROT_WRITE, MAP_SHARED,
			EACCES, "writable mmap of a read-only dma-buf");
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, dfd, 4096);
	if (p == MAP_FAILED)
		bad("read-only mmap of the dma-buf's 2nd page: %s",
		    strerror(errno));
	else
		munmap(p, 4096);
	close(dfd);
}
