/* SPDX-License-Identifier: MIT */
/*
 * Real QEMU attached to ivwl-server as an ivshmem-doorbell peer: it must
 * accept the setup and the later join/leave news without complaint.  The
 * guest never runs (-S); QEMU reads the server in its main loop anyway.
 * Skipped (77) when qemu-system-x86_64 is not installed.
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
#define VECTORS 4

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
test_qemu_peer(void)
{
	struct ivwl_device *dev = NULL;
	struct hu_server srv;
	const char *qemu_log = hu_path("qemu-vm.log");
	const char *err = NULL;
	pid_t qemu;
	int round;

	if (!in_path(QEMU)) {
		printf("SKIP: %s not installed\n", QEMU);
		exit(77);
	}
	REQUIRE(hu_server_start(&srv, "qemu", "4M", VECTORS) == 0);
	qemu = start_qemu(srv.display, qemu_log);
	/* QEMU blocks until it has the region, then waits paused.  It
	 * takes its time to start on a busy machine. */
	CHECK(hu_server_wait_log(&srv, "display peer 0 joined", 10000));
	poll(NULL, 0, 200);
	CHECK(alive(qemu));

	/* A host peer joins and leaves twice: QEMU takes the news. */
	for (round = 0; round < 2; round++) {
		CHECK_EQ(ivwl_device_open_server(srv.app, 2000, &dev, &err), 0);
		if (!dev)
			break;
		CHECK_EQ(ivwl_device_peer_id(dev), IVWL_PEER_APP);
		CHECK_EQ(ivwl_device_nr_vectors(dev), VECTORS);
		CHECK(ivwl_device_peer_present(dev, IVWL_PEER_DISPLAY));
		CHECK_EQ(ivwl_device_ring(dev, IVWL_PEER_DISPLAY, 0), 0);
		ivwl_device_destroy(dev);
		dev = NULL;
		poll(NULL, 0, 100);
	}
	CHECK(alive(qemu));
	/* error_report() lines would name ivshmem's complaint. */
	CHECK(strstr(read_log(qemu_log), "ivshmem") == NULL);
	CHECK(strstr(read_log(qemu_log), "server") == NULL);
	if (read_log(qemu_log)[0])
		fprintf(stderr, "qemu said: %s\n", read_log(qemu_log));

	stop_qemu(qemu);
	CHECK(hu_server_wait_log(&srv, "display peer 0 left",
				 HU_TIMEOUT_MS));
	CHECK_EQ(hu_server_stop(&srv, SIGTERM), 0);
}

IVWL_TEST_MAIN(
	TEST(test_qemu_peer),
)
