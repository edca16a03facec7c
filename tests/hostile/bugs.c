/* SPDX-License-Identifier: MIT */
/*
 * Attacks aimed at one weakness each, found while writing the modes in
 * modes.c.  Each prints what the display did, so a test can tell a fixed
 * plugin from a broken one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "channel.h"
#include "hostile.h"
#include "ivwl-protocols.h"
#include "shm-access.h"

#define XRGB8888 1u

/* ---- partial-header ------------------------------------------------- */

/*
 * prod published 4 bytes past cons: fewer bytes than a record header.
 * A consumer that treats that as "empty but readable" and retries from
 * an idle callback never returns to its event loop.
 */
void
ivwl_hostile_partial_header(struct ivwl_hostile *h)
{
	struct ivwl_ring_ctrl *r;
	bool closed = false, answered;
	uint32_t cons;

	if (!ivwl_hostile_slot_open_wait(h, 0, 2000)) {
		printf("hostile-peer: partial-header: the display never "
		       "served slot 0\n");
		return;
	}
	r = &ivwl_hostile_ctrl(h, 0)->request;
	cons = ivwl_shm_load(&r->consumer.cons);
	ivwl_shm_store_release(&r->producer.prod, cons + 4);
	h->st.index_writes++;
	ivwl_hostile_ring(h, IVWL_DOORBELL_SLOT(0));
	usleep(300 * 1000);

	answered = h->slots > 1 && ivwl_hostile_slot_open_wait(h, 1, 2000);
	while (ivwl_hostile_time_left(h) && !closed) {
		ivwl_hostile_slot_poll(h, 0);
		closed = h->slot[0].phase != IVWL_HOSTILE_LIVE;
		usleep(10 * 1000);
	}
	printf("hostile-peer: partial-header: the display %s slot 0 and %s "
	       "a new open on slot 1\n", closed ? "closed" : "kept serving",
	       answered ? "answered" : "did NOT answer");
}

/* ---- shm-overread --------------------------------------------------- */

#define OVR_WIDTH 400
#define OVR_HEIGHT 300
#define OVR_STRIDE OVR_WIDTH		/* bytes: a quarter of a row */
#define OVR_COLOUR 0xff00ff00u

static void
on_window_event(void *data, const struct ivwl_hostile_event *ev)
{
	struct window *w = data;

	if (ev->object == w->xdg_surface &&
	    ev->opcode == IVWL_EVT_XDG_SURFACE_CONFIGURE && ev->size >= 12) {
		memcpy(&w->serial, ev->args, 4);
		w->configured = true;
	} else if (ev->object == w->wm_base &&
		   ev->opcode == IVWL_EVT_XDG_WM_BASE_PING && ev->size >= 12) {
		memcpy(&w->ping, ev->args, 4);
		w->pinged = true;
	}
}

static void
attach_commit(struct ivwl_out *out, uint32_t surface, uint32_t buffer)
{
	ivwl_out_begin(out, surface, IVWL_REQ_WL_SURFACE_ATTACH);
	ivwl_out_u32(out, buffer);
	ivwl_out_u32(out, 0);
	ivwl_out_u32(out, 0);
	ivwl_out_end(out);
	ivwl_out_begin(out, surface, IVWL_REQ_WL_SURFACE_DAMAGE_BUFFER);
	ivwl_out_u32(out, 0);
	ivwl_out_u32(out, 0);
	ivwl_out_u32(out, OVR_WIDTH);
	ivwl_out_u32(out, OVR_HEIGHT);
	ivwl_out_end(out);
	ivwl_out_begin(out, surface, IVWL_REQ_WL_SURFACE_COMMIT);
	ivwl_out_end(out);
}

/*
 * A toplevel whose wl_buffer has a stride of a quarter of its row
 * (libwayland only checks stride >= width, in pixels against bytes) and
 * ends exactly at the end of the heap: every check on offset + stride *
 * height passes, and the renderer reads three quarters of a row past the
 * end of the region's mapping.  The pool memory is all OVR_COLOUR, so any
 * other colour in the window came from outside the app's range.
 */
