/* SPDX-License-Identifier: MIT */
/*
 * The ringer's threads (ringer.h).  Callers only touch memory of ours;
 * every write to a peer's eventfds happens in a worker thread.
 *
 * One worker serves every ringer of the process.  A ringer with rings to
 * write waits in the pending list; the worker takes one at a time, and
 * the ringer is "in hand" while it writes that ringer's vectors.  Rings
 * for a ringer in hand make it "owed": whoever holds it puts it back in
 * the list when done, so a ringer is never written by two threads.
 *
 * Per ringer the queue is a count per vector and a bitmap of the vectors
 * whose count may be non-zero.  A caller adds to the count, sets the bit
 * when the count was zero, and takes the lock only when the ringer was
 * not armed already.  The worker disarms before it looks at the bitmap
 * and clears each bit before it takes the count, so a ring it misses
 * always finds the bit or the arming cleared and queues it again.
 *
 * A peer that blocks its eventfd blocks the worker in write().  The
 * watchdog thread sees it: the worker asleep in one write for
 * IVWL_RINGER_HANDOFF_MS is abandoned to that ringer alone, and a new
 * worker takes the pending list.  The abandoned one finishes its ringer
 * if its write ever returns, puts it back in the list if it is owed, and
 * leaves; it never takes another ringer.  Only the ringer in its hand
 * ties it, so there is at most one abandoned worker per peer, and a
 * peer's destroy cancels and joins it.  The watchdog looks while the
 * worker has work, every IVWL_RINGER_HANDOFF_MS, and sleeps without a
 * timeout once a look found nothing done since the last: an idle process
 * has no wake-ups.  A single ringer has nobody to hold up, so the
 * watchdog starts with the second.
 *
 * Wake-ups of the worker are a futex on a sequence word: a ringer costs
 * no fd (weston runs dozens under a 1024-file limit).  A caller with a
 * deferred wake (ivwl_ringer_defer_wakes) only queues; its event loop
 * wakes the worker once for all the rings of a pass.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
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

#define NS_PER_MS 1000000ll
#define HANDOFF_NS ((int64_t)IVWL_RINGER_HANDOFF_MS * NS_PER_MS)

struct ring_worker {
	struct ring_worker *next;	/* pool.retired */
	pthread_t thread;
	pid_t tid;			/* atomic, for /proc; 0 until known */
	int64_t busy_since;		/* atomic: ns|1 in a write, or 0 */
	bool abandoned;			/* to its ringer in hand alone */
	bool done;			/* left its loop: join it */
};

struct ivwl_ringer {
	int *fds;			/* the peer's, not ours to close */
	uint32_t nfds;
	uint64_t *counts;		/* per vector, atomic */
	uint64_t *bits;			/* vectors with a count, atomic */
	uint32_t nwords;
	int armed;			/* atomic: queued, owed or being taken */
	int stuck;			/* atomic, sticky */
	int64_t writing_since;		/* atomic: ns|1 in a write, or 0 */
	/* Under pool.lock: */
	struct ivwl_ringer *prev, *next;	/* pending list */
	bool queued;			/* in it */
	bool owed;			/* rung while in hand */
	bool closing;			/* destroy began: no more writes */
	struct ring_worker *in_hand;	/* writing it now */
};

/* Every field under lock, but for the atomics noted. */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t changed;		/* a ringer let go, a worker done */
	pthread_cond_t watch;		/* -> watchdog */
	bool ready;			/* the conds are initialised */
	unsigned int refs;		/* ringers alive */
	bool stopping;			/* the last ringer went: joining */
	bool quit;

	struct ivwl_ringer *head, *tail;	/* pending */
	struct ring_worker *current;
	struct ring_worker *retired;	/* abandoned, until joined */
	uint32_t wake_seq;		/* futex: callers -> current */
	bool armed;			/* current awake or a wake-up sent */

	pthread_t watchdog;
	bool watchdog_started;
	bool watchdog_idle;		/* waiting for work, no timeout */
	uint64_t taken;			/* ringers the workers took */

	void (*schedule)(void *data);	/* deferred wakes: once per batch */
	void *schedule_data;
	pthread_t defer_thread;		/* whose rings are deferred */
	bool wake_due;			/* a deferred wake waits for flush */
} pool = { .lock = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP };

static void
deadline_in(struct timespec *ts, int64_t ns)
{
	ns += ivwl_now_ns();
	ts->tv_sec = ns / 1000000000;
	ts->tv_nsec = ns % 1000000000;
}

/* ---- the pending list, under lock ---------------------------------- */

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

