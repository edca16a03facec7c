/* SPDX-License-Identifier: MIT */
/*
 * The ringer threads (ringer.h).  Callers only touch memory of ours; every
 * write to a peer's eventfds happens in a worker thread.
 *
 * One worker serves every ringer of the process: weston with dozens of
 * VMs rings many of them per repaint, and one wake-up of one thread for
 * all of them costs a fraction of a thread per VM woken for each (those
 * wake-ups and context switches were a sixth of weston's CPU with eight
 * busy VMs).  A ringer with rings to write waits in the pending list; the
 * worker takes one ringer at a time, writes its vectors, and puts it back
 * if it was rung meanwhile.
 *
 * A peer that blocks its eventfd blocks the worker in write().  The next
 * caller that sees the worker in one write for IVWL_RINGER_HANDOFF_MS
 * retires it and starts another, which serves the rest; the retired one
 * leaves when its write returns, or is cancelled when its ringer is
 * destroyed.  So a hostile peer delays the others' doorbells by a few
 * milliseconds, once, and holds one thread while it blocks.
 *
 * Wake-ups are a futex on a sequence word: a ringer costs no fd (weston
 * runs dozens under a 1024-file limit), and no mutex is held across a
 * wake-up.  ivwl_ringer_defer_wakes() lets an event loop wake the worker
 * once per loop iteration for all the rings of that iteration.
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

/*
 * Frames a thread can be cancelled in get no ASan redzones:
 * pthread_cancel()'s forced unwind does not unpoison them, and ASan trips
 * over the stale ones when the thread's exit reuses that stack.
 */
#define NOT_ASAN __attribute__((no_sanitize_address))

#define NS_PER_MS 1000000ull

struct ring_worker {
	struct ring_worker *next;	/* pool.retired */
	pthread_t thread;
	uint64_t busy_since;		/* atomic: ns in a write, or 0 */
	bool retired;			/* another worker took over */
	bool done;			/* left its loop: join it */
};

struct ivwl_ringer {
	int *fds;			/* the peer's, not ours to close */
	uint32_t nfds;
	uint64_t *counts;		/* per vector, atomic */
	uint64_t *bits;			/* vectors with a count, atomic */
	uint32_t nwords;
	struct ivwl_ringer *prev, *next;	/* pool's pending list */
	bool queued;			/* in it */
	bool closing;			/* destroy began: no more writes */
	struct ring_worker *in_hand;	/* writing it now */
	int stuck;			/* atomic, sticky */
	uint64_t writing_since;		/* atomic: ns in a write, or 0 */
};

/* Every field under lock, but for the atomics noted. */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t changed;		/* in_hand cleared, a worker done */
	bool ready;			/* changed is initialised */
	uint32_t wake_seq;		/* futex: callers -> worker */
	bool armed;			/* worker awake or a wake-up sent */
	unsigned int refs;		/* ringers alive */
	struct ivwl_ringer *head, *tail;
	struct ring_worker *current;
	struct ring_worker *retired;
	bool quit;
	void (*schedule)(void *data);	/* deferred wakes: once per batch */
	void *schedule_data;
	pthread_t defer_thread;		/* whose rings are deferred */
	bool wake_due;			/* a deferred wake waits for flush */
} pool = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void
wake_worker(void)
{
	__atomic_add_fetch(&pool.wake_seq, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &pool.wake_seq, FUTEX_WAKE_PRIVATE, INT32_MAX,
		NULL, NULL, 0);
}

/* Until wake_seq moves on from seq; returns at once if it already did. */
static void
wait_woken(uint32_t seq)
{
	while (__atomic_load_n(&pool.wake_seq, __ATOMIC_SEQ_CST) == seq)
		syscall(SYS_futex, &pool.wake_seq, FUTEX_WAIT_PRIVATE, seq,
			NULL, NULL, 0);
}

