/* SPDX-License-Identifier: MIT */
/*
 * CLOCK_MONOTONIC in the units ivwl counts in.  Header-only so that
 * every process, test and the static guest probe use the same helpers.
 */
#ifndef IVWL_MONO_TIME_H
#define IVWL_MONO_TIME_H

#include <limits.h>
#include <stdint.h>
#include <time.h>

/* A time of any clock in nanoseconds. */
static inline int64_t
ivwl_timespec_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

static inline int64_t
ivwl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ivwl_timespec_ns(&ts);
}

static inline int64_t
ivwl_now_us(void)
{
	return ivwl_now_ns() / 1000;
}

static inline int64_t
ivwl_now_ms(void)
{
	return ivwl_now_ns() / 1000000;
}

/*
 * The poll() timeout from now until deadline (on ivwl_now_ms's clock):
 * -1 (no limit) for a deadline < 0, 0 once it has passed.
 */
static inline int
ivwl_ms_left(int64_t deadline)
{
	int64_t left;

	if (deadline < 0)
		return -1;
	left = deadline - ivwl_now_ms();
	if (left < 0)
		return 0;
	return left > INT_MAX ? INT_MAX : (int)left;
}

#endif
