/* SPDX-License-Identifier: MIT */
/*
 * The session the attacks on Wayland semantics share (semantics.h):
 * every global bound, surfaces, xdg surfaces and one buffer to map
 * them with.
 */
#include <string.h>

#include "ivwl-protocols.h"
#include "semantics.h"

void
ivwl_sem_on_event(void *data, const struct ivwl_hostile_event *ev)
{
	struct sem *s = data;
	struct ivwl_out out;
	uint32_t v;

	if (ev->size < 12)
		return;
	memcpy(&v, ev->args, 4);
	if (ev->object == s->pointer && s->pointer &&
	    ev->opcode == IVWL_EVT_WL_POINTER_BUTTON && ev->size >= 24) {
		uint32_t state;

		memcpy(&state, ev->args + 12, 4);
		if (state == 1) {
			s->press_serial = v;
			s->pressed = true;
		}
	} else if (ev->object == s->configure_object &&
	    ev->opcode == IVWL_EVT_XDG_SURFACE_CONFIGURE) {
		s->serial = v;
		s->configured = true;
	} else if (ev->object == s->wm_base &&
		   ev->opcode == IVWL_EVT_XDG_WM_BASE_PING) {
		ivwl_out_reset(&out);
		ivwl_out_begin(&out, s->wm_base, IVWL_REQ_XDG_WM_BASE_PONG);
		ivwl_out_u32(&out, v);
		ivwl_out_end(&out);
		ivwl_hostile_send_wayland(s->h, s->k, &out);
	}
}

bool
ivwl_sem_start(struct ivwl_hostile *h, uint32_t k, struct sem *s)
{
	struct ivwl_out out;

	memset(s, 0, sizeof(*s));
	s->h = h;
	s->k = k;
	if (!ivwl_hostile_session_start(h, k, &s->g, 2000) || !s->g.shm ||
	    !s->g.compositor || !s->g.wm_base)
		return false;
	ivwl_out_reset(&out);
	s->shm = new_id(s);
	ivwl_out_bind(&out, s->g.shm, "wl_shm", 1, s->shm);
	s->comp = new_id(s);
	ivwl_out_bind(&out, s->g.compositor, "wl_compositor", 4, s->comp);
	s->wm_base = new_id(s);
	ivwl_out_bind(&out, s->g.wm_base, "xdg_wm_base", 1, s->wm_base);
	if (s->g.subcompositor) {
		s->subcomp = new_id(s);
		ivwl_out_bind(&out, s->g.subcompositor, "wl_subcompositor", 1,
			      s->subcomp);
	}
	if (s->g.seat) {
		s->seat = new_id(s);
		ivwl_out_bind(&out, s->g.seat, "wl_seat", 5, s->seat);
	}
	if (s->g.data_device_manager) {
		s->ddm = new_id(s);
		ivwl_out_bind(&out, s->g.data_device_manager,
			      "wl_data_device_manager", 3, s->ddm);
	}
	if (s->g.viewporter) {
		s->viewporter = new_id(s);
		ivwl_out_bind(&out, s->g.viewporter, "wp_viewporter", 1,
			      s->viewporter);
	}
	if (s->g.fifo) {
		s->fifo = new_id(s);
		ivwl_out_bind(&out, s->g.fifo, "wp_fifo_manager_v1", 1,
			      s->fifo);
	}
	if (s->g.timing) {
		s->timing = new_id(s);
		ivwl_out_bind(&out, s->g.timing, "wp_commit_timing_manager_v1",
			      1, s->timing);
	}
	if (s->g.primary_selection) {
		s->primary = new_id(s);
		ivwl_out_bind(&out, s->g.primary_selection,
			      "zwp_primary_selection_device_manager_v1", 1,
			      s->primary);
	}
	return ivwl_hostile_send_wayland(h, k, &out) == 0;
}

uint32_t
ivwl_sem_surface(struct sem *s, struct ivwl_out *out)
{
	uint32_t surface = new_id(s);

	ivwl_out_begin(out, s->comp, IVWL_REQ_WL_COMPOSITOR_CREATE_SURFACE);
	ivwl_out_u32(out, surface);
	ivwl_out_end(out);
	return surface;
}

uint32_t
ivwl_sem_xdg_surface(struct sem *s, struct ivwl_out *out, uint32_t surface)
{
	uint32_t xdg = new_id(s);

	ivwl_out_begin(out, s->wm_base, IVWL_REQ_XDG_WM_BASE_GET_XDG_SURFACE);
	ivwl_out_u32(out, xdg);
	ivwl_out_u32(out, surface);
	ivwl_out_end(out);
	return xdg;
}

/* A 32x32 buffer at the start of the heap, made once. */
static void
sem_buffer(struct sem *s, struct ivwl_out *out)
{
	struct ivwl_fd_desc d = ivwl_out_region_desc(s->h->layout.heap_offset,
						     IVWL_PAGE_SIZE);

	if (s->buffer)
		return;
	s->pool = new_id(s);
	ivwl_out_shm_pool(out, s->shm, s->pool, &d, IVWL_PAGE_SIZE);
	s->buffer = new_id(s);
	ivwl_out_shm_buffer(out, s->pool, s->buffer, 0, POPUP_SIZE, POPUP_SIZE,
			    POPUP_SIZE * 4, IVWL_HOSTILE_XRGB8888);
}

bool
ivwl_sem_configure_and_map(struct sem *s, struct ivwl_out *out, uint32_t xdg,
			   uint32_t surface)
{
	int64_t end = ivwl_now_ms() + 3000;

	ivwl_out_begin(out, surface, IVWL_REQ_WL_SURFACE_COMMIT);
	ivwl_out_end(out);
	s->configure_object = xdg;
	s->configured = false;
	if (ivwl_hostile_send_wayland(s->h, s->k, out) < 0)
		return false;
	while (!s->configured && live(s) && ivwl_now_ms() < end)
		ivwl_hostile_roundtrip(s->h, s->k, ivwl_sem_on_event, s, 300);
	if (!s->configured)
		return false;
	ivwl_out_reset(out);
	ivwl_out_ack_configure(out, xdg, s->serial);
	sem_buffer(s, out);
	ivwl_out_attach_commit(out, surface, s->buffer);
	return ivwl_hostile_send_wayland(s->h, s->k, out) == 0 &&
	       ivwl_hostile_roundtrip(s->h, s->k, ivwl_sem_on_event, s, 1000);
}


bool
ivwl_sem_wait_click(struct sem *s, int ms)
{
	struct ivwl_out out;
	int64_t end = ivwl_now_ms() + ms;

	if (!s->seat)
		return false;
	if (!s->pointer) {
		s->pointer = new_id(s);
		ivwl_out_reset(&out);
		ivwl_out_begin(&out, s->seat, IVWL_REQ_WL_SEAT_GET_POINTER);
		ivwl_out_u32(&out, s->pointer);
		ivwl_out_end(&out);
		if (ivwl_hostile_send_wayland(s->h, s->k, &out) < 0)
			return false;
	}
	while (!s->pressed && live(s) && ivwl_now_ms() < end)
		ivwl_hostile_roundtrip(s->h, s->k, ivwl_sem_on_event, s, 100);
	return s->pressed;
}
