/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "grants.h"
#include "log.h"

void
ivwl_grants_init(struct ivwl_grants *g, uint64_t max_size,
		 int (*alloc)(void *, uint64_t, struct ivwl_extent *),
		 void (*free_range)(void *, uint64_t), void *data)
{
	g->list = NULL;
	g->max_size = max_size;
	g->alloc = alloc;
	g->free = free_range;
	g->data = data;
}

static void
grant_free(struct ivwl_grants *g, struct ivwl_grant *gr)
{
	struct ivwl_grant **pp;

	for (pp = &g->list; *pp && *pp != gr; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = gr->next;
	g->free(g->data, gr->range.offset);
	free(gr);
}

void
ivwl_grants_check(struct ivwl_grants *g, struct ivwl_grant *gr)
{
	if (gr->pools == 0 && !gr->client_maps && gr->followers == 0)
		grant_free(g, gr);
}

void
ivwl_grants_release(struct ivwl_grants *g)
{
	struct ivwl_grant *gr, *next;

	for (gr = g->list; gr; gr = next) {
		next = gr->next;
		ivwl_grants_check(g, gr);
	}
}

void
ivwl_grants_release_all(struct ivwl_grants *g)
{
	while (g->list)
		grant_free(g, g->list);
}

bool
ivwl_grants_client_maps(const struct ivwl_grants *g)
{
	const struct ivwl_grant *gr;

	for (gr = g->list; gr; gr = gr->next)
		if (gr->client_maps || gr->followers > 0)
			return true;
	return false;
}

struct ivwl_grant *
ivwl_grants_find(struct ivwl_grants *g, uint64_t dev, uint64_t ino)
{
	struct ivwl_grant *gr;

	for (gr = g->list; gr; gr = gr->next)
		if (gr->client_maps && gr->dev == dev && gr->ino == ino)
			return gr;
	return NULL;
}

void
ivwl_grant_pool_add(struct ivwl_grant *gr)
{
	gr->pools++;
	gr->claimed = true;
}

void
ivwl_grant_pool_drop(struct ivwl_grants *g, struct ivwl_grant *gr)
{
	gr->pools--;
	ivwl_grants_check(g, gr);
}

bool
ivwl_grant_zero_copy(const struct ivwl_grant *gr)
{
	return gr && (gr->client_maps || gr->frozen);
}

int
ivwl_grants_offer(struct ivwl_grants *g, uint32_t owner, uint64_t dev,
		  uint64_t ino, uint64_t size, struct ivwl_extent *out)
{
	struct ivwl_grant *gr;
	int ret;

	if (size == 0 || size > g->max_size)
		return -ENOSPC;
	/* The shim never offers a file twice; a lost reply can make it. */
	gr = ivwl_grants_find(g, dev, ino);
	if (gr && gr->owner != owner)
		return -EBUSY;
	if (gr && gr->range.length >= size) {
		*out = gr->range;
		return 0;
	}
	gr = calloc(1, sizeof(*gr));
	if (!gr)
		return -ENOMEM;
	ret = g->alloc(g->data, size, &gr->range);
	if (ret < 0) {
		free(gr);
		return ret == -ENOMEM ? -ENOSPC : ret;
	}
	gr->dev = dev;
	gr->ino = ino;
	gr->owner = owner;
	gr->client_maps = true;
	gr->next = g->list;
	g->list = gr;
	*out = gr->range;
	return 0;
}

int
ivwl_grants_follow(struct ivwl_grants *g, uint64_t dev, uint64_t ino,
		   struct ivwl_extent *out)
{
	struct ivwl_grant *gr = ivwl_grants_find(g, dev, ino);

	if (!gr)
		return -ENOENT;
	gr->followers++;
	*out = gr->range;
	return 0;
}

void
ivwl_grants_unfollow(struct ivwl_grants *g, uint64_t dev, uint64_t ino)
{
	struct ivwl_grant *gr;

	/* Not ivwl_grants_find: the owner may have left it meanwhile. */
	for (gr = g->list; gr; gr = gr->next) {
		if (gr->dev == dev && gr->ino == ino && gr->followers > 0) {
			gr->followers--;
			ivwl_grants_check(g, gr);
			return;
		}
	}
}

uint64_t
ivwl_grants_unclaimed(const struct ivwl_grants *g, uint32_t owner,
		      bool *any_claimed)
{
	const struct ivwl_grant *gr;
	uint64_t bytes = 0;

	*any_claimed = false;
	for (gr = g->list; gr; gr = gr->next) {
		if (owner != IVWL_GRANTS_ANY_OWNER && gr->owner != owner)
			continue;
		*any_claimed |= gr->claimed;
		if (gr->client_maps && !gr->claimed)
			bytes += gr->range.length;
	}
	return bytes;
}

uint64_t
ivwl_grants_held_by_others(const struct ivwl_grants *g)
{
	const struct ivwl_grant *gr;
	uint64_t bytes = 0;

	for (gr = g->list; gr; gr = gr->next)
		if (gr->owner != 0)
			bytes += gr->range.length;
	return bytes;
}

/* Nothing will change its pixels: shown as they are. */
static void
freeze(struct ivwl_grants *g, struct ivwl_grant *gr)
{
	gr->client_maps = false;
	gr->frozen = true;
	ivwl_grants_check(g, gr);
}

void
ivwl_grants_owner_gone(struct ivwl_grants *g, uint32_t owner)
{
	struct ivwl_grant *gr, *next;

	for (gr = g->list; gr; gr = next) {
		next = gr->next;
		if (gr->owner == owner && gr->client_maps)
			freeze(g, gr);
	}
}

int
ivwl_grants_revert(struct ivwl_grants *g, uint32_t owner, uint64_t dev,
		   uint64_t ino, bool copied_back, bool gone,
		   struct ivwl_grant **left)
{
	struct ivwl_grant *gr = ivwl_grants_find(g, dev, ino);

	*left = NULL;
	if (!gr || gr->owner != owner)
		return -ENOENT;
	if (gone) {
		freeze(g, gr);
		return 0;
	}
	if (!copied_back && gr->pools > 0)
		return -EAGAIN;
	/* The file holds the pixels now: its pools copy from it. */
	gr->client_maps = false;
	ivwl_log_debug("grant %#llx+%#llx: the client left it, its pools "
			"copy from now on",
			(unsigned long long)gr->range.offset,
			(unsigned long long)gr->range.length);
	*left = gr;
	return 0;
}
