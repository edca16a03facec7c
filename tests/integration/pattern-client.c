/*
 * ivwl-pattern-client: a plain Wayland client (no ivwl code) that draws
 * pixels a test can predict, so what weston shows can be compared with
 * what the client drew.
 *
 *   ivwl-pattern-client [--frames N] [--width W] [--height H] [--hold-ms T]
 *
 * Frame 0 is a full frame; frames 1..N-1 each repaint one band with a new
 * colour and damage only that band, alternating two buffers, so a relay
 * that copied the wrong bytes leaves a visible mistake.  After the last
 * frame it writes the last buffer it committed to --dump (raw XRGB8888,
 * row after row), prints "ready" and keeps the window up for --hold-ms.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>

#include "xdg-shell-client-protocol.h"

static uint32_t
pattern_pixel(int x, int y, int gen)
{
	uint32_t r = (uint32_t)(x * 5 + gen * 40) & 0xff;
	uint32_t g = (uint32_t)(y * 3 + gen * 70) & 0xff;
	uint32_t b = (uint32_t)((x ^ y) + gen * 13) & 0xff;

	return 0xff000000u | r << 16 | g << 8 | b;
}

/* Frame k >= 1 repaints rows [*y, *y + *h). */
static void
pattern_band(int k, int height, int *y, int *h)
{
	*h = height / 8 > 4 ? height / 8 : 4;
	*y = ((k - 1) * 37) % (height - *h);
}

struct buffer {
	struct wl_buffer *wl;
	uint32_t *pixels;
	bool busy;
	int frame;		/* the frame whose content it holds */
};

struct app {
	struct wl_display *display;
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm_base;
	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *toplevel;
	struct buffer buffers[2];
	int width, height, frames, next;
	bool configured, frame_done;
};

static void
buffer_release(void *data, struct wl_buffer *wl)
{
	struct buffer *b = data;

	b->busy = false;
}

static const struct wl_buffer_listener buffer_listener = {
	buffer_release,
};

static int
create_buffers(struct app *app)
{
	size_t stride = (size_t)app->width * 4;
	size_t size = stride * app->height;
	struct wl_shm_pool *pool;
	uint8_t *map;
	int fd, i;

	fd = memfd_create("pattern", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, 2 * size) < 0)
		return -1;
	map = mmap(NULL, 2 * size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -1;
	pool = wl_shm_create_pool(app->shm, fd, 2 * size);
	for (i = 0; i < 2; i++) {
		app->buffers[i].pixels = (uint32_t *)(map + i * size);
		app->buffers[i].frame = -1;
		app->buffers[i].wl = wl_shm_pool_create_buffer(pool, i * size,
			app->width, app->height, stride, WL_SHM_FORMAT_XRGB8888);
		wl_buffer_add_listener(app->buffers[i].wl, &buffer_listener,
				       &app->buffers[i]);
	}
	wl_shm_pool_destroy(pool);
	close(fd);
	return 0;
}

static const struct wl_callback_listener frame_listener;

/* Brings b up to frame f: repaints what changed since its content. */
static void
paint(struct app *app, struct buffer *b, int f, int *band_y, int *band_h)
{
	int x, y, from = b->frame < 0 ? 0 : b->frame + 1, k;

	if (b->frame < 0) {
		for (y = 0; y < app->height; y++)
			for (x = 0; x < app->width; x++)
				b->pixels[y * app->width + x] =
					pattern_pixel(x, y, 0);
		from = 1;
	}
	for (k = from; k <= f; k++) {
		pattern_band(k, app->height, band_y, band_h);
		for (y = *band_y; y < *band_y + *band_h; y++)
			for (x = 0; x < app->width; x++)
				b->pixels[y * app->width + x] =
					pattern_pixel(x, y, k);
	}
	b->frame = f;
	if (f > 0)
		pattern_band(f, app->height, band_y, band_h);
}

static void
draw(struct app *app)
{
	struct buffer *b = &app->buffers[app->next % 2];
	struct wl_callback *cb;
	int band_y = 0, band_h = 0;

	if (b->busy)
		b = &app->buffers[(app->next + 1) % 2];
	paint(app, b, app->next, &band_y, &band_h);
	wl_surface_attach(app->surface, b->wl, 0, 0);
	if (app->next == 0)
		wl_surface_damage_buffer(app->surface, 0, 0, app->width,
					 app->height);
	else
		wl_surface_damage_buffer(app->surface, 0, band_y, app->width,
					 band_h);
	b->busy = true;
	cb = wl_surface_frame(app->surface);
	wl_callback_add_listener(cb, &frame_listener, app);
	wl_surface_commit(app->surface);
	app->frame_done = false;
	app->next++;
}

static void
frame_done(void *data, struct wl_callback *cb, uint32_t time)
{
	struct app *app = data;

	wl_callback_destroy(cb);
	app->frame_done = true;
}

static const struct wl_callback_listener frame_listener = { frame_done };

static void
xdg_surface_configure(void *data, struct xdg_surface *s, uint32_t serial)
{
	struct app *app = data;

	xdg_surface_ack_configure(s, serial);
	app->configured = true;
}

static const struct xdg_surface_listener xdg_surface_listener = {
	xdg_surface_configure,
};

static void
toplevel_configure(void *data, struct xdg_toplevel *t, int32_t w, int32_t h,
		   struct wl_array *states)
{
}