static bool
has_bits(const struct ivwl_ringer *r)
{
	uint32_t w;

	for (w = 0; w < r->nwords; w++)
		if (__atomic_load_n(&r->bits[w], __ATOMIC_SEQ_CST))
			return true;
	return false;
}

static void
pending_push(struct ivwl_ringer *r)
{
	r->queued = true;
	r->next = NULL;
	r->prev = pool.tail;
	if (pool.tail)
		pool.tail->next = r;
	else
		pool.head = r;
	pool.tail = r;
}

static void
pending_remove(struct ivwl_ringer *r)
{
	if (r->prev)
		r->prev->next = r->next;
	else
		pool.head = r->next;
	if (r->next)
		r->next->prev = r->prev;
	else
		pool.tail = r->prev;
	r->prev = r->next = NULL;
	r->queued = false;
}

/* The only place that may block, for as long as the peer likes. */
static NOT_ASAN void
write_count(struct ring_worker *w, struct ivwl_ringer *r, uint32_t vector,
	    uint64_t count)
{
	uint64_t now = (uint64_t)ivwl_now_ns() | 1;
	ssize_t n;

	__atomic_store_n(&r->writing_since, now, __ATOMIC_SEQ_CST);
	__atomic_store_n(&w->busy_since, now, __ATOMIC_SEQ_CST);
	/* Cancellable here only: it is the write of r that let_go ends. */
	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
	do {
		n = write(r->fds[vector], &count, sizeof(count));
	} while (n < 0 && errno == EINTR);
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	/* EAGAIN: a full counter with O_NONBLOCK set; the peer has a wakeup. */
	__atomic_store_n(&w->busy_since, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&r->writing_since, 0, __ATOMIC_SEQ_CST);
}

static NOT_ASAN void
ring_queued(struct ring_worker *w, struct ivwl_ringer *r)
{
	uint64_t word, count;
	uint32_t i, vector;

	for (i = 0; i < r->nwords; i++) {
		word = __atomic_exchange_n(&r->bits[i], 0, __ATOMIC_SEQ_CST);
		while (word) {
			vector = i * 64 + (uint32_t)__builtin_ctzll(word);
			word &= word - 1;
			count = __atomic_exchange_n(&r->counts[vector], 0,
						    __ATOMIC_SEQ_CST);
			if (count)
				write_count(w, r, vector, count);
		}
	}
}

struct in_hand {
	struct ring_worker *w;
	struct ivwl_ringer *r;
};

/* Cancelled in a write (its ringer is being destroyed): let go of it. */
static void
let_go_on_cancel(void *data)
{
	struct in_hand *h = data;

	pthread_mutex_lock(&pool.lock);
	h->r->in_hand = NULL;
	h->w->done = true;
	pthread_cond_broadcast(&pool.changed);
	pthread_mutex_unlock(&pool.lock);
}

static NOT_ASAN void
serve(struct ring_worker *w, struct ivwl_ringer *r)
{
	struct in_hand h = { w, r };

	/* The write() is where pthread_cancel() gets us. */
	pthread_cleanup_push(let_go_on_cancel, &h);
	ring_queued(w, r);
	pthread_cleanup_pop(0);
}

static NOT_ASAN void *
worker_run(void *data)
{
	struct ring_worker *w = data;
	struct ivwl_ringer *r;
	uint32_t seq;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	pthread_mutex_lock(&pool.lock);
	while (!w->retired && !pool.quit) {
		r = pool.head;
		if (!r) {
			pool.armed = false;
			seq = __atomic_load_n(&pool.wake_seq,
					      __ATOMIC_SEQ_CST);
			pthread_mutex_unlock(&pool.lock);
			wait_woken(seq);
			pthread_mutex_lock(&pool.lock);
			continue;
		}
		pending_remove(r);
		r->in_hand = w;
		pthread_mutex_unlock(&pool.lock);
		serve(w, r);
		pthread_mutex_lock(&pool.lock);
		r->in_hand = NULL;
		/* Rung while we wrote: its caller left it to us. */
		if (!r->closing && has_bits(r))
			pending_push(r);
		pthread_cond_broadcast(&pool.changed);
	}
	w->done = true;
	pthread_cond_broadcast(&pool.changed);
	pthread_mutex_unlock(&pool.lock);
	return NULL;
}

