/* SPDX-License-Identifier: MIT */
/*
 * Real QEMU attached to ivwl-server as an ivshmem-doorbell peer, as the
 * display and as the app: it must live through the other side leaving
 * and coming back, again and again.  QEMU's ivshmem frees a peer's
 * eventfd array when told the peer left and writes EventNotifiers into
 * it when the same id joins again; ivwl-server tells it neither.  QEMU
 * runs with glibc's malloc checks, so that a write into freed memory
 * kills it at the next round (33 vectors: a 528-byte array, no tcache).
 * The guest never runs (-S); QEMU reads the server in its main loop
 * anyway.  Skipped (77) when qemu-system-x86_64 is not installed.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "device.h"
#include "harness.h"
#include "host-util.h"
#include "region.h"

#define QEMU "qemu-system-x86_64"
#define VECTORS 33
#define ROUNDS 4

static bool
in_path(const char *name)
{
	char dirs[4096], file[4200], *dir, *save = NULL;
	const char *path = getenv("PATH");

	snprintf(dirs, sizeof(dirs), "%s", path ? path : "/usr/bin:/bin");
	for (dir = strtok_r(dirs, ":", &save); dir;
	     dir = strtok_r(NULL, ":", &save)) {
		snprintf(file, sizeof(file), "%s/%s", dir, name);
		if (access(file, X_OK) == 0)
			return true;
	}
	return false;
}

static pid_t
start_qemu(const char *socket_path, const char *log)
{
	char chardev[160], device[80];
	pid_t pid;
	int fd;

	snprintf(chardev, sizeof(chardev), "socket,path=%s,id=ivwl",
		 socket_path);
	snprintf(device, sizeof(device),
		 "ivshmem-doorbell,chardev=ivwl,vectors=%u", VECTORS);
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	REQUIRE(fd >= 0);
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		signal(SIGALRM, SIG_DFL);
		/* Freed chunks stay out of the tcache and are checked. */
		setenv("GLIBC_TUNABLES", "glibc.malloc.tcache_count=0:"
		       "glibc.malloc.check=3", 1);
		setenv("MALLOC_PERTURB_", "165", 1);
		unsetenv("LD_PRELOAD");
		execlp(QEMU, QEMU, "-M", "q35", "-accel", "tcg", "-S",
		       "-nodefaults", "-display", "none", "-monitor", "none",
		       "-serial", "none", "-chardev", chardev,
		       "-device", device, (char *)NULL);
		_exit(127);
	}
	close(fd);
	return pid;
}

static bool
alive(pid_t pid)
{
	int status;

	return waitpid(pid, &status, WNOHANG) == 0;
}

static void
stop_qemu(pid_t pid)
{
	int64_t deadline = ivwl_now_ms() + HU_TIMEOUT_MS;

	kill(pid, SIGTERM);
	while (waitpid(pid, NULL, WNOHANG) == 0) {
		if (ivwl_now_ms() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return;
		}
		poll(NULL, 0, 10);
	}
}

