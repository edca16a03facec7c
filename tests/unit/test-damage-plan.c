/* SPDX-License-Identifier: MIT */
/*
 * The copy-mode damage plan (client-shim/damage-plan.c): which
 * rectangles a buffer's region copy needs after a run of commits.  Each
 * case is a run of commits and a buffer copied at one of them; the plan
 * is checked against rectangles worked out by hand.
 */
#include <string.h>

#include "damage-plan.h"
#include "harness.h"

#define MAX_COMMITS 8
#define MAX_RECTS 10

enum { NORMAL, R90, R180, R270 };

struct commit {
	int32_t scale, transform;	/* 0: as before (scale 1, normal) */
	int32_t width, height;		/* the buffer; 0: the case's size */
	struct ivwl_rect buffer_damage[MAX_RECTS];	/* w == 0 ends */
	struct ivwl_rect surface_damage[MAX_RECTS];
};

struct plan_case {
	const char *what;
	int32_t width, height;
	struct commit commits[MAX_COMMITS];	/* width < 0 ends */
	uint64_t since;				/* the copy was made then */
	bool whole;				/* the plan: all of it */
	struct ivwl_rect want[MAX_RECTS];	/* else these */
};

/* clang-format off */
#define END { .width = -1 }
#define R(x, y, w, h) { x, y, w, h }

static const struct plan_case plan_cases[] = {
	{ "first commit: all of it", 100, 50,
	  { { .buffer_damage = { R(0, 0, 10, 10) } }, END },
	  0, true, { { 0 } } },
	{ "one damaged rectangle", 100, 50,
	  { { 0 }, { .buffer_damage = { R(5, 6, 7, 8) } }, END },
	  1, false, { R(5, 6, 7, 8) } },
	{ "nothing damaged: nothing copied", 100, 50,
	  { { 0 }, { 0 }, END }, 1, false, { { 0 } } },
	{ "a rectangle inside another goes with it", 100, 50,
	  { { 0 },
	    { .buffer_damage = { R(10, 10, 5, 5), R(0, 0, 50, 50) } },
	    END },
	  1, false, { R(0, 0, 50, 50) } },
	{ "inside one of an earlier commit", 100, 50,
	  { { 0 }, { .buffer_damage = { R(0, 0, 50, 50) } },
	    { .buffer_damage = { R(10, 10, 5, 5) } }, END },
	  1, false, { R(0, 0, 50, 50) } },
	{ "equal rectangles: copied once", 100, 50,
	  { { 0 }, { .buffer_damage = { R(1, 2, 3, 4) } },
	    { .buffer_damage = { R(1, 2, 3, 4) } }, END },
	  1, false, { R(1, 2, 3, 4) } },
	{ "overlapping, not contained: both", 100, 50,
	  { { 0 }, { .buffer_damage = { R(0, 0, 10, 10), R(5, 5, 10, 10) } },
	    END },
	  1, false, { R(0, 0, 10, 10), R(5, 5, 10, 10) } },
	{ "negative origin clipped to 0", 100, 50,
	  { { 0 }, { .buffer_damage = { R(-5, -5, 10, 10) } }, END },
	  1, false, { R(0, 0, 5, 5) } },
	{ "past 8 rectangles: their bounding box", 100, 50,
	  { { 0 },
	    { .buffer_damage = { R(0, 0, 1, 1), R(2, 0, 1, 1),
				 R(4, 0, 1, 1), R(6, 0, 1, 1),
				 R(8, 0, 1, 1), R(10, 0, 1, 1),
				 R(12, 0, 1, 1), R(14, 0, 1, 1),
				 R(16, 3, 1, 1) } },
	    END },
	  1, false, { R(0, 0, 17, 4) } },

	/* reattached: double and triple buffering */
	{ "reattached after 2 commits: both commits' damage", 100, 50,
	  { { 0 }, { .buffer_damage = { R(0, 0, 10, 10) } },
	    { .buffer_damage = { R(20, 20, 10, 10) } }, END },
	  1, false, { R(0, 0, 10, 10), R(20, 20, 10, 10) } },
	{ "reattached after 4 commits: still kept", 100, 50,
	  { { 0 }, { .buffer_damage = { R(0, 0, 1, 1) } },
	    { .buffer_damage = { R(1, 0, 1, 1) } },
	    { .buffer_damage = { R(2, 0, 1, 1) } },
	    { .buffer_damage = { R(3, 0, 1, 1) } }, END },
	  1, false,
	  { R(0, 0, 1, 1), R(1, 0, 1, 1), R(2, 0, 1, 1), R(3, 0, 1, 1) } },
	{ "reattached after 5 commits: history overflowed", 100, 50,
	  { { 0 }, { .buffer_damage = { R(0, 0, 1, 1) } },
	    { .buffer_damage = { R(1, 0, 1, 1) } },
	    { .buffer_damage = { R(2, 0, 1, 1) } },
	    { .buffer_damage = { R(3, 0, 1, 1) } },
	    { .buffer_damage = { R(4, 0, 1, 1) } }, END },
	  1, true, { { 0 } } },
	{ "a full commit in between: all of it", 100, 50,
	  { { 0 }, { .buffer_damage = { R(0, 0, 1, 1) } },
	    { .width = 60, .height = 50 },
	    { .width = 100, .height = 50,
	      .buffer_damage = { R(0, 0, 1, 1) } }, END },
	  1, true, { { 0 } } },
	{ "copied at the latest commit: nothing", 100, 50,
	  { { 0 }, { .buffer_damage = { R(0, 0, 1, 1) } }, END },
	  2, false, { { 0 } } },
	{ "a copy from the future: all of it", 100, 50,
	  { { 0 }, END }, 5, true, { { 0 } } },

	/* surface damage through transforms and scales */
	{ "scale 2: surface damage doubled", 200, 100,
	  { { .scale = 2 },
	    { .scale = 2, .surface_damage = { R(10, 5, 20, 10) } }, END },
	  1, false, { R(20, 10, 40, 20) } },
	{ "90: surface damage rotated", 100, 50,
	  { { .transform = R90 },
	    { .transform = R90, .surface_damage = { R(10, 5, 20, 10) } },
	    END },
	  1, false, { R(5, 20, 10, 20) } },
	{ "180 at scale 2", 200, 100,
	  { { .scale = 2, .transform = R180 },
	    { .scale = 2, .transform = R180,
	      .surface_damage = { R(10, 5, 20, 10) } }, END },
	  1, false, { R(140, 70, 40, 20) } },
	{ "buffer and surface damage together", 200, 100,
	  { { .scale = 2 },
	    { .scale = 2, .buffer_damage = { R(0, 0, 4, 4) },
	      .surface_damage = { R(10, 5, 20, 10) } }, END },
	  1, false, { R(0, 0, 4, 4), R(20, 10, 40, 20) } },
	{ "the transform changed: all of it", 100, 50,
	  { { 0 },
	    { .transform = R270, .buffer_damage = { R(0, 0, 1, 1) } },
	    END },
	  1, true, { { 0 } } },
	{ "the scale changed: all of it", 100, 50,
	  { { 0 }, { .scale = 2, .buffer_damage = { R(0, 0, 1, 1) } },
	    END },
	  1, true, { { 0 } } },
	{ "the buffer size changed: all of it", 100, 50,
	  { { 0 }, { .width = 100, .height = 60 }, END },
	  1, true, { { 0 } } },
	{ "a scale the protocol refuses: all of it", 100, 50,
	  { { .scale = -1 },
	    { .scale = -1, .surface_damage = { R(0, 0, 1, 1) } }, END },
	  1, true, { { 0 } } },
};
/* clang-format on */

