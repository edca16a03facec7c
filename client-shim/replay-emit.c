/* SPDX-License-Identifier: MIT */
/*
 * Replaying the model (replay.h) on a new display, and keeping the
 * client's view consistent afterwards.
 *
 * The client keeps its ids.  libwayland-server takes a client's new id
 * only if it is at most one past the highest it has seen, so the replay
 * first sends a wl_display.sync for every id below the client's highest:
 * each such callback is made and freed at once, and the display's id
 * space then has room for any id, in any order.  Objects are then made
 * again in the order the client made them, their kept state set, and
 * every window committed as it was, after acking its first configure.
 *
 * Objects the display made (data offers) get new ids on the new display;
 * from the first restart on, those ids are mapped both ways.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ivwl-protocols.h"
#include "replay-internal.h"

#define SYNC_DONE_SIZE 12u

/* Objects a replay makes again, or which are only ever in flight. */
static const char *const replayable[] = {
	"wl_registry", "wl_compositor", "wl_subcompositor", "wl_shm",
	"wl_shm_pool", "wl_buffer", "wl_surface", "wl_region",
	"wl_subsurface", "wl_seat", "wl_pointer", "wl_keyboard", "wl_touch",
	"wl_output", "wl_data_device_manager", "wl_data_device",
	"xdg_wm_base", "xdg_surface", "xdg_toplevel", "xdg_positioner",
	"wp_viewporter", "wp_viewport", "wp_presentation",
	"zxdg_decoration_manager_v1", "zxdg_toplevel_decoration_v1",
	"zxdg_output_manager_v1", "zxdg_output_v1",
	"zwp_primary_selection_device_manager_v1",
	"zwp_primary_selection_device_v1",
	"wp_single_pixel_buffer_manager_v1",
	"wp_fractional_scale_manager_v1", "wp_fractional_scale_v1",
	"zwp_idle_inhibit_manager_v1", "zwp_idle_inhibitor_v1",
	"zwp_relative_pointer_manager_v1", "zwp_relative_pointer_v1",
	"zwp_pointer_gestures_v1", "zwp_pointer_gesture_swipe_v1",
	"zwp_pointer_gesture_pinch_v1", "zwp_pointer_gesture_hold_v1",
	"zwp_input_timestamps_manager_v1", "zwp_input_timestamps_v1",
	"zwp_keyboard_shortcuts_inhibit_manager_v1",
	"zwp_keyboard_shortcuts_inhibitor_v1", "xdg_activation_v1",
	"zwp_pointer_constraints_v1", "zwp_tablet_manager_v2",
	"zwp_linux_explicit_synchronization_v1",
};

static bool
is_replayable(const struct ivwl_interface *iface)
{
	size_t i;

	for (i = 0; i < sizeof(replayable) / sizeof(replayable[0]); i++)
		if (strcmp(iface->name, replayable[i]) == 0)
			return true;
	return false;
}

bool
rp_is_dead(const struct ivwl_replay *rp, uint32_t id)
{
	return rp_flag(rp->dead, rp->dead_alloc, id) != 0;
}

int
rp_set_dead(struct ivwl_replay *rp, uint32_t id, bool dead)
{
	return rp_flag_set(&rp->dead, &rp->dead_alloc, id, dead);
}

static int
set_priv(struct ivwl_replay *rp, uint32_t id, bool priv)
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

/* ---- ids the display made ------------------------------------------ */

static int
srv_grow(struct ivwl_replay *rp, uint32_t index)
{
	uint32_t n = rp->srv_alloc ? rp->srv_alloc : 64;
	uint32_t *a, *b;

	if (index >= IVWL_WIRE_MAX_OBJECTS)
		return -EPROTO;
	if (index < rp->srv_alloc)
		return 0;
	while (n <= index)
		n *= 2;
	a = realloc(rp->srv_to_client, n * sizeof(*a));
	if (!a)
		return -ENOMEM;
	rp->srv_to_client = a;
	b = realloc(rp->srv_to_display, n * sizeof(*b));
	if (!b)
		return -ENOMEM;
	rp->srv_to_display = b;
	memset(a + rp->srv_alloc, 0, (n - rp->srv_alloc) * sizeof(*a));
	memset(b + rp->srv_alloc, 0, (n - rp->srv_alloc) * sizeof(*b));
	rp->srv_alloc = n;
	return 0;
}

