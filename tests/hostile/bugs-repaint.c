/* SPDX-License-Identifier: MIT */
/*
 * overdraw: what a VM's views cost weston's repaints.  Slot after slot
 * maps one toplevel with as many translucent subsurfaces stacked on it
 * as a connection may have surfaces, each as big as the window, and
 * commits it every frame: within every budget of the firewall, weston
 * would composite hundreds of layers of full-window blending on every
 * repaint, everyone's frames waiting for it.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hostile.h"
#include "ivwl-protocols.h"

#define OD_WIDTH 1024
#define OD_HEIGHT 768
#define OD_SLOTS 4
/* the firewall's surfaces a connection (IVWL_FW_CONN_SURFACES), less
 * the toplevel */
#define OD_LAYERS 511u
#define OD_ARGB8888 0u
#define OD_COLOUR 0x40ff00ffu	/* a quarter-opaque magenta */
#define OD_FRAME_US (16 * 1000)

struct overdraw {
	struct window w;
	uint32_t surface, buffer;
	uint32_t layers;
};

/* The whole buffer damaged, attached and committed on surface. */
static void
redraw(struct ivwl_out *out, uint32_t surface, uint32_t buffer)
{
	ivwl_out_begin(out, surface, IVWL_REQ_WL_SURFACE_DAMAGE_BUFFER);
	ivwl_out_u32(out, 0);
	ivwl_out_u32(out, 0);
	ivwl_out_u32(out, OD_WIDTH);
	ivwl_out_u32(out, OD_HEIGHT);
	ivwl_out_end(out);
	ivwl_out_attach_commit(out, surface, buffer);
}

/* Sends out, waiting while the request ring is full. */
static int
send_all(struct ivwl_hostile *h, uint32_t k, struct ivwl_out *out,
	 struct overdraw *o)
{
	int ret;

	while ((ret = ivwl_hostile_send_wayland(h, k, out)) != 0 &&
	       ivwl_hostile_time_left(h) &&
	       h->slot[k].phase == IVWL_HOSTILE_LIVE) {
		ivwl_hostile_drain_events(h, k, ivwl_hostile_on_window_event,
					  &o->w);
		ivwl_hostile_slot_poll(h, k);
		usleep(1000);
	}
	ivwl_out_reset(out);
	return ret;
}

/* The toplevel, configured and shown, on slot k. */
static bool
map_window(struct ivwl_hostile *h, uint32_t k, struct overdraw *o,
	   uint32_t *comp, uint32_t *subcomp)
{
	struct ivwl_fd_desc d;
	struct ivwl_hostile_globals g;
	uint32_t *id = &h->slot[k].next_id, shm, pool, len;
	struct ivwl_out out;
	char title[32];

	len = OD_WIDTH * OD_HEIGHT * 4;
	d = ivwl_out_region_desc(h->layout.heap_offset, len);
	if (!ivwl_hostile_session_start(h, k, &g, 2000) || !g.shm ||
	    !g.compositor || !g.subcompositor || !g.wm_base)
		return false;
	shm = (*id)++;
	*comp = (*id)++;
	*subcomp = (*id)++;
	o->w.wm_base = (*id)++;
	pool = (*id)++;
	o->buffer = (*id)++;
	ivwl_out_reset(&out);
	ivwl_out_bind(&out, g.shm, "wl_shm", 1, shm);
	ivwl_out_bind(&out, g.compositor, "wl_compositor", 4, *comp);
	ivwl_out_bind(&out, g.subcompositor, "wl_subcompositor", 1, *subcomp);
	ivwl_out_bind(&out, g.wm_base, "xdg_wm_base", 1, o->w.wm_base);
	ivwl_out_shm_pool(&out, shm, pool, &d, (int32_t)len);
	ivwl_out_shm_buffer(&out, pool, o->buffer, 0, OD_WIDTH, OD_HEIGHT,
			    OD_WIDTH * 4, OD_ARGB8888);
	o->surface = ivwl_out_toplevel(&out, *comp, o->w.wm_base, id);
	o->w.xdg_surface = o->surface + 1;
	snprintf(title, sizeof(title), "overdraw %u", k);
	ivwl_out_begin(&out, o->surface + 2, IVWL_REQ_XDG_TOPLEVEL_SET_TITLE);
	ivwl_out_string(&out, title);
	ivwl_out_end(&out);
	ivwl_out_begin(&out, o->surface, IVWL_REQ_WL_SURFACE_COMMIT);
	ivwl_out_end(&out);
	if (send_all(h, k, &out, o) != 0)
		return false;
	while (!o->w.configured && ivwl_hostile_time_left(h) &&
	       h->slot[k].phase == IVWL_HOSTILE_LIVE)
		ivwl_hostile_roundtrip(h, k, ivwl_hostile_on_window_event,
				       &o->w, 200);
	if (!o->w.configured)
		return false;
	ivwl_out_ack_configure(&out, o->w.xdg_surface, o->w.serial);
	redraw(&out, o->surface, o->buffer);
	return send_all(h, k, &out, o) == 0;
}

