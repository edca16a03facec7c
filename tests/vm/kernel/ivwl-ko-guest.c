/* SPDX-License-Identifier: MIT */
/*
 * ivwl-ko-guest: runs in the VM with ivwl.ko loaded and drives
 * /dev/ivwl0 against tests/vm/host-peer (same exchange as guest-probe,
 * docs/vm-testing.md, but through the driver), then unbinds, unloads and
 * reloads the driver with clients attached:
 *   - the node (char device, mode 0600) and IVWL_IOCTL_GET_INFO;
 *   - every bad ioctl, read and mmap argument refused with the right errno;
 *   - read()/poll() of doorbells rung on our own peer (loopback through
 *     QEMU): exact records, per-file counts, round robin, blocking read;
 *   - binds an eventfd to every vector (SET_EVENTFD); bindings belong to
 *     the open file that made them: EBUSY from another file, a dup of
 *     the owner rebinds, the binding goes when the owner is released;
 *   - times the release of a file with every vector bound (MEASURE
 *     line; printed, not judged) and checks it unbound them all;
 *   - protocol/'s device API on the node: a second opener fails with
 *     EBUSY and says why, a region not mapped write-back is warned about;
 *   - mmaps the region, checks the host block;
 *   - exports the reply block as a dma-buf, writes the reply pattern
 *     through the dma-buf mapping, checks it through the /dev mapping
 *     (host-peer then checks it on the host), imports it into vgem when
 *     --vgem is given (a device attachment);
 *   - rings peer 0 on every vector (DOORBELL);
 *   - waits for the host's doorbell on every eventfd and in read(),
 *     writes the ack;
 *   - where BAR2 is and its memory type: IVWL_INFO_F_WB and every PAT
 *     memtype entry over BAR2 against --bar (check_memtype());
 *   - with an open fd, a live mmap and a live dma-buf (mapped): rmmod
 *     fails with EWOULDBLOCK; unbinding the PCI device succeeds (after
 *     waiting for a vgem import to let go), the mappings then raise
 *     SIGBUS and every call fails with ENODEV;
 *     once they are closed rmmod succeeds; the module is loaded again
 *     with no_pages=1 (the memremap fallback) and used again: pattern
 *     read back through the node and a dma-buf, loopback doorbell,
 *     device attachment refused with EOPNOTSUPP.
 * The last line is "GUEST RESULT: PASS" or "GUEST RESULT: FAIL <why>".
 *
 *   ivwl-ko-guest --size BYTES --vectors N --module PATH [--vgem]
 *                 [--bar high|low] [--params 'P=V ...']
 *                 [--timeout-ms MS] [--dev PATH]
 *
 * --bar says where BAR2 must be and so which memory type the mapping
 * must have (see check_memtype()); --params are the parameters ivwl.ko
 * was first loaded with (the reload adds no_pages=1).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <linux/dma-buf.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../../kernel/uapi/ivwl.h"
#include "device.h"
#include "region.h"
#include "../probe.h"

#define MAX_VECTORS 64
#define LOOPBACK_ROUNDS 200

/* The two DRM ioctls used on vgem (uapi drm.h; no libdrm in the image). */
struct ivwl_drm_prime_handle {
	uint32_t handle;
	uint32_t flags;
	int32_t fd;
};

struct ivwl_drm_gem_close {
	uint32_t handle;
	uint32_t pad;
};

#define IVWL_DRM_IOCTL_GEM_CLOSE _IOW('d', 0x09, struct ivwl_drm_gem_close)
#define IVWL_DRM_IOCTL_PRIME_FD_TO_HANDLE \
	_IOWR('d', 0x2e, struct ivwl_drm_prime_handle)

#define ALL_FLAGS (IVWL_INFO_F_PAGES | IVWL_INFO_F_EXPORT | IVWL_INFO_F_READ)

struct ivwl_guest {
	const char *dev;
	const char *module;
	uint64_t size;
	uint32_t vectors;
	int timeout_ms;
	bool vgem;
	bool bar_high;		/* expect BAR2 moved above 4 GiB, write-back */
	const char *params;	/* ivwl.ko parameters of the first load */

	int fd;
	struct ivwl_info info;
	struct ivwl_layout layout;
	void *base;
	void *hole;		/* an unmapped user address */
	uint64_t host_seed;
};

static int failures;
static sigjmp_buf fault_jmp;
static volatile sig_atomic_t fault_armed;

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
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static uint64_t
now_ms(void)
{
	return now_us() / 1000;
}

