/*
 * Copy mode: a client's wl_shm buffers live in memory the client made; the
 * display reads region memory.  Each client buffer gets a region buffer of
 * its own, and at every commit only the bytes that can have changed since
 * that region buffer was last filled are copied, once.
 */
#ifndef IVWL_BUFFERS_H
#define IVWL_BUFFERS_H

#include <stdbool.h>
#include <stdint.h>

#include "heap.h"
#include "record.h"
#include "region.h"
#include "wire.h"

#define IVWL_DAMAGE_HISTORY 4u

struct ivwl_rect {
	int32_t x, y, w, h;
};

struct ivwl_shm_pool;
struct ivwl_shm_buffer;
struct ivwl_surface;

struct ivwl_buffers {
	int agent_fd;
	uint8_t *region;		/* the whole region, mapped */
	const struct ivwl_layout *layout;
	struct ivwl_shm_pool *pools;
	struct ivwl_shm_buffer *buffers;
	struct ivwl_surface *surfaces;
	/* For IVWL_STATS: what commits asked for and what was copied. */
	uint64_t copied_bytes;
	uint64_t damaged_bytes;		/* damage of each commit, clipped */
	uint64_t buffer_commits;	/* commits with a buffer attached */
};

void
ivwl_buffers_init(struct ivwl_buffers *b, int agent_fd, void *region,
		  const struct ivwl_layout *layout);

void
ivwl_buffers_release(struct ivwl_buffers *b);

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
