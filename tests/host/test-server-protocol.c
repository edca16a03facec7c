/* SPDX-License-Identifier: MIT */
/*
 * ivwl-server speaks QEMU's ivshmem-doorbell protocol, checked message by
 * message with a raw client that shares no code with the server.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "host-util.h"
#include "region.h"

#define SIZE (4u << 20)
#define VECTORS 3

static struct hu_server srv;

static void
start(const char *name, uint32_t vectors)
{
	REQUIRE(hu_server_start(&srv, name, "4M", vectors) == 0);
}

static void
stop(void)
{
	CHECK_EQ(hu_server_stop(&srv, SIGTERM), 0);
}

/* The first peer gets version, id 0, the region and its own vectors. */
static void
test_setup_alone(void)
{
	struct hu_client display;
	int seals;

	start("alone", VECTORS);
	CHECK_EQ(hu_client_join(&display, srv.display, 0, VECTORS, SIZE,
				false), 0);
	hu_client_expect_quiet(&display, 100);

	/* A memfd sealed against resizing, as QEMU's own server does. */
	seals = fcntl(display.shm_fd, F_GET_SEALS);
	CHECK(seals >= 0);
	CHECK(seals & F_SEAL_SHRINK);
	CHECK(seals & F_SEAL_GROW);
	CHECK(ftruncate(display.shm_fd, SIZE / 2) < 0);

	hu_client_close(&display);
	stop();
}

/* The app socket hands out id 1 even when it comes first. */
static void
test_app_first(void)
{
	struct hu_client display, app;

	start("appfirst", VECTORS);
	CHECK_EQ(hu_client_join(&app, srv.app, 1, VECTORS, SIZE, false), 0);
	CHECK_EQ(hu_client_join(&display, srv.display, 0, VECTORS, SIZE,
				true), 0);
	hu_client_expect_join(&app, 0);
	hu_check_ring(&app, &display);
	hu_check_ring(&display, &app);
	hu_client_close(&app);
	hu_client_close(&display);
	stop();
}

static uint8_t *
map(struct hu_client *c)
{
	void *p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		       c->shm_fd, 0);

	REQUIRE(p != MAP_FAILED);
	return p;
}

/* Both get one region, zeroed, and each other's vectors. */
static void
test_pair(void)
{
	struct hu_client display, app;
	uint8_t *a, *b;
	size_t i;
	bool zero = true;

	start("pair", VECTORS);
	REQUIRE(hu_client_join(&display, srv.display, 0, VECTORS, SIZE,
			       false) == 0);
	REQUIRE(hu_client_join(&app, srv.app, 1, VECTORS, SIZE, true) == 0);
	hu_client_expect_join(&display, 1);
	hu_client_expect_quiet(&display, 50);
	hu_client_expect_quiet(&app, 0);

	a = map(&display);
	b = map(&app);
	for (i = 0; i < SIZE; i += 4096)
		zero = zero && a[i] == 0 && a[i + 4095] == 0;
	CHECK(zero);
	memcpy(a + SIZE - 16, "written by 0", 13);
	CHECK(memcmp(b + SIZE - 16, "written by 0", 13) == 0);
	strcpy((char *)b + 4096, "written by 1");
	CHECK(strcmp((char *)a + 4096, "written by 1") == 0);
	munmap(a, SIZE);
	munmap(b, SIZE);

	hu_check_ring(&display, &app);
	hu_check_ring(&app, &display);
	/* Rings accumulate until read. */
	CHECK_EQ(hu_ring_fd(display.peer[1][2]), 0);
	CHECK_EQ(hu_ring_fd(display.peer[1][2]), 0);
	CHECK(hu_wait_readable(app.own[2], 1000));
	CHECK_EQ(hu_eventfd_take(app.own[2]), 2);

	hu_client_close(&app);
	hu_client_close(&display);
	stop();
}

/*
 * A leaving peer is announced with its bare id to a peer that said
 * HELLO; its id comes back.
 */
static void
test_leave_and_return(void)
{
	struct hu_client display, app;
	int i;

	start("leave", VECTORS);
	REQUIRE(hu_client_join(&display, srv.display, 0, VECTORS, SIZE,
			       false) == 0);
	CHECK_EQ(hu_client_hello(display.sock), 0);
	for (i = 0; i < 3; i++) {
		REQUIRE(hu_client_join(&app, srv.app, 1, VECTORS, SIZE,
				       true) == 0);
		hu_client_expect_join(&display, 1);
		hu_check_ring(&display, &app);
		hu_client_close(&app);
		hu_client_expect_leave(&display, 1);
		hu_client_expect_quiet(&display, 20);
	}

	REQUIRE(hu_client_join(&app, srv.app, 1, VECTORS, SIZE, true) == 0);
	hu_client_expect_join(&display, 1);
	/* The app says it too: the server rings nothing for it. */
	CHECK_EQ(hu_client_hello_ack(app.sock, HU_ACK_NO_RINGS), 0);
	hu_client_close(&display);
	hu_client_expect_leave(&app, 0);
	REQUIRE(hu_client_join(&display, srv.display, 0, VECTORS, SIZE,
			       true) == 0);
	hu_client_expect_join(&app, 0);
	hu_check_ring(&display, &app);
	hu_check_ring(&app, &display);
	hu_client_close(&display);
	hu_client_expect_leave(&app, 0);
	hu_client_close(&app);
	stop();
}

