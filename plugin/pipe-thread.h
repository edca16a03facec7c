/* SPDX-License-Identifier: MIT */
/*
 * A pipe that weston itself may write into with a blocking write() from
 * its main thread (its clipboard manager serves a selection whose owner
 * is gone that way).  Reading it from the same thread would deadlock, so
 * a thread of its own drains it into memory and feeds a second pipe that
 * the main loop reads without blocking anyone.
 */
#ifndef IVWL_PIPE_THREAD_H
#define IVWL_PIPE_THREAD_H

#include <stddef.h>

#include "ivwl-limits.h"

/*
 * What the pipe threads of one VM may hold in memory together, shared by
 * them and the VM: threads outlive their connection and the VM, so the
 * last of them to let go frees it.
 */
struct ivwl_pipe_budget;

/* A budget of limit bytes, held once by the caller; NULL without memory. */
struct ivwl_pipe_budget *
ivwl_pipe_budget_create(size_t limit);

void
ivwl_pipe_budget_unref(struct ivwl_pipe_budget *budget);

/* Bytes the budget's threads hold now (for tests and logs). */
size_t
ivwl_pipe_budget_used(const struct ivwl_pipe_budget *budget);

/*
 * Takes in_fd (a read end).  Returns the read end of the new pipe, or
 * -errno (in_fd is closed then too).  The buffer grows within its own
 * bound and what budget has left (the thread holds a reference).  If it
 * stays full without progress, the thread writes to alarm_fd (an
 * eventfd, dup'ed here), so the owner can end the connection loudly, and
 * drains in_fd to its end, so a writer blocked in weston's main thread
 * is let go.
 */
int
ivwl_pipe_decouple(int in_fd, int alarm_fd, struct ivwl_pipe_budget *budget);

#endif
