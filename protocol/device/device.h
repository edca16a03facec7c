/* SPDX-License-Identifier: MIT */
/*
 * The device: one side's handle on a region and its doorbells, whatever
 * provides them.  Backends:
 *   device-ivshmem-client.c  a host process, a client of ivwl-server's
 *                            socket (device-ivshmem-client-open.c
 *                            attaches it)
 *   device-kernel.c          /dev/ivwlN of the guest driver (kernel/)
 *
 * A doorbell is (peer, vector).  Each side receives on its own vectors,
 * each vector being one waitable fd.
 */
#ifndef IVWL_DEVICE_H
#define IVWL_DEVICE_H

#include <stdbool.h>
#include <stdint.h>

struct ivwl_device;

/* Called from ivwl_device_dispatch() when a peer joins or leaves. */
typedef void (*ivwl_peer_func_t)(void *data, uint32_t peer, bool present);

/*
 * Attaches to an ivshmem-doorbell server socket (ivwl-server or QEMU's
 * contrib server) as a host peer.  Waits at most timeout_ms for the
 * region and this peer's own vectors.  0 or -errno; on failure *err
 * names what went wrong (static string).  Says HELLO (server-msg.h), so
 * that ivwl-server tells it when the other peer leaves; a server that
 * drops it for that is connected to again without it.
 */
int
ivwl_device_open_server(const char *socket_path, int timeout_ms,
			struct ivwl_device **out, const char **err);

/*
 * A flag of ivwl_device_open_server_flags, for the display peer of
 * ivwl-server: ask the server to ring the app for us (server-msg.h), so
 * that we keep none of its eventfds and need no thread to write them.
 * A server that does not know the request (QEMU's contrib server, an
 * older ivwl-server) hangs up on it: we connect again without it, and
 * ivwl_device_server_rings() says false, as it does when the ACK says
 * the server rings nobody (--no-rings).  Only peer id 0 (the display's
 * at ivwl-server) can have it: the server rings for the display alone.
 * The agent never asks.
 */
#define IVWL_DEVICE_SERVER_RINGS 0x2u
/*
 * Another flag of ivwl_device_open_server_flags: keep only vector 0's
 * eventfds, own and the peers', and count the others.  ivwl-server
 * hands over every vector of both peers at attach, 66 fds with
 * --vectors 33; a display that waits on vector 0 alone and rings by
 * number holds 2, even while dozens of VMs attach at once.  Then call
 * ivwl_device_use_vectors(dev, 1).
 */
#define IVWL_DEVICE_SERVER_VECTOR0 0x4u
/*
 * Another flag of ivwl_device_open_server_flags, for the display peer:
 * when the server's ACK offers the region again (IVWL_SRV_ACK_REGION,
 * server-msg.h), the device closes the region's fd once it is mapped and
 * borrows it from the server when it needs one: ivwl_device_region_fd()
 * is -1 until ivwl_device_region_ask() brings it (the region listener
 * says when), and ivwl_device_region_release() closes it again.  weston
 * keeps one fd per VM fewer.  Any other server (QEMU's contrib server, an
 * older ivwl-server, --no-lend) leaves the fd with the device, as without
 * the flag: ivwl_device_region_borrowed() says which.
 */
#define IVWL_DEVICE_SERVER_BORROW 0x8u

int
ivwl_device_open_server_flags(const char *socket_path, int timeout_ms,
			      uint32_t flags, struct ivwl_device **out,
			      const char **err);

/* Whether the server rings peers for us (IVWL_DEVICE_SERVER_RINGS). */
bool
ivwl_device_server_rings(struct ivwl_device *dev);

/*
 * With the server ringing for us, a ring is a request on the server
 * socket (the event fd); one the socket has no room for is owed, and
 * func(data, true) asks the caller to watch the event fd for writing as
 * well, and to call ivwl_device_dispatch() when it is: that sends what
 * is owed, and func(data, false) follows once all is out.
 */
typedef void (*ivwl_write_func_t)(void *data, bool want);

void
ivwl_device_set_write_listener(struct ivwl_device *dev,
			       ivwl_write_func_t func, void *data);

/*
 * For an event loop, like ivwl_ringer_defer_wakes: ring requests to the
 * server that this thread makes are only queued; schedule(data) is
 * called for the first of them after each flush, and the loop calls
 * ivwl_device_flush_rings() once its pass is done, which sends every
 * device's.  NULL: send at once again (what waits is sent now).
 */
