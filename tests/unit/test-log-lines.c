/* SPDX-License-Identifier: MIT */
/*
 * The logger on stderr: an app's processes and their relays share one stderr,
 * so each line must reach it whole, or a reader of the log (the tests'
 * ivwl-stats parser, a person) misses lines cut by another process's.
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "log.h"

#define WRITERS 8
#define LINES 400

/* Everything the pipe brings until every writer closed it. */
static size_t
read_all(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;

	while (len < size - 1 && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	return len;
}

static void
test_lines_whole(void)
{
	static char buf[WRITERS * LINES * 128];
	int p[2], i, lines = 0, bad = 0, w, k, pid;
	char *line, *save;
	pid_t kids[WRITERS];

	REQUIRE(pipe(p) == 0);
	for (w = 0; w < WRITERS; w++) {
		kids[w] = fork();
		REQUIRE(kids[w] >= 0);
		if (kids[w] == 0) {
			close(p[0]);
			dup2(p[1], STDERR_FILENO);
			for (i = 0; i < LINES; i++)
				ivwl_log("writer %d line %d of a log line "
					 "long enough to be cut",
					 w, i);
			_exit(0);
		}
	}
	close(p[1]);
	read_all(p[0], buf, sizeof(buf));
	close(p[0]);
	for (w = 0; w < WRITERS; w++)
		waitpid(kids[w], NULL, 0);
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		lines++;
		if (sscanf(line,
			   "ivwl-shim[%d]: writer %d line %d of a log "
			   "line long enough to be cut%n",
			   &pid, &w, &i, &k) != 3 ||
		    line[k] != '\0')
			bad++;
	}
	CHECK_EQ(lines, WRITERS * LINES);
	CHECK_EQ(bad, 0);
}

static void
test_long_line_marked(void)
{
	char big[3000], buf[4096];
	int p[2];
	size_t len;

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	REQUIRE(pipe(p) == 0);
	if (fork() == 0) {
		close(p[0]);
		dup2(p[1], STDERR_FILENO);
		ivwl_log("%s", big);
		_exit(0);
	}
	close(p[1]);
	len = read_all(p[0], buf, sizeof(buf));
	close(p[0]);
	wait(NULL);
	/* one line, cut with a mark */
	CHECK_EQ(len, 1024);
	CHECK(strchr(buf, '\n') == buf + len - 1);
	CHECK(memcmp(buf + len - 4, "...\n", 4) == 0);
}

static void
test_setup(void)
{
	ivwl_log_setup("ivwl-shim", true);
	ivwl_log_set_sink(NULL, NULL);
}

IVWL_TEST_MAIN(TEST(test_setup),
	       TEST(test_lines_whole),
	       TEST(test_long_line_marked))