/* Whether every fd of a is the same file as that of b. */
static bool
same_files(const int *a, const int *b, uint32_t n)
{
	uint32_t v;

	for (v = 0; v < n; v++)
		if (a[v] < 0 || b[v] < 0 || !hu_same_file(a[v], b[v]))
			return false;
	return true;
}

static int *
dup_all(const int *fds, uint32_t n)
{
	int *d = malloc(n * sizeof(*d));
	uint32_t v;

	REQUIRE(d);
	for (v = 0; v < n; v++)
		d[v] = dup(fds[v]);
	return d;
}

static void
close_all(int *fds, uint32_t n)
{
	uint32_t v;

	for (v = 0; v < n; v++)
		if (fds[v] >= 0)
			close(fds[v]);
	free(fds);
}

/*
 * A role's eventfds are the server's for good: the app's next instance
 * gets the files its first one had, and the display's copies from before
 * ring it (as a QEMU that was never told the app left does).
 */
static void
test_same_eventfds_after_return(void)
{
	struct hu_client display, app;
	int *old_own, *old_peer;

	start("same", VECTORS);
	REQUIRE(hu_client_join(&display, srv.display, 0, VECTORS, SIZE,
			       false) == 0);
	CHECK_EQ(hu_client_hello(display.sock), 0);
	REQUIRE(hu_client_join(&app, srv.app, 1, VECTORS, SIZE, true) == 0);
	hu_client_expect_join(&display, 1);
	old_own = dup_all(app.own, VECTORS);
	old_peer = dup_all(display.peer[1], VECTORS);
	CHECK(same_files(old_own, old_peer, VECTORS));
	/* The display's own, as the app got them. */
	CHECK(same_files(display.own, app.peer[0], VECTORS));
	hu_client_close(&app);
	hu_client_expect_leave(&display, 1);

	REQUIRE(hu_client_join(&app, srv.app, 1, VECTORS, SIZE, true) == 0);
	hu_client_expect_join(&display, 1);
	CHECK(same_files(app.own, old_own, VECTORS));
	CHECK(same_files(display.peer[1], old_own, VECTORS));
	CHECK(same_files(display.own, app.peer[0], VECTORS));
	/* Rung through the first instance's files. */
	CHECK_EQ(hu_ring_fd(old_peer[0]), 0);
	CHECK(hu_wait_readable(app.own[0], 1000));
	CHECK_EQ(hu_eventfd_take(app.own[0]), 1);
	hu_check_ring(&app, &display);
	close_all(old_own, VECTORS);
	close_all(old_peer, VECTORS);

	/* The display's too. */
	old_own = dup_all(display.own, VECTORS);
	hu_client_close(&display);
	REQUIRE(hu_client_join(&display, srv.display, 0, VECTORS, SIZE,
			       true) == 0);
	CHECK(same_files(display.own, old_own, VECTORS));
	hu_check_ring(&app, &display);
	close_all(old_own, VECTORS);

	hu_client_close(&app);
	hu_client_close(&display);
	stop();
}

/*
 * A client that never says HELLO (QEMU) gets the other role's eventfds
 * once and no news at all: QEMU frees a peer's eventfd array when told it
 * left and writes into it when the same id joins again.
 */
static void
test_silent_client_no_news(void)
{
	struct hu_client display, app;
	int i;

	start("silent", VECTORS);
	REQUIRE(hu_client_join(&display, srv.display, 0, VECTORS, SIZE,
			       false) == 0);
	for (i = 0; i < 3; i++) {
		REQUIRE(hu_client_join(&app, srv.app, 1, VECTORS, SIZE,
				       true) == 0);
		/* At its first join only. */
		if (i == 0)
			hu_client_expect_join(&display, 1);
		hu_client_expect_quiet(&display, 50);
		hu_check_ring(&display, &app);
		hu_check_ring(&app, &display);
		hu_client_close(&app);
		CHECK(hu_server_wait_log(&srv, "app peer 1 left",
					 HU_TIMEOUT_MS));
		hu_client_expect_quiet(&display, 50);
	}
	CHECK(hu_server_alive(&srv));
	hu_client_close(&display);
	stop();
}

/*
 * Until its HELLO a client is taken for a QEMU; at the HELLO it is told
 * of a leave it missed, then answered, and hears of everything after.
 */
