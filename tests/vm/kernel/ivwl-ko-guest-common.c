/* SPDX-License-Identifier: MIT */
/*
 * What every check of ivwl-ko-guest uses: saying what passed and what
 * failed, touching a mapping that may fault, calls expected to fail with
 * one errno, and the doorbell and eventfd calls.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/dma-buf.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "ivwl-ko-guest.h"

static int failures;
static sigjmp_buf fault_jmp;
static volatile sig_atomic_t fault_armed;

void
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

void
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

int
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

void
ivwl_on_sigbus(int sig)
{
	if (fault_armed)
		siglongjmp(fault_jmp, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Reads (write false) or writes one byte at p; true if it raised SIGBUS. */
bool
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
void
expect_ioctl_err(int fd, unsigned long cmd, void *arg, int want,
		 const char *what)
{
	int ret = ioctl(fd, cmd, arg);

	judge_failure(ret, want, what);
	if (ret >= 0 && cmd == IVWL_IOCTL_EXPORT_DMABUF)
		close(ret);
}

/* Expects mmap of (length, offset, prot, flags) to fail with errno want. */
void
expect_mmap_err(int fd, size_t length, off_t offset, int prot, int flags,
		int want, const char *what)
{
	void *p = mmap(NULL, length, prot, flags, fd, offset);

	judge_failure(p == MAP_FAILED ? -1 : 0, want, what);
	if (p != MAP_FAILED)
		munmap(p, length);
}

/* Expects read(fd, buf, len) to fail with errno want. */
void
expect_read_err(int fd, void *buf, size_t len, int want, const char *what)
{
	judge_failure(read(fd, buf, len), want, what);
}

void
expect_export_err(int fd, uint64_t offset, uint64_t size, uint32_t flags,
		  uint32_t pad, int want, const char *what)
{
	struct ivwl_export ex = {
		.offset = offset, .size = size, .flags = flags, .pad = pad,
	};

	expect_ioctl_err(fd, IVWL_IOCTL_EXPORT_DMABUF, &ex, want, what);
}

int
ivwl_export(int fd, uint64_t offset, uint64_t size, uint32_t flags)
{
	struct ivwl_export ex = {
		.offset = offset, .size = size, .flags = flags,
	};

	return ioctl(fd, IVWL_IOCTL_EXPORT_DMABUF, &ex);
}

/* Checks the flags and size of a dma-buf fd against what we asked. */
void
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

int
dmabuf_sync(int dfd, uint64_t flags)
{
	struct dma_buf_sync sync = { .flags = flags };

	return ioctl(dfd, DMA_BUF_IOCTL_SYNC, &sync);
}

int
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
uint64_t
collect(int fd, uint64_t want, uint32_t *counts, uint32_t nvec, int ms)
{
	struct ivwl_event rec[MAX_VECTORS];
	int64_t deadline = ivwl_now_ms() + ms;
	uint64_t seen = 0;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n;
	int i;

	memset(counts, 0, nvec * sizeof(*counts));
	while ((seen & want) != want && ivwl_now_ms() < deadline) {
		if (poll(&pfd, 1, (int)(deadline - ivwl_now_ms())) <= 0)
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
void
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
bool
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

int
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
