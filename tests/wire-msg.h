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

#include "wire.h"

/* len, what the writer returned; the test fails unless it wrote. */
uint32_t
ivwl_test_written(int len);

/*
 * One message into out (room bytes; the test fails past it): object,
 * opcode, then an argument for each character of sig: u i o n f a word
 * (passed as int or uint32_t), s a string (const char *), a a const
 * struct ivwl_wire_array * (data NULL: that many zero bytes), h nothing
 * (fds travel beside the bytes).  Returns its size.
 */
#define ivwl_test_msg(out, room, object, opcode, ...)                    \
	ivwl_test_written(ivwl_wire_write(out, room, object, opcode,     \
					  __VA_ARGS__))

#define ivwl_test_vmsg(out, room, object, opcode, sig, ap)               \
	ivwl_test_written(ivwl_wire_vwrite(out, room, object, opcode,    \
					   sig, ap))

#endif
