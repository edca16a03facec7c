/* SPDX-License-Identifier: MIT */
/*
 * The /dev/ivwlN backend (protocol/device/device-kernel.c) without a VM.
 *
 * Errors come from real nodes: a missing path, a regular file, /dev/null
 * (a character device that is not ivwl), a node we may not open.  The
 * rest runs against a fake driver: this binary defines ioctl(), which
 * answers the IVWL_IOCTL_* requests on /dev/zero (whose MAP_SHARED
 * mapping is ordinary shared memory) and passes everything else to the
 * kernel.  The real driver is exercised by tests/vm/.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "device.h"
#include "harness.h"
#include "region.h"
#include "uapi/ivwl.h"

#define FAKE_VECTORS 5
#define FAKE_SIZE (4u << 20)

static struct {
	bool on;
	dev_t rdev;		/* /dev/zero's: which fds the fake serves */
	struct ivwl_info info;
	int bound[FAKE_VECTORS];	/* our dup of each bound eventfd */
	unsigned rings;
	struct ivwl_doorbell last;
	int binder;		/* the fd SET_EVENTFD came through */
} fake;

static bool
fake_serves(int fd)
{
	struct stat st;

	return fake.on && fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) &&
	       st.st_rdev == fake.rdev;
}

static int
fake_ioctl(int fd, unsigned long request, void *arg)
{
	struct ivwl_eventfd *ev = arg;

	switch (request) {
	case IVWL_IOCTL_GET_INFO:
		memcpy(arg, &fake.info, sizeof(fake.info));
		return 0;
	case IVWL_IOCTL_DOORBELL:
		memcpy(&fake.last, arg, sizeof(fake.last));
		if (fake.last.vector >= fake.info.nr_vectors) {
			errno = EINVAL;
			return -1;
		}
		fake.rings++;
		return 0;
	case IVWL_IOCTL_SET_EVENTFD:
		if (ev->vector >= fake.info.nr_vectors ||
		    ev->vector >= FAKE_VECTORS) {
			errno = EINVAL;
			return -1;
		}
		fake.binder = fd;
		if (fake.bound[ev->vector] >= 0)
			close(fake.bound[ev->vector]);
		fake.bound[ev->vector] = ev->fd < 0 ? -1 : dup(ev->fd);
		return 0;
	default:
		errno = ENOTTY;
		return -1;
	}
}

/* Interposes on libc's: device-kernel.c's calls land here. */
int
ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (_IOC_TYPE(request) == IVWL_IOCTL_MAGIC && fake_serves(fd))
		return fake_ioctl(fd, request, arg);
	return (int)syscall(SYS_ioctl, fd, request, arg);
}

static void
fake_start(uint32_t abi, uint32_t vectors, uint64_t size)
{
	struct stat st;
	int v;

	REQUIRE(stat("/dev/zero", &st) == 0);
	memset(&fake, 0, sizeof(fake));
	fake.on = true;
	fake.rdev = st.st_rdev;
	fake.info.abi = abi;
	fake.info.ivposition = IVWL_PEER_APP;
	fake.info.nr_vectors = vectors;
	fake.info.shm_size = size;
	for (v = 0; v < FAKE_VECTORS; v++)
		fake.bound[v] = -1;
}

static void
fake_stop(void)
{
	int v;

	for (v = 0; v < FAKE_VECTORS; v++)
		if (fake.bound[v] >= 0)
			close(fake.bound[v]);
	fake.on = false;
}

/* An interrupt on vector v, as the driver's handler signals it. */
static void
fake_interrupt(uint32_t v)
{
	uint64_t one = 1;

	REQUIRE(fake.bound[v] >= 0);
	REQUIRE(write(fake.bound[v], &one, sizeof(one)) == sizeof(one));
}

static int
open_error(const char *path, const char **err)
{
	struct ivwl_device *dev = (struct ivwl_device *)&dev;
	int ret;

	*err = NULL;
	ret = ivwl_device_open_kernel(path, 0, &dev, err);
	CHECK(dev == NULL);
	if (ret == 0)
		ivwl_device_destroy(dev);
	CHECK(ret == 0 || *err != NULL);
	return ret;
}

