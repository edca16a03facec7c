/* SPDX-License-Identifier: MIT */
/*
 * The hostile peer's plumbing: attaching as the app side, the slot
 * handshake done properly (so the attacks reach the code behind it),
 * records in and out, and a minimal Wayland client on one slot.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "hostile.h"
#include "ivwl-protocols.h"
#include "shm-access.h"

#define OPEN_TIMEOUT_MS 1000
#define REGISTRY_ID 2u

/* One record's payload, at most half the largest ring. */
static uint64_t record_buf[IVWL_RING_MAX_SIZE / 2 / sizeof(uint64_t)];

bool
ivwl_hostile_time_left(struct ivwl_hostile *h)
{
	return ivwl_now_ms() < h->deadline_ms;
}

uint64_t
ivwl_rnd(struct ivwl_hostile *h)
{
	/* xorshift64* */
	h->rng ^= h->rng >> 12;
	h->rng ^= h->rng << 25;
	h->rng ^= h->rng >> 27;
	return h->rng * 0x2545f4914f6cdd1dull;
}

uint32_t
ivwl_rnd_below(struct ivwl_hostile *h, uint32_t n)
{
	return (uint32_t)((ivwl_rnd(h) >> 32) % n);
}

uint32_t
ivwl_rnd_edgy32(struct ivwl_hostile *h)
{
	uint32_t bit = 1u << ivwl_rnd_below(h, 32);

	switch (ivwl_rnd_below(h, 10)) {
	case 0: return 0;
	case 1: return 0xffffffffu;
	case 2: return 0x7fffffffu;
	case 3: return 0x80000000u;
	case 4: return bit;
	case 5: return bit - 1;
	case 6: return bit + 1;
	case 7: return ivwl_rnd_below(h, 16);
	case 8: return 0u - ivwl_rnd_below(h, 16);
	default: return (uint32_t)ivwl_rnd(h);
	}
}

void
ivwl_rnd_fill(struct ivwl_hostile *h, void *buf, uint32_t len)
{
	uint8_t *p = buf;
	uint64_t r = 0;
	uint32_t i;

	for (i = 0; i < len; i++) {
		if (i % 8 == 0)
			r = ivwl_rnd(h);
		p[i] = (uint8_t)(r >> (8 * (i % 8)));
	}
}

int
ivwl_hostile_attach(struct ivwl_hostile *h, const char *socket_path)
{
	const char *err = "unknown";
	int ret;

	ret = ivwl_device_open_server(socket_path, 5000, &h->dev, &err);
	if (ret < 0) {
		fprintf(stderr, "hostile-peer: cannot attach to %s: %s (%s)\n",
			socket_path, err, strerror(-ret));
		return ret;
	}
	h->base = ivwl_device_base(h->dev);
	h->nr_vectors = ivwl_device_nr_vectors(h->dev);
	if (ivwl_layout_compute(ivwl_device_size(h->dev), &h->layout) < 0) {
		fprintf(stderr, "hostile-peer: unusable region size\n");
		goto err_device;
	}
	h->slots = h->nr_vectors ? h->layout.slot_count : 0;
	if (ivwl_device_peer_id(h->dev) != IVWL_PEER_APP || h->slots == 0) {
		fprintf(stderr, "hostile-peer: not the app side, "
			"or no slots\n");
		goto err_device;
	}
	return 0;

err_device:
	ivwl_device_destroy(h->dev);
	h->dev = NULL;
	return -EINVAL;
}

void
ivwl_hostile_detach(struct ivwl_hostile *h)
{
	if (h->dev)
		ivwl_device_destroy(h->dev);
	h->dev = NULL;
}

struct ivwl_slot_ctrl *
ivwl_hostile_ctrl(struct ivwl_hostile *h, uint32_t k)
{
	struct ivwl_slot_view view;

	ivwl_region_slot(h->base, &h->layout, k, &view);
	return view.ctrl;
}

uint8_t *
ivwl_hostile_request_data(struct ivwl_hostile *h, uint32_t k)
{
	struct ivwl_slot_view view;

	ivwl_region_slot(h->base, &h->layout, k, &view);
	return view.request_data;
}