void
ivwl_hostile_shm_overread(struct ivwl_hostile *h)
{
	struct window w = { 0 };
	struct ivwl_hostile_globals g;
	struct ivwl_out out;
	uint32_t len = (uint32_t)OVR_STRIDE * OVR_HEIGHT;
	uint32_t shm, comp, surface, top, pool, buffer, *id, *px, i;
	struct ivwl_fd_desc d;
	uint64_t offset;

	/* the last pages of the heap, which are the region's last */
	len = (len + IVWL_PAGE_SIZE - 1) & ~(IVWL_PAGE_SIZE - 1);
	offset = h->layout.region_size - len;
	px = (uint32_t *)(h->base + offset);
	d = ivwl_out_region_desc(offset, len);
	if (!ivwl_hostile_session_start(h, 0, &g, 2000) || !g.shm ||
	    !g.compositor || !g.wm_base) {
		printf("hostile-peer: shm-overread: no session\n");
		return;
	}
	for (i = 0; i < len / 4; i++)
		px[i] = OVR_COLOUR;

	id = &h->slot[0].next_id;
	shm = (*id)++;
	comp = (*id)++;
	w.wm_base = (*id)++;
	surface = (*id)++;
	w.xdg_surface = (*id)++;
	top = (*id)++;
	ivwl_out_reset(&out);
	ivwl_out_bind(&out, g.shm, "wl_shm", 1, shm);
	ivwl_out_bind(&out, g.compositor, "wl_compositor", 4, comp);
	ivwl_out_bind(&out, g.wm_base, "xdg_wm_base", 1, w.wm_base);
	ivwl_out_begin(&out, comp,
		       IVWL_REQ_WL_COMPOSITOR_CREATE_SURFACE);
	ivwl_out_u32(&out, surface);
	ivwl_out_end(&out);
	ivwl_out_begin(&out, w.wm_base, IVWL_REQ_XDG_WM_BASE_GET_XDG_SURFACE);
	ivwl_out_u32(&out, w.xdg_surface);
	ivwl_out_u32(&out, surface);
	ivwl_out_end(&out);
	ivwl_out_begin(&out, w.xdg_surface, IVWL_REQ_XDG_SURFACE_GET_TOPLEVEL);
	ivwl_out_u32(&out, top);
	ivwl_out_end(&out);
	ivwl_out_begin(&out, top, IVWL_REQ_XDG_TOPLEVEL_SET_TITLE);
	ivwl_out_string(&out, "overread");
	ivwl_out_end(&out);
	ivwl_out_begin(&out, surface, IVWL_REQ_WL_SURFACE_COMMIT);
	ivwl_out_end(&out);
	ivwl_hostile_send_wayland(h, 0, &out);
	while (!w.configured && ivwl_hostile_time_left(h) &&
	       h->slot[0].phase == IVWL_HOSTILE_LIVE)
		ivwl_hostile_roundtrip(h, 0, on_window_event, &w, 200);
	if (!w.configured) {
		printf("hostile-peer: shm-overread: never configured\n");
		return;
	}

	pool = (*id)++;
	buffer = (*id)++;
	ivwl_out_reset(&out);
	ivwl_out_begin(&out, w.xdg_surface, IVWL_REQ_XDG_SURFACE_ACK_CONFIGURE);
	ivwl_out_u32(&out, w.serial);
	ivwl_out_end(&out);
	ivwl_out_begin(&out, shm, IVWL_REQ_WL_SHM_CREATE_POOL);
	ivwl_out_u32(&out, pool);
	ivwl_out_u32(&out, len);
	ivwl_out_end(&out);
	ivwl_out_fd(&out, &d);
	ivwl_out_begin(&out, pool, IVWL_REQ_WL_SHM_POOL_CREATE_BUFFER);
	ivwl_out_u32(&out, buffer);
	ivwl_out_u32(&out, len - (uint32_t)OVR_STRIDE * OVR_HEIGHT);
	ivwl_out_u32(&out, OVR_WIDTH);
	ivwl_out_u32(&out, OVR_HEIGHT);
	ivwl_out_u32(&out, OVR_STRIDE);
	ivwl_out_u32(&out, XRGB8888);
	ivwl_out_end(&out);
	attach_commit(&out, surface, buffer);
	ivwl_hostile_send_wayland(h, 0, &out);
	printf("hostile-peer: shm-overread: %dx%d buffer, stride %d, ends at "
	       "the end of the region\n", OVR_WIDTH, OVR_HEIGHT, OVR_STRIDE);
	fflush(stdout);

	/* keep it on screen, repainted, answering pings */
	while (ivwl_hostile_time_left(h) &&
	       h->slot[0].phase == IVWL_HOSTILE_LIVE) {
		ivwl_hostile_roundtrip(h, 0, on_window_event, &w, 200);
		ivwl_out_reset(&out);
		if (w.pinged) {
			ivwl_out_begin(&out, w.wm_base,
				       IVWL_REQ_XDG_WM_BASE_PONG);
			ivwl_out_u32(&out, w.ping);
			ivwl_out_end(&out);
			w.pinged = false;
		}
		attach_commit(&out, surface, buffer);
		ivwl_hostile_send_wayland(h, 0, &out);
		usleep(100 * 1000);
	}
	printf("hostile-peer: shm-overread: the connection %s\n",
	       h->slot[0].phase == IVWL_HOSTILE_LIVE ? "stayed open" :
	       "was closed");
}

/* ---- pool-flood ----------------------------------------------------- */

#define FLOOD_PER_RECORD 28u		/* one fd per pool */

struct flood {
	uint32_t shm;
	uint32_t pools;		/* created and acknowledged by a roundtrip */
};

static bool
flood_start(struct ivwl_hostile *h, uint32_t k, struct flood *f)
{
	struct ivwl_hostile_globals g;
	struct ivwl_out out;

	f->pools = 0;
	if (!ivwl_hostile_session_start(h, k, &g, 2000) || !g.shm)
		return false;
	f->shm = h->slot[k].next_id++;
	ivwl_out_reset(&out);
	ivwl_out_bind(&out, g.shm, "wl_shm", 1, f->shm);
	return ivwl_hostile_send_wayland(h, k, &out) == 0;
}

/*
 * Adds up to n pools, each kept alive by one buffer, the pool object
 * itself destroyed: the plugin forgets the pool (its MAX_POOLS count
 * drops) but libwayland keeps the mapping for the buffer.  Roundtrips
 * every record, so f->pools counts only what weston took; false once the
 * connection is gone.
 */
static bool
flood_add(struct ivwl_hostile *h, uint32_t k, struct flood *f, uint32_t n,
	  uint32_t per_record)
{
	struct ivwl_fd_desc d = ivwl_out_region_desc(h->layout.heap_offset,
						     IVWL_PAGE_SIZE);
	uint32_t *id = &h->slot[k].next_id, added = 0, i, pool;
	struct ivwl_out out;

	while (added < n && ivwl_hostile_time_left(h) &&
	       h->slot[k].phase == IVWL_HOSTILE_LIVE) {
		ivwl_out_reset(&out);
		for (i = 0; i < per_record && added + i < n; i++) {
			pool = (*id)++;
			ivwl_out_begin(&out, f->shm,
				       IVWL_REQ_WL_SHM_CREATE_POOL);
			ivwl_out_u32(&out, pool);
			ivwl_out_u32(&out, IVWL_PAGE_SIZE);
			ivwl_out_end(&out);
			ivwl_out_fd(&out, &d);
			ivwl_out_begin(&out, pool,
				       IVWL_REQ_WL_SHM_POOL_CREATE_BUFFER);
			ivwl_out_u32(&out, (*id)++);
			ivwl_out_u32(&out, 0);
			ivwl_out_u32(&out, 1);
			ivwl_out_u32(&out, 1);
			ivwl_out_u32(&out, 4);
			ivwl_out_u32(&out, XRGB8888);
			ivwl_out_end(&out);
			ivwl_out_begin(&out, pool,
				       IVWL_REQ_WL_SHM_POOL_DESTROY);
			ivwl_out_end(&out);
		}
		if (ivwl_hostile_send_wayland(h, k, &out) < 0 ||
		    !ivwl_hostile_roundtrip(h, k, NULL, NULL, 2000))
			break;
		added += i;
		f->pools += i;
	}
	ivwl_hostile_slot_poll(h, k);
	return h->slot[k].phase == IVWL_HOSTILE_LIVE;
}

