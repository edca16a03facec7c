/* SPDX-License-Identifier: MIT */
/*
 * Clipboard, primary selection and drag-and-drop between VMs.
 *
 * weston keeps one selection per seat and offers it to whichever client
 * has keyboard focus, and a drag to whichever surface it enters.  The
 * plugin serves every VM client's socket itself, so it sees each
 * wl_data_offer weston makes for a VM and, through weston's public
 * weston_data_offer, the source it stands for: an offer the VM's policy
 * does not allow never reaches the VM (clipboard.c).  A trusted copy and
 * paste, two key bindings weston handles, moves a selection across
 * anyway when the user asks (clipboard-trusted.c).
 */
#ifndef IVWL_CLIPBOARD_H
#define IVWL_CLIPBOARD_H

#include <stdbool.h>
#include <stdint.h>

struct ivwl_plugin;
struct ivwl_channel;
struct ivwl_connection;
struct ivwl_wire_msg;
struct ivwl_vm;

#include "clipboard-policy.h"

/* clipboard.c */

struct ivwl_clipboard *
ivwl_clipboard_create(struct ivwl_plugin *plugin);

void
ivwl_clipboard_destroy(struct ivwl_clipboard *clipboard);

/*
 * The clipboard's say in a VM's traffic: what ivwl_clipboard_create()
 * puts in plugin->clipboard_ops (ivwl-plugin.h), through which the
 * connection's translation host asks it (connection.c, translate.h).
 */

/* clipboard.c: an event weston sent one of a VM's clients, after the
 * map and the firewall took it: true to withhold it; may rewrite bytes
 * (an offer's id the VM must not see). */
bool
ivwl_clipboard_event(struct ivwl_connection *conn,
		     const struct ivwl_wire_msg *msg, uint8_t *bytes);

/* clipboard.c: a request the firewall let through: 0, or -EPROTO with
 * *why when it names an offer weston never made the client. */
int
ivwl_clipboard_request(struct ivwl_connection *conn,
		       const struct ivwl_wire_msg *msg, const char **why);

/* clipboard.c: the channel of a wl_data_offer.receive: true when weston
 * writes from its main thread, so its end must not block. */
bool
ivwl_clipboard_receive(struct ivwl_connection *conn,
		       const struct ivwl_wire_msg *msg,
		       struct ivwl_channel *ch);

/* clipboard-transfer.c: the channel of a wl_data_source.send gets its
 * note. */
void
ivwl_clipboard_send(struct ivwl_connection *conn,
		    const struct ivwl_wire_msg *msg, struct ivwl_channel *ch);

/* clipboard-transfer.c: a channel ends; logs and frees what its note
 * says. */
void
ivwl_clipboard_channel_end(struct ivwl_connection *conn,
			   struct ivwl_channel *ch);

#endif
