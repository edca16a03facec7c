/* SPDX-License-Identifier: MIT */
/*
 * The ivshmem-client backend (protocol/device/device-ivshmem-client.c)
 * against a real ivwl-server, and against scripted fake servers for the
 * failure paths.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
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

static struct hu_server srv;

struct peer_events {
	int joined[2];
	int left[2];
};

static void
on_peer(void *data, uint32_t peer, bool present)
{
	struct peer_events *ev = data;

	if (peer > 1)
		return;
	if (present)
		ev->joined[peer]++;
	else
		ev->left[peer]++;
}

/* Dispatches (bounded) until cond holds for dev's membership. */
static bool
dispatch_until(struct ivwl_device *dev, uint32_t peer, bool present)
{
	int64_t deadline = ivwl_now_ms() + HU_TIMEOUT_MS;

	while (ivwl_device_peer_present(dev, peer) != present) {
		if (ivwl_now_ms() > deadline)
			return false;
		hu_wait_readable(ivwl_device_event_fd(dev), 50);
		if (ivwl_device_dispatch(dev) < 0)
			return false;
	}
	return true;
}

static void
test_attach_pair(void)
{
	struct peer_events ev;
	struct ivwl_device *display, *app;
	struct stat st;
	uint8_t *a, *b;
	uint64_t n;
	uint32_t v;

	memset(&ev, 0, sizeof(ev));
	REQUIRE(hu_server_start(&srv, "pair", "4M", VECTORS) == 0);
	display = hu_open_device(srv.display, 0);
	CHECK(ivwl_device_base(display) != NULL);
	CHECK_EQ(ivwl_device_size(display), SIZE);
	CHECK_EQ(ivwl_device_peer_id(display), IVWL_PEER_DISPLAY);
	CHECK_EQ(ivwl_device_nr_vectors(display), VECTORS);
	CHECK(ivwl_device_peer_present(display, IVWL_PEER_DISPLAY));
	CHECK(!ivwl_device_peer_present(display, IVWL_PEER_APP));
	CHECK(ivwl_device_event_fd(display) >= 0);
	for (v = 0; v < VECTORS; v++)
		CHECK(hu_is_eventfd(ivwl_device_vector_fd(display, v)));
	CHECK_EQ(ivwl_device_vector_fd(display, VECTORS), -1);
	CHECK(ivwl_device_region_fd(display) >= 0);
	CHECK(fstat(ivwl_device_region_fd(display), &st) == 0);
	CHECK_EQ(st.st_size, SIZE);
	ivwl_device_set_peer_listener(display, on_peer, &ev);

	app = hu_open_device(srv.app, 0);
	CHECK_EQ(ivwl_device_size(app), SIZE);
	CHECK_EQ(ivwl_device_peer_id(app), IVWL_PEER_APP);
	CHECK_EQ(ivwl_device_nr_vectors(app), VECTORS);
	CHECK(ivwl_device_peer_present(app, IVWL_PEER_DISPLAY));

	CHECK(dispatch_until(display, IVWL_PEER_APP, true));
	CHECK_EQ(ev.joined[1], 1);
	CHECK_EQ(ev.left[1], 0);

	/* One region behind both mappings. */
	a = ivwl_device_base(display);
	b = ivwl_device_base(app);
	CHECK_EQ(b[SIZE - 1], 0);
	a[SIZE - 1] = 0x5a;
	CHECK_EQ(b[SIZE - 1], 0x5a);

	for (v = 0; v < VECTORS; v++) {
		CHECK_EQ(ivwl_device_ring(display, IVWL_PEER_APP, v), 0);
		CHECK(hu_wait_readable(ivwl_device_vector_fd(app, v), 1000));
		CHECK_EQ(ivwl_device_vector_drain(app, v), 1);
		CHECK(!hu_wait_readable(ivwl_device_vector_fd(app, v), 0));
		CHECK_EQ(ivwl_device_ring(app, IVWL_PEER_DISPLAY, v), 0);
		CHECK(hu_wait_readable(ivwl_device_vector_fd(display, v),
				       1000));
		CHECK_EQ(ivwl_device_vector_drain(display, v), 1);
	}
	for (v = 0; v < 3; v++)
		CHECK_EQ(ivwl_device_ring(display, IVWL_PEER_APP, 2), 0);
	/* The ringer's worker may write them as one count or several. */
	for (n = 0; n < 3 &&
	     hu_wait_readable(ivwl_device_vector_fd(app, 2), 1000);)
		n += ivwl_device_vector_drain(app, 2);
	CHECK_EQ(n, 3);
	CHECK_EQ(ivwl_device_vector_drain(app, 2), 0);
	CHECK_EQ(ivwl_device_vector_drain(app, VECTORS), 0);

	CHECK_EQ(ivwl_device_ring(display, IVWL_PEER_APP, VECTORS), -EINVAL);
	CHECK_EQ(ivwl_device_ring(display, 5, 0), -ENOENT);
	CHECK_EQ(ivwl_device_ring(app, 70000, 0), -ENOENT);

	/* The app leaves: the listener hears it, ringing it stops. */
	ivwl_device_destroy(app);
	CHECK(dispatch_until(display, IVWL_PEER_APP, false));
	CHECK_EQ(ev.left[1], 1);
	CHECK_EQ(ivwl_device_ring(display, IVWL_PEER_APP, 0), -ENOENT);

	/* And comes back. */
	app = hu_open_device(srv.app, 0);
	CHECK(dispatch_until(display, IVWL_PEER_APP, true));
	CHECK_EQ(ev.joined[1], 2);
	CHECK_EQ(ivwl_device_ring(display, IVWL_PEER_APP, 1), 0);
	CHECK(hu_wait_readable(ivwl_device_vector_fd(app, 1), 1000));
	b = ivwl_device_base(app);
	CHECK_EQ(b[SIZE - 1], 0x5a);

	/* The server dies: dispatch says so, every time; memory stays. */
	hu_server_stop(&srv, SIGKILL);
	CHECK(hu_wait_readable(ivwl_device_event_fd(display), 1000));
	CHECK_EQ(ivwl_device_dispatch(display), -ECONNRESET);
	CHECK_EQ(ivwl_device_dispatch(display), -ECONNRESET);
	CHECK(hu_wait_readable(ivwl_device_event_fd(app), 1000));
	CHECK_EQ(ivwl_device_dispatch(app), -ECONNRESET);
	a = ivwl_device_base(display);
	a[0] = 1;
	CHECK_EQ(a[0], 1);

	ivwl_device_destroy(app);
	ivwl_device_destroy(display);
}

