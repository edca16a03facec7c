/* SPDX-License-Identifier: MIT */
/*
 * The test clients' shared Wayland code (client.h says what is here).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "client.h"

/* ---- globals ---------------------------------------------------------- */

static void
wm_base_ping(void *data, struct xdg_wm_base *wm_base, uint32_t serial)
{
	xdg_wm_base_pong(wm_base, serial);
}

const struct xdg_wm_base_listener ivwl_client_wm_base_listener = {
	wm_base_ping,
};

/* The proxy a global's slot holds: a pointer of the client's type. */
static void *
global_proxy(const struct ivwl_client_global *g)
{
	void *proxy;

	memcpy(&proxy, g->proxy, sizeof(proxy));
	return proxy;
}

bool
ivwl_client_bind_global(struct wl_registry *registry,
			struct ivwl_client_global *globals, uint32_t name,
			const char *interface, uint32_t version)
{
	struct ivwl_client_global *g;
	void *proxy;

	for (g = globals; g && g->interface; g++)
		if (strcmp(interface, g->interface->name) == 0 &&
		    !global_proxy(g))
			break;
	if (!g || !g->interface)
		return false;
	proxy = wl_registry_bind(registry, name, g->interface,
				 version < g->version ? version : g->version);
	memcpy(g->proxy, &proxy, sizeof(proxy));
	if (proxy && g->listener)
		wl_proxy_add_listener(proxy, (void (**)(void))g->listener,
				      g->data);
	return true;
}

static void
registry_global(void *data, struct wl_registry *registry, uint32_t name,
		const char *interface, uint32_t version)
{
	struct ivwl_client_registry *reg = data;

	if (!ivwl_client_bind_global(registry, reg->globals, name, interface,
				     version) && reg->other)
		reg->other(reg, name, interface, version);
}

static void
registry_global_remove(void *data, struct wl_registry *registry,
		       uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	registry_global,
	registry_global_remove,
};

int
ivwl_client_check_globals(const struct ivwl_client_global *globals,
			  const char *who)
{
	const struct ivwl_client_global *g;

	for (g = globals; g && g->interface; g++) {
		if (!g->optional && !global_proxy(g)) {
			fprintf(stderr, "%s: missing global %s (version %u)\n",
				who, g->interface->name, g->version);
			return -1;
		}
	}
	return 0;
}

/* Binds reg's globals: -1 when the display goes or one is missing. */
static int
registry_init(struct ivwl_client_registry *reg, struct wl_display *display,
	      int roundtrips, const char *who)
{
	int i;

	reg->wl = wl_display_get_registry(display);
	wl_registry_add_listener(reg->wl, &registry_listener, reg);
	for (i = 0; i < roundtrips; i++) {
		if (wl_display_roundtrip(display) < 0) {
			fprintf(stderr, "%s: the display went: %s\n", who,
				strerror(wl_display_get_error(display)));
			return -1;
		}
	}
	return ivwl_client_check_globals(reg->globals, who);
}

struct wl_display *
ivwl_client_connect(struct ivwl_client_registry *reg, int roundtrips,
		    const char *who)
{
	struct wl_display *display = wl_display_connect(NULL);

	if (!display) {
		fprintf(stderr, "%s: cannot connect: %s\n", who,
			strerror(errno));
		return NULL;
	}
	if (reg && registry_init(reg, display, roundtrips, who) < 0) {
		wl_display_disconnect(display);
		return NULL;
	}
	return display;
}

/* ---- windows ---------------------------------------------------------- */

static void
xdg_surface_configure(void *data, struct xdg_surface *xdg_surface,
		      uint32_t serial)
{
	struct ivwl_client_window *win = data;

	xdg_surface_ack_configure(xdg_surface, serial);
	win->configured = true;
}

static const struct xdg_surface_listener xdg_surface_listener = {
	xdg_surface_configure,
};

static void
toplevel_configure(void *data, struct xdg_toplevel *toplevel, int32_t width,
		   int32_t height, struct wl_array *states)
{
	struct ivwl_client_window *win = data;

	/* 0 x 0: the client's own size (after fullscreen, say) */
	win->width = width > 0 && height > 0 ? width : 0;
	win->height = width > 0 && height > 0 ? height : 0;
}

static void
toplevel_close(void *data, struct xdg_toplevel *toplevel)
{
	struct ivwl_client_window *win = data;

	win->closed = true;
	if (win->close)
		win->close(win);
}

/* Bound at version 1 to 3: configure_bounds and wm_capabilities never
 * come. */
static const struct xdg_toplevel_listener toplevel_listener = {
	.configure = toplevel_configure,
	.close = toplevel_close,
};

void
ivwl_client_window_init(struct ivwl_client_window *win,
			struct wl_compositor *compositor,
			struct xdg_wm_base *wm_base)
{
	memset(win, 0, sizeof(*win));
	win->surface = wl_compositor_create_surface(compositor);
	win->xdg_surface = xdg_wm_base_get_xdg_surface(wm_base, win->surface);
	xdg_surface_add_listener(win->xdg_surface, &xdg_surface_listener, win);
}

