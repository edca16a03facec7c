/* SPDX-License-Identifier: MIT */
/*
 * A VM's windows (window.h).  Each surface of a VM's client is known by
 * a listener on its destroy signal; a commit of a subsurface or a popup
 * counts for the toplevel it belongs to, a cursor image's or a drag
 * icon's is told as such.  A toplevel is looked at again once weston is
 * done with what it does now (the shell maps a window, and applies its
 * maximized state, in its own listener of the commit, after ours): its
 * view, and what its listeners make of it, in the signals' order.
 */
#include <stdlib.h>
#include <string.h>

#include <libweston/libweston.h>
#include "weston-compat.h"

#include "ivwl-limits.h"
#include "ivwl-plugin.h"
#include "window.h"

struct ivwl_windows {
	struct ivwl_plugin *plugin;
	struct wl_list list;		/* ivwl_window.link */
	struct ivwl_windows_events events;
	struct wl_listener create_surface;
	struct wl_listener activate;	/* the shell raises what it activates */
	struct wl_listener transform;	/* a window moved */
};

static void
on_window_destroy(struct wl_listener *listener, void *data);

struct ivwl_window *
ivwl_window_from_surface(struct weston_surface *surface)
{
	struct wl_listener *l;
	struct ivwl_window *w;

	if (!surface)
		return NULL;
	l = wl_signal_get(&surface->destroy_signal, on_window_destroy);
	return l ? wl_container_of(l, w, destroy) : NULL;
}

/* Whether a and b are surfaces of the same client. */
static bool
same_client(struct weston_surface *a, struct weston_surface *b)
{
	return a->resource && b->resource &&
	       wl_resource_get_client(a->resource) ==
	       wl_resource_get_client(b->resource);
}

struct ivwl_window *
ivwl_window_of_view(struct weston_view *view)
{
	struct weston_view *root = view;
	struct ivwl_window *w;

	while (root->geometry.parent)
		root = root->geometry.parent;
	w = ivwl_window_from_surface(root->surface);
	if (!w || w->view != root)
		return NULL;
	if (view == root)
		return w;
	/*
	 * The frame's views are no VM's surfaces.  Their surfaces are the
	 * canvas's, whose fills every window's frame listens to: asked
	 * first, a VM's hundreds of windows made each lookup walk
	 * thousands of listeners (9-13 % of weston's time per repaint).
	 */
	return same_client(view->surface, root->surface) &&
	       ivwl_window_from_surface(view->surface) ? w : NULL;
}

struct ivwl_window *
ivwl_window_of_bar(struct weston_view *view)
{
	struct ivwl_window *w;

	if (!view || !view->geometry.parent)
		return NULL;
	w = ivwl_window_from_surface(view->geometry.parent->surface);
	return w && w->bar == view ? w : NULL;
}

void
ivwl_windows_for_each(struct ivwl_windows *windows, struct ivwl_vm *vm,
		      void (*fn)(struct ivwl_window *w, void *data),
		      void *data)
{
	struct ivwl_window *w, *tmp;

	wl_list_for_each_safe(w, tmp, &windows->list, link)
		if (w->view && w->vm == vm)
			fn(w, data);
}

struct ivwl_windows_events *
ivwl_windows_events(struct ivwl_windows *windows)
{
	return &windows->events;
}

static void
window_changed(struct ivwl_window *w)
{
	if (w->updating) {
		w->changed = true;
		return;
	}
	wl_signal_emit(&w->windows->events.changed, w);
}

bool
ivwl_view_hangs_from(struct weston_view *v, struct weston_view *window)
{
	for (v = v->geometry.parent; v; v = v->geometry.parent)
		if (v == window)
			return true;
	return false;
}

struct weston_layer_entry *
ivwl_view_stack_bottom(struct weston_view *window,
		       bool (*stop)(struct weston_view *v, void *data),
		       void *data)
{
	struct weston_layer_entry *bottom = &window->layer_link, *e;
	struct weston_view *v;

	while (bottom->link.next != &bottom->layer->view_list.link) {
		e = wl_container_of(bottom->link.next, e, link);
		v = wl_container_of(e, v, layer_link);
		if (!ivwl_view_hangs_from(v, window) || (stop && stop(v, data)))
			break;
		bottom = e;
	}
	return bottom;
}

