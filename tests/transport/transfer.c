/* SPDX-License-Identifier: MIT */
/*
 * ivwl-transfer: moves records through a real region, end to end, and
 * proves that nothing was lost, reordered or corrupted.
 *
 *   ivwl-transfer display --server DISPLAY_SOCKET [--slots N] [--timeout-ms T]
 *   ivwl-transfer app --agent AGENT_SOCKET --bytes N [--jitter] [--seed S]
 *
 * The display role is a minimal display side: it answers slot opens and
 * closes the way the weston plugin does and checks every record.  The
 * app role gets a slot from ivwl-agent and sends random-size records
 * with a sequence number and a checksum each; the display echoes running
 * totals back, and both compare at the end.  --jitter makes the app
 * pause at random between records so that the display goes to sleep
 * again and again, right when records arrive: a lost wakeup shows up as
 * a timeout, never as a hang.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app-slot.h"
#include "device.h"
#include "display-side.h"
#include "mono-time.h"
#include "region.h"
#include "ring.h"
#include "shm-access.h"

enum transfer_type {
	TRANSFER_DATA = 0x100,	/* seq, hash, bytes */
	TRANSFER_END = 0x101,	/* records, bytes, running hash */
	TRANSFER_ACK = 0x102,	/* seq, running hash */
	TRANSFER_END_ACK = 0x103, /* records, bytes, running hash */
};

#define ACK_EVERY 256
#define PAYLOAD_MAX (256u << 10)

struct totals {
	uint64_t records;
	uint64_t bytes;
	uint64_t running;
};

struct data_header {
	uint64_t seq;
	uint64_t hash;
};

static int timeout_ms = 10000;

static uint64_t
mix(uint64_t h, uint64_t w)
{
	h ^= w;
	h *= 0x100000001b3ull;
	return h ^ (h >> 29);
}

static uint64_t
hash_bytes(const uint8_t *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull ^ len, w;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, 8);
		h = mix(h, w);
	}
	for (; i < len; i++)
		h = mix(h, p[i]);
	return h;
}

static uint64_t
xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static double
now_s(void)
{
	return (double)ivwl_now_ns() / 1e9;
}

static void
totals_add(struct totals *t, uint64_t hash, uint32_t len)
{
	t->records++;
	t->bytes += len;
	t->running = mix(t->running, hash);
}

/* ---- display role ---------------------------------------------------- */

struct served {
	bool open;
	uint32_t generation;
	struct ivwl_ring request;	/* we consume */
	struct ivwl_ring event;		/* we produce */
	struct totals totals;
	uint64_t sleeps;
	bool done;
	bool failed;
};

struct display {
	struct ivwl_display_side side;
	struct served served[IVWL_SLOT_COUNT];
	uint64_t *buf;
	uint32_t finished;
	uint32_t failures;
};

static void
served_end(struct display *d, uint32_t slot, bool failed)
{
	struct served *s = &d->served[slot];

	s->open = false;
	if (failed || !s->done) {
		d->failures++;
		fprintf(stderr, "ivwl-transfer: slot %u generation %u closed "
			"%s after %" PRIu64 " records\n", slot, s->generation,
			failed ? "with an error" : "before the end",
			s->totals.records);
	}
	d->finished++;
}

static void
on_closed(void *data, uint32_t slot)
{
	served_end(data, slot, false);
}

static bool
on_opened(void *data, uint32_t slot, uint32_t generation)
{
	struct display *d = data;
	struct served *s = &d->served[slot];

	memset(s, 0, sizeof(*s));
	ivwl_display_side_rings(&d->side, slot, &s->request, &s->event);
	s->open = true;
	s->generation = generation;
	return true;
}

static const struct ivwl_display_side_listener listener = {
	.closed = on_closed,
	.opened = on_opened,
};

static int
send_event(struct served *s, uint16_t type, const void *p, uint32_t len)
{
	struct iovec iov = { (void *)p, len };
	/* Replies are small and the app drains them: a full ring is a bug. */
	return ivwl_ring_write(&s->event, type, &iov, 1);
}