/* Rings whether or not a doorbell is already on its way: a peer may. */
void
ivwl_hostile_ring(struct ivwl_hostile *h, uint64_t bits)
{
	ivwl_doorbell_post(h->base, IVWL_SIDE_DISPLAY, bits);
	if (ivwl_device_ring(h->dev, IVWL_PEER_DISPLAY,
			     IVWL_DOORBELL_VECTOR) == 0)
		h->st.doorbells++;
}

void
ivwl_hostile_claim(struct ivwl_hostile *h)
{
	struct ivwl_side_block *own = ivwl_region_side(h->base, IVWL_SIDE_APP);
	uint32_t k, state, gen;

	ivwl_region_write_header(h->base, &h->layout);
	for (k = 0; k < h->layout.slot_count; k++) {
		ivwl_slot_state_load(&ivwl_hostile_ctrl(h, k)->app, &state,
				     &gen);
		ivwl_slot_state_store(&ivwl_hostile_ctrl(h, k)->app,
				      IVWL_APP_SLOT_FREE, gen);
		h->slot[k].gen = gen;
		h->slot[k].phase = IVWL_HOSTILE_IDLE;
	}
	ivwl_shm_store(&own->peer_id, IVWL_PEER_APP);
	ivwl_shm_store(&own->epoch, ivwl_shm_load(&own->epoch) + 1);
	ivwl_shm_store_release(&own->state, IVWL_SIDE_READY);
	ivwl_hostile_ring(h, IVWL_DOORBELL_CONTROL);
}

static void
bind_rings(struct ivwl_hostile *h, uint32_t k)
{
	struct ivwl_hostile_slot *s = &h->slot[k];
	struct ivwl_slot_view view;

	ivwl_region_slot(h->base, &h->layout, k, &view);
	ivwl_ring_init_producer(&s->request, &view.ctrl->request,
				view.request_data, h->layout.ring_size);
	ivwl_ring_init_consumer(&s->event, &view.ctrl->event, view.event_data,
				h->layout.ring_size);
}

void
ivwl_hostile_slot_open(struct ivwl_hostile *h, uint32_t k)
{
	struct ivwl_hostile_slot *s = &h->slot[k];

	bind_rings(h, k);
	ivwl_ring_reset(&s->request);
	ivwl_ring_reset(&s->event);
	s->gen++;
	s->next_id = REGISTRY_ID;
	ivwl_slot_state_store(&ivwl_hostile_ctrl(h, k)->app, IVWL_APP_SLOT_OPEN,
			      s->gen);
	s->phase = IVWL_HOSTILE_PENDING;
	s->since_ms = ivwl_now_ms();
	h->st.opens++;
	h->st.state_writes++;
	ivwl_hostile_ring(h, IVWL_DOORBELL_CONTROL);
}

void
ivwl_hostile_slot_close(struct ivwl_hostile *h, uint32_t k)
{
	struct ivwl_hostile_slot *s = &h->slot[k];

	ivwl_slot_state_store(&ivwl_hostile_ctrl(h, k)->app, IVWL_APP_SLOT_FREE,
			      s->gen);
	s->phase = IVWL_HOSTILE_IDLE;
	h->st.state_writes++;
	ivwl_hostile_ring(h, IVWL_DOORBELL_CONTROL);
}

void
ivwl_hostile_slot_poll(struct ivwl_hostile *h, uint32_t k)
{
	struct ivwl_hostile_slot *s = &h->slot[k];
	uint32_t state, gen;

	if (s->phase == IVWL_HOSTILE_IDLE)
		return;
	ivwl_slot_state_load(&ivwl_hostile_ctrl(h, k)->display, &state, &gen);
	if (s->phase == IVWL_HOSTILE_PENDING) {
		if (gen == s->gen && state == IVWL_DISPLAY_SLOT_OPEN) {
			s->phase = IVWL_HOSTILE_LIVE;
			h->st.acks++;
		} else if (gen == s->gen &&
			   state == IVWL_DISPLAY_SLOT_CLOSED) {
			s->phase = IVWL_HOSTILE_IDLE;
			h->st.refusals++;
		} else if (ivwl_now_ms() - s->since_ms >
			   OPEN_TIMEOUT_MS) {
			s->phase = IVWL_HOSTILE_IDLE;
			h->st.timeouts++;
		}
		return;
	}
	if (gen != s->gen || state != IVWL_DISPLAY_SLOT_OPEN) {
		s->phase = IVWL_HOSTILE_IDLE;
		h->st.closed++;
	}
}

