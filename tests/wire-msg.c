/* SPDX-License-Identifier: MIT */
#include "harness.h"
#include "wire-msg.h"

uint32_t
ivwl_test_written(int len)
{
	REQUIRE(len > 0);
	return (uint32_t)len;
}