/* The child's side of the endpoint test; exit code = failed step. */
static void __attribute__((noreturn))
endpoint_child(struct ivwl_endpoint *ep)
{
	char *p;

	p = mmap(NULL, ep->region_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 ep->region_fd, 0);
	if (p == MAP_FAILED)
		_exit(10);
	strcpy(p + 8192, "written by the child");
	if (ivwl_endpoint_ring(ep) != 0)
		_exit(11);
	if (!hu_wait_readable(ep->wait_fd, 2000))
		_exit(12);
	if (ivwl_endpoint_drain(ep) != 1)
		_exit(13);
	if (ivwl_endpoint_drain(ep) != 0)
		_exit(14);
	ivwl_endpoint_close(ep);
	if (ep->region_fd != -1 || ep->doorbell_fd != -1 || ep->wait_fd != -1)
		_exit(15);
	/* _exit: the test's cleanup must not run in the child. */
	_exit(0);
}

static void
test_export_endpoint(void)
{
	struct ivwl_device *display, *app;
	struct ivwl_endpoint ep;
	pid_t pid;

	REQUIRE(hu_server_start(&srv, "export", "4M", VECTORS) == 0);
	display = hu_open_device(srv.display, 0);
	CHECK_EQ(ivwl_device_export_endpoint(display, IVWL_PEER_APP, 1, 1,
					     &ep), -ENOENT);
	CHECK_EQ(ep.region_fd, -1);
	app = hu_open_device(srv.app, 0);
	CHECK(dispatch_until(display, IVWL_PEER_APP, true));

	CHECK_EQ(ivwl_device_export_endpoint(display, IVWL_PEER_APP, VECTORS,
					     1, &ep), -EINVAL);
	CHECK_EQ(ivwl_device_export_endpoint(display, IVWL_PEER_APP, 1,
					     VECTORS, &ep), -EINVAL);
	REQUIRE(ivwl_device_export_endpoint(display, IVWL_PEER_APP, 2, 1,
					    &ep) == 0);
	CHECK_EQ(ep.region_size, SIZE);
	CHECK_EQ(ep.doorbell_kind, IVWL_DOORBELL_EVENTFD);
	CHECK_EQ(ep.doorbell_peer, IVWL_PEER_APP);
	CHECK_EQ(ep.doorbell_vector, 2);
	CHECK(hu_is_eventfd(ep.doorbell_fd));
	CHECK(hu_is_eventfd(ep.wait_fd));
	CHECK(ep.wait_fd != ivwl_device_vector_fd(display, 1));

	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0)
		endpoint_child(&ep);

	/* The child rings the app on vector 2... */
	CHECK(hu_wait_readable(ivwl_device_vector_fd(app, 2), 2000));
	CHECK_EQ(ivwl_device_vector_drain(app, 2), 1);
	/* ...and waits for the app on display vector 1. */
	CHECK_EQ(ivwl_device_ring(app, IVWL_PEER_DISPLAY, 1), 0);
	CHECK_EQ(hu_wait_child(pid), 0);
	CHECK(strcmp((char *)ivwl_device_base(app) + 8192,
		     "written by the child") == 0);

	/* The parent's copy works the same way. */
	CHECK_EQ(ivwl_endpoint_ring(&ep), 0);
	CHECK(hu_wait_readable(ivwl_device_vector_fd(app, 2), 1000));
	CHECK_EQ(ivwl_device_vector_drain(app, 2), 1);
	CHECK_EQ(ivwl_endpoint_drain(&ep), 0);

	/* The guest driver's kind on an eventfd: the ioctl is refused. */
	ep.doorbell_kind = IVWL_DOORBELL_IOCTL;
	CHECK_EQ(ivwl_endpoint_ring(&ep), -ENOTTY);
	ivwl_endpoint_close(&ep);
	CHECK_EQ(ep.wait_fd, -1);

	ivwl_device_destroy(app);
	ivwl_device_destroy(display);
	CHECK_EQ(hu_server_stop(&srv, SIGTERM), 0);
}

