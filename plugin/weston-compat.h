/* SPDX-License-Identifier: MIT */
/*
 * What differs between the westons ivwl.so builds against: weston 10
 * (Debian bookworm), weston 14 (trixie) and weston 16 (forky, sid).  The
 * rest of the plugin writes to one API; each difference is bridged
 * here, once.
 */
#ifndef IVWL_WESTON_COMPAT_H
#define IVWL_WESTON_COMPAT_H

#include <libweston/libweston.h>
#include <libweston/config-parser.h>
#include <libweston/version.h>

/*
 * weston 14's API, where it differs from 10's, and 16's where it differs
 * from 14's (IVWL_WESTON_16 implies IVWL_WESTON_14): the functions below
 * do what their comments say with the weston built against.  Only these
 * three majors are built and tested; 11 to 13, and 15, changed the API
 * piecewise.
 */
#if WESTON_VERSION_MAJOR >= 16
#define IVWL_WESTON_14 1
#define IVWL_WESTON_16 1
#elif WESTON_VERSION_MAJOR == 14
#define IVWL_WESTON_14 1
#elif WESTON_VERSION_MAJOR > 10	/* (not WESTON_VERSION_AT_LEAST:
				 * it is wrong across majors) */
#error "ivwl builds against weston 10, 14, or 16 and later"
#endif

/*
 * weston 16's repaint unions each new paint node's region into the
 * damage of every node above it: the repaint that takes in n new views
 * costs about n squared (a VM's 253 windows mapped at once stalled it
 * 0.55-0.87 s).  Its window maps are paced per repaint too
 * (map-pace.c); weston 10 and 14 take such a flood in 18-29 ms.
 */
#ifdef IVWL_WESTON_16
#define IVWL_WESTON_PACES_MAPS 1
#else
#define IVWL_WESTON_PACES_MAPS 0
#endif

/*
 * A grab's handlers: weston 16 hands each one event, with its time in
 * it, where 10 and 14 passed the time and the fields apart.  Handlers
 * are declared with these parameter lists and read the fields through
 * the macros that follow.
 */
#ifdef IVWL_WESTON_16
#define IVWL_POINTER_MOTION_PARAMS \
	const struct weston_pointer_motion_event *event
#define IVWL_POINTER_BUTTON_PARAMS \
	const struct weston_pointer_button_event *event
#define IVWL_POINTER_BUTTON_STATE (event->button_state)
#define IVWL_POINTER_AXIS_PARAMS \
	const struct weston_pointer_axis_event *event
#define IVWL_KEY_PARAMS const struct weston_key_event *event
#define IVWL_KEY_CODE (event->key)
#define IVWL_KEY_STATE (event->key_state)
#else
#define IVWL_POINTER_MOTION_PARAMS \
	const struct timespec *time, struct weston_pointer_motion_event *event
#define IVWL_POINTER_BUTTON_PARAMS \
	const struct timespec *time, uint32_t button, uint32_t state
#define IVWL_POINTER_BUTTON_STATE (state)
#define IVWL_POINTER_AXIS_PARAMS \
	const struct timespec *time, struct weston_pointer_axis_event *event
#define IVWL_KEY_PARAMS const struct timespec *time, uint32_t key, \
	uint32_t state
#define IVWL_KEY_CODE (key)
#define IVWL_KEY_STATE (state)
#endif

/* A surface of the compositor's own, of no client. */
static inline struct weston_surface *
ivwl_surface_create(struct weston_compositor *ec)
{
#ifdef IVWL_WESTON_16
	return weston_surface_create(ec, NULL);
#else
	return weston_surface_create(ec);
#endif
}

/*
 * All of surface is to be drawn again at the next repaint.  weston 16
 * keeps weston_surface_damage() to itself and draws nothing again for
 * damage put in a surface that did not commit it (the paint nodes are
 * not told): there every output is drawn again, once per repaint
 * however many ask.  Only a restack asks (label.c), on a click or a
 * window's first frame.
 */
static inline void
ivwl_surface_damage_all(struct weston_surface *surface)
{
#ifdef IVWL_WESTON_16
	weston_compositor_damage_all(surface->compositor);
#else
	weston_surface_damage(surface);
#endif
}

/* weston 12 moved libweston-desktop into libweston. */
#ifdef IVWL_WESTON_14
#include <libweston/desktop.h>
#else
#include <libweston-desktop/libweston-desktop.h>
#endif

