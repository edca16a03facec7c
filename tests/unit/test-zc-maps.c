/* SPDX-License-Identifier: MIT */
/*
 * The shim's record of a file's mappings (shim/zc-maps.c) as
 * munmap() takes parts of them: each case maps ranges, unmaps one and
 * compares what is left with a table, offsets in the file included.
 */
#include <string.h>

#include "harness.h"
#include "zc-maps.h"

#define MAX 4
#define P 4096u

struct span {
	uintptr_t addr;
	size_t len;
	uint64_t off;
};

struct maps_case {
	const char *what;
	struct span mapped[MAX];	/* len 0 ends */
	uintptr_t addr;			/* unmapped */
	size_t len;
	struct span left[MAX];	/* in any order */
};

/* clang-format off */
static const struct maps_case maps_cases[] = {
	{ "all of it", { { 10 * P, 4 * P, 0 } }, 10 * P, 4 * P, { { 0 } } },
	{ "more than all of it", { { 10 * P, 4 * P, 0 } },
	  8 * P, 8 * P, { { 0 } } },
	{ "elsewhere", { { 10 * P, 4 * P, 0 } }, 20 * P, P,
	  { { 10 * P, 4 * P, 0 } } },
	{ "just before", { { 10 * P, 4 * P, 0 } }, 9 * P, P,
	  { { 10 * P, 4 * P, 0 } } },
	{ "just after", { { 10 * P, 4 * P, 0 } }, 14 * P, P,
	  { { 10 * P, 4 * P, 0 } } },
	{ "its head", { { 10 * P, 4 * P, 8 * P } }, 10 * P, P,
	  { { 11 * P, 3 * P, 9 * P } } },
	{ "its tail", { { 10 * P, 4 * P, 8 * P } }, 13 * P, 2 * P,
	  { { 10 * P, 3 * P, 8 * P } } },
	{ "a hole in the middle: split", { { 10 * P, 4 * P, 8 * P } },
	  11 * P, 2 * P,
	  { { 10 * P, P, 8 * P }, { 13 * P, P, 11 * P } } },
	{ "across two mappings", { { 10 * P, 2 * P, 0 }, { 12 * P, 2 * P, 0 } },
	  11 * P, 2 * P,
	  { { 10 * P, P, 0 }, { 13 * P, P, P } } },
	{ "one of three, the others stay",
	  { { P, P, 0 }, { 3 * P, P, P }, { 5 * P, P, 2 * P } },
	  3 * P, P,
	  { { P, P, 0 }, { 5 * P, P, 2 * P } } },
};
/* clang-format on */

static bool
has(const struct zc_maps *maps, const struct span *s)
{
	size_t i;

	for (i = 0; i < maps->n; i++)
		if (maps->v[i].addr == s->addr && maps->v[i].len == s->len &&
		    maps->v[i].off == s->off)
			return true;
	return false;
}

static void
run_case(const struct maps_case *c)
{
	struct zc_maps maps = { 0 };
	size_t i, nleft = 0;

	for (i = 0; i < MAX && c->mapped[i].len; i++) {
		struct zc_map m = { c->mapped[i].addr, c->mapped[i].len,
				    c->mapped[i].off, 3, false };

		REQUIRE(ivwl_zc_maps_add(&maps, &m) == 0);
	}
	CHECK_EQ(ivwl_zc_maps_forget(&maps, c->addr, c->len), 0);
	for (i = 0; i < MAX && c->left[i].len; i++) {
		nleft++;
		if (!has(&maps, &c->left[i])) {
			fprintf(stderr, "%s: %#lx+%#zx at %#llx is gone\n",
				c->what, (unsigned long)c->left[i].addr,
				c->left[i].len,
				(unsigned long long)c->left[i].off);
			ivwl_test_failures++;
		}
	}
	if (maps.n != nleft) {
		fprintf(stderr, "%s: %zu mappings left, want %zu\n", c->what,
			maps.n, nleft);
		ivwl_test_failures++;
	}
	for (i = 0; i < maps.n; i++)
		CHECK_EQ(maps.v[i].prot, 3);
	ivwl_zc_maps_release(&maps);
}

static void
test_forget(void)
{
	size_t i;

	for (i = 0; i < sizeof(maps_cases) / sizeof(maps_cases[0]); i++)
		run_case(&maps_cases[i]);
}

/* Many holes, one page at a time: every other page stays. */
static void
test_many_splits(void)
{
	struct zc_maps maps = { 0 };
	struct zc_map m = { 0, 64 * P, 0, 1, false };
	uint64_t covered = 0;
	size_t i;

	REQUIRE(ivwl_zc_maps_add(&maps, &m) == 0);
	for (i = 1; i < 64; i += 2)
		CHECK_EQ(ivwl_zc_maps_forget(&maps, i * P, P), 0);
	CHECK_EQ(maps.n, 32);
	for (i = 0; i < maps.n; i++) {
		CHECK_EQ(maps.v[i].len, P);
		CHECK_EQ(maps.v[i].off, maps.v[i].addr);
		CHECK_EQ(maps.v[i].addr / P % 2, 0);
		covered += maps.v[i].len;
	}
	CHECK_EQ(covered, 32 * P);
	ivwl_zc_maps_release(&maps);
	CHECK_EQ(maps.n, 0);
}

IVWL_TEST_MAIN(TEST(test_forget), TEST(test_many_splits))