static uint32_t
srv_client_of(const struct ivwl_replay *rp, uint32_t display_id)
{
	uint32_t i = display_id - IVWL_WIRE_SERVER_ID_START;

	return i < rp->srv_alloc ? rp->srv_to_client[i] : 0;
}

static uint32_t
srv_display_of(const struct ivwl_replay *rp, uint32_t client_id)
{
	uint32_t i = client_id - IVWL_WIRE_SERVER_ID_START;

	return i < rp->srv_alloc ? rp->srv_to_display[i] : 0;
}

/* A client id for an object the display just made: the lowest free. */
static int
srv_new(struct ivwl_replay *rp, const struct ivwl_wire_map *map,
	uint32_t display_id, uint32_t *client_id)
{
	struct ivwl_wire_object wo;
	uint32_t i, c, d = display_id - IVWL_WIRE_SERVER_ID_START;
	int ret;

	for (i = 0; i <= map->server.count; i++) {
		c = IVWL_WIRE_SERVER_ID_START + i;
		if ((ivwl_wire_map_lookup(map, c, &wo) == 0 && !wo.zombie) ||
		    srv_display_of(rp, c) != 0)
			continue;
		ret = srv_grow(rp, i > d ? i : d);
		if (ret < 0)
			return ret;
		if (rp->srv_to_client[d])
			rp->srv_to_display[rp->srv_to_client[d] -
					   IVWL_WIRE_SERVER_ID_START] = 0;
		rp->srv_to_client[d] = c;
		rp->srv_to_display[i] = display_id;
		*client_id = c;
		return 0;
	}
	return -EPROTO;
}

/*
 * A data offer the display made under an id past the next the client
 * can take: the plugin withheld the one before (its source was gone, or
 * the VM's clipboard policy keeps it), and libwayland, like the client's
 * view here, takes display-made ids only densely.
 */
static bool
id_gap(const struct ivwl_wire_map *map, const struct ivwl_wire_msg *msg)
{
	uint32_t id;

	if ((msg->iface != &ivwl_iface_wl_data_device ||
	     msg->opcode != IVWL_EVT_WL_DATA_DEVICE_DATA_OFFER) &&
	    (msg->iface != &ivwl_iface_zwp_primary_selection_device_v1 ||
	     msg->opcode !=
	     IVWL_EVT_ZWP_PRIMARY_SELECTION_DEVICE_V1_DATA_OFFER))
		return false;
	id = ivwl_wire_arg_new_id(msg, 0);
	return id >= IVWL_WIRE_SERVER_ID_START &&
	       id - IVWL_WIRE_SERVER_ID_START > map->server.count;
}

/* From now on display-made ids are mapped; those the client has stay. */
static int
start_mapping(struct ivwl_replay *rp, const struct ivwl_wire_map *map)
{
	struct ivwl_wire_object wo;
	uint32_t i, id;
	int ret;

	if (map->server.count) {
		ret = srv_grow(rp, map->server.count - 1);
		if (ret < 0)
			return ret;
	}
	for (i = 0; i < map->server.count; i++) {
		id = IVWL_WIRE_SERVER_ID_START + i;
		if (ivwl_wire_map_lookup(map, id, &wo) == 0 && !wo.zombie)
			rp->srv_to_client[i] = rp->srv_to_display[i] = id;
	}
	rp->mapping = true;
	return 0;
}

static void
put_word(uint8_t *bytes, uint16_t offset, uint32_t v)
{
	memcpy(bytes + offset, &v, sizeof(v));
}

/* ---- requests after a restart ---------------------------------------- */

