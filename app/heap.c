/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h"
#include "region.h"

int
ivwl_heap_init(struct ivwl_heap *heap, uint64_t base, uint64_t size)
{
	memset(heap, 0, sizeof(*heap));
	if (base % IVWL_PAGE_SIZE || size % IVWL_PAGE_SIZE || size == 0)
		return -EINVAL;

	heap->capacity = 16;
	heap->free = calloc(heap->capacity, sizeof(*heap->free));
	if (!heap->free)
		return -ENOMEM;
	heap->base = base;
	heap->size = size;
	heap->free_bytes = size;
	heap->free[0] = (struct ivwl_extent){ base, size };
	heap->count = 1;
	return 0;
}

void
ivwl_heap_fini(struct ivwl_heap *heap)
{
	free(heap->free);
	memset(heap, 0, sizeof(*heap));
}

int
ivwl_heap_alloc(struct ivwl_heap *heap, uint64_t length,
		struct ivwl_extent *out)
{
	uint32_t i;

	if (length == 0 || length > heap->size)
		return -EINVAL;
	length = (length + IVWL_PAGE_SIZE - 1) & ~(uint64_t)(IVWL_PAGE_SIZE - 1);

	for (i = 0; i < heap->count; i++) {
		struct ivwl_extent *e = &heap->free[i];

		if (e->length < length)
			continue;
		out->offset = e->offset;
		out->length = length;
		e->offset += length;
		e->length -= length;
		if (e->length == 0) {
			memmove(e, e + 1,
				(heap->count - i - 1) * sizeof(*e));
			heap->count--;
		}
		heap->free_bytes -= length;
		return 0;
	}
	return -ENOMEM;
}

static int
grow(struct ivwl_heap *heap)
{
	struct ivwl_extent *n;

	if (heap->count < heap->capacity)
		return 0;
	n = realloc(heap->free, 2 * heap->capacity * sizeof(*n));
	if (!n)
		return -ENOMEM;
	heap->free = n;
	heap->capacity *= 2;
	return 0;
}

int
ivwl_heap_free(struct ivwl_heap *heap, struct ivwl_extent r)
{
	uint64_t end = r.offset + r.length;
	uint32_t i;
	bool merge_prev, merge_next;

	if (r.length == 0 || r.offset < heap->base || end < r.offset ||
	    end > heap->base + heap->size)
		return -EINVAL;

	/* i: first free extent after r */
	for (i = 0; i < heap->count && heap->free[i].offset < r.offset; i++)
		;
	if (i > 0 && heap->free[i - 1].offset + heap->free[i - 1].length >
		     r.offset)
		return -EINVAL;
	if (i < heap->count && heap->free[i].offset < end)
		return -EINVAL;

	merge_prev = i > 0 &&
		     heap->free[i - 1].offset + heap->free[i - 1].length ==
		     r.offset;
	merge_next = i < heap->count && heap->free[i].offset == end;

	if (merge_prev && merge_next) {
		heap->free[i - 1].length += r.length + heap->free[i].length;
		memmove(&heap->free[i], &heap->free[i + 1],
			(heap->count - i - 1) * sizeof(r));
		heap->count--;
	} else if (merge_prev) {
		heap->free[i - 1].length += r.length;
	} else if (merge_next) {
		heap->free[i].offset = r.offset;
		heap->free[i].length += r.length;
	} else {
		if (grow(heap) < 0)
			return -ENOMEM;
		memmove(&heap->free[i + 1], &heap->free[i],
			(heap->count - i) * sizeof(r));
		heap->free[i] = r;
		heap->count++;
	}
	heap->free_bytes += r.length;
	return 0;
}
