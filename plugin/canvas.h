/* SPDX-License-Identifier: MIT */
#ifndef IVWL_CANVAS_H
#define IVWL_CANVAS_H

#include <stdbool.h>
#include <stdint.h>

#include <cairo.h>

struct weston_compositor;
struct weston_surface;
struct ivwl_canvas;

/*
 * Pixels ivwl.so draws itself go through weston as any client's do: a
 * Wayland client of weston inside weston's own process, on a socketpair,
 * whose wl_shm buffers every renderer shows as they are.  (Solid-colour
 * surfaces are not drawn alike everywhere: bookworm's llvmpipe shows
 * weston 10's with their channels shifted by one.)  Its surfaces have no
 * role; the plugin gives them views.  Clicks go through those that take
 * no input; over the others the pointer shows the cursor theme's arrow.
 *
 * NULL when weston would not take the client (it is logged); the
 * plugin then draws its frames as solid colours.
 */
struct ivwl_canvas *
ivwl_canvas_create(struct weston_compositor *ec);

void
ivwl_canvas_destroy(struct ivwl_canvas *canvas);

/*
 * A fill is a surface of one colour, shared by every view shown in that
 * colour: a view scales it to its size.  Its shape is as large as the
 * strips it serves, so that they are scaled down, never up: weston 10's
 * pixman renderer lets what lies outside a scaled-up buffer bleed into
 * its edges.
 */
enum ivwl_fill_shape {
	IVWL_FILL_WIDE,	/* 4096 x 32: top, bottom, title bars */
	IVWL_FILL_TALL,	/* 8 x 4096: the sides */
	IVWL_FILL_BOX,	/* 512 x 512: over a whole window */
	IVWL_FILL_BAR,	/* 4096 x 32, and clicks go to it */
};

/* The size of a fill of shape (canvas.c). */
void
ivwl_canvas_fill_size(enum ivwl_fill_shape shape, int32_t *w, int32_t *h);

/*
 * The fill of colour argb (0xAARRGGBB, straight alpha) and shape.  NULL
 * until weston has made it: it is asked for now and made within a turn
 * of weston's event loop, so ask early (at start, for colours known
 * then).  Also NULL once the canvas failed, or without a canvas.
 */
struct weston_surface *
ivwl_canvas_fill(struct ivwl_canvas *canvas, uint32_t argb,
		 enum ivwl_fill_shape shape);

/*
 * An image: a surface of the canvas whose pixels the plugin draws and
 * draws again.  shown(data, surface) comes once weston has the pixels
 * last given (within a turn of weston's event loop), with the
 * surface that shows them, the same one each time; the plugin gives it
 * a view.  The surface may go with weston's shutdown or the canvas's
 * failure: watch its destroy signal.
 */
struct ivwl_canvas_image;

typedef void (*ivwl_canvas_shown_func_t)(void *data,
					 struct weston_surface *surface);

/* input: clicks go to it (a title bar's), else to what is below. */
struct ivwl_canvas_image *
ivwl_canvas_image_create(struct ivwl_canvas *canvas, bool input,
			 ivwl_canvas_shown_func_t shown, void *data);

/* Its surface to show w x h of ARGB32 pixels (premultiplied, as cairo
 * draws them), copied; -errno if they cannot be. */
int
ivwl_canvas_image_show(struct ivwl_canvas_image *image, const void *pixels,
		       int32_t w, int32_t h, int32_t stride);

/* ivwl_canvas_image_show() of a cairo ARGB32 image's pixels (the
 * caller keeps them). */
int
ivwl_canvas_image_show_cairo(struct ivwl_canvas_image *image,
			     cairo_surface_t *pixels);

/* The surface that shows it, NULL until it first showed. */
struct weston_surface *
ivwl_canvas_image_surface(struct ivwl_canvas_image *image);

void
ivwl_canvas_image_destroy(struct ivwl_canvas_image *image);

#endif
