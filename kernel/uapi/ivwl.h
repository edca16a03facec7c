/* SPDX-License-Identifier: GPL-2.0-only WITH Linux-syscall-note */
/*
 * ivwl: user API of the guest driver for QEMU ivshmem-doorbell
 * (PCI 1af4:1110).  One /dev/ivwlN per device.
 *
 * mmap(fd, offset) maps the shared region (BAR2) write-back; offset and
 * length must lie inside the region (ENXIO otherwise) and the mapping
 * must be MAP_SHARED (EINVAL otherwise).
 *
 * Every structure has fixed-width fields and explicit padding; the
 * layout is the same for 32- and 64-bit callers.
 */
#ifndef _UAPI_LINUX_IVWL_H
#define _UAPI_LINUX_IVWL_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* Reported in ivwl_info.abi; bumped on incompatible changes. */
#define IVWL_ABI_VERSION 1

/* ivwl_info.flags */
/* The region has struct pages (devm_memremap_pages); else memremap(). */
#define IVWL_INFO_F_PAGES (1u << 0)

struct ivwl_info {
	__u32 abi;		/* IVWL_ABI_VERSION */
	__u32 ivposition;	/* own peer id (IVPosition register) */
	__u32 nr_vectors;	/* MSI-X vectors in use */
	__u32 flags;		/* IVWL_INFO_F_* */
	__u64 shm_size;		/* bytes of the region (BAR2) */
};

/* Rings (peer, vector).  vector >= nr_vectors or flags != 0: EINVAL. */
struct ivwl_doorbell {
	__u16 peer;
	__u16 vector;
	__u32 flags;		/* must be 0 */
};

/*
 * Binds an eventfd to one of our own vectors: each interrupt on it
 * signals the eventfd.  fd -1 unbinds.  The binding belongs to the open
 * file that made it and goes away when that file is closed.
 * vector >= nr_vectors: EINVAL; fd not open: EBADF; not an eventfd: EINVAL.
 */
struct ivwl_eventfd {
	__u32 vector;
	__s32 fd;
};

#define IVWL_IOCTL_MAGIC 0xb7

#define IVWL_IOCTL_GET_INFO	_IOR(IVWL_IOCTL_MAGIC, 0, struct ivwl_info)
#define IVWL_IOCTL_DOORBELL	_IOW(IVWL_IOCTL_MAGIC, 1, struct ivwl_doorbell)
#define IVWL_IOCTL_SET_EVENTFD	_IOW(IVWL_IOCTL_MAGIC, 2, struct ivwl_eventfd)
/* 3 is reserved for IVWL_IOCTL_EXPORT_DMABUF (not implemented yet). */

#endif /* _UAPI_LINUX_IVWL_H */
