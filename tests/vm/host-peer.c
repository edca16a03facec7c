/* SPDX-License-Identifier: MIT */
/*
 * host-peer: the host end of the VM test.  Attaches to ivwl-server's
 * display socket as peer 0 through protocol/device/device.h, then:
 *   - writes the host block (a seeded pseudo-random pattern with its
 *     checksum) into the heap and prints "HOST-PEER: ready";
 *   - waits for the guest's reply block and checks it;
 *   - rings the guest (peer 1) on every vector once the reply is there
 *     (the guest has enabled MSI-X by then);
 *   - waits for the guest's doorbells on every one of its own vectors;
 *   - waits for the guest's ack block saying which doorbells it saw.
 * Every wait is bounded by --timeout-ms in total.  The last line is
 * "HOST-PEER RESULT: PASS" or "HOST-PEER RESULT: FAIL <why>".
 *
 *   host-peer --socket PATH --size BYTES --vectors N [--timeout-ms MS]
 *             [--seed S]
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "device.h"
#include "mono-time.h"
#include "probe.h"
#include "region.h"

#define OPEN_TIMEOUT_MS 10000
#define MAX_VECTORS 64

struct host_peer {
	const char *socket;
	uint64_t size;
	uint32_t vectors;
	int timeout_ms;
	uint64_t seed;

	struct ivwl_device *dev;
	struct ivwl_layout layout;
	void *base;

	bool guest_joined;
	bool guest_left;
	bool reply_ok;
	bool rang;
	bool ack_ok;
	uint64_t doorbells_seen;
	uint64_t doorbell_counts[MAX_VECTORS];
};

static void
say(const char *fmt, ...)
{
	va_list ap;

	printf("HOST-PEER: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static int
fail(const char *fmt, ...)
{
	va_list ap;

	printf("HOST-PEER RESULT: FAIL ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return -1;
}

static uint64_t
all_vectors(const struct host_peer *hp)
{
	return hp->vectors >= 64 ? ~0ull : (1ull << hp->vectors) - 1;
}

static void
peer_changed(void *data, uint32_t peer, bool present)
{
	struct host_peer *hp = data;

	say("peer %u %s", peer, present ? "joined" : "left");
	if (peer != IVWL_PEER_APP)
		return;
	if (present)
		hp->guest_joined = true;
	else
		hp->guest_left = true;
}

static int
attach(struct host_peer *hp)
{
	const char *err = "?";
	int ret;

	ret = ivwl_device_open_server(hp->socket, OPEN_TIMEOUT_MS, &hp->dev,
				      &err);
	if (ret < 0)
		return fail("cannot attach to %s: %s (%s)", hp->socket, err,
			    strerror(-ret));
	hp->base = ivwl_device_base(hp->dev);
	say("attached to %s as peer %u: region %" PRIu64 " bytes, %u vectors",
	    hp->socket, ivwl_device_peer_id(hp->dev),
	    ivwl_device_size(hp->dev), ivwl_device_nr_vectors(hp->dev));

	if (ivwl_device_peer_id(hp->dev) != IVWL_PEER_DISPLAY)
		return fail("peer id %u, expected %u (display side)",
			    ivwl_device_peer_id(hp->dev), IVWL_PEER_DISPLAY);
	if (ivwl_device_size(hp->dev) != hp->size)
		return fail("region size %" PRIu64 " != expected %" PRIu64,
			    ivwl_device_size(hp->dev), hp->size);
	if (ivwl_device_nr_vectors(hp->dev) != hp->vectors)
		return fail("%u vectors, expected %u",
			    ivwl_device_nr_vectors(hp->dev), hp->vectors);
	if (ivwl_layout_compute(hp->size, &hp->layout) < 0)
		return fail("size %" PRIu64 " is not a valid region size",
			    hp->size);
	if (hp->layout.heap_size < PROBE_HEAP_NEEDED)
		return fail("heap of %" PRIu64 " bytes too small for the probe",
			    hp->layout.heap_size);

	ivwl_device_set_peer_listener(hp->dev, peer_changed, hp);
	if (ivwl_device_peer_present(hp->dev, IVWL_PEER_APP)) {
		say("peer %u already present", IVWL_PEER_APP);
		hp->guest_joined = true;
	}
	return 0;
}

static void
write_host_block(struct host_peer *hp)
{
	struct probe_block *b;
	unsigned i;
	uint64_t sum;

	/* Nothing stale from an earlier run may look like an answer. */
	for (i = PROBE_BLOCK_HOST; i <= PROBE_BLOCK_ACK; i++)
		__atomic_store_n(&probe_block_at(hp->base, &hp->layout,
						 i)->magic,
				 0, __ATOMIC_RELEASE);

	b = probe_block_at(hp->base, &hp->layout, PROBE_BLOCK_HOST);
	sum = probe_fill(probe_block_data(b), PROBE_LENGTH, hp->seed);
	b->seed = hp->seed;
	b->length = PROBE_LENGTH;
	b->checksum = sum;
	b->value = 0;
	__atomic_store_n(&b->magic, PROBE_MAGIC_HOST, __ATOMIC_RELEASE);
	say("host pattern written at heap offset 0x%" PRIx64 ": %" PRIu64
	    " bytes, seed 0x%016" PRIx64 ", checksum 0x%016" PRIx64,
	    hp->layout.heap_offset, PROBE_LENGTH, hp->seed, sum);
}

