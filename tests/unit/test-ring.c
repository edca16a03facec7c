/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "harness.h"
#include "ring.h"
#include "shm-access.h"

#define RING_SIZE 4096u

struct pair {
	struct ivwl_ring_ctrl *ctrl;
	uint8_t *data;
	uint32_t size;
	struct ivwl_ring tx, rx;
};

static void
pair_init(struct pair *p, uint32_t size)
{
	p->ctrl = aligned_alloc(64, sizeof(*p->ctrl));
	p->data = aligned_alloc(64, size);
	REQUIRE(p->ctrl && p->data);
	memset(p->ctrl, 0, sizeof(*p->ctrl));
	memset(p->data, 0xa5, size);
	p->size = size;
	REQUIRE(ivwl_ring_init_producer(&p->tx, p->ctrl, p->data, size) == 0);
	REQUIRE(ivwl_ring_init_consumer(&p->rx, p->ctrl, p->data, size) == 0);
	ivwl_ring_reset(&p->tx);
	ivwl_ring_reset(&p->rx);
}

static void
pair_fini(struct pair *p)
{
	free(p->ctrl);
	free(p->data);
}

static int
put(struct ivwl_ring *r, uint16_t type, const void *buf, size_t len)
{
	struct iovec iov = { (void *)buf, len };

	return ivwl_ring_write(r, type, &iov, 1);
}

static void
test_init_rejects_bad_sizes(void)
{
	struct ivwl_ring r;
	uint8_t mem[256];
	struct ivwl_ring_ctrl ctrl;

	CHECK_EQ(ivwl_ring_init_producer(&r, &ctrl, mem, 0), -EINVAL);
	CHECK_EQ(ivwl_ring_init_producer(&r, &ctrl, mem, 32), -EINVAL);
	CHECK_EQ(ivwl_ring_init_consumer(&r, &ctrl, mem, 100), -EINVAL);
	CHECK_EQ(ivwl_ring_init_consumer(&r, &ctrl, mem, 128), 0);
}

static void
test_empty_and_round_trip(void)
{
	struct pair p;
	uint64_t buf[512];
	uint16_t type = 0;
	int n;

	pair_init(&p, RING_SIZE);
	CHECK_EQ(ivwl_ring_read(&p.rx, &type, buf, sizeof(buf)), -EAGAIN);
	CHECK(!ivwl_ring_readable(&p.rx));

	CHECK_EQ(put(&p.tx, 7, "hello", 5), 0);
	CHECK(ivwl_ring_readable(&p.rx));
	n = ivwl_ring_read(&p.rx, &type, buf, sizeof(buf));
	/* payloads come back rounded up to the record alignment */
	CHECK_EQ(n, 8);
	CHECK_EQ(type, 7);
	CHECK(memcmp(buf, "hello", 5) == 0);
	CHECK_EQ(ivwl_ring_read(&p.rx, &type, buf, sizeof(buf)), -EAGAIN);

	/* empty payloads are records too */
	CHECK_EQ(put(&p.tx, 3, "", 0), 0);
	CHECK_EQ(ivwl_ring_read(&p.rx, &type, buf, sizeof(buf)), 0);
	CHECK_EQ(type, 3);
	pair_fini(&p);
}

static void
test_full_then_drain(void)
{
	struct pair p;
	uint64_t buf[512];
	uint8_t rec[120];
	uint16_t type;
	int written = 0, read = 0, ret;

	pair_init(&p, RING_SIZE);
	for (;;) {
		memset(rec, written & 0xff, sizeof(rec));
		ret = put(&p.tx, 1, rec, sizeof(rec));
		if (ret == -EAGAIN)
			break;
		REQUIRE(ret == 0);
		written++;
	}
	/* 128 bytes a record: exactly a ring's worth fits */
	CHECK_EQ(written, RING_SIZE / 128);

	while ((ret = ivwl_ring_read(&p.rx, &type, buf, sizeof(buf))) >= 0) {
		CHECK_EQ(ret, 120);
		CHECK_EQ(((uint8_t *)buf)[119], read & 0xff);
		read++;
	}
	CHECK_EQ(ret, -EAGAIN);
	CHECK_EQ(read, written);
	CHECK_EQ(put(&p.tx, 1, rec, sizeof(rec)), 0);
	pair_fini(&p);
}

