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

int64_t
hostile_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool
hostile_time_left(struct hostile *h)
{
	return hostile_now_ms() < h->deadline_ms;
}

uint64_t
hostile_rand(struct hostile *h)
{
	/* xorshift64* */
	h->rng ^= h->rng >> 12;
	h->rng ^= h->rng << 25;
	h->rng ^= h->rng >> 27;
	return h->rng * 0x2545f4914f6cdd1dull;
}

uint32_t
hostile_below(struct hostile *h, uint32_t n)
{
	return (uint32_t)((hostile_rand(h) >> 32) % n);
}

uint32_t
hostile_edgy32(struct hostile *h)
{
	uint32_t bit = 1u << hostile_below(h, 32);

	switch (hostile_below(h, 10)) {
	case 0: return 0;
	case 1: return 0xffffffffu;
	case 2: return 0x7fffffffu;
	case 3: return 0x80000000u;
	case 4: return bit;
	case 5: return bit - 1;
	case 6: return bit + 1;
	case 7: return hostile_below(h, 16);
	case 8: return 0u - hostile_below(h, 16);
	default: return (uint32_t)hostile_rand(h);
	}
}

void
hostile_fill(struct hostile *h, void *buf, uint32_t len)
{
	uint8_t *p = buf;
	uint64_t r = 0;
	uint32_t i;

	for (i = 0; i < len; i++) {
		if (i % 8 == 0)
			r = hostile_rand(h);
		p[i] = (uint8_t)(r >> (8 * (i % 8)));
	}
}

int
hostile_attach(struct hostile *h, const char *socket_path)
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
	h->slots = ivwl_usable_slots(&h->layout, h->nr_vectors);
	if (ivwl_device_peer_id(h->dev) != IVWL_PEER_APP || h->slots == 0) {
		fprintf(stderr, "hostile-peer: not the app side, or no slots\n");
		goto err_device;
	}
	return 0;

err_device:
	ivwl_device_destroy(h->dev);
	h->dev = NULL;
	return -EINVAL;
}

void
hostile_detach(struct hostile *h)
{
	if (h->dev)
		ivwl_device_destroy(h->dev);
	h->dev = NULL;
}

struct ivwl_slot_ctrl *
hostile_ctrl(struct hostile *h, uint32_t k)
{
	struct ivwl_slot_view view;

	ivwl_region_slot(h->base, &h->layout, k, &view);
	return view.ctrl;
}

uint8_t *
hostile_request_data(struct hostile *h, uint32_t k)
{
	struct ivwl_slot_view view;

	ivwl_region_slot(h->base, &h->layout, k, &view);
	return view.request_data;
}

void
hostile_ring(struct hostile *h, uint32_t vector)
{
	if (ivwl_device_ring(h->dev, IVWL_PEER_DISPLAY, vector) == 0)
		h->st.doorbells++;
}

void
hostile_claim(struct hostile *h)
{
	struct ivwl_side_block *own = ivwl_region_side(h->base, IVWL_SIDE_APP);
	uint32_t k, state, gen;

	ivwl_region_write_header(h->base, &h->layout);
	for (k = 0; k < h->layout.slot_count; k++) {
		ivwl_slot_state_load(&hostile_ctrl(h, k)->app, &state, &gen);
		ivwl_slot_state_store(&hostile_ctrl(h, k)->app,
				      IVWL_APP_SLOT_FREE, gen);
		h->slot[k].gen = gen;
		h->slot[k].phase = SLOT_IDLE;
	}
	ivwl_shm_store(&own->peer_id, IVWL_PEER_APP);
	ivwl_shm_store(&own->epoch, ivwl_shm_load(&own->epoch) + 1);
	ivwl_shm_store_release(&own->state, IVWL_SIDE_READY);
	hostile_ring(h, IVWL_VECTOR_CONTROL);
}

static void
bind_rings(struct hostile *h, uint32_t k)
{
	struct hostile_slot *s = &h->slot[k];
	struct ivwl_slot_view view;

	ivwl_region_slot(h->base, &h->layout, k, &view);
	ivwl_ring_init_producer(&s->request, &view.ctrl->request,
				view.request_data, h->layout.ring_size);
	ivwl_ring_init_consumer(&s->event, &view.ctrl->event, view.event_data,
				h->layout.ring_size);
}

void
hostile_slot_open(struct hostile *h, uint32_t k)
{
	struct hostile_slot *s = &h->slot[k];

	bind_rings(h, k);
	ivwl_ring_reset(&s->request);
	ivwl_ring_reset(&s->event);
	s->gen++;
	s->next_id = REGISTRY_ID;
	ivwl_slot_state_store(&hostile_ctrl(h, k)->app, IVWL_APP_SLOT_OPEN,
			      s->gen);
	s->phase = SLOT_PENDING;
	s->since_ms = hostile_now_ms();
	h->st.opens++;
	h->st.state_writes++;
	hostile_ring(h, IVWL_VECTOR_CONTROL);
}

