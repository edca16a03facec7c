/* SPDX-License-Identifier: MIT */
/*
 * Replaying the model (replay.h) on a new display: what the client hears
 * when its display goes away, and the first steps on the new one.
 *
 * The client keeps its ids.  libwayland-server takes a client's new id
 * only if it is at most one past the highest it has seen, so the replay
 * first sends a wl_display.sync for every id below the client's highest:
 * each such callback is made and freed at once, and the display's id
 * space then has room for any id, in any order.  Objects are then made
 * again in the order the client made them, their kept state set, and
 * every window committed as it was, after acking its first configure
 * (replay-rebuild.c).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ivwl-protocols.h"
#include "replay-internal.h"

/* Objects a replay makes again, or which are only ever in flight:
 * their descriptors say (protocol/wayland/descriptors/). */
static bool
is_replayable(const struct ivwl_interface *iface)
{
	return iface->flags & IVWL_IFACE_REPLAY;
}

int
rp_set_priv(struct ivwl_replay *rp, uint32_t id, bool priv)
{
	bool was = rp_flag(rp->priv, rp->priv_alloc, id);
	int ret = rp_flag_set(&rp->priv, &rp->priv_alloc, id, priv);

	if (ret == 0 && was != priv) {
		if (priv)
			rp->priv_pending++;
		else
			rp->priv_pending--;
	}
	return ret;
}

/* ---- the display went away -------------------------------------------- */

static void
say_gone(struct ivwl_replay *rp, const struct ivwl_wire_map *map,
	 uint32_t id, const struct ivwl_wire_object *wo,
	 struct ivwl_replay_buf *synth)
{
	struct rp_obj *o = rp_obj_at(rp, id);
	struct ivwl_wire_object s;
	const struct ivwl_interface *i = wo->iface;

	if (i == &ivwl_iface_wl_callback) {
		rp_put(synth, NULL, id, IVWL_MSG_EVT_WL_CALLBACK_DONE, 0);
	} else if (i == &ivwl_iface_wp_presentation_feedback) {
		rp_put(synth, NULL, id,
		       IVWL_MSG_EVT_WP_PRESENTATION_FEEDBACK_DISCARDED);
	} else if (i == &ivwl_iface_xdg_popup) {
		rp_put(synth, NULL, id, IVWL_MSG_EVT_XDG_POPUP_POPUP_DONE);
		rp_set_dead(rp, id, true);
	} else if (i == &ivwl_iface_wl_data_source) {
		rp_put(synth, NULL, id, IVWL_MSG_EVT_WL_DATA_SOURCE_CANCELLED);
		rp_set_dead(rp, id, true);
	} else if (i == &ivwl_iface_zwp_primary_selection_source_v1) {
		rp_put(synth, NULL, id,
		       IVWL_MSG_EVT_ZWP_PRIMARY_SELECTION_SOURCE_V1_CANCELLED);
		rp_set_dead(rp, id, true);
	} else if (i == &ivwl_iface_wl_touch) {
		rp_put(synth, NULL, id, IVWL_MSG_EVT_WL_TOUCH_CANCEL);
	} else if (i == &ivwl_iface_wl_data_device) {
		if (o && o->dnd)
			rp_put(synth, NULL, id,
			       IVWL_MSG_EVT_WL_DATA_DEVICE_LEAVE);
		rp_put(synth, NULL, id, IVWL_MSG_EVT_WL_DATA_DEVICE_SELECTION,
		       0);
	} else if (i == &ivwl_iface_zwp_primary_selection_device_v1) {
		rp_put(synth, NULL, id,
		       IVWL_MSG_EVT_ZWP_PRIMARY_SELECTION_DEVICE_V1_SELECTION,
		       0);
	} else if ((i == &ivwl_iface_wl_keyboard ||
		    i == &ivwl_iface_wl_pointer) && o && o->focus) {
		/* Only to a surface the client still has. */
		if (ivwl_wire_map_lookup(map, o->focus, &s) == 0 &&
		    !s.zombie)
			rp_put(synth, NULL, id, i == &ivwl_iface_wl_keyboard ?
			       IVWL_MSG_EVT_WL_KEYBOARD_LEAVE :
			       IVWL_MSG_EVT_WL_POINTER_LEAVE, 0, o->focus);
		if (i == &ivwl_iface_wl_pointer && wo->version >= 5)
			rp_put(synth, NULL, id, IVWL_MSG_EVT_WL_POINTER_FRAME);
		o->focus = 0;
	}
	if (i == &ivwl_iface_wl_callback ||
	    i == &ivwl_iface_wp_presentation_feedback)
		rp_put(synth, NULL, IVWL_WIRE_DISPLAY_ID,
		       IVWL_MSG_EVT_WL_DISPLAY_DELETE_ID, id);
}

