/* SPDX-License-Identifier: MIT */
/*
 * ivwl-server survives every peer that misbehaves, leaks nothing after
 * it, and shuts down cleanly.  After each misbehaviour a fresh, well
 * behaved pair must still be served.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "host-util.h"

#define SIZE (2u << 20)
#define VECTORS 2

static struct hu_server srv;
static int baseline_fds;

/*
 * The fds of a server that has seen both roles: it keeps each role's
 * eventfds for the next instance of that role.
 */
static void
take_baseline(void)
{
	hu_check_fresh_pair(&srv, VECTORS, SIZE);
	CHECK(hu_server_wait_log(&srv, "display peer 0 left", HU_TIMEOUT_MS));
	baseline_fds = hu_server_fd_count(&srv);
	CHECK(baseline_fds > 2 * VECTORS);
}

static void
start(const char *name)
{
	REQUIRE(hu_server_start(&srv, name, "2M", VECTORS) == 0);
	take_baseline();
}

/*
 * The server lets go of every fd of departed peers but the role's
 * eventfds (bounded wait).
 */
static void
check_no_leak(void)
{
	int64_t deadline = ivwl_now_ms() + 2000;
	int n;

	while ((n = hu_server_fd_count(&srv)) != baseline_fds &&
	       ivwl_now_ms() < deadline)
		poll(NULL, 0, 10);
	CHECK_EQ(n, baseline_fds);
}

static void
stop(void)
{
	check_no_leak();
	hu_check_fresh_pair(&srv, VECTORS, SIZE);
	check_no_leak();
	CHECK_EQ(hu_server_stop(&srv, SIGTERM), 0);
}

/* Reads whatever is queued, then expects EOF: the server hung up. */
static void
expect_hangup(int sock)
{
	struct hu_msg m;
	int ret;

	while ((ret = hu_recv(sock, HU_TIMEOUT_MS, &m)) == 1) {
		if (m.fd >= 0)
			close(m.fd);
		CHECK((m.value >= -1 && m.value <= 1) || HU_IS_ACK(m.value) ||
		      m.value == HU_REGION);
		CHECK(m.nfds <= 1);
	}
	CHECK_EQ(ret, 0);
}

static void
test_garbage_after_setup(void)
{
	struct hu_client display, app;

	start("garbage");
	REQUIRE(hu_client_join(&display, srv.display, 0, VECTORS, SIZE,
			       false) == 0);
	CHECK_EQ(hu_client_hello(display.sock), 0);
	REQUIRE(hu_client_join(&app, srv.app, 1, VECTORS, SIZE, true) == 0);
	hu_client_expect_join(&display, 1);

	CHECK_EQ(write(app.sock, "garbage!", 8), 8);
	hu_client_expect_leave(&display, 1);
	expect_hangup(app.sock);
	CHECK(strstr(hu_server_log(&srv), "app peer 1: it sent data") !=
	      NULL);
	hu_client_close(&app);
	hu_client_close(&display);

	/*
	 * The display side too, and before reading anything: a whole
	 * message that is not HELLO (a request may come in pieces, so a
	 * lone byte is only waited on).
	 */
	REQUIRE(hu_client_join(&display, srv.display, 0, VECTORS, SIZE,
			       false) == 0);
	CHECK_EQ(write(display.sock, "\xff", 1), 1);
	CHECK_EQ(write(display.sock, "garbage", 7), 7);
	expect_hangup(display.sock);
	hu_client_close(&display);
	stop();
}

static void
test_garbage_at_once(void)
{
	int i, sock;

	start("garbage2");
	for (i = 0; i < 20; i++) {
		sock = hu_connect(i % 2 ? srv.app : srv.display);
		REQUIRE(sock >= 0);
		CHECK(write(sock, "0123456789abcdef", 16) == 16);
		expect_hangup(sock);
		close(sock);
	}
	stop();
}

/* fds sent to the server must not pile up in it. */
static void
test_client_sends_fds(void)
{
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} ctrl;
	struct iovec iov = { "x", 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctrl.buf, .msg_controllen = sizeof(ctrl.buf),
	};
	struct cmsghdr *cmsg;
	int pipe_fds[2], i, sock;

	start("sendfds");
	REQUIRE(pipe(pipe_fds) == 0);
	for (i = 0; i < 10; i++) {
		sock = hu_connect(srv.app);
		REQUIRE(sock >= 0);
		memset(&ctrl, 0, sizeof(ctrl));
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(2 * sizeof(int));
		memcpy(CMSG_DATA(cmsg), pipe_fds, sizeof(pipe_fds));
		CHECK_EQ(sendmsg(sock, &msg, 0), 1);
		expect_hangup(sock);
		close(sock);
	}
	close(pipe_fds[0]);
	close(pipe_fds[1]);
	stop();
}

