/* SPDX-License-Identifier: MIT */
#include <stddef.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "region.h"

static void
test_layout_rejects_bad_sizes(void)
{
	struct ivwl_layout l;

	CHECK_EQ(ivwl_layout_compute(0, &l), -EINVAL);
	CHECK_EQ(ivwl_layout_compute(3 << 20, &l), -EINVAL);
	CHECK_EQ(ivwl_layout_compute(1 << 20, &l), -EINVAL);
	CHECK_EQ(ivwl_layout_compute(128ull << 30, &l), -EINVAL);
	CHECK_EQ(ivwl_layout_compute((64ull << 20) + 4096, &l), -EINVAL);
}

static void
test_layout_fits_every_size(void)
{
	uint64_t size;

	for (size = IVWL_REGION_MIN_SIZE; size <= IVWL_REGION_MAX_SIZE;
	     size <<= 1) {
		struct ivwl_layout l;

		REQUIRE(ivwl_layout_compute(size, &l) == 0);
		CHECK(ivwl_is_pow2(l.ring_size));
		CHECK(l.ring_size >= IVWL_RING_MIN_SIZE);
		CHECK(l.ring_size <= IVWL_RING_MAX_SIZE);
		CHECK_EQ(l.slot_table_offset % IVWL_PAGE_SIZE, 0);
		CHECK_EQ(l.slot_stride % IVWL_PAGE_SIZE, 0);
		CHECK_EQ(l.heap_offset % IVWL_PAGE_SIZE, 0);
		CHECK(l.heap_offset + l.heap_size == size);
		/* the heap always has room for something useful */
		CHECK(l.heap_size >= size / 4);
	}
}

static void
test_header_round_trip(void)
{
	struct ivwl_layout l, other;
	void *base = calloc(1, IVWL_PAGE_SIZE);

	REQUIRE(base);
	REQUIRE(ivwl_layout_compute(64ull << 20, &l) == 0);
	REQUIRE(ivwl_layout_compute(128ull << 20, &other) == 0);
	CHECK(!ivwl_region_header_matches(base, &l));
	ivwl_region_write_header(base, &l);
	CHECK(ivwl_region_header_matches(base, &l));
	CHECK(!ivwl_region_header_matches(base, &other));

	ivwl_region_header(base)->ring_size ^= 1;
	CHECK(!ivwl_region_header_matches(base, &l));
	ivwl_region_write_header(base, &l);
	ivwl_region_header(base)->magic[0] = 'X';
	CHECK(!ivwl_region_header_matches(base, &l));
	free(base);
}

static void
test_slots_do_not_overlap(void)
{
	struct ivwl_layout l;
	struct ivwl_slot_view a, b;
	uint8_t *base = (uint8_t *)(uintptr_t)0x100000;
	uint32_t i;

	REQUIRE(ivwl_layout_compute(2ull << 20, &l) == 0);
	for (i = 0; i + 1 < l.slot_count; i++) {
		ivwl_region_slot(base, &l, i, &a);
		ivwl_region_slot(base, &l, i + 1, &b);
		CHECK(a.request_data >= (uint8_t *)a.ctrl + IVWL_PAGE_SIZE);
		CHECK(a.event_data >= a.request_data + l.ring_size);
		CHECK(a.event_data + l.ring_size <= (uint8_t *)b.ctrl);
	}
	ivwl_region_slot(base, &l, l.slot_count - 1, &a);
	CHECK(a.event_data + l.ring_size <= base + l.heap_offset);
}

static void
test_heap_range_checks(void)
{
	struct ivwl_layout l;
	uint64_t h, end;

	REQUIRE(ivwl_layout_compute(64ull << 20, &l) == 0);
	h = l.heap_offset;
	end = h + l.heap_size;

	CHECK(ivwl_heap_range_valid(&l, h, 4096));
	CHECK(ivwl_heap_range_valid(&l, h, l.heap_size));
	CHECK(ivwl_heap_range_valid(&l, end - 4096, 4096));
	CHECK(!ivwl_heap_range_valid(&l, h, 0));
	CHECK(!ivwl_heap_range_valid(&l, h - 4096, 4096));
	CHECK(!ivwl_heap_range_valid(&l, h + 1, 4096));
	CHECK(!ivwl_heap_range_valid(&l, end, 4096));
	CHECK(!ivwl_heap_range_valid(&l, end - 4096, 4097));
	CHECK(!ivwl_heap_range_valid(&l, h, UINT64_MAX));
	CHECK(!ivwl_heap_range_valid(&l, UINT64_MAX & ~4095ull, 4096));
	CHECK(!ivwl_heap_range_valid(&l, 0, 4096));
}

/* Only the post that finds the word empty rings; a take empties it. */
static void
test_doorbell_words(void)
{
	static uint64_t page[IVWL_PAGE_SIZE / 8];
	void *base = page;

	CHECK(ivwl_doorbell_post(base, IVWL_SIDE_DISPLAY,
				 IVWL_DOORBELL_SLOT(3)));
	CHECK(!ivwl_doorbell_post(base, IVWL_SIDE_DISPLAY,
				  IVWL_DOORBELL_SLOT(31)));
	CHECK(!ivwl_doorbell_post(base, IVWL_SIDE_DISPLAY,
				  IVWL_DOORBELL_SLOT(3)));
	/* The other side's word is its own. */
	CHECK(ivwl_doorbell_post(base, IVWL_SIDE_APP, IVWL_DOORBELL_CONTROL));
	CHECK_EQ(ivwl_doorbell_take(base, IVWL_SIDE_DISPLAY),
		 IVWL_DOORBELL_SLOT(3) | IVWL_DOORBELL_SLOT(31));
	CHECK_EQ(ivwl_doorbell_take(base, IVWL_SIDE_DISPLAY), 0);
	CHECK(ivwl_doorbell_post(base, IVWL_SIDE_DISPLAY,
				 IVWL_DOORBELL_CONTROL));
	CHECK_EQ(ivwl_doorbell_take(base, IVWL_SIDE_APP),
		 IVWL_DOORBELL_CONTROL);
	CHECK_EQ(ivwl_doorbell_take(base, IVWL_SIDE_DISPLAY),
		 IVWL_DOORBELL_CONTROL);
	/* Slot bits never reach the control bit. */
	CHECK((IVWL_DOORBELL_SLOT(IVWL_SLOT_COUNT - 1) &
	       IVWL_DOORBELL_CONTROL) == 0);
	CHECK_EQ(offsetof(struct ivwl_region_header, doorbell) %
		 IVWL_CACHELINE, 0);
}

IVWL_TEST_MAIN(
	TEST(test_layout_rejects_bad_sizes),
	TEST(test_layout_fits_every_size),
	TEST(test_header_round_trip),
	TEST(test_slots_do_not_overlap),
	TEST(test_heap_range_checks),
	TEST(test_doorbell_words),
)