/*
 * Alone, nobody tells a device how many vectors there are: it counts
 * its own.  With 1024 the setup spans several socket buffers.
 */
static void
check_vector_count(const char *name, uint32_t vectors, bool app_first)
{
	struct ivwl_device *first, *second;
	int64_t t0;
	uint32_t expected = vectors ? vectors : IVWL_DEFAULT_VECTORS;

	REQUIRE(hu_server_start(&srv, name, "4M", vectors) == 0);
	t0 = ivwl_now_ms();
	first = hu_open_device(app_first ? srv.app : srv.display, 0);
	CHECK(ivwl_now_ms() - t0 < 1000);
	CHECK_EQ(ivwl_device_nr_vectors(first), expected);
	second = hu_open_device(app_first ? srv.display : srv.app, 0);
	CHECK_EQ(ivwl_device_nr_vectors(second), expected);
	CHECK(ivwl_device_peer_present(second, app_first ? 1 : 0));
	CHECK(dispatch_until(first, app_first ? 0 : 1, true));
	CHECK_EQ(ivwl_device_ring(first, app_first ? 0 : 1, expected - 1), 0);
	CHECK(hu_wait_readable(ivwl_device_vector_fd(second, expected - 1),
			       1000));
	ivwl_device_destroy(second);
	ivwl_device_destroy(first);
	CHECK_EQ(hu_server_stop(&srv, SIGTERM), 0);
}

static void
test_vector_counts(void)
{
	hu_raise_fd_limit();
	check_vector_count("count1", 1, false);
	check_vector_count("count7", 7, true);
	check_vector_count("count33", 0 /* default */, false);
	check_vector_count("count1024", 1024, false);
	check_vector_count("count1024b", 1024, true);
}

static int
open_error(const char *path, int timeout_ms, int64_t *elapsed)
{
	struct ivwl_device *dev = NULL;
	const char *err = NULL;
	int64_t t0 = ivwl_now_ms();
	int ret;

	ret = ivwl_device_open_server(path, timeout_ms, &dev, &err);
	if (elapsed)
		*elapsed = ivwl_now_ms() - t0;
	CHECK(ret < 0);
	CHECK(dev == NULL);
	CHECK(err != NULL && err[0] != '\0');
	if (ret == 0)
		ivwl_device_destroy(dev);
	return ret;
}

enum script {
	SCRIPT_SILENT,
	SCRIPT_BAD_VERSION,
	SCRIPT_BAD_SIZE,
	SCRIPT_NO_VECTORS,
	SCRIPT_TWO_FDS,
	SCRIPT_FOREIGN,
	SCRIPT_QEMU,		/* SCRIPT_FOREIGN's, with id 0 */
};

