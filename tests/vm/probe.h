/* SPDX-License-Identifier: MIT */
/*
 * What the VM probe's two ends (guest-probe in the guest, host-peer on the
 * host) agree on: where their blocks live in the region and how the
 * patterns are made.  All three blocks are in the heap of the region
 * layout (protocol/region/region.h), so the test also proves both ends compute
 * the same layout:
 *
 *   heap + 0                  host block: host -> guest pattern
 *   heap + PROBE_AREA         reply block: guest -> host pattern, made
 *                             from the host's seed so it proves the guest
 *                             read it
 *   heap + 2 * PROBE_AREA     ack block: host -> guest doorbells seen
 *
 * A block is one header page followed by length bytes of data.  The
 * writer fills data and header, then publishes the magic with a release
 * store; the reader acquires the magic before reading anything else.
 */
#ifndef IVWL_TEST_VM_PROBE_H
#define IVWL_TEST_VM_PROBE_H

#include <stdint.h>
#include <stddef.h>

#include "region.h"

#define PROBE_AREA (8ull << 20)
#define PROBE_DATA_OFFSET 4096u
#define PROBE_LENGTH (4ull << 20)
#define PROBE_HEAP_NEEDED (3 * PROBE_AREA)

#define PROBE_MAGIC_HOST 0x31545348594c5749ull	/* "IWLYHST1" */
#define PROBE_MAGIC_REPLY 0x31504c52594c5749ull	/* "IWLYRLP1" */
#define PROBE_MAGIC_ACK 0x314b4341594c5749ull	/* "IWLYACK1" */

/* Reply seed = host seed ^ PROBE_REPLY_XOR. */
#define PROBE_REPLY_XOR 0x9e3779b97f4a7c15ull

struct probe_block {
	uint64_t magic;		/* published last */
	uint64_t seed;
	uint64_t length;	/* bytes of data after the header page */
	uint64_t checksum;	/* probe_checksum() of the data */
	uint64_t value;		/* ack block: bitmask of vectors seen */
	uint64_t reserved[3];
};

static inline uint64_t
probe_next(uint64_t *state)
{
	/* xorshift64*: cheap, full period, never zero from a nonzero seed */
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dull;
}

static inline uint64_t
probe_start(uint64_t seed)
{
	return seed ? seed : 0x853c49e6748fea9bull;
}

static inline uint64_t
probe_checksum_step(uint64_t sum, uint64_t word)
{
	/* order-sensitive: a swapped pair of words changes the sum */
	sum ^= word;
	sum *= 0x100000001b3ull;
	return sum ^ (sum >> 29);
}

#define PROBE_CHECKSUM_INIT 0xcbf29ce484222325ull

/* Fills data with the pattern of seed; returns its checksum. */
static inline uint64_t
probe_fill(volatile uint64_t *data, uint64_t length, uint64_t seed)
{
	uint64_t state = probe_start(seed);
	uint64_t sum = PROBE_CHECKSUM_INIT;
	uint64_t i, w;

	for (i = 0; i < length / 8; i++) {
		w = probe_next(&state);
		data[i] = w;
		sum = probe_checksum_step(sum, w);
	}
	return sum;
}

/*
 * Compares data against the pattern of seed.  Returns the index of the
 * first wrong word, or length / 8 when all match; *sum gets the checksum
 * of what was read.
 */
static inline uint64_t
probe_verify(const volatile uint64_t *data, uint64_t length, uint64_t seed,
	     uint64_t *sum)
{
	uint64_t state = probe_start(seed);
	uint64_t s = PROBE_CHECKSUM_INIT;
	uint64_t i, w, bad = length / 8;

	for (i = 0; i < length / 8; i++) {
		w = data[i];
		s = probe_checksum_step(s, w);
		if (w != probe_next(&state) && bad == length / 8)
			bad = i;
	}
	*sum = s;
	return bad;
}

static inline struct probe_block *
probe_block_at(void *base, const struct ivwl_layout *layout, unsigned n)
{
	return (struct probe_block *)((uint8_t *)base + layout->heap_offset +
				      n * PROBE_AREA);
}

static inline volatile uint64_t *
probe_block_data(struct probe_block *block)
{
	return (volatile uint64_t *)((uint8_t *)block + PROBE_DATA_OFFSET);
}

enum probe_block_index {
	PROBE_BLOCK_HOST = 0,
	PROBE_BLOCK_REPLY = 1,
	PROBE_BLOCK_ACK = 2,
};

#endif