static void
test_wrap_uses_pad(void)
{
	struct pair p;
	uint64_t buf[512];
	uint8_t big[1500];
	uint16_t type;
	unsigned i, round;
	int n;

	pair_init(&p, RING_SIZE);
	/* 1500 + 8 -> 1512 bytes; positions drift across the end */
	for (round = 0; round < 100; round++) {
		for (i = 0; i < sizeof(big); i++)
			big[i] = (uint8_t)(round * 31 + i);
		REQUIRE(put(&p.tx, 2, big, sizeof(big)) == 0);
		n = ivwl_ring_read(&p.rx, &type, buf, sizeof(buf));
		REQUIRE(n >= 1500);
		CHECK_EQ(type, 2);
		CHECK(memcmp(buf, big, sizeof(big)) == 0);
	}
	/* indices are free-running: far past the size by now */
	CHECK(p.tx.pos > RING_SIZE * 10);
	pair_fini(&p);
}

static void
test_max_payload(void)
{
	struct pair p;
	uint8_t *big = calloc(1, RING_SIZE);
	uint64_t buf[RING_SIZE / 8];
	uint16_t type;
	uint32_t max;
	int i;

	REQUIRE(big);
	pair_init(&p, RING_SIZE);
	max = ivwl_ring_max_payload(&p.tx);
	CHECK_EQ(max, RING_SIZE / 2 - 8);
	CHECK_EQ(put(&p.tx, 1, big, max + 1), -EMSGSIZE);

	/* the largest record always fits an empty ring, wherever it stands */
	for (i = 0; i < 50; i++) {
		REQUIRE(put(&p.tx, 1, big, 8 * (i % 5) + 8) == 0);
		REQUIRE(ivwl_ring_read(&p.rx, &type, buf, sizeof(buf)) >= 0);
		CHECK_EQ(put(&p.tx, 1, big, max), 0);
		CHECK_EQ(ivwl_ring_read(&p.rx, &type, buf, sizeof(buf)),
			 (int)max);
	}
	free(big);
	pair_fini(&p);
}

static void
test_reserve_commit(void)
{
	struct pair p;
	uint64_t buf[64];
	uint16_t type;
	void *dst;

	pair_init(&p, RING_SIZE);
	REQUIRE(ivwl_ring_reserve(&p.tx, 16, &dst) == 0);
	memcpy(dst, "0123456789abcdef", 16);
	/* nothing is visible before commit */
	CHECK_EQ(ivwl_ring_read(&p.rx, &type, buf, sizeof(buf)), -EAGAIN);
	ivwl_ring_commit(&p.tx, 9);
	CHECK_EQ(ivwl_ring_read(&p.rx, &type, buf, sizeof(buf)), 16);
	CHECK_EQ(type, 9);
	CHECK(memcmp(buf, "0123456789abcdef", 16) == 0);
	pair_fini(&p);
}

/* A producer that lies about its index. */
static void
test_consumer_rejects_bad_prod(void)
{
	static const uint32_t lies[] = {
		RING_SIZE + 8, RING_SIZE + 1, UINT32_MAX, 0x80000000u,
	};
	uint64_t buf[512];
	uint16_t type;
	unsigned i;

	for (i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
		struct pair p;

		pair_init(&p, RING_SIZE);
		ivwl_shm_store(&p.ctrl->producer.prod, lies[i]);
		CHECK_EQ(ivwl_ring_read(&p.rx, &type, buf, sizeof(buf)),
			 -EPIPE);
		/* and it stays broken */
		ivwl_shm_store(&p.ctrl->producer.prod, 0);
		CHECK_EQ(ivwl_ring_read(&p.rx, &type, buf, sizeof(buf)),
			 -EPIPE);
		pair_fini(&p);
	}
}

static void
write_header(struct pair *p, uint32_t at, uint32_t len, uint16_t type)
{
	struct ivwl_record_header h = { .len = len, .type = type };

	memcpy(p->data + at, &h, sizeof(h));
}

/* A producer that writes a nonsense record header. */
static void
test_consumer_rejects_bad_headers(void)
{
	struct {
		uint32_t at, len, prod;
		uint16_t type;
	} bad[] = {
		{ 0, 0, 64, 1 },			/* zero length */
		{ 0, 4, 64, 1 },			/* below header */
		{ 0, 12, 64, 1 },			/* unaligned */
		{ 0, 72, 64, 1 },			/* beyond prod */
		{ 0, RING_SIZE / 2 + 8, RING_SIZE, 1 },	/* over max */
		{ 0, 0xfffffff8u, 64, 1 },		/* huge */
		{ 0, 16, 16, 0xffff },			/* fine: unknown type */
	};
	uint64_t buf[512];
	uint16_t type;
	unsigned i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct pair p;
		int ret;

		pair_init(&p, RING_SIZE);
		write_header(&p, bad[i].at, bad[i].len, bad[i].type);
		ivwl_shm_store(&p.ctrl->producer.prod, bad[i].prod);
		ret = ivwl_ring_read(&p.rx, &type, buf, sizeof(buf));
		if (bad[i].type == 0xffff) {
			/* the ring carries it; the record layer judges */
			CHECK_EQ(ret, 8);
		} else {
			CHECK_EQ(ret, -EPIPE);
		}
		pair_fini(&p);
	}
}