/*
 * Takes as many mappings as weston lets slot k hold: floods in batches
 * until the connection dies (which frees what it held), again up to a
 * batch short of that, then one at a time until it dies, then up to one
 * short of that.  Returns the pools held.
 */
static uint32_t
hold_most(struct ivwl_hostile *h, uint32_t k)
{
	struct flood f;
	uint32_t room;

	if (!flood_start(h, k, &f))
		return 0;
	if (flood_add(h, k, &f, 1u << 17, FLOOD_PER_RECORD))
		return f.pools;		/* out of time or ids: keep it */
	room = f.pools;
	if (!flood_start(h, k, &f))
		return 0;
	if (room > FLOOD_PER_RECORD &&
	    !flood_add(h, k, &f, room - FLOOD_PER_RECORD, FLOOD_PER_RECORD))
		return 0;
	if (flood_add(h, k, &f, 1u << 17, 1))
		return f.pools;
	room = f.pools;
	if (room == 0 || !flood_start(h, k, &f) ||
	    !flood_add(h, k, &f, room - 1, FLOOD_PER_RECORD))
		return 0;
	return f.pools;
}

/*
 * Fills weston's mappings (vm.max_map_count is per process) from every
 * slot, each holding as many as it is let, and keeps them: a plugin
 * without a bound per VM leaves the other VMs' clients without a single
 * mapping to spare.
 */
void
ivwl_hostile_pool_flood(struct ivwl_hostile *h)
{
	uint32_t k, held = 0, n, slots = 0, empty = 0;

	for (k = 0; k < h->slots && empty < 2 &&
	     ivwl_hostile_time_left(h); k++) {
		n = hold_most(h, k);
		printf("hostile-peer: pool-flood: slot %u holds %u pools\n",
		       k, n);
		fflush(stdout);
		held += n;
		slots += n > 0;
		empty = n ? 0 : empty + 1;
	}
	printf("hostile-peer: pool-flood: holding %u pools on %u slots\n",
	       held, slots);
	fflush(stdout);
	while (ivwl_hostile_time_left(h)) {
		for (k = 0; k < h->slots; k++)
			if (h->slot[k].phase == IVWL_HOSTILE_LIVE)
				ivwl_hostile_roundtrip(h, k, NULL, NULL, 500);
		usleep(100 * 1000);
	}
}

/* ---- vanish --------------------------------------------------------- */

/* Live connections with objects, then the app side leaves the server
 * without closing them (its VM died). */
void
ivwl_hostile_vanish(struct ivwl_hostile *h)
{
	struct ivwl_hostile_globals g;
	uint32_t k, live = 0;

	for (k = 0; k < 4 && k < h->slots; k++)
		if (ivwl_hostile_session_start(h, k, &g, 1000))
			live++;
	printf("hostile-peer: vanish: leaving %u live connections behind\n",
	       live);
	for (k = 0; k < 4 && k < h->slots; k++)
		if (h->slot[k].phase == IVWL_HOSTILE_LIVE)
			printf("hostile-peer: vanish: slot %u generation %u\n",
			       k, h->slot[k].gen);
	fflush(stdout);
}

/* ---- event-cons-lie ------------------------------------------------- */

/* The event ring full, then an event cons past prod: the display's
 * producer must notice it when it needs room, and say so. */
void
ivwl_hostile_event_cons_lie(struct ivwl_hostile *h)
{
	if (!ivwl_hostile_slot_open_wait(h, 0, 2000)) {
		printf("hostile-peer: event-cons-lie: no slot\n");
		return;
	}
	ivwl_hostile_event_lie(h, 0, 0);
	while (ivwl_hostile_time_left(h) &&
	       h->slot[0].phase == IVWL_HOSTILE_LIVE) {
		ivwl_hostile_slot_poll(h, 0);
		usleep(10 * 1000);
	}
	printf("hostile-peer: event-cons-lie: the display %s the slot\n",
	       h->slot[0].phase == IVWL_HOSTILE_LIVE ? "kept serving" :
	       "closed");
}

/* ---- record-flood --------------------------------------------------- */

/*
 * Empty WAYLAND records (no message, no fd) as fast as the rings take
 * them, on four slots.  Each is valid and gives libwayland nothing to
 * read, so nothing ever pushes back on the display: it must still yield
 * to the rest of weston.
 */
void
ivwl_hostile_record_flood(struct ivwl_hostile *h)
{
	struct ivwl_wayland_header empty = { 0 };
	uint64_t sent = 0;
	uint32_t k, live = 0;

	for (k = 0; k < 4 && k < h->slots; k++)
		if (ivwl_hostile_slot_open_wait(h, k, 2000))
			live++;
	while (live && ivwl_hostile_time_left(h)) {
		for (k = 0; k < 4 && k < h->slots; k++) {
			if (h->slot[k].phase != IVWL_HOSTILE_LIVE)
				continue;
			while (ivwl_hostile_send(h, k, IVWL_RECORD_WAYLAND,
						 &empty,
						 sizeof(empty), false) == 0)
				sent++;
		}
		if (sent % 64 == 0)
			for (k = 0; k < 4 && k < h->slots; k++)
				ivwl_hostile_slot_poll(h, k);
	}
	printf("hostile-peer: record-flood: %llu empty records on %u slots\n",
	       (unsigned long long)sent, live);
}

/* ---- budget-stall --------------------------------------------------- */

#define RECORD_BUDGET 256	/* plugin/ivwl-limits.h */

static void
ring_state(struct ivwl_hostile *h, uint32_t k, uint32_t *prod, uint32_t *cons,
	   uint32_t *token)
{
	struct ivwl_ring_ctrl *r = &ivwl_hostile_ctrl(h, k)->request;

	*prod = ivwl_shm_load(&r->producer.prod);
	*cons = ivwl_shm_load(&r->consumer.cons);
	*token = ivwl_shm_load(&r->consumer.need_data);
}

/*
 * Exactly one budget of records, published at once and rung once: the
 * display drains the ring with its last budgeted read.  It must then
 * either sleep with a token (so our next record rings it) or come back
 * by itself.  One more record, rung only if a token asks for it, shows
 * which: a display that did neither never reads it.
 */
