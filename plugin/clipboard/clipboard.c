/* SPDX-License-Identifier: MIT */
/*
 * Policy on what weston offers a VM: its selection and drags.
 *
 * weston offers the selection to the client with keyboard focus, and a
 * drag to the surface under it, by sending wl_data_device.data_offer, the
 * offer's MIME types, then selection or enter.  This runs on those events
 * on their way to a VM, after weston made them: the weston_data_offer
 * behind the new id names its source, and the source's owner and the
 * VM's policy decide.  A withheld offer never reaches the VM: its events
 * are dropped, selection(offer) becomes selection(null), a drag's enter,
 * motion, drop and leave are dropped, and weston's offer is destroyed
 * (unlinked from its source first, or weston would cancel the owner's
 * selection).  Deciding when the event leaves, not when weston made it,
 * sees every source change made in between: a source gone or no longer
 * known is withheld.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libweston/libweston.h>
#include <libweston/config-parser.h>

#include "clipboard-internal.h"
#include "connection.h"
#include "ivwl-limits.h"
#include "ivwl-plugin.h"
#include "ivwl-protocols.h"
#include "vm.h"


/* One offer a VM client never heard of. */
struct withheld {
	uint32_t id;		/* 0: a free entry */
	bool gone;		/* weston's offer destroyed already */
};

/* What is withheld from one VM client; found by its destroy listener. */
struct clip_client {
	struct wl_listener destroy;
	struct withheld withheld[IVWL_CLIP_WITHHELD_MAX];
	uint32_t drag_offer;	/* the withheld drag under way, 0: none */
};

struct clip_seat {
	struct ivwl_clipboard *cb;
	struct weston_seat *seat;
	struct wl_list link;
	struct wl_listener selection;
	struct wl_listener destroy;
};

const char *
ivwl_clip_owner_name(const struct ivwl_clip_owner *owner)
{
	switch (owner->party) {
	case IVWL_CLIP_VM:
		return owner->vm->name;
	case IVWL_CLIP_LOCAL:
		return "local";
	default:
		return "unknown";
	}
}

struct ivwl_clip_owner
ivwl_clip_owner_of_client(struct ivwl_clipboard *cb, struct wl_client *client)
{
	struct ivwl_clip_owner o = { IVWL_CLIP_LOCAL, NULL };

	o.vm = ivwl_vm_from_client(cb->plugin, client);
	if (o.vm)
		o.party = IVWL_CLIP_VM;
	return o;
}

struct ivwl_clip_owner
ivwl_clip_owner_of(struct ivwl_clipboard *cb, struct weston_data_source *source)
{
	struct ivwl_clip_owner o = { IVWL_CLIP_UNKNOWN, NULL };

	if (!source)
		return o;
	if (source->resource)
		return ivwl_clip_owner_of_client(
			cb, wl_resource_get_client(source->resource));
	if (source == cb->copy_source)
		return cb->copy_owner;
	return o;
}

/* ---- whose selection weston holds ------------------------------------ */

static void
on_copy_destroy(struct wl_listener *listener, void *data)
{
	struct ivwl_clipboard *cb =
		wl_container_of(listener, cb, copy_destroy);

	wl_list_remove(&cb->copy_destroy.link);
	wl_list_init(&cb->copy_destroy.link);
	cb->copy_source = NULL;
}

static void
on_selection(struct wl_listener *listener, void *data)
{
	struct clip_seat *cs = wl_container_of(listener, cs, selection);
	struct ivwl_clipboard *cb = cs->cb;
	struct weston_data_source *source = cs->seat->selection_data_source;
	struct ivwl_clip_owner owner = ivwl_clip_owner_of(cb, source);

	ivwl_clip_paste_selection(cb->pastes, cs->seat);
	if (!source || source == cb->copy_source)
		return;
	if (owner.party != IVWL_CLIP_UNKNOWN) {
		cb->last_owner = owner;
		return;
	}
	/* weston's copy of the last client selection: that one's data */
	wl_list_remove(&cb->copy_destroy.link);
	wl_signal_add(&source->destroy_signal, &cb->copy_destroy);
	cb->copy_source = source;
	cb->copy_owner = cb->last_owner;
}

