/* SPDX-License-Identifier: MIT */
/*
 * ivwl-wayland-fuzzer: a stateful, protocol-aware Wayland client played
 * by a hostile app-VM on several slots at once.  Requests are generated
 * from the message tables (ivwl-protocols.h) against a model of each
 * connection's live objects, so that most of them get past libwayland's
 * checks and reach weston's request handlers.
 */
#ifndef IVWL_FUZZ_H
#define IVWL_FUZZ_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "hostile.h"
#include "wire.h"

/* Client ids a connection may use; past it the connection is churned. */
#define IVWL_FUZZ_MAX_IDS 2048u
#define IVWL_FUZZ_MAX_SERVER 256u
#define IVWL_FUZZ_MAX_GLOBALS 64u
#define IVWL_FUZZ_TRACE_LINE 16384u
/* Connections whose depth (requests sent) the summary line reports. */
#define IVWL_FUZZ_DEPTHS 65536u

struct ivwl_translation;

enum ivwl_fuzz_obj_state {
	IVWL_FUZZ_FREE = 0,
	IVWL_FUZZ_LIVE,
	IVWL_FUZZ_ZOMBIE,	/* destroyed, awaiting delete_id */
};

struct ivwl_fuzz_obj {
	const struct ivwl_interface *iface;
	uint32_t version;
	uint8_t state;
	bool serial_new;	/* a configure or ping not answered yet */
	uint32_t serial;	/* xdg_surface: configure; wm_base: ping */
	uint64_t pool_off;	/* wl_shm_pool: its heap range */
	uint64_t pool_len;
	uint32_t link;		/* first object its request named: the
				 * wl_surface of an xdg_surface, ... */
	bool acked;		/* xdg_surface: a configure acked, so
				 * weston takes its buffers */
	uint32_t width, height;	/* xdg_toplevel: the configured size,
				 * which a maximized window must match */
	uint8_t positioner;	/* xdg_positioner: IVWL_FUZZ_POS_* set */
	bool committed;		/* wl_surface: committed since its role,
				 * not unmapped since (--spare set-parent) */
	bool null_attached;	/* wl_surface: pending null buffer */
	bool sourced;		/* wp_viewport: set_source sent */
};

#define IVWL_FUZZ_POS_SIZE 1u
#define IVWL_FUZZ_POS_ANCHOR 2u

struct ivwl_fuzz_server_obj {
	uint32_t id;
	const struct ivwl_interface *iface;
	uint32_t version;
};

struct ivwl_fuzz_global {
	uint32_t name;
	uint32_t version;
	const struct ivwl_interface *table;	/* NULL: unknown to us */
	char iface[64];
};

/* The last requests of one connection, as trace lines. */
struct ivwl_fuzz_ring {
	char **lines;
	uint32_t cap, head, count;
	uint64_t dropped;
};

struct ivwl_fuzz_conn {
	uint32_t slot;
	uint32_t number;	/* "conn N" of the trace, over the run */
	bool dead;		/* wl_display.error seen, or stuck */
	struct ivwl_fuzz_obj obj[IVWL_FUZZ_MAX_IDS];
	uint32_t count;		/* ids indexed so far: the next new one */
	uint32_t free_ids[IVWL_FUZZ_MAX_IDS];
	uint32_t nfree;
	struct ivwl_fuzz_server_obj srv[IVWL_FUZZ_MAX_SERVER];
	uint32_t nsrv;
	struct ivwl_fuzz_global globals[IVWL_FUZZ_MAX_GLOBALS];
	uint32_t nglobals;
	uint32_t input_serial;	/* last enter/button/key serial */
	uint64_t heap_off, heap_len;	/* this slot's share of the heap */
	uint64_t heap_next;
	uint32_t channel_next;	/* odd: app side channels */
	uint64_t sent;
	struct ivwl_fuzz_ring trace;
	/* the plugin's request path, run dry (fuzz-oracle.c); NULL once a
	 * violation was sent or without --violate below 1000 */
	struct ivwl_translation *shadow;
	bool violated;		/* sent a request the shadow refused */
	/* integers in the ranges weston accepts, serials it sent: most
	 * connections are careful and live long; the others go for edge
	 * values that weston ends them for, soon */
	bool careful;
};

/* xdg_toplevel.set_parent to a toplevel desktop-shell has not added */
#define IVWL_FUZZ_SPARE_SET_PARENT 1u
/* wp_viewport.destroy after its set_source: the next commit asserts */
#define IVWL_FUZZ_SPARE_VIEWPORT 2u

struct ivwl_fuzz_stats {
	uint64_t conns;
	uint64_t messages;
	uint64_t bad_args;	/* arguments made wrong on purpose */
	uint64_t errors;	/* wl_display.error received */
	uint64_t closes;	/* slot closed by us with state live */
	uint64_t reopens;	/* OPEN g+1 over a live connection */
	uint64_t display_closed; /* the display closed one */
	uint64_t refused;	/* requests the shadow refused ... */
	uint64_t violations;	/* ... and those sent all the same */
	uint64_t surprises;	/* display closed it, no violation sent */
	uint64_t windows, buffers, acks, pongs, popups, subsurfaces;
	uint64_t sources;
	uint64_t scribbles;
};

