/* SPDX-License-Identifier: MIT */
/*
 * weston's outputs and their repaints (output-clock.h), through each
 * output's frame signal and its repaint scheduler's public state.
 */
#include <stdlib.h>
#include <time.h>

#include <libweston/libweston.h>

#include "log.h"
#include "mono-time.h"
#include "output-clock.h"

#define NS_PER_MS 1000000ll

struct clock_output {
	struct ivwl_output_clock *clock;
	struct weston_output *output;
	struct wl_list link;		/* ivwl_output_clock.outputs */
	struct wl_listener frame;
	struct wl_listener destroy;
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
 * weston_output_finish_frame() sets an output's next_repaint (the
 * presentation, a refresh period later, less the repaint window) and
 * marks it REPAINT_SCHEDULED before the events it sent, presented among
 * them, reach the plugin.  Its repaint timer counts whole milliseconds
 * and waits one at least, so a repaint due sooner comes a millisecond
 * from now.  An output in any other state has no repaint due: it is
 * idle, or its repaint is in flight and the frame callbacks it answers
 * are sent already.
 */
int64_t
ivwl_output_clock_next_ms(const struct ivwl_output_clock *clock)
{
	const struct clock_output *co;
	const struct weston_output *o;
	struct timespec now;
	int64_t first = -1, left;

	if (!clock)
		return -1;
	wl_list_for_each(co, &clock->outputs, link) {
		o = co->output;
		if (o->repaint_status != REPAINT_SCHEDULED)
			continue;
		/* next_repaint's clock */
		clock_gettime(o->compositor->presentation_clock, &now);
		left = ivwl_timespec_ns(&o->next_repaint) -
		       ivwl_timespec_ns(&now);
		if (left < NS_PER_MS)
			left = NS_PER_MS;
		if (first < 0 || left < first)
			first = left;
	}
	return first < 0 ? -1 : (first + NS_PER_MS - 1) / NS_PER_MS;
}