static void
wait_a_little(struct ivwl_hostile *h, uint32_t k)
{
	struct pollfd pfd = {
		.fd = ivwl_device_vector_fd(h->dev, IVWL_DOORBELL_VECTOR),
		.events = POLLIN,
	};

	/* Whichever slot it was for: every caller looks at its slot. */
	if (poll(&pfd, 1, 1) > 0) {
		ivwl_device_vector_drain(h->dev, IVWL_DOORBELL_VECTOR);
		ivwl_doorbell_take(h->base, IVWL_SIDE_APP);
	}
}

bool
ivwl_hostile_slot_open_wait(struct ivwl_hostile *h, uint32_t k, int timeout_ms)
{
	int64_t end = ivwl_now_ms() + timeout_ms;

	ivwl_hostile_slot_open(h, k);
	while (h->slot[k].phase == IVWL_HOSTILE_PENDING &&
	       ivwl_now_ms() < end) {
		wait_a_little(h, k);
		ivwl_hostile_slot_poll(h, k);
	}
	return h->slot[k].phase == IVWL_HOSTILE_LIVE;
}

static void
pump_device(struct ivwl_hostile *h)
{
	struct pollfd pfd = {
		.fd = ivwl_device_event_fd(h->dev),
		.events = POLLIN,
	};

	if (pfd.fd >= 0 && poll(&pfd, 1, 0) > 0)
		ivwl_device_dispatch(h->dev);
}

uint32_t
ivwl_hostile_keep_open(struct ivwl_hostile *h)
{
	uint32_t k, live = 0;

	pump_device(h);
	for (k = 0; k < h->slots; k++) {
		ivwl_hostile_slot_poll(h, k);
		if (h->slot[k].phase == IVWL_HOSTILE_IDLE)
			ivwl_hostile_slot_open(h, k);
		if (h->slot[k].phase == IVWL_HOSTILE_LIVE)
			live++;
	}
	return live;
}

int
ivwl_hostile_send(struct ivwl_hostile *h, uint32_t k, uint16_t type,
		  const void *payload, uint32_t len, bool ring)
{
	struct ivwl_hostile_slot *s = &h->slot[k];
	struct iovec iov = { (void *)payload, len };
	int ret;

	ret = ivwl_ring_write(&s->request, type, &iov, 1);
	if (ret == -EAGAIN)
		h->st.ring_full++;
	if (ret < 0)
		return ret;
	h->st.records++;
	if (ring || ivwl_ring_kick_needed(&s->request))
		ivwl_hostile_ring(h, IVWL_DOORBELL_SLOT(k));
	return 0;
}

int
ivwl_hostile_send_wayland(struct ivwl_hostile *h, uint32_t k,
			  const struct ivwl_out *out)
{
	uint32_t len = ivwl_record_wayland_size(out->nfds, out->len);

	ivwl_record_wayland_build(record_buf, out->fds, out->nfds, out->data,
				  out->len);
	return ivwl_hostile_send(h, k, IVWL_RECORD_WAYLAND, record_buf, len,
				 false);
}

static int
dispatch_wayland(struct ivwl_hostile *h, const void *payload, uint32_t len,
		 ivwl_hostile_event_func_t func, void *data)
{
	struct ivwl_wayland_record rec;
	struct ivwl_hostile_event ev;
	uint32_t pos = 0, word;
	int n = 0;

	if (ivwl_record_parse_wayland(payload, len, &h->layout, &rec) < 0)
		return 0;
	while (rec.data_len - pos >= IVWL_WIRE_HEADER_SIZE) {
		memcpy(&ev.object, rec.data + pos, 4);
		memcpy(&word, rec.data + pos + 4, 4);
		ev.opcode = (uint16_t)word;
		ev.size = (uint16_t)(word >> 16);
		if (ev.size < IVWL_WIRE_HEADER_SIZE ||
		    ev.size > rec.data_len - pos)
			break;
		ev.bytes = rec.data + pos;
		ev.args = rec.data + pos + IVWL_WIRE_HEADER_SIZE;
		if (func)
			func(data, &ev);
		pos += (ev.size + 3u) & ~3u;
		n++;
	}
	return n;
}