void
ivwl_hostile_budget_stall(struct ivwl_hostile *h)
{
	struct ivwl_wayland_header empty = { 0 };
	struct iovec iov = { &empty, sizeof(empty) };
	struct ivwl_hostile_slot *s = &h->slot[0];
	uint32_t prod, cons, token, i;
	int64_t end;

	if (!ivwl_hostile_slot_open_wait(h, 0, 2000)) {
		printf("hostile-peer: budget-stall: no slot\n");
		return;
	}
	usleep(100 * 1000);	/* the display sleeps on its token */
	for (i = 0; i < RECORD_BUDGET; i++)
		ivwl_ring_write(&s->request, IVWL_RECORD_WAYLAND, &iov, 1);
	h->st.records += RECORD_BUDGET;
	ivwl_hostile_ring(h, IVWL_DOORBELL_SLOT(0));

	end = ivwl_now_ms() + 2000;
	do {
		usleep(10 * 1000);
		ring_state(h, 0, &prod, &cons, &token);
	} while (cons != prod && ivwl_now_ms() < end);
	usleep(100 * 1000);
	ring_state(h, 0, &prod, &cons, &token);
	printf("hostile-peer: budget-stall: %u records read, sleep token "
	       "%u\n", (cons - 0) / 16, token);

	/* the protocol's rule: ring only a consumer that asked for it */
	ivwl_hostile_send(h, 0, IVWL_RECORD_WAYLAND, &empty, sizeof(empty),
			  false);
	end = ivwl_now_ms() + 1000;
	do {
		usleep(10 * 1000);
		ring_state(h, 0, &prod, &cons, &token);
	} while (cons != prod && ivwl_now_ms() < end);
	printf("hostile-peer: budget-stall: the display %s the record sent "
	       "after its budget ran out with the ring empty%s\n",
	       cons == prod ? "read" : "NEVER read",
	       cons == prod ? "" : " (it slept without a sleep token)");
}

/* ---- window-flood --------------------------------------------------- */

#define FLOOD_WINDOWS 2000u		/* per slot, unless --count */
#define FLOOD_WINDOWS_MAX 80000u	/* ids: 3 each, 2^18 per client */

struct windows {
	uint32_t first_xdg;	/* xdg_surface ids: first_xdg + 3 * i */
	uint32_t count;
	uint32_t *serial;	/* per window, 0 until configured */
	uint32_t configured;
	uint32_t wm_base, ping;
	bool pinged;
};

static void
on_windows_event(void *data, const struct ivwl_hostile_event *ev)
{
	struct windows *w = data;
	uint32_t i;

	if (ev->object == w->wm_base &&
	    ev->opcode == IVWL_EVT_XDG_WM_BASE_PING && ev->size >= 12) {
		memcpy(&w->ping, ev->args, 4);
		w->pinged = true;
		return;
	}
	if (ev->opcode != IVWL_EVT_XDG_SURFACE_CONFIGURE || ev->size < 12 ||
	    ev->object < w->first_xdg ||
	    (ev->object - w->first_xdg) % 3 != 0)
		return;
	i = (ev->object - w->first_xdg) / 3;
	if (i >= w->count)
		return;
	if (!w->serial[i])
		w->configured++;
	memcpy(&w->serial[i], ev->args, 4);
}

/* Waits for ring room (reading events meanwhile) up to two seconds. */
static int
send_patiently(struct ivwl_hostile *h, uint32_t k, const struct ivwl_out *out,
	       struct windows *w)
{
	int64_t end = ivwl_now_ms() + 2000;
	int ret;

	while ((ret = ivwl_hostile_send_wayland(h, k, out)) == -EAGAIN &&
	       ivwl_now_ms() < end &&
	       h->slot[k].phase == IVWL_HOSTILE_LIVE) {
		ivwl_hostile_drain_events(h, k, on_windows_event, w);
		ivwl_hostile_slot_poll(h, k);
		usleep(1000);
	}
	return ret;
}

/*
 * As many mapped toplevels as one connection may make, each showing the
 * same 1x1 buffer: every repaint of weston walks them all.  Returns the
 * windows mapped.
 */
