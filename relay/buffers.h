/* SPDX-License-Identifier: MIT */
/*
 * The relay's view of the client's wl_shm pools and buffers.
 *
 * Copy mode: a client's wl_shm buffers live in memory the client made; the
 * display reads region memory.  Each client buffer gets a region buffer of
 * its own, and at every commit only the bytes that can have changed since
 * that region buffer was last filled are copied, once.  A destroyed
 * buffer's region buffer is kept a while for a new wl_buffer over the
 * same bytes (firefox makes one every frame).
 *
 * Zero-copy: the shim has moved the client's mappings of a pool's file
 * onto a grant, a heap range (zero-copy-proto.h).  Buffers inside the
 * grant are shown to the display where they are, and commits copy
 * nothing.  When the client stops mapping the grant, its pools go on in
 * copy mode with the grant as their buffers' region copy.
 */
#ifndef IVWL_BUFFERS_H
#define IVWL_BUFFERS_H

#include <stdbool.h>
#include <stdint.h>

#include "damage-plan.h"
#include "grants.h"
#include "heap.h"
#include "record.h"
#include "region.h"
#include "wire.h"

struct ivwl_shm_pool;
struct ivwl_shm_buffer;
struct ivwl_surface;

struct ivwl_buffers {
	int agent_fd;
	uint8_t *region;		/* the whole region, mapped */
	const struct ivwl_layout *layout;
	struct ivwl_shm_pool *pools;
	struct ivwl_shm_buffer *buffers;
	struct ivwl_shm_buffer *spares;	/* newest first (buffers.c) */
	uint32_t n_spares;
	struct ivwl_surface *surfaces;
	struct ivwl_grants grants;	/* zero-copy: the client's files */
	/* For IVWL_STATS: what commits asked for and what was copied. */
	uint64_t copied_bytes;
	uint64_t damaged_bytes;		/* damage of each commit, clipped */
	uint64_t buffer_commits;	/* commits with a buffer attached */
	uint64_t zero_copy_commits;	/* of those, commits copying nothing */
	uint64_t zero_copy_pools;
	uint64_t copy_pools;
};

void
ivwl_buffers_init(struct ivwl_buffers *b, int agent_fd, void *region,
		  const struct ivwl_layout *layout);

/*
 * Frees pools, buffers and surfaces, and the grants the client no longer
 * maps.  Grants it still maps stay allocated: see ivwl_grants_client_maps.
 */
void
ivwl_buffers_release(struct ivwl_buffers *b);

/*
 * IVWL_ZC_REVERT from owner (ivwl_grants_revert); a grant the client left
 * has its buffers copied in full once.
 */
int
ivwl_buffers_revert(struct ivwl_buffers *b, uint32_t owner, uint64_t dev,
		    uint64_t ino, bool copied_back, bool gone);

/*
 * A request on its way to the display.  May rewrite msg bytes in place
 * and turn the request's fds into descriptors.  Takes ownership of fds.
 * 0, or -errno with *why set; the connection is then over.
 */
int
ivwl_buffers_request(struct ivwl_buffers *b, struct ivwl_wire_msg *msg,
		     uint8_t *bytes, int *fds, struct ivwl_fd_desc *descs,
		     const char **why);

#endif
