/* SPDX-License-Identifier: MIT */
/*
 * The clipboard on the proxy's side (proxy.h): a wl_data_device of the
 * proxy's own on Xwayland's connection.  The compositor sends a
 * selection to the client that has the keyboard, and that client is
 * Xwayland's connection whenever an X window has it: the device hears
 * the selection exactly when the X side may see it, and the compositor
 * (with ivwl's clipboard policy between VMs) decides what it shows.
 *
 * The proxy's own sources offer one more MIME type, a marker made of
 * random bytes at start, so that the offer the compositor makes back
 * of the proxy's selection is known and not told to X as a new one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "ivwl-protocols.h"
#include "log.h"
#include "proxy-internal.h"

#define MIME_MAX 255u

void
ivwl_xwm_selection_init(struct selection *sel)
{
	uint8_t r[8] = { 0 };
	size_t i, n;

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		ivwl_log_error("getrandom failed: the selection marker is "
			       "guessable");
	n = (size_t)snprintf(sel->marker, sizeof(sel->marker),
			     "application/x-ivwl-xwm-");
	for (i = 0; i < sizeof(r); i++)
		n += (size_t)snprintf(sel->marker + n, sizeof(sel->marker) - n,
				      "%02x", r[i]);
}

static void
offer_clear(struct offer *o)
{
	for (uint32_t i = 0; i < o->n; i++)
		free(o->mimes[i]);
	memset(o, 0, sizeof(*o));
}

void
ivwl_xwm_selection_release(struct selection *sel)
{
	for (uint32_t i = 0; i < SELECTION_OFFERS; i++)
		offer_clear(&sel->offers[i]);
}

static struct offer *
offer_find(struct selection *sel, uint32_t id)
{
	for (uint32_t i = 0; id && i < SELECTION_OFFERS; i++)
		if (sel->offers[i].id == id)
			return &sel->offers[i];
	return NULL;
}

bool
ivwl_xwm_selection_owns(const struct ivwl_xwm_proxy *p, uint32_t id)
{
	return offer_find((struct selection *)&p->sel, id) != NULL;
}


/* The offer goes: the compositor's object with it. */
static int
offer_drop(struct ivwl_xwm_proxy *p, struct offer *o)
{
	uint32_t id = o->id;

	if (p->sel.current == id)
		p->sel.current = 0;
	offer_clear(o);
	return ivwl_xwm_request0(p, id, IVWL_REQ_WL_DATA_OFFER_DESTROY);
}

static int
device_made(struct ivwl_xwm_proxy *p)
{
	struct selection *sel = &p->sel;

	sel->manager = ivwl_xwm_bind(p, sel->manager_name,
				     "wl_data_device_manager",
				     sel->manager_version <
				     DATA_DEVICE_MANAGER_VERSION ?
				     sel->manager_version :
				     DATA_DEVICE_MANAGER_VERSION);
	sel->seat = ivwl_xwm_bind(p, sel->seat_name, "wl_seat", SEAT_VERSION);
	if (!sel->manager || !sel->seat)
		return -EPROTO;
	sel->device = ivwl_xwm_own_id(p);
	if (!sel->device)
		return -EMFILE;
	return ivwl_xwm_send_up(p, sel->manager,
			IVWL_MSG_REQ_WL_DATA_DEVICE_MANAGER_GET_DATA_DEVICE,
			sel->device, sel->seat);
}

void
ivwl_xwm_selection_global(struct ivwl_xwm_proxy *p, uint32_t name,
			  const char *iface, uint32_t version)
{
	struct selection *sel = &p->sel;

	if (strcmp(iface, "wl_data_device_manager") == 0 &&
	    !sel->manager_name) {
		sel->manager_name = name;
		sel->manager_version = version;
	} else if (strcmp(iface, "wl_seat") == 0 && !sel->seat_name) {
		sel->seat_name = name;
	} else {
		return;
	}
	if (sel->manager_name && sel->seat_name && !sel->manager &&
	    device_made(p) < 0)
		ivwl_log_error("no clipboard for X: the data device could "
			       "not be made");
}

void
ivwl_xwm_selection_input(struct ivwl_xwm_proxy *p,
			 const struct ivwl_wire_msg *msg)
{
	struct ivwl_evt_wl_keyboard_enter key_enter;
	struct ivwl_evt_wl_keyboard_key key;
	struct ivwl_evt_wl_pointer_enter pointer_enter;
	struct ivwl_evt_wl_pointer_button button;

	if (ivwl_evt_wl_keyboard_enter_decode(msg, &key_enter))
		p->sel.serial = key_enter.serial;
	else if (ivwl_evt_wl_keyboard_key_decode(msg, &key))
		p->sel.serial = key.serial;
	else if (ivwl_evt_wl_pointer_enter_decode(msg, &pointer_enter))
		p->sel.serial = pointer_enter.serial;
	else if (ivwl_evt_wl_pointer_button_decode(msg, &button)) {
		p->sel.serial = button.serial;
		if (button.state == 1)	/* pressed */
			p->sel.press = button.serial;
	}
}

/* data_device.data_offer: a new offer, the oldest giving way. */
static int
offer_made(struct ivwl_xwm_proxy *p, uint32_t id)
{
	struct selection *sel = &p->sel;
	struct offer *o = NULL;
	uint32_t i;

	for (i = 0; i < SELECTION_OFFERS && !o; i++)
		if (!sel->offers[i].id)
			o = &sel->offers[i];
	for (i = 0; i < SELECTION_OFFERS && !o; i++)
		if (sel->offers[i].id != sel->current)
			o = &sel->offers[i];
	if (!o)
		return -EPROTO;
	if (o->id && offer_drop(p, o) < 0)
		return -EPROTO;
	o->id = id;
	return 0;
}

