/* SPDX-License-Identifier: MIT */
/*
 * The clipboard policy's values and its one rule (plugin/
 * clipboard-policy.c): what crosses between which parties.
 */
#include <string.h>

#include "clipboard-policy.h"
#include "harness.h"

static struct ivwl_clip_policy
policy(const char *selection, const char *drag)
{
	struct ivwl_clip_policy p = { { 0 } };

	REQUIRE(ivwl_clip_mode_parse(selection, &p.mode[IVWL_CLIP_SELECTION]));
	REQUIRE(ivwl_clip_mode_parse(drag, &p.mode[IVWL_CLIP_DRAG]));
	return p;
}

static void
test_values(void)
{
	static const char *const names[] = {
		"isolated", "import", "export", "shared",
	};
	uint8_t mode = 99;
	unsigned int i;

	for (i = 0; i < 4; i++) {
		CHECK(ivwl_clip_mode_parse(names[i], &mode));
		CHECK(strcmp(ivwl_clip_mode_name(mode), names[i]) == 0);
	}
	mode = 99;
	CHECK(!ivwl_clip_mode_parse("Shared", &mode));
	CHECK(!ivwl_clip_mode_parse("", &mode));
	CHECK(!ivwl_clip_mode_parse("shared ", &mode));
	CHECK_EQ(mode, 99);
}

/* Every pair of VM policies: crosses iff from exports and to imports. */
static void
test_between_vms(void)
{
	static const char *const names[] = {
		"isolated", "import", "export", "shared",
	};
	struct ivwl_clip_policy from, to;
	unsigned int i, j;
	bool exports, imports;

	for (i = 0; i < 4; i++) {
		for (j = 0; j < 4; j++) {
			from = policy(names[i], "isolated");
			to = policy(names[j], "isolated");
			exports = i == 2 || i == 3;
			imports = j == 1 || j == 3;
			CHECK_EQ(ivwl_clip_policy_allows(&from, &to,
							 IVWL_CLIP_SELECTION),
				 exports && imports);
			/* the drag's key is its own */
			CHECK(!ivwl_clip_policy_allows(&from, &to,
						       IVWL_CLIP_DRAG));
			/* one VM is one party */
			CHECK(ivwl_clip_policy_allows(&from, &from,
						      IVWL_CLIP_SELECTION));
		}
	}
}

static void
test_local(void)
{
	struct ivwl_clip_policy isolated = policy("isolated", "isolated");
	struct ivwl_clip_policy import = policy("import", "export");

	/* local clients read everything; theirs count as exported */
	CHECK(ivwl_clip_policy_allows(&isolated, NULL, IVWL_CLIP_SELECTION));
	CHECK(ivwl_clip_policy_allows(&isolated, NULL, IVWL_CLIP_DRAG));
	CHECK(!ivwl_clip_policy_allows(NULL, &isolated,
				       IVWL_CLIP_SELECTION));
	CHECK(ivwl_clip_policy_allows(NULL, &import, IVWL_CLIP_SELECTION));
	CHECK(!ivwl_clip_policy_allows(NULL, &import, IVWL_CLIP_DRAG));
}

static void
test_primary_global(void)
{
	struct ivwl_clip_policy p = { { 0 } };
	const char *g = "zwp_primary_selection_device_manager_v1";

	CHECK(ivwl_clip_policy_hides(&p, g));
	p.mode[IVWL_CLIP_PRIMARY] = IVWL_CLIP_SHARED;
	CHECK(!ivwl_clip_policy_hides(&p, g));
	p.mode[IVWL_CLIP_PRIMARY] = IVWL_CLIP_ISOLATED;
	CHECK(!ivwl_clip_policy_hides(&p, "wl_data_device_manager"));
}

/* weston.ini's values: the primary selection takes only all or nothing. */
static void
test_set_from_config(void)
{
	struct ivwl_clip_policy p = { { 0 } };
	const char *choices = NULL;

	CHECK(ivwl_clip_policy_set(&p, IVWL_CLIP_SELECTION, "import",
				   &choices));
	CHECK_EQ(p.mode[IVWL_CLIP_SELECTION], IVWL_CLIP_IMPORT);
	CHECK(!ivwl_clip_policy_set(&p, IVWL_CLIP_PRIMARY, "export",
				    &choices));
	CHECK(choices && strcmp(choices, "isolated, shared") == 0);
	CHECK_EQ(p.mode[IVWL_CLIP_PRIMARY], IVWL_CLIP_ISOLATED);
	CHECK(ivwl_clip_policy_set(&p, IVWL_CLIP_PRIMARY, "shared",
				   &choices));
	CHECK(!ivwl_clip_policy_set(&p, IVWL_CLIP_DRAG, "yes", &choices));
	CHECK(strcmp(ivwl_clip_policy_key(IVWL_CLIP_DRAG), "drag-and-drop") ==
	      0);
}

IVWL_TEST_MAIN(TEST(test_values),
	       TEST(test_set_from_config),
	       TEST(test_between_vms),
	       TEST(test_local),
	       TEST(test_primary_global))