/* A record that claims to cross the end of the data area. */
static void
test_consumer_rejects_wrapping_record(void)
{
	struct pair p;
	uint64_t buf[512];
	uint16_t type;
	uint8_t rec[1000];

	pair_init(&p, RING_SIZE);
	memset(rec, 0, sizeof(rec));
	/* move both indices to 4096 - 64 */
	while (p.tx.pos < RING_SIZE - 64 - 1008) {
		REQUIRE(put(&p.tx, 1, rec, sizeof(rec)) == 0);
		REQUIRE(ivwl_ring_read(&p.rx, &type, buf, sizeof(buf)) >= 0);
	}
	while (p.tx.pos < RING_SIZE - 64) {
		REQUIRE(put(&p.tx, 1, rec, 0) == 0);
		REQUIRE(ivwl_ring_read(&p.rx, &type, buf, sizeof(buf)) >= 0);
	}
	REQUIRE(p.rx.pos == RING_SIZE - 64);
	write_header(&p, RING_SIZE - 64, 128, 1);
	ivwl_shm_store(&p.ctrl->producer.prod, RING_SIZE + 64);
	CHECK_EQ(ivwl_ring_read(&p.rx, &type, buf, sizeof(buf)), -EPIPE);
	pair_fini(&p);
}

/* The consumer buffer given is smaller than a record: refuse, don't overrun */
static void
test_consumer_small_buffer(void)
{
	struct pair p;
	uint64_t small[4];
	uint8_t rec[100] = { 0 };
	uint16_t type;

	pair_init(&p, RING_SIZE);
	REQUIRE(put(&p.tx, 1, rec, sizeof(rec)) == 0);
	CHECK_EQ(ivwl_ring_read(&p.rx, &type, small, sizeof(small)), -EPIPE);
	pair_fini(&p);
}

/* A consumer that lies about its index. */
static void
test_producer_rejects_bad_cons(void)
{
	/* ahead of prod once it is checked, behind the start, far away */
	static const uint32_t lies[] = { RING_SIZE, UINT32_MAX - 7, 0x80000000u };
	uint8_t rec[1000] = { 0 };
	unsigned i;

	for (i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
		struct pair p;
		int ret = 0, n = 0;

		pair_init(&p, RING_SIZE);
		/* cons may never pass prod, nor go backwards */
		ivwl_shm_store(&p.ctrl->consumer.cons, lies[i]);
		while (n < 10 && (ret = put(&p.tx, 1, rec, sizeof(rec))) == 0)
			n++;
		CHECK_EQ(ret, -EPIPE);
		CHECK(n < 10);
		pair_fini(&p);
	}
}

static void
test_garbage_never_escapes(void)
{
	uint64_t buf[RING_SIZE / 8];
	uint16_t type;
	unsigned seed = 12345, iter, i;

	for (iter = 0; iter < 2000; iter++) {
		struct pair p;
		int ret, reads = 0;

		pair_init(&p, RING_SIZE);
		for (i = 0; i < RING_SIZE; i++)
			p.data[i] = (uint8_t)rand_r(&seed);
		/* records with plausible lengths now and then */
		for (i = 0; i < RING_SIZE; i += 8)
			if (rand_r(&seed) % 4 == 0)
				write_header(&p, i, 8 * (rand_r(&seed) % 64),
					     rand_r(&seed) % 3);
		ivwl_shm_store(&p.ctrl->producer.prod,
			       rand_r(&seed) % (2 * RING_SIZE));
		do {
			ret = ivwl_ring_read(&p.rx, &type, buf, sizeof(buf));
			if (ret >= 0)
				CHECK(ret <= (int)ivwl_ring_max_payload(&p.rx));
		} while (ret >= 0 && ++reads < 1000);
		CHECK(ret == -EAGAIN || ret == -EPIPE);
		CHECK(p.rx.pos - 0 <= p.size);
		pair_fini(&p);
	}
}

