/* SPDX-License-Identifier: MIT */
/*
 * Inside the clipboard module: shared by clipboard.c (policy on
 * weston's offers) and clipboard-trusted.c (the user's copy and paste).
 */
#ifndef IVWL_CLIPBOARD_INTERNAL_H
#define IVWL_CLIPBOARD_INTERNAL_H

#include <libweston/libweston.h>

#include "clipboard.h"
#include "ivwl-limits.h"

/* Whose data a source holds. */
enum ivwl_clip_party {
	IVWL_CLIP_UNKNOWN,	/* offered to no VM */
	IVWL_CLIP_LOCAL,	/* a client of weston's own socket */
	IVWL_CLIP_VM,
};

struct ivwl_clip_owner {
	enum ivwl_clip_party party;
	struct ivwl_vm *vm;		/* IVWL_CLIP_VM */
};

struct ivwl_clip_trusted;
struct ivwl_clip_pastes;
struct ivwl_clip_transfers;
struct ivwl_channel;

struct ivwl_clipboard {
	struct ivwl_plugin *plugin;
	struct wl_listener seat_created;
	struct wl_list seats;		/* clip_seat.link */
	/*
	 * weston 10 keeps a copy of every selection (its clipboard.c) and
	 * makes it the selection, with no client behind it, once the
	 * owner's source goes: that copy is still the owner's data.
	 */
	struct ivwl_clip_owner last_owner;	/* of the last client source */
	struct weston_data_source *copy_source;
	struct ivwl_clip_owner copy_owner;
	struct wl_listener copy_destroy;
	struct ivwl_clip_trusted *trusted;
	struct ivwl_clip_pastes *pastes;	/* made by trusted */
	struct ivwl_clip_transfers *transfers;
};

/* One type of a copied selection. */
struct ivwl_clip_item {
	char *mime;
	uint8_t *data;
	size_t len;
};

/* A trusted copy: held by the plugin, then by a paste and its writer. */
struct ivwl_clip_data {
	int refs;
	struct ivwl_clip_owner from;
	struct ivwl_clip_item items[IVWL_CLIP_MAX_TYPES];
	uint32_t n;
	size_t bytes;
};

/* Whose data source holds, as far as the plugin can tell. */
struct ivwl_clip_owner
ivwl_clip_owner_of(struct ivwl_clipboard *cb,
		   struct weston_data_source *source);

/* A party's name for the log: the VM's or "local". */
const char *
ivwl_clip_owner_name(const struct ivwl_clip_owner *owner);

/* The party of a wl_client. */
struct ivwl_clip_owner
ivwl_clip_owner_of_client(struct ivwl_clipboard *cb,
			  struct wl_client *client);

/* clipboard-transfer.c: what crossed, how much */
struct ivwl_clip_transfers *
ivwl_clip_transfers_create(struct ivwl_clipboard *cb);

void
ivwl_clip_transfers_destroy(struct ivwl_clip_transfers *transfers);

/* The log line ch's end gives: party is the other side's name; gave
 * says the VM of ch writes, not reads. */
void
ivwl_clip_transfer_note(struct ivwl_channel *ch, bool gave, bool drag,
			const char *party, const char *mime);

/* clipboard-trusted.c: the bindings and the copy */
struct ivwl_clip_trusted *
ivwl_clip_trusted_create(struct ivwl_clipboard *cb);

void
ivwl_clip_trusted_destroy(struct ivwl_clip_trusted *trusted);

struct ivwl_clip_data *
ivwl_clip_data_ref(struct ivwl_clip_data *data);

void
ivwl_clip_data_unref(struct ivwl_clip_data *data);

/* clipboard-paste.c: the paste's own offers */
struct ivwl_clip_pastes *
ivwl_clip_pastes_create(struct ivwl_clipboard *cb, uint32_t stall_ms);

void
ivwl_clip_pastes_destroy(struct ivwl_clip_pastes *pastes);

/* Offers data (the reference is the paste's) to target, whose client
 * focus has the keyboard of seat, until it is read once. */
void
ivwl_clip_paste_offer(struct ivwl_clip_pastes *pastes,
		      struct weston_seat *seat, struct wl_client *focus,
		      const struct ivwl_clip_owner *target,
		      struct ivwl_clip_data *data);

/* True for a wl_data_offer of the paste's, not weston's. */
bool
ivwl_clip_paste_is_offer(struct wl_resource *resource);

/*
 * weston sends a client of conn a selection on its data device: true
 * when an unread paste for conn's VM took its place (a new offer of
 * the paste went out; weston's selection event must not).
 */
bool
ivwl_clip_paste_replace(struct ivwl_clip_pastes *pastes,
			struct ivwl_connection *conn, uint32_t device_id);

/* seat's selection changed, or the seat goes. */
void
ivwl_clip_paste_selection(struct ivwl_clip_pastes *pastes,
			  struct weston_seat *seat);

void
ivwl_clip_paste_seat_gone(struct ivwl_clip_pastes *pastes,
			  struct weston_seat *seat);

#endif
