/* SPDX-License-Identifier: MIT */
/*
 * ivwl-server's region file: a sealed memfd, or a file on a hugetlbfs
 * mount (--hugepages), apart from the server itself (ivwl-server.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "log.h"
#include "server.h"

static int
memfd_region(uint64_t size)
{
	int fd;

	fd = memfd_create("ivwl-region", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0) {
		ivwl_log("memfd_create: %s", strerror(errno));
		return -1;
	}
	if (ftruncate(fd, (off_t)size) < 0) {
		ivwl_log("cannot size the region to %" PRIu64 " bytes: %s",
			size, strerror(errno));
		goto err_close;
	}
	/*
	 * A peer that could shrink the file would make every other peer's
	 * mapping fault; F_SEAL_SEAL stops a peer adding F_SEAL_WRITE,
	 * which would keep later peers from mapping it writable.
	 */
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
		  F_SEAL_SEAL) < 0) {
		ivwl_log("cannot seal the region: %s", strerror(errno));
		goto err_close;
	}
	return fd;

err_close:
	close(fd);
	return -1;
}

static int
hugetlb_region(const char *dir, uint64_t size)
{
	struct statfs fs;
	char *path;
	int fd;

	if (asprintf(&path, "%s/ivwl-region.XXXXXX", dir) < 0) {
		ivwl_log("out of memory");
		return -1;
	}
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0) {
		ivwl_log("--hugepages: cannot create a file in %s: %s", dir,
			strerror(errno));
		free(path);
		return -1;
	}
	/* Nobody else may open it by name; it lives as long as its fds. */
	unlink(path);
	free(path);

	if (fstatfs(fd, &fs) < 0 || fs.f_type != HUGETLBFS_MAGIC) {
		ivwl_log("--hugepages: %s is not a hugetlbfs mount", dir);
		goto err_close;
	}
	if (fs.f_bsize > 0 && size % (uint64_t)fs.f_bsize != 0) {
		ivwl_log("--hugepages: the size is not a multiple of the huge "
			"page size of %s (%ld bytes)", dir, (long)fs.f_bsize);
		goto err_close;
	}
	if (ftruncate(fd, (off_t)size) < 0) {
		ivwl_log("--hugepages: cannot size the region to %" PRIu64
			" bytes in %s: %s", size, dir, strerror(errno));
		goto err_close;
	}
	return fd;

err_close:
	close(fd);
	return -1;
}

int
ivwl_server_region_open(const struct ivwl_server_options *opt)
{
	if (opt->hugepages_dir)
		return hugetlb_region(opt->hugepages_dir, opt->size);
	return memfd_region(opt->size);
}
