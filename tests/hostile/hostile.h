/*
 * hostile-peer: an app side that attacks the display side through the
 * region.  Shared state of the program: the attached region, the slots it
 * opened with the proper handshake, a Wayland message builder and the
 * counters each mode reports.
 */
#ifndef IVWL_HOSTILE_H
#define IVWL_HOSTILE_H

#include <stdbool.h>
#include <stdint.h>

#include "device.h"
#include "record.h"
#include "region.h"
#include "ring.h"

enum hostile_phase {
	SLOT_IDLE = 0,		/* not ours, or closed */
	SLOT_PENDING,		/* OPEN stored, no answer yet */
	SLOT_LIVE,		/* the display serves our generation */
};

struct hostile_slot {
	enum hostile_phase phase;
	uint32_t gen;		/* the generation we stored last */
	int64_t since_ms;	/* when it went PENDING */
	struct ivwl_ring request;	/* produced here */
	struct ivwl_ring event;		/* consumed here */
	uint32_t next_id;	/* next client object id of the session */
};

struct hostile_stats {
	uint64_t opens;		/* OPEN generations stored */
	uint64_t acks;		/* the display served one */
	uint64_t refusals;	/* it answered CLOSED at once */
	uint64_t closed;	/* it closed a served one: what we want */
	uint64_t timeouts;	/* it never answered */
	uint64_t records;	/* records committed */
	uint64_t ring_full;	/* records that did not fit */
	uint64_t doorbells;	/* display vectors rung */
	uint64_t index_writes;	/* ring words rewritten */
	uint64_t lies;		/* record headers that lie */
	uint64_t flips;		/* region bytes flipped */
	uint64_t sessions;	/* Wayland sessions that reached globals */
	uint64_t events;	/* Wayland events read back */
	uint64_t state_writes;	/* slot state words written */
};

struct hostile {
	struct ivwl_device *dev;
	uint8_t *base;
	struct ivwl_layout layout;
	uint32_t nr_vectors;
	uint32_t slots;		/* usable with the display's vectors */
	uint64_t rng;
	int64_t deadline_ms;
	bool spare_partial;	/* keep request prod 8-aligned */
	uint32_t count;		/* --count: mode's own size, 0 default */
	bool verbose;
	struct hostile_slot slot[IVWL_SLOT_COUNT];
	struct hostile_stats st;
};

/* Wayland messages and the fd descriptors that go with them. */
struct wl_out {
	uint8_t data[IVWL_WAYLAND_MAX_DATA];
	uint32_t len;
	uint32_t start;		/* of the message being built */
	struct ivwl_fd_desc fds[IVWL_WAYLAND_MAX_FDS];
	uint32_t nfds;
};

/* What a session learnt from the registry. */
struct wl_globals {
	uint32_t shm, compositor, wm_base;	/* global names, 0 if absent */
	bool done;				/* the sync came back */
};

/* One event as read back from the event ring. */
struct wl_event {
	uint32_t object;
	uint16_t opcode;
	uint16_t size;
	const uint8_t *args;	/* size - 8 bytes */
};

typedef void (*hostile_event_func_t)(void *data, const struct wl_event *ev);

/* ---- peer-core.c ---- */

int64_t
hostile_now_ms(void);

bool
hostile_time_left(struct hostile *h);

uint64_t
hostile_rand(struct hostile *h);

/* Uniform in [0, n), n > 0. */
uint32_t
hostile_below(struct hostile *h, uint32_t n);

/* A 32-bit value biased towards edges: 0, ~0, powers of two, +-1. */
uint32_t
hostile_edgy32(struct hostile *h);

void
hostile_fill(struct hostile *h, void *buf, uint32_t len);

int
hostile_attach(struct hostile *h, const char *socket_path);

void
hostile_detach(struct hostile *h);

/* New app epoch, header written, every slot FREE: looks like an agent. */
void
hostile_claim(struct hostile *h);

struct ivwl_slot_ctrl *
hostile_ctrl(struct hostile *h, uint32_t k);

uint8_t *
hostile_request_data(struct hostile *h, uint32_t k);

void
hostile_ring(struct hostile *h, uint32_t vector);

/* The proper handshake: reset our lines, OPEN gen + 1, ring vector 0. */
void
hostile_slot_open(struct hostile *h, uint32_t k);

/* FREE with the current generation, ring vector 0. */
void
hostile_slot_close(struct hostile *h, uint32_t k);

/* Reads the display's answer and moves the slot's phase. */
void
hostile_slot_poll(struct hostile *h, uint32_t k);

/* Opens k and waits for the answer.  true when served. */
bool
hostile_slot_open_wait(struct hostile *h, uint32_t k, int timeout_ms);

/* Keeps every usable slot open or opening; returns how many are live. */
uint32_t
hostile_keep_open(struct hostile *h);

/* Commits one record of any type; rings the slot's vector if owed, or
 * always when ring is true.  0, -EAGAIN (full), or the ring's error. */
int
hostile_send(struct hostile *h, uint32_t k, uint16_t type,
	     const void *payload, uint32_t len, bool ring);

int
hostile_send_wayland(struct hostile *h, uint32_t k, const struct wl_out *out);

/* Reads every event record waiting; returns how many events. */
int
hostile_drain_events(struct hostile *h, uint32_t k,
		     hostile_event_func_t func, void *data);

/*
 * Opens k, binds nothing yet: get_registry + sync, reads the globals.
 * true when the sync came back within timeout_ms.
 */
bool
hostile_session_start(struct hostile *h, uint32_t k, struct wl_globals *g,
		      int timeout_ms);

/* wl_display.sync on a live session and waits for it; true when done. */
bool
hostile_roundtrip(struct hostile *h, uint32_t k, hostile_event_func_t func,
		  void *data, int timeout_ms);

/* Message builder. */
void
wl_out_reset(struct wl_out *out);

bool
wl_out_room(const struct wl_out *out, uint32_t bytes);

void
wl_out_begin(struct wl_out *out, uint32_t object, uint16_t opcode);

void
wl_out_u32(struct wl_out *out, uint32_t v);

void
wl_out_string(struct wl_out *out, const char *s);

void
wl_out_end(struct wl_out *out);

void
wl_out_fd(struct wl_out *out, const struct ivwl_fd_desc *desc);

/* A REGION descriptor for [offset, offset + length). */
struct ivwl_fd_desc
wl_region_desc(uint64_t offset, uint64_t length);

/* wl_registry.bind(name, interface, version, id) on registry 2. */
void
wl_out_bind(struct wl_out *out, uint32_t name, const char *interface,
	    uint32_t version, uint32_t id);

/* ---- modes.c ---- */

void
hostile_garbage_records(struct hostile *h);

void
hostile_bad_indices(struct hostile *h);

void
hostile_scribble(struct hostile *h);

void
hostile_slot_churn(struct hostile *h);

void
hostile_doorbell_storm(struct hostile *h);

/*
 * Lets the display fill slot k's event ring, then publishes an event
 * cons that lies: how 0 past prod, 1 backwards, 2 any, 3 unaligned;
 * -1 picks one.
 */
void
hostile_event_lie(struct hostile *h, uint32_t k, int how);

/* ---- bugs.c: reproducers of known display-side bugs ---- */

void
hostile_partial_header(struct hostile *h);

void
hostile_shm_overread(struct hostile *h);

void
hostile_pool_flood(struct hostile *h);

void
hostile_vanish(struct hostile *h);

void
hostile_event_cons_lie(struct hostile *h);

void
hostile_record_flood(struct hostile *h);

void
hostile_budget_stall(struct hostile *h);

void
hostile_window_flood(struct hostile *h);

#endif
