/* SPDX-License-Identifier: MIT */
/*
 * Prints the globals its display offers, "INTERFACE VERSION" a line,
 * then "done": what a client sees, for test-globals.py.
 */
#include <stdio.h>
#include <string.h>
#include <wayland-client.h>

static void
on_global(void *data, struct wl_registry *registry, uint32_t name,
	  const char *interface, uint32_t version)
{
	printf("%s %u\n", interface, version);
}

static void
on_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	on_global,
	on_global_remove,
};

int
main(void)
{
	struct wl_display *display = wl_display_connect(NULL);
	struct wl_registry *registry;

	if (!display) {
		perror("wl_display_connect");
		return 1;
	}
	registry = wl_display_get_registry(display);
	wl_registry_add_listener(registry, &registry_listener, NULL);
	if (wl_display_roundtrip(display) < 0) {
		perror("wl_display_roundtrip");
		return 1;
	}
	printf("done\n");
	fflush(stdout);
	wl_registry_destroy(registry);
	wl_display_disconnect(display);
	return 0;
}