static void
ivwl_on_sigbus(int sig)
{
	if (fault_armed)
		siglongjmp(fault_jmp, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Reads (write false) or writes one byte at p; true if it raised SIGBUS. */
static bool
ivwl_touch_faults(volatile uint8_t *p, bool write)
{
	bool faulted = false;

	if (sigsetjmp(fault_jmp, 1) == 0) {
		fault_armed = 1;
		if (write)
			*p = 0x5a;
		else
			(void)*p;
	} else {
		faulted = true;
	}
	fault_armed = 0;
	return faulted;
}

/*
 * Judges a call expected to fail with errno want, which returned ret
 * (negative: failed, errno set).
 */
static void
judge_failure(long ret, int want, const char *what)
{
	if (ret >= 0)
		bad("%s: succeeded (%ld), expected %s", what, ret,
		    strerror(want));
	else if (errno != want)
		bad("%s: %s, expected %s", what, strerror(errno),
		    strerror(want));
	else
		say("%s: %s as expected", what, strerror(want));
}

/* Expects ioctl(fd, cmd, arg) to fail with errno want. */
static void
expect_ioctl_err(int fd, unsigned long cmd, void *arg, int want,
		 const char *what)
{
	int ret = ioctl(fd, cmd, arg);

	judge_failure(ret, want, what);
	if (ret >= 0 && cmd == IVWL_IOCTL_EXPORT_DMABUF)
		close(ret);
}

/* Expects mmap of (length, offset, prot, flags) to fail with errno want. */
static void
expect_mmap_err(int fd, size_t length, off_t offset, int prot, int flags,
		int want, const char *what)
{
	void *p = mmap(NULL, length, prot, flags, fd, offset);

	judge_failure(p == MAP_FAILED ? -1 : 0, want, what);
	if (p != MAP_FAILED)
		munmap(p, length);
}

/* Expects read(fd, buf, len) to fail with errno want. */
static void
expect_read_err(int fd, void *buf, size_t len, int want, const char *what)
{
	judge_failure(read(fd, buf, len), want, what);
}

static void
expect_export_err(int fd, uint64_t offset, uint64_t size, uint32_t flags,
		  uint32_t pad, int want, const char *what)
{
	struct ivwl_export ex = {
		.offset = offset, .size = size, .flags = flags, .pad = pad,
	};

	expect_ioctl_err(fd, IVWL_IOCTL_EXPORT_DMABUF, &ex, want, what);
}

static int
ivwl_export(int fd, uint64_t offset, uint64_t size, uint32_t flags)
{
	struct ivwl_export ex = {
		.offset = offset, .size = size, .flags = flags,
	};

	return ioctl(fd, IVWL_IOCTL_EXPORT_DMABUF, &ex);
}

static void
check_bad_arguments(struct ivwl_guest *g)
{
	const struct ivwl_info *info = &g->info;
	uint64_t size = info->shm_size;
	struct ivwl_doorbell db;
	struct ivwl_eventfd ev;
	struct ivwl_event rec[2];
	int fd = g->fd, rofd, dfd;
	void *p;

	/* Pointers: NULL and an address with nothing mapped. */
	expect_ioctl_err(fd, IVWL_IOCTL_GET_INFO, NULL, EFAULT,
			 "GET_INFO to NULL");
	expect_ioctl_err(fd, IVWL_IOCTL_GET_INFO, g->hole, EFAULT,
			 "GET_INFO to an unmapped page");
	expect_ioctl_err(fd, IVWL_IOCTL_DOORBELL, NULL, EFAULT,
			 "DOORBELL from NULL");
	expect_ioctl_err(fd, IVWL_IOCTL_DOORBELL, g->hole, EFAULT,
			 "DOORBELL from an unmapped page");
	expect_ioctl_err(fd, IVWL_IOCTL_SET_EVENTFD, NULL, EFAULT,
			 "SET_EVENTFD from NULL");
	expect_ioctl_err(fd, IVWL_IOCTL_SET_EVENTFD, g->hole, EFAULT,
			 "SET_EVENTFD from an unmapped page");
	expect_ioctl_err(fd, IVWL_IOCTL_EXPORT_DMABUF, NULL, EFAULT,
			 "EXPORT_DMABUF from NULL");
	expect_ioctl_err(fd, IVWL_IOCTL_EXPORT_DMABUF, g->hole, EFAULT,
			 "EXPORT_DMABUF from an unmapped page");

	/* Unknown commands, and known numbers with the wrong size. */
	expect_ioctl_err(fd, _IO(IVWL_IOCTL_MAGIC, 0x3f), NULL, ENOTTY,
			 "unknown ioctl");
	expect_ioctl_err(fd, _IO(IVWL_IOCTL_MAGIC, 4), NULL, ENOTTY,
			 "ioctl 4");
	expect_ioctl_err(fd, _IOR(IVWL_IOCTL_MAGIC, 0, uint32_t), &ev, ENOTTY,
			 "GET_INFO with a 4-byte argument");
	expect_ioctl_err(fd, _IOW(IVWL_IOCTL_MAGIC, 3, uint64_t), &ev, ENOTTY,
			 "EXPORT_DMABUF with an 8-byte argument");

	/* DOORBELL: vectors, peers, flags. */
	db = (struct ivwl_doorbell){ .peer = 0, .vector = info->nr_vectors };
	expect_ioctl_err(fd, IVWL_IOCTL_DOORBELL, &db, EINVAL,
			 "DOORBELL vector nr_vectors");
	db = (struct ivwl_doorbell){ .peer = 0, .vector = 0xffff };
	expect_ioctl_err(fd, IVWL_IOCTL_DOORBELL, &db, EINVAL,
			 "DOORBELL vector 0xffff");
	db = (struct ivwl_doorbell){ .peer = 2, .vector = 0 };
	expect_ioctl_err(fd, IVWL_IOCTL_DOORBELL, &db, EINVAL,
			 "DOORBELL peer 2 (max_peers 2)");
	db = (struct ivwl_doorbell){ .peer = 0xffff, .vector = 0 };
	expect_ioctl_err(fd, IVWL_IOCTL_DOORBELL, &db, EINVAL,
			 "DOORBELL peer 0xffff");
	db = (struct ivwl_doorbell){ .peer = 0, .vector = 0, .flags = 1 };
	expect_ioctl_err(fd, IVWL_IOCTL_DOORBELL, &db, EINVAL,
			 "DOORBELL flags 1");
	db = (struct ivwl_doorbell){ .peer = 0, .vector = 0,
				     .flags = 0x80000000u };
	expect_ioctl_err(fd, IVWL_IOCTL_DOORBELL, &db, EINVAL,
			 "DOORBELL flags 0x80000000");

	/* SET_EVENTFD */
	ev = (struct ivwl_eventfd){ .vector = info->nr_vectors, .fd = -1 };
	expect_ioctl_err(fd, IVWL_IOCTL_SET_EVENTFD, &ev, EINVAL,
			 "SET_EVENTFD vector nr_vectors");
	ev = (struct ivwl_eventfd){ .vector = 0xffffffffu, .fd = -1 };
	expect_ioctl_err(fd, IVWL_IOCTL_SET_EVENTFD, &ev, EINVAL,
			 "SET_EVENTFD vector 0xffffffff");
	ev = (struct ivwl_eventfd){ .vector = 0, .fd = -2 };
	expect_ioctl_err(fd, IVWL_IOCTL_SET_EVENTFD, &ev, EINVAL,
			 "SET_EVENTFD fd -2");
	ev = (struct ivwl_eventfd){ .vector = 0, .fd = 1000 };
	expect_ioctl_err(fd, IVWL_IOCTL_SET_EVENTFD, &ev, EBADF,
			 "SET_EVENTFD fd not open");
	ev = (struct ivwl_eventfd){ .vector = 0, .fd = fd };
	expect_ioctl_err(fd, IVWL_IOCTL_SET_EVENTFD, &ev, EINVAL,
			 "SET_EVENTFD fd not an eventfd");

	/* EXPORT_DMABUF: alignment, size, range, overflow, flags, pad. */
	expect_export_err(fd, 1, 4096, 0, 0, EINVAL, "EXPORT offset 1");
	expect_export_err(fd, 2048, 4096, 0, 0, EINVAL, "EXPORT offset 2048");
	expect_export_err(fd, 0, 0, 0, 0, EINVAL, "EXPORT size 0");
	expect_export_err(fd, 0, 100, 0, 0, EINVAL, "EXPORT size 100");
	expect_export_err(fd, 0, 4096 + 512, 0, 0, EINVAL,
			  "EXPORT size 4608");
	expect_export_err(fd, size, 4096, 0, 0, EINVAL,
			  "EXPORT at offset shm_size");
	expect_export_err(fd, size - 4096, 8192, 0, 0, EINVAL,
			  "EXPORT across the end");
	expect_export_err(fd, 0, size + 4096, 0, 0, EINVAL,
			  "EXPORT one page more than the region");
	expect_export_err(fd, 4096, -4096ull, 0, 0, EINVAL,
			  "EXPORT offset + size wraps to 0");
	expect_export_err(fd, -4096ull, 8192, 0, 0, EINVAL,
			  "EXPORT offset 2^64 - 4096");
	expect_export_err(fd, 1ull << 62, 4096, 0, 0, EINVAL,
			  "EXPORT offset 2^62");
	expect_export_err(fd, 0, 4096, 2, 0, EINVAL, "EXPORT flags 2");
	expect_export_err(fd, 0, 4096, 0x80000000u, 0, EINVAL,
			  "EXPORT flags 0x80000000");
	expect_export_err(fd, 0, 4096, IVWL_EXPORT_F_RDWR | 4, 0, EINVAL,
			  "EXPORT flags RDWR | 4");
	expect_export_err(fd, 0, 4096, 0, 1, EINVAL, "EXPORT pad 1");

	/* A read-only open file: no writable dma-buf, no writable mmap. */
	rofd = open(g->dev, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (rofd < 0) {
		bad("open %s O_RDONLY: %s", g->dev, strerror(errno));
	} else {
		expect_export_err(rofd, 0, 4096, IVWL_EXPORT_F_RDWR, 0, EACCES,
				  "EXPORT RDWR from an O_RDONLY file");
		expect_mmap_err(rofd, 4096, 0, PROT_READ | PROT_WRITE,
				MAP_SHARED, EACCES,
				"writable mmap of an O_RDONLY file");
		expect_mmap_err(rofd, 4096, 0, PROT_READ, MAP_PRIVATE, EINVAL,
				"MAP_PRIVATE mmap of an O_RDONLY file");
		p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, rofd, 0);
		if (p == MAP_FAILED)
			bad("read-only mmap of an O_RDONLY file: %s",
			    strerror(errno));
		else if (mprotect(p, 4096, PROT_READ | PROT_WRITE) == 0)
			bad("mprotect made a read-only mapping writable");
		if (p != MAP_FAILED)
			munmap(p, 4096);
		dfd = ivwl_export(rofd, 0, 4096, 0);
		if (dfd < 0)
			bad("read-only EXPORT from an O_RDONLY file: %s",
			    strerror(errno));
		else
			close(dfd);
		/* read(): buffer sizes, nothing pending */
		expect_read_err(rofd, rec, 0, EINVAL, "read of 0 bytes");
		expect_read_err(rofd, rec, sizeof(rec[0]) - 1, EINVAL,
				"read of 7 bytes");
		expect_read_err(rofd, rec, sizeof(rec), EAGAIN,
				"O_NONBLOCK read with nothing pending");
		close(rofd);
	}

	/* mmap of the node */
	expect_mmap_err(fd, size + 4096, 0, PROT_READ | PROT_WRITE, MAP_SHARED,
			ENXIO, "mmap one page more than the region");
	expect_mmap_err(fd, 4096, size, PROT_READ | PROT_WRITE, MAP_SHARED,
			ENXIO, "mmap at offset shm_size");
	expect_mmap_err(fd, 8192, size - 4096, PROT_READ | PROT_WRITE,
			MAP_SHARED, ENXIO, "mmap across the end");
	expect_mmap_err(fd, 4096, 1ull << 62, PROT_READ | PROT_WRITE,
			MAP_SHARED, ENXIO, "mmap at offset 2^62");
	expect_mmap_err(fd, 4096, 0, PROT_READ | PROT_WRITE, MAP_PRIVATE,
			EINVAL, "mmap MAP_PRIVATE");

	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 size - 4096);
	if (p == MAP_FAILED)
		bad("mmap of the last page: %s", strerror(errno));
	else
		munmap(p, 4096);

	/* mmap of a dma-buf: beyond its size, private, writable read-only */
	dfd = ivwl_export(fd, size - 8192, 8192, 0);
	if (dfd < 0) {
		bad("EXPORT of the last two pages: %s", strerror(errno));
		return;
	}
	expect_mmap_err(dfd, 12288, 0, PROT_READ, MAP_SHARED, EINVAL,
			"dma-buf mmap of 3 pages of 2");
	expect_mmap_err(dfd, 4096, 8192, PROT_READ, MAP_SHARED, EINVAL,
			"dma-buf mmap at offset 8192 of 8192");
	expect_mmap_err(dfd, 4096, 0, PROT_READ, MAP_PRIVATE, EINVAL,
			"dma-buf mmap MAP_PRIVATE");
	expect_mmap_err(dfd, 4096, 0, PROT_READ | PROT_WRITE, MAP_SHARED,
			EACCES, "writable mmap of a read-only dma-buf");
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, dfd, 4096);
	if (p == MAP_FAILED)
		bad("read-only mmap of the dma-buf's 2nd page: %s",
		    strerror(errno));
	else
		munmap(p, 4096);
	close(dfd);
}

