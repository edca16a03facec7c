/* SPDX-License-Identifier: MIT */
/*
 * The SCM_RIGHTS message module: fds arrive with their bytes, in order;
 * fds with no room are closed and reported; a whole-message receive
 * never hands out part of a message.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fdmsg.h"
#include "harness.h"

static void
pair(int type, int sv[2])
{
	REQUIRE(socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, sv) == 0);
}

static bool
is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

/* Two fds that name the same open file have the same status flags. */
static bool
same_file(int a, int b)
{
	return fcntl(a, F_GETFL) == fcntl(b, F_GETFL) &&
	       lseek(a, 0, SEEK_CUR) == lseek(b, 0, SEEK_CUR);
}

static void
test_fds_arrive_in_order(void)
{
	int sv[2], p[2], got[4], i;
	struct ivwl_fdmsg_fds fds = { .fds = got, .cap = 4 };
	char buf[8];
	ssize_t n;

	pair(SOCK_STREAM, sv);
	REQUIRE(pipe2(p, O_CLOEXEC) == 0);
	CHECK_EQ(ivwl_fdmsg_send(sv[0], "abc", 3, p, 2, 0), 3);
	n = ivwl_fdmsg_recv(sv[1], buf, sizeof(buf), 0, &fds, NULL);
	CHECK_EQ(n, 3);
	CHECK(memcmp(buf, "abc", 3) == 0);
	CHECK_EQ(fds.n, 2);
	CHECK(!fds.lost);
	/* the read end stays read-only, the write end write-only */
	CHECK_EQ(fcntl(got[0], F_GETFL) & O_ACCMODE, O_RDONLY);
	CHECK_EQ(fcntl(got[1], F_GETFL) & O_ACCMODE, O_WRONLY);
	CHECK(fcntl(got[0], F_GETFD) & FD_CLOEXEC);
	for (i = 0; i < (int)fds.n; i++)
		close(got[i]);
	close(p[0]);
	close(p[1]);
	close(sv[0]);
	close(sv[1]);
}

static void
test_no_room_is_lost(void)
{
	int sv[2], p[2], got[1];
	struct ivwl_fdmsg_fds fds = { .fds = got, .cap = 1 };
	char buf[8];

	pair(SOCK_STREAM, sv);
	REQUIRE(pipe2(p, O_CLOEXEC) == 0);
	CHECK_EQ(ivwl_fdmsg_send(sv[0], "x", 1, p, 2, 0), 1);
	CHECK_EQ(ivwl_fdmsg_recv(sv[1], buf, sizeof(buf), 0, &fds, NULL), 1);
	CHECK_EQ(fds.n, 1);
	CHECK(fds.lost);
	CHECK(same_file(got[0], p[0]));
	close(got[0]);
	close(p[0]);
	close(p[1]);
	close(sv[0]);
	close(sv[1]);
}

static void
test_too_many_to_send(void)
{
	int fds[IVWL_FDMSG_MAX_FDS + 1], sv[2];

	memset(fds, 0, sizeof(fds));
	pair(SOCK_STREAM, sv);
	CHECK_EQ(ivwl_fdmsg_send(sv[0], "x", 1, fds, IVWL_FDMSG_MAX_FDS + 1, 0),
		 -EINVAL);
	close(sv[0]);
	close(sv[1]);
}

static void
count_fd(int fd, void *data)
{
	int *seen = data;

	seen[seen[0] + 1] = fd;
	seen[0]++;
}

static void
test_each_fd(void)
{
	union ivwl_fdmsg_ctl ctl;
	int in[3] = { 7, 8, 9 }, seen[5] = { 0 };
	struct msghdr mh = { 0 };

	CHECK_EQ(ivwl_fdmsg_build(&mh, &ctl, in, 3), 0);
	ivwl_fdmsg_each_fd(&mh, count_fd, seen);
	CHECK_EQ(seen[0], 3);
	CHECK_EQ(seen[1], 7);
	CHECK_EQ(seen[3], 9);
	CHECK_EQ(ivwl_fdmsg_build(&mh, &ctl, in, 0), 0);
	CHECK(mh.msg_control == NULL);
	seen[0] = 0;
	ivwl_fdmsg_each_fd(&mh, count_fd, seen);
	CHECK_EQ(seen[0], 0);
}

static void
test_whole_message(void)
{
	int sv[2], p[2], got[2], nfds = -1;
	uint64_t msg = 0x1122334455667788ull, in = 0;

	pair(SOCK_SEQPACKET, sv);
	REQUIRE(pipe2(p, O_CLOEXEC) == 0);
	CHECK_EQ(ivwl_fdmsg_send_whole(sv[0], &msg, sizeof(msg), p, 1), 0);
	CHECK_EQ(ivwl_fdmsg_recv_whole(sv[1], &in, sizeof(in), got, 2, &nfds),
		 (int)sizeof(in));
	CHECK_EQ(nfds, 1);
	CHECK(in == msg);
	if (nfds == 1)
		close(got[0]);

	/* a short message is refused, and its fd does not leak */
	CHECK_EQ(ivwl_fdmsg_send_whole(sv[0], &msg, 4, p, 1), 0);
	got[0] = -1;
	CHECK_EQ(ivwl_fdmsg_recv_whole(sv[1], &in, sizeof(in), got, 2, &nfds),
		 -EPROTO);
	CHECK_EQ(nfds, 0);
	CHECK(got[0] < 0 || !is_open(got[0]));

	/* more fds than the receiver takes: refused too */
	CHECK_EQ(ivwl_fdmsg_send_whole(sv[0], &msg, sizeof(msg), p, 2), 0);
	CHECK_EQ(ivwl_fdmsg_recv_whole(sv[1], &in, sizeof(in), got, 1, &nfds),
		 -EPROTO);
	CHECK_EQ(nfds, 0);

	close(sv[0]);
	CHECK_EQ(ivwl_fdmsg_recv_whole(sv[1], &in, sizeof(in), got, 1, &nfds),
		 0);
	close(sv[1]);
	close(p[0]);
	close(p[1]);
}

IVWL_TEST_MAIN(TEST(test_fds_arrive_in_order), TEST(test_no_room_is_lost),
	       TEST(test_too_many_to_send), TEST(test_each_fd),
	       TEST(test_whole_message))
