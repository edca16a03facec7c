/* SPDX-License-Identifier: MIT */
/*
 * ivwl-server speaks QEMU's ivshmem-doorbell protocol, checked message by
 * message with a raw client that shares no code with the server.
 */
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
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

/* A leaving peer is announced with its bare id; its id comes back. */
static void
test_leave_and_return(void)
{
	struct hu_client display, app;
	int i;

	start("leave", VECTORS);
	REQUIRE(hu_client_join(&display, srv.display, 0, VECTORS, SIZE,
			       false) == 0);
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

/* A join after a leave brings fresh eventfds: the old ones are dead. */
static void
test_fresh_eventfds_after_return(void)
{
	struct hu_client display, app;
	int old;

	start("fresh", VECTORS);
	REQUIRE(hu_client_join(&display, srv.display, 0, VECTORS, SIZE,
			       false) == 0);
	REQUIRE(hu_client_join(&app, srv.app, 1, VECTORS, SIZE, true) == 0);
	hu_client_expect_join(&display, 1);
	old = dup(display.peer[1][0]);
	hu_client_close(&app);
	hu_client_expect_leave(&display, 1);

	REQUIRE(hu_client_join(&app, srv.app, 1, VECTORS, SIZE, true) == 0);
	hu_client_expect_join(&display, 1);
	CHECK_EQ(hu_ring_fd(old), 0);
	CHECK(!hu_wait_readable(app.own[0], 50));
	close(old);

	hu_client_close(&app);
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
	hu_client_close(&app);
	hu_client_expect_leave(&display, 1);
	hu_client_close(&display);
	stop();
}

/*
 * The display's extension (protocol/server-msg.h): HELLO is answered
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

IVWL_TEST_MAIN(
	TEST(test_setup_alone),
	TEST(test_app_first),
	TEST(test_pair),
	TEST(test_leave_and_return),
	TEST(test_fresh_eventfds_after_return),
	TEST(test_default_vectors),
	TEST(test_many_vectors),
	TEST(test_display_rings),
)
