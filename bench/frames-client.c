/* SPDX-License-Identifier: MIT */
/*
 * ivwl-frames-client: the Wayland client of `ivwl-bench frames`.  A plain
 * client (no ivwl code): it maps one xdg_toplevel, draws into two wl_shm
 * buffers of a memfd it creates itself, commits one frame per frame
 * callback and asks wp_presentation for feedback on every commit.
 *
 *   ivwl-frames-client --width W --height H [--damage full|band]
 *                      [--frames N] [--warmup N] [--sync-every N]
 *                      [--title T]
 *   ivwl-frames-client --width W --height H --control [--idle] [--title T]
 *
 * Damage "full" repaints and damages the whole buffer every frame;
 * "band" repaints and damages one fixed band of 1/8 of the height in the
 * middle of the window (a video playing in part of a window).  Either
 * way a frame writes exactly the pixels it damages: every pixel of a
 * buffer depends only on the frame that last touched its region, and the
 * band never moves, so the two buffers never need catching up.
 *
 * Behind every Nth measured commit (--sync-every N, default 1: every one)
 * goes a wl_display.sync: commit to its done is the commit's round trip
 * through the transport and weston's commit handling (the presentation
 * latency is mostly weston's repaint clock).  A client that waits for a
 * round trip every frame is woken twice a frame; one drawn by frame
 * callbacks alone, as most are, once: N above 1 measures the round trip
 * on a sample of the frames and leaves the others to frame callbacks.
 *
 * Protocol on stdout, one line each, for the driver:
 *   ready PID                   mapped, warm-up frames done, measuring
 *   done KEY=VALUE ...          the measured frames are all accounted for
 * Then it waits for end of file (or a line) on stdin before it
 * disconnects, so the driver can read every process's counters while the
 * connection is still up.
 *
 * --control (`ivwl-bench scale`): no measured frames and no
 * wl_display.sync; it commits one frame per frame callback until told to
 * stop, and answers commands on stdin, one line each:
 *   up PID                      (unasked) its first frame was presented,
 *                               or weston repainted with it (frame
 *                               callback done) and the relay, with no
 *                               trustworthy clock, said discarded
 *   count     -> count presented=N discarded=N committed=N now_ns=T
 *   stop      -> stopped committed=N    commits no more, stays connected
 *   end of file                 disconnects
 * now_ns is CLOCK_MONOTONIC, so the driver can take frames per second
 * from two counts without timing the pipe.
 *
 * Every presented time is also compared with the client's own clock (the
 * one wp_presentation.clock_id names) when the event arrives: it must lie
 * in the past, by at most one refresh and 2 ms, and no more than 2 ms in
 * the future.  "done" carries clock_future (more than 2 ms ahead: always
 * a wrong clock), clock_late (older than a refresh and 2 ms: a wrong
 * clock, or an event delivered late by a busy machine), clock_bad (their
 * sum) and the range seen.  --check-clock makes any clock_future, or
 * clock_late for more than 1 in 20 frames, a failure.  Tests that
 * fake an app clock ahead of the display's add IVWL_TEST_CLOCK_OFFSET_NS
 * to every clock read, as the agent and relay do.
 *
 * With IVWL_FRAME_TRACE=DIR (protocol/util/frame-trace.h) it also writes
 * DIR/frames-client-PID.frames at the end: "first_commit N", N being the
 * number of wl_surface.commit before the first measured frame, then one
 * line per measured frame: index, CLOCK_MONOTONIC of its commit, of its
 * presentation (converted from the clock_id's clock at receipt) and of
 * the receipt, 0 for a frame not presented.  bench/frames.py lines them
 * up with the relay's and the plugin's trace.  --idle commits one frame and
 * then nothing: a window that is open and still.  While stopped or idle
 * it sleeps in poll with no timeout, so it wakes only when asked.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "presentation-time-client-protocol.h"

/* Gives up on a frame callback or feedback that never comes. */
#define FRAMES_STALL_MS 10000
/* How far a presented time may be from our clock at receipt (2 ms). */
#define FRAMES_CLOCK_SLACK_NS 2000000ll

