/* SPDX-License-Identifier: MIT */
#ifndef IVWL_SHIM_H
#define IVWL_SHIM_H

#define IVWL_SHIM_EXPORT __attribute__((visibility("default")))

void
ivwl_shim_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Always logged: what a user must see (a connection kept or lost). */
void
ivwl_shim_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