/* Checks the flags and size of a dma-buf fd against what we asked. */
static void
check_dmabuf_fd(int dfd, uint64_t size, bool rdwr, const char *what)
{
	int fl = fcntl(dfd, F_GETFL), fdfl = fcntl(dfd, F_GETFD);
	off_t end = lseek(dfd, 0, SEEK_END);

	if (!(fdfl & FD_CLOEXEC))
		bad("%s: dma-buf fd without FD_CLOEXEC", what);
	if ((fl & O_ACCMODE) != (rdwr ? O_RDWR : O_RDONLY))
		bad("%s: dma-buf fd access mode %d, expected %d", what,
		    fl & O_ACCMODE, rdwr ? O_RDWR : O_RDONLY);
	if (end < 0 || (uint64_t)end != size)
		bad("%s: dma-buf size %lld, expected %" PRIu64, what,
		    (long long)end, size);
	lseek(dfd, 0, SEEK_SET);
}

static int
dmabuf_sync(int dfd, uint64_t flags)
{
	struct dma_buf_sync sync = { .flags = flags };

	return ioctl(dfd, DMA_BUF_IOCTL_SYNC, &sync);
}

static int
ring(int fd, uint16_t peer, uint16_t vector)
{
	struct ivwl_doorbell db = { .peer = peer, .vector = vector };

	return ioctl(fd, IVWL_IOCTL_DOORBELL, &db);
}

/*
 * Waits until fd is readable and reads records until the vectors in
 * want have all been reported; counts[v] gets the sum per vector.
 * Returns the mask seen.
 */
static uint64_t
collect(int fd, uint64_t want, uint32_t *counts, uint32_t nvec, int ms)
{
	struct ivwl_event rec[MAX_VECTORS];
	uint64_t deadline = now_ms() + ms, seen = 0;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n;
	int i;

	memset(counts, 0, nvec * sizeof(*counts));
	while ((seen & want) != want && now_ms() < deadline) {
		if (poll(&pfd, 1, (int)(deadline - now_ms())) <= 0)
			continue;
		if (pfd.revents != POLLIN) {
			bad("poll revents 0x%x, expected POLLIN", pfd.revents);
			break;
		}
		n = read(fd, rec, sizeof(rec));
		if (n < 0) {
			bad("read after POLLIN: %s", strerror(errno));
			break;
		}
		if (n == 0 || n % sizeof(rec[0])) {
			bad("read returned %zd bytes", n);
			break;
		}
		for (i = 0; i < n / (ssize_t)sizeof(rec[0]); i++) {
			if (rec[i].vector >= nvec) {
				bad("record for vector %u", rec[i].vector);
				continue;
			}
			counts[rec[i].vector] += rec[i].count;
			seen |= 1ull << rec[i].vector;
		}
	}
	return seen;
}

/* Expects nothing to be pending on fd (POLLIN clear, read EAGAIN). */
static void
expect_quiet(int fd, const char *what)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct ivwl_event rec;
	int fl = fcntl(fd, F_GETFL);

	if (poll(&pfd, 1, 0) != 0)
		bad("%s: poll revents 0x%x, expected none", what, pfd.revents);
	fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	if (read(fd, &rec, sizeof(rec)) >= 0)
		bad("%s: read returned vector %u count %u, expected EAGAIN",
		    what, rec.vector, rec.count);
	else if (errno != EAGAIN)
		bad("%s: read: %s, expected EAGAIN", what, strerror(errno));
	fcntl(fd, F_SETFL, fl);
}

/* One loopback doorbell on vector v, read back as exactly {v, 1}. */
static bool
loopback_once(struct ivwl_guest *g, int fd, uint32_t v)
{
	uint32_t counts[MAX_VECTORS];
	uint64_t seen;

	if (ring(fd, g->info.ivposition, v) < 0) {
		bad("DOORBELL own peer vector %u: %s", v, strerror(errno));
		return false;
	}
	seen = collect(fd, 1ull << v, counts, g->vectors, 5000);
	if (seen != 1ull << v || counts[v] != 1) {
		bad("loopback on vector %u: mask 0x%" PRIx64 " count %u, "
		    "expected mask 0x%llx count 1", v, seen, counts[v],
		    1ull << v);
		return false;
	}
	return true;
}

/*
 * Doorbells on our own peer id come back through QEMU as interrupts on
 * our own vectors: read() and poll() are checked against exact values.
 */