static void
play(int sock, enum script script)
{
	int shm = memfd_create("fake", MFD_CLOEXEC);
	int fds[2] = { eventfd(0, EFD_CLOEXEC), eventfd(0, EFD_CLOEXEC) };
	int id = script == SCRIPT_QEMU ? 0 : 7;
	int v;

	if (ftruncate(shm, script == SCRIPT_BAD_SIZE ? 3 << 20 : SIZE) < 0)
		_exit(20);
	if (script == SCRIPT_SILENT)
		return;
	hu_send(sock, script == SCRIPT_BAD_VERSION ? 1 : 0, NULL, 0);
	hu_send(sock, script == SCRIPT_QEMU ? 0 : 7, NULL, 0);
	if (script == SCRIPT_QEMU)
		script = SCRIPT_FOREIGN;
	if (script == SCRIPT_TWO_FDS) {
		hu_send(sock, -1, fds, 2);
		return;
	}
	/* Like QEMU's server: any id, peers before us, any order. */
	if (script == SCRIPT_FOREIGN)
		for (v = 0; v < 2; v++)
			hu_send(sock, 3, &fds[v], 1);
	hu_send(sock, -1, &shm, 1);
	if (script == SCRIPT_FOREIGN)
		for (v = 0; v < 2; v++)
			hu_send(sock, id, &fds[v], 1);
}

/* A one-shot fake server in a child: plays the script, then waits. */
static pid_t
fake_server(const char *path, enum script script)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char c;
	int fd, sock;
	pid_t pid;

	unlink(path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	REQUIRE(fd >= 0);
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	REQUIRE(bind(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0);
	REQUIRE(listen(fd, 1) == 0);
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		/* The test's watchdog would kill its servers from here. */
		signal(SIGALRM, SIG_DFL);
		alarm(5);
		sock = accept(fd, NULL, NULL);
		if (sock < 0)
			_exit(21);
		play(sock, script);
		/* Until the client goes away (EOF, or a reset when it left
		 * messages unread). */
		if (read(sock, &c, 1) > 0)
			_exit(22);
		_exit(0);
	}
	close(fd);
	return pid;
}

/*
 * QEMU's contrib server, as far as a display that says hello sees it: a
 * setup like SCRIPT_FOREIGN's, and a client that sends a byte is closed
 * (deaf: or nothing at all is done with it).  Counts the connections in
 * its exit code: 10 + how many it served.
 */
static pid_t
fake_qemu_server(const char *path, enum script script, bool deaf)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd, sock, served = 0;
	char c;
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
	signal(SIGALRM, SIG_DFL);
	alarm(5);
	for (;;) {
		sock = accept(fd, NULL, NULL);
		if (sock < 0)
			_exit(21);
		served++;
		play(sock, script);
		if (deaf) {
			while (read(sock, &c, 1) > 0)
				;
			_exit(10 + served);
		}
		/* Its first byte, or EOF: either way it is gone. */
		if (read(sock, &c, 1) <= 0)
			_exit(10 + served);
		close(sock);
	}
}

static void
test_hello_to_qemu(void)
{
	const char *path = hu_path("fake-qemu");
	struct ivwl_device *dev = NULL;
	const char *err = NULL;
	int64_t t0;
	pid_t pid;

	/* Drops the hello: connected to again, without it. */
	pid = fake_qemu_server(path, SCRIPT_QEMU, false);
	CHECK_EQ(ivwl_device_open_server_flags(path, OPEN_MS,
					       IVWL_DEVICE_SERVER_RINGS, &dev,
					       &err), 0);
	CHECK(err == NULL);
	if (dev) {
		CHECK(!ivwl_device_server_rings(dev));
		CHECK_EQ(ivwl_device_peer_id(dev), 0);
		CHECK(ivwl_device_peer_present(dev, 3));
		CHECK_EQ(ivwl_device_ring(dev, 3, 1), 0);
		ivwl_device_destroy(dev);
	}
	CHECK_EQ(hu_wait_child(pid), 12);

	/* Not peer 0: it says hello too (for the news), is connected to
	 * again, and has no rings either way. */
	pid = fake_qemu_server(path, SCRIPT_FOREIGN, false);
	dev = NULL;
	CHECK_EQ(ivwl_device_open_server_flags(path, OPEN_MS,
					       IVWL_DEVICE_SERVER_RINGS, &dev,
					       &err), 0);
	if (dev) {
		CHECK(!ivwl_device_server_rings(dev));
		CHECK_EQ(ivwl_device_peer_id(dev), 7);
		ivwl_device_destroy(dev);
	}
	CHECK_EQ(hu_wait_child(pid), 12);

	/* Reads it and says nothing: a bounded wait, then an error. */
	pid = fake_qemu_server(path, SCRIPT_QEMU, true);
	dev = NULL;
	t0 = ivwl_now_ms();
	CHECK_EQ(ivwl_device_open_server_flags(path, 300,
					       IVWL_DEVICE_SERVER_RINGS, &dev,
					       &err), -ETIMEDOUT);
	CHECK(ivwl_now_ms() - t0 < 1500);
	CHECK(dev == NULL);
	CHECK(err && strstr(err, "hello"));
	CHECK_EQ(hu_wait_child(pid), 11);
	unlink(path);
}

