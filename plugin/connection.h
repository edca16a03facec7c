/* SPDX-License-Identifier: MIT */
/*
 * One slot served as one wl_client.  Requests come out of the slot's
 * request ring, are checked and translated (translate.c) and go to
 * libwayland-server over a socketpair; events come back the other way.
 */
#ifndef IVWL_CONNECTION_H
#define IVWL_CONNECTION_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>

#include "ring.h"
#include "translate.h"

struct ivwl_teardown;
struct ivwl_vm;

struct ivwl_connection {
	struct ivwl_vm *vm;
	uint32_t slot;
	uint32_t generation;
	struct ivwl_ring request;	/* consumed here */
	struct ivwl_ring event;		/* produced here */

	int fd;				/* our end of the socketpair */
	struct wl_client *client;
	struct wl_listener client_destroy;
	/* finds the connection from its client (ivwl_connection_of_client):
	 * listed after client_destroy, so it still answers while that runs */
	struct wl_listener client_key;
	struct ivwl_watch *watch;	/* of fd */
	bool more_pending;		/* requests left: the plugin's more_fd */
	/* its relay replayed it here after a restart (region.h's
	 * IVWL_SLOT_APP_REPLAYING seen once): the VM's word */
	bool restored;
	struct wl_event_source *kill;	/* disconnect asked by the user */
	bool told_app;			/* DISCONNECT written: it says why */
	int alarm_fd;			/* eventfd: a pipe thread overflowed */
	struct ivwl_watch *alarm;	/* both from the first pipe on */

	/* its client's traffic, translated (translate.h) */
	struct ivwl_translation xl;
	bool events_blocked;		/* event ring full */
	struct wl_event_source *lazy_timer;
	bool lazy_armed;
	bool lazy_short;		/* armed for a presented's ride */
	bool sock_ready;		/* libwayland's end may have events */
	uint32_t interest;		/* WL_EVENT_* asked of conn->watch */


	uint64_t *record;		/* private copy of one request record */
	/*
	 * record is held, unhandled, until its VM holds the region's fd
	 * it needs (vm.c, "the region's fd"), or halfway, at a barrier of
	 * its translation or a paced map (xl.barrier): requests wait,
	 * events flow.
	 */
	bool held;
	uint16_t held_type;
	uint32_t held_len;
	bool region_wait;		/* one of its VM's region_waiters */
	/* held at a window's map over its VM's budget (map-pace.h): hears
	 * when to try again; its link is empty otherwise */
	struct wl_listener pace_go;
	const char *why;		/* why it ends, once it does */
	/*
	 * Its slot went while it had many windows: they end a batch a
	 * frame (teardown.h), its client after them.  It serves nothing
	 * meanwhile and its slot is another's; the VM's detaching signal
	 * ends the rest at once.
	 */
	struct ivwl_teardown *ending;
	struct wl_listener vm_detaching;
	uint64_t ending_key;		/* its slot's client key, kept */
};

struct ivwl_connection *
ivwl_connection_create(struct ivwl_vm *vm, uint32_t slot,
		       uint32_t generation);

/* Logs why, destroys the wl_client if it still exists, frees the slot. */
void
ivwl_connection_destroy(struct ivwl_connection *conn, const char *why);

/* Disconnects from the event loop, not from inside weston's caller. */
void
ivwl_connection_kill_later(struct ivwl_connection *conn);

struct wl_client *
ivwl_connection_client(struct ivwl_connection *conn);

/*
 * A request without arguments of ivwl.so's own, to weston as if the
 * client sent it, after what went before (the title bar's maximize:
 * xdg_toplevel.set_maximized).  object is an id weston's map holds for
 * the client now.  0, or -errno when weston reads nothing more.
 */
int
ivwl_connection_request(struct ivwl_connection *conn, uint32_t object,
			uint16_t opcode);

/* The app rang this slot's vector. */
void
ivwl_connection_doorbell(struct ivwl_connection *conn);

/*
 * Whether the app said its relay was replaying the client's windows on
 * this weston after a restart (region.h, IVWL_SLOT_APP_REPLAYING): the
 * VM's word, never trusted to earn anything.
 */
bool
ivwl_connection_restored(const struct ivwl_connection *conn);

/*
 * The key its relay drew for its client (region.h), the same after a
 * replay; 0 if it drew none.  The VM's word: names that VM's windows to
 * that VM's places only.
 */
uint64_t
ivwl_connection_client_key(struct ivwl_connection *conn);

/* The user gave one of its windows the keyboard: no longer restored. */
void
ivwl_connection_forget_restored(struct ivwl_connection *conn);

/* Serves it again if it left requests for later (its VM's more_fd). */
void
ivwl_connection_more(struct ivwl_connection *conn);

/* Its VM holds the region's fd now: a held record can go on. */
void
ivwl_connection_region_ready(struct ivwl_connection *conn);

/* What serves a VM's open slots: ivwl_vm_create's slots. */
struct ivwl_vm_slot_ops;
extern const struct ivwl_vm_slot_ops ivwl_connection_slots;

/* The connection whose wl_client this is, or NULL (a local client):
 * O(1), through the client's destroy listeners. */
struct ivwl_connection *
ivwl_connection_of_client(const struct wl_client *client);

#endif
