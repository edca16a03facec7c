/* SPDX-License-Identifier: MIT */
/*
 * Recording the replay model (replay.h): what each request the display
 * got leaves behind, and the few events whose state a restart must undo
 * (focus, drags, globals).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ivwl-protocols.h"
#include "replay-internal.h"

/* ---- buffers of messages ------------------------------------------- */

static uint8_t *
buf_grow(struct ivwl_replay_buf *b, uint32_t n)
{
	uint32_t cap = b->cap ? b->cap : 4096;
	uint8_t *data;

	if (b->oom)
		return NULL;
	while (cap - b->len < n) {
		if (cap > (1u << 30)) {
			b->oom = true;
			return NULL;
		}
		cap *= 2;
	}
	if (cap != b->cap) {
		data = realloc(b->data, cap);
		if (!data) {
			b->oom = true;
			return NULL;
		}
		b->data = data;
		b->cap = cap;
	}
	b->len += n;
	return b->data + b->len - n;
}

void
rp_put_bytes(struct ivwl_replay_buf *b, const struct ivwl_fd_desc *desc,
	     const uint8_t *bytes, uint32_t len)
{
	uint32_t head[2] = { len, desc != NULL };
	uint32_t total = sizeof(head) + (desc ? sizeof(*desc) : 0) + len;
	uint8_t *p = buf_grow(b, total);

	if (!p)
		return;
	memcpy(p, head, sizeof(head));
	p += sizeof(head);
	if (desc) {
		memcpy(p, desc, sizeof(*desc));
		p += sizeof(*desc);
	}
	memcpy(p, bytes, len);
}

void
rp_put(struct ivwl_replay_buf *b, const struct ivwl_fd_desc *desc,
       uint32_t object, const struct ivwl_message *m, ...)
{
	uint8_t bytes[IVWL_WIRE_MAX_MESSAGE];
	va_list ap;
	int len;

	va_start(ap, m);
	len = ivwl_wire_vwrite_msg(bytes, sizeof(bytes), object, m, ap);
	va_end(ap);
	if (len < 0) {
		b->oom = true;	/* as a buffer past its bound */
		return;
	}
	rp_put_bytes(b, desc, bytes, (uint32_t)len);
}

void
ivwl_replay_buf_reset(struct ivwl_replay_buf *b)
{
	b->len = 0;
	b->oom = false;
}

