/* SPDX-License-Identifier: MIT */
/*
 * The canvas: ivwl.so's own Wayland client of weston (canvas.h).  weston
 * serves it on one end of a socketpair (wl_client_create); the plugin
 * speaks libwayland-client on the other, both in weston's event loop.
 * Nothing waits on a round trip: requests are flushed as they are made,
 * and a wl_display.sync after a surface's requests says when weston has
 * them, and so when its weston_surface can be looked up.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <wayland-client.h>
#include <wayland-cursor.h>
#include <wayland-server.h>
#include <libweston/libweston.h>

#include "canvas.h"
#include "log.h"

/* weston's surface of a proxy of ours, followed until weston destroys
 * it. */
struct canvas_tie {
	struct weston_surface *surface;	/* NULL until weston has it */
	struct wl_listener destroy;
};

/* One colour in one shape: its surface, made once and shared. */
struct ivwl_fill {
	struct wl_list link;	/* ivwl_canvas.fills */
	struct ivwl_canvas *canvas;
	uint32_t argb;
	enum ivwl_fill_shape shape;
	bool asked;	/* its requests went */
	struct wl_surface *proxy;
	struct wl_buffer *buffer;
	struct wl_callback *made;
	struct canvas_tie tie;
};

/* A buffer of an image, until weston lets go of it. */
struct image_buffer {
	struct wl_list link;	/* ivwl_canvas_image.buffers */
	struct wl_buffer *buffer;
};

struct ivwl_canvas_image {
	struct wl_list link;	/* ivwl_canvas.images */
	struct ivwl_canvas *canvas;
	ivwl_canvas_shown_func_t shown;
	void *data;
	struct wl_surface *proxy;	/* NULL until first shown */
	struct wl_callback *sync;	/* after the last pixels */
	struct canvas_tie tie;
	struct wl_list buffers;
	bool input;
	/* pixels given before the canvas could send them (w * h * 4) */
	uint32_t *pending;
	int32_t pending_w, pending_h;
};

/* A seat, for the arrow over the canvas's surfaces that take clicks. */
struct canvas_seat {
	struct wl_list link;	/* ivwl_canvas.seats */
	struct ivwl_canvas *canvas;
	struct wl_seat *seat;
	struct wl_pointer *pointer;
};

struct ivwl_canvas {
	struct weston_compositor *ec;
	struct wl_client *client;	/* weston's end */
	struct wl_display *display;	/* ours */
	struct wl_event_source *source;
	struct wl_registry *registry;
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct wl_list fills;
	struct wl_list images;
	struct wl_list seats;
	struct wl_cursor_theme *theme;	/* loaded at the first enter */
	struct wl_surface *arrow;
	struct wl_cursor_image *arrow_image;
	bool failed;
	struct wl_listener client_destroy;
};

static void
canvas_fail(struct ivwl_canvas *canvas, const char *why)
{
	if (canvas->failed)
		return;
	canvas->failed = true;
	ivwl_log("ivwl's own drawing client failed (%s): frames are drawn "
		 "as solid colours, title bars without names from now on",
		 why);
	if (canvas->source) {
		wl_event_source_remove(canvas->source);
		canvas->source = NULL;
	}
}

static void
canvas_flush(struct ivwl_canvas *canvas)
{
	bool full;

	if (canvas->failed)
		return;
	full = wl_display_flush(canvas->display) < 0;
	if (full && errno != EAGAIN) {
		canvas_fail(canvas, strerror(errno));
		return;
	}
	/* what did not fit goes once the socket takes it */
	wl_event_source_fd_update(canvas->source,
				  full ? WL_EVENT_READABLE | WL_EVENT_WRITABLE :
					 WL_EVENT_READABLE);
}

/*
 * A wl_shm buffer of w x h ARGB8888 pixels, its memory mapped at *data
 * for the caller to fill and unmap (w * h * 4 bytes).
 */