static uint32_t
map_windows(struct ivwl_hostile *h, uint32_t k, uint32_t n)
{
	struct ivwl_hostile_globals g;
	struct ivwl_out out;
	struct windows w = { 0 };
	struct ivwl_fd_desc d = ivwl_out_region_desc(h->layout.heap_offset,
						     IVWL_PAGE_SIZE);
	uint32_t *id = &h->slot[k].next_id, shm, comp, pool, buffer, i, s;
	static uint32_t serials[FLOOD_WINDOWS_MAX];

	if (n > FLOOD_WINDOWS_MAX)
		n = FLOOD_WINDOWS_MAX;
	if (!ivwl_hostile_session_start(h, k, &g, 2000) || !g.shm ||
	    !g.compositor || !g.wm_base)
		return 0;
	memset(serials, 0, sizeof(serials));
	w.serial = serials;
	shm = (*id)++;
	comp = (*id)++;
	w.wm_base = (*id)++;
	pool = (*id)++;
	buffer = (*id)++;
	ivwl_out_reset(&out);
	ivwl_out_bind(&out, g.shm, "wl_shm", 1, shm);
	ivwl_out_bind(&out, g.compositor, "wl_compositor", 4, comp);
	ivwl_out_bind(&out, g.wm_base, "xdg_wm_base", 1, w.wm_base);
	ivwl_out_begin(&out, shm, IVWL_REQ_WL_SHM_CREATE_POOL);
	ivwl_out_u32(&out, pool);
	ivwl_out_u32(&out, IVWL_PAGE_SIZE);
	ivwl_out_end(&out);
	ivwl_out_fd(&out, &d);
	ivwl_out_begin(&out, pool, IVWL_REQ_WL_SHM_POOL_CREATE_BUFFER);
	ivwl_out_u32(&out, buffer);
	ivwl_out_u32(&out, 0);
	ivwl_out_u32(&out, 1);
	ivwl_out_u32(&out, 1);
	ivwl_out_u32(&out, 4);
	ivwl_out_u32(&out, XRGB8888);
	ivwl_out_end(&out);
	ivwl_hostile_send_wayland(h, k, &out);
	ivwl_out_reset(&out);

	/* surface, xdg_surface, toplevel per window: ids in threes */
	w.first_xdg = *id + 1;
	for (i = 0; i < n; i++) {
		if (!ivwl_out_room(&out, 64)) {
			if (send_patiently(h, k, &out, &w) < 0)
				break;
			ivwl_out_reset(&out);
			ivwl_hostile_drain_events(h, k, on_windows_event, &w);
		}
		s = (*id)++;
		ivwl_out_begin(&out, comp,
			       IVWL_REQ_WL_COMPOSITOR_CREATE_SURFACE);
		ivwl_out_u32(&out, s);
		ivwl_out_end(&out);
		ivwl_out_begin(&out, w.wm_base,
			       IVWL_REQ_XDG_WM_BASE_GET_XDG_SURFACE);
		ivwl_out_u32(&out, (*id)++);
		ivwl_out_u32(&out, s);
		ivwl_out_end(&out);
		ivwl_out_begin(&out, s + 1, IVWL_REQ_XDG_SURFACE_GET_TOPLEVEL);
		ivwl_out_u32(&out, (*id)++);
		ivwl_out_end(&out);
		ivwl_out_begin(&out, s, IVWL_REQ_WL_SURFACE_COMMIT);
		ivwl_out_end(&out);
		w.count++;
	}
	send_patiently(h, k, &out, &w);
	while (w.configured < w.count && ivwl_hostile_time_left(h) &&
	       h->slot[k].phase == IVWL_HOSTILE_LIVE)
		if (!ivwl_hostile_roundtrip(h, k, on_windows_event, &w, 2000))
			break;

	ivwl_out_reset(&out);
	for (i = 0; i < w.count; i++) {
		if (!w.serial[i])
			continue;
		if (!ivwl_out_room(&out, 64)) {
			if (send_patiently(h, k, &out, &w) < 0)
				break;
			ivwl_out_reset(&out);
			ivwl_hostile_drain_events(h, k, on_windows_event, &w);
		}
		s = w.first_xdg + 3 * i - 1;
		ivwl_out_begin(&out, s + 1, IVWL_REQ_XDG_SURFACE_ACK_CONFIGURE);
		ivwl_out_u32(&out, w.serial[i]);
		ivwl_out_end(&out);
		ivwl_out_begin(&out, s, IVWL_REQ_WL_SURFACE_ATTACH);
		ivwl_out_u32(&out, buffer);
		ivwl_out_u32(&out, 0);
		ivwl_out_u32(&out, 0);
		ivwl_out_end(&out);
		ivwl_out_begin(&out, s, IVWL_REQ_WL_SURFACE_COMMIT);
		ivwl_out_end(&out);
	}
	send_patiently(h, k, &out, &w);
	ivwl_hostile_roundtrip(h, k, on_windows_event, &w, 5000);
	return h->slot[k].phase == IVWL_HOSTILE_LIVE ? w.configured : 0;
}

void
ivwl_hostile_window_flood(struct ivwl_hostile *h)
{
	uint32_t want = h->count ? h->count : FLOOD_WINDOWS;
	uint32_t k, n, total = 0, empty = 0;

	for (k = 0; k < h->slots && empty < 2 && ivwl_hostile_time_left(h);
	     k++) {
		n = map_windows(h, k, want);
		/* refused (the connection was closed): try fewer */
		while (n == 0 && want >= 32 && ivwl_hostile_time_left(h)) {
			want /= 2;
			n = map_windows(h, k, want);
		}
		total += n;
		empty = n ? 0 : empty + 1;
		printf("hostile-peer: window-flood: slot %u maps %u windows "
		       "(%u in all)\n", k, n, total);
		fflush(stdout);
	}
	printf("hostile-peer: window-flood: holding %u windows\n", total);
	fflush(stdout);
	while (ivwl_hostile_time_left(h)) {
		for (k = 0; k < h->slots; k++)
			if (h->slot[k].phase == IVWL_HOSTILE_LIVE)
				ivwl_hostile_roundtrip(h, k, NULL, NULL, 500);
		usleep(100 * 1000);
	}
}

/* ---- region-bomb, damage-bomb -------------------------------------- */

/*
 * 1x1 rectangles that never touch, merged into one pixman region by the
 * compositor: a wl_region (add) or a surface's pending damage
 * (damage_buffer, never committed).  Each merge walks every rectangle
 * before it, so n requests cost n^2 / 2.  Reports how long roundtrips
 * took meanwhile.
 */
static void
bomb(struct ivwl_hostile *h, const char *name, bool damage)
{
	struct ivwl_hostile_globals g;
	struct ivwl_out out;
	uint32_t comp, target, i, rects = 0, *id;
	int64_t t, worst = 0;

	if (!ivwl_hostile_session_start(h, 0, &g, 2000) || !g.compositor) {
		printf("hostile-peer: %s: no session\n", name);
		return;
	}
	id = &h->slot[0].next_id;
	comp = (*id)++;
	target = (*id)++;
	ivwl_out_reset(&out);
	ivwl_out_bind(&out, g.compositor, "wl_compositor", 4, comp);
	ivwl_out_begin(&out, comp, damage ?
		       IVWL_REQ_WL_COMPOSITOR_CREATE_SURFACE :
		       IVWL_REQ_WL_COMPOSITOR_CREATE_REGION);
	ivwl_out_u32(&out, target);
	ivwl_out_end(&out);
	ivwl_hostile_send_wayland(h, 0, &out);

	while (ivwl_hostile_time_left(h) &&
	       h->slot[0].phase == IVWL_HOSTILE_LIVE) {
		for (i = 0; i < 16; i++) {
			ivwl_out_reset(&out);
			while (ivwl_out_room(&out, 24)) {
				ivwl_out_begin(&out, target, damage ?
					IVWL_REQ_WL_SURFACE_DAMAGE_BUFFER :
					IVWL_REQ_WL_REGION_ADD);
				ivwl_out_u32(&out, (rects % 1024) * 2);
				ivwl_out_u32(&out, (rects / 1024) * 2);
				ivwl_out_u32(&out, 1);
				ivwl_out_u32(&out, 1);
				ivwl_out_end(&out);
				rects++;
			}
			while (ivwl_hostile_send_wayland(h, 0, &out) ==
			       -EAGAIN && ivwl_hostile_time_left(h))
				usleep(1000);
		}
		t = ivwl_now_ms();
		if (!ivwl_hostile_roundtrip(h, 0, NULL, NULL, 30000))
			break;
		if (ivwl_now_ms() - t > worst)
			worst = ivwl_now_ms() - t;
	}
	printf("hostile-peer: %s: %u rectangles, slowest roundtrip %lld ms, "
	       "connection %s\n", name, rects, (long long)worst,
	       h->slot[0].phase == IVWL_HOSTILE_LIVE ? "open" : "closed");
}