/* The live view's look at a ring: true while honest, bounded when not. */
static void
test_fill_survives_garbage(void)
{
	static const uint32_t lies[] = { 1, 7, RING_SIZE - 1, RING_SIZE + 1,
					 0x80000000u, 0xffffffffu };
	uint8_t rec[100] = { 0 };
	struct pair p;
	uint32_t i;

	pair_init(&p, RING_SIZE);
	CHECK_EQ(ivwl_ring_fill(&p.tx), 0);
	CHECK_EQ(ivwl_ring_fill(&p.rx), 0);
	REQUIRE(put(&p.tx, 1, rec, sizeof(rec)) == 0);
	CHECK_EQ(ivwl_ring_fill(&p.tx), 8 + sizeof(rec) + 4);
	CHECK_EQ(ivwl_ring_fill(&p.rx), 8 + sizeof(rec) + 4);
	for (i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
		ivwl_shm_store(&p.ctrl->consumer.cons, lies[i]);
		ivwl_shm_store(&p.ctrl->producer.prod, lies[i]);
		CHECK(ivwl_ring_fill(&p.tx) <= RING_SIZE);
		CHECK(ivwl_ring_fill(&p.rx) <= RING_SIZE);
	}
	pair_fini(&p);
}

static void
test_sleep_tokens(void)
{
	struct pair p;
	uint64_t buf[64];
	uint16_t type;

	pair_init(&p, RING_SIZE);
	/* nobody sleeps: no doorbell owed */
	CHECK_EQ(put(&p.tx, 1, "a", 1), 0);
	CHECK(!ivwl_ring_kick_needed(&p.tx));

	/* data pending: the consumer must not sleep */
	CHECK(!ivwl_ring_prepare_sleep(&p.rx));
	CHECK_EQ(p.ctrl->consumer.need_data, 0);
	REQUIRE(ivwl_ring_read(&p.rx, &type, buf, sizeof(buf)) >= 0);

	/* empty: it may sleep, and the next write owes exactly one kick */
	CHECK(ivwl_ring_prepare_sleep(&p.rx));
	CHECK_EQ(put(&p.tx, 1, "b", 1), 0);
	CHECK(ivwl_ring_kick_needed(&p.tx));
	CHECK_EQ(put(&p.tx, 1, "c", 1), 0);
	CHECK(!ivwl_ring_kick_needed(&p.tx));
	ivwl_ring_woken(&p.rx);
	CHECK(!ivwl_ring_kick_needed(&p.tx));

	/* a fresh sleep owes a fresh kick */
	while (ivwl_ring_read(&p.rx, &type, buf, sizeof(buf)) >= 0)
		;
	CHECK(ivwl_ring_prepare_sleep(&p.rx));
	CHECK_EQ(put(&p.tx, 1, "d", 1), 0);
	CHECK(ivwl_ring_kick_needed(&p.tx));

	/* woken, it reads all and sleeps again while we wrote nothing: no
	 * kick is owed (one would wake it for nothing, and its side, woken
	 * the same way, would ring back: an idle ping-pong) */
	ivwl_ring_woken(&p.rx);
	while (ivwl_ring_read(&p.rx, &type, buf, sizeof(buf)) >= 0)
		;
	CHECK(ivwl_ring_prepare_sleep(&p.rx));
	CHECK(!ivwl_ring_kick_needed(&p.tx));
	CHECK_EQ(put(&p.tx, 1, "e", 1), 0);
	CHECK(ivwl_ring_kick_needed(&p.tx));
	pair_fini(&p);
}

static void
test_producer_sleeps_for_space(void)
{
	struct pair p;
	uint64_t buf[512];
	uint8_t rec[500] = { 0 };
	uint16_t type;

	pair_init(&p, RING_SIZE);
	while (put(&p.tx, 1, rec, sizeof(rec)) == 0)
		;
	CHECK(ivwl_ring_prepare_sleep(&p.tx));
	REQUIRE(ivwl_ring_read(&p.rx, &type, buf, sizeof(buf)) >= 0);
	CHECK(ivwl_ring_kick_needed(&p.rx));
	CHECK(!ivwl_ring_kick_needed(&p.rx));
	ivwl_ring_woken(&p.tx);
	CHECK_EQ(put(&p.tx, 1, rec, sizeof(rec)), 0);
	pair_fini(&p);
}

