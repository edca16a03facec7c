/* SPDX-License-Identifier: MIT */
/*
 * weston's outputs and their repaints (output-clock.c): when the next
 * repaint is due, and a signal right after each repaint.
 */
#ifndef IVWL_OUTPUT_CLOCK_H
#define IVWL_OUTPUT_CLOCK_H

#include <stdint.h>

struct ivwl_output_clock;
struct weston_compositor;
struct wl_listener;

struct ivwl_output_clock *
ivwl_output_clock_create(struct weston_compositor *ec);

void
ivwl_output_clock_destroy(struct ivwl_output_clock *clock);

/*
 * listener gets the struct weston_output right after weston repainted
 * it, before it sends the frame callbacks.
 */
void
ivwl_output_clock_add_frame_listener(struct ivwl_output_clock *clock,
				     struct wl_listener *listener);

/* listener gets the struct weston_output as weston destroys it. */
void
ivwl_output_clock_add_gone_listener(struct ivwl_output_clock *clock,
				    struct wl_listener *listener);

/* Milliseconds until weston's next scheduled repaint of an output (1 at
 * least), or -1 when none is scheduled (or clock is NULL). */
int64_t
ivwl_output_clock_next_ms(const struct ivwl_output_clock *clock);

#endif