void
hostile_slot_close(struct hostile *h, uint32_t k)
{
	struct hostile_slot *s = &h->slot[k];

	ivwl_slot_state_store(&hostile_ctrl(h, k)->app, IVWL_APP_SLOT_FREE,
			      s->gen);
	s->phase = SLOT_IDLE;
	h->st.state_writes++;
	hostile_ring(h, IVWL_VECTOR_CONTROL);
}

void
hostile_slot_poll(struct hostile *h, uint32_t k)
{
	struct hostile_slot *s = &h->slot[k];
	uint32_t state, gen;

	if (s->phase == SLOT_IDLE)
		return;
	ivwl_slot_state_load(&hostile_ctrl(h, k)->display, &state, &gen);
	if (s->phase == SLOT_PENDING) {
		if (gen == s->gen && state == IVWL_DISPLAY_SLOT_OPEN) {
			s->phase = SLOT_LIVE;
			h->st.acks++;
		} else if (gen == s->gen &&
			   state == IVWL_DISPLAY_SLOT_CLOSED) {
			s->phase = SLOT_IDLE;
			h->st.refusals++;
		} else if (hostile_now_ms() - s->since_ms > OPEN_TIMEOUT_MS) {
			s->phase = SLOT_IDLE;
			h->st.timeouts++;
		}
		return;
	}
	if (gen != s->gen || state != IVWL_DISPLAY_SLOT_OPEN) {
		s->phase = SLOT_IDLE;
		h->st.closed++;
	}
}

static void
wait_a_little(struct hostile *h, uint32_t k)
{
	struct pollfd pfd = {
		.fd = ivwl_device_vector_fd(h->dev, ivwl_slot_vector(k)),
		.events = POLLIN,
	};

	if (poll(&pfd, 1, 1) > 0)
		ivwl_device_vector_drain(h->dev, ivwl_slot_vector(k));
}

bool
hostile_slot_open_wait(struct hostile *h, uint32_t k, int timeout_ms)
{
	int64_t end = hostile_now_ms() + timeout_ms;

	hostile_slot_open(h, k);
	while (h->slot[k].phase == SLOT_PENDING && hostile_now_ms() < end) {
		wait_a_little(h, k);
		hostile_slot_poll(h, k);
	}
	return h->slot[k].phase == SLOT_LIVE;
}

static void
pump_device(struct hostile *h)
{
	struct pollfd pfd = {
		.fd = ivwl_device_event_fd(h->dev),
		.events = POLLIN,
	};

	if (pfd.fd >= 0 && poll(&pfd, 1, 0) > 0)
		ivwl_device_dispatch(h->dev);
}

uint32_t
hostile_keep_open(struct hostile *h)
{
	uint32_t k, live = 0;

	pump_device(h);
	for (k = 0; k < h->slots; k++) {
		hostile_slot_poll(h, k);
		if (h->slot[k].phase == SLOT_IDLE)
			hostile_slot_open(h, k);
		if (h->slot[k].phase == SLOT_LIVE)
			live++;
	}
	return live;
}

int
hostile_send(struct hostile *h, uint32_t k, uint16_t type,
	     const void *payload, uint32_t len, bool ring)
{
	struct hostile_slot *s = &h->slot[k];
	struct iovec iov = { (void *)payload, len };
	int ret;

	ret = ivwl_ring_write(&s->request, type, &iov, 1);
	if (ret == -EAGAIN)
		h->st.ring_full++;
	if (ret < 0)
		return ret;
	h->st.records++;
	if (ring || ivwl_ring_kick_needed(&s->request))
		hostile_ring(h, ivwl_slot_vector(k));
	return 0;
}

int
hostile_send_wayland(struct hostile *h, uint32_t k, const struct wl_out *out)
{
	uint32_t len = ivwl_record_wayland_size(out->nfds, out->len);

	ivwl_record_wayland_build(record_buf, out->fds, out->nfds, out->data,
				  out->len);
	return hostile_send(h, k, IVWL_RECORD_WAYLAND, record_buf, len, false);
}

static int
dispatch_wayland(struct hostile *h, const void *payload, uint32_t len,
		 hostile_event_func_t func, void *data)
{
	struct ivwl_wayland_record rec;
	struct wl_event ev;
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
		ev.args = rec.data + pos + IVWL_WIRE_HEADER_SIZE;
		if (func)
			func(data, &ev);
		pos += (ev.size + 3u) & ~3u;
		n++;
	}
	return n;
}

int
hostile_drain_events(struct hostile *h, uint32_t k,
		     hostile_event_func_t func, void *data)
{
	struct hostile_slot *s = &h->slot[k];
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
	}
	if (ivwl_ring_kick_needed(&s->event))
		hostile_ring(h, ivwl_slot_vector(k));
	h->st.events += (uint64_t)events;
	return events;
}

/* ---- a minimal client ---------------------------------------------- */

