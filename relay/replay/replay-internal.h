/* SPDX-License-Identifier: MIT */
/*
 * The relay's replay model (replay.h): shared by replay.c, which records
 * it, replay-traffic.c, which filters what passes through the relay,
 * and replay-restart.c and replay-rebuild.c, which replay it on a new
 * display.
 */
#ifndef IVWL_REPLAY_INTERNAL_H
#define IVWL_REPLAY_INTERNAL_H

#include "replay.h"

/*
 * Bounds: they cap what one connection's model costs (docs/architecture.md
 * states the total).  A region of more rectangles, or more globals, makes
 * the connection one that cannot be replayed; nothing else breaks.
 */
#define RP_MAX_SETTERS 10
#define RP_MAX_REGION_RECTS 64
#define RP_MAX_GLOBALS 128
#define RP_MAX_REFS 4
/* Frame callbacks a surface keeps for its next commit; more are
 * answered at a restart like any in flight (replay-restart.c). */
#define RP_MAX_FRAMES 8

/* xdg_toplevel setter slots the replay treats apart (replay-rebuild.c) */
#define RP_SLOT_MAXIMIZED 5
#define RP_SLOT_FULLSCREEN 6

struct rp_ref {
	uint32_t id;
	uint32_t seq;		/* the object's; 0 for one with no record */
};

/* A request as the display got it, and the objects it names. */
struct rp_msg {
	uint8_t *bytes;
	uint16_t len;
	uint8_t nrefs;
	bool has_desc;
	struct ivwl_fd_desc desc;
	struct rp_ref refs[RP_MAX_REFS];
};

struct rp_rect {
	int32_t op, x, y, w, h;
};

struct rp_region {
	bool set;		/* false: the default (none given) */
	uint32_t n;
	struct rp_rect *rects;
};

#define RP_CHANGED_BUFFER 0x1u
#define RP_CHANGED_TRANSFORM 0x2u
#define RP_CHANGED_SCALE 0x4u
#define RP_CHANGED_OPAQUE 0x8u
#define RP_CHANGED_INPUT 0x10u
#define RP_CHANGED_SOURCE 0x20u
#define RP_CHANGED_DESTINATION 0x40u

/* wp_viewport's "unset": a source of -1.0 (wl_fixed), a destination -1 */
#define RP_UNSET_SOURCE 0xffffff00u
#define RP_UNSET_DESTINATION 0xffffffffu

struct rp_surface_state {
	uint32_t changed;	/* pending only: RP_CHANGED_* */
	struct rp_ref buffer;	/* id 0: none attached */
	int32_t transform;
	int32_t scale;
	struct rp_region opaque;
	struct rp_region input;
	uint32_t source[4];	/* its wp_viewport's, wire words */
	uint32_t destination[2];
};

struct rp_obj {
	uint32_t id;
	uint32_t seq;
	const struct ivwl_interface *iface;
	const struct ivwl_interface *maker;	/* of the request making it */
	uint32_t version;
	struct rp_msg create;
	struct rp_msg *setters[RP_MAX_SETTERS];
	uint32_t global;	/* bound: the global's name as the client knows it */
	struct rp_region region;	/* wl_region */
	struct rp_surface_state *pending, *current;	/* wl_surface */
	struct rp_ref viewport;	/* wl_surface: its wp_viewport */
	bool committed;		/* wl_surface: at least once */
	/* wl_surface: frame callbacks asked since its last commit; they
	 * belong to its pending state, which no display showed yet */
	uint32_t frames[RP_MAX_FRAMES];
	uint8_t nframes;
	struct rp_ref role;	/* wl_surface: its xdg_surface; xdg_surface:
				 * its toplevel or popup */
	uint32_t focus;		/* wl_keyboard, wl_pointer: surface entered */
	bool dnd;		/* wl_data_device: a drag entered */
	bool roleless;		/* xdg_surface: the relay dropped its role */
	bool busy;		/* wl_buffer: committed, not released */
	bool shown;		/* wl_buffer: a surface's, at a restart */
	/* replay */
	bool replayed;
	bool awaiting;		/* xdg_surface: its first configure */
	uint32_t acked;		/* xdg_surface: serial the relay acked, as
				 * the client sees it */
};

struct rp_global {
	uint32_t client_name;
	uint32_t display_name;
	const struct ivwl_interface *iface;
	uint32_t version;
	bool matched;
};

enum rp_phase {
	RP_LIVE,	/* forwarding */
	RP_DOWN,	/* the display left; waiting for a new one */
	RP_FILL,	/* the new display frees the ids the replay needs */
	RP_GLOBALS,	/* the new display lists its globals */
	RP_CONFIGURE,	/* windows wait for their first configure */
};