void
ivwl_hostile_region_bomb(struct ivwl_hostile *h)
{
	bomb(h, "region-bomb", false);
}

void
ivwl_hostile_damage_bomb(struct ivwl_hostile *h)
{
	bomb(h, "damage-bomb", true);
}

/* ---- clipboard-flood ------------------------------------------------ */

#define CLIP_MIME "text/plain;charset=utf-8"
#define CLIP_CHUNK (64u << 10)

struct clip {
	struct ivwl_hostile *h;
	uint32_t k;
	uint32_t source;		/* our wl_data_source */
	struct ivwl_channels chs;
	struct ivwl_channel *ch;	/* weston's pipe, bridged */
	int fd;				/* we write the selection here */
	bool finished;
	uint64_t sent;
};

static uint64_t clip_buf[IVWL_RING_MAX_SIZE / 2 / sizeof(uint64_t)];

/* wl_data_source.send(mime, fd): weston wants the selection's bytes. */
static void
clip_wayland(struct clip *c, const void *payload, uint32_t len)
{
	struct ivwl_wayland_record rec;
	uint32_t pos = 0, object, word, size, fd_index = 0;

	if (ivwl_record_parse_wayland(payload, len, &c->h->layout, &rec) < 0)
		return;
	while (rec.data_len - pos >= 8) {
		memcpy(&object, rec.data + pos, 4);
		memcpy(&word, rec.data + pos + 4, 4);
		size = word >> 16;
		if (size < 8 || size > rec.data_len - pos)
			return;
		if (object == c->source &&
		    (word & 0xffff) == IVWL_EVT_WL_DATA_SOURCE_SEND &&
		    fd_index < rec.nfds && !c->ch &&
		    ivwl_channel_source_new(&c->chs, &rec.fds[fd_index],
					    &c->fd, &c->ch) == 0) {
			fcntl(c->fd, F_SETFL, O_NONBLOCK);
			fd_index++;
		}
		pos += (size + 3u) & ~3u;
	}
}

static void
clip_events(struct clip *c)
{
	struct ivwl_hostile_slot *s = &c->h->slot[c->k];
	struct ivwl_channel *done;
	uint16_t type;
	int n;

	while ((n = ivwl_ring_read(&s->event, &type, clip_buf,
				   ivwl_ring_max_payload(&s->event))) >= 0) {
		if (type == IVWL_RECORD_WAYLAND) {
			clip_wayland(c, clip_buf, (uint32_t)n);
		} else if (ivwl_channels_handle(&c->chs, type, clip_buf,
						(uint32_t)n, &done) == 0 &&
			   done) {
			if (done == c->ch) {
				c->ch = NULL;
				c->finished = true;
			}
			ivwl_channel_destroy(&c->chs, done);
		}
	}
	if (ivwl_ring_kick_needed(&s->event))
		ivwl_hostile_ring(c->h, IVWL_DOORBELL_SLOT(c->k));
}

/* Feeds the pipe and moves what it holds into the ring. */
static void
clip_feed(struct clip *c, uint64_t limit)
{
	struct ivwl_hostile_slot *s = &c->h->slot[c->k];
	static uint8_t chunk[CLIP_CHUNK];
	ssize_t n;

	if (c->fd >= 0 && c->sent < limit) {
		memset(chunk, 'x', sizeof(chunk));
		n = write(c->fd, chunk, sizeof(chunk));
		if (n > 0)
			c->sent += (uint64_t)n;
	}
	if (c->fd >= 0 && c->sent >= limit) {
		close(c->fd);		/* EOF: the selection is complete */
		c->fd = -1;
	}
	if (c->ch && ivwl_channel_pump(c->ch, &s->request) == 1) {
		ivwl_channel_destroy(&c->chs, c->ch);
		c->ch = NULL;
		c->finished = true;
	}
	if (ivwl_ring_kick_needed(&s->request))
		ivwl_hostile_ring(c->h, IVWL_DOORBELL_SLOT(c->k));
}

/*
 * Offers a selection on slot k (no input focus needed: weston takes any
 * serial while no selection is set) and, when weston's clipboard manager
 * asks for its bytes, sends limit of them.  c->source stays ours.
 */
static void
clip_offer_and_feed(struct ivwl_hostile *h, uint32_t k, uint64_t limit,
		    struct clip *c)
{
	struct ivwl_hostile_globals g;
	uint32_t *id, seat, ddm, device;
	struct ivwl_out out;

	memset(c, 0, sizeof(*c));
	c->h = h;
	c->k = k;
	c->fd = -1;
	ivwl_channels_init(&c->chs, IVWL_SIDE_APP);
	if (!ivwl_hostile_session_start(h, k, &g, 2000) || !g.seat ||
	    !g.data_device_manager)
		return;
	id = &h->slot[k].next_id;
	seat = (*id)++;
	ddm = (*id)++;
	c->source = (*id)++;
	device = (*id)++;
	ivwl_out_reset(&out);
	ivwl_out_bind(&out, g.seat, "wl_seat", 1, seat);
	ivwl_out_bind(&out, g.data_device_manager, "wl_data_device_manager",
		      3, ddm);
	ivwl_out_begin(&out, ddm,
		       IVWL_REQ_WL_DATA_DEVICE_MANAGER_CREATE_DATA_SOURCE);
	ivwl_out_u32(&out, c->source);
	ivwl_out_end(&out);
	ivwl_out_begin(&out, c->source, IVWL_REQ_WL_DATA_SOURCE_OFFER);
	ivwl_out_string(&out, CLIP_MIME);
	ivwl_out_end(&out);
	ivwl_out_begin(&out, ddm,
		       IVWL_REQ_WL_DATA_DEVICE_MANAGER_GET_DATA_DEVICE);
	ivwl_out_u32(&out, device);
	ivwl_out_u32(&out, seat);
	ivwl_out_end(&out);
	ivwl_out_begin(&out, device, IVWL_REQ_WL_DATA_DEVICE_SET_SELECTION);
	ivwl_out_u32(&out, c->source);
	ivwl_out_u32(&out, 0);
	ivwl_out_end(&out);
	ivwl_hostile_send_wayland(h, k, &out);

