/* SPDX-License-Identifier: MIT */
/*
 * ivwl-pattern-client: a plain Wayland client (no ivwl code) that draws
 * pixels a test can predict, so what weston shows can be compared with
 * what the client drew.
 *
 *   ivwl-pattern-client [--frames N] [--width W] [--height H] [--hold-ms T]
 *                       [--pool own|child|regrow|remap|sparse]
 *                       [--viewport] [--source X,Y,W,H] [--destination W,H]
 *                       [--transform N] [--scale N] [--surface-damage]
 *                       [--band WxH] [--spawn PROGRAM] [--hidden-release]
 *                       [--buffers N] [--recreate] [--new-pools]
 *
 * Frame 0 is a full frame; frames 1..N-1 each repaint one band (whole
 * rows, or a W x H box with --band) with a new colour and damage only
 * that band, taking the buffers in turn (two, or --buffers N, at most
 * 12), so a relay that copied the wrong bytes leaves a visible mistake.
 * A buffer drawn again is brought up to date from the frame it held,
 * as clients that know a buffer's age do.
 *
 * --recreate destroys each wl_buffer once it is released and makes a
 * new one over the same bytes before drawing into them again, as
 * firefox does every frame (one wl_buffer per frame, 4 to 9 in turn);
 * only --pool own.  --new-pools makes each wl_buffer from a wl_shm_pool
 * of its own over the same file, destroyed once the buffer is made: with
 * --recreate, one wl_shm.create_pool per frame (only --pool own).  After
 * the last
 * frame it writes the last buffer it committed to --dump (raw XRGB8888,
 * row after row), prints "ready" and keeps the window up for --hold-ms.
 * While it holds the window, each SIGUSR1 draws one more frame (once a
 * buffer is free), writes --dump again and prints "again N" for the Nth:
 * a test that restarted the compositor checks what the next frame
 * shows.  A lost connection is an error: it says so and exits with 1.
 *
 * --spawn runs PROGRAM with this process's pid as its argument once the
 * buffers exist, and waits for it before drawing (ivwl-zc-probe).
 *
 * --hidden-release first commits both buffers, one after the other, to a
 * second surface that has no role, with a frame callback that therefore
 * never fires, and waits for the first buffer's release (weston sends it
 * when the second is committed) before it draws: a compositor side that
 * holds releases back for frame callbacks must still deliver it.  Prints
 * "hidden release" when it came.
 *
 * --pool says how the pool's memory behaves, for the paths of ivwl's
 * zero-copy mode (client-shim/zero-copy.c):
 *   own     a memfd this process makes and maps (the default)
 *   child   a memfd a forked child makes and hands over
 *   drawer  a forked child makes the memfd, maps it and draws every
 *           frame into it, as chromium's GPU process does; this process
 *           maps it too (for --dump) and sends it to the compositor
 *   regrow  halfway through, the pool grows: the file is truncated
 *           larger, mapped anew at the bigger size, the old mapping
 *           dropped, and buffer 0 moves to the new space
 *   remap   halfway through, the pool is unmapped and mapped again
 *   close   halfway through, the fd is closed and the pool unmapped (the
 *           pixels are kept aside); later frames commit the buffers
 *           again, full damage, without drawing
 *   sparse  the pool is 256 MiB bigger than its buffers need
 *
 * How the surface shows its buffers (--width x --height is the buffer),
 * for the relay's mapping of surface damage (client-shim/damage-map.c):
 *   --viewport        a wp_viewport with neither source nor destination
 *                     set, as Chromium makes one
 *   --source          wp_viewport.set_source, surface units, fractions
 *                     allowed
 *   --destination     wp_viewport.set_destination
 *   --transform N     wl_surface.set_buffer_transform (wl_output.transform)
 *   --scale N         wl_surface.set_buffer_scale
 *   --surface-damage  damage with wl_surface.damage, the band mapped to
 *                     surface coordinates here (rounded outward), instead
 *                     of wl_surface.damage_buffer
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>

#include "viewporter-client-protocol.h"
#include "xdg-shell-client-protocol.h"

static uint32_t
pattern_pixel(int x, int y, int gen)
{
	uint32_t r = (uint32_t)(x * 5 + gen * 40) & 0xff;
	uint32_t g = (uint32_t)(y * 3 + gen * 70) & 0xff;
	uint32_t b = (uint32_t)((x ^ y) + gen * 13) & 0xff;

	return 0xff000000u | r << 16 | g << 8 | b;
}

struct band {
	int x, y, w, h;
};

/*
 * Frame k >= 1 repaints a band: whole rows, an eighth of the buffer
 * high, or a w x h box when --band asks for one (0 x 0 otherwise).
 */
