/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "attach.h"
#include "device.h"
#include "watch.h"

struct attach_job {
	struct ivwl_attacher *attacher;
	void *owner;		/* NULL once cancelled */
	char *path;
	int timeout_ms;
	bool finished;
	struct ivwl_device *dev;
	int ret;
	const char *err;
	struct attach_job *next;
};

/* Shared with the threads: the last of them or the owner frees it. */
struct ivwl_attacher {
	pthread_mutex_t lock;	/* for everything below but done and watch */
	int refs;
	bool closed;
	int fd;			/* eventfd: a job finished */
	struct attach_job *jobs;
	ivwl_attach_done_t done;
	struct ivwl_watch *watch;
};

static void
job_free(struct attach_job *job)
{
	if (job->dev)
		ivwl_device_destroy(job->dev);
	free(job->path);
	free(job);
}

/* Under the lock. */
static void
unlink_job(struct ivwl_attacher *a, struct attach_job *job)
{
	struct attach_job **p;

	for (p = &a->jobs; *p; p = &(*p)->next)
		if (*p == job) {
			*p = job->next;
			return;
		}
}

static void
attacher_unref(struct ivwl_attacher *a)
{
	bool last;

	pthread_mutex_lock(&a->lock);
	last = --a->refs == 0;
	pthread_mutex_unlock(&a->lock);
	if (!last)
		return;
	while (a->jobs) {
		struct attach_job *job = a->jobs;

		a->jobs = job->next;
		job_free(job);
	}
	close(a->fd);
	pthread_mutex_destroy(&a->lock);
	free(a);
}

static void *
attach_run(void *data)
{
	struct attach_job *job = data;
	struct ivwl_attacher *a = job->attacher;
	uint64_t one = 1;
	bool orphan;

	/* The app's eventfds stay with the server, and so does the
	 * region's fd between create_pools (docs/region.md). */
	job->ret = ivwl_device_open_server_flags(job->path, job->timeout_ms,
						 IVWL_DEVICE_SERVER_RINGS |
						 IVWL_DEVICE_SERVER_VECTOR0 |
						 IVWL_DEVICE_SERVER_BORROW,
						 &job->dev, &job->err);
	pthread_mutex_lock(&a->lock);
	job->finished = true;
	orphan = a->closed || !job->owner;
	if (orphan)
		unlink_job(a, job);
	else if (write(a->fd, &one, sizeof(one)) < 0) {
		/* the counter is set already: a wake-up is pending */
	}
	pthread_mutex_unlock(&a->lock);
	if (orphan)
		job_free(job);
	attacher_unref(a);
	return NULL;
}

/* Unlinks the finished jobs, orphaning all if cancel; the caller frees. */
static struct attach_job *
take_finished(struct ivwl_attacher *a, bool cancel)
{
	struct attach_job *ready = NULL, **p, *job;

	pthread_mutex_lock(&a->lock);
	if (cancel)
		a->closed = true;
	for (p = &a->jobs; (job = *p);) {
		if (cancel)
			job->owner = NULL;
		if (!job->finished) {
			p = &job->next;
			continue;
		}
		*p = job->next;
		job->next = ready;
		ready = job;
	}
	pthread_mutex_unlock(&a->lock);
	return ready;
}

static int
on_finished(int fd, uint32_t mask, void *data)
{
	struct ivwl_attacher *a = data;
	struct attach_job *ready, *job;
	uint64_t v;

	if (read(fd, &v, sizeof(v)) < 0) {
		/* spurious: nothing finished */
	}
	ready = take_finished(a, false);

	/* The callback may start or cancel attempts: the lock is free. */
	while ((job = ready)) {
		ready = job->next;
		if (job->owner) {
			a->done(job->owner, job->dev, job->ret, job->err);
			job->dev = NULL;
		}
		job_free(job);
	}
	return 0;
}

struct ivwl_attacher *
ivwl_attacher_create(struct ivwl_watcher *watcher, ivwl_attach_done_t done)
{
	struct ivwl_attacher *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (a->fd < 0)
		goto err_free;
	a->watch = ivwl_watch_add(watcher, a->fd, WL_EVENT_READABLE,
				  on_finished, a);
	if (!a->watch)
		goto err_close;
	pthread_mutex_init(&a->lock, NULL);
	a->refs = 1;
	a->done = done;
	return a;

err_close:
	close(a->fd);
err_free:
	free(a);
	return NULL;
}

void
ivwl_attacher_destroy(struct ivwl_attacher *a)
{
	struct attach_job *ready, *job;

	if (!a)
		return;
	ivwl_watch_remove(a->watch);
	/* Finished ones are ours to free; running ones free themselves. */
	ready = take_finished(a, true);
	while ((job = ready)) {
		ready = job->next;
		job_free(job);
	}
	attacher_unref(a);
}

static int
spawn(struct attach_job *job)
{
	pthread_attr_t attr;
	pthread_t thread;
	sigset_t all, old;
	int ret;

	/* Signals are for weston's thread (its signalfd). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	ret = -pthread_create(&thread, &attr, attach_run, job);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}

int
ivwl_attacher_start(struct ivwl_attacher *a, void *owner,
		    const char *socket_path, int timeout_ms)
{
	struct attach_job *job;
	int ret;

	pthread_mutex_lock(&a->lock);
	for (job = a->jobs; job; job = job->next)
		if (job->owner == owner) {
			pthread_mutex_unlock(&a->lock);
			return -EBUSY;
		}
	pthread_mutex_unlock(&a->lock);

	job = calloc(1, sizeof(*job));
	if (!job)
		return -ENOMEM;
	job->path = strdup(socket_path);
	if (!job->path) {
		free(job);
		return -ENOMEM;
	}
	job->attacher = a;
	job->owner = owner;
	job->timeout_ms = timeout_ms;

	pthread_mutex_lock(&a->lock);
	a->refs++;
	job->next = a->jobs;
	a->jobs = job;
	pthread_mutex_unlock(&a->lock);

	ret = spawn(job);
	if (ret < 0) {
		pthread_mutex_lock(&a->lock);
		unlink_job(a, job);
		a->refs--;
		pthread_mutex_unlock(&a->lock);
		job_free(job);
	}
	return ret;
}

void
ivwl_attacher_cancel(struct ivwl_attacher *a, void *owner)
{
	struct attach_job *job, *ready = NULL;

	pthread_mutex_lock(&a->lock);
	for (job = a->jobs; job; job = job->next) {
		if (job->owner != owner)
			continue;
		job->owner = NULL;
		if (job->finished) {
			unlink_job(a, job);
			ready = job;
		}
		break;
	}
	pthread_mutex_unlock(&a->lock);
	if (ready)
		job_free(ready);
}
