/* SPDX-License-Identifier: MIT */
/*
 * The ringer's worker and watchdog (protocol/device/ringer.h) against
 * peers that block their eventfds, and the drain that must not block on
 * one either.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* ---- the shared worker ---------------------------------------------- */

struct threads {
	int n;			/* named ivwl-ring* */
	long switches;		/* their context switches, all kinds */
	long worker_voluntary;	/* the workers' sleeps */
};

static long
status_field(const char *status, const char *key)
{
	const char *p = strstr(status, key);

	return p ? strtol(p + strlen(key), NULL, 10) : 0;
}

/* The ringer's threads of this process as /proc sees them now. */
static struct threads
ringer_threads(void)
{
	struct threads t = { 0, 0, 0 };
	char path[300], buf[4096];
	struct dirent *de;
	long vol;
	DIR *dir;
	FILE *f;
	size_t n;

	dir = opendir("/proc/self/task");
	REQUIRE(dir);
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/status",
			 de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;	/* it just left */
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		if (strncmp(buf, "Name:\t" IVWL_RINGER_THREAD_NAME,
			    strlen("Name:\t" IVWL_RINGER_THREAD_NAME)) != 0)
			continue;
		vol = status_field(buf, "\nvoluntary_ctxt_switches:");
		t.n++;
		t.switches += vol +
			status_field(buf, "\nnonvoluntary_ctxt_switches:");
		if (strncmp(buf, "Name:\t" IVWL_RINGER_THREAD_NAME "\n",
			    strlen("Name:\t" IVWL_RINGER_THREAD_NAME "\n")) == 0)
			t.worker_voluntary += vol;
	}
	closedir(dir);
	return t;
}

/* Until the ringer has n threads (abandoned workers leave), or 2 s. */
static int
wait_threads(int n)
{
	int64_t end = ivwl_now_ms() + 2000;
	int have;

	while ((have = ringer_threads().n) != n && ivwl_now_ms() < end)
		usleep(5 * 1000);
	return have;
}

static int scheduled;

static void
count_schedule(void *data)
{
	(void)data;
	scheduled++;
}

/*
 * The reverted shared worker's failure: rings already queued behind a
 * peer that blocks the worker, and no ring call after that.  The
 * watchdog alone must get them out, past several such peers in a row;
 * each blocking peer ties one thread, once.
 */
static void
test_queued_rings_pass_blocked_peers(void)
{
	struct ivwl_ringer *bad[3], *good[2];
	int bad_fd[3], good_fd[2], i;
	int64_t t;

	open_fds(bad_fd, 3);
	open_fds(good_fd, 2);
	for (i = 0; i < 3; i++) {
		block_fd(bad_fd[i]);
		REQUIRE(ivwl_ringer_create(&bad_fd[i], 1, &bad[i]) == 0);
	}
	for (i = 0; i < 2; i++)
		REQUIRE(ivwl_ringer_create(&good_fd[i], 1, &good[i]) == 0);
	usleep(50 * 1000);	/* the worker and the watchdog sleep */

	/* One pass of an event loop: all queued before the worker runs. */
	scheduled = 0;
	ivwl_ringer_defer_wakes(count_schedule, NULL);
	CHECK_EQ(ivwl_ringer_ring(bad[0], 0), 0);
	CHECK_EQ(ivwl_ringer_ring(good[0], 0), 0);
	CHECK_EQ(ivwl_ringer_ring(bad[1], 0), 0);
	CHECK_EQ(ivwl_ringer_ring(bad[2], 0), 0);
	CHECK_EQ(ivwl_ringer_ring(good[1], 0), 0);
	CHECK_EQ(scheduled, 1);
	t = ivwl_now_ms();
	ivwl_ringer_flush();
	ivwl_ringer_defer_wakes(NULL, NULL);
	/* 3 hand-offs of 2 x IVWL_RINGER_HANDOFF_MS at most; blocked: 0 */
	CHECK_EQ(collect(good_fd[0], 1, 2000), 1);
	CHECK_EQ(collect(good_fd[1], 1, 2000), 1);
	CHECK(ivwl_now_ms() - t < 500);
	/* a worker held by each bad peer, the current one, the watchdog */
	CHECK_EQ(ringer_threads().n, 5);

	/* Rung again while blocked: owed to their worker, no new thread. */
	for (i = 0; i < 3; i++)
		CHECK_EQ(ivwl_ringer_ring(bad[i], 0), 0);
	CHECK_EQ(ivwl_ringer_ring(good[0], 0), 0);
	CHECK_EQ(collect(good_fd[0], 1, 2000), 1);
	usleep(100 * 1000);
	CHECK_EQ(ringer_threads().n, 5);

	for (i = 0; i < 3; i++) {
		t = ivwl_now_ms();
		ivwl_ringer_destroy(bad[i], 0);
		CHECK(ivwl_now_ms() - t < 200);
	}
	CHECK_EQ(ringer_threads().n, 2);
	for (i = 0; i < 2; i++)
		ivwl_ringer_destroy(good[i], IVWL_RINGER_FLUSH_MS);
	CHECK_EQ(ringer_threads().n, 0);
	close_fds(bad_fd, 3);
	close_fds(good_fd, 2);
}