	while (ivwl_hostile_time_left(h) && !c->finished &&
	       h->slot[k].phase == IVWL_HOSTILE_LIVE) {
		clip_events(c);
		clip_feed(c, limit);
		ivwl_hostile_slot_poll(h, k);
		if (!c->ch)
			usleep(1000);
	}
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

static void
clip_report(struct ivwl_hostile *h, const char *mode, struct clip *c)
{
	printf("hostile-peer: %s: weston %s the selection; %llu MiB "
	       "written, transfer %s, connection %s\n", mode,
	       c->sent || c->ch ? "asked for" : "never asked for",
	       (unsigned long long)(c->sent >> 20),
	       c->finished ? "finished" : "unfinished",
	       h->slot[c->k].phase == IVWL_HOSTILE_LIVE ? "open" : "closed");
	fflush(stdout);
}

/* Sends --count MiB (256 by default) as a selection and keeps it. */
void
ivwl_hostile_clipboard_flood(struct ivwl_hostile *h)
{
	struct clip c;

	clip_offer_and_feed(h, 0, (uint64_t)(h->count ? h->count : 256) << 20,
			    &c);
	clip_report(h, "clipboard-flood", &c);
	/* keep the selection (and weston's copy of it) alive */
	while (ivwl_hostile_time_left(h) &&
	       h->slot[0].phase == IVWL_HOSTILE_LIVE) {
		clip_events(&c);
		ivwl_hostile_slot_poll(h, 0);
		usleep(10 * 1000);
	}
	ivwl_channels_release(&c.chs);
}

/* ---- clipboard-hang ------------------------------------------------- */

void
ivwl_hostile_on_focus_event(void *data, const struct ivwl_hostile_event *ev)
{
	struct ivwl_hostile_focus *f = data;
	uint32_t v;

	on_window_event(&f->w, ev);
	if (ev->object != f->device || ev->size < 12)
		return;
	memcpy(&v, ev->args, 4);
	if (ev->opcode == IVWL_EVT_WL_DATA_DEVICE_DATA_OFFER) {
		f->offer = v;
		f->offers++;
	} else if (ev->opcode == IVWL_EVT_WL_DATA_DEVICE_SELECTION) {
		f->selection = v && v == f->offer;
		f->selections++;
	}
}

bool
ivwl_hostile_focus_and_offer(struct ivwl_hostile *h, uint32_t k,
			     struct ivwl_hostile_focus *f)
{
	struct ivwl_hostile_globals g;
	struct ivwl_out out;
	struct ivwl_fd_desc d = ivwl_out_region_desc(h->layout.heap_offset,
						     IVWL_PAGE_SIZE);
	uint32_t *id = &h->slot[k].next_id, shm, comp, seat, ddm, surface;
	uint32_t top, pool, buffer;
	int64_t end;

	if (!ivwl_hostile_session_start(h, k, &g, 2000) || !g.seat ||
	    !g.data_device_manager || !g.shm || !g.compositor || !g.wm_base)
		return false;
	shm = (*id)++;
	comp = (*id)++;
	f->w.wm_base = (*id)++;
	seat = (*id)++;
	ddm = (*id)++;
	f->device = (*id)++;
	surface = (*id)++;
	f->w.xdg_surface = (*id)++;
	top = (*id)++;
	ivwl_out_reset(&out);
	ivwl_out_bind(&out, g.shm, "wl_shm", 1, shm);
	ivwl_out_bind(&out, g.compositor, "wl_compositor", 4, comp);
	ivwl_out_bind(&out, g.wm_base, "xdg_wm_base", 1, f->w.wm_base);
	ivwl_out_bind(&out, g.seat, "wl_seat", 1, seat);
	ivwl_out_bind(&out, g.data_device_manager, "wl_data_device_manager",
		      3, ddm);
	ivwl_out_begin(&out, ddm,
		       IVWL_REQ_WL_DATA_DEVICE_MANAGER_GET_DATA_DEVICE);
	ivwl_out_u32(&out, f->device);
	ivwl_out_u32(&out, seat);
	ivwl_out_end(&out);
	ivwl_out_begin(&out, comp, IVWL_REQ_WL_COMPOSITOR_CREATE_SURFACE);
	ivwl_out_u32(&out, surface);
	ivwl_out_end(&out);
	ivwl_out_begin(&out, f->w.wm_base,
		       IVWL_REQ_XDG_WM_BASE_GET_XDG_SURFACE);
	ivwl_out_u32(&out, f->w.xdg_surface);
	ivwl_out_u32(&out, surface);
	ivwl_out_end(&out);
	ivwl_out_begin(&out, f->w.xdg_surface,
		       IVWL_REQ_XDG_SURFACE_GET_TOPLEVEL);
	ivwl_out_u32(&out, top);
	ivwl_out_end(&out);
	ivwl_out_begin(&out, surface, IVWL_REQ_WL_SURFACE_COMMIT);
	ivwl_out_end(&out);
	ivwl_hostile_send_wayland(h, k, &out);
	end = ivwl_now_ms() + 3000;
	while (!f->w.configured && ivwl_now_ms() < end &&
	       h->slot[k].phase == IVWL_HOSTILE_LIVE)
		ivwl_hostile_roundtrip(h, k, ivwl_hostile_on_focus_event, f,
				       500);
	if (!f->w.configured)
		return false;