static bool
only_in_flight(const struct ivwl_interface *i)
{
	return i == &ivwl_iface_wl_callback ||
	       i == &ivwl_iface_wp_presentation_feedback ||
	       i == &ivwl_iface_xdg_popup || i == &ivwl_iface_wl_data_source ||
	       i == &ivwl_iface_zwp_primary_selection_source_v1;
}

static int
check_client_ids(struct ivwl_replay *rp, const struct ivwl_wire_map *map,
		 struct ivwl_replay_buf *synth, const char **why)
{
	static char buf[96];
	struct ivwl_wire_object wo;
	struct rp_obj *o;
	uint32_t id;

	for (id = IVWL_WIRE_DISPLAY_ID + 1; id < map->client.count; id++) {
		if (ivwl_wire_map_lookup(map, id, &wo) < 0)
			continue;
		if (wo.zombie) {
			/* The old display would have said so. */
			rp_obj_free(rp, id);
			rp_put(synth, NULL, IVWL_WIRE_DISPLAY_ID,
			       IVWL_MSG_EVT_WL_DISPLAY_DELETE_ID, id);
			continue;
		}
		o = rp_obj_at(rp, id);
		if (!only_in_flight(wo.iface) &&
		    (!o || !is_replayable(wo.iface))) {
			snprintf(buf, sizeof(buf), "a %s cannot be replayed",
				 wo.iface->name);
			*why = buf;
			return -EPROTO;
		}
	}
	return 0;
}

/*
 * After the buffers' releases: a client redraws on a frame callback's
 * done, with the buffers it knows free by then.  weston-simple-shm,
 * told done before the release of its other buffer, found both busy
 * and aborted ("Both buffers busy at redraw()"); a display releases
 * the buffer a commit replaced before it answers that commit's frame.
 */
static void
say_all_gone(struct ivwl_replay *rp, const struct ivwl_wire_map *map,
	     struct ivwl_replay_buf *synth)
{
	struct ivwl_wire_object wo;
	uint32_t id;

	for (id = IVWL_WIRE_DISPLAY_ID + 1; id < map->client.count; id++) {
		if (ivwl_wire_map_lookup(map, id, &wo) < 0 || wo.zombie)
			continue;
		/* Kept for the new display: see hold_frames(). */
		if (rp_flag(rp->held, rp->held_alloc, id))
			continue;
		say_gone(rp, map, id, &wo, synth);
	}
}

static int
check_server_ids(struct ivwl_replay *rp, const struct ivwl_wire_map *map,
		 const char **why)
{
	struct ivwl_wire_object wo;
	uint32_t i, id;

	for (i = 0; i < map->server.count; i++) {
		id = IVWL_WIRE_SERVER_ID_START + i;
		if (ivwl_wire_map_lookup(map, id, &wo) < 0 || wo.zombie)
			continue;
		if (wo.iface != &ivwl_iface_wl_data_offer &&
		    wo.iface != &ivwl_iface_zwp_primary_selection_offer_v1) {
			*why = "an object the display made cannot be replayed";
			return -EPROTO;
		}
	}
	/* No display object is known any more: all dead, none mapped. */
	if (rp->srv_alloc) {
		memset(rp->srv_to_client, 0,
		       rp->srv_alloc * sizeof(*rp->srv_to_client));
		memset(rp->srv_to_display, 0,
		       rp->srv_alloc * sizeof(*rp->srv_to_display));
	}
	return 0;
}