static int64_t frames_test_offset_ns;

/* A measured frame's times, CLOCK_MONOTONIC, for the frame trace. */
struct frames_stage {
	uint64_t commit, presented, received;
};

/* One commit waiting for its presentation feedback. */
struct frames_pending {
	struct frames_client *app;
	struct wp_presentation_feedback *fb;
	uint64_t commit_ns;
	int index;		/* measured frame number, -1 for warm-up */
};

struct frames_client {
	struct wl_display *display;
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm_base;
	struct wp_presentation *presentation;
	clockid_t clock;
	struct ivwl_client_window win;
	struct ivwl_client_buffer buffers[2];
	/* none asked for: a frame is due */
	struct ivwl_client_frame frame;
	int width, height;
	bool full_damage;
	int warmup, frames;
	int sync_every;		/* a sync behind every Nth measured commit */
	const char *title;

	bool control;		/* --control: runs until stdin ends */
	bool stopped;		/* --control: commits no more */
	bool idle;		/* --idle: stops after its first commit */
	int committed;		/* every commit, warm-up included */
	int measured_committed;
	int outstanding;	/* feedbacks not yet in */
	int presented, discarded;
	int presented_all, discarded_all;	/* warm-up included */
	uint64_t *latency_ns;	/* per measured frame, 0 = not presented */
	uint64_t *rtt_ns;	/* commit to wl_display.sync done, per frame */
	uint64_t start_ns, last_presented_ns, first_presented_ns;
	uint64_t touched_bytes;
	/* receipt - presented, over every presented event */
	int64_t clock_dev_min, clock_dev_max;
	int clock_future, clock_late;
	bool check_clock;
	struct frames_stage *stages;	/* per measured frame */
};

static uint64_t
frames_now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec +
	       (uint64_t)frames_test_offset_ns;
}

/* The presented time t against our clock now, allowing one refresh. */
static void
frames_check_clock(struct frames_client *app, uint64_t t, uint32_t refresh)
{
	int64_t dev = (int64_t)(frames_now_ns(app->clock) - t);

	if (app->presented_all == 1 || dev < app->clock_dev_min)
		app->clock_dev_min = dev;
	if (app->presented_all == 1 || dev > app->clock_dev_max)
		app->clock_dev_max = dev;
	if (dev < -FRAMES_CLOCK_SLACK_NS)
		app->clock_future++;
	else if (dev > (int64_t)refresh + FRAMES_CLOCK_SLACK_NS)
		app->clock_late++;
}

/* --check-clock: no time in the future, and late ones only rarely. */
static bool
frames_clock_ok(const struct frames_client *app)
{
	return app->clock_future == 0 &&
	       app->clock_late * 20 <= app->presented_all;
}

/* Two buffers in one memfd; the pool goes at once, the mapping stays. */
static int
frames_create_buffers(struct frames_client *app)
{
	size_t size = (size_t)app->width * 4 * (size_t)app->height;
	struct ivwl_client_pool pool;
	int i;

	if (ivwl_client_pool_init(&pool, app->shm, -1, 2 * size,
				  "ivwl-frames") < 0)
		return -1;
	for (i = 0; i < 2; i++)
		ivwl_client_buffer_init(&app->buffers[i], &pool, i * size,
					app->width, app->height,
					WL_SHM_FORMAT_XRGB8888);
	ivwl_client_pool_drop(&pool);
	return 0;
}

/* Rows [*y, *y + *h) are what frames repaint and damage. */
static void
frames_damage_rows(const struct frames_client *app, int *y, int *h)
{
	if (app->full_damage) {
		*y = 0;
		*h = app->height;
		return;
	}
	*h = app->height / 8 > 1 ? app->height / 8 : 1;
	*y = (app->height - *h) / 2;
}