/*
 * Lost-wakeup hunt: producer and consumer threads that both sleep on
 * eventfds whenever the ring says they may.  A lost wakeup hangs one of
 * them; the poll timeout turns that into a failure instead of a hang.
 */
struct race {
	struct pair p;
	int data_fd, space_fd;
	uint32_t records;
	int stalls;
	uint64_t sum_tx, sum_rx;
	uint64_t kicks;
};

static bool
sleep_on(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t v;

	if (poll(&pfd, 1, 5000) != 1)
		return false;
	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return false;
	return true;
}

static void
kick(int fd)
{
	uint64_t one = 1;

	if (write(fd, &one, sizeof(one)) != sizeof(one))
		abort();
}

static void *
race_producer(void *arg)
{
	struct race *r = arg;
	uint8_t rec[256];
	unsigned seed = 99;
	uint32_t i, len, k;

	for (i = 0; i < r->records; i++) {
		len = rand_r(&seed) % sizeof(rec);
		for (k = 0; k < len; k++)
			rec[k] = (uint8_t)(i + k);
		for (;;) {
			int ret = put(&r->p.tx, 1, rec, len);

			if (ret == 0)
				break;
			if (ret != -EAGAIN)
				abort();
			if (!ivwl_ring_prepare_sleep(&r->p.tx))
				continue;
			if (!sleep_on(r->space_fd)) {
				__atomic_add_fetch(&r->stalls, 1,
						   __ATOMIC_RELAXED);
				return NULL;
			}
			ivwl_ring_woken(&r->p.tx);
		}
		for (k = 0; k < len; k++)
			r->sum_tx += rec[k] * (uint64_t)(k + 1);
		if (ivwl_ring_kick_needed(&r->p.tx)) {
			r->kicks++;
			kick(r->data_fd);
		}
	}
	return NULL;
}

static void *
race_consumer(void *arg)
{
	struct race *r = arg;
	uint64_t buf[64];
	uint32_t got = 0;
	uint16_t type;
	unsigned seed = 99;

	while (got < r->records) {
		int ret = ivwl_ring_read(&r->p.rx, &type, buf, sizeof(buf));
		uint32_t len, k;

		if (ret == -EAGAIN) {
			if (ivwl_ring_kick_needed(&r->p.rx))
				kick(r->space_fd);
			if (!ivwl_ring_prepare_sleep(&r->p.rx))
				continue;
			if (!sleep_on(r->data_fd)) {
				__atomic_add_fetch(&r->stalls, 1,
						   __ATOMIC_RELAXED);
				return NULL;
			}
			ivwl_ring_woken(&r->p.rx);
			continue;
		}
		if (ret < 0)
			abort();
		len = rand_r(&seed) % 256;
		for (k = 0; k < len; k++)
			r->sum_rx += ((uint8_t *)buf)[k] * (uint64_t)(k + 1);
		got++;
		if (ivwl_ring_kick_needed(&r->p.rx))
			kick(r->space_fd);
	}
	return NULL;
}

static void
test_lost_wakeup_threads(void)
{
	struct race r = { .records = 300000 };
	pthread_t a, b;

	/* a small ring forces the producer to sleep too */
	pair_init(&r.p, 1024);
	r.data_fd = eventfd(0, EFD_CLOEXEC);
	r.space_fd = eventfd(0, EFD_CLOEXEC);
	REQUIRE(r.data_fd >= 0 && r.space_fd >= 0);
	REQUIRE(pthread_create(&a, NULL, race_producer, &r) == 0);
	REQUIRE(pthread_create(&b, NULL, race_consumer, &r) == 0);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	CHECK_EQ(r.stalls, 0);
	CHECK(r.sum_tx == r.sum_rx);
	close(r.data_fd);
	close(r.space_fd);
	pair_fini(&r.p);
}

IVWL_TEST_MAIN(
	TEST(test_init_rejects_bad_sizes),
	TEST(test_empty_and_round_trip),
	TEST(test_full_then_drain),
	TEST(test_wrap_uses_pad),
	TEST(test_max_payload),
	TEST(test_reserve_commit),
	TEST(test_consumer_rejects_bad_prod),
	TEST(test_consumer_rejects_bad_headers),
	TEST(test_consumer_rejects_wrapping_record),
	TEST(test_consumer_small_buffer),
	TEST(test_producer_rejects_bad_cons),
	TEST(test_garbage_never_escapes),
	TEST(test_sleep_tokens),
	TEST(test_producer_sleeps_for_space),
	TEST(test_lost_wakeup_threads),
	TEST(test_fill_survives_garbage),
)