/*
 * The window of an xdg_toplevel resource: libweston-desktop keeps its
 * weston_desktop_surface as the resource's data (weston 10 to 16), NULL
 * once the surface went.
 */
static inline struct weston_desktop_surface *
ivwl_toplevel_desktop_surface(struct wl_resource *toplevel)
{
	return wl_resource_get_user_data(toplevel);
}

/*
 * The frontend's API (wet_get_config): bookworm's weston installs
 * weston.h, trixie's does not, and libexec_weston.so exports it in both.
 */
#ifdef IVWL_HAVE_WESTON_H
#include <weston.h>
#else
struct weston_config;

struct weston_config *
wet_get_config(struct weston_compositor *compositor);

WL_EXPORT int
wet_module_init(struct weston_compositor *compositor, int *argc,
		char *argv[]);
#endif

/* Where the view is: global, or in its transform parent's surface. */
static inline void
ivwl_view_pos(const struct weston_view *view, float *x, float *y)
{
#ifdef IVWL_WESTON_14
	*x = (float)view->geometry.pos_offset.x;
	*y = (float)view->geometry.pos_offset.y;
#else
	*x = view->geometry.x;
	*y = view->geometry.y;
#endif
}

/* Places a view that has a transform parent, in the parent's surface. */
static inline void
ivwl_view_set_rel_pos(struct weston_view *view, float x, float y)
{
#ifdef IVWL_WESTON_14
	weston_view_set_rel_position(view,
		weston_coord_surface(x, y, view->geometry.parent->surface));
#else
	weston_view_set_position(view, x, y);
#endif
}

static inline void
ivwl_view_to_global(struct weston_view *view, float sx, float sy,
		    float *x, float *y)
{
#ifdef IVWL_WESTON_14
	struct weston_coord_global g;

	/* weston 14 asserts on a stale transform; 10 used it as it was */
	if (view->transform.dirty)
		weston_view_update_transform(view);
	g = weston_coord_surface_to_global(view,
		weston_coord_surface(sx, sy, view->surface));
	*x = (float)g.c.x;
	*y = (float)g.c.y;
#else
	weston_view_to_global_float(view, sx, sy, x, y);
#endif
}

static inline void
ivwl_output_pos(const struct weston_output *output, int32_t *x, int32_t *y)
{
#ifdef IVWL_WESTON_14
	*x = (int32_t)output->pos.c.x;
	*y = (int32_t)output->pos.c.y;
#else
	*x = output->x;
	*y = output->y;
#endif
}

static inline void
ivwl_subsurface_pos(const struct weston_subsurface *sub, int32_t *x,
		    int32_t *y)
{
#ifdef IVWL_WESTON_14
	*x = (int32_t)sub->position.offset.c.x;
	*y = (int32_t)sub->position.offset.c.y;
#else
	*x = sub->position.x;
	*y = sub->position.y;
#endif
}

/* Sets where a subsurface sits in its parent (as a commit does). */
static inline void
ivwl_subsurface_set_pos(struct weston_subsurface *sub, int32_t x, int32_t y)
{
#ifdef IVWL_WESTON_14
	sub->position.offset = weston_coord_surface(x, y, sub->parent);
#else
	sub->position.x = x;
	sub->position.y = y;
#endif
}

/* Drops the surface ivwl made (weston 14's are refcounted). */
static inline void
ivwl_surface_release(struct weston_surface *surface)
{
#ifdef IVWL_WESTON_14
	weston_surface_unref(surface);
#else
	weston_surface_destroy(surface);
#endif
}

/*
 * A surface of ivwl's own shows one colour over w x h: weston 10 has a
 * colour per surface, weston 14 a solid buffer, which the surface
 * keeps a reference of.
 */
static inline void
ivwl_surface_paint(struct weston_surface *surface, uint32_t argb,
		   int32_t w, int32_t h)
{
	float r = ((argb >> 16) & 0xff) / 255.0f;
	float g = ((argb >> 8) & 0xff) / 255.0f;
	float b = (argb & 0xff) / 255.0f;
	float a = ((argb >> 24) & 0xff) / 255.0f;
#ifdef IVWL_WESTON_14
	struct weston_buffer_reference *solid;

	solid = weston_buffer_create_solid_rgba(surface->compositor,
						r, g, b, a);
	if (!solid)
		return;
	weston_surface_attach_solid(surface, solid, w, h);
	weston_buffer_destroy_solid(solid);
#else
	weston_surface_set_color(surface, r, g, b, a);
	weston_surface_set_size(surface, w, h);
#endif
}