static void
check_read_poll(struct ivwl_guest *g)
{
	uint32_t counts[MAX_VECTORS], v, last = g->vectors - 1;
	struct ivwl_event rec;
	uint64_t seen, t, total = 0, worst = 0;
	int fd2, fd3, i, status;
	pid_t child;
	ssize_t n;

	expect_quiet(g->fd, "before any doorbell");
	for (v = 0; v < g->vectors; v++)
		if (!loopback_once(g, g->fd, v))
			return;
	say("loopback doorbell on each of vectors 0..%u read back as "
	    "{vector, 1}", last);
	expect_quiet(g->fd, "after reading every loopback doorbell");

	/* Two files count on their own; a file opened later sees nothing. */
	fd2 = open(g->dev, O_RDWR | O_CLOEXEC);
	if (fd2 < 0) {
		bad("second open: %s", strerror(errno));
		return;
	}
	ring(g->fd, g->info.ivposition, 0);
	ring(g->fd, g->info.ivposition, last);
	seen = collect(fd2, 1ull | 1ull << last, counts, g->vectors, 5000);
	if (seen != (1ull | 1ull << last) || counts[0] != 1 ||
	    counts[last] != 1)
		bad("second file: mask 0x%" PRIx64 " counts %u/%u, expected "
		    "vectors 0 and %u once each", seen, counts[0],
		    counts[last], last);
	fd3 = open(g->dev, O_RDWR | O_CLOEXEC);
	expect_quiet(fd3, "file opened after the doorbells");
	expect_quiet(fd2, "second file after reading");

	/* The first file still has both; an unmapped buffer keeps them. */
	expect_read_err(g->fd, g->hole, sizeof(rec), EFAULT,
			"read into an unmapped page");
	n = read(g->fd, &rec, sizeof(rec));
	if (n != sizeof(rec) || rec.vector != 0 || rec.count != 1)
		bad("first record after EFAULT: %zd bytes vector %u count %u, "
		    "expected vector 0 count 1", n, rec.vector, rec.count);
	/*
	 * Round robin: vector 0 again while last is still waiting; fd2
	 * witnesses the interrupt without touching the first file.
	 */
	if (g->vectors > 1) {
		ring(g->fd, g->info.ivposition, 0);
		seen = collect(fd2, 1, counts, g->vectors, 5000);
		if (seen != 1 || counts[0] != 1)
			bad("second file, round robin doorbell: mask 0x%"
			    PRIx64 " count %u, expected 0x1 count 1", seen,
			    counts[0]);
		n = read(g->fd, &rec, sizeof(rec));
		if (n != sizeof(rec) || rec.vector != last || rec.count != 1)
			bad("round robin: vector %u count %u, expected "
			    "vector %u count 1", rec.vector, rec.count, last);
		n = read(g->fd, &rec, sizeof(rec));
		if (n != sizeof(rec) || rec.vector != 0 || rec.count != 1)
			bad("round robin: vector %u count %u, expected "
			    "vector 0 count 1", rec.vector, rec.count);
		else
			say("one-record reads take turns between vectors");
		seen = collect(fd3, 1, counts, g->vectors, 5000);
		if (seen != 1 || counts[0] != 1)
			bad("third file: mask 0x%" PRIx64 " count %u, "
			    "expected 0x1 count 1", seen, counts[0]);
	} else {
		n = read(g->fd, &rec, sizeof(rec));
	}
	expect_quiet(g->fd, "first file after the round robin");
	expect_quiet(fd2, "second file after the round robin");
	expect_quiet(fd3, "third file after the round robin");
	close(fd2);
	close(fd3);

	/*
	 * A blocking read returns when a doorbell arrives.  Timed from
	 * before the fork, so a parent scheduled late cannot fail it.
	 */
	t = now_us();
	child = fork();
	if (child == 0) {
		usleep(200000);
		_exit(ring(g->fd, g->info.ivposition, last) < 0 ? 1 : 0);
	}
	n = read(g->fd, &rec, sizeof(rec));
	t = now_us() - t;
	waitpid(child, &status, 0);
	if (n != sizeof(rec) || rec.vector != last || rec.count != 1)
		bad("blocking read: %zd bytes vector %u count %u, expected "
		    "vector %u count 1", n, rec.vector, rec.count, last);
	else if (t < 150000)
		bad("blocking read returned after %" PRIu64 " us, before the "
		    "doorbell", t);
	else
		say("blocking read woke after %" PRIu64 " ms", t / 1000);

	/* Latency of ring -> interrupt -> poll -> read, own peer. */
	for (i = 0; i < LOOPBACK_ROUNDS; i++) {
		t = now_us();
		if (!loopback_once(g, g->fd, i % g->vectors))
			return;
		t = now_us() - t;
		total += t;
		if (t > worst)
			worst = t;
	}
	say("MEASURE loopback doorbell to read(): %d rounds, mean %" PRIu64
	    " us, worst %" PRIu64 " us (TCG)", LOOPBACK_ROUNDS,
	    total / LOOPBACK_ROUNDS, worst);
	expect_quiet(g->fd, "after the latency rounds");
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

/* Expects SET_EVENTFD (vector, efd) on fd to fail with errno want. */
static void
expect_bind_err(int fd, uint32_t vector, int efd, int want, const char *what)
{
	struct ivwl_eventfd ev = { .vector = vector, .fd = efd };

	expect_ioctl_err(fd, IVWL_IOCTL_SET_EVENTFD, &ev, want, what);
}

/* The eventfd's counter, consumed; 0 when nothing is pending. */
static uint64_t
eventfd_take(int efd)
{
	uint64_t n;

	if (read(efd, &n, sizeof(n)) == sizeof(n))
		return n;
	if (errno != EAGAIN)
		bad("read of an eventfd: %s", strerror(errno));
	return 0;
}

/*
 * One loopback doorbell on vector v; once g->fd's read() has seen it the
 * handler has already signalled the bound eventfd.  want_a and want_b:
 * what efd_a and efd_b must have counted.
 */
static void
loopback_eventfds(struct ivwl_guest *g, uint32_t v, int efd_a,
		  uint64_t want_a, int efd_b, uint64_t want_b, const char *what)
{
	uint64_t a, b;

	if (!loopback_once(g, g->fd, v))
		return;
	a = eventfd_take(efd_a);
	b = eventfd_take(efd_b);
	if (a != want_a || b != want_b)
		bad("%s: eventfds counted %" PRIu64 " and %" PRIu64 ", expected "
		    "%" PRIu64 " and %" PRIu64, what, a, b, want_a, want_b);
	else
		say("%s: the doorbell signalled %s", what,
		    want_a ? "the first eventfd only" :
		    want_b ? "the second eventfd only" : "neither eventfd");
}

#define RELEASE_ROUNDS 5

/*
 * Binds an eventfd to every vector through a file of its own, times
 * close() (the release runs before close() returns: task work on the
 * way back to user space), then binds every vector from a second file,
 * which only works if the release dropped all the bindings.  Prints the
 * figure; the time is not judged.
 */
static void
measure_release(struct ivwl_guest *g)
{
	uint64_t t, best = UINT64_MAX, worst = 0, total = 0;
	int efd[MAX_VECTORS], fd, fb, r;
	uint32_t v;

	for (v = 0; v < g->vectors; v++) {
		efd[v] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (efd[v] < 0) {
			bad("release timing: eventfd: %s", strerror(errno));
			while (v--)
				close(efd[v]);
			return;
		}
	}
	for (r = 0; r < RELEASE_ROUNDS; r++) {
		fd = open(g->dev, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			bad("release timing: open: %s", strerror(errno));
			break;
		}
		for (v = 0; v < g->vectors; v++)
			if (bind_eventfd(fd, v, efd[v]) < 0)
				break;
		t = now_us();
		close(fd);
		t = now_us() - t;
		total += t;
		best = t < best ? t : best;
		worst = t > worst ? t : worst;

		fb = open(g->dev, O_RDWR | O_CLOEXEC);
		for (v = 0; fb >= 0 && v < g->vectors; v++)
			if (bind_eventfd(fb, v, efd[v]) < 0)
				break;
		if (fb < 0 || v < g->vectors)
			bad("release timing: a vector stayed bound after "
			    "its owner was released");
		if (fb >= 0)
			close(fb);
		if (v < g->vectors)
			break;
	}
	if (r == RELEASE_ROUNDS)
		say("MEASURE release of a file with %u bound vectors: mean %"
		    PRIu64 " us, best %" PRIu64 " us, worst %" PRIu64
		    " us over %d closes (TCG)", g->vectors,
		    total / RELEASE_ROUNDS, best, worst, RELEASE_ROUNDS);
	for (v = 0; v < g->vectors; v++)
		close(efd[v]);
}

/*
 * Vector bindings belong to the open file that made them: a second
 * open file gets EBUSY (binding and unbinding) while the first holds
 * the vector, a dup of the first is the same file, and once the first
 * file is released (its last fd closed) the second can bind.  Two
 * files of our own besides g->fd, which only watches through read().
 */
static void
check_eventfd_owner(struct ivwl_guest *g)
{
	uint32_t v0 = 0, v1 = g->vectors - 1;
	int fa, fb, fa_dup, efd_a, efd_b;

	fa = open(g->dev, O_RDWR | O_CLOEXEC);
	fb = open(g->dev, O_RDWR | O_CLOEXEC);
	efd_a = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	efd_b = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (fa < 0 || fb < 0 || efd_a < 0 || efd_b < 0) {
		bad("ownership test: open or eventfd: %s", strerror(errno));
		goto out;
	}
	if (bind_eventfd(fa, v0, efd_a) < 0)
		goto out;
	expect_bind_err(fb, v0, efd_b, EBUSY,
			"SET_EVENTFD on a vector bound by another open file");
	expect_bind_err(fb, v0, -1, EBUSY,
			"unbinding a vector bound by another open file");
	expect_bind_err(fb, v0, efd_a, EBUSY,
			"SET_EVENTFD of the owner's own eventfd from another "
			"open file");
	loopback_eventfds(g, v0, efd_a, 1, efd_b, 0,
			  "owner bound, other file refused");

	/* The other file may take a vector nobody holds, and keep it. */
	if (bind_eventfd(fb, v1, efd_b) == 0) {
		expect_bind_err(fa, v1, efd_a, EBUSY,
				"the first file binding a vector the second "
				"holds");
		loopback_eventfds(g, v1, efd_a, 0, efd_b, 1,
				  "second file's own vector");
		bind_eventfd(fb, v1, -1);
		loopback_eventfds(g, v1, efd_a, 0, efd_b, 0,
				  "second file's vector unbound");
	}

	/* A dup is the same file: it rebinds, and keeps the file alive. */
	fa_dup = fcntl(fa, F_DUPFD_CLOEXEC, 0);
	if (fa_dup < 0) {
		bad("dup of the first file: %s", strerror(errno));
		goto out;
	}
	if (bind_eventfd(fa_dup, v0, efd_a) == 0)
		say("a dup of the owning file rebinds its vector");
	close(fa);
	fa = -1;
	expect_bind_err(fb, v0, efd_b, EBUSY,
			"SET_EVENTFD while a dup of the owner is open");
	loopback_eventfds(g, v0, efd_a, 1, efd_b, 0,
			  "owner's fd closed, its dup open");

	/* Released: the binding is gone and the other file can bind. */
	close(fa_dup);
	loopback_eventfds(g, v0, efd_a, 0, efd_b, 0,
			  "owning file released");
	if (bind_eventfd(fb, v0, efd_b) == 0)
		say("after the owner was released a second open file binds "
		    "its vector");
	loopback_eventfds(g, v0, efd_a, 0, efd_b, 1,
			  "new owner after the release");
	bind_eventfd(fb, v0, -1);
	bind_eventfd(fb, v0, -1);
out:
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	if (efd_a >= 0)
		close(efd_a);
	if (efd_b >= 0)
		close(efd_b);
	expect_quiet(g->fd, "after the ownership checks");
}

/*
 * ivwl_device_open_kernel() (protocol/device-kernel.c) on stderr
 * captured through a pipe: *out is what it wrote there (NUL-ended).
 */
static int
device_open_captured(struct ivwl_guest *g, struct ivwl_device **dev,
		     const char **err, char *out, size_t len)
{
	int p[2], saved, ret;
	ssize_t n;

	out[0] = '\0';
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
		return ivwl_device_open_kernel(g->dev, 0, dev, err);
	fflush(stderr);
	saved = fcntl(2, F_DUPFD_CLOEXEC, 0);
	dup2(p[1], 2);
	ret = ivwl_device_open_kernel(g->dev, 0, dev, err);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(p[1]);
	n = read(p[0], out, len - 1);
	while (n > 0 && out[n - 1] == '\n')
		n--;
	out[n > 0 ? n : 0] = '\0';
	close(p[0]);
	return ret;
}

/*
 * protocol/'s device API on the real driver: the opener owns every
 * vector and is woken through them; a second opener fails with EBUSY
 * and a message that says why; a region not mapped write-back is warned
 * about on stderr (and only then).
 */
static void
check_device_api(struct ivwl_guest *g)
{
	struct ivwl_device *dev = NULL, *dev2 = NULL;
	const char *err = NULL;
	char log[1024];
	bool warned;
	uint64_t n;
	int ret;

	ret = device_open_captured(g, &dev, &err, log, sizeof(log));
	if (ret < 0) {
		bad("ivwl_device_open_kernel: %s (%s)", strerror(-ret),
		    err ? err : "no message");
		return;
	}
	warned = strstr(log, "not map the region write-back") != NULL;
	if (warned == g->bar_high)
		bad("ivwl_device_open_kernel with BAR2 %s: %s", g->bar_high ?
		    "write-back" : "not write-back", warned ?
		    "warned that the region is not write-back" :
		    "no warning about the memory type");
	else if (warned)
		say("the device API warns: %s", log);
	else
		say("the device API opens a write-back region without a "
		    "warning");
	if (ivwl_device_nr_vectors(dev) != g->vectors)
		bad("device API: %u vectors, expected %u",
		    ivwl_device_nr_vectors(dev), g->vectors);

	if (loopback_once(g, g->fd, g->vectors - 1)) {
		n = ivwl_device_vector_drain(dev, g->vectors - 1);
		if (n != 1)
			bad("device API: vector %u drained %" PRIu64
			    ", expected 1", g->vectors - 1, n);
		else
			say("device API: loopback doorbell seen on its "
			    "vector's eventfd");
	}

	err = NULL;
	ret = device_open_captured(g, &dev2, &err, log, sizeof(log));
	if (ret != -EBUSY)
		bad("second ivwl_device_open_kernel: %s, expected %s",
		    ret ? strerror(-ret) : "success", strerror(EBUSY));
	else if (!err || !strstr(err, "bound by another process"))
		bad("second ivwl_device_open_kernel: EBUSY with message "
		    "\"%s\"", err ? err : "(none)");
	else
		say("second ivwl_device_open_kernel: %s as expected (%s)",
		    strerror(EBUSY), err);
	if (ret == 0)
		ivwl_device_destroy(dev2);

	ivwl_device_destroy(dev);
	ret = device_open_captured(g, &dev, &err, log, sizeof(log));
	if (ret < 0)
		bad("ivwl_device_open_kernel after the owner's destroy: %s",
		    strerror(-ret));
	else
		say("ivwl_device_open_kernel works again once the owner "
		    "is destroyed");
	if (ret == 0)
		ivwl_device_destroy(dev);
	expect_quiet(g->fd, "after the device API checks");
}

/* Returns an fd of the first DRM card (vgem), or -1. */
static int
open_card(void)
{
	char path[64];
	int i, fd;

	for (i = 0; i < 8; i++) {
		snprintf(path, sizeof(path), "/dev/dri/card%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd >= 0)
			return fd;
	}
	return -1;
}

/*
 * Imports dfd into vgem, a device attachment (dma_buf_attach and
 * dma_buf_map_attachment in the exporter), and keeps it: *card and
 * *handle for vgem_release().  Returns 0 or -errno.
 */
static int
vgem_import_keep(int dfd, int *card, uint32_t *handle)
{
	struct ivwl_drm_prime_handle prime = { .fd = dfd };
	int ret;

	*card = open_card();
	if (*card < 0)
		return -ENODEV;
	if (ioctl(*card, IVWL_DRM_IOCTL_PRIME_FD_TO_HANDLE, &prime) < 0) {
		ret = -errno;
		close(*card);
		*card = -1;
		return ret;
	}
	*handle = prime.handle;
	return 0;
}

/* Drops the import: the exporter's unmap and detach.  0 or -errno. */
static int
vgem_release(int card, uint32_t handle)
{
	struct ivwl_drm_gem_close gc = { .handle = handle };
	int ret = 0;

	if (ioctl(card, IVWL_DRM_IOCTL_GEM_CLOSE, &gc) < 0)
		ret = -errno;
	close(card);
	return ret;
}

static int
vgem_import(int dfd)
{
	uint32_t handle;
	int card, ret;

	ret = vgem_import_keep(dfd, &card, &handle);
	if (ret == 0)
		ret = vgem_release(card, handle);
	return ret;
}

static int
wait_for_host_block(struct ivwl_guest *g, uint64_t deadline)
{
	struct probe_block *b, copy;
	uint64_t badw, sum;

	b = probe_block_at(g->base, &g->layout, PROBE_BLOCK_HOST);
	while (__atomic_load_n(&b->magic, __ATOMIC_ACQUIRE) !=
	       PROBE_MAGIC_HOST) {
		if (now_ms() > deadline)
			return -1;
		usleep(1000);
	}
	memcpy(&copy, b, sizeof(copy));
	if (copy.length != PROBE_LENGTH) {
		bad("host block has length %" PRIu64, copy.length);
		return -1;
	}
	badw = probe_verify(probe_block_data(b), copy.length, copy.seed, &sum);
	if (badw != copy.length / 8 || sum != copy.checksum) {
		bad("host pattern wrong through the mmap at word %" PRIu64,
		    badw);
		return -1;
	}
	g->host_seed = copy.seed;
	say("host pattern OK through mmap: %" PRIu64 " bytes, seed 0x%016"
	    PRIx64, copy.length, copy.seed);
	return 0;
}

/*
 * The reply block (one header page and PROBE_LENGTH bytes) is written
 * through a dma-buf of exactly that range and checked through the
 * node's mapping; host-peer checks it on the host.  Returns the dma-buf
 * fd and its mapping, kept for the unbind test.
 */
static int
reply_through_dmabuf(struct ivwl_guest *g, void **map, uint64_t *map_size)
{
	uint64_t off = g->layout.heap_offset + PROBE_BLOCK_REPLY * PROBE_AREA;
	uint64_t len = PROBE_DATA_OFFSET + PROBE_LENGTH, t, sum, badw;
	struct probe_block *b, *dev_b;
	uint64_t seed = g->host_seed ^ PROBE_REPLY_XOR;
	int dfd, ret;
	void *p;

	t = now_us();
	dfd = ivwl_export(g->fd, off, len, IVWL_EXPORT_F_RDWR);
	t = now_us() - t;
	if (dfd < 0) {
		bad("EXPORT of the reply block (0x%" PRIx64 "+0x%" PRIx64
		    "): %s", off, len, strerror(errno));
		return -1;
	}
	say("MEASURE EXPORT_DMABUF of %" PRIu64 " bytes: %" PRIu64 " us",
	    len, t);
	check_dmabuf_fd(dfd, len, true, "reply dma-buf");

	t = now_us();
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, dfd, 0);
	t = now_us() - t;
	if (p == MAP_FAILED) {
		bad("mmap of the reply dma-buf: %s", strerror(errno));
		close(dfd);
		return -1;
	}
	say("MEASURE dma-buf mmap of %" PRIu64 " bytes: %" PRIu64 " us",
	    len, t);

	if (dmabuf_sync(dfd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE) < 0)
		bad("DMA_BUF_IOCTL_SYNC start: %s", strerror(errno));
	b = p;
	b->seed = seed;
	b->length = PROBE_LENGTH;
	t = now_us();
	b->checksum = probe_fill(probe_block_data(b), PROBE_LENGTH, seed);
	t = now_us() - t;
	b->value = 0;
	if (dmabuf_sync(dfd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE) < 0)
		bad("DMA_BUF_IOCTL_SYNC end: %s", strerror(errno));
	say("MEASURE pattern fill of %llu bytes through the dma-buf "
	    "mapping: %" PRIu64 " us", PROBE_LENGTH, t);

	/* The same bytes through the node's mapping. */
	dev_b = probe_block_at(g->base, &g->layout, PROBE_BLOCK_REPLY);
	badw = probe_verify(probe_block_data(dev_b), PROBE_LENGTH, seed, &sum);
	if (badw != PROBE_LENGTH / 8 || sum != b->checksum ||
	    dev_b->seed != seed) {
		bad("dma-buf writes not seen through /dev mapping (word %"
		    PRIu64 ")", badw);
	} else {
		say("reply pattern written through the dma-buf is seen "
		    "through the /dev mapping");
	}

	if (g->vgem) {
		ret = vgem_import(dfd);
		if (ret)
			bad("vgem import of the reply dma-buf: %s",
			    strerror(-ret));
		else
			say("vgem imported the reply dma-buf (device "
			    "attachment mapped and released)");
	}

	/* Publish through the dma-buf too. */
	__atomic_store_n(&b->magic, PROBE_MAGIC_REPLY, __ATOMIC_RELEASE);
	say("reply block published through the dma-buf");
	*map = p;
	*map_size = len;
	return dfd;
}

/* Waits for host-peer's doorbells on every eventfd and in read(). */
static uint64_t
wait_host_doorbells(struct ivwl_guest *g, int *efd, uint64_t deadline)
{
	struct pollfd pfd[MAX_VECTORS];
	uint32_t counts[MAX_VECTORS], v;
	uint64_t all, seen = 0, rseen, n;

	all = g->vectors >= 64 ? ~0ull : (1ull << g->vectors) - 1;
	for (v = 0; v < g->vectors; v++) {
		pfd[v].fd = efd[v];
		pfd[v].events = POLLIN;
	}
	while (seen != all) {
		int64_t left = (int64_t)(deadline - now_ms());

		if (left <= 0)
			break;
		if (poll(pfd, g->vectors, (int)left) < 0 && errno != EINTR)
			break;
		for (v = 0; v < g->vectors; v++) {
			if (!(pfd[v].revents & POLLIN))
				continue;
			if (read(efd[v], &n, sizeof(n)) == sizeof(n) && n) {
				say("eventfd of vector %u fired (%" PRIu64
				    ")", v, n);
				seen |= 1ull << v;
			}
		}
	}
	if (seen != all) {
		bad("host doorbells seen 0x%" PRIx64 " of 0x%" PRIx64, seen,
		    all);
		return seen;
	}
	say("host doorbells woke every eventfd");

	/* The same interrupts, once each, through read(). */
	rseen = collect(g->fd, all, counts, g->vectors, 5000);
	if (rseen != all)
		bad("read() saw host doorbells 0x%" PRIx64 " of 0x%" PRIx64,
		    rseen, all);
	for (v = 0; v < g->vectors; v++)
		if (counts[v] != 1)
			bad("read() count for host vector %u is %u, expected 1",
			    v, counts[v]);
	if (rseen == all)
		say("read() reported every host doorbell once");
	return seen;
}

static int
delete_module(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK);
}