struct ivwl_replay {
	enum rp_phase phase;
	bool restarted;		/* requests need filtering */
	bool mapping;		/* ids of display-made objects are mapped:
				 * from a restart, or a gap in them */
	uint32_t restarts;
	const char *broken;	/* why the model cannot be replayed */
	uint32_t seq;
	struct rp_obj **objs;	/* by client id */
	uint32_t objs_alloc;
	uint8_t *dead;		/* client ids the display does not have */
	uint32_t dead_alloc;
	uint8_t *held;		/* frame callbacks the last restart kept
				 * for the new display (hold_frames()) */
	uint32_t held_alloc;
	uint8_t *priv;		/* ids of the relay's own, until deleted */
	uint32_t priv_alloc;
	uint32_t priv_pending;	/* of those, set */
	uint32_t marker;	/* sync whose done ends RP_GLOBALS */
	/* Configure serials: the client sees the display's plus the base,
	 * above every one an earlier display sent (replay-traffic.c). */
	uint32_t serial_base;
	uint32_t max_serial;	/* the highest the client saw */
	uint32_t next_temp;
	uint32_t awaiting;
	struct rp_global globals[RP_MAX_GLOBALS];
	uint32_t nglobals;
	struct rp_global fresh[RP_MAX_GLOBALS];	/* the new display's */
	uint32_t nfresh;
	bool fresh_overflow;
	uint32_t fresh_registry;
	uint32_t next_client_name;
	/* display-made ids: display index -> client id, and back */
	uint32_t *srv_to_client;
	uint32_t *srv_to_display;
	uint32_t srv_alloc;
	struct ivwl_fd_desc pool_desc;	/* the display's view of every pool */
	int32_t heap_size;
	bool have_pool_desc;
};

/* replay.c */
struct rp_obj *
rp_obj_at(const struct ivwl_replay *rp, uint32_t id);

bool
rp_ref_live(const struct ivwl_replay *rp, const struct rp_ref *ref);

void
rp_obj_free(struct ivwl_replay *rp, uint32_t id);

int
rp_flag_set(uint8_t **flags, uint32_t *alloc, uint32_t id, uint8_t v);

uint8_t
rp_flag(const uint8_t *flags, uint32_t alloc, uint32_t id);

struct rp_global *
rp_global_by_client(struct ivwl_replay *rp, uint32_t name);

struct rp_global *
rp_global_by_display(struct ivwl_replay *rp, uint32_t name);

/*
 * Appends object.m(args...), written by ivwl_wire_write_msg (m: an
 * IVWL_MSG_ of ivwl-protocols.h, args in its order); a message that
 * does not fit sets b->oom like a buffer past its bound.
 */
void
rp_put(struct ivwl_replay_buf *b, const struct ivwl_fd_desc *desc,
       uint32_t object, const struct ivwl_message *m, ...);

void
rp_put_bytes(struct ivwl_replay_buf *b, const struct ivwl_fd_desc *desc,
	     const uint8_t *bytes, uint32_t len);

/* replay-traffic.c */
bool
rp_is_dead(const struct ivwl_replay *rp, uint32_t id);

int
rp_set_dead(struct ivwl_replay *rp, uint32_t id, bool dead);

/* replay-restart.c */
/* Marks id as one of the relay's own (priv), counting those pending. */
int
rp_set_priv(struct ivwl_replay *rp, uint32_t id, bool priv);

/* An id of the relay's own, above every id of the client's. */
uint32_t
rp_temp_id(struct ivwl_replay *rp);

/* The registries again, and a sync after which all globals are in. */
int
rp_list_globals(struct ivwl_replay *rp, struct ivwl_replay_buf *q,
		const char **why);

/* replay-rebuild.c */
/* The frame callbacks a surface keeps, asked again of the new display. */
void
rp_emit_frames(struct rp_obj *s, struct ivwl_replay_buf *q);

void
rp_emit_surface_state(struct ivwl_replay *rp, struct rp_obj *s,
		      struct ivwl_replay_buf *q);

/* A toplevel's maximized or fullscreen request, once it may come. */
void
rp_emit_deferred(struct ivwl_replay *rp, struct rp_obj *xs,
		 struct ivwl_replay_buf *q);

/* The new display listed its globals: everything else, in order. */
int
rp_globals_listed(struct ivwl_replay *rp, struct ivwl_replay_buf *q,
		  struct ivwl_replay_buf *synth, const char **why);

#endif