static void
test_open_errors(void)
{
	char path[] = "/tmp/ivwl-devk.XXXXXX";
	const char *err;
	int fd;

	CHECK_EQ(open_error("/nonexistent/ivwl0", &err), -ENOENT);
	CHECK(err && strstr(err, "no such device node"));

	fd = mkstemp(path);
	REQUIRE(fd >= 0);
	close(fd);
	CHECK_EQ(open_error(path, &err), -ENOTTY);
	CHECK(err && strstr(err, "not a character device"));
	unlink(path);

	CHECK_EQ(open_error("/dev/null", &err), -ENOTTY);
	CHECK(err && strstr(err, "not an ivwl device"));

	/* NULL err is allowed. */
	CHECK_EQ(ivwl_device_open_kernel("/nonexistent/ivwl0", 0,
					 &(struct ivwl_device *){ NULL },
					 NULL), -ENOENT);
}

/* A node of mode 0600 that is not ours: opened as nobody when root. */
static void
test_permission_denied(void)
{
	char path[] = "/tmp/ivwl-devk.XXXXXX";
	const char *err = NULL;
	pid_t pid;
	int fd, status, ret;

	fd = mkstemp(path);
	REQUIRE(fd >= 0);
	close(fd);
	REQUIRE(chmod(path, 0600) == 0);

	/* root opens anything: drop to nobody; else take our own rights. */
	if (geteuid() != 0)
		REQUIRE(chmod(path, 0) == 0);
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		if (geteuid() == 0 && (setgroups(0, NULL) < 0 ||
				       setgid(65534) < 0 || setuid(65534) < 0))
			_exit(77);
		ret = open_error(path, &err);
		if (ret != -EACCES)
			_exit(1);
		if (!err || !strstr(err, "permission denied") ||
		    !strstr(err, "60-ivwl.rules"))
			_exit(2);
		_exit(ivwl_test_failures ? 3 : 0);
	}
	REQUIRE(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status));
	CHECK_EQ(WEXITSTATUS(status), 0);
	unlink(path);
}

static void
test_refused_devices(void)
{
	const char *err;

	fake_start(IVWL_ABI_VERSION + 1, 4, FAKE_SIZE);
	CHECK_EQ(open_error("/dev/zero", &err), -EPROTO);
	CHECK(err && strstr(err, "ABI version"));
	fake_stop();

	fake_start(IVWL_ABI_VERSION, 0, FAKE_SIZE);
	CHECK_EQ(open_error("/dev/zero", &err), -EPROTO);
	CHECK(err && strstr(err, "no doorbell vectors"));
	fake_stop();

	/* QEMU insists on powers of two; 3 MiB is no region. */
	fake_start(IVWL_ABI_VERSION, 4, 3u << 20);
	CHECK_EQ(open_error("/dev/zero", &err), -EINVAL);
	CHECK(err && strstr(err, "region size"));
	fake_stop();
}