/* Under lock.  0 or -errno; on failure there is no current worker. */
static int
start_worker(void)
{
	struct ring_worker *w = calloc(1, sizeof(*w));
	sigset_t all, old;
	int ret;

	pool.current = NULL;
	if (!w)
		return -ENOMEM;
	/* Signals are for the owner's threads (weston's signalfd). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = -pthread_create(&w->thread, NULL, worker_run, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret < 0) {
		free(w);
		return ret;
	}
	/* For top -H and benchmarks: what the ringing costs its owner. */
	pthread_setname_np(w->thread, IVWL_RINGER_THREAD_NAME);
	pool.current = w;
	pool.armed = true;
	return 0;
}

/* Under lock: joins the retired workers that left (they hold no lock). */
static void
reap_retired(void)
{
	struct ring_worker **link = &pool.retired, *w;

	while ((w = *link)) {
		if (!w->done) {
			link = &w->next;
			continue;
		}
		*link = w->next;
		pthread_join(w->thread, NULL);
		free(w);
	}
}

/* Under lock: the current worker is held up; another serves the rest. */
static void
retire_current(void)
{
	struct ring_worker *w = pool.current;

	w->retired = true;
	w->next = pool.retired;
	pool.retired = w;
	/* The new one starts awake; without it rings wait for the next. */
	start_worker();
	wake_worker();
}

/* Under lock: a worker in one write this long is blocked by its peer. */
static void
check_worker(void)
{
	struct ring_worker *w = pool.current;
	uint64_t since;

	if (!w) {
		if (start_worker() == 0)
			wake_worker();
		return;
	}
	since = __atomic_load_n(&w->busy_since, __ATOMIC_SEQ_CST);
	if (since && (uint64_t)ivwl_now_ns() - since >
		     IVWL_RINGER_HANDOFF_MS * NS_PER_MS)
		retire_current();
	reap_retired();
}

int
ivwl_ringer_create(const int *fds, uint32_t nfds, struct ivwl_ringer **out)
{
	pthread_condattr_t attr;
	struct ivwl_ringer *r;
	int ret = 0;

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

	pthread_mutex_lock(&pool.lock);
	if (!pool.ready) {
		/* Flush deadlines are on the monotonic clock, as all ours. */
		pthread_condattr_init(&attr);
		pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
		pthread_cond_init(&pool.changed, &attr);
		pthread_condattr_destroy(&attr);
		pool.ready = true;
	}
	if (!pool.current) {
		pool.quit = false;
		ret = start_worker();
	}
	if (ret == 0)
		pool.refs++;
	pthread_mutex_unlock(&pool.lock);
	if (ret < 0)
		goto err_free;
	*out = r;
	return 0;

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
		     (uint64_t)IVWL_RINGER_STUCK_MS * NS_PER_MS) {
		__atomic_store_n(&r->stuck, 1, __ATOMIC_RELAXED);
		return -ETIMEDOUT;
	}
	return 0;
}

int
ivwl_ringer_ring(struct ivwl_ringer *r, uint32_t vector)
{
	uint64_t bit = 1ull << (vector % 64);
	bool schedule = false;

	if (vector >= r->nfds)
		return -EINVAL;
	if (ivwl_ringer_health(r) < 0)
		return -ETIMEDOUT;
	if (__atomic_fetch_add(&r->counts[vector], 1, __ATOMIC_SEQ_CST) != 0)
		return 0;	/* its bit is set, or the worker takes it now */
	__atomic_fetch_or(&r->bits[vector / 64], bit, __ATOMIC_SEQ_CST);

	pthread_mutex_lock(&pool.lock);
	check_worker();
	if (!r->queued && !r->in_hand)
		pending_push(r);
	if (!pool.armed) {
		if (pool.schedule &&
		    pthread_equal(pthread_self(), pool.defer_thread)) {
			schedule = !pool.wake_due;
			pool.wake_due = true;
		} else {
			pool.armed = true;
			wake_worker();
		}
	}
	pthread_mutex_unlock(&pool.lock);
	if (schedule)
		pool.schedule(pool.schedule_data);
	return 0;
}

