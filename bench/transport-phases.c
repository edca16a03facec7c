/* SPDX-License-Identifier: MIT */
/*
 * The three measurements, both ends of each.
 *
 * Every message carries its sequence number in its first and last eight
 * bytes and every receiver checks both; a sample of bulk messages is also
 * hashed in full against the hash the receiver computed on its own, so a
 * link that drops, reorders or fakes bytes is caught.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "transport.h"

/* One bulk message in this many is hashed in full (and the last one). */
#define BULK_SAMPLE 64u

static void
stamp(uint8_t *msg, size_t size, uint64_t seq)
{
	uint64_t inv = ~seq;

	memcpy(msg, &seq, sizeof(seq));
	if (size >= 16)
		memcpy(msg + size - 8, &inv, sizeof(inv));
}

static bool
stamp_ok(const uint8_t *msg, size_t size, uint64_t seq)
{
	uint64_t head, tail;

	memcpy(&head, msg, sizeof(head));
	if (head != seq)
		return false;
	if (size < 16)
		return true;
	memcpy(&tail, msg + size - 8, sizeof(tail));
	return tail == ~seq;
}

/* The body between the two stamps. */
static uint64_t
body_hash(const uint8_t *msg, size_t size)
{
	return ivwl_bench_hash(msg + 8, size - 16);
}

int
ivwl_bench_payload_init(struct ivwl_bench_payload *pl, size_t max_size,
			const uint64_t sizes[2])
{
	unsigned i, k;

	memset(pl, 0, sizeof(*pl));
	pl->max_size = max_size;
	for (k = 0; k < IVWL_BENCH_SOURCES; k++) {
		pl->src[k] = aligned_alloc(4096, max_size);
		if (!pl->src[k])
			goto err_free;
		ivwl_bench_fill(pl->src[k], max_size, 0x1f1f0000u + k);
	}
	pl->dst = aligned_alloc(4096, max_size);
	if (!pl->dst)
		goto err_free;
	/* Touch it now, not during the first timed copy. */
	memset(pl->dst, 0, max_size);

	for (i = 0; i < 2; i++) {
		pl->hash_size[i] = sizes[i];
		for (k = 0; k < IVWL_BENCH_SOURCES; k++)
			pl->hash[i][k] = sizes[i] >= 16 && sizes[i] <= max_size ?
					 body_hash(pl->src[k], sizes[i]) : 0;
	}
	return 0;

err_free:
	ivwl_bench_payload_fini(pl);
	return -ENOMEM;
}

void
ivwl_bench_payload_fini(struct ivwl_bench_payload *pl)
{
	unsigned k;

	for (k = 0; k < IVWL_BENCH_SOURCES; k++)
		free(pl->src[k]);
	free(pl->dst);
	memset(pl, 0, sizeof(*pl));
}

static const uint64_t *
expected_hashes(const struct ivwl_bench_payload *pl, uint64_t size)
{
	unsigned i;

	for (i = 0; i < 2; i++)
		if (pl->hash_size[i] == size)
			return pl->hash[i];
	return NULL;
}

int
ivwl_bench_rtt_run(struct ivwl_bench_link *link, uint64_t warmup,
		   uint64_t count, uint64_t *rtt_ns)
{
	uint8_t out[IVWL_BENCH_SMALL_SIZE], in[IVWL_BENCH_SMALL_SIZE];
	uint64_t i, t0;
	int ret;

	ivwl_bench_fill(out, sizeof(out), 0x77);
	for (i = 0; i < warmup + count; i++) {
		stamp(out, sizeof(out), i);
		t0 = ivwl_bench_now_ns();
		ret = link->ops->send(link, out, sizeof(out));
		if (ret < 0)
			return ret;
		ret = link->ops->recv(link, in, sizeof(in));
		if (ret < 0)
			return ret;
		if (i >= warmup)
			rtt_ns[i - warmup] = ivwl_bench_now_ns() - t0;
		if (memcmp(in, out, sizeof(in)) != 0)
			return -EPROTO;
	}
	return link->ops->flush(link);
}

static void
rtt_serve(struct ivwl_bench_link *link, const struct ivwl_bench_cmd *cmd,
	  struct ivwl_bench_report *rep)
{
	uint8_t buf[IVWL_BENCH_SMALL_SIZE];
	uint64_t i;
	int ret;

	for (i = 0; i < cmd->count; i++) {
		ret = link->ops->recv(link, buf, sizeof(buf));
		if (ret < 0)
			goto err;
		rep->messages++;
		if (!stamp_ok(buf, sizeof(buf), i))
			rep->bad++;
		ret = link->ops->send(link, buf, sizeof(buf));
		if (ret < 0)
			goto err;
	}
	return;

err:
	rep->status = ret;
}