static int
load_module(const char *path, const char *params)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -1;
	ret = syscall(SYS_finit_module, fd, params, 0);
	close(fd);
	return ret;
}

static bool
module_loaded(void)
{
	struct stat st;

	return stat("/sys/module/ivwl", &st) == 0;
}

/*
 * BAR2's physical range, from the PCI device behind the node (line 2 of
 * its sysfs resource file).  0 on success.
 */
static int
bar2_range(uint64_t *start, uint64_t *end)
{
	char line[256];
	FILE *f;
	int i, ret = -1;

	f = fopen("/sys/class/misc/ivwl0/device/resource", "re");
	if (!f)
		return -1;
	for (i = 0; i <= 2 && fgets(line, sizeof(line), f); i++)
		if (i == 2 && sscanf(line, "%" SCNx64 " %" SCNx64, start,
				     end) == 2)
			ret = 0;
	fclose(f);
	return ret;
}

/*
 * Where BAR2 is and what memory type the guest maps it with.  With
 * g->bar_high, BAR2 must lie above 4 GiB (ivwl.ko's move_high), the
 * driver must report IVWL_INFO_F_WB and every PAT memtype entry over
 * BAR2 (the kernel mapping and each user mapping reserve one) must be
 * write-back; without, BAR2 stays in the 32-bit PCI hole, which the
 * firmware's MTRRs make uncached: no IVWL_INFO_F_WB, every entry
 * uncached-minus.  Needs debugfs at /sys/kernel/debug (test-ivwl-ko.sh
 * mounts it).
 */
