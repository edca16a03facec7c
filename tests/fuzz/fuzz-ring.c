/* SPDX-License-Identifier: MIT */
/*
 * The ring as the display side meets it: a producer that writes anything,
 * anywhere, between our reads.  Input: the initial data area, then a
 * stream of (target, value) writes applied one per read.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ring.h"
#include "shm-access.h"

#define FUZZ_RING_SIZE 1024u

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
apply_write(struct ivwl_ring_ctrl *ctrl, uint8_t *ring, const uint8_t *w)
{
	uint32_t target, value;

	memcpy(&target, w, 4);
	memcpy(&value, w + 4, 4);
	switch (target % 4) {
	case 0:
		ivwl_shm_store(&ctrl->producer.prod, value);
		break;
	case 1:
		ivwl_shm_store(&ctrl->consumer.cons, value);
		break;
	case 2:
		ivwl_shm_store(&ctrl->producer.need_space, value);
		break;
	default:
		memcpy(ring + ((target >> 2) % (FUZZ_RING_SIZE / 4)) * 4,
		       &value, 4);
		break;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ivwl_ring_ctrl ctrl __attribute__((aligned(64)));
	static uint8_t ring_data[FUZZ_RING_SIZE] __attribute__((aligned(64)));
	static uint64_t out[FUZZ_RING_SIZE / 8];
	struct ivwl_ring rx, tx;
	size_t init = size < FUZZ_RING_SIZE ? size : FUZZ_RING_SIZE;
	const uint8_t *w = data + init;
	size_t left = size - init;
	uint16_t type;
	int ret, rounds = 0;

	memset(&ctrl, 0, sizeof(ctrl));
	memset(ring_data, 0, sizeof(ring_data));
	memcpy(ring_data, data, init);
	ivwl_ring_init_consumer(&rx, &ctrl, ring_data, FUZZ_RING_SIZE);
	ivwl_ring_init_producer(&tx, &ctrl, ring_data, FUZZ_RING_SIZE);

	/* the consumer, with the producer's words under attack */
	do {
		if (left >= 8) {
			apply_write(&ctrl, ring_data, w);
			w += 8;
			left -= 8;
		}
		ret = ivwl_ring_read(&rx, &type, out, sizeof(out));
		if (ret >= 0 && (uint32_t)ret > ivwl_ring_max_payload(&rx))
			abort();
		/* the live view looks at any time, whatever was written */
		if (ivwl_ring_fill(&rx) > FUZZ_RING_SIZE)
			abort();
		ivwl_ring_kick_needed(&rx);
		ivwl_ring_prepare_sleep(&rx);
	} while (ret != -EPIPE && ++rounds < 64 && (ret >= 0 || left >= 8));

	/* the producer, with the consumer's words under attack */
	w = data + init;
	left = size - init;
	rounds = 0;
	memset(&ctrl, 0, sizeof(ctrl));
	do {
		struct iovec iov = { out, (w - data) % 600 };

		if (left >= 8) {
			apply_write(&ctrl, ring_data, w);
			w += 8;
			left -= 8;
		}
		ret = ivwl_ring_write(&tx, 1, &iov, 1);
		if (ret == 0 && tx.pos - tx.peer > FUZZ_RING_SIZE)
			abort();
		if (ivwl_ring_fill(&tx) > FUZZ_RING_SIZE)
			abort();
	} while (ret != -EPIPE && ++rounds < 64);
	return 0;
}
