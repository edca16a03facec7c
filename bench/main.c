/* SPDX-License-Identifier: MIT */
/*
 * ivwl-bench: benchmarks of ivwl against the ways Wayland crosses VMs
 * today.  One subcommand per benchmark.
 */
#include <stdio.h>
#include <string.h>

#include "bench.h"

struct subcommand {
	const char *name;
	const char *summary;
	int (*main)(int argc, char *argv[]);
};

static const struct subcommand subcommands[] = {
	{ "transport", "ring vs unix socket vs stop-and-wait: GB/s, round "
		       "trip, doorbells", ivwl_bench_transport_main },
	{ "frames", "frames through weston: native vs ivwl copy vs "
		    "zero-copy vs waypipe", ivwl_bench_frames_main },
	{ "mpv", "mpv 1080p60 through native, ivwl, waypipe (and on X): "
		 "drops, CPU", ivwl_bench_mpv_main },
	{ "chromium", "chromium (or firefox) pages through native, ivwl and "
		      "waypipe: fps, CPU", ivwl_bench_chromium_main },
	{ "scale", "N VMs' windows on one weston, native vs ivwl: fds, "
		   "CPU, wake-ups", ivwl_bench_scale_main },
};

#define N_SUBCOMMANDS (sizeof(subcommands) / sizeof(subcommands[0]))

static void
usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: ivwl-bench SUBCOMMAND [OPTIONS]\n"
		   "       ivwl-bench SUBCOMMAND --help\n\nSubcommands:\n");
	for (i = 0; i < N_SUBCOMMANDS; i++)
		fprintf(f, "  %-12s %s\n", subcommands[i].name,
			subcommands[i].summary);
}

int
main(int argc, char *argv[])
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return BENCH_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < N_SUBCOMMANDS; i++)
		if (strcmp(argv[1], subcommands[i].name) == 0)
			return subcommands[i].main(argc - 1, argv + 1);

	fprintf(stderr, "ivwl-bench: unknown subcommand '%s'\n\n", argv[1]);
	usage(stderr);
	return BENCH_EXIT_USAGE;
}
