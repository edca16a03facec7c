/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent-client.h"
#include "buffers.h"
#include "ivwl-protocols.h"
#include "record.h"
#include "shm-format.h"
#include "log.h"

struct ivwl_shm_pool {
	struct ivwl_shm_pool *next;
	uint32_t id;
	int fd;
	uint8_t *map;			/* the client's file, NULL until needed */
	size_t map_size;
	size_t size;			/* as the client last gave it */
	struct ivwl_grant *grant;	/* NULL in copy mode */
	uint32_t refs;			/* the pool object + its buffers */
};

/*
 * A wl_buffer, or a spare: the region copy of one the client destroyed,
 * kept for the next wl_buffer it makes over the same bytes (id 0, on
 * ivwl_buffers.spares, no reference on its pool).
 */
struct ivwl_shm_buffer {
	struct ivwl_shm_buffer *next;	/* on buffers or spares */
	uint32_t id;
	bool spare;
	struct ivwl_shm_pool *pool;
	int32_t offset, width, height, stride;
	uint32_t format;
	struct ivwl_extent range;	/* its region buffer */
	bool in_grant;			/* range is the pool's grant's */
	/* Copy mode: the surface whose commit last filled the region copy,
	 * on whose list of copies it is, and what differs since. */
	struct ivwl_surface *synced_on;
	struct ivwl_shm_buffer *sync_next, **sync_pprev;
	struct ivwl_damage_plan stale;
};

struct ivwl_surface {
	struct ivwl_surface *next;
	uint32_t id;
	uint32_t viewport_id;		/* 0 when none */
	/* how the buffer is to be placed at the next commit */
	struct ivwl_buffer_view pending_view;
	bool attached;			/* attach since the last commit */
	uint32_t pending_buffer;	/* 0: attach(NULL) */
	uint32_t buffer;		/* current buffer id, 0 when none */
	struct ivwl_damage_tracker damage;	/* with the committed view */
	struct ivwl_shm_buffer *copies;	/* region copies its commits filled */
};

/*
 * Spares a connection keeps at most, the oldest going first.  firefox
 * makes a new wl_buffer over the same pool bytes for every frame and
 * destroys the one before once released, rotating through 4 to 9 of
 * them (chromium keeps its 4); without spares each new wl_buffer got an
 * empty region buffer and a whole copy.  A spare is memory a buffer of
 * this client held a moment ago; it goes with its pool, when a buffer
 * is made over its bytes in another shape, when its surface goes, and
 * when the heap has no room for a new buffer of the client.
 */
#define IVWL_SPARES_MAX 16u

#define LIST_FIND(head, key)                                             \
	({                                                               \
		__typeof__(head) _it = (head);                           \
		while (_it && _it->id != (key))                          \
			_it = _it->next;                                 \
		_it;                                                     \
	})

#define LIST_UNLINK(headp, item)                                         \
	do {                                                             \
		__typeof__(*(headp)) *_pp = (headp);                     \
		while (*_pp && *_pp != (item))                           \
			_pp = &(*_pp)->next;                             \
		if (*_pp)                                                \
			*_pp = (item)->next;                             \
	} while (0)

/* The region copy no longer follows any surface's commits. */
static void
copy_unsync(struct ivwl_shm_buffer *buf)
{
	if (!buf->synced_on)
		return;
	*buf->sync_pprev = buf->sync_next;
	if (buf->sync_next)
		buf->sync_next->sync_pprev = buf->sync_pprev;
	buf->synced_on = NULL;
	buf->sync_next = NULL;
	buf->sync_pprev = NULL;
}

/* The region copy was just filled at a commit of s. */
static void
copy_synced(struct ivwl_shm_buffer *buf, struct ivwl_surface *s)
{
	if (buf->synced_on != s) {
		copy_unsync(buf);
		buf->synced_on = s;
		buf->sync_next = s->copies;
		if (s->copies)
			s->copies->sync_pprev = &buf->sync_next;
		s->copies = buf;
		buf->sync_pprev = &s->copies;
	}
	ivwl_damage_plan_clear(&buf->stale);
}

static void
spare_drop(struct ivwl_buffers *b, struct ivwl_shm_buffer *spare)
{
	LIST_UNLINK(&b->spares, spare);
	b->n_spares--;
	copy_unsync(spare);
	ivwl_agent_free(b->agent_fd, spare->range.offset);
	free(spare);
}