int
ivwl_hostile_drain_events(struct ivwl_hostile *h, uint32_t k,
			  ivwl_hostile_event_func_t func, void *data)
{
	struct ivwl_hostile_slot *s = &h->slot[k];
	struct ivwl_channel *done;
	uint16_t type;
	int n, events = 0;

	for (;;) {
		n = ivwl_ring_read(&s->event, &type, record_buf,
				   ivwl_ring_max_payload(&s->event));
		if (n < 0)
			break;
		if (type == IVWL_RECORD_WAYLAND)
			events += dispatch_wayland(h, record_buf, (uint32_t)n,
						   func, data);
		else if (h->channels &&
			 ivwl_channels_handle(h->channels, type, record_buf,
					      (uint32_t)n, &done) == 0 && done)
			ivwl_channel_destroy(h->channels, done);
	}
	if (ivwl_ring_kick_needed(&s->event))
		ivwl_hostile_ring(h, IVWL_DOORBELL_SLOT(k));
	h->st.events += (uint64_t)events;
	return events;
}

/* ---- a minimal client ---------------------------------------------- */

struct session_wait {
	struct ivwl_hostile *h;
	struct ivwl_hostile_globals *g;
	uint32_t callback;
	bool done;
	ivwl_hostile_event_func_t func;
	void *data;
};

static void
on_session_event(void *data, const struct ivwl_hostile_event *ev)
{
	struct session_wait *w = data;
	uint32_t name, slen;
	const char *iface;

	if (ev->object == w->callback && ev->opcode == 0) {
		w->done = true;
		return;
	}
	if (ev->object == IVWL_WIRE_DISPLAY_ID &&
	    ev->opcode == IVWL_EVT_WL_DISPLAY_ERROR && w->h->verbose &&
	    ev->size >= 20)
		fprintf(stderr, "hostile-peer: wl_display.error: %.*s\n",
			(int)(ev->size - 20), (const char *)ev->args + 12);
	if (w->g && ev->object == REGISTRY_ID && ev->opcode == 0 &&
	    ev->size >= 16) {
		memcpy(&name, ev->args, 4);
		memcpy(&slen, ev->args + 4, 4);
		if (slen == 0 || slen > (uint32_t)ev->size - 16u)
			return;
		iface = (const char *)ev->args + 8;
		if (strncmp(iface, "wl_shm", slen) == 0)
			w->g->shm = name;
		else if (strncmp(iface, "wl_compositor", slen) == 0)
			w->g->compositor = name;
		else if (strncmp(iface, "xdg_wm_base", slen) == 0)
			w->g->wm_base = name;
		else if (strncmp(iface, "wl_seat", slen) == 0)
			w->g->seat = name;
		else if (strncmp(iface, "wl_data_device_manager", slen) == 0)
			w->g->data_device_manager = name;
		else if (strncmp(iface, "wl_subcompositor", slen) == 0)
			w->g->subcompositor = name;
		else if (strncmp(iface, "wp_viewporter", slen) == 0)
			w->g->viewporter = name;
		else if (strncmp(iface, "wp_fifo_manager_v1", slen) == 0)
			w->g->fifo = name;
		else if (strncmp(iface, "wp_commit_timing_manager_v1",
				 slen) == 0)
			w->g->timing = name;
		else if (strncmp(iface, "zwp_primary_selection_device_"
				 "manager_v1", slen) == 0)
			w->g->primary_selection = name;
	}
	if (w->func)
		w->func(w->data, ev);
}

static bool
wait_callback(struct ivwl_hostile *h, uint32_t k, struct session_wait *w,
	      int timeout_ms)
{
	int64_t end = ivwl_now_ms() + timeout_ms;

	while (!w->done && ivwl_now_ms() < end) {
		ivwl_hostile_drain_events(h, k, on_session_event, w);
		if (w->done)
			break;
		ivwl_hostile_slot_poll(h, k);
		if (h->slot[k].phase != IVWL_HOSTILE_LIVE)
			return false;
		wait_a_little(h, k);
	}
	return w->done;
}

