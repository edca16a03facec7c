/*
 * ivwl-ko-guest: runs in the VM with ivwl.ko loaded and drives
 * /dev/ivwl0 against tests/vm/host-peer (same exchange as guest-probe,
 * docs/vm-testing.md, but through the driver):
 *   - checks the node (char device, mode 0600) and IVWL_IOCTL_GET_INFO;
 *   - checks that bad arguments are refused with the right errno;
 *   - binds an eventfd to every vector (SET_EVENTFD);
 *   - mmaps the region, checks the host block, writes the reply block;
 *   - rings peer 0 on every vector (DOORBELL);
 *   - waits for the host's doorbell on every eventfd, writes the ack.
 * The last line is "GUEST RESULT: PASS" or "GUEST RESULT: FAIL <why>".
 *
 *   ivwl-ko-guest --size BYTES --vectors N [--timeout-ms MS] [--dev PATH]
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../../kernel/uapi/ivwl.h"
#include "region.h"
#include "../probe.h"

#define MAX_VECTORS 64

static int failures;

static void
say(const char *fmt, ...)
{
	va_list ap;

	printf("GUEST: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static void
bad(const char *fmt, ...)
{
	va_list ap;

	printf("GUEST: FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	failures++;
}

static int
result(const char *why)
{
	if (why)
		printf("GUEST RESULT: FAIL %s\n", why);
	else if (failures)
		printf("GUEST RESULT: FAIL %d checks failed\n", failures);
	else
		printf("GUEST RESULT: PASS\n");
	fflush(stdout);
	return why || failures ? 1 : 0;
}

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Expects ioctl(fd, cmd, arg) to fail with errno want. */
static void
expect_ioctl_err(int fd, unsigned long cmd, void *arg, int want,
		 const char *what)
{
	int ret = ioctl(fd, cmd, arg);

	if (ret == 0)
		bad("%s: succeeded, expected %s", what, strerror(want));
	else if (errno != want)
		bad("%s: %s, expected %s", what, strerror(errno),
		    strerror(want));
	else
		say("%s: %s as expected", what, strerror(want));
}

/* Expects mmap of (length, offset, flags) to fail with errno want. */
static void
expect_mmap_err(int fd, size_t length, off_t offset, int flags, int want,
		const char *what)
{
	void *p = mmap(NULL, length, PROT_READ | PROT_WRITE, flags, fd,
		       offset);

	if (p != MAP_FAILED) {
		munmap(p, length);
		bad("%s: succeeded, expected %s", what, strerror(want));
	} else if (errno != want) {
		bad("%s: %s, expected %s", what, strerror(errno),
		    strerror(want));
	} else {
		say("%s: %s as expected", what, strerror(want));
	}
}

