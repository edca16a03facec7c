/* SPDX-License-Identifier: MIT */
/*
 * ivwl-timing-client: a client that paces its frames with weston 15's
 * protocols, for test-timing.py, which runs it through ivwl and on
 * weston's own socket in one session and compares.
 *
 *   ivwl-timing-client --mode timed|fifo [--frames N] [--lead-ms L]
 *
 * timed: each frame asks wp_commit_timer_v1 for a time L ms (default 50)
 * after its own clock's now, as a video player does, and the commit
 * goes at once; the next is committed when this one was presented.
 * Each presented time is held against the time asked: never before it,
 * and after it by less than one refresh ("as closely as possible to,
 * but not before").  A time left in the app's clock where the display
 * reads its own is off by the difference of the two.
 *
 * fifo: every commit sets a wp_fifo_v1 barrier and waits on the last,
 * with no frame callbacks and four buffers: the client commits whenever
 * a buffer is free, so weston keeps a queue, and shows one frame per
 * refresh.  Each commit must be presented, none discarded (lost) or
 * shown for two refreshes or more (held) while the queue is fed.
 *
 * It reads the clock wp_presentation names, plus IVWL_TEST_CLOCK_OFFSET_NS
 * when set (the app side faked ahead, as ivwl's agent and relay do).
 * On stdout, at the end, one line:
 *   done mode=M frames=N presented=P discarded=D refresh_ns=R
 *        early=E late=L dev_min_ns=.. dev_max_ns=.. dev_mean_ns=..
 *        (timed: presented - asked)
 *        one=O held=H gap_min_ns=.. gap_max_ns=..
 *        (fifo: intervals between presentations of one refresh, more)
 * The first TIMING_WARMUP frames (the window mapped, the queue filled)
 * are presented but not measured.
 * Status 0 when it ran to its end, 2 on bad arguments, 3 when a global
 * is missing, 1 on any other failure (a stall of 10 s among them).
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client.h"
#include "commit-timing-v1-client-protocol.h"
#include "fifo-v1-client-protocol.h"
#include "presentation-time-client-protocol.h"

#define NS_PER_S 1000000000ll
#define NS_PER_MS 1000000ll
#define TIMING_BUFFERS 4
#define TIMING_SIZE 64
#define TIMING_STALL_MS 10000
/* Frames that map the window and fill weston's queue: not measured. */
#define TIMING_WARMUP 2

struct timing_client {
	struct wl_display *display;
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm_base;
	struct wp_presentation *presentation;
	struct wp_commit_timing_manager_v1 *timing;
	struct wp_fifo_manager_v1 *fifo_manager;
	struct wp_commit_timer_v1 *timer;
	struct wp_fifo_v1 *fifo;
	clockid_t clock;
	int64_t offset_ns;
	struct ivwl_client_window win;
	struct ivwl_client_buffer buffers[TIMING_BUFFERS];

	bool fifo_mode;
	int frames, lead_ms;
	int committed, presented, discarded, outstanding;
	uint32_t refresh;
	/* timed: presented - asked, per frame */
	int measured;		/* past the warm-up, presented */
	int64_t dev_min, dev_max, dev_sum;
	int early, late;
	/* fifo: the last presentation, and the gaps between them */
	int64_t last_presented, gap_min, gap_max;
	int one, held;
};

struct timing_frame {
	struct timing_client *app;
	struct wp_presentation_feedback *fb;
	int64_t asked;		/* timed: the time set, ns */
	int index;		/* of the frames committed */
};

