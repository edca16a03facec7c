/* SPDX-License-Identifier: MIT */
/*
 * Zero-copy grants, the relay's side: which heap range stands for which
 * client file, who asked for it, who else maps it, and when the range
 * can go back to the agent.  The shim moves the client's mappings of a
 * file onto its grant (zero-copy-proto.h); pools made from that file
 * then show their buffers where they are.
 *
 * Bookkeeping only: the heap comes and goes through the two callbacks,
 * so tests/unit/test-grants.c drives it without an agent.
 */
#ifndef IVWL_GRANTS_H
#define IVWL_GRANTS_H

#include <stdbool.h>
#include <stdint.h>

#include "heap.h"

struct ivwl_grant {
	struct ivwl_grant *next;
	uint64_t dev, ino;	/* the client's file */
	struct ivwl_extent range;
	uint32_t owner;		/* the process that asked for it */
	uint32_t pools;		/* pools drawing from it */
	uint32_t followers;	/* other processes mapping it */
	bool claimed;		/* some pool has drawn from it */
	bool client_maps;	/* the client draws into it */
	bool frozen;		/* the client's file is gone: final */
};

struct ivwl_grants {
	struct ivwl_grant *list;
	uint64_t max_size;	/* the heap's */
	/* Heap ranges: 0 or -errno; free takes alloc's offset. */
	int (*alloc)(void *data, uint64_t length, struct ivwl_extent *out);
	void (*free)(void *data, uint64_t offset);
	void *data;
};

#define IVWL_GRANTS_ANY_OWNER UINT32_MAX

void
ivwl_grants_init(struct ivwl_grants *g, uint64_t max_size,
		 int (*alloc)(void *, uint64_t, struct ivwl_extent *),
		 void (*free_range)(void *, uint64_t), void *data);

/* Frees the grants nothing uses; the ones the client maps stay. */
void
ivwl_grants_release(struct ivwl_grants *g);

/* Forgets every grant, mapped or not (the agent takes the ranges back). */
void
ivwl_grants_release_all(struct ivwl_grants *g);

/* True while the client maps some grant: its ranges must stay its own. */
bool
ivwl_grants_client_maps(const struct ivwl_grants *g);

/* The grant the client maps for file (dev, ino), or NULL. */
struct ivwl_grant *
ivwl_grants_find(struct ivwl_grants *g, uint64_t dev, uint64_t ino);

/* A pool is drawing from gr now, or no more. */
void
ivwl_grant_pool_add(struct ivwl_grant *gr);
void
ivwl_grant_pool_drop(struct ivwl_grants *g, struct ivwl_grant *gr);

/* Its buffers show where they are: the client or nobody draws into it. */
bool
ivwl_grant_zero_copy(const struct ivwl_grant *gr);

/*
 * IVWL_ZC_OFFER from process owner: a grant of size bytes for file (dev,
 * ino); 0 or -errno (-EBUSY: another process has it).
 */
int
ivwl_grants_offer(struct ivwl_grants *g, uint32_t owner, uint64_t dev,
		  uint64_t ino, uint64_t size, struct ivwl_extent *out);

/*
 * IVWL_ZC_FOLLOW: the grant of file (dev, ino) another process maps as
 * well; it stays until as many ivwl_grants_unfollow.  0 or -ENOENT.
 */
int
ivwl_grants_follow(struct ivwl_grants *g, uint64_t dev, uint64_t ino,
		   struct ivwl_extent *out);

void
ivwl_grants_unfollow(struct ivwl_grants *g, uint64_t dev, uint64_t ino);

/*
 * Bytes granted to owner (or to anyone) that no pool has drawn from yet;
 * *any_claimed says whether a pool draws from one of its grants.
 */
uint64_t
ivwl_grants_unclaimed(const struct ivwl_grants *g, uint32_t owner,
		      bool *any_claimed);

/* Heap bytes held by the grants of processes other than the one that
 * connected (owner 0). */
uint64_t
ivwl_grants_held_by_others(const struct ivwl_grants *g);

/* Owner's channel closed: its grants hold their last pixels for good. */
void
ivwl_grants_owner_gone(struct ivwl_grants *g, uint32_t owner);

/*
 * IVWL_ZC_REVERT from owner: 0, -EAGAIN (pools use it: copy back first)
 * or -ENOENT.  When the client left a grant whose pools go on in copy
 * mode, *left is that grant: the caller makes its buffers copy once in
 * full, then calls ivwl_grants_check(*left).  Else *left is NULL.
 */
int
ivwl_grants_revert(struct ivwl_grants *g, uint32_t owner, uint64_t dev,
		   uint64_t ino, bool copied_back, bool gone,
		   struct ivwl_grant **left);

/* Frees gr when nothing uses it any more. */
void
ivwl_grants_check(struct ivwl_grants *g, struct ivwl_grant *gr);

#endif
