/* SPDX-License-Identifier: MIT */
/* ivwl_unix_listen: one live instance a path, stale files replaced. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"
#include "unix-listen.h"

static char dir[] = "/tmp/ivwl-unix-listen.XXXXXX";

static const char *
path_of(const char *name)
{
	static char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static void
test_second_instance_refused(void)
{
	const char *path = path_of("live");
	struct stat st, now;
	int a, b;

	a = ivwl_unix_listen(path, SOCK_SEQPACKET, 4, &st);
	REQUIRE(a >= 0);
	CHECK(fcntl(a, F_GETFL) & O_NONBLOCK);
	CHECK(stat(path, &now) == 0 && now.st_ino == st.st_ino);
	b = ivwl_unix_listen(path, SOCK_SEQPACKET, 4, NULL);
	CHECK_EQ(b, -EADDRINUSE);
	/* the live one's file is untouched */
	CHECK(stat(path, &now) == 0 && now.st_ino == st.st_ino);
	close(a);
	unlink(path);
}

static void
test_stale_replaced(void)
{
	const char *path = path_of("stale");
	struct stat before, st;
	int a, b;

	a = ivwl_unix_listen(path, SOCK_STREAM, 4, &before);
	REQUIRE(a >= 0);
	close(a);	/* a crash leaves the file behind */
	REQUIRE(access(path, F_OK) == 0);
	b = ivwl_unix_listen(path, SOCK_STREAM, 4, &st);
	CHECK(b >= 0);
	CHECK(st.st_ino != 0);
	close(b);
	unlink(path);
}

static void
test_not_a_socket(void)
{
	const char *path = path_of("file");
	int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);

	REQUIRE(fd >= 0);
	close(fd);
	CHECK_EQ(ivwl_unix_listen(path, SOCK_STREAM, 4, NULL), -EEXIST);
	CHECK(access(path, F_OK) == 0);
	unlink(path);
}

static void
test_long_path(void)
{
	char path[200];

	memset(path, 'a', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	CHECK_EQ(ivwl_unix_listen(path, SOCK_STREAM, 4, NULL), -ENAMETOOLONG);
}

static void
setup(void)
{
	REQUIRE(mkdtemp(dir));
}

static void
teardown(void)
{
	rmdir(dir);
}

IVWL_TEST_MAIN(TEST(setup), TEST(test_second_instance_refused),
	       TEST(test_stale_replaced), TEST(test_not_a_socket),
	       TEST(test_long_path), TEST(teardown))
