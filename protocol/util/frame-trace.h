/* SPDX-License-Identifier: MIT */
/*
 * Per-stage frame timing for `ivwl-bench frames` (bench/frames.py).  With
 * IVWL_FRAME_TRACE=DIR in its environment, each ivwl process appends one
 * line per event to DIR/<program>-<pid>.trace:
 *
 *     <kind> <CLOCK_MONOTONIC ns> <a>
 *
 * Without it, every call is one load and a compare.
 */
#ifndef IVWL_FRAME_TRACE_H
#define IVWL_FRAME_TRACE_H

#include <stdbool.h>
#include <stdint.h>

enum ivwl_trace_kind {
	/* a wl_surface.commit: the relay wrote it to the ring, the plugin
	 * read it; a = generation << 8 | slot */
	IVWL_TRACE_COMMIT = 'C',
	IVWL_TRACE_RING = 'R',		/* a doorbell rung; a = peer */
	IVWL_TRACE_WAKE = 'W',		/* woke up; a = 1 by a doorbell */
	IVWL_TRACE_REPAINT = 'P',	/* weston repainted an output */
};

/* The <program> of the file, before the first event: the shim's
 * in-process relay writes as "ivwl-shim", not as its client. */
void
ivwl_trace_set_name(const char *name);

bool
ivwl_trace_on(void);

void
ivwl_trace(enum ivwl_trace_kind kind, uint64_t a);

#endif
