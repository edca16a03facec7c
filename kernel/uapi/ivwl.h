/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * ivwl: user API of the guest driver for QEMU ivshmem-doorbell
 * (PCI 1af4:1110).  One /dev/ivwlN per device.
 *
 * mmap(fd, offset) maps the shared region (BAR2) write-back; offset and
 * length must lie inside the region (ENXIO otherwise) and the mapping
 * must be MAP_SHARED (EINVAL otherwise).
 *
 * read(fd) returns struct ivwl_event records, one per own vector that was
 * rung since this open file last read it; poll() reports EPOLLIN while
 * there is one.  See struct ivwl_event.
 *
 * Every structure has fixed-width fields and explicit padding; the
 * layout is the same for 32- and 64-bit callers.
 *
 * Versioning: ivwl_info.abi is bumped only on incompatible changes.
 * Additions are announced by a bit in ivwl_info.flags, so that a program
 * built against this header can tell what the running driver offers: a
 * driver without the bit returns ENOTTY for the ioctl (EINVAL for read)
 * and user space falls back.  ABI 1 began with GET_INFO, DOORBELL and
 * SET_EVENTFD; EXPORT_DMABUF (IVWL_INFO_F_EXPORT), read/poll
 * (IVWL_INFO_F_READ) and the write-back report (IVWL_INFO_F_WB) were
 * added later without a bump.  The ioctl magic moved from 0xb7 (nsfs's
 * NSIO) to 0xd5, free in Documentation/userspace-api/ioctl/ioctl-number.rst,
 * before any release: a driver and a program on either side of that
 * change refuse each other's ioctls with ENOTTY.
 */
#ifndef _UAPI_LINUX_IVWL_H
#define _UAPI_LINUX_IVWL_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* Reported in ivwl_info.abi; bumped on incompatible changes only. */
#define IVWL_ABI_VERSION 1

/* ivwl_info.flags */
/*
 * The region has struct pages (devm_memremap_pages); else memremap().
 * Without it exported dma-bufs can be mmapped but not attached to a
 * device (EOPNOTSUPP from the importer's dma_buf_attach()).
 */
#define IVWL_INFO_F_PAGES (1u << 0)
/* IVWL_IOCTL_EXPORT_DMABUF is implemented. */
#define IVWL_INFO_F_EXPORT (1u << 1)
/* read() and poll() report doorbells (struct ivwl_event). */
#define IVWL_INFO_F_READ (1u << 2)
/*
 * The guest maps the region write-back (x86: PAT says so).  Without it
 * the mapping is uncached-minus, typically because firmware put BAR2 in
 * the MTRR-uncached 32-bit PCI hole and it could not be moved above
 * 4 GiB (module parameter move_high): every access is then uncached
 * where the hypervisor honours guest memory types (KVM with a passed-
 * through device).  Drivers from before this bit never set it.
 */
#define IVWL_INFO_F_WB (1u << 3)

/**
 * struct ivwl_info - what IVWL_IOCTL_GET_INFO returns
 * @abi: IVWL_ABI_VERSION of the driver
 * @ivposition: own peer id (the IVPosition register)
 * @nr_vectors: MSI-X vectors in use, our own doorbell vectors
 * @flags: IVWL_INFO_F_*
 * @shm_size: bytes of the region (BAR2)
 */
struct ivwl_info {
	__u32 abi;
	__u32 ivposition;
	__u32 nr_vectors;
	__u32 flags;
	__u64 shm_size;
};

/**
 * struct ivwl_doorbell - argument of IVWL_IOCTL_DOORBELL
 * @peer: peer id to ring, below the module parameter max_peers
 *	(default 2: ivwl-server's display peer 0 and app peer 1)
 * @vector: the peer's vector, below ivwl_info.nr_vectors
 * @flags: must be 0
 *
 * Anything else gets EINVAL.  Ringing one's own peer id is allowed
 * (QEMU delivers it to one's own vector).
 */
struct ivwl_doorbell {
	__u16 peer;
	__u16 vector;
	__u32 flags;
};

