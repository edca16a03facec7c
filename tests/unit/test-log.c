/* SPDX-License-Identifier: MIT */
/* The one logger: what a line says, how long it may be, how often. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "log.h"

static char last[IVWL_LOG_LINE_MAX + 8];
static int lines;

static void
sink(void *data, enum ivwl_log_level level, const char *line)
{
	strcpy(last, line);
	lines++;
}

static void
test_prefix_and_levels(void)
{
	ivwl_log_setup("ivwl-test", false);
	ivwl_log_set_sink(sink, NULL);
	ivwl_log("plain %d", 1);
	CHECK(strcmp(last, "ivwl-test: plain 1") == 0);
	ivwl_log_warning("careful");
	CHECK(strcmp(last, "ivwl-test: warning: careful") == 0);
	ivwl_log_set_vm("work");
	ivwl_log_error("gone");
	CHECK(strcmp(last, "ivwl-test: vm work: error: gone") == 0);
	ivwl_log_set_vm(NULL);
}

static void
test_debug_only_when_asked(void)
{
	int before;

	ivwl_log_set_sink(sink, NULL);
	unsetenv("IVWL_DEBUG");
	before = lines;
	ivwl_log_debug("hidden");
	CHECK_EQ(lines, before);
	setenv("IVWL_DEBUG", "1", 1);
	ivwl_log_debug("shown");
	CHECK_EQ(lines, before + 1);
	CHECK(strstr(last, "shown") != NULL);
	unsetenv("IVWL_DEBUG");
}

static void
test_long_line_marked(void)
{
	static char text[3 * IVWL_LOG_LINE_MAX];
	size_t len;

	memset(text, 'x', sizeof(text) - 1);
	ivwl_log_set_sink(sink, NULL);
	ivwl_log("%s", text);
	len = strlen(last);
	CHECK(len < IVWL_LOG_LINE_MAX);
	CHECK(len > IVWL_LOG_LINE_MAX - 8);
	CHECK(strcmp(last + len - 3, "...") == 0);
}

static void
test_limit_counts_held_lines(void)
{
	struct ivwl_log_limit limit = { 0 };
	unsigned held = 99;
	int i;

	CHECK(ivwl_log_limit_pass(&limit, 60000, &held));
	CHECK_EQ(held, 0);
	for (i = 0; i < 5; i++)
		CHECK(!ivwl_log_limit_pass(&limit, 60000, &held));
	/* an interval of 0 lets the next line through, with the count */
	CHECK(ivwl_log_limit_pass(&limit, 0, &held));
	CHECK_EQ(held, 5);
}

IVWL_TEST_MAIN(TEST(test_prefix_and_levels), TEST(test_debug_only_when_asked),
	       TEST(test_long_line_marked),
	       TEST(test_limit_counts_held_lines))
