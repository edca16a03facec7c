/* SPDX-License-Identifier: MIT */
/*
 * Every wl_shm format in wayland.xml: the table in
 * protocol/wayland/shm-format.c knows it under the same name and the
 * pixel size its name says, or not at all; and the plugin takes a buffer
 * in exactly the formats the table knows (the relay copies by the same
 * table, so the two sides agree).
 * $WAYLAND_XML names the wayland.xml the build used.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw-fixture.h"
#include "harness.h"
#include "shm-format.h"

struct xml_format {
	char name[32];
	uint32_t value;
};

/* The entries of wl_shm's enum "format", in order. */
static size_t
read_formats(struct xml_format *out, size_t max)
{
	const char *path = getenv("WAYLAND_XML");
	char *text, *p, *end;
	size_t n = 0;
	long size;
	FILE *f;

	REQUIRE(path && (f = fopen(path, "r")));
	REQUIRE(fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0);
	rewind(f);
	REQUIRE((text = calloc(1, (size_t)size + 1)));
	REQUIRE(fread(text, 1, (size_t)size, f) == (size_t)size);
	fclose(f);

	REQUIRE((p = strstr(text, "<interface name=\"wl_shm\"")));
	REQUIRE((p = strstr(p, "<enum name=\"format\"")));
	REQUIRE((end = strstr(p, "</enum>")));
	while ((p = strstr(p, "<entry name=\"")) && p < end) {
		char *q = p + strlen("<entry name=\"");
		size_t len = strcspn(q, "\"");

		REQUIRE(n < max && len < sizeof(out[n].name));
		memcpy(out[n].name, q, len);
		out[n].name[len] = '\0';
		REQUIRE((q = strstr(q, "value=\"")));
		out[n].value =
			(uint32_t)strtoul(q + strlen("value=\""), NULL, 0);
		n++;
		p = q;
	}
	free(text);
	return n;
}

/*
 * Bits per pixel a packed RGB format's name says ("argb8888": 32,
 * "xrgb2101010": 32, "rgb565": 16), or 0 when the name is of another
 * kind (YUV, planar, 64-bit ...).
 */
static uint32_t
bits_of_name(const char *name)
{
	size_t letters = strspn(name, "argbx"), digits = strlen(name) - letters;
	const char *d = name + letters;
	uint32_t bits = 0;
	size_t i;

	if (letters < 3 || strspn(d, "0123456789") != digits)
		return 0;
	if (digits == letters) {
		for (i = 0; i < digits; i++)
			bits += (uint32_t)(d[i] - '0');
	} else if (letters == 4 && digits == 7) {
		bits = (uint32_t)(d[0] - '0') + 3 * 10;
		if (strcmp(d + 1, "101010") != 0)
			return 0;
	}
	return bits;
}

static void
test_table_matches_wayland_xml(void)
{
	static struct xml_format xml[256];
	size_t n = read_formats(xml, 256), i, known = 0;

	CHECK(n > 50);
	for (i = 0; i < n; i++) {
		uint32_t bpp = ivwl_shm_format_bpp(xml[i].value);
		const char *name = ivwl_shm_format_name(xml[i].value);

		if (bpp == 0) {
			CHECK(name == NULL);
			continue;
		}
		known++;
		if (!name || strcmp(name, xml[i].name) != 0) {
			fprintf(stderr,
				"0x%08x: table says %s, wayland.xml %s\n",
				xml[i].value, name ? name : "nothing",
				xml[i].name);
			ivwl_test_failures++;
		}
		if (bpp * 8 != bits_of_name(xml[i].name)) {
			fprintf(stderr, "%s: %u bytes a pixel in the table\n",
				xml[i].name, bpp);
			ivwl_test_failures++;
		}
	}
	/* the table holds nothing wayland.xml does not */
	CHECK_EQ(known, 13);
}

static void
test_plugin_takes_what_the_table_knows(void)
{
	static struct xml_format xml[256];
	size_t n = read_formats(xml, 256), i;
	struct ivwl_vm *vm = vm_new();
	struct conn *c = conn_open(vm);
	uint32_t pool = new_id(c);

	PASS(c, create_pool(c, pool));
	for (i = 0; i < n; i++) {
		uint32_t buffer = new_id(c);
		int ret;

		/* 4 by 4 pixels at 16 bytes a row: every packed format fits */
		ret = req(c, pool, IVWL_REQ_WL_SHM_POOL_CREATE_BUFFER, "niiiiu",
			  buffer, 0, 4, 4, 16, xml[i].value);
		if ((ret == 0) != (ivwl_shm_format_bpp(xml[i].value) != 0)) {
			fprintf(stderr, "%s: the plugin says %d (%s)\n",
				xml[i].name, ret, c->why);
			ivwl_test_failures++;
		}
		if (ret != 0) {
			/* a refused request ends the connection */
			conn_close(c);
			c = conn_open(vm);
			pool = new_id(c);
			PASS(c, create_pool(c, pool));
		}
	}
	conn_close(c);
	vm_free(vm);
}

IVWL_TEST_MAIN(TEST(test_table_matches_wayland_xml),
	       TEST(test_plugin_takes_what_the_table_knows))
