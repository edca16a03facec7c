/* SPDX-License-Identifier: MIT */
/*
 * ivwl-sync-probe: a bystander that times how long the compositor takes
 * to answer it while something else goes on.  A plain Wayland client (no
 * ivwl code) of weston's own socket.
 *
 *   ivwl-sync-probe [--seconds N] [--interval-ms M]
 *
 * Every M ms (20 by default) for N seconds (10), or until SIGINT or
 * SIGTERM, a wl_display.sync round trip; then one line
 * "sync: n=N p50_ms=X p99_ms=X max_ms=X".  A lost display is an error:
 * it says so and exits with 1.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>

static volatile sig_atomic_t stop;

static void
on_stop(int sig)
{
	stop = 1;
}

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	int seconds = 10, interval = 20, i, n = 0, cap;
	struct wl_display *display;
	double *rtt, end, t;

	for (i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--seconds") == 0)
			seconds = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--interval-ms") == 0)
			interval = atoi(argv[i + 1]);
		else
			break;
	}
	if (i != argc || seconds <= 0 || interval <= 0) {
		fprintf(stderr, "usage: ivwl-sync-probe [--seconds N] "
			"[--interval-ms M]\n");
		return 2;
	}
	signal(SIGINT, on_stop);
	signal(SIGTERM, on_stop);
	display = wl_display_connect(NULL);
	if (!display) {
		fprintf(stderr, "ivwl-sync-probe: cannot connect\n");
		return 1;
	}
	cap = seconds * 1000 / interval + 1;
	rtt = calloc((size_t)cap, sizeof(*rtt));
	if (!rtt)
		return 1;
	end = now_ms() + seconds * 1000.0;
	while (!stop && n < cap && (t = now_ms()) < end) {
		if (wl_display_roundtrip(display) < 0) {
			fprintf(stderr, "ivwl-sync-probe: lost the display\n");
			return 1;
		}
		rtt[n++] = now_ms() - t;
		usleep((useconds_t)interval * 1000);
	}
	qsort(rtt, (size_t)n, sizeof(*rtt), cmp_double);
	printf("sync: n=%d p50_ms=%.1f p99_ms=%.1f max_ms=%.1f\n", n,
	       n ? rtt[n / 2] : 0, n ? rtt[(n * 99) / 100] : 0,
	       n ? rtt[n - 1] : 0);
	wl_display_disconnect(display);
	free(rtt);
	return 0;
}
