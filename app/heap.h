/* SPDX-License-Identifier: MIT */
/*
 * The region heap allocator, used by the agent only (the app side is the
 * only side that allocates).  Page-granular, first fit, neighbours merged
 * on free.  Pure bookkeeping: it never touches region memory.
 */
#ifndef IVWL_HEAP_H
#define IVWL_HEAP_H

#include <stdbool.h>
#include <stdint.h>

struct ivwl_extent {
	uint64_t offset;
	uint64_t length;
};

struct ivwl_heap {
	uint64_t base;
	uint64_t size;
	uint64_t free_bytes;
	struct ivwl_extent *free;	/* sorted by offset, never adjacent */
	uint32_t count;
	uint32_t capacity;
};

int
ivwl_heap_init(struct ivwl_heap *heap, uint64_t base, uint64_t size);

void
ivwl_heap_fini(struct ivwl_heap *heap);

/* Returns 0 and the range, -EINVAL for 0 or absurd lengths, -ENOMEM. */
int
ivwl_heap_alloc(struct ivwl_heap *heap, uint64_t length,
		struct ivwl_extent *out);

/* Gives back a range from ivwl_heap_alloc. -EINVAL if it overlaps free. */
int
ivwl_heap_free(struct ivwl_heap *heap, struct ivwl_extent range);

#endif
