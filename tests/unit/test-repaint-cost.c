/* SPDX-License-Identifier: MIT */
/*
 * The cost model of a VM's share of weston's repaints
 * (plugin/repaint-cost.c, docs/security.md "Repaint share"): what a
 * window's surface tree would draw inside its box, when that is too
 * deep, and which window a VM over its share may still show.
 */
#include <stdint.h>
#include <stdlib.h>

#include <libweston/libweston.h>
#include "weston-compat.h"

#include "harness.h"
#include "ivwl-limits.h"
#include "mono-time.h"
#include "repaint-cost.h"

#define OUTPUT_PX (800u * 600u)

static struct weston_surface *
surface(int32_t width, int32_t height)
{
	struct weston_surface *s = calloc(1, sizeof(*s));

	s->width = width;
	s->height = height;
	wl_list_init(&s->subsurface_list);
	return s;
}

/* weston lists a parent with children as an entry of its own list */
static void
add_self(struct weston_surface *parent)
{
	struct weston_subsurface *sub = calloc(1, sizeof(*sub));

	sub->surface = parent;
	wl_list_insert(&parent->subsurface_list, &sub->parent_link);
}

static struct weston_surface *
child(struct weston_surface *parent, int32_t x, int32_t y, int32_t width,
      int32_t height)
{
	struct weston_subsurface *sub = calloc(1, sizeof(*sub));

	if (wl_list_empty(&parent->subsurface_list))
		add_self(parent);
	sub->surface = surface(width, height);
	sub->parent = parent;
	ivwl_subsurface_set_pos(sub, x, y);
	wl_list_insert(parent->subsurface_list.prev, &sub->parent_link);
	return sub->surface;
}

static void
tree_free(struct weston_surface *s)
{
	struct weston_subsurface *sub, *tmp;

	wl_list_for_each_safe(sub, tmp, &s->subsurface_list, parent_link) {
		if (sub->surface != s)
			tree_free(sub->surface);
		free(sub);
	}
	free(s);
}

static struct ivwl_window_cost
window(struct ivwl_vm *vm, struct weston_surface *s)
{
	struct ivwl_window_cost w = { .vm = vm, .window = s };

	ivwl_repaint_estimate(&w);
	return w;
}

static void
test_layers_up_to_the_depth(void)
{
	struct weston_surface *top = surface(100, 100);
	struct ivwl_window_cost w;
	int i;

	w = window(NULL, top);
	CHECK_EQ(w.estimate_px, 10000);
	CHECK_EQ(w.estimate_views, 1);
	CHECK(!ivwl_repaint_too_deep(&w));
	for (i = 1; i < (int)IVWL_REPAINT_WINDOW_DEPTH; i++)
		child(top, 0, 0, 100, 100);
	w = window(NULL, top);
	CHECK_EQ(w.estimate_px, IVWL_REPAINT_WINDOW_DEPTH * 10000);
	CHECK(!ivwl_repaint_too_deep(&w));
	child(top, 0, 0, 100, 100);
	w = window(NULL, top);
	CHECK(ivwl_repaint_too_deep(&w));
	tree_free(top);
}

static void
test_only_the_box_counts(void)
{
	struct weston_surface *top = surface(100, 100), *a;
	struct ivwl_window_cost w;

	child(top, 50, 50, 100, 100);		/* a quarter inside */
	child(top, -1000, 0, 500, 500);		/* all outside */
	child(top, 0, 0, 0, 0);			/* no content */
	a = child(top, 90, 0, 10, 10);		/* inside, and its child */
	child(a, -95, 0, 10, 10);		/* half outside, at -5 */
	w = window(NULL, top);
	CHECK_EQ(w.estimate_px, 10000 + 2500 + 0 + 100 + 50);
	CHECK_EQ(w.estimate_views, 5);
	tree_free(top);
}

static void
test_positions_add_up_without_overflow(void)
{
	struct weston_surface *top = surface(100, 100), *a;
	struct ivwl_window_cost w;

	a = child(top, INT32_MAX, INT32_MAX, 100, 100);
	child(a, INT32_MAX, INT32_MAX, 100, 100);
	a = child(top, INT32_MIN, INT32_MIN, 100, 100);
	child(a, INT32_MIN, INT32_MIN, 100, 100);
	w = window(NULL, top);
	CHECK_EQ(w.estimate_px, 10000);
	CHECK_EQ(w.estimate_views, 5);
	tree_free(top);
}

static void
test_views_and_nesting_bounded(void)
{
	struct weston_surface *top = surface(1000, 1000), *s;
	struct ivwl_window_cost w;
	int i;

	for (i = 1; i < (int)IVWL_REPAINT_WINDOW_VIEWS; i++)
		child(top, i, 0, 1, 1);
	w = window(NULL, top);
	CHECK_EQ(w.estimate_views, IVWL_REPAINT_WINDOW_VIEWS);
	CHECK(!ivwl_repaint_too_deep(&w));
	child(top, 0, 0, 1, 1);
	w = window(NULL, top);
	CHECK(ivwl_repaint_too_deep(&w));
	tree_free(top);

	/* a chain deeper than the walk goes is too deep, whatever its size */
	top = surface(1000, 1000);
	for (s = top, i = 0; i <= IVWL_REPAINT_TREE_DEPTH; i++)
		s = child(s, 0, 0, 1, 1);
	w = window(NULL, top);
	CHECK(ivwl_repaint_too_deep(&w));
	tree_free(top);
}