static int64_t
timing_now(const struct timing_client *app)
{
	struct timespec ts;

	clock_gettime(app->clock, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec + app->offset_ns;
}

static void
timing_presented_timed(struct timing_client *app, int64_t t, int64_t asked)
{
	int64_t dev = t - asked;

	if (app->measured++ == 0 || dev < app->dev_min)
		app->dev_min = dev;
	if (app->measured == 1 || dev > app->dev_max)
		app->dev_max = dev;
	app->dev_sum += dev;
	if (dev < 0)
		app->early++;
	else if (app->refresh && dev >= (int64_t)app->refresh)
		app->late++;
}

/* One refresh is within a quarter of it; two or more is a frame held. */
static void
timing_presented_fifo(struct timing_client *app, int64_t t)
{
	int64_t gap = t - app->last_presented;

	if (app->last_presented && app->refresh) {
		if (app->gap_max == 0 || gap < app->gap_min)
			app->gap_min = gap;
		if (gap > app->gap_max)
			app->gap_max = gap;
		if (gap * 4 >= (int64_t)app->refresh * 3 &&
		    gap * 4 <= (int64_t)app->refresh * 5)
			app->one++;
		else
			app->held++;
	}
	app->last_presented = t;
}

static void
feedback_sync_output(void *data, struct wp_presentation_feedback *fb,
		     struct wl_output *output)
{
}

static void
timing_frame_done(struct timing_frame *f)
{
	f->app->outstanding--;
	wp_presentation_feedback_destroy(f->fb);
	free(f);
}

static void
feedback_presented(void *data, struct wp_presentation_feedback *fb,
		   uint32_t tv_sec_hi, uint32_t tv_sec_lo, uint32_t tv_nsec,
		   uint32_t refresh, uint32_t seq_hi, uint32_t seq_lo,
		   uint32_t flags)
{
	struct timing_frame *f = data;
	struct timing_client *app = f->app;
	int64_t t = (int64_t)((uint64_t)tv_sec_hi << 32 | tv_sec_lo) *
		    NS_PER_S + tv_nsec;

	app->presented++;
	if (refresh)
		app->refresh = refresh;
	if (f->index < TIMING_WARMUP)
		app->last_presented = t;
	else if (app->fifo_mode)
		timing_presented_fifo(app, t);
	else
		timing_presented_timed(app, t, f->asked);
	timing_frame_done(f);
}

static void
feedback_discarded(void *data, struct wp_presentation_feedback *fb)
{
	struct timing_frame *f = data;

	f->app->discarded++;
	timing_frame_done(f);
}

static const struct wp_presentation_feedback_listener feedback_listener = {
	feedback_sync_output,
	feedback_presented,
	feedback_discarded,
};

static void
presentation_clock_id(void *data, struct wp_presentation *pres,
		      uint32_t clk_id)
{
	struct timing_client *app = data;

	app->clock = (clockid_t)clk_id;
}

static const struct wp_presentation_listener presentation_listener = {
	presentation_clock_id,
};

static struct ivwl_client_buffer *
timing_free_buffer(struct timing_client *app)
{
	int i;

	for (i = 0; i < TIMING_BUFFERS; i++)
		if (!app->buffers[i].busy)
			return &app->buffers[i];
	return NULL;
}

/* Commits the next frame in b, timed or behind the fifo barrier. */
static int
timing_commit(struct timing_client *app, struct ivwl_client_buffer *b)
{
	struct timing_frame *f = calloc(1, sizeof(*f));
	uint32_t colour = 0xff000000u | (uint32_t)app->committed * 0x0a0b0cu;
	int i;

	if (!f)
		return -1;
	for (i = 0; i < b->width * b->height; i++)
		b->pixels[i] = colour;
	ivwl_client_buffer_attach(b, app->win.surface);
	wl_surface_damage_buffer(app->win.surface, 0, 0, b->width, b->height);
	f->app = app;
	f->index = app->committed;
	f->fb = wp_presentation_feedback(app->presentation, app->win.surface);
	wp_presentation_feedback_add_listener(f->fb, &feedback_listener, f);
	if (app->fifo_mode) {
		wp_fifo_v1_wait_barrier(app->fifo);
		wp_fifo_v1_set_barrier(app->fifo);
	} else {
		f->asked = timing_now(app) + app->lead_ms * NS_PER_MS;
		wp_commit_timer_v1_set_timestamp(app->timer,
			(uint32_t)((uint64_t)(f->asked / NS_PER_S) >> 32),
			(uint32_t)(f->asked / NS_PER_S),
			(uint32_t)(f->asked % NS_PER_S));
	}
	wl_surface_commit(app->win.surface);
	app->outstanding++;
	app->committed++;
	return 0;
}

/* Dispatches once, waiting at most TIMING_STALL_MS; -1 on error, stall. */
static int
timing_wait(struct timing_client *app)
{
	struct pollfd pfd = {
		.fd = wl_display_get_fd(app->display), .events = POLLIN,
	};

	while (wl_display_prepare_read(app->display) != 0)
		if (wl_display_dispatch_pending(app->display) < 0)
			return -1;
	if (wl_display_flush(app->display) < 0 && errno != EAGAIN) {
		wl_display_cancel_read(app->display);
		return -1;
	}
	if (poll(&pfd, 1, TIMING_STALL_MS) <= 0) {
		wl_display_cancel_read(app->display);
		fprintf(stderr, "ivwl-timing-client: stalled: %d committed, "
			"%d presented, %d discarded\n", app->committed,
			app->presented, app->discarded);
		return -1;
	}
	if (wl_display_read_events(app->display) < 0)
		return -1;
	return wl_display_dispatch_pending(app->display) < 0 ? -1 : 0;
}

static int
timing_run(struct timing_client *app)
{
	struct ivwl_client_buffer *b;

	while (app->committed < app->frames) {
		b = timing_free_buffer(app);
		/* timed: one frame at a time; fifo: as buffers allow */
		if (b && (app->fifo_mode || app->outstanding == 0)) {
			if (timing_commit(app, b) < 0)
				return -1;
			continue;
		}
		if (timing_wait(app) < 0)
			return -1;
	}
	while (app->outstanding > 0)
		if (timing_wait(app) < 0)
			return -1;
	return 0;
}

static void
timing_report(const struct timing_client *app)
{
	printf("done mode=%s frames=%d presented=%d discarded=%d "
	       "refresh_ns=%u", app->fifo_mode ? "fifo" : "timed",
	       app->committed, app->presented, app->discarded, app->refresh);
	if (app->fifo_mode)
		printf(" one=%d held=%d gap_min_ns=%lld gap_max_ns=%lld\n",
		       app->one, app->held, (long long)app->gap_min,
		       (long long)app->gap_max);
	else
		printf(" early=%d late=%d dev_min_ns=%lld dev_max_ns=%lld "
		       "dev_mean_ns=%lld\n", app->early, app->late,
		       (long long)app->dev_min, (long long)app->dev_max,
		       (long long)(app->measured ?
				   app->dev_sum / app->measured : 0));
	fflush(stdout);
}

static int
timing_buffers(struct timing_client *app)
{
	size_t size = TIMING_SIZE * TIMING_SIZE * 4;
	struct ivwl_client_pool pool;
	int i;

	if (ivwl_client_pool_init(&pool, app->shm, -1, TIMING_BUFFERS * size,
				  "ivwl-timing") < 0)
		return -1;
	for (i = 0; i < TIMING_BUFFERS; i++)
		ivwl_client_buffer_init(&app->buffers[i], &pool, i * size,
					TIMING_SIZE, TIMING_SIZE,
					WL_SHM_FORMAT_XRGB8888);
	ivwl_client_pool_drop(&pool);
	return 0;
}

static int
timing_args(struct timing_client *app, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "frames", required_argument, NULL, 'n' },
		{ "lead-ms", required_argument, NULL, 'l' },
		{ 0 },
	};
	const char *mode = NULL;
	int c;

	app->frames = 60;
	app->lead_ms = 50;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'm')
			mode = optarg;
		else if (c == 'n')
			app->frames = atoi(optarg);
		else if (c == 'l')
			app->lead_ms = atoi(optarg);
		else
			return -1;
	}
	if (!mode || app->frames < 2 || app->lead_ms < 1 ||
	    (strcmp(mode, "timed") != 0 && strcmp(mode, "fifo") != 0))
		return -1;
	app->fifo_mode = strcmp(mode, "fifo") == 0;
	return 0;
}