static int
handle_record(struct served *s, uint16_t type, const uint8_t *p, int len)
{
	struct data_header h;
	struct totals end;

	switch (type) {
	case TRANSFER_DATA:
		if (len < (int)sizeof(h))
			return -EPROTO;
		memcpy(&h, p, sizeof(h));
		if (h.seq != s->totals.records) {
			fprintf(stderr, "ivwl-transfer: record %" PRIu64
				" arrived as %" PRIu64 "\n",
				s->totals.records, h.seq);
			return -EPROTO;
		}
		/* the ring rounds lengths up: the hash covers the rest */
		if (hash_bytes(p + sizeof(h), len - sizeof(h)) != h.hash) {
			fprintf(stderr, "ivwl-transfer: record %" PRIu64
				" corrupted\n", h.seq);
			return -EPROTO;
		}
		totals_add(&s->totals, h.hash, (uint32_t)len);
		if (s->totals.records % ACK_EVERY == 0) {
			uint64_t ack[2] = { s->totals.records,
					    s->totals.running };

			return send_event(s, TRANSFER_ACK, ack, sizeof(ack));
		}
		return 0;
	case TRANSFER_END:
		if (len < (int)sizeof(end))
			return -EPROTO;
		memcpy(&end, p, sizeof(end));
		if (memcmp(&end, &s->totals, sizeof(end)) != 0) {
			fprintf(stderr, "ivwl-transfer: totals differ\n");
			return -EPROTO;
		}
		s->done = true;
		return send_event(s, TRANSFER_END_ACK, &s->totals,
				  sizeof(s->totals));
	default:
		return -EPROTO;
	}
}

static void
drain_slot(struct display *d, uint32_t slot)
{
	struct served *s = &d->served[slot];
	uint16_t type;
	int n, budget = 4096;

	if (!s->open)
		return;
	while (budget-- > 0) {
		n = ivwl_ring_read(&s->request, &type, d->buf, PAYLOAD_MAX);
		if (n == -EAGAIN)
			break;
		if (n < 0 || handle_record(s, type, (uint8_t *)d->buf, n) < 0) {
			ivwl_display_side_close(&d->side, slot);
			served_end(d, slot, true);
			return;
		}
	}
	if (ivwl_ring_kick_needed(&s->request) ||
	    ivwl_ring_kick_needed(&s->event))
		ivwl_display_side_kick(&d->side, slot);
}

/* Sleeps only when no open slot has work; true if it had to sleep. */
static bool
display_prepare_sleep(struct display *d)
{
	uint32_t i, j;

	for (i = 0; i < d->side.slots; i++) {
		if (!d->served[i].open)
			continue;
		if (!ivwl_ring_prepare_sleep(&d->served[i].request)) {
			for (j = 0; j < i; j++)
				if (d->served[j].open)
					ivwl_ring_woken(&d->served[j].request);
			return false;
		}
	}
	return true;
}

static void
display_woken(struct display *d)
{
	uint32_t i;

	for (i = 0; i < d->side.slots; i++)
		if (d->served[i].open) {
			ivwl_ring_woken(&d->served[i].request);
			d->served[i].sleeps++;
		}
}

static int
run_display(const char *server, uint32_t expect)
{
	struct display d = { 0 };
	struct pollfd pfd[2];
	struct ivwl_device *dev;
	const char *err = NULL;
	uint32_t i;
	uint64_t sleeps = 0, bits;
	int ret;

	ret = ivwl_device_open_server(server, timeout_ms, &dev, &err);
	if (ret < 0) {
		fprintf(stderr, "ivwl-transfer: %s: %s\n", server, err);
		return 1;
	}
	d.buf = malloc(PAYLOAD_MAX);
	if (!d.buf || ivwl_display_side_init(&d.side, dev) < 0)
		return 1;
	ivwl_display_side_claim(&d.side);
	printf("display: attached, %u slots, ring %u KiB\n", d.side.slots,
	       d.side.layout.ring_size >> 10);
	fflush(stdout);

	/*
	 * After a sleep, serve only what the doorbell word names: a bit
	 * lost on the way shows up as a connection that never finishes.
	 */
	bits = ~0ull;
	while (d.finished < expect) {
		if (bits & IVWL_DOORBELL_CONTROL)
			ivwl_display_side_sync(&d.side, &listener, &d);
		for (i = 0; i < d.side.slots; i++)
			if (bits & IVWL_DOORBELL_SLOT(i))
				drain_slot(&d, i);
		if (d.finished >= expect)
			break;
		bits = ~0ull;
		pfd[0] = (struct pollfd){
			ivwl_device_vector_fd(dev, IVWL_DOORBELL_VECTOR),
			POLLIN, 0 };
		pfd[1] = (struct pollfd){ ivwl_device_event_fd(dev),
					  POLLIN, 0 };
		if (!display_prepare_sleep(&d))
			continue;
		ret = poll(pfd, 2, timeout_ms);
		display_woken(&d);
		if (ret == 0) {
			fprintf(stderr, "ivwl-transfer: display: no doorbell "
				"for %d ms (lost wakeup?)\n", timeout_ms);
			d.failures++;
			break;
		}
		if (pfd[1].revents && ivwl_device_dispatch(dev) < 0)
			break;
		bits = 0;
		if (pfd[0].revents) {
			ivwl_device_vector_drain(dev, IVWL_DOORBELL_VECTOR);
			bits = ivwl_display_side_take(&d.side);
		}
	}
	for (i = 0; i < d.side.slots; i++)
		sleeps += d.served[i].sleeps;
	printf("display: %u connection(s) finished, %u failed, slept %" PRIu64
	       " times, rang slot vectors %" PRIu64 " times\n", d.finished,
	       d.failures, sleeps, d.side.vector_rings);
	ivwl_display_side_release(&d.side);
	free(d.buf);
	ivwl_device_destroy(dev);
	return d.failures || d.finished < expect ? 1 : 0;
}