static void
seat_forget(struct clip_seat *cs)
{
	wl_list_remove(&cs->selection.link);
	wl_list_remove(&cs->destroy.link);
	wl_list_remove(&cs->link);
	free(cs);
}

static void
on_seat_destroy(struct wl_listener *listener, void *data)
{
	struct clip_seat *cs = wl_container_of(listener, cs, destroy);

	ivwl_clip_paste_seat_gone(cs->cb->pastes, cs->seat);
	seat_forget(cs);
}

static void
watch_seat(struct ivwl_clipboard *cb, struct weston_seat *seat)
{
	struct clip_seat *cs = calloc(1, sizeof(*cs));

	if (!cs) {
		ivwl_log("out of memory: selections of seat %s are offered "
			 "to no VM", seat->seat_name);
		return;
	}
	cs->cb = cb;
	cs->seat = seat;
	cs->selection.notify = on_selection;
	wl_signal_add(&seat->selection_signal, &cs->selection);
	cs->destroy.notify = on_seat_destroy;
	wl_signal_add(&seat->destroy_signal, &cs->destroy);
	wl_list_insert(&cb->seats, &cs->link);
}

static void
on_seat_created(struct wl_listener *listener, void *data)
{
	struct ivwl_clipboard *cb =
		wl_container_of(listener, cb, seat_created);

	watch_seat(cb, data);
}

static const struct ivwl_clipboard_ops clipboard_ops = {
	.event = ivwl_clipboard_event,
	.request = ivwl_clipboard_request,
	.receive = ivwl_clipboard_receive,
	.send = ivwl_clipboard_send,
	.channel_end = ivwl_clipboard_channel_end,
};

struct ivwl_clipboard *
ivwl_clipboard_create(struct ivwl_plugin *plugin)
{
	struct weston_compositor *ec = plugin->compositor;
	struct ivwl_clipboard *cb = calloc(1, sizeof(*cb));
	struct weston_seat *seat;

	if (!cb)
		return NULL;
	cb->plugin = plugin;
	cb->last_owner.party = IVWL_CLIP_UNKNOWN;
	wl_list_init(&cb->seats);
	wl_list_init(&cb->copy_destroy.link);
	cb->copy_destroy.notify = on_copy_destroy;
	cb->trusted = ivwl_clip_trusted_create(cb);
	cb->transfers = ivwl_clip_transfers_create(cb);
	if (!cb->trusted || !cb->transfers) {
		ivwl_clip_trusted_destroy(cb->trusted);
		ivwl_clip_transfers_destroy(cb->transfers);
		free(cb);
		return NULL;
	}
	wl_list_for_each(seat, &ec->seat_list, link)
		watch_seat(cb, seat);
	cb->seat_created.notify = on_seat_created;
	wl_signal_add(&ec->seat_created_signal, &cb->seat_created);
	plugin->clipboard_ops = &clipboard_ops;
	return cb;
}

void
ivwl_clipboard_destroy(struct ivwl_clipboard *cb)
{
	struct clip_seat *cs, *tmp;

	if (cb->plugin->clipboard_ops == &clipboard_ops)
		cb->plugin->clipboard_ops = NULL;
	ivwl_clip_trusted_destroy(cb->trusted);
	ivwl_clip_transfers_destroy(cb->transfers);
	wl_list_for_each_safe(cs, tmp, &cb->seats, link)
		seat_forget(cs);
	wl_list_remove(&cb->seat_created.link);
	wl_list_remove(&cb->copy_destroy.link);
	free(cb);
}

/* ---- the offers a VM client hears of ---------------------------------- */

