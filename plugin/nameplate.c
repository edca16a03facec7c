/* SPDX-License-Identifier: MIT */
/* The nameplate's drawing (nameplate.h). */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <pango/pangocairo.h>

#include "nameplate.h"

#define MARGIN 4	/* above and below the text */
#define PAD 6		/* left and right, and between parts */
#define GAP 12		/* between the name and the title */
#define LOCK_W 10	/* the padlock's body */
#define LOCK_H 8

/* One line of text in font, bold or not, cut with an ellipsis where a
 * width is set. */
static PangoLayout *
plate_layout(cairo_t *cr, const char *font, const char *text, bool bold)
{
	PangoFontDescription *desc = pango_font_description_from_string(font);
	PangoLayout *layout = pango_cairo_create_layout(cr);

	if (bold)
		pango_font_description_set_weight(desc, PANGO_WEIGHT_BOLD);
	pango_layout_set_font_description(layout, desc);
	pango_layout_set_text(layout, text, -1);
	pango_layout_set_single_paragraph_mode(layout, TRUE);
	pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END);
	pango_font_description_free(desc);
	return layout;
}

/* The pixel size of text in font, bold or not. */
static void
text_size(const char *font, const char *text, bool bold, int *w, int *h)
{
	cairo_surface_t *s =
		cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
	cairo_t *cr = cairo_create(s);
	PangoLayout *layout = plate_layout(cr, font, text, bold);

	pango_layout_get_pixel_size(layout, w, h);
	g_object_unref(layout);
	cairo_destroy(cr);
	cairo_surface_destroy(s);
}

int
ivwl_nameplate_height(const char *font)
{
	int w, h;

	text_size(font, "Xg", true, &w, &h);
	if (h <= 0)
		return -1;
	h += 2 * MARGIN;
	return h > IVWL_NAMEPLATE_MAX_HEIGHT ? IVWL_NAMEPLATE_MAX_HEIGHT : h;
}

/* Characters a title may not carry (nameplate.h). */
static bool
hidden(gunichar c)
{
	switch (g_unichar_type(c)) {
	case G_UNICODE_CONTROL:
	case G_UNICODE_FORMAT:	/* bidi controls, zero-width ... */
	case G_UNICODE_LINE_SEPARATOR:
	case G_UNICODE_PARAGRAPH_SEPARATOR:
	case G_UNICODE_UNASSIGNED:
	case G_UNICODE_PRIVATE_USE:
	case G_UNICODE_SURROGATE: return true;
	default: break;
	}
	/* invisible though not of format type */
	return c == 0x115f || c == 0x1160 || c == 0x3164 || c == 0xffa0 ||
	       c == 0x2800 || (c >= 0xfe00 && c <= 0xfe0f) ||
	       (c >= 0xe0100 && c <= 0xe01ef);
}

char *
ivwl_nameplate_clean(const char *title)
{
	gchar *valid = g_utf8_make_valid(title ? title : "", -1);
	GString *out = g_string_new(NULL);
	bool space = false;
	const gchar *p;
	char *ret;

	for (p = valid; *p; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);

		if (g_unichar_isspace(c) || c == 0x3000) {
			space = out->len > 0;
			continue;
		}
		if (hidden(c))
			continue;
		if (space)
			g_string_append_c(out, ' ');
		space = false;
		g_string_append_unichar(out, c);
	}
	g_free(valid);
	ret = strdup(out->str);
	g_string_free(out, TRUE);
	return ret;
}

static double
channel(uint32_t argb, int shift)
{
	return ((argb >> shift) & 0xff) / 255.0;
}

/* Black on light colours, white on dark (relative luminance). */
static double
ink_on(double r, double g, double b)
{
	return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.5 ? 0.0 : 1.0;
}

/*
 * A w x h picture of the VM's colour argb, the ink that reads on it the
 * source to draw with: its cairo context, the surface in *s; NULL if
 * cairo cannot make it.  plate_done() ends it.
 */
static cairo_t *
plate_start(int w, int h, uint32_t argb, cairo_surface_t **s)
{
	double r = channel(argb, 16), g = channel(argb, 8);
	double b = channel(argb, 0), ink = ink_on(r, g, b);
	cairo_t *cr;

	*s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
	if (cairo_surface_status(*s) != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(*s);
		*s = NULL;
		return NULL;
	}
	cr = cairo_create(*s);
	cairo_set_source_rgb(cr, r, g, b);
	cairo_paint(cr);
	cairo_set_source_rgb(cr, ink, ink, ink);
	return cr;
}

static cairo_surface_t *
plate_done(cairo_t *cr, cairo_surface_t *s)
{
	cairo_destroy(cr);
	cairo_surface_flush(s);
	return s;
}

/* A padlock, in the text's colour, its body's top left at x, y. */
static void
draw_lock(cairo_t *cr, double x, double y)
{
	cairo_set_line_width(cr, 1.5);
	cairo_arc(cr, x + LOCK_W / 2.0, y, LOCK_W / 2.0 - 2, G_PI, 0);
	cairo_stroke(cr);
	cairo_rectangle(cr, x, y, LOCK_W, LOCK_H);
	cairo_fill(cr);
}