/*
 * One display join/leave cycle; true while the app peer was still
 * announced to it.
 */
static bool
display_cycle(void)
{
	struct hu_msg m;
	int sock, own = 0, app = 0, n = 0;

	sock = hu_connect(srv.display);
	REQUIRE(sock >= 0);
	while (own < VECTORS && hu_recv(sock, HU_TIMEOUT_MS, &m) == 1) {
		if (m.fd >= 0)
			close(m.fd);
		if (n++ < 3)
			continue;
		CHECK_EQ(m.nfds, 1);
		if (m.value == 0)
			own++;
		else if (m.value == 1)
			app++;
	}
	CHECK_EQ(own, VECTORS);
	CHECK(app == 0 || app == VECTORS);
	close(sock);
	return app > 0;
}

/*
 * A peer that never reads is dropped once its backlog is full; nobody
 * else waits for it.
 */
static void
test_never_reads(void)
{
	int stuck, cycles;

	start("stuck");
	stuck = hu_connect(srv.app);
	REQUIRE(stuck >= 0);
	/* Only a client that said HELLO hears of every display cycle. */
	CHECK_EQ(hu_send_requests(stuck, &(int64_t){ HU_HELLO }, 1), 0);
	REQUIRE(hu_server_wait_log(&srv, "app peer 1 said hello",
				      HU_TIMEOUT_MS));
	for (cycles = 0; cycles < 5000; cycles++)
		if (!display_cycle())
			break;
	printf("  stuck peer dropped after %d cycles\n", cycles);
	/* Dropped, but only after the socket and the backlog filled. */
	CHECK(cycles > 10);
	CHECK(cycles < 5000);
	CHECK(strstr(hu_server_log(&srv), "app peer 1: not reading") != NULL);
	expect_hangup(stuck);
	close(stuck);
	stop();
}

/* A second client for a held role is turned away; the holder keeps on. */
static void
test_role_taken(void)
{
	struct hu_client display, app;
	struct hu_msg m;
	int i, sock;

	start("taken");
	REQUIRE(hu_client_join(&display, srv.display, 0, VECTORS, SIZE,
			       false) == 0);
	CHECK_EQ(hu_client_hello(display.sock), 0);
	REQUIRE(hu_client_join(&app, srv.app, 1, VECTORS, SIZE, true) == 0);
	hu_client_expect_join(&display, 1);

	for (i = 0; i < 10; i++) {
		sock = hu_connect(i % 2 ? srv.display : srv.app);
		REQUIRE(sock >= 0);
		/* Closed at once, before a single message. */
		CHECK_EQ(hu_recv(sock, HU_TIMEOUT_MS, &m), 0);
		close(sock);
	}
	CHECK(strstr(hu_server_log(&srv), "refusing another client") != NULL);
	hu_client_expect_quiet(&display, 50);
	hu_client_expect_quiet(&app, 0);
	hu_check_ring(&display, &app);
	hu_check_ring(&app, &display);

	hu_client_close(&app);
	hu_client_expect_leave(&display, 1);
	hu_client_close(&display);
	stop();
}

/* Clients that vanish at any point of their setup. */
static void
test_close_at_once(void)
{
	struct hu_client display;
	struct hu_msg m;
	int i, k, sock;

	start("hasty");
	for (i = 0; i < 100; i++) {
		sock = hu_connect(i % 2 ? srv.app : srv.display);
		REQUIRE(sock >= 0);
		close(sock);
	}
	/* With a peer present to be told, and mid-setup. */
	REQUIRE(hu_client_join(&display, srv.display, 0, VECTORS, SIZE,
			       false) == 0);
	CHECK_EQ(hu_client_hello(display.sock), 0);
	for (i = 0; i < 50; i++) {
		sock = hu_connect(srv.app);
		REQUIRE(sock >= 0);
		for (k = 0; k < i % 5; k++)
			if (hu_recv(sock, HU_TIMEOUT_MS, &m) == 1 && m.fd >= 0)
				close(m.fd);
		close(sock);
	}
	/* Whatever was announced was also retracted, in order. */
	for (;;) {
		int ret = hu_recv(display.sock, 200, &m);

		if (ret != 1)
			break;
		if (m.fd >= 0)
			close(m.fd);
		CHECK_EQ(m.value, 1);
	}
	CHECK(hu_server_alive(&srv));
	hu_client_close(&display);
	stop();
}

