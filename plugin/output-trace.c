/* SPDX-License-Identifier: MIT */
/*
 * "weston repainted" for the frame trace (protocol/util/frame-trace.h): one
 * IVWL_TRACE_REPAINT line each time an output's frame signal fires,
 * right after weston has repainted it.  Only with IVWL_FRAME_TRACE set.
 */
#include <stdlib.h>

#include <libweston/libweston.h>

#include "frame-trace.h"
#include "ivwl-plugin.h"

struct output_trace {
	struct wl_listener frame;
	struct wl_listener destroy;
};

struct ivwl_output_trace {
	struct wl_listener created;
	struct wl_listener compositor_destroy;
};

static void
on_frame(struct wl_listener *listener, void *data)
{
	ivwl_trace(IVWL_TRACE_REPAINT, 0);
}

static void
on_output_destroy(struct wl_listener *listener, void *data)
{
	struct output_trace *ot = wl_container_of(listener, ot, destroy);

	wl_list_remove(&ot->frame.link);
	wl_list_remove(&ot->destroy.link);
	free(ot);
}

static void
follow_output(struct weston_output *output)
{
	struct output_trace *ot = calloc(1, sizeof(*ot));

	if (!ot)
		return;
	ot->frame.notify = on_frame;
	wl_signal_add(&output->frame_signal, &ot->frame);
	ot->destroy.notify = on_output_destroy;
	wl_signal_add(&output->destroy_signal, &ot->destroy);
}

static void
on_created(struct wl_listener *listener, void *data)
{
	follow_output(data);
}

static void
on_compositor_destroy(struct wl_listener *listener, void *data)
{
	struct ivwl_output_trace *t =
		wl_container_of(listener, t, compositor_destroy);

	wl_list_remove(&t->created.link);
	wl_list_remove(&t->compositor_destroy.link);
	free(t);
}

void
ivwl_output_trace_start(struct weston_compositor *compositor)
{
	struct ivwl_output_trace *t;
	struct weston_output *output;

	if (!ivwl_trace_on())
		return;
	t = calloc(1, sizeof(*t));
	if (!t)
		return;
	wl_list_for_each(output, &compositor->output_list, link)
		follow_output(output);
	t->created.notify = on_created;
	wl_signal_add(&compositor->output_created_signal, &t->created);
	t->compositor_destroy.notify = on_compositor_destroy;
	wl_signal_add(&compositor->destroy_signal, &t->compositor_destroy);
}