static void
check_memtype(const struct ivwl_guest *g, uint32_t flags, const char *when)
{
	const char *want = g->bar_high ? "write-back" : "uncached-minus";
	uint64_t start, end, a, b;
	char line[256], type[64];
	int match = 0, other = 0;
	FILE *f;

	if (bar2_range(&start, &end) < 0) {
		bad("%s: cannot read BAR2's range from sysfs", when);
		return;
	}
	if ((start >= (1ull << 32)) != g->bar_high)
		bad("%s: BAR2 at 0x%" PRIx64 ", expected %s 4 GiB", when,
		    start, g->bar_high ? "above" : "below");
	if (!!(flags & IVWL_INFO_F_WB) != g->bar_high)
		bad("%s: GET_INFO flags 0x%x %s IVWL_INFO_F_WB", when, flags,
		    g->bar_high ? "without" : "with");
	f = fopen("/sys/kernel/debug/x86/pat_memtype_list", "re");
	if (!f) {
		bad("%s: no /sys/kernel/debug/x86/pat_memtype_list: %s", when,
		    strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "PAT: [mem 0x%" SCNx64 "-0x%" SCNx64 "] %63s",
			   &a, &b, type) != 3)
			continue;
		if (b <= start || a > end)
			continue;
		if (strcmp(type, want) == 0) {
			match++;
		} else {
			other++;
			bad("%s: BAR2 memtype entry %s, expected %s", when,
			    line, want);
		}
	}
	fclose(f);
	if (match < 2)
		bad("%s: %d %s PAT memtype entries over BAR2 [0x%" PRIx64
		    "-0x%" PRIx64 "], expected at least 2 (kernel, user)",
		    when, match, want, start, end);
	else if (!other)
		say("%s: BAR2 at 0x%" PRIx64 ", %d PAT memtype entries over "
		    "it, all %s", when, start, match, want);
}