void
ivwl_ringer_defer_wakes(void (*schedule)(void *data), void *data)
{
	pthread_mutex_lock(&pool.lock);
	pool.schedule = schedule;
	pool.schedule_data = data;
	pool.defer_thread = pthread_self();
	pthread_mutex_unlock(&pool.lock);
	if (!schedule)
		ivwl_ringer_flush();
}

void
ivwl_ringer_flush(void)
{
	pthread_mutex_lock(&pool.lock);
	pool.wake_due = false;
	if (!pool.armed && pool.head) {
		pool.armed = true;
		wake_worker();
	}
	pthread_mutex_unlock(&pool.lock);
}

/* Under lock: until r is out of every worker's hands. */
static void
let_go(struct ivwl_ringer *r)
{
	struct ring_worker *w;
	struct timespec deadline;

	while ((w = r->in_hand)) {
		/* An honest write is over at once. */
		clock_gettime(CLOCK_MONOTONIC, &deadline);
		deadline.tv_nsec += IVWL_RINGER_HANDOFF_MS * (long)NS_PER_MS;
		if (deadline.tv_nsec >= 1000000000) {
			deadline.tv_sec++;
			deadline.tv_nsec -= 1000000000;
		}
		if (pthread_cond_timedwait(&pool.changed, &pool.lock,
					   &deadline) != ETIMEDOUT ||
		    r->in_hand != w)
			continue;
		/*
		 * Blocked by the peer.  Retired, w writes nothing after r;
		 * a cancel it has not acted on by then goes with it.
		 */
		if (w == pool.current)
			retire_current();
		pthread_cancel(w->thread);
		while (r->in_hand == w)
			pthread_cond_wait(&pool.changed, &pool.lock);
	}
}

/* Under lock: the last ringer went; stop the worker for good. */
static void
stop_pool(void)
{
	struct ring_worker *w = pool.current;

	pool.quit = true;
	wake_worker();
	while (w && !w->done)
		pthread_cond_wait(&pool.changed, &pool.lock);
	if (w) {
		pthread_join(w->thread, NULL);
		free(w);
	}
	pool.current = NULL;
	reap_retired();
}

static void
flush_one(struct ivwl_ringer *r, int flush_ms)
{
	struct timespec deadline;

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += flush_ms / 1000;
	deadline.tv_nsec += (long)(flush_ms % 1000) * (long)NS_PER_MS;
	if (deadline.tv_nsec >= 1000000000) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000;
	}
	if (r->queued && !pool.armed) {
		pool.armed = true;
		wake_worker();
	}
	while ((r->queued || r->in_hand) &&
	       pthread_cond_timedwait(&pool.changed, &pool.lock,
				      &deadline) != ETIMEDOUT)
		;
}

void
ivwl_ringer_destroy(struct ivwl_ringer *r, int flush_ms)
{
	if (!r)
		return;
	pthread_mutex_lock(&pool.lock);
	if (flush_ms > 0 && !__atomic_load_n(&r->stuck, __ATOMIC_RELAXED))
		flush_one(r, flush_ms);
	r->closing = true;
	if (r->queued)
		pending_remove(r);
	let_go(r);
	if (--pool.refs == 0)
		stop_pool();
	else
		reap_retired();
	pthread_mutex_unlock(&pool.lock);
	free(r->bits);
	free(r->counts);
	free(r->fds);
	free(r);
}
