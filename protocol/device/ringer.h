/* SPDX-License-Identifier: MIT */
/*
 * Rings peers' eventfds from a worker thread, never from the caller's.
 *
 * With ivwl-server, the eventfds we write to ring a peer are the very
 * open file descriptions that peer holds: it can clear O_NONBLOCK on them
 * and fill the counter, and the next write() sleeps until it reads.  No
 * flag can be trusted (an fcntl() check before the write is a race), and
 * eventfds refuse RWF_NOWAIT writes, so only a thread may do the writing:
 * ivwl_ringer_ring() queues the vector and returns at once, the worker
 * writes.
 *
 * One worker serves every ringer of the process (a thread per peer, woken
 * for each ring, cost weston a sixth of its CPU with dozens of busy VMs).
 * So that a peer that blocks it holds up nobody else, a watchdog thread
 * abandons a worker that spends IVWL_RINGER_HANDOFF_MS in one write to
 * that peer alone and starts another for the rest, without waiting for
 * any further call.  A write that stays blocked for IVWL_RINGER_STUCK_MS
 * makes the peer stuck for good: every ring after that fails at once.
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
 * How long the worker may be in one write before the watchdog hands
 * every other peer's rings to a new worker: what a peer that blocks its
 * eventfds delays the others' doorbells by, at most twice this (the
 * watchdog looks this often while there is work, and sleeps otherwise).
 * An honest write takes microseconds.  A worker that is runnable, only
 * waiting for a CPU of a loaded machine, is not handed off.
 */
#define IVWL_RINGER_HANDOFF_MS 20

/*
 * How long ivwl_ringer_destroy() gives queued rings by default when the
 * owner goes away while its peer stays (its last doorbell says so).
 */
#define IVWL_RINGER_FLUSH_MS 100

/* The names of the workers and the watchdog (/proc/PID/task/TID/comm). */
#define IVWL_RINGER_THREAD_NAME "ivwl-ring"
#define IVWL_RINGER_WATCHDOG_NAME "ivwl-ring-watch"

struct ivwl_ringer;

/*
 * A ringer for one peer whose vector v is rung by writing to fds[v].  The
 * fds stay the caller's and must stay open until ivwl_ringer_destroy()
 * returns.  The first ringer of the process starts the worker, the second
 * the watchdog.  0 or -errno.
 */
int
ivwl_ringer_create(const int *fds, uint32_t nfds, struct ivwl_ringer **out);

/*
 * Queues a doorbell on vector (< nfds) and returns without waiting for
 * it.  Rings that queue up before the worker gets to them are written as
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
 * For an event loop: rings this thread makes do not wake the worker;
 * schedule(data) is called for the first of them after each flush, and
 * the loop calls ivwl_ringer_flush() once its pass is done, waking the
 * worker once for all.  NULL: wake at once again.  Rings of other threads
 * wake it at once either way.
 */
void
ivwl_ringer_defer_wakes(void (*schedule)(void *data), void *data);

/* Wakes the worker now for what is queued (a deferred ring's latency). */
void
ivwl_ringer_flush(void);

/*
 * Ends the ringer.  Its queued rings first get up to flush_ms to be
 * written (0: none, for a peer that left); a write to the peer still in
 * progress IVWL_RINGER_HANDOFF_MS later, one the peer blocks, is then
 * cancelled with the thread doing it.  The last ringer of the process
 * ends every thread of ours.  NULL is fine.
 */
void
ivwl_ringer_destroy(struct ivwl_ringer *r, int flush_ms);

#endif
