/* SPDX-License-Identifier: MIT */
/*
 * Reproducers of their own: the doorbell eventfds that ivwl-server hands
 * both sides are shared open file descriptions, so the app side can
 * change their flags and counters under the display.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "hostile.h"

/* ---- eventfd-block -------------------------------------------------- */

#define EVB_FULL 0xfffffffffffffffeull	/* the most an eventfd holds */
#define EVB_OPEN_EVERY_MS 100
#define EVB_PHASE1_MIN_MS 3000
#define EVB_MAX_SPIN_US 100
#define EVB_PROBE_MS 20
#define EVB_PROBE_EVERY 50	/* rounds */

static void
evb_clear_nonblock(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
}

/* Reads a counter without ever sleeping ourselves: 0 when it was empty. */
static uint64_t
evb_read_back(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t v;
	struct iovec iov = { &v, sizeof(v) };
	ssize_t n;

	n = preadv2(fd, &iov, 1, -1, RWF_NOWAIT);
	if (n < 0 && errno == EOPNOTSUPP && poll(&pfd, 1, 0) == 1)
		n = read(fd, &v, sizeof(v));
	return n == (ssize_t)sizeof(v) ? v : 0;
}

static void
evb_spin_us(uint32_t us)
{
	int64_t end = ivwl_now_us() + us;

	while (ivwl_now_us() < end)
		;
}

/*
 * Fills a counter to the most it holds; false when a ring came in between
 * each of 100 tries (it is emptied before each).
 */
static bool
evb_fill(int fd)
{
	uint64_t full = EVB_FULL;
	int tries;

	for (tries = 0; tries < 100; tries++) {
		evb_read_back(fd);
		if (write(fd, &full, sizeof(full)) == sizeof(full))
			return true;
	}
	return false;
}

/* Our vectors, which the display writes to ring us: full and blocking. */
static uint32_t
evb_block_own(struct ivwl_hostile *h)
{
	uint32_t v, blocked = 0;
	int fd;

	for (v = 0; v < h->nr_vectors; v++) {
		fd = ivwl_device_vector_fd(h->dev, v);
		blocked += evb_fill(fd);
		evb_clear_nonblock(fd);
	}
	return blocked;
}

static void
evb_phase1(struct ivwl_hostile *h)
{
	int64_t end = ivwl_now_ms() + EVB_PHASE1_MIN_MS, next = 0;
	uint32_t k = 0, i, blocked, pending = 0;

	if ((h->deadline_ms - ivwl_now_ms()) / 2 > EVB_PHASE1_MIN_MS)
		end = ivwl_now_ms() +
		      (h->deadline_ms - ivwl_now_ms()) / 2;
	blocked = evb_block_own(h);
	printf("hostile-peer: eventfd-block: %u of our %u vectors full, "
	       "O_NONBLOCK cleared; opening slots\n", blocked, h->nr_vectors);
	fflush(stdout);
	/* Never drain our vectors now (slot_open_wait would): poll words. */
	while (ivwl_now_ms() < end) {
		if (ivwl_now_ms() >= next && k < h->slots) {
			ivwl_hostile_slot_open(h, k++);
			next = ivwl_now_ms() + EVB_OPEN_EVERY_MS;
		}
		for (i = 0; i < k; i++)
			ivwl_hostile_slot_poll(h, i);
		usleep(10 * 1000);
	}
	for (i = 0; i < k; i++) {
		ivwl_hostile_slot_poll(h, i);
		pending += h->slot[i].phase == IVWL_HOSTILE_PENDING;
	}
	printf("hostile-peer: eventfd-block: phase 1: the display answered "
	       "%llu of %llu opens, then closed %llu; %llu never answered\n",
	       (unsigned long long)h->st.acks, (unsigned long long)h->st.opens,
	       (unsigned long long)h->st.closed,
	       (unsigned long long)(h->st.timeouts + pending));
	fflush(stdout);
}

/*
 * The display's vectors, which we ring it through (dups of its fds):
 * blocking, rung, and emptied again right after the display's epoll said
 * readable, so its read() finds nothing and sleeps until that vector is
 * rung again.  Vector 0 stays out of the race as a probe: when the
 * display no longer drains it, it sleeps in a read() and we stop ringing
 * altogether, so that it never wakes.
 */