static void
test_admit_only_when_hot(void)
{
	struct ivwl_vm_share sh = { 0 };
	struct weston_surface *big = surface(400, 250), *other = surface(400,
									   250);
	struct ivwl_window_cost a, b;

	sh.output_px = OUTPUT_PX;
	sh.px = IVWL_REPAINT_VM_AREA * OUTPUT_PX - 50000;
	sh.pass = 7;
	a = window(NULL, big);
	b = window(NULL, other);
	/* never over its share: anything shows, nothing is counted */
	CHECK(ivwl_repaint_admit(&sh, &a));
	CHECK_EQ(sh.pending_px, 0);

	/* over it lately: 100000 more pixels do not fit beside the rest */
	sh.hot_until_ms = (uint64_t)ivwl_now_ms() + 1000;
	CHECK(!ivwl_repaint_admit(&sh, &a));
	/* ...unless they replace what the window drew in that repaint */
	a.pass = 7;
	a.px = 60000;
	CHECK(ivwl_repaint_admit(&sh, &a));
	CHECK_EQ(sh.pending_px, 100000);
	/* what was admitted counts for the next one */
	b.pass = 7;
	b.px = 60000;
	CHECK(!ivwl_repaint_admit(&sh, &b));
	/* a window drawn in an older repaint replaces nothing */
	sh.pending_px = 0;
	b.pass = 6;
	CHECK(!ivwl_repaint_admit(&sh, &b));
	tree_free(big);
	tree_free(other);
}

static void
test_admit_views_only_if_a_veil_spares_some(void)
{
	struct ivwl_vm_share sh = { 0 };
	struct weston_surface *one = surface(1, 1), *two = surface(1, 1);
	struct ivwl_window_cost a, b;

	child(two, 0, 0, 1, 1);
	sh.output_px = OUTPUT_PX;
	sh.views = IVWL_REPAINT_VM_VIEWS + 10;
	sh.hot_until_ms = (uint64_t)ivwl_now_ms() + 1000;
	a = window(NULL, one);
	b = window(NULL, two);
	/* a veil would be one view as well */
	CHECK(ivwl_repaint_admit(&sh, &a));
	CHECK(!ivwl_repaint_admit(&sh, &b));
	tree_free(one);
	tree_free(two);
}

/* A layer drawn rotated or scaled costs IVWL_REPAINT_TRANSFORMED_COST
 * blends a pixel; one cropped or sized 1:1 costs one. */
static void
test_transformed_costs_more(void)
{
	struct weston_surface *top = surface(100, 100);
	struct weston_surface *turned = child(top, 0, 0, 100, 100);
	struct weston_surface *scaled = child(top, 0, 0, 100, 100);
	struct weston_surface *same = child(top, 0, 0, 100, 100);
	struct ivwl_window_cost w;

	turned->buffer_viewport.buffer.transform = WL_OUTPUT_TRANSFORM_90;
	/* a destination 4 times its 50x50 source */
	scaled->buffer_viewport.surface.width = 100;
	scaled->buffer_viewport.surface.height = 100;
	scaled->buffer_viewport.buffer.src_width = wl_fixed_from_int(50);
	scaled->buffer_viewport.buffer.src_height = wl_fixed_from_int(50);
	/* a destination as large as its source */
	same->buffer_viewport.surface.width = 100;
	same->buffer_viewport.surface.height = 100;
	same->buffer_viewport.buffer.src_width = wl_fixed_from_int(100);
	same->buffer_viewport.buffer.src_height = wl_fixed_from_int(100);
	w = window(NULL, top);
	CHECK_EQ(w.estimate_views, 4);
	CHECK_EQ(w.estimate_px,
		 (2 + 2 * IVWL_REPAINT_TRANSFORMED_COST) * 100u * 100u);
	CHECK_EQ(ivwl_repaint_weight(same), 1);
	CHECK_EQ(ivwl_repaint_weight(turned), IVWL_REPAINT_TRANSFORMED_COST);
	tree_free(top);
}

/* A popup's tree adds what it draws inside the window's box. */
static void
test_popups_count(void)
{
	struct weston_surface *top = surface(100, 100);
	struct weston_surface *popup = surface(80, 80);
	struct ivwl_window_cost w = window(NULL, top);

	child(popup, 0, 0, 80, 80);
	ivwl_repaint_estimate_add(&w, popup, 50, 50);
	CHECK_EQ(w.estimate_views, 3);
	CHECK_EQ(w.estimate_px, 100u * 100u + 2u * 50u * 50u);
	tree_free(top);
	tree_free(popup);
}

IVWL_TEST_MAIN(
	TEST(test_layers_up_to_the_depth),
	TEST(test_transformed_costs_more),
	TEST(test_popups_count),
	TEST(test_only_the_box_counts),
	TEST(test_positions_add_up_without_overflow),
	TEST(test_views_and_nesting_bounded),
	TEST(test_admit_only_when_hot),
	TEST(test_admit_views_only_if_a_veil_spares_some),
)
