/* SPDX-License-Identifier: MIT */
/*
 * `ivwl-bench frames`, `mpv`, `chromium` and `scale`: they start weston,
 * ivwl's processes and waypipe and watch them from outside, which
 * bench/frames.py (and bench/chromium.py and bench/scale.py, on top of
 * the bench_*.py modules it is made of) does.  This execs the script with the build tree that holds the
 * binaries:
 *
 *   python3 SOURCE/bench/frames.py SUBCOMMAND --build BUILD [ARGS...]
 *   python3 SOURCE/bench/chromium.py chromium --build BUILD [ARGS...]
 *   python3 SOURCE/bench/scale.py scale --build BUILD [ARGS...]
 *
 * $IVWL_BENCH_FRAMES_PY, $IVWL_BENCH_CHROMIUM_PY and $IVWL_BENCH_SCALE_PY
 * override the scripts, $IVWL_BUILD_ROOT the tree.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

static int
script_exec(const char *script_env, const char *script,
	    const char *subcommand, int argc, char *argv[])
{
	const char *build = getenv("IVWL_BUILD_ROOT");
	char **args;
	int i, n = 0;

	if (getenv(script_env) && getenv(script_env)[0])
		script = getenv(script_env);
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
	return script_exec("IVWL_BENCH_FRAMES_PY", IVWL_BENCH_FRAMES_PY,
			   "frames", argc, argv);
}

int
ivwl_bench_mpv_main(int argc, char *argv[])
{
	return script_exec("IVWL_BENCH_FRAMES_PY", IVWL_BENCH_FRAMES_PY,
			   "mpv", argc, argv);
}

int
ivwl_bench_chromium_main(int argc, char *argv[])
{
	return script_exec("IVWL_BENCH_CHROMIUM_PY", IVWL_BENCH_CHROMIUM_PY,
			   "chromium", argc, argv);
}

int
ivwl_bench_scale_main(int argc, char *argv[])
{
	return script_exec("IVWL_BENCH_SCALE_PY", IVWL_BENCH_SCALE_PY,
			   "scale", argc, argv);
}