/*
 * A peer that blocks for less than IVWL_RINGER_STUCK_MS is not stuck:
 * the worker it held finishes, hands back the rings that came meanwhile
 * and leaves.
 */
static void
test_slow_peer_gets_its_worker_back(void)
{
	struct ivwl_ringer *slow, *other;
	int slow_fd[1], other_fd[1];
	uint64_t v;

	open_fds(slow_fd, 1);
	open_fds(other_fd, 1);
	block_fd(slow_fd[0]);
	REQUIRE(ivwl_ringer_create(slow_fd, 1, &slow) == 0);
	REQUIRE(ivwl_ringer_create(other_fd, 1, &other) == 0);
	CHECK_EQ(ivwl_ringer_ring(slow, 0), 0);
	usleep(200 * 1000);
	CHECK_EQ(ringer_threads().n, 3);	/* handed off */
	CHECK_EQ(ivwl_ringer_ring(other, 0), 0);
	CHECK_EQ(collect(other_fd[0], 1, 2000), 1);
	CHECK_EQ(ivwl_ringer_ring(slow, 0), 0);		/* owed */
	CHECK_EQ(read(slow_fd[0], &v, sizeof(v)), sizeof(v));
	CHECK_EQ(v, FULL);
	CHECK_EQ(collect(slow_fd[0], 2, 2000), 2);
	CHECK_EQ(wait_threads(2), 2);
	CHECK_EQ(ivwl_ringer_health(slow), 0);
	CHECK_EQ(ivwl_ringer_ring(slow, 0), 0);
	CHECK_EQ(collect(slow_fd[0], 1, 2000), 1);
	ivwl_ringer_destroy(slow, IVWL_RINGER_FLUSH_MS);
	ivwl_ringer_destroy(other, IVWL_RINGER_FLUSH_MS);
	close_fds(slow_fd, 1);
	close_fds(other_fd, 1);
}

/* Stuck, with another ringer keeping the pool up: destroy at once. */
static void
test_destroy_stuck_with_others(void)
{
	struct ivwl_ringer *bad, *good;
	int bad_fd[1], good_fd[1];
	int64_t t;

	open_fds(bad_fd, 1);
	open_fds(good_fd, 1);
	block_fd(bad_fd[0]);
	REQUIRE(ivwl_ringer_create(bad_fd, 1, &bad) == 0);
	REQUIRE(ivwl_ringer_create(good_fd, 1, &good) == 0);
	CHECK_EQ(ivwl_ringer_ring(bad, 0), 0);
	t = ivwl_now_ms();
	while (ivwl_ringer_health(bad) == 0 &&
	       ivwl_now_ms() - t < 3 * IVWL_RINGER_STUCK_MS)
		usleep(20 * 1000);
	CHECK_EQ(ivwl_ringer_ring(bad, 0), -ETIMEDOUT);
	t = ivwl_now_ms();
	ivwl_ringer_destroy(bad, IVWL_RINGER_FLUSH_MS);
	CHECK(ivwl_now_ms() - t < 200);
	CHECK_EQ(ringer_threads().n, 2);
	CHECK_EQ(ivwl_ringer_ring(good, 0), 0);
	CHECK_EQ(collect(good_fd[0], 1, 2000), 1);
	ivwl_ringer_destroy(good, IVWL_RINGER_FLUSH_MS);
	close_fds(bad_fd, 1);
	close_fds(good_fd, 1);
}

#define BATCHES 50
#define PEERS 8

/*
 * Deferred: a loop pass's rings schedule one flush, nothing is written
 * before it, and the worker wakes about once per pass, not per peer.
 */
