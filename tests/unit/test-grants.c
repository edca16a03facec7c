/* SPDX-License-Identifier: MIT */
/*
 * The relay's zero-copy grant bookkeeping (relay/grants.c), with a
 * fake heap that counts what is allocated: every range goes back exactly
 * once, and only when no pool, follower or client mapping needs it.
 */
#include <errno.h>

#include "grants.h"
#include "harness.h"

struct fake_heap {
	uint64_t next;
	int live;	/* ranges allocated, not freed */
	int fail;	/* next alloc fails with this */
};

static int
fake_alloc(void *data, uint64_t length, struct ivwl_extent *out)
{
	struct fake_heap *h = data;

	if (h->fail) {
		int ret = h->fail;

		h->fail = 0;
		return ret;
	}
	out->offset = h->next;
	out->length = length;
	h->next += length;
	h->live++;
	return 0;
}

static void
fake_free(void *data, uint64_t offset)
{
	struct fake_heap *h = data;

	h->live--;
}

static void
setup(struct ivwl_grants *g, struct fake_heap *h)
{
	*h = (struct fake_heap){ .next = 1 << 20 };
	ivwl_grants_init(g, 64 << 20, fake_alloc, fake_free, h);
}

static void
test_offer(void)
{
	struct ivwl_grants g;
	struct fake_heap h;
	struct ivwl_extent a, b;

	setup(&g, &h);
	CHECK_EQ(ivwl_grants_offer(&g, 1, 7, 8, 4096, &a), 0);
	CHECK_EQ(a.length, 4096);
	/* offered again (a lost reply): the same range */
	CHECK_EQ(ivwl_grants_offer(&g, 1, 7, 8, 4096, &b), 0);
	CHECK_EQ(b.offset, a.offset);
	CHECK_EQ(h.live, 1);
	/* another process cannot take it */
	CHECK_EQ(ivwl_grants_offer(&g, 2, 7, 8, 4096, &b), -EBUSY);
	CHECK_EQ(ivwl_grants_offer(&g, 1, 7, 9, 0, &b), -ENOSPC);
	CHECK_EQ(ivwl_grants_offer(&g, 1, 7, 9, 65 << 20, &b), -ENOSPC);
	h.fail = -ENOMEM;
	CHECK_EQ(ivwl_grants_offer(&g, 1, 7, 9, 4096, &b), -ENOSPC);
	CHECK(ivwl_grants_client_maps(&g));
	ivwl_grants_release_all(&g);
	CHECK_EQ(h.live, 0);
	CHECK(!ivwl_grants_client_maps(&g));
}

static void
test_pools_keep_it(void)
{
	struct ivwl_grants g;
	struct fake_heap h;
	struct ivwl_grant *gr, *left;
	struct ivwl_extent a;
	bool any;

	setup(&g, &h);
	CHECK_EQ(ivwl_grants_offer(&g, 1, 7, 8, 8192, &a), 0);
	CHECK_EQ(ivwl_grants_unclaimed(&g, 1, &any), 8192);
	CHECK(!any);
	gr = ivwl_grants_find(&g, 7, 8);
	REQUIRE(gr);
	ivwl_grant_pool_add(gr);
	CHECK(ivwl_grant_zero_copy(gr));
	CHECK_EQ(ivwl_grants_unclaimed(&g, IVWL_GRANTS_ANY_OWNER, &any), 0);
	CHECK(any);

	/* a pool draws from it: the client must copy back first */
	CHECK_EQ(ivwl_grants_revert(&g, 1, 7, 8, false, false, &left), -EAGAIN);
	CHECK_EQ(ivwl_grants_revert(&g, 2, 7, 8, true, false, &left), -ENOENT);
	CHECK_EQ(ivwl_grants_revert(&g, 1, 7, 8, true, false, &left), 0);
	CHECK(left == gr);
	CHECK(!ivwl_grant_zero_copy(gr));
	ivwl_grants_check(&g, left);
	CHECK_EQ(h.live, 1);	/* its pool still copies into it */
	ivwl_grant_pool_drop(&g, gr);
	CHECK_EQ(h.live, 0);
}