/* ---- the worker ---------------------------------------------------- */

static int
start_thread(pthread_t *thread, void *(*run)(void *), void *data,
	     const char *name)
{
	sigset_t all, old;
	int ret;

	/* Signals are for the owner's threads (weston's signalfd). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = -pthread_create(thread, NULL, run, data);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	/* For top -H and benchmarks: what the ringing costs its owner. */
	if (ret == 0)
		pthread_setname_np(*thread, name);
	return ret;
}

/* Under lock, with the current worker asleep or absent. */
static void
wake_worker(void)
{
	pool.armed = true;
	__atomic_add_fetch(&pool.wake_seq, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &pool.wake_seq, FUTEX_WAKE_PRIVATE, 1, NULL, NULL,
		0);
}

/* The only place that may block, for as long as the peer likes. */
static NOT_ASAN void
write_count(struct ring_worker *w, struct ivwl_ringer *r, uint32_t vector,
	    uint64_t count)
{
	int64_t now = ivwl_now_ns() | 1;
	ssize_t n;

	__atomic_store_n(&r->writing_since, now, __ATOMIC_SEQ_CST);
	__atomic_store_n(&w->busy_since, now, __ATOMIC_SEQ_CST);
	/* Cancellable here only: a destroy ends the write, nothing else. */
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

	__atomic_store_n(&r->armed, 0, __ATOMIC_SEQ_CST);
	for (i = 0; i < r->nwords; i++) {
		word = __atomic_exchange_n(&r->bits[i], 0, __ATOMIC_SEQ_CST);
		while (word) {
			vector = i * 64 + (uint32_t)__builtin_ctzll(word);
			word &= word - 1;
			count = __atomic_exchange_n(&r->counts[vector], 0,
						    __ATOMIC_SEQ_CST);
			/* Stuck: its rings fail, what is left is moot. */
			if (count && !__atomic_load_n(&r->stuck,
						      __ATOMIC_RELAXED))
				write_count(w, r, vector, count);
		}
	}
}

struct in_hand {
	struct ring_worker *w;
	struct ivwl_ringer *r;
};

/* Cancelled in a write by the ringer's destroy: let go, and leave. */
static void
on_cancel(void *data)
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
	pthread_cleanup_push(on_cancel, &h);
	ring_queued(w, r);
	pthread_cleanup_pop(0);
}

/* Under lock: w is done with r; rings that came meanwhile queue it. */
static void
let_go(struct ring_worker *w, struct ivwl_ringer *r)
{
	r->in_hand = NULL;
	if (r->owed && !r->closing &&
	    !__atomic_load_n(&r->stuck, __ATOMIC_RELAXED)) {
		pending_push(r);
		/* An abandoned worker hands it back to the current one. */
		if (w->abandoned && pool.current && !pool.armed)
			wake_worker();
	}
	r->owed = false;
	pthread_cond_broadcast(&pool.changed);
}

static NOT_ASAN void *
worker_run(void *data)
{
	struct ring_worker *w = data;
	struct ivwl_ringer *r;
	uint32_t seq;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	__atomic_store_n(&w->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELAXED);
	pthread_mutex_lock(&pool.lock);
	while (!w->abandoned && !pool.quit) {
		r = pool.head;
		if (!r) {
			pool.armed = false;
			seq = __atomic_load_n(&pool.wake_seq,
					      __ATOMIC_SEQ_CST);
			pthread_mutex_unlock(&pool.lock);
			while (__atomic_load_n(&pool.wake_seq,
					       __ATOMIC_SEQ_CST) == seq)
				syscall(SYS_futex, &pool.wake_seq,
					FUTEX_WAIT_PRIVATE, seq, NULL, NULL, 0);
			pthread_mutex_lock(&pool.lock);
			continue;
		}
		pending_remove(r);
		r->in_hand = w;
		pool.taken++;
		/* The first work since the watchdog's last look wakes it. */
		if (pool.watchdog_idle) {
			pool.watchdog_idle = false;
			pthread_cond_signal(&pool.watch);
		}
		pthread_mutex_unlock(&pool.lock);
		serve(w, r);
		pthread_mutex_lock(&pool.lock);
		let_go(w, r);
	}
	w->done = true;
	pthread_cond_broadcast(&pool.changed);
	/* Abandoned: the watchdog joins us. */
	pthread_cond_signal(&pool.watch);
	pthread_mutex_unlock(&pool.lock);
	return NULL;
}