/* ---- app role -------------------------------------------------------- */

struct app {
	struct ivwl_app_slot slot;
	struct totals sent;
	uint64_t acked;
	uint64_t *buf;		/* the record being sent */
	uint64_t *events;	/* replies, never over a record in flight */
	bool end_acked;
	struct totals end_ack;
	uint64_t kicks;
	uint64_t waits;
};

static int
app_read_events(struct app *a)
{
	uint16_t type;
	int n;

	while ((n = ivwl_ring_read(&a->slot.event, &type, a->events,
				   PAYLOAD_MAX)) >= 0) {
		if (type == TRANSFER_ACK && n >= 16) {
			a->acked = a->events[0];
		} else if (type == TRANSFER_END_ACK &&
			   n >= (int)sizeof(struct totals)) {
			memcpy(&a->end_ack, a->events, sizeof(a->end_ack));
			a->end_acked = true;
		} else {
			return -EPROTO;
		}
	}
	return n == -EAGAIN ? 0 : n;
}

static int
app_send(struct app *a, uint16_t type, const void *p, uint32_t len)
{
	struct iovec iov = { (void *)p, len };
	int ret;

	for (;;) {
		ret = ivwl_ring_write(&a->slot.request, type, &iov, 1);
		if (ret != -EAGAIN)
			break;
		if (app_read_events(a) < 0)
			return -EPROTO;
		if (ivwl_app_slot_kick(&a->slot))
			a->kicks++;
		if (!ivwl_app_slot_alive(&a->slot))
			return -ECONNRESET;
		a->waits++;
		ret = ivwl_app_slot_wait(&a->slot, false, true, timeout_ms);
		if (ret < 0)
			return ret;
	}
	if (ret == 0 && ivwl_app_slot_kick(&a->slot))
		a->kicks++;
	return ret;
}

static void
spin_us(uint64_t us)
{
	double end = now_s() + us / 1e6;

	while (now_s() < end)
		;
}

static int
app_stream(struct app *a, uint64_t bytes, uint64_t seed, bool jitter)
{
	uint32_t max = ivwl_ring_max_payload(&a->slot.request);
	uint8_t *rec = (uint8_t *)a->buf;
	uint64_t rng = seed | 1;
	struct data_header h;
	uint32_t len, i;
	int ret;

	if (max > PAYLOAD_MAX)
		max = PAYLOAD_MAX;
	while (a->sent.bytes < bytes) {
		/* sizes spread over every power of two up to the maximum */
		len = (uint32_t)(xorshift(&rng) %
				 (1u << (xorshift(&rng) % 19)));
		if (jitter)
			len %= 256;
		len = sizeof(h) + (len % (max - sizeof(h) + 1));
		for (i = sizeof(h); i + 8 <= len; i += 8) {
			uint64_t w = xorshift(&rng);

			memcpy(rec + i, &w, 8);
		}
		for (; i < len; i++)
			rec[i] = (uint8_t)xorshift(&rng);
		/* hash what the receiver sees: the payload rounded up */
		len = (len + 7) & ~7u;
		h.seq = a->sent.records;
		h.hash = hash_bytes(rec + sizeof(h), len - sizeof(h));
		memcpy(rec, &h, sizeof(h));

		ret = app_send(a, TRANSFER_DATA, rec, len);
		if (ret < 0)
			return ret;
		totals_add(&a->sent, h.hash, len);
		if (jitter && xorshift(&rng) % 4 == 0)
			spin_us(xorshift(&rng) % 40);
	}
	return 0;
}

