/* SPDX-License-Identifier: MIT */
/* A client's windows destroyed a batch a tick (teardown.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <wayland-server-core.h>

#include "teardown.h"

struct ivwl_teardown {
	struct wl_event_loop *loop;
	bool settle;			/* idle callbacks before each batch */
	struct wl_client *client;
	uint32_t *ids;
	uint32_t n;
	uint32_t next;			/* ids[next..n) are left */
	struct wl_event_source *timer;
	void (*done)(void *data);
	void *data;
};

void
ivwl_teardown_objects(struct wl_client *client, const uint32_t *ids,
		      uint32_t from, uint32_t to)
{
	struct wl_resource *resource;
	uint32_t i;

	for (i = from; i < to; i++) {
		resource = wl_client_get_object(client, ids[i]);
		if (resource)
			wl_resource_destroy(resource);
	}
}

static void
teardown_free(struct ivwl_teardown *t)
{
	if (t->timer)
		wl_event_source_remove(t->timer);
	free(t->ids);
	free(t);
}

static bool
is_class(struct wl_client *client, uint32_t id, const char *name)
{
	struct wl_resource *resource = wl_client_get_object(client, id);

	return resource && strcmp(wl_resource_get_class(resource), name) == 0;
}

/*
 * Whether ids[i] must go in the same turn of the event loop as the one
 * before it: a role object's xdg_surface.  weston 14 sends an
 * xdg_surface's scheduled configure from an idle callback through its
 * role object's resource (translate.c, "The barrier"): idle callbacks
 * run between two ticks, and one for an xdg_surface whose role went
 * in the tick before would use freed memory.
 */
static bool
goes_with_previous(const struct ivwl_teardown *t, uint32_t i)
{
	return i > 0 && is_class(t->client, t->ids[i], "xdg_surface") &&
	       (is_class(t->client, t->ids[i - 1], "xdg_toplevel") ||
		is_class(t->client, t->ids[i - 1], "xdg_popup"));
}

/* The next batch; true once none is left. */
static bool
step(struct ivwl_teardown *t)
{
	uint32_t to = t->n - t->next > IVWL_TEARDOWN_BATCH ?
		      t->next + IVWL_TEARDOWN_BATCH : t->n;

	while (to < t->n && goes_with_previous(t, to))
		to++;
	/* what the client's last requests scheduled runs while its objects
	 * live (translate.c, "The barrier") */
	if (t->settle)
		wl_event_loop_dispatch_idle(t->loop);

	ivwl_teardown_objects(t->client, t->ids, t->next, to);
	t->next = to;
	return t->next == t->n;
}

static int
on_tick(void *data)
{
	struct ivwl_teardown *t = data;
	void (*done)(void *data) = t->done;
	void *done_data = t->data;

	if (!step(t)) {
		wl_event_source_timer_update(t->timer, IVWL_TEARDOWN_TICK_MS);
		return 0;
	}
	teardown_free(t);
	done(done_data);
	return 0;
}

struct ivwl_teardown *
ivwl_teardown_start(struct wl_event_loop *loop, bool settle,
		    struct wl_client *client, uint32_t *ids, uint32_t n,
		    void (*done)(void *data), void *data)
{
	struct ivwl_teardown *t = calloc(1, sizeof(*t));

	if (!t)
		goto err_ids;
	t->loop = loop;
	t->settle = settle;
	t->client = client;
	t->ids = ids;
	t->n = n;
	t->done = done;
	t->data = data;
	t->timer = wl_event_loop_add_timer(loop, on_tick, t);
	if (!t->timer)
		goto err_teardown;
	/* the first batch from the loop too: never inside what weston
	 * does now (a repaint's listeners, a client's dispatch) */
	wl_event_source_timer_update(t->timer, 1);
	return t;

err_teardown:
	free(t);
err_ids:
	free(ids);
	return NULL;
}

void
ivwl_teardown_finish(struct ivwl_teardown *t)
{
	ivwl_teardown_objects(t->client, t->ids, t->next, t->n);
	teardown_free(t);
}
