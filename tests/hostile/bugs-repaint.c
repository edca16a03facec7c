/* SPDX-License-Identifier: MIT */
/*
 * overdraw: what a VM's views cost weston's repaints.  Slot after slot
 * maps toplevels with translucent subsurfaces stacked on them, each as
 * big as its window, as many surfaces as a connection may have, and
 * commits them every frame: within every budget of the firewall, weston
 * would composite hundreds of layers of full-window blending on every
 * repaint, everyone's frames waiting for it.  --count is the layers on
 * each window: 511 (one window a slot, the default) or fewer on more
 * windows (7: 64 windows a slot, each within what one window may cost,
 * together far over what a VM may).  overdraw-grow maps every window
 * showing one pixel first (each within every bound as it maps), then
 * stacks the layers and shows the whole buffer: the same end state,
 * reached by growing.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hostile.h"
#include "ivwl-protocols.h"

#define OD_WIDTH 1024
#define OD_HEIGHT 768
#define OD_SLOTS 4
/* the firewall's surfaces a connection (IVWL_FW_CONN_SURFACES) */
#define OD_SURFACES 512u
#define OD_ARGB8888 0u
#define OD_COLOUR 0x40ff00ffu	/* a quarter-opaque magenta */
#define OD_FRAME_US (16 * 1000)

struct od_slot {
	struct ivwl_hostile_windows w;	/* configures and pings heard */
	uint32_t serial[OD_SURFACES];
	uint32_t comp, subcomp, buffer;
	uint32_t pixel;			/* a 1x1 buffer, with grow */
	bool grow;			/* windows map one pixel big */
	uint32_t layers;		/* subsurfaces, in all */
};

static void
redraw(struct ivwl_out *out, uint32_t surface, uint32_t buffer)
{
	ivwl_out_redraw(out, surface, buffer, OD_WIDTH, OD_HEIGHT);
}

/* Sends out and starts a new one, waiting while the ring is full. */
static int
send_all(struct ivwl_hostile *h, uint32_t k, struct ivwl_out *out,
	 struct od_slot *o)
{
	int ret;

	while ((ret = ivwl_hostile_send_wayland(h, k, out)) != 0 &&
	       ivwl_hostile_time_left(h) &&
	       h->slot[k].phase == IVWL_HOSTILE_LIVE) {
		ivwl_hostile_drain_events(h, k, ivwl_hostile_windows_event,
					  &o->w);
		ivwl_hostile_slot_poll(h, k);
		usleep(1000);
	}
	ivwl_out_reset(out);
	return ret;
}

/* Sends out first if fewer than bytes are left in it. */
static int
make_room(struct ivwl_hostile *h, uint32_t k, struct ivwl_out *out,
	  struct od_slot *o, uint32_t bytes)
{
	return ivwl_out_room(out, bytes) ? 0 : send_all(h, k, out, o);
}

static uint32_t
window_surface(const struct od_slot *o, uint32_t i)
{
	return o->w.first_xdg + 3 * i - 1;
}

/* n toplevels on slot k, configured and shown; false if none. */
static bool
map_windows(struct ivwl_hostile *h, uint32_t k, struct od_slot *o,
	    uint32_t n)
{
	struct ivwl_fd_desc d;
	struct ivwl_hostile_globals g;
	uint32_t *id = &h->slot[k].next_id, shm, pool, len, i, s;
	struct ivwl_out out;
	char title[32];

	len = OD_WIDTH * OD_HEIGHT * 4;
	d = ivwl_out_region_desc(h->layout.heap_offset, len);
	if (!ivwl_hostile_session_start(h, k, &g, 2000) || !g.shm ||
	    !g.compositor || !g.subcompositor || !g.wm_base)
		return false;
	o->w.serial = o->serial;
	shm = (*id)++;
	o->comp = (*id)++;
	o->subcomp = (*id)++;
	o->w.wm_base = (*id)++;
	pool = (*id)++;
	o->buffer = (*id)++;
	o->pixel = (*id)++;
	ivwl_out_reset(&out);
	ivwl_out_bind(&out, g.shm, "wl_shm", 1, shm);
	ivwl_out_bind(&out, g.compositor, "wl_compositor", 4, o->comp);
	ivwl_out_bind(&out, g.subcompositor, "wl_subcompositor", 1,
		      o->subcomp);
	ivwl_out_bind(&out, g.wm_base, "xdg_wm_base", 1, o->w.wm_base);
	ivwl_out_shm_pool(&out, shm, pool, &d, (int32_t)len);
	ivwl_out_shm_buffer(&out, pool, o->buffer, 0, OD_WIDTH, OD_HEIGHT,
			    OD_WIDTH * 4, OD_ARGB8888);
	ivwl_out_shm_buffer(&out, pool, o->pixel, 0, 1, 1, 4, OD_ARGB8888);
	/* surface, xdg_surface, toplevel per window: ids in threes */
	o->w.first_xdg = *id + 1;
	for (i = 0; i < n; i++) {
		if (make_room(h, k, &out, o, 128) != 0)
			return false;
		s = ivwl_out_toplevel(&out, o->comp, o->w.wm_base, id);
		snprintf(title, sizeof(title), "overdraw %u.%u", k, i);
		ivwl_out_begin(&out, s + 2, IVWL_REQ_XDG_TOPLEVEL_SET_TITLE);
		ivwl_out_string(&out, title);
		ivwl_out_end(&out);
		ivwl_out_begin(&out, s, IVWL_REQ_WL_SURFACE_COMMIT);
		ivwl_out_end(&out);
		o->w.count++;
	}
	if (send_all(h, k, &out, o) != 0)
		return false;
	while (o->w.configured < o->w.count && ivwl_hostile_time_left(h) &&
	       h->slot[k].phase == IVWL_HOSTILE_LIVE)
		if (!ivwl_hostile_roundtrip(h, k, ivwl_hostile_windows_event,
					    &o->w, 2000))
			break;
	for (i = 0; i < o->w.count; i++) {
		if (make_room(h, k, &out, o, 96) != 0)
			return false;
		ivwl_out_ack_configure(&out, window_surface(o, i) + 1,
				       o->serial[i]);
		if (o->grow)
			ivwl_out_redraw(&out, window_surface(o, i), o->pixel,
					1, 1);
		else
			redraw(&out, window_surface(o, i), o->buffer);
	}
	return send_all(h, k, &out, o) == 0 && o->w.configured > 0;
}

