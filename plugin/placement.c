/* SPDX-License-Identifier: MIT */
/*
 * Windows back where the user left them after a compositor restart
 * (placement.h).  A VM's relay replays its client's windows into the new
 * weston with the ids the client had, in whatever slot of the region it
 * gets, and says the key it drew for its client (region.h), so (VM,
 * client key, surface id) names a window across the restart.  The new weston's shell places replayed windows as new
 * ones; once a window that came back has its place, this puts it where
 * the old weston had it.  Only places weston wrote are read back, and only
 * for the VM whose window stood there: a VM can ask for nothing here.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libweston/libweston.h>
#include "weston-compat.h"

#include "connection.h"
#include "ivwl-plugin.h"
#include "label.h"
#include "mono-time.h"
#include "placement.h"
#include "vm.h"
#include "window.h"

/* A window's place is written this long after it moved. */
#define WRITE_DELAY_MS 1000
/* Places kept for windows that did not come back (yet). */
#define PLACES_MAX 1024
#define HEADER "ivwl-places 3"
/* A window asked to fit is logged at most this often, for all VMs. */
#define FIT_LOG_MS 5000

struct place {
	struct ivwl_placement *pl;
	struct wl_list link;		/* ivwl_placement.saved */
	char vm[64];
	uint64_t client_key;
	uint32_t surface_id;
	int32_t x, y;
	uint32_t rank;			/* in the old stack, 0 the top */
	/* the window that came back for it; once put there (put), kept
	 * until it goes, to stack the next ones that come back */
	struct weston_surface *window;
	struct wl_listener window_destroy;
	bool put;
};

struct ivwl_placement {
	struct ivwl_plugin *plugin;
	char *path;
	struct wl_list saved;		/* place.link: the last weston's */
	uint32_t nsaved;
	struct wl_listener transform;
	struct wl_listener map;		/* windows': a window was mapped */
	struct wl_event_source *write_timer;
	bool write_armed;
	struct wl_event_source *put_idle;
	int64_t fit_logged_ms;
};

/* ---- which window ---------------------------------------------------- */

struct window_key {
	struct ivwl_vm *vm;
	struct ivwl_connection *conn;
	uint64_t client_key;
	uint32_t surface_id;
};

/* The view that shows surface, if it is a VM's toplevel window. */
static struct weston_view *
toplevel_view(struct weston_surface *surface)
{
	struct ivwl_window *w;
	struct weston_view *view;

	wl_list_for_each(view, &surface->views, surface_link) {
		if (!weston_view_is_mapped(view) || !view->layer_link.layer ||
		    view->geometry.parent)
			continue;
		w = ivwl_window_of_view(view);
		return w && w->surface == surface ? view : NULL;
	}
	return NULL;
}

static bool
window_key(struct ivwl_placement *pl, struct weston_surface *surface,
	   struct window_key *key)
{
	struct wl_client *client;

	if (!surface->resource)
		return false;
	client = wl_resource_get_client(surface->resource);
	key->vm = ivwl_vm_from_client(pl->plugin, client);
	key->conn = key->vm ? ivwl_vm_connection(key->vm, client) : NULL;
	if (!key->conn)
		return false;
	key->client_key = ivwl_connection_client_key(key->conn);
	key->surface_id = wl_resource_get_id(surface->resource);
	return key->client_key != 0;
}

static bool
place_is(const struct place *p, const struct window_key *key)
{
	return p->client_key == key->client_key &&
	       p->surface_id == key->surface_id &&
	       strcmp(p->vm, key->vm->name) == 0;
}

static void
place_free(struct ivwl_placement *pl, struct place *p)
{
	if (p->window)
		wl_list_remove(&p->window_destroy.link);
	wl_list_remove(&p->link);
	pl->nsaved--;
	free(p);
}

/* ---- writing --------------------------------------------------------- */

static bool
name_writable(const char *name)
{
	return name[0] && strlen(name) < sizeof(((struct place *)0)->vm) &&
	       strcspn(name, " \t\r\n") == strlen(name);
}