struct session_wait {
	struct hostile *h;
	struct wl_globals *g;
	uint32_t callback;
	bool done;
	hostile_event_func_t func;
	void *data;
};

static void
on_session_event(void *data, const struct wl_event *ev)
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
	}
	if (w->func)
		w->func(w->data, ev);
}

static bool
wait_callback(struct hostile *h, uint32_t k, struct session_wait *w,
	      int timeout_ms)
{
	int64_t end = hostile_now_ms() + timeout_ms;

	while (!w->done && hostile_now_ms() < end) {
		hostile_drain_events(h, k, on_session_event, w);
		if (w->done)
			break;
		hostile_slot_poll(h, k);
		if (h->slot[k].phase != SLOT_LIVE)
			return false;
		wait_a_little(h, k);
	}
	return w->done;
}

bool
hostile_session_start(struct hostile *h, uint32_t k, struct wl_globals *g,
		      int timeout_ms)
{
	struct session_wait w = { .h = h, .g = g };
	struct wl_out out;

	memset(g, 0, sizeof(*g));
	if (!hostile_slot_open_wait(h, k, timeout_ms))
		return false;
	wl_out_reset(&out);
	wl_out_begin(&out, IVWL_WIRE_DISPLAY_ID,
		     IVWL_REQ_WL_DISPLAY_GET_REGISTRY);
	wl_out_u32(&out, REGISTRY_ID);
	wl_out_end(&out);
	w.callback = REGISTRY_ID + 1;
	wl_out_begin(&out, IVWL_WIRE_DISPLAY_ID, IVWL_REQ_WL_DISPLAY_SYNC);
	wl_out_u32(&out, w.callback);
	wl_out_end(&out);
	h->slot[k].next_id = w.callback + 1;
	if (hostile_send_wayland(h, k, &out) < 0)
		return false;
	g->done = wait_callback(h, k, &w, timeout_ms);
	if (g->done)
		h->st.sessions++;
	return g->done;
}

bool
hostile_roundtrip(struct hostile *h, uint32_t k, hostile_event_func_t func,
		  void *data, int timeout_ms)
{
	struct session_wait w = { .h = h, .func = func, .data = data };
	struct wl_out out;

	w.callback = h->slot[k].next_id++;
	wl_out_reset(&out);
	wl_out_begin(&out, IVWL_WIRE_DISPLAY_ID, IVWL_REQ_WL_DISPLAY_SYNC);
	wl_out_u32(&out, w.callback);
	wl_out_end(&out);
	if (hostile_send_wayland(h, k, &out) < 0)
		return false;
	return wait_callback(h, k, &w, timeout_ms);
}

/* ---- message builder ------------------------------------------------ */

void
wl_out_reset(struct wl_out *out)
{
	out->len = 0;
	out->start = 0;
	out->nfds = 0;
}

bool
wl_out_room(const struct wl_out *out, uint32_t bytes)
{
	return bytes <= sizeof(out->data) - out->len;
}

void
wl_out_begin(struct wl_out *out, uint32_t object, uint16_t opcode)
{
	out->start = out->len;
	wl_out_u32(out, object);
	wl_out_u32(out, opcode);
}

void
wl_out_u32(struct wl_out *out, uint32_t v)
{
	if (!wl_out_room(out, 4))
		return;
	memcpy(out->data + out->len, &v, 4);
	out->len += 4;
}

void
wl_out_string(struct wl_out *out, const char *s)
{
	uint32_t n = (uint32_t)strlen(s) + 1, padded = (n + 3) & ~3u;

	if (!wl_out_room(out, 4 + padded))
		return;
	wl_out_u32(out, n);
	memset(out->data + out->len, 0, padded);
	memcpy(out->data + out->len, s, n);
	out->len += padded;
}

void
wl_out_end(struct wl_out *out)
{
	uint32_t size = out->len - out->start, word;

	memcpy(&word, out->data + out->start + 4, 4);
	word = (size << 16) | (word & 0xffff);
	memcpy(out->data + out->start + 4, &word, 4);
}

void
wl_out_fd(struct wl_out *out, const struct ivwl_fd_desc *desc)
{
	if (out->nfds < IVWL_WAYLAND_MAX_FDS)
		out->fds[out->nfds++] = *desc;
}

struct ivwl_fd_desc
wl_region_desc(uint64_t offset, uint64_t length)
{
	struct ivwl_fd_desc d = {
		.kind = IVWL_FD_REGION,
		.offset = offset,
		.length = length,
	};

	return d;
}

void
wl_out_bind(struct wl_out *out, uint32_t name, const char *interface,
	    uint32_t version, uint32_t id)
{
	wl_out_begin(out, REGISTRY_ID, IVWL_REQ_WL_REGISTRY_BIND);
	wl_out_u32(out, name);
	wl_out_string(out, interface);
	wl_out_u32(out, version);
	wl_out_u32(out, id);
	wl_out_end(out);
}