void
ivwl_device_defer_rings(void (*schedule)(void *data), void *data);

void
ivwl_device_flush_rings(void);

/*
 * Opens /dev/ivwlN of the guest driver (kernel/ivwl.ko), maps the region
 * and binds an eventfd to each own vector.  The opener owns the device's
 * vectors: one process per device and side.  Every peer counts as
 * present (ivshmem tells a guest nothing about peers): read the other
 * side's block in the region instead.  0 or -errno: -ENOENT no node,
 * -EACCES not allowed, -ENOTTY not an ivwl device, -EPROTO another ABI
 * version; *err then says so in words (static string).
 */
int
ivwl_device_open_kernel(const char *path, uint32_t flags,
			struct ivwl_device **out, const char **err);

/*
 * A flag of ivwl_device_open_kernel: the region's fd never leaves this
 * process (weston's), so the vectors are bound through it and not a
 * second open file, which the agent needs because its clients get dups
 * of the region's fd.  One fd fewer per VM; the device then exports no
 * doorbell (-EPERM).
 */
#define IVWL_DEVICE_PRIVATE 0x1u

void
ivwl_device_destroy(struct ivwl_device *dev);

void *
ivwl_device_base(struct ivwl_device *dev);

uint64_t
ivwl_device_size(struct ivwl_device *dev);

uint32_t
ivwl_device_peer_id(struct ivwl_device *dev);

uint32_t
ivwl_device_nr_vectors(struct ivwl_device *dev);

/*
 * From now on only own vectors below n are waited on, and a peer's below
 * n rung unless the backend rings by number: the backend closes what it
 * holds for the others (ivwl-server hands every peer an eventfd per
 * vector, own and each peer's) and refuses more.  Call right after open;
 * nr_vectors becomes min(n, nr_vectors).
 */
void
ivwl_device_use_vectors(struct ivwl_device *dev, uint32_t n);

/*
 * The fd behind the mapping (memfd, hugetlbfs file or /dev/ivwlN), still
 * owned by the device: dup it to keep it.  Mapping it at offset 0 gives
 * the region.  -1 while a borrowed region's fd is not held.
 */
int
ivwl_device_region_fd(struct ivwl_device *dev);

/* Whether the region's fd is borrowed (IVWL_DEVICE_SERVER_BORROW). */
bool
ivwl_device_region_borrowed(struct ivwl_device *dev);

/*
 * Asks the server for a borrowed region's fd.  Never blocks: the ask is
 * a request on the server socket, sent or owed like a ring
 * (ivwl_device_set_write_listener, ivwl_device_defer_rings), and one ask
 * at a time is out however often this is called.  0, also when the fd is
 * held already; -EOPNOTSUPP when the region is not borrowed; -ECONNRESET
 * once the server is gone.
 *
 * The answer comes through ivwl_device_dispatch(), which calls the
 * region listener once the fd is held.  An answer that is not the file
 * the device mapped (another device or inode, smaller than the mapping,
 * not a regular file open for reading and writing) is refused: dispatch
 * returns -EPROTO from then on, ivwl_device_error() says why, and the
 * caller detaches as from a lost server.  An answer nobody asked for is
 * closed and dropped.
 */
int
ivwl_device_region_ask(struct ivwl_device *dev);

typedef void (*ivwl_region_func_t)(void *data);

void
ivwl_device_set_region_listener(struct ivwl_device *dev,
				ivwl_region_func_t func, void *data);

/* Closes a borrowed region's fd (the mapping stays); else nothing. */
void
ivwl_device_region_release(struct ivwl_device *dev);

/*
 * Why ivwl_device_dispatch() failed when the server broke the protocol
 * (a static string), NULL otherwise (it is merely gone).
 */
const char *
ivwl_device_error(struct ivwl_device *dev);

/*
 * How many of a peer's vectors ivwl_device_ring() takes.  Once vectors
 * are dropped (ivwl_device_use_vectors) that is what is left, except
 * with the guest driver, whose doorbell names any vector the device has.
 */
uint32_t
ivwl_device_ring_vectors(struct ivwl_device *dev);

/*
 * How many of our vectors, from 0 on, a doorbell really reaches: rings
 * each of vectors 1.. to our own peer id and waits up to timeout_ms for
 * them.  The guest driver sees the vectors of QEMU's vectors=, but QEMU
 * only delivers those the server gave eventfds for (its --vectors), and
 * the display's QEMU, which got ours from the same server, rings no
 * more.  Vector 0 is taken as working.  At most IVWL_PROBE_VECTORS_MAX.
 * Call before anyone else may ring us on the others.
 */
