/* SPDX-License-Identifier: MIT */
/*
 * The ringer thread (ringer.h).  Callers only touch memory of ours and
 * a condition variable of ours; every write to the peer's eventfds
 * happens here.
 *
 * Queue: a count per vector, and a bitmap of the vectors whose count may
 * be non-zero.  A caller adds to the count, sets the bit when the count
 * was zero, and wakes the thread when it was not awake already (armed).
 * The thread disarms before it looks at the bitmap and clears each bit
 * before it takes the count, so a ring it misses always finds the bit or
 * the arming cleared and wakes it again.
 *
 * The wake-up itself is a futex on a sequence word, not an eventfd: a
 * ringer per attached VM must not cost its owner file descriptors (weston
 * runs dozens of them under a 1024-file limit).  Nor a condition
 * variable: its mutex, taken by the caller to signal and by the thread
 * as it wakes, made them wait for each other on every ring, and those
 * futex calls were a quarter of weston's CPU with eight busy VMs.
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "mono-time.h"
#include "ringer.h"

struct ivwl_ringer {
	int *fds;			/* the peer's, not ours to close */
	uint32_t nfds;
	uint64_t *counts;		/* per vector, atomic */
	uint64_t *bits;			/* vectors with a count, atomic */
	uint32_t nwords;
	uint32_t wake_seq;		/* futex: callers -> thread */
	pthread_mutex_t lock;		/* for done and finished */
	pthread_cond_t finished;	/* thread -> destroy */
	bool done;
	pthread_t thread;
	int armed;			/* a wake-up is pending */
	int closing;			/* destroy: CLOSE_* */
	int stuck;			/* sticky: a write blocked too long */
	uint64_t writing_since;		/* monotonic ns, 0 between writes */
};

/*
 * Frames the thread can be cancelled in get no ASan redzones:
 * pthread_cancel()'s forced unwind does not unpoison them, and ASan trips
 * over the stale ones when the thread's exit reuses that stack.
 */
#define NOT_ASAN __attribute__((no_sanitize_address))

enum {
	CLOSE_NOT = 0,
	CLOSE_FLUSH,		/* write what is queued, then leave */
	CLOSE_NOW,		/* leave without another write */
};

