/* SPDX-License-Identifier: MIT */
/*
 * The trusted paste: the plugin's copy offered once to the party that
 * had the keyboard when the user pasted, without touching weston's
 * selection.
 *
 * Making the copy weston's selection would cancel the selection of
 * whoever held it (its wl-copy exits, its clipboard is gone) and offer
 * the copy to every local client that gets the keyboard.  Instead the
 * plugin makes wl_data_offer objects of its own, in weston's process,
 * for the target's clients alone: data_offer, offer and selection on
 * the client's wl_data_device, as weston would send them.  For a VM,
 * clipboard.c sees each selection weston sends a client of the VM
 * while the paste is unread and puts a fresh offer of the paste in its
 * place, so the paste follows the keyboard from window to window inside
 * the VM (wl-paste, a menu, a second window).  A local target is
 * offered the paste on its focused client only: weston sends local
 * clients its selection directly.
 *
 * The first receive of a type the copy holds reads the paste: it is
 * written into that one pipe, and every offer of it is spent from then
 * on (a receive gets a pipe closed at once).  The paste is also
 * withdrawn unread when a window of another party is activated, when a
 * client sets a new selection, or by the next paste.  Nothing is sent
 * to restore weston's selection: a client still reading its pipe would
 * lose the read to a new selection event (GTK 3 cancels it), and
 * weston sends the client its own view again with its next activation
 * or selection.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libweston/libweston.h>
#include "weston-compat.h"

#include "channel.h"
#include "clipboard-internal.h"
#include "connection.h"
#include "fd-flags.h"
#include "ivwl-limits.h"
#include "ivwl-plugin.h"
#include "vm.h"
#include "watch.h"

#define CHUNK (64u << 10)

struct clip_paste;

/* One wl_data_offer of the paste, made for one data device. */
struct paste_offer {
	struct wl_resource *resource;
	struct wl_list link;		/* clip_paste.offers, while unspent */
	struct wl_list all;		/* ivwl_clip_pastes.offers */
	struct ivwl_clip_pastes *ps;	/* NULL once ivwl stopped */
	struct clip_paste *paste;	/* NULL once spent */
	bool told;			/* a refused receive was logged */
};

struct clip_paste {
	struct ivwl_clip_pastes *ps;
	struct ivwl_clip_data *data;
	struct ivwl_clip_owner target;
	struct wl_client *client;	/* a local target's one client */
	struct weston_seat *seat;
	struct wl_list offers;		/* paste_offer.link */
	uint32_t made;			/* offers made, spent or not */
};

/* One read of the paste: one MIME type into one pipe. */
struct clip_writer {
	struct wl_list link;		/* ivwl_clip_pastes.writers */
	struct ivwl_clip_pastes *ps;
	struct ivwl_clip_data *data;
	const struct ivwl_clip_item *item;
	char reader[48];
	size_t off;
	int fd;
	struct ivwl_watch *fd_watch;
	struct wl_event_source *timer;
};

struct ivwl_clip_pastes {
	struct ivwl_clipboard *cb;
	struct wl_event_loop *loop;
	uint32_t stall_ms;
	struct clip_paste *paste;	/* offered and unread */
	struct wl_list offers;		/* paste_offer.all: every one alive */
	struct wl_list writers;
	struct wl_listener activate;
};

static const struct wl_data_offer_interface offer_impl;

/* ---- writing one read ------------------------------------------------ */

static void
writer_free(struct clip_writer *w)
{
	wl_list_remove(&w->link);
	ivwl_watch_remove(w->fd_watch);
	if (w->timer)
		wl_event_source_remove(w->timer);
	close(w->fd);
	ivwl_clip_data_unref(w->data);
	free(w);
}

