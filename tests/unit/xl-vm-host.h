/* SPDX-License-Identifier: MIT */
/*
 * A translation host (translate.h) over a bare struct ivwl_vm, for the
 * tests and fuzzers that drive translation without weston: it answers
 * from the VM what the plugin's connection.c answers (name, layout,
 * region fd, budgets, the trusted path through vm->plugin->trust, asked
 * with no connection), and has no event loop, clipboard or frame trace.
 * Its data pointer is the struct ivwl_vm.
 */
#ifndef IVWL_TEST_XL_VM_HOST_H
#define IVWL_TEST_XL_VM_HOST_H

#include "translate.h"

extern const struct ivwl_translate_host ivwl_test_vm_host;

/* The eventfd its alarm_fd answers (-1, the default: none, so no pipe
 * weston reads from can be made). */
extern int ivwl_test_vm_alarm_fd;

#endif