static int
check_reply(struct host_peer *hp)
{
	struct probe_block *b = probe_block_at(hp->base, &hp->layout,
					       PROBE_BLOCK_REPLY);
	struct probe_block copy;
	uint64_t seed = hp->seed ^ PROBE_REPLY_XOR, sum, bad;

	if (__atomic_load_n(&b->magic, __ATOMIC_ACQUIRE) != PROBE_MAGIC_REPLY)
		return 0;
	memcpy(&copy, b, sizeof(copy));
	if (copy.seed != seed)
		return fail("reply seed 0x%016" PRIx64 ", expected 0x%016"
			    PRIx64, copy.seed, seed);
	if (copy.length != PROBE_LENGTH)
		return fail("reply length %" PRIu64 ", expected %" PRIu64,
			    copy.length, PROBE_LENGTH);
	bad = probe_verify(probe_block_data(b), copy.length, seed, &sum);
	if (bad != copy.length / 8)
		return fail("reply pattern wrong at byte %" PRIu64, bad * 8);
	if (sum != copy.checksum)
		return fail("reply checksum 0x%016" PRIx64
			    " != computed 0x%016" PRIx64, copy.checksum, sum);
	say("reply pattern OK: %" PRIu64 " bytes, checksum 0x%016" PRIx64,
	    copy.length, sum);
	hp->reply_ok = true;
	return 1;
}

static int
ring_guest(struct host_peer *hp)
{
	uint32_t v;
	int ret;

	for (v = 0; v < hp->vectors; v++) {
		ret = ivwl_device_ring(hp->dev, IVWL_PEER_APP, v);
		if (ret < 0)
			return fail("cannot ring peer %u vector %u: %s",
				    IVWL_PEER_APP, v, strerror(-ret));
	}
	say("rang peer %u on vectors 0..%u", IVWL_PEER_APP, hp->vectors - 1);
	hp->rang = true;
	return 0;
}

static int
check_ack(struct host_peer *hp)
{
	struct probe_block *b = probe_block_at(hp->base, &hp->layout,
					       PROBE_BLOCK_ACK);
	uint64_t value;

	if (__atomic_load_n(&b->magic, __ATOMIC_ACQUIRE) != PROBE_MAGIC_ACK)
		return 0;
	value = b->value;
	if (value != all_vectors(hp))
		return fail("guest saw doorbells 0x%" PRIx64 ", expected 0x%"
			    PRIx64, value, all_vectors(hp));
	say("guest saw our doorbells on vectors 0x%" PRIx64, value);
	hp->ack_ok = true;
	return 1;
}

static bool
done(const struct host_peer *hp)
{
	return hp->reply_ok && hp->ack_ok &&
	       hp->doorbells_seen == all_vectors(hp);
}

static const char *
waiting_for(const struct host_peer *hp)
{
	if (!hp->guest_joined)
		return "QEMU to join as peer 1";
	if (!hp->reply_ok)
		return "the guest's reply block";
	if (hp->doorbells_seen != all_vectors(hp))
		return "the guest's doorbells";
	return "the guest's ack of our doorbells";
}

