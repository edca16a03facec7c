/* SPDX-License-Identifier: MIT */
/*
 * ivwl-server's command line: every mistake is one clear line on stderr
 * and a distinct exit status (2 usage, 1 runtime), before anything is
 * created.
 */
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "host-util.h"

#define MAX_ARGS 12

struct cli_case {
	const char *args[MAX_ARGS];
	int code;
	const char *needle;	/* the problem, as the message names it */
};

/* "@S" stands for a socket path in the test directory, "@D" for it. */
static const struct cli_case bad_cases[] = {
	{ { NULL }, 2, "missing --socket" },
	{ { "--size", "4M" }, 2, "missing --socket" },
	{ { "--socket", "@S" }, 2, "missing --size" },
	{ { "--socket", "@S", "--size", "3M" }, 2, "not a power of two" },
	{ { "--socket", "@S", "--size", "3145728" }, 2, "not a power of two" },
	{ { "--socket", "@S", "--size", "1M" }, 2, "too small" },
	{ { "--socket", "@S", "--size", "4096" }, 2, "too small" },
	{ { "--socket", "@S", "--size", "128G" }, 2, "too large" },
	{ { "--socket", "@S", "--size", "99999999999999999999" }, 2,
	  "too large" },
	{ { "--socket", "@S", "--size", "4X" }, 2, "suffix" },
	{ { "--socket", "@S", "--size", "4MB" }, 2, "suffix" },
	{ { "--socket", "@S", "--size", "abc" }, 2, "not a size" },
	{ { "--socket", "@S", "--size", "-4M" }, 2, "not a size" },
	{ { "--socket", "@S", "--size", "" }, 2, "not a size" },
	{ { "--socket", "@S", "--size", "4M", "--vectors", "0" }, 2,
	  "--vectors: 0 is out of range" },
	{ { "--socket", "@S", "--size", "4M", "--vectors", "1025" }, 2,
	  "--vectors: 1025 is out of range" },
	{ { "--socket", "@S", "--size", "4M", "--vectors", "99999999999" }, 2,
	  "out of range" },
	{ { "--socket", "@S", "--size", "4M", "--vectors", "many" }, 2,
	  "--vectors: 'many' is not a number" },
	{ { "--socket", "@S", "--size", "4M", "--vectors", "3x" }, 2,
	  "is not a number" },
	{ { "--socket", "@S", "--size", "4M", "--frobnicate" }, 2,
	  "unknown option '--frobnicate'" },
	{ { "--socket", "@S", "--size", "4M", "-q" }, 2,
	  "unknown option '-q'" },
	{ { "--socket", "@S", "--size" }, 2, "'--size' needs an argument" },
	{ { "--socket", "@S", "--size", "4M", "stray" }, 2,
	  "unexpected argument 'stray'" },
	{ { "--socket", "@S", "--size", "4M", "--display-socket", "@S" }, 2,
	  "must differ" },
	{ { "--socket", "", "--size", "4M" }, 2, "empty" },
	{ { "--socket", "/tmp/a-socket-path-that-is-far-too-long-for-sun-"
	    "path-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	    "xxxxxxxxxxxxxxxx", "--size", "4M" }, 2, "too long" },
	/* runtime problems: exit 1 */
	{ { "--socket", "@S", "--size", "4M", "--hugepages", "@D" }, 1,
	  "not a hugetlbfs mount" },
	{ { "--socket", "@S", "--size", "4M", "--hugepages",
	    "/nonexistent-ivwl-dir" }, 1, "/nonexistent-ivwl-dir" },
};

static void
expand_args(const char *const *in, const char **out)
{
	int i;

	for (i = 0; i < MAX_ARGS - 1 && in[i]; i++) {
		if (strcmp(in[i], "@S") == 0)
			out[i] = hu_path("cli");
		else if (strcmp(in[i], "@D") == 0)
			out[i] = hu_dir();
		else
			out[i] = in[i];
	}
	out[i] = NULL;
}

static int
count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void
check_refused(const struct hu_output *o, int code, const char *needle)
{
	CHECK_EQ(hu_exit_code(o), code);
	CHECK(strstr(o->err, needle) != NULL);
	if (!strstr(o->err, needle)) {
		fputs("  got: ", stderr);
		fputs(o->err, stderr);
	}
	CHECK(strncmp(o->err, "ivwl-server: ", 13) == 0);
	CHECK_EQ(count_lines(o->err), 1);
	CHECK_EQ(strlen(o->out), 0);
}

#define NCASES (sizeof(bad_cases) / sizeof(bad_cases[0]))

/* All at once: under sanitizers each run takes a good fraction of a
 * second, mostly idle. */
static void
test_bad_arguments(void)
{
	static struct hu_output runs[NCASES];
	size_t i;

	for (i = 0; i < NCASES; i++) {
		const char *args[MAX_ARGS];

		expand_args(bad_cases[i].args, args);
		hu_run_start(args, &runs[i]);
	}
	for (i = 0; i < NCASES; i++)
		hu_run_finish(&runs[i]);

	for (i = 0; i < NCASES; i++) {
		int before = ivwl_test_failures;

		check_refused(&runs[i], bad_cases[i].code,
			      bad_cases[i].needle);
		if (ivwl_test_failures != before)
			fprintf(stderr, "  in case %zu (%s)\n", i,
				bad_cases[i].needle);
	}
	/* Refused before creating anything. */
	CHECK(access(hu_path("cli"), F_OK) < 0);
	CHECK(access(hu_path("cli.display"), F_OK) < 0);
}

static void
test_help(void)
{
	const char *args[] = { "--help", NULL };
	struct hu_output o;

	hu_run_server(args, &o);
	CHECK_EQ(hu_exit_code(&o), 0);
	CHECK(strstr(o.out, "--socket PATH") != NULL);
	CHECK(strstr(o.out, "--size SIZE") != NULL);
	CHECK(strstr(o.out, "--hugepages") != NULL);
	CHECK_EQ(strlen(o.err), 0);
}

/* Sizes in every accepted spelling, reported back in bytes. */
static void
test_good_sizes(void)
{
	static const struct {
		const char *arg;
		const char *bytes;
	} sizes[] = {
		{ "2097152", "2097152-byte" },
		{ "4096K", "4194304-byte" },
		{ "4096k", "4194304-byte" },
		{ "64M", "67108864-byte" },
		{ "1G", "1073741824-byte" },
		{ "1g", "1073741824-byte" },
	};
	enum { N = sizeof(sizes) / sizeof(sizes[0]) };
	struct hu_server srv[N];
	char name[N][16], log[N][24];
	size_t i;

	/* All at once, as the slow start of sanitized builds adds up. */
	for (i = 0; i < N; i++) {
		const char *args[] = { "--socket", NULL, "--size",
				       sizes[i].arg, "--vectors", "1024",
				       NULL };

		snprintf(name[i], sizeof(name[i]), "good%zu", i);
		snprintf(log[i], sizeof(log[i]), "good%zu.log", i);
		args[1] = hu_path(name[i]);
		hu_path(strcat(name[i], ".display"));
		hu_server_spawn(&srv[i], log[i], args);
	}
	for (i = 0; i < N; i++) {
		CHECK_EQ(hu_server_wait_ready(&srv[i]), 0);
		CHECK(strstr(hu_server_log(&srv[i]), sizes[i].bytes) != NULL);
		CHECK(strstr(hu_server_log(&srv[i]), "1024 vectors") != NULL);
	}
	for (i = 0; i < N; i++)
		if (srv[i].pid > 0)
			kill(srv[i].pid, SIGTERM);
	for (i = 0; i < N; i++)
		CHECK_EQ(hu_server_stop(&srv[i], SIGTERM), 0);
}

static int
bind_only(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		return -1;
	return fd;
}

/* A socket file left by a crashed server does not stop a new one. */
static void
test_stale_sockets(void)
{
	struct hu_server srv;
	int a, d;

	a = bind_only(hu_path("stale"));
	d = bind_only(hu_path("stale.display"));
	REQUIRE(a >= 0 && d >= 0);
	close(a);
	close(d);
	REQUIRE(access(hu_path("stale"), F_OK) == 0);

	CHECK_EQ(hu_server_start(&srv, "stale", "4M", 2), 0);
	hu_check_fresh_pair(&srv, 2, 4 << 20);
	CHECK_EQ(hu_server_stop(&srv, SIGTERM), 0);
}

/* A live server is left alone: the second one refuses to start. */
static void
test_socket_in_use(void)
{
	const char *args[] = { "--socket", NULL, "--size", "4M", NULL };
	const char *display_args[] = { "--socket", NULL, "--size", "4M",
				       "--display-socket", NULL, NULL };
	struct hu_server srv;
	struct hu_output o;

	REQUIRE(hu_server_start(&srv, "busy", "4M", 2) == 0);

	args[1] = srv.app;
	hu_run_server(args, &o);
	CHECK_EQ(hu_exit_code(&o), 1);
	CHECK(strstr(o.err, "already listening") != NULL);

	/* The app socket alone is taken too. */
	display_args[1] = srv.app;
	display_args[5] = hu_path("other.display");
	hu_run_server(display_args, &o);
	CHECK_EQ(hu_exit_code(&o), 1);
	CHECK(strstr(o.err, srv.app) != NULL);
	CHECK(access(hu_path("other.display"), F_OK) < 0);

	CHECK(hu_server_alive(&srv));
	CHECK(access(srv.app, F_OK) == 0);
	CHECK(access(srv.display, F_OK) == 0);
	hu_check_fresh_pair(&srv, 2, 4 << 20);
	CHECK_EQ(hu_server_stop(&srv, SIGTERM), 0);
}

/* Whatever else sits at the path is not ours to remove. */
static void
test_path_not_a_socket(void)
{
	const char *args[] = { "--socket", hu_path("plain"), "--size", "4M",
			       NULL };
	struct hu_output o;
	int fd;

	fd = open(hu_path("plain.display"), O_CREAT | O_WRONLY, 0600);
	REQUIRE(fd >= 0);
	close(fd);
	hu_run_server(args, &o);
	CHECK_EQ(hu_exit_code(&o), 1);
	CHECK(strstr(o.err, "not a socket") != NULL);
	CHECK(access(hu_path("plain.display"), F_OK) == 0);
	unlink(hu_path("plain.display"));
}

IVWL_TEST_MAIN(
	TEST(test_bad_arguments),
	TEST(test_help),
	TEST(test_good_sizes),
	TEST(test_stale_sockets),
	TEST(test_socket_in_use),
	TEST(test_path_not_a_socket),
)
