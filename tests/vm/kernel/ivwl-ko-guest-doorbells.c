/* SPDX-License-Identifier: MIT */
/*
 * ivwl-ko-guest's doorbell checks: loopback doorbells through read() and
 * poll(), eventfds bound to vectors and the open file that owns them,
 * the release of a file with every vector bound, protocol/'s device API
 * on the node, and the host's doorbells.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "device.h"
#include "ivwl-ko-guest.h"

#define LOOPBACK_ROUNDS 200

/*
 * Doorbells on our own peer id come back through QEMU as interrupts on
 * our own vectors: read() and poll() are checked against exact values.
 */
void
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
	t = ivwl_now_us();
	child = fork();
	if (child == 0) {
		usleep(200000);
		_exit(ring(g->fd, g->info.ivposition, last) < 0 ? 1 : 0);
	}
	n = read(g->fd, &rec, sizeof(rec));
	t = ivwl_now_us() - t;
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
		t = ivwl_now_us();
		if (!loopback_once(g, g->fd, i % g->vectors))
			return;
		t = ivwl_now_us() - t;
		total += t;
		if (t > worst)
			worst = t;
	}
	say("MEASURE loopback doorbell to read(): %d rounds, mean %" PRIu64
	    " us, worst %" PRIu64 " us (TCG)", LOOPBACK_ROUNDS,
	    total / LOOPBACK_ROUNDS, worst);
	expect_quiet(g->fd, "after the latency rounds");
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
void
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
		t = ivwl_now_us();
		close(fd);
		t = ivwl_now_us() - t;
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
void
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
 * ivwl_device_open_kernel() (protocol/device/device-kernel.c) on stderr
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
void
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

/* Waits for host-peer's doorbells on every eventfd and in read(). */
uint64_t
wait_host_doorbells(struct ivwl_guest *g, int *efd, int64_t deadline)
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
		int64_t left = deadline - ivwl_now_ms();

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
