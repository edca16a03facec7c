/* SPDX-License-Identifier: MIT */
/*
 * ivwl-dnd-client: a plain Wayland client (no ivwl code) that takes part
 * in a drag, so a test can see whether a drag crossed between VMs.
 *
 *   ivwl-dnd-client --title T source   a button press on its window
 *                                      starts a drag of DND_MIME
 *   ivwl-dnd-client --title T target   accepts DND_MIME and reads it
 *   ivwl-dnd-client --title T paste M  reads each selection offering
 *                                      MIME type M
 *   ivwl-dnd-client --title T twice M  reads it twice through one offer
 *   ivwl-dnd-client --title T stall M  asks for it and never reads
 *
 * It prints one line per thing that happened: "enter" (a drag came in,
 * with an offer), "got PAYLOAD" (a drop was read), "dropped" (the
 * target took the source's data), "cancelled" (nobody did), "pasted N
 * bytes fnv X" (a selection read, with its FNV-1a 64 hash in hex),
 * "receiving" (a read it will never take).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "client.h"

#define DND_MIME "text/x-ivwl-dnd"
#define PAYLOAD "ivwl-dnd-payload"
#define WIDTH 160
#define HEIGHT 120

struct app {
	struct wl_display *display;
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct wl_seat *seat;
	struct wl_data_device_manager *manager;
	struct xdg_wm_base *wm_base;
	struct wl_data_device *device;
	struct wl_pointer *pointer;
	struct ivwl_client_window win;
	struct wl_buffer *buffer;
	struct wl_data_offer *offer;
	bool source;
	const char *paste;	/* the MIME type a selection is read as */
	int reads;		/* reads of one selection offer: 0 stalls */
	struct wl_data_offer *pending;	/* the last offer introduced */
	bool pending_has;	/* it offers paste */
};

static void
say(const char *what)
{
	printf("%s\n", what);
	fflush(stdout);
}

/* ---- the drag's source ----------------------------------------------- */

static void
source_target(void *data, struct wl_data_source *s, const char *mime)
{
}

static void
source_send(void *data, struct wl_data_source *s, const char *mime, int fd)
{
	if (write(fd, PAYLOAD, strlen(PAYLOAD)) < 0)
		say("send failed");
	close(fd);
}

static void
source_cancelled(void *data, struct wl_data_source *s)
{
	say("cancelled");
	wl_data_source_destroy(s);
}

static void
source_drop_performed(void *data, struct wl_data_source *s)
{
}

static void
source_finished(void *data, struct wl_data_source *s)
{
	say("dropped");
	wl_data_source_destroy(s);
}

static void
source_action(void *data, struct wl_data_source *s, uint32_t action)
{
}

static const struct wl_data_source_listener source_listener = {
	source_target, source_send, source_cancelled,
	source_drop_performed, source_finished, source_action,
};

static void
pointer_enter(void *data, struct wl_pointer *p, uint32_t serial,
	      struct wl_surface *s, wl_fixed_t x, wl_fixed_t y)
{
}

static void
pointer_leave(void *data, struct wl_pointer *p, uint32_t serial,
	      struct wl_surface *s)
{
}

static void
pointer_motion(void *data, struct wl_pointer *p, uint32_t time,
	       wl_fixed_t x, wl_fixed_t y)
{
}

