/* SPDX-License-Identifier: MIT */
/*
 * The ringer thread (protocol/ringer.h) against a peer that blocks its
 * eventfds, and the drain that must not block on one either.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "device-backend.h"
#include "harness.h"
#include "mono-time.h"
#include "ringer.h"

#define NFDS 70		/* two bitmap words */
#define FULL 0xfffffffffffffffeull

static void
open_fds(int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		fds[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		REQUIRE(fds[i] >= 0);
	}
}

static void
close_fds(int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++)
		close(fds[i]);
}

/* What arrives on fd within timeout_ms, waiting until want came. */
static uint64_t
collect(int fd, uint64_t want, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int64_t end = ivwl_now_ms() + timeout_ms;
	uint64_t got = 0, v;

	while (got < want && ivwl_now_ms() < end) {
		if (poll(&pfd, 1, 10) == 1 && read(fd, &v, sizeof(v)) ==
		    sizeof(v))
			got += v;
	}
	return got;
}

/* The peer's attack: a full counter and O_NONBLOCK off, on its side. */
static void
block_fd(int fd)
{
	uint64_t full = FULL;

	REQUIRE(write(fd, &full, sizeof(full)) == sizeof(full));
	REQUIRE(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == 0);
}

static void
test_rings_arrive_counted(void)
{
	struct ivwl_ringer *r;
	int fds[NFDS], i;

	open_fds(fds, NFDS);
	REQUIRE(ivwl_ringer_create(fds, NFDS, &r) == 0);
	for (i = 0; i < 3; i++)
		CHECK_EQ(ivwl_ringer_ring(r, 0), 0);
	CHECK_EQ(ivwl_ringer_ring(r, 65), 0);
	CHECK_EQ(ivwl_ringer_ring(r, NFDS - 1), 0);
	CHECK_EQ(ivwl_ringer_ring(r, NFDS), -EINVAL);
	CHECK_EQ(collect(fds[0], 3, 2000), 3);
	CHECK_EQ(collect(fds[65], 1, 2000), 1);
	CHECK_EQ(collect(fds[NFDS - 1], 1, 2000), 1);
	/* nothing more, nothing elsewhere */
	CHECK_EQ(collect(fds[0], 1, 50), 0);
	CHECK_EQ(collect(fds[1], 1, 50), 0);

	/* many rings from a busy caller: every one counted */
	for (i = 0; i < 10000; i++)
		CHECK_EQ(ivwl_ringer_ring(r, (uint32_t)(i % 2) * 64), 0);
	CHECK_EQ(collect(fds[0], 5000, 2000), 5000);
	CHECK_EQ(collect(fds[64], 5000, 2000), 5000);
	ivwl_ringer_destroy(r, IVWL_RINGER_FLUSH_MS);
	close_fds(fds, NFDS);
}

static void
test_destroy_flushes(void)
{
	struct ivwl_ringer *r;
	int fds[2];

	open_fds(fds, 2);
	REQUIRE(ivwl_ringer_create(fds, 2, &r) == 0);
	CHECK_EQ(ivwl_ringer_ring(r, 1), 0);
	ivwl_ringer_destroy(r, IVWL_RINGER_FLUSH_MS);
	/* already there: no waiting */
	CHECK_EQ(ivwl_eventfd_drain(fds[1]), 1);
	close_fds(fds, 2);
}

/*
 * A peer that keeps the counter full with O_NONBLOCK cleared: the caller
 * never waits, the error comes after the bound and stays, and destroy
 * cancels the write.
 */