static const char *
read_log(const char *path)
{
	static char buf[8192];
	ssize_t n;
	int fd;

	buf[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return buf;
	n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
	return buf;
}

static void
skip_without_qemu(void)
{
	if (!in_path(QEMU)) {
		printf("SKIP: %s not installed\n", QEMU);
		exit(77);
	}
}

/* QEMU still running, and no complaint of ivshmem's in its log. */
static void
check_qemu(pid_t qemu, const char *qemu_log)
{
	CHECK(alive(qemu));
	/* error_report() lines would name ivshmem's complaint; glibc
	 * names the heap corruption it found. */
	CHECK(strstr(read_log(qemu_log), "ivshmem") == NULL);
	CHECK(strstr(read_log(qemu_log), "server") == NULL);
	CHECK(strstr(read_log(qemu_log), "corrupted") == NULL);
	if (read_log(qemu_log)[0])
		fprintf(stderr, "qemu said: %s\n", read_log(qemu_log));
}

/* Waits (bounded) until dev sees peer come or go. */
static bool
dispatch_until(struct ivwl_device *dev, uint32_t peer, bool present)
{
	int64_t deadline = ivwl_now_ms() + HU_TIMEOUT_MS;

	while (ivwl_device_peer_present(dev, peer) != present) {
		if (ivwl_now_ms() > deadline)
			return false;
		poll(&(struct pollfd){ ivwl_device_event_fd(dev), POLLIN, 0 },
		     1, 50);
		if (ivwl_device_dispatch(dev) < 0)
			return false;
	}
	return true;
}

/* QEMU as the display (deployment A's gui-VM); the app comes and goes. */
static void
test_qemu_display(void)
{
	struct ivwl_device *dev = NULL;
	struct hu_server srv;
	const char *qemu_log = hu_path("qemu-vm-display.log");
	const char *err = NULL;
	pid_t qemu;
	int round;

	skip_without_qemu();
	REQUIRE(hu_server_start(&srv, "qemu", "4M", VECTORS) == 0);
	qemu = start_qemu(srv.display, qemu_log);
	/* QEMU blocks until it has the region, then waits paused.  It
	 * takes its time to start on a busy machine. */
	CHECK(hu_server_wait_log(&srv, "display peer 0 joined", 10000));
	poll(NULL, 0, 200);
	CHECK(alive(qemu));

	for (round = 0; round < ROUNDS && alive(qemu); round++) {
		CHECK_EQ(ivwl_device_open_server(srv.app, 2000, &dev, &err), 0);
		if (!dev)
			break;
		CHECK_EQ(ivwl_device_peer_id(dev), IVWL_PEER_APP);
		CHECK_EQ(ivwl_device_nr_vectors(dev), VECTORS);
		CHECK(ivwl_device_peer_present(dev, IVWL_PEER_DISPLAY));
		CHECK_EQ(ivwl_device_ring(dev, IVWL_PEER_DISPLAY, 0), 0);
		ivwl_device_destroy(dev);
		dev = NULL;
		/* Time for QEMU to read whatever came, and to die of it. */
		poll(NULL, 0, 300);
	}
	CHECK_EQ(round, ROUNDS);
	check_qemu(qemu, qemu_log);

	stop_qemu(qemu);
	CHECK(hu_server_wait_log(&srv, "display peer 0 left",
				 HU_TIMEOUT_MS));
	CHECK_EQ(hu_server_stop(&srv, SIGTERM), 0);
}

/*
 * QEMU as the app (deployments B and C's app-VM); the display (weston's
 * plugin, which has the server ring QEMU for it) comes and goes.
 */
static void
test_qemu_app(void)
{
	struct ivwl_device *dev = NULL;
	struct hu_server srv;
	const char *qemu_log = hu_path("qemu-vm-app.log");
	const char *err = NULL;
	pid_t qemu;
	int round;

	skip_without_qemu();
	REQUIRE(hu_server_start(&srv, "qemu-app", "4M", VECTORS) == 0);
	qemu = start_qemu(srv.app, qemu_log);
	CHECK(hu_server_wait_log(&srv, "app peer 1 joined", 10000));
	poll(NULL, 0, 200);
	CHECK(alive(qemu));

	for (round = 0; round < ROUNDS && alive(qemu); round++) {
		CHECK_EQ(ivwl_device_open_server_flags(srv.display, 2000,
						       IVWL_DEVICE_SERVER_RINGS,
						       &dev, &err), 0);
		if (!dev)
			break;
		CHECK_EQ(ivwl_device_peer_id(dev), IVWL_PEER_DISPLAY);
		CHECK(ivwl_device_server_rings(dev));
		CHECK(dispatch_until(dev, IVWL_PEER_APP, true));
		CHECK_EQ(ivwl_device_ring(dev, IVWL_PEER_APP, 0), 0);
		ivwl_device_destroy(dev);
		dev = NULL;
		poll(NULL, 0, 300);
	}
	CHECK_EQ(round, ROUNDS);
	check_qemu(qemu, qemu_log);
	CHECK(strstr(hu_server_log(&srv), "dropping") == NULL);

	stop_qemu(qemu);
	CHECK(hu_server_wait_log(&srv, "app peer 1 left", HU_TIMEOUT_MS));
	CHECK_EQ(hu_server_stop(&srv, SIGTERM), 0);
}

IVWL_TEST_MAIN(
	TEST(test_qemu_display),
	TEST(test_qemu_app),
)
