/* SPDX-License-Identifier: MIT */
/*
 * Rings a peer's eventfds from a thread of their own.
 *
 * With ivwl-server, the eventfds we write to ring a peer are the very
 * open file descriptions that peer holds: it can clear O_NONBLOCK on them
 * and fill the counter, and the next write() sleeps until it reads.  No
 * flag can be trusted (an fcntl() check before the write is a race), and
 * eventfds refuse RWF_NOWAIT writes, so only a thread may do the writing:
 * ivwl_ringer_ring() queues the vector and returns at once, the thread
 * writes.  A write that stays blocked for IVWL_RINGER_STUCK_MS makes the
 * peer stuck for good: every ring after that fails at once.
 */
#ifndef IVWL_RINGER_H
#define IVWL_RINGER_H

#include <stdint.h>

/*
 * How long one eventfd write may take before the peer counts as blocking
 * its doorbells.  A write that cannot complete only happens when the peer
 * cleared O_NONBLOCK and filled the counter, which no honest peer does;
 * anything else returns in microseconds.  The bound only has to cover a
 * loaded machine not scheduling the thread; a second does, and is short
 * enough that the peer's connections end before a user wonders why.
 */
#define IVWL_RINGER_STUCK_MS 1000

/*
 * How long ivwl_ringer_destroy() gives queued rings by default when the
 * owner goes away while its peer stays (its last doorbell says so).
 */
#define IVWL_RINGER_FLUSH_MS 100

/* The name of every ringer thread (comm in /proc/PID/task/TID). */
#define IVWL_RINGER_THREAD_NAME "ivwl-ring"

struct ivwl_ringer;

/*
 * A ringer for one peer whose vector v is rung by writing to fds[v].  The
 * fds stay the caller's and must stay open until ivwl_ringer_destroy()
 * returns.  0 or -errno.
 */
int
ivwl_ringer_create(const int *fds, uint32_t nfds, struct ivwl_ringer **out);

/*
 * Queues a doorbell on vector (< nfds) and returns without waiting for
 * it.  Rings that queue up before the thread gets to them are written as
 * one count, so the peer sees as many as were rung.  -ETIMEDOUT once a
 * write has been blocked for IVWL_RINGER_STUCK_MS, and from then on.
 * Not for several threads at once with destroy.
 */
int
ivwl_ringer_ring(struct ivwl_ringer *r, uint32_t vector);

/*
 * 0, or -ETIMEDOUT once the peer is stuck (as ivwl_ringer_ring would
 * say), without ringing: for callers that skip a ring because one is
 * already on its way, and must still learn that it never arrives.
 */
int
ivwl_ringer_health(struct ivwl_ringer *r);

/*
 * Stops the thread.  It first gets up to flush_ms to write what is
 * queued (0: none, for a peer that left); then it is cancelled, even in
 * the middle of a write the peer blocks, and joined.  NULL is fine.
 */
void
ivwl_ringer_destroy(struct ivwl_ringer *r, int flush_ms);

#endif