static void
write_window(struct ivwl_placement *pl, FILE *f, struct weston_view *view,
	     uint32_t *rank)
{
	struct window_key key;
	float x, y;

	if (view->geometry.parent || !window_key(pl, view->surface, &key) ||
	    toplevel_view(view->surface) != view ||
	    !name_writable(key.vm->name))
		return;
	ivwl_view_pos(view, &x, &y);
	fprintf(f, "%s %016" PRIx64 " %u %d %d %u\n", key.vm->name,
		key.client_key, key.surface_id, (int)x, (int)y, (*rank)++);
}

/* Every VM window's place now, and the old weston's not used yet;
 * replaced whole, never half written. */
static void
places_write(struct ivwl_placement *pl)
{
	struct weston_view *view;
	struct place *p;
	uint32_t rank = 0;
	char tmp[4096];
	FILE *f;

	if (snprintf(tmp, sizeof(tmp), "%s.new", pl->path) >=
	    (int)sizeof(tmp))
		return;
	f = fopen(tmp, "we");
	if (!f)
		goto err_open;
	fprintf(f, "%s\n", HEADER);
	/* the scene, top first */
	wl_list_for_each(view, &pl->plugin->compositor->view_list, link)
		write_window(pl, f, view, &rank);
	wl_list_for_each(p, &pl->saved, link)
		if (!p->put)
			fprintf(f, "%s %016" PRIx64 " %u %d %d %u\n", p->vm,
				p->client_key, p->surface_id, p->x, p->y,
				rank++);
	if (fclose(f) != 0 || rename(tmp, pl->path) < 0)
		goto err_write;
	return;

err_write:
	unlink(tmp);
err_open:
	ivwl_log("cannot keep the windows' places in %s: %s; after a "
		 "restart they come back where the shell puts them",
		 pl->path, strerror(errno));
}

static int
on_write_timer(void *data)
{
	struct ivwl_placement *pl = data;

	pl->write_armed = false;
	places_write(pl);
	return 0;
}

/* ---- reading --------------------------------------------------------- */

static void
places_read(struct ivwl_placement *pl)
{
	char line[256];
	struct place *p;
	FILE *f;

	f = fopen(pl->path, "re");
	if (!f)
		return;
	if (!fgets(line, sizeof(line), f) || strcmp(line, HEADER "\n") != 0)
		goto out;
	while (pl->nsaved < PLACES_MAX && fgets(line, sizeof(line), f)) {
		p = calloc(1, sizeof(*p));
		if (!p)
			break;
		p->pl = pl;
		if (sscanf(line, "%63s %" SCNx64 " %u %d %d %u", p->vm,
			   &p->client_key, &p->surface_id, &p->x, &p->y,
			   &p->rank) != 6) {
			free(p);
			continue;
		}
		wl_list_insert(pl->saved.prev, &p->link);
		pl->nsaved++;
	}
out:
	fclose(f);
}

/* ---- putting back ---------------------------------------------------- */

/* Whether a window at x, y of its size shows on some output. */
static bool
on_an_output(struct weston_compositor *ec, struct weston_surface *s,
	     int32_t x, int32_t y)
{
	struct weston_output *o;
	pixman_region32_t r;
	bool shows = false;

	pixman_region32_init_rect(&r, x, y, (unsigned)s->width,
				  (unsigned)s->height);
	wl_list_for_each(o, &ec->output_list, link) {
		pixman_region32_t seen;

		pixman_region32_init(&seen);
		pixman_region32_intersect(&seen, &r, &o->region);
		shows = shows || pixman_region32_not_empty(&seen);
		pixman_region32_fini(&seen);
	}
	pixman_region32_fini(&r);
	return shows;
}

static void
put_back(struct ivwl_placement *pl, struct place *p)
{
	struct weston_view *view = toplevel_view(p->window);

	if (!view)
		return;
	if (!on_an_output(pl->plugin->compositor, p->window, p->x, p->y)) {
		ivwl_log("[%s] a window that came back stays where the shell "
			 "put it: its old place %d,%d is on no output now",
			 p->vm, p->x, p->y);
		return;
	}
	ivwl_view_set_global_pos(view, p->x, p->y);
	weston_view_geometry_dirty(view);
	weston_view_schedule_repaint(view);
	ivwl_log_debug("[%s] a window that came back put at %d,%d",
		       p->vm, p->x, p->y);
}

