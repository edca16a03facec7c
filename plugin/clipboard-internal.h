/* SPDX-License-Identifier: MIT */
/*
 * Inside the clipboard module: shared by clipboard.c (policy on
 * weston's offers) and clipboard-trusted.c (the user's copy and paste).
 */
#ifndef IVWL_CLIPBOARD_INTERNAL_H
#define IVWL_CLIPBOARD_INTERNAL_H

#include <libweston/libweston.h>

#include "clipboard.h"

/* Whose data a source holds. */
enum ivwl_clip_party {
	IVWL_CLIP_UNKNOWN,	/* offered to no VM */
	IVWL_CLIP_LOCAL,	/* a client of weston's own socket */
	IVWL_CLIP_VM,
	IVWL_CLIP_TRUSTED,	/* the user's paste: for its target only */
};

struct ivwl_clip_owner {
	enum ivwl_clip_party party;
	struct ivwl_vm *vm;		/* IVWL_CLIP_VM */
};

struct ivwl_clip_trusted;
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
	struct ivwl_clip_transfers *transfers;
};

/* Whose data source holds, as far as the plugin can tell. */
struct ivwl_clip_owner
ivwl_clip_owner_of(struct ivwl_clipboard *cb,
		   struct weston_data_source *source);

/* A party's name for the log: the VM's, "local" or "trusted paste". */
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

/* clipboard-trusted.c */
struct ivwl_clip_trusted *
ivwl_clip_trusted_create(struct ivwl_clipboard *cb);

void
ivwl_clip_trusted_destroy(struct ivwl_clip_trusted *trusted);

/* The target of source if it is the trusted paste's. */
bool
ivwl_clip_trusted_paste(struct ivwl_clip_trusted *trusted,
			struct weston_data_source *source,
			struct ivwl_clip_owner *target);

#endif
