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
 * zero-copy mode (shim/zero-copy.c):
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
 * for the relay's mapping of surface damage (relay/damage-map.c):
 *   --viewport        a wp_viewport with neither source nor destination
 *                     set, as Chromium makes one
 *   --source          wp_viewport.set_source, surface units, fractions
 *                     allowed
 *   --destination     wp_viewport.set_destination
 *   --transform N     wl_surface.set_buffer_transform (wl_output.transform)
 *   --scale N         wl_surface.set_buffer_scale
 *   --surface-damage  damage with wl_surface.damage, the band mapped to
 *                     surface coordinates here (rounded outward), instead
 *                     of wl_surface.damage_buffer; with --source or
 *                     --destination the band grown by a buffer pixel
 *                     each side first, what weston's filter reads
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

#include "pattern-client.h"

/* weston's close button, or the test's: the end, not a failure. */
static void
pattern_close(struct ivwl_client_window *win)
{
	exit(0);
}

static int
hidden_release(struct app *app)
{
	struct wl_surface *ghost = wl_compositor_create_surface(app->compositor);
	struct buffer *a = &app->buffers[0], *b = &app->buffers[1];
	bool released = false;

	ivwl_client_buffer_attach(&a->base, ghost);
	wl_surface_frame(ghost);	/* no role, no output: never done */
	wl_surface_commit(ghost);
	ivwl_client_buffer_attach(&b->base, ghost);
	wl_surface_commit(ghost);
	while (!released) {
		if (wl_display_dispatch(app->display) < 0)
			return -1;
		released = !a->base.busy;
	}
	/* b goes back when the surface does */
	wl_surface_destroy(ghost);
	if (wl_display_roundtrip(app->display) < 0)
		return -1;
	b->base.busy = false;
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
	if (!f || fwrite(last->base.pixels, 4, n, f) != n) {
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
	while (app->buffers[0].base.busy && app->buffers[1].base.busy) {
		if (!waited)
			fprintf(stderr, "pattern-client: both buffers busy, "
				"waiting for a release\n");
		waited = true;
		if (wl_display_dispatch(app->display) < 0)
			return -1;
	}
	pattern_draw(app);
	if (ivwl_client_frame_wait(&app->frame, app->display) < 0 ||
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
	struct ivwl_client_global globals[] = {
		IVWL_CLIENT_SHELL_GLOBALS(&app.compositor, &app.shm,
					  &app.wm_base),
		IVWL_CLIENT_GLOBAL(wp_viewporter_interface, 1,
				   &app.viewporter, .optional = true),
		{ 0 },
	};
	struct ivwl_client_registry reg = { .globals = globals };

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
	    !pattern_known_pool_mode(app.pool_mode) || app.transform < 0 ||
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
	app.display = ivwl_client_connect(&reg, 1, "pattern-client");
	if (!app.display)
		return 1;
	ivwl_client_toplevel_init(&app.win, app.compositor, app.wm_base,
				  title, NULL);
	app.win.close = pattern_close;
	if (ivwl_client_window_configure(&app.win, app.display) < 0 ||
	    pattern_set_up_view(&app) < 0 || pattern_create_buffers(&app) < 0)
		return 1;
	if (spawn && run_child(spawn) < 0)
		return 1;
	if (hidden && hidden_release(&app) < 0)
		return 1;

	while (app.next < app.frames) {
		if (app.next == app.frames / 2 && app.next > 0 &&
		    pattern_change_pool(&app) < 0) {
			fprintf(stderr, "pattern-client: cannot change the "
				"pool: %s\n", strerror(errno));
			return 1;
		}
		pattern_draw(&app);
		if (ivwl_client_frame_wait(&app.frame, app.display) < 0) {
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
