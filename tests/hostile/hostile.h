/* SPDX-License-Identifier: MIT */
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

#include "channel.h"
#include "device.h"
#include "mono-time.h"
#include "record.h"
#include "region.h"
#include "ring.h"

enum ivwl_hostile_phase {
	IVWL_HOSTILE_IDLE = 0,		/* not ours, or closed */
	IVWL_HOSTILE_PENDING,		/* OPEN stored, no answer yet */
	IVWL_HOSTILE_LIVE,		/* the display serves our generation */
};

struct ivwl_hostile_slot {
	enum ivwl_hostile_phase phase;
	uint32_t gen;		/* the generation we stored last */
	int64_t since_ms;	/* when it went PENDING */
	struct ivwl_ring request;	/* produced here */
	struct ivwl_ring event;		/* consumed here */
	uint32_t next_id;	/* next client object id of the session */
};

struct ivwl_hostile_stats {
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

struct ivwl_hostile {
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
	struct ivwl_channels *channels;	/* a mode's pipes, fed by drain */
	struct ivwl_hostile_slot slot[IVWL_SLOT_COUNT];
	struct ivwl_hostile_stats st;
};

/* Wayland messages and the fd descriptors that go with them. */
struct ivwl_out {
	uint8_t data[IVWL_WAYLAND_MAX_DATA];
	uint32_t len;
	uint32_t start;		/* of the message being built */
	struct ivwl_fd_desc fds[IVWL_WAYLAND_MAX_FDS];
	uint32_t nfds;
};

/* What a session learnt from the registry. */
struct ivwl_hostile_globals {
	uint32_t shm, compositor, wm_base;	/* global names, 0 if absent */
	uint32_t seat, data_device_manager;
	uint32_t subcompositor, primary_selection, viewporter;
	uint32_t fifo, timing;	/* wp_fifo_manager_v1, wp_commit_timing_... */
	bool done;				/* the sync came back */
};

/* wl_shm.format of the buffers the attacks make */
#define IVWL_HOSTILE_XRGB8888 1u

/* A toplevel's state, from its events. */
struct window {
	uint32_t wm_base, xdg_surface;
	uint32_t serial, ping;
	bool configured, pinged;
};

/* A focused window and what its data device heard (bugs-clipboard.c). */
struct ivwl_hostile_focus {
	struct window w;
	uint32_t device;
	uint32_t offer;		/* the last wl_data_offer weston made */
	bool selection;		/* ... and it is the selection */
	uint32_t offers;	/* data_offer events heard */
	uint32_t selections;	/* selection events heard, null ones too */
};

/* One event as read back from the event ring. */
struct ivwl_hostile_event {
	uint32_t object;
	uint16_t opcode;
	uint16_t size;
	const uint8_t *args;	/* size - 8 bytes */
	const uint8_t *bytes;	/* the whole message, header first */
};

typedef void (*ivwl_hostile_event_func_t)(void *data,
					  const struct ivwl_hostile_event *ev);

/* ---- peer-core.c ---- */

bool
ivwl_hostile_time_left(struct ivwl_hostile *h);

uint64_t
ivwl_rnd(struct ivwl_hostile *h);

/* Uniform in [0, n), n > 0. */
uint32_t
ivwl_rnd_below(struct ivwl_hostile *h, uint32_t n);

/* A 32-bit value biased towards edges: 0, ~0, powers of two, +-1. */
uint32_t
ivwl_rnd_edgy32(struct ivwl_hostile *h);

void
ivwl_rnd_fill(struct ivwl_hostile *h, void *buf, uint32_t len);

int
ivwl_hostile_attach(struct ivwl_hostile *h, const char *socket_path);

void
ivwl_hostile_detach(struct ivwl_hostile *h);

/* New app epoch, header written, every slot FREE: looks like an agent. */
void
ivwl_hostile_claim(struct ivwl_hostile *h);

struct ivwl_slot_ctrl *
ivwl_hostile_ctrl(struct ivwl_hostile *h, uint32_t k);

uint8_t *
ivwl_hostile_request_data(struct ivwl_hostile *h, uint32_t k);

void
ivwl_hostile_ring(struct ivwl_hostile *h, uint64_t bits);

/* The proper handshake: reset our lines, OPEN gen + 1, ring vector 0. */
void
ivwl_hostile_slot_open(struct ivwl_hostile *h, uint32_t k);

/* FREE with the current generation, ring vector 0. */
void
ivwl_hostile_slot_close(struct ivwl_hostile *h, uint32_t k);

/* Reads the display's answer and moves the slot's phase. */
void
ivwl_hostile_slot_poll(struct ivwl_hostile *h, uint32_t k);

/* Opens k and waits for the answer.  true when served. */
bool
ivwl_hostile_slot_open_wait(struct ivwl_hostile *h, uint32_t k, int timeout_ms);

/* Keeps every usable slot open or opening; returns how many are live. */
uint32_t
ivwl_hostile_keep_open(struct ivwl_hostile *h);

/* Commits one record of any type; rings the slot's vector if owed, or
 * always when ring is true.  0, -EAGAIN (full), or the ring's error. */
int
ivwl_hostile_send(struct ivwl_hostile *h, uint32_t k, uint16_t type,
		  const void *payload, uint32_t len, bool ring);

int
ivwl_hostile_send_wayland(struct ivwl_hostile *h, uint32_t k,
			  const struct ivwl_out *out);

/* Reads every event record waiting; returns how many events. */
int
ivwl_hostile_drain_events(struct ivwl_hostile *h, uint32_t k,
			  ivwl_hostile_event_func_t func, void *data);

/*
 * Opens k, binds nothing yet: get_registry + sync, reads the globals.
 * true when the sync came back within timeout_ms.
 */
bool
ivwl_hostile_session_start(struct ivwl_hostile *h, uint32_t k,
			   struct ivwl_hostile_globals *g,
			   int timeout_ms);

/* wl_display.sync on a live session and waits for it; true when done. */
bool
ivwl_hostile_roundtrip(struct ivwl_hostile *h, uint32_t k,
		       ivwl_hostile_event_func_t func,
		       void *data, int timeout_ms);

/* The configure and ping events of a struct window (data). */
void
ivwl_hostile_on_window_event(void *data, const struct ivwl_hostile_event *ev);

/* Message builder. */
void
ivwl_out_reset(struct ivwl_out *out);

bool
ivwl_out_room(const struct ivwl_out *out, uint32_t bytes);

void
ivwl_out_begin(struct ivwl_out *out, uint32_t object, uint16_t opcode);

void
ivwl_out_u32(struct ivwl_out *out, uint32_t v);

void
ivwl_out_string(struct ivwl_out *out, const char *s);

void
ivwl_out_end(struct ivwl_out *out);

void
ivwl_out_fd(struct ivwl_out *out, const struct ivwl_fd_desc *desc);

/* A REGION descriptor for [offset, offset + length). */
struct ivwl_fd_desc
ivwl_out_region_desc(uint64_t offset, uint64_t length);

/* wl_registry.bind(name, interface, version, id) on registry 2. */
void
ivwl_out_bind(struct ivwl_out *out, uint32_t name, const char *interface,
	      uint32_t version, uint32_t id);

/*
 * Toplevels made one after another with ivwl_out_toplevel(), their
 * configure serials and the wm_base's last ping, as
 * ivwl_hostile_windows_event() (a round trip's handler) records them.
 */
struct ivwl_hostile_windows {
	uint32_t first_xdg;	/* xdg_surface ids: first_xdg + 3 * i */
	uint32_t count;
	uint32_t *serial;	/* per window, 0 until configured */
	uint32_t configured;
	uint32_t wm_base, ping;
	bool pinged;
};

void
ivwl_hostile_windows_event(void *data, const struct ivwl_hostile_event *ev);

/*
 * A wl_surface, its xdg_surface and xdg_toplevel from comp and wm, with
 * the next three ids of *id: the surface's id (xdg_surface +1, toplevel
 * +2).
 */
uint32_t
ivwl_out_toplevel(struct ivwl_out *out, uint32_t comp, uint32_t wm,
		  uint32_t *id);

/* xdg_surface.ack_configure(serial) on xdg. */
void
ivwl_out_ack_configure(struct ivwl_out *out, uint32_t xdg, uint32_t serial);

/* wl_surface.attach(buffer, 0, 0) then commit on surface: a window shown. */
void
ivwl_out_attach_commit(struct ivwl_out *out, uint32_t surface,
		       uint32_t buffer);

/* The whole width x height buffer damaged (damage_buffer: pending state
 * like the attach, their order in a commit is free), then
 * ivwl_out_attach_commit(). */
void
ivwl_out_redraw(struct ivwl_out *out, uint32_t surface, uint32_t buffer,
		int32_t width, int32_t height);

/* wl_shm.create_pool(id, the fd d names, size) on the wl_shm shm. */
void
ivwl_out_shm_pool(struct ivwl_out *out, uint32_t shm, uint32_t id,
		  const struct ivwl_fd_desc *d, int32_t size);

/* wl_shm_pool.create_buffer(id, offset, width, height, stride, format). */
void
ivwl_out_shm_buffer(struct ivwl_out *out, uint32_t pool, uint32_t id,
		    int32_t offset, int32_t width, int32_t height,
		    int32_t stride, uint32_t format);

/* ---- modes.c ---- */

void
ivwl_hostile_garbage_records(struct ivwl_hostile *h);

void
ivwl_hostile_bad_indices(struct ivwl_hostile *h);

void
ivwl_hostile_scribble(struct ivwl_hostile *h);

void
ivwl_hostile_slot_churn(struct ivwl_hostile *h);

void
ivwl_hostile_doorbell_storm(struct ivwl_hostile *h);

/*
 * Lets the display fill slot k's event ring, then publishes an event
 * cons that lies: how 0 past prod, 1 backwards, 2 any, 3 unaligned;
 * -1 picks one.
 */
void
ivwl_hostile_event_lie(struct ivwl_hostile *h, uint32_t k, int how);

/* ---- bugs-*.c: reproducers of known display-side bugs ---- */

/* bugs-rings.c */
void
ivwl_hostile_partial_header(struct ivwl_hostile *h);

void
ivwl_hostile_vanish(struct ivwl_hostile *h);

void
ivwl_hostile_event_cons_lie(struct ivwl_hostile *h);

void
ivwl_hostile_record_flood(struct ivwl_hostile *h);

void
ivwl_hostile_budget_stall(struct ivwl_hostile *h);

/* bugs-surfaces.c */
void
ivwl_hostile_shm_overread(struct ivwl_hostile *h);

void
ivwl_hostile_pool_flood(struct ivwl_hostile *h);

void
ivwl_hostile_window_flood(struct ivwl_hostile *h);

void
ivwl_hostile_window_churn(struct ivwl_hostile *h);

/* bugs-repaint.c */
void
ivwl_hostile_overdraw(struct ivwl_hostile *h);

void
ivwl_hostile_overdraw_grow(struct ivwl_hostile *h);

void
ivwl_hostile_region_bomb(struct ivwl_hostile *h);

void
ivwl_hostile_damage_bomb(struct ivwl_hostile *h);

/* bugs-clipboard.c */
void
ivwl_hostile_clipboard_flood(struct ivwl_hostile *h);

void
ivwl_hostile_clipboard_hang(struct ivwl_hostile *h);

void
ivwl_hostile_clipboard_cache_block(struct ivwl_hostile *h);

void
ivwl_hostile_clipboard_guess(struct ivwl_hostile *h);

/* The events of a focused window and its data device. */
void
ivwl_hostile_on_focus_event(void *data, const struct ivwl_hostile_event *ev);

/* A mapped 1x1 toplevel and a data device on slot k: weston gives the
 * new window the keyboard, and with it the selection's offer.  True
 * when that offer came (a selection event came at all: f->selections). */
bool
ivwl_hostile_focus_and_offer(struct ivwl_hostile *h, uint32_t k,
			     struct ivwl_hostile_focus *f);

/* bugs-paste.c */
void
ivwl_hostile_clipboard_paste(struct ivwl_hostile *h);

/* ---- bugs-eventfd.c ---- */

void
ivwl_hostile_eventfd_block(struct ivwl_hostile *h);
void
ivwl_hostile_doorbell_full(struct ivwl_hostile *h);

/* ---- semantics-*.c: Wayland semantics weston 10 does not survive ---- */

/* semantics-roles.c */
void
ivwl_hostile_role_subsurface(struct ivwl_hostile *h);

void
ivwl_hostile_popup_chain(struct ivwl_hostile *h);

void
ivwl_hostile_popup_hold(struct ivwl_hostile *h);

void
ivwl_hostile_inert_requests(struct ivwl_hostile *h);

void
ivwl_hostile_fuzz_findings(struct ivwl_hostile *h);

void
ivwl_hostile_pacing_misuse(struct ivwl_hostile *h);

/* semantics-floods.c */
void
ivwl_hostile_mime_flood(struct ivwl_hostile *h);

void
ivwl_hostile_keyboard_flood(struct ivwl_hostile *h);

void
ivwl_hostile_destroy_storm(struct ivwl_hostile *h);

void
ivwl_hostile_budget_fill(struct ivwl_hostile *h);

/* ---- bugs-display.c: the live view's titles, the clock link ---- */

void
ivwl_hostile_title_bytes(struct ivwl_hostile *h);

void
ivwl_hostile_clock_flood(struct ivwl_hostile *h);

#endif
