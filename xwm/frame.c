/* SPDX-License-Identifier: MIT */
/*
 * Frames (frame.h), drawn with the core protocol: no toolkit, no font
 * library; the title in the server's "fixed" font when it has one.
 *
 * A frame is a window of depth 32 (ARGB) where the server has such a
 * visual, painted opaque: Xwayland then hands weston ARGB buffers
 * whose every alpha byte is 0xff, the client's depth-24 window
 * composited into them as opaque.  A depth-24 frame gives XRGB8888
 * buffers, as X's depth 24 means, whose X byte Xwayland leaves 0, which
 * weston 10's pixman renderer copies into its output as it is: its
 * screenshots of them are transparent (weston 14's are not).
 */
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "log.h"

#define T IVWL_XWM_TITLE_HEIGHT
#define OPAQUE 0xff000000u		/* the alpha of a depth-32 pixel */
#define BAR_ACTIVE (OPAQUE | 0x2b3a4au)
#define BAR_INACTIVE (OPAQUE | 0x5a6470u)
#define INK (OPAQUE | 0xf0f0f0u)
#define CHAR_WIDTH 6			/* "fixed" is 6x13 */
#define TITLE_MAX 200u

struct ivwl_xwm_frames {
	xcb_connection_t *conn;
	xcb_screen_t *screen;
	xcb_gcontext_t gc;
	bool font;			/* "fixed" was there */
	uint8_t depth;			/* 32, or the root's */
	xcb_visualid_t visual;
	xcb_colormap_t colormap;	/* depth 32's, or 0 */
};

/* The screen's 32-bit TrueColor visual, or 0. */
static xcb_visualid_t
argb_visual(xcb_screen_t *screen)
{
	xcb_depth_iterator_t d = xcb_screen_allowed_depths_iterator(screen);
	xcb_visualtype_iterator_t v;

	for (; d.rem; xcb_depth_next(&d)) {
		if (d.data->depth != 32)
			continue;
		v = xcb_depth_visuals_iterator(d.data);
		for (; v.rem; xcb_visualtype_next(&v))
			if (v.data->_class == XCB_VISUAL_CLASS_TRUE_COLOR)
				return v.data->visual_id;
	}
	return 0;
}

/* A drawable of the frames' depth for the GC: a 1x1 pixmap. */
static xcb_drawable_t
frames_drawable(struct ivwl_xwm_frames *f)
{
	xcb_pixmap_t pixmap;

	if (f->depth != 32)
		return f->screen->root;
	pixmap = xcb_generate_id(f->conn);
	xcb_create_pixmap(f->conn, 32, pixmap, f->screen->root, 1, 1);
	return pixmap;
}

struct ivwl_xwm_frames *
ivwl_xwm_frames_create(xcb_connection_t *conn, xcb_screen_t *screen)
{
	struct ivwl_xwm_frames *f = calloc(1, sizeof(*f));
	xcb_drawable_t drawable;
	xcb_font_t font;
	xcb_generic_error_t *err;
	uint32_t values[2] = { INK, 0 };

	if (!f)
		return NULL;
	f->conn = conn;
	f->screen = screen;
	f->visual = argb_visual(screen);
	f->depth = f->visual ? 32 : screen->root_depth;
	if (f->visual) {
		f->colormap = xcb_generate_id(conn);
		xcb_create_colormap(conn, XCB_COLORMAP_ALLOC_NONE, f->colormap,
				    screen->root, f->visual);
	} else {
		f->visual = screen->root_visual;
	}
	font = xcb_generate_id(conn);
	err = xcb_request_check(conn, xcb_open_font_checked(conn, font,
					(uint16_t)strlen("fixed"), "fixed"));
	f->font = !err;
	if (err) {
		ivwl_log_error("the X server has no font \"fixed\" "
			       "(xfonts-base): frames without titles");
		free(err);
	}
	values[1] = font;
	f->gc = xcb_generate_id(conn);
	drawable = frames_drawable(f);
	xcb_create_gc(conn, f->gc, drawable, XCB_GC_FOREGROUND |
		      (f->font ? XCB_GC_FONT : 0), values);
	if (drawable != screen->root)
		xcb_free_pixmap(conn, drawable);
	if (f->font)
		xcb_close_font(conn, font);	/* the GC holds it */
	return f;
}