static struct band
pattern_band(int k, int width, int height, int w, int h)
{
	struct band band = { 0, 0, width, height / 8 > 4 ? height / 8 : 4 };

	if (w > 0) {
		band.w = w;
		band.h = h;
		if (width > w)
			band.x = ((k - 1) * 53) % (width - w);
	}
	if (height > band.h)
		band.y = ((k - 1) * 37) % (height - band.h);
	return band;
}

#define MAX_BUFFERS 12

struct buffer {
	struct app *app;
	struct wl_buffer *wl;	/* NULL: --recreate destroyed it */
	size_t offset;		/* in the pool */
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
	struct buffer buffers[MAX_BUFFERS];
	int n_buffers;
	bool recreate;
	bool new_pools;		/* --new-pools */
	struct buffer *last;	/* committed last */
	int width, height, frames, next;
	int agains;		/* frames drawn on SIGUSR1 */
	int band_w, band_h;	/* --band, 0 x 0 for whole rows */
	bool configured, frame_done;
	bool frozen;		/* --pool close: nothing to draw into */
	const char *pool_mode;
	/* how the surface shows its buffers */
	struct wp_viewporter *viewporter;
	bool want_viewport, has_source, has_destination, surface_damage;
	double src[4];
	int dst[2];
	int transform, scale;
	struct wl_shm_pool *pool;
	int drawer;		/* --pool drawer: its socket, else -1 */
	int fd;
	uint8_t *map;
	size_t map_size;
};

static void
buffer_release(void *data, struct wl_buffer *wl)
{
	struct buffer *b = data;

	b->busy = false;
	if (b->app->recreate) {
		wl_buffer_destroy(wl);
		b->wl = NULL;
	}
}

static const struct wl_buffer_listener buffer_listener = {
	buffer_release,
};

static bool
known_pool_mode(const char *mode)
{
	static const char *const modes[] = {
		"own", "child", "regrow", "remap", "close", "sparse",
		"drawer",
	};
	size_t i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (strcmp(mode, modes[i]) == 0)
			return true;
	return false;
}

static int
send_fd(int sock, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
	char byte = 0;
	struct iovec iov = { &byte, 1 };
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = control.buf,
		.msg_controllen = sizeof(control.buf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(fd));
	return sendmsg(sock, &mh, 0) == 1 ? 0 : -1;
}

/* The fd send_fd() sent, or -1. */
static int
recv_fd(int sock)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
	char byte;
	struct iovec iov = { &byte, 1 };
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = control.buf,
		.msg_controllen = sizeof(control.buf),
	};
	struct cmsghdr *cm;
	int fd = -1;

	if (recvmsg(sock, &mh, 0) == 1 && (cm = CMSG_FIRSTHDR(&mh)) &&
	    cm->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(cm), sizeof(fd));
	return fd;
}

/* A memfd made by another process, as a GPU process would hand one. */
static int
memfd_from_child(void)
{
	int sv[2], fd = -1;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		fd = memfd_create("pattern-child", MFD_CLOEXEC);
		_exit(fd < 0 || send_fd(sv[1], fd) < 0);
	}
	close(sv[1]);
	if (pid > 0)
		fd = recv_fd(sv[0]);
	close(sv[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return fd;
}

static struct band
paint(struct app *app, struct buffer *b, int f);

/* The drawer's request: bring buffer `buffer` up to frame `frame`. */
struct drawer_job {
	int buffer, frame;
};

static void
drawer_loop(struct app *app, int sock, size_t pool_size)
{
	size_t size = (size_t)app->width * 4 * app->height;
	struct drawer_job job;
	uint8_t *map;
	int fd, i;

	fd = memfd_create("pattern-drawer", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)pool_size) < 0)
		_exit(1);
	map = mmap(NULL, pool_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED || send_fd(sock, fd) < 0)
		_exit(1);
	close(fd);
	for (i = 0; i < 2; i++) {
		app->buffers[i].pixels = (uint32_t *)(map + i * size);
		app->buffers[i].frame = -1;
	}
	while (read(sock, &job, sizeof(job)) == sizeof(job) &&
	       job.buffer >= 0 && job.buffer < 2) {
		paint(app, &app->buffers[job.buffer], job.frame);
		if (write(sock, "", 1) != 1)
			break;
	}
	_exit(0);
}