/* Spares of pool, or every spare when pool is NULL. */
static void
spares_drop(struct ivwl_buffers *b, const struct ivwl_shm_pool *pool)
{
	struct ivwl_shm_buffer *spare = b->spares, *next;

	for (; spare; spare = next) {
		next = spare->next;
		if (!pool || spare->pool == pool)
			spare_drop(b, spare);
	}
}

static int
heap_alloc(void *data, uint64_t length, struct ivwl_extent *out)
{
	struct ivwl_buffers *b = data;

	return ivwl_agent_alloc(b->agent_fd, length, out);
}

static void
heap_free(void *data, uint64_t offset)
{
	struct ivwl_buffers *b = data;

	ivwl_agent_free(b->agent_fd, offset);
}

void
ivwl_buffers_init(struct ivwl_buffers *b, int agent_fd, void *region,
		  const struct ivwl_layout *layout)
{
	memset(b, 0, sizeof(*b));
	b->agent_fd = agent_fd;
	b->region = region;
	b->layout = layout;
	ivwl_grants_init(&b->grants, layout->heap_size, heap_alloc, heap_free,
			 b);
}

static void
pool_unref(struct ivwl_buffers *b, struct ivwl_shm_pool *pool)
{
	if (--pool->refs > 0)
		return;
	spares_drop(b, pool);
	LIST_UNLINK(&b->pools, pool);
	if (pool->map)
		munmap(pool->map, pool->map_size);
	if (pool->grant)
		ivwl_grant_pool_drop(&b->grants, pool->grant);
	close(pool->fd);
	free(pool);
}

/*
 * Keeps buf's region copy as a spare.  The display may draw the range
 * once more, and then what the client's next buffer over the same bytes
 * brings: this client's own pixels either way.
 */
static void
spare_keep(struct ivwl_buffers *b, struct ivwl_shm_buffer *buf)
{
	struct ivwl_shm_buffer **last = &b->spares;

	buf->id = 0;
	buf->spare = true;
	buf->next = b->spares;
	b->spares = buf;
	if (++b->n_spares <= IVWL_SPARES_MAX)
		return;
	while ((*last)->next)
		last = &(*last)->next;
	spare_drop(b, *last);
}

static void
buffer_destroy(struct ivwl_buffers *b, struct ivwl_shm_buffer *buf)
{
	struct ivwl_shm_pool *pool = buf->pool;

	LIST_UNLINK(&b->buffers, buf);
	/* Only a filled copy in a pool the client can still make buffers
	 * in is worth keeping. */
	if (!buf->in_grant && buf->synced_on && pool->id != 0) {
		spare_keep(b, buf);
	} else {
		/* The agent takes the range back; the display may have
		 * drawn it once more, which shows this client's own
		 * pixels. */
		copy_unsync(buf);
		if (!buf->in_grant)
			ivwl_agent_free(b->agent_fd, buf->range.offset);
		free(buf);
	}
	pool_unref(b, pool);
}

void
ivwl_buffers_release(struct ivwl_buffers *b)
{
	struct ivwl_surface *s;

	while (b->buffers)
		buffer_destroy(b, b->buffers);
	spares_drop(b, NULL);
	while (b->pools) {
		b->pools->refs = 1;
		pool_unref(b, b->pools);
	}
	while ((s = b->surfaces)) {
		b->surfaces = s->next;
		free(s);
	}
	ivwl_grants_release(&b->grants);
}

int
ivwl_buffers_revert(struct ivwl_buffers *b, uint32_t owner, uint64_t dev,
		    uint64_t ino, bool copied_back, bool gone)
{
	struct ivwl_shm_buffer *buf;
	struct ivwl_grant *left;
	int ret;

	ret = ivwl_grants_revert(&b->grants, owner, dev, ino, copied_back,
				 gone, &left);
	if (ret < 0 || !left)
		return ret;
	/* The file holds the pixels now: copy it all once, then damage. */
	for (buf = b->buffers; buf; buf = buf->next)
		if (buf->in_grant && buf->pool->grant == left)
			copy_unsync(buf);
	ivwl_grants_check(&b->grants, left);
	return 0;
}