/* Unbinds the PCI device behind /dev/ivwl0 from the driver. */
static int
unbind_device(char *bdf, size_t len)
{
	char link[256];
	ssize_t n;
	int fd;

	n = readlink("/sys/class/misc/ivwl0/device", link, sizeof(link) - 1);
	if (n < 0)
		return -1;
	link[n] = '\0';
	snprintf(bdf, len, "%s", basename(link));
	fd = open("/sys/bus/pci/drivers/ivwl/unbind", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = write(fd, bdf, strlen(bdf));
	close(fd);
	return n == (ssize_t)strlen(bdf) ? 0 : -1;
}

static int
wait_for_node(const char *dev, int ms)
{
	uint64_t deadline = now_ms() + ms;
	struct stat st;

	while (stat(dev, &st) < 0) {
		if (now_ms() > deadline)
			return -1;
		usleep(10000);
	}
	return 0;
}

/*
 * Unbind and unload with clients attached, then reload (with the
 * memremap fallback) and use again.
 */
static void
check_unload_reload(struct ivwl_guest *g, int dfd, void *dmap,
		    uint64_t dsize)
{
	uint64_t seed = g->host_seed ^ PROBE_REPLY_XOR, sum, badw, t;
	struct ivwl_doorbell db = { .peer = 0, .vector = 0 };
	struct pollfd pfd = { .fd = g->fd, .events = POLLIN };
	struct ivwl_info info;
	struct ivwl_event rec;
	struct probe_block *b;
	char bdf[64], params[256];
	int fd, dfd2, ret, card = -1, i, status;
	uint32_t handle = 0;
	void *base, *p;
	bool reaped;
	pid_t child;

	/* rmmod with an open fd, a live mmap and a live mapped dma-buf */
	if (delete_module("ivwl") == 0)
		bad("rmmod ivwl succeeded with clients attached");
	else if (errno != EWOULDBLOCK)
		bad("rmmod ivwl with clients: %s, expected %s",
		    strerror(errno), strerror(EWOULDBLOCK));
	else
		say("rmmod with an open fd, mmap and dma-buf: %s as expected",
		    strerror(EWOULDBLOCK));
	if (!module_loaded())
		bad("ivwl gone from /sys/module after a refused rmmod");
	if (ivwl_touch_faults(g->base, false))
		bad("node mapping faults after a refused rmmod");

	/*
	 * Unbind the device under the clients' feet.  With a vgem
	 * attachment alive, the unbind has to wait for it (the sg_table
	 * names the region's struct pages): unbind in a child, check it is
	 * still waiting once remove() has run, then let the attachment go.
	 */
	if (g->vgem && vgem_import_keep(dfd, &card, &handle) < 0) {
		bad("vgem import before unbind: %s", strerror(errno));
		card = -1;
	}
	t = now_us();
	if (card < 0) {
		if (unbind_device(bdf, sizeof(bdf)) < 0) {
			bad("unbind of ivwl0's PCI device: %s",
			    strerror(errno));
			return;
		}
	} else {
		child = fork();
		if (child == 0)
			_exit(unbind_device(bdf, sizeof(bdf)) < 0 ? 1 : 0);
		for (i = 0; i < 1000; i++) {
			if (ioctl(g->fd, IVWL_IOCTL_GET_INFO, &info) < 0 &&
			    errno == ENODEV)
				break;
			usleep(10000);
		}
		usleep(300000);
		reaped = waitpid(child, &status, WNOHANG) == child;
		if (i == 1000)
			bad("remove() did not run within 10 s of the unbind");
		else if (reaped)
			bad("unbind finished while vgem still had the "
			    "dma-buf mapped");
		else
			say("unbind waits while vgem has the dma-buf mapped");
		t = now_us();
		ret = vgem_release(card, handle);
		if (ret)
			bad("vgem release during unbind: %s", strerror(-ret));
		for (i = 0; !reaped && i < 1000; i++) {
			if (waitpid(child, &status, WNOHANG) == child)
				break;
			usleep(10000);
		}
		if (i == 1000) {
			bad("unbind still blocked 10 s after vgem let go");
			return;
		}
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			bad("unbind of ivwl0's PCI device failed");
			return;
		}
		say("unbind completed once vgem let go");
	}
	say("MEASURE unbind with clients attached: %" PRIu64 " us%s",
	    now_us() - t, card < 0 ? "" : " (after vgem let go)");
	if (access(g->dev, F_OK) == 0 || errno != ENOENT)
		bad("%s still exists after unbind", g->dev);

	if (!ivwl_touch_faults(g->base, false))
		bad("node mapping readable after unbind, expected SIGBUS");
	else if (!ivwl_touch_faults((uint8_t *)g->base + g->size - 1, true))
		bad("node mapping writable after unbind, expected SIGBUS");
	else
		say("node mapping raises SIGBUS after unbind");
	if (!ivwl_touch_faults(dmap, false) ||
	    !ivwl_touch_faults((uint8_t *)dmap + dsize - 1, true))
		bad("dma-buf mapping usable after unbind, expected SIGBUS");
	else
		say("dma-buf mapping raises SIGBUS after unbind");

	expect_ioctl_err(g->fd, IVWL_IOCTL_GET_INFO, &info, ENODEV,
			 "GET_INFO after unbind");
	expect_ioctl_err(g->fd, IVWL_IOCTL_DOORBELL, &db, ENODEV,
			 "DOORBELL after unbind");
	expect_export_err(g->fd, 0, 4096, 0, 0, ENODEV, "EXPORT after unbind");
	expect_read_err(g->fd, &rec, sizeof(rec), ENODEV,
			"read after unbind");
	expect_mmap_err(g->fd, 4096, 0, PROT_READ, MAP_SHARED, ENODEV,
			"mmap of the node after unbind");
	expect_mmap_err(dfd, 4096, 0, PROT_READ, MAP_SHARED, ENODEV,
			"mmap of the dma-buf after unbind");
	if (poll(&pfd, 1, 0) != 1 || pfd.revents != (POLLHUP | POLLERR))
		bad("poll after unbind: revents 0x%x, expected POLLHUP|POLLERR",
		    pfd.revents);
	if (dmabuf_sync(dfd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW) == 0)
		bad("DMA_BUF_IOCTL_SYNC after unbind succeeded");
	else if (errno != ENODEV)
		bad("DMA_BUF_IOCTL_SYNC after unbind: %s, expected ENODEV",
		    strerror(errno));

	if (delete_module("ivwl") == 0 || errno != EWOULDBLOCK)
		bad("rmmod after unbind with clients: %s, expected %s",
		    strerror(errno), strerror(EWOULDBLOCK));

	/* Let go: the dma-buf first (mapping, then fd), then the node. */
	munmap(dmap, dsize);
	close(dfd);
	munmap(g->base, g->size);
	g->base = NULL;
	close(g->fd);
	g->fd = -1;
	if (delete_module("ivwl") < 0) {
		bad("rmmod once every client is gone: %s", strerror(errno));
		return;
	}
	if (module_loaded())
		bad("/sys/module/ivwl still there after rmmod");
	say("rmmod succeeded once the clients were gone");

	/* Reload, this time on the memremap fallback, and use again. */
	t = now_us();
	snprintf(params, sizeof(params), "%s no_pages=1", g->params);
	if (load_module(g->module, params) < 0) {
		bad("reload of %s: %s", g->module, strerror(errno));
		return;
	}
	if (wait_for_node(g->dev, 10000) < 0) {
		bad("no %s after the reload", g->dev);
		return;
	}
	say("MEASURE reload to device node: %" PRIu64 " ms",
	    (now_us() - t) / 1000);
	fd = open(g->dev, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		bad("open after reload: %s", strerror(errno));
		return;
	}
	g->fd = fd;
	if (ioctl(fd, IVWL_IOCTL_GET_INFO, &info) < 0) {
		bad("GET_INFO after reload: %s", strerror(errno));
		return;
	}
	if (info.abi != IVWL_ABI_VERSION || info.ivposition != IVWL_PEER_APP ||
	    info.nr_vectors != g->vectors || info.shm_size != g->size ||
	    (info.flags & ~IVWL_INFO_F_WB) !=
	    (IVWL_INFO_F_EXPORT | IVWL_INFO_F_READ))
		bad("GET_INFO after reload: abi %u ivposition %u vectors %u "
		    "size %llu flags 0x%x, expected flags 0x%x (no pages) "
		    "and maybe write-back", info.abi, info.ivposition,
		    info.nr_vectors, (unsigned long long)info.shm_size,
		    info.flags, IVWL_INFO_F_EXPORT | IVWL_INFO_F_READ);
	else
		say("reloaded with no_pages=1: GET_INFO flags 0x%x",
		    info.flags);

	base = mmap(NULL, g->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		bad("mmap after reload: %s", strerror(errno));
		return;
	}
	g->base = base;
	b = probe_block_at(base, &g->layout, PROBE_BLOCK_REPLY);
	badw = probe_verify(probe_block_data(b), PROBE_LENGTH, seed, &sum);
	if (badw != PROBE_LENGTH / 8 || b->magic != PROBE_MAGIC_REPLY)
		bad("reply pattern not intact after reload (word %" PRIu64 ")",
		    badw);
	else
		say("reply pattern intact through the node after reload");

	dfd2 = ivwl_export(fd, g->layout.heap_offset +
			   PROBE_BLOCK_REPLY * PROBE_AREA,
			   PROBE_DATA_OFFSET + PROBE_LENGTH, 0);
	if (dfd2 < 0) {
		bad("EXPORT on the fallback: %s", strerror(errno));
	} else {
		check_dmabuf_fd(dfd2, PROBE_DATA_OFFSET + PROBE_LENGTH, false,
				"fallback dma-buf");
		p = mmap(NULL, PROBE_DATA_OFFSET + PROBE_LENGTH, PROT_READ,
			 MAP_SHARED, dfd2, 0);
		if (p == MAP_FAILED) {
			bad("dma-buf mmap on the fallback: %s",
			    strerror(errno));
		} else {
			b = p;
			badw = probe_verify(probe_block_data(b), PROBE_LENGTH,
					    seed, &sum);
			if (badw != PROBE_LENGTH / 8)
				bad("reply pattern wrong through the fallback "
				    "dma-buf (word %" PRIu64 ")", badw);
			else
				say("reply pattern read through a dma-buf on "
				    "the fallback");
			check_memtype(g, info.flags,
				      "fallback, node and dma-buf mapped");
			munmap(p, PROBE_DATA_OFFSET + PROBE_LENGTH);
		}
		if (g->vgem) {
			ret = vgem_import(dfd2);
			if (ret != -EOPNOTSUPP)
				bad("vgem import on the fallback: %s, expected "
				    "%s", ret ? strerror(-ret) : "success",
				    strerror(EOPNOTSUPP));
			else
				say("vgem import on the fallback: %s as "
				    "expected", strerror(EOPNOTSUPP));
		}
		close(dfd2);
	}
	if (loopback_once(g, fd, 0) && loopback_once(g, fd, g->vectors - 1))
		say("loopback doorbells work after the reload");
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "vectors", required_argument, NULL, 'v' },
		{ "timeout-ms", required_argument, NULL, 't' },
		{ "dev", required_argument, NULL, 'd' },
		{ "module", required_argument, NULL, 'm' },
		{ "vgem", no_argument, NULL, 'g' },
		{ "bar", required_argument, NULL, 'b' },
		{ "params", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	struct ivwl_guest g = {
		.dev = "/dev/ivwl0", .timeout_ms = 60000, .fd = -1,
		.bar_high = true, .params = "",
	};
	struct probe_block *b;
	struct sigaction sa;
	uint64_t deadline, seen, dsize = 0;
	uint32_t v;
	int c, efd[MAX_VECTORS], dfd;
	struct stat st;
	void *dmap = NULL;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's': g.size = strtoull(optarg, NULL, 0); break;
		case 'v': g.vectors = strtoul(optarg, NULL, 0); break;
		case 't': g.timeout_ms = atoi(optarg); break;
		case 'd': g.dev = optarg; break;
		case 'm': g.module = optarg; break;
		case 'g': g.vgem = true; break;
		case 'b': g.bar_high = strcmp(optarg, "low") != 0; break;
		case 'p': g.params = optarg; break;
		default: return result("bad arguments");
		}
	}
	if (!g.size || g.vectors < 2 || g.vectors > MAX_VECTORS || !g.module)
		return result("usage: --size BYTES --vectors N (2..64) "
			      "--module PATH [--vgem]");

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = ivwl_on_sigbus;
	sigaction(SIGBUS, &sa, NULL);
	g.hole = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		      0);
	if (g.hole == MAP_FAILED)
		return result("mmap of a scratch page failed");
	munmap(g.hole, 4096);

	if (stat(g.dev, &st) < 0)
		return result("no device node (driver not bound?)");
	if (!S_ISCHR(st.st_mode))
		bad("%s is not a character device", g.dev);
	if ((st.st_mode & 0777) != 0600)
		bad("%s has mode %03o, expected 600", g.dev, st.st_mode & 0777);
	g.fd = open(g.dev, O_RDWR | O_CLOEXEC);
	if (g.fd < 0)
		return result("cannot open the device node");

	if (ioctl(g.fd, IVWL_IOCTL_GET_INFO, &g.info) < 0)
		return result("GET_INFO failed");
	say("GET_INFO: abi %u ivposition %u nr_vectors %u flags 0x%x "
	    "shm_size %" PRIu64, g.info.abi, g.info.ivposition,
	    g.info.nr_vectors, g.info.flags, (uint64_t)g.info.shm_size);
	if (g.info.abi != IVWL_ABI_VERSION)
		bad("abi %u, expected %u", g.info.abi, IVWL_ABI_VERSION);
	if (g.info.ivposition != IVWL_PEER_APP)
		bad("ivposition %u, expected %u", g.info.ivposition,
		    IVWL_PEER_APP);
	if (g.info.nr_vectors != g.vectors)
		bad("nr_vectors %u, expected %u", g.info.nr_vectors, g.vectors);
	if (g.info.shm_size != g.size)
		return result("shm_size does not match --size");
	if ((g.info.flags & ~IVWL_INFO_F_WB) != ALL_FLAGS)
		bad("flags 0x%x, expected 0x%x (pages, export, read) and "
		    "maybe write-back", g.info.flags, ALL_FLAGS);
	if (ivwl_layout_compute(g.size, &g.layout) < 0 ||
	    g.layout.heap_size < PROBE_HEAP_NEEDED)
		return result("region too small for the probe layout");

	check_bad_arguments(&g);
	check_read_poll(&g);
	check_eventfd_owner(&g);
	measure_release(&g);
	check_device_api(&g);

	/* Bind, rebind and unbind once before the real bindings. */
	efd[0] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (efd[0] < 0)
		return result("eventfd failed");
	bind_eventfd(g.fd, 0, efd[0]);
	bind_eventfd(g.fd, 0, efd[0]);
	bind_eventfd(g.fd, 0, -1);
	bind_eventfd(g.fd, 0, -1);
	close(efd[0]);

	for (v = 0; v < g.vectors; v++) {
		efd[v] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (efd[v] < 0)
			return result("eventfd failed");
		if (bind_eventfd(g.fd, v, efd[v]) < 0)
			return result("cannot bind eventfds");
	}
	say("eventfds bound to vectors 0..%u", g.vectors - 1);

	g.base = mmap(NULL, g.size, PROT_READ | PROT_WRITE, MAP_SHARED, g.fd,
		      0);
	if (g.base == MAP_FAILED)
		return result("mmap of the whole region failed");

	deadline = now_ms() + g.timeout_ms;
	if (wait_for_host_block(&g, deadline) < 0)
		return result("no valid host block");

	dfd = reply_through_dmabuf(&g, &dmap, &dsize);
	if (dfd < 0)
		return result("reply through a dma-buf failed");
	check_memtype(&g, g.info.flags, "pages, node and dma-buf mapped");

	for (v = 0; v < g.vectors; v++)
		if (ring(g.fd, IVWL_PEER_DISPLAY, v) < 0)
			bad("DOORBELL peer 0 vector %u: %s", v,
			    strerror(errno));
	say("rang peer %u on vectors 0..%u", IVWL_PEER_DISPLAY, g.vectors - 1);

	seen = wait_host_doorbells(&g, efd, deadline);

	b = probe_block_at(g.base, &g.layout, PROBE_BLOCK_ACK);
	b->value = seen;
	__atomic_store_n(&b->magic, PROBE_MAGIC_ACK, __ATOMIC_RELEASE);

	/* Eventfds stay bound: the unbind must drop them too. */
	check_unload_reload(&g, dfd, dmap, dsize);
	for (v = 0; v < g.vectors; v++)
		close(efd[v]);
	if (g.base)
		munmap(g.base, g.size);
	if (g.fd >= 0)
		close(g.fd);
	return result(NULL);
}