static void
evb_phase2(struct ivwl_hostile *h)
{
	int fds[IVWL_SLOT_COUNT + 1];
	struct ivwl_endpoint ep;
	uint64_t one = 1, rounds = 0, rung = 0, stolen = 0;
	uint32_t n = 0, v, first;
	bool trapped = false;

	for (v = 0; v < h->nr_vectors && v < IVWL_SLOT_COUNT + 1; v++) {
		if (ivwl_device_export_endpoint(h->dev, IVWL_PEER_DISPLAY, v,
						v, &ep) < 0)
			break;
		fds[n++] = ep.doorbell_fd;
		ep.doorbell_fd = -1;
		ivwl_endpoint_close(&ep);
		evb_clear_nonblock(fds[n - 1]);
	}
	/* One vector (the default now): it is both raced and the probe. */
	first = n > 1 ? 1 : 0;
	while (n > 0 && !trapped && ivwl_hostile_time_left(h)) {
		for (v = first; v < n; v++)
			if (write(fds[v], &one, sizeof(one)) == sizeof(one))
				rung++;
		evb_spin_us(ivwl_rnd_below(h, EVB_MAX_SPIN_US + 1));
		for (v = n; v-- > first;)
			stolen += evb_read_back(fds[v]) != 0;
		/* a display kept busy by the rounds reads later: more hits */
		if (++rounds % EVB_PROBE_EVERY != 0) {
			usleep(1000);
			continue;
		}
		if (write(fds[0], &one, sizeof(one)) != sizeof(one))
			continue;
		usleep(EVB_PROBE_MS * 1000);
		trapped = evb_read_back(fds[0]) != 0;
	}
	h->st.doorbells += rung;
	printf("hostile-peer: eventfd-block: phase 2: %u display vectors "
	       "blocking, %llu rounds: %llu rings, %llu read back before the "
	       "display drained them, %llu drained by the display\n", n,
	       (unsigned long long)rounds, (unsigned long long)rung,
	       (unsigned long long)stolen,
	       (unsigned long long)(rung - stolen));
	if (trapped)
		printf("hostile-peer: eventfd-block: phase 2: the display "
		       "left its vector 0 unread (edge-triggered, or asleep "
		       "in read()); ringing nothing more\n");
	fflush(stdout);
	while (trapped && ivwl_hostile_time_left(h))
		usleep(10 * 1000);
	for (v = 0; v < n; v++)
		close(fds[v]);
}

/*
 * With ivwl-server the display rings us through the very eventfds we
 * hold, and we ring it through its own: the open file descriptions, and
 * their flags and counters, are shared.  Phase 1 makes every doorbell
 * the display writes to us block forever, then opens slots: a display
 * that writes from its main thread hangs on its first answer; one that
 * rings from a thread must give up on us and close what it served.
 * Phase 2 takes O_NONBLOCK off the display's own vectors and empties
 * them right after ringing, so a display that read()s after epoll said
 * readable sleeps until our next ring.
 */
void
ivwl_hostile_eventfd_block(struct ivwl_hostile *h)
{
	evb_phase1(h);
	evb_phase2(h);
}

/* ---- doorbell-full -------------------------------------------------- */

#define DBF_SLOTS 4

/*
 * The display's vector 0 (a dup of its eventfd, which we ring it
 * through), filled to the most an eventfd holds: it stays readable for
 * good and every later write fails.  0 when it could not be filled.
 */
static int
dbf_fill_display(struct ivwl_hostile *h, int *fd_out)
{
	struct ivwl_endpoint ep;

	if (ivwl_device_export_endpoint(h->dev, IVWL_PEER_DISPLAY, 0, 0,
					&ep) < 0)
		return 0;
	*fd_out = ep.doorbell_fd;
	ep.doorbell_fd = -1;
	ivwl_endpoint_close(&ep);
	return evb_fill(*fd_out);
}

/*
 * A display that waits on its vector level-triggered and never reads it
 * would wake for it without end once it is full: it must wait
 * edge-triggered (or read).  We open slots, fill the display's vector 0,
 * post every doorbell bit and ring, and then hold still, slots open,
 * while the case watches weston's CPU and a good VM draws.
 */
void
ivwl_hostile_doorbell_full(struct ivwl_hostile *h)
{
	uint32_t k, opened = 0;
	int fd = -1, filled;

	for (k = 0; k < DBF_SLOTS && k < h->slots; k++)
		opened += ivwl_hostile_slot_open_wait(h, k, 500);
	filled = dbf_fill_display(h, &fd);
	ivwl_doorbell_post(h->base, IVWL_SIDE_DISPLAY, ~0ull);
	/* each fails: the counter has no room left */
	for (k = 0; k < 16; k++)
		ivwl_device_ring(h->dev, IVWL_PEER_DISPLAY, 0);
	printf("hostile-peer: doorbell-full: %u slots open, display vector 0 "
	       "%s; holding still\n", opened,
	       filled ? "filled to 0xfffffffffffffffe" : "NOT filled");
	fflush(stdout);
	while (ivwl_hostile_time_left(h))
		usleep(20 * 1000);
	if (fd >= 0)
		close(fd);
}
