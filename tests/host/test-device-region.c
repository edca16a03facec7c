/* SPDX-License-Identifier: MIT */
/*
 * The region's fd borrowed from the server (IVWL_DEVICE_SERVER_BORROW,
 * protocol/device/device-ivshmem-client-region.c): against a real
 * ivwl-server, and against scripted fake servers that lend the wrong
 * thing, lend unasked, or offer nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "device.h"
#include "harness.h"
#include "host-util.h"
#include "region.h"

#define SIZE (4u << 20)
#define VECTORS 4
#define OPEN_MS HU_OPEN_MS
#define DISPLAY_FLAGS (IVWL_DEVICE_SERVER_RINGS | IVWL_DEVICE_SERVER_VECTOR0 | \
		       IVWL_DEVICE_SERVER_BORROW)

static struct hu_server srv;

static void
on_region(void *data)
{
	(*(int *)data)++;
}

/*
 * Dispatches (bounded, ms) until the listener counted *calls past
 * before, or dispatch fails; the last dispatch's result.
 */
static int
dispatch_for_region(struct ivwl_device *dev, int *calls, int before, int ms)
{
	int64_t deadline = ivwl_now_ms() + ms;
	struct pollfd pfd;
	int ret = 0;

	while (*calls == before && ivwl_now_ms() < deadline) {
		pfd = (struct pollfd){ ivwl_device_event_fd(dev),
				       POLLIN | POLLOUT, 0 };
		poll(&pfd, 1, 20);
		ret = ivwl_device_dispatch(dev);
		if (ret < 0)
			break;
	}
	return ret;
}

