/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "harness.h"
#include "wire-msg.h"

/* n bytes of data (NULL: zeros) with their length word, padded to 4. */
static uint32_t
put_blob(uint8_t *out, uint32_t room, uint32_t len, const void *data,
	 uint32_t n)
{
	uint32_t padded = (n + 3) & ~3u;

	REQUIRE(len + 4 + padded <= room);
	memcpy(out + len, &n, 4);
	memset(out + len + 4, 0, padded);
	if (data)
		memcpy(out + len + 4, data, n);
	return len + 4 + padded;
}

uint32_t
ivwl_test_vmsg(uint8_t *out, uint32_t room, uint32_t object,
	       uint16_t opcode, const char *sig, va_list ap)
{
	uint32_t len = 8, word;
	const char *s;

	REQUIRE(room >= 8);
	for (; *sig; sig++) {
		switch (*sig) {
		case 'h':
			continue;
		case 'a':
			len = put_blob(out, room, len, NULL,
				       va_arg(ap, uint32_t));
			continue;
		case 's':
			s = va_arg(ap, const char *);
			len = put_blob(out, room, len, s,
				       (uint32_t)strlen(s) + 1);
			continue;
		default:
			word = va_arg(ap, uint32_t);
			REQUIRE(len + 4 <= room);
			memcpy(out + len, &word, 4);
			len += 4;
		}
	}
	word = len << 16 | opcode;
	memcpy(out, &object, 4);
	memcpy(out + 4, &word, 4);
	return len;
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
