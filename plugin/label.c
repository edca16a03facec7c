/* SPDX-License-Identifier: MIT */
/*
 * Labelling: every toplevel window of a VM gets a border in the VM's
 * colour, drawn by weston outside the client's buffer, so an app cannot
 * paint it away or fake another VM's.  (The title prefix is done on the
 * wire, in translate.c.)
 *
 * The border is four solid-colour strips, transform-parented to the
 * window's view, so they move with it, and kept directly below it in its
 * layer, so other windows cover them as they cover the window.  weston 10
 * specifics stay in this file.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <libweston/libweston.h>

#include "ivwl-plugin.h"
#include "label.h"
#include "vm.h"

#define BORDER_WIDTH 4

struct ivwl_border;

struct ivwl_strip {
	struct ivwl_border *border;
	struct weston_surface *surface;
	struct weston_view *view;
	struct wl_listener destroy;
};

struct ivwl_border {
	struct wl_list link;			/* ivwl_label.borders */
	struct ivwl_label *label;
	uint32_t color;
	struct weston_surface *window;
	struct weston_view *framed;		/* NULL until mapped */
	struct ivwl_strip strip[4];
	struct wl_listener window_commit;
	struct wl_listener window_destroy;
	struct wl_event_source *recheck;	/* after the shell maps it */
};

struct ivwl_label {
	struct ivwl_plugin *plugin;
	struct wl_listener create_surface;
	struct wl_list borders;
};

static void
strips_forget(struct ivwl_border *b)
{
	int i;

	for (i = 0; i < 4; i++) {
		if (!b->strip[i].surface)
			continue;
		wl_list_remove(&b->strip[i].destroy.link);
		b->strip[i].surface = NULL;
		b->strip[i].view = NULL;
	}
	b->framed = NULL;
}

static void
strips_destroy(struct ivwl_border *b)
{
	struct weston_surface *s[4];
	int i;

	for (i = 0; i < 4; i++)
		s[i] = b->strip[i].surface;
	strips_forget(b);
	for (i = 0; i < 4; i++)
		if (s[i])
			weston_surface_destroy(s[i]);
}

/* weston destroyed a strip itself (at shutdown): forget all of them. */
static void
on_strip_destroy(struct wl_listener *listener, void *data)
{
	struct ivwl_strip *strip = wl_container_of(listener, strip, destroy);

	strips_forget(strip->border);
}

static int
strips_create(struct ivwl_border *b, struct weston_view *framed)
{
	struct weston_compositor *ec = b->window->compositor;
	float a = ((b->color >> 24) & 0xff) / 255.0f;
	float r = ((b->color >> 16) & 0xff) / 255.0f;
	float g = ((b->color >> 8) & 0xff) / 255.0f;
	float bl = (b->color & 0xff) / 255.0f;
	int i;

	for (i = 0; i < 4; i++) {
		struct ivwl_strip *strip = &b->strip[i];
		struct weston_surface *s = weston_surface_create(ec);

		if (!s)
			goto err_strips;
		strip->border = b;
		strip->surface = s;
		strip->destroy.notify = on_strip_destroy;
		wl_signal_add(&s->destroy_signal, &strip->destroy);
		weston_surface_set_color(s, r, g, bl, a);
		/* Clicks go to what is below, as if the border were paint. */
		pixman_region32_fini(&s->input);
		pixman_region32_init(&s->input);
		strip->view = weston_view_create(s);
		if (!strip->view)
			goto err_strips;
		weston_view_set_transform_parent(strip->view, framed);
	}
	b->framed = framed;
	return 0;

err_strips:
	strips_destroy(b);
	return -1;
}

static int32_t
clamp_size(int32_t v)
{
	return v < 0 ? 0 : v > (1 << 24) ? (1 << 24) : v;
}

static void
strips_place(struct ivwl_border *b)
{
	/* the firewall bounds a VM's surface sizes; stay in range anyway */
	int32_t w = clamp_size(b->window->width);
	int32_t h = clamp_size(b->window->height), k = BORDER_WIDTH;
	const int32_t geo[4][4] = {
		{ -k, -k, w + 2 * k, k },	/* top */
		{ -k, h, w + 2 * k, k },	/* bottom */
		{ -k, 0, k, h },		/* left */
		{ w, 0, k, h },			/* right */
	};
	struct weston_layer_entry *below = &b->framed->layer_link;
	int i;

	for (i = 0; i < 4; i++) {
		struct weston_view *v = b->strip[i].view;
		struct weston_surface *s = b->strip[i].surface;
		bool changed = false;

		/* Every commit comes here: touch a strip only when it moved.
		 * A dirty view is damaged where it was and where it goes,
		 * which would repaint all four strips on every frame. */
		if (s->width != geo[i][2] || s->height != geo[i][3]) {
			weston_surface_set_size(s, geo[i][2], geo[i][3]);
			changed = true;
		}
		if (v->geometry.x != (float)geo[i][0] ||
		    v->geometry.y != (float)geo[i][1]) {
			weston_view_set_position(v, geo[i][0], geo[i][1]);
			changed = true;
		}
		/* Right under the window in its layer, wherever it went. */
		if (v->layer_link.link.prev != &below->link ||
		    v->layer_link.layer != b->framed->layer_link.layer) {
			if (v->layer_link.layer)
				weston_layer_entry_remove(&v->layer_link);
			weston_layer_entry_insert(below, &v->layer_link);
			changed = true;
		}
		below = &v->layer_link;
		if (!changed && v->is_mapped)
			continue;
		s->is_mapped = true;
		v->is_mapped = true;
		weston_view_geometry_dirty(v);
		weston_view_schedule_repaint(v);
	}
}

