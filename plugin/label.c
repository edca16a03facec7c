/* SPDX-License-Identifier: MIT */
/*
 * Labelling: every toplevel window of a VM gets a frame in the VM's
 * colour, drawn by weston, that its content cannot leave, cover or fake
 * (docs/security.md, "Trusted path").  (The title prefix is done on the
 * wire, in translate.c.)
 *
 * The frame is four strips of colour, transform-parented to the
 * window's view so that they move with it.  A strip is a solid-colour
 * surface of its own, or, where weston shows those wrong (weston 10's
 * GL renderer: weston-compat.h), a view of the canvas's fill of its
 * colour (canvas.c), scaled to its size.  The window's view gets a
 * clip mask of its box and its frame, which weston applies to every
 * view parented to it as well: the window's subsurfaces and popups
 * cannot draw outside the frame.  The strips sit above the window and
 * its popups in its layer, so nothing of the VM covers them, and other
 * windows cover them as they cover the window.  A side whose strip would
 * fall outside every output (a maximized window, one as big as the
 * screen) is drawn inside the window's edge instead, over its content.
 * A window the user did not give the keyboard to while it asked
 * (focus.c) carries a fifth strip, the attention bar, and a window over
 * its repaint share (repaint.c) a sixth, the veil: an opaque strip over
 * its content, whose subsurfaces are no views meanwhile.  Each is a
 * view only while it shows.  Below the window lies its backdrop, an
 * opaque black box, so that nothing under a VM's window shows through
 * its transparent pixels.  A window that reaches past the outputs is
 * framed at their edges; a fullscreen one (fullscreen.c) has its frame
 * inside the output and no title bar.  weston 10 specifics stay in this
 * file.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <libweston/libweston.h>
#include "weston-compat.h"

#include "ivwl-plugin.h"
#include "canvas.h"
#include "decoration.h"
#include "log.h"
#include "mono-time.h"
#include "nameplate.h"
#include "label.h"
#include "vm.h"
#include "window.h"

#define BORDER_WIDTH IVWL_WINDOW_BORDER
#define ATTENTION_HEIGHT 8
/* The bar's buttons, at its right end, each bar_height square: CLOSE
 * and MAXIMIZE, in that order from the right. */
#define BUTTONS 2
#define ATTENTION_COLOR 0xffffb000u	/* amber */

#define VEIL_COLOR 0xff303030u		/* dark grey */
#define BACKDROP_COLOR 0xff000000u	/* black */
#define XRAY_DIM_COLOR 0xa0000000u	/* X-ray: the window darkened */
/* A window's nameplate is drawn again at most this often: a VM that sets
 * a new title on every commit costs weston a text layout per 100 ms. */
#define PLATE_INTERVAL_MS 100
/*
 * Nameplates of all windows are drawn this far apart at least, the ones
 * waiting in turn, round the VMs (plate_queue_rotate), and a new
 * window's first one PLATE_INTERVAL_MS after
 * it mapped: a VM that maps windows by the hundred costs weston a plate
 * (a text layout, a buffer and its upload) per 40 ms, and none for a
 * window gone sooner.  Its bar shows its colour meanwhile.
 */
#define PLATE_SPACING_MS 40

/* Top to bottom: strip[0] is the topmost, the veil right above the
 * window's content.  PLATE, the nameplate, CLOSE, the close button at
 * its right end, and MAXIMIZE left of it lie on BAR, the title bar;
 * while X-ray is on, XNAME, the VM's name, lies on XDIM, which darkens
 * the window.  BACKDROP alone lies below the window (and the surfaces
 * it placed below itself): an opaque box, so that no pixel of what is
 * under a VM's window shows through it (a transparent window over
 * another VM's would be an invisible layer taking its clicks). */
enum {
	TOP, BOTTOM, LEFT, RIGHT, CLOSE, MAXIMIZE, PLATE, BAR, ATTENTION,
	XNAME, XDIM,
	VEIL, BACKDROP, NSTRIPS
};

/* What a strip's surface is. */
enum strip_kind {
	STRIP_OWN,	/* a solid-colour surface of its own */
	STRIP_FILL,	/* the canvas's fill of its colour, scaled */
	STRIP_IMAGE,	/* the canvas's image of the window's plate */
};

struct ivwl_border;

struct ivwl_strip {
	struct ivwl_border *border;
	struct weston_surface *surface;
	struct weston_view *view;
	struct wl_listener destroy;
	enum strip_kind kind;		/* not OWN: only the view is ours */
	struct weston_transform scale;	/* a fill to w x h */
	int32_t w, h;			/* its size now */
	bool empty;			/* no size where it goes now */
};

/* The frame of a VM's toplevel: label's addon on its window. */
struct ivwl_border {
	struct ivwl_addon addon;		/* on win, keyed by label */
	struct wl_list link;			/* ivwl_label.borders */
	struct ivwl_label *label;
	struct ivwl_window *win;
	uint32_t color;
	struct weston_surface *window;		/* win's surface */
	struct weston_view *framed;		/* NULL until mapped */
	struct wl_listener framed_destroy;
	struct ivwl_strip strip[NSTRIPS];
	/* the nameplate: pixels the canvas draws, shown on the bar */
	struct ivwl_canvas_image *plate;
	bool plate_shown;		/* weston has pixels of it */
	char *plate_title;		/* the title it shows, as the VM set it */
	int32_t plate_w;		/* its width now */
	int32_t plate_natural;		/* its width uncut */
	int32_t plate_min;		/* the bar's width at least: the name */
	int64_t plate_drawn_ms;		/* when it was last drawn */
	struct wl_list plate_link;	/* ivwl_label.plate_queue */
	bool plate_queued;
	/*
	 * The bar lies inside the window (its top off screen or under the
	 * panel) over a bar the client draws itself: it takes no clicks
	 * then, they are the window's own bar's.  A window decorated
	 * server-side (decoration.c) has none: its bar takes them inside
	 * too.
	 */
	bool bar_deaf;
	bool bar_deaf_now;		/* as frame_geometry() found it */
	/* its view while fullscreen, as label's fullscreen signal told */
	struct weston_view *fullscreen_view;
};

/*
 * A picture of a VM's, the same on each of its windows: its name as
 * X-ray shows it (XNAME), the buttons of its bars (CLOSE, MAXIMIZE).
 */
struct vm_image {
	struct wl_list link;			/* ivwl_label.vm_images */
	struct ivwl_label *label;
	struct ivwl_vm *vm;
	int strip;			/* XNAME, CLOSE or MAXIMIZE */
	struct ivwl_canvas_image *image;
	int32_t plate_min;			/* CLOSE's: the VM's plates' */
};