int
ivwl_bench_bulk_send(struct ivwl_bench_link *link,
		     struct ivwl_bench_payload *pl, uint64_t size,
		     uint64_t count)
{
	uint8_t *msg, head[8], tail[8];
	uint64_t i;
	int ret;

	if (size < 16 || size > pl->max_size)
		return -EINVAL;
	for (i = 0; i < count; i++) {
		msg = pl->src[i % IVWL_BENCH_SOURCES];
		memcpy(head, msg, sizeof(head));
		memcpy(tail, msg + size - 8, sizeof(tail));
		stamp(msg, size, i);
		ret = link->ops->send(link, msg, size);
		/* Every link has copied the message by now: make the source
		 * whole again for the other sizes' hashes. */
		memcpy(msg, head, sizeof(head));
		memcpy(msg + size - 8, tail, sizeof(tail));
		if (ret < 0)
			return ret;
	}
	return link->ops->flush(link);
}

static void
bulk_serve(struct ivwl_bench_link *link, struct ivwl_bench_payload *pl,
	   const struct ivwl_bench_cmd *cmd, struct ivwl_bench_report *rep)
{
	const uint64_t *expected = expected_hashes(pl, cmd->size);
	uint64_t i;
	int ret;

	if (!expected || cmd->size < 16 || cmd->size > pl->max_size) {
		rep->status = -EINVAL;
		return;
	}
	for (i = 0; i < cmd->count; i++) {
		ret = link->ops->recv(link, pl->dst, cmd->size);
		if (ret < 0) {
			rep->status = ret;
			return;
		}
		rep->messages++;
		if (!stamp_ok(pl->dst, cmd->size, i))
			rep->bad++;
		if (i % BULK_SAMPLE == 0 || i == cmd->count - 1) {
			rep->verified++;
			if (body_hash(pl->dst, cmd->size) !=
			    expected[i % IVWL_BENCH_SOURCES])
				rep->bad++;
		}
	}
}

int
ivwl_bench_flood_send(struct ivwl_bench_link *link, uint64_t count)
{
	uint8_t rec[IVWL_BENCH_SMALL_SIZE];
	uint64_t i;
	int ret;

	ivwl_bench_fill(rec, sizeof(rec), 0x99);
	for (i = 0; i < count; i++) {
		stamp(rec, sizeof(rec), i);
		ret = link->ops->send(link, rec, sizeof(rec));
		if (ret < 0)
			return ret;
	}
	return link->ops->flush(link);
}

/* Stands for the consumer's own work on one record. */
static void
busy_work(const uint8_t *rec, size_t len, uint64_t work_ns)
{
	uint64_t until = ivwl_bench_now_ns() + work_ns;
	uint64_t h = 0;

	do
		h ^= ivwl_bench_hash(rec, len);
	while (ivwl_bench_now_ns() < until);
	/* Keep the work: the compiler must not drop it. */
	__asm__ __volatile__("" : : "r"(h));
}

static void
flood_serve(struct ivwl_bench_link *link, const struct ivwl_bench_cmd *cmd,
	    struct ivwl_bench_report *rep)
{
	uint8_t rec[IVWL_BENCH_SMALL_SIZE];
	uint64_t i;
	int ret;

	for (i = 0; i < cmd->count; i++) {
		ret = link->ops->recv(link, rec, sizeof(rec));
		if (ret < 0) {
			rep->status = ret;
			return;
		}
		rep->messages++;
		if (!stamp_ok(rec, sizeof(rec), i))
			rep->bad++;
		busy_work(rec, sizeof(rec), cmd->work_ns);
	}
}

void
ivwl_bench_serve_phase(struct ivwl_bench_link *link,
		       struct ivwl_bench_payload *pl,
		       const struct ivwl_bench_cmd *cmd,
		       struct ivwl_bench_report *rep)
{
	struct ivwl_bench_link_stats before = link->stats;
	uint64_t switches = ivwl_bench_voluntary_switches();
	int ret;

	memset(rep, 0, sizeof(*rep));
	switch (cmd->phase) {
	case IVWL_BENCH_PHASE_RTT:
		rtt_serve(link, cmd, rep);
		break;
	case IVWL_BENCH_PHASE_BULK:
		bulk_serve(link, pl, cmd, rep);
		break;
	case IVWL_BENCH_PHASE_FLOOD:
		flood_serve(link, cmd, rep);
		break;
	default:
		rep->status = -EINVAL;
		break;
	}
	ret = link->ops->flush(link);
	if (ret < 0 && rep->status == 0)
		rep->status = ret;
	rep->doorbells = link->stats.doorbells - before.doorbells;
	rep->sleeps = link->stats.sleeps - before.sleeps;
	rep->switches = ivwl_bench_voluntary_switches() - switches;
}