static void
answer_dropped_new(struct ivwl_replay *rp, const struct ivwl_wire_msg *msg,
		   struct ivwl_replay_buf *synth)
{
	const struct ivwl_interface *iface;
	uint32_t id;
	unsigned int k;

	for (k = 0; k < msg->nargs; k++) {
		if (msg->args[k].type != 'n' || !msg->message->types)
			continue;
		id = msg->args[k].value;
		iface = msg->message->types[k];
		rp_set_dead(rp, id, true);
		if (iface == &ivwl_iface_xdg_popup) {
			rp_put(synth, NULL, id, IVWL_EVT_XDG_POPUP_POPUP_DONE,
			       "");
		} else if (iface == &ivwl_iface_wl_callback) {
			rp_put(synth, NULL, id, IVWL_EVT_WL_CALLBACK_DONE,
			       "u", 0);
			rp_put(synth, NULL, IVWL_WIRE_DISPLAY_ID,
			       IVWL_EVT_WL_DISPLAY_DELETE_ID, "u", id);
		} else if (iface == &ivwl_iface_wp_presentation_feedback) {
			rp_put(synth, NULL, id,
			       IVWL_EVT_WP_PRESENTATION_FEEDBACK_DISCARDED, "");
			rp_put(synth, NULL, IVWL_WIRE_DISPLAY_ID,
			       IVWL_EVT_WL_DISPLAY_DELETE_ID, "u", id);
		}
	}
}

static enum ivwl_replay_verdict
drop_request(struct ivwl_replay *rp, const struct ivwl_wire_msg *msg,
	     struct ivwl_replay_buf *synth)
{
	struct rp_obj *xs;

	answer_dropped_new(rp, msg, synth);
	/* A popup on a parent the restart dismissed: see role_dropped(). */
	if (msg->iface == &ivwl_iface_xdg_surface &&
	    msg->opcode == IVWL_REQ_XDG_SURFACE_GET_POPUP) {
		xs = rp_obj_at(rp, msg->object);
		if (xs)
			xs->roleless = true;
	}
	if (!(msg->message->flags & IVWL_MESSAGE_DESTRUCTOR))
		return IVWL_REPLAY_DROP;
	rp_obj_free(rp, msg->object);
	if (msg->object < IVWL_WIRE_SERVER_ID_START) {
		rp_set_dead(rp, msg->object, false);
		rp_put(synth, NULL, IVWL_WIRE_DISPLAY_ID,
		       IVWL_EVT_WL_DISPLAY_DELETE_ID, "u", msg->object);
	}
	return IVWL_REPLAY_DROP;
}

/*
 * The commit of a surface whose xdg_surface the display has without the
 * role the relay dropped (the client asked for a popup on one the
 * restart dismissed, and heard popup_done for it): weston would call it
 * a protocol error.  The client destroys that popup next.
 */
static bool
role_dropped(struct ivwl_replay *rp, const struct ivwl_wire_msg *msg)
{
	struct rp_obj *s = rp_obj_at(rp, msg->object), *xs;

	if (!s || msg->opcode != IVWL_REQ_WL_SURFACE_COMMIT || !s->role.id)
		return false;
	xs = rp_obj_at(rp, s->role.id);
	return xs && xs->seq == s->role.seq && xs->roleless;
}

/*
 * A configure ack: of an old display's serial (below the base), or of
 * the one the relay acked, it goes nowhere; else it takes the display's
 * serial again.
 */
static bool
stale_ack(struct ivwl_replay *rp, const struct ivwl_wire_msg *msg,
	  uint8_t *bytes)
{
	struct rp_obj *o = rp_obj_at(rp, msg->object);
	uint32_t serial = ivwl_wire_arg_uint(msg, 0);

	if (serial < rp->serial_base || (o && serial == o->acked))
		return true;
	put_word(bytes, msg->args[0].offset, serial - rp->serial_base);
	return false;
}

enum ivwl_replay_verdict
ivwl_replay_filter_request(struct ivwl_replay *rp,
			   const struct ivwl_wire_msg *msg, uint8_t *bytes,
			   struct ivwl_replay_buf *synth)
{
	struct rp_global *g;
	uint32_t id, d;
	unsigned int k;

