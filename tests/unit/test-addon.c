/* SPDX-License-Identifier: MIT */
/*
 * Addons (plugin/addon.c): a subsystem's state on an object it does not
 * own, found by its key and interface, destroyed with the owner.
 */
#include <stdlib.h>

#include "harness.h"
#include "addon.h"

struct note {
	struct ivwl_addon addon;
	int *destroyed;
};

static void
note_destroy(struct ivwl_addon *addon)
{
	struct note *n = wl_container_of(addon, n, addon);

	(*n->destroyed)++;
	free(n);
}

static const struct ivwl_addon_interface note_impl = {
	.name = "note",
	.destroy = note_destroy,
};

static const struct ivwl_addon_interface other_impl = {
	.name = "other",
	.destroy = note_destroy,
};

static struct note *
note_add(struct ivwl_addon_set *set, const void *key,
	 const struct ivwl_addon_interface *impl, int *destroyed)
{
	struct note *n = calloc(1, sizeof(*n));

	REQUIRE(n);
	n->destroyed = destroyed;
	ivwl_addon_init(&n->addon, set, key, impl);
	return n;
}

/* One addon per key and interface: each finds its own. */
static void
test_find_by_key_and_interface(void)
{
	struct ivwl_addon_set set;
	int a, b, destroyed = 0;
	struct note *na, *nb, *nc;

	ivwl_addon_set_init(&set);
	CHECK(!ivwl_addon_find(&set, &a, &note_impl));
	na = note_add(&set, &a, &note_impl, &destroyed);
	nb = note_add(&set, &b, &note_impl, &destroyed);
	nc = note_add(&set, &a, &other_impl, &destroyed);
	CHECK(ivwl_addon_find(&set, &a, &note_impl) == &na->addon);
	CHECK(ivwl_addon_find(&set, &b, &note_impl) == &nb->addon);
	CHECK(ivwl_addon_find(&set, &a, &other_impl) == &nc->addon);
	CHECK(!ivwl_addon_find(&set, &b, &other_impl));
	ivwl_addon_set_finish(&set);
	CHECK_EQ(destroyed, 3);
}

/* A subsystem that goes first takes its addon out: the owner's end
 * destroys only the rest. */
static void
test_finish_before_owner(void)
{
	struct ivwl_addon_set set;
	int a, destroyed = 0;
	struct note *n;

	ivwl_addon_set_init(&set);
	n = note_add(&set, &a, &note_impl, &destroyed);
	note_add(&set, &a, &other_impl, &destroyed);
	ivwl_addon_finish(&n->addon);
	CHECK(!ivwl_addon_find(&set, &a, &note_impl));
	free(n);
	ivwl_addon_set_finish(&set);
	CHECK_EQ(destroyed, 1);
	CHECK(wl_list_empty(&set.addons));
}

IVWL_TEST_MAIN(TEST(test_find_by_key_and_interface),
	       TEST(test_finish_before_owner))