static bool
same_inode(int a, int b)
{
	struct stat sa, sb;

	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/*
 * weston's flags on a real ivwl-server: the socket and vector 0 are all
 * that stays; the fd comes when asked, once however often asked, is the
 * app's region, and goes when released.
 */
static void
test_borrow(void)
{
	struct ivwl_device *display, *app;
	int before, calls = 0, i;

	REQUIRE(hu_server_start(&srv, "borrow", "4M", VECTORS) == 0);
	app = hu_open_device(srv.app, 0);
	before = hu_count_fds();
	display = hu_open_device(srv.display, DISPLAY_FLAGS);
	ivwl_device_use_vectors(display, 1);
	CHECK(ivwl_device_region_borrowed(display));
	CHECK(!ivwl_device_region_borrowed(app));
	CHECK_EQ(ivwl_device_region_fd(display), -1);
	CHECK_EQ(hu_count_fds() - before, 2);
	CHECK(ivwl_device_base(display) != NULL);
	CHECK_EQ(ivwl_device_size(display), SIZE);
	CHECK(ivwl_device_error(display) == NULL);
	ivwl_device_set_region_listener(display, on_region, &calls);

	for (i = 0; i < 3; i++) {
		CHECK_EQ(ivwl_device_region_ask(display), 0);
		CHECK_EQ(ivwl_device_region_ask(display), 0);
		CHECK_EQ(dispatch_for_region(display, &calls, i, 2000), 0);
		CHECK_EQ(calls, i + 1);
		CHECK(ivwl_device_region_fd(display) >= 0);
		CHECK(same_inode(ivwl_device_region_fd(display),
				 ivwl_device_region_fd(app)));
		CHECK_EQ(hu_count_fds() - before, 3);
		/* Held: asking again sends nothing. */
		CHECK_EQ(ivwl_device_region_ask(display), 0);
		CHECK_EQ(dispatch_for_region(display, &calls, i + 1, 100), 0);
		CHECK_EQ(calls, i + 1);
		ivwl_device_region_release(display);
		CHECK_EQ(ivwl_device_region_fd(display), -1);
		CHECK_EQ(hu_count_fds() - before, 2);
	}
	/* The mapping is the region all along. */
	((uint8_t *)ivwl_device_base(display))[SIZE - 1] = 0x77;
	CHECK_EQ(((uint8_t *)ivwl_device_base(app))[SIZE - 1], 0x77);
	CHECK(strstr(hu_server_log(&srv), "lending it the region") != NULL);

	CHECK(strstr(hu_server_log(&srv), "dropping") == NULL);
	ivwl_device_destroy(display);
	ivwl_device_destroy(app);
	CHECK_EQ(hu_server_stop(&srv, SIGTERM), 0);
}

static void
on_schedule(void *data)
{
	(*(int *)data)++;
}

/* From the event loop's thread an ask waits for its flush, as rings do. */
static void
test_borrow_deferred(void)
{
	struct ivwl_device *display;
	int calls = 0, scheduled = 0;

	REQUIRE(hu_server_start(&srv, "deferred", "4M", VECTORS) == 0);
	display = hu_open_device(srv.display, DISPLAY_FLAGS);
	ivwl_device_set_region_listener(display, on_region, &calls);
	ivwl_device_defer_rings(on_schedule, &scheduled);
	CHECK_EQ(ivwl_device_region_ask(display), 0);
	CHECK_EQ(scheduled, 1);
	CHECK_EQ(dispatch_for_region(display, &calls, 0, 200), 0);
	CHECK_EQ(calls, 0);
	ivwl_device_flush_rings();
	CHECK_EQ(dispatch_for_region(display, &calls, 0, 2000), 0);
	CHECK_EQ(calls, 1);
	ivwl_device_defer_rings(NULL, NULL);
	ivwl_device_destroy(display);
	CHECK_EQ(hu_server_stop(&srv, SIGTERM), 0);
}

/* --no-lend: the device keeps the fd, as without the flag. */
static void
test_no_lend(void)
{
	const char *args[] = { "--socket", NULL, "--size", "4M",
			       "--vectors", "4", "--no-lend", NULL };
	struct ivwl_device *display;
	int before;

	snprintf(srv.app, sizeof(srv.app), "%s", hu_path("nolend"));
	snprintf(srv.display, sizeof(srv.display), "%s",
		 hu_path("nolend.display"));
	args[1] = srv.app;
	REQUIRE(hu_server_start_args(&srv, "nolend.log", args) == 0);
	before = hu_count_fds();
	display = hu_open_device(srv.display, DISPLAY_FLAGS);
	ivwl_device_use_vectors(display, 1);
	CHECK(!ivwl_device_region_borrowed(display));
	CHECK(ivwl_device_region_fd(display) >= 0);
	CHECK_EQ(hu_count_fds() - before, 3);
	CHECK_EQ(ivwl_device_region_ask(display), -EOPNOTSUPP);
	ivwl_device_region_release(display);
	CHECK(ivwl_device_region_fd(display) >= 0);
	CHECK(ivwl_device_server_rings(display));
	ivwl_device_destroy(display);
	CHECK(strstr(hu_server_log(&srv), "dropping") == NULL);
	CHECK_EQ(hu_server_stop(&srv, SIGTERM), 0);
}

/* What a fake server does at the HELLO and at each REGION. */
enum lend {
	LEND_SAME,		/* the region's memfd */
	LEND_OTHER,		/* another memfd of the same size */
	LEND_SHRUNK,		/* the region, truncated to half */
	LEND_EVENTFD,		/* not a file at all */
	LEND_READ_ONLY,		/* the region, opened again read-only */
	LEND_NO_FD,		/* the answer without its fd */
	LEND_UNASKED,		/* the region after the ACK, then SAME */
	LEND_NOT_OFFERED,	/* an ACK without REGION (version 1) */
	LEND_QEMU,		/* drops the HELLO, as QEMU's server does */
};

static void
fake_setup(int sock, int shm)
{
	int ev = eventfd(0, EFD_CLOEXEC);

	hu_send(sock, 0, NULL, 0);
	hu_send(sock, 0, NULL, 0);
	hu_send(sock, -1, &shm, 1);
	hu_send(sock, 0, &ev, 1);
	close(ev);
}

static int
fake_answer_fd(enum lend lend, int shm)
{
	char path[64];
	int fd;

	switch (lend) {
	case LEND_OTHER:
		fd = memfd_create("not-the-region", MFD_CLOEXEC);
		if (fd >= 0 && ftruncate(fd, SIZE) < 0)
			_exit(30);
		return fd;
	case LEND_SHRUNK:
		if (ftruncate(shm, SIZE / 2) < 0)
			_exit(31);
		return dup(shm);
	case LEND_EVENTFD:
		return eventfd(0, EFD_CLOEXEC);
	case LEND_READ_ONLY:
		snprintf(path, sizeof(path), "/proc/self/fd/%d", shm);
		return open(path, O_RDONLY | O_CLOEXEC);
	case LEND_NO_FD:
		return -1;
	default:
		return dup(shm);
	}
}

/* Answers each REGION until the client leaves; the answers it sent. */
static int
fake_serve(int sock, enum lend lend, int shm)
{
	struct hu_msg m;
	int fd, answers = 0;

	while (hu_recv(sock, 5000, &m) == 1) {
		if (m.value != HU_REGION)
			_exit(32);
		fd = fake_answer_fd(lend, shm);
		hu_send(sock, HU_REGION, &fd, fd >= 0 ? 1 : 0);
		if (fd >= 0)
			close(fd);
		answers++;
	}
	return answers;
}

/*
 * A one-shot fake ivwl-server in a child: setup (id 0, the region, one
 * vector), the HELLO's answer as lend says, then REGION answers.  Exits
 * with the number of answers (QEMU: 10 + connections).
 */
static pid_t
fake_server(const char *path, enum lend lend)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct hu_msg m;
	int fd, sock, shm, served = 0;
	pid_t pid;

	unlink(path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	REQUIRE(fd >= 0);
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	REQUIRE(bind(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0);
	REQUIRE(listen(fd, 1) == 0);
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid != 0) {
		close(fd);
		return pid;
	}
	/* The test's watchdog would kill its servers from here. */
	signal(SIGALRM, SIG_DFL);
	alarm(10);
	shm = memfd_create("fake-region", MFD_CLOEXEC);
	if (shm < 0 || ftruncate(shm, SIZE) < 0)
		_exit(20);
	for (;;) {
		sock = accept(fd, NULL, NULL);
		if (sock < 0)
			_exit(21);
		served++;
		fake_setup(sock, shm);
		/* QEMU's: a byte is a client gone; the second says none. */
		if (lend == LEND_QEMU && served == 2) {
			while (hu_recv(sock, 5000, &m) == 1)
				;
			_exit(10 + served);
		}
		if (hu_recv(sock, 5000, &m) != 1 || m.value >> 40 != 0x495701)
			_exit(22);
		if (lend != LEND_QEMU)
			break;
		close(sock);
	}
	hu_send(sock, lend == LEND_NOT_OFFERED ?
		(int64_t)0x4957030000000001ll : HU_ACK, NULL, 0);
	if (lend == LEND_UNASKED) {
		hu_send(sock, HU_REGION, &shm, 1);
		lend = LEND_SAME;
	}
	_exit(fake_serve(sock, lend, shm));
}

/*
 * A lent fd that is not the mapped file is refused: dispatch fails with
 * -EPROTO from then on and says why, the fd is not kept, nothing leaks.
 */
static void
check_refused(enum lend lend, const char *why)
{
	const char *path = hu_path("fake-refused");
	struct ivwl_device *dev;
	int before, calls = 0;
	pid_t pid;

	pid = fake_server(path, lend);
	before = hu_count_fds();
	dev = hu_open_device(path, DISPLAY_FLAGS);
	CHECK(ivwl_device_region_borrowed(dev));
	ivwl_device_set_region_listener(dev, on_region, &calls);
	CHECK_EQ(ivwl_device_region_ask(dev), 0);
	CHECK_EQ(dispatch_for_region(dev, &calls, 0, 2000), -EPROTO);
	CHECK_EQ(calls, 0);
	CHECK_EQ(ivwl_device_region_fd(dev), -1);
	CHECK(ivwl_device_error(dev) != NULL &&
	      strstr(ivwl_device_error(dev), why) != NULL);
	if (ivwl_device_error(dev))
		printf("refused: %s\n", ivwl_device_error(dev));
	/* For good: the caller detaches, whatever comes next. */
	CHECK_EQ(ivwl_device_dispatch(dev), -EPROTO);
	CHECK_EQ(ivwl_device_region_ask(dev), -ECONNRESET);
	/* The socket and the vector, nothing lent. */
	CHECK_EQ(hu_count_fds() - before, 2);
	ivwl_device_destroy(dev);
	CHECK_EQ(hu_count_fds(), before);
	CHECK_EQ(hu_wait_child(pid), 1);
	unlink(path);
}

static void
test_refused(void)
{
	check_refused(LEND_OTHER, "not the region");
	check_refused(LEND_SHRUNK, "smaller");
	check_refused(LEND_EVENTFD, "not a regular file");
	check_refused(LEND_READ_ONLY, "not open for reading and writing");
	check_refused(LEND_NO_FD, "without the region");
}

/* The same file, lent by another server than ivwl-server: taken. */
static void
test_fake_lends(void)
{
	const char *path = hu_path("fake-same");
	struct ivwl_device *dev;
	int calls = 0;
	pid_t pid;

	pid = fake_server(path, LEND_SAME);
	dev = hu_open_device(path, DISPLAY_FLAGS);
	ivwl_device_set_region_listener(dev, on_region, &calls);
	CHECK_EQ(ivwl_device_region_ask(dev), 0);
	CHECK_EQ(dispatch_for_region(dev, &calls, 0, 2000), 0);
	CHECK_EQ(calls, 1);
	CHECK(ivwl_device_region_fd(dev) >= 0);
	ivwl_device_region_release(dev);
	ivwl_device_destroy(dev);
	CHECK_EQ(hu_wait_child(pid), 1);
	unlink(path);
}

/* An answer nobody asked for is closed and dropped; asks still work. */
static void
test_unasked(void)
{
	const char *path = hu_path("fake-unasked");
	struct ivwl_device *dev;
	int before, calls = 0;
	pid_t pid;

	pid = fake_server(path, LEND_UNASKED);
	before = hu_count_fds();
	dev = hu_open_device(path, DISPLAY_FLAGS);
	ivwl_device_set_region_listener(dev, on_region, &calls);
	CHECK_EQ(dispatch_for_region(dev, &calls, 0, 300), 0);
	CHECK_EQ(calls, 0);
	CHECK_EQ(ivwl_device_region_fd(dev), -1);
	CHECK_EQ(hu_count_fds() - before, 2);
	CHECK(ivwl_device_error(dev) == NULL);
	CHECK_EQ(ivwl_device_region_ask(dev), 0);
	CHECK_EQ(dispatch_for_region(dev, &calls, 0, 2000), 0);
	CHECK_EQ(calls, 1);
	CHECK_EQ(hu_count_fds() - before, 3);
	ivwl_device_destroy(dev);
	CHECK_EQ(hu_count_fds(), before);
	CHECK_EQ(hu_wait_child(pid), 1);
	unlink(path);
}

/*
 * Servers that do not lend: an ACK without the offer (an ivwl-server of
 * version 1), or no ACK at all (QEMU's, which drops the HELLO): the
 * device keeps the fd.
 */
static void
test_not_offered(void)
{
	const char *path = hu_path("fake-older");
	struct ivwl_device *dev;
	pid_t pid;

	pid = fake_server(path, LEND_NOT_OFFERED);
	dev = hu_open_device(path, DISPLAY_FLAGS);
	CHECK(!ivwl_device_region_borrowed(dev));
	CHECK(ivwl_device_region_fd(dev) >= 0);
	CHECK_EQ(ivwl_device_region_ask(dev), -EOPNOTSUPP);
	ivwl_device_destroy(dev);
	CHECK_EQ(hu_wait_child(pid), 0);

	pid = fake_server(path, LEND_QEMU);
	dev = hu_open_device(path, DISPLAY_FLAGS);
	CHECK(!ivwl_device_region_borrowed(dev));
	CHECK(ivwl_device_region_fd(dev) >= 0);
	CHECK_EQ(ivwl_device_region_ask(dev), -EOPNOTSUPP);
	ivwl_device_destroy(dev);
	CHECK_EQ(hu_wait_child(pid), 12);
	unlink(path);
}

IVWL_TEST_MAIN(
	TEST(test_borrow),
	TEST(test_borrow_deferred),
	TEST(test_no_lend),
	TEST(test_refused),
	TEST(test_fake_lends),
	TEST(test_unasked),
	TEST(test_not_offered),
)
