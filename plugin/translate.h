/* SPDX-License-Identifier: MIT */
/*
 * What the translation library (records <-> wire bytes, the firewall, the
 * pipe threads) needs from the program around it, registered once: the
 * plugin registers weston's event loop and the clipboard; a test or
 * fuzzer registers what it has, or nothing.
 */
#ifndef IVWL_TRANSLATE_H
#define IVWL_TRANSLATE_H

#include <stdbool.h>
#include <stdint.h>

struct ivwl_channel;
struct ivwl_connection;
struct ivwl_wire_msg;

/*
 * The connection's event loop.  Unregistered: a channel is not watched
 * (watch succeeds, nothing polls it) and alarm_fd is conn->alarm_fd.
 */
struct ivwl_translate_loop {
	/* watch a new channel's fd: 0 or -errno */
	int (*watch)(struct ivwl_connection *conn, struct ivwl_channel *ch);
	/* the eventfd the connection's pipe threads raise when the app does
	 * not read (pipe-thread.h), made on first use: fd or -errno */
	int (*alarm_fd)(struct ivwl_connection *conn);
};

/*
 * The clipboard's say in a VM's traffic (clipboard.h).  Unregistered, or
 * a NULL member: no clipboard policy (tests of translation alone).
 */
struct ivwl_translate_clipboard {
	/* an event weston sent one of a VM's clients, after the map and
	 * the firewall took it: true to withhold it; may rewrite bytes */
	bool (*event)(struct ivwl_connection *conn,
		      const struct ivwl_wire_msg *msg, uint8_t *bytes);
	/* a request the firewall let through: 0, or -EPROTO with *why */
	int (*request)(struct ivwl_connection *conn,
		       const struct ivwl_wire_msg *msg, const char **why);
	/* the channel of a wl_data_offer.receive: true when weston writes
	 * from its main thread, so its end must not block */
	bool (*receive)(struct ivwl_connection *conn,
			const struct ivwl_wire_msg *msg,
			struct ivwl_channel *ch);
	/* the channel of a wl_data_source.send */
	void (*send)(struct ivwl_connection *conn,
		     const struct ivwl_wire_msg *msg, struct ivwl_channel *ch);
	/* a channel ends: what the clipboard noted of it is logged, freed */
	void (*channel_end)(struct ivwl_connection *conn,
			    struct ivwl_channel *ch);
};

void
ivwl_translate_set_loop(const struct ivwl_translate_loop *loop);

void
ivwl_translate_set_clipboard(const struct ivwl_translate_clipboard *clipboard);

/* A channel of conn ends (connection.c): the clipboard hears of it. */
void
ivwl_translate_channel_end(struct ivwl_connection *conn,
			   struct ivwl_channel *ch);

#endif