static void
test_gone_freezes(void)
{
	struct ivwl_grants g;
	struct fake_heap h;
	struct ivwl_grant *gr, *left;
	struct ivwl_extent a;

	setup(&g, &h);
	CHECK_EQ(ivwl_grants_offer(&g, 1, 7, 8, 4096, &a), 0);
	gr = ivwl_grants_find(&g, 7, 8);
	ivwl_grant_pool_add(gr);
	CHECK_EQ(ivwl_grants_revert(&g, 1, 7, 8, false, true, &left), 0);
	CHECK(left == NULL);
	/* its pixels are final: still shown where they are */
	CHECK(ivwl_grant_zero_copy(gr));
	CHECK(ivwl_grants_find(&g, 7, 8) == NULL);
	ivwl_grant_pool_drop(&g, gr);
	CHECK_EQ(h.live, 0);

	/* the owner's channel closing freezes its grants the same way */
	CHECK_EQ(ivwl_grants_offer(&g, 3, 1, 2, 4096, &a), 0);
	CHECK_EQ(ivwl_grants_offer(&g, 4, 1, 3, 4096, &a), 0);
	ivwl_grants_owner_gone(&g, 3);
	CHECK_EQ(h.live, 1);
	CHECK(ivwl_grants_find(&g, 1, 3) != NULL);
	ivwl_grants_release(&g);
	CHECK_EQ(h.live, 1);	/* the client still maps the other */
	ivwl_grants_release_all(&g);
	CHECK_EQ(h.live, 0);
}

static void
test_followers(void)
{
	struct ivwl_grants g;
	struct fake_heap h;
	struct ivwl_extent a, b;

	setup(&g, &h);
	CHECK_EQ(ivwl_grants_follow(&g, 7, 8, &b), -ENOENT);
	CHECK_EQ(ivwl_grants_offer(&g, 1, 7, 8, 4096, &a), 0);
	CHECK_EQ(ivwl_grants_follow(&g, 7, 8, &b), 0);
	CHECK_EQ(b.offset, a.offset);
	CHECK_EQ(ivwl_grants_follow(&g, 7, 8, &b), 0);
	ivwl_grants_owner_gone(&g, 1);
	/* two followers map it still */
	CHECK_EQ(h.live, 1);
	CHECK(ivwl_grants_client_maps(&g));
	ivwl_grants_unfollow(&g, 7, 8);
	CHECK_EQ(h.live, 1);
	ivwl_grants_unfollow(&g, 7, 8);
	CHECK_EQ(h.live, 0);
	ivwl_grants_unfollow(&g, 7, 8);	/* one too many: nothing */
	CHECK_EQ(h.live, 0);
}

/* What other processes hold: the relay keeps it under half the heap. */
static void
test_held_by_others(void)
{
	struct ivwl_grants g;
	struct fake_heap h;
	struct ivwl_extent a;
	struct ivwl_grant *gr;

	setup(&g, &h);
	CHECK_EQ(ivwl_grants_offer(&g, 0, 7, 1, 8 << 20, &a), 0);
	CHECK_EQ(ivwl_grants_held_by_others(&g), 0);
	CHECK_EQ(ivwl_grants_offer(&g, 1, 7, 2, 4 << 20, &a), 0);
	CHECK_EQ(ivwl_grants_offer(&g, 2, 7, 3, 1 << 20, &a), 0);
	CHECK_EQ(ivwl_grants_held_by_others(&g), 5 << 20);
	/* a grant left by its process but still drawn from still counts */
	gr = ivwl_grants_find(&g, 7, 2);
	REQUIRE(gr);
	ivwl_grant_pool_add(gr);
	ivwl_grants_owner_gone(&g, 1);
	CHECK_EQ(ivwl_grants_held_by_others(&g), 5 << 20);
	ivwl_grant_pool_drop(&g, gr);
	CHECK_EQ(ivwl_grants_held_by_others(&g), 1 << 20);
	ivwl_grants_release_all(&g);
	CHECK_EQ(ivwl_grants_held_by_others(&g), 0);
}

IVWL_TEST_MAIN(TEST(test_offer), TEST(test_held_by_others), TEST(test_pools_keep_it),
	       TEST(test_gone_freezes), TEST(test_followers))
