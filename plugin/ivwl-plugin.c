/* SPDX-License-Identifier: MIT */
/*
 * The plugin's open files: weston's limit raised to what the
 * administrator allows, and what a VM may still take of it.
 */
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/resource.h>

#include "ivwl-plugin.h"

static unsigned int
open_fds(void)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *e;
	unsigned int n = 0;

	if (!dir)
		return 0;
	while ((e = readdir(dir)))
		if (e->d_name[0] != '.')
			n++;
	closedir(dir);
	return n;
}

bool
ivwl_fds_to_spare(struct ivwl_plugin *plugin, unsigned int n)
{
	struct rlimit rl;
	rlim_t reserve, want;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return true;
	/* A quarter of a small limit, 64 of a desktop's 1024 and more. */
	reserve = rl.rlim_cur / 4 < 64 ? rl.rlim_cur / 4 : 64;
	want = (rlim_t)open_fds() + reserve +
	       (rlim_t)(plugin->attaching + 1) * n;
	return want <= rl.rlim_cur;
}

/*
 * A session starts weston with a soft limit of 1024 open files, which
 * dozens of VMs and their clients outgrow; the hard limit is the one the
 * administrator meant.  docs/deploy.md counts what each VM costs.
 */
void
ivwl_fds_raise_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0) {
		ivwl_log("cannot read the open-file limit: %s",
			 strerror(errno));
		return;
	}
	if (rl.rlim_cur == rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		ivwl_log("cannot raise the open-file limit to %llu: %s",
			 (unsigned long long)rl.rlim_max, strerror(errno));
	else
		ivwl_log("open-file limit raised to %llu",
			 (unsigned long long)rl.rlim_max);
}