	if (!rp->mapping)
		return IVWL_REPLAY_PASS;
	if (msg->object >= IVWL_WIRE_SERVER_ID_START) {
		d = srv_display_of(rp, msg->object);
		if (!d)
			return drop_request(rp, msg, synth);
		put_word(bytes, 0, d);
	} else if (rp_is_dead(rp, msg->object)) {
		return drop_request(rp, msg, synth);
	}
	for (k = 0; k < msg->nargs; k++) {
		if (msg->args[k].type != 'o')
			continue;
		id = msg->args[k].value;
		if (id >= IVWL_WIRE_SERVER_ID_START) {
			d = srv_display_of(rp, id);
			if (!d)
				return drop_request(rp, msg, synth);
			put_word(bytes, msg->args[k].offset, d);
		} else if (id && rp_is_dead(rp, id)) {
			return drop_request(rp, msg, synth);
		}
	}
	if (msg->iface == &ivwl_iface_xdg_surface &&
	    msg->opcode == IVWL_REQ_XDG_SURFACE_ACK_CONFIGURE &&
	    stale_ack(rp, msg, bytes))
		return IVWL_REPLAY_DROP;
	if (msg->iface == &ivwl_iface_wl_surface && role_dropped(rp, msg))
		return IVWL_REPLAY_DROP;
	if (msg->iface == &ivwl_iface_wl_registry &&
	    msg->opcode == IVWL_REQ_WL_REGISTRY_BIND) {
		g = rp_global_by_client(rp, ivwl_wire_arg_uint(msg, 0));
		if (g)
			put_word(bytes, msg->args[0].offset, g->display_name);
	}
	for (k = 0; k < msg->nargs; k++)
		if (msg->args[k].type == 'n')
			rp_set_dead(rp, msg->args[k].value, false);
	return IVWL_REPLAY_PASS;
}

/* ---- events ---------------------------------------------------------- */

int
ivwl_replay_skip_event(struct ivwl_replay *rp, uint8_t *bytes, uint32_t len)
{
	uint32_t head[2], c;

	if (!rp->mapping || len < sizeof(head))
		return 0;
	memcpy(head, bytes, sizeof(head));
	if (head[0] >= IVWL_WIRE_SERVER_ID_START) {
		c = srv_client_of(rp, head[0]);
		if (!c)
			return -EPROTO;
		put_word(bytes, 0, c);
		return 0;
	}
	if (!rp_flag(rp->priv, rp->priv_alloc, head[0]))
		return 0;
	/* Only the relay's callbacks get events of their own. */
	if ((head[1] >> 16) != SYNC_DONE_SIZE ||
	    (head[1] & 0xffff) != IVWL_EVT_WL_CALLBACK_DONE)
		return -EPROTO;
	return 1;
}

static void
record_global(struct ivwl_replay *rp, const struct ivwl_wire_msg *msg,
	      uint8_t *bytes)
{
	uint32_t name = ivwl_wire_arg_uint(msg, 0);
	const char *iface_name = ivwl_wire_arg_string(msg, 1);
	struct rp_global *g = rp_global_by_display(rp, name);

	if (g) {
		put_word(bytes, msg->args[0].offset, g->client_name);
		return;
	}
	if (rp->nglobals == RP_MAX_GLOBALS) {
		if (!rp->broken)
			rp->broken = "the display lists too many globals";
		return;
	}
	g = &rp->globals[rp->nglobals++];
	g->display_name = name;
	g->client_name = rp->restarted ? rp->next_client_name++ : name;
	if (!rp->restarted && name >= rp->next_client_name)
		rp->next_client_name = name + 1;
	g->iface = iface_name ? ivwl_wire_interface_find(iface_name) : NULL;
	g->version = ivwl_wire_arg_uint(msg, 2);
	put_word(bytes, msg->args[0].offset, g->client_name);
}

