/* SPDX-License-Identifier: MIT */
/*
 * Attaching to ivwl-server off weston's thread.
 *
 * Opening a server device waits for the server's messages: at least the
 * time it takes to settle the vector count, up to the attach timeout for
 * a server that accepts and never answers.  Done in weston's thread that
 * would freeze the desktop for every VM that attaches or retries, and
 * attach dozens of VMs one after another.  Each attempt runs in a thread
 * of its own; the result comes back through one eventfd for all VMs and
 * is handed over in weston's thread.
 */
#ifndef IVWL_ATTACH_H
#define IVWL_ATTACH_H

struct ivwl_attacher;
struct ivwl_device;
struct ivwl_watcher;

/*
 * Called in weston's thread for every attempt that was not cancelled:
 * dev on success (the callee owns it), or NULL with ret (-errno) and err
 * (a static string, or NULL).
 */
typedef void (*ivwl_attach_done_t)(void *owner, struct ivwl_device *dev,
				   int ret, const char *err);

/* NULL with errno set. */
struct ivwl_attacher *
ivwl_attacher_create(struct ivwl_watcher *watcher, ivwl_attach_done_t done);

/* Attempts still running are cancelled and clean up after themselves. */
void
ivwl_attacher_destroy(struct ivwl_attacher *attacher);

/*
 * Starts opening the server at socket_path for owner, at most one
 * attempt per owner at a time.  0 or -errno (no attempt started).
 */
int
ivwl_attacher_start(struct ivwl_attacher *attacher, void *owner,
		    const char *socket_path, int timeout_ms);

/* owner's attempt, if any, ends without a callback. */
void
ivwl_attacher_cancel(struct ivwl_attacher *attacher, void *owner);

#endif