static void
test_open_errors(void)
{
	struct ivwl_device *display, *dev;
	const char *path = hu_path("fake");
	int64_t elapsed;
	pid_t pid;

	CHECK_EQ(open_error(hu_path("nothing-here"), OPEN_MS, NULL), -ENOENT);

	/* A taken role: refused, well before the timeout. */
	REQUIRE(hu_server_start(&srv, "taken", "4M", VECTORS) == 0);
	display = hu_open_device(srv.display, 0);
	CHECK(open_error(srv.display, OPEN_MS, &elapsed) < 0);
	CHECK(elapsed < OPEN_MS);
	ivwl_device_destroy(display);
	CHECK_EQ(hu_server_stop(&srv, SIGTERM), 0);

	pid = fake_server(path, SCRIPT_SILENT);
	CHECK_EQ(open_error(path, 300, &elapsed), -ETIMEDOUT);
	CHECK(elapsed >= 290 && elapsed < 1500);
	CHECK_EQ(hu_wait_child(pid), 0);

	pid = fake_server(path, SCRIPT_BAD_VERSION);
	CHECK_EQ(open_error(path, OPEN_MS, NULL), -EPROTO);
	CHECK_EQ(hu_wait_child(pid), 0);

	pid = fake_server(path, SCRIPT_BAD_SIZE);
	CHECK_EQ(open_error(path, OPEN_MS, NULL), -EINVAL);
	CHECK_EQ(hu_wait_child(pid), 0);

	pid = fake_server(path, SCRIPT_NO_VECTORS);
	CHECK_EQ(open_error(path, 300, &elapsed), -ETIMEDOUT);
	CHECK(elapsed < 1500);
	CHECK_EQ(hu_wait_child(pid), 0);

	pid = fake_server(path, SCRIPT_TWO_FDS);
	CHECK_EQ(open_error(path, OPEN_MS, NULL), -EPROTO);
	CHECK_EQ(hu_wait_child(pid), 0);

	/* Its HELLO dropped, as QEMU's server does: connected again. */
	pid = fake_qemu_server(path, SCRIPT_FOREIGN, false);
	dev = NULL;
	CHECK_EQ(ivwl_device_open_server(path, OPEN_MS, &dev, NULL), 0);
	if (dev) {
		CHECK_EQ(ivwl_device_peer_id(dev), 7);
		CHECK_EQ(ivwl_device_nr_vectors(dev), 2);
		CHECK(ivwl_device_peer_present(dev, 3));
		CHECK(!ivwl_device_peer_present(dev, 0));
		CHECK_EQ(ivwl_device_ring(dev, 3, 1), 0);
		ivwl_device_destroy(dev);
	}
	CHECK_EQ(hu_wait_child(pid), 12);
	unlink(path);
}

static void
on_want_write(void *data, bool want)
{
	int *state = data;

	CHECK(*state != (int)want);
	*state = want;
}

static void
ring_and_take(struct ivwl_device *display, struct ivwl_device *app)
{
	uint32_t v;

	for (v = 0; v < VECTORS; v++) {
		CHECK_EQ(ivwl_device_ring(display, IVWL_PEER_APP, v), 0);
		CHECK(hu_wait_readable(ivwl_device_vector_fd(app, v), 1000));
		CHECK_EQ(ivwl_device_vector_drain(app, v), 1);
	}
}

/*
 * The display asks ivwl-server to ring the app: it keeps none of the
 * app's eventfds, and rings the socket cannot take now are owed and sent
 * once it can.
 */