static int
lower_first(const void *a, const void *b)
{
	const struct place *x = *(struct place *const *)a;
	const struct place *y = *(struct place *const *)b;

	return x->rank < y->rank ? 1 : x->rank > y->rank ? -1 : 0;
}

/*
 * The windows that came back, in their old order: each raised in turn
 * from the lowest, as the shell raises a window (without the keyboard);
 * windows mapped since stay below them.  label.c puts the frames back
 * above each as its transform is updated.
 */
static void
restack(struct ivwl_placement *pl)
{
	struct place *p, **back;
	struct weston_view *view;
	size_t n = 0, i;

	back = calloc(pl->nsaved, sizeof(*back));
	if (!back)
		return;
	wl_list_for_each(p, &pl->saved, link)
		if (p->put && p->window)
			back[n++] = p;
	qsort(back, n, sizeof(*back), lower_first);
	for (i = 0; i < n; i++) {
		view = toplevel_view(back[i]->window);
		if (!view)
			continue;
		ivwl_view_to_layer(view, view->layer_link.layer);
		weston_view_geometry_dirty(view);
		weston_view_schedule_repaint(view);
	}
	free(back);
}

static void
on_put(void *data)
{
	struct ivwl_placement *pl = data;
	struct place *p;

	pl->put_idle = NULL;
	wl_list_for_each(p, &pl->saved, link) {
		if (!p->window || p->put)
			continue;
		put_back(pl, p);
		p->put = true;
	}
	restack(pl);
}

static void
on_came_back_destroy(struct wl_listener *listener, void *data)
{
	struct place *p = wl_container_of(listener, p, window_destroy);

	/* one put there is done with; one still waiting waits on */
	if (p->put) {
		place_free(p->pl, p);
		return;
	}
	wl_list_remove(&p->window_destroy.link);
	p->window = NULL;
}

/* A window that came back got its first place from the shell. */
static void
came_back(struct ivwl_placement *pl, struct weston_surface *surface,
	  const struct window_key *key)
{
	struct place *p, *found = NULL;

	wl_list_for_each(p, &pl->saved, link)
		if (!p->window && place_is(p, key))
			found = p;
	if (!found)
		return;
	found->window = surface;
	found->window_destroy.notify = on_came_back_destroy;
	wl_signal_add(&surface->destroy_signal, &found->window_destroy);
	if (!pl->put_idle)
		pl->put_idle = wl_event_loop_add_idle(
			wl_display_get_event_loop(pl->plugin->display),
			on_put, pl);
}

static bool
pending(const struct ivwl_placement *pl, const struct weston_surface *s)
{
	const struct place *p;

	wl_list_for_each(p, &pl->saved, link)
		if (p->window == s)
			return true;
	return false;
}

/* A view moved or was placed: keep its place, or put it back. */
static void
on_transform(struct wl_listener *listener, void *data)
{
	struct ivwl_placement *pl = wl_container_of(listener, pl, transform);
	struct weston_surface *surface = data;
	struct window_key key;

	if (!window_key(pl, surface, &key) || !toplevel_view(surface))
		return;
	if (pl->nsaved && ivwl_connection_restored(key.conn) &&
	    !pending(pl, surface))
		came_back(pl, surface, &key);
	if (!pl->write_armed) {
		wl_event_source_timer_update(pl->write_timer, WRITE_DELAY_MS);
		pl->write_armed = true;
	}
}

/* ---- fitting the output ---------------------------------------------- */

static struct weston_output *
output_of(struct weston_compositor *ec, struct weston_view *view)
{
	struct weston_output *o;

	if (view->output)
		return view->output;
	if (wl_list_empty(&ec->output_list))
		return NULL;
	return wl_container_of(ec->output_list.next, o, link);
}

static int32_t
min32(int32_t a, int32_t b)
{
	return a < b ? a : b;
}