static void
offer_type(struct ivwl_xwm_proxy *p, struct offer *o, const char *mime)
{
	if (!mime || strlen(mime) > MIME_MAX)
		return;
	if (strcmp(mime, p->sel.marker) == 0) {
		o->own = true;
		return;
	}
	if (o->n == SELECTION_MIMES) {
		ivwl_log_debug("an offer of more than %u types: the rest is "
			       "not seen by X", SELECTION_MIMES);
		return;
	}
	o->mimes[o->n] = strdup(mime);
	if (o->mimes[o->n])
		o->n++;
}

/* data_device.selection: every other offer goes, X hears of it. */
static int
selection_is(struct ivwl_xwm_proxy *p, uint32_t id)
{
	struct selection *sel = &p->sel;
	struct offer *o = offer_find(sel, id);
	uint32_t i;

	for (i = 0; i < SELECTION_OFFERS; i++)
		if (sel->offers[i].id && &sel->offers[i] != o &&
		    offer_drop(p, &sel->offers[i]) < 0)
			return -EPROTO;
	sel->current = o ? o->id : 0;
	if (o && o->own)
		return 0;
	p->hooks->selection(p->data, o ? (const char *const *)o->mimes :
			    NULL, o ? o->n : 0);
	return 0;
}

static int
source_event(struct ivwl_xwm_proxy *p, const struct ivwl_wire_msg *msg,
	     int *fds, uint32_t nfds)
{
	struct ivwl_evt_wl_data_source_send send;
	int fd = nfds == 1 ? fds[0] : -1;

	if (msg->object != p->sel.source) {
		/* an old source's, already destroyed */
	} else if (ivwl_evt_wl_data_source_send_decode(msg, &send) &&
		   fd >= 0 && send.mime_type &&
		   strcmp(send.mime_type, p->sel.marker) != 0) {
		p->hooks->send(p->data, send.mime_type, fd);
		return 0;
	} else if (msg->opcode == IVWL_EVT_WL_DATA_SOURCE_CANCELLED) {
		p->sel.source = 0;
		return ivwl_xwm_request0(p, msg->object,
				IVWL_REQ_WL_DATA_SOURCE_DESTROY);
	}
	for (uint32_t i = 0; i < nfds; i++)
		close(fds[i]);
	return 0;
}

int
ivwl_xwm_selection_event(struct ivwl_xwm_proxy *p,
			 const struct ivwl_wire_msg *msg, int *fds,
			 uint32_t nfds)
{
	struct ivwl_evt_wl_data_offer_offer type;
	struct ivwl_evt_wl_data_device_data_offer made;
	struct ivwl_evt_wl_data_device_selection selection;
	struct ivwl_evt_wl_data_device_enter enter;
	struct offer *o;

	if (msg->iface->index == IVWL_IFACE_WL_DATA_SOURCE)
		return source_event(p, msg, fds, nfds);
	for (uint32_t i = 0; i < nfds; i++)
		close(fds[i]);
	if (msg->iface->index == IVWL_IFACE_WL_DATA_OFFER) {
		o = offer_find(&p->sel, msg->object);
		if (o && ivwl_evt_wl_data_offer_offer_decode(msg, &type))
			offer_type(p, o, type.mime_type);
		return 0;
	}
	if (msg->object != p->sel.device)
		return 0;
	if (ivwl_evt_wl_data_device_data_offer_decode(msg, &made))
		return offer_made(p, made.id);
	if (ivwl_evt_wl_data_device_selection_decode(msg, &selection))
		return selection_is(p, selection.id);
	if (ivwl_evt_wl_data_device_enter_decode(msg, &enter)) {
		/* drags into X windows are not bridged: refused at once */
		o = offer_find(&p->sel, enter.id);
		return o ? offer_drop(p, o) : 0;
	}
	return 0;
}

int
ivwl_xwm_proxy_set_selection(struct ivwl_xwm_proxy *p,
			     const char *const *mimes, uint32_t n)
{
	struct selection *sel = &p->sel;
	uint32_t i;

	if (!sel->device)
		return -ENOENT;
	if (sel->source) {
		if (ivwl_xwm_request0(p, sel->source,
			     IVWL_REQ_WL_DATA_SOURCE_DESTROY) < 0)
			return -EPROTO;
		sel->source = 0;
	}
	if (!n)
		return 0;
	sel->source = ivwl_xwm_own_id(p);
	if (!sel->source)
		return -EMFILE;
	if (ivwl_xwm_send_up(p, sel->manager,
			IVWL_MSG_REQ_WL_DATA_DEVICE_MANAGER_CREATE_DATA_SOURCE,
			sel->source) < 0)
		return -EPROTO;
	/* the marker last: weston's clipboard keeps a copy of the first */
	n = n < SELECTION_MIMES ? n : SELECTION_MIMES;
	for (i = 0; i <= n; i++)
		if (ivwl_xwm_send_up(p, sel->source,
				     IVWL_MSG_REQ_WL_DATA_SOURCE_OFFER,
				     ivwl_xwm_wire_string(i < n ? mimes[i] :
							  sel->marker)) < 0)
			return -EPROTO;
	return ivwl_xwm_send_up(p, sel->device,
				IVWL_MSG_REQ_WL_DATA_DEVICE_SET_SELECTION,
				sel->source, sel->serial);
}

int
ivwl_xwm_proxy_receive(struct ivwl_xwm_proxy *p, const char *mime, int fd)
{
	if (!p->sel.current) {
		close(fd);
		return -ENOENT;
	}
	return ivwl_xwm_send_up_fd(p, fd, p->sel.current,
				   IVWL_MSG_REQ_WL_DATA_OFFER_RECEIVE,
				   ivwl_xwm_wire_string(mime));
}
