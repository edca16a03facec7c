/* SPDX-License-Identifier: MIT */
/*
 * The plugin's own fd watcher: one epoll set, watched by weston's event
 * loop through a single source.
 *
 * wl_event_loop_add_fd() duplicates every fd it is given, so each source
 * costs weston two descriptors.  With dozens of VMs under a desktop
 * session's 1024-file limit that doubling is what runs out first: every
 * fd the plugin waits on goes into this set instead, once.
 *
 * Callbacks have wl_event_loop's signature and level-triggered meaning,
 * and run from weston's loop.  A watch removed from inside a callback
 * (its own or another's) is never called again, even later in the same
 * batch.
 */
#ifndef IVWL_WATCH_H
#define IVWL_WATCH_H

#include <stdint.h>
#include <wayland-server-core.h>

struct ivwl_watcher;
struct ivwl_watch;

/* NULL with errno set. */
struct ivwl_watcher *
ivwl_watcher_create(struct wl_event_loop *loop);

/* Every watch must have been removed. */
void
ivwl_watcher_destroy(struct ivwl_watcher *watcher);

/*
 * Watches fd (which stays the caller's) for mask (WL_EVENT_READABLE,
 * WL_EVENT_WRITABLE).  NULL with errno set.
 */
struct ivwl_watch *
ivwl_watch_add(struct ivwl_watcher *watcher, int fd, uint32_t mask,
	       wl_event_loop_fd_func_t func, void *data);

/* 0 or -1 with errno set. */
int
ivwl_watch_update(struct ivwl_watch *watch, uint32_t mask);

/* Before the fd is closed.  NULL is fine. */
void
ivwl_watch_remove(struct ivwl_watch *watch);

#endif