/* Under lock.  On failure there is no current worker. */
static int
start_worker(void)
{
	struct ring_worker *w = calloc(1, sizeof(*w));
	int ret;

	pool.current = NULL;
	if (!w)
		return -ENOMEM;
	ret = start_thread(&w->thread, worker_run, w,
			   IVWL_RINGER_THREAD_NAME);
	if (ret < 0) {
		free(w);
		return ret;
	}
	pool.current = w;
	/* It looks at the list before it first sleeps. */
	pool.armed = true;
	return 0;
}

/* Under lock: the current worker is held by its ringer; a new one. */
static void
abandon_current(void)
{
	struct ring_worker *w = pool.current;

	w->abandoned = true;
	w->next = pool.retired;
	pool.retired = w;
	/* On failure the watchdog tries again at its next look. */
	start_worker();
}

/* Under lock: joins the abandoned workers that left (they need no lock). */
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

/* ---- the watchdog -------------------------------------------------- */

/*
 * Whether w waits for the CPU rather than for its peer: a long write on
 * a loaded machine is no reason to hand off (ivwl-bench scale saw one
 * every few seconds with the load at 10 on two CPUs).  A write the peer
 * blocks sleeps (S); one the scheduler holds up is runnable (R).
 */
static bool
worker_runnable(struct ring_worker *w)
{
	pid_t tid = __atomic_load_n(&w->tid, __ATOMIC_RELAXED);
	char path[64], buf[128], *paren;
	ssize_t n;
	int fd;

	if (tid == 0)
		return false;
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* "tid (comm) S ...": the comm is ours, but skip it properly. */
	paren = strrchr(buf, ')');
	return paren && paren[1] == ' ' && paren[2] == 'R';
}

/*
 * Under lock: the time of the next look, or 0 for none until woken.  A
 * worker in a write is looked at when that write has taken
 * IVWL_RINGER_HANDOFF_MS; one that took work since the last look, or a
 * list without a worker, one period on.
 */
static int64_t
watch_look(uint64_t *seen)
{
	struct ring_worker *w = pool.current;
	int64_t since, now = ivwl_now_ns();

	reap_retired();
	since = w ? __atomic_load_n(&w->busy_since, __ATOMIC_SEQ_CST) : 0;
	if (since && now - since >= HANDOFF_NS) {
		if (worker_runnable(w))
			return now + HANDOFF_NS;
		abandon_current();
		w = pool.current;
		since = 0;
	}
	if (!w && pool.head && start_worker() == 0)
		w = pool.current;
	if (since)
		return since + HANDOFF_NS;
	if (pool.taken != *seen || (!w && pool.head)) {
		*seen = pool.taken;
		return now + HANDOFF_NS;
	}
	return 0;
}

static void *
watchdog_run(void *data)
{
	struct timespec ts;
	uint64_t seen = 0;
	int64_t next;

	(void)data;
	pthread_mutex_lock(&pool.lock);
	seen = pool.taken - 1;
	while (!pool.quit) {
		next = watch_look(&seen);
		if (next) {
			ts.tv_sec = next / 1000000000;
			ts.tv_nsec = next % 1000000000;
			pthread_cond_timedwait(&pool.watch, &pool.lock, &ts);
			continue;
		}
		pool.watchdog_idle = true;
		pthread_cond_wait(&pool.watch, &pool.lock);
		pool.watchdog_idle = false;
	}
	pthread_mutex_unlock(&pool.lock);
	return NULL;
}

/* ---- the pool ------------------------------------------------------ */

/* Under lock: the conds, once per process. */
static void
pool_init(void)
{
	pthread_condattr_t attr;

	if (pool.ready)
		return;
	/* Deadlines are on the monotonic clock, as all ours. */
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&pool.changed, &attr);
	pthread_cond_init(&pool.watch, &attr);
	pthread_condattr_destroy(&attr);
	pool.ready = true;
}

/* Under lock: the threads one more ringer needs.  0 or -errno. */
static int
pool_get(void)
{
	int ret;

	while (pool.stopping)
		pthread_cond_wait(&pool.changed, &pool.lock);
	pool_init();
	if (!pool.current) {
		ret = start_worker();
		if (ret < 0)
			return ret;
	}
	/* With a second ringer there is one to hold up. */
	if (pool.refs >= 1 && !pool.watchdog_started) {
		ret = start_thread(&pool.watchdog, watchdog_run, NULL,
				   IVWL_RINGER_WATCHDOG_NAME);
		if (ret < 0)
			return ret;
		pool.watchdog_started = true;
	}
	pool.refs++;
	return 0;
}