static void
on_client_destroy(struct wl_listener *listener, void *data)
{
	struct clip_client *cc = wl_container_of(listener, cc, destroy);

	wl_list_remove(&cc->destroy.link);
	free(cc);
}

static struct clip_client *
clip_client(struct wl_client *client, bool create)
{
	struct wl_listener *l;
	struct clip_client *cc;

	l = wl_client_get_destroy_listener(client, on_client_destroy);
	if (l)
		return wl_container_of(l, cc, destroy);
	if (!create)
		return NULL;
	cc = calloc(1, sizeof(*cc));
	if (!cc)
		return NULL;
	cc->destroy.notify = on_client_destroy;
	wl_client_add_destroy_listener(client, &cc->destroy);
	return cc;
}

static struct withheld *
withheld_slot(struct clip_client *cc, uint32_t id)
{
	uint32_t i;

	if (!cc || !id)
		return NULL;
	for (i = 0; i < IVWL_CLIP_WITHHELD_MAX; i++)
		if (cc->withheld[i].id == id)
			return &cc->withheld[i];
	return NULL;
}

static struct withheld *
free_slot(struct clip_client *cc)
{
	uint32_t i;

	for (i = 0; cc && i < IVWL_CLIP_WITHHELD_MAX; i++)
		if (!cc->withheld[i].id)
			return &cc->withheld[i];
	return NULL;
}

/* The weston_data_offer behind a wl_data_offer id of the client;
 * *resource NULL unless the id is a live wl_data_offer of weston's
 * (the trusted paste makes its own). */
static struct weston_data_offer *
weston_offer(struct wl_client *client, uint32_t id,
	     struct wl_resource **resource)
{
	*resource = wl_client_get_object(client, id);
	if (*resource && (strcmp(wl_resource_get_class(*resource),
				 wl_data_offer_interface.name) != 0 ||
			  ivwl_clip_paste_is_offer(*resource)))
		*resource = NULL;
	return *resource ? wl_resource_get_user_data(*resource) : NULL;
}

/* An id of the client that names one of the trusted paste's offers. */
static bool
paste_offer(struct wl_client *client, uint32_t id)
{
	return id && ivwl_clip_paste_is_offer(wl_client_get_object(client, id));
}

/*
 * Cuts weston's offer from its source.  weston 10 cancels the source of
 * a current offer that is destroyed (destroy_data_offer): unlinked
 * first, as weston does when a drag moves on, the owner keeps its
 * selection.
 */
static void
destroy_offer(struct weston_data_offer *offer, struct wl_resource *resource)
{
	if (!offer)
		return;
	if (offer->source) {
		if (offer->source->offer == offer)
			offer->source->offer = NULL;
		wl_list_remove(&offer->source_destroy_listener.link);
		offer->source = NULL;
	}
	wl_resource_destroy(resource);
}

static bool
may_offer(struct ivwl_connection *conn, struct weston_data_source *source,
	  enum ivwl_clip_kind kind, struct ivwl_clip_owner *from)
{
	struct ivwl_clipboard *cb = conn->vm->plugin->clipboard;

	*from = ivwl_clip_owner_of(cb, source);
	switch (from->party) {
	case IVWL_CLIP_VM:
		return ivwl_clip_policy_allows(&from->vm->clip,
					       &conn->vm->clip, kind);
	case IVWL_CLIP_LOCAL:
		return ivwl_clip_policy_allows(NULL, &conn->vm->clip, kind);
	default:
		return false;
	}
}

static void
log_withheld(struct ivwl_connection *conn, const struct ivwl_clip_owner *from,
	     enum ivwl_clip_kind kind)
{
	ivwl_log("[%s] slot %u: withheld %s offer of %s's data (%s=%s)",
		 conn->vm->name, conn->slot,
		 kind == IVWL_CLIP_DRAG ? "a drag" : "the selection",
		 from ? ivwl_clip_owner_name(from) : "a gone source",
		 ivwl_clip_policy_key(kind),
		 ivwl_clip_mode_name(conn->vm->clip.mode[kind]));
}