void
ivwl_replay_buf_release(struct ivwl_replay_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

bool
ivwl_replay_buf_next(const struct ivwl_replay_buf *b, uint32_t *pos,
		     const uint8_t **msg, uint32_t *len,
		     const struct ivwl_fd_desc **desc)
{
	uint32_t head[2];
	const uint8_t *p;

	if (*pos + sizeof(head) > b->len)
		return false;
	p = b->data + *pos;
	memcpy(head, p, sizeof(head));
	p += sizeof(head);
	*desc = head[1] ? (const struct ivwl_fd_desc *)p : NULL;
	if (head[1])
		p += sizeof(struct ivwl_fd_desc);
	*msg = p;
	*len = head[0];
	*pos = (uint32_t)(p + head[0] - b->data);
	return true;
}

/* ---- objects -------------------------------------------------------- */

int
rp_flag_set(uint8_t **flags, uint32_t *alloc, uint32_t id, uint8_t v)
{
	uint32_t n = *alloc ? *alloc : 256;
	uint8_t *f;

	if (id >= IVWL_WIRE_MAX_OBJECTS)
		return -EINVAL;
	if (id >= *alloc) {
		if (!v)
			return 0;
		while (n <= id)
			n *= 2;
		f = realloc(*flags, n);
		if (!f)
			return -ENOMEM;
		memset(f + *alloc, 0, n - *alloc);
		*flags = f;
		*alloc = n;
	}
	(*flags)[id] = v;
	return 0;
}

uint8_t
rp_flag(const uint8_t *flags, uint32_t alloc, uint32_t id)
{
	return id < alloc ? flags[id] : 0;
}

struct rp_obj *
rp_obj_at(const struct ivwl_replay *rp, uint32_t id)
{
	return id < rp->objs_alloc ? rp->objs[id] : NULL;
}

bool
rp_ref_live(const struct ivwl_replay *rp, const struct rp_ref *ref)
{
	const struct rp_obj *o = rp_obj_at(rp, ref->id);

	if (ref->id == IVWL_WIRE_DISPLAY_ID)
		return true;
	return o && o->seq == ref->seq && o->replayed &&
	       !rp_flag(rp->dead, rp->dead_alloc, ref->id);
}

static void
region_clear(struct rp_region *r)
{
	free(r->rects);
	memset(r, 0, sizeof(*r));
}

static void
state_free(struct rp_surface_state *s)
{
	if (!s)
		return;
	region_clear(&s->opaque);
	region_clear(&s->input);
	free(s);
}

void
rp_obj_free(struct ivwl_replay *rp, uint32_t id)
{
	struct rp_obj *o = rp_obj_at(rp, id);
	unsigned int i;

	if (!o)
		return;
	free(o->create.bytes);
	for (i = 0; i < RP_MAX_SETTERS; i++) {
		if (o->setters[i])
			free(o->setters[i]->bytes);
		free(o->setters[i]);
	}
	region_clear(&o->region);
	state_free(o->pending);
	state_free(o->current);
	free(o);
	rp->objs[id] = NULL;
}

static void
broken(struct ivwl_replay *rp, const char *why)
{
	if (!rp->broken)
		rp->broken = why;
}

static int
msg_copy(struct ivwl_replay *rp, struct rp_msg *m,
	 const struct ivwl_wire_msg *msg, const uint8_t *bytes)
{
	struct rp_obj *o;
	unsigned int k;

	m->bytes = malloc(msg->size);
	if (!m->bytes)
		return -ENOMEM;
	memcpy(m->bytes, bytes, msg->size);
	m->len = msg->size;
	m->nrefs = 0;
	for (k = 0; k <= msg->nargs; k++) {
		uint32_t id = k == 0 ? msg->object : msg->args[k - 1].value;

		if (k > 0 && msg->args[k - 1].type != 'o')
			continue;
		if (id == 0 || id == IVWL_WIRE_DISPLAY_ID)
			continue;
		if (m->nrefs == RP_MAX_REFS)
			return -E2BIG;
		o = rp_obj_at(rp, id);
		m->refs[m->nrefs++] = (struct rp_ref){ id, o ? o->seq : 0 };
	}
	return 0;
}

/* Interfaces whose objects are only ever in flight: the map has them. */
static bool
not_recorded(const struct ivwl_interface *iface)
{
	return iface == &ivwl_iface_wl_callback ||
	       iface == &ivwl_iface_wp_presentation_feedback;
}

static struct rp_obj *
obj_new(struct ivwl_replay *rp, uint32_t id)
{
	uint32_t n = rp->objs_alloc ? rp->objs_alloc : 256;
	struct rp_obj **objs;

	if (id >= IVWL_WIRE_MAX_OBJECTS)
		return NULL;
	if (id >= rp->objs_alloc) {
		while (n <= id)
			n *= 2;
		objs = realloc(rp->objs, n * sizeof(*objs));
		if (!objs)
			return NULL;
		memset(objs + rp->objs_alloc, 0,
		       (n - rp->objs_alloc) * sizeof(*objs));
		rp->objs = objs;
		rp->objs_alloc = n;
	}
	rp_obj_free(rp, id);
	rp->objs[id] = calloc(1, sizeof(struct rp_obj));
	return rp->objs[id];
}

static void
state_init(struct rp_surface_state *s)
{
	unsigned int i;

	s->scale = 1;
	for (i = 0; i < 4; i++)
		s->source[i] = RP_UNSET_SOURCE;
	s->destination[0] = s->destination[1] = RP_UNSET_DESTINATION;
}

static void
created(struct ivwl_replay *rp, const struct ivwl_wire_map *map,
	const struct ivwl_wire_msg *msg, const uint8_t *bytes,
	const struct ivwl_fd_desc *descs, unsigned int k)
{
	uint32_t id = msg->args[k].value;
	struct ivwl_req_wl_registry_bind bind;
	struct ivwl_req_wl_shm_create_pool pool;
	struct ivwl_wire_object wo;
	struct rp_global *g;
	struct rp_obj *o;

	if (id == 0 || id >= IVWL_WIRE_SERVER_ID_START ||
	    ivwl_wire_map_lookup(map, id, &wo) < 0 || not_recorded(wo.iface))
		return;
	o = obj_new(rp, id);
	if (!o) {
		broken(rp, "out of memory for the replay model");
		return;
	}
	o->id = id;
	o->seq = ++rp->seq;
	o->iface = wo.iface;
	o->maker = msg->iface;
	o->version = wo.version;
	if (msg_copy(rp, &o->create, msg, bytes) < 0)
		broken(rp, "out of memory for the replay model");
	if (msg->nfds > 0) {
		o->create.has_desc = true;
		o->create.desc = descs[0];
	}
	if (wo.iface == &ivwl_iface_wl_surface) {
		o->pending = calloc(1, sizeof(*o->pending));
		o->current = calloc(1, sizeof(*o->current));
		if (!o->pending || !o->current)
			broken(rp, "out of memory for the replay model");
		else {
			state_init(o->pending);
			state_init(o->current);
		}
	}
	if (ivwl_req_wl_registry_bind_decode(msg, &bind)) {
		g = rp_global_by_display(rp, bind.name);
		o->global = g ? g->client_name : 0;
	}
	if (ivwl_req_wl_shm_create_pool_decode(msg, &pool) &&
	    msg->nfds > 0) {
		rp->pool_desc = descs[0];
		rp->heap_size = pool.size;
		rp->have_pool_desc = true;
	}
}

/* Links a role object to its xdg_surface, and that to its wl_surface. */
static void
link_role(struct ivwl_replay *rp, const struct ivwl_wire_msg *msg)
{
	struct ivwl_req_xdg_wm_base_get_xdg_surface get_xdg;
	struct ivwl_req_xdg_surface_get_toplevel get_toplevel;
	struct ivwl_req_xdg_surface_get_popup get_popup;
	struct rp_obj *parent = rp_obj_at(rp, msg->object);
	struct rp_obj *child, *surface;
	bool xdg = ivwl_req_xdg_wm_base_get_xdg_surface_decode(msg, &get_xdg);

	if (xdg)
		child = rp_obj_at(rp, get_xdg.id);
	else if (ivwl_req_xdg_surface_get_toplevel_decode(msg, &get_toplevel))
		child = rp_obj_at(rp, get_toplevel.id);
	else if (ivwl_req_xdg_surface_get_popup_decode(msg, &get_popup))
		child = rp_obj_at(rp, get_popup.id);
	else
		return;
	if (!child)
		return;
	if (xdg) {
		surface = rp_obj_at(rp, get_xdg.surface);
		if (surface)
			surface->role = (struct rp_ref){ child->id, child->seq };
	} else if (parent) {
		parent->role = (struct rp_ref){ child->id, child->seq };
	}
}

/*
 * Setters whose last call is the state: a slot per setter, or one for a
 * pair that undo each other.  -1: not a setter the model keeps.
 */
static int
setter_slot(const struct ivwl_wire_msg *msg)
{
	const struct ivwl_interface *i = msg->iface;
	uint16_t op = msg->opcode;

	if (i == &ivwl_iface_xdg_toplevel) {
		switch (op) {
		case IVWL_REQ_XDG_TOPLEVEL_SET_PARENT: return 0;
		case IVWL_REQ_XDG_TOPLEVEL_SET_TITLE: return 1;
		case IVWL_REQ_XDG_TOPLEVEL_SET_APP_ID: return 2;
		case IVWL_REQ_XDG_TOPLEVEL_SET_MAX_SIZE: return 3;
		case IVWL_REQ_XDG_TOPLEVEL_SET_MIN_SIZE: return 4;
		case IVWL_REQ_XDG_TOPLEVEL_SET_MAXIMIZED:
		case IVWL_REQ_XDG_TOPLEVEL_UNSET_MAXIMIZED:
			return RP_SLOT_MAXIMIZED;
		case IVWL_REQ_XDG_TOPLEVEL_SET_FULLSCREEN:
		case IVWL_REQ_XDG_TOPLEVEL_UNSET_FULLSCREEN:
			return RP_SLOT_FULLSCREEN;
		}
		return -1;
	}
	if (i == &ivwl_iface_xdg_surface)
		return op == IVWL_REQ_XDG_SURFACE_SET_WINDOW_GEOMETRY ? 0 : -1;
	if (i == &ivwl_iface_xdg_positioner)
		return op >= IVWL_REQ_XDG_POSITIONER_SET_SIZE &&
		       op <= IVWL_REQ_XDG_POSITIONER_SET_PARENT_CONFIGURE ?
		       op - IVWL_REQ_XDG_POSITIONER_SET_SIZE : -1;
	if (i == &ivwl_iface_zxdg_toplevel_decoration_v1)
		return op == IVWL_REQ_ZXDG_TOPLEVEL_DECORATION_V1_SET_MODE ||
		       op == IVWL_REQ_ZXDG_TOPLEVEL_DECORATION_V1_UNSET_MODE ?
		       0 : -1;
	if (i == &ivwl_iface_wl_subsurface) {
		switch (op) {
		case IVWL_REQ_WL_SUBSURFACE_SET_POSITION: return 0;
		case IVWL_REQ_WL_SUBSURFACE_SET_SYNC:
		case IVWL_REQ_WL_SUBSURFACE_SET_DESYNC: return 1;
		}
	}
	return -1;
}

static void
setter(struct ivwl_replay *rp, struct rp_obj *o, int slot,
       const struct ivwl_wire_msg *msg, const uint8_t *bytes)
{
	struct rp_msg *m = o->setters[slot];

	if (!m) {
		m = calloc(1, sizeof(*m));
		if (!m) {
			broken(rp, "out of memory for the replay model");
			return;
		}
		o->setters[slot] = m;
	}
	free(m->bytes);
	m->bytes = NULL;
	if (msg_copy(rp, m, msg, bytes) < 0)
		broken(rp, "out of memory for the replay model");
}

static int
region_copy(struct rp_region *to, const struct rp_region *from)
{
	struct rp_rect *rects = NULL;

	if (from->n) {
		rects = malloc(from->n * sizeof(*rects));
		if (!rects)
			return -ENOMEM;
		memcpy(rects, from->rects, from->n * sizeof(*rects));
	}
	free(to->rects);
	to->rects = rects;
	to->n = from->n;
	to->set = from->set;
	return 0;
}

/* wl_region.add or subtract: one rectangle, the same four fields. */
static struct ivwl_req_wl_region_add
region_rect(const struct ivwl_wire_msg *msg)
{
	struct ivwl_req_wl_region_subtract sub;
	struct ivwl_req_wl_region_add add;

	if (ivwl_req_wl_region_add_decode(msg, &add))
		return add;
	ivwl_req_wl_region_subtract_decode(msg, &sub);
	return (struct ivwl_req_wl_region_add){
		sub.x, sub.y, sub.width, sub.height };
}

static void
region_op(struct ivwl_replay *rp, struct rp_obj *o,
	  const struct ivwl_wire_msg *msg)
{
	struct ivwl_req_wl_region_add rect = region_rect(msg);
	struct rp_rect *r;

	if (o->region.n == RP_MAX_REGION_RECTS) {
		broken(rp, "a wl_region of too many rectangles");
		return;
	}
	if (!o->region.rects) {
		o->region.rects = malloc(RP_MAX_REGION_RECTS *
					 sizeof(*o->region.rects));
		if (!o->region.rects) {
			broken(rp, "out of memory for the replay model");
			return;
		}
	}
	r = &o->region.rects[o->region.n++];
	r->op = msg->opcode;
	r->x = rect.x;
	r->y = rect.y;
	r->w = rect.width;
	r->h = rect.height;
	o->region.set = true;
}

static void
set_region(struct ivwl_replay *rp, struct rp_region *to, uint32_t changed,
	   struct rp_surface_state *pending, uint32_t region_id)
{
	struct rp_obj *region = rp_obj_at(rp, region_id);
	struct rp_region none = { 0 };

	if (region_id && !region) {
		broken(rp, "a surface region the model does not know");
		return;
	}
	if (region_copy(to, region ? &region->region : &none) < 0)
		broken(rp, "out of memory for the replay model");
	/* An empty wl_region given is not the default. */
	to->set = region_id != 0;
	pending->changed |= changed;
}

static void
commit_state(struct ivwl_replay *rp, struct rp_obj *o)
{
	struct rp_surface_state *p = o->pending, *c = o->current;
	struct rp_obj *buffer;

	if (p->changed & RP_CHANGED_BUFFER) {
		c->buffer = p->buffer;
		buffer = rp_obj_at(rp, c->buffer.id);
		if (buffer && buffer->seq == c->buffer.seq)
			buffer->busy = true;
	}
	if (p->changed & RP_CHANGED_TRANSFORM)
		c->transform = p->transform;
	if (p->changed & RP_CHANGED_SCALE)
		c->scale = p->scale;
	if ((p->changed & RP_CHANGED_OPAQUE) &&
	    region_copy(&c->opaque, &p->opaque) < 0)
		broken(rp, "out of memory for the replay model");
	if ((p->changed & RP_CHANGED_INPUT) &&
	    region_copy(&c->input, &p->input) < 0)
		broken(rp, "out of memory for the replay model");
	if (p->changed & RP_CHANGED_SOURCE)
		memcpy(c->source, p->source, sizeof(c->source));
	if (p->changed & RP_CHANGED_DESTINATION)
		memcpy(c->destination, p->destination,
		       sizeof(c->destination));
	p->changed = 0;
	o->committed = true;
	/* The display answers those now: nothing to keep at a restart. */
	o->nframes = 0;
}

static void
surface_request(struct ivwl_replay *rp, struct rp_obj *o,
		const struct ivwl_wire_msg *msg)
{
	struct ivwl_req_wl_surface_attach attach;
	struct ivwl_req_wl_surface_set_buffer_transform transform;
	struct ivwl_req_wl_surface_set_buffer_scale scale;
	struct ivwl_req_wl_surface_set_opaque_region opaque;
	struct ivwl_req_wl_surface_set_input_region input;
	struct ivwl_req_wl_surface_frame frame;
	struct rp_surface_state *p = o->pending;
	struct rp_obj *buffer;

	if (!p)
		return;
	switch (msg->opcode) {
	case IVWL_REQ_WL_SURFACE_ATTACH:
		ivwl_req_wl_surface_attach_decode(msg, &attach);
		buffer = rp_obj_at(rp, attach.buffer);
		p->buffer = (struct rp_ref){ buffer ? attach.buffer : 0,
					     buffer ? buffer->seq : 0 };
		p->changed |= RP_CHANGED_BUFFER;
		break;
	case IVWL_REQ_WL_SURFACE_SET_BUFFER_TRANSFORM:
		ivwl_req_wl_surface_set_buffer_transform_decode(msg,
								&transform);
		p->transform = transform.transform;
		p->changed |= RP_CHANGED_TRANSFORM;
		break;
	case IVWL_REQ_WL_SURFACE_SET_BUFFER_SCALE:
		ivwl_req_wl_surface_set_buffer_scale_decode(msg, &scale);
		p->scale = scale.scale;
		p->changed |= RP_CHANGED_SCALE;
		break;
	case IVWL_REQ_WL_SURFACE_SET_OPAQUE_REGION:
		ivwl_req_wl_surface_set_opaque_region_decode(msg, &opaque);
		set_region(rp, &p->opaque, RP_CHANGED_OPAQUE, p,
			   opaque.region);
		break;
	case IVWL_REQ_WL_SURFACE_SET_INPUT_REGION:
		ivwl_req_wl_surface_set_input_region_decode(msg, &input);
		set_region(rp, &p->input, RP_CHANGED_INPUT, p, input.region);
		break;
	case IVWL_REQ_WL_SURFACE_FRAME:
		ivwl_req_wl_surface_frame_decode(msg, &frame);
		/* Past the bound, answered at a restart as before. */
		if (o->nframes < RP_MAX_FRAMES)
			o->frames[o->nframes++] = frame.callback;
		break;
	case IVWL_REQ_WL_SURFACE_COMMIT:
		commit_state(rp, o);
		break;
	}
}

/*
 * A viewport's source and destination are its surface's pending state,
 * applied by the surface's commit like a buffer; destroying the viewport
 * unsets both at that commit.
 */
static void
viewport_request(struct ivwl_replay *rp, struct rp_obj *vp,
		 const struct ivwl_wire_msg *msg)
{
	const struct rp_ref *ref = &vp->create.refs[1];
	struct rp_obj *s = rp_obj_at(rp, ref->id);
	struct ivwl_req_wp_viewport_set_source source;
	struct ivwl_req_wp_viewport_set_destination destination;
	struct rp_surface_state *p;
	unsigned int i;

	if (vp->create.nrefs < 2 || !s || s->seq != ref->seq || !s->pending)
		return;
	p = s->pending;
	switch (msg->opcode) {
	case IVWL_REQ_WP_VIEWPORT_DESTROY:
		for (i = 0; i < 4; i++)
			p->source[i] = RP_UNSET_SOURCE;
		p->destination[0] = p->destination[1] = RP_UNSET_DESTINATION;
		p->changed |= RP_CHANGED_SOURCE | RP_CHANGED_DESTINATION;
		break;
	case IVWL_REQ_WP_VIEWPORT_SET_SOURCE:
		ivwl_req_wp_viewport_set_source_decode(msg, &source);
		p->source[0] = (uint32_t)source.x;
		p->source[1] = (uint32_t)source.y;
		p->source[2] = (uint32_t)source.width;
		p->source[3] = (uint32_t)source.height;
		p->changed |= RP_CHANGED_SOURCE;
		break;
	case IVWL_REQ_WP_VIEWPORT_SET_DESTINATION:
		ivwl_req_wp_viewport_set_destination_decode(msg, &destination);
		p->destination[0] = (uint32_t)destination.width;
		p->destination[1] = (uint32_t)destination.height;
		p->changed |= RP_CHANGED_DESTINATION;
		break;
	}
}

/* A surface knows its viewport: the replay sets its state through it. */
static void
link_viewport(struct ivwl_replay *rp, const struct ivwl_wire_msg *msg)
{
	struct ivwl_req_wp_viewporter_get_viewport args;
	struct rp_obj *vp, *s;

	ivwl_req_wp_viewporter_get_viewport_decode(msg, &args);
	vp = rp_obj_at(rp, args.id);
	s = rp_obj_at(rp, args.surface);
	if (vp && s)
		s->viewport = (struct rp_ref){ vp->id, vp->seq };
}

void
ivwl_replay_note_request(struct ivwl_replay *rp,
			 const struct ivwl_wire_map *map,
			 const struct ivwl_wire_msg *msg, const uint8_t *bytes,
			 const struct ivwl_fd_desc *descs)
{
	struct rp_obj *o;
	unsigned int k;
	int slot;

	for (k = 0; k < msg->nargs; k++)
		if (msg->args[k].type == 'n')
			created(rp, map, msg, bytes, descs, k);
	if ((msg->iface == &ivwl_iface_xdg_wm_base &&
	     msg->opcode == IVWL_REQ_XDG_WM_BASE_GET_XDG_SURFACE) ||
	    (msg->iface == &ivwl_iface_xdg_surface &&
	     (msg->opcode == IVWL_REQ_XDG_SURFACE_GET_TOPLEVEL ||
	      msg->opcode == IVWL_REQ_XDG_SURFACE_GET_POPUP)))
		link_role(rp, msg);
	if (msg->iface == &ivwl_iface_wp_viewporter &&
	    msg->opcode == IVWL_REQ_WP_VIEWPORTER_GET_VIEWPORT)
		link_viewport(rp, msg);
	o = rp_obj_at(rp, msg->object);
	if (!o)
		return;
	if (msg->iface == &ivwl_iface_wp_viewport)
		viewport_request(rp, o, msg);
	if (msg->message->flags & IVWL_MESSAGE_DESTRUCTOR) {
		rp_obj_free(rp, msg->object);
		return;
	}
	if (msg->iface == &ivwl_iface_wl_surface) {
		surface_request(rp, o, msg);
		return;
	}
	if (msg->iface == &ivwl_iface_wl_region) {
		region_op(rp, o, msg);
		return;
	}
	slot = setter_slot(msg);
	if (slot >= 0)
		setter(rp, o, slot, msg, bytes);
}

/* ---- globals -------------------------------------------------------- */

struct rp_global *
rp_global_by_client(struct ivwl_replay *rp, uint32_t name)
{
	uint32_t i;

	for (i = 0; i < rp->nglobals; i++)
		if (rp->globals[i].client_name == name)
			return &rp->globals[i];
	return NULL;
}

struct rp_global *
rp_global_by_display(struct ivwl_replay *rp, uint32_t name)
{
	uint32_t i;

	for (i = 0; i < rp->nglobals; i++)
		if (rp->globals[i].display_name == name)
			return &rp->globals[i];
	return NULL;
}

struct ivwl_replay *
ivwl_replay_create(void)
{
	return calloc(1, sizeof(struct ivwl_replay));
}

void
ivwl_replay_destroy(struct ivwl_replay *rp)
{
	uint32_t id;

	if (!rp)
		return;
	for (id = 0; id < rp->objs_alloc; id++)
		rp_obj_free(rp, id);
	free(rp->objs);
	free(rp->dead);
	free(rp->held);
	free(rp->priv);
	free(rp->srv_to_client);
	free(rp->srv_to_display);
	free(rp);
}

/*
 * The client may only reuse an id of the relay's once the display said
 * it is gone (delete_id), as for its own ids: ivwl's firewall and
 * libwayland both refuse an id in use.
 */
bool
ivwl_replay_done(const struct ivwl_replay *rp)
{
	return rp->phase == RP_LIVE && rp->priv_pending == 0;
}

const char *
ivwl_replay_waiting(const struct ivwl_replay *rp)
{
	static char buf[96];

	switch (rp->phase) {
	case RP_DOWN:
		return "a display";
	case RP_FILL:
		return "the display to free the client's ids";
	case RP_GLOBALS:
		return "the display's globals";
	case RP_CONFIGURE:
		snprintf(buf, sizeof(buf), "the first configure of %u "
			 "window(s)", rp->awaiting);
		return buf;
	case RP_LIVE:
		break;
	}
	snprintf(buf, sizeof(buf), "the display to delete %u id(s) of the "
		 "relay's", rp->priv_pending);
	return buf;
}

uint32_t
ivwl_replay_count(const struct ivwl_replay *rp)
{
	return rp->restarts;
}