/* A colour per frame, a gradient across x so no two rows are memsets. */
static void
frames_paint(struct frames_client *app, struct ivwl_client_buffer *b, int frame,
	     int y0, int h)
{
	uint32_t base = 0xff000000u | ((uint32_t)frame * 0x030507u & 0xffffffu);
	uint32_t *row;
	int x, y;

	for (y = y0; y < y0 + h; y++) {
		row = b->pixels + (size_t)y * (size_t)app->width;
		for (x = 0; x < app->width; x++)
			row[x] = base + (uint32_t)(x + y);
	}
	app->touched_bytes += (uint64_t)h * (uint64_t)app->width * 4;
}

static void
feedback_sync_output(void *data, struct wp_presentation_feedback *fb,
		     struct wl_output *output)
{
}

static void
frames_pending_done(struct frames_pending *p)
{
	p->app->outstanding--;
	wp_presentation_feedback_destroy(p->fb);
	free(p);
}

static void
feedback_presented(void *data, struct wp_presentation_feedback *fb,
		   uint32_t tv_sec_hi, uint32_t tv_sec_lo, uint32_t tv_nsec,
		   uint32_t refresh, uint32_t seq_hi, uint32_t seq_lo,
		   uint32_t flags)
{
	struct frames_pending *p = data;
	struct frames_client *app = p->app;
	uint64_t t = (((uint64_t)tv_sec_hi << 32 | tv_sec_lo) * 1000000000ull) +
		     tv_nsec;

	app->presented_all++;
	frames_check_clock(app, t, refresh);
	if (p->index >= 0) {
		struct frames_stage *st = &app->stages[p->index];
		uint64_t mono = frames_now_ns(CLOCK_MONOTONIC);

		/* Our clock_id's clock to raw CLOCK_MONOTONIC, read now. */
		st->received = mono - (uint64_t)frames_test_offset_ns;
		st->presented = t - (frames_now_ns(app->clock) - mono) -
				(uint64_t)frames_test_offset_ns;
		app->presented++;
		/* A presentation before the commit's clock read: count 1 ns. */
		app->latency_ns[p->index] = t > p->commit_ns ?
					    t - p->commit_ns : 1;
		if (!app->first_presented_ns)
			app->first_presented_ns = t;
		if (t > app->last_presented_ns)
			app->last_presented_ns = t;
	}
	frames_pending_done(p);
}

static void
feedback_discarded(void *data, struct wp_presentation_feedback *fb)
{
	struct frames_pending *p = data;

	p->app->discarded_all++;
	if (p->index >= 0)
		p->app->discarded++;
	frames_pending_done(p);
}

static const struct wp_presentation_feedback_listener feedback_listener = {
	feedback_sync_output,
	feedback_presented,
	feedback_discarded,
};

/* The wl_display.sync sent right behind a measured commit. */
struct frames_sync {
	struct frames_client *app;
	uint64_t commit_ns;
	int index;
};

static void
sync_done(void *data, struct wl_callback *cb, uint32_t serial)
{
	struct frames_sync *sy = data;
	struct frames_client *app = sy->app;
	uint64_t t = frames_now_ns(app->clock);

	app->rtt_ns[sy->index] = t > sy->commit_ns ? t - sy->commit_ns : 1;
	app->outstanding--;
	wl_callback_destroy(cb);
	free(sy);
}

static const struct wl_callback_listener sync_listener = {
	sync_done,
};

