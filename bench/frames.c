/*
 * `ivwl-bench frames` and `ivwl-bench mpv`: both start weston, ivwl's
 * processes and waypipe and watch them from outside, which bench/frames.py
 * does.  This execs it with the build tree that holds the binaries:
 *
 *   python3 SOURCE/bench/frames.py SUBCOMMAND --build BUILD [ARGS...]
 *
 * $IVWL_BENCH_FRAMES_PY overrides the script, $IVWL_BUILD_ROOT the tree.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

static int
frames_exec(const char *subcommand, int argc, char *argv[])
{
	const char *script = getenv("IVWL_BENCH_FRAMES_PY");
	const char *build = getenv("IVWL_BUILD_ROOT");
	char **args;
	int i, n = 0;

	if (!script || !script[0])
		script = IVWL_BENCH_FRAMES_PY;
	if (!build || !build[0])
		build = IVWL_BENCH_BUILD_ROOT;
	args = calloc((size_t)argc + 6, sizeof(*args));
	if (!args)
		return BENCH_EXIT_FAIL;
	args[n++] = "python3";
	args[n++] = (char *)script;
	args[n++] = (char *)subcommand;
	args[n++] = "--build";
	args[n++] = (char *)build;
	for (i = 1; i < argc; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	execvp("python3", args);
	fprintf(stderr, "ivwl-bench %s: cannot run python3 %s: %s\n",
		subcommand, script, strerror(errno));
	free(args);
	return BENCH_EXIT_FAIL;
}

int
ivwl_bench_frames_main(int argc, char *argv[])
{
	return frames_exec("frames", argc, argv);
}

int
ivwl_bench_mpv_main(int argc, char *argv[])
{
	return frames_exec("mpv", argc, argv);
}
