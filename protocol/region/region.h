/* SPDX-License-Identifier: MIT */
/*
 * ivwl region layout, version 3.  docs/region.md is the prose version of
 * this file; keep them in step.
 *
 * One region is shared by exactly two sides: the display side (peer 0,
 * weston + plugin) and the app side (peer 1, agent + shims of one app-vm).
 *
 *   0                      header page: common block, one block per side
 *   slot_table_offset      slot_count slots, slot_stride bytes each:
 *                            control page (slot states, ring indices)
 *                            request ring data  (app -> display)
 *                            event ring data    (display -> app)
 *   heap_offset            heap pages, allocated by the app side only
 *
 * The layout is a pure function of the region size (ivwl_layout_compute).
 * Each side computes it privately and never trusts the copy in the header,
 * which exists so that a peer of another version is refused early and so
 * that the region can be inspected by hand.
 */
#ifndef IVWL_REGION_H
#define IVWL_REGION_H

#include <stdbool.h>
#include <stdint.h>

#define IVWL_REGION_MAGIC "IVWLRGN1"
#define IVWL_REGION_VERSION 3u
#define IVWL_PAGE_SIZE 4096u
#define IVWL_CACHELINE 64u

/* QEMU refuses region sizes that are not a power of two. */
#define IVWL_REGION_MIN_SIZE (2ull << 20)
#define IVWL_REGION_MAX_SIZE (64ull << 30)

#define IVWL_SLOT_COUNT 32u
#define IVWL_RING_MIN_SIZE (16u << 10)
#define IVWL_RING_MAX_SIZE (256u << 10)

/* Peer ids handed out by ivwl-server, one per role. */
#define IVWL_PEER_DISPLAY 0u
#define IVWL_PEER_APP 1u

enum ivwl_side {
	IVWL_SIDE_DISPLAY = 0,
	IVWL_SIDE_APP = 1,
};

/*
 * Every doorbell of either side rings the peer's vector 0.  What it is for
 * is in the rung side's doorbell word: bit k for slot k, and
 * IVWL_DOORBELL_CONTROL for slot states and side restarts.  A peer needs
 * one waitable fd per region, whatever the number of slots.  The one
 * exception: an app side whose wake_vectors says so is rung for slot k
 * alone on vector 1 + k (IVWL_WAKE_VECTOR), which wakes that slot's
 * process without a hop through the agent.
 */
#define IVWL_DOORBELL_VECTOR 0u
#define IVWL_DOORBELL_CONTROL (1ull << 63)
#define IVWL_DOORBELL_SLOT(k) (1ull << (k))
#define IVWL_WAKE_VECTOR(k) (1u + (k))
/* A clock request (to the display) or its answer (to the app). */
#define IVWL_DOORBELL_CLOCK (1ull << 62)
/* ivwl-server's default: vector 0 and one per slot (wake vectors). */
#define IVWL_DEFAULT_VECTORS (1u + IVWL_SLOT_COUNT)

/* ivwl_side_block.state */
enum ivwl_side_state {
	IVWL_SIDE_ABSENT = 0,
	IVWL_SIDE_READY = 1,
	IVWL_SIDE_GONE = 2,
};

/* ivwl_slot_state.state, app side */
enum ivwl_app_slot_state {
	IVWL_APP_SLOT_FREE = 0,
	IVWL_APP_SLOT_OPEN = 1,
};

/* ivwl_slot_state.state, display side: its answer to one app generation */
enum ivwl_display_slot_state {
	IVWL_DISPLAY_SLOT_IDLE = 0,
	IVWL_DISPLAY_SLOT_OPEN = 1,
	IVWL_DISPLAY_SLOT_CLOSED = 2,
};

/*
 * One half of a clock round trip (docs/region.md, "Clock link").  App:
 * request number seq, asked at its clock t.  Display: the request it
 * answered, and its presentation clock (clock_id) t when it did; t and
 * clock_id are written before seq.
 */
struct ivwl_clock_line {
	uint32_t seq;
	uint32_t clock_id;	/* display: a clockid_t; app: 0 */
	uint64_t t;		/* ns */
};