/*
 * Frame callbacks a surface asked for since its last commit belong to
 * its pending state, which the old display never showed: the client's
 * commit is held, or still to come.  Answered now, they would have the
 * client draw its next frame while both the buffer shown and the one
 * attached are busy (weston-simple-shm aborts: "Both buffers busy at
 * redraw()").  They go to the new display with the pending state
 * (rp_emit_frames()), which answers them after that commit.
 */
static int
hold_frames(struct ivwl_replay *rp, const struct ivwl_wire_map *map)
{
	struct ivwl_wire_object wo;
	struct rp_obj *s;
	unsigned int i, n;
	uint32_t id;

	if (rp->held_alloc)
		memset(rp->held, 0, rp->held_alloc);
	for (id = 0; id < rp->objs_alloc; id++) {
		s = rp->objs[id];
		if (!s || s->iface != &ivwl_iface_wl_surface)
			continue;
		for (i = n = 0; i < s->nframes; i++) {
			if (ivwl_wire_map_lookup(map, s->frames[i], &wo) < 0 ||
			    wo.zombie || wo.iface != &ivwl_iface_wl_callback)
				continue;
			if (rp_flag_set(&rp->held, &rp->held_alloc,
					s->frames[i], 1) < 0)
				return -ENOMEM;
			s->frames[n++] = s->frames[i];
		}
		s->nframes = (uint8_t)n;
	}
	return 0;
}

/*
 * The old display reads no buffer any more: those it held are released,
 * but for what each surface shows, which the new display will hold.
 */
static void
release_buffers(struct ivwl_replay *rp, struct ivwl_replay_buf *synth)
{
	struct rp_obj *o, *b;
	uint32_t id;

	for (id = 0; id < rp->objs_alloc; id++) {
		o = rp->objs[id];
		if (!o || !o->current)
			continue;
		b = rp_obj_at(rp, o->current->buffer.id);
		if (b && b->seq == o->current->buffer.seq)
			b->shown = true;
	}
	for (id = 0; id < rp->objs_alloc; id++) {
		b = rp->objs[id];
		if (!b || b->iface != &ivwl_iface_wl_buffer)
			continue;
		if (b->busy && !b->shown) {
			rp_put(synth, NULL, id, IVWL_MSG_EVT_WL_BUFFER_RELEASE);
			b->busy = false;
		}
		b->shown = false;
	}
}

/* xdg_surfaces of popups go with them: their role is gone. */
static void
bury_popup_surfaces(struct ivwl_replay *rp)
{
	struct rp_obj *o, *role;
	uint32_t id;

	for (id = 0; id < rp->objs_alloc; id++) {
		o = rp->objs[id];
		if (!o || o->iface != &ivwl_iface_xdg_surface || !o->role.id)
			continue;
		role = rp_obj_at(rp, o->role.id);
		if (role && role->seq == o->role.seq &&
		    role->iface == &ivwl_iface_xdg_popup)
			rp_set_dead(rp, id, true);
	}
}

/* The ids of the relay's own on a display that left, deleted or not. */
static void
forget_replay(struct ivwl_replay *rp)
{
	if (rp->priv_alloc)
		memset(rp->priv, 0, rp->priv_alloc);
	rp->priv_pending = 0;
	rp->marker = 0;
}

int
ivwl_replay_begin(struct ivwl_replay *rp, const struct ivwl_wire_map *map,
		  struct ivwl_replay_buf *synth, const char **why)
{
	uint32_t id;
	int ret;

