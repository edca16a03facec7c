/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "zc-maps.h"

int
ivwl_zc_maps_add(struct zc_maps *maps, const struct zc_map *map)
{
	if (maps->n == maps->cap) {
		size_t cap = maps->cap ? 2 * maps->cap : 4;
		struct zc_map *v = realloc(maps->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		maps->v = v;
		maps->cap = cap;
	}
	maps->v[maps->n++] = *map;
	return 0;
}

int
ivwl_zc_maps_forget(struct zc_maps *maps, uintptr_t addr, size_t len)
{
	uintptr_t end = addr + len;
	size_t i;
	int ret = 0;

	for (i = 0; i < maps->n;) {
		struct zc_map *m = &maps->v[i];
		uintptr_t mend = m->addr + m->len;
		struct zc_map tail = *m;

		if (mend <= addr || m->addr >= end) {
			i++;
			continue;
		}
		if (m->addr < addr) {
			m->len = addr - m->addr;
			i++;
		} else {
			*m = maps->v[--maps->n];
		}
		/* The part past the hole; appended, it is looked at again
		 * but lies outside the range. */
		if (mend > end) {
			tail.off += end - tail.addr;
			tail.len = mend - end;
			tail.addr = end;
			if (ivwl_zc_maps_add(maps, &tail) < 0)
				ret = -ENOMEM;
		}
	}
	return ret;
}

void
ivwl_zc_maps_release(struct zc_maps *maps)
{
	free(maps->v);
	maps->v = NULL;
	maps->n = maps->cap = 0;
}
