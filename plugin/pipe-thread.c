/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fd-flags.h"
#include "ivwl-plugin.h"
#include "pipe-thread.h"

struct ivwl_pipe_budget {
	int refs;		/* atomic */
	size_t used;		/* atomic */
	size_t limit;
};

struct pipe_thread {
	int in_fd;
	int out_fd;
	int alarm_fd;
	struct ivwl_pipe_budget *budget;
	uint8_t *buf;
	size_t start, end, cap;
};

struct ivwl_pipe_budget *
ivwl_pipe_budget_create(size_t limit)
{
	struct ivwl_pipe_budget *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->refs = 1;
	b->limit = limit;
	return b;
}

static struct ivwl_pipe_budget *
budget_ref(struct ivwl_pipe_budget *b)
{
	__atomic_add_fetch(&b->refs, 1, __ATOMIC_RELAXED);
	return b;
}

void
ivwl_pipe_budget_unref(struct ivwl_pipe_budget *b)
{
	if (b && __atomic_sub_fetch(&b->refs, 1, __ATOMIC_ACQ_REL) == 0)
		free(b);
}

size_t
ivwl_pipe_budget_used(const struct ivwl_pipe_budget *b)
{
	return __atomic_load_n(&b->used, __ATOMIC_RELAXED);
}

/* Takes n more bytes of the budget, or none when they are not there. */
static bool
budget_take(struct ivwl_pipe_budget *b, size_t n)
{
	size_t used = __atomic_load_n(&b->used, __ATOMIC_RELAXED);

	do {
		if (n > b->limit - used)
			return false;
	} while (!__atomic_compare_exchange_n(&b->used, &used, used + n, true,
					      __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return true;
}

static void
budget_give(struct ivwl_pipe_budget *b, size_t n)
{
	__atomic_sub_fetch(&b->used, n, __ATOMIC_RELAXED);
}

static int
make_room(struct pipe_thread *t)
{
	size_t used = t->end - t->start, cap;
	uint8_t *n;

	if (t->start > 0 && t->start >= t->cap / 2) {
		memmove(t->buf, t->buf + t->start, used);
		t->start = 0;
		t->end = used;
	}
	if (t->end < t->cap)
		return 0;
	if (t->cap >= IVWL_PIPE_THREAD_BUFFER)
		return -ENOBUFS;
	cap = t->cap ? 2 * t->cap : 65536;
	/* the VM's other pipes may hold the rest: a full buffer then */
	if (!budget_take(t->budget, cap - t->cap))
		return -ENOBUFS;
	n = realloc(t->buf, cap);
	if (!n) {
		budget_give(t->budget, cap - t->cap);
		return -ENOMEM;
	}
	t->buf = n;
	t->cap = cap;
	return 0;
}

/* Reads in_fd to its end, keeping nothing: the writer must not stay stuck. */
static void
drain_and_drop(struct pipe_thread *t)
{
	struct pollfd pfd = { .fd = t->in_fd, .events = POLLIN };
	uint8_t sink[65536];
	ssize_t n;

	/* Blocking saves a poll a read; still non-blocking, EAGAIN polls. */
	(void)ivwl_fd_set_nonblock(t->in_fd, false);
	for (;;) {
		n = read(t->in_fd, sink, sizeof(sink));
		if (n > 0 || (n < 0 && errno == EINTR))
			continue;
		if (n < 0 && errno == EAGAIN && poll(&pfd, 1, -1) >= 0)
			continue;
		return;
	}
}

static void
raise_alarm(struct pipe_thread *t)
{
	uint64_t one = 1;

	if (write(t->alarm_fd, &one, sizeof(one)) < 0) {
		/* the owner is gone already; nothing else to tell */
	}
}

static void *
pipe_thread_run(void *data)
{
	struct pipe_thread *t = data;
	bool eof = false;

	while (!eof || t->end > t->start) {
		struct pollfd pfd[2] = {
			{ .fd = t->in_fd, .events = 0 },
			{ .fd = t->out_fd, .events = 0 },
		};
		bool full = false;
		ssize_t n;
		int ret;

		if (!eof) {
			if (make_room(t) == 0)
				pfd[0].events = POLLIN;
			else
				full = true;
		}
		if (t->end > t->start)
			pfd[1].events = POLLOUT;
		ret = poll(pfd, 2, full ? IVWL_PIPE_THREAD_STALL_MS : -1);
		if (ret == 0 && full) {
			/* Nobody drains us and the writer may be weston's
			 * main thread, blocked: fail loudly, free it. */
			raise_alarm(t);
			close(t->out_fd);
			t->out_fd = -1;
			drain_and_drop(t);
			break;
		}
		if (ret < 0 && errno != EINTR)
			break;
		if (pfd[0].revents) {
			n = read(t->in_fd, t->buf + t->end, t->cap - t->end);
			if (n > 0)
				t->end += (size_t)n;
			else if (n == 0 || (errno != EAGAIN && errno != EINTR))
				eof = true;
		}
		if (pfd[1].revents & (POLLERR | POLLHUP))
			break;	/* the channel went away */
		if (pfd[1].revents & POLLOUT) {
			n = write(t->out_fd, t->buf + t->start,
				  t->end - t->start);
			if (n > 0)
				t->start += (size_t)n;
			else if (n < 0 && errno != EAGAIN && errno != EINTR)
				break;
		}
	}
	close(t->in_fd);
	if (t->out_fd >= 0)
		close(t->out_fd);
	close(t->alarm_fd);
	budget_give(t->budget, t->cap);
	ivwl_pipe_budget_unref(t->budget);
	free(t->buf);
	free(t);
	return NULL;
}

int
ivwl_pipe_decouple(int in_fd, int alarm_fd, struct ivwl_pipe_budget *budget)
{
	struct pipe_thread *t;
	pthread_attr_t attr;
	pthread_t thread;
	sigset_t all, old;
	int p[2], ret;

	t = calloc(1, sizeof(*t));
	if (!t) {
		ret = -ENOMEM;
		goto err_free;
	}
	/* The client's end may not block the thread for ever (it polls);
	 * both ends of ours are non-blocking: the main loop's may not. */
	ret = ivwl_fd_set_nonblock(in_fd, true);
	if (ret < 0)
		goto err_free;
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0) {
		ret = -errno;
		goto err_free;
	}
	t->in_fd = in_fd;
	t->out_fd = p[1];
	t->budget = budget;
	t->alarm_fd = fcntl(alarm_fd, F_DUPFD_CLOEXEC, 0);
	if (t->alarm_fd < 0) {
		ret = -errno;
		close(p[0]);
		close(p[1]);
		goto err_free;
	}

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	budget_ref(budget);
	ret = -pthread_create(&thread, &attr, pipe_thread_run, t);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret < 0) {
		ivwl_pipe_budget_unref(budget);
		close(p[0]);
		close(p[1]);
		close(t->alarm_fd);
		goto err_free;
	}
	return p[0];

err_free:
	free(t);
	close(in_fd);
	return ret;
}
