/* SPDX-License-Identifier: MIT */
/*
 * The copy-mode damage plan (relay/damage-plan.c): which
 * rectangles a buffer's region copy needs after a run of commits.  Each
 * case is a run of commits and a buffer copied at one of them; the plan
 * is checked against rectangles worked out by hand.  Then plans that
 * outgrow IVWL_DAMAGE_PLAN_MAX, and random runs of commits against a
 * pixel map of what each of several copies in rotation missed.
 */
#include <stdint.h>
#include <string.h>

#include "damage-plan.h"
#include "harness.h"

#define MAX_COMMITS 12
#define MAX_RECTS 10
#define BPP 4

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
	uint64_t since;		/* the copy was made at commit since (1 is
				 * the first), 0: before the first */
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
	{ "reattached after 5 commits: their damage", 100, 50,
	  { { 0 }, { .buffer_damage = { R(0, 0, 1, 1) } },
	    { .buffer_damage = { R(1, 0, 1, 1) } },
	    { .buffer_damage = { R(2, 0, 1, 1) } },
	    { .buffer_damage = { R(3, 0, 1, 1) } },
	    { .buffer_damage = { R(4, 0, 1, 1) } }, END },
	  1, false,
	  { R(0, 0, 1, 1), R(1, 0, 1, 1), R(2, 0, 1, 1), R(3, 0, 1, 1),
	    R(4, 0, 1, 1) } },
	{ "a full commit in between: all of it", 100, 50,
	  { { 0 }, { .buffer_damage = { R(0, 0, 1, 1) } },
	    { .width = 60, .height = 50 },
	    { .width = 100, .height = 50,
	      .buffer_damage = { R(0, 0, 1, 1) } }, END },
	  1, true, { { 0 } } },
	{ "copied at the latest commit: nothing", 100, 50,
	  { { 0 }, { .buffer_damage = { R(0, 0, 1, 1) } }, END },
	  2, false, { { 0 } } },
	{ "a full commit before the copy: only what came after", 100, 50,
	  { { 0 }, { .width = 60, .height = 50 }, { 0 },
	    { .buffer_damage = { R(0, 0, 1, 1) } }, END },
	  3, false, { R(0, 0, 1, 1) } },

	/* many buffers in rotation (firefox: 4 to 9) */
	{ "9 buffers in rotation, one box each commit: the box", 1920, 1080,
	  { { 0 }, { .buffer_damage = { R(0, 85, 512, 256) } },
	    { .buffer_damage = { R(0, 85, 512, 256) } },
	    { .buffer_damage = { R(0, 85, 512, 256) } },
	    { .buffer_damage = { R(0, 85, 512, 256) } },
	    { .buffer_damage = { R(0, 85, 512, 256) } },
	    { .buffer_damage = { R(0, 85, 512, 256) } },
	    { .buffer_damage = { R(0, 85, 512, 256) } },
	    { .buffer_damage = { R(0, 85, 512, 256) } },
	    { .buffer_damage = { R(0, 85, 512, 256) } }, END },
	  1, false, { R(0, 85, 512, 256) } },
	{ "4 buffers, an empty commit after each: the boxes", 1920, 1080,
	  { { 0 }, { .buffer_damage = { R(0, 0, 64, 64) } }, { 0 },
	    { .buffer_damage = { R(64, 0, 64, 64) } }, { 0 },
	    { .buffer_damage = { R(128, 0, 64, 64) } }, { 0 },
	    { .buffer_damage = { R(192, 0, 64, 64) } }, { 0 }, END },
	  1, false,
	  { R(0, 0, 64, 64), R(64, 0, 64, 64), R(128, 0, 64, 64),
	    R(192, 0, 64, 64) } },
	{ "9 buffers, a box moving: the 9 boxes", 1920, 1080,
	  { { 0 }, { .buffer_damage = { R(0, 0, 64, 64) } },
	    { .buffer_damage = { R(53, 37, 64, 64) } },
	    { .buffer_damage = { R(106, 74, 64, 64) } },
	    { .buffer_damage = { R(159, 111, 64, 64) } },
	    { .buffer_damage = { R(212, 148, 64, 64) } },
	    { .buffer_damage = { R(265, 185, 64, 64) } },
	    { .buffer_damage = { R(318, 222, 64, 64) } },
	    { .buffer_damage = { R(371, 259, 64, 64) } },
	    { .buffer_damage = { R(424, 296, 64, 64) } }, END },
	  1, false,
	  { R(0, 0, 64, 64), R(53, 37, 64, 64), R(106, 74, 64, 64),
	    R(159, 111, 64, 64), R(212, 148, 64, 64), R(265, 185, 64, 64),
	    R(318, 222, 64, 64), R(371, 259, 64, 64),
	    R(424, 296, 64, 64) } },
	{ "11 commits, the whole page then a box: the page", 1920, 1080,
	  { { 0 }, { .buffer_damage = { R(0, 0, 1920, 1080) } },
	    { .buffer_damage = { R(8, 8, 64, 64) } }, { 0 }, { 0 }, { 0 },
	    { 0 }, { 0 }, { 0 }, { 0 },
	    { .buffer_damage = { R(8, 8, 64, 64) } }, END },
	  1, false, { R(0, 0, 1920, 1080) } },

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