static int
frames_commit(struct frames_client *app)
{
	struct ivwl_client_buffer *b = &app->buffers[app->committed % 2];
	struct frames_pending *p;
	struct wl_callback *cb;
	int y, h;

	if (b->busy)
		b = &app->buffers[(app->committed + 1) % 2];
	if (b->busy)
		return -EAGAIN;	/* both held: wait for a release */

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	/*
	 * The first frame in each buffer is whole (and alike in both), the
	 * rest is damage.
	 */
	frames_damage_rows(app, &y, &h);
	if (app->committed < 2)
		frames_paint(app, b, 0, 0, app->height);
	else
		frames_paint(app, b, app->committed, y, h);

	ivwl_client_buffer_attach(b, app->win.surface);
	if (app->committed < 2)
		wl_surface_damage_buffer(app->win.surface, 0, 0, app->width,
					 app->height);
	else
		wl_surface_damage_buffer(app->win.surface, 0, y, app->width,
					 h);
	ivwl_client_frame_ask(&app->frame, app->win.surface);
	p->app = app;
	p->index = app->committed >= app->warmup ?
		   app->committed - app->warmup : -1;
	p->fb = wp_presentation_feedback(app->presentation, app->win.surface);
	wp_presentation_feedback_add_listener(p->fb, &feedback_listener, p);
	app->outstanding++;
	p->commit_ns = frames_now_ns(app->clock);
	if (p->index >= 0)
		app->stages[p->index].commit =
			frames_now_ns(CLOCK_MONOTONIC) -
			(uint64_t)frames_test_offset_ns;
	wl_surface_commit(app->win.surface);
	if (p->index >= 0 && p->index % app->sync_every == 0) {
		/* How long the commit takes to reach weston and back. */
		struct frames_sync *sy = calloc(1, sizeof(*sy));

		if (sy) {
			sy->app = app;
			sy->index = p->index;
			sy->commit_ns = p->commit_ns;
			cb = wl_display_sync(app->display);
			wl_callback_add_listener(cb, &sync_listener, sy);
			app->outstanding++;
		}
	}
	wl_display_flush(app->display);
	app->committed++;
	if (p->index >= 0)
		app->measured_committed++;
	return 0;
}

static void
presentation_clock_id(void *data, struct wp_presentation *pres,
		      uint32_t clk_id)
{
	struct frames_client *app = data;

	app->clock = (clockid_t)clk_id;
}

static const struct wp_presentation_listener presentation_listener = {
	presentation_clock_id,
};

/*
 * Every wl_output, as toolkits and browsers do: then each presented
 * comes after a sync_output for it.  Its own events go unheard.
 */
static void
registry_output(struct ivwl_client_registry *reg, uint32_t name,
		const char *iface, uint32_t version)
{
	if (strcmp(iface, wl_output_interface.name) == 0)
		wl_registry_bind(reg->wl, name, &wl_output_interface, 1);
}

/*
 * Dispatches once, waiting at most timeout_ms (-1: for ever) for events
 * or for input on extra_fd (-1: none, poll skips it); -1 on error or
 * stall.  *extra_ready (if not NULL) says whether extra_fd is readable.
 */
static int
frames_wait(struct frames_client *app, int extra_fd, int timeout_ms,
	    bool *extra_ready)
{
	struct pollfd pfd[2] = {
		{ .fd = wl_display_get_fd(app->display), .events = POLLIN },
		{ .fd = extra_fd, .events = POLLIN },
	};
	int n;

	while (wl_display_prepare_read(app->display) != 0)
		if (wl_display_dispatch_pending(app->display) < 0)
			return -1;
	if (wl_display_flush(app->display) < 0 && errno != EAGAIN) {
		wl_display_cancel_read(app->display);
		return -1;
	}
	do {
		n = poll(pfd, 2, timeout_ms);
	} while (n < 0 && errno == EINTR);
	if (n <= 0) {
		wl_display_cancel_read(app->display);
		if (n == 0)
			fprintf(stderr, "ivwl-frames-client: no event for "
				"%d ms\n", timeout_ms);
		else
			fprintf(stderr, "ivwl-frames-client: poll: %s\n",
				strerror(errno));
		return -1;
	}
	if (extra_ready)
		*extra_ready = pfd[1].revents != 0;
	/* Only the other fd woke us: nothing to read from the display. */
	if (!pfd[0].revents) {
		wl_display_cancel_read(app->display);
		return 0;
	}
	if (wl_display_read_events(app->display) < 0)
		return -1;
	return wl_display_dispatch_pending(app->display) < 0 ? -1 : 0;
}

/* Dispatches once, waiting at most FRAMES_STALL_MS; -1 on error/stall. */
static int
frames_dispatch(struct frames_client *app)
{
	return frames_wait(app, -1, FRAMES_STALL_MS, NULL);
}

static int
frames_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of the n sorted values. */
static double
frames_percentile_us(const uint64_t *sorted, int n, int pct)
{
	int rank;

	if (n <= 0)
		return 0.0;
	rank = (pct * n + 99) / 100;
	if (rank < 1)
		rank = 1;
	return (double)sorted[rank - 1] / 1000.0;
}

