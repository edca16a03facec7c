/* SPDX-License-Identifier: MIT */
/*
 * The frame trace (frame-trace.h).  One write(2) per event on an
 * O_APPEND file of the process's own: nothing buffered to lose when a
 * process is killed, nothing to flush from a weston that keeps running.
 * It costs a syscall per event while on, which the bench says.
 */
#include <fcntl.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "frame-trace.h"
#include "mono-time.h"

#define TRACE_UNKNOWN (-2)
#define TRACE_OFF (-1)

static int trace_fd = TRACE_UNKNOWN;
static const char *trace_name;

static int
open_trace(void)
{
	const char *dir = getenv("IVWL_FRAME_TRACE");
	char path[4096];

	if (!dir || !dir[0])
		return TRACE_OFF;
	snprintf(path, sizeof(path), "%s/%s-%d.trace", dir,
		 trace_name ? trace_name : program_invocation_short_name,
		 (int)getpid());
	return open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

void
ivwl_trace_set_name(const char *name)
{
	trace_name = name;
}

bool
ivwl_trace_on(void)
{
	if (trace_fd == TRACE_UNKNOWN) {
		trace_fd = open_trace();
		if (trace_fd < 0)
			trace_fd = TRACE_OFF;
	}
	return trace_fd >= 0;
}

void
ivwl_trace(enum ivwl_trace_kind kind, uint64_t a)
{
	char line[64];
	int n;

	if (!ivwl_trace_on())
		return;
	n = snprintf(line, sizeof(line), "%c %lld %llu\n", (char)kind,
		     (long long)ivwl_now_ns(), (unsigned long long)a);
	if (write(trace_fd, line, (size_t)n) < 0) {
		/* a full disk ends the trace, not the process */
		trace_fd = TRACE_OFF;
	}
}