static int
on_writable(int fd, uint32_t mask, void *arg)
{
	struct clip_writer *w = arg;
	const struct ivwl_clip_item *item = w->item;
	size_t moved = 0, chunk;
	ssize_t n;

	while (w->off < item->len && moved < IVWL_CLIP_PER_WAKE) {
		chunk = item->len - w->off;
		if (chunk > CHUNK)
			chunk = CHUNK;
		n = ivwl_write_no_sigpipe(fd, item->data + w->off, chunk);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			break;
		if (n < 0) {
			ivwl_log("trusted paste: %s, the reader of %s, left "
				 "after %zu of %zu bytes", w->reader,
				 item->mime, w->off, item->len);
			writer_free(w);
			return 0;
		}
		w->off += (size_t)n;
		moved += (size_t)n;
	}
	if (w->off == item->len) {
		ivwl_log("trusted paste: %s, %zu bytes, written to %s",
			 item->mime, item->len, w->reader);
		writer_free(w);
		return 0;
	}
	wl_event_source_timer_update(w->timer, w->ps->stall_ms);
	return 0;
}

static int
on_write_stall(void *arg)
{
	struct clip_writer *w = arg;

	ivwl_log("trusted paste: %s, the reader of %s, stalled after %zu of "
		 "%zu bytes for %u ms: given up", w->reader, w->item->mime,
		 w->off, w->item->len, w->ps->stall_ms);
	writer_free(w);
	return 0;
}

/* Takes fd; false (fd closed) if it cannot be written. */
static bool
write_item(struct ivwl_clip_pastes *ps, struct ivwl_clip_data *data,
	   const struct ivwl_clip_item *item, const char *reader, int fd)
{
	struct clip_writer *w;

	w = ivwl_fd_set_nonblock(fd, true) == 0 ? calloc(1, sizeof(*w)) : NULL;
	if (!w) {
		free(w);
		close(fd);
		return false;
	}
	w->ps = ps;
	w->fd = fd;
	w->item = item;
	w->data = ivwl_clip_data_ref(data);
	snprintf(w->reader, sizeof(w->reader), "%s", reader);
	wl_list_insert(&ps->writers, &w->link);
	w->fd_watch = ivwl_watch_add(ps->cb->plugin->watcher, fd,
				     WL_EVENT_WRITABLE, on_writable, w);
	w->timer = wl_event_loop_add_timer(ps->loop, on_write_stall, w);
	if (!w->fd_watch || !w->timer) {
		writer_free(w);
		return false;
	}
	wl_event_source_timer_update(w->timer, ps->stall_ms);
	return true;
}

/* ---- the paste's offers ---------------------------------------------- */

/* Spends every offer and forgets the paste; why NULL: it was read. */
static void
paste_end(struct clip_paste *p, const char *why)
{
	struct paste_offer *o, *tmp;

	if (why)
		ivwl_log("trusted paste into %s: withdrawn unread (%s)",
			 ivwl_clip_owner_name(&p->target), why);
	wl_list_for_each_safe(o, tmp, &p->offers, link) {
		o->paste = NULL;
		wl_list_remove(&o->link);
		wl_list_init(&o->link);
	}
	if (p->ps->paste == p)
		p->ps->paste = NULL;
	ivwl_clip_data_unref(p->data);
	free(p);
}

static const struct ivwl_clip_item *
find_item(const struct ivwl_clip_data *d, const char *mime)
{
	uint32_t i;

	for (i = 0; mime && i < d->n; i++)
		if (strcmp(d->items[i].mime, mime) == 0)
			return &d->items[i];
	return NULL;
}

/* "[b] slot 2", or "local": who reads, for the log. */
static void
reader_name(struct ivwl_clipboard *cb, struct wl_client *client,
	    char *out, size_t size)
{
	struct ivwl_clip_owner o = { IVWL_CLIP_UNKNOWN, NULL };
	struct ivwl_connection *conn;

	if (cb)
		o = ivwl_clip_owner_of_client(cb, client);
	conn = o.vm ? ivwl_vm_connection(o.vm, client) : NULL;
	if (conn)
		snprintf(out, size, "[%s] slot %u", o.vm->name, conn->slot);
	else
		snprintf(out, size, "%s", ivwl_clip_owner_name(&o));
}

static void
offer_accept(struct wl_client *client, struct wl_resource *resource,
	     uint32_t serial, const char *mime)
{
	/* a selection's: nothing to negotiate */
}

