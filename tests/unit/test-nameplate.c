/* SPDX-License-Identifier: MIT */
/*
 * The nameplate weston draws on a VM window's title bar
 * (plugin/nameplate.c): what of a VM's title may show, and the plate's
 * size and colours.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "nameplate.h"

static void
check_clean(const char *title, const char *want)
{
	char *got = ivwl_nameplate_clean(title);

	CHECK(got != NULL);
	if (got && strcmp(got, want) != 0) {
		fprintf(stderr, "clean(\"%s\") = \"%s\", want \"%s\"\n", title,
			got, want);
		ivwl_test_failures++;
	}
	free(got);
}

static void
test_clean_keeps_text(void)
{
	check_clean("Firefox", "Firefox");
	check_clean("Übersicht – Café 東京", "Übersicht – Café 東京");
	check_clean("", "");
	check_clean(NULL, "");
}

static void
test_clean_whitespace(void)
{
	check_clean("  a \t b\n\nc  ", "a b c");
	check_clean("a\u2028b\u2029c", "a b c");	/* separators */
	check_clean("a\u3000b", "a b");
}

static void
test_clean_bidi(void)
{
	/* an override that would show "[bank]" read backwards */
	check_clean("\u202e]knab[\u202c", "]knab[");
	check_clean("\u2066[bank]\u2069 x", "[bank] x");
	check_clean("a\u200eb\u200fc\u061cd", "abcd");
	check_clean("\u202a\u202b\u202d\u2067\u2068x", "x");
}

static void
test_clean_invisible(void)
{
	check_clean("b\u200ba\u200cn\u200dk\u2060\ufeff", "bank");
	check_clean("x\u3164y\u115fz", "xyz");		/* fillers */
	check_clean("e\ufe0f\U000e0101", "e");		/* selectors */
	check_clean("a\U000e0041b", "ab");		/* tag characters */
	check_clean("a\x01\x1b[31mb\x7f", "a[31mb");	/* controls */
	check_clean("a\xc2\x85"
		    "b",
		    "ab");		/* NEL, a control */
	check_clean("a\ue000b", "ab");	/* private use */
}

static void
test_clean_invalid_utf8(void)
{
	check_clean("a\xffz", "a\xef\xbf\xbdz");
	check_clean("\xc3", "\xef\xbf\xbd");
}

static void
test_height(void)
{
	int h = ivwl_nameplate_height(IVWL_NAMEPLATE_FONT);

	CHECK(h >= 12 && h <= IVWL_NAMEPLATE_MAX_HEIGHT);
	CHECK_EQ(ivwl_nameplate_height("Sans 60"), IVWL_NAMEPLATE_MAX_HEIGHT);
}

static uint32_t
at(cairo_surface_t *s, int x, int y)
{
	const uint8_t *row = cairo_image_surface_get_data(s) +
			     (size_t)y * cairo_image_surface_get_stride(s);

	return ((const uint32_t *)row)[x];
}

/* Pixels of a colour other than the background: the ink drawn. */
static int
ink(cairo_surface_t *s, uint32_t bg)
{
	int x, y, n = 0;

	for (y = 0; y < cairo_image_surface_get_height(s); y++)
		for (x = 0; x < cairo_image_surface_get_width(s); x++)
			n += at(s, x, y) != bg;
	return n;
}

static void
test_draw(void)
{
	struct ivwl_nameplate plate = {
		.font = IVWL_NAMEPLATE_FONT,
		.name = "work",
		.title = "Firefox",
		.argb = 0xff3070c0,
		.max_width = 2000,
	};
	cairo_surface_t *wide, *cut, *other;
	int natural, natural_cut, n;

	wide = ivwl_nameplate_draw(&plate, &natural);
	REQUIRE(wide != NULL);
	CHECK_EQ(cairo_image_surface_get_width(wide), natural);
	CHECK_EQ(cairo_image_surface_get_height(wide),
		 ivwl_nameplate_height(IVWL_NAMEPLATE_FONT));
	CHECK(natural > 40 && natural < 400);
	/* the VM's colour all around, opaque */
	CHECK_EQ(at(wide, 0, 0), 0xff3070c0);
	CHECK_EQ(at(wide, natural - 1,
		    cairo_image_surface_get_height(wide) - 1),
		 0xff3070c0);
	n = ink(wide, 0xff3070c0);
	CHECK(n > 100);

	plate.max_width = natural / 2;
	cut = ivwl_nameplate_draw(&plate, &natural_cut);
	REQUIRE(cut != NULL);
	CHECK_EQ(natural_cut, natural);
	CHECK_EQ(cairo_image_surface_get_width(cut), natural / 2);

	plate.max_width = 2000;
	plate.title = "Firefox — bank";
	other = ivwl_nameplate_draw(&plate, &natural_cut);
	REQUIRE(other != NULL);
	CHECK(natural_cut > natural);
	CHECK(ink(other, 0xff3070c0) > n);

	/* a light colour gets dark ink: the ink is darker than it */
	plate.argb = 0xfff0e060;
	cairo_surface_destroy(other);
	other = ivwl_nameplate_draw(&plate, &natural_cut);
	REQUIRE(other != NULL);
	CHECK(ink(other, 0xfff0e060) > 100);

	plate.max_width = 0;
	CHECK(ivwl_nameplate_draw(&plate, &natural_cut) == NULL);
	cairo_surface_destroy(wide);
	cairo_surface_destroy(cut);
	cairo_surface_destroy(other);
}

/* At its least width a plate still shows the whole name: the same
 * pixels as an uncut plate, up to the end of the name. */
static void
test_name_whole(void)
{
	struct ivwl_nameplate plate = {
		.font = IVWL_NAMEPLATE_FONT,
		.name = "work",
		.title = "a long title that does not fit",
		.argb = 0xff3070c0,
		.max_width = 2000,
	};
	int min = ivwl_nameplate_min_width(IVWL_NAMEPLATE_FONT, "work");
	cairo_surface_t *wide, *least;
	int natural, x, y, differ = 0;

	REQUIRE(min > 20);
	wide = ivwl_nameplate_draw(&plate, &natural);
	plate.max_width = min;
	least = ivwl_nameplate_draw(&plate, &natural);
	REQUIRE(wide && least);
	CHECK_EQ(cairo_image_surface_get_width(least), min);
	for (y = 0; y < cairo_image_surface_get_height(least); y++)
		for (x = 0; x < min; x++)
			differ += at(wide, x, y) != at(least, x, y);
	CHECK_EQ(differ, 0);
	/* narrower, and the name is cut */
	cairo_surface_destroy(least);
	plate.max_width = min - 8;
	least = ivwl_nameplate_draw(&plate, &natural);
	REQUIRE(least);
	differ = 0;
	for (y = 0; y < cairo_image_surface_get_height(least); y++)
		for (x = 0; x < min - 8; x++)
			differ += at(wide, x, y) != at(least, x, y);
	CHECK(differ > 0);
	cairo_surface_destroy(wide);
	cairo_surface_destroy(least);
}

IVWL_TEST_MAIN({ "clean keeps text", test_clean_keeps_text },
	       { "clean whitespace", test_clean_whitespace },
	       { "clean bidi", test_clean_bidi },
	       { "clean invisible", test_clean_invisible },
	       { "clean invalid utf8", test_clean_invalid_utf8 },
	       { "height", test_height }, { "draw", test_draw },
	       { "name whole", test_name_whole }, )