void
ivwl_view_clip(struct weston_view *view, int32_t x, int32_t y, int32_t w,
	       int32_t h)
{
	const pixman_box32_t *e;

	e = pixman_region32_extents(&view->geometry.scissor);
	if (w < 0 || h < 0)
		w = h = 0;
	/* a new mask dirties the view: every commit would repaint it */
	if (view->geometry.scissor_enabled && e->x1 == x && e->y1 == y &&
	    e->x2 - e->x1 == w && e->y2 - e->y1 == h)
		return;
	weston_view_set_mask(view, x, y, w, h);
}

/*
 * A veiled window's subsurfaces are not views: weston neither draws
 * them nor walks them on a repaint (the veil hides what would show).
 * weston maps a subsurface again on its commit, after which
 * on_window_commit takes it back out.
 */
static void
tree_show(struct weston_surface *surface, bool show, int depth)
{
	struct weston_subsurface *sub;

	if (depth > IVWL_REPAINT_TREE_DEPTH)
		return;
	wl_list_for_each(sub, &surface->subsurface_list, parent_link) {
		struct weston_surface *s = sub->surface;

		if (s == surface)
			continue;
		if (!show && weston_surface_is_mapped(s))
			weston_surface_unmap(s);
		else if (show && s->width > 0 && s->height > 0)
			s->is_mapped = true;
		tree_show(s, show, depth + 1);
	}
}

void
ivwl_window_veil(struct ivwl_window *w, enum ivwl_veil_reason reason,
		 bool on)
{
	uint32_t was = w->cost.veil;

	w->cost.veil = on ? was | reason : was & ~(uint32_t)reason;
	if (!was == !w->cost.veil)
		return;
	tree_show(w->surface, !w->cost.veil, 0);
	if (w->view)
		weston_view_schedule_repaint(w->view);
	window_changed(w);
}