/* Subsurfaces of the window, each the whole buffer, up to the budget. */
static void
stack_layers(struct ivwl_hostile *h, uint32_t k, struct overdraw *o,
	     uint32_t comp, uint32_t subcomp)
{
	uint32_t *id = &h->slot[k].next_id, s;
	struct ivwl_out out;

	ivwl_out_reset(&out);
	while (o->layers < OD_LAYERS) {
		if (!ivwl_out_room(&out, 96) && send_all(h, k, &out, o) != 0)
			return;
		s = (*id)++;
		ivwl_out_begin(&out, comp,
			       IVWL_REQ_WL_COMPOSITOR_CREATE_SURFACE);
		ivwl_out_u32(&out, s);
		ivwl_out_end(&out);
		ivwl_out_begin(&out, subcomp,
			       IVWL_REQ_WL_SUBCOMPOSITOR_GET_SUBSURFACE);
		ivwl_out_u32(&out, (*id)++);
		ivwl_out_u32(&out, s);
		ivwl_out_u32(&out, o->surface);
		ivwl_out_end(&out);
		redraw(&out, s, o->buffer);
		o->layers++;
	}
	redraw(&out, o->surface, o->buffer);
	send_all(h, k, &out, o);
}

static void
pong(struct ivwl_out *out, struct overdraw *o)
{
	if (!o->w.pinged)
		return;
	ivwl_out_begin(out, o->w.wm_base, IVWL_REQ_XDG_WM_BASE_PONG);
	ivwl_out_u32(out, o->w.ping);
	ivwl_out_end(out);
	o->w.pinged = false;
}

void
ivwl_hostile_overdraw(struct ivwl_hostile *h)
{
	static struct overdraw o[OD_SLOTS];
	uint32_t k, slots = h->slots < OD_SLOTS ? h->slots : OD_SLOTS;
	uint32_t comp, subcomp, *px, i, live;
	uint64_t commits = 0;
	struct ivwl_out out;

	px = (uint32_t *)(h->base + h->layout.heap_offset);
	for (i = 0; i < OD_WIDTH * OD_HEIGHT; i++)
		px[i] = OD_COLOUR;
	memset(o, 0, sizeof(o));
	for (k = 0; k < slots && ivwl_hostile_time_left(h); k++) {
		if (!map_window(h, k, &o[k], &comp, &subcomp)) {
			printf("hostile-peer: overdraw: slot %u: no window\n",
			       k);
			continue;
		}
		stack_layers(h, k, &o[k], comp, subcomp);
		printf("hostile-peer: overdraw: slot %u: %u translucent "
		       "%dx%d layers on its window\n", k, o[k].layers,
		       OD_WIDTH, OD_HEIGHT);
		fflush(stdout);
	}
	/* every slot's window redrawn every frame, pings answered */
	while (ivwl_hostile_time_left(h)) {
		for (k = 0, live = 0; k < slots; k++) {
			if (h->slot[k].phase != IVWL_HOSTILE_LIVE ||
			    !o[k].w.configured)
				continue;
			live++;
			ivwl_hostile_drain_events(h, k,
						  ivwl_hostile_on_window_event,
						  &o[k].w);
			ivwl_out_reset(&out);
			pong(&out, &o[k]);
			redraw(&out, o[k].surface, o[k].buffer);
			if (ivwl_hostile_send_wayland(h, k, &out) == 0)
				commits++;
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
