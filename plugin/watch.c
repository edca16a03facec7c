/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "watch.h"

/* Events taken per wake-up from weston's loop: the set stays readable
 * for the rest, so weston goes round its other sources in between. */
#define BATCH 32

struct ivwl_watch {
	struct ivwl_watcher *watcher;
	int fd;
	wl_event_loop_fd_func_t func;	/* NULL once removed */
	void *data;
	struct ivwl_watch *next_dead;
};

struct ivwl_watcher {
	int epfd;
	struct wl_event_source *source;
	int dispatching;
	struct ivwl_watch *dead;	/* removed during a batch */
};

static uint32_t
to_epoll(uint32_t mask)
{
	return (mask & WL_EVENT_READABLE ? EPOLLIN : 0) |
	       (mask & WL_EVENT_WRITABLE ? EPOLLOUT : 0) |
	       (mask & IVWL_WATCH_EDGE ? EPOLLET : 0);
}

static uint32_t
from_epoll(uint32_t events)
{
	return (events & EPOLLIN ? WL_EVENT_READABLE : 0) |
	       (events & EPOLLOUT ? WL_EVENT_WRITABLE : 0) |
	       (events & EPOLLHUP ? WL_EVENT_HANGUP : 0) |
	       (events & EPOLLERR ? WL_EVENT_ERROR : 0);
}

static void
free_dead(struct ivwl_watcher *w)
{
	struct ivwl_watch *watch;

	while ((watch = w->dead)) {
		w->dead = watch->next_dead;
		free(watch);
	}
}

static int
on_ready(int fd, uint32_t mask, void *data)
{
	struct ivwl_watcher *w = data;
	struct epoll_event ev[BATCH];
	int i, n;

	n = epoll_wait(w->epfd, ev, BATCH, 0);
	w->dispatching++;
	for (i = 0; i < n; i++) {
		struct ivwl_watch *watch = ev[i].data.ptr;

		if (watch->func)
			watch->func(watch->fd, from_epoll(ev[i].events),
				    watch->data);
	}
	if (--w->dispatching == 0)
		free_dead(w);
	return 0;
}

struct ivwl_watcher *
ivwl_watcher_create(struct wl_event_loop *loop)
{
	struct ivwl_watcher *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (w->epfd < 0)
		goto err_free;
	w->source = wl_event_loop_add_fd(loop, w->epfd, WL_EVENT_READABLE,
					 on_ready, w);
	if (!w->source)
		goto err_close;
	return w;

err_close:
	close(w->epfd);
err_free:
	free(w);
	return NULL;
}

void
ivwl_watcher_destroy(struct ivwl_watcher *w)
{
	if (!w)
		return;
	free_dead(w);
	wl_event_source_remove(w->source);
	close(w->epfd);
	free(w);
}

struct ivwl_watch *
ivwl_watch_add(struct ivwl_watcher *w, int fd, uint32_t mask,
	       wl_event_loop_fd_func_t func, void *data)
{
	struct ivwl_watch *watch = calloc(1, sizeof(*watch));
	struct epoll_event ev = { .events = to_epoll(mask) };

	if (!watch)
		return NULL;
	watch->watcher = w;
	watch->fd = fd;
	watch->func = func;
	watch->data = data;
	ev.data.ptr = watch;
	if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		free(watch);
		return NULL;
	}
	return watch;
}

int
ivwl_watch_update(struct ivwl_watch *watch, uint32_t mask)
{
	struct epoll_event ev = { .events = to_epoll(mask) };

	ev.data.ptr = watch;
	return epoll_ctl(watch->watcher->epfd, EPOLL_CTL_MOD, watch->fd, &ev);
}

void
ivwl_watch_remove(struct ivwl_watch *watch)
{
	struct ivwl_watcher *w;

	if (!watch)
		return;
	w = watch->watcher;
	epoll_ctl(w->epfd, EPOLL_CTL_DEL, watch->fd, NULL);
	if (w->dispatching) {
		/* Its event may still be in the batch being handled. */
		watch->func = NULL;
		watch->next_dead = w->dead;
		w->dead = watch;
		return;
	}
	free(watch);
}
