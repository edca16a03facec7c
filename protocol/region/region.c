/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>

#include "region.h"
#include "shm-access.h"

bool
ivwl_is_pow2(uint64_t v)
{
	return v != 0 && (v & (v - 1)) == 0;
}

static uint32_t
ring_size_for(uint64_t region_size)
{
	uint64_t ring = region_size / 512;

	if (ring < IVWL_RING_MIN_SIZE)
		ring = IVWL_RING_MIN_SIZE;
	if (ring > IVWL_RING_MAX_SIZE)
		ring = IVWL_RING_MAX_SIZE;
	return (uint32_t)ring;
}

/* What to do about it, for people: where the size is set. */
#define SIZE_FIX ": make it a power of two from 2M to 64G (ivwl-server " \
		 "--size, QEMU's memory-backend size=)"
_Static_assert(IVWL_REGION_MIN_SIZE == 2ull << 20 &&
	       IVWL_REGION_MAX_SIZE == 64ull << 30, "SIZE_FIX says these");

const char *
ivwl_region_size_problem(uint64_t size)
{
	if (size < IVWL_REGION_MIN_SIZE)
		return "the region is too small for its slots" SIZE_FIX;
	if (size > IVWL_REGION_MAX_SIZE)
		return "the region is too large" SIZE_FIX;
	if (!ivwl_is_pow2(size))
		return "the region size is not a power of two" SIZE_FIX;
	return NULL;
}

int
ivwl_layout_compute(uint64_t region_size, struct ivwl_layout *layout)
{
	if (ivwl_region_size_problem(region_size))
		return -EINVAL;

	memset(layout, 0, sizeof(*layout));
	layout->region_size = region_size;
	layout->slot_count = IVWL_SLOT_COUNT;
	layout->ring_size = ring_size_for(region_size);
	layout->slot_table_offset = IVWL_PAGE_SIZE;
	layout->slot_stride = IVWL_PAGE_SIZE + 2ull * layout->ring_size;
	layout->heap_offset = layout->slot_table_offset +
			      layout->slot_count * layout->slot_stride;
	layout->heap_size = region_size - layout->heap_offset;
	return 0;
}

struct ivwl_region_header *
ivwl_region_header(void *base)
{
	return base;
}

struct ivwl_side_block *
ivwl_region_side(void *base, enum ivwl_side side)
{
	return &ivwl_region_header(base)->side[side];
}

void
ivwl_region_write_header(void *base, const struct ivwl_layout *layout)
{
	struct ivwl_region_header *h = base;

	h->version = IVWL_REGION_VERSION;
	h->header_size = IVWL_PAGE_SIZE;
	h->region_size = layout->region_size;
	h->slot_count = layout->slot_count;
	h->ring_size = layout->ring_size;
	h->slot_table_offset = layout->slot_table_offset;
	h->slot_stride = layout->slot_stride;
	h->heap_offset = layout->heap_offset;
	h->heap_size = layout->heap_size;
	h->features = 0;
	/* The magic goes last so a reader never sees it over a half header. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(h->magic, IVWL_REGION_MAGIC, sizeof(h->magic));
}

bool
ivwl_region_header_matches(const void *base, const struct ivwl_layout *layout)
{
	struct ivwl_region_header copy;

	/* One copy, then compare: the peer may change it while we look. */
	memcpy(&copy, base, sizeof(copy));
	__atomic_thread_fence(__ATOMIC_ACQUIRE);

	return memcmp(copy.magic, IVWL_REGION_MAGIC, sizeof(copy.magic)) == 0 &&
	       copy.version == IVWL_REGION_VERSION &&
	       copy.header_size == IVWL_PAGE_SIZE &&
	       copy.region_size == layout->region_size &&
	       copy.slot_count == layout->slot_count &&
	       copy.ring_size == layout->ring_size &&
	       copy.slot_table_offset == layout->slot_table_offset &&
	       copy.slot_stride == layout->slot_stride &&
	       copy.heap_offset == layout->heap_offset &&
	       copy.heap_size == layout->heap_size;
}

void
ivwl_region_slot(void *base, const struct ivwl_layout *layout, uint32_t slot,
		 struct ivwl_slot_view *view)
{
	uint8_t *p = (uint8_t *)base + layout->slot_table_offset +
		     (uint64_t)slot * layout->slot_stride;

	view->ctrl = (struct ivwl_slot_ctrl *)p;
	view->request_data = p + IVWL_PAGE_SIZE;
	view->event_data = view->request_data + layout->ring_size;
}

void
ivwl_slot_state_store(struct ivwl_slot_state *s, uint32_t state,
		      uint32_t generation)
{
	uint64_t v = (uint64_t)generation << 32 | state;

	__atomic_store_n((uint64_t *)s, v, __ATOMIC_RELEASE);
}

void
ivwl_slot_state_load(const struct ivwl_slot_state *s, uint32_t *state,
		     uint32_t *generation)
{
	uint64_t v = __atomic_load_n((const uint64_t *)s, __ATOMIC_ACQUIRE);

	*state = (uint32_t)v;
	*generation = (uint32_t)(v >> 32);
}

bool
ivwl_doorbell_post(void *base, enum ivwl_side to, uint64_t bits)
{
	uint64_t *word = &ivwl_region_header(base)->doorbell[to].pending;

	/*
	 * Sequentially consistent: ordered after the ring index the caller
	 * published, and before the taker's exchange or after it, never in
	 * between.  A peer may hold the word non-zero to silence doorbells
	 * to itself; that only stalls its own connections.
	 */
	return __atomic_fetch_or(word, bits, __ATOMIC_SEQ_CST) == 0;
}

uint64_t
ivwl_doorbell_take(void *base, enum ivwl_side own)
{
	uint64_t *word = &ivwl_region_header(base)->doorbell[own].pending;

	return __atomic_exchange_n(word, 0, __ATOMIC_SEQ_CST);
}

bool
ivwl_heap_range_valid(const struct ivwl_layout *layout, uint64_t offset,
		      uint64_t length)
{
	uint64_t heap_end = layout->heap_offset + layout->heap_size;

	if (length == 0 || offset % IVWL_PAGE_SIZE != 0)
		return false;
	if (offset < layout->heap_offset || offset >= heap_end)
		return false;
	return length <= heap_end - offset;
}