void
ivwl_window_attention(struct ivwl_window *w, bool on)
{
	if (w->attention == on)
		return;
	w->attention = on;
	window_changed(w);
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
view_set(struct ivwl_window *w, struct weston_view *view)
{
	if (w->view)
		wl_list_remove(&w->view_destroy.link);
	w->view = view;
	if (view)
		wl_signal_add(&view->destroy_signal, &w->view_destroy);
}

/* The shell destroyed the window's view (its xdg_toplevel went, the
 * wl_surface stays): look again once weston is done with it. */
static void
on_view_destroy(struct wl_listener *listener, void *data)
{
	struct ivwl_window *w = wl_container_of(listener, w, view_destroy);

	view_set(w, NULL);
	ivwl_window_recheck(w);
}

static void
window_update(struct ivwl_window *w)
{
	const char *role = weston_surface_get_role(w->surface);
	struct ivwl_windows_events *ev = &w->windows->events;
	struct weston_view *view;

	view = role && strcmp(role, "xdg_toplevel") == 0 ?
	       mapped_view(w->surface) : NULL;
	w->updating = true;
	if (view != w->view) {
		view_set(w, view);
		w->changed = true;
		if (view)
			wl_signal_emit(&ev->mapped, w);
	}
	if (view)
		wl_signal_emit(&ev->committed, w);
	w->updating = false;
	/* what is drawn of it, every time: it may have moved */
	w->changed = false;
	wl_signal_emit(&ev->changed, w);
}

static void
on_recheck(void *data)
{
	struct ivwl_window *w = data;

	w->recheck = NULL;
	window_update(w);
}

void
ivwl_window_recheck(struct ivwl_window *w)
{
	if (!w->recheck)
		w->recheck = wl_event_loop_add_idle(
			wl_display_get_event_loop(
				w->surface->compositor->wl_display),
			on_recheck, w);
}

/* A cursor image or drag icon shows where the pointer is (focus.c). */
static bool
pointer_image(struct weston_surface *surface)
{
	const char *role = weston_surface_get_role(surface);

	return role && (strcmp(role, "wl_pointer-cursor") == 0 ||
			strcmp(role, "wl_data_device-icon") == 0);
}

/* The toplevel whose popup w's surface is, if it is one. */
static struct ivwl_window *
popup_window(struct ivwl_window *w)
{
	const char *role = weston_surface_get_role(w->surface);
	struct ivwl_window *main;
	struct weston_view *v;

	if (!role || strcmp(role, "xdg_popup") != 0)
		return NULL;
	v = mapped_view(w->surface);
	if (!v)
		return NULL;
	while (v->geometry.parent)
		v = v->geometry.parent;
	main = ivwl_window_from_surface(v->surface);
	return main != w ? main : NULL;
}

static void
on_window_commit(struct wl_listener *listener, void *data)
{
	struct ivwl_window *w = wl_container_of(listener, w, commit);
	struct ivwl_window *main;

	if (pointer_image(w->surface)) {
		wl_signal_emit(&w->windows->events.image, w);
		return;
	}
	main = popup_window(w);
	if (main) {
		/* a popup: its window counts it */
		if (main->view)
			ivwl_window_recheck(main);
		return;
	}
	main = ivwl_window_from_surface(
		weston_surface_get_main_surface(w->surface));
	if (main && main != w) {
		/* a subsurface: weston mapped it, its window counts it */
		if (main->cost.veil)
			weston_surface_unmap(w->surface);
		if (main->view)
			ivwl_window_recheck(main);
		return;
	}
	/* The shell maps the window, and applies its maximized state, in
	 * its own listener of this signal, after this one. */
	ivwl_window_recheck(w);
}

static void
window_free(struct ivwl_window *w)
{
	if (w->recheck)
		wl_event_source_remove(w->recheck);
	view_set(w, NULL);
	wl_list_remove(&w->commit.link);
	wl_list_remove(&w->destroy.link);
	wl_list_remove(&w->link);
	free(w);
}

static void
on_window_destroy(struct wl_listener *listener, void *data)
{
	struct ivwl_window *w = wl_container_of(listener, w, destroy);

	wl_signal_emit(&w->windows->events.destroyed, w);
	ivwl_addon_set_finish(&w->addons);
	window_free(w);
}

static void
on_create_surface(struct wl_listener *listener, void *data)
{
	struct ivwl_windows *windows =
		wl_container_of(listener, windows, create_surface);
	struct weston_surface *surface = data;
	struct ivwl_window *w;
	struct ivwl_vm *vm;

	if (!surface->resource)
		return;
	vm = ivwl_vm_from_client(windows->plugin,
				 wl_resource_get_client(surface->resource));
	if (!vm)
		return;
	w = calloc(1, sizeof(*w));
	if (!w)
		return;
	w->windows = windows;
	w->vm = vm;
	w->surface = surface;
	w->cost.vm = vm;
	w->cost.window = surface;
	w->view_destroy.notify = on_view_destroy;
	ivwl_addon_set_init(&w->addons);
	w->commit.notify = on_window_commit;
	wl_signal_add(&surface->commit_signal, &w->commit);
	w->destroy.notify = on_window_destroy;
	wl_signal_add(&surface->destroy_signal, &w->destroy);
	wl_list_insert(&windows->list, &w->link);
}

/* The shell raises a window it activates, after this signal: the
 * frame goes back above it then. */
static void
on_activate(struct wl_listener *listener, void *data)
{
	struct weston_surface *surface = ivwl_activation_surface(data);
	struct ivwl_window *w;

	if (!surface)
		return;
	w = ivwl_window_from_surface(weston_surface_get_main_surface(surface));
	if (w && w->view)
		ivwl_window_recheck(w);
}

/* A window moved: a side of its frame may have left the screen or come
 * back. */
static void
on_transform(struct wl_listener *listener, void *data)
{
	struct ivwl_window *w = ivwl_window_from_surface(data);

	if (w && w->view)
		ivwl_window_recheck(w);
}

struct ivwl_windows *
ivwl_windows_create(struct ivwl_plugin *plugin)
{
	struct ivwl_windows *windows = calloc(1, sizeof(*windows));
	struct weston_compositor *ec = plugin->compositor;

	if (!windows)
		return NULL;
	windows->plugin = plugin;
	wl_list_init(&windows->list);
	wl_signal_init(&windows->events.mapped);
	wl_signal_init(&windows->events.committed);
	wl_signal_init(&windows->events.changed);
	wl_signal_init(&windows->events.image);
	wl_signal_init(&windows->events.destroyed);
	windows->create_surface.notify = on_create_surface;
	wl_signal_add(&ec->create_surface_signal, &windows->create_surface);
	windows->activate.notify = on_activate;
	wl_signal_add(&ec->activate_signal, &windows->activate);
	windows->transform.notify = on_transform;
	wl_signal_add(&ec->transform_signal, &windows->transform);
	return windows;
}

/*
 * At compositor shutdown, after the subsystems that listen went: stop
 * listening; the surfaces are weston's.
 */
void
ivwl_windows_destroy(struct ivwl_windows *windows)
{
	struct ivwl_window *w, *tmp;

	if (!windows)
		return;
	wl_list_for_each_safe(w, tmp, &windows->list, link) {
		ivwl_addon_set_finish(&w->addons);
		window_free(w);
	}
	wl_list_remove(&windows->create_surface.link);
	wl_list_remove(&windows->activate.link);
	wl_list_remove(&windows->transform.link);
	free(windows);
}