static bool
pool_zero_copy(const struct ivwl_shm_pool *pool)
{
	return ivwl_grant_zero_copy(pool->grant);
}

/* Maps the client's file as far as the pool goes, for copying from it. */
static int
pool_map(struct ivwl_shm_pool *pool)
{
	void *map;

	if (pool->map && pool->map_size == pool->size)
		return 0;
	map = mmap(NULL, pool->size, PROT_READ, MAP_SHARED, pool->fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	if (pool->map)
		munmap(pool->map, pool->map_size);
	pool->map = map;
	pool->map_size = pool->size;
	return 0;
}

/* The display's pool is the whole heap, whatever the client's size. */
static int32_t
display_pool_size(const struct ivwl_buffers *b)
{
	return (int32_t)(uint32_t)b->layout->heap_size;
}

/*
 * One request of the client's as its handlers (the tables at the end)
 * see it: they may rewrite its bytes and turn its fds into descs.
 */
struct request {
	struct ivwl_buffers *b;
	uint8_t *bytes;
	int *fds;
	struct ivwl_fd_desc *descs;
	const char **why;
};

static int
shm_create_pool(void *data, const struct ivwl_wire_msg *msg,
		const struct ivwl_req_wl_shm_create_pool *req)
{
	struct request *r = data;
	struct ivwl_buffers *b = r->b;
	struct ivwl_shm_pool *pool = calloc(1, sizeof(*pool));
	struct ivwl_req_wl_shm_create_pool args = *req;
	struct ivwl_fd_desc *desc = &r->descs[0];
	int32_t size = args.size;
	int fd = r->fds[0];
	struct stat st;
	int ret;

	if (!pool) {
		close(fd);
		return -ENOMEM;
	}

	pool->id = args.id;
	pool->fd = fd;
	pool->refs = 1;
	if (size <= 0) {
		*r->why = "wl_shm pool of no size";
		ret = -EINVAL;
		goto err_pool;
	}
	pool->size = (size_t)size;
	if (fstat(fd, &st) == 0)
		pool->grant = ivwl_grants_find(&b->grants, st.st_dev,
					       st.st_ino);
	if (pool->grant) {
		ivwl_grant_pool_add(pool->grant);
		b->zero_copy_pools++;
	} else {
		/* Clients like foot make huge sparse pools: mapping costs
		 * nothing until a buffer in it is copied. */
		ret = pool_map(pool);
		if (ret < 0) {
			*r->why = "cannot map the client's pool";
			goto err_pool;
		}
		b->copy_pools++;
	}
	ivwl_log_debug("pool %u: %s", pool->id,
			pool->grant ? "zero-copy" : "copy mode");
	pool->next = b->pools;
	b->pools = pool;

	/* Copy mode: every pool shows the display the whole heap, and each
	 * buffer's offset is that of its own region buffer in there. */
	memset(desc, 0, sizeof(*desc));
	desc->kind = IVWL_FD_REGION;
	desc->offset = b->layout->heap_offset;
	desc->length = b->layout->heap_size;
	args.size = display_pool_size(b);
	ivwl_req_wl_shm_create_pool_rewrite(msg, r->bytes, &args);
	return 0;

err_pool:
	close(fd);
	free(pool);
	return ret;
}

static uint64_t
buffer_end(const struct ivwl_shm_buffer *buf)
{
	return (uint64_t)buf->offset + (uint64_t)buf->stride * buf->height;
}

/*
 * A spare over the same bytes of the same pool, laid out the same, is
 * taken off the list: its region copy held what those bytes held when
 * it was last filled, and its plan covers what the client damaged on
 * that surface since, whichever wl_buffer showed them.  Spares over the
 * bytes in another layout can never serve again and go.
 */
static struct ivwl_shm_buffer *
spare_take(struct ivwl_buffers *b, const struct ivwl_shm_buffer *buf)
{
	struct ivwl_shm_buffer *spare, *next, *found = NULL;

	for (spare = b->spares; spare; spare = next) {
		next = spare->next;
		if (spare->pool != buf->pool ||
		    (uint64_t)spare->offset >= buffer_end(buf) ||
		    (uint64_t)buf->offset >= buffer_end(spare))
			continue;
		if (!found && spare->offset == buf->offset &&
		    spare->width == buf->width &&
		    spare->height == buf->height &&
		    spare->stride == buf->stride &&
		    spare->format == buf->format) {
			LIST_UNLINK(&b->spares, spare);
			b->n_spares--;
			found = spare;
		} else {
			spare_drop(b, spare);
		}
	}
	return found;
}

/* A region buffer of its own for buf, a spare's when one fits. */
static int
copy_range(struct ivwl_buffers *b, struct ivwl_shm_buffer **bufp,
	   uint64_t size)
{
	struct ivwl_shm_buffer *buf = *bufp, *spare = spare_take(b, buf);
	int ret;

	if (spare) {
		spare->id = buf->id;
		spare->spare = false;
		free(buf);
		*bufp = spare;
		return 0;
	}
	ret = ivwl_agent_alloc(b->agent_fd, size, &buf->range);
	if (ret < 0 && b->spares) {
		/* The client's own spares make room first. */
		spares_drop(b, NULL);
		ret = ivwl_agent_alloc(b->agent_fd, size, &buf->range);
	}
	return ret;
}

static int
shm_pool_create_buffer(void *data, const struct ivwl_wire_msg *msg,
		       const struct ivwl_req_wl_shm_pool_create_buffer *req)
{
	struct request *r = data;
	struct ivwl_buffers *b = r->b;
	struct ivwl_shm_pool *pool = LIST_FIND(b->pools, msg->object);
	struct ivwl_req_wl_shm_pool_create_buffer args = *req;
	struct ivwl_shm_buffer *buf;
	uint64_t size, rel;
	int ret;

	if (!pool) {
		*r->why = "create_buffer on an unknown pool";
		return -EINVAL;
	}
	buf = calloc(1, sizeof(*buf));
	if (!buf)
		return -ENOMEM;
	buf->id = args.id;
	buf->pool = pool;
	buf->offset = args.offset;
	buf->width = args.width;
	buf->height = args.height;
	buf->stride = args.stride;
	buf->format = args.format;
	if (buf->offset < 0 || buf->height <= 0 || buf->stride <= 0 ||
	    buf->width <= 0 ||
	    (uint64_t)buf->offset + (uint64_t)buf->stride * buf->height >
	    pool->size) {
		/* libwayland would refuse it: let the display say so. */
		args.offset = -1;
		ivwl_req_wl_shm_pool_create_buffer_rewrite(msg, r->bytes,
							   &args);
		free(buf);
		return 0;
	}
	size = (uint64_t)buf->stride * buf->height;
	if (pool_zero_copy(pool) &&
	    (uint64_t)buf->offset + size <= pool->grant->range.length) {
		buf->range.offset = pool->grant->range.offset +
				    (uint64_t)buf->offset;
		buf->range.length = size;
		buf->in_grant = true;
	} else {
		ret = copy_range(b, &buf, size);
		if (ret < 0) {
			*r->why = "the region heap is full";
			free(buf);
			return ret;
		}
	}
	rel = buf->range.offset - b->layout->heap_offset;
	args.offset = (int32_t)(uint32_t)rel;
	ivwl_req_wl_shm_pool_create_buffer_rewrite(msg, r->bytes, &args);
	pool->refs++;
	buf->next = b->buffers;
	b->buffers = buf;
	return 0;
}

static struct ivwl_surface *
surface_get(struct ivwl_buffers *b, uint32_t id)
{
	struct ivwl_surface *s = LIST_FIND(b->surfaces, id);

	if (s)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->id = id;
	s->pending_view = IVWL_BUFFER_VIEW_IDENTITY;
	ivwl_damage_tracker_init(&s->damage);
	s->next = b->surfaces;
	b->surfaces = s;
	return s;
}

static void
surface_forget(struct ivwl_buffers *b, uint32_t id)
{
	struct ivwl_surface *s = LIST_FIND(b->surfaces, id);

	if (!s)
		return;
	/* A spare only ever saved copying for its surface. */
	while (s->copies) {
		if (s->copies->spare)
			spare_drop(b, s->copies);
		else
			copy_unsync(s->copies);
	}
	LIST_UNLINK(&b->surfaces, s);
	free(s);
}

/*
 * The wl_buffer id goes: surfaces that show it, or have it pending, have
 * no buffer from now on, as on the display.  The client may make a new
 * wl_buffer with the same id, which no surface shows until attached:
 * kept, a commit without an attach would copy that one into its region
 * copy and count it filled, and its first attach then copy only the
 * damage.
 */
static void
surfaces_detach(struct ivwl_buffers *b, uint32_t buffer_id)
{
	struct ivwl_surface *s;

	for (s = b->surfaces; s; s = s->next) {
		if (s->buffer == buffer_id)
			s->buffer = 0;
		if (s->pending_buffer == buffer_id)
			s->pending_buffer = 0;
	}
}


static void
copy_rect(struct ivwl_buffers *b, struct ivwl_shm_buffer *buf,
	  struct ivwl_rect r)
{
	uint32_t bpp = ivwl_shm_format_bpp(buf->format);
	int64_t x0 = r.x, y0 = r.y, x1 = (int64_t)r.x + r.w,
		y1 = (int64_t)r.y + r.h;
	const uint8_t *src;
	uint8_t *dst;
	size_t row_off, row_len;
	int64_t y;

	if (x0 < 0)
		x0 = 0;
	if (y0 < 0)
		y0 = 0;
	if (x1 > buf->width)
		x1 = buf->width;
	if (y1 > buf->height)
		y1 = buf->height;
	if (x0 >= x1 || y0 >= y1)
		return;
	if (bpp == 0 || (uint64_t)x1 * bpp > (uint64_t)buf->stride) {
		row_off = 0;
		row_len = (size_t)buf->stride;
	} else {
		row_off = (size_t)x0 * bpp;
		row_len = (size_t)(x1 - x0) * bpp;
	}
	src = buf->pool->map + buf->offset;
	dst = b->region + buf->range.offset;
	for (y = y0; y < y1; y++)
		memcpy(dst + y * buf->stride + row_off,
		       src + y * buf->stride + row_off, row_len);
	b->copied_bytes += (uint64_t)row_len * (uint64_t)(y1 - y0);
}

/* Copies what may differ between the client buffer and its region copy. */
static int
sync_buffer(struct ivwl_buffers *b, struct ivwl_surface *s,
	    struct ivwl_shm_buffer *buf)
{
	struct ivwl_rect all = { 0, 0, buf->width, buf->height };
	uint32_t i;
	int ret;

	if (buf->in_grant && pool_zero_copy(buf->pool)) {
		b->zero_copy_commits++;
		return 0;
	}
	/* The pool may have been resized by the client since. */
	if ((uint64_t)buf->offset + (uint64_t)buf->stride * buf->height >
	    buf->pool->size)
		return 0;
	ret = pool_map(buf->pool);
	if (ret < 0)
		return ret;

	if (buf->synced_on == s && !buf->stale.full) {
		for (i = 0; i < buf->stale.n; i++)
			copy_rect(b, buf, buf->stale.rects[i]);
	} else {
		copy_rect(b, buf, all);
	}
	copy_synced(buf, s);
	return 0;
}

/* Bytes a commit's damage covers in buf. */
static uint64_t
damage_bytes(const struct ivwl_shm_buffer *buf, const struct ivwl_damage *d)
{
	uint64_t bpp = ivwl_shm_format_bpp(buf->format);

	/* other formats: whole rows, which stride / width estimates */
	if (bpp == 0)
		bpp = (uint64_t)buf->stride / (uint64_t)buf->width;
	return ivwl_damage_bytes(d, buf->width, buf->height, bpp);
}

static int
commit(struct ivwl_buffers *b, struct ivwl_surface *s)
{
	const struct ivwl_damage *d;
	struct ivwl_shm_buffer *buf, *copy;

	if (s->attached)
		s->buffer = s->pending_buffer;
	s->attached = false;
	buf = s->buffer ? LIST_FIND(b->buffers, s->buffer) : NULL;

	d = ivwl_damage_commit(&s->damage, &s->pending_view,
			       buf ? buf->width : 0, buf ? buf->height : 0);
	/* Every copy this surface filled, the one shown now too, falls
	 * behind by this commit's damage. */
	for (copy = s->copies; copy; copy = copy->sync_next)
		ivwl_damage_plan_add(&copy->stale, d);
	if (buf) {
		b->buffer_commits++;
		b->damaged_bytes += damage_bytes(buf, d);
		return sync_buffer(b, s, buf);
	}
	return 0;
}

/* ---- the client's requests, by the generated handler tables ------- */

static int
shm_pool_resize(void *data, const struct ivwl_wire_msg *msg,
		const struct ivwl_req_wl_shm_pool_resize *req)
{
	struct request *r = data;
	struct ivwl_shm_pool *pool = LIST_FIND(r->b->pools, msg->object);
	struct ivwl_req_wl_shm_pool_resize args = *req;

	if (pool && args.size > 0)
		pool->size = (size_t)args.size;
	/* Zero-copy pools map their file only once they copy, after the
	 * client leaves the grant. */
	if (pool && !pool_zero_copy(pool) && pool_map(pool) < 0) {
		*r->why = "cannot remap a resized pool";
		return -ENOMEM;
	}
	args.size = display_pool_size(r->b);
	ivwl_req_wl_shm_pool_resize_rewrite(msg, r->bytes, &args);
	return 0;
}

static int
shm_pool_destroy(void *data, const struct ivwl_wire_msg *msg)
{
	struct request *r = data;
	struct ivwl_shm_pool *pool = LIST_FIND(r->b->pools, msg->object);

	if (pool) {
		/* no buffer is made in it again */
		spares_drop(r->b, pool);
		pool->id = 0;	/* its buffers keep it */
		pool_unref(r->b, pool);
	}
	return 0;
}

static int
wl_buffer_destroy(void *data, const struct ivwl_wire_msg *msg)
{
	struct request *r = data;
	struct ivwl_shm_buffer *buf = LIST_FIND(r->b->buffers, msg->object);

	if (buf)
		buffer_destroy(r->b, buf);
	surfaces_detach(r->b, msg->object);
	return 0;
}

static int
surface_destroy(void *data, const struct ivwl_wire_msg *msg)
{
	struct request *r = data;

	surface_forget(r->b, msg->object);
	return 0;
}

static int
surface_attach(void *data, const struct ivwl_wire_msg *msg,
	       const struct ivwl_req_wl_surface_attach *args)
{
	struct request *r = data;
	struct ivwl_surface *s = surface_get(r->b, msg->object);

	if (!s)
		return -ENOMEM;
	s->attached = true;
	s->pending_buffer = args->buffer;
	return 0;
}

static int
surface_damage(void *data, const struct ivwl_wire_msg *msg,
	       const struct ivwl_req_wl_surface_damage *args)
{
	struct request *r = data;
	struct ivwl_surface *s = surface_get(r->b, msg->object);

	if (!s)
		return -ENOMEM;
	ivwl_damage_add(&s->damage.pending_surface, (struct ivwl_rect){
		args->x, args->y, args->width, args->height });
	return 0;
}

static int
surface_damage_buffer(void *data, const struct ivwl_wire_msg *msg,
		      const struct ivwl_req_wl_surface_damage_buffer *args)
{
	struct request *r = data;
	struct ivwl_surface *s = surface_get(r->b, msg->object);

	if (!s)
		return -ENOMEM;
	ivwl_damage_add(&s->damage.pending_buffer, (struct ivwl_rect){
		args->x, args->y, args->width, args->height });
	return 0;
}

static int
surface_set_buffer_scale(void *data, const struct ivwl_wire_msg *msg,
	const struct ivwl_req_wl_surface_set_buffer_scale *args)
{
	struct request *r = data;
	struct ivwl_surface *s = surface_get(r->b, msg->object);

	if (!s)
		return -ENOMEM;
	s->pending_view.scale = args->scale;
	return 0;
}

static int
surface_set_buffer_transform(void *data, const struct ivwl_wire_msg *msg,
	const struct ivwl_req_wl_surface_set_buffer_transform *args)
{
	struct request *r = data;
	struct ivwl_surface *s = surface_get(r->b, msg->object);

	if (!s)
		return -ENOMEM;
	s->pending_view.transform = args->transform;
	return 0;
}

static int
surface_commit(void *data, const struct ivwl_wire_msg *msg)
{
	struct request *r = data;
	struct ivwl_surface *s = surface_get(r->b, msg->object);
	int ret;

	if (!s)
		return -ENOMEM;
	ret = commit(r->b, s);
	if (ret < 0)
		*r->why = "cannot map the client's pool to copy from it";
	return ret;
}

/*
 * A viewport's source and destination are pending surface state like the
 * buffer transform and scale: commit() maps damage with them.  Values
 * the protocol refuses are kept as sent; ivwl_damage_map() then takes
 * the whole buffer until the display ends the client.
 */
static int
viewporter_get_viewport(void *data, const struct ivwl_wire_msg *msg,
			const struct ivwl_req_wp_viewporter_get_viewport *args)
{
	struct request *r = data;
	struct ivwl_surface *s = surface_get(r->b, args->surface);

	(void)msg;
	if (!s)
		return -ENOMEM;
	s->viewport_id = args->id;
	return 0;
}

/* The surface of a viewport, or NULL when it is gone. */
static struct ivwl_surface *
viewport_surface(struct ivwl_buffers *b, uint32_t viewport)
{
	struct ivwl_surface *s;

	for (s = b->surfaces; s; s = s->next)
		if (s->viewport_id && s->viewport_id == viewport)
			return s;
	return NULL;
}

static int
viewport_destroy(void *data, const struct ivwl_wire_msg *msg)
{
	struct request *r = data;
	struct ivwl_surface *s = viewport_surface(r->b, msg->object);

	if (!s)
		return 0;
	/* crop and scale go at the next commit */
	s->viewport_id = 0;
	s->pending_view.has_source = false;
	s->pending_view.has_destination = false;
	return 0;
}

/* wl_fixed_t -1.0, which unsets a viewport's source */
#define IVWL_FIXED_MINUS_ONE (-256)

static int
viewport_set_source(void *data, const struct ivwl_wire_msg *msg,
		    const struct ivwl_req_wp_viewport_set_source *args)
{
	struct request *r = data;
	struct ivwl_surface *s = viewport_surface(r->b, msg->object);
	struct ivwl_buffer_view *v;

	if (!s)
		return 0;
	v = &s->pending_view;
	v->src_x = args->x;
	v->src_y = args->y;
	v->src_w = args->width;
	v->src_h = args->height;
	v->has_source = v->src_x != IVWL_FIXED_MINUS_ONE ||
			v->src_y != IVWL_FIXED_MINUS_ONE ||
			v->src_w != IVWL_FIXED_MINUS_ONE ||
			v->src_h != IVWL_FIXED_MINUS_ONE;
	return 0;
}

static int
viewport_set_destination(void *data, const struct ivwl_wire_msg *msg,
	const struct ivwl_req_wp_viewport_set_destination *args)
{
	struct request *r = data;
	struct ivwl_surface *s = viewport_surface(r->b, msg->object);

	if (!s)
		return 0;
	s->pending_view.dst_w = args->width;
	s->pending_view.dst_h = args->height;
	s->pending_view.has_destination = args->width != -1 ||
					  args->height != -1;
	return 0;
}

static const struct ivwl_request_handlers request_handlers = {
	.wl_shm = &(const struct ivwl_wl_shm_request_handlers){
		.create_pool = shm_create_pool,
	},
	.wl_shm_pool = &(const struct ivwl_wl_shm_pool_request_handlers){
		.create_buffer = shm_pool_create_buffer,
		.resize = shm_pool_resize,
		.destroy = shm_pool_destroy,
	},
	.wl_buffer = &(const struct ivwl_wl_buffer_request_handlers){
		.destroy = wl_buffer_destroy,
	},
	.wl_surface = &(const struct ivwl_wl_surface_request_handlers){
		.destroy = surface_destroy,
		.attach = surface_attach,
		.damage = surface_damage,
		.damage_buffer = surface_damage_buffer,
		.set_buffer_scale = surface_set_buffer_scale,
		.set_buffer_transform = surface_set_buffer_transform,
		.commit = surface_commit,
	},
	.wp_viewporter = &(const struct ivwl_wp_viewporter_request_handlers){
		.get_viewport = viewporter_get_viewport,
	},
	.wp_viewport = &(const struct ivwl_wp_viewport_request_handlers){
		.destroy = viewport_destroy,
		.set_source = viewport_set_source,
		.set_destination = viewport_set_destination,
	},
};

int
ivwl_buffers_request(struct ivwl_buffers *b, struct ivwl_wire_msg *msg,
		     uint8_t *bytes, int *fds, struct ivwl_fd_desc *descs,
		     const char **why)
{
	struct request r = { b, bytes, fds, descs, why };

	return ivwl_request_dispatch(&request_handlers, &r, msg);
}
