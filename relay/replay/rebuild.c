/* SPDX-License-Identifier: MIT */
/*
 * The second half of a replay (replay.h): once the new display listed its
 * globals, the client's objects are made again in the order it made them,
 * their kept state is set, and every surface shows what it showed.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ivwl-protocols.h"
#include "replay-internal.h"

/* Old globals to new ones of the same interface, in the order listed. */
static void
match_globals(struct ivwl_replay *rp, struct ivwl_replay_buf *synth)
{
	struct rp_global *g, *f;
	struct rp_obj *o;
	uint32_t i, j, id;

	for (i = 0; i < rp->nglobals; i++) {
		g = &rp->globals[i];
		g->matched = false;
		for (j = 0; j < rp->nfresh && !g->matched; j++) {
			f = &rp->fresh[j];
			if (f->matched || !f->iface || f->iface != g->iface)
				continue;
			f->matched = g->matched = true;
			g->display_name = f->display_name;
			g->version = f->version;
		}
	}
	for (id = 0; id < rp->objs_alloc; id++) {
		o = rp->objs[id];
		if (!o || o->iface != &ivwl_iface_wl_registry)
			continue;
		for (i = 0; i < rp->nglobals; i++)
			if (!rp->globals[i].matched)
				rp_put(synth, NULL, id,
				       IVWL_MSG_EVT_WL_REGISTRY_GLOBAL_REMOVE,
				       rp->globals[i].client_name);
	}
	for (i = 0; i < rp->nglobals;) {
		if (rp->globals[i].matched)
			i++;
		else
			rp->globals[i] = rp->globals[--rp->nglobals];
	}
	for (j = 0; j < rp->nfresh; j++) {
		f = &rp->fresh[j];
		if (f->matched || !f->iface || rp->nglobals == RP_MAX_GLOBALS)
			continue;
		g = &rp->globals[rp->nglobals++];
		*g = *f;
		g->client_name = rp->next_client_name++;
		for (id = 0; id < rp->objs_alloc; id++) {
			o = rp->objs[id];
			if (o && o->iface == &ivwl_iface_wl_registry)
				rp_put(synth, NULL, id,
				       IVWL_MSG_EVT_WL_REGISTRY_GLOBAL,
				       g->client_name, g->iface->name,
				       g->version);
		}
	}
}