static void
test_server_rings(void)
{
	struct ivwl_endpoint ep;
	struct ivwl_device *display, *app;
	struct pollfd pfd;
	int64_t deadline;
	int before, want = 0, i;
	uint32_t v;

	REQUIRE(hu_server_start(&srv, "srings", "4M", VECTORS) == 0);
	app = hu_open_device(srv.app, 0);
	before = hu_count_fds();
	display = hu_open_device(srv.display, IVWL_DEVICE_SERVER_RINGS);
	CHECK(ivwl_device_server_rings(display));
	CHECK(!ivwl_device_server_rings(app));
	/* The socket, the region and its own vectors: none of the app's. */
	CHECK_EQ(hu_count_fds() - before, 2 + VECTORS);
	CHECK_EQ(ivwl_device_ring_vectors(display), VECTORS);
	CHECK(ivwl_device_peer_present(display, IVWL_PEER_APP));
	CHECK_EQ(ivwl_device_export_endpoint(display, IVWL_PEER_APP, 0, 0,
					     &ep), -EOPNOTSUPP);
	ivwl_device_set_write_listener(display, on_want_write, &want);

	ring_and_take(display, app);
	CHECK_EQ(ivwl_device_ring_health(display, IVWL_PEER_APP), 0);
	CHECK_EQ(ivwl_device_ring(display, IVWL_PEER_APP, VECTORS), -EINVAL);
	/* Every vector of the server's, even once we use fewer. */
	ivwl_device_use_vectors(display, 1);
	CHECK_EQ(ivwl_device_nr_vectors(display), 1);
	CHECK_EQ(ivwl_device_ring_vectors(display), VECTORS);
	ring_and_take(display, app);
	/* The app rings the display as before. */
	CHECK(dispatch_until(app, IVWL_PEER_DISPLAY, true));
	CHECK_EQ(ivwl_device_ring(app, IVWL_PEER_DISPLAY, 0), 0);
	CHECK(hu_wait_readable(ivwl_device_vector_fd(display, 0), 1000));
	CHECK_EQ(ivwl_device_vector_drain(display, 0), 1);

	/* A server that does not read: the socket fills, rings are owed. */
	REQUIRE(kill(srv.pid, SIGSTOP) == 0);
	for (i = 0; i < 1000000 && !want; i++)
		CHECK_EQ(ivwl_device_ring(display, IVWL_PEER_APP,
					  (uint32_t)i % VECTORS), 0);
	CHECK_EQ(want, 1);
	/* Owed ones take no room: more rings change nothing. */
	for (v = 0; v < VECTORS; v++)
		CHECK_EQ(ivwl_device_ring(display, IVWL_PEER_APP, v), 0);
	REQUIRE(kill(srv.pid, SIGCONT) == 0);
	deadline = ivwl_now_ms() + HU_TIMEOUT_MS;
	while (want && ivwl_now_ms() < deadline) {
		pfd = (struct pollfd){ ivwl_device_event_fd(display),
				       POLLIN | POLLOUT, 0 };
		poll(&pfd, 1, 50);
		CHECK_EQ(ivwl_device_dispatch(display), 0);
	}
	CHECK_EQ(want, 0);
	for (v = 0; v < VECTORS; v++) {
		CHECK(hu_wait_readable(ivwl_device_vector_fd(app, v), 1000));
		CHECK(ivwl_device_vector_drain(app, v) >= 1);
	}
	/* The server reads 64 requests a round: the last rounds' rings
	 * would wait in the eventfds, which the next app gets. */
	for (v = 0; v < VECTORS; v++)
		while (hu_wait_readable(ivwl_device_vector_fd(app, v), 100))
			ivwl_device_vector_drain(app, v);

	/* A new app: its eventfds are counted, not kept. */
	ivwl_device_destroy(app);
	CHECK(dispatch_until(display, IVWL_PEER_APP, false));
	before = hu_count_fds();
	app = hu_open_device(srv.app, 0);
	CHECK(dispatch_until(display, IVWL_PEER_APP, true));
	CHECK_EQ(hu_count_fds() - before, 2 + VECTORS + VECTORS);
	ring_and_take(display, app);

	ivwl_device_destroy(app);
	ivwl_device_destroy(display);
	/* Only the goodbyes may drop them (ECONNRESET, unread messages). */
	CHECK(strstr(hu_server_log(&srv), "display peer 0: it") == NULL);
	CHECK_EQ(hu_server_stop(&srv, SIGTERM), 0);
}