/*
 * Whether weston's own solid-colour surfaces show their colour exactly.
 * Not on weston 10's GL renderer (the only one that captures flipped):
 * on Debian bookworm's llvmpipe it shows them with their channels
 * shifted by one.  There the plugin draws its colours from buffers of
 * its own (canvas.c), scaled; elsewhere it keeps solid surfaces, which
 * pixman fills exactly, where a scaled buffer would cost it a sampled
 * composite and, scaled far down, overflow its fixed-point transform.
 */
static inline bool
ivwl_solid_colours_exact(struct weston_compositor *ec)
{
#ifdef IVWL_WESTON_14
	return true;
#else
	return !(ec->capabilities & WESTON_CAP_CAPTURE_YFLIP);
#endif
}

/* Adds t to view's transforms, in the view's own coordinates. */
static inline void
ivwl_view_add_local_transform(struct weston_view *view,
			      struct weston_transform *t)
{
#ifdef IVWL_WESTON_14
	/* weston 14 takes t out of a list first: its last view's is gone */
	wl_list_init(&t->link);
	weston_view_add_transform(view, &view->geometry.transformation_list,
				  t);
#else
	wl_list_insert(&view->geometry.transformation_list, &t->link);
	weston_view_geometry_dirty(view);
#endif
}

/* Places a view without a transform parent at global x, y. */
static inline void
ivwl_view_set_global_pos(struct weston_view *view, int32_t x, int32_t y)
{
#ifdef IVWL_WESTON_14
	struct weston_coord_global pos = { .c = weston_coord(x, y) };

	weston_view_set_position(view, pos);
#else
	weston_view_set_position(view, (float)x, (float)y);
#endif
}

/* Puts the view on top of layer. */
static inline void
ivwl_view_to_layer(struct weston_view *view, struct weston_layer *layer)
{
#ifdef IVWL_WESTON_14
	weston_view_move_to_layer(view, &layer->view_list);
#else
	if (view->layer_link.layer)
		weston_layer_entry_remove(&view->layer_link);
	weston_layer_entry_insert(&layer->view_list, &view->layer_link);
#endif
}

/* Where the pointer is, in global coordinates. */
static inline void
ivwl_pointer_pos(const struct weston_pointer *pointer, float *x, float *y)
{
#ifdef IVWL_WESTON_14
	*x = (float)pointer->pos.c.x;
	*y = (float)pointer->pos.c.y;
#else
	*x = (float)wl_fixed_to_double(pointer->x);
	*y = (float)wl_fixed_to_double(pointer->y);
#endif
}

/* view right below entry above, in its layer. */
static inline void
ivwl_view_stack_below(struct weston_view *view,
		      struct weston_layer_entry *above)
{
	struct weston_layer_entry *e = &view->layer_link;

	if (above->link.next == &e->link)
		return;
#ifdef IVWL_WESTON_14
	weston_view_move_to_layer(view, above);
#else
	if (e->layer)
		weston_layer_entry_remove(e);
	weston_layer_entry_insert(above, e);
#endif
}

/* Stacks the view right above entry under, in under's layer. */
static inline void
ivwl_view_stack_above(struct weston_view *view,
		      struct weston_layer_entry *under)
{
	struct weston_layer_entry *e = &view->layer_link;
	struct weston_layer_entry *prev;

	prev = wl_container_of(under->link.prev, prev, link);
	if (prev == e)
		return;
#ifdef IVWL_WESTON_14
	weston_view_move_to_layer(view, prev);
#else
	if (e->layer)
		weston_layer_entry_remove(e);
	weston_layer_entry_insert(prev, e);
#endif
}

/* The surface a window activation is about, or NULL. */
static inline struct weston_surface *
ivwl_activation_surface(const struct weston_surface_activation_data *act)
{
#ifdef IVWL_WESTON_14
	return act->view ? act->view->surface : NULL;
#else
	return act->surface;
#endif
}

/*
 * Whether weston's renderer composites the view: weston 10 says by its
 * plane; in 14 that is weston's own business (paint nodes), and a view
 * counts as composited.
 */
static inline bool
ivwl_view_composited(const struct weston_view *view)
{
#ifdef IVWL_WESTON_14
	return true;
#else
	return view->plane == &view->surface->compositor->primary_plane;
#endif
}

#endif