bool
ivwl_hostile_session_start(struct ivwl_hostile *h, uint32_t k,
			   struct ivwl_hostile_globals *g,
			   int timeout_ms)
{
	struct session_wait w = { .h = h, .g = g };
	struct ivwl_out out;

	memset(g, 0, sizeof(*g));
	if (!ivwl_hostile_slot_open_wait(h, k, timeout_ms))
		return false;
	ivwl_out_reset(&out);
	ivwl_out_begin(&out, IVWL_WIRE_DISPLAY_ID,
		       IVWL_REQ_WL_DISPLAY_GET_REGISTRY);
	ivwl_out_u32(&out, REGISTRY_ID);
	ivwl_out_end(&out);
	w.callback = REGISTRY_ID + 1;
	ivwl_out_begin(&out, IVWL_WIRE_DISPLAY_ID, IVWL_REQ_WL_DISPLAY_SYNC);
	ivwl_out_u32(&out, w.callback);
	ivwl_out_end(&out);
	h->slot[k].next_id = w.callback + 1;
	if (ivwl_hostile_send_wayland(h, k, &out) < 0)
		return false;
	g->done = wait_callback(h, k, &w, timeout_ms);
	if (g->done)
		h->st.sessions++;
	return g->done;
}

bool
ivwl_hostile_roundtrip(struct ivwl_hostile *h, uint32_t k,
		       ivwl_hostile_event_func_t func,
		       void *data, int timeout_ms)
{
	struct session_wait w = { .h = h, .func = func, .data = data };
	struct ivwl_out out;

	w.callback = h->slot[k].next_id++;
	ivwl_out_reset(&out);
	ivwl_out_begin(&out, IVWL_WIRE_DISPLAY_ID, IVWL_REQ_WL_DISPLAY_SYNC);
	ivwl_out_u32(&out, w.callback);
	ivwl_out_end(&out);
	if (ivwl_hostile_send_wayland(h, k, &out) < 0)
		return false;
	return wait_callback(h, k, &w, timeout_ms);
}

void
ivwl_hostile_on_window_event(void *data, const struct ivwl_hostile_event *ev)
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

/* ---- message builder ------------------------------------------------ */

void
ivwl_out_reset(struct ivwl_out *out)
{
	out->len = 0;
	out->start = 0;
	out->nfds = 0;
}

bool
ivwl_out_room(const struct ivwl_out *out, uint32_t bytes)
{
	return bytes <= sizeof(out->data) - out->len;
}

void
ivwl_out_begin(struct ivwl_out *out, uint32_t object, uint16_t opcode)
{
	out->start = out->len;
	ivwl_out_u32(out, object);
	ivwl_out_u32(out, opcode);
}

void
ivwl_out_u32(struct ivwl_out *out, uint32_t v)
{
	if (!ivwl_out_room(out, 4))
		return;
	memcpy(out->data + out->len, &v, 4);
	out->len += 4;
}

void
ivwl_out_string(struct ivwl_out *out, const char *s)
{
	uint32_t n = (uint32_t)strlen(s) + 1, padded = (n + 3) & ~3u;

	if (!ivwl_out_room(out, 4 + padded))
		return;
	ivwl_out_u32(out, n);
	memset(out->data + out->len, 0, padded);
	memcpy(out->data + out->len, s, n);
	out->len += padded;
}

void
ivwl_out_end(struct ivwl_out *out)
{
	uint32_t size = out->len - out->start, word;

	memcpy(&word, out->data + out->start + 4, 4);
	word = (size << 16) | (word & 0xffff);
	memcpy(out->data + out->start + 4, &word, 4);
}

void
ivwl_out_fd(struct ivwl_out *out, const struct ivwl_fd_desc *desc)
{
	if (out->nfds < IVWL_WAYLAND_MAX_FDS)
		out->fds[out->nfds++] = *desc;
}