static void
test_hello_reconciles(void)
{
	struct hu_client display, app;

	start("reconcile", VECTORS);
	REQUIRE(hu_client_join(&display, srv.display, 0, VECTORS, SIZE,
			       false) == 0);
	REQUIRE(hu_client_join(&app, srv.app, 1, VECTORS, SIZE, true) == 0);
	hu_client_expect_join(&display, 1);
	hu_client_close(&app);
	CHECK(hu_server_wait_log(&srv, "app peer 1 left", HU_TIMEOUT_MS));
	hu_client_expect_quiet(&display, 50);
	CHECK_EQ(hu_send_requests(display.sock, &(int64_t){ HU_HELLO }, 1),
		 0);
	hu_client_expect_leave(&display, 1);
	CHECK_EQ(hu_expect_ack(display.sock, HU_ACK), 0);

	REQUIRE(hu_client_join(&app, srv.app, 1, VECTORS, SIZE, true) == 0);
	hu_client_expect_join(&display, 1);
	hu_check_ring(&display, &app);
	hu_client_close(&app);
	hu_client_expect_leave(&display, 1);
	hu_client_close(&display);

	/* The app, whose setup brought the display's eventfds. */
	REQUIRE(hu_client_join(&display, srv.display, 0, VECTORS, SIZE,
			       false) == 0);
	REQUIRE(hu_client_join(&app, srv.app, 1, VECTORS, SIZE, true) == 0);
	hu_client_close(&display);
	CHECK(hu_server_wait_log(&srv, "display peer 0 left",
				 HU_TIMEOUT_MS));
	CHECK_EQ(hu_send_requests(app.sock, &(int64_t){ HU_HELLO }, 1), 0);
	hu_client_expect_leave(&app, 0);
	CHECK_EQ(hu_expect_ack(app.sock, HU_ACK_NO_RINGS), 0);
	/* A present peer is no news: just the ACK. */
	REQUIRE(hu_client_join(&display, srv.display, 0, VECTORS, SIZE,
			       true) == 0);
	hu_client_expect_join(&app, 0);
	CHECK_EQ(hu_client_hello(display.sock), 0);
	hu_client_expect_quiet(&display, 50);
	hu_client_close(&app);
	hu_client_expect_leave(&display, 1);
	hu_client_close(&display);
	stop();
}

static void
test_default_vectors(void)
{
	struct hu_client display, app;

	start("default", 0);
	CHECK_EQ(hu_client_join(&display, srv.display, 0, IVWL_DEFAULT_VECTORS,
				 SIZE, false),
		 0);
	CHECK_EQ(hu_client_join(&app, srv.app, 1, IVWL_DEFAULT_VECTORS, SIZE,
				 true), 0);
	hu_client_expect_join(&display, 1);
	hu_client_expect_quiet(&display, 50);
	hu_client_expect_quiet(&app, 0);
	hu_check_ring(&app, &display);
	hu_client_close(&app);
	hu_client_close(&display);
	stop();
}

/* A setup larger than a socket buffer arrives whole and in order. */
static void
test_many_vectors(void)
{
	struct hu_client display, app;

	hu_raise_fd_limit();
	start("many", 1024);
	CHECK_EQ(hu_client_join(&display, srv.display, 0, 1024, SIZE,
				false), 0);
	CHECK_EQ(hu_client_join(&app, srv.app, 1, 1024, SIZE, true), 0);
	hu_client_expect_join(&display, 1);
	hu_client_expect_quiet(&display, 50);
	hu_client_expect_quiet(&app, 0);
	CHECK_EQ(hu_ring_fd(display.peer[1][1023]), 0);
	CHECK(hu_wait_readable(app.own[1023], 1000));
	CHECK_EQ(hu_client_hello(display.sock), 0);
	hu_client_close(&app);
	hu_client_expect_leave(&display, 1);
	hu_client_close(&display);
	stop();
}

/*
 * The display's extension (protocol/device/server-msg.h): HELLO is answered
 * with ACK, and RING requests ring the app's vectors, one write for all
 * the requests of a vector that arrive together.
 */
