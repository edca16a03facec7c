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

#include "channel.h"
#include "firewall/firewall.h"
#include "live-counts.h"
#include "record.h"
#include "ring.h"
#include "stream.h"
#include "wire.h"

struct ivwl_vm;


/* Contents of an fd (a keymap) on their way as channel data. */
struct ivwl_blob {
	struct ivwl_blob *next;
	uint32_t channel;
	uint32_t len;
	uint32_t sent;
	uint8_t *data;
};

/*
 * One mapping of the region inside libwayland: a wl_shm_pool, alive while
 * its object or any buffer made from it is.  Counting these (not pool
 * objects) bounds how many mappings an app can make weston hold.
 */
struct ivwl_pool {
	struct ivwl_pool *next;
	uint32_t id;			/* 0 once the pool object is gone */
	uint32_t buffers;		/* live wl_buffers made from it */
	uint64_t offset;
	uint64_t length;
};

struct ivwl_buffer_ref {
	uint32_t id;
	struct ivwl_pool *pool;
};

/* Serials lo..hi, both included, in the wrapping order of serials. */
struct ivwl_serial_range {
	uint32_t lo, hi;
};

#define IVWL_CONN_MUTED_RANGES 16
#define IVWL_CONN_INPUT_SERIALS 4
#define IVWL_CONN_FULLSCREEN 4

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

	struct ivwl_wire_map objects;
	struct ivwl_stream_out to_server;	/* requests for libwayland */
	struct ivwl_stream_in from_server;	/* events from libwayland */
	struct ivwl_wayland_batch batch;	/* events for the ring */
	bool events_blocked;		/* event ring full */
	/* Events a client may wait on went into the ring since the last
	 * doorbell (kick_app); without them the doorbell can wait. */
	bool events_urgent;
	/* A presented is among them: it may wait only for a done that is
	 * due within PRESENTED_RIDE_MS (connection.c). */
	bool events_presented;
	struct wl_event_source *lazy_timer;
	bool lazy_armed;
	bool lazy_short;		/* armed for a presented's ride */
	bool sock_ready;		/* libwayland's end may have events */
	uint32_t interest;		/* WL_EVENT_* asked of conn->watch */

	struct ivwl_blob *blobs;	/* channel data owed before the batch */
	struct ivwl_channels channels;	/* pipes: clipboard, drag and drop */
	struct ivwl_pool *pools;
	uint32_t npools;		/* mappings, see ivwl_pool */
	struct ivwl_buffer_ref *buffers;
	uint32_t nbuffers;
	struct ivwl_firewall firewall;	/* requests' semantics, budgets */

	uint64_t *record;		/* private copy of one request record */
	/*
	 * record is held, unhandled, until its VM holds the region's fd
	 * it needs (vm.c, "the region's fd"): requests wait, events flow.
	 */
	bool held;
	uint16_t held_type;
	uint32_t held_len;
	bool region_wait;		/* one of its VM's region_waiters */
	/*
	 * Or held halfway, at a request weston 14 must see only after its
	 * idle callbacks ran (translate.c, "barrier"): resume_at bytes and
	 * resume_fds fds of it went already.
	 */
	enum ivwl_barrier {
		IVWL_BARRIER_NONE,
		IVWL_BARRIER_WAITING,	/* for its wl_display.sync's done */
		IVWL_BARRIER_PASSED,	/* the held request may go */
	} barrier;
	uint32_t resume_at, resume_fds;
	uint32_t barrier_id;		/* its sync's wl_callback */
	struct ivwl_conn_live live;	/* counts for the live view */
	/*
	 * The trusted path (focus.c): keyboard enters that weston sent and
	 * took back at once, with the leaves that took them back, are not
	 * passed on (an enter carries the keys held down); serials of the
	 * input events passed on, for a popup grab to name.
	 */
	struct ivwl_serial_range muted[IVWL_CONN_MUTED_RANGES];
	uint32_t nmuted;
	uint32_t input_serials[IVWL_CONN_INPUT_SERIALS];
	uint32_t ninput_serials;
	uint64_t input_ms;		/* when the last went, ivwl_now_ms */
	/* xdg_toplevels whose set_fullscreen weston got as such (0: none) */
	uint32_t fullscreen[IVWL_CONN_FULLSCREEN];
	const char *why;		/* why it ends, once it does */
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

/* connection.c: weston's event loop for translation (translate.h). */
struct ivwl_translate_loop;
extern const struct ivwl_translate_loop ivwl_connection_loop;

/* The connection whose wl_client this is, or NULL (a local client):
 * O(1), through the client's destroy listeners. */
struct ivwl_connection *
ivwl_connection_of_client(const struct wl_client *client);

/* translate.c: one request record's payload into bytes + fds for
 * libwayland.  0, or -EPROTO with *why set. */
int
ivwl_translate_request(struct ivwl_connection *conn, const void *payload,
		       uint32_t len, const char **why);

/* translate.c: a request without arguments, of the plugin's own, queued
 * for libwayland after what is queued.  0, or -errno. */
int
ivwl_translate_request_bare(struct ivwl_connection *conn, uint32_t object,
			    uint16_t opcode);

/* translate.c: complete events waiting in from_server into the batch and
 * the event ring.  0, -EAGAIN when the ring is full, -EPROTO with *why. */
int
ivwl_translate_events(struct ivwl_connection *conn, const char **why);

/* translate.c: writes what is batched (blob data first).  0, -EAGAIN. */
int
ivwl_translate_flush(struct ivwl_connection *conn);

/* translate.c: frees what translation holds (pending blobs). */
void
ivwl_translate_release(struct ivwl_connection *conn);

/* translate.c: the keyboard events with serials enter..leave are not
 * passed on (a focus weston gave and took back, focus.c). */
void
ivwl_translate_mute_keyboard(struct ivwl_connection *conn, uint32_t enter,
			     uint32_t leave);

/* translate.c: serial is one of the last input events passed on. */
bool
ivwl_translate_input_serial(const struct ivwl_connection *conn,
			    uint32_t serial);

/* translate.c: ms since the last input event passed on (UINT64_MAX:
 * none yet). */
uint64_t
ivwl_translate_input_age_ms(const struct ivwl_connection *conn);

#endif