static void
add_all(struct ivwl_damage *d, const struct ivwl_rect *rects)
{
	uint32_t i;

	for (i = 0; i < MAX_RECTS && rects[i].w; i++)
		ivwl_damage_add(d, rects[i]);
}

static void
run_case(const struct plan_case *pc)
{
	struct ivwl_rect plan[IVWL_DAMAGE_PLAN_MAX];
	struct ivwl_damage_history h;
	uint32_t n, i, want_n = 0;
	bool ok;

	ivwl_damage_history_init(&h);
	for (i = 0; i < MAX_COMMITS && pc->commits[i].width >= 0; i++) {
		const struct commit *c = &pc->commits[i];
		struct ivwl_buffer_view v = IVWL_BUFFER_VIEW_IDENTITY;

		v.scale = c->scale ? c->scale : 1;
		v.transform = c->transform;
		add_all(&h.pending_buffer, c->buffer_damage);
		add_all(&h.pending_surface, c->surface_damage);
		ivwl_damage_commit(&h, &v, c->width ? c->width : pc->width,
				   c->height ? c->height : pc->height);
	}
	ok = ivwl_damage_plan(&h, pc->since, plan, &n);
	while (want_n < MAX_RECTS && pc->want[want_n].w)
		want_n++;
	if (ok == pc->whole) {
		fprintf(stderr, "%s: the plan is %s\n", pc->what,
			ok ? "rectangles" : "all of it");
		ivwl_test_failures++;
		return;
	}
	if (!ok)
		return;
	if (n != want_n) {
		fprintf(stderr, "%s: %u rectangles, want %u\n", pc->what, n,
			want_n);
		ivwl_test_failures++;
		return;
	}
	for (i = 0; i < n; i++) {
		if (memcmp(&plan[i], &pc->want[i], sizeof(plan[i])) != 0) {
			fprintf(stderr,
				"%s: rectangle %u is %d,%d %dx%d, want "
				"%d,%d %dx%d\n",
				pc->what, i, plan[i].x, plan[i].y, plan[i].w,
				plan[i].h, pc->want[i].x, pc->want[i].y,
				pc->want[i].w, pc->want[i].h);
			ivwl_test_failures++;
		}
	}
}

static void
test_plans(void)
{
	size_t i;

	for (i = 0; i < sizeof(plan_cases) / sizeof(plan_cases[0]); i++)
		run_case(&plan_cases[i]);
}

static void
test_damage_bytes(void)
{
	struct ivwl_damage d = { 0 };

	ivwl_damage_add(&d, (struct ivwl_rect){ 0, 0, 10, 10 });
	ivwl_damage_add(&d, (struct ivwl_rect){ 95, 45, 10, 10 });
	/* 100 + the 5x5 inside a 100x50 buffer, 4 bytes a pixel */
	CHECK_EQ(ivwl_damage_bytes(&d, 100, 50, 4), (100 + 25) * 4);
	d.full = true;
	CHECK_EQ(ivwl_damage_bytes(&d, 100, 50, 4), 100 * 50 * 4);
}

IVWL_TEST_MAIN(TEST(test_plans), TEST(test_damage_bytes))