static void
check_bad_arguments(int fd, const struct ivwl_info *info)
{
	struct ivwl_doorbell db;
	struct ivwl_eventfd ev;
	uint64_t size = info->shm_size;
	void *p;

	expect_ioctl_err(fd, IVWL_IOCTL_GET_INFO, NULL, EFAULT,
			 "GET_INFO to NULL");
	expect_ioctl_err(fd, IVWL_IOCTL_DOORBELL, NULL, EFAULT,
			 "DOORBELL from NULL");
	expect_ioctl_err(fd, IVWL_IOCTL_SET_EVENTFD, NULL, EFAULT,
			 "SET_EVENTFD from NULL");

	db = (struct ivwl_doorbell){ .peer = 0, .vector = info->nr_vectors };
	expect_ioctl_err(fd, IVWL_IOCTL_DOORBELL, &db, EINVAL,
			 "DOORBELL vector nr_vectors");
	db = (struct ivwl_doorbell){ .peer = 0, .vector = 0xffff };
	expect_ioctl_err(fd, IVWL_IOCTL_DOORBELL, &db, EINVAL,
			 "DOORBELL vector 0xffff");
	db = (struct ivwl_doorbell){ .peer = 0, .vector = 0, .flags = 1 };
	expect_ioctl_err(fd, IVWL_IOCTL_DOORBELL, &db, EINVAL,
			 "DOORBELL flags 1");

	ev = (struct ivwl_eventfd){ .vector = info->nr_vectors, .fd = -1 };
	expect_ioctl_err(fd, IVWL_IOCTL_SET_EVENTFD, &ev, EINVAL,
			 "SET_EVENTFD vector nr_vectors");
	ev = (struct ivwl_eventfd){ .vector = 0, .fd = -2 };
	expect_ioctl_err(fd, IVWL_IOCTL_SET_EVENTFD, &ev, EINVAL,
			 "SET_EVENTFD fd -2");
	ev = (struct ivwl_eventfd){ .vector = 0, .fd = 1000 };
	expect_ioctl_err(fd, IVWL_IOCTL_SET_EVENTFD, &ev, EBADF,
			 "SET_EVENTFD fd not open");
	ev = (struct ivwl_eventfd){ .vector = 0, .fd = fd };
	expect_ioctl_err(fd, IVWL_IOCTL_SET_EVENTFD, &ev, EINVAL,
			 "SET_EVENTFD fd not an eventfd");

	expect_ioctl_err(fd, _IO(IVWL_IOCTL_MAGIC, 0x3f), NULL, ENOTTY,
			 "unknown ioctl");

	expect_mmap_err(fd, size + 4096, 0, MAP_SHARED, ENXIO,
			"mmap one page more than the region");
	expect_mmap_err(fd, 4096, size, MAP_SHARED, ENXIO,
			"mmap at offset shm_size");
	expect_mmap_err(fd, 8192, size - 4096, MAP_SHARED, ENXIO,
			"mmap across the end");
	expect_mmap_err(fd, 4096, 1ull << 62, MAP_SHARED, ENXIO,
			"mmap at offset 2^62");
	expect_mmap_err(fd, 4096, 0, MAP_PRIVATE, EINVAL, "mmap MAP_PRIVATE");

	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 size - 4096);
	if (p == MAP_FAILED)
		bad("mmap of the last page: %s", strerror(errno));
	else
		munmap(p, 4096);
}

