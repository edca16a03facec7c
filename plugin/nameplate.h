/* SPDX-License-Identifier: MIT */
#ifndef IVWL_NAMEPLATE_H
#define IVWL_NAMEPLATE_H

#include <stdint.h>

#include <cairo.h>

/*
 * The nameplate: what weston writes on a VM window's title bar, drawn
 * with cairo and pango and nothing of weston's, so that a test can draw
 * the same pixels (ivwl-nameplate).  From the left: a padlock, the VM's
 * name in bold (from weston.ini, never from the VM), then the window's
 * title as the VM set it, cleaned (ivwl_nameplate_clean) and cut with an
 * ellipsis to the width there is.  Text in black or white, whichever
 * reads better on the VM's colour.
 */
struct ivwl_nameplate {
	const char *font;	/* a pango font description: "Sans 10" */
	const char *name;	/* the VM's */
	const char *title;	/* cleaned, may be NULL */
	uint32_t argb;		/* the VM's colour */
	int max_width;		/* the bar's width */
};

/* The default font of the bar. */
#define IVWL_NAMEPLATE_FONT "Sans 10"

/* Bars are at most this high: the canvas's wide fills are (canvas.h). */
#define IVWL_NAMEPLATE_MAX_HEIGHT 32

/*
 * The bar's height for font, in pixels: the text's line and a margin,
 * at most IVWL_NAMEPLATE_MAX_HEIGHT.  -1 if pango cannot use the font.
 */
int
ivwl_nameplate_height(const char *font);

/*
 * A title made safe to show: invalid UTF-8 replaced, and every character
 * that could make it read as something else removed: controls, line and
 * paragraph separators, bidirectional embeddings, overrides, isolates
 * and marks, zero-width and other invisible characters.  Whitespace runs
 * become one space.  Returns a new string (free() it), or NULL.
 */
char *
ivwl_nameplate_clean(const char *title);

/*
 * The width of a plate with the name alone (the padlock and the name):
 * a bar is never narrower, so the name always shows whole.  -1 if pango
 * cannot use the font.
 */
int
ivwl_nameplate_min_width(const char *font, const char *name);

/*
 * The plate's pixels: an ARGB32 image of ivwl_nameplate_height(font)
 * rows, as wide as its content or max_width, whichever is less.  *natural
 * gets the width it would take uncut.  NULL on failure.
 */
cairo_surface_t *
ivwl_nameplate_draw(const struct ivwl_nameplate *plate, int *natural);

/*
 * The VM's name alone, bold, in font three times as large, on the VM's
 * colour with a margin: what X-ray shows across each of its windows.
 * NULL on failure.
 */
cairo_surface_t *
ivwl_nameplate_draw_big(const char *font, const char *name, uint32_t argb);

/* A title bar's close button: an x in the text's colour on the VM's,
 * size pixels square.  NULL on failure. */
cairo_surface_t *
ivwl_nameplate_draw_close(int size, uint32_t argb);

/* A title bar's maximize button: a square outline in the text's colour
 * on the VM's, size pixels square.  NULL on failure. */
cairo_surface_t *
ivwl_nameplate_draw_maximize(int size, uint32_t argb);

#endif