static void
offer_receive(struct wl_client *client, struct wl_resource *resource,
	      const char *mime, int32_t fd)
{
	struct paste_offer *o = wl_resource_get_user_data(resource);
	struct clip_paste *p = o->paste;
	const struct ivwl_clip_item *item = p ? find_item(p->data, mime) : NULL;
	struct ivwl_clip_pastes *ps;
	char reader[48];

	reader_name(o->ps ? o->ps->cb : NULL, client, reader, sizeof(reader));
	if (!item) {
		/* once: a second read, or a type it does not hold, gets
		 * an empty pipe; logged once an offer */
		close(fd);
		if (!o->told)
			ivwl_log("%s: a read of %s on %s trusted paste's "
				 "offer gets nothing", reader,
				 mime ? mime : "(null)",
				 p ? "an unread" : "a spent");
		o->told = true;
		return;
	}
	ps = p->ps;
	ivwl_log("%s: reads %s of the trusted paste of %s's copy", reader,
		 item->mime, ivwl_clip_owner_name(&p->data->from));
	write_item(ps, p->data, item, reader, fd);
	paste_end(p, NULL);
}

static void
offer_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

/* weston ends the client at once: the plugin never sees the error
 * event go out, so the log says it here. */
static void
refuse(struct wl_client *client, struct wl_resource *resource,
       uint32_t code, const char *what)
{
	struct paste_offer *o = wl_resource_get_user_data(resource);
	char who[48];

	reader_name(o->ps ? o->ps->cb : NULL, client, who, sizeof(who));
	ivwl_log("%s: %s on the trusted paste's offer: a protocol error",
		 who, what);
	wl_resource_post_error(resource, code, "%s", what);
}

static void
offer_finish(struct wl_client *client, struct wl_resource *resource)
{
	refuse(client, resource, WL_DATA_OFFER_ERROR_INVALID_FINISH,
	       "finish, only valid for drag and drop,");
}

/* The firewall refuses it first (an offer no drag brought). */
static void
offer_set_actions(struct wl_client *client, struct wl_resource *resource,
		  uint32_t actions, uint32_t preferred)
{
	refuse(client, resource, WL_DATA_OFFER_ERROR_INVALID_OFFER,
	       "set_actions, only valid for drag and drop,");
}

static const struct wl_data_offer_interface offer_impl = {
	offer_accept,
	offer_receive,
	offer_destroy,
	offer_finish,
	offer_set_actions,
};

static void
on_offer_destroyed(struct wl_resource *resource)
{
	struct paste_offer *o = wl_resource_get_user_data(resource);

	wl_list_remove(&o->link);
	wl_list_remove(&o->all);
	free(o);
}

bool
ivwl_clip_paste_is_offer(struct wl_resource *resource)
{
	return resource && wl_resource_instance_of(resource,
						   &wl_data_offer_interface,
						   &offer_impl);
}

/*
 * A new offer of the paste on device, as weston would send one: false
 * if none was made.  A paste offered this often and never read is
 * withdrawn: a VM that keeps moving the keyboard between its windows
 * cannot make offers without end.
 */
static bool
offer_on(struct clip_paste *p, struct wl_resource *device)
{
	struct paste_offer *o;
	uint32_t i;

	if (p->made >= IVWL_CLIP_PASTE_OFFERS) {
		paste_end(p, "offered too often");
		return false;
	}
	o = calloc(1, sizeof(*o));
	if (!o)
		return false;
	o->resource = wl_resource_create(wl_resource_get_client(device),
					 &wl_data_offer_interface,
					 wl_resource_get_version(device), 0);
	if (!o->resource) {
		free(o);
		return false;
	}
	wl_resource_set_implementation(o->resource, &offer_impl, o,
				       on_offer_destroyed);
	o->paste = p;
	o->ps = p->ps;
	wl_list_insert(&p->offers, &o->link);
	wl_list_insert(&p->ps->offers, &o->all);
	p->made++;
	wl_data_device_send_data_offer(device, o->resource);
	for (i = 0; i < p->data->n; i++)
		wl_data_offer_send_offer(o->resource, p->data->items[i].mime);
	wl_data_device_send_selection(device, o->resource);
	return true;
}

static void
offer_to_client(struct clip_paste *p, struct wl_client *client)
{
	struct wl_resource *device, *tmp;

	wl_resource_for_each_safe(device, tmp, &p->seat->drag_resource_list)
		if (wl_resource_get_client(device) == client &&
		    !offer_on(p, device))
			return;
}