static int
bind_eventfd(int fd, uint32_t vector, int efd)
{
	struct ivwl_eventfd ev = { .vector = vector, .fd = efd };

	if (ioctl(fd, IVWL_IOCTL_SET_EVENTFD, &ev) < 0) {
		bad("SET_EVENTFD vector %u fd %d: %s", vector, efd,
		    strerror(errno));
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "vectors", required_argument, NULL, 'v' },
		{ "timeout-ms", required_argument, NULL, 't' },
		{ "dev", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dev = "/dev/ivwl0";
	uint64_t size = 0, deadline, sum, badw, seen = 0, all, n;
	uint32_t vectors = 0, v;
	int timeout_ms = 60000, fd, c, efd[MAX_VECTORS];
	struct pollfd pfd[MAX_VECTORS];
	struct ivwl_info info;
	struct ivwl_layout layout;
	struct probe_block *b, copy;
	struct ivwl_doorbell db;
	struct stat st;
	void *base;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's': size = strtoull(optarg, NULL, 0); break;
		case 'v': vectors = strtoul(optarg, NULL, 0); break;
		case 't': timeout_ms = atoi(optarg); break;
		case 'd': dev = optarg; break;
		default: return result("bad arguments");
		}
	}
	if (!size || !vectors || vectors > MAX_VECTORS)
		return result("usage: --size BYTES --vectors N (1..64)");
	all = vectors >= 64 ? ~0ull : (1ull << vectors) - 1;

	if (stat(dev, &st) < 0)
		return result("no device node (driver not bound?)");
	if (!S_ISCHR(st.st_mode))
		bad("%s is not a character device", dev);
	if ((st.st_mode & 0777) != 0600)
		bad("%s has mode %03o, expected 600", dev, st.st_mode & 0777);
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return result("cannot open the device node");

	if (ioctl(fd, IVWL_IOCTL_GET_INFO, &info) < 0)
		return result("GET_INFO failed");
	say("GET_INFO: abi %u ivposition %u nr_vectors %u flags 0x%x "
	    "shm_size %" PRIu64, info.abi, info.ivposition, info.nr_vectors,
	    info.flags, (uint64_t)info.shm_size);
	if (info.abi != IVWL_ABI_VERSION)
		bad("abi %u, expected %u", info.abi, IVWL_ABI_VERSION);
	if (info.ivposition != IVWL_PEER_APP)
		bad("ivposition %u, expected %u", info.ivposition,
		    IVWL_PEER_APP);
	if (info.nr_vectors != vectors)
		bad("nr_vectors %u, expected %u", info.nr_vectors, vectors);
	if (info.shm_size != size)
		return result("shm_size does not match --size");
	if (info.flags & IVWL_INFO_F_PAGES)
		say("region has struct pages (devm_memremap_pages)");
	else
		bad("region mapped without struct pages (memremap fallback)");

	check_bad_arguments(fd, &info);

	/* Bind, rebind and unbind once before the real bindings. */
	efd[0] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (efd[0] < 0)
		return result("eventfd failed");
	bind_eventfd(fd, 0, efd[0]);
	bind_eventfd(fd, 0, efd[0]);
	bind_eventfd(fd, 0, -1);
	bind_eventfd(fd, 0, -1);
	close(efd[0]);

	for (v = 0; v < vectors; v++) {
		efd[v] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (efd[v] < 0)
			return result("eventfd failed");
		if (bind_eventfd(fd, v, efd[v]) < 0)
			return result("cannot bind eventfds");
		pfd[v].fd = efd[v];
		pfd[v].events = POLLIN;
	}
	say("eventfds bound to vectors 0..%u", vectors - 1);

	base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		return result("mmap of the whole region failed");
	if (ivwl_layout_compute(size, &layout) < 0 ||
	    layout.heap_size < PROBE_HEAP_NEEDED)
		return result("region too small for the probe layout");

	deadline = now_ms() + timeout_ms;
	b = probe_block_at(base, &layout, PROBE_BLOCK_HOST);
	while (__atomic_load_n(&b->magic, __ATOMIC_ACQUIRE) !=
	       PROBE_MAGIC_HOST) {
		if (now_ms() > deadline)
			return result("timed out waiting for the host block");
		usleep(1000);
	}
	memcpy(&copy, b, sizeof(copy));
	if (copy.length != PROBE_LENGTH)
		return result("host block has the wrong length");
	badw = probe_verify(probe_block_data(b), copy.length, copy.seed, &sum);
	if (badw != copy.length / 8 || sum != copy.checksum)
		return result("host pattern wrong through the mmap");
	say("host pattern OK through mmap: %" PRIu64 " bytes, seed 0x%016"
	    PRIx64, copy.length, copy.seed);

	b = probe_block_at(base, &layout, PROBE_BLOCK_REPLY);
	b->seed = copy.seed ^ PROBE_REPLY_XOR;
	b->length = PROBE_LENGTH;
	b->checksum = probe_fill(probe_block_data(b), PROBE_LENGTH, b->seed);
	b->value = 0;
	__atomic_store_n(&b->magic, PROBE_MAGIC_REPLY, __ATOMIC_RELEASE);
	say("reply block written");

	for (v = 0; v < vectors; v++) {
		db = (struct ivwl_doorbell){ .peer = IVWL_PEER_DISPLAY,
					     .vector = v };
		if (ioctl(fd, IVWL_IOCTL_DOORBELL, &db) < 0)
			bad("DOORBELL peer 0 vector %u: %s", v,
			    strerror(errno));
	}
	say("rang peer %u on vectors 0..%u", IVWL_PEER_DISPLAY, vectors - 1);

	while (seen != all) {
		int left = (int)(deadline - now_ms());

		if ((int64_t)(deadline - now_ms()) <= 0)
			break;
		if (poll(pfd, vectors, left) < 0 && errno != EINTR)
			return result("poll failed");
		for (v = 0; v < vectors; v++) {
			if (!(pfd[v].revents & POLLIN))
				continue;
			if (read(efd[v], &n, sizeof(n)) == sizeof(n) && n) {
				say("eventfd of vector %u fired (%" PRIu64
				    ")", v, n);
				seen |= 1ull << v;
			}
		}
	}
	if (seen != all)
		bad("host doorbells seen 0x%" PRIx64 " of 0x%" PRIx64, seen,
		    all);
	else
		say("host doorbells woke every eventfd");

	b = probe_block_at(base, &layout, PROBE_BLOCK_ACK);
	b->value = seen;
	__atomic_store_n(&b->magic, PROBE_MAGIC_ACK, __ATOMIC_RELEASE);

	for (v = 0; v < vectors; v++) {
		bind_eventfd(fd, v, -1);
		close(efd[v]);
	}
	munmap(base, size);
	close(fd);
	return result(NULL);
}