void
ivwl_client_toplevel_init(struct ivwl_client_window *win,
			  struct wl_compositor *compositor,
			  struct xdg_wm_base *wm_base, const char *title,
			  const char *app_id)
{
	ivwl_client_window_init(win, compositor, wm_base);
	win->toplevel = xdg_surface_get_toplevel(win->xdg_surface);
	xdg_toplevel_add_listener(win->toplevel, &toplevel_listener, win);
	xdg_toplevel_set_title(win->toplevel, title);
	if (app_id)
		xdg_toplevel_set_app_id(win->toplevel, app_id);
}

int
ivwl_client_window_configure(struct ivwl_client_window *win,
			     struct wl_display *display)
{
	wl_surface_commit(win->surface);
	while (!win->configured)
		if (wl_display_dispatch(display) < 0)
			return -1;
	return 0;
}

void
ivwl_client_window_fini(struct ivwl_client_window *win)
{
	if (win->toplevel)
		xdg_toplevel_destroy(win->toplevel);
	if (win->xdg_surface)
		xdg_surface_destroy(win->xdg_surface);
	if (win->surface)
		wl_surface_destroy(win->surface);
	memset(win, 0, sizeof(*win));
}

/* ---- shm buffers ------------------------------------------------------ */

int
ivwl_client_pool_init(struct ivwl_client_pool *pool, struct wl_shm *shm,
		      int fd, size_t size, const char *name)
{
	if (fd < 0)
		fd = memfd_create(name, MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)size) < 0)
		goto err_fd;
	pool->map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 0);
	if (pool->map == MAP_FAILED)
		goto err_fd;
	pool->fd = fd;
	pool->size = size;
	pool->wl = wl_shm_create_pool(shm, fd, (int32_t)size);
	return 0;

err_fd:
	close(fd);
	return -1;
}

void
ivwl_client_pool_drop(struct ivwl_client_pool *pool)
{
	if (pool->wl)
		wl_shm_pool_destroy(pool->wl);
	pool->wl = NULL;
	if (pool->fd >= 0)
		close(pool->fd);
	pool->fd = -1;
}

void
ivwl_client_pool_fini(struct ivwl_client_pool *pool)
{
	ivwl_client_pool_drop(pool);
	if (pool->map)
		munmap(pool->map, pool->size);
	pool->map = NULL;
}

static void
buffer_release(void *data, struct wl_buffer *wl)
{
	struct ivwl_client_buffer *b = data;

	b->busy = false;
	if (b->release)
		b->release(b);
}

static const struct wl_buffer_listener buffer_listener = {
	buffer_release,
};

void
ivwl_client_buffer_init(struct ivwl_client_buffer *b,
			struct ivwl_client_pool *pool, size_t offset,
			int width, int height, uint32_t format)
{
	b->pixels = (uint32_t *)(pool->map + offset);
	b->width = width;
	b->height = height;
	b->wl = wl_shm_pool_create_buffer(pool->wl, (int32_t)offset, width,
					  height, width * 4, format);
	wl_buffer_add_listener(b->wl, &buffer_listener, b);
}

void
ivwl_client_buffer_attach(struct ivwl_client_buffer *b,
			  struct wl_surface *surface)
{
	wl_surface_attach(surface, b->wl, 0, 0);
	b->busy = true;
}

struct wl_buffer *
ivwl_client_fixed_buffer(struct wl_shm *shm, int width, int height,
			 uint32_t format, const char *name,
			 void (*paint)(uint32_t *pixels, int width, int height,
				       void *data),
			 void *data)
{
	size_t size = (size_t)width * height * 4;
	struct wl_shm_pool *pool;
	struct wl_buffer *buffer;
	uint32_t *pixels;
	int fd;

	fd = memfd_create(name, MFD_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (ftruncate(fd, (off_t)size) < 0)
		goto err_fd;
	pixels = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pixels == MAP_FAILED)
		goto err_fd;
	paint(pixels, width, height, data);
	munmap(pixels, size);
	pool = wl_shm_create_pool(shm, fd, (int32_t)size);
	buffer = wl_shm_pool_create_buffer(pool, 0, width, height, width * 4,
					   format);
	wl_shm_pool_destroy(pool);
	close(fd);
	return buffer;

err_fd:
	close(fd);
	return NULL;
}

/* ---- frames ----------------------------------------------------------- */

static void
frame_done(void *data, struct wl_callback *callback, uint32_t time)
{
	struct ivwl_client_frame *frame = data;

	wl_callback_destroy(callback);
	frame->callback = NULL;
	frame->done++;
}

static const struct wl_callback_listener frame_listener = {
	frame_done,
};

void
ivwl_client_frame_ask(struct ivwl_client_frame *frame,
		      struct wl_surface *surface)
{
	frame->callback = wl_surface_frame(surface);
	wl_callback_add_listener(frame->callback, &frame_listener, frame);
}

void
ivwl_client_frame_cancel(struct ivwl_client_frame *frame)
{
	if (frame->callback)
		wl_callback_destroy(frame->callback);
	frame->callback = NULL;
}

int
ivwl_client_frame_wait(struct ivwl_client_frame *frame,
		       struct wl_display *display)
{
	while (frame->callback)
		if (wl_display_dispatch(display) < 0)
			return -1;
	return 0;
}
