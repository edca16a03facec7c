/* SPDX-License-Identifier: MIT */
/*
 * The protocol firewall: every request of a VM's connection is checked
 * against the semantics of its protocol before weston sees it, not only
 * against its wire format (wire.c does that).  weston trusts its clients
 * far more than ivwl may: a surface given two roles, a popup destroyed
 * under its child, or MIME types offered without end crash or bloat it.
 *
 * The firewall keeps a small model of what the connection made (surfaces
 * and their roles, xdg objects, subsurfaces, positioners, data sources,
 * input devices, callbacks in flight) and counts what weston keeps on the
 * connection's behalf against budgets per connection and per VM.  Rules
 * are looked up by interface and opcode (firewall-rules.c); docs/security.md
 * lists each with its reason.
 */
#ifndef IVWL_FIREWALL_H
#define IVWL_FIREWALL_H

#include <stdbool.h>
#include <stdint.h>

#include "wire.h"

/* What all connections of one VM hold in weston. */
struct ivwl_firewall_totals {
	uint32_t objects;
	uint32_t surfaces;
	uint32_t windows;		/* xdg_toplevels and xdg_popups */
	uint32_t keyboards;
	uint32_t mime_bytes;
};

struct ivwl_fw_object;

/* One connection's model.  Not shared between threads. */
struct ivwl_firewall {
	struct ivwl_firewall_totals *vm;
	const struct ivwl_wire_map *objects;	/* the connection's ids */
	struct ivwl_fw_object **buckets;	/* id -> model object */
	uint32_t nbuckets;			/* a power of two */
	uint32_t tracked;			/* model objects */
	uint32_t seq;				/* creation order */
	uint32_t counted_objects;		/* in vm->objects */

	/* budgets: live counts of what weston keeps */
	uint32_t surfaces;
	uint32_t windows;		/* counted as the model adds and drops */
	uint32_t regions;
	uint32_t rects;			/* in regions and pending damage */
	uint32_t positioners;
	uint32_t data_sources;
	uint32_t mime_bytes;
	uint32_t keyboards;
	uint32_t pointers;
	uint32_t touches;
	uint32_t callbacks;		/* wl_surface.frame not yet done */
	uint32_t feedbacks;		/* wp_presentation_feedback in flight */

	/*
	 * The weston behind the connection, for the rules that work
	 * around a bug of some weston versions only (docs/security.md,
	 * "Workarounds for weston's bugs"); 0: unknown, every one applies.
	 */
	int weston_major;
	/*
	 * Asks weston whether a view of the connection's wl_surface id is
	 * on no output now (unmapped, or off every output); NULL: none is.
	 * For the rule that works around weston 16's popup constraints
	 * (firewall-xdg.c), which checks it with weston settled
	 * (ivwl_firewall_needs_settled).
	 */
	bool (*off_output)(void *data, uint32_t surface);
	void *off_output_data;

	char why[256];			/* the last refusal, in words */

	/*
	 * A request let through may be changed on its way: its bytes
	 * (during ivwl_firewall_request), and a request of the firewall's
	 * to send weston before it (inject_len bytes, 0 for none).
	 */
	uint8_t *bytes;
	uint8_t inject[32];
	uint32_t inject_len;
	/* or kept from weston: the model and the map follow it, weston
	 * never sees it (a request weston would crash on, and that has
	 * no effect for the client to miss) */
	bool absorb;
};

/*
 * Whether the firewall has a rule for a request: what its descriptor's
 * rules list must say (test-descriptors holds the two together).
 */
bool
ivwl_firewall_has_rule(const struct ivwl_interface *iface, uint16_t opcode);

int
ivwl_firewall_init(struct ivwl_firewall *fw,
		   const struct ivwl_wire_map *objects,
		   struct ivwl_firewall_totals *vm);

/* Gives back what the connection counted in its VM's totals. */
void
ivwl_firewall_release(struct ivwl_firewall *fw);

/*
 * Whether msg may be checked only once weston has run every request
 * before it (the host holds it until a wl_display.sync of its own comes
 * back: translate.c's barrier), as its rule asks weston's state.
 */
bool
ivwl_firewall_needs_settled(const struct ivwl_firewall *fw,
			    const struct ivwl_wire_msg *msg);

/*
 * Whether msg maps a window: a wl_surface.commit of an xdg_toplevel's or
 * xdg_popup's surface, unmapped now, with a buffer attached.  The host
 * paces these (map-pace.h) before the firewall takes the request.
 */
bool
ivwl_firewall_maps_window(const struct ivwl_firewall *fw,
			  const struct ivwl_wire_msg *msg);

/*
 * A parsed request, before ivwl_wire_track() applies it to the map;
 * bytes are its own, which a rule may rewrite in place.  0 to let it
 * through (the model follows it; send fw->inject first if inject_len;
 * do not send it if fw->absorb),
 * or -EPROTO (a rule broken) or -EDQUOT (a budget spent) with *why
 * naming the message and the rule.  why points into a buffer of the
 * firewall's, valid until the next call.
 */
int
ivwl_firewall_request(struct ivwl_firewall *fw,
		      const struct ivwl_wire_msg *msg, uint8_t *bytes,
		      const char **why);

/* An event weston sent: ends what it ends (callbacks, feedbacks). */
void
ivwl_firewall_event(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg);

/*
 * The live xdg_popups, newest first: the order in which the protocol
 * lets them be destroyed.  Fills at most max ids, returns how many.
 */
uint32_t
ivwl_firewall_popups(const struct ivwl_firewall *fw, uint32_t *ids,
		     uint32_t max);

/*
 * Every live window object of the connection in the order a client that
 * ends its windows cleanly would destroy them: popups newest first, then
 * toplevels newest first, each with its xdg_surface and wl_surface right
 * after it, then the other xdg_surfaces, subsurfaces and surfaces.  A
 * window goes whole before the next: weston 14 and 16 add what a view
 * showed to the damage of every view still above it, so a frame left
 * behind by its toplevel would be above every window ended after it
 * (docs/security.md, "Windows of a gone connection").  *ids is allocated
 * (free it); returns how many, 0 also without memory.
 */
uint32_t
ivwl_firewall_teardown(const struct ivwl_firewall *fw, uint32_t **ids);

#endif
