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
 * Callbacks have wl_event_loop's signature and level-triggered meaning
 * (unless IVWL_WATCH_EDGE says otherwise), and run from weston's loop.
 * A watch removed from inside a callback (its own or another's) is never
 * called again, even later in the same batch.
 */
#ifndef IVWL_WATCH_H
#define IVWL_WATCH_H

#include <stdint.h>
#include <wayland-server-core.h>

struct ivwl_watcher;
struct ivwl_watch;

/*
 * With WL_EVENT_READABLE: call back once for each time the fd becomes
 * ready again (EPOLLET), not for as long as it stays ready.  For an
 * eventfd every write is such a time, so a doorbell needs no read to
 * rearm: one system call a wake-up fewer.
 */
#define IVWL_WATCH_EDGE 0x100

/* NULL with errno set. */
struct ivwl_watcher *
ivwl_watcher_create(struct wl_event_loop *loop);

/* Every watch must have been removed. */
void
ivwl_watcher_destroy(struct ivwl_watcher *watcher);

/*
 * Watches fd (which stays the caller's) for mask (WL_EVENT_READABLE,
 * WL_EVENT_WRITABLE, IVWL_WATCH_EDGE).  NULL with errno set.
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