/* A memfd a forked child makes, maps and draws in until we hang up. */
static int
memfd_from_drawer(struct app *app, size_t pool_size)
{
	int sv[2], fd = -1;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		drawer_loop(app, sv[1], pool_size);
	}
	close(sv[1]);
	if (pid > 0)
		fd = recv_fd(sv[0]);
	if (fd < 0) {
		close(sv[0]);
		return -1;
	}
	app->drawer = sv[0];
	return fd;
}

/* paint(), done by the drawer: the same pixels, another process. */
static struct band
paint_in_drawer(struct app *app, struct buffer *b, int f)
{
	struct drawer_job job = { (int)(b - app->buffers), f };
	char ack;

	if (write(app->drawer, &job, sizeof(job)) != sizeof(job) ||
	    read(app->drawer, &ack, 1) != 1) {
		fprintf(stderr, "pattern-client: the drawer is gone\n");
		exit(1);
	}
	b->frame = f;
	return pattern_band(f, app->width, app->height, app->band_w,
			    app->band_h);
}

static void
new_buffer(struct app *app, int i, size_t offset)
{
	int32_t stride = app->width * 4;
	struct wl_shm_pool *pool = app->pool;

	if (app->new_pools)
		pool = wl_shm_create_pool(app->shm, app->fd,
					  (int32_t)app->map_size);
	app->buffers[i].app = app;
	app->buffers[i].offset = offset;
	app->buffers[i].pixels = (uint32_t *)(app->map + offset);
	app->buffers[i].wl = wl_shm_pool_create_buffer(pool,
		(int32_t)offset, app->width, app->height, stride,
		WL_SHM_FORMAT_XRGB8888);
	wl_buffer_add_listener(app->buffers[i].wl, &buffer_listener,
			       &app->buffers[i]);
	/* The buffer keeps the pool's memory. */
	if (pool != app->pool)
		wl_shm_pool_destroy(pool);
}

static int
create_buffers(struct app *app)
{
	size_t size = (size_t)app->width * 4 * app->height;
	size_t pool_size = (size_t)app->n_buffers * size;
	int i;

	if (strcmp(app->pool_mode, "sparse") == 0)
		pool_size += 256u << 20;
	if (strcmp(app->pool_mode, "child") == 0)
		app->fd = memfd_from_child();
	else if (strcmp(app->pool_mode, "drawer") == 0)
		app->fd = memfd_from_drawer(app, pool_size);
	else
		app->fd = memfd_create("pattern", MFD_CLOEXEC);
	if (app->fd < 0 || ftruncate(app->fd, (off_t)pool_size) < 0)
		return -1;
	app->map = mmap(NULL, pool_size, PROT_READ | PROT_WRITE, MAP_SHARED,
			app->fd, 0);
	if (app->map == MAP_FAILED)
		return -1;
	app->map_size = pool_size;
	app->pool = wl_shm_create_pool(app->shm, app->fd, (int32_t)pool_size);
	for (i = 0; i < app->n_buffers; i++) {
		app->buffers[i].frame = -1;
		new_buffer(app, i, i * size);
	}
	return 0;
}

/*
 * Mapped anew, likely at a new address: the pixels must have followed.
 * unmap_old false: the caller has unmapped the old mapping already.
 */
static int
remap_pool(struct app *app, size_t new_size, bool unmap_old)
{
	uint8_t *old = app->map;
	int i;

	app->map = mmap(NULL, new_size, PROT_READ | PROT_WRITE, MAP_SHARED,
			app->fd, 0);
	if (app->map == MAP_FAILED)
		return -1;
	if (unmap_old)
		munmap(old, app->map_size);
	app->map_size = new_size;
	for (i = 0; i < app->n_buffers; i++)
		app->buffers[i].pixels = (uint32_t *)(app->map +
			((uint8_t *)app->buffers[i].pixels - old));
	return 0;
}