/* wl_data_device.data_offer: true to withhold the new offer. */
static bool
on_data_offer(struct ivwl_connection *conn, uint32_t id)
{
	struct weston_data_offer *offer;
	struct weston_data_source *source;
	struct wl_resource *resource;
	struct ivwl_clip_owner from;
	enum ivwl_clip_kind kind;
	struct clip_client *cc;
	struct withheld *slot;

	if (paste_offer(conn->client, id))
		return false;
	offer = weston_offer(conn->client, id, &resource);
	source = offer ? offer->source : NULL;
	kind = source && !source->set_selection ? IVWL_CLIP_DRAG :
						  IVWL_CLIP_SELECTION;
	if (source && may_offer(conn, source, kind, &from))
		return false;
	cc = clip_client(conn->client, true);
	slot = free_slot(cc);
	if (!slot) {
		/*
		 * Cannot follow its events: weston's offer goes now, so
		 * whatever of it still reaches the client names nothing,
		 * and the client goes too.
		 */
		ivwl_log("[%s] slot %u: too many withheld offers",
			 conn->vm->name, conn->slot);
		destroy_offer(offer, resource);
		ivwl_connection_kill_later(conn);
		return true;
	}
	slot->id = id;
	slot->gone = false;
	log_withheld(conn, source ? &from : NULL, kind);
	/*
	 * A selection's offer goes now: its id stays in the map until its
	 * selection event, the last of its burst.  A drag's stays until
	 * leave, as weston's drag refers to it until then.
	 */
	if (kind == IVWL_CLIP_SELECTION) {
		destroy_offer(offer, resource);
		slot->gone = true;
	}
	return true;
}

/*
 * The client's last word on a withheld offer.  The id was weston's
 * until now: from here on it may name a new object.
 */
static void
end_withheld(struct ivwl_connection *conn, struct withheld *slot)
{
	struct weston_data_offer *offer;
	struct wl_resource *resource;

	if (!slot->gone) {
		offer = weston_offer(conn->client, slot->id, &resource);
		destroy_offer(offer, resource);
	}
	ivwl_wire_map_forget(&conn->xl.objects, slot->id);
	slot->id = 0;
}

bool
ivwl_clipboard_event(struct ivwl_connection *conn,
		     const struct ivwl_wire_msg *msg, uint8_t *bytes)
{
	struct ivwl_clipboard *cb = conn->vm->plugin->clipboard;
	struct ivwl_evt_wl_data_device_data_offer data_offer;
	struct ivwl_evt_wl_data_device_selection selection;
	struct ivwl_evt_wl_data_device_enter enter;
	struct clip_client *cc;
	struct withheld *slot;

	if (msg->iface == &ivwl_iface_wl_data_offer) {
		cc = clip_client(conn->client, false);
		return withheld_slot(cc, msg->object) != NULL;
	}
	if (msg->iface != &ivwl_iface_wl_data_device)
		return false;
	switch (msg->opcode) {
	case IVWL_EVT_WL_DATA_DEVICE_DATA_OFFER:
		ivwl_evt_wl_data_device_data_offer_decode(msg, &data_offer);
		return on_data_offer(conn, data_offer.id);
	case IVWL_EVT_WL_DATA_DEVICE_SELECTION:
		ivwl_evt_wl_data_device_selection_decode(msg, &selection);
		if (paste_offer(conn->client, selection.id))
			return false;
		cc = clip_client(conn->client, false);
		slot = withheld_slot(cc, selection.id);
		if (slot) {
			selection.id = 0;	/* no selection */
			ivwl_evt_wl_data_device_selection_rewrite(msg, bytes,
								  &selection);
			end_withheld(conn, slot);
		}
		/* an unread paste stands in for weston's selection */
		return ivwl_clip_paste_replace(cb->pastes, conn, msg->object);
	case IVWL_EVT_WL_DATA_DEVICE_ENTER:
		cc = clip_client(conn->client, false);
		if (cc)
			cc->drag_offer = 0;
		ivwl_evt_wl_data_device_enter_decode(msg, &enter);
		slot = withheld_slot(cc, enter.id);
		if (slot)
			cc->drag_offer = slot->id;
		return slot != NULL;
	case IVWL_EVT_WL_DATA_DEVICE_MOTION:
	case IVWL_EVT_WL_DATA_DEVICE_DROP:
		cc = clip_client(conn->client, false);
		return cc && cc->drag_offer;
	case IVWL_EVT_WL_DATA_DEVICE_LEAVE:
		cc = clip_client(conn->client, false);
		if (!cc || !cc->drag_offer)
			return false;
		slot = withheld_slot(cc, cc->drag_offer);
		cc->drag_offer = 0;
		if (slot)
			end_withheld(conn, slot);
		return true;
	default:
		return false;
	}
}

