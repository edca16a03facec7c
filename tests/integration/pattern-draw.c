/* SPDX-License-Identifier: MIT */
/*
 * What the pattern client draws and how it shows it: pixels a test can
 * predict, the band each frame repaints, the damage that band makes in
 * buffer or (--surface-damage) surface coordinates, and the surface's
 * transform, scale and viewport.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pattern-client.h"

static uint32_t
pattern_pixel(int x, int y, int gen)
{
	uint32_t r = (uint32_t)(x * 5 + gen * 40) & 0xff;
	uint32_t g = (uint32_t)(y * 3 + gen * 70) & 0xff;
	uint32_t b = (uint32_t)((x ^ y) + gen * 13) & 0xff;

	return 0xff000000u | r << 16 | g << 8 | b;
}

/*
 * Frame k >= 1 repaints a band: whole rows, an eighth of the buffer
 * high, or a w x h box when --band asks for one (0 x 0 otherwise).
 */
struct band
pattern_band(int k, int width, int height, int w, int h)
{
	struct band band = { 0, 0, width, height / 8 > 4 ? height / 8 : 4 };

	if (w > 0) {
		band.w = w;
		band.h = h;
		if (width > w)
			band.x = ((k - 1) * 53) % (width - w);
	}
	if (height > band.h)
		band.y = ((k - 1) * 37) % (height - band.h);
	return band;
}

/*
 * A buffer point to where the surface shows it, before the viewport:
 * wl_output.transform undone (weston_transformed_coord() solved for the
 * surface point), then the buffer scale.  tw x th: the buffer as the
 * transform turns it.
 */
static void
buffer_to_view(const struct app *app, double bx, double by, double *u,
	       double *v)
{
	double tw = app->transform & 1 ? app->height : app->width;
	double th = app->transform & 1 ? app->width : app->height;
	double tx, ty;

	switch (app->transform) {
	default:
	case 0: tx = bx; ty = by; break;
	case 1: tx = tw - by; ty = bx; break;
	case 2: tx = tw - bx; ty = th - by; break;
	case 3: tx = by; ty = th - bx; break;
	case 4: tx = tw - bx; ty = by; break;
	case 5: tx = by; ty = bx; break;
	case 6: tx = bx; ty = th - by; break;
	case 7: tx = tw - by; ty = th - bx; break;
	}
	*u = tx / app->scale;
	*v = ty / app->scale;
}

/* A point before the viewport to the surface. */
static void
view_to_surface(const struct app *app, double u, double v, double *x,
		double *y)
{
	double tw = (app->transform & 1 ? app->height : app->width) /
		    app->scale;
	double th = (app->transform & 1 ? app->width : app->height) /
		    app->scale;
	double src[4] = { 0, 0, tw, th };
	double dst[2];

	if (app->has_source)
		memcpy(src, app->src, sizeof(src));
	dst[0] = app->has_destination ? app->dst[0] : src[2];
	dst[1] = app->has_destination ? app->dst[1] : src[3];
	*x = (u - src[0]) * dst[0] / src[2];
	*y = (v - src[1]) * dst[1] / src[3];
}

/*
 * Damages buffer rectangle (x, y, w, h) the way --surface-damage says.
 *
 * A surface whose viewport crops or scales is filtered bilinearly by
 * weston 12 and later (weston_matrix_needs_filtering()): a surface pixel
 * reads the buffer pixels whose centres lie within one pixel of the
 * point it shows, so a changed pixel also changes the surface pixels
 * around the exact image of the rectangle.  Those are damaged too, the
 * rectangle grown by a buffer pixel each side before it is mapped:
 * otherwise weston leaves them as they were until something else draws
 * them again, and what the window shows depends on what else repainted
 * it (a restack repaints the whole output on weston 16).
 */