static struct wl_buffer *
canvas_buffer(struct ivwl_canvas *canvas, int32_t w, int32_t h, uint32_t **data)
{
	size_t size = (size_t)w * (size_t)h * 4;
	struct wl_shm_pool *pool;
	struct wl_buffer *buffer;
	int fd;

	fd = memfd_create("ivwl-canvas", MFD_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (ftruncate(fd, (off_t)size) < 0)
		goto err_fd;
	*data = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (*data == MAP_FAILED)
		goto err_fd;
	pool = wl_shm_create_pool(canvas->shm, fd, (int32_t)size);
	close(fd);
	buffer = wl_shm_pool_create_buffer(pool, 0, w, h, w * 4,
					   WL_SHM_FORMAT_ARGB8888);
	wl_shm_pool_destroy(pool);
	return buffer;

err_fd:
	close(fd);
	return NULL;
}

/* A surface of the canvas: no role; without input, clicks go to what
 * is below it. */
static struct wl_surface *
canvas_surface(struct ivwl_canvas *canvas, bool input)
{
	struct wl_surface *surface;
	struct wl_region *none;

	surface = wl_compositor_create_surface(canvas->compositor);
	if (input)
		return surface;
	none = wl_compositor_create_region(canvas->compositor);
	wl_surface_set_input_region(surface, none);
	wl_region_destroy(none);
	return surface;
}

static void
on_tie_destroy(struct wl_listener *listener, void *data)
{
	struct canvas_tie *tie = wl_container_of(listener, tie, destroy);

	wl_list_remove(&tie->destroy.link);
	tie->surface = NULL;
}

/* Ties weston's surface of proxy, once weston has it; false (and the
 * canvas failed) if weston has none. */
static bool
tie_set(struct canvas_tie *tie, struct ivwl_canvas *canvas,
	struct wl_surface *proxy)
{
	struct wl_resource *res;

	if (tie->surface)
		return true;
	res = wl_client_get_object(canvas->client,
				   wl_proxy_get_id((struct wl_proxy *)proxy));
	if (!res) {
		canvas_fail(canvas, "weston has no surface of ours");
		return false;
	}
	tie->surface = wl_resource_get_user_data(res);
	tie->destroy.notify = on_tie_destroy;
	wl_signal_add(&tie->surface->destroy_signal, &tie->destroy);
	return true;
}

static void
tie_clear(struct canvas_tie *tie)
{
	if (tie->surface)
		wl_list_remove(&tie->destroy.link);
	tie->surface = NULL;
}

/* ---- fills --------------------------------------------------------- */

static void
on_fill_made(void *data, struct wl_callback *callback, uint32_t serial)
{
	struct ivwl_fill *fill = data;

	wl_callback_destroy(callback);
	fill->made = NULL;
	tie_set(&fill->tie, fill->canvas, fill->proxy);
}

static const struct wl_callback_listener fill_made_listener = {
	.done = on_fill_made,
};

/* A buffer of argb, premultiplied as wl_shm wants it. */
static struct wl_buffer *
fill_buffer(struct ivwl_canvas *canvas, uint32_t argb, int32_t w, int32_t h)
{
	uint32_t a = argb >> 24, pixel = a << 24, *data;
	struct wl_buffer *buffer;
	size_t i;
	int shift;

	for (shift = 0; shift < 24; shift += 8)
		pixel |= ((((argb >> shift) & 0xff) * a + 127) / 255) << shift;
	buffer = canvas_buffer(canvas, w, h, &data);
	if (!buffer)
		return NULL;
	for (i = 0; i < (size_t)w * (size_t)h; i++)
		data[i] = pixel;
	munmap(data, (size_t)w * (size_t)h * 4);
	return buffer;
}

void
ivwl_canvas_fill_size(enum ivwl_fill_shape shape, int32_t *w, int32_t *h)
{
	static const int32_t size[][2] = {
		[IVWL_FILL_WIDE] = { 4096, 32 },
		[IVWL_FILL_TALL] = { 8, 4096 },
		[IVWL_FILL_BOX] = { 512, 512 },
		[IVWL_FILL_BAR] = { 4096, 32 },
	};

	*w = size[shape][0];
	*h = size[shape][1];
}

static void
fill_ask(struct ivwl_fill *fill)
{
	struct ivwl_canvas *canvas = fill->canvas;
	int32_t w, h;

	if (fill->asked || !canvas->compositor || !canvas->shm)
		return;
	fill->asked = true;
	ivwl_canvas_fill_size(fill->shape, &w, &h);
	fill->buffer = fill_buffer(canvas, fill->argb, w, h);
	if (!fill->buffer) {
		ivwl_log("no buffer for the colour 0x%08x: %s", fill->argb,
			 strerror(errno));
		return;
	}
	fill->proxy = canvas_surface(canvas, fill->shape == IVWL_FILL_BAR);
	wl_surface_attach(fill->proxy, fill->buffer, 0, 0);
	wl_surface_damage(fill->proxy, 0, 0, w, h);
	wl_surface_commit(fill->proxy);
	fill->made = wl_display_sync(canvas->display);
	wl_callback_add_listener(fill->made, &fill_made_listener, fill);
	canvas_flush(canvas);
}

static void
fill_free(struct ivwl_fill *fill)
{
	tie_clear(&fill->tie);
	if (fill->made)
		wl_callback_destroy(fill->made);
	if (fill->buffer)
		wl_buffer_destroy(fill->buffer);
	if (fill->proxy)
		wl_surface_destroy(fill->proxy);
	wl_list_remove(&fill->link);
	free(fill);
}

struct weston_surface *
ivwl_canvas_fill(struct ivwl_canvas *canvas, uint32_t argb,
		 enum ivwl_fill_shape shape)
{
	struct ivwl_fill *fill;

	if (!canvas || canvas->failed)
		return NULL;
	wl_list_for_each(fill, &canvas->fills,
			 link) if (fill->argb == argb &&
				   fill->shape ==
					   shape) return fill->tie.surface;
	fill = calloc(1, sizeof(*fill));
	if (!fill)
		return NULL;
	fill->canvas = canvas;
	fill->argb = argb;
	fill->shape = shape;
	wl_list_insert(canvas->fills.prev, &fill->link);
	fill_ask(fill);
	return NULL;
}

/* ---- images -------------------------------------------------------- */

/* Pixels to show once the canvas has weston's globals (on_global). */
static int
image_keep(struct ivwl_canvas_image *image, const void *pixels, int32_t w,
	   int32_t h, int32_t stride)
{
	uint32_t *copy = malloc((size_t)w * (size_t)h * 4);
	int32_t y;

	if (!copy)
		return -ENOMEM;
	for (y = 0; y < h; y++)
		memcpy(copy + (size_t)y * (size_t)w,
		       (const uint8_t *)pixels + (size_t)y * (size_t)stride,
		       (size_t)w * 4);
	free(image->pending);
	image->pending = copy;
	image->pending_w = w;
	image->pending_h = h;
	return 0;
}

static void
image_buffer_free(struct image_buffer *ib)
{
	wl_buffer_destroy(ib->buffer);
	wl_list_remove(&ib->link);
	free(ib);
}

static void
on_image_buffer_release(void *data, struct wl_buffer *buffer)
{
	image_buffer_free(data);
}

static const struct wl_buffer_listener image_buffer_listener = {
	.release = on_image_buffer_release,
};

static void
on_image_shown(void *data, struct wl_callback *callback, uint32_t serial)
{
	struct ivwl_canvas_image *image = data;

	wl_callback_destroy(callback);
	image->sync = NULL;
	if (tie_set(&image->tie, image->canvas, image->proxy))
		image->shown(image->data, image->tie.surface);
}

static const struct wl_callback_listener image_shown_listener = {
	.done = on_image_shown,
};

struct ivwl_canvas_image *
ivwl_canvas_image_create(struct ivwl_canvas *canvas, bool input,
			 ivwl_canvas_shown_func_t shown, void *data)
{
	struct ivwl_canvas_image *image;

	if (!canvas || canvas->failed)
		return NULL;
	image = calloc(1, sizeof(*image));
	if (!image)
		return NULL;
	image->canvas = canvas;
	image->shown = shown;
	image->data = data;
	image->input = input;
	wl_list_init(&image->buffers);
	wl_list_insert(&canvas->images, &image->link);
	return image;
}

int
ivwl_canvas_image_show(struct ivwl_canvas_image *image, const void *pixels,
		       int32_t w, int32_t h, int32_t stride)
{
	struct ivwl_canvas *canvas = image->canvas;
	struct image_buffer *ib;
	uint32_t *data;
	int32_t y;

	if (canvas->failed)
		return -EPIPE;
	if (w <= 0 || h <= 0 || stride < w * 4)
		return -EINVAL;
	if (!canvas->compositor || !canvas->shm)
		return image_keep(image, pixels, w, h, stride);
	ib = calloc(1, sizeof(*ib));
	if (!ib)
		return -ENOMEM;
	ib->buffer = canvas_buffer(canvas, w, h, &data);
	if (!ib->buffer) {
		free(ib);
		return -errno;
	}
	for (y = 0; y < h; y++)
		memcpy(data + (size_t)y * (size_t)w,
		       (const uint8_t *)pixels + (size_t)y * (size_t)stride,
		       (size_t)w * 4);
	munmap(data, (size_t)w * (size_t)h * 4);
	wl_buffer_add_listener(ib->buffer, &image_buffer_listener, ib);
	wl_list_insert(&image->buffers, &ib->link);
	if (!image->proxy)
		image->proxy = canvas_surface(canvas, image->input);
	wl_surface_attach(image->proxy, ib->buffer, 0, 0);
	wl_surface_damage(image->proxy, 0, 0, w, h);
	wl_surface_commit(image->proxy);
	/* a sync out now would come before these pixels: one made after */
	if (image->sync)
		wl_callback_destroy(image->sync);
	image->sync = wl_display_sync(canvas->display);
	wl_callback_add_listener(image->sync, &image_shown_listener, image);
	canvas_flush(canvas);
	return 0;
}

int
ivwl_canvas_image_show_cairo(struct ivwl_canvas_image *image,
			     cairo_surface_t *pixels)
{
	return ivwl_canvas_image_show(image, cairo_image_surface_get_data(pixels),
				      cairo_image_surface_get_width(pixels),
				      cairo_image_surface_get_height(pixels),
				      cairo_image_surface_get_stride(pixels));
}

struct weston_surface *
ivwl_canvas_image_surface(struct ivwl_canvas_image *image)
{
	return image ? image->tie.surface : NULL;
}

void
ivwl_canvas_image_destroy(struct ivwl_canvas_image *image)
{
	struct image_buffer *ib, *tmp;

	if (!image)
		return;
	tie_clear(&image->tie);
	if (image->sync)
		wl_callback_destroy(image->sync);
	wl_list_for_each_safe(ib, tmp, &image->buffers, link)
		image_buffer_free(ib);
	if (image->proxy)
		wl_surface_destroy(image->proxy);
	canvas_flush(image->canvas);
	wl_list_remove(&image->link);
	free(image->pending);
	free(image);
}

/* ---- the pointer over the canvas ---------------------------------- */

/* The theme's arrow on a surface of ours; false without a theme. */
static bool
arrow_ready(struct ivwl_canvas *canvas)
{
	struct wl_cursor *cursor;

	if (canvas->arrow)
		return true;
	if (!canvas->theme)
		canvas->theme = wl_cursor_theme_load(NULL, 24, canvas->shm);
	cursor = canvas->theme ?
			 wl_cursor_theme_get_cursor(canvas->theme, "left_ptr") :
			 NULL;
	if (!cursor || cursor->image_count == 0)
		return false;
	canvas->arrow_image = cursor->images[0];
	canvas->arrow = wl_compositor_create_surface(canvas->compositor);
	wl_surface_attach(canvas->arrow,
			  wl_cursor_image_get_buffer(canvas->arrow_image), 0,
			  0);
	wl_surface_damage(canvas->arrow, 0, 0,
			  (int32_t)canvas->arrow_image->width,
			  (int32_t)canvas->arrow_image->height);
	wl_surface_commit(canvas->arrow);
	return true;
}

static void
on_pointer_enter(void *data, struct wl_pointer *pointer, uint32_t serial,
		 struct wl_surface *surface, wl_fixed_t x, wl_fixed_t y)
{
	struct canvas_seat *cs = data;
	struct ivwl_canvas *canvas = cs->canvas;

	if (!arrow_ready(canvas)) {
		wl_pointer_set_cursor(pointer, serial, NULL, 0, 0);
		return;
	}
	wl_pointer_set_cursor(pointer, serial, canvas->arrow,
			      (int32_t)canvas->arrow_image->hotspot_x,
			      (int32_t)canvas->arrow_image->hotspot_y);
}

static void
on_pointer_leave(void *data, struct wl_pointer *pointer, uint32_t serial,
		 struct wl_surface *surface)
{
}

static void
on_pointer_motion(void *data, struct wl_pointer *pointer, uint32_t time,
		  wl_fixed_t x, wl_fixed_t y)
{
}

static void
on_pointer_button(void *data, struct wl_pointer *pointer, uint32_t serial,
		  uint32_t time, uint32_t button, uint32_t state)
{
}

static void
on_pointer_axis(void *data, struct wl_pointer *pointer, uint32_t time,
		uint32_t axis, wl_fixed_t value)
{
}

/* wl_seat version 1: the events of wl_pointer version 1 */
static const struct wl_pointer_listener pointer_listener = {
	.enter = on_pointer_enter,
	.leave = on_pointer_leave,
	.motion = on_pointer_motion,
	.button = on_pointer_button,
	.axis = on_pointer_axis,
};

static void
on_seat_caps(void *data, struct wl_seat *seat, uint32_t caps)
{
	struct canvas_seat *cs = data;

	if ((caps & WL_SEAT_CAPABILITY_POINTER) && !cs->pointer) {
		cs->pointer = wl_seat_get_pointer(seat);
		wl_pointer_add_listener(cs->pointer, &pointer_listener, cs);
	} else if (!(caps & WL_SEAT_CAPABILITY_POINTER) && cs->pointer) {
		wl_pointer_destroy(cs->pointer);
		cs->pointer = NULL;
	}
}

static const struct wl_seat_listener seat_listener = {
	.capabilities = on_seat_caps,
};

static void
seat_add(struct ivwl_canvas *canvas, struct wl_registry *registry,
	 uint32_t name)
{
	struct canvas_seat *cs = calloc(1, sizeof(*cs));

	if (!cs)
		return;
	cs->canvas = canvas;
	cs->seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
	wl_seat_add_listener(cs->seat, &seat_listener, cs);
	wl_list_insert(&canvas->seats, &cs->link);
}

static void
seats_free(struct ivwl_canvas *canvas)
{
	struct canvas_seat *cs, *tmp;

	wl_list_for_each_safe(cs, tmp, &canvas->seats, link)
	{
		if (cs->pointer)
			wl_pointer_destroy(cs->pointer);
		wl_seat_destroy(cs->seat);
		wl_list_remove(&cs->link);
		free(cs);
	}
	if (canvas->arrow)
		wl_surface_destroy(canvas->arrow);
	if (canvas->theme)
		wl_cursor_theme_destroy(canvas->theme);
}

/* ---- the connection ------------------------------------------------ */

static void
on_global(void *data, struct wl_registry *registry, uint32_t name,
	  const char *interface, uint32_t version)
{
	struct ivwl_canvas *canvas = data;
	struct ivwl_canvas_image *image, *tmp;
	struct ivwl_fill *fill;
	uint32_t *pixels;

	if (strcmp(interface, wl_seat_interface.name) == 0) {
		seat_add(canvas, registry, name);
		return;
	}
	if (strcmp(interface, wl_compositor_interface.name) == 0 &&
	    !canvas->compositor)
		canvas->compositor =
			wl_registry_bind(registry, name,
					 &wl_compositor_interface, 1);
	else if (strcmp(interface, wl_shm_interface.name) == 0 && !canvas->shm)
		canvas->shm =
			wl_registry_bind(registry, name, &wl_shm_interface, 1);
	else
		return;
	wl_list_for_each(fill, &canvas->fills, link) fill_ask(fill);
	if (!canvas->compositor || !canvas->shm)
		return;
	wl_list_for_each_safe(image, tmp, &canvas->images, link)
	{
		pixels = image->pending;
		if (!pixels)
			continue;
		image->pending = NULL;
		ivwl_canvas_image_show(image, pixels, image->pending_w,
				       image->pending_h, image->pending_w * 4);
		free(pixels);
	}
}

static void
on_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = on_global,
	.global_remove = on_global_remove,
};

