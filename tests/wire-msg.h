/* SPDX-License-Identifier: MIT */
/*
 * The C tests' Wayland messages, written by protocol/'s one writer
 * (ivwl_wire_write) with a signature of the test's: a test may write a
 * message its tables would not, to see it refused.
 */
#ifndef IVWL_TEST_WIRE_MSG_H
#define IVWL_TEST_WIRE_MSG_H

#include <stdarg.h>
#include <stdint.h>

/*
 * One message into out (room bytes; the test fails past it): object,
 * opcode, then an argument for each character of sig: u i o n f a word
 * (passed as int or uint32_t), s a string (const char *), a a const
 * struct ivwl_wire_array * (data NULL: that many zero bytes), h nothing
 * (fds travel beside the bytes).  Returns its size.
 */
uint32_t
ivwl_test_msg(uint8_t *out, uint32_t room, uint32_t object, uint16_t opcode,
	      const char *sig, ...);

uint32_t
ivwl_test_vmsg(uint8_t *out, uint32_t room, uint32_t object,
	       uint16_t opcode, const char *sig, va_list ap);

#endif