struct ivwl_fd_desc
ivwl_out_region_desc(uint64_t offset, uint64_t length)
{
	struct ivwl_fd_desc d = {
		.kind = IVWL_FD_REGION,
		.offset = offset,
		.length = length,
	};

	return d;
}

void
ivwl_out_bind(struct ivwl_out *out, uint32_t name, const char *interface,
	      uint32_t version, uint32_t id)
{
	ivwl_out_begin(out, REGISTRY_ID, IVWL_REQ_WL_REGISTRY_BIND);
	ivwl_out_u32(out, name);
	ivwl_out_string(out, interface);
	ivwl_out_u32(out, version);
	ivwl_out_u32(out, id);
	ivwl_out_end(out);
}

void
ivwl_hostile_windows_event(void *data, const struct ivwl_hostile_event *ev)
{
	struct ivwl_hostile_windows *w = data;
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

uint32_t
ivwl_out_toplevel(struct ivwl_out *out, uint32_t comp, uint32_t wm,
		  uint32_t *id)
{
	uint32_t s = (*id)++;

	ivwl_out_begin(out, comp, IVWL_REQ_WL_COMPOSITOR_CREATE_SURFACE);
	ivwl_out_u32(out, s);
	ivwl_out_end(out);
	ivwl_out_begin(out, wm, IVWL_REQ_XDG_WM_BASE_GET_XDG_SURFACE);
	ivwl_out_u32(out, (*id)++);
	ivwl_out_u32(out, s);
	ivwl_out_end(out);
	ivwl_out_begin(out, s + 1, IVWL_REQ_XDG_SURFACE_GET_TOPLEVEL);
	ivwl_out_u32(out, (*id)++);
	ivwl_out_end(out);
	return s;
}

void
ivwl_out_ack_configure(struct ivwl_out *out, uint32_t xdg, uint32_t serial)
{
	ivwl_out_begin(out, xdg, IVWL_REQ_XDG_SURFACE_ACK_CONFIGURE);
	ivwl_out_u32(out, serial);
	ivwl_out_end(out);
}

void
ivwl_out_attach_commit(struct ivwl_out *out, uint32_t surface, uint32_t buffer)
{
	ivwl_out_begin(out, surface, IVWL_REQ_WL_SURFACE_ATTACH);
	ivwl_out_u32(out, buffer);
	ivwl_out_u32(out, 0);
	ivwl_out_u32(out, 0);
	ivwl_out_end(out);
	ivwl_out_begin(out, surface, IVWL_REQ_WL_SURFACE_COMMIT);
	ivwl_out_end(out);
}

void
ivwl_out_redraw(struct ivwl_out *out, uint32_t surface, uint32_t buffer,
		int32_t width, int32_t height)
{
	ivwl_out_begin(out, surface, IVWL_REQ_WL_SURFACE_DAMAGE_BUFFER);
	ivwl_out_u32(out, 0);
	ivwl_out_u32(out, 0);
	ivwl_out_u32(out, (uint32_t)width);
	ivwl_out_u32(out, (uint32_t)height);
	ivwl_out_end(out);
	ivwl_out_attach_commit(out, surface, buffer);
}

void
ivwl_out_shm_pool(struct ivwl_out *out, uint32_t shm, uint32_t id,
		  const struct ivwl_fd_desc *d, int32_t size)
{
	ivwl_out_begin(out, shm, IVWL_REQ_WL_SHM_CREATE_POOL);
	ivwl_out_u32(out, id);
	ivwl_out_u32(out, (uint32_t)size);
	ivwl_out_end(out);
	ivwl_out_fd(out, d);
}

void
ivwl_out_shm_buffer(struct ivwl_out *out, uint32_t pool, uint32_t id,
		    int32_t offset, int32_t width, int32_t height,
		    int32_t stride, uint32_t format)
{
	ivwl_out_begin(out, pool, IVWL_REQ_WL_SHM_POOL_CREATE_BUFFER);
	ivwl_out_u32(out, id);
	ivwl_out_u32(out, (uint32_t)offset);
	ivwl_out_u32(out, (uint32_t)width);
	ivwl_out_u32(out, (uint32_t)height);
	ivwl_out_u32(out, (uint32_t)stride);
	ivwl_out_u32(out, format);
	ivwl_out_end(out);
}