int
main(int argc, char **argv)
{
	struct timing_client app = { .clock = CLOCK_MONOTONIC };
	struct ivwl_client_global globals[] = {
		IVWL_CLIENT_SHELL_GLOBALS(&app.compositor, &app.shm,
					  &app.wm_base),
		IVWL_CLIENT_GLOBAL(wp_presentation_interface, 1,
				   &app.presentation,
				   .listener = &presentation_listener,
				   .data = &app),
		IVWL_CLIENT_GLOBAL(wp_commit_timing_manager_v1_interface, 1,
				   &app.timing, .optional = true),
		IVWL_CLIENT_GLOBAL(wp_fifo_manager_v1_interface, 1,
				   &app.fifo_manager, .optional = true),
		{ 0 },
	};
	struct ivwl_client_registry reg = { .globals = globals };
	const char *offset = getenv("IVWL_TEST_CLOCK_OFFSET_NS");

	if (timing_args(&app, argc, argv) < 0) {
		fprintf(stderr, "usage: ivwl-timing-client --mode timed|fifo "
			"[--frames N] [--lead-ms L]\n");
		return 2;
	}
	app.offset_ns = offset ? strtoll(offset, NULL, 10) : 0;
	app.display = ivwl_client_connect(&reg, 2, "ivwl-timing-client");
	if (!app.display)
		return 1;
	if (app.fifo_mode ? !app.fifo_manager : !app.timing) {
		printf("missing %s\n", app.fifo_mode ? "wp_fifo_manager_v1" :
		       "wp_commit_timing_manager_v1");
		return 3;
	}
	ivwl_client_toplevel_init(&app.win, app.compositor, app.wm_base,
				  app.fifo_mode ? "timing-fifo" :
						  "timing-timed", NULL);
	if (app.fifo_mode)
		app.fifo = wp_fifo_manager_v1_get_fifo(app.fifo_manager,
						       app.win.surface);
	else
		app.timer = wp_commit_timing_manager_v1_get_timer(
			app.timing, app.win.surface);
	if (ivwl_client_window_configure(&app.win, app.display) < 0 ||
	    timing_buffers(&app) < 0 || timing_run(&app) < 0)
		return 1;
	timing_report(&app);
	wl_display_disconnect(app.display);
	return 0;
}