void
ivwl_xwm_frames_destroy(struct ivwl_xwm_frames *f)
{
	if (!f)
		return;
	xcb_free_gc(f->conn, f->gc);
	if (f->colormap)
		xcb_free_colormap(f->conn, f->colormap);
	free(f);
}

xcb_window_t
ivwl_xwm_frame_create(struct ivwl_xwm_frames *f, int16_t x, int16_t y,
		      uint16_t width, uint16_t height)
{
	xcb_window_t frame = xcb_generate_id(f->conn);
	/* in the order of their XCB_CW_ bits; a visual other than the
	 * root's needs a border pixel and a colormap of its own */
	const uint32_t values[4] = {
		BAR_INACTIVE,
		0,
		XCB_EVENT_MASK_SUBSTRUCTURE_REDIRECT |
		XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY |
		XCB_EVENT_MASK_BUTTON_PRESS | XCB_EVENT_MASK_BUTTON_RELEASE |
		XCB_EVENT_MASK_EXPOSURE,
		f->colormap,
	};

	xcb_create_window(f->conn, f->depth, frame, f->screen->root, x, y,
			  width ? width : 1, (uint16_t)(height + T), 0,
			  XCB_WINDOW_CLASS_INPUT_OUTPUT, f->visual,
			  XCB_CW_BACK_PIXEL | XCB_CW_BORDER_PIXEL |
			  XCB_CW_EVENT_MASK |
			  (f->colormap ? XCB_CW_COLORMAP : 0), values);
	return frame;
}

static void
ink(struct ivwl_xwm_frames *f, uint32_t color)
{
	xcb_change_gc(f->conn, f->gc, XCB_GC_FOREGROUND, &color);
}

/* The title as the core font draws it: ASCII, '?' for what is not. */
static uint8_t
latin_title(const char *title, char *out, uint32_t max)
{
	const unsigned char *s = (const unsigned char *)title;
	uint32_t n = 0;

	for (; *s && n < max; s++) {
		if (*s < 0x80)
			out[n++] = (char)(*s >= 0x20 ? *s : ' ');
		else if (*s >= 0xc0)	/* a UTF-8 sequence's first byte */
			out[n++] = '?';
	}
	return (uint8_t)n;
}

void
ivwl_xwm_frame_draw(struct ivwl_xwm_frames *f, xcb_window_t frame,
		    uint16_t width, const char *title, bool active)
{
	const int16_t w = (int16_t)width, m = 7;
	int16_t x = (int16_t)(w - T);
	xcb_rectangle_t bar = { 0, 0, width, T };
	xcb_rectangle_t box = { (int16_t)(w - 2 * T + m), m, T - 2 * m,
				T - 2 * m };
	xcb_segment_t cross[2] = {
		{ (int16_t)(x + m), m, (int16_t)(x + T - m), T - m },
		{ (int16_t)(x + m), T - m, (int16_t)(x + T - m), m },
	};
	char text[TITLE_MAX];
	uint32_t room = width > 2 * T + 16 ?
			(uint32_t)(width - 2 * T - 16) / CHAR_WIDTH : 0;
	uint32_t bg;
	uint8_t len;

	ink(f, active ? BAR_ACTIVE : BAR_INACTIVE);
	xcb_poly_fill_rectangle(f->conn, frame, f->gc, 1, &bar);
	ink(f, INK);
	xcb_poly_segment(f->conn, frame, f->gc, 2, cross);
	xcb_poly_rectangle(f->conn, frame, f->gc, 1, &box);
	len = latin_title(title ? title : "", text,
			  room < TITLE_MAX ? room : TITLE_MAX);
	if (f->font && len) {
		/* image text fills its box with the background first */
		bg = active ? BAR_ACTIVE : BAR_INACTIVE;
		xcb_change_gc(f->conn, f->gc, XCB_GC_BACKGROUND, &bg);
		xcb_image_text_8(f->conn, len, frame, f->gc, 8, T / 2 + 5,
				 text);
	}
}

enum ivwl_xwm_frame_part
ivwl_xwm_frame_hit(uint16_t width, int16_t x, int16_t y)
{
	if (y < 0 || y >= T || x < 0 || x >= width)
		return IVWL_XWM_FRAME_NONE;
	if (x >= width - T)
		return IVWL_XWM_FRAME_CLOSE;
	if (x >= width - 2 * T)
		return IVWL_XWM_FRAME_MAXIMIZE;
	return IVWL_XWM_FRAME_TITLE;
}
