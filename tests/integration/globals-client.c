/* SPDX-License-Identifier: MIT */
/*
 * Prints the globals its display offers, "INTERFACE VERSION" a line,
 * then "done": what a client sees, for test-globals.py.
 */
#include <stdio.h>

#include "client.h"

static void
print_global(struct ivwl_client_registry *reg, uint32_t name,
	     const char *interface, uint32_t version)
{
	printf("%s %u\n", interface, version);
}

int
main(void)
{
	struct ivwl_client_registry reg = { .other = print_global };
	struct wl_display *display;

	display = ivwl_client_connect(&reg, 1, "ivwl-globals-client");
	if (!display)
		return 1;
	printf("done\n");
	fflush(stdout);
	wl_registry_destroy(reg.wl);
	wl_display_disconnect(display);
	return 0;
}