static void
test_blocked_peer_is_stuck(void)
{
	struct ivwl_ringer *r;
	int64_t start, t, first_error = -1, worst = 0;
	int fds[3], ret;

	open_fds(fds, 3);
	block_fd(fds[1]);
	REQUIRE(ivwl_ringer_create(fds, 3, &r) == 0);
	start = ivwl_now_ms();
	while (ivwl_now_ms() - start < 3 * IVWL_RINGER_STUCK_MS) {
		t = ivwl_now_ms();
		ret = ivwl_ringer_ring(r, 1);
		if (ivwl_now_ms() - t > worst)
			worst = ivwl_now_ms() - t;
		if (ret == -ETIMEDOUT) {
			first_error = ivwl_now_ms() - start;
			break;
		}
		CHECK_EQ(ret, 0);
		usleep(20 * 1000);
	}
	CHECK(worst < 100);
	CHECK(first_error >= IVWL_RINGER_STUCK_MS);
	CHECK(first_error < IVWL_RINGER_STUCK_MS + 500);
	/* stuck for the peer: every vector, at once, for good */
	t = ivwl_now_ms();
	CHECK_EQ(ivwl_ringer_ring(r, 0), -ETIMEDOUT);
	CHECK_EQ(ivwl_ringer_ring(r, 1), -ETIMEDOUT);
	CHECK(ivwl_now_ms() - t < 100);

	t = ivwl_now_ms();
	ivwl_ringer_destroy(r, IVWL_RINGER_FLUSH_MS);
	CHECK(ivwl_now_ms() - t < 1000);
	close_fds(fds, 3);
}

/* Blocked, but not for long: a peer that reads in time is not stuck. */
static void
test_short_block_is_fine(void)
{
	struct ivwl_ringer *r;
	uint64_t v;
	int fds[1];

	open_fds(fds, 1);
	block_fd(fds[0]);
	REQUIRE(ivwl_ringer_create(fds, 1, &r) == 0);
	CHECK_EQ(ivwl_ringer_ring(r, 0), 0);
	usleep(200 * 1000);
	CHECK_EQ(read(fds[0], &v, sizeof(v)), sizeof(v));
	CHECK_EQ(v, FULL);
	CHECK_EQ(collect(fds[0], 1, 2000), 1);
	CHECK_EQ(ivwl_ringer_ring(r, 0), 0);
	CHECK_EQ(collect(fds[0], 1, 2000), 1);
	ivwl_ringer_destroy(r, IVWL_RINGER_FLUSH_MS);
	close_fds(fds, 1);
}

/* Destroy while the write is blocked, before the bound: no hang either. */
static void
test_destroy_cancels_blocked_write(void)
{
	struct ivwl_ringer *r;
	int64_t t;
	int fds[1];

	open_fds(fds, 1);
	block_fd(fds[0]);
	REQUIRE(ivwl_ringer_create(fds, 1, &r) == 0);
	CHECK_EQ(ivwl_ringer_ring(r, 0), 0);
	usleep(50 * 1000);
	t = ivwl_now_ms();
	ivwl_ringer_destroy(r, 0);
	CHECK(ivwl_now_ms() - t < 500);

	REQUIRE(ivwl_ringer_create(fds, 1, &r) == 0);
	CHECK_EQ(ivwl_ringer_ring(r, 0), 0);
	usleep(50 * 1000);
	t = ivwl_now_ms();
	ivwl_ringer_destroy(r, IVWL_RINGER_FLUSH_MS);
	CHECK(ivwl_now_ms() - t < IVWL_RINGER_FLUSH_MS + 500);
	close_fds(fds, 1);
}

/*
 * The drain on an eventfd whose O_NONBLOCK the peer cleared: an empty
 * counter returns 0 at once (SIGALRM ends the test if it blocks).
 */
static void
test_drain_never_blocks(void)
{
	uint64_t two = 2;
	int fd = eventfd(0, EFD_CLOEXEC);

	REQUIRE(fd >= 0);
	alarm(10);
	CHECK_EQ(ivwl_eventfd_drain(fd), 0);
	CHECK_EQ(write(fd, &two, sizeof(two)), sizeof(two));
	CHECK_EQ(ivwl_eventfd_drain(fd), 2);
	CHECK_EQ(ivwl_eventfd_drain(fd), 0);
	alarm(0);
	close(fd);
}

IVWL_TEST_MAIN(
	TEST(test_rings_arrive_counted),
	TEST(test_destroy_flushes),
	TEST(test_blocked_peer_is_stuck),
	TEST(test_short_block_is_fine),
	TEST(test_destroy_cancels_blocked_write),
	TEST(test_drain_never_blocks),
)