/* layers subsurfaces on each window, each the whole buffer. */
static void
stack_layers(struct ivwl_hostile *h, uint32_t k, struct od_slot *o,
	     uint32_t layers)
{
	uint32_t *id = &h->slot[k].next_id, i, j, s;
	struct ivwl_out out;

	ivwl_out_reset(&out);
	for (i = 0; i < o->w.count; i++) {
		for (j = 0; j < layers; j++) {
			if (make_room(h, k, &out, o, 128) != 0)
				return;
			s = (*id)++;
			ivwl_out_begin(&out, o->comp,
				       IVWL_REQ_WL_COMPOSITOR_CREATE_SURFACE);
			ivwl_out_u32(&out, s);
			ivwl_out_end(&out);
			ivwl_out_begin(&out, o->subcomp,
				       IVWL_REQ_WL_SUBCOMPOSITOR_GET_SUBSURFACE);
			ivwl_out_u32(&out, (*id)++);
			ivwl_out_u32(&out, s);
			ivwl_out_u32(&out, window_surface(o, i));
			ivwl_out_end(&out);
			redraw(&out, s, o->buffer);
			o->layers++;
		}
		redraw(&out, window_surface(o, i), o->buffer);
	}
	send_all(h, k, &out, o);
}

/* Every window redrawn, the last ping answered. */
static bool
redraw_all(struct ivwl_hostile *h, uint32_t k, struct od_slot *o)
{
	struct ivwl_out out;
	uint32_t i;

	ivwl_hostile_drain_events(h, k, ivwl_hostile_windows_event, &o->w);
	ivwl_out_reset(&out);
	if (o->w.pinged) {
		ivwl_out_begin(&out, o->w.wm_base, IVWL_REQ_XDG_WM_BASE_PONG);
		ivwl_out_u32(&out, o->w.ping);
		ivwl_out_end(&out);
		o->w.pinged = false;
	}
	for (i = 0; i < o->w.count; i++) {
		if (!ivwl_out_room(&out, 64)) {
			if (ivwl_hostile_send_wayland(h, k, &out) != 0)
				return false;
			ivwl_out_reset(&out);
		}
		redraw(&out, window_surface(o, i), o->buffer);
	}
	return ivwl_hostile_send_wayland(h, k, &out) == 0;
}

static void
overdraw(struct ivwl_hostile *h, bool grow)
{
	static struct od_slot o[OD_SLOTS];
	uint32_t slots = h->slots < OD_SLOTS ? h->slots : OD_SLOTS;
	uint32_t layers = h->count && h->count < OD_SURFACES ? h->count :
			  OD_SURFACES - 1;
	uint32_t windows = OD_SURFACES / (layers + 1), k, *px, i, live;
	uint64_t commits = 0;

	px = (uint32_t *)(h->base + h->layout.heap_offset);
	for (i = 0; i < OD_WIDTH * OD_HEIGHT; i++)
		px[i] = OD_COLOUR;
	memset(o, 0, sizeof(o));
	for (k = 0; k < slots && ivwl_hostile_time_left(h); k++) {
		o[k].grow = grow;
		if (!map_windows(h, k, &o[k], windows)) {
			printf("hostile-peer: overdraw: slot %u: no window\n",
			       k);
			continue;
		}
		stack_layers(h, k, &o[k], layers);
		/* set up once weston has taken them all in (its requests
		 * slowed down too) */
		if (!ivwl_hostile_roundtrip(h, k, ivwl_hostile_windows_event,
					    &o[k].w, 60000))
			printf("hostile-peer: overdraw: slot %u: no answer to "
			       "its layers\n", k);
		printf("hostile-peer: overdraw: slot %u: %u translucent "
		       "%dx%d layers on %u windows\n", k, o[k].layers,
		       OD_WIDTH, OD_HEIGHT, o[k].w.configured);
		fflush(stdout);
	}
	/* every window redrawn every frame, pings answered */
	while (ivwl_hostile_time_left(h)) {
		for (k = 0, live = 0; k < slots; k++) {
			if (h->slot[k].phase != IVWL_HOSTILE_LIVE ||
			    !o[k].w.configured)
				continue;
			live++;
			if (redraw_all(h, k, &o[k]))
				commits += o[k].w.count;
		}
		if (!live)
			break;
		usleep(OD_FRAME_US);
	}
	for (k = 0, live = 0; k < slots; k++)
		live += h->slot[k].phase == IVWL_HOSTILE_LIVE;
	printf("hostile-peer: overdraw: %llu commits; %u of %u connections "
	       "open\n", (unsigned long long)commits, live, slots);
}

void
ivwl_hostile_overdraw(struct ivwl_hostile *h)
{
	overdraw(h, false);
}

void
ivwl_hostile_overdraw_grow(struct ivwl_hostile *h)
{
	overdraw(h, true);
}