static void
toplevel_close(void *data, struct xdg_toplevel *t)
{
	exit(0);
}

static void
toplevel_bounds(void *data, struct xdg_toplevel *t, int32_t w, int32_t h)
{
}

static void
toplevel_capabilities(void *data, struct xdg_toplevel *t,
		      struct wl_array *caps)
{
}

static const struct xdg_toplevel_listener toplevel_listener = {
	toplevel_configure,
	toplevel_close,
	toplevel_bounds,
	toplevel_capabilities,
};

static void
wm_base_ping(void *data, struct xdg_wm_base *wm, uint32_t serial)
{
	xdg_wm_base_pong(wm, serial);
}

static const struct xdg_wm_base_listener wm_base_listener = { wm_base_ping };

static void
global(void *data, struct wl_registry *registry, uint32_t name,
       const char *interface, uint32_t version)
{
	struct app *app = data;

	if (strcmp(interface, "wl_compositor") == 0)
		app->compositor = wl_registry_bind(registry, name,
						   &wl_compositor_interface, 4);
	else if (strcmp(interface, "wl_shm") == 0)
		app->shm = wl_registry_bind(registry, name, &wl_shm_interface,
					    1);
	else if (strcmp(interface, "xdg_wm_base") == 0)
		app->wm_base = wl_registry_bind(registry, name,
						&xdg_wm_base_interface, 1);
}

static void
global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	global,
	global_remove,
};

static int
dispatch_until(struct app *app, bool *flag)
{
	while (!*flag)
		if (wl_display_dispatch(app->display) < 0)
			return -1;
	return 0;
}

static int
write_dump(struct app *app, const char *path)
{
	struct buffer *last = &app->buffers[0];
	FILE *f;
	size_t n = (size_t)app->width * app->height;

	if (app->buffers[1].frame > last->frame)
		last = &app->buffers[1];
	f = fopen(path, "wb");
	if (!f || fwrite(last->pixels, 4, n, f) != n) {
		fprintf(stderr, "pattern-client: cannot write %s\n", path);
		if (f)
			fclose(f);
		return -1;
	}
	return fclose(f);
}

/* Keeps answering the compositor (pings, releases) for hold_ms. */
static void
hold_window(struct app *app, int hold_ms)
{
	struct pollfd pfd = { wl_display_get_fd(app->display), POLLIN, 0 };
	struct timespec start, now;
	int left;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = hold_ms - (int)((now.tv_sec - start.tv_sec) * 1000 +
				       (now.tv_nsec - start.tv_nsec) / 1000000);
		if (left <= 0)
			return;
		wl_display_flush(app->display);
		if (poll(&pfd, 1, left) > 0 &&
		    wl_display_dispatch(app->display) < 0)
			return;
	}
}

int
main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "frames", required_argument, NULL, 'f' },
		{ "width", required_argument, NULL, 'w' },
		{ "height", required_argument, NULL, 'h' },
		{ "hold-ms", required_argument, NULL, 't' },
		{ "title", required_argument, NULL, 'n' },
		{ "dump", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	struct app app = { .width = 240, .height = 180, .frames = 12 };
	const char *title = "pattern", *dump = NULL;
	int hold_ms = 30000, c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'f': app.frames = atoi(optarg); break;
		case 'w': app.width = atoi(optarg); break;
		case 'h': app.height = atoi(optarg); break;
		case 't': hold_ms = atoi(optarg); break;
		case 'n': title = optarg; break;
		case 'd': dump = optarg; break;
		default: return 2;
		}
	}
	if (app.frames < 1 || app.width < 16 || app.height < 16)
		return 2;

	app.display = wl_display_connect(NULL);
	if (!app.display) {
		fprintf(stderr, "pattern-client: cannot connect: %s\n",
			strerror(errno));
		return 1;
	}
	wl_registry_add_listener(wl_display_get_registry(app.display),
				 &registry_listener, &app);
	wl_display_roundtrip(app.display);
	if (!app.compositor || !app.shm || !app.wm_base) {
		fprintf(stderr, "pattern-client: missing globals\n");
		return 1;
	}
	xdg_wm_base_add_listener(app.wm_base, &wm_base_listener, &app);
	app.surface = wl_compositor_create_surface(app.compositor);
	app.xdg_surface = xdg_wm_base_get_xdg_surface(app.wm_base, app.surface);
	xdg_surface_add_listener(app.xdg_surface, &xdg_surface_listener, &app);
	app.toplevel = xdg_surface_get_toplevel(app.xdg_surface);
	xdg_toplevel_add_listener(app.toplevel, &toplevel_listener, &app);
	xdg_toplevel_set_title(app.toplevel, title);
	wl_surface_commit(app.surface);
	if (dispatch_until(&app, &app.configured) < 0 ||
	    create_buffers(&app) < 0)
		return 1;

	while (app.next < app.frames) {
		draw(&app);
		if (dispatch_until(&app, &app.frame_done) < 0)
			return 1;
	}
	/* one more roundtrip: the last commit has been handled */
	wl_display_roundtrip(app.display);
	if (dump && write_dump(&app, dump) < 0)
		return 1;
	printf("ready\n");
	fflush(stdout);
	hold_window(&app, hold_ms);
	wl_display_disconnect(app.display);
	return 0;
}
