/* SPDX-License-Identifier: MIT */
/*
 * Zero-copy, the shim's side: the client's mappings of one file, which
 * the shim moves onto the file's grant and back.  munmap() may take any
 * part of them, so a mapping can shrink or split in two.
 *
 * Bookkeeping only, no mmap: tests/unit/test-zc-maps.c drives it.
 */
#ifndef IVWL_ZC_MAPS_H
#define IVWL_ZC_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One mapping the client has of a file. */
struct zc_map {
	uintptr_t addr;
	size_t len;
	uint64_t off;	/* in the file */
	int prot;
	bool priv;	/* MAP_PRIVATE: cannot move */
};

struct zc_maps {
	struct zc_map *v;
	size_t n, cap;
};

/* 0 or -ENOMEM. */
int
ivwl_zc_maps_add(struct zc_maps *maps, const struct zc_map *map);

/*
 * Forgets [addr, addr + len): what lies outside it stays, at its own
 * offset in the file.  -ENOMEM when the far part of a split mapping
 * could not be kept (it is forgotten too).
 */
int
ivwl_zc_maps_forget(struct zc_maps *maps, uintptr_t addr, size_t len);

void
ivwl_zc_maps_release(struct zc_maps *maps);

#endif