/*
 * App side block only: the agent's current estimate, for the app's own
 * relays.  The display never reads it.  seq is odd while it is written.
 * Display time d is app time ref_app + (d - ref_display) * (1 + drift),
 * within err_ns + |d - ref_display| * growth (drift and growth in ppb).
 */
struct ivwl_clock_estimate {
	uint32_t seq;
	uint32_t display_clock_id;
	uint32_t display_epoch;
	uint32_t app_clock_id;
	int64_t ref_display;
	int64_t ref_app;
	int64_t drift_ppb;
	int64_t err_ns;
	int64_t growth_ppb;
	int64_t expires;	/* app clock: stale after this; 0: none */
};

struct ivwl_side_block {
	uint32_t state;		/* enum ivwl_side_state */
	uint32_t epoch;		/* bumped on every start of this side */
	uint32_t peer_id;	/* informational */
	/*
	 * App side only: slot k's process also waits on vector 1 + k for
	 * k + 1 below this, so a doorbell for slot k alone may ring that
	 * vector instead of vector 0 and the doorbell word.  0 or 1: vector
	 * 0 only.  The display treats it as a hint, like the word.
	 */
	uint32_t wake_vectors;
	/*
	 * Display: the last liveness probe it sent.  App: the last probe
	 * the agent answered (docs/region.md, "Liveness").
	 */
	uint64_t liveness;
	struct ivwl_clock_line clock;
	struct ivwl_clock_estimate estimate;	/* app side only */
	uint8_t reserved[152];
};

/*
 * Bits the other side sets (atomic OR) before ringing, and the rung side
 * takes (atomic exchange with 0) when woken.  Alone on its cache line.
 */
struct ivwl_doorbell_line {
	uint64_t pending;
	uint8_t pad[IVWL_CACHELINE - 8];
};

struct ivwl_region_header {
	uint8_t magic[8];
	uint32_t version;
	uint32_t header_size;
	uint64_t region_size;
	uint32_t slot_count;
	uint32_t ring_size;
	uint64_t slot_table_offset;
	uint64_t slot_stride;
	uint64_t heap_offset;
	uint64_t heap_size;
	uint64_t features;	/* 0; no feature bits are defined yet */
	uint8_t reserved0[184];
	struct ivwl_side_block side[2];	/* indexed by enum ivwl_side */
	struct ivwl_doorbell_line doorbell[2];	/* of the side rung */
};

/*
 * Each ring index lives alone on its cache line together with the flag
 * its owner sets before sleeping, so producer and consumer never write
 * the same line.
 */
struct ivwl_ring_ctrl {
	struct {
		uint32_t prod;		/* free-running byte index */
		uint32_t need_space;	/* producer sleeps until cons moves */
		uint8_t pad[IVWL_CACHELINE - 8];
	} producer;
	struct {
		uint32_t cons;		/* free-running byte index */
		uint32_t need_data;	/* consumer sleeps until prod moves */
		uint8_t pad[IVWL_CACHELINE - 8];
	} consumer;
};

struct ivwl_slot_state {
	uint32_t state;
	uint32_t generation;
	uint8_t pad[IVWL_CACHELINE - 8];
};

/*
 * What the app side's relay says it did for the slot's connection since
 * it took the slot (0 before).  Written by the app only; the display
 * shows the figures to people (weston-debug ivwl) and never acts on
 * them; flags, below.
 */
struct ivwl_slot_app_stats {
	uint64_t buffer_commits;	/* commits with a buffer attached */
	uint64_t damaged_bytes;		/* their damage, clipped */
	uint64_t copied_bytes;		/* copied into the region */
	uint64_t zero_copy_commits;	/* commits that copied nothing */
	uint64_t zero_copy_pools;	/* pools drawn in place */
	uint64_t copy_pools;		/* pools copied from */
	uint64_t flags;			/* IVWL_SLOT_APP_* */
	/* drawn by the relay for its client once, the same in every slot
	 * a replay moves it to: names its windows across a restart */
	uint64_t client_key;
};