/**
 * struct ivwl_eventfd - argument of IVWL_IOCTL_SET_EVENTFD
 * @vector: one of our own vectors, below ivwl_info.nr_vectors
 * @fd: eventfd to signal on each interrupt on @vector, or -1 to unbind
 *
 * The binding belongs to the open file that made it (the struct file:
 * dup()ed and inherited fds of it are the same file and may rebind,
 * ring and read like the original) and goes away when that file is
 * released, that is when its last fd is closed.  While a vector is bound
 * through one open file, SET_EVENTFD on it through any other open file
 * of the device fails with EBUSY, unbinding included: a second process
 * opening the node cannot take over the first one's vectors.  Binding a
 * vector nobody has bound, or unbinding one that is not bound, works
 * from any open file.
 *
 * vector >= nr_vectors: EINVAL; fd < -1: EINVAL; fd not open: EBADF; not
 * an eventfd: EINVAL; bound through another open file: EBUSY.  (Early
 * ABI 1 drivers let the last caller win, without EBUSY.)
 */
struct ivwl_eventfd {
	__u32 vector;
	__s32 fd;
};

/**
 * struct ivwl_export - argument of IVWL_IOCTL_EXPORT_DMABUF
 * @offset: start of the range in the region
 * @size: length of the range
 * @flags: IVWL_EXPORT_F_*
 * @pad: must be 0
 *
 * Exports [offset, offset + size) of the region as a dma-buf.  The
 * ioctl returns the new dma-buf fd (O_CLOEXEC).  The dma-buf is read-only
 * unless flags has IVWL_EXPORT_F_RDWR, which needs /dev/ivwlN open for
 * writing (EACCES otherwise).  offset and size must be multiples of the
 * page size, size non-zero, the range inside the region, flags known and
 * pad 0: EINVAL otherwise.
 *
 * The dma-buf can be mmapped MAP_SHARED (EINVAL for MAP_PRIVATE or a
 * range beyond its size) and attached to devices when the region has
 * struct pages (IVWL_INFO_F_PAGES).  Read-only governs CPU mappings
 * only: importers map for DMA in both directions (DRM always does).
 * DMA_BUF_IOCTL_SYNC succeeds (the memory is cache-coherent) until the
 * device goes away (ENODEV).  The dma-buf keeps the driver's state
 * alive: once the PCI device is unbound its mappings raise SIGBUS, and
 * ivwl.ko cannot be unloaded while any dma-buf or open file exists.
 */
struct ivwl_export {
	__u64 offset;
	__u64 size;
	__u32 flags;
	__u32 pad;
};

/* ivwl_export.flags */
#define IVWL_EXPORT_F_RDWR (1u << 0)

/**
 * struct ivwl_event - what read() returns
 * @vector: one of our own vectors
 * @count: doorbells on it since this file last read it, saturated at
 *	2^32 - 1 (the rest comes in the next read)
 *
 * One record per own vector rung since this open
 * file last read that vector (each open file counts on its own, from
 * the moment it was opened).  The buffer must hold at least one record
 * (EINVAL otherwise); read() returns as many whole records as fit, never
 * the same vector twice, and resumes after the last vector it reported
 * so that a busy vector cannot starve the others.  With nothing pending
 * it blocks, or fails with EAGAIN under O_NONBLOCK.  Once the device is
 * gone read() fails with ENODEV and poll() reports EPOLLHUP | EPOLLERR.
 */
struct ivwl_event {
	__u32 vector;
	__u32 count;
};

/*
 * 0xd5 is free in Documentation/userspace-api/ioctl/ioctl-number.rst
 * (0xb7, used before, is nsfs's NSIO and remoteproc's).
 */
#define IVWL_IOCTL_MAGIC 0xd5

/**
 * define IVWL_IOCTL_GET_INFO - the device's &struct ivwl_info
 *
 * EFAULT for a bad pointer, ENODEV once the device is gone.
 */
#define IVWL_IOCTL_GET_INFO	_IOR(IVWL_IOCTL_MAGIC, 0, struct ivwl_info)

/**
 * define IVWL_IOCTL_DOORBELL - ring a peer's vector (&struct ivwl_doorbell)
 */
#define IVWL_IOCTL_DOORBELL	_IOW(IVWL_IOCTL_MAGIC, 1, struct ivwl_doorbell)

/**
 * define IVWL_IOCTL_SET_EVENTFD - bind or unbind a vector's eventfd
 *
 * See &struct ivwl_eventfd for who owns a binding.
 */
#define IVWL_IOCTL_SET_EVENTFD	_IOW(IVWL_IOCTL_MAGIC, 2, struct ivwl_eventfd)

/**
 * define IVWL_IOCTL_EXPORT_DMABUF - export a range of the region
 *
 * Returns the dma-buf's fd; see &struct ivwl_export.
 */
#define IVWL_IOCTL_EXPORT_DMABUF _IOW(IVWL_IOCTL_MAGIC, 3, struct ivwl_export)

#endif /* _UAPI_LINUX_IVWL_H */
