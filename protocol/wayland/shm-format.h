/* SPDX-License-Identifier: MIT */
/*
 * The wl_shm formats ivwl passes on, for both sides: the plugin refuses
 * a buffer in any other format and hides the others from the app, and
 * the relay needs a format's pixel size to copy only the damaged part of
 * each row.  One table, so the two can never disagree.
 */
#ifndef IVWL_SHM_FORMAT_H
#define IVWL_SHM_FORMAT_H

#include <stdint.h>

/*
 * Bytes per pixel of a format ivwl passes on, 0 for any other.  Packed
 * formats only, so a buffer is exactly rows of stride bytes: libwayland
 * checks stride against width in bytes, not pixels, and planar formats
 * read planes past stride * height; both would let weston read outside
 * the range the app named.
 */
uint32_t
ivwl_shm_format_bpp(uint32_t format);

/* Its name as wayland.xml spells it ("argb8888"), or NULL. */
const char *
ivwl_shm_format_name(uint32_t format);

#endif