int
ivwl_nameplate_min_width(const char *font, const char *name)
{
	int w, h;

	text_size(font, name, true, &w, &h);
	return h > 0 ? PAD + LOCK_W + PAD + w + PAD : -1;
}

/* Shows text at x, in the middle of a bar height high, cut to width. */
static void
show_text(cairo_t *cr, const char *font, const char *text, bool bold, double x,
	  int height, int width)
{
	PangoLayout *layout = plate_layout(cr, font, text, bold);
	int w, h;

	pango_layout_set_width(layout, width * PANGO_SCALE);
	pango_layout_get_pixel_size(layout, &w, &h);
	cairo_move_to(cr, x, (height - h) / 2.0);
	pango_cairo_show_layout(cr, layout);
	g_object_unref(layout);
}

cairo_surface_t *
ivwl_nameplate_draw(const struct ivwl_nameplate *plate, int *natural)
{
	int height = ivwl_nameplate_height(plate->font);
	int text_x = PAD + LOCK_W + PAD, name_w, title_x, tw, th, width;
	bool title = plate->title && *plate->title;
	cairo_surface_t *s;
	cairo_t *cr;

	if (height < 0 || plate->max_width <= 0)
		return NULL;
	text_size(plate->font, plate->name, true, &name_w, &th);
	title_x = text_x + name_w + GAP;
	tw = 0;
	if (title)
		text_size(plate->font, plate->title, false, &tw, &th);
	*natural = (title ? title_x + tw : text_x + name_w) + PAD;
	width = *natural < plate->max_width ? *natural : plate->max_width;

	cr = plate_start(width, height, plate->argb, &s);
	if (!cr)
		return NULL;
	draw_lock(cr, PAD, (height - LOCK_H) / 2.0 + 1);
	/* the name whole where the bar has room (it has, at its least
	 * width), the title cut to what is left */
	if (width - text_x - PAD > 0)
		show_text(cr, plate->font, plate->name, true, text_x, height,
			  width - text_x - PAD);
	if (title && width - title_x - PAD > 0)
		show_text(cr, plate->font, plate->title, false, title_x, height,
			  width - title_x - PAD);
	return plate_done(cr, s);
}

cairo_surface_t *
ivwl_nameplate_draw_big(const char *font, const char *name, uint32_t argb)
{
	PangoFontDescription *desc = pango_font_description_from_string(font);
	cairo_surface_t *probe, *s = NULL;
	PangoLayout *layout;
	int tw, th, margin;
	cairo_t *cr;

	pango_font_description_set_weight(desc, PANGO_WEIGHT_BOLD);
	if (pango_font_description_get_size(desc) > 0)
		pango_font_description_set_size(
			desc, 3 * pango_font_description_get_size(desc));
	probe = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
	cr = cairo_create(probe);
	layout = pango_cairo_create_layout(cr);
	pango_layout_set_font_description(layout, desc);
	pango_layout_set_text(layout, name, -1);
	pango_layout_get_pixel_size(layout, &tw, &th);
	margin = th / 3;
	cairo_destroy(cr);
	cairo_surface_destroy(probe);
	cr = th > 0 ? plate_start(tw + 2 * margin, th + 2 * margin, argb, &s) :
		      NULL;
	if (cr) {
		cairo_move_to(cr, margin, margin);
		pango_cairo_update_layout(cr, layout);
		pango_cairo_show_layout(cr, layout);
		plate_done(cr, s);
	}
	g_object_unref(layout);
	pango_font_description_free(desc);
	return s;
}

/* A bar's button, size pixels square: what draw() strokes on the VM's
 * colour in the text's. */
static cairo_surface_t *
draw_button(int size, uint32_t argb, void (*draw)(cairo_t *cr, int size))
{
	cairo_surface_t *s;
	cairo_t *cr;

	if (size <= 0)
		return NULL;
	cr = plate_start(size, size, argb, &s);
	if (!cr)
		return NULL;
	draw(cr, size);
	return plate_done(cr, s);
}

/* an x */
static void
draw_cross(cairo_t *cr, int size)
{
	double m = size * 0.32;

	cairo_set_line_width(cr, 2.0);
	cairo_move_to(cr, m, m);
	cairo_line_to(cr, size - m, size - m);
	cairo_move_to(cr, size - m, m);
	cairo_line_to(cr, m, size - m);
	cairo_stroke(cr);
}

/* a window: a square outline, its top edge thicker */
static void
draw_window(cairo_t *cr, int size)
{
	double m = floor(size * 0.3) + 0.5;

	cairo_set_line_width(cr, 1.0);
	cairo_rectangle(cr, m, m, size - 2 * m, size - 2 * m);
	cairo_stroke(cr);
	cairo_rectangle(cr, m, m, size - 2 * m, 2.0);
	cairo_fill(cr);
}

cairo_surface_t *
ivwl_nameplate_draw_close(int size, uint32_t argb)
{
	return draw_button(size, argb, draw_cross);
}

cairo_surface_t *
ivwl_nameplate_draw_maximize(int size, uint32_t argb)
{
	return draw_button(size, argb, draw_window);
}
