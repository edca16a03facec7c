/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "harness.h"
#include "heap.h"

#define BASE (1ull << 20)
#define PAGE 4096ull

static void
test_init_checks(void)
{
	struct ivwl_heap h;

	CHECK_EQ(ivwl_heap_init(&h, BASE + 1, PAGE), -EINVAL);
	CHECK_EQ(ivwl_heap_init(&h, BASE, PAGE + 1), -EINVAL);
	CHECK_EQ(ivwl_heap_init(&h, BASE, 0), -EINVAL);
	REQUIRE(ivwl_heap_init(&h, BASE, 16 * PAGE) == 0);
	CHECK_EQ(h.free_bytes, 16 * PAGE);
	ivwl_heap_fini(&h);
}

static void
test_alloc_rounds_and_exhausts(void)
{
	struct ivwl_heap h;
	struct ivwl_extent a, b, c;

	REQUIRE(ivwl_heap_init(&h, BASE, 4 * PAGE) == 0);
	CHECK_EQ(ivwl_heap_alloc(&h, 0, &a), -EINVAL);
	CHECK_EQ(ivwl_heap_alloc(&h, UINT64_MAX, &a), -EINVAL);
	CHECK_EQ(ivwl_heap_alloc(&h, 1, &a), 0);
	CHECK_EQ(a.offset, BASE);
	CHECK_EQ(a.length, PAGE);
	CHECK_EQ(ivwl_heap_alloc(&h, PAGE + 1, &b), 0);
	CHECK_EQ(b.offset, BASE + PAGE);
	CHECK_EQ(b.length, 2 * PAGE);
	CHECK_EQ(ivwl_heap_alloc(&h, 2 * PAGE, &c), -ENOMEM);
	CHECK_EQ(ivwl_heap_alloc(&h, PAGE, &c), 0);
	CHECK_EQ(h.free_bytes, 0);
	CHECK_EQ(ivwl_heap_alloc(&h, PAGE, &c), -ENOMEM);
	ivwl_heap_fini(&h);
}

static void
test_free_merges_and_rejects_double_free(void)
{
	struct ivwl_heap h;
	struct ivwl_extent r[8], big;
	int i;

	REQUIRE(ivwl_heap_init(&h, BASE, 8 * PAGE) == 0);
	for (i = 0; i < 8; i++)
		REQUIRE(ivwl_heap_alloc(&h, PAGE, &r[i]) == 0);
	/* free in an order that exercises every merge case */
	CHECK_EQ(ivwl_heap_free(&h, r[1]), 0);
	CHECK_EQ(ivwl_heap_free(&h, r[3]), 0);
	CHECK_EQ(ivwl_heap_free(&h, r[2]), 0);	/* both sides */
	CHECK_EQ(ivwl_heap_free(&h, r[0]), 0);	/* next only */
	CHECK_EQ(ivwl_heap_free(&h, r[7]), 0);
	CHECK_EQ(ivwl_heap_free(&h, r[6]), 0);	/* next only */
	CHECK_EQ(ivwl_heap_free(&h, r[4]), 0);	/* prev only */
	CHECK_EQ(h.count, 2);
	CHECK_EQ(ivwl_heap_free(&h, r[4]), -EINVAL);	/* double */
	CHECK_EQ(ivwl_heap_free(&h, r[5]), 0);
	CHECK_EQ(h.count, 1);
	CHECK_EQ(h.free_bytes, 8 * PAGE);
	CHECK_EQ(ivwl_heap_alloc(&h, 8 * PAGE, &big), 0);

	/* ranges outside the heap */
	CHECK_EQ(ivwl_heap_free(&h, ((struct ivwl_extent){ 0, PAGE })),
		 -EINVAL);
	CHECK_EQ(ivwl_heap_free(&h, ((struct ivwl_extent){ BASE, 0 })),
		 -EINVAL);
	CHECK_EQ(ivwl_heap_free(&h,
		 ((struct ivwl_extent){ BASE + 8 * PAGE, PAGE })), -EINVAL);
	CHECK_EQ(ivwl_heap_free(&h,
		 ((struct ivwl_extent){ BASE, UINT64_MAX })), -EINVAL);
	ivwl_heap_fini(&h);
}

/* Random alloc/free against a page map: no overlap, nothing lost. */
static void
test_random_against_model(void)
{
	enum { PAGES = 512, MAXR = 256 };
	struct ivwl_heap h;
	struct ivwl_extent live[MAXR];
	uint8_t used[PAGES] = { 0 };
	unsigned seed = 4242, n = 0, iter, i;

	REQUIRE(ivwl_heap_init(&h, BASE, PAGES * PAGE) == 0);
	for (iter = 0; iter < 100000; iter++) {
		if (n < MAXR && rand_r(&seed) % 2) {
			struct ivwl_extent e;
			uint64_t len = (rand_r(&seed) % (8 * PAGE)) + 1;

			if (ivwl_heap_alloc(&h, len, &e) < 0)
				continue;
			for (i = 0; i < e.length / PAGE; i++) {
				uint64_t p = (e.offset - BASE) / PAGE + i;

				CHECK(!used[p]);
				used[p] = 1;
			}
			live[n++] = e;
		} else if (n > 0) {
			unsigned k = rand_r(&seed) % n;

			CHECK_EQ(ivwl_heap_free(&h, live[k]), 0);
			for (i = 0; i < live[k].length / PAGE; i++)
				used[(live[k].offset - BASE) / PAGE + i] = 0;
			live[k] = live[--n];
		}
	}
	while (n > 0)
		CHECK_EQ(ivwl_heap_free(&h, live[--n]), 0);
	CHECK_EQ(h.free_bytes, PAGES * PAGE);
	CHECK_EQ(h.count, 1);
	ivwl_heap_fini(&h);
}

IVWL_TEST_MAIN(
	TEST(test_init_checks),
	TEST(test_alloc_rounds_and_exhausts),
	TEST(test_free_merges_and_rejects_double_free),
	TEST(test_random_against_model),
)