#define IVWL_PROBE_VECTORS_MAX 64u
uint32_t
ivwl_device_probe_vectors(struct ivwl_device *dev, int timeout_ms);

/*
 * -EINVAL for a vector out of range (ivwl_device_ring_vectors), -ENOENT
 * for an absent peer.  Never blocks.  With ivwl-server the doorbell is
 * written by a thread of the device (ringer.h) and may arrive just after
 * this returns; -ETIMEDOUT says the peer makes ringing impossible (it
 * keeps a write to its eventfd blocked), and stays until the peer
 * leaves.  When the server rings for us (IVWL_DEVICE_SERVER_RINGS) it
 * is a request to the server, sent now or owed
 * (ivwl_device_set_write_listener); a peer that blocks its eventfds then
 * only costs the server a bounded wait, and this never says -ETIMEDOUT.
 */
int
ivwl_device_ring(struct ivwl_device *dev, uint32_t peer, uint32_t vector);

/*
 * 0, or -ETIMEDOUT when ringing the peer became impossible for good, as
 * ivwl_device_ring would say; rings nothing and never blocks.
 */
int
ivwl_device_ring_health(struct ivwl_device *dev, uint32_t peer);

/* Readable while doorbells on own vector are pending; -1 when out of range. */
int
ivwl_device_vector_fd(struct ivwl_device *dev, uint32_t vector);

/*
 * Consumes pending doorbells of own vector; returns how many were seen.
 * Never blocks, even on an eventfd a peer cleared O_NONBLOCK on (Linux
 * 5.11 and later; see ivwl_eventfd_drain).
 */
uint64_t
ivwl_device_vector_drain(struct ivwl_device *dev, uint32_t vector);

/*
 * fd to watch for membership news, -1 when the backend has none.  When it
 * is readable, call ivwl_device_dispatch(): 0, or -ECONNRESET once the
 * server is gone (the mapping stays valid until destroy).
 */
int
ivwl_device_event_fd(struct ivwl_device *dev);

int
ivwl_device_dispatch(struct ivwl_device *dev);

bool
ivwl_device_peer_present(struct ivwl_device *dev, uint32_t peer);

void
ivwl_device_set_peer_listener(struct ivwl_device *dev, ivwl_peer_func_t func,
			      void *data);

/*
 * What another local process needs to use one slot without the device:
 * the region, a way to ring (peer, vector) and a fd to wait on for one of
 * our own vectors.  The agent hands these to shims over SCM_RIGHTS.
 */
enum ivwl_doorbell_kind {
	IVWL_DOORBELL_EVENTFD = 1,	/* write a u64 1 to doorbell_fd */
	IVWL_DOORBELL_IOCTL = 2,	/* IVWL_IOCTL_DOORBELL on doorbell_fd */
};

struct ivwl_endpoint {
	int region_fd;
	uint64_t region_size;
	uint32_t doorbell_kind;
	int doorbell_fd;
	uint32_t doorbell_peer;
	uint32_t doorbell_vector;
	int wait_fd;		/* an eventfd: read it to drain */
};

/*
 * Fills ep with new fds (the caller owns and closes them): ring
 * (peer, ring_vector), wait on own wait_vector.  -ENOENT when the peer is
 * absent, -EINVAL for vectors out of range.
 */
int
ivwl_device_export_endpoint(struct ivwl_device *dev, uint32_t peer,
			    uint32_t ring_vector, uint32_t wait_vector,
			    struct ivwl_endpoint *ep);

int
ivwl_endpoint_ring(const struct ivwl_endpoint *ep);

/* Consumes pending doorbells on wait_fd; returns how many. */
uint64_t
ivwl_endpoint_drain(const struct ivwl_endpoint *ep);

/*
 * A new fd that maps [offset, offset + length) of the region from its own
 * offset 0 and nothing else (the guest driver's dma-buf export), for a
 * process that must reach that range only.  -EOPNOTSUPP where the region
 * is one file for all (ivwl-server's), -errno otherwise.
 */
int
ivwl_endpoint_export_range(const struct ivwl_endpoint *ep, uint64_t offset,
			   uint64_t length);

void
ivwl_endpoint_close(struct ivwl_endpoint *ep);

#endif