static void
check_sockets_gone(void)
{
	CHECK(access(srv.app, F_OK) < 0);
	CHECK(access(srv.display, F_OK) < 0);
}

static void
test_sigterm(void)
{
	struct hu_client display, app;
	int status;

	start("term");
	REQUIRE(hu_client_join(&display, srv.display, 0, VECTORS, SIZE,
			       false) == 0);
	REQUIRE(hu_client_join(&app, srv.app, 1, VECTORS, SIZE, true) == 0);
	status = hu_server_stop(&srv, SIGTERM);
	CHECK(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	check_sockets_gone();
	hu_client_expect_join(&display, 1);
	expect_hangup(display.sock);
	expect_hangup(app.sock);
	hu_client_close(&display);
	hu_client_close(&app);
}

static void
test_sigint(void)
{
	int status;

	start("int");
	status = hu_server_stop(&srv, SIGINT);
	CHECK(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	check_sockets_gone();
}

/* A display that said hello, then sends req (with an fd when with_fd). */
static void
expect_request_drop(int64_t req, bool with_fd, bool hello, const char *why)
{
	struct hu_client display;
	int fd = -1;

	REQUIRE(hu_client_join(&display, srv.display, 0, VECTORS, SIZE,
			       false) == 0);
	if (hello)
		CHECK_EQ(hu_client_hello(display.sock), 0);
	if (with_fd) {
		fd = eventfd(0, EFD_CLOEXEC);
		CHECK_EQ(hu_send(display.sock, req, &fd, 1), 0);
		close(fd);
	} else {
		CHECK_EQ(hu_send_requests(display.sock, &req, 1), 0);
	}
	expect_hangup(display.sock);
	hu_client_close(&display);
	if (!hu_server_wait_log(&srv, why, HU_TIMEOUT_MS))
		fprintf(stderr, "no '%s' in the log:\n%s", why,
			hu_server_log(&srv));
	CHECK(strstr(hu_server_log(&srv), why) != NULL);
	check_no_leak();
}

/* Only HELLO, then RING of the app's vectors; anything else drops it. */
static void
test_display_bad_requests(void)
{
	start("badreq");
	expect_request_drop(HU_RING(1, 0), false, false, "it sent data");
	expect_request_drop(HU_RING(0, 0), false, true,
			    "it asked to ring peer 0 vector 0");
	expect_request_drop(HU_RING(1, VECTORS), false, true,
			    "it asked to ring peer 1 vector 2");
	expect_request_drop(HU_RING(7, 0), false, true,
			    "it asked to ring peer 7 vector 0");
	expect_request_drop(HU_HELLO, false, true, "unknown request "
			    "0x4957010000000001");
	expect_request_drop((int64_t)0x4957090000000000ll, false, true,
			    "unknown request");
	/* Bits 39..32 must be zero. */
	expect_request_drop(HU_RING(1, 0) | (int64_t)1 << 32, false, true,
			    "unknown request");
	expect_request_drop(HU_RING(1, 0), true, true, "it sent an fd");
	/* REGION: before HELLO, or with arguments. */
	expect_request_drop(HU_REGION, false, false, "it sent data");
	expect_request_drop(HU_REGION | 1, false, true, "unknown request "
			    "0x4957040000000001");
	expect_request_drop(HU_REGION | 1 << 16, false, true,
			    "unknown request 0x4957040000010000");
	expect_request_drop(HU_REGION, true, true, "it sent an fd");
	expect_request_drop(-1, false, false, "it sent data");
	stop();
}

/* Requests faster than it reads: bounded reads, every one answered. */
static void
test_display_ring_flood(void)
{
	int64_t reqs[64];
	struct hu_client display, app;
	uint64_t got = 0;
	int i;

	start("flood");
	REQUIRE(hu_client_join(&display, srv.display, 0, VECTORS, SIZE,
			       false) == 0);
	REQUIRE(hu_client_join(&app, srv.app, 1, VECTORS, SIZE, true) == 0);
	hu_client_expect_join(&display, 1);
	CHECK_EQ(hu_client_hello(display.sock), 0);
	for (i = 0; i < 64; i++)
		reqs[i] = HU_RING(1, (uint32_t)i % VECTORS);
	for (i = 0; i < 500; i++)
		CHECK_EQ(hu_send_requests(display.sock, reqs, 64), 0);
	/* Both vectors rung; coalesced, so at most once per request. */
	CHECK(hu_wait_readable(app.own[0], 1000));
	CHECK(hu_wait_readable(app.own[1], 1000));
	poll(NULL, 0, 100);
	got = hu_eventfd_take(app.own[0]) + hu_eventfd_take(app.own[1]);
	CHECK(got >= 2 && got <= 500 * 64);
	hu_client_expect_quiet(&display, 50);
	CHECK(strstr(hu_server_log(&srv), "dropping") == NULL);
	hu_client_close(&app);
	hu_client_expect_leave(&display, 1);
	hu_client_close(&display);
	stop();
}

/*
 * The app holds the eventfds the server rings it through: it clears
 * O_NONBLOCK on one and fills it, so a write would sleep until it reads.
 * The server must go on serving, say so once, and ring it again once
 * it read.
 */
static void
test_app_blocks_rings(void)
{
	int64_t ring = HU_RING(1, 0);
	uint64_t full = 0xfffffffffffffffeull, v;
	struct hu_client display, app;
	int64_t t0;
	int fd, fd_copy, i;

	start("blocks");
	REQUIRE(hu_client_join(&display, srv.display, 0, VECTORS, SIZE,
			       false) == 0);
	REQUIRE(hu_client_join(&app, srv.app, 1, VECTORS, SIZE, true) == 0);
	hu_client_expect_join(&display, 1);
	CHECK_EQ(hu_client_hello(display.sock), 0);

	fd = app.own[0];
	fd_copy = dup(fd);
	CHECK_EQ(write(fd, &full, sizeof(full)), (ssize_t)sizeof(full));
	CHECK_EQ(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK), 0);
	t0 = ivwl_now_ms();
	for (i = 0; i < 20; i++) {
		CHECK_EQ(hu_send_requests(display.sock, &ring, 1), 0);
		poll(NULL, 0, 2);
	}
	CHECK(hu_server_wait_log(&srv, "keeps a write to its vector 0 "
				 "blocked", HU_TIMEOUT_MS));
	/* Still serving: the other vector rings at once. */
	ring = HU_RING(1, 1);
	CHECK_EQ(hu_send_requests(display.sock, &ring, 1), 0);
	CHECK(hu_wait_readable(app.own[1], 500));
	CHECK_EQ(hu_eventfd_take(app.own[1]), 1);
	CHECK(ivwl_now_ms() - t0 < 1500);

	/* Once it read, it is rung again. */
	CHECK_EQ(read(fd, &v, sizeof(v)), (ssize_t)sizeof(v));
	CHECK_EQ(v, full);
	ring = HU_RING(1, 0);
	CHECK_EQ(hu_send_requests(display.sock, &ring, 1), 0);
	CHECK(hu_wait_readable(fd, 1000));
	CHECK_EQ(read(fd, &v, sizeof(v)), (ssize_t)sizeof(v));
	CHECK_EQ(v, 1);
	hu_client_expect_quiet(&display, 20);
	CHECK(strstr(hu_server_log(&srv), "dropping") == NULL);

	hu_client_close(&app);
	hu_client_expect_leave(&display, 1);
	/* It left them blocking: the next app gets new ones. */
	CHECK(hu_server_wait_log(&srv, "app role's eventfds were left "
				 "blocking", HU_TIMEOUT_MS));
	REQUIRE(hu_client_join(&app, srv.app, 1, VECTORS, SIZE, true) == 0);
	hu_client_expect_join(&display, 1);
	CHECK(!hu_same_file(app.own[0], fd_copy));
	CHECK(fcntl(app.own[0], F_GETFL) & O_NONBLOCK);
	close(fd_copy);
	hu_client_close(&app);
	hu_client_expect_leave(&display, 1);
	hu_client_close(&display);
	stop();
}

/*
 * An app that cleared O_NONBLOCK on the eventfds it shares with a QEMU
 * that never said HELLO: those cannot be replaced, so the server sets
 * O_NONBLOCK again when the app leaves, and the next app gets them.
 */
static void
test_blocked_eventfds_kept(void)
{
	struct hu_client display, app;
	int fd, fd_copy;

	start("kept");
	REQUIRE(hu_client_join(&display, srv.display, 0, VECTORS, SIZE,
			       false) == 0);
	REQUIRE(hu_client_join(&app, srv.app, 1, VECTORS, SIZE, true) == 0);
	hu_client_expect_join(&display, 1);
	fd = app.own[1];
	fd_copy = dup(fd);
	CHECK_EQ(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK), 0);
	CHECK(!(fcntl(display.peer[1][1], F_GETFL) & O_NONBLOCK));
	hu_client_close(&app);
	CHECK(hu_server_wait_log(&srv, "app peer 1 left", HU_TIMEOUT_MS));
	CHECK(fcntl(display.peer[1][1], F_GETFL) & O_NONBLOCK);
	CHECK(strstr(hu_server_log(&srv), "left blocking") == NULL);

	REQUIRE(hu_client_join(&app, srv.app, 1, VECTORS, SIZE, true) == 0);
	hu_client_expect_quiet(&display, 50);
	CHECK(hu_same_file(app.own[1], fd_copy));
	close(fd_copy);
	hu_check_ring(&display, &app);
	hu_client_close(&app);
	/* Once the QEMU is gone too, they are replaced. */
	hu_client_close(&display);
	CHECK(hu_server_wait_log(&srv, "app role's eventfds were left "
				 "blocking", HU_TIMEOUT_MS));
	/* The fds of the baseline again: a new app has new ones. */
	hu_check_fresh_pair(&srv, VECTORS, SIZE);
	stop();
}