/*
 * A receive that crosses parties: the log says who reads what of whom
 * now, and how much when its channel ends.  weston's clipboard manager
 * writes the copy it keeps of a selection whose owner went with one
 * write() when its fd is writable: a blocking pipe would hold weston's
 * thread until the VM read it all.
 */
bool
ivwl_clipboard_receive(struct ivwl_connection *conn,
		       const struct ivwl_wire_msg *msg, struct ivwl_channel *ch)
{
	struct ivwl_clipboard *cb = conn->vm->plugin->clipboard;
	struct weston_data_offer *offer;
	struct wl_resource *resource;
	struct ivwl_req_wl_data_offer_receive receive;
	struct ivwl_clip_owner from;
	const char *mime;
	bool drag, weston_writes;

	if (!ivwl_req_wl_data_offer_receive_decode(msg, &receive))
		return false;
	mime = receive.mime_type;
	offer = weston_offer(conn->client, msg->object, &resource);
	if (!offer || !offer->source || offer->source->offer != offer)
		return false;
	weston_writes = !offer->source->resource;
	from = ivwl_clip_owner_of(cb, offer->source);
	if (from.party == IVWL_CLIP_VM && from.vm == conn->vm)
		return weston_writes;
	drag = !offer->source->set_selection;
	ivwl_log("[%s] slot %u: reads %s of %s's %s", conn->vm->name,
		 conn->slot, mime ? mime : "(null)",
		 ivwl_clip_owner_name(&from), drag ? "drag" : "selection");
	ivwl_clip_transfer_note(ch, false, drag, ivwl_clip_owner_name(&from),
				mime);
	return weston_writes;
}

/* The withheld offer msg names (as its object or an argument), or 0. */
static uint32_t
names_withheld(struct clip_client *cc, const struct ivwl_wire_msg *msg)
{
	unsigned int i;

	if (withheld_slot(cc, msg->object))
		return msg->object;
	for (i = 0; i < msg->nargs; i++)
		if (msg->args[i].type == 'o' &&
		    withheld_slot(cc, msg->args[i].value))
			return msg->args[i].value;
	return 0;
}

int
ivwl_clipboard_request(struct ivwl_connection *conn,
		       const struct ivwl_wire_msg *msg, const char **why)
{
	static char refusal[160];
	struct clip_client *cc = clip_client(conn->client, false);
	uint32_t id = cc ? names_withheld(cc, msg) : 0;

	if (id) {
		/* the client cannot know the id: it guessed */
		snprintf(refusal, sizeof(refusal), "%s@%u.%s: names "
			 "wl_data_offer@%u, which weston never offered it",
			 msg->iface->name, msg->object, msg->message->name,
			 id);
		*why = refusal;
		return -EPROTO;
	}
	return 0;
}
