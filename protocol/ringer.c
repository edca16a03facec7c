/*
 * The ringer thread (ringer.h).  Callers only touch memory of ours and
 * an eventfd nobody else holds; every write to the peer's eventfds
 * happens here.
 *
 * Queue: a count per vector, and a bitmap of the vectors whose count may
 * be non-zero.  A caller adds to the count, sets the bit when the count
 * was zero, and wakes the thread when it was not awake already (armed).
 * The thread disarms before it looks at the bitmap and clears each bit
 * before it takes the count, so a ring it misses always finds the bit or
 * the arming cleared and wakes it again.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "ringer.h"

struct ivwl_ringer {
	int *fds;			/* the peer's, not ours to close */
	uint32_t nfds;
	uint64_t *counts;		/* per vector, atomic */
	uint64_t *bits;			/* vectors with a count, atomic */
	uint32_t nwords;
	int wake_fd;			/* ours alone: callers -> thread */
	int done_fd;			/* ours alone: thread -> destroy */
	pthread_t thread;
	int armed;			/* a wake-up is pending */
	int closing;			/* destroy: flush, then leave */
	int stuck;			/* sticky: a write blocked too long */
	uint64_t writing_since;		/* monotonic ns, 0 between writes */
};

/*
 * Frames the thread can be cancelled in get no ASan redzones:
 * pthread_cancel()'s forced unwind does not unpoison them, and ASan trips
 * over the stale ones when the thread's exit reuses that stack.
 */
#define NOT_ASAN __attribute__((no_sanitize_address))

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void
signal_fd(int fd)
{
	uint64_t one = 1;

	/* Only we write it, once per wake-up: it cannot fill. */
	if (write(fd, &one, sizeof(one)) < 0) {
		/* EAGAIN: a wake-up is pending anyway */
	}
}

/* The only place that may block, for as long as the peer likes. */
static NOT_ASAN void
write_count(struct ivwl_ringer *r, uint32_t vector, uint64_t count)
{
	ssize_t n;

	__atomic_store_n(&r->writing_since, now_ns() | 1, __ATOMIC_SEQ_CST);
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
	struct pollfd pfd = { .fd = r->wake_fd, .events = POLLIN };
	uint64_t v;
	bool closing = false;

	do {
		/* poll() and write() are where pthread_cancel() gets us. */
		if (poll(&pfd, 1, -1) < 0)
			continue;
		if (read(r->wake_fd, &v, sizeof(v)) < 0) {
			/* spurious: nothing pending */
		}
		/* Every ring came before closing was set: one pass takes all. */
		closing = __atomic_load_n(&r->closing, __ATOMIC_SEQ_CST);
		__atomic_store_n(&r->armed, 0, __ATOMIC_SEQ_CST);
		ring_queued(r);
	} while (!closing);
	signal_fd(r->done_fd);
	return NULL;
}

int
ivwl_ringer_create(const int *fds, uint32_t nfds, struct ivwl_ringer **out)
{
	struct ivwl_ringer *r;
	sigset_t all, old;
	int ret;

	*out = NULL;
	if (nfds == 0)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->wake_fd = -1;
	r->done_fd = -1;
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
	r->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	r->done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (r->wake_fd < 0 || r->done_fd < 0) {
		ret = -errno;
		goto err_free;
	}

	/* Signals are for the owner's thread (weston's signalfd). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = -pthread_create(&r->thread, NULL, ringer_run, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret < 0)
		goto err_free;
	*out = r;
	return 0;

err_free:
	if (r->wake_fd >= 0)
		close(r->wake_fd);
	if (r->done_fd >= 0)
		close(r->done_fd);
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
	if (since && now_ns() - since >
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
		signal_fd(r->wake_fd);
	return 0;
}

void
ivwl_ringer_destroy(struct ivwl_ringer *r, int flush_ms)
{
	struct pollfd pfd;

	if (!r)
		return;
	if (flush_ms > 0 && !__atomic_load_n(&r->stuck, __ATOMIC_RELAXED)) {
		__atomic_store_n(&r->closing, 1, __ATOMIC_SEQ_CST);
		signal_fd(r->wake_fd);
		pfd = (struct pollfd){ .fd = r->done_fd, .events = POLLIN };
		while (poll(&pfd, 1, flush_ms) < 0 && errno == EINTR)
			;
	}
	/*
	 * A write the peer blocks sleeps interruptibly and is a cancellation
	 * point, so this cannot hang; a thread that already left is fine.
	 */
	pthread_cancel(r->thread);
	pthread_join(r->thread, NULL);
	close(r->wake_fd);
	close(r->done_fd);
	free(r->bits);
	free(r->counts);
	free(r->fds);
	free(r);
}