/* Sorts the non-zero values of v[0..n) into out; how many there were. */
static int
frames_sorted(const uint64_t *v, int n, uint64_t *out)
{
	int i, k = 0;

	for (i = 0; i < n; i++)
		if (v[i])
			out[k++] = v[i];
	qsort(out, (size_t)k, sizeof(*out), frames_cmp_u64);
	return k;
}

static void
frames_report(struct frames_client *app)
{
	uint64_t *lat = calloc((size_t)app->frames + 1, sizeof(*lat));
	uint64_t *rtt = calloc((size_t)app->frames + 1, sizeof(*rtt));
	uint64_t span, sum = 0;
	struct rusage ru;
	int i, n, nrtt;
	double fps = 0.0, cpu_ms;

	if (!lat || !rtt) {
		free(lat);
		free(rtt);
		printf("done error=oom\n");
		return;
	}
	n = frames_sorted(app->latency_ns, app->frames, lat);
	nrtt = frames_sorted(app->rtt_ns, app->frames, rtt);
	for (i = 0; i < n; i++)
		sum += lat[i];
	span = app->last_presented_ns > app->start_ns ?
	       app->last_presented_ns - app->start_ns : 0;
	if (span)
		fps = (double)app->presented * 1e9 / (double)span;
	getrusage(RUSAGE_SELF, &ru);
	cpu_ms = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
		 (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
	printf("done committed=%d presented=%d discarded=%d "
	       "latency_p50_us=%.1f latency_p99_us=%.1f latency_mean_us=%.1f "
	       "latency_max_us=%.1f commit_rtt_p50_us=%.1f "
	       "commit_rtt_p99_us=%.1f fps=%.2f span_ms=%.3f "
	       "touched_bytes=%llu client_cpu_ms_total=%.3f width=%d "
	       "height=%d damage=%s clock_id=%d clock_bad=%d "
	       "clock_future=%d clock_late=%d "
	       "clock_dev_min_us=%.1f clock_dev_max_us=%.1f\n",
	       app->measured_committed, app->presented, app->discarded,
	       frames_percentile_us(lat, n, 50),
	       frames_percentile_us(lat, n, 99),
	       n ? (double)sum / n / 1000.0 : 0.0,
	       n ? (double)lat[n - 1] / 1000.0 : 0.0,
	       frames_percentile_us(rtt, nrtt, 50),
	       frames_percentile_us(rtt, nrtt, 99), fps,
	       (double)span / 1e6, (unsigned long long)app->touched_bytes,
	       cpu_ms, app->width, app->height,
	       app->full_damage ? "full" : "band", (int)app->clock,
	       app->clock_future + app->clock_late, app->clock_future,
	       app->clock_late, (double)app->clock_dev_min / 1000.0,
	       (double)app->clock_dev_max / 1000.0);
	fflush(stdout);
	free(lat);
	free(rtt);
}

/* IVWL_FRAME_TRACE: the measured frames' times for bench/frames.py. */
static void
frames_write_stages(const struct frames_client *app)
{
	const char *dir = getenv("IVWL_FRAME_TRACE");
	char path[4096];
	FILE *f;
	int i;

	if (!dir || !dir[0])
		return;
	snprintf(path, sizeof(path), "%s/frames-client-%d.frames", dir,
		 (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return;
	/* the first commit maps the window; warm-up frames follow */
	fprintf(f, "first_commit %d\n", app->warmup + 1);
	for (i = 0; i < app->frames; i++)
		fprintf(f, "%d %llu %llu %llu\n", i,
			(unsigned long long)app->stages[i].commit,
			(unsigned long long)app->stages[i].presented,
			(unsigned long long)app->stages[i].received);
	fclose(f);
}

/* Waits for the first configure and makes the buffers: ready to draw. */
static int
frames_start(struct frames_client *app)
{
	while (!app->win.configured)
		if (frames_dispatch(app) < 0)
			return -1;
	if (frames_create_buffers(app) < 0)
		return -1;
	return 0;
}

static int
frames_run(struct frames_client *app)
{
	int total = app->warmup + app->frames, ret;

	if (frames_start(app) < 0)
		return -1;
	while (app->committed < total || app->outstanding > 0) {
		if (app->committed == app->warmup && !app->frame.callback &&
		    !app->start_ns) {
			/* Warm-up frames all presented or dropped by now? */
			if (app->outstanding > 0) {
				if (frames_dispatch(app) < 0)
					return -1;
				continue;
			}
			app->start_ns = frames_now_ns(app->clock);
			printf("ready %d\n", (int)getpid());
			fflush(stdout);
		}
		if (app->committed < total && !app->frame.callback) {
			ret = frames_commit(app);
			if (ret == -ENOMEM)
				return -1;
			if (ret == 0)
				continue;
		}
		if (frames_dispatch(app) < 0)
			return -1;
	}
	return 0;
}

/*
 * One command line from the driver (--control); the reply goes out at
 * once, so the driver can wait for it.
 */
static void
frames_command(struct frames_client *app, const char *cmd)
{
	if (strcmp(cmd, "count") == 0)
		printf("count presented=%d discarded=%d committed=%d "
		       "now_ns=%llu\n", app->presented_all,
		       app->discarded_all, app->committed,
		       (unsigned long long)frames_now_ns(CLOCK_MONOTONIC));
	else if (strcmp(cmd, "stop") == 0) {
		app->stopped = true;
		printf("stopped committed=%d\n", app->committed);
	} else
		printf("error unknown command '%s'\n", cmd);
	fflush(stdout);
}

/*
 * Reads what stdin has (poll said it is readable) and runs every whole
 * line in it; false at end of file.  read(), not stdio: a line stdio
 * buffered would never wake poll again.
 */
static bool
frames_read_commands(struct frames_client *app, char *buf, size_t *len,
		     size_t cap)
{
	ssize_t n = read(STDIN_FILENO, buf + *len, cap - 1 - *len);
	char *start = buf, *nl;

	if (n < 0)
		return errno == EINTR || errno == EAGAIN;
	if (n == 0)
		return false;
	*len += (size_t)n;
	buf[*len] = '\0';
	while ((nl = strchr(start, '\n'))) {
		*nl = '\0';
		frames_command(app, start);
		start = nl + 1;
	}
	*len -= (size_t)(start - buf);
	memmove(buf, start, *len);
	if (*len == cap - 1)
		*len = 0;	/* a line longer than any command: drop it */
	return true;
}

/* --control: animates (or, --idle, shows one frame) until stdin ends. */
static int
frames_control_run(struct frames_client *app)
{
	char buf[256];
	size_t len = 0;
	bool up = false, input = false;
	int ret;

	if (frames_start(app) < 0)
		return -1;
	for (;;) {
		if (!app->stopped && !app->frame.callback) {
			ret = frames_commit(app);
			if (ret == -ENOMEM)
				return -1;
			if (ret == 0 && app->idle)
				app->stopped = true;
		}
		if (!up && (app->presented_all > 0 ||
			    (app->discarded_all > 0 && app->frame.done > 0))) {
			printf("up %d\n", (int)getpid());
			fflush(stdout);
			up = true;
		}
		if (frames_wait(app, STDIN_FILENO, -1, &input) < 0)
			return -1;
		if (input && !frames_read_commands(app, buf, &len,
						   sizeof(buf)))
			return 0;
	}
}

static void
frames_usage(FILE *f)
{
	fprintf(f, "Usage: ivwl-frames-client --width W --height H "
		   "[--damage full|band] [--frames N] [--warmup N] "
		   "[--sync-every N] [--title T] [--check-clock]\n"
		   "       ivwl-frames-client --width W --height H --control "
		   "[--idle] [--title T]\n");
}

int
main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "width", required_argument, NULL, 'w' },
		{ "height", required_argument, NULL, 'h' },
		{ "damage", required_argument, NULL, 'd' },
		{ "frames", required_argument, NULL, 'n' },
		{ "warmup", required_argument, NULL, 'u' },
		{ "sync-every", required_argument, NULL, 's' },
		{ "title", required_argument, NULL, 't' },
		{ "control", no_argument, NULL, 'c' },
		{ "idle", no_argument, NULL, 'i' },
		{ "check-clock", no_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'H' },
		{ 0 }
	};
	struct frames_client app = {
		.width = 1920, .height = 1080, .full_damage = true,
		.warmup = 30, .frames = 300, .sync_every = 1,
		.title = "ivwl-frames",
		.clock = CLOCK_MONOTONIC,
	};
	struct ivwl_client_global globals[] = {
		IVWL_CLIENT_SHELL_GLOBALS(&app.compositor, &app.shm,
					  &app.wm_base),
		IVWL_CLIENT_GLOBAL(wp_presentation_interface, 1,
				   &app.presentation,
				   .listener = &presentation_listener,
				   .data = &app),
		{ 0 },
	};
	struct ivwl_client_registry reg = {
		.globals = globals,
		.other = registry_output,
	};
	char line[64];
	int c, status = 1;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'w': app.width = atoi(optarg); break;
		case 'h': app.height = atoi(optarg); break;
		case 'n': app.frames = atoi(optarg); break;
		case 'u': app.warmup = atoi(optarg); break;
		case 's': app.sync_every = atoi(optarg); break;
		case 't': app.title = optarg; break;
		case 'c': app.control = true; break;
		case 'i': app.idle = true; break;
		case 'k': app.check_clock = true; break;
		case 'd':
			if (strcmp(optarg, "full") == 0)
				app.full_damage = true;
			else if (strcmp(optarg, "band") == 0)
				app.full_damage = false;
			else {
				frames_usage(stderr);
				return 2;
			}
			break;
		case 'H': frames_usage(stdout); return 0;
		default: frames_usage(stderr); return 2;
		}
	}
	if (getenv("IVWL_TEST_CLOCK_OFFSET_NS"))
		frames_test_offset_ns =
			strtoll(getenv("IVWL_TEST_CLOCK_OFFSET_NS"), NULL, 10);
	if (app.width < 8 || app.height < 8 || app.width > 16384 ||
	    app.height > 16384 || app.frames < 1 || app.warmup < 2 ||
	    app.sync_every < 1 ||
	    (app.idle && !app.control)) {
		frames_usage(stderr);
		return 2;
	}
	/* Every commit is a warm-up one: no sync, no per-frame records. */
	if (app.control)
		app.warmup = INT_MAX;
	app.latency_ns = calloc((size_t)app.frames, sizeof(*app.latency_ns));
	app.rtt_ns = calloc((size_t)app.frames, sizeof(*app.rtt_ns));
	app.stages = calloc((size_t)app.frames, sizeof(*app.stages));
	if (!app.latency_ns || !app.rtt_ns || !app.stages)
		goto err_latency;

	/* the second round trip: the clock_id event */
	app.display = ivwl_client_connect(&reg, 2, "ivwl-frames-client");
	if (!app.display)
		goto err_latency;

	/* The size is ours: the benchmark measures this size. */
	ivwl_client_toplevel_init(&app.win, app.compositor, app.wm_base,
				  app.title, NULL);
	wl_surface_commit(app.win.surface);

	if (app.control) {
		if (frames_control_run(&app) == 0)
			status = 0;
		else
			fprintf(stderr, "ivwl-frames-client: connection failed "
				"after %d commits\n", app.committed);
		goto err_display;
	}
	if (frames_run(&app) < 0) {
		fprintf(stderr, "ivwl-frames-client: connection failed or "
			"stalled after %d commits\n", app.committed);
		goto err_display;
	}
	frames_report(&app);
	frames_write_stages(&app);
	/* Stay connected until the driver has read its counters. */
	while (fgets(line, sizeof(line), stdin))
		break;
	status = app.check_clock && !frames_clock_ok(&app) ? 3 : 0;

err_display:
	wl_display_disconnect(app.display);
err_latency:
	free(app.latency_ns);
	free(app.rtt_ns);
	free(app.stages);
	return status;
}
