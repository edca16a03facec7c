/* SPDX-License-Identifier: MIT */
/*
 * The extension of ivwl-server's protocol (protocol/device/server-msg.h): the
 * values on the wire are pinned here, as ivwl-server and QEMU-side peers
 * of other versions read them.
 */
#include <stdint.h>

#include "harness.h"
#include "server-msg.h"

static void
test_values_on_the_wire(void)
{
	CHECK_EQ(ivwl_srv_encode(IVWL_SRV_HELLO, 0, 2),
		 (int64_t)0x4957010000000002ll);
	CHECK_EQ(ivwl_srv_encode(IVWL_SRV_RING, 1, 32),
		 (int64_t)0x4957020000010020ll);
	CHECK_EQ(ivwl_srv_encode(IVWL_SRV_ACK, IVWL_SRV_ACK_REGION,
				 IVWL_SRV_VERSION),
		 (int64_t)0x4957030000020002ll);
	CHECK_EQ(ivwl_srv_encode(IVWL_SRV_ACK, IVWL_SRV_ACK_NO_RINGS |
				 IVWL_SRV_ACK_REGION, 2),
		 (int64_t)0x4957030000030002ll);
	CHECK_EQ(ivwl_srv_encode(IVWL_SRV_REGION, 0, 0),
		 (int64_t)0x4957040000000000ll);
	/* Fields are cut to their width, never spill into the op. */
	CHECK_EQ(ivwl_srv_encode(IVWL_SRV_REGION, 0x10000, 0x10000),
		 (int64_t)0x4957040000000000ll);
}

static void
test_decode(void)
{
	uint32_t peer = 7, arg = 7;

	CHECK_EQ(ivwl_srv_decode(ivwl_srv_encode(IVWL_SRV_REGION, 0, 0),
				 &peer, &arg), IVWL_SRV_REGION);
	CHECK_EQ(peer, 0);
	CHECK_EQ(arg, 0);
	CHECK_EQ(ivwl_srv_decode(ivwl_srv_encode(IVWL_SRV_ACK, 3, 2), &peer,
				 &arg), IVWL_SRV_ACK);
	CHECK_EQ(peer, 3);
	CHECK_EQ(arg, 2);
	CHECK_EQ(ivwl_srv_decode(ivwl_srv_encode(IVWL_SRV_RING, 1, 1023),
				 &peer, &arg), IVWL_SRV_RING);
	CHECK_EQ(peer, 1);
	CHECK_EQ(arg, 1023);
}

/* What is not the extension decodes as op 0: ids, -1, other magic. */
static void
test_not_the_extension(void)
{
	uint32_t peer, arg;

	CHECK_EQ(ivwl_srv_decode(0, &peer, &arg), 0);
	CHECK_EQ(ivwl_srv_decode(1, &peer, &arg), 0);
	CHECK_EQ(ivwl_srv_decode(65535, &peer, &arg), 0);
	CHECK_EQ(ivwl_srv_decode(-1, &peer, &arg), 0);
	CHECK_EQ(ivwl_srv_decode((int64_t)0x4958040000000000ll, &peer, &arg),
		 0);
	/* Bits 39..32 must be zero. */
	CHECK_EQ(ivwl_srv_decode(ivwl_srv_encode(IVWL_SRV_REGION, 0, 0) |
				 (int64_t)1 << 32, &peer, &arg), 0);
}

IVWL_TEST_MAIN(
	TEST(test_values_on_the_wire),
	TEST(test_decode),
	TEST(test_not_the_extension),
)