/* Halfway through, the pool changes as --pool asks. */
static int
change_pool(struct app *app)
{
	size_t size = (size_t)app->width * 4 * app->height;
	struct buffer *b = &app->buffers[0];
	int frame = b->frame, i;

	if (strcmp(app->pool_mode, "remap") == 0) {
		/* All of it unmapped first, then mapped again. */
		munmap(app->map, app->map_size);
		return remap_pool(app, app->map_size, false);
	}
	if (strcmp(app->pool_mode, "close") == 0) {
		/* The window must keep what the buffers held. */
		for (i = 0; i < app->n_buffers; i++) {
			uint32_t *copy = malloc(size);

			if (!copy)
				return -1;
			memcpy(copy, app->buffers[i].pixels, size);
			app->buffers[i].pixels = copy;
		}
		close(app->fd);
		munmap(app->map, app->map_size);
		app->frozen = true;
		return 0;
	}
	if (strcmp(app->pool_mode, "regrow") != 0)
		return 0;
	if (ftruncate(app->fd, (off_t)(3 * size)) < 0 ||
	    remap_pool(app, 3 * size, true) < 0)
		return -1;
	wl_shm_pool_resize(app->pool, (int32_t)(3 * size));
	memcpy(app->map + 2 * size, b->pixels, size);
	if (!b->busy)
		wl_buffer_destroy(b->wl);
	new_buffer(app, 0, 2 * size);
	b->frame = frame;
	return 0;
}

static const struct wl_callback_listener frame_listener;

/*
 * A buffer point to where the surface shows it, before the viewport:
 * wl_output.transform undone (weston_transformed_coord() solved for the
 * surface point), then the buffer scale.  tw x th: the buffer as the
 * transform turns it.
 */
static void
buffer_to_view(const struct app *app, double bx, double by, double *u,
	       double *v)
{
	double tw = app->transform & 1 ? app->height : app->width;
	double th = app->transform & 1 ? app->width : app->height;
	double tx, ty;

	switch (app->transform) {
	default:
	case 0: tx = bx; ty = by; break;
	case 1: tx = tw - by; ty = bx; break;
	case 2: tx = tw - bx; ty = th - by; break;
	case 3: tx = by; ty = th - bx; break;
	case 4: tx = tw - bx; ty = by; break;
	case 5: tx = by; ty = bx; break;
	case 6: tx = bx; ty = th - by; break;
	case 7: tx = tw - by; ty = th - bx; break;
	}
	*u = tx / app->scale;
	*v = ty / app->scale;
}

/* A point before the viewport to the surface. */
static void
view_to_surface(const struct app *app, double u, double v, double *x,
		double *y)
{
	double tw = (app->transform & 1 ? app->height : app->width) /
		    app->scale;
	double th = (app->transform & 1 ? app->width : app->height) /
		    app->scale;
	double src[4] = { 0, 0, tw, th };
	double dst[2];

	if (app->has_source)
		memcpy(src, app->src, sizeof(src));
	dst[0] = app->has_destination ? app->dst[0] : src[2];
	dst[1] = app->has_destination ? app->dst[1] : src[3];
	*x = (u - src[0]) * dst[0] / src[2];
	*y = (v - src[1]) * dst[1] / src[3];
}

/* Damages buffer rectangle (x, y, w, h) the way --surface-damage says. */
static void
damage(struct app *app, int x, int y, int w, int h)
{
	double u[2], v[2], sx[2], sy[2];
	int i;

	if (!app->surface_damage) {
		wl_surface_damage_buffer(app->surface, x, y, w, h);
		return;
	}
	buffer_to_view(app, x, y, &u[0], &v[0]);
	buffer_to_view(app, x + w, y + h, &u[1], &v[1]);
	for (i = 0; i < 2; i++)
		view_to_surface(app, u[i], v[i], &sx[i], &sy[i]);
	if (sx[0] > sx[1]) {
		double t = sx[0]; sx[0] = sx[1]; sx[1] = t;
	}
	if (sy[0] > sy[1]) {
		double t = sy[0]; sy[0] = sy[1]; sy[1] = t;
	}
	sx[0] = floor(sx[0]);
	sy[0] = floor(sy[0]);
	wl_surface_damage(app->surface, (int)sx[0], (int)sy[0],
			  (int)ceil(sx[1]) - (int)sx[0],
			  (int)ceil(sy[1]) - (int)sy[0]);
}

