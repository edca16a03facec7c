/* SPDX-License-Identifier: MIT */
/*
 * The keyboard indicator (indicator.h): the canvas draws one nameplate,
 * "NAME has the keyboard" on the VM's colour or "desktop has the
 * keyboard" on dark grey, and each output shows it in a layer of the
 * plugin's own above weston's top UI, so that no window covers it.
 */
#include <stdlib.h>
#include <string.h>

#include <libweston/libweston.h>
#include "weston-compat.h"

#include "canvas.h"
#include "focus.h"
#include "indicator.h"
#include "ivwl-plugin.h"
#include "nameplate.h"
#include "vm.h"

#define DESKTOP_COLOR 0xff303030u
#define HOLDS "has the keyboard"

struct indicator_view {
	struct wl_list link;	/* ivwl_indicator.views */
	struct weston_view *view;
};

struct ivwl_indicator {
	struct ivwl_plugin *plugin;
	struct weston_layer layer;
	struct ivwl_canvas_image *image;
	struct weston_surface *surface;	/* the image's, once shown */
	struct wl_listener surface_destroy;
	struct wl_list views;	/* one per output */
	struct wl_listener holder;
	struct wl_listener output_created;
	struct wl_listener output_destroyed;
	struct wl_listener output_moved;
	char *font;
};

static void
views_destroy(struct ivwl_indicator *ind)
{
	struct indicator_view *iv, *tmp;

	wl_list_for_each_safe(iv, tmp, &ind->views, link)
	{
		if (ind->surface)
			weston_view_destroy(iv->view);
		wl_list_remove(&iv->link);
		free(iv);
	}
}

/* A view of the plate at the top middle of every output. */
static void
views_place(struct ivwl_indicator *ind)
{
	struct weston_compositor *ec = ind->plugin->compositor;
	struct weston_output *o;
	struct indicator_view *iv;
	int32_t ox, oy;

	views_destroy(ind);
	if (!ind->surface)
		return;
	wl_list_for_each(o, &ec->output_list, link)
	{
		iv = calloc(1, sizeof(*iv));
		if (!iv)
			return;
		iv->view = weston_view_create(ind->surface);
		if (!iv->view) {
			free(iv);
			return;
		}
		wl_list_insert(&ind->views, &iv->link);
		ivwl_output_pos(o, &ox, &oy);
		ivwl_view_set_global_pos(iv->view,
					 ox + (o->width - ind->surface->width) /
							 2,
					 oy);
		ivwl_view_to_layer(iv->view, &ind->layer);
		ind->surface->is_mapped = true;
		iv->view->is_mapped = true;
		weston_view_geometry_dirty(iv->view);
		weston_view_schedule_repaint(iv->view);
	}
}

static void
on_surface_destroy(struct wl_listener *listener, void *data)
{
	struct ivwl_indicator *ind =
		wl_container_of(listener, ind, surface_destroy);

	/* weston destroys the views with it */
	wl_list_remove(&ind->surface_destroy.link);
	ind->surface = NULL;
	views_destroy(ind);
}

static void
on_shown(void *data, struct weston_surface *surface)
{
	struct ivwl_indicator *ind = data;

	if (!ind->surface) {
		ind->surface = surface;
		ind->surface_destroy.notify = on_surface_destroy;
		wl_signal_add(&surface->destroy_signal, &ind->surface_destroy);
	}
	views_place(ind);
}

static void
on_holder(struct wl_listener *listener, void *data)
{
	struct ivwl_indicator *ind = wl_container_of(listener, ind, holder);
	const struct ivwl_focus_holder *holder = data;
	struct ivwl_nameplate plate = {
		.font = ind->font,
		.name = holder->vm ? holder->vm->name : "desktop",
		.title = HOLDS,
		.argb = holder->vm ? holder->vm->color : DESKTOP_COLOR,
		.max_width = 4096,
	};
	cairo_surface_t *pixels;
	int natural;

	pixels = ivwl_nameplate_draw(&plate, &natural);
	if (!pixels)
		return;
	ivwl_canvas_image_show_cairo(ind->image, pixels);
	cairo_surface_destroy(pixels);
}

static void
on_output_change(struct wl_listener *listener, void *data)
{
	struct ivwl_indicator *ind =
		wl_container_of(listener, ind, output_created);

	views_place(ind);
}

static void
on_output_destroyed(struct wl_listener *listener, void *data)
{
	struct ivwl_indicator *ind =
		wl_container_of(listener, ind, output_destroyed);

	views_place(ind);
}

static void
on_output_moved(struct wl_listener *listener, void *data)
{
	struct ivwl_indicator *ind =
		wl_container_of(listener, ind, output_moved);

	views_place(ind);
}

struct ivwl_indicator *
ivwl_indicator_create(struct ivwl_plugin *plugin, const char *font)
{
	struct weston_compositor *ec = plugin->compositor;
	struct ivwl_indicator *ind = calloc(1, sizeof(*ind));

	if (!ind)
		return NULL;
	ind->plugin = plugin;
	ind->font = strdup(font);
	wl_list_init(&ind->views);
	ind->image =
		ivwl_canvas_image_create(plugin->canvas, false, on_shown, ind);
	if (!ind->font || !ind->image) {
		/* no canvas (logged): no indicator */
		ivwl_canvas_image_destroy(ind->image);
		free(ind->font);
		free(ind);
		return NULL;
	}
	weston_layer_init(&ind->layer, ec);
	weston_layer_set_position(&ind->layer, WESTON_LAYER_POSITION_TOP_UI);
	ind->output_created.notify = on_output_change;
	wl_signal_add(&ec->output_created_signal, &ind->output_created);
	ind->output_destroyed.notify = on_output_destroyed;
	wl_signal_add(&ec->output_destroyed_signal, &ind->output_destroyed);
	ind->output_moved.notify = on_output_moved;
	wl_signal_add(&ec->output_moved_signal, &ind->output_moved);
	ind->holder.notify = on_holder;
	ivwl_focus_add_holder_listener(plugin->focus, &ind->holder);
	return ind;
}

void
ivwl_indicator_destroy(struct ivwl_indicator *ind)
{
	if (!ind)
		return;
	views_destroy(ind);
	if (ind->surface)
		wl_list_remove(&ind->surface_destroy.link);
	wl_list_remove(&ind->holder.link);
	wl_list_remove(&ind->output_created.link);
	wl_list_remove(&ind->output_destroyed.link);
	wl_list_remove(&ind->output_moved.link);
	weston_layer_fini(&ind->layer);
	ivwl_canvas_image_destroy(ind->image);
	free(ind->font);
	free(ind);
}