static int
app_finish(struct app *a)
{
	int ret;

	ret = app_send(a, TRANSFER_END, &a->sent, sizeof(a->sent));
	while (ret == 0 && !a->end_acked) {
		ret = app_read_events(a);
		if (ret < 0 || a->end_acked)
			break;
		if (!ivwl_app_slot_alive(&a->slot))
			return -ECONNRESET;
		ret = ivwl_app_slot_wait(&a->slot, true, false, timeout_ms);
	}
	if (ret < 0)
		return ret;
	return memcmp(&a->end_ack, &a->sent, sizeof(a->sent)) ? -EPROTO : 0;
}

static int
run_app(const char *agent_path, uint64_t bytes, uint64_t seed, bool jitter)
{
	struct ivwl_agent_slot info;
	struct app a = { 0 };
	double t0, dt;
	int fd, ret;

	fd = ivwl_agent_connect(agent_path);
	if (fd < 0) {
		fprintf(stderr, "ivwl-transfer: agent %s: %s\n", agent_path,
			strerror(-fd));
		return 1;
	}
	ret = ivwl_agent_open_slot(fd, &info);
	if (ret < 0) {
		fprintf(stderr, "ivwl-transfer: open slot: %s\n",
			strerror(-ret));
		return 1;
	}
	ret = ivwl_app_slot_attach(&a.slot, &info);
	if (ret == 0)
		ret = ivwl_app_slot_wait_open(&a.slot, timeout_ms);
	a.buf = malloc(PAYLOAD_MAX);
	a.events = malloc(PAYLOAD_MAX);
	if (ret < 0 || !a.buf || !a.events) {
		fprintf(stderr, "ivwl-transfer: slot %u: %s\n", info.slot,
			strerror(ret < 0 ? -ret : ENOMEM));
		return 1;
	}

	t0 = now_s();
	ret = app_stream(&a, bytes, seed, jitter);
	if (ret == 0)
		ret = app_finish(&a);
	dt = now_s() - t0;

	printf("app: slot %u: %" PRIu64 " records, %.1f MiB in %.2f s "
	       "(%.2f GB/s), %" PRIu64 " doorbells (%.2f per 1000 records), "
	       "%" PRIu64 " waits for space: %s\n",
	       info.slot, a.sent.records, a.sent.bytes / 1048576.0, dt,
	       a.sent.bytes / dt / 1e9, a.kicks,
	       a.sent.records ? 1000.0 * a.kicks / a.sent.records : 0.0,
	       a.waits, ret == 0 ? "all records verified" : strerror(-ret));
	ivwl_agent_close_slot(fd, info.slot, info.generation);
	ivwl_app_slot_detach(&a.slot);
	close(fd);
	free(a.buf);
	free(a.events);
	return ret == 0 ? 0 : 1;
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: ivwl-transfer display --server SOCKET "
		   "[--slots N] [--timeout-ms T]\n"
		   "       ivwl-transfer app --agent SOCKET --bytes N "
		   "[--jitter] [--seed S] [--timeout-ms T]\n");
}

int
main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "server", required_argument, NULL, 's' },
		{ "agent", required_argument, NULL, 'a' },
		{ "slots", required_argument, NULL, 'n' },
		{ "bytes", required_argument, NULL, 'b' },
		{ "seed", required_argument, NULL, 'r' },
		{ "jitter", no_argument, NULL, 'j' },
		{ "timeout-ms", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	const char *server = NULL, *agent = NULL, *role;
	unsigned long long bytes = 0, seed = 1;
	unsigned long slots = 1;
	bool jitter = false;
	int c;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	role = argv[1];
	optind = 2;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's': server = optarg; break;
		case 'a': agent = optarg; break;
		case 'n': slots = strtoul(optarg, NULL, 0); break;
		case 'b': bytes = strtoull(optarg, NULL, 0); break;
		case 'r': seed = strtoull(optarg, NULL, 0); break;
		case 'j': jitter = true; break;
		case 't': timeout_ms = atoi(optarg); break;
		default: usage(stderr); return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(role, "display") == 0 && server && slots > 0 &&
	    timeout_ms > 0)
		return run_display(server, (uint32_t)slots);
	if (strcmp(role, "app") == 0 && agent && bytes > 0 && timeout_ms > 0)
		return run_app(agent, bytes, seed, jitter);
	usage(stderr);
	return 2;
}
