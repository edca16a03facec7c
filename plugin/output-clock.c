/* SPDX-License-Identifier: MIT */
/*
 * weston's outputs and their repaints (output-clock.h), through each
 * output's frame signal.
 */
#include <stdlib.h>

#include <libweston/libweston.h>

#include "log.h"
#include "mono-time.h"
#include "output-clock.h"

struct clock_output {
	struct ivwl_output_clock *clock;
	struct weston_output *output;
	struct wl_list link;		/* ivwl_output_clock.outputs */
	struct wl_listener frame;
	struct wl_listener destroy;
	int64_t frame_ns;		/* its last repaint, CLOCK_MONOTONIC */
};

struct ivwl_output_clock {
	struct wl_list outputs;
	struct wl_listener output_created;
	struct wl_signal frame_signal;	/* struct weston_output */
	struct wl_signal gone_signal;	/* struct weston_output */
};

static void
on_frame(struct wl_listener *listener, void *data)
{
	struct clock_output *co = wl_container_of(listener, co, frame);

	co->frame_ns = ivwl_now_ns();
	wl_signal_emit(&co->clock->frame_signal, co->output);
}

static void
output_forget(struct clock_output *co)
{
	wl_list_remove(&co->frame.link);
	wl_list_remove(&co->destroy.link);
	wl_list_remove(&co->link);
	free(co);
}

static void
on_output_destroy(struct wl_listener *listener, void *data)
{
	struct clock_output *co = wl_container_of(listener, co, destroy);

	wl_signal_emit(&co->clock->gone_signal, co->output);
	output_forget(co);
}

static void
follow(struct ivwl_output_clock *clock, struct weston_output *output)
{
	struct clock_output *co = calloc(1, sizeof(*co));

	if (!co) {
		ivwl_log("out of memory: the repaints of %s go unaccounted",
			 output->name);
		return;
	}
	co->clock = clock;
	co->output = output;
	wl_list_insert(&clock->outputs, &co->link);
	co->frame.notify = on_frame;
	wl_signal_add(&output->frame_signal, &co->frame);
	co->destroy.notify = on_output_destroy;
	wl_signal_add(&output->destroy_signal, &co->destroy);
}

static void
on_output_created(struct wl_listener *listener, void *data)
{
	struct ivwl_output_clock *clock =
		wl_container_of(listener, clock, output_created);

	follow(clock, data);
}

struct ivwl_output_clock *
ivwl_output_clock_create(struct weston_compositor *ec)
{
	struct ivwl_output_clock *clock = calloc(1, sizeof(*clock));
	struct weston_output *output;

	if (!clock)
		return NULL;
	wl_list_init(&clock->outputs);
	wl_signal_init(&clock->frame_signal);
	wl_signal_init(&clock->gone_signal);
	wl_list_for_each(output, &ec->output_list, link)
		follow(clock, output);
	clock->output_created.notify = on_output_created;
	wl_signal_add(&ec->output_created_signal, &clock->output_created);
	return clock;
}

void
ivwl_output_clock_destroy(struct ivwl_output_clock *clock)
{
	struct clock_output *co, *tmp;

	if (!clock)
		return;
	wl_list_for_each_safe(co, tmp, &clock->outputs, link)
		output_forget(co);
	wl_list_remove(&clock->output_created.link);
	free(clock);
}

void
ivwl_output_clock_add_frame_listener(struct ivwl_output_clock *clock,
				     struct wl_listener *listener)
{
	wl_signal_add(&clock->frame_signal, listener);
}

void
ivwl_output_clock_add_gone_listener(struct ivwl_output_clock *clock,
				    struct wl_listener *listener)
{
	wl_signal_add(&clock->gone_signal, listener);
}

/*
 * From the outputs' own cadence, through their frame signal: weston's
 * repaint scheduler keeps its next repaint to itself, but an output that
 * repainted within its refresh period repaints again one period after.
 */
int64_t
ivwl_output_clock_next_ms(const struct ivwl_output_clock *clock)
{
	const struct clock_output *co;
	int64_t now = ivwl_now_ns(), first = -1, period, left;
	int32_t mhz;

	if (!clock)
		return -1;
	wl_list_for_each(co, &clock->outputs, link) {
		mhz = co->output->current_mode ?
			      co->output->current_mode->refresh : 0;
		if (mhz <= 0 || co->frame_ns == 0)
			continue;
		period = 1000000000000ll / mhz;
		left = co->frame_ns + period - now;
		if (left < 0)
			continue;
		if (first < 0 || left < first)
			first = left;
	}
	return first < 0 ? -1 : (first + 999999) / 1000000;
}
