/* SPDX-License-Identifier: MIT */
/*
 * The client's requests and the display's events as they pass through
 * the relay, before and after a restart (replay-restart.c): requests on
 * objects the new display does not have are dropped and answered,
 * global names and configure serials are kept as the client knows
 * them, and the events of the new display drive the replay's steps.
 *
 * Objects the display made (data offers) get new ids on the new display;
 * from the first restart on, those ids are mapped both ways.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ivwl-protocols.h"
#include "replay-internal.h"

#define SYNC_DONE_SIZE 12u

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
	struct ivwl_evt_wl_data_device_data_offer data;
	struct ivwl_evt_zwp_primary_selection_device_v1_data_offer primary;
	uint32_t id;

	if (ivwl_evt_wl_data_device_data_offer_decode(msg, &data))
		id = data.id;
	else if (ivwl_evt_zwp_primary_selection_device_v1_data_offer_decode(
			msg, &primary))
		id = primary.offer;
	else
		return false;
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
			rp_put(synth, NULL, id,
			       IVWL_MSG_EVT_XDG_POPUP_POPUP_DONE);
		} else if (iface == &ivwl_iface_wl_callback) {
			rp_put(synth, NULL, id, IVWL_MSG_EVT_WL_CALLBACK_DONE,
			       0);
			rp_put(synth, NULL, IVWL_WIRE_DISPLAY_ID,
			       IVWL_MSG_EVT_WL_DISPLAY_DELETE_ID, id);
		} else if (iface == &ivwl_iface_wp_presentation_feedback) {
			rp_put(synth, NULL, id,
			       IVWL_MSG_EVT_WP_PRESENTATION_FEEDBACK_DISCARDED);
			rp_put(synth, NULL, IVWL_WIRE_DISPLAY_ID,
			       IVWL_MSG_EVT_WL_DISPLAY_DELETE_ID, id);
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
		       IVWL_MSG_EVT_WL_DISPLAY_DELETE_ID, msg->object);
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
	struct ivwl_req_xdg_surface_ack_configure args;

	ivwl_req_xdg_surface_ack_configure_decode(msg, &args);
	if (args.serial < rp->serial_base || (o && args.serial == o->acked))
		return true;
	args.serial -= rp->serial_base;
	ivwl_req_xdg_surface_ack_configure_rewrite(msg, bytes, &args);
	return false;
}

enum ivwl_replay_verdict
ivwl_replay_filter_request(struct ivwl_replay *rp,
			   const struct ivwl_wire_msg *msg, uint8_t *bytes,
			   struct ivwl_replay_buf *synth)
{
	struct ivwl_req_wl_registry_bind bind;
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
	if (ivwl_req_wl_registry_bind_decode(msg, &bind)) {
		g = rp_global_by_client(rp, bind.name);
		if (g) {
			bind.name = g->display_name;
			ivwl_req_wl_registry_bind_rewrite(msg, bytes, &bind);
		}
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
	struct ivwl_evt_wl_registry_global args;
	struct rp_global *g;
	uint32_t name;

	ivwl_evt_wl_registry_global_decode(msg, &args);
	name = args.name;
	g = rp_global_by_display(rp, name);
	if (g) {
		args.name = g->client_name;
		ivwl_evt_wl_registry_global_rewrite(msg, bytes, &args);
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
	g->iface = args.interface ? ivwl_wire_interface_find(args.interface) :
				    NULL;
	g->version = args.version;
	args.name = g->client_name;
	ivwl_evt_wl_registry_global_rewrite(msg, bytes, &args);
}

static void
forget_global(struct ivwl_replay *rp, const struct ivwl_wire_msg *msg,
	      uint8_t *bytes)
{
	struct ivwl_evt_wl_registry_global_remove args;
	struct rp_global *g;

	ivwl_evt_wl_registry_global_remove_decode(msg, &args);
	g = rp_global_by_display(rp, args.name);
	if (!g)
		return;
	args.name = g->client_name;
	ivwl_evt_wl_registry_global_remove_rewrite(msg, bytes, &args);
	*g = rp->globals[--rp->nglobals];
}

static void
collect_fresh(struct ivwl_replay *rp, const struct ivwl_wire_msg *msg)
{
	struct ivwl_evt_wl_registry_global args;
	struct rp_global *f;

	if (msg->object != rp->fresh_registry)
		return;
	ivwl_evt_wl_registry_global_decode(msg, &args);
	if (rp->nfresh == RP_MAX_GLOBALS) {
		rp->fresh_overflow = true;
		return;
	}
	f = &rp->fresh[rp->nfresh++];
	memset(f, 0, sizeof(*f));
	f->display_name = args.name;
	f->iface = args.interface ? ivwl_wire_interface_find(args.interface) :
				    NULL;
	f->version = args.version;
}

static void
first_configure(struct ivwl_replay *rp, struct rp_obj *xs, uint32_t serial,
		struct ivwl_replay_buf *q)
{
	struct rp_obj *surface = rp_obj_at(rp, xs->create.refs[1].id);

	rp_put(q, NULL, xs->id, IVWL_MSG_REQ_XDG_SURFACE_ACK_CONFIGURE,
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
	struct ivwl_evt_wl_keyboard_enter key_enter;
	struct ivwl_evt_wl_pointer_enter pointer_enter;
	struct rp_obj *o = rp_obj_at(rp, msg->object);

	if (!o)
		return;
	if (msg->iface == &ivwl_iface_wl_buffer) {
		o->busy = false;
	} else if (msg->iface == &ivwl_iface_wl_keyboard) {
		if (ivwl_evt_wl_keyboard_enter_decode(msg, &key_enter))
			o->focus = key_enter.surface;
		else if (msg->opcode == IVWL_EVT_WL_KEYBOARD_LEAVE)
			o->focus = 0;
	} else if (msg->iface == &ivwl_iface_wl_pointer) {
		if (ivwl_evt_wl_pointer_enter_decode(msg, &pointer_enter))
			o->focus = pointer_enter.surface;
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
client_serial(struct ivwl_replay *rp, const struct ivwl_wire_msg *msg,
	      uint8_t *bytes, struct ivwl_evt_xdg_surface_configure *args)
{
	args->serial += rp->serial_base;
	ivwl_evt_xdg_surface_configure_rewrite(msg, bytes, args);
	if (args->serial > rp->max_serial)
		rp->max_serial = args->serial;
}

static int map_new_ids(struct ivwl_replay *rp, struct ivwl_wire_map *map,
		       struct ivwl_wire_msg *msg, uint8_t *bytes);

int
ivwl_replay_event(struct ivwl_replay *rp, struct ivwl_wire_map *map,
		  struct ivwl_wire_msg *msg, uint8_t *bytes,
		  enum ivwl_replay_verdict *verdict,
		  struct ivwl_replay_buf *requests,
		  struct ivwl_replay_buf *synth, const char **why)
{
	struct ivwl_evt_xdg_surface_configure configure;
	struct ivwl_evt_wl_display_delete_id deleted;
	struct rp_obj *o;
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
	if (ivwl_evt_wl_display_delete_id_decode(msg, &deleted) &&
	    rp_flag(rp->priv, rp->priv_alloc, deleted.id)) {
		/* The relay's own object went: the client never knew it. */
		rp_set_priv(rp, deleted.id, false);
		*verdict = IVWL_REPLAY_DROP;
		if (deleted.id != rp->marker)
			return 0;
		rp->marker = 0;
		if (rp->phase == RP_FILL)
			return rp_list_globals(rp, requests, why);
		if (rp->phase == RP_GLOBALS)
			return rp_globals_listed(rp, requests, synth, why);
		return 0;
	}
	if (ivwl_evt_xdg_surface_configure_decode(msg, &configure)) {
		o = rp_obj_at(rp, msg->object);
		if (o && o->awaiting)
			first_configure(rp, o, configure.serial, requests);
		client_serial(rp, msg, bytes, &configure);
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
