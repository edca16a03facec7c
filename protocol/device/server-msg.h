/* SPDX-License-Identifier: MIT */
/*
 * What ivwl-server's display peer may say to it, and its answer: an
 * extension of the ivshmem-doorbell protocol, which has the server speak
 * alone (docs/region.md, "The server protocol").
 *
 * Both ways a message is one little-endian int64 like the standard ones,
 * without fd (but for the REGION answer): "IW" in bits 63..48, an op in
 * bits 47..40, zero in bits 39..32, a peer id in bits 31..16 and a
 * vector (or a version) in bits 15..0.  The value is above any peer id
 * ivshmem allows (65535), so a client that does not know the extension
 * drops the answer unread; and the server only ever answers, so a peer
 * that never speaks (QEMU) never gets one.
 *
 * A peer says HELLO first, after its setup; a server that knows the
 * extension answers ACK, any other (QEMU's contrib server, ivwl-server
 * before it) drops the peer for sending data.  ivwl-server tells only
 * peers that said HELLO when the other one leaves (QEMU cannot take that
 * news, see host/ivwl-server.c).  The ACK's peer bits are flags: without
 * IVWL_SRV_ACK_NO_RINGS (the display's, unless --no-rings) the display
 * may send RING (peer, vector): the server writes that eventfd of the
 * peer's for it, so the display needs neither the peer's eventfds nor a
 * thread to write them without blocking.
 *
 * Version 2 adds REGION.  With IVWL_SRV_ACK_REGION (the display's,
 * unless --no-lend) the display may send REGION (no arguments): the
 * server answers REGION with the region's fd, the same file as at the
 * setup, so that the display need not keep that fd between the times it
 * hands it on.  Asks while an answer waits in the server's queue are
 * answered by that one.  A peer goes by the ACK's flags, never by the
 * version, which says what each side speaks (for logs).
 */
#ifndef IVWL_SERVER_MSG_H
#define IVWL_SERVER_MSG_H

#include <stdint.h>

#define IVWL_SRV_MAGIC 0x4957u		/* "IW" */
#define IVWL_SRV_VERSION 2u

enum ivwl_srv_op {
	IVWL_SRV_HELLO = 1,	/* peer -> server, arg: its version */
	IVWL_SRV_RING = 2,	/* display -> server, (peer, vector) */
	IVWL_SRV_ACK = 3,	/* server -> peer, (flags, the version) */
	/* display -> server, (0, 0); server -> display, (0, 0) + fd */
	IVWL_SRV_REGION = 4,
};

/* In the ACK's peer bits: RING is not served (the app, --no-rings). */
#define IVWL_SRV_ACK_NO_RINGS 0x1u
/* In the ACK's peer bits: REGION is served (the display's, version 2). */
#define IVWL_SRV_ACK_REGION 0x2u

static inline int64_t
ivwl_srv_encode(uint32_t op, uint32_t peer, uint32_t arg)
{
	return (int64_t)((uint64_t)IVWL_SRV_MAGIC << 48 |
			 (uint64_t)(op & 0xff) << 40 |
			 (uint64_t)(peer & 0xffff) << 16 |
			 (uint64_t)(arg & 0xffff));
}

/* The op, or 0 when value is not a message of the extension. */
static inline uint32_t
ivwl_srv_decode(int64_t value, uint32_t *peer, uint32_t *arg)
{
	uint64_t v = (uint64_t)value;

	if (v >> 48 != IVWL_SRV_MAGIC || (v >> 32 & 0xff) != 0)
		return 0;
	*peer = (uint32_t)(v >> 16 & 0xffff);
	*arg = (uint32_t)(v & 0xffff);
	return (uint32_t)(v >> 40 & 0xff);
}

#endif