static struct weston_view *
mapped_view(struct weston_surface *surface)
{
	struct weston_view *view;

	wl_list_for_each(view, &surface->views, surface_link)
		if (weston_view_is_mapped(view) && view->layer_link.layer)
			return view;
	return NULL;
}

static void
border_update(struct ivwl_border *b);

static void
on_recheck(void *data)
{
	struct ivwl_border *b = data;

	b->recheck = NULL;
	border_update(b);
}

static void
border_update(struct ivwl_border *b)
{
	const char *role = weston_surface_get_role(b->window);
	struct weston_view *view;

	if (!role || strcmp(role, "xdg_toplevel") != 0)
		return;
	view = mapped_view(b->window);
	if (!view) {
		strips_destroy(b);	/* unmapped: nothing to frame */
		return;
	}
	if (view != b->framed) {
		strips_destroy(b);
		if (strips_create(b, view) < 0)
			return;
	}
	strips_place(b);
}

static void
on_window_commit(struct wl_listener *listener, void *data)
{
	struct ivwl_border *b = wl_container_of(listener, b, window_commit);

	border_update(b);
	/* The shell maps a window after this signal: look again then, or a
	 * window that commits once would never get its border. */
	if (!b->framed && !b->recheck)
		b->recheck = wl_event_loop_add_idle(
			wl_display_get_event_loop(
				b->window->compositor->wl_display),
			on_recheck, b);
}

static void
border_destroy(struct ivwl_border *b)
{
	if (b->recheck)
		wl_event_source_remove(b->recheck);
	strips_destroy(b);
	wl_list_remove(&b->window_commit.link);
	wl_list_remove(&b->window_destroy.link);
	wl_list_remove(&b->link);
	free(b);
}

static void
on_window_destroy(struct wl_listener *listener, void *data)
{
	struct ivwl_border *b = wl_container_of(listener, b, window_destroy);

	border_destroy(b);
}

static void
on_create_surface(struct wl_listener *listener, void *data)
{
	struct ivwl_label *label =
		wl_container_of(listener, label, create_surface);
	struct weston_surface *surface = data;
	struct ivwl_border *b;
	struct ivwl_vm *vm;

	if (!surface->resource)
		return;
	vm = ivwl_vm_from_client(label->plugin,
				 wl_resource_get_client(surface->resource));
	if (!vm)
		return;
	b = calloc(1, sizeof(*b));
	if (!b)
		return;
	b->label = label;
	b->color = vm->color;
	b->window = surface;
	b->window_commit.notify = on_window_commit;
	wl_signal_add(&surface->commit_signal, &b->window_commit);
	b->window_destroy.notify = on_window_destroy;
	wl_signal_add(&surface->destroy_signal, &b->window_destroy);
	wl_list_insert(&label->borders, &b->link);
}

struct ivwl_label *
ivwl_label_create(struct ivwl_plugin *plugin)
{
	struct ivwl_label *label = calloc(1, sizeof(*label));

	if (!label)
		return NULL;
	label->plugin = plugin;
	wl_list_init(&label->borders);
	label->create_surface.notify = on_create_surface;
	wl_signal_add(&plugin->compositor->create_surface_signal,
		      &label->create_surface);
	return label;
}

/*
 * At compositor shutdown: stop listening, leave the strips to weston.
 * By the time the compositor's destroy signal runs, the shell has
 * already destroyed its layers and the surfaces in them, so the strips
 * may be gone: only our own bookkeeping is freed.
 */
void
ivwl_label_destroy(struct ivwl_label *label)
{
	struct ivwl_border *b, *tmp;

	wl_list_for_each_safe(b, tmp, &label->borders, link) {
		if (b->recheck)
			wl_event_source_remove(b->recheck);
		strips_forget(b);
		wl_list_remove(&b->window_commit.link);
		wl_list_remove(&b->window_destroy.link);
		wl_list_remove(&b->link);
		free(b);
	}
	wl_list_remove(&label->create_surface.link);
	free(label);
}