/* Under lock: the last ringer went; every thread of ours ends. */
static void
pool_stop(void)
{
	struct ring_worker *w = pool.current;
	bool watchdog = pool.watchdog_started;

	pool.quit = true;
	pool.stopping = true;
	if (w)
		wake_worker();
	pthread_cond_signal(&pool.watch);
	pthread_mutex_unlock(&pool.lock);
	if (watchdog)
		pthread_join(pool.watchdog, NULL);
	if (w) {
		pthread_join(w->thread, NULL);
		free(w);
	}
	pthread_mutex_lock(&pool.lock);
	/* Each was let go by its ringer's destroy: all done. */
	reap_retired();
	pool.current = NULL;
	pool.watchdog_started = false;
	pool.armed = false;
	pool.quit = false;
	pool.stopping = false;
	pthread_cond_broadcast(&pool.changed);
}

/* ---- the API ------------------------------------------------------- */

int
ivwl_ringer_create(const int *fds, uint32_t nfds, struct ivwl_ringer **out)
{
	struct ivwl_ringer *r;
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

	pthread_mutex_lock(&pool.lock);
	ret = pool_get();
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
	int64_t since;

	if (__atomic_load_n(&r->stuck, __ATOMIC_RELAXED))
		return -ETIMEDOUT;
	since = __atomic_load_n(&r->writing_since, __ATOMIC_SEQ_CST);
	if (since && ivwl_now_ns() - since >
		     (int64_t)IVWL_RINGER_STUCK_MS * NS_PER_MS) {
		__atomic_store_n(&r->stuck, 1, __ATOMIC_RELAXED);
		return -ETIMEDOUT;
	}
	return 0;
}

/* Under lock: rings of this thread wait for its loop's flush. */
static bool
deferred(void)
{
	return pool.schedule && pthread_equal(pthread_self(),
					      pool.defer_thread);
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
	if (__atomic_exchange_n(&r->armed, 1, __ATOMIC_SEQ_CST) != 0)
		return 0;	/* queued, or owed by the worker holding it */

	pthread_mutex_lock(&pool.lock);
	if (r->in_hand) {
		r->owed = true;
	} else if (!r->queued && !r->closing) {
		pending_push(r);
		/* Armed: the worker looks at the list before it sleeps. */
		if (!pool.armed && deferred()) {
			schedule = !pool.wake_due;
			pool.wake_due = true;
		} else if (!pool.armed) {
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
	if (pool.head && pool.current && !pool.armed)
		wake_worker();
	pthread_mutex_unlock(&pool.lock);
}

/* Under lock: until r's queued rings are written, or the deadline. */
static void
flush_one(struct ivwl_ringer *r, int flush_ms)
{
	struct timespec deadline;

	deadline_in(&deadline, (int64_t)flush_ms * NS_PER_MS);
	if (r->queued && pool.current && !pool.armed)
		wake_worker();
	while ((r->queued || r->in_hand || r->owed) &&
	       pthread_cond_timedwait(&pool.changed, &pool.lock,
				      &deadline) != ETIMEDOUT)
		;
}

/* Under lock, r closing: until no worker holds r. */
static void
take_back(struct ivwl_ringer *r)
{
	struct ring_worker *w = r->in_hand;
	struct timespec deadline;

	if (!w)
		return;
	if (!w->abandoned) {
		/* An honest write is over at once. */
		deadline_in(&deadline, HANDOFF_NS);
		while (r->in_hand == w &&
		       pthread_cond_timedwait(&pool.changed, &pool.lock,
					      &deadline) != ETIMEDOUT)
			;
		if (r->in_hand != w)
			return;
		if (w == pool.current)
			abandon_current();
	}
	/*
	 * Abandoned, w writes nothing but r; a write the peer blocks sleeps
	 * interruptibly and is a cancellation point, so this cannot hang.
	 */
	pthread_cancel(w->thread);
	while (r->in_hand == w)
		pthread_cond_wait(&pool.changed, &pool.lock);
}

void
ivwl_ringer_destroy(struct ivwl_ringer *r, int flush_ms)
{
	if (!r)
		return;
	pthread_mutex_lock(&pool.lock);
	if (flush_ms > 0 && ivwl_ringer_health(r) == 0)
		flush_one(r, flush_ms);
	r->closing = true;
	if (r->queued)
		pending_remove(r);
	take_back(r);
	r->owed = false;
	reap_retired();
	if (--pool.refs == 0)
		pool_stop();
	pthread_mutex_unlock(&pool.lock);
	free(r->bits);
	free(r->counts);
	free(r->fds);
	free(r);
}