static void
wake_thread(struct ivwl_ringer *r)
{
	__atomic_add_fetch(&r->wake_seq, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &r->wake_seq, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Until wake_seq moves on from seq; returns at once if it already did. */
static void
wait_woken(struct ivwl_ringer *r, uint32_t seq)
{
	while (__atomic_load_n(&r->wake_seq, __ATOMIC_SEQ_CST) == seq)
		syscall(SYS_futex, &r->wake_seq, FUTEX_WAIT_PRIVATE, seq,
			NULL, NULL, 0);
}

/* The only place that may block, for as long as the peer likes. */
static NOT_ASAN void
write_count(struct ivwl_ringer *r, uint32_t vector, uint64_t count)
{
	ssize_t n;

	__atomic_store_n(&r->writing_since, (uint64_t)ivwl_now_ns() | 1, __ATOMIC_SEQ_CST);
	do {
		n = write(r->fds[vector], &count, sizeof(count));
	} while (n < 0 && errno == EINTR);
	/* EAGAIN: a full counter with O_NONBLOCK set; the peer has a wakeup. */
	__atomic_store_n(&r->writing_since, 0, __ATOMIC_SEQ_CST);
}

static NOT_ASAN void
ring_queued(struct ivwl_ringer *r)
{
	uint64_t word, count;
	uint32_t w, vector;

	for (w = 0; w < r->nwords; w++) {
		word = __atomic_exchange_n(&r->bits[w], 0, __ATOMIC_SEQ_CST);
		while (word) {
			vector = w * 64 + (uint32_t)__builtin_ctzll(word);
			word &= word - 1;
			count = __atomic_exchange_n(&r->counts[vector], 0,
						    __ATOMIC_SEQ_CST);
			if (count)
				write_count(r, vector, count);
		}
	}
}

static NOT_ASAN void *
ringer_run(void *data)
{
	struct ivwl_ringer *r = data;
	uint32_t seq;
	int closing;

	for (;;) {
		seq = __atomic_load_n(&r->wake_seq, __ATOMIC_SEQ_CST);
		/* Every ring came before closing was set: one pass takes all. */
		closing = __atomic_load_n(&r->closing, __ATOMIC_SEQ_CST);
		if (closing == CLOSE_NOW)
			break;
		__atomic_store_n(&r->armed, 0, __ATOMIC_SEQ_CST);
		/* The write() is where pthread_cancel() gets us. */
		ring_queued(r);
		if (closing)
			break;
		/* A ring after the disarm moved wake_seq: no sleep then. */
		wait_woken(r, seq);
	}
	pthread_mutex_lock(&r->lock);
	r->done = true;
	pthread_cond_signal(&r->finished);
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

int
ivwl_ringer_create(const int *fds, uint32_t nfds, struct ivwl_ringer **out)
{
	pthread_condattr_t attr;
	struct ivwl_ringer *r;
	sigset_t all, old;
	int ret;

	*out = NULL;
	if (nfds == 0)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->nfds = nfds;
	r->nwords = (nfds + 63) / 64;
	r->fds = malloc(nfds * sizeof(*r->fds));
	r->counts = calloc(nfds, sizeof(*r->counts));
	r->bits = calloc(r->nwords, sizeof(*r->bits));
	if (!r->fds || !r->counts || !r->bits) {
		ret = -ENOMEM;
		goto err_free;
	}
	memcpy(r->fds, fds, nfds * sizeof(*r->fds));
	pthread_mutex_init(&r->lock, NULL);
	/* The flush deadline is on the monotonic clock, as are all ours. */
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&r->finished, &attr);
	pthread_condattr_destroy(&attr);

	/* Signals are for the owner's thread (weston's signalfd). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = -pthread_create(&r->thread, NULL, ringer_run, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret < 0)
		goto err_sync;
	/* For top -H and benchmarks: what the ringing costs its owner. */
	pthread_setname_np(r->thread, IVWL_RINGER_THREAD_NAME);
	*out = r;
	return 0;

err_sync:
	pthread_cond_destroy(&r->finished);
	pthread_mutex_destroy(&r->lock);
err_free:
	free(r->bits);
	free(r->counts);
	free(r->fds);
	free(r);
	return ret;
}

int
ivwl_ringer_health(struct ivwl_ringer *r)
{
	uint64_t since;

	if (__atomic_load_n(&r->stuck, __ATOMIC_RELAXED))
		return -ETIMEDOUT;
	since = __atomic_load_n(&r->writing_since, __ATOMIC_SEQ_CST);
	if (since && (uint64_t)ivwl_now_ns() - since >
		     (uint64_t)IVWL_RINGER_STUCK_MS * 1000000u) {
		__atomic_store_n(&r->stuck, 1, __ATOMIC_RELAXED);
		return -ETIMEDOUT;
	}
	return 0;
}

int
ivwl_ringer_ring(struct ivwl_ringer *r, uint32_t vector)
{
	uint64_t bit = 1ull << (vector % 64);

	if (vector >= r->nfds)
		return -EINVAL;
	if (ivwl_ringer_health(r) < 0)
		return -ETIMEDOUT;
	if (__atomic_fetch_add(&r->counts[vector], 1, __ATOMIC_SEQ_CST) != 0)
		return 0;	/* its bit is set, or the thread takes it now */
	__atomic_fetch_or(&r->bits[vector / 64], bit, __ATOMIC_SEQ_CST);
	if (__atomic_exchange_n(&r->armed, 1, __ATOMIC_SEQ_CST) == 0)
		wake_thread(r);
	return 0;
}

void
ivwl_ringer_destroy(struct ivwl_ringer *r, int flush_ms)
{
	struct timespec deadline;

	if (!r)
		return;
	if (flush_ms > 0 && !__atomic_load_n(&r->stuck, __ATOMIC_RELAXED)) {
		__atomic_store_n(&r->closing, CLOSE_FLUSH, __ATOMIC_SEQ_CST);
		wake_thread(r);
		clock_gettime(CLOCK_MONOTONIC, &deadline);
		deadline.tv_sec += flush_ms / 1000;
		deadline.tv_nsec += (long)(flush_ms % 1000) * 1000000;
		if (deadline.tv_nsec >= 1000000000) {
			deadline.tv_sec++;
			deadline.tv_nsec -= 1000000000;
		}
		pthread_mutex_lock(&r->lock);
		while (!r->done &&
		       pthread_cond_timedwait(&r->finished, &r->lock,
					      &deadline) != ETIMEDOUT)
			;
		pthread_mutex_unlock(&r->lock);
	}
	/* The futex wait is no cancellation point: wake it to leave. */
	__atomic_store_n(&r->closing, CLOSE_NOW, __ATOMIC_SEQ_CST);
	wake_thread(r);
	/*
	 * A write the peer blocks sleeps interruptibly and is a cancellation
	 * point, so this cannot hang; a thread that already left is fine.
	 */
	pthread_cancel(r->thread);
	pthread_join(r->thread, NULL);
	pthread_cond_destroy(&r->finished);
	pthread_mutex_destroy(&r->lock);
	free(r->bits);
	free(r->counts);
	free(r->fds);
	free(r);
}
