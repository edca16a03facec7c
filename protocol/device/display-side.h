/* SPDX-License-Identifier: MIT */
/*
 * The display side's half of the slot handshake (docs/region.md, "Slots"):
 * claiming the region on start, noticing app opens and closes, answering
 * them.  Shared by the weston plugin and the test peers.  It only touches
 * display-owned words and reads app-owned ones once per look.
 */
#ifndef IVWL_DISPLAY_SIDE_H
#define IVWL_DISPLAY_SIDE_H

#include <stdbool.h>
#include <stdint.h>

#include "device.h"
#include "region.h"
#include "ring.h"

struct ivwl_display_side {
	struct ivwl_device *dev;
	void *base;
	struct ivwl_layout layout;
	uint32_t slots;			/* the layout's slot count */
	uint32_t app_epoch;
	bool open[IVWL_SLOT_COUNT];
	uint32_t generation[IVWL_SLOT_COUNT];
	/*
	 * 0, or -ETIMEDOUT once a ring found that the app side makes
	 * ringing impossible (device.h).  Then no new connection is served
	 * until ivwl_display_side_ring_reset().  Rings happen deep inside
	 * callers that cannot act on it (a connection being destroyed), so
	 * the first failure is also told to ring_failed.
	 */
	int ring_error;
	void (*ring_failed)(void *data, int error);
	void *ring_failed_data;
	/* The next ring goes out even if the word says one is on its way. */
	bool ring_owed;
	uint32_t probe_seq;		/* the low half of the last probe */
	uint64_t vector_rings;		/* on a slot's own vector */
};

struct ivwl_display_side_listener {
	/* A connection went away (app closed it or restarted). */
	void (*closed)(void *data, uint32_t slot);
	/*
	 * The app opened a generation.  Return true to serve it: the
	 * side then resets its ring lines and acknowledges; false refuses.
	 */
	bool (*opened)(void *data, uint32_t slot, uint32_t generation);
};

/* Binds to an attached device; -EINVAL when the region is unusable. */
int
ivwl_display_side_init(struct ivwl_display_side *ds, struct ivwl_device *dev);

/*
 * func is called once, from inside whichever call rang, when ringing the
 * app fails for good: it should end the connections later, from the
 * event loop, not from there.
 */
void
ivwl_display_side_set_ring_listener(struct ivwl_display_side *ds,
				    void (*func)(void *data, int error),
				    void *data);

/* A new app side joined: ring it, and serve it, again. */
void
ivwl_display_side_ring_reset(struct ivwl_display_side *ds);

/* New epoch, ready, and every connection of an earlier instance closed. */
void
ivwl_display_side_claim(struct ivwl_display_side *ds);

/* Marks the side gone (clean shutdown). */
void
ivwl_display_side_release(struct ivwl_display_side *ds);

/*
 * Looks at every slot once and reports changes through the listener.
 * While ring_error is set it only reports closes.
 */
void
ivwl_display_side_sync(struct ivwl_display_side *ds,
		       const struct ivwl_display_side_listener *listener,
		       void *data);

/* Ends a connection from the display side (protocol error, shutdown). */
void
ivwl_display_side_close(struct ivwl_display_side *ds, uint32_t slot);

/*
 * The slot's rings as the display uses them: requests consumed, events
 * produced.  Private views; call before acknowledging (opened callback).
 */
void
ivwl_display_side_rings(struct ivwl_display_side *ds, uint32_t slot,
			struct ivwl_ring *request, struct ivwl_ring *event);

/*
 * What the app's relay says it did for the slot (region.h): numbers the
 * app chose, to be shown, never trusted.  slot < ds->slots.
 */
void
ivwl_display_side_app_stats(struct ivwl_display_side *ds, uint32_t slot,
			    struct ivwl_slot_app_stats *out);

/* The key the slot's relay drew for its client, or 0 (region.h). */
uint64_t
ivwl_display_side_app_client_key(struct ivwl_display_side *ds,
				 uint32_t slot);

/* Whether the app says the slot's relay is replaying (region.h). */
bool
ivwl_display_side_app_replaying(struct ivwl_display_side *ds, uint32_t slot);

/*
 * Rings the app for the slot's rings: on the slot's own vector when the
 * app waits on one and the device can ring it, else through the doorbell
 * word.  ivwl_device_ring's result, or 0.
 */
int
ivwl_display_side_kick(struct ivwl_display_side *ds, uint32_t slot);

/* Rings the app for other bits (IVWL_DOORBELL_CLOCK): as kick. */
int
ivwl_display_side_ring(struct ivwl_display_side *ds, uint64_t bits);

/*
 * What the app rang us for, once our vector is drained: bit k for slot k
 * (any of them, open or not: the app writes the word) and
 * IVWL_DOORBELL_CONTROL.
 */
uint64_t
ivwl_display_side_take(struct ivwl_display_side *ds);

/*
 * Liveness where nothing says that an app-vm died (docs/region.md,
 * "Liveness"): publishes a new probe, never 0, and rings; the app's
 * agent echoes it.  Returns the probe.
 */
uint64_t
ivwl_display_side_probe(struct ivwl_display_side *ds);

/* The last probe the app side answered; the app writes it. */
uint64_t
ivwl_display_side_probe_answer(struct ivwl_display_side *ds);

#endif
