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
 * are named by (st_dev, st_ino), which both processes see alike.
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
	 * heap has no room for it.
	 */
	IVWL_ZC_OFFER = 1,
	/*
	 * The client no longer maps the grant.  Without
	 * IVWL_ZC_COPIED_BACK the relay answers -EAGAIN when pools still use
	 * it: the shim must then write the grant back into the file and ask
	 * again with the flag, after which the relay copies from the file.
	 */
	IVWL_ZC_REVERT = 2,
};

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