static int
loop(struct host_peer *hp)
{
	struct pollfd pfd[1 + MAX_VECTORS];
	uint64_t deadline = (uint64_t)ivwl_now_ms() + hp->timeout_ms, n;
	uint32_t v;
	int nfds, ret;

	pfd[0].fd = ivwl_device_event_fd(hp->dev);
	pfd[0].events = POLLIN;
	for (v = 0; v < hp->vectors; v++) {
		pfd[1 + v].fd = ivwl_device_vector_fd(hp->dev, v);
		pfd[1 + v].events = POLLIN;
		if (pfd[1 + v].fd < 0)
			return fail("no fd for own vector %u", v);
	}
	nfds = 1 + hp->vectors;

	while (!done(hp)) {
		if ((uint64_t)ivwl_now_ms() > deadline)
			return fail("timed out after %d ms waiting for %s "
				    "(reply %s, guest doorbells 0x%" PRIx64
				    ", ack %s)", hp->timeout_ms,
				    waiting_for(hp), hp->reply_ok ? "ok" : "no",
				    hp->doorbells_seen,
				    hp->ack_ok ? "ok" : "no");

		/* Shared memory has no fd: look at it every 10 ms. */
		ret = poll(pfd, nfds, 10);
		if (ret < 0 && errno != EINTR)
			return fail("poll: %s", strerror(errno));

		if (pfd[0].fd >= 0 && ret > 0 &&
		    (pfd[0].revents & (POLLIN | POLLHUP | POLLERR))) {
			if (ivwl_device_dispatch(hp->dev) == -ECONNRESET)
				return fail("ivwl-server went away");
		}
		for (v = 0; ret > 0 && v < hp->vectors; v++) {
			if (!(pfd[1 + v].revents & POLLIN))
				continue;
			n = ivwl_device_vector_drain(hp->dev, v);
			if (n == 0)
				continue;
			if (!(hp->doorbells_seen & (1ull << v)))
				say("doorbell from the guest on vector %u", v);
			hp->doorbells_seen |= 1ull << v;
			hp->doorbell_counts[v] += n;
		}

		if (!hp->reply_ok && check_reply(hp) < 0)
			return -1;
		if (hp->reply_ok && !hp->rang && ring_guest(hp) < 0)
			return -1;
		if (hp->rang && !hp->ack_ok && check_ack(hp) < 0)
			return -1;

		if (hp->guest_left && !done(hp))
			return fail("the guest left while waiting for %s",
				    waiting_for(hp));
	}

	for (v = 0; v < hp->vectors; v++) {
		if (hp->doorbell_counts[v] != 1)
			say("vector %u: %" PRIu64 " doorbells, expected 1", v,
			    hp->doorbell_counts[v]);
	}
	return 0;
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: host-peer --socket PATH --size BYTES --vectors N "
		   "[--timeout-ms MS] [--seed S]\n");
}

int
main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 'S' },
		{ "size", required_argument, NULL, 's' },
		{ "vectors", required_argument, NULL, 'v' },
		{ "timeout-ms", required_argument, NULL, 't' },
		{ "seed", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct host_peer hp = { .timeout_ms = 240000 };
	bool have_seed = false;
	int c, ret = 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'S':
			hp.socket = optarg;
			break;
		case 's':
			hp.size = strtoull(optarg, NULL, 0);
			break;
		case 'v':
			hp.vectors = strtoul(optarg, NULL, 0);
			break;
		case 't':
			hp.timeout_ms = atoi(optarg);
			break;
		case 'r':
			hp.seed = strtoull(optarg, NULL, 0);
			have_seed = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!hp.socket || hp.size == 0 || hp.vectors == 0 ||
	    hp.vectors > MAX_VECTORS || hp.timeout_ms <= 0) {
		usage(stderr);
		fail("--socket, --size and --vectors (1..%d) are required",
		     MAX_VECTORS);
		return 2;
	}
	if (!have_seed)
		hp.seed = ((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid() ^
			  (uint64_t)ivwl_now_ms();

	if (attach(&hp) < 0)
		goto out;
	write_host_block(&hp);
	say("ready");
	if (loop(&hp) < 0)
		goto out;
	printf("HOST-PEER RESULT: PASS\n");
	ret = 0;
out:
	if (hp.dev)
		ivwl_device_destroy(hp.dev);
	return ret;
}
