/* SPDX-License-Identifier: MIT */
#include "harness.h"
#include "wire-msg.h"
#include "wire.h"

uint32_t
ivwl_test_vmsg(uint8_t *out, uint32_t room, uint32_t object,
	       uint16_t opcode, const char *sig, va_list ap)
{
	int len = ivwl_wire_vwrite(out, room, object, opcode, sig, ap);

	REQUIRE(len > 0);
	return (uint32_t)len;
}

uint32_t
ivwl_test_msg(uint8_t *out, uint32_t room, uint32_t object, uint16_t opcode,
	      const char *sig, ...)
{
	va_list ap;
	uint32_t len;

	va_start(ap, sig);
	len = ivwl_test_vmsg(out, room, object, opcode, sig, ap);
	va_end(ap);
	return len;
}
