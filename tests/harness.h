/* SPDX-License-Identifier: MIT */
/*
 * A minimal test harness: each test binary runs its cases in order,
 * prints one line per case and exits non-zero when any check failed.
 */
#ifndef IVWL_TEST_HARNESS_H
#define IVWL_TEST_HARNESS_H

#include <stdio.h>
#include <stdlib.h>

extern int ivwl_test_failures;

#define CHECK(cond)                                                      \
	do {                                                             \
		if (!(cond)) {                                           \
			fprintf(stderr, "%s:%d: check failed: %s\n",     \
				__FILE__, __LINE__, #cond);              \
			ivwl_test_failures++;                            \
		}                                                        \
	} while (0)

#define CHECK_EQ(a, b)                                                   \
	do {                                                             \
		long long _a = (long long)(a), _b = (long long)(b);      \
		if (_a != _b) {                                          \
			fprintf(stderr, "%s:%d: %s == %s: %lld != %lld\n", \
				__FILE__, __LINE__, #a, #b, _a, _b);     \
			ivwl_test_failures++;                            \
		}                                                        \
	} while (0)

/* Fatal: the rest of the case cannot run. */
#define REQUIRE(cond)                                                    \
	do {                                                             \
		if (!(cond)) {                                           \
			fprintf(stderr, "%s:%d: required: %s\n",         \
				__FILE__, __LINE__, #cond);              \
			exit(1);                                         \
		}                                                        \
	} while (0)

struct ivwl_test_case {
	const char *name;
	void (*run)(void);
};

#define IVWL_TEST_MAIN(...)                                              \
	int ivwl_test_failures;                                          \
	int main(void)                                                   \
	{                                                                \
		static const struct ivwl_test_case cases[] = {__VA_ARGS__}; \
		size_t i;                                                \
		int bad = 0;                                             \
		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) { \
			int before = ivwl_test_failures;                 \
			cases[i].run();                                  \
			if (ivwl_test_failures != before)                \
				bad++;                                   \
			printf("%s %s\n", ivwl_test_failures != before ? \
			       "FAIL" : "ok  ", cases[i].name);          \
		}                                                        \
		printf("%zu passed, %d failed\n", i - bad, bad);         \
		return bad ? 1 : 0;                                      \
	}

#define TEST(fn) { #fn, fn }

#endif