/*
 * The app may say HELLO too (ivwl-agent does, for the display's news):
 * the ACK says the server rings nothing for it, and a RING drops it.
 */
static void
test_app_hello(void)
{
	struct hu_client display, app;

	start("apphello");
	REQUIRE(hu_client_join(&app, srv.app, 1, VECTORS, SIZE, false) == 0);
	CHECK_EQ(hu_client_hello_ack(app.sock, HU_ACK_NO_RINGS), 0);
	REQUIRE(hu_client_join(&display, srv.display, 0, VECTORS, SIZE,
			       true) == 0);
	hu_client_expect_join(&app, 0);
	hu_check_ring(&app, &display);
	hu_client_close(&display);
	hu_client_expect_leave(&app, 0);
	CHECK(strstr(hu_server_log(&srv), "app peer 1 said hello") != NULL);

	CHECK_EQ(hu_send_requests(app.sock, &(int64_t){ HU_RING(1, 0) }, 1),
		 0);
	expect_hangup(app.sock);
	hu_client_close(&app);
	CHECK(hu_server_wait_log(&srv, "app peer 1: it asked for a ring "
				 "(the server rings for the display only)",
				 HU_TIMEOUT_MS));
	stop();
}

/*
 * --no-rings: the display's HELLO is answered with an ACK that says the
 * server rings nobody, and a RING then drops it.
 */