struct ivwl_label {
	struct ivwl_plugin *plugin;
	bool xray;				/* X-ray is on (xray.c) */
	/* windows whose plate waits its turn (PLATE_*), one per tick */
	struct wl_list plate_queue;
	struct wl_event_source *plate_tick;
	bool plate_armed;
	int64_t plate_next_ms;		/* the next plate not before */
	/* strips are the canvas's fills, not solid surfaces (compat.h) */
	bool fills;
	struct wl_list vm_images;
	const char *font;		/* [ivwl] bar-font= */
	int32_t bar_height;
	struct wl_listener mapped;	/* of the windows */
	struct wl_listener changed;
	struct wl_list borders;
	struct wl_signal fullscreen_signal;	/* ivwl_label_fullscreen */
};

static struct ivwl_border *
border_of(struct ivwl_label *label, struct ivwl_window *w);

static void
strips_forget(struct ivwl_border *b)
{
	int i;

	for (i = 0; i < NSTRIPS; i++) {
		if (!b->strip[i].surface)
			continue;
		wl_list_remove(&b->strip[i].destroy.link);
		b->strip[i].surface = NULL;
		b->strip[i].view = NULL;
	}
	if (b->framed)
		wl_list_remove(&b->framed_destroy.link);
	b->framed = NULL;
	b->win->bar = NULL;
}

/*
 * At shutdown, the views of the canvas's surfaces go first: the shell
 * destroys the surface of every view in its layers that is not a
 * window (weston 10's desktop-shell asserts that such a surface has no
 * client), and the canvas's are a client's.  They are there still: a
 * surface the canvas lost took its views with it (on_strip_destroy).
 */
static void
canvas_views_destroy(struct ivwl_border *b)
{
	struct weston_view *v;
	int i;

	for (i = 0; i < NSTRIPS; i++) {
		v = b->strip[i].view;
		if (!v || b->strip[i].kind == STRIP_OWN)
			continue;
		wl_list_remove(&b->strip[i].destroy.link);
		b->strip[i].surface = NULL;
		b->strip[i].view = NULL;
		weston_view_destroy(v);
	}
}

static void
strips_destroy(struct ivwl_border *b)
{
	struct weston_surface *s[NSTRIPS] = { NULL };
	struct weston_view *v[NSTRIPS] = { NULL };
	int i;

	for (i = 0; i < NSTRIPS; i++) {
		if (b->strip[i].kind != STRIP_OWN)
			v[i] = b->strip[i].view;
		else
			s[i] = b->strip[i].surface;
	}
	strips_forget(b);
	for (i = 0; i < NSTRIPS; i++) {
		if (v[i])
			weston_view_destroy(v[i]);
		if (s[i])
			ivwl_surface_release(s[i]);
	}
}

/* weston destroyed a strip itself (at shutdown): forget all of them. */
static void
on_strip_destroy(struct wl_listener *listener, void *data)
{
	struct ivwl_strip *strip = wl_container_of(listener, strip, destroy);

	strips_forget(strip->border);
}

/*
 * The shell destroyed the window's view (its xdg_toplevel went, the
 * wl_surface stays): forget it now, and the strips once weston is done
 * with the view (destroying them here would free listeners of the
 * signal being emitted: the strips' own views hang from it).
 */
static void
fullscreen_note(struct ivwl_border *b, struct weston_view *view);

static void
on_framed_destroy(struct wl_listener *listener, void *data)
{
	struct ivwl_border *b = wl_container_of(listener, b, framed_destroy);

	fullscreen_note(b, NULL);	/* its view, still whole */
	wl_list_remove(&b->framed_destroy.link);
	b->framed = NULL;
	b->win->bar = NULL;
	ivwl_window_recheck(b->win);
}

static uint32_t
strip_color(const struct ivwl_border *b, int i)
{
	return i == ATTENTION ? ATTENTION_COLOR : i == VEIL ? VEIL_COLOR :
	       i == XDIM ? XRAY_DIM_COLOR :
	       i == BACKDROP ? BACKDROP_COLOR : b->color;
}

/* The surface of vm's picture for strip i, NULL until the canvas drew
 * it. */
static struct weston_surface *
vm_image_surface(struct ivwl_label *label, struct ivwl_vm *vm, int i)
{
	struct vm_image *vi;

	wl_list_for_each(vi, &label->vm_images, link)
		if (vi->vm == vm && vi->strip == i)
			return ivwl_canvas_image_surface(vi->image);
	return NULL;
}

static enum ivwl_fill_shape
strip_shape(const struct ivwl_border *b, int i)
{
	if (i == BAR && !b->bar_deaf)
		return IVWL_FILL_BAR;
	return i == LEFT || i == RIGHT ? IVWL_FILL_TALL :
	       i == XDIM || i == BACKDROP ? IVWL_FILL_BOX : IVWL_FILL_WIDE;
}

/*
 * The surface strip i shows: the canvas's of its colour, or one of its
 * own painted in it (the veil's is always its own: its opaque region
 * spares weston what it covers); the plate's once the canvas drew it,
 * else none.
 */
static struct weston_surface *
strip_surface(struct ivwl_border *b, int i, enum strip_kind *kind)
{
	struct weston_surface *s = NULL;

	if (i == PLATE) {
		*kind = STRIP_IMAGE;
		return b->plate_shown ? ivwl_canvas_image_surface(b->plate) :
		       NULL;
	}
	if (i == XNAME || i == CLOSE || i == MAXIMIZE) {
		*kind = STRIP_IMAGE;
		return vm_image_surface(b->label, b->win->vm, i);
	}
	if (i != VEIL && b->label->fills)
		s = ivwl_canvas_fill(b->label->plugin->canvas,
				     strip_color(b, i), strip_shape(b, i));
	*kind = s ? STRIP_FILL : STRIP_OWN;
	if (s)
		return s;
	s = ivwl_surface_create(b->window->compositor);
	if (!s)
		return NULL;
	/* Clicks go to what is below, as if the border were paint. */
	pixman_region32_fini(&s->input);
	pixman_region32_init(&s->input);
	return s;
}

/* Strip i's view, of surface s, on framed; -1 without. */
static int
strip_create(struct ivwl_border *b, int i, struct weston_surface *s,
	     struct weston_view *framed)
{
	struct ivwl_strip *strip = &b->strip[i];

	strip->border = b;
	strip->surface = s;
	strip->destroy.notify = on_strip_destroy;
	wl_signal_add(&s->destroy_signal, &strip->destroy);
	strip->view = weston_view_create(s);
	if (!strip->view)
		return -1;
	strip->w = strip->kind == STRIP_FILL ? s->width : 0;
	strip->h = strip->kind == STRIP_FILL ? s->height : 0;
	if (strip->kind == STRIP_FILL) {
		weston_matrix_init(&strip->scale.matrix);
		ivwl_view_add_local_transform(strip->view, &strip->scale);
	}
	weston_view_set_transform_parent(strip->view, framed);
	return 0;
}

