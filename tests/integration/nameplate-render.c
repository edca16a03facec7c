/* SPDX-License-Identifier: MIT */
/*
 * ivwl-nameplate: draws the nameplate weston shows on a VM window's
 * title bar with the plugin's own code (plugin/nameplate.c), so that a
 * test can compare weston's screen with what it should show.
 *
 *   ivwl-nameplate --name N --color 0xAARRGGBB --width W --out F.png
 *                  [--title T] [--font F]
 *   ivwl-nameplate --big --name N --color 0xAARRGGBB --out F.png [--font F]
 *   ivwl-nameplate --close SIZE --name N --color 0xAARRGGBB --out F.png
 *   ivwl-nameplate --maximize SIZE --name N --color 0xAARRGGBB --out F.png
 *
 * The title is cleaned as the plugin cleans it.  Prints "natural N",
 * the width the plate would take uncut.  --big: the name as X-ray
 * shows it across a window; --close, --maximize: a bar's buttons, SIZE
 * square.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nameplate.h"

static int
usage(void)
{
	fprintf(stderr,
		"usage: ivwl-nameplate [--big] --name N --color "
		"0xAARRGGBB --width W --out F.png [--title T] [--font F]\n");
	return 2;
}

int
main(int argc, char *argv[])
{
	static const struct option options[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "title", required_argument, NULL, 't' },
		{ "font", required_argument, NULL, 'f' },
		{ "color", required_argument, NULL, 'c' },
		{ "width", required_argument, NULL, 'w' },
		{ "out", required_argument, NULL, 'o' },
		{ "big", no_argument, NULL, 'b' },
		{ "close", required_argument, NULL, 'x' },
		{ "maximize", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	struct ivwl_nameplate plate = { .font = IVWL_NAMEPLATE_FONT };
	const char *out = NULL;
	int big = 0, close_size = 0, maximize_size = 0;
	cairo_surface_t *s;
	char *clean, *end;
	int opt, natural;

	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (opt) {
		case 'n': plate.name = optarg; break;
		case 't': plate.title = optarg; break;
		case 'f': plate.font = optarg; break;
		case 'c':
			errno = 0;
			plate.argb = (uint32_t)strtoul(optarg, &end, 0);
			if (errno || *end)
				return usage();
			break;
		case 'w': plate.max_width = atoi(optarg); break;
		case 'o': out = optarg; break;
		case 'b': big = 1; break;
		case 'x': close_size = atoi(optarg); break;
		case 'm': maximize_size = atoi(optarg); break;
		default: return usage();
		}
	}
	if (!plate.name || !out ||
	    (!big && !close_size && !maximize_size && plate.max_width <= 0) ||
	    optind != argc)
		return usage();
	clean = ivwl_nameplate_clean(plate.title);
	plate.title = clean;
	if (close_size) {
		s = ivwl_nameplate_draw_close(close_size, plate.argb);
		natural = close_size;
	} else if (maximize_size) {
		s = ivwl_nameplate_draw_maximize(maximize_size, plate.argb);
		natural = maximize_size;
	} else if (big) {
		s = ivwl_nameplate_draw_big(plate.font, plate.name, plate.argb);
		natural = s ? cairo_image_surface_get_width(s) : 0;
	} else {
		s = ivwl_nameplate_draw(&plate, &natural);
	}
	free(clean);
	if (!s) {
		fprintf(stderr, "ivwl-nameplate: cannot draw it\n");
		return 1;
	}
	if (cairo_surface_write_to_png(s, out) != CAIRO_STATUS_SUCCESS) {
		fprintf(stderr, "ivwl-nameplate: cannot write %s\n", out);
		return 1;
	}
	cairo_surface_destroy(s);
	printf("natural %d\n", natural);
	return 0;
}