static void
test_display_rings(void)
{
	int64_t reqs[3] = { HU_RING(1, 2), HU_RING(1, 2), HU_RING(1, 2) };
	struct hu_client display, app;

	start("rings", VECTORS);
	REQUIRE(hu_client_join(&display, srv.display, 0, VECTORS, SIZE,
			       false) == 0);
	REQUIRE(hu_client_join(&app, srv.app, 1, VECTORS, SIZE, true) == 0);
	hu_client_expect_join(&display, 1);
	CHECK_EQ(hu_client_hello(display.sock), 0);
	hu_client_expect_quiet(&app, 0);

	CHECK_EQ(hu_send_requests(display.sock, reqs, 3), 0);
	CHECK(hu_wait_readable(app.own[2], 1000));
	CHECK_EQ(hu_eventfd_take(app.own[2]), 1);
	CHECK(!hu_wait_readable(app.own[0], 0));
	CHECK(!hu_wait_readable(app.own[1], 0));

	reqs[0] = HU_RING(1, 0);
	CHECK_EQ(hu_send_requests(display.sock, reqs, 1), 0);
	CHECK(hu_wait_readable(app.own[0], 1000));
	CHECK_EQ(hu_eventfd_take(app.own[0]), 1);
	/* The app still rings the display through its eventfds. */
	hu_check_ring(&app, &display);

	/* A ring for an app that just left is moot, not an error. */
	hu_client_close(&app);
	hu_client_expect_leave(&display, 1);
	CHECK_EQ(hu_send_requests(display.sock, reqs, 1), 0);
	REQUIRE(hu_client_join(&app, srv.app, 1, VECTORS, SIZE, true) == 0);
	hu_client_expect_join(&display, 1);
	CHECK_EQ(hu_send_requests(display.sock, reqs, 1), 0);
	CHECK(hu_wait_readable(app.own[0], 1000));
	CHECK_EQ(hu_eventfd_take(app.own[0]), 1);
	hu_client_expect_quiet(&display, 50);
	CHECK(strstr(hu_server_log(&srv), "said hello") != NULL);
	CHECK(strstr(hu_server_log(&srv), "dropping") == NULL);

	hu_client_close(&app);
	hu_client_close(&display);
	stop();
}

/* A REGION answer: the region's file (the same open file as the setup's). */
static void
expect_region(struct hu_client *c)
{
	struct hu_msg m;
	struct stat a, b;

	CHECK_EQ(hu_recv(c->sock, HU_TIMEOUT_MS, &m), 1);
	CHECK_EQ(m.value, HU_REGION);
	CHECK_EQ(m.nfds, 1);
	if (m.fd < 0)
		return;
	CHECK(hu_same_file(m.fd, c->shm_fd));
	CHECK(fstat(m.fd, &a) == 0 && fstat(c->shm_fd, &b) == 0);
	CHECK(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
	CHECK_EQ(a.st_size, SIZE);
	close(m.fd);
}

/*
 * REGION (server-msg.h, version 2): the display that said HELLO gets the
 * region's fd again whenever it asks, one answer for the asks of one
 * read; the app's ACK does not offer it.
 */
static void
test_display_region(void)
{
	int64_t asks[3] = { HU_REGION, HU_REGION, HU_REGION };
	struct hu_client display, app;
	int i;

	start("region", VECTORS);
	REQUIRE(hu_client_join(&display, srv.display, 0, VECTORS, SIZE,
			       false) == 0);
	REQUIRE(hu_client_join(&app, srv.app, 1, VECTORS, SIZE, true) == 0);
	hu_client_expect_join(&display, 1);
	CHECK_EQ(hu_client_hello_ack(display.sock, HU_ACK), 0);
	CHECK_EQ(hu_client_hello_ack(app.sock, HU_ACK_NO_RINGS), 0);
	for (i = 0; i < 3; i++) {
		CHECK_EQ(hu_send_requests(display.sock, asks, 1), 0);
		expect_region(&display);
		hu_client_expect_quiet(&display, 20);
	}
	/* Three asks in one write: one answer. */
	CHECK_EQ(hu_send_requests(display.sock, asks, 3), 0);
	expect_region(&display);
	hu_client_expect_quiet(&display, 50);
	/* Rings still go, news still comes. */
	CHECK_EQ(hu_send_requests(display.sock, &(int64_t){ HU_RING(1, 1) },
				  1), 0);
	CHECK(hu_wait_readable(app.own[1], 1000));
	CHECK_EQ(hu_eventfd_take(app.own[1]), 1);
	hu_client_close(&app);
	hu_client_expect_leave(&display, 1);
	/* With no app there: still the region. */
	CHECK_EQ(hu_send_requests(display.sock, asks, 1), 0);
	expect_region(&display);
	CHECK(strstr(hu_server_log(&srv), "display peer 0 said hello "
		     "(version 1): ringing the app for it, lending it the "
		     "region\n") != NULL);
	CHECK(strstr(hu_server_log(&srv), "dropping") == NULL);
	hu_client_close(&display);
	stop();
}

IVWL_TEST_MAIN(
	TEST(test_setup_alone),
	TEST(test_app_first),
	TEST(test_pair),
	TEST(test_leave_and_return),
	TEST(test_same_eventfds_after_return),
	TEST(test_silent_client_no_news),
	TEST(test_hello_reconciles),
	TEST(test_default_vectors),
	TEST(test_many_vectors),
	TEST(test_display_rings),
	TEST(test_display_region),
)