static void
damage(struct app *app, int x, int y, int w, int h)
{
	double u[2], v[2], sx[2], sy[2];
	int i;

	if (!app->surface_damage) {
		wl_surface_damage_buffer(app->win.surface, x, y, w, h);
		return;
	}
	if (app->has_source || app->has_destination) {
		x--;
		y--;
		w += 2;
		h += 2;
	}
	buffer_to_view(app, x, y, &u[0], &v[0]);
	buffer_to_view(app, x + w, y + h, &u[1], &v[1]);
	for (i = 0; i < 2; i++)
		view_to_surface(app, u[i], v[i], &sx[i], &sy[i]);
	if (sx[0] > sx[1]) {
		double t = sx[0]; sx[0] = sx[1]; sx[1] = t;
	}
	if (sy[0] > sy[1]) {
		double t = sy[0]; sy[0] = sy[1]; sy[1] = t;
	}
	sx[0] = floor(sx[0]);
	sy[0] = floor(sy[0]);
	wl_surface_damage(app->win.surface, (int)sx[0], (int)sy[0],
			  (int)ceil(sx[1]) - (int)sx[0],
			  (int)ceil(sy[1]) - (int)sy[0]);
}

/* Brings b up to frame f: repaints what changed since its content. */
struct band
pattern_paint(struct app *app, struct buffer *b, int f)
{
	int x, y, from = b->frame < 0 ? 0 : b->frame + 1, k;
	struct band band;

	if (b->frame < 0) {
		for (y = 0; y < app->height; y++)
			for (x = 0; x < app->width; x++)
				b->base.pixels[y * app->width + x] =
					pattern_pixel(x, y, 0);
		from = 1;
	}
	for (k = from; k <= f; k++) {
		band = pattern_band(k, app->width, app->height, app->band_w,
				    app->band_h);
		for (y = band.y; y < band.y + band.h; y++)
			for (x = band.x; x < band.x + band.w; x++)
				b->base.pixels[y * app->width + x] =
					pattern_pixel(x, y, k);
	}
	b->frame = f;
	return pattern_band(f, app->width, app->height, app->band_w,
			    app->band_h);
}

void
pattern_draw(struct app *app)
{
	struct buffer *b = &app->buffers[app->next % app->n_buffers];
	struct band band = { 0, 0, 0, 0 };
	int i;

	/* the next one in turn that the compositor does not hold */
	for (i = 0; i < app->n_buffers && b->base.busy; i++)
		b = &app->buffers[(app->next + i) % app->n_buffers];
	if (!b->base.wl)
		pattern_new_buffer(app, (int)(b - app->buffers), b->offset);
	if (!app->frozen && app->drawer >= 0)
		band = pattern_paint_in_drawer(app, b, app->next);
	else if (!app->frozen)
		band = pattern_paint(app, b, app->next);
	ivwl_client_buffer_attach(&b->base, app->win.surface);
	if (app->next == 0 || app->frozen)
		damage(app, 0, 0, app->width, app->height);
	else
		damage(app, band.x, band.y, band.w, band.h);
	app->last = b;
	ivwl_client_frame_ask(&app->frame, app->win.surface);
	wl_surface_commit(app->win.surface);
	app->next++;
}

/* Pending state the first buffer's commit applies. */
int
pattern_set_up_view(struct app *app)
{
	struct wp_viewport *viewport;

	if (app->transform != 0)
		wl_surface_set_buffer_transform(app->win.surface,
						app->transform);
	if (app->scale != 1)
		wl_surface_set_buffer_scale(app->win.surface, app->scale);
	if (!app->want_viewport)
		return 0;
	if (!app->viewporter) {
		fprintf(stderr, "pattern-client: no wp_viewporter\n");
		return -1;
	}
	viewport = wp_viewporter_get_viewport(app->viewporter,
					      app->win.surface);
	if (app->has_source)
		wp_viewport_set_source(viewport,
				       wl_fixed_from_double(app->src[0]),
				       wl_fixed_from_double(app->src[1]),
				       wl_fixed_from_double(app->src[2]),
				       wl_fixed_from_double(app->src[3]));
	if (app->has_destination)
		wp_viewport_set_destination(viewport, app->dst[0],
					    app->dst[1]);
	return 0;
}

