/* SPDX-License-Identifier: MIT */
/*
 * What every device backend (device-ivshmem-client.c, device-kernel.c)
 * fills in.  Private to protocol/device/: callers see only device.h.
 *
 * struct ivwl_device is the first member of each backend's own struct;
 * device.c answers the questions every backend answers the same way and
 * passes the rest to the backend's ops.
 */
#ifndef IVWL_DEVICE_BACKEND_H
#define IVWL_DEVICE_BACKEND_H

#include "device.h"

/*
 * The highest peer id: the doorbell register has 16 bits of it, and
 * QEMU's IVSHMEM_MAX_PEERS is the same; ids above it are not ivshmem.
 */
#define IVWL_MAX_PEER_ID 65535u

struct ivwl_device_ops {
	void (*destroy)(struct ivwl_device *dev);
	/* Peer present and vector in range: checked by device.c. */
	int (*ring)(struct ivwl_device *dev, uint32_t peer, uint32_t vector);
	bool (*peer_present)(struct ivwl_device *dev, uint32_t peer);
	/* Own vector, in range: checked by device.c.  An eventfd. */
	int (*vector_fd)(struct ivwl_device *dev, uint32_t vector);
	int (*event_fd)(struct ivwl_device *dev);
	int (*dispatch)(struct ivwl_device *dev);
	/*
	 * New fd and kind for ringing (peer, vector) from another process;
	 * checked like ring.  Sets ep->doorbell_kind and ep->doorbell_fd.
	 */
	int (*export_doorbell)(struct ivwl_device *dev, uint32_t peer,
			       uint32_t vector, struct ivwl_endpoint *ep);
	/* ivwl_device_ring_health; NULL: rings never get stuck. */
	int (*ring_health)(struct ivwl_device *dev, uint32_t peer);
	/*
	 * Lets go of vectors >= n, own and peers' (what it holds of the
	 * latter: nothing when rings_by_number); 0 < n < nr_vectors.
	 */
	void (*drop_vectors)(struct ivwl_device *dev, uint32_t n);
	/* ivwl_device_region_ask with region_borrowed and no fd held. */
	int (*region_ask)(struct ivwl_device *dev);
};

struct ivwl_device {
	const struct ivwl_device_ops *ops;
	void *base;
	uint64_t size;
	int region_fd;		/* what base maps, at offset 0; or -1 */
	/* region_fd is -1 but while borrowed (IVWL_DEVICE_SERVER_BORROW) */
	bool region_borrowed;
	ivwl_region_func_t region_listener;
	void *region_listener_data;
	const char *error;	/* ivwl_device_error */
	uint32_t peer_id;
	uint32_t nr_vectors;	/* own and every peer's */
	/*
	 * A peer's vectors this side can ring: nr_vectors, or all the
	 * device has when rings_by_number (a ring names the vector and
	 * needs no fd of it: the guest driver's doorbell ioctl).
	 */
	uint32_t ring_vectors;
	bool rings_by_number;
	ivwl_peer_func_t listener;
	void *listener_data;
	bool server_rings;	/* IVWL_DEVICE_SERVER_RINGS took */
	ivwl_write_func_t write_listener;
	void *write_listener_data;
};

/* Writes a u64 1; a saturated counter counts as rung. */
int
ivwl_eventfd_ring(int fd);

/*
 * Reads and returns the counter, 0 when nothing is pending.  Does not
 * block even when O_NONBLOCK was cleared behind our back (Linux 5.11+).
 */
uint64_t
ivwl_eventfd_drain(int fd);

/* IVWL_IOCTL_DOORBELL on an open /dev/ivwlN (device-kernel.c). */
int
ivwl_kernel_doorbell(int fd, uint32_t peer, uint32_t vector);

/* IVWL_IOCTL_EXPORT_DMABUF, read-write: the dma-buf fd or -errno. */
int
ivwl_kernel_export(int fd, uint64_t offset, uint64_t length);

#endif
