/* SPDX-License-Identifier: MIT */
/*
 * Single-producer, single-consumer record ring in shared memory.
 *
 * Indices are free-running 32-bit byte counts.  Each side keeps its own
 * index privately and only ever publishes it; it reads the peer's index
 * once per refresh and checks it before use, so a peer that scribbles over
 * the control page can break its own ring (-EPIPE) but never make this
 * side read or write outside the data area.
 *
 * Records are 8-byte aligned, never wrap (a pad record fills the tail) and
 * are copied out of shared memory before anyone looks at them.
 *
 * Sleeping: a side that finds nothing to do publishes a non-zero sleep
 * token, issues a full fence and looks once more; the other side publishes
 * its index, issues a full fence and rings the doorbell only if it sees a
 * token it has not rung for yet.  One of the two always sees the other.
 */
#ifndef IVWL_RING_H
#define IVWL_RING_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "region.h"

#define IVWL_RECORD_ALIGN 8u
#define IVWL_RECORD_TYPE_PAD 0u

struct ivwl_record_header {
	uint32_t len;		/* whole record including this header */
	uint16_t type;		/* IVWL_RECORD_TYPE_PAD or enum ivwl_record_type */
	uint16_t reserved;	/* 0 */
};

struct ivwl_ring {
	struct ivwl_ring_ctrl *ctrl;
	uint8_t *data;
	uint32_t size;
	uint32_t mask;
	bool producer;
	bool broken;
	uint32_t pos;		/* own index: the truth, never read back */
	uint32_t peer;		/* peer index as last validated */
	uint32_t sleep_token;	/* last token this side published */
	uint32_t kicked_token;	/* peer token already rung for */
	uint32_t checked_pos;	/* own index at the last kick_needed() */
	uint32_t pending_len;	/* reserved record, 0 when none */
	uint32_t pending_pad;	/* pad bytes in front of it */
};

/*
 * Binds a private ring view to shared memory.  size must be a power of two
 * of at least 64 bytes.  Writes nothing to shared memory.
 */
int
ivwl_ring_init_producer(struct ivwl_ring *ring, struct ivwl_ring_ctrl *ctrl,
			void *data, uint32_t size);
int
ivwl_ring_init_consumer(struct ivwl_ring *ring, struct ivwl_ring_ctrl *ctrl,
			void *data, uint32_t size);

/* Zeroes this side's index and sleep flag, privately and in the region. */
void
ivwl_ring_reset(struct ivwl_ring *ring);

/* Largest payload a single record may carry on this ring. */
uint32_t
ivwl_ring_max_payload(const struct ivwl_ring *ring);

/*
 * Producer.  Reserve room for a payload, fill it in place, commit it.
 * Returns 0, -EAGAIN when there is no room yet, -EMSGSIZE when it can never
 * fit, -EPIPE when the consumer published an impossible index.
 */
int
ivwl_ring_reserve(struct ivwl_ring *ring, uint32_t payload_len, void **payload);
void
ivwl_ring_commit(struct ivwl_ring *ring, uint16_t type);

/* Commits fewer payload bytes than were reserved (at most as many). */
void
ivwl_ring_commit_len(struct ivwl_ring *ring, uint16_t type,
		     uint32_t payload_len);

/* reserve + copy + commit. */
int
ivwl_ring_write(struct ivwl_ring *ring, uint16_t type,
		const struct iovec *iov, int iovcnt);

/*
 * Consumer.  Copies the next record's payload into buf (cap bytes, at least
 * ivwl_ring_max_payload()) and returns its length, setting *type.
 * -EAGAIN when empty, -EPIPE when the producer broke the ring.
 */
int
ivwl_ring_read(struct ivwl_ring *ring, uint16_t *type, void *buf, uint32_t cap);

/*
 * Bytes written and not yet read, as the peer's index says now: for a
 * look, never for decisions.  At most the ring's size, whatever the
 * peer wrote.
 */
uint32_t
ivwl_ring_fill(const struct ivwl_ring *ring);

/* True when a record (or garbage) is waiting; never consumes. */
bool
ivwl_ring_readable(struct ivwl_ring *ring);

/*
 * Either side, before sleeping on its doorbell.  Returns true when it may
 * sleep; false when the peer moved meanwhile (the token is withdrawn again
 * and the caller goes back to work).
 */
bool
ivwl_ring_prepare_sleep(struct ivwl_ring *ring);

/* Either side, once awake: withdraws the sleep token. */
void
ivwl_ring_woken(struct ivwl_ring *ring);

/*
 * Either side, after publishing progress (records for a producer, freed
 * space for a consumer): true when this side has moved its index since
 * the last call and the peer sleeps on a token not yet rung for, i.e.
 * exactly when a doorbell is owed.  A peer that went to sleep without us
 * moving has seen all we published (prepare_sleep checks after its token
 * is visible): ringing it anyway makes two idle sides wake each other
 * forever.
 */
bool
ivwl_ring_kick_needed(struct ivwl_ring *ring);

/*
 * Another view of this side (a forked copy) may have published sleep
 * tokens this view would publish again, which the peer, having rung for
 * them, would not ring for: this view's next ones start elsewhere.
 */
void
ivwl_ring_renew_tokens(struct ivwl_ring *ring);

/* True when the index shared memory holds for this side is the one this
 * view published last: no other view of this side (a forked copy) moved
 * it since. */
bool
ivwl_ring_published_is_own(struct ivwl_ring *ring);

/* True when this side moved its index since ivwl_ring_kick_needed last
 * looked: a caller that holds a doorbell back knows it owes one. */
bool
ivwl_ring_moved_since_kick(const struct ivwl_ring *ring);

#endif
