/* SPDX-License-Identifier: MIT */
/*
 * The decoration manager VMs see (decoration.h).  One object per
 * toplevel, found again through a destroy listener on the toplevel's
 * resource, which also makes the object inert when its toplevel goes
 * first.  The mode is told at once and after every set_mode and
 * unset_mode; libweston-desktop's next xdg_surface.configure (the first
 * one, for a toplevel that asks before its first commit, as clients do)
 * completes it.  The window's surface carries a destroy listener of the
 * object's while it lives: that is how the bar (label.c) tells that no
 * bar of the client's lies under weston's.
 */
#include <stdlib.h>

#include <libweston/libweston.h>
#include "weston-compat.h"

#include "decoration.h"
#include "ivwl-plugin.h"
#include "xdg-decoration-unstable-v1-server-protocol.h"

struct ivwl_decoration {
	struct wl_global *global;
};

/* A toplevel's decoration object. */
struct toplevel_decoration {
	struct wl_resource *resource;
	struct wl_resource *toplevel;	/* NULL once it went */
	struct wl_listener toplevel_destroy;
	struct weston_surface *surface;	/* its window's; NULL once gone */
	struct wl_listener surface_destroy;
};

static void
forget_surface(struct toplevel_decoration *d)
{
	if (!d->surface)
		return;
	wl_list_remove(&d->surface_destroy.link);
	d->surface = NULL;
}

static void
on_surface_destroy(struct wl_listener *listener, void *data)
{
	struct toplevel_decoration *d =
		wl_container_of(listener, d, surface_destroy);

	forget_surface(d);
}

static struct weston_surface *
toplevel_surface(struct wl_resource *toplevel)
{
	struct weston_desktop_surface *ds =
		ivwl_toplevel_desktop_surface(toplevel);

	return ds ? weston_desktop_surface_get_surface(ds) : NULL;
}

static void
tell_mode(struct toplevel_decoration *d)
{
	if (d->toplevel)
		zxdg_toplevel_decoration_v1_send_configure(d->resource,
			ZXDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE);
}

static void
on_toplevel_destroy(struct wl_listener *listener, void *data)
{
	struct toplevel_decoration *d =
		wl_container_of(listener, d, toplevel_destroy);

	wl_list_remove(&d->toplevel_destroy.link);
	d->toplevel = NULL;
	forget_surface(d);
}

static void
decoration_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void
decoration_set_mode(struct wl_client *client, struct wl_resource *resource,
		    uint32_t mode)
{
	/* any mode asked, client_side too: the answer is weston's bar */
	tell_mode(wl_resource_get_user_data(resource));
}

static void
decoration_unset_mode(struct wl_client *client, struct wl_resource *resource)
{
	tell_mode(wl_resource_get_user_data(resource));
}

static const struct zxdg_toplevel_decoration_v1_interface
decoration_impl = {
	.destroy = decoration_destroy,
	.set_mode = decoration_set_mode,
	.unset_mode = decoration_unset_mode,
};

static void
decoration_free(struct wl_resource *resource)
{
	struct toplevel_decoration *d = wl_resource_get_user_data(resource);

	if (d->toplevel)
		wl_list_remove(&d->toplevel_destroy.link);
	forget_surface(d);
	free(d);
}

static void
manager_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void
manager_get_toplevel_decoration(struct wl_client *client,
				struct wl_resource *resource, uint32_t id,
				struct wl_resource *toplevel)
{
	struct toplevel_decoration *d;

	if (wl_resource_get_destroy_listener(toplevel, on_toplevel_destroy)) {
		wl_resource_post_error(resource,
			ZXDG_TOPLEVEL_DECORATION_V1_ERROR_ALREADY_CONSTRUCTED,
			"this xdg_toplevel has a decoration object already");
		return;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		wl_client_post_no_memory(client);
		return;
	}
	d->resource = wl_resource_create(client,
		&zxdg_toplevel_decoration_v1_interface,
		wl_resource_get_version(resource), id);
	if (!d->resource) {
		free(d);
		wl_client_post_no_memory(client);
		return;
	}
	d->toplevel = toplevel;
	d->toplevel_destroy.notify = on_toplevel_destroy;
	wl_resource_add_destroy_listener(toplevel, &d->toplevel_destroy);
	d->surface = toplevel_surface(toplevel);
	d->surface_destroy.notify = on_surface_destroy;
	if (d->surface)
		wl_signal_add(&d->surface->destroy_signal,
			      &d->surface_destroy);
	wl_resource_set_implementation(d->resource, &decoration_impl, d,
				       decoration_free);
	tell_mode(d);
}

static const struct zxdg_decoration_manager_v1_interface manager_impl = {
	.destroy = manager_destroy,
	.get_toplevel_decoration = manager_get_toplevel_decoration,
};

static void
bind_manager(struct wl_client *client, void *data, uint32_t version,
	     uint32_t id)
{
	struct wl_resource *resource;

	resource = wl_resource_create(client,
				      &zxdg_decoration_manager_v1_interface,
				      (int)version, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &manager_impl, data, NULL);
}

struct ivwl_decoration *
ivwl_decoration_create(struct ivwl_plugin *plugin)
{
	struct ivwl_decoration *decoration = calloc(1, sizeof(*decoration));

	if (!decoration)
		return NULL;
	decoration->global = wl_global_create(plugin->display,
		&zxdg_decoration_manager_v1_interface, 1, decoration,
		bind_manager);
	if (!decoration->global) {
		free(decoration);
		return NULL;
	}
	return decoration;
}

void
ivwl_decoration_destroy(struct ivwl_decoration *decoration)
{
	if (!decoration)
		return;
	wl_global_destroy(decoration->global);
	free(decoration);
}

bool
ivwl_decoration_is_global(const struct ivwl_decoration *decoration,
			  const struct wl_global *global)
{
	return decoration && decoration->global == global;
}

bool
ivwl_decoration_server_side(const struct weston_surface *window)
{
	struct weston_surface *s = (struct weston_surface *)window;

	return wl_signal_get(&s->destroy_signal, on_surface_destroy) != NULL;
}