static int
strips_create(struct ivwl_border *b, struct weston_view *framed)
{
	int i;

	for (i = 0; i < NSTRIPS; i++) {
		struct ivwl_strip *strip = &b->strip[i];
		struct weston_surface *s = strip_surface(b, i, &strip->kind);

		if (!s && (i == PLATE || i == XNAME || i == CLOSE ||
			   i == MAXIMIZE))
			continue;	/* comes once the canvas drew it */
		if (!s || strip_create(b, i, s, framed) < 0)
			goto err_strips;
	}
	b->framed = framed;
	b->win->bar = b->strip[BAR].view;
	b->framed_destroy.notify = on_framed_destroy;
	wl_signal_add(&framed->destroy_signal, &b->framed_destroy);
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

/*
 * Whether global box x1, y1, x2, y2 lies under the shell's panel: a view
 * of a layer at the shell's UI position (above every window, below
 * fullscreen ones).  *bottom: the lowest edge of what covers it.
 */
static bool
panel_over(struct weston_compositor *ec, float x1, float y1, float x2,
	   float y2, int32_t *bottom)
{
	struct weston_layer *layer;
	struct weston_view *v;
	bool over = false;

	wl_list_for_each(layer, &ec->layer_list, link) {
		if (layer->position < WESTON_LAYER_POSITION_UI ||
		    layer->position >= WESTON_LAYER_POSITION_FULLSCREEN)
			continue;
		wl_list_for_each(v, &layer->view_list.link, layer_link.link) {
			const pixman_box32_t *e = pixman_region32_extents(
				&v->transform.boundingbox);

			if (x1 < e->x2 && x2 > e->x1 && y1 < e->y2 &&
			    y2 > e->y1) {
				*bottom = over && *bottom > e->y2 ? *bottom :
					  e->y2;
				over = true;
			}
		}
	}
	return over;
}

/*
 * Whether rect x, y, w, h of the window's view shows on some output,
 * not under the panel.  across: its whole height on an output is
 * enough, the part of it there showing (the top of a window wider than
 * the screen, with its title bar).
 */
static bool
on_some_output(struct weston_view *view, int32_t x, int32_t y, int32_t w,
	       int32_t h, bool across)
{
	struct weston_compositor *ec = view->surface->compositor;
	struct weston_output *o;
	float x1, y1, x2, y2;
	int32_t ox, oy, bottom;

	ivwl_view_to_global(view, x, y, &x1, &y1);
	ivwl_view_to_global(view, x + w, y + h, &x2, &y2);
	wl_list_for_each(o, &ec->output_list, link) {
		ivwl_output_pos(o, &ox, &oy);
		if (y1 < oy || y2 > oy + o->height)
			continue;
		if (across && x1 < ox + o->width && x2 > ox) {
			x1 = x1 > ox ? x1 : ox;
			x2 = x2 < ox + o->width ? x2 : ox + o->width;
		}
		if (x1 >= ox && x2 <= ox + o->width)
			return !panel_over(ec, x1, y1, x2, y2, &bottom);
	}
	return false;
}

static bool
maximized(struct weston_surface *window)
{
	struct weston_desktop_surface *ds;

	if (!weston_surface_is_desktop_surface(window))
		return false;
	ds = weston_surface_get_desktop_surface(window);
	return weston_desktop_surface_get_maximized(ds) ||
	       weston_desktop_surface_get_fullscreen(ds);
}

static bool
is_fullscreen(struct weston_surface *window)
{
	return weston_surface_is_desktop_surface(window) &&
	       weston_desktop_surface_get_fullscreen(
		       weston_surface_get_desktop_surface(window));
}

static void
frame_geometry_box(struct ivwl_border *b, const int32_t box[4],
		   int32_t geo[NSTRIPS][4], int32_t mask[4]);

/*
 * The window's box in its surface's coordinates: its xdg_surface window
 * geometry (without the shadows a toolkit draws around it) inside its
 * surface.  libweston-desktop's geometry of a window that set none is
 * the box of its surface tree, subsurfaces included: the part inside
 * the surface is the surface.
 */
static void
window_box(struct ivwl_border *b, int32_t box[4])
{
	struct weston_geometry g = { 0 };
	int32_t w = clamp_size(b->window->width);
	int32_t h = clamp_size(b->window->height);
	int64_t x1, y1, x2, y2;

	if (weston_surface_is_desktop_surface(b->window))
		g = weston_desktop_surface_get_geometry(
			weston_surface_get_desktop_surface(b->window));
	x1 = g.x > 0 ? g.x : 0;
	y1 = g.y > 0 ? g.y : 0;
	x2 = (int64_t)g.x + g.width < w ? (int64_t)g.x + g.width : w;
	y2 = (int64_t)g.y + g.height < h ? (int64_t)g.y + g.height : h;
	if (g.width <= 0 || g.height <= 0 || x2 <= x1 || y2 <= y1) {
		x1 = y1 = 0;
		x2 = w;
		y2 = h;
	}
	box[0] = (int32_t)x1;
	box[1] = (int32_t)y1;
	box[2] = (int32_t)(x2 - x1);
	box[3] = (int32_t)(y2 - y1);
}

/*
 * Cuts box (the window's coordinates) to the outputs' bounding box: a
 * window larger than the screen, or placed past its edges (an attach
 * offset moves it anywhere), is framed at the outputs' edges, over its
 * content, where the user sees the frame; what lies past them does not
 * show anyway, nor take input (weston's picking follows the mask).  A
 * window wholly off the outputs keeps its box.  The window's view is
 * taken as untransformed, as the shell places VM windows.
 */
static void
box_on_outputs(struct ivwl_border *b, int32_t box[4])
{
	struct weston_compositor *ec = b->window->compositor;
	struct weston_output *o;
	int64_t x1 = INT32_MAX, y1 = INT32_MAX, x2 = INT32_MIN, y2 = INT32_MIN;
	int64_t bx1, by1, bx2, by2;
	int32_t ox, oy;
	float gx, gy;

	wl_list_for_each(o, &ec->output_list, link) {
		ivwl_output_pos(o, &ox, &oy);
		x1 = ox < x1 ? ox : x1;
		y1 = oy < y1 ? oy : y1;
		x2 = (int64_t)ox + o->width > x2 ? (int64_t)ox + o->width : x2;
		y2 = (int64_t)oy + o->height > y2 ? (int64_t)oy + o->height :
						     y2;
	}
	if (x2 <= x1 || y2 <= y1)
		return;
	ivwl_view_to_global(b->framed, 0, 0, &gx, &gy);
	/* the outputs in the window's coordinates, cut with the box */
	bx1 = x1 - (int64_t)gx > box[0] ? x1 - (int64_t)gx : box[0];
	by1 = y1 - (int64_t)gy > box[1] ? y1 - (int64_t)gy : box[1];
	bx2 = x2 - (int64_t)gx < (int64_t)box[0] + box[2] ?
		      x2 - (int64_t)gx : (int64_t)box[0] + box[2];
	by2 = y2 - (int64_t)gy < (int64_t)box[1] + box[3] ?
		      y2 - (int64_t)gy : (int64_t)box[1] + box[3];
	if (bx2 <= bx1 || by2 <= by1)
		return;
	box[0] = (int32_t)bx1;
	box[1] = (int32_t)by1;
	box[2] = (int32_t)(bx2 - bx1);
	box[3] = (int32_t)(by2 - by1);
}

/*
 * Where each strip goes, in the window's coordinates: outside its box,
 * or inside it where outside would not show.  The mask is the box of
 * the window and its strips: what the window draws outside its box (a
 * toolkit's shadows) does not show.
 */
static void
frame_geometry(struct ivwl_border *b, int32_t geo[NSTRIPS][4],
	       int32_t mask[4])
{
	int32_t box[4];

	window_box(b, box);
	box_on_outputs(b, box);
	/* the frame of a window narrower than its VM's name is as wide as
	 * the name, so that it shows whole: what the window draws there is
	 * inside the frame */
	if (box[2] < b->plate_min + BUTTONS * b->label->bar_height -
		     2 * BORDER_WIDTH)
		box[2] = b->plate_min + BUTTONS * b->label->bar_height -
			 2 * BORDER_WIDTH;
	frame_geometry_box(b, box, geo, mask);
}

/* frame_geometry() of the box's size, then moved to the box. */
static void
frame_geometry_box(struct ivwl_border *b, const int32_t box[4],
		   int32_t geo[NSTRIPS][4], int32_t mask[4])
{
	/* fullscreen: the frame alone, inside the output's edges, over
	 * the content shown 1:1 (fullscreen.c names the VM) */
	bool full = is_fullscreen(b->window);
	int32_t w = box[2], h = box[3], k = BORDER_WIDTH;
	int32_t a = b->win->attention && !full ? ATTENTION_HEIGHT : 0;
	int32_t bar = full ? 0 : b->label->bar_height;
	const int32_t outside[4][4] = {
		[TOP] = { -k, -k - bar, w + 2 * k, k + bar },
		[BOTTOM] = { -k, h, w + 2 * k, k },
		[LEFT] = { -k, 0, k, h },
		[RIGHT] = { w, 0, k, h },
	};
	bool all_in = maximized(b->window), in[4];
	int32_t top, bottom, left, right;
	int i;

	for (i = 0; i < 4; i++)
		in[i] = all_in || !on_some_output(b->framed,
						  box[0] + outside[i][0],
						  box[1] + outside[i][1],
						  outside[i][2],
						  outside[i][3], i == TOP);
	top = in[TOP] ? k : 0;
	bottom = in[BOTTOM] ? k : 0;
	left = in[LEFT] ? 0 : -k;
	right = in[RIGHT] ? w : w + k;
	geo[TOP][0] = geo[BOTTOM][0] = left;
	geo[TOP][2] = geo[BOTTOM][2] = right - left;
	geo[TOP][1] = in[TOP] ? 0 : -k;
	geo[BOTTOM][1] = in[BOTTOM] ? h - k : h;
	geo[TOP][3] = geo[BOTTOM][3] = k;
	geo[LEFT][0] = in[LEFT] ? 0 : -k;
	geo[RIGHT][0] = in[RIGHT] ? w - k : w;
	geo[LEFT][1] = geo[RIGHT][1] = top;
	geo[LEFT][2] = geo[RIGHT][2] = k;
	geo[LEFT][3] = geo[RIGHT][3] = h - top - bottom > 0 ?
					       h - top - bottom : 0;
	/* the title bar, and the attention bar above it: above the top
	 * strip, or under it inside */
	geo[BAR][0] = left;
	geo[BAR][1] = in[TOP] ? k : -k - bar;
	b->bar_deaf_now = in[TOP] && !ivwl_decoration_server_side(b->window);
	geo[BAR][2] = right - left;
	geo[BAR][3] = bar;
	/* the close button at its right end, maximize left of it, the
	 * plate left of them */
	for (i = 0; i < BUTTONS; i++) {
		geo[CLOSE + i][0] = geo[BAR][0] + geo[BAR][2] - (i + 1) * bar;
		geo[CLOSE + i][1] = geo[BAR][1];
		geo[CLOSE + i][2] = geo[CLOSE + i][3] = bar;
	}
	geo[PLATE][0] = geo[BAR][0];
	geo[PLATE][1] = geo[BAR][1];
	geo[PLATE][2] = b->plate_w < geo[BAR][2] - BUTTONS * bar ?
			b->plate_w : geo[BAR][2] - BUTTONS * bar;
	geo[PLATE][3] = bar;
	geo[ATTENTION][0] = left;
	geo[ATTENTION][1] = in[TOP] ? k + bar : -k - bar - a;
	geo[ATTENTION][2] = right - left;
	geo[ATTENTION][3] = a;
	geo[VEIL][0] = geo[XDIM][0] = geo[BACKDROP][0] = 0;
	geo[VEIL][1] = geo[XDIM][1] = geo[BACKDROP][1] = 0;
	geo[VEIL][2] = geo[XDIM][2] = geo[BACKDROP][2] = w;
	geo[VEIL][3] = geo[XDIM][3] = geo[BACKDROP][3] = h;
	/* the name in the middle of the window, cut to it */
	if (b->strip[XNAME].surface) {
		geo[XNAME][2] = b->strip[XNAME].surface->width;
		geo[XNAME][3] = b->strip[XNAME].surface->height;
	} else {
		geo[XNAME][2] = geo[XNAME][3] = 0;
	}
	geo[XNAME][0] = (w - geo[XNAME][2]) / 2;
	geo[XNAME][1] = (h - geo[XNAME][3]) / 2;
	mask[0] = left;
	mask[1] = in[TOP] ? 0 : -k - bar - a;
	mask[2] = right - left;
	mask[3] = (in[BOTTOM] ? h : h + k) - mask[1];
	for (i = 0; i < NSTRIPS; i++) {
		geo[i][0] += box[0];
		geo[i][1] += box[1];
	}
	mask[0] += box[0];
	mask[1] += box[1];
}

static bool
is_strip(const struct ivwl_border *b, const struct weston_view *v)
{
	int i;

	for (i = 0; i < NSTRIPS; i++)
		if (b->strip[i].view == v)
			return true;
	return false;
}

/* The entry the strips go right above: the window's, or the topmost of
 * its popups stacked right above it. */
static struct weston_layer_entry *
frame_top(struct ivwl_border *b)
{
	struct weston_layer_entry *top = &b->framed->layer_link, *e;
	struct weston_view *v, *p;

	for (;;) {
		if (top->link.prev == &top->layer->view_list.link)
			return top;
		e = wl_container_of(top->link.prev, e, link);
		v = wl_container_of(e, v, layer_link);
		for (p = v->geometry.parent; p && p != b->framed;
		     p = p->geometry.parent)
			;
		if (!p || is_strip(b, v))
			return top;	/* not a popup of ours, or a strip */
		top = e;
	}
}

/* Whether strip i is a view now: the attention bar and the veil only
 * while they show, as every view costs every repaint. */
static bool
strip_shown(const struct ivwl_border *b, int i)
{
	if (!b->strip[i].view || b->strip[i].empty)
		return false;
	if (i == ATTENTION)
		return b->win->attention;
	if (i == XNAME || i == XDIM)
		return b->label->xray;
	if (i == VEIL)
		return b->win->cost.veil != 0;
	return true;
}

static bool
stops_at_strip(struct weston_view *v, void *data)
{
	return is_strip(data, v);
}

/* The entry the backdrop goes right below: the window's, or the lowest
 * of its surfaces placed below it. */
static struct weston_layer_entry *
frame_bottom(struct ivwl_border *b)
{
	return ivwl_view_stack_bottom(b->framed, stops_at_strip, b);
}

/* The backdrop right below the window; whether it was there. */
static bool
backdrop_restack(struct ivwl_border *b)
{
	struct weston_layer_entry *bottom, *e;

	if (!strip_shown(b, BACKDROP))
		return true;
	bottom = frame_bottom(b);
	e = &b->strip[BACKDROP].view->layer_link;
	if (e->layer == bottom->layer && bottom->link.next == &e->link)
		return true;
	ivwl_view_stack_below(b->strip[BACKDROP].view, bottom);
	return false;
}

/* Right above the window and its popups, in the order of strip[]; the
 * backdrop below it. */
static bool
strips_restack(struct ivwl_border *b)
{
	struct weston_layer_entry *above = frame_top(b);
	bool in_place = backdrop_restack(b);
	int i;

	for (i = NSTRIPS - 1; i >= 0; i--) {
		if (i == BACKDROP)
			continue;
		struct weston_layer_entry *e;

		if (!strip_shown(b, i)) {
			if (b->strip[i].view)
				weston_view_unmap(b->strip[i].view);
			continue;
		}
		e = &b->strip[i].view->layer_link;
		if (e->layer != above->layer || e->link.next != &above->link)
			in_place = false;
		above = e;
	}
	if (in_place)
		return false;
	above = frame_top(b);
	for (i = NSTRIPS - 1; i >= 0; i--) {
		if (i == BACKDROP || !strip_shown(b, i))
			continue;
		ivwl_view_stack_above(b->strip[i].view, above);
		above = &b->strip[i].view->layer_link;
	}
	return true;
}

/* Strip i (of a border) to w x h, which are not 0. */
static void
strip_resize(struct ivwl_strip *strip, int i, int32_t w, int32_t h)
{
	struct weston_surface *s = strip->surface;

	strip->w = w;
	strip->h = h;
	if (strip->kind == STRIP_IMAGE)
		return;		/* as the canvas drew it */
	if (strip->kind == STRIP_FILL) {
		weston_matrix_init(&strip->scale.matrix);
		weston_matrix_scale(&strip->scale.matrix,
				    (float)w / (float)s->width,
				    (float)h / (float)s->height, 1.0f);
		weston_view_geometry_dirty(strip->view);
		return;
	}
	ivwl_surface_paint(s, strip_color(strip->border, i), w, h);
	/* what is under the veil costs weston nothing (the strips stay out
	 * of weston's opaque regions: every view below would copy their
	 * rectangles) */
	pixman_region32_fini(&s->opaque);
	pixman_region32_init(&s->opaque);
	if (i == VEIL || i == BACKDROP)
		pixman_region32_init_rect(&s->opaque, 0, 0, w, h);
	/* the bar takes clicks (bar.c) unless deaf (bar_deaf) */
	if (i == BAR) {
		pixman_region32_fini(&s->input);
		if (strip->border->bar_deaf)
			pixman_region32_init(&s->input);
		else
			pixman_region32_init_rect(&s->input, 0, 0, w, h);
	}
}

static void
strips_place(struct ivwl_border *b);

/* The window's title as its VM set it: without the "[name] " the
 * plugin puts in front of it (translate.c); NULL if it has none. */
static const char *
vm_title(struct ivwl_border *b)
{
	const char *title = NULL, *name = b->win->vm->name;
	size_t n = strlen(name);

	if (weston_surface_is_desktop_surface(b->window))
		title = weston_desktop_surface_get_title(
			weston_surface_get_desktop_surface(b->window));
	if (title && title[0] == '[' && strncmp(title + 1, name, n) == 0 &&
	    title[n + 1] == ']')
		title += title[n + 2] == ' ' ? n + 3 : n + 2;
	return title;
}

/* Draws the plate again, for a new title or a bar of a new width. */
static void
plate_draw(struct ivwl_border *b, const char *title, int32_t bar_w)
{
	struct ivwl_label *label = b->label;
	char *clean = ivwl_nameplate_clean(title);
	struct ivwl_nameplate plate = {
		.font = label->font,
		.name = b->win->vm->name,
		.title = clean,
		.argb = b->color,
		.max_width = bar_w,
	};
	cairo_surface_t *pixels;
	int natural;

	pixels = ivwl_nameplate_draw(&plate, &natural);
	free(clean);
	if (!pixels)
		return;
	if (ivwl_canvas_image_show_cairo(b->plate, pixels) == 0) {
		free(b->plate_title);
		b->plate_title = strdup(title ? title : "");
		b->plate_w = cairo_image_surface_get_width(pixels);
		b->plate_natural = natural;
	}
	cairo_surface_destroy(pixels);
}

/*
 * The rest of vm's windows in the queue go to its end, in their order:
 * the queue goes round the VMs, so that a VM with many windows waiting
 * makes another VM's window wait one turn of each VM, not of each
 * window.
 */
static void
plate_queue_rotate(struct ivwl_label *label, struct ivwl_vm *vm)
{
	struct ivwl_border *b, *tmp;
	struct wl_list later;

	wl_list_init(&later);
	wl_list_for_each_safe(b, tmp, &label->plate_queue, plate_link) {
		if (b->win->vm != vm)
			continue;
		wl_list_remove(&b->plate_link);
		wl_list_insert(later.prev, &b->plate_link);
	}
	wl_list_insert_list(label->plate_queue.prev, &later);
}

/* The head of the queue gets its turn; the next in PLATE_SPACING_MS. */
static int
on_plate_tick(void *data)
{
	struct ivwl_label *label = data;
	struct ivwl_border *b;

	label->plate_armed = false;
	if (wl_list_empty(&label->plate_queue))
		return 0;
	b = wl_container_of(label->plate_queue.next, b, plate_link);
	wl_list_remove(&b->plate_link);
	b->plate_queued = false;
	plate_queue_rotate(label, b->win->vm);
	if (b->framed)
		strips_place(b);	/* may queue it again */
	if (!wl_list_empty(&label->plate_queue) && !label->plate_armed) {
		wl_event_source_timer_update(label->plate_tick,
					     PLATE_SPACING_MS);
		label->plate_armed = true;
	}
	return 0;
}

/* b's plate is drawn once its turn comes, in wait ms at the earliest. */
static void
plate_enqueue(struct ivwl_border *b, int64_t wait)
{
	struct ivwl_label *label = b->label;

	if (!b->plate_queued) {
		wl_list_insert(label->plate_queue.prev, &b->plate_link);
		b->plate_queued = true;
	}
	if (!label->plate_tick)
		label->plate_tick = wl_event_loop_add_timer(
			wl_display_get_event_loop(label->plugin->display),
			on_plate_tick, label);
	if (label->plate_tick && !label->plate_armed) {
		wl_event_source_timer_update(label->plate_tick,
					     wait > 0 ? (int)wait : 1);
		label->plate_armed = true;
	}
}

static void
plate_dequeue(struct ivwl_border *b)
{
	if (b->plate_queued)
		wl_list_remove(&b->plate_link);
	b->plate_queued = false;
}

/* The plate as the bar, bar_w wide, should show it now, or in a while:
 * at most one drawing per PLATE_INTERVAL_MS. */
static void
plate_update(struct ivwl_border *b, int32_t bar_w)
{
	const char *title = vm_title(b);
	int64_t now = ivwl_now_ms(), wait;
	struct ivwl_label *label = b->label;
	int32_t want;

	if (!b->plate || bar_w <= 0)
		return;
	want = bar_w < b->plate_natural ? bar_w : b->plate_natural;
	if (b->plate_title && strcmp(b->plate_title, title ? title : "") == 0
	    && want == b->plate_w)
		return;
	/* its own interval (from its map for the first), and the turn of
	 * all windows */
	wait = b->plate_drawn_ms + PLATE_INTERVAL_MS - now;
	if (label->plate_next_ms - now > wait)
		wait = label->plate_next_ms - now;
	if (wait > 0 || (b->plate_queued &&
			 label->plate_queue.next != &b->plate_link)) {
		plate_enqueue(b, wait);
		return;
	}
	plate_dequeue(b);
	label->plate_next_ms = now + PLATE_SPACING_MS;
	b->plate_drawn_ms = now;
	b->win->vm->live.plates++;
	plate_draw(b, title, bar_w);
}

/* An image of the canvas the strip i shows came (or came again). */
static void
strip_image_shown(struct ivwl_border *b, int i, struct weston_surface *s)
{
	struct ivwl_strip *strip = &b->strip[i];

	if (!b->framed)
		return;
	if (!strip->view) {
		strip->kind = STRIP_IMAGE;
		if (strip_create(b, i, s, b->framed) < 0) {
			strips_destroy(b);
			ivwl_window_recheck(b->win);
			return;
		}
	}
	strips_place(b);
	weston_view_schedule_repaint(strip->view);
}

static void
on_plate_shown(void *data, struct weston_surface *surface)
{
	struct ivwl_border *b = data;

	b->plate_shown = true;
	strip_image_shown(b, PLATE, surface);
}

/* Tells the fullscreen signal's listeners where the window is now. */
static void
fullscreen_note(struct ivwl_border *b, struct weston_view *view)
{
	struct ivwl_label_fullscreen ev = {
		.vm = b->win->vm,
		.window = b->window,
	};

	if (view == b->fullscreen_view)
		return;
	if (b->fullscreen_view) {
		ev.view = b->fullscreen_view;
		ev.on = false;
		b->fullscreen_view = NULL;
		wl_signal_emit(&b->label->fullscreen_signal, &ev);
	}
	if (view) {
		ev.view = view;
		ev.on = true;
		b->fullscreen_view = view;
		wl_signal_emit(&b->label->fullscreen_signal, &ev);
	}
}

static void
strips_place(struct ivwl_border *b)
{
	int32_t geo[NSTRIPS][4], mask[4];
	bool restacked;
	int i;

	/* the shell took the window out of its layer (unmapped, not
	 * destroyed): its window is looked at once weston is done */
	if (!b->framed->layer_link.layer) {
		ivwl_window_recheck(b->win);
		return;
	}
	frame_geometry(b, geo, mask);
	if (b->bar_deaf_now != b->bar_deaf) {
		b->bar_deaf = b->bar_deaf_now;
		/* a fill's input is its whole surface's: another fill then;
		 * a bar of its own takes clicks or not as it is resized */
		if (b->strip[BAR].kind == STRIP_FILL) {
			strips_destroy(b);
			ivwl_window_recheck(b->win);
			return;
		}
		b->strip[BAR].w = 0;
	}
	plate_update(b, geo[BAR][2] - BUTTONS * b->label->bar_height);
	for (i = 0; i < NSTRIPS; i++)
		b->strip[i].empty = geo[i][2] <= 0 || geo[i][3] <= 0;
	restacked = strips_restack(b);
	ivwl_view_clip(b->framed, mask[0], mask[1], mask[2], mask[3]);
	for (i = 0; i < NSTRIPS; i++) {
		struct weston_view *v = b->strip[i].view;
		struct weston_surface *s = b->strip[i].surface;
		bool changed = restacked;
		float x, y;

		if (!strip_shown(b, i))
			continue;
		/* Every commit comes here: touch a strip only when it moved.
		 * A dirty view is damaged where it was and where it goes,
		 * which would repaint all the strips on every frame. */
		if (b->strip[i].w != geo[i][2] || b->strip[i].h != geo[i][3]) {
			strip_resize(&b->strip[i], i, geo[i][2], geo[i][3]);
			changed = true;
		}
		ivwl_view_pos(v, &x, &y);
		if (x != (float)geo[i][0] || y != (float)geo[i][1]) {
			ivwl_view_set_rel_pos(v, geo[i][0], geo[i][1]);
			changed = true;
		}
		if (!changed && v->is_mapped)
			continue;
		s->is_mapped = true;
		v->is_mapped = true;
		weston_view_geometry_dirty(v);
		/* weston damages a moved view less what the views above it
		 * hid last time: one raised past an opaque view (another
		 * window's backdrop or veil) would stay hidden there */
		if (restacked)
			ivwl_surface_damage_all(s);
		weston_view_schedule_repaint(v);
	}
	fullscreen_note(b, is_fullscreen(b->window) ? b->framed : NULL);
}

static int32_t
vm_image_ask(struct ivwl_label *label, struct ivwl_vm *vm, int i);

/* The output whose columns hold global x and whose rows hold y; NULL. */
static struct weston_output *
output_at(struct weston_compositor *ec, float x, float y)
{
	struct weston_output *o;
	int32_t ox, oy;

	wl_list_for_each(o, &ec->output_list, link) {
		ivwl_output_pos(o, &ox, &oy);
		if (x >= ox && x < ox + o->width && y >= oy &&
		    y < oy + o->height)
			return o;
	}
	return NULL;
}

/*
 * A window the shell placed at the top of the screen, or right under
 * the panel, would have its bar off screen or under the panel, and so
 * drawn inside, over the window's own top (a toolkit's title bar and
 * buttons): as it maps it moves down as far as the bar and the
 * attention bar need.  A maximized window keeps its place.
 */
static void
make_room_for_bar(struct ivwl_border *b, struct weston_view *view)
{
	struct weston_compositor *ec = b->window->compositor;
	int32_t box[4], k = BORDER_WIDTH, bottom, ox, oy, need;
	int32_t top = k + b->label->bar_height + ATTENTION_HEIGHT;
	struct weston_output *o;
	float x1, y1, x2, y2, wx, wy, vx, vy;

	if (maximized(b->window) || view->geometry.parent)
		return;
	window_box(b, box);
	ivwl_view_to_global(view, box[0], box[1], &wx, &wy);
	o = output_at(ec, wx + box[2] / 2.0f, wy);
	if (!o)
		return;
	ivwl_output_pos(o, &ox, &oy);
	need = oy;
	ivwl_view_to_global(view, box[0] - k, box[1] - top, &x1, &y1);
	ivwl_view_to_global(view, box[0] + box[2] + k, box[1], &x2, &y2);
	if (panel_over(ec, x1, (float)oy, x2, y2, &bottom) && bottom > need)
		need = bottom;
	if (y1 >= (float)need)
		return;
	ivwl_view_pos(view, &vx, &vy);
	ivwl_view_set_global_pos(view, (int32_t)vx,
				 (int32_t)(vy + ((float)need - y1)));
}

/* Frames the window's view, which it did not frame yet. */
static void
border_frame(struct ivwl_border *b, struct weston_view *view)
{
	strips_destroy(b);
	make_room_for_bar(b, view);
	strips_create(b, view);
}

/* The window goes: its frame with it. */
static void
border_destroy(struct ivwl_addon *addon)
{
	struct ivwl_border *b = wl_container_of(addon, b, addon);

	fullscreen_note(b, NULL);
	strips_destroy(b);
	plate_dequeue(b);
	ivwl_canvas_image_destroy(b->plate);
	free(b->plate_title);
	wl_list_remove(&b->link);
	free(b);
}

static const struct ivwl_addon_interface border_addon = {
	.name = "ivwl-label-border",
	.destroy = border_destroy,
};

static struct ivwl_border *
border_of(struct ivwl_label *label, struct ivwl_window *w)
{
	struct ivwl_addon *addon;
	struct ivwl_border *b;

	addon = w ? ivwl_addon_find(&w->addons, label, &border_addon) : NULL;
	return addon ? wl_container_of(addon, b, addon) : NULL;
}

static struct ivwl_border *
border_create(struct ivwl_label *label, struct ivwl_window *w)
{
	struct ivwl_border *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->label = label;
	b->win = w;
	b->color = w->vm->color;
	b->window = w->surface;
	b->plate = ivwl_canvas_image_create(label->plugin->canvas, false,
					    on_plate_shown, b);
	b->plate_min = vm_image_ask(label, w->vm, CLOSE);
	vm_image_ask(label, w->vm, MAXIMIZE);
	b->plate_drawn_ms = ivwl_now_ms();
	ivwl_addon_init(&b->addon, &w->addons, label, &border_addon);
	wl_list_insert(&label->borders, &b->link);
	return b;
}

/* A VM's toplevel was mapped: framed before anyone else hears of it. */
static void
on_mapped(struct wl_listener *listener, void *data)
{
	struct ivwl_label *label = wl_container_of(listener, label, mapped);
	struct ivwl_window *w = data;
	struct ivwl_border *b = border_of(label, w);

	if (!b)
		b = border_create(label, w);
	if (b)
		border_frame(b, w->view);
}

/* Its view, place, veil or attention changed: the frame follows. */
static void
on_changed(struct wl_listener *listener, void *data)
{
	struct ivwl_label *label = wl_container_of(listener, label, changed);
	struct ivwl_window *w = data;
	struct ivwl_border *b = border_of(label, w);

	if (!b)
		return;
	if (!w->view) {
		strips_destroy(b);	/* unmapped: nothing to frame */
		fullscreen_note(b, NULL);
		return;
	}
	if (w->view != b->framed)
		border_frame(b, w->view);
	if (b->framed)
		strips_place(b);
}

/* The border whose strip view is, or NULL. */
static struct ivwl_border *
border_of_strip(struct ivwl_label *label, struct weston_view *view, int *i)
{
	struct ivwl_border *b;

	if (!view->geometry.parent)
		return NULL;
	b = border_of(label, ivwl_window_from_surface(
				     view->geometry.parent->surface));
	if (!b || b->framed != view->geometry.parent)
		return NULL;
	for (*i = 0; *i < NSTRIPS; (*i)++)
		if (b->strip[*i].view == view)
			return b;
	return NULL;
}

enum ivwl_bar_part
ivwl_label_bar_part(struct ivwl_label *label, struct weston_view *view,
		    float x, struct weston_view **window, struct ivwl_vm **vm)
{
	const pixman_box32_t *e;
	struct ivwl_border *b;
	int i;

	if (!view)
		return IVWL_BAR_NONE;
	/* the plate and the button take no clicks: the bar under them does */
	b = border_of_strip(label, view, &i);
	if (!b || i != BAR)
		return IVWL_BAR_NONE;
	if (window)
		*window = b->framed;
	if (vm)
		*vm = b->win->vm;
	e = pixman_region32_extents(&view->transform.boundingbox);
	if (x >= (float)(e->x2 - b->label->bar_height))
		return IVWL_BAR_CLOSE;
	if (x >= (float)(e->x2 - BUTTONS * b->label->bar_height))
		return IVWL_BAR_MAXIMIZE;
	return IVWL_BAR_MOVE;
}

/* The canvas drew a VM's picture: its windows show it. */
static void
on_vm_image_shown(void *data, struct weston_surface *surface)
{
	struct vm_image *vi = data;
	struct ivwl_border *b;

	wl_list_for_each(b, &vi->label->borders, link)
		if (b->win->vm == vi->vm)
			strip_image_shown(b, vi->strip, surface);
}

/*
 * Has the canvas draw vm's picture for strip i, once.  For CLOSE, the
 * width of vm's plates at the least (measured once per VM too); else 0.
 */
static int32_t
vm_image_ask(struct ivwl_label *label, struct ivwl_vm *vm, int i)
{
	struct vm_image *vi;
	cairo_surface_t *pixels;

	wl_list_for_each(vi, &label->vm_images, link)
		if (vi->vm == vm && vi->strip == i)
			return vi->plate_min;
	vi = calloc(1, sizeof(*vi));
	if (!vi)
		return 0;
	vi->label = label;
	vi->vm = vm;
	vi->strip = i;
	if (i == CLOSE)
		vi->plate_min = ivwl_nameplate_min_width(label->font,
							 vm->name);
	vi->image = ivwl_canvas_image_create(label->plugin->canvas,
					     false, on_vm_image_shown, vi);
	wl_list_insert(&label->vm_images, &vi->link);
	if (i == XNAME)
		pixels = ivwl_nameplate_draw_big(label->font, vm->name,
						 vm->color);
	else if (i == MAXIMIZE)
		pixels = ivwl_nameplate_draw_maximize(label->bar_height,
						      vm->color);
	else
		pixels = ivwl_nameplate_draw_close(label->bar_height,
						   vm->color);
	if (vi->image && pixels)
		ivwl_canvas_image_show_cairo(vi->image, pixels);
	if (pixels)
		cairo_surface_destroy(pixels);
	return vi->plate_min;
}

void
ivwl_label_xray(struct ivwl_label *label, bool on)
{
	struct ivwl_border *b;
	struct ivwl_vm *vm;

	if (label->xray == on)
		return;
	label->xray = on;
	if (on)
		wl_list_for_each(vm, &label->plugin->vms, link)
			vm_image_ask(label, vm, XNAME);
	wl_list_for_each(b, &label->borders, link) {
		if (!b->framed)
			continue;
		strips_place(b);
		weston_view_schedule_repaint(b->framed);
	}
}

struct ivwl_label *
ivwl_label_create(struct ivwl_plugin *plugin, const char *font)
{
	struct ivwl_label *label = calloc(1, sizeof(*label));
	struct ivwl_vm *vm;

	if (!label)
		return NULL;
	label->plugin = plugin;
	wl_list_init(&label->borders);
	wl_list_init(&label->vm_images);
	wl_list_init(&label->plate_queue);
	label->font = font;
	label->bar_height = ivwl_nameplate_height(font);
	if (label->bar_height <= 0) {
		ivwl_log("[ivwl] bar-font=%s: no font of that name to draw "
			 "title bars with", font);
		free(label);
		return NULL;
	}
	ivwl_log("title bars %d px high, in %s", label->bar_height, font);
	label->fills = plugin->canvas &&
		       !ivwl_solid_colours_exact(plugin->compositor);
	/* the canvas makes them meanwhile: ready by the first window */
	if (label->fills) {
		ivwl_canvas_fill(plugin->canvas, ATTENTION_COLOR,
				 IVWL_FILL_WIDE);
		ivwl_canvas_fill(plugin->canvas, XRAY_DIM_COLOR,
				 IVWL_FILL_BOX);
		ivwl_canvas_fill(plugin->canvas, BACKDROP_COLOR,
				 IVWL_FILL_BOX);
		wl_list_for_each(vm, &plugin->vms, link) {
			ivwl_canvas_fill(plugin->canvas, vm->color,
					 IVWL_FILL_WIDE);
			ivwl_canvas_fill(plugin->canvas, vm->color,
					 IVWL_FILL_BAR);
			ivwl_canvas_fill(plugin->canvas, vm->color,
					 IVWL_FILL_TALL);
		}
	}
	wl_signal_init(&label->fullscreen_signal);
	label->mapped.notify = on_mapped;
	wl_signal_add(&ivwl_windows_events(plugin->windows)->mapped,
		      &label->mapped);
	label->changed.notify = on_changed;
	wl_signal_add(&ivwl_windows_events(plugin->windows)->changed,
		      &label->changed);
	return label;
}

bool
ivwl_label_room(struct ivwl_label *label, struct weston_output *output,
		int32_t room[4])
{
	int32_t ox, oy, bottom, top = BORDER_WIDTH + label->bar_height +
				      ATTENTION_HEIGHT;

	ivwl_output_pos(output, &ox, &oy);
	if (panel_over(label->plugin->compositor, (float)ox, (float)oy,
		       (float)(ox + output->width), (float)(oy + 1), &bottom) &&
	    bottom > oy)
		top += bottom - oy;
	room[0] = ox + BORDER_WIDTH;
	room[1] = oy + top;
	room[2] = output->width - 2 * BORDER_WIDTH;
	room[3] = output->height - top - BORDER_WIDTH;
	return room[2] > 0 && room[3] > 0;
}

void
ivwl_label_add_fullscreen_listener(struct ivwl_label *label,
				   struct wl_listener *listener)
{
	wl_signal_add(&label->fullscreen_signal, listener);
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
	struct vm_image *vi, *vtmp;

	wl_list_for_each_safe(b, tmp, &label->borders, link) {
		canvas_views_destroy(b);
		strips_forget(b);
		plate_dequeue(b);
		ivwl_canvas_image_destroy(b->plate);
		free(b->plate_title);
		ivwl_addon_finish(&b->addon);
		wl_list_remove(&b->link);
		free(b);
	}
	wl_list_remove(&label->mapped.link);
	wl_list_remove(&label->changed.link);
	if (label->plate_tick)
		wl_event_source_remove(label->plate_tick);
	wl_list_for_each_safe(vi, vtmp, &label->vm_images, link) {
		ivwl_canvas_image_destroy(vi->image);
		wl_list_remove(&vi->link);
		free(vi);
	}
	free(label);
}