/* Brings b up to frame f: repaints what changed since its content. */
static struct band
paint(struct app *app, struct buffer *b, int f)
{
	int x, y, from = b->frame < 0 ? 0 : b->frame + 1, k;
	struct band band;

	if (b->frame < 0) {
		for (y = 0; y < app->height; y++)
			for (x = 0; x < app->width; x++)
				b->pixels[y * app->width + x] =
					pattern_pixel(x, y, 0);
		from = 1;
	}
	for (k = from; k <= f; k++) {
		band = pattern_band(k, app->width, app->height, app->band_w,
				    app->band_h);
		for (y = band.y; y < band.y + band.h; y++)
			for (x = band.x; x < band.x + band.w; x++)
				b->pixels[y * app->width + x] =
					pattern_pixel(x, y, k);
	}
	b->frame = f;
	return pattern_band(f, app->width, app->height, app->band_w,
			    app->band_h);
}

static void
draw(struct app *app)
{
	struct buffer *b = &app->buffers[app->next % app->n_buffers];
	struct wl_callback *cb;
	struct band band = { 0, 0, 0, 0 };
	int i;

	/* the next one in turn that the compositor does not hold */
	for (i = 0; i < app->n_buffers && b->busy; i++)
		b = &app->buffers[(app->next + i) % app->n_buffers];
	if (!b->wl)
		new_buffer(app, (int)(b - app->buffers), b->offset);
	if (!app->frozen)
		band = app->drawer >= 0 ? paint_in_drawer(app, b, app->next) :
					  paint(app, b, app->next);
	wl_surface_attach(app->surface, b->wl, 0, 0);
	if (app->next == 0 || app->frozen)
		damage(app, 0, 0, app->width, app->height);
	else
		damage(app, band.x, band.y, band.w, band.h);
	b->busy = true;
	app->last = b;
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
	else if (strcmp(interface, "wp_viewporter") == 0)
		app->viewporter = wl_registry_bind(registry, name,
						   &wp_viewporter_interface, 1);
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
hidden_release(struct app *app)
{
	struct wl_surface *ghost = wl_compositor_create_surface(app->compositor);
	struct buffer *a = &app->buffers[0], *b = &app->buffers[1];
	bool released = false;

	wl_surface_attach(ghost, a->wl, 0, 0);
	wl_surface_frame(ghost);	/* no role, no output: never done */
	wl_surface_commit(ghost);
	a->busy = true;
	wl_surface_attach(ghost, b->wl, 0, 0);
	wl_surface_commit(ghost);
	b->busy = true;
	while (!released) {
		if (wl_display_dispatch(app->display) < 0)
			return -1;
		released = !a->busy;
	}
	/* b goes back when the surface does */
	wl_surface_destroy(ghost);
	if (wl_display_roundtrip(app->display) < 0)
		return -1;
	b->busy = false;
	printf("hidden release\n");
	fflush(stdout);
	return 0;
}

static int
write_dump(struct app *app, const char *path)
{
	struct buffer *last = app->last;
	FILE *f;
	size_t n = (size_t)app->width * app->height;

	f = fopen(path, "wb");
	if (!f || fwrite(last->pixels, 4, n, f) != n) {
		fprintf(stderr, "pattern-client: cannot write %s\n", path);
		if (f)
			fclose(f);
		return -1;
	}
	return fclose(f);
}

/* Written by the SIGUSR1 handler, read while the window is held. */
static int again_pipe[2] = { -1, -1 };

static void
on_usr1(int sig)
{
	int saved = errno;
	ssize_t n = write(again_pipe[1], "", 1);

	(void)n;	/* full: a frame is asked for already */
	errno = saved;
}

/* A handler, not a blocked signal: the shim's threads would not block it. */
static int
catch_again(void)
{
	struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_RESTART };

	if (pipe2(again_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	sigemptyset(&sa.sa_mask);
	return sigaction(SIGUSR1, &sa, NULL);
}

static void
say_lost(struct app *app)
{
	int err = wl_display_get_error(app->display);

	fprintf(stderr, "pattern-client: connection lost: %s\n",
		err ? strerror(err) : "the compositor hung up");
}

/*
 * One more frame: a buffer the compositor gave back (drawing into one it
 * holds would be our bug, not the compositor's), its frame callback, the
 * dump.  -1 when the connection is lost.
 */
static int
another_frame(struct app *app, const char *dump)
{
	char drain[16];
	bool waited = false;

	while (read(again_pipe[0], drain, sizeof(drain)) > 0)
		;
	while (app->buffers[0].busy && app->buffers[1].busy) {
		if (!waited)
			fprintf(stderr, "pattern-client: both buffers busy, "
				"waiting for a release\n");
		waited = true;
		if (wl_display_dispatch(app->display) < 0)
			return -1;
	}
	draw(app);
	if (dispatch_until(app, &app->frame_done) < 0 ||
	    wl_display_roundtrip(app->display) < 0)
		return -1;
	if (dump && write_dump(app, dump) < 0)
		exit(1);
	printf("again %d\n", ++app->agains);
	fflush(stdout);
	return 0;
}

/*
 * Keeps answering the compositor (pings, releases, configures) for
 * hold_ms, drawing a frame on each SIGUSR1.  -1 when the connection is
 * lost.
 */
static int
hold_window(struct app *app, int hold_ms, const char *dump)
{
	struct pollfd pfd[2] = {
		{ wl_display_get_fd(app->display), POLLIN, 0 },
		{ again_pipe[0], POLLIN, 0 },
	};
	struct timespec start, now;
	int left, n;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = hold_ms - (int)((now.tv_sec - start.tv_sec) * 1000 +
				       (now.tv_nsec - start.tv_nsec) / 1000000);
		if (left <= 0)
			return 0;
		if (wl_display_flush(app->display) < 0 && errno != EAGAIN)
			return -1;
		n = poll(pfd, 2, left);
		if (n < 0 && errno != EINTR)
			return -1;
		if (n > 0 && pfd[0].revents &&
		    wl_display_dispatch(app->display) < 0)
			return -1;
		if (n > 0 && (pfd[1].revents & POLLIN) &&
		    another_frame(app, dump) < 0)
			return -1;
	}
}

/* Pending state the first buffer's commit applies. */
static int
set_up_view(struct app *app)
{
	struct wp_viewport *viewport;

	if (app->transform != 0)
		wl_surface_set_buffer_transform(app->surface, app->transform);
	if (app->scale != 1)
		wl_surface_set_buffer_scale(app->surface, app->scale);
	if (!app->want_viewport)
		return 0;
	if (!app->viewporter) {
		fprintf(stderr, "pattern-client: no wp_viewporter\n");
		return -1;
	}
	viewport = wp_viewporter_get_viewport(app->viewporter, app->surface);
	if (app->has_source)
		wp_viewport_set_source(viewport,
				       wl_fixed_from_double(app->src[0]),
				       wl_fixed_from_double(app->src[1]),
				       wl_fixed_from_double(app->src[2]),
				       wl_fixed_from_double(app->src[3]));
	if (app->has_destination)
		wp_viewport_set_destination(viewport, app->dst[0],
					    app->dst[1]);
	return 0;
}

static int
run_child(const char *program)
{
	char pid[16];
	pid_t child;
	int status;

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	child = fork();
	if (child == 0) {
		/* The probe speaks for itself, without the shim. */
		unsetenv("LD_PRELOAD");
		execl(program, program, pid, (char *)NULL);
		_exit(127);
	}
	if (child < 0 || waitpid(child, &status, 0) < 0 ||
	    !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "pattern-client: %s failed\n", program);
		return -1;
	}
	return 0;
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
		{ "pool", required_argument, NULL, 'p' },
		{ "viewport", no_argument, NULL, 'v' },
		{ "source", required_argument, NULL, 's' },
		{ "destination", required_argument, NULL, 'D' },
		{ "transform", required_argument, NULL, 'T' },
		{ "scale", required_argument, NULL, 'S' },
		{ "surface-damage", no_argument, NULL, 'a' },
		{ "band", required_argument, NULL, 'b' },
		{ "spawn", required_argument, NULL, 'x' },
		{ "hidden-release", no_argument, NULL, 'H' },
		{ "buffers", required_argument, NULL, 'B' },
		{ "recreate", no_argument, NULL, 'R' },
		{ "new-pools", no_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	struct app app = { .width = 240, .height = 180, .frames = 12,
			   .pool_mode = "own", .scale = 1, .drawer = -1,
			   .n_buffers = 2 };
	const char *title = "pattern", *dump = NULL, *spawn = NULL;
	int hold_ms = 30000, c;
	bool hidden = false;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'f': app.frames = atoi(optarg); break;
		case 'w': app.width = atoi(optarg); break;
		case 'h': app.height = atoi(optarg); break;
		case 't': hold_ms = atoi(optarg); break;
		case 'n': title = optarg; break;
		case 'd': dump = optarg; break;
		case 'p': app.pool_mode = optarg; break;
		case 'v': app.want_viewport = true; break;
		case 's':
			app.want_viewport = app.has_source = true;
			if (sscanf(optarg, "%lf,%lf,%lf,%lf", &app.src[0],
				   &app.src[1], &app.src[2], &app.src[3]) != 4)
				return 2;
			break;
		case 'D':
			app.want_viewport = app.has_destination = true;
			if (sscanf(optarg, "%d,%d", &app.dst[0],
				   &app.dst[1]) != 2)
				return 2;
			break;
		case 'T': app.transform = atoi(optarg); break;
		case 'S': app.scale = atoi(optarg); break;
		case 'a': app.surface_damage = true; break;
		case 'x': spawn = optarg; break;
		case 'H': hidden = true; break;
		case 'B': app.n_buffers = atoi(optarg); break;
		case 'R': app.recreate = true; break;
		case 'P': app.new_pools = true; break;
		case 'b':
			if (sscanf(optarg, "%dx%d", &app.band_w,
				   &app.band_h) != 2)
				return 2;
			break;
		default: return 2;
		}
	}
	if (app.frames < 1 || app.width < 16 || app.height < 16 ||
	    !known_pool_mode(app.pool_mode) || app.transform < 0 ||
	    app.transform > 7 || app.scale < 1 || app.width % app.scale ||
	    app.height % app.scale || app.band_w < 0 || app.band_h < 0 ||
	    app.band_w > app.width || app.band_h > app.height ||
	    (app.band_w > 0) != (app.band_h > 0) || app.n_buffers < 2 ||
	    app.n_buffers > MAX_BUFFERS ||
	    ((app.n_buffers != 2 || app.recreate || app.new_pools) &&
	     strcmp(app.pool_mode, "own") != 0))
		return 2;

	if (catch_again() < 0) {
		fprintf(stderr, "pattern-client: SIGUSR1: %s\n",
			strerror(errno));
		return 1;
	}
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
	    set_up_view(&app) < 0 || create_buffers(&app) < 0)
		return 1;
	if (spawn && run_child(spawn) < 0)
		return 1;
	if (hidden && hidden_release(&app) < 0)
		return 1;

	while (app.next < app.frames) {
		if (app.next == app.frames / 2 && app.next > 0 &&
		    change_pool(&app) < 0) {
			fprintf(stderr, "pattern-client: cannot change the "
				"pool: %s\n", strerror(errno));
			return 1;
		}
		draw(&app);
		if (dispatch_until(&app, &app.frame_done) < 0) {
			say_lost(&app);
			return 1;
		}
	}
	/* one more roundtrip: the last commit has been handled */
	wl_display_roundtrip(app.display);
	if (dump && write_dump(&app, dump) < 0)
		return 1;
	printf("ready\n");
	fflush(stdout);
	if (hold_window(&app, hold_ms, dump) < 0) {
		say_lost(&app);
		return 1;
	}
	wl_display_disconnect(app.display);
	return 0;
}