static void
on_schedule(void *data)
{
	(*(int *)data)++;
}

/*
 * The event loop's rings wait for its flush, one schedule per flush; a
 * device destroyed meanwhile sends its own first (a display saying GONE).
 */
static void
test_server_rings_deferred(void)
{
	struct ivwl_device *display, *app;
	int scheduled = 0;
	int app_fd;

	REQUIRE(hu_server_start(&srv, "deferred", "4M", VECTORS) == 0);
	app = hu_open_device(srv.app, 0);
	display = hu_open_device(srv.display, IVWL_DEVICE_SERVER_RINGS);
	REQUIRE(ivwl_device_server_rings(display));
	app_fd = ivwl_device_vector_fd(app, 0);

	ivwl_device_defer_rings(on_schedule, &scheduled);
	CHECK_EQ(ivwl_device_ring(display, IVWL_PEER_APP, 0), 0);
	CHECK_EQ(ivwl_device_ring(display, IVWL_PEER_APP, 1), 0);
	CHECK_EQ(scheduled, 1);
	CHECK(!hu_wait_readable(app_fd, 100));
	ivwl_device_flush_rings();
	CHECK(hu_wait_readable(app_fd, 1000));
	CHECK_EQ(ivwl_device_vector_drain(app, 0), 1);
	CHECK(hu_wait_readable(ivwl_device_vector_fd(app, 1), 1000));
	CHECK_EQ(ivwl_device_vector_drain(app, 1), 1);

	CHECK_EQ(ivwl_device_ring(display, IVWL_PEER_APP, 0), 0);
	CHECK_EQ(scheduled, 2);
	CHECK(!hu_wait_readable(app_fd, 50));
	ivwl_device_destroy(display);
	CHECK(hu_wait_readable(app_fd, 1000));
	CHECK_EQ(ivwl_device_vector_drain(app, 0), 1);
	/* Nothing left to flush, nothing touched. */
	ivwl_device_flush_rings();
	ivwl_device_defer_rings(NULL, NULL);

	ivwl_device_destroy(app);
	CHECK_EQ(hu_server_stop(&srv, SIGTERM), 0);
}

/*
 * A server that rings nobody for the display (here --no-rings, whose ACK
 * says so; QEMU's and an older ivwl-server drop the HELLO, as in
 * test_hello_to_qemu): the display rings through the app's eventfds
 * itself, and still hears the app come and go.
 */
static void
test_server_rings_legacy(void)
{
	const char *args[] = { "--socket", NULL, "--size", "4M",
			       "--vectors", "4", "--no-rings", NULL };
	struct ivwl_device *display, *app;

	snprintf(srv.app, sizeof(srv.app), "%s", hu_path("legacy"));
	snprintf(srv.display, sizeof(srv.display), "%s",
		 hu_path("legacy.display"));
	args[1] = srv.app;
	REQUIRE(hu_server_start_args(&srv, "legacy.log", args) == 0);
	app = hu_open_device(srv.app, 0);
	display = hu_open_device(srv.display, IVWL_DEVICE_SERVER_RINGS);
	CHECK(!ivwl_device_server_rings(display));
	CHECK_EQ(ivwl_device_peer_id(display), IVWL_PEER_DISPLAY);
	CHECK(strstr(hu_server_log(&srv), "display peer 0 said hello "
		     "(version 2): lending it the region\n") != NULL);
	CHECK(strstr(hu_server_log(&srv), "dropping") == NULL);
	CHECK(dispatch_until(display, IVWL_PEER_APP, true));
	ring_and_take(display, app);
	ivwl_device_destroy(app);
	CHECK(dispatch_until(display, IVWL_PEER_APP, false));
	app = hu_open_device(srv.app, 0);
	CHECK(dispatch_until(display, IVWL_PEER_APP, true));
	ring_and_take(display, app);
	ivwl_device_destroy(app);
	ivwl_device_destroy(display);
	CHECK_EQ(hu_server_stop(&srv, SIGTERM), 0);
}

/*
 * IVWL_DEVICE_SERVER_VECTOR0, as weston attaches: of the 2 x VECTORS
 * eventfds the server hands over, only its own vector 0 stays (the app's
 * are counted; the server rings them), before and after a new app joins,
 * and every app vector can still be rung by number.
 */