	if (rp->broken) {
		*why = rp->broken;
		return -EPROTO;
	}
	if (rp->phase != RP_LIVE) {
		/*
		 * The display left again before the replay ended: the model
		 * is whole (the client's requests were held), only the
		 * relay's own ids on that display are moot now.
		 */
		forget_replay(rp);
		rp->awaiting = 0;
		rp->phase = RP_LIVE;
	} else if (rp->priv_pending) {
		/* It configured the windows but never deleted the relay's
		 * last ids: that replay did not finish either. */
		forget_replay(rp);
		rp->restarts--;
	}
	ret = check_server_ids(rp, map, why);
	if (ret < 0)
		return ret;
	if (hold_frames(rp, map) < 0) {
		*why = "out of memory";
		return -ENOMEM;
	}
	ret = check_client_ids(rp, map, synth, why);
	if (ret < 0)
		return ret;
	bury_popup_surfaces(rp);
	release_buffers(rp, synth);
	say_all_gone(rp, map, synth);
	for (id = 0; id < rp->objs_alloc; id++)
		if (rp->objs[id]) {
			rp->objs[id]->replayed = false;
			rp->objs[id]->awaiting = false;
			rp->objs[id]->acked = 0;
		}
	if (synth->oom) {
		*why = "out of memory";
		return -ENOMEM;
	}
	/* The next display's configure serials, as the client sees them. */
	rp->serial_base = rp->max_serial + 1;
	rp->phase = RP_DOWN;
	rp->restarted = true;
	rp->mapping = true;
	return 0;
}

/* ---- the new display ---------------------------------------------------- */

uint32_t
rp_temp_id(struct ivwl_replay *rp)
{
	uint32_t id = rp->next_temp++;

	rp_set_priv(rp, id, true);
	return id;
}

int
ivwl_replay_start(struct ivwl_replay *rp, const struct ivwl_wire_map *map,
		  struct ivwl_replay_buf *q, const char **why)
{
		uint32_t id;

	if (map->client.count + 64 >= IVWL_WIRE_MAX_OBJECTS) {
		*why = "too many object ids to replay";
		return -EPROTO;
	}
	rp->next_temp = map->client.count;
	rp->nfresh = 0;
	rp->fresh_overflow = false;
	rp->fresh_registry = 0;
	/* Room for every id the client holds (see the top of this file). */
	for (id = IVWL_WIRE_DISPLAY_ID + 1; id < map->client.count; id++) {
		if (rp_set_priv(rp, id, true) < 0)
			goto err_oom;
		rp_put(q, NULL, IVWL_WIRE_DISPLAY_ID,
		       IVWL_MSG_REQ_WL_DISPLAY_SYNC, id);
	}
	/* Ids are reused only after their delete_id, as a client would. */
	rp->marker = rp_temp_id(rp);
	rp_put(q, NULL, IVWL_WIRE_DISPLAY_ID, IVWL_MSG_REQ_WL_DISPLAY_SYNC,
	       rp->marker);
	if (q->oom)
		goto err_oom;
	rp->phase = RP_FILL;
	return 0;

err_oom:
	*why = "out of memory";
	return -ENOMEM;
}

void
ivwl_replay_nudge(struct ivwl_replay *rp, struct ivwl_replay_buf *q)
{
	if (rp->phase == RP_DOWN)
		return;
	rp_put(q, NULL, IVWL_WIRE_DISPLAY_ID, IVWL_MSG_REQ_WL_DISPLAY_SYNC,
	       rp_temp_id(rp));
}

int
rp_list_globals(struct ivwl_replay *rp, struct ivwl_replay_buf *q,
		const char **why)
{
	struct rp_obj *o;
	uint32_t id;

	for (id = 0; id < rp->objs_alloc; id++) {
		o = rp->objs[id];
		if (!o || o->iface != &ivwl_iface_wl_registry)
			continue;
		rp_put_bytes(q, NULL, o->create.bytes, o->create.len);
		o->replayed = true;
		if (!rp->fresh_registry)
			rp->fresh_registry = id;
	}
	rp->marker = rp_temp_id(rp);
	rp_put(q, NULL, IVWL_WIRE_DISPLAY_ID, IVWL_MSG_REQ_WL_DISPLAY_SYNC,
	       rp->marker);
	if (q->oom) {
		*why = "out of memory";
		return -ENOMEM;
	}
	rp->phase = RP_GLOBALS;
	return 0;
}