struct ivwl_fuzz {
	struct ivwl_hostile h;
	struct ivwl_fuzz_conn *conn[IVWL_SLOT_COUNT];
	uint32_t nslots;
	uint32_t next_conn;
	uint64_t seq;		/* trace line number over the run */
	FILE *trace;
	uint32_t ring_cap;
	uint32_t scribble_permille;	/* per step */
	uint32_t churn_permille;	/* per step */
	uint32_t bad_permille;		/* per argument made wrong */
	/* per request the shadow refuses: send it all the same (1000: no
	 * shadow, everything is sent) */
	uint32_t violate_permille;
	bool quiet_trace;	/* replay: do not trace */
	/* --spare: known weston 10 crashes steered clear of, so that a run
	 * looks past them (IVWL_FUZZ_SPARE_*) */
	uint32_t spare;
	struct ivwl_fuzz_stats st;
	uint32_t depths[IVWL_FUZZ_DEPTHS];	/* requests of ended conns */
	uint32_t ndepths;
};

/* ---- fuzz-model.c ---- */

struct ivwl_fuzz_conn *
ivwl_fuzz_conn_new(struct ivwl_fuzz *f, uint32_t slot);

/* Writes the connection's trace ring out and frees it. */
void
ivwl_fuzz_conn_end(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c,
		   const char *how);

/* A trace line of its own ("-- open", "-- close"...). */
void
ivwl_fuzz_note(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c,
	       const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The id libwayland would hand out next. */
uint32_t
ivwl_fuzz_next_id(const struct ivwl_fuzz_conn *c);

bool
ivwl_fuzz_is_live(const struct ivwl_fuzz_conn *c, uint32_t id);

/* A random live object of iface (any if NULL), 0 if none. */
uint32_t
ivwl_fuzz_pick(struct ivwl_fuzz *f, const struct ivwl_fuzz_conn *c,
	       const struct ivwl_interface *iface);

/* A random live xdg_positioner with a size and an anchor rectangle. */
uint32_t
ivwl_fuzz_pick_complete(struct ivwl_fuzz *f, const struct ivwl_fuzz_conn *c);

const struct ivwl_interface *
ivwl_fuzz_iface_of(const struct ivwl_fuzz_conn *c, uint32_t id,
		   uint32_t *version);

/* A live global of that interface, or NULL. */
const struct ivwl_fuzz_global *
ivwl_fuzz_global(const struct ivwl_fuzz_conn *c, const char *iface);

/*
 * Sends the one message in out (plus its fds) as a record, traces it
 * with an optional fix-up tag (replay substitutes serials: "ack",
 * "pong") and applies its effect on the model.  false when the ring
 * stayed full or the slot is gone.
 */
bool
ivwl_fuzz_emit(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c,
	       const struct ivwl_out *out, const char *tag);

/* false while a new id the message names is still in use here (the
 * replay waits for weston's delete_id, as the recording did). */
bool
ivwl_fuzz_ids_free(const struct ivwl_fuzz_conn *c, const struct ivwl_out *out);

/* Reads the events waiting on the slot and updates the model. */
int
ivwl_fuzz_events(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c);

/* A page-aligned range of the slot's heap share, reused round robin. */
uint64_t
ivwl_fuzz_heap_alloc(struct ivwl_fuzz_conn *c, uint64_t len);

/* true with the odds of --violate: a deliberate protocol violation now */
bool
ivwl_fuzz_violate(struct ivwl_fuzz *f);

/* ---- fuzz-oracle.c: the plugin's request path, run dry */

int
ivwl_fuzz_oracle_init(struct ivwl_fuzz *f);

struct ivwl_translation *
ivwl_fuzz_shadow_new(void);

void
ivwl_fuzz_shadow_free(struct ivwl_translation *shadow);

/* 0 if the display would let out through, else < 0 and *why. */
int
ivwl_fuzz_shadow_request(struct ivwl_translation *shadow,
			 const struct ivwl_out *out, const char **why);

void
ivwl_fuzz_shadow_event(struct ivwl_translation *shadow, const uint8_t *bytes,
		       uint32_t len);

/* ---- fuzz-gen.c ---- */

/* One random request of a random live object, arguments from the model. */
bool
ivwl_fuzz_random_request(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c);

/* wl_registry.bind of a random advertised global, version 1..offered. */
bool
ivwl_fuzz_bind_random(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c);

/* Binds the global iface (at most version max) unless one is bound. */
uint32_t
ivwl_fuzz_ensure(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c,
		 const char *iface, uint32_t max);

/* ---- fuzz-helpers.c: a few requests in the order a client makes them */

/* wl_shm.create_pool over a fresh range of the slot's heap share. */
uint32_t
ivwl_fuzz_make_pool(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c,
		    uint32_t shm, uint64_t len);

/* A w x h buffer of pool, in range, or 0. */
uint32_t
ivwl_fuzz_make_buffer(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c,
		      uint32_t pool, uint32_t w, uint32_t h);

/* A buffer of the size weston wants attached to surface, damaged and
 * committed; nothing while weston would refuse one (not configured). */
void
ivwl_fuzz_paint(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c,
		uint32_t surface);

/* Pongs and configure acks that are owed. */
void
ivwl_fuzz_answer(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c);

/* One of the semantic sequences: windows, buffers, popups, ... */
void
ivwl_fuzz_helper(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c);

#endif