static void
test_vector0_only(void)
{
	struct ivwl_device *display, *app;
	const char *err = NULL;
	int before;

	REQUIRE(hu_server_start(&srv, "vec0", "4M", VECTORS) == 0);
	app = hu_open_device(srv.app, 0);
	before = hu_count_fds();
	REQUIRE(ivwl_device_open_server_flags(srv.display, OPEN_MS,
					      IVWL_DEVICE_SERVER_RINGS |
					      IVWL_DEVICE_SERVER_VECTOR0,
					      &display, &err) == 0);
	CHECK(ivwl_device_server_rings(display));
	/* The socket, the region and our vector 0. */
	CHECK_EQ(hu_count_fds() - before, 3);
	CHECK_EQ(ivwl_device_nr_vectors(display), VECTORS);
	ivwl_device_use_vectors(display, 1);
	CHECK_EQ(hu_count_fds() - before, 3);
	CHECK_EQ(ivwl_device_ring_vectors(display), VECTORS);
	CHECK(ivwl_device_peer_present(display, IVWL_PEER_APP));
	ring_and_take(display, app);

	ivwl_device_destroy(app);
	CHECK(dispatch_until(display, IVWL_PEER_APP, false));
	app = hu_open_device(srv.app, 0);
	before = hu_count_fds();
	CHECK(dispatch_until(display, IVWL_PEER_APP, true));
	CHECK_EQ(hu_count_fds(), before);
	ring_and_take(display, app);

	ivwl_device_destroy(app);
	ivwl_device_destroy(display);
	CHECK_EQ(hu_server_stop(&srv, SIGTERM), 0);
}

/*
 * The agent's side: the app device says HELLO, so it hears the display
 * leave and come back; every display gets the same eventfds, which the
 * app rings it through.
 */
static void
test_app_hears_display(void)
{
	struct peer_events ev;
	struct ivwl_device *display, *app;
	struct ivwl_endpoint ep;
	int first[VECTORS];
	uint32_t v;
	int round;

	memset(&ev, 0, sizeof(ev));
	REQUIRE(hu_server_start(&srv, "hears", "4M", VECTORS) == 0);
	app = hu_open_device(srv.app, 0);
	CHECK(hu_server_wait_log(&srv, "app peer 1 said hello",
				 HU_TIMEOUT_MS));
	ivwl_device_set_peer_listener(app, on_peer, &ev);
	for (round = 0; round < 3; round++) {
		display = hu_open_device(srv.display, IVWL_DEVICE_SERVER_RINGS);
		CHECK(ivwl_device_server_rings(display));
		CHECK(dispatch_until(app, IVWL_PEER_DISPLAY, true));
		CHECK_EQ(ev.joined[0], round + 1);
		for (v = 0; v < VECTORS; v++) {
			if (round == 0)
				first[v] = dup(ivwl_device_vector_fd(display,
								     v));
			CHECK(hu_same_file(first[v],
					   ivwl_device_vector_fd(display, v)));
		}
		REQUIRE(ivwl_device_export_endpoint(app, IVWL_PEER_DISPLAY, 2,
						    0, &ep) == 0);
		CHECK(hu_same_file(ep.doorbell_fd, first[2]));
		ivwl_endpoint_close(&ep);
		CHECK_EQ(ivwl_device_ring(app, IVWL_PEER_DISPLAY, 1), 0);
		CHECK(hu_wait_readable(ivwl_device_vector_fd(display, 1),
				       1000));
		/* A count left from before is one wake-up; this is ours. */
		CHECK(ivwl_device_vector_drain(display, 1) >= 1);
		ivwl_device_destroy(display);
		CHECK(dispatch_until(app, IVWL_PEER_DISPLAY, false));
		CHECK_EQ(ev.left[0], round + 1);
		CHECK_EQ(ivwl_device_ring(app, IVWL_PEER_DISPLAY, 0),
			 -ENOENT);
	}
	for (v = 0; v < VECTORS; v++)
		close(first[v]);
	ivwl_device_destroy(app);
	CHECK_EQ(hu_server_stop(&srv, SIGTERM), 0);
}

IVWL_TEST_MAIN(
	TEST(test_attach_pair),
	TEST(test_app_hears_display),
	TEST(test_export_endpoint),
	TEST(test_vector_counts),
	TEST(test_open_errors),
	TEST(test_server_rings),
	TEST(test_server_rings_deferred),
	TEST(test_server_rings_legacy),
	TEST(test_vector0_only),
	TEST(test_hello_to_qemu),
)