static void
forget_global(struct ivwl_replay *rp, const struct ivwl_wire_msg *msg,
	      uint8_t *bytes)
{
	struct rp_global *g =
		rp_global_by_display(rp, ivwl_wire_arg_uint(msg, 0));

	if (!g)
		return;
	put_word(bytes, msg->args[0].offset, g->client_name);
	*g = rp->globals[--rp->nglobals];
}

static void
collect_fresh(struct ivwl_replay *rp, const struct ivwl_wire_msg *msg)
{
	const char *iface_name = ivwl_wire_arg_string(msg, 1);
	struct rp_global *f;

	if (msg->object != rp->fresh_registry)
		return;
	if (rp->nfresh == RP_MAX_GLOBALS) {
		rp->fresh_overflow = true;
		return;
	}
	f = &rp->fresh[rp->nfresh++];
	memset(f, 0, sizeof(*f));
	f->display_name = ivwl_wire_arg_uint(msg, 0);
	f->iface = iface_name ? ivwl_wire_interface_find(iface_name) : NULL;
	f->version = ivwl_wire_arg_uint(msg, 2);
}

static void
first_configure(struct ivwl_replay *rp, struct rp_obj *xs, uint32_t serial,
		struct ivwl_replay_buf *q)
{
	struct rp_obj *surface = rp_obj_at(rp, xs->create.refs[1].id);

	rp_put(q, NULL, xs->id, IVWL_REQ_XDG_SURFACE_ACK_CONFIGURE, "u",
	       serial);
	xs->acked = serial + rp->serial_base;
	xs->awaiting = false;
	if (surface && rp_ref_live(rp, &xs->create.refs[1]))
		rp_emit_surface_state(rp, surface, q);
	rp_emit_deferred(rp, xs, q);
	if (--rp->awaiting == 0) {
		rp->phase = RP_LIVE;
		rp->restarts++;
	}
}

static void
input_event(struct ivwl_replay *rp, const struct ivwl_wire_msg *msg)
{
	struct rp_obj *o = rp_obj_at(rp, msg->object);

	if (!o)
		return;
	if (msg->iface == &ivwl_iface_wl_buffer) {
		o->busy = false;
	} else if (msg->iface == &ivwl_iface_wl_keyboard) {
		if (msg->opcode == IVWL_EVT_WL_KEYBOARD_ENTER)
			o->focus = ivwl_wire_arg_object(msg, 1);
		else if (msg->opcode == IVWL_EVT_WL_KEYBOARD_LEAVE)
			o->focus = 0;
	} else if (msg->iface == &ivwl_iface_wl_pointer) {
		if (msg->opcode == IVWL_EVT_WL_POINTER_ENTER)
			o->focus = ivwl_wire_arg_object(msg, 1);
		else if (msg->opcode == IVWL_EVT_WL_POINTER_LEAVE)
			o->focus = 0;
	} else if (msg->iface == &ivwl_iface_wl_data_device) {
		if (msg->opcode == IVWL_EVT_WL_DATA_DEVICE_ENTER)
			o->dnd = true;
		else if (msg->opcode == IVWL_EVT_WL_DATA_DEVICE_LEAVE ||
			 msg->opcode == IVWL_EVT_WL_DATA_DEVICE_DROP)
			o->dnd = false;
	}
}

/*
 * Configure serials the client sees: a new display's serials start over
 * and would repeat those of the old one, whose configures the client may
 * still ack; above the base, they never do.  Only ack_configure takes
 * them back.
 */
static void
client_serial(struct ivwl_replay *rp, struct ivwl_wire_msg *msg,
	      uint8_t *bytes, uint32_t serial)
{
	serial += rp->serial_base;
	msg->args[0].value = serial;
	put_word(bytes, msg->args[0].offset, serial);
	if (serial > rp->max_serial)
		rp->max_serial = serial;
}

static int map_new_ids(struct ivwl_replay *rp, struct ivwl_wire_map *map,
		       struct ivwl_wire_msg *msg, uint8_t *bytes);
