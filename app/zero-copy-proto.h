/* SPDX-License-Identifier: MIT */
/*
 * Zero-copy handshake between the shim, inside the client process, and
 * the relay serving that client's connection.  They talk over a
 * SOCK_SEQPACKET pair, one request and one reply at a time; the shim asks
 * synchronously from whichever client thread is about to send a pool's fd
 * or maps or unmaps such a file, so the relay always knows a grant before
 * the create_pool naming that file arrives on the Wayland stream.
 *
 * A grant is a heap range holding one shm file of the client: the shim has
 * moved the client's mappings of that file onto the range, so the client
 * draws straight into region memory and the relay copies nothing.  Files
 * are named by (st_dev, st_ino), which both processes see alike; an offer
 * carries the file's fd as well, so that no process can name a file it
 * does not hold.
 *
 * Multi-process apps (chromium: its GPU process makes and draws the
 * files, its browser process sends them on the Wayland socket) reach the
 * relay of their Wayland connection through a listening socket in the
 * abstract namespace, IVWL_ZC_SOCKET_PREFIX and the pid of the process
 * that connected.  The relay serves only processes of its own uid that
 * descend from that process; the shim talks only to a listener of its
 * own uid.  Such a process offers a file when it sends it to another
 * process (at least IVWL_ZC_SHARED_MIN bytes): it cannot know yet
 * whether the file becomes a Wayland buffer, so the relay bounds what it
 * grants this way and no pool uses yet: IVWL_ZC_UNCLAIMED_MAX per
 * process, IVWL_ZC_UNPROVEN_MAX while none of the process's files is a
 * buffer, IVWL_ZC_UNCLAIMED_APP_MAX for all of them; -EDQUOT past it.
 */
#ifndef IVWL_ZERO_COPY_PROTO_H
#define IVWL_ZERO_COPY_PROTO_H

#include <stdint.h>

enum ivwl_zc_op {
	/*
	 * Asks for a grant of size bytes for the file.  Reply: status, the
	 * range (offset and length in the region) and an fd over
	 * SCM_RIGHTS to map it through: with IVWL_ZC_GRANT_FD in flags a
	 * dma-buf of the grant alone (the guest driver's export: the client
	 * reaches nothing else of the region), mapped from offset 0; else
	 * the region's fd, mapped from the grant's offset.  -ENOSPC when the
	 * heap has no room for it.  The request carries the file's fd.
	 */
	IVWL_ZC_OFFER = 1,
	/*
	 * The client no longer maps the grant.  Without
	 * IVWL_ZC_COPIED_BACK the relay answers -EAGAIN when pools still use
	 * it: the shim must then write the grant back into the file and ask
	 * again with the flag, after which the relay copies from the file.
	 */
	IVWL_ZC_REVERT = 2,
	/*
	 * Another process of the app maps a file some process moved: the
	 * grant is where its pixels are now.  Carries the file's fd; the
	 * reply is that of IVWL_ZC_OFFER, or -ENOENT when no process moved
	 * it.  The grant stays while the follower maps it.
	 */
	IVWL_ZC_FOLLOW = 3,
	/* The follower no longer maps the grant of file (dev, ino). */
	IVWL_ZC_UNFOLLOW = 4,
};

#define IVWL_ZC_SOCKET_PREFIX "ivwl-zc."
/* The primary channel and the app's other processes, at most. */
#define IVWL_ZC_MAX_CHANNELS 64
#define IVWL_ZC_SHARED_MIN (512u << 10)
#define IVWL_ZC_UNCLAIMED_MAX (96ull << 20)
#define IVWL_ZC_UNPROVEN_MAX (32ull << 20)
#define IVWL_ZC_UNCLAIMED_APP_MAX (192ull << 20)

#define IVWL_ZC_COPIED_BACK (1u << 0)
/* In the reply to IVWL_ZC_OFFER: the fd is the grant's own dma-buf. */
#define IVWL_ZC_GRANT_FD (1u << 2)
/*
 * With IVWL_ZC_REVERT: the file has no name and no fd left in the client,
 * so nothing can write or read it again.  The grant holds the pixels for
 * good: pools still using it show it as it is, and no copy is needed.
 */
#define IVWL_ZC_GONE (1u << 1)

struct ivwl_zc_msg {
	uint32_t op;
	int32_t status;
	uint32_t flags;
	uint32_t pad;
	uint64_t dev;
	uint64_t ino;
	uint64_t size;
	uint64_t offset;
	uint64_t length;
};

#endif