static void
pointer_button(void *data, struct wl_pointer *p, uint32_t serial,
	       uint32_t time, uint32_t button, uint32_t state)
{
	struct app *app = data;
	struct wl_data_source *s;

	if (!app->source || state != WL_POINTER_BUTTON_STATE_PRESSED)
		return;
	s = wl_data_device_manager_create_data_source(app->manager);
	wl_data_source_add_listener(s, &source_listener, app);
	wl_data_source_offer(s, DND_MIME);
	wl_data_source_set_actions(s,
		WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	wl_data_device_start_drag(app->device, s, app->win.surface, NULL,
				  serial);
	say("dragging");
}

static void
pointer_axis(void *data, struct wl_pointer *p, uint32_t time,
	     uint32_t axis, wl_fixed_t value)
{
}

/* wl_seat version 3: no frame or axis details */
static const struct wl_pointer_listener pointer_listener = {
	.enter = pointer_enter,
	.leave = pointer_leave,
	.motion = pointer_motion,
	.button = pointer_button,
	.axis = pointer_axis,
};

/* ---- the drop's target ------------------------------------------------ */

static void
offer_offer(void *data, struct wl_data_offer *o, const char *mime)
{
	struct app *app = data;

	if (app->paste && o == app->pending && strcmp(mime, app->paste) == 0)
		app->pending_has = true;
}

static void
offer_source_actions(void *data, struct wl_data_offer *o, uint32_t actions)
{
}

static void
offer_action(void *data, struct wl_data_offer *o, uint32_t action)
{
}

static const struct wl_data_offer_listener offer_listener = {
	offer_offer, offer_source_actions, offer_action,
};

static void
device_data_offer(void *data, struct wl_data_device *d,
		  struct wl_data_offer *o)
{
	struct app *app = data;

	wl_data_offer_add_listener(o, &offer_listener, data);
	app->pending = o;
	app->pending_has = false;
}

static void
device_enter(void *data, struct wl_data_device *d, uint32_t serial,
	     struct wl_surface *s, wl_fixed_t x, wl_fixed_t y,
	     struct wl_data_offer *o)
{
	struct app *app = data;

	if (!o || app->source)
		return;
	say("enter");
	app->offer = o;
	wl_data_offer_accept(o, serial, DND_MIME);
	wl_data_offer_set_actions(o, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY,
				  WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
}

static void
device_leave(void *data, struct wl_data_device *d)
{
}

static void
device_motion(void *data, struct wl_data_device *d, uint32_t time,
	      wl_fixed_t x, wl_fixed_t y)
{
}

static void
device_drop(void *data, struct wl_data_device *d)
{
	struct app *app = data;
	char buf[256], line[300];
	size_t len = 0;
	ssize_t n;
	int p[2];

	if (!app->offer || pipe(p) < 0)
		return;
	wl_data_offer_receive(app->offer, DND_MIME, p[1]);
	close(p[1]);
	wl_display_flush(app->display);
	while (len < sizeof(buf) - 1 &&
	       (n = read(p[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	close(p[0]);
	buf[len] = '\0';
	snprintf(line, sizeof(line), "got %s", buf);
	say(line);
	wl_data_offer_finish(app->offer);
	wl_data_offer_destroy(app->offer);
	app->offer = NULL;
}

/* Reads one receive of the selection to its end: its size and hash. */
static void
paste_once(struct app *app, struct wl_data_offer *o)
{
	static uint8_t buf[64 << 10];
	uint64_t hash = 0xcbf29ce484222325ull;
	char line[96];
	size_t len = 0;
	ssize_t n, i;
	int p[2];

	if (pipe(p) < 0)
		return;
	wl_data_offer_receive(o, app->paste, p[1]);
	close(p[1]);
	wl_display_flush(app->display);
	if (app->reads == 0) {
		say("receiving");	/* and p[0] is never read */
		return;
	}
	while ((n = read(p[0], buf, sizeof(buf))) > 0) {
		for (i = 0; i < n; i++)
			hash = (hash ^ buf[i]) * 0x100000001b3ull;
		len += (size_t)n;
	}
	close(p[0]);
	snprintf(line, sizeof(line), "pasted %zu bytes fnv %016" PRIx64,
		 len, hash);
	say(line);
}

static void
device_selection(void *data, struct wl_data_device *d,
		 struct wl_data_offer *o)
{
	struct app *app = data;
	int i;

	if (o && app->paste && o == app->pending && app->pending_has) {
		paste_once(app, o);
		for (i = 1; i < app->reads; i++)
			paste_once(app, o);
	}
	if (o)
		wl_data_offer_destroy(o);
	app->pending = NULL;
}

static const struct wl_data_device_listener device_listener = {
	device_data_offer, device_enter, device_leave, device_motion,
	device_drop, device_selection,
};

/* ---- the window ------------------------------------------------------- */

static void
fill(uint32_t *pixels, int width, int height, void *data)
{
	uint32_t colour = *(uint32_t *)data;
	size_t i;

	for (i = 0; i < (size_t)width * height; i++)
		pixels[i] = colour;
}

int
main(int argc, char *argv[])
{
	struct app app = { 0 };
	struct ivwl_client_global globals[] = {
		IVWL_CLIENT_SHELL_GLOBALS(&app.compositor, &app.shm,
					  &app.wm_base),
		IVWL_CLIENT_GLOBAL(wl_seat_interface, 3, &app.seat),
		IVWL_CLIENT_GLOBAL(wl_data_device_manager_interface, 3,
				   &app.manager),
		{ 0 },
	};
	struct ivwl_client_registry reg = { .globals = globals };
	const char *title = "dnd";
	uint32_t colour;

	if ((argc == 4 || argc == 5) && strcmp(argv[1], "--title") == 0) {
		title = argv[2];
		app.source = strcmp(argv[3], "source") == 0;
		app.paste = argc == 5 ? argv[4] : NULL;
		app.reads = strcmp(argv[3], "twice") == 0 ? 2 :
			    strcmp(argv[3], "stall") == 0 ? 0 : 1;
	} else {
		fprintf(stderr, "usage: %s --title T source|target, or "
			"--title T paste|twice|stall MIME\n", argv[0]);
		return 2;
	}
	app.display = ivwl_client_connect(&reg, 1, "ivwl-dnd-client");
	if (!app.display)
		return 1;
	app.pointer = wl_seat_get_pointer(app.seat);
	wl_pointer_add_listener(app.pointer, &pointer_listener, &app);
	app.device = wl_data_device_manager_get_data_device(app.manager,
							    app.seat);
	wl_data_device_add_listener(app.device, &device_listener, &app);
	colour = app.source ? 0xff2080c0 : 0xffc08020;
	app.buffer = ivwl_client_fixed_buffer(app.shm, WIDTH, HEIGHT,
					      WL_SHM_FORMAT_XRGB8888,
					      "ivwl-dnd", fill, &colour);
	if (!app.buffer)
		return 1;
	ivwl_client_toplevel_init(&app.win, app.compositor, app.wm_base,
				  title, NULL);
	if (ivwl_client_window_configure(&app.win, app.display) < 0)
		return 0;
	wl_surface_attach(app.win.surface, app.buffer, 0, 0);
	wl_surface_damage_buffer(app.win.surface, 0, 0, WIDTH, HEIGHT);
	wl_surface_commit(app.win.surface);
	while (!app.win.closed && wl_display_dispatch(app.display) >= 0)
		;
	return 0;
}