static void
test_deferred_rings_coalesce(void)
{
	struct ivwl_ringer *r[PEERS];
	int fds[PEERS], i, b;
	long before;
	uint64_t v;

	open_fds(fds, PEERS);
	for (i = 0; i < PEERS; i++)
		REQUIRE(ivwl_ringer_create(&fds[i], 1, &r[i]) == 0);
	usleep(50 * 1000);
	scheduled = 0;
	ivwl_ringer_defer_wakes(count_schedule, NULL);
	for (i = 0; i < 3; i++)
		CHECK_EQ(ivwl_ringer_ring(r[0], 0), 0);
	CHECK_EQ(ivwl_ringer_ring(r[1], 0), 0);
	CHECK_EQ(scheduled, 1);
	usleep(50 * 1000);
	CHECK_EQ(ivwl_eventfd_drain(fds[0]), 0);
	ivwl_ringer_flush();
	CHECK_EQ(collect(fds[0], 3, 2000), 3);
	CHECK_EQ(collect(fds[1], 1, 2000), 1);
	/* the next pass schedules again once the worker sleeps */
	usleep(50 * 1000);
	CHECK_EQ(ivwl_ringer_ring(r[0], 0), 0);
	CHECK_EQ(ivwl_ringer_ring(r[0], 0), 0);
	CHECK_EQ(scheduled, 2);
	ivwl_ringer_flush();
	CHECK_EQ(collect(fds[0], 2, 2000), 2);

	before = ringer_threads().worker_voluntary;
	for (b = 0; b < BATCHES; b++) {
		for (i = 0; i < PEERS; i++)
			CHECK_EQ(ivwl_ringer_ring(r[i], 0), 0);
		ivwl_ringer_flush();
		for (i = 0; i < PEERS; i++)
			CHECK_EQ(collect(fds[i], 1, 2000), 1);
	}
	/*
	 * One sleep per pass, and a spare; woken per ring it is up to 8.  A
	 * pass that finds the worker still awake needs no flush.  Voluntary
	 * switches also count waits on the ringer's lock, which a loaded
	 * machine makes more of (CI saw over 2 per pass): the bound sits
	 * halfway to waking per ring, which it still tells apart.
	 */
	CHECK(ringer_threads().worker_voluntary - before <=
	      (PEERS / 2) * BATCHES);
	CHECK(scheduled <= 2 + BATCHES);

	/* the loop gone: rings wake the worker at once again */
	CHECK_EQ(ivwl_ringer_ring(r[2], 0), 0);
	ivwl_ringer_defer_wakes(NULL, NULL);
	CHECK_EQ(collect(fds[2], 1, 2000), 1);
	CHECK_EQ(ivwl_ringer_ring(r[3], 0), 0);
	CHECK_EQ(collect(fds[3], 1, 2000), 1);
	CHECK_EQ(read(fds[4], &v, sizeof(v)), -1);
	for (i = 0; i < PEERS; i++)
		ivwl_ringer_destroy(r[i], 0);
	close_fds(fds, PEERS);
}

static void *
ring_from_thread(void *data)
{
	CHECK_EQ(ivwl_ringer_ring(data, 0), 0);
	return NULL;
}

/* Only the loop's own thread is deferred. */
static void
test_other_threads_wake_at_once(void)
{
	struct ivwl_ringer *r;
	pthread_t thread;
	int fds[1];

	open_fds(fds, 1);
	REQUIRE(ivwl_ringer_create(fds, 1, &r) == 0);
	scheduled = 0;
	ivwl_ringer_defer_wakes(count_schedule, NULL);
	REQUIRE(pthread_create(&thread, NULL, ring_from_thread, r) == 0);
	pthread_join(thread, NULL);
	CHECK_EQ(collect(fds[0], 1, 2000), 1);
	CHECK_EQ(scheduled, 0);
	ivwl_ringer_defer_wakes(NULL, NULL);
	ivwl_ringer_destroy(r, 0);
	close_fds(fds, 1);
}

/* Nothing rung: the worker and the watchdog do not run at all. */
static void
test_idle_has_no_wakeups(void)
{
	struct ivwl_ringer *a, *b;
	struct threads before, after;
	int fa[1], fb[1];

	open_fds(fa, 1);
	open_fds(fb, 1);
	REQUIRE(ivwl_ringer_create(fa, 1, &a) == 0);
	REQUIRE(ivwl_ringer_create(fb, 1, &b) == 0);
	CHECK_EQ(ivwl_ringer_ring(a, 0), 0);
	CHECK_EQ(ivwl_ringer_ring(b, 0), 0);
	CHECK_EQ(collect(fa[0], 1, 2000), 1);
	CHECK_EQ(collect(fb[0], 1, 2000), 1);
	/* the watchdog's last look comes one period after the last work */
	usleep(4 * IVWL_RINGER_HANDOFF_MS * 1000);
	before = ringer_threads();
	sleep(1);
	after = ringer_threads();
	CHECK_EQ(before.n, 2);
	CHECK_EQ(after.n, 2);
	CHECK_EQ(after.switches - before.switches, 0);
	ivwl_ringer_destroy(a, 0);
	ivwl_ringer_destroy(b, 0);
	CHECK_EQ(ringer_threads().n, 0);
	close_fds(fa, 1);
	close_fds(fb, 1);
}

IVWL_TEST_MAIN(
	TEST(test_rings_arrive_counted),
	TEST(test_destroy_flushes),
	TEST(test_blocked_peer_is_stuck),
	TEST(test_short_block_is_fine),
	TEST(test_destroy_cancels_blocked_write),
	TEST(test_drain_never_blocks),
	TEST(test_queued_rings_pass_blocked_peers),
	TEST(test_slow_peer_gets_its_worker_back),
	TEST(test_destroy_stuck_with_others),
	TEST(test_deferred_rings_coalesce),
	TEST(test_other_threads_wake_at_once),
	TEST(test_idle_has_no_wakeups),
)