/* Commits c with a buffer of the case's size unless c says another. */
static const struct ivwl_damage *
commit(struct ivwl_damage_tracker *t, const struct plan_case *pc,
       const struct commit *c)
{
	struct ivwl_buffer_view v = IVWL_BUFFER_VIEW_IDENTITY;

	v.scale = c->scale ? c->scale : 1;
	v.transform = c->transform;
	add_all(&t->pending_buffer, c->buffer_damage);
	add_all(&t->pending_surface, c->surface_damage);
	return ivwl_damage_commit(t, &v, c->width ? c->width : pc->width,
				  c->height ? c->height : pc->height);
}

static void
run_case(const struct plan_case *pc)
{
	struct ivwl_damage_tracker t;
	struct ivwl_damage_plan p;
	const struct ivwl_damage *d;
	uint32_t i, want_n = 0;

	ivwl_damage_tracker_init(&t);
	ivwl_damage_plan_clear(&p);
	for (i = 0; i < MAX_COMMITS && pc->commits[i].width >= 0; i++) {
		d = commit(&t, pc, &pc->commits[i]);
		if (i + 1 > pc->since)
			ivwl_damage_plan_add(&p, d);
	}
	while (want_n < MAX_RECTS && pc->want[want_n].w)
		want_n++;
	if (p.full != pc->whole) {
		fprintf(stderr, "%s: the plan is %s\n", pc->what,
			p.full ? "all of it" : "rectangles");
		ivwl_test_failures++;
		return;
	}
	if (p.full)
		return;
	if (p.n != want_n) {
		fprintf(stderr, "%s: %u rectangles, want %u\n", pc->what, p.n,
			want_n);
		ivwl_test_failures++;
		return;
	}
	for (i = 0; i < p.n; i++) {
		if (memcmp(&p.rects[i], &pc->want[i], sizeof(p.rects[i])) !=
		    0) {
			fprintf(stderr,
				"%s: rectangle %u is %d,%d %dx%d, want "
				"%d,%d %dx%d\n",
				pc->what, i, p.rects[i].x, p.rects[i].y,
				p.rects[i].w, p.rects[i].h, pc->want[i].x,
				pc->want[i].y, pc->want[i].w, pc->want[i].h);
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

/*
 * 33 points 10 apart in one row, 8 a commit: the 33rd merges with its
 * nearest, the 32nd (the least growth), and the merged box comes last.
 */
static void
test_plan_overflow(void)
{
	struct ivwl_damage_plan p;
	struct ivwl_damage d;
	uint32_t i;

	ivwl_damage_plan_clear(&p);
	for (i = 0; i < 33; i++) {
		if (i % 8 == 0)
			memset(&d, 0, sizeof(d));
		ivwl_damage_add(&d, (struct ivwl_rect){ (int32_t)i * 10, 0, 1,
							1 });
		if (i % 8 == 7 || i == 32)
			ivwl_damage_plan_add(&p, &d);
	}
	CHECK(!p.full);
	CHECK_EQ(p.n, IVWL_DAMAGE_PLAN_MAX);
	for (i = 0; i + 1 < p.n; i++) {
		CHECK_EQ(p.rects[i].x, i * 10);
		CHECK_EQ(p.rects[i].w, 1);
	}
	CHECK_EQ(p.rects[31].x, 310);
	CHECK_EQ(p.rects[31].w, 11);
	CHECK_EQ(p.rects[31].h, 1);

	/* A box over all of them: it alone is left. */
	memset(&d, 0, sizeof(d));
	ivwl_damage_add(&d, (struct ivwl_rect){ 0, 0, 400, 2 });
	ivwl_damage_plan_add(&p, &d);
	CHECK_EQ(p.n, 1);
	CHECK_EQ(p.rects[0].w, 400);

	/* A full commit makes it all, and nothing undoes that. */
	d.full = true;
	ivwl_damage_plan_add(&p, &d);
	d.full = false;
	ivwl_damage_plan_add(&p, &d);
	CHECK(p.full);
	ivwl_damage_plan_clear(&p);
	CHECK(!p.full);
	CHECK_EQ(p.n, 0);
}

/* xorshift32: the same runs every time */
static uint32_t
next_random(uint32_t *state)
{
	uint32_t x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *state = x;
}

#define RW 128
#define RH 80
#define COPIES 9
#define RANDOM_COMMITS 1500

static bool
rect_has(struct ivwl_rect r, int x, int y)
{
	return x >= r.x && y >= r.y && x - r.x < r.w && y - r.y < r.h;
}

static bool
plan_covers(const struct ivwl_damage_plan *p, int x, int y)
{
	uint32_t i;

	for (i = 0; i < p->n; i++)
		if (rect_has(p->rects[i], x, y))
			return true;
	return false;
}

static bool
rect_inside(struct ivwl_rect in, struct ivwl_rect out)
{
	return in.x >= out.x && in.y >= out.y &&
	       (int64_t)in.x + in.w <= (int64_t)out.x + out.w &&
	       (int64_t)in.y + in.h <= (int64_t)out.y + out.h;
}

/* Marks the pixels of r inside the buffer. */
static void
mark(bool missed[RH][RW], struct ivwl_rect r)
{
	int x, y;

	for (y = r.y > 0 ? r.y : 0; y < RH && y - r.y < r.h; y++)
		for (x = r.x > 0 ? r.x : 0; x < RW && x - r.x < r.w; x++)
			missed[y][x] = true;
}

/* Checks the plan of the copy that missed what missed says. */
static int
check_plan(const struct ivwl_damage_plan *p, bool saw_full,
	   bool missed[RH][RW], uint64_t *planned, uint64_t *damaged)
{
	struct ivwl_damage clipped = { 0 };
	int x, y, bad = 0;
	uint32_t i, j;

	if (p->full != saw_full)
		return 1;
	if (p->full)
		return 0;
	for (i = 0; i < p->n; i++)
		for (j = 0; j < p->n; j++)
			if (j != i && rect_inside(p->rects[i], p->rects[j]))
				bad++;
	for (y = 0; y < RH; y++) {
		for (x = 0; x < RW; x++) {
			*damaged += missed[y][x];
			if (missed[y][x] && !plan_covers(p, x, y))
				bad++;
		}
	}
	for (i = 0; i < p->n; i++) {
		clipped.n = 1;
		clipped.rects[0] = p->rects[i];
		*planned += ivwl_damage_bytes(&clipped, RW, RH, 1);
	}
	return bad;
}

/*
 * Random damage (0 to 10 rectangles a commit, some reaching past the
 * buffer, now and then a full commit) on one surface whose buffers
 * rotate, COPIES of them, as the relay does it: each commit adds its
 * damage to every copy's plan, then the committed copy is filled from
 * its plan.  Each plan must cover every pixel its copy missed, hold no
 * rectangle inside another, and be all of it exactly when a full commit
 * came since.
 */
static void
test_plan_random(void)
{
	static bool missed[COPIES][RH][RW];
	struct ivwl_damage_plan plans[COPIES];
	bool saw_full[COPIES] = { false };
	struct ivwl_damage_tracker t;
	uint32_t seed = 0x1d5c0ffe, c, i, k, n;
	uint64_t planned = 0, damaged = 0;
	int bad = 0;

	ivwl_damage_tracker_init(&t);
	for (k = 0; k < COPIES; k++)
		ivwl_damage_plan_clear(&plans[k]);
	memset(missed, 0, sizeof(missed));
	for (c = 0; c < RANDOM_COMMITS; c++) {
		struct ivwl_buffer_view v = IVWL_BUFFER_VIEW_IDENTITY;
		const struct ivwl_damage *d;
		int32_t width = RW;

		n = next_random(&seed) % 11;
		for (i = 0; i < n; i++) {
			struct ivwl_rect r = {
				(int32_t)(next_random(&seed) % (RW + 8)) - 4,
				(int32_t)(next_random(&seed) % (RH + 8)) - 4,
				(int32_t)(next_random(&seed) % 16) + 1,
				(int32_t)(next_random(&seed) % 12) + 1 };

			ivwl_damage_add(&t.pending_buffer, r);
		}
		if (next_random(&seed) % 300 == 0)
			width = RW - 1;	/* a new size: a full commit */
		d = ivwl_damage_commit(&t, &v, width, RH);
		for (k = 0; k < COPIES; k++) {
			ivwl_damage_plan_add(&plans[k], d);
			saw_full[k] |= d->full;
			for (i = 0; i < d->n; i++)
				mark(missed[k], d->rects[i]);
		}
		k = c % COPIES;
		bad += check_plan(&plans[k], saw_full[k], missed[k], &planned,
				  &damaged);
		ivwl_damage_plan_clear(&plans[k]);
		saw_full[k] = false;
		memset(missed[k], 0, sizeof(missed[k]));
	}
	CHECK_EQ(bad, 0);
	/* Bounding boxes and merges copy more than was damaged. */
	printf("random plans: %llu pixels planned for %llu damaged\n",
	       (unsigned long long)planned, (unsigned long long)damaged);
	CHECK(damaged > 0 && planned >= damaged);
}

IVWL_TEST_MAIN(TEST(test_plans), TEST(test_damage_bytes),
	       TEST(test_plan_overflow), TEST(test_plan_random))