static int list_globals(struct ivwl_replay *rp, struct ivwl_replay_buf *q,
			const char **why);

int
ivwl_replay_event(struct ivwl_replay *rp, struct ivwl_wire_map *map,
		  struct ivwl_wire_msg *msg, uint8_t *bytes,
		  enum ivwl_replay_verdict *verdict,
		  struct ivwl_replay_buf *requests,
		  struct ivwl_replay_buf *synth, const char **why)
{
	struct rp_obj *o;
	uint32_t serial;
	int ret;

	*verdict = IVWL_REPLAY_PASS;
	if (!rp->mapping && id_gap(map, msg)) {
		ret = start_mapping(rp, map);
		if (ret < 0) {
			*why = "out of memory";
			return ret;
		}
	}
	if (rp->mapping) {
		ret = map_new_ids(rp, map, msg, bytes);
		if (ret < 0) {
			*why = "the new display sent an object id that "
			       "cannot be mapped";
			return ret;
		}
	}
	if (msg->iface == &ivwl_iface_wl_registry) {
		if (rp->phase == RP_GLOBALS) {
			if (msg->opcode == IVWL_EVT_WL_REGISTRY_GLOBAL)
				collect_fresh(rp, msg);
			*verdict = IVWL_REPLAY_DROP;
		} else if (msg->opcode == IVWL_EVT_WL_REGISTRY_GLOBAL) {
			record_global(rp, msg, bytes);
		} else {
			forget_global(rp, msg, bytes);
		}
		return 0;
	}
	if (msg->iface == &ivwl_iface_wl_display &&
	    msg->opcode == IVWL_EVT_WL_DISPLAY_DELETE_ID &&
	    rp_flag(rp->priv, rp->priv_alloc, ivwl_wire_arg_uint(msg, 0))) {
		/* The relay's own object went: the client never knew it. */
		set_priv(rp, ivwl_wire_arg_uint(msg, 0), false);
		*verdict = IVWL_REPLAY_DROP;
		if (ivwl_wire_arg_uint(msg, 0) != rp->marker)
			return 0;
		rp->marker = 0;
		if (rp->phase == RP_FILL)
			return list_globals(rp, requests, why);
		if (rp->phase == RP_GLOBALS)
			return rp_globals_listed(rp, requests, synth, why);
		return 0;
	}
	if (msg->iface == &ivwl_iface_xdg_surface &&
	    msg->opcode == IVWL_EVT_XDG_SURFACE_CONFIGURE) {
		o = rp_obj_at(rp, msg->object);
		serial = ivwl_wire_arg_uint(msg, 0);
		if (o && o->awaiting)
			first_configure(rp, o, serial, requests);
		client_serial(rp, msg, bytes, serial);
		return 0;
	}
	input_event(rp, msg);
	return 0;
}

/* Maps the display's ids in an event's object and new_id arguments. */
static int
map_new_ids(struct ivwl_replay *rp, struct ivwl_wire_map *map,
	    struct ivwl_wire_msg *msg, uint8_t *bytes)
{
	uint32_t id, c;
	unsigned int k;
	int ret;