/*
 * The relay is replaying its client's windows on a new display: what
 * maps now came back, the user did not just open it.  The display acts
 * on it only to deny such a window what a VM's own word cannot earn
 * (the keyboard) and to spare it the attention bar: a VM that sets it
 * falsely keeps its own new windows from both.
 */
#define IVWL_SLOT_APP_REPLAYING (1u << 0)

/* First page of every slot. */
struct ivwl_slot_ctrl {
	struct ivwl_slot_state app;
	struct ivwl_slot_state display;
	struct ivwl_ring_ctrl request;	/* app -> display */
	struct ivwl_ring_ctrl event;	/* display -> app */
	struct ivwl_slot_app_stats app_stats;
};

_Static_assert(sizeof(struct ivwl_clock_estimate) == 64, "estimate size");
_Static_assert(sizeof(struct ivwl_side_block) == 256, "side block size");
_Static_assert(sizeof(struct ivwl_region_header) == 896, "header size");
_Static_assert(sizeof(struct ivwl_ring_ctrl) == 2 * IVWL_CACHELINE,
	       "ring ctrl size");
_Static_assert(sizeof(struct ivwl_slot_app_stats) == IVWL_CACHELINE,
	       "app stats on a line of their own");
_Static_assert(sizeof(struct ivwl_slot_ctrl) <= IVWL_PAGE_SIZE,
	       "slot ctrl fits a page");

/* The private, trusted copy of the layout each side computes. */
struct ivwl_layout {
	uint64_t region_size;
	uint32_t slot_count;
	uint32_t ring_size;
	uint64_t slot_table_offset;
	uint64_t slot_stride;
	uint64_t heap_offset;
	uint64_t heap_size;
};

/* A slot's two rings as one side sees them. */
struct ivwl_slot_view {
	struct ivwl_slot_ctrl *ctrl;
	uint8_t *request_data;
	uint8_t *event_data;
};

bool
ivwl_is_pow2(uint64_t v);

/*
 * Why a region of size bytes cannot hold the layout and how to fix it, in
 * words ("the region is too small for its slots: make it ..."), or NULL
 * when it can.
 */
const char *
ivwl_region_size_problem(uint64_t size);

/* 0, or -EINVAL when size is not a power of two in the allowed range. */
int
ivwl_layout_compute(uint64_t region_size, struct ivwl_layout *layout);

/* Writes the common block of the header from the trusted layout. */
void
ivwl_region_write_header(void *base, const struct ivwl_layout *layout);

/*
 * True when the header in shared memory describes exactly this layout.
 * Reads every field once; the caller still uses its own layout afterwards.
 */
bool
ivwl_region_header_matches(const void *base, const struct ivwl_layout *layout);

struct ivwl_region_header *
ivwl_region_header(void *base);

struct ivwl_side_block *
ivwl_region_side(void *base, enum ivwl_side side);

/* slot must be < layout->slot_count. */
void
ivwl_region_slot(void *base, const struct ivwl_layout *layout, uint32_t slot,
		 struct ivwl_slot_view *view);

/*
 * A slot state word pair is read and written as one 64-bit access, so the
 * peer never sees a state with the generation of another.
 */
void
ivwl_slot_state_store(struct ivwl_slot_state *s, uint32_t state,
		      uint32_t generation);
void
ivwl_slot_state_load(const struct ivwl_slot_state *s, uint32_t *state,
		     uint32_t *generation);

/*
 * Adds bits to the doorbell word of side `to`.  True when the caller must
 * ring that side's vector: the word was empty, so no doorbell is on its
 * way that the new bits could ride on.
 */
bool
ivwl_doorbell_post(void *base, enum ivwl_side to, uint64_t bits);

/* Takes every bit posted to side `own` (after draining its vector). */
uint64_t
ivwl_doorbell_take(void *base, enum ivwl_side own);

/*
 * Checks that [offset, offset + length) lies inside the heap, without
 * overflow, page aligned at the start.  The display side calls this on
 * every range an app names.
 */
bool
ivwl_heap_range_valid(const struct ivwl_layout *layout, uint64_t offset,
		      uint64_t length);

#endif
