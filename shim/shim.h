/* SPDX-License-Identifier: MIT */
#ifndef IVWL_SHIM_H
#define IVWL_SHIM_H

#define IVWL_SHIM_EXPORT __attribute__((visibility("default")))

#endif
