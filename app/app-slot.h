/* SPDX-License-Identifier: MIT */
/*
 * The app side of one slot, as a process that got it from ivwl-agent sees
 * it: the region mapped, the request ring to produce into, the event ring
 * to consume from, and the doorbells.  The shim's relay sits on this.
 */
#ifndef IVWL_APP_SLOT_H
#define IVWL_APP_SLOT_H

#include <stdbool.h>

#include "agent-client.h"
#include "region.h"
#include "ring.h"

struct ivwl_app_slot {
	struct ivwl_agent_slot info;
	void *base;
	struct ivwl_layout layout;
	struct ivwl_slot_view view;
	struct ivwl_ring request;	/* we produce */
	struct ivwl_ring event;		/* we consume */
	uint32_t display_epoch;
};

/* Maps the region; takes ownership of info's fds (even on failure). */
int
ivwl_app_slot_attach(struct ivwl_app_slot *slot,
		     const struct ivwl_agent_slot *info);

void
ivwl_app_slot_detach(struct ivwl_app_slot *slot);

/*
 * Moves onto another slot of the same region (a new display's), keeping
 * the mapping: pointers into the region stay valid.  Takes ownership of
 * info's fds (even on failure).
 */
int
ivwl_app_slot_move(struct ivwl_app_slot *slot,
		   const struct ivwl_agent_slot *info);

/*
 * True when the display this slot was opened on left or was replaced;
 * *ready says whether a display serves the region now.
 */
bool
ivwl_app_slot_display_restarted(struct ivwl_app_slot *slot, bool *ready);

/*
 * Waits until the display side serves this generation.  -ECONNREFUSED
 * when it refused it, -ENOTCONN when the display left or restarted
 * meanwhile, -ETIMEDOUT after timeout_ms.
 */
int
ivwl_app_slot_wait_open(struct ivwl_app_slot *slot, int timeout_ms);

/* False once the display closed this generation, restarted or left. */
bool
ivwl_app_slot_alive(struct ivwl_app_slot *slot);

/*
 * Sleeps until the display rings us, if the rings we wait on still say
 * so: want_events for the event ring, want_space for the request ring.
 * 0 when woken or when there was no need to sleep, -ETIMEDOUT.
 */
int
ivwl_app_slot_wait(struct ivwl_app_slot *slot, bool want_events,
		   bool want_space, int timeout_ms);

/* Shows the display what the relay did (region.h): plain stores. */
void
ivwl_app_slot_publish(struct ivwl_app_slot *slot,
		      const struct ivwl_slot_app_stats *stats);

/* Says the relay is replaying (IVWL_SLOT_APP_REPLAYING), or is not. */
void
ivwl_app_slot_set_replaying(struct ivwl_app_slot *slot, bool replaying);

/* Rings the display if either ring owes it a doorbell; true if rung. */
bool
ivwl_app_slot_kick(struct ivwl_app_slot *slot);

#endif