static void
test_no_rings(void)
{
	const char *args[] = { "--socket", NULL, "--size", "2M",
			       "--vectors", "2", "--no-rings", NULL };
	struct hu_client display;

	snprintf(srv.app, sizeof(srv.app), "%s", hu_path("norings"));
	snprintf(srv.display, sizeof(srv.display), "%s",
		 hu_path("norings.display"));
	args[1] = srv.app;
	REQUIRE(hu_server_start_args(&srv, "norings.log", args) == 0);
	take_baseline();
	REQUIRE(hu_client_join(&display, srv.display, 0, VECTORS, SIZE,
			       false) == 0);
	CHECK_EQ(hu_client_hello_ack(display.sock, HU_ACK_NO_RINGS_LENDS), 0);
	CHECK_EQ(hu_send_requests(display.sock, &(int64_t){ HU_RING(1, 0) },
				  1), 0);
	expect_hangup(display.sock);
	hu_client_close(&display);
	CHECK(hu_server_wait_log(&srv, "display peer 0: it asked for a ring "
				 "(--no-rings)", HU_TIMEOUT_MS));
	stop();
}

/* The region is lent to the display only: an app that asks is dropped. */
static void
test_app_asks_region(void)
{
	struct hu_client app;

	start("appregion");
	REQUIRE(hu_client_join(&app, srv.app, 1, VECTORS, SIZE, false) == 0);
	CHECK_EQ(hu_client_hello_ack(app.sock, HU_ACK_NO_RINGS), 0);
	CHECK_EQ(hu_send_requests(app.sock, &(int64_t){ HU_REGION }, 1), 0);
	expect_hangup(app.sock);
	hu_client_close(&app);
	CHECK(hu_server_wait_log(&srv, "app peer 1: it asked for the region "
				 "(the server lends it to the display only)",
				 HU_TIMEOUT_MS));
	stop();
}

/*
 * --no-lend: the display's ACK offers no REGION (it rings as before),
 * and one that asks all the same is dropped.
 */