static int
by_seq(const void *a, const void *b)
{
	const struct rp_obj *x = *(struct rp_obj *const *)a;
	const struct rp_obj *y = *(struct rp_obj *const *)b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static bool
refs_live(const struct ivwl_replay *rp, const struct rp_msg *m,
	  unsigned int from)
{
	unsigned int k;

	for (k = from; k < m->nrefs; k++)
		if (!rp_ref_live(rp, &m->refs[k]))
			return false;
	return true;
}

static struct rp_obj *
find_live(struct ivwl_replay *rp, const struct ivwl_interface *iface)
{
	struct rp_obj *o;
	uint32_t id;

	for (id = 0; id < rp->objs_alloc; id++) {
		o = rp->objs[id];
		if (o && o->iface == iface && o->replayed &&
		    !rp_is_dead(rp, id))
			return o;
	}
	return NULL;
}

static int
emit_bind(struct ivwl_replay *rp, struct rp_obj *o,
	  struct ivwl_replay_buf *q, const char **why)
{
	static char buf[128];
	struct rp_global *g = rp_global_by_client(rp, o->global);

	if (!g || g->version < o->version) {
		/* Outputs come and go; the client heard global_remove. */
		if (o->iface == &ivwl_iface_wl_output) {
			rp_set_dead(rp, o->id, true);
			return 0;
		}
		snprintf(buf, sizeof(buf), "the new display has no %s%s",
			 o->iface->name, g ? " of the version bound" : "");
		*why = buf;
		return -EPROTO;
	}
	rp_put(q, NULL, o->create.refs[0].id, IVWL_MSG_REQ_WL_REGISTRY_BIND,
	       g->display_name, o->iface->name, o->version, o->id);
	o->replayed = true;
	return 0;
}

/* A buffer whose pool the client destroyed comes from a pool of ours. */
static int
emit_orphan_buffer(struct ivwl_replay *rp, struct rp_obj *o,
		   uint32_t *temp_pool, struct ivwl_replay_buf *q,
		   const char **why)
{
	struct rp_obj *shm;
	uint32_t head;

	if (!*temp_pool) {
		shm = find_live(rp, &ivwl_iface_wl_shm);
		if (!shm || !rp->have_pool_desc) {
			*why = "no wl_shm to make buffers again";
			return -EPROTO;
		}
		*temp_pool = rp_temp_id(rp);
		rp_put(q, &rp->pool_desc, shm->id,
		       IVWL_MSG_REQ_WL_SHM_CREATE_POOL, *temp_pool,
		       rp->heap_size);
	}
	/* The same request, sent to our pool. */
	memcpy(&head, o->create.bytes, sizeof(head));
	memcpy(o->create.bytes, temp_pool, sizeof(head));
	rp_put_bytes(q, NULL, o->create.bytes, o->create.len);
	memcpy(o->create.bytes, &head, sizeof(head));
	o->replayed = true;
	return 0;
}

static int
emit_object(struct ivwl_replay *rp, struct rp_obj *o, uint32_t *temp_pool,
	    struct ivwl_replay_buf *q, const char **why)
{
	struct rp_obj *parent = rp_obj_at(rp, o->create.refs[0].id);

	if (o->replayed || rp_is_dead(rp, o->id))
		return 0;
	if (o->create.nrefs > 0 && parent &&
	    parent->iface == &ivwl_iface_wl_registry)
		return emit_bind(rp, o, q, why);
	if (o->maker == &ivwl_iface_wl_shm_pool &&
	    !rp_ref_live(rp, &o->create.refs[0]) && refs_live(rp, &o->create, 1))
		return emit_orphan_buffer(rp, o, temp_pool, q, why);
	if (!refs_live(rp, &o->create, 0)) {
		/* What it was made from is gone: it is inert now. */
		rp_set_dead(rp, o->id, true);
		return 0;
	}
	rp_put_bytes(q, o->create.has_desc ? &o->create.desc : NULL,
		     o->create.bytes, o->create.len);
	o->replayed = true;
	return 0;
}

/*
 * set_maximized and set_fullscreen wait for the window's first commit:
 * its old buffer rarely has the size the new display would ask, and
 * weston ends a client whose maximized window has another.  Asked after
 * that commit, they bring a configure the client answers as any other.
 */
static bool
deferred(const struct rp_obj *o, unsigned int slot)
{
	uint32_t head[2];
	uint16_t op;

	if (o->iface != &ivwl_iface_xdg_toplevel ||
	    (slot != RP_SLOT_MAXIMIZED && slot != RP_SLOT_FULLSCREEN))
		return false;
	memcpy(head, o->setters[slot]->bytes, sizeof(head));
	op = head[1] & 0xffff;
	return op == IVWL_REQ_XDG_TOPLEVEL_SET_MAXIMIZED ||
	       op == IVWL_REQ_XDG_TOPLEVEL_SET_FULLSCREEN;
}

static void
emit_setter(struct ivwl_replay *rp, struct rp_msg *m,
	    struct ivwl_replay_buf *q)
{
	if (m && refs_live(rp, m, 0))
		rp_put_bytes(q, NULL, m->bytes, m->len);
}

/* An xdg_surface's setters need its role (xdg_surface.not_constructed). */
static bool
role_live(struct ivwl_replay *rp, const struct rp_obj *xs)
{
	const struct rp_obj *role = rp_obj_at(rp, xs->role.id);

	return role && role->seq == xs->role.seq && role->replayed &&
	       !rp_is_dead(rp, role->id);
}

static void
emit_setters(struct ivwl_replay *rp, struct rp_obj *o,
	     struct ivwl_replay_buf *q)
{
	unsigned int i;

	if (!o->replayed || rp_is_dead(rp, o->id) ||
	    (o->iface == &ivwl_iface_xdg_surface && !role_live(rp, o)))
		return;
	for (i = 0; i < RP_MAX_SETTERS; i++)
		if (o->setters[i] && !deferred(o, i))
			emit_setter(rp, o->setters[i], q);
}

void
rp_emit_deferred(struct ivwl_replay *rp, struct rp_obj *xs,
		 struct ivwl_replay_buf *q)
{
	struct rp_obj *top = rp_obj_at(rp, xs->role.id);

	if (!top || top->seq != xs->role.seq ||
	    top->iface != &ivwl_iface_xdg_toplevel || !top->replayed ||
	    rp_is_dead(rp, top->id))
		return;
	if (top->setters[RP_SLOT_MAXIMIZED] &&
	    deferred(top, RP_SLOT_MAXIMIZED))
		emit_setter(rp, top->setters[RP_SLOT_MAXIMIZED], q);
	if (top->setters[RP_SLOT_FULLSCREEN] &&
	    deferred(top, RP_SLOT_FULLSCREEN))
		emit_setter(rp, top->setters[RP_SLOT_FULLSCREEN], q);
}

/*
 * A region the surface had, set by m (set_opaque_region or
 * set_input_region); none given is set as none, the default.
 */
static void
emit_region(struct ivwl_replay *rp, uint32_t surface,
	    const struct ivwl_message *m, const struct rp_region *r,
	    struct ivwl_replay_buf *q)
{
	const struct ivwl_message *op;
	struct rp_obj *compositor;
	uint32_t id, i;

	if (!r->set) {
		rp_put(q, NULL, surface, m, 0);
		return;
	}
	compositor = find_live(rp, &ivwl_iface_wl_compositor);
	if (!compositor)
		return;
	id = rp_temp_id(rp);
	rp_put(q, NULL, compositor->id,
	       IVWL_MSG_REQ_WL_COMPOSITOR_CREATE_REGION, id);
	for (i = 0; i < r->n; i++) {
		/* add or subtract, as the client sent it */
		op = ivwl_wire_message(&ivwl_iface_wl_region,
				       IVWL_WIRE_REQUEST, r->rects[i].op);
		rp_put(q, NULL, id, op, r->rects[i].x, r->rects[i].y,
		       r->rects[i].w, r->rects[i].h);
	}
	rp_put(q, NULL, surface, m, id);
	rp_put(q, NULL, id, IVWL_MSG_REQ_WL_REGION_DESTROY);
}

/* The parts of a surface state (RP_CHANGED_*) in what, as requests. */
static void
emit_state(struct ivwl_replay *rp, struct rp_obj *s,
	   const struct rp_surface_state *st, uint32_t what,
	   struct ivwl_replay_buf *q)
{
	uint32_t vp = rp_ref_live(rp, &s->viewport) ? s->viewport.id : 0;
	uint32_t buffer = rp_ref_live(rp, &st->buffer) ? st->buffer.id : 0;

	if (what & RP_CHANGED_TRANSFORM)
		rp_put(q, NULL, s->id,
		       IVWL_MSG_REQ_WL_SURFACE_SET_BUFFER_TRANSFORM,
		       st->transform);
	if (what & RP_CHANGED_SCALE)
		rp_put(q, NULL, s->id, IVWL_MSG_REQ_WL_SURFACE_SET_BUFFER_SCALE,
		       st->scale);
	if (what & RP_CHANGED_OPAQUE)
		emit_region(rp, s->id,
			    IVWL_MSG_REQ_WL_SURFACE_SET_OPAQUE_REGION,
			    &st->opaque, q);
	if (what & RP_CHANGED_INPUT)
		emit_region(rp, s->id, IVWL_MSG_REQ_WL_SURFACE_SET_INPUT_REGION,
			    &st->input, q);
	if ((what & RP_CHANGED_SOURCE) && vp)
		rp_put(q, NULL, vp, IVWL_MSG_REQ_WP_VIEWPORT_SET_SOURCE,
		       st->source[0], st->source[1], st->source[2],
		       st->source[3]);
	if ((what & RP_CHANGED_DESTINATION) && vp)
		rp_put(q, NULL, vp, IVWL_MSG_REQ_WP_VIEWPORT_SET_DESTINATION,
		       st->destination[0], st->destination[1]);
	if (!(what & RP_CHANGED_BUFFER))
		return;
	/* A buffer destroyed since it was attached is none. */
	rp_put(q, NULL, s->id, IVWL_MSG_REQ_WL_SURFACE_ATTACH, buffer, 0,
	       0);
	if (!buffer)
		return;
	if (s->version >= 4)
		rp_put(q, NULL, s->id, IVWL_MSG_REQ_WL_SURFACE_DAMAGE_BUFFER,
		       0, 0, INT32_MAX, INT32_MAX);
	else
		rp_put(q, NULL, s->id, IVWL_MSG_REQ_WL_SURFACE_DAMAGE, 0, 0,
		       INT32_MAX, INT32_MAX);
}

/* The parts of a committed state that are not a new surface's. */
static uint32_t
state_set(struct ivwl_replay *rp, const struct rp_surface_state *c)
{
	uint32_t what = 0;

	if (c->transform)
		what |= RP_CHANGED_TRANSFORM;
	if (c->scale != 1)
		what |= RP_CHANGED_SCALE;
	if (c->opaque.set)
		what |= RP_CHANGED_OPAQUE;
	if (c->input.set)
		what |= RP_CHANGED_INPUT;
	if (c->source[2] != RP_UNSET_SOURCE)
		what |= RP_CHANGED_SOURCE;
	if (c->destination[0] != RP_UNSET_DESTINATION)
		what |= RP_CHANGED_DESTINATION;
	if (c->buffer.id && rp_ref_live(rp, &c->buffer))
		what |= RP_CHANGED_BUFFER;
	return what;
}

void
rp_emit_frames(struct rp_obj *s, struct ivwl_replay_buf *q)
{
	unsigned int i;

	for (i = 0; i < s->nframes; i++)
		rp_put(q, NULL, s->id, IVWL_MSG_REQ_WL_SURFACE_FRAME,
		       s->frames[i]);
}

/*
 * What the surface showed: its state, its buffer, all of it damaged,
 * committed.  Then what the client set since and has not committed yet,
 * frame callbacks included: its next commit applies it on this display
 * as on the old one, and this display answers those callbacks.
 */
void
rp_emit_surface_state(struct ivwl_replay *rp, struct rp_obj *s,
		      struct ivwl_replay_buf *q)
{
	emit_state(rp, s, s->current, state_set(rp, s->current), q);
	rp_put(q, NULL, s->id, IVWL_MSG_REQ_WL_SURFACE_COMMIT);
	emit_state(rp, s, s->pending, s->pending->changed, q);
	rp_emit_frames(s, q);
}

/* A surface not made again: its kept callbacks get their answer now. */
static void
answer_frames(struct rp_obj *s, struct ivwl_replay_buf *synth)
{
	unsigned int i;

	for (i = 0; i < s->nframes; i++) {
		rp_put(synth, NULL, s->frames[i],
		       IVWL_MSG_EVT_WL_CALLBACK_DONE, 0);
		rp_put(synth, NULL, IVWL_WIRE_DISPLAY_ID,
		       IVWL_MSG_EVT_WL_DISPLAY_DELETE_ID, s->frames[i]);
	}
	s->nframes = 0;
}

/* The xdg_surface of a surface, when it has a live toplevel role. */
static struct rp_obj *
toplevel_of(struct ivwl_replay *rp, struct rp_obj *s, bool *has_xdg)
{
	struct rp_obj *xs = rp_obj_at(rp, s->role.id);
	struct rp_obj *role;

	*has_xdg = false;
	if (!xs || xs->seq != s->role.seq || !xs->replayed ||
	    rp_is_dead(rp, xs->id))
		return NULL;
	*has_xdg = true;
	role = rp_obj_at(rp, xs->role.id);
	if (!role || role->seq != xs->role.seq || !role->replayed ||
	    rp_is_dead(rp, role->id) || role->iface != &ivwl_iface_xdg_toplevel)
		return NULL;
	return xs;
}

static void
emit_surfaces(struct ivwl_replay *rp, struct rp_obj **all, uint32_t n,
	      struct ivwl_replay_buf *q, struct ivwl_replay_buf *synth)
{
	struct rp_obj *s, *xs;
	bool has_xdg;
	uint32_t i;

	/* Children (made later) first: their state waits for the parent. */
	for (i = n; i-- > 0;) {
		s = all[i];
		if (s->iface != &ivwl_iface_wl_surface)
			continue;
		if (!s->replayed || rp_is_dead(rp, s->id)) {
			answer_frames(s, synth);
			continue;
		}
		xs = toplevel_of(rp, s, &has_xdg);
		if (!s->committed || (has_xdg && !xs)) {
			/* It may not commit yet: the client will. */
			emit_state(rp, s, s->pending, s->pending->changed, q);
			rp_emit_frames(s, q);
			if (xs)
				rp_emit_deferred(rp, xs, q);
			continue;
		}
		if (!xs) {
			rp_emit_surface_state(rp, s, q);
			continue;
		}
		/* The initial commit; the rest after the first configure. */
		rp_put(q, NULL, s->id, IVWL_MSG_REQ_WL_SURFACE_COMMIT);
		xs->awaiting = true;
		rp->awaiting++;
	}
}

int
rp_globals_listed(struct ivwl_replay *rp, struct ivwl_replay_buf *q,
		  struct ivwl_replay_buf *synth, const char **why)
{
	struct rp_obj **all;
	uint32_t id, n = 0, i, temp_pool = 0;
	int ret = 0;

	if (rp->fresh_overflow) {
		*why = "the new display lists too many globals";
		return -EPROTO;
	}
	match_globals(rp, synth);
	all = malloc((rp->objs_alloc + 1) * sizeof(*all));
	if (!all) {
		*why = "out of memory";
		return -ENOMEM;
	}
	for (id = 0; id < rp->objs_alloc; id++)
		if (rp->objs[id])
			all[n++] = rp->objs[id];
	qsort(all, n, sizeof(*all), by_seq);
	for (i = 0; i < n && ret == 0; i++)
		ret = emit_object(rp, all[i], &temp_pool, q, why);
	if (ret < 0)
		goto out;
	for (i = 0; i < n; i++)
		emit_setters(rp, all[i], q);
	if (temp_pool)
		rp_put(q, NULL, temp_pool, IVWL_MSG_REQ_WL_SHM_POOL_DESTROY);
	rp->awaiting = 0;
	emit_surfaces(rp, all, n, q, synth);
	rp->phase = rp->awaiting ? RP_CONFIGURE : RP_LIVE;
	if (rp->phase == RP_LIVE)
		rp->restarts++;
	if (q->oom || synth->oom) {
		*why = "out of memory";
		ret = -ENOMEM;
	}
out:
	free(all);
	return ret;
}