	for (k = 0; k < msg->nargs; k++) {
		id = msg->args[k].value;
		if ((msg->args[k].type != 'o' && msg->args[k].type != 'n') ||
		    id < IVWL_WIRE_SERVER_ID_START)
			continue;
		if (msg->args[k].type == 'n') {
			ret = srv_new(rp, map, id, &c);
			if (ret < 0)
				return ret;
		} else {
			c = srv_client_of(rp, id);
			if (!c)
				return -EPROTO;
		}
		msg->args[k].value = c;
		put_word(bytes, msg->args[k].offset, c);
	}
	return 0;
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
		rp_put(synth, NULL, id, IVWL_EVT_WL_CALLBACK_DONE, "u", 0);
	} else if (i == &ivwl_iface_wp_presentation_feedback) {
		rp_put(synth, NULL, id,
		       IVWL_EVT_WP_PRESENTATION_FEEDBACK_DISCARDED, "");
	} else if (i == &ivwl_iface_xdg_popup) {
		rp_put(synth, NULL, id, IVWL_EVT_XDG_POPUP_POPUP_DONE, "");
		rp_set_dead(rp, id, true);
	} else if (i == &ivwl_iface_wl_data_source) {
		rp_put(synth, NULL, id, IVWL_EVT_WL_DATA_SOURCE_CANCELLED, "");
		rp_set_dead(rp, id, true);
	} else if (i == &ivwl_iface_zwp_primary_selection_source_v1) {
		rp_put(synth, NULL, id,
		       IVWL_EVT_ZWP_PRIMARY_SELECTION_SOURCE_V1_CANCELLED, "");
		rp_set_dead(rp, id, true);
	} else if (i == &ivwl_iface_wl_touch) {
		rp_put(synth, NULL, id, IVWL_EVT_WL_TOUCH_CANCEL, "");
	} else if (i == &ivwl_iface_wl_data_device) {
		if (o && o->dnd)
			rp_put(synth, NULL, id, IVWL_EVT_WL_DATA_DEVICE_LEAVE,
			       "");
		rp_put(synth, NULL, id, IVWL_EVT_WL_DATA_DEVICE_SELECTION,
		       "o", 0);
	} else if (i == &ivwl_iface_zwp_primary_selection_device_v1) {
		rp_put(synth, NULL, id,
		       IVWL_EVT_ZWP_PRIMARY_SELECTION_DEVICE_V1_SELECTION,
		       "o", 0);
	} else if ((i == &ivwl_iface_wl_keyboard ||
		    i == &ivwl_iface_wl_pointer) && o && o->focus) {
		/* Only to a surface the client still has. */
		if (ivwl_wire_map_lookup(map, o->focus, &s) == 0 &&
		    !s.zombie)
			rp_put(synth, NULL, id, i == &ivwl_iface_wl_keyboard ?
			       IVWL_EVT_WL_KEYBOARD_LEAVE :
			       IVWL_EVT_WL_POINTER_LEAVE, "uo", 0, o->focus);
		if (i == &ivwl_iface_wl_pointer && wo->version >= 5)
			rp_put(synth, NULL, id, IVWL_EVT_WL_POINTER_FRAME, "");
		o->focus = 0;
	}
	if (i == &ivwl_iface_wl_callback ||
	    i == &ivwl_iface_wp_presentation_feedback)
		rp_put(synth, NULL, IVWL_WIRE_DISPLAY_ID,
		       IVWL_EVT_WL_DISPLAY_DELETE_ID, "u", id);
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
			       IVWL_EVT_WL_DISPLAY_DELETE_ID, "u", id);
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
			rp_put(synth, NULL, id, IVWL_EVT_WL_BUFFER_RELEASE, "");
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

	set_priv(rp, id, true);
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
		if (set_priv(rp, id, true) < 0)
			goto err_oom;
		rp_put(q, NULL, IVWL_WIRE_DISPLAY_ID, IVWL_REQ_WL_DISPLAY_SYNC,
		       "n", id);
	}
	/* Ids are reused only after their delete_id, as a client would. */
	rp->marker = rp_temp_id(rp);
	rp_put(q, NULL, IVWL_WIRE_DISPLAY_ID, IVWL_REQ_WL_DISPLAY_SYNC, "n",
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
	rp_put(q, NULL, IVWL_WIRE_DISPLAY_ID, IVWL_REQ_WL_DISPLAY_SYNC, "n",
	       rp_temp_id(rp));
}

/* The registries again, and a sync after which all globals are in. */
static int
list_globals(struct ivwl_replay *rp, struct ivwl_replay_buf *q,
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
	rp_put(q, NULL, IVWL_WIRE_DISPLAY_ID, IVWL_REQ_WL_DISPLAY_SYNC, "n",
	       rp->marker);
	if (q->oom) {
		*why = "out of memory";
		return -ENOMEM;
	}
	rp->phase = RP_GLOBALS;
	return 0;
}