static void
test_no_lend(void)
{
	const char *args[] = { "--socket", NULL, "--size", "2M",
			       "--vectors", "2", "--no-lend", NULL };
	struct hu_client display, app;

	snprintf(srv.app, sizeof(srv.app), "%s", hu_path("nolend"));
	snprintf(srv.display, sizeof(srv.display), "%s",
		 hu_path("nolend.display"));
	args[1] = srv.app;
	REQUIRE(hu_server_start_args(&srv, "nolend.log", args) == 0);
	take_baseline();
	REQUIRE(hu_client_join(&display, srv.display, 0, VECTORS, SIZE,
			       false) == 0);
	CHECK_EQ(hu_client_hello_ack(display.sock, HU_ACK_NO_LEND), 0);
	REQUIRE(hu_client_join(&app, srv.app, 1, VECTORS, SIZE, true) == 0);
	hu_client_expect_join(&display, 1);
	CHECK_EQ(hu_send_requests(display.sock, &(int64_t){ HU_RING(1, 0) },
				  1), 0);
	CHECK(hu_wait_readable(app.own[0], 1000));
	CHECK_EQ(hu_eventfd_take(app.own[0]), 1);
	CHECK_EQ(hu_send_requests(display.sock, &(int64_t){ HU_REGION }, 1),
		 0);
	expect_hangup(display.sock);
	hu_client_close(&display);
	hu_client_close(&app);
	CHECK(hu_server_wait_log(&srv, "display peer 0: it asked for the "
				 "region (--no-lend)", HU_TIMEOUT_MS));
	stop();
}

/* The display's RING still reaches the app: the server reads on. */
static void
check_server_rings(struct hu_client *display, struct hu_client *app)
{
	CHECK_EQ(hu_send_requests(display->sock,
				  &(int64_t){ HU_RING(1, 1) }, 1), 0);
	CHECK(hu_wait_readable(app->own[1], 1000));
	CHECK_EQ(hu_eventfd_take(app->own[1]), 1);
}

/*
 * A display that asks for the region over and over and never reads:
 * the server answers at most once per read and keeps at most one answer
 * queued once the socket is full, so it neither blocks nor grows nor
 * drops the display; the display's rings are served meanwhile, and once
 * it reads it finds the region each time and nothing else.
 */
static void
test_region_flood(void)
{
	int64_t asks[64];
	struct hu_client display, app;
	struct hu_msg m;
	int i, answers = 0, ret;

	start("regionflood");
	REQUIRE(hu_client_join(&display, srv.display, 0, VECTORS, SIZE,
			       false) == 0);
	REQUIRE(hu_client_join(&app, srv.app, 1, VECTORS, SIZE, true) == 0);
	hu_client_expect_join(&display, 1);
	CHECK_EQ(hu_client_hello(display.sock), 0);
	for (i = 0; i < 64; i++)
		asks[i] = HU_REGION;
	for (i = 0; i < 2000; i++) {
		CHECK_EQ(hu_send_requests(display.sock, asks, 64), 0);
		if (i % 100 == 0)
			check_server_rings(&display, &app);
	}
	check_server_rings(&display, &app);
	CHECK(hu_server_alive(&srv));
	/* As many as the socket took, and one: not one per ask or read. */
	while ((ret = hu_recv(display.sock, 200, &m)) == 1) {
		CHECK_EQ(m.value, HU_REGION);
		CHECK_EQ(m.nfds, 1);
		if (m.fd >= 0)
			close(m.fd);
		answers++;
	}
	CHECK_EQ(ret, -ETIMEDOUT);
	printf("%d answers to 128000 asks\n", answers);
	CHECK(answers >= 1 && answers < 1000);
	CHECK(strstr(hu_server_log(&srv), "dropping") == NULL);
	hu_client_close(&app);
	hu_client_expect_leave(&display, 1);
	hu_client_close(&display);
	stop();
}

IVWL_TEST_MAIN(
	TEST(test_garbage_after_setup),
	TEST(test_garbage_at_once),
	TEST(test_client_sends_fds),
	TEST(test_never_reads),
	TEST(test_role_taken),
	TEST(test_close_at_once),
	TEST(test_sigterm),
	TEST(test_sigint),
	TEST(test_display_bad_requests),
	TEST(test_display_ring_flood),
	TEST(test_app_blocks_rings),
	TEST(test_blocked_eventfds_kept),
	TEST(test_app_hello),
	TEST(test_no_rings),
	TEST(test_app_asks_region),
	TEST(test_no_lend),
	TEST(test_region_flood),
)