static void
test_device(void)
{
	struct ivwl_device *dev = NULL;
	struct ivwl_endpoint ep;
	const char *err = NULL;
	uint32_t v;
	int fd;

	fake_start(IVWL_ABI_VERSION, FAKE_VECTORS, FAKE_SIZE);
	REQUIRE(ivwl_device_open_kernel("/dev/zero", 0, &dev, &err) == 0);
	CHECK_EQ(ivwl_device_size(dev), FAKE_SIZE);
	CHECK_EQ(ivwl_device_peer_id(dev), IVWL_PEER_APP);
	CHECK_EQ(ivwl_device_nr_vectors(dev), FAKE_VECTORS);
	CHECK(ivwl_device_base(dev) != NULL);
	memset(ivwl_device_base(dev), 0xa5, 4096);

	/* No membership news: every peer is there, nothing to watch. */
	CHECK(ivwl_device_peer_present(dev, IVWL_PEER_DISPLAY));
	CHECK(ivwl_device_peer_present(dev, 65535));
	CHECK(!ivwl_device_peer_present(dev, 65536));
	CHECK_EQ(ivwl_device_event_fd(dev), -1);
	CHECK_EQ(ivwl_device_dispatch(dev), 0);

	/* Every own vector is an eventfd bound to the driver. */
	for (v = 0; v < FAKE_VECTORS; v++) {
		fd = ivwl_device_vector_fd(dev, v);
		CHECK(fd >= 0);
		CHECK(fake.bound[v] >= 0);
		CHECK_EQ(ivwl_device_vector_drain(dev, v), 0);
		fake_interrupt(v);
		fake_interrupt(v);
		CHECK_EQ(ivwl_device_vector_drain(dev, v), 2);
	}
	CHECK_EQ(ivwl_device_vector_fd(dev, FAKE_VECTORS), -1);

	CHECK_EQ(ivwl_device_ring(dev, IVWL_PEER_DISPLAY, 3), 0);
	CHECK_EQ(fake.rings, 1);
	CHECK_EQ(fake.last.peer, IVWL_PEER_DISPLAY);
	CHECK_EQ(fake.last.vector, 3);
	CHECK_EQ(fake.last.flags, 0);
	CHECK_EQ(ivwl_device_ring(dev, IVWL_PEER_DISPLAY, FAKE_VECTORS),
		 -EINVAL);
	CHECK_EQ(ivwl_device_ring(dev, 70000, 0), -ENOENT);
	CHECK_EQ(fake.rings, 1);

	/* What the agent hands a shim. */
	CHECK_EQ(ivwl_device_export_endpoint(dev, IVWL_PEER_DISPLAY,
					     FAKE_VECTORS, 1, &ep), -EINVAL);
	CHECK_EQ(ep.region_fd, -1);
	REQUIRE(ivwl_device_export_endpoint(dev, IVWL_PEER_DISPLAY, 2, 4,
					    &ep) == 0);
	CHECK_EQ(ep.doorbell_kind, IVWL_DOORBELL_IOCTL);
	CHECK_EQ(ep.doorbell_peer, IVWL_PEER_DISPLAY);
	CHECK_EQ(ep.doorbell_vector, 2);
	CHECK_EQ(ep.region_size, FAKE_SIZE);
	CHECK(fake_serves(ep.doorbell_fd));
	CHECK(fake_serves(ep.region_fd));
	CHECK(ep.doorbell_fd != ivwl_device_region_fd(dev));
	CHECK(fcntl(ep.doorbell_fd, F_GETFD) & FD_CLOEXEC);

	CHECK_EQ(ivwl_endpoint_ring(&ep), 0);
	CHECK_EQ(fake.rings, 2);
	CHECK_EQ(fake.last.peer, IVWL_PEER_DISPLAY);
	CHECK_EQ(fake.last.vector, 2);

	/* The shim waits on the same eventfd the device bound. */
	CHECK_EQ(ivwl_endpoint_drain(&ep), 0);
	fake_interrupt(4);
	CHECK_EQ(ivwl_endpoint_drain(&ep), 1);
	CHECK_EQ(ivwl_device_vector_drain(dev, 4), 0);

	/* The endpoint outlives the device, as a shim outlives the agent. */
	ivwl_device_destroy(dev);
	CHECK_EQ(ivwl_endpoint_ring(&ep), 0);
	CHECK_EQ(fake.rings, 3);
	ivwl_endpoint_close(&ep);
	CHECK_EQ(ep.doorbell_fd, -1);
	CHECK_EQ(ep.wait_fd, -1);
	fake_stop();
}

/* Open fds of this process now, less the fake's dups of eventfds. */
static int
open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0, v;

	REQUIRE(d);
	while (readdir(d))
		n++;
	closedir(d);
	for (v = 0; v < FAKE_VECTORS; v++)
		n -= fake.bound[v] >= 0;
	return n - 3;	/* ".", ".." and the DIR's own */
}

/*
 * weston's way: the vectors bound through the region's own open file, one
 * fd fewer, and no doorbell handed out that could rebind them.
 */
static void
test_private_device(void)
{
	struct ivwl_device *dev = NULL, *shared = NULL;
	struct ivwl_endpoint ep;
	const char *err = NULL;
	int before, fds_private, fds_shared;

	fake_start(IVWL_ABI_VERSION, FAKE_VECTORS, FAKE_SIZE);
	before = open_fds();
	REQUIRE(ivwl_device_open_kernel("/dev/zero", IVWL_DEVICE_PRIVATE,
					&dev, &err) == 0);
	fds_private = open_fds() - before;
	CHECK_EQ(fake.binder, ivwl_device_region_fd(dev));
	/* the node and one eventfd per vector */
	CHECK_EQ(fds_private, 1 + FAKE_VECTORS);
	fake_interrupt(1);
	CHECK_EQ(ivwl_device_vector_drain(dev, 1), 1);
	CHECK_EQ(ivwl_device_export_endpoint(dev, IVWL_PEER_DISPLAY, 2, 4,
					     &ep), -EPERM);
	CHECK_EQ(ep.region_fd, -1);
	CHECK_EQ(open_fds() - before, fds_private);
	ivwl_device_destroy(dev);

	REQUIRE(ivwl_device_open_kernel("/dev/zero", 0, &shared, &err) == 0);
	fds_shared = open_fds() - before;
	CHECK(fake.binder != ivwl_device_region_fd(shared));
	CHECK_EQ(fds_shared, fds_private + 1);
	ivwl_device_destroy(shared);
}

IVWL_TEST_MAIN(
	TEST(test_open_errors),
	TEST(test_permission_denied),
	TEST(test_refused_devices),
	TEST(test_device),
	TEST(test_private_device),
)