/*
 * A window larger than its output's room (a dialog of 1096x880 on a
 * 1024x768 screen: its buttons off the screen) is asked to fit, as a
 * window manager does, and put at the room's top left; a client that
 * keeps its size is left to the user.
 */
static void
fit(struct ivwl_placement *pl, struct ivwl_vm *vm, struct weston_view *view)
{
	struct weston_surface *window = view->surface;
	struct weston_desktop_surface *ds;
	struct weston_geometry geo;
	struct weston_output *o;
	int32_t room[4];

	if (!weston_surface_is_desktop_surface(window))
		return;
	ds = weston_surface_get_desktop_surface(window);
	if (weston_desktop_surface_get_maximized(ds) ||
	    weston_desktop_surface_get_fullscreen(ds))
		return;
	geo = weston_desktop_surface_get_geometry(ds);
	o = output_of(pl->plugin->compositor, view);
	if (!o || !ivwl_label_room(pl->plugin->label, o, room) ||
	    (geo.width <= room[2] && geo.height <= room[3]))
		return;
	if (ivwl_now_ms() - pl->fit_logged_ms >= FIT_LOG_MS) {
		pl->fit_logged_ms = ivwl_now_ms();
		ivwl_log("[%s] a %dx%d window is larger than the %dx%d the "
			 "output %s has for it: asked to fit", vm->name,
			 geo.width, geo.height, room[2], room[3], o->name);
	}
	weston_desktop_surface_set_size(ds, min32(geo.width, room[2]),
					min32(geo.height, room[3]));
	/* the VM says where its window lies in its surface: only a place
	 * inside it (a toolkit's shadow around) moves the view */
	if (geo.x < 0 || geo.y < 0 || geo.x > window->width ||
	    geo.y > window->height)
		return;
	ivwl_view_set_global_pos(view, room[0] - geo.x, room[1] - geo.y);
	weston_view_geometry_dirty(view);
	weston_view_schedule_repaint(view);
}

static void
on_map(struct wl_listener *listener, void *data)
{
	struct ivwl_placement *pl = wl_container_of(listener, pl, map);
	struct ivwl_window *w = data;

	fit(pl, w->vm, w->view);
}

/* ---- life ------------------------------------------------------------ */

static char *
places_path(void)
{
	const char *dir = getenv("XDG_RUNTIME_DIR");
	char *path;

	if (!dir || asprintf(&path, "%s/ivwl-places", dir) < 0)
		return NULL;
	return path;
}

struct ivwl_placement *
ivwl_placement_create(struct ivwl_plugin *plugin)
{
	struct ivwl_placement *pl = calloc(1, sizeof(*pl));

	if (!pl)
		return NULL;
	pl->plugin = plugin;
	wl_list_init(&pl->saved);
	pl->map.notify = on_map;
	wl_signal_add(&ivwl_windows_events(plugin->windows)->mapped, &pl->map);
	pl->path = places_path();
	if (!pl->path) {
		ivwl_log("no XDG_RUNTIME_DIR: after a restart the VMs' windows "
			 "come back where the shell puts them");
		return pl;
	}
	pl->write_timer = wl_event_loop_add_timer(
		wl_display_get_event_loop(plugin->display), on_write_timer, pl);
	if (!pl->write_timer)
		goto err_timer;
	places_read(pl);
	pl->transform.notify = on_transform;
	wl_signal_add(&plugin->compositor->transform_signal, &pl->transform);
	return pl;

err_timer:
	wl_list_remove(&pl->map.link);
	free(pl->path);
	free(pl);
	return NULL;
}

void
ivwl_placement_destroy(struct ivwl_placement *pl)
{
	struct place *p, *tmp;

	if (!pl)
		return;
	wl_list_remove(&pl->map.link);
	if (pl->write_timer) {
		wl_list_remove(&pl->transform.link);
		wl_event_source_remove(pl->write_timer);
	}
	if (pl->put_idle)
		wl_event_source_remove(pl->put_idle);
	wl_list_for_each_safe(p, tmp, &pl->saved, link)
		place_free(pl, p);
	free(pl->path);
	free(pl);
}