	pool = (*id)++;
	buffer = (*id)++;
	ivwl_out_reset(&out);
	ivwl_out_begin(&out, f->w.xdg_surface,
		       IVWL_REQ_XDG_SURFACE_ACK_CONFIGURE);
	ivwl_out_u32(&out, f->w.serial);
	ivwl_out_end(&out);
	ivwl_out_begin(&out, shm, IVWL_REQ_WL_SHM_CREATE_POOL);
	ivwl_out_u32(&out, pool);
	ivwl_out_u32(&out, IVWL_PAGE_SIZE);
	ivwl_out_end(&out);
	ivwl_out_fd(&out, &d);
	ivwl_out_begin(&out, pool, IVWL_REQ_WL_SHM_POOL_CREATE_BUFFER);
	ivwl_out_u32(&out, buffer);
	ivwl_out_u32(&out, 0);
	ivwl_out_u32(&out, 1);
	ivwl_out_u32(&out, 1);
	ivwl_out_u32(&out, 4);
	ivwl_out_u32(&out, XRGB8888);
	ivwl_out_end(&out);
	ivwl_out_begin(&out, surface, IVWL_REQ_WL_SURFACE_ATTACH);
	ivwl_out_u32(&out, buffer);
	ivwl_out_u32(&out, 0);
	ivwl_out_u32(&out, 0);
	ivwl_out_end(&out);
	ivwl_out_begin(&out, surface, IVWL_REQ_WL_SURFACE_COMMIT);
	ivwl_out_end(&out);
	ivwl_hostile_send_wayland(h, k, &out);
	end = ivwl_now_ms() + 3000;
	while (!f->selection && ivwl_now_ms() < end &&
	       h->slot[k].phase == IVWL_HOSTILE_LIVE)
		ivwl_hostile_roundtrip(h, k, ivwl_hostile_on_focus_event, f,
				       500);
	return f->selection;
}

/* wl_data_offer.receive of CLIP_MIME into a pipe of ours, on slot k. */
static void
receive_offer(struct ivwl_hostile *h, uint32_t k, uint32_t offer)
{
	static const struct ivwl_fd_desc pipe_desc = {
		.kind = IVWL_FD_PIPE,
		.flags = IVWL_PIPE_WRITE_END,
		.channel = 1,		/* odd: an app side channel */
	};
	struct ivwl_out out;

	ivwl_out_reset(&out);
	ivwl_out_begin(&out, offer, IVWL_REQ_WL_DATA_OFFER_RECEIVE);
	ivwl_out_string(&out, CLIP_MIME);
	ivwl_out_end(&out);
	ivwl_out_fd(&out, &pipe_desc);
	ivwl_hostile_send_wayland(h, k, &out);
}

/*
 * A selection bigger than the plugin's pipe buffer, cached by weston's
 * clipboard manager (our source destroyed, weston serves its copy), then
 * received by a focused client of ours that never grants credit: weston
 * writes the selection with one blocking write from its main thread.
 * Probes whether the display still answers a new connection.
 */
void
ivwl_hostile_clipboard_hang(struct ivwl_hostile *h)
{
	struct ivwl_hostile_focus f = { 0 };
	struct ivwl_out out;
	struct clip c;
	uint32_t probes = 0, answered = 0;

	clip_offer_and_feed(h, 0, (uint64_t)(h->count ? h->count : 128) << 20,
			    &c);
	clip_report(h, "clipboard-hang", &c);
	if (!c.finished) {
		ivwl_channels_release(&c.chs);
		return;
	}
	/* weston's clipboard manager takes over with its copy */
	ivwl_out_reset(&out);
	ivwl_out_begin(&out, c.source, IVWL_REQ_WL_DATA_SOURCE_DESTROY);
	ivwl_out_end(&out);
	ivwl_hostile_send_wayland(h, 0, &out);
	ivwl_hostile_roundtrip(h, 0, NULL, NULL, 2000);
	ivwl_channels_release(&c.chs);

	if (!ivwl_hostile_focus_and_offer(h, 1, &f)) {
		printf("hostile-peer: clipboard-hang: no selection offer "
		       "(no keyboard focus?)\n");
		return;
	}
	receive_offer(h, 1, f.offer);
	printf("hostile-peer: clipboard-hang: receiving weston's copy, "
	       "granting no credit\n");
	fflush(stdout);

	while (ivwl_hostile_time_left(h)) {
		/* read what comes (channel data included), grant nothing */
		ivwl_hostile_drain_events(h, 1, ivwl_hostile_on_focus_event,
					  &f);
		probes++;
		if (ivwl_hostile_slot_open_wait(h, 2, 2000))
			answered++;
		ivwl_hostile_slot_close(h, 2);
		usleep(300 * 1000);
	}
	printf("hostile-peer: clipboard-hang: the display answered %u of %u "
	       "new connections after the receive\n", answered, probes);
}

/* ---- clipboard-guess ------------------------------------------------ */

/* A client's first server-made object: the offer weston made for it. */
#define FIRST_SERVER_ID 0xff000000u

/*
 * Another VM's selection, which the clipboard policy keeps from this
 * one: a window of ours with the keyboard must hear of no offer, only
 * of no selection.  Then the guess: wl_data_offer.receive on the id
 * weston gave the withheld offer, which must end the connection before
 * a byte of the selection is sent.
 */
void
ivwl_hostile_clipboard_guess(struct ivwl_hostile *h)
{
	struct ivwl_hostile_focus f = { 0 };
	int64_t end;

	ivwl_hostile_focus_and_offer(h, 0, &f);
	printf("hostile-peer: clipboard-guess: focused window heard %u data "
	       "offers, %u selection events, the last %s\n", f.offers,
	       f.selections, f.selection ? "an offer" : "null");
	fflush(stdout);
	if (h->slot[0].phase != IVWL_HOSTILE_LIVE)
		return;
	receive_offer(h, 0, FIRST_SERVER_ID);
	end = ivwl_now_ms() + 3000;
	while (ivwl_now_ms() < end &&
	       h->slot[0].phase == IVWL_HOSTILE_LIVE) {
		ivwl_hostile_drain_events(h, 0, ivwl_hostile_on_focus_event,
					  &f);
		ivwl_hostile_slot_poll(h, 0);
		usleep(50 * 1000);
	}
	printf("hostile-peer: clipboard-guess: receive on wl_data_offer@%u: "
	       "connection %s\n", FIRST_SERVER_ID,
	       h->slot[0].phase == IVWL_HOSTILE_LIVE ? "open" : "closed");
}