void
ivwl_clip_paste_offer(struct ivwl_clip_pastes *ps, struct weston_seat *seat,
		      struct wl_client *focus,
		      const struct ivwl_clip_owner *target,
		      struct ivwl_clip_data *data)
{
	struct clip_paste *p;

	if (ps->paste)
		paste_end(ps->paste, "a new paste");
	p = calloc(1, sizeof(*p));
	if (!p) {
		ivwl_log("trusted paste: out of memory");
		ivwl_clip_data_unref(data);
		return;
	}
	p->ps = ps;
	p->data = data;
	p->target = *target;
	p->client = target->party == IVWL_CLIP_LOCAL ? focus : NULL;
	p->seat = seat;
	wl_list_init(&p->offers);
	ps->paste = p;
	offer_to_client(p, focus);
}

bool
ivwl_clip_paste_replace(struct ivwl_clip_pastes *ps,
			struct ivwl_connection *conn, uint32_t device_id)
{
	struct clip_paste *p = ps->paste;
	struct wl_resource *device;

	if (!p || p->target.party != IVWL_CLIP_VM || p->target.vm != conn->vm)
		return false;
	device = wl_client_get_object(conn->client, device_id);
	if (!device || strcmp(wl_resource_get_class(device),
			      wl_data_device_interface.name) != 0 ||
	    wl_resource_get_user_data(device) != p->seat)
		return false;
	return offer_on(p, device);
}

void
ivwl_clip_paste_selection(struct ivwl_clip_pastes *ps,
			  struct weston_seat *seat)
{
	struct weston_data_source *source = seat->selection_data_source;

	/* a client copied: the paste must not stand in for that; weston's
	 * own changes (the owner left, its copy took over) keep it */
	if (ps->paste && ps->paste->seat == seat && source && source->resource)
		paste_end(ps->paste, "a new selection");
}

void
ivwl_clip_paste_seat_gone(struct ivwl_clip_pastes *ps,
			  struct weston_seat *seat)
{
	if (ps->paste && ps->paste->seat == seat)
		paste_end(ps->paste, "its seat went");
}

/* A window was activated: the paste stays with its target's. */
static void
on_activate(struct wl_listener *listener, void *data)
{
	struct ivwl_clip_pastes *ps = wl_container_of(listener, ps, activate);
	struct weston_surface_activation_data *a = data;
	struct clip_paste *p = ps->paste;
	struct wl_client *client;
	struct weston_surface *surface = ivwl_activation_surface(a);
	struct ivwl_clip_owner to;

	if (!p || a->seat != p->seat || !surface || !surface->resource)
		return;
	client = wl_resource_get_client(surface->resource);
	to = ivwl_clip_owner_of_client(ps->cb, client);
	if (p->target.party == IVWL_CLIP_VM ? to.vm == p->target.vm :
					      client == p->client)
		return;
	paste_end(p, "the keyboard went to another party");
}

struct ivwl_clip_pastes *
ivwl_clip_pastes_create(struct ivwl_clipboard *cb, uint32_t stall_ms)
{
	struct weston_compositor *ec = cb->plugin->compositor;
	struct ivwl_clip_pastes *ps = calloc(1, sizeof(*ps));

	if (!ps)
		return NULL;
	ps->cb = cb;
	ps->loop = wl_display_get_event_loop(ec->wl_display);
	ps->stall_ms = stall_ms;
	wl_list_init(&ps->offers);
	wl_list_init(&ps->writers);
	ps->activate.notify = on_activate;
	wl_signal_add(&ec->activate_signal, &ps->activate);
	return ps;
}

void
ivwl_clip_pastes_destroy(struct ivwl_clip_pastes *ps)
{
	struct clip_writer *w, *tmp;
	struct paste_offer *o, *otmp;

	if (!ps)
		return;
	/* the offers stay the clients' objects, spent */
	if (ps->paste)
		paste_end(ps->paste, "ivwl stops");
	wl_list_for_each_safe(o, otmp, &ps->offers, all) {
		o->ps = NULL;
		wl_list_remove(&o->all);
		wl_list_init(&o->all);
	}
	wl_list_for_each_safe(w, tmp, &ps->writers, link)
		writer_free(w);
	wl_list_remove(&ps->activate.link);
	free(ps);
}