static int
on_events(int fd, uint32_t mask, void *data)
{
	struct ivwl_canvas *canvas = data;

	if (mask & (WL_EVENT_HANGUP | WL_EVENT_ERROR)) {
		canvas_fail(canvas, "weston closed its connection");
		return 0;
	}
	if ((mask & WL_EVENT_READABLE) &&
	    wl_display_prepare_read(canvas->display) == 0 &&
	    wl_display_read_events(canvas->display) < 0) {
		canvas_fail(canvas, strerror(errno));
		return 0;
	}
	if (wl_display_dispatch_pending(canvas->display) < 0) {
		canvas_fail(canvas,
			    strerror(wl_display_get_error(canvas->display)));
		return 0;
	}
	canvas_flush(canvas);
	return 0;
}

/* weston ended its end (a protocol error of ours, or its shutdown). */
static void
on_client_destroy(struct wl_listener *listener, void *data)
{
	struct ivwl_canvas *canvas =
		wl_container_of(listener, canvas, client_destroy);

	wl_list_remove(&canvas->client_destroy.link);
	canvas->client = NULL;
	canvas_fail(canvas, "weston ended it");
}

struct ivwl_canvas *
ivwl_canvas_create(struct weston_compositor *ec)
{
	struct wl_event_loop *loop = wl_display_get_event_loop(ec->wl_display);
	struct ivwl_canvas *canvas = calloc(1, sizeof(*canvas));
	int sv[2];

	if (!canvas)
		return NULL;
	canvas->ec = ec;
	wl_list_init(&canvas->fills);
	wl_list_init(&canvas->images);
	wl_list_init(&canvas->seats);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		goto err_free;
	canvas->client = wl_client_create(ec->wl_display, sv[0]);
	if (!canvas->client) {
		close(sv[0]);
		close(sv[1]);
		goto err_free;
	}
	canvas->client_destroy.notify = on_client_destroy;
	wl_client_add_destroy_listener(canvas->client, &canvas->client_destroy);
	canvas->display = wl_display_connect_to_fd(sv[1]);
	if (!canvas->display) {
		close(sv[1]);
		goto err_client;
	}
	canvas->source = wl_event_loop_add_fd(loop, sv[1], WL_EVENT_READABLE,
					      on_events, canvas);
	if (!canvas->source)
		goto err_display;
	canvas->registry = wl_display_get_registry(canvas->display);
	wl_registry_add_listener(canvas->registry, &registry_listener, canvas);
	canvas_flush(canvas);
	return canvas;

err_display:
	wl_display_disconnect(canvas->display);
err_client:
	wl_list_remove(&canvas->client_destroy.link);
	wl_client_destroy(canvas->client);
err_free:
	ivwl_log("no drawing client of ivwl's own (%s): frames are drawn as "
		 "solid colours, title bars without names",
		 strerror(errno));
	free(canvas);
	return NULL;
}

/*
 * At compositor shutdown: weston destroys its end of the client (and
 * the surfaces, with the views on them) with its other clients.
 */
void
ivwl_canvas_destroy(struct ivwl_canvas *canvas)
{
	struct ivwl_canvas_image *image, *itmp;
	struct ivwl_fill *fill, *ftmp;

	if (!canvas)
		return;
	/* their owners went first; what is left goes with the canvas */
	wl_list_for_each_safe(image, itmp, &canvas->images, link)
		ivwl_canvas_image_destroy(image);
	wl_list_for_each_safe(fill, ftmp, &canvas->fills, link) fill_free(fill);
	seats_free(canvas);
	if (canvas->client)
		wl_list_remove(&canvas->client_destroy.link);
	if (canvas->source)
		wl_event_source_remove(canvas->source);
	if (canvas->compositor)
		wl_compositor_destroy(canvas->compositor);
	if (canvas->shm)
		wl_shm_destroy(canvas->shm);
	wl_registry_destroy(canvas->registry);
	wl_display_disconnect(canvas->display);
	free(canvas);
}
