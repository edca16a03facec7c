/*
 * The attacks.  Each runs until the deadline and leaves its counts in
 * h->st; none waits on the display for long, so a display that hangs
 * shows as timeouts rather than as a hostile peer that hangs too.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hostile.h"
#include "ivwl-protocols.h"
#include "shm-access.h"

#define WL_SHM_ID 4u
#define POOL_ID 5u
#define BUFFER_ID 6u
#define XRGB8888 1u

static uint64_t scratch[IVWL_RING_MAX_SIZE / 2 / sizeof(uint64_t)];

/* ---- garbage-records ------------------------------------------------ */

static uint64_t
edgy_offset(struct hostile *h)
{
	const struct ivwl_layout *l = &h->layout;
	uint64_t heap_end = l->heap_offset + l->heap_size;

	switch (hostile_below(h, 12)) {
	case 0: return 0;
	case 1: return l->heap_offset - IVWL_PAGE_SIZE;
	case 2: return l->heap_offset;
	case 3: return l->heap_offset + 1 + hostile_below(h, 4095);
	case 4: return heap_end - IVWL_PAGE_SIZE;
	case 5: return heap_end;
	case 6: return UINT64_MAX & ~(uint64_t)(IVWL_PAGE_SIZE - 1);
	case 7: return 1ull << 63;
	case 8: return (uint64_t)INT32_MAX + 1;
	case 9: return l->heap_offset + (uint64_t)IVWL_PAGE_SIZE *
			hostile_below(h, (uint32_t)(l->heap_size /
						   IVWL_PAGE_SIZE));
	case 10: return hostile_rand(h) & ~(uint64_t)(IVWL_PAGE_SIZE - 1);
	default: return hostile_rand(h);
	}
}

static uint64_t
edgy_length(struct hostile *h, uint64_t offset)
{
	const struct ivwl_layout *l = &h->layout;

	switch (hostile_below(h, 10)) {
	case 0: return 0;
	case 1: return 1;
	case 2: return IVWL_PAGE_SIZE;
	case 3: return l->heap_size;
	case 4: return l->heap_size + IVWL_PAGE_SIZE;
	case 5: return UINT64_MAX;
	case 6: return 0 - offset;		/* offset + length wraps to 0 */
	case 7: return 0 - offset + IVWL_PAGE_SIZE;	/* wraps past 0 */
	case 8: return l->heap_offset + l->heap_size - offset;
	default: return hostile_rand(h) >> hostile_below(h, 64);
	}
}

static struct ivwl_fd_desc
edgy_desc(struct hostile *h)
{
	struct ivwl_fd_desc d;

	memset(&d, 0, sizeof(d));
	d.kind = hostile_below(h, 8) ? hostile_below(h, 7) :
				      hostile_edgy32(h);
	if (hostile_below(h, 4) == 0)
		d.flags = hostile_edgy32(h);
	d.offset = edgy_offset(h);
	d.length = edgy_length(h, d.offset);
	if (hostile_below(h, 3) == 0)
		d.channel = hostile_edgy32(h);
	if (hostile_below(h, 16) == 0)
		d.reserved = hostile_edgy32(h);
	return d;
}

static void
random_record(struct hostile *h, uint32_t k)
{
	uint32_t max = ivwl_ring_max_payload(&h->slot[k].request), len;
	uint16_t type = (uint16_t)(hostile_below(h, 8) ? hostile_below(h, 8) :
					     hostile_edgy32(h));

	switch (hostile_below(h, 4)) {
	case 0: len = 0; break;
	case 1: len = hostile_below(h, 64); break;
	case 2: len = hostile_below(h, 5000); break;
	default: len = hostile_below(h, max + 1); break;
	}
	hostile_fill(h, scratch, len);
	hostile_send(h, k, type, scratch, len, hostile_below(h, 4) == 0);
}

/* A WAYLAND record whose header, descriptors or sizes lie. */
static void
fd_record(struct hostile *h, uint32_t k)
{
	struct ivwl_wayland_header wh = { 0 };
	uint8_t *p = (uint8_t *)scratch;
	uint32_t nfds = hostile_below(h, 36), data_len, i, len;
	struct ivwl_fd_desc d;

	data_len = hostile_below(h, 3) ? 16 : hostile_below(h, 4200);
	wh.nfds = (uint16_t)(hostile_below(h, 8) ? nfds : hostile_edgy32(h));
	wh.data_len = hostile_below(h, 6) ? data_len : hostile_edgy32(h);
	if (hostile_below(h, 16) == 0)
		wh.reserved = (uint16_t)hostile_edgy32(h);
	memcpy(p, &wh, sizeof(wh));
	len = sizeof(wh);
	for (i = 0; i < nfds; i++) {
		d = edgy_desc(h);
		memcpy(p + len, &d, sizeof(d));
		len += sizeof(d);
	}
	/* wl_shm.create_pool(new id, fd, size) on an object that may be */
	hostile_fill(h, p + len, data_len);
	if (data_len >= 16) {
		uint32_t w[4] = { WL_SHM_ID, 16u << 16, POOL_ID,
				  hostile_edgy32(h) };

		memcpy(p + len, w, sizeof(w));
	}
	len += data_len;
	switch (hostile_below(h, 5)) {
	case 0: len += hostile_below(h, 16); break;	/* slack or too much */
	case 1: len -= len > 8 ? hostile_below(h, 8) : 0; break;	/* cut */
	default: break;
	}
	if (len > ivwl_ring_max_payload(&h->slot[k].request))
		len = ivwl_ring_max_payload(&h->slot[k].request);
	hostile_send(h, k, IVWL_RECORD_WAYLAND, scratch, len, false);
}

static uint32_t
edgy_object(struct hostile *h, uint32_t k)
{
	switch (hostile_below(h, 8)) {
	case 0: return 0;
	case 1: return IVWL_WIRE_DISPLAY_ID;
	case 2: return 2;
	case 3: return h->slot[k].next_id;
	case 4: return IVWL_WIRE_SERVER_ID_START;
	case 5: return IVWL_WIRE_SERVER_ID_START - 1;
	case 6: return 1u << 18;
	default: return hostile_edgy32(h);
	}
}

static void
random_args(struct hostile *h, struct wl_out *out, uint32_t words)
{
	static const char *const names[] = {
		"wl_shm", "wl_compositor", "weston_screenshooter",
		"weston_debug_v1", "xdg_wm_base", "zwp_input_method_v1",
		"wl_seat", "",
	};
	uint32_t i;

	for (i = 0; i < words && wl_out_room(out, 4); i++) {
		switch (hostile_below(h, 6)) {
		case 0:
			wl_out_string(out, names[hostile_below(h, 8)]);
			break;
		case 1:
			wl_out_u32(out, hostile_below(h, 40));
			break;
		default:
			wl_out_u32(out, hostile_edgy32(h));
			break;
		}
	}
}

/* Messages with bad objects, bad opcodes and sizes that lie. */
static void
random_wayland(struct hostile *h, uint32_t k)
{
	struct wl_out out;
	uint32_t n = 1 + hostile_below(h, 6), i, size, word;

	wl_out_reset(&out);
	for (i = 0; i < n && wl_out_room(&out, 64); i++) {
		if (hostile_below(h, 3) == 0) {
			/* well formed, arguments may still be absurd */
			switch (hostile_below(h, 3)) {
			case 0:
				wl_out_begin(&out, IVWL_WIRE_DISPLAY_ID,
					     IVWL_REQ_WL_DISPLAY_SYNC);
				wl_out_u32(&out, edgy_object(h, k));
				break;
			case 1:
				wl_out_begin(&out, IVWL_WIRE_DISPLAY_ID,
					     IVWL_REQ_WL_DISPLAY_GET_REGISTRY);
				wl_out_u32(&out, h->slot[k].next_id++);
				break;
			default:
				wl_out_bind(&out, hostile_edgy32(h),
					    hostile_below(h, 2) ? "wl_shm" :
					    "weston_screenshooter",
					    hostile_edgy32(h),
					    edgy_object(h, k));
				continue;
			}
			wl_out_end(&out);
			continue;
		}
		wl_out_begin(&out, edgy_object(h, k),
			     (uint16_t)(hostile_below(h, 4) ?
					hostile_below(h, 12) :
					hostile_edgy32(h)));
		random_args(h, &out, hostile_below(h, 8));
		wl_out_end(&out);
		size = out.len - out.start;
		switch (hostile_below(h, 8)) {
		case 0: size = 0; break;
		case 1: size = 4; break;
		case 2: size += 1 + hostile_below(h, 3); break;
		case 3: size += 4; break;
		case 4: size = size > 8 ? size - 4 : size; break;
		case 5: size = 0xffff; break;
		default: break;
		}
		memcpy(&word, out.data + out.start + 4, 4);
		word = (size << 16) | (word & 0xffff);
		memcpy(out.data + out.start + 4, &word, 4);
	}
	hostile_send_wayland(h, k, &out);
}

static void
shm_pool(struct wl_out *out, uint32_t id, const struct ivwl_fd_desc *d,
	 int32_t size)
{
	wl_out_begin(out, WL_SHM_ID, IVWL_REQ_WL_SHM_CREATE_POOL);
	wl_out_u32(out, id);
	wl_out_u32(out, (uint32_t)size);
	wl_out_end(out);
	wl_out_fd(out, d);
}

static void
shm_buffer(struct wl_out *out, uint32_t pool, uint32_t id, int32_t offset,
	   int32_t width, int32_t height, int32_t stride, uint32_t format)
{
	wl_out_begin(out, pool, IVWL_REQ_WL_SHM_POOL_CREATE_BUFFER);
	wl_out_u32(out, id);
	wl_out_u32(out, (uint32_t)offset);
	wl_out_u32(out, (uint32_t)width);
	wl_out_u32(out, (uint32_t)height);
	wl_out_u32(out, (uint32_t)stride);
	wl_out_u32(out, format);
	wl_out_end(out);
}

static int32_t
edgy_int(struct hostile *h, int32_t fair)
{
	switch (hostile_below(h, 6)) {
	case 0: return fair;
	case 1: return fair + 1;
	case 2: return -fair;
	case 3: return INT32_MAX;
	case 4: return INT32_MIN;
	default: return (int32_t)hostile_edgy32(h);
	}
}

/*
 * A real session (registry, wl_shm bound) then one shm request that
 * overflows or leaves its range; counts whether the connection survived.
 */
static void
shm_attack(struct hostile *h, uint32_t k)
{
	struct wl_globals g;
	struct wl_out out;
	struct ivwl_fd_desc d;
	uint32_t pages = 1 + hostile_below(h, 16);
	uint32_t len = pages * IVWL_PAGE_SIZE;
	int32_t w = 16 + (int32_t)hostile_below(h, 64), ht = 16;

	if (!hostile_session_start(h, k, &g, 1000) || !g.shm)
		return;
	d = wl_region_desc(h->layout.heap_offset + (uint64_t)IVWL_PAGE_SIZE *
			   hostile_below(h, 64), len);
	wl_out_reset(&out);
	wl_out_bind(&out, g.shm, "wl_shm", 1, WL_SHM_ID);
	switch (hostile_below(h, 8)) {
	case 0:		/* a descriptor that lies */
		d = edgy_desc(h);
		shm_pool(&out, POOL_ID, &d, edgy_int(h, (int32_t)len));
		break;
	case 1:		/* a size outside the range */
		shm_pool(&out, POOL_ID, &d, edgy_int(h, (int32_t)len + 1));
		break;
	case 2:		/* buffers that overflow or leave the pool */
		shm_pool(&out, POOL_ID, &d, (int32_t)len);
		shm_buffer(&out, POOL_ID, BUFFER_ID,
			   edgy_int(h, (int32_t)len - w * 4 * ht),
			   edgy_int(h, w), edgy_int(h, ht),
			   edgy_int(h, w * 4),
			   hostile_below(h, 4) ? XRGB8888 :
						 hostile_edgy32(h));
		break;
	case 3:		/* resize beyond the range */
		shm_pool(&out, POOL_ID, &d, (int32_t)len);
		wl_out_begin(&out, POOL_ID, IVWL_REQ_WL_SHM_POOL_RESIZE);
		wl_out_u32(&out, (uint32_t)edgy_int(h, (int32_t)len * 2));
		wl_out_end(&out);
		break;
	case 4:		/* a buffer of a destroyed pool */
		shm_pool(&out, POOL_ID, &d, (int32_t)len);
		wl_out_begin(&out, POOL_ID, IVWL_REQ_WL_SHM_POOL_DESTROY);
		wl_out_end(&out);
		shm_buffer(&out, POOL_ID, BUFFER_ID, 0, w, ht, w * 4,
			   XRGB8888);
		break;
	case 5:		/* fds that do not match the messages */
		shm_pool(&out, POOL_ID, &d, (int32_t)len);
		if (hostile_below(h, 2))
			out.nfds = 0;
		else
			wl_out_fd(&out, &d);
		break;
	case 6:		/* stride * height overflows 32 bits */
		shm_pool(&out, POOL_ID, &d, (int32_t)len);
		shm_buffer(&out, POOL_ID, BUFFER_ID, 0, 0x4000, 0x40000,
			   0x10000, XRGB8888);
		break;
	default:	/* fair, to show fair ones pass */
		shm_pool(&out, POOL_ID, &d, (int32_t)len);
		shm_buffer(&out, POOL_ID, BUFFER_ID, 0, w, ht, w * 4,
			   XRGB8888);
		break;
	}
	hostile_send_wayland(h, k, &out);
	hostile_roundtrip(h, k, NULL, NULL, 300);
}

void
hostile_garbage_records(struct hostile *h)
{
	uint64_t round = 0;
	uint32_t k;

	while (hostile_time_left(h)) {
		if (hostile_keep_open(h) == 0)
			usleep(500);
		if (round++ % 8 == 0)
			shm_attack(h, hostile_below(h, h->slots));
		for (k = 0; k < h->slots; k++) {
			if (h->slot[k].phase != SLOT_LIVE)
				continue;
			switch (hostile_below(h, 3)) {
			case 0: random_record(h, k); break;
			case 1: fd_record(h, k); break;
			default: random_wayland(h, k); break;
			}
		}
		usleep(200);
	}
}

/* ---- bad-indices ---------------------------------------------------- */

/* The display consumes whole 8-byte records: keep prod - cons aligned
 * when the partial-header hang is spared (see bugs.c). */
static uint32_t
spare(struct hostile *h, uint32_t prod, uint32_t cons)
{
	if (h->spare_partial)
		prod -= (prod - cons) & 7u;
	return prod;
}

static void
set_prod(struct hostile *h, uint32_t k, uint32_t prod)
{
	struct ivwl_ring_ctrl *r = &hostile_ctrl(h, k)->request;

	prod = spare(h, prod, ivwl_shm_load(&r->consumer.cons));
	ivwl_shm_store_release(&r->producer.prod, prod);
	h->st.index_writes++;
}

static void
lie_about_prod(struct hostile *h, uint32_t k)
{
	struct ivwl_ring_ctrl *r = &hostile_ctrl(h, k)->request;
	uint32_t cons = ivwl_shm_load(&r->consumer.cons);
	uint32_t size = h->layout.ring_size;

	switch (hostile_below(h, 8)) {
	case 0: set_prod(h, k, hostile_edgy32(h)); break;
	case 1: set_prod(h, k, cons + size + 8 * (1 + hostile_below(h, 4)));
		break;
	case 2: set_prod(h, k, cons - 8 * (1 + hostile_below(h, 4))); break;
	case 3: set_prod(h, k, cons + size); break;
	case 4: set_prod(h, k, cons + 8 * hostile_below(h, size / 8)); break;
	case 5: set_prod(h, k, cons + 1 + hostile_below(h, 7)); break;
	case 6: set_prod(h, k, cons + 0x80000000u); break;
	default: set_prod(h, k, (uint32_t)hostile_rand(h)); break;
	}
	hostile_ring(h, ivwl_slot_vector(k));
}

/* A record header whose length lies, then prod published past it. */
static void
lying_header(struct hostile *h, uint32_t k)
{
	struct hostile_slot *s = &h->slot[k];
	uint32_t size = h->layout.ring_size, pos = s->request.pos;
	uint32_t off = pos & (size - 1), tail = size - off, publish;
	struct ivwl_record_header hd = {
		.type = (uint16_t)(hostile_below(h, 4) ? IVWL_RECORD_WAYLAND :
					       IVWL_RECORD_TYPE_PAD),
	};

	switch (hostile_below(h, 8)) {
	case 0: hd.len = 0; break;
	case 1: hd.len = 4; break;
	case 2: hd.len = 12 + 8 * hostile_below(h, 8); break;
	case 3: hd.len = size + 8; break;
	case 4: hd.len = tail + 8; break;		/* crosses the end */
	case 5: hd.len = size / 2 + 8; break;		/* too big */
	case 6: hd.len = 0xfffffff8u; break;
	default: hd.len = 64; break;		/* longer than published */
	}
	memcpy(hostile_request_data(h, k) + off, &hd, sizeof(hd));
	h->st.lies++;
	switch (hostile_below(h, 3)) {
	case 0: publish = pos + 8; break;
	case 1: publish = pos + (tail < 256 ? tail : 256); break;
	default: publish = pos + ((hd.len + 7u) & ~7u); break;
	}
	set_prod(h, k, publish);
	hostile_ring(h, ivwl_slot_vector(k));
}

static void
token_games(struct hostile *h, uint32_t k)
{
	struct ivwl_slot_ctrl *c = hostile_ctrl(h, k);

	ivwl_shm_store(&c->request.producer.need_space, hostile_edgy32(h));
	ivwl_shm_store(&c->event.consumer.need_data, hostile_edgy32(h));
	h->st.index_writes += 2;
	hostile_ring(h, ivwl_slot_vector(k));
}

static void
send_sync(struct hostile *h, uint32_t k)
{
	struct wl_out out;

	wl_out_reset(&out);
	wl_out_begin(&out, IVWL_WIRE_DISPLAY_ID, IVWL_REQ_WL_DISPLAY_SYNC);
	wl_out_u32(&out, h->slot[k].next_id++);
	wl_out_end(&out);
	hostile_send_wayland(h, k, &out);
}

/* The display produces events: lie about how far we consumed them. */
static void
lie_about_cons(struct hostile *h, uint32_t k)
{
	struct ivwl_ring_ctrl *r = &hostile_ctrl(h, k)->event;
	uint32_t prod = ivwl_shm_load(&r->producer.prod);
	uint32_t v;

	switch (hostile_below(h, 5)) {
	case 0: v = prod + 8; break;		/* consumed the future */
	case 1: v = prod - h->layout.ring_size - 8; break;
	case 2: v = prod + 1 + hostile_below(h, 7); break;
	case 3: v = h->slot[k].event.pos - 8; break;	/* went back */
	default: v = hostile_edgy32(h); break;
	}
	ivwl_shm_store_release(&r->consumer.cons, v);
	h->st.index_writes++;
	/* a few requests whose answers the display must write */
	send_sync(h, k);
	send_sync(h, k);
	hostile_ring(h, ivwl_slot_vector(k));
}

/* Lets the display fill the event ring (syncs nobody reads), then lies
 * about cons while its producer has to re-read it to go on. */
void
hostile_event_lie(struct hostile *h, uint32_t k, int how)
{
	struct ivwl_ring_ctrl *r = &hostile_ctrl(h, k)->event;
	uint32_t size = h->layout.ring_size, i, j, prod;
	struct wl_out out;
	int64_t end;

	/* each sync comes back as callback.done + delete_id, 24 bytes */
	for (j = 0; j < size / (24 * 300) + 2; j++) {
		wl_out_reset(&out);
		for (i = 0; i < 300; i++) {
			wl_out_begin(&out, IVWL_WIRE_DISPLAY_ID,
				     IVWL_REQ_WL_DISPLAY_SYNC);
			wl_out_u32(&out, h->slot[k].next_id++);
			wl_out_end(&out);
		}
		if (hostile_send_wayland(h, k, &out) < 0)
			break;
	}
	hostile_ring(h, ivwl_slot_vector(k));
	end = hostile_now_ms() + 100;
	while (hostile_now_ms() < end &&
	       ivwl_shm_load(&r->producer.prod) - h->slot[k].event.pos <
	       size - 4096)
		usleep(1000);
	prod = ivwl_shm_load(&r->producer.prod);
	switch (how >= 0 ? (uint32_t)how : hostile_below(h, 4)) {
	case 0: prod += 8; break;			/* the future */
	case 1: prod = h->slot[k].event.pos - 8; break;	/* went back */
	case 2: prod = hostile_edgy32(h); break;
	default: prod -= 4; break;		/* unaligned, but in range */
	}
	ivwl_shm_store_release(&r->consumer.cons, prod);
	h->st.index_writes++;
	hostile_ring(h, ivwl_slot_vector(k));
}

/* Publishes a good record, then keeps rewriting prod while it is read. */
static void
racing_prod(struct hostile *h, uint32_t k)
{
	struct ivwl_ring_ctrl *r = &hostile_ctrl(h, k)->request;
	uint32_t good, i;

	send_sync(h, k);
	hostile_ring(h, ivwl_slot_vector(k));
	good = h->slot[k].request.pos;
	for (i = 0; i < 4000; i++) {
		ivwl_shm_store_release(&r->producer.prod,
			spare(h, i % 2 ? good : hostile_edgy32(h),
			      ivwl_shm_load(&r->consumer.cons)));
		h->st.index_writes++;
	}
	if (hostile_below(h, 2))
		ivwl_shm_store_release(&r->producer.prod, good);
}

void
hostile_bad_indices(struct hostile *h)
{
	uint32_t k;

	while (hostile_time_left(h)) {
		if (hostile_keep_open(h) == 0)
			usleep(500);
		for (k = 0; k < h->slots; k++) {
			if (h->slot[k].phase != SLOT_LIVE)
				continue;
			hostile_drain_events(h, k, NULL, NULL);
			switch (hostile_below(h, 7)) {
			case 0: lie_about_prod(h, k); break;
			case 1: lying_header(h, k); break;
			case 2: token_games(h, k); break;
			case 3: lie_about_cons(h, k); break;
			case 4: racing_prod(h, k); break;
			case 5: hostile_event_lie(h, k, -1); break;
			default: send_sync(h, k); break;
			}
		}
		usleep(200);
	}
}

/* ---- scribble ------------------------------------------------------- */

static uint64_t
slot_offset(struct hostile *h, uint32_t k)
{
	return h->layout.slot_table_offset + (uint64_t)k *
	       h->layout.slot_stride;
}

static uint64_t
scribble_target(struct hostile *h)
{
	static const uint32_t words[] = {
		0x000, 0x004, 0x040, 0x044, 0x080, 0x084, 0x0c0, 0x0c4,
		0x100, 0x104, 0x140, 0x144,
	};
	uint32_t k = hostile_below(h, h->layout.slot_count);
	uint64_t r;

	switch (hostile_below(h, 10)) {
	case 0:
		return 0x100 + hostile_below(h, 0x200);	/* side blocks */
	case 1:
		return hostile_below(h, IVWL_PAGE_SIZE);
	case 2: case 3: case 4:
		return slot_offset(h, k) + words[hostile_below(h, 12)] +
		       hostile_below(h, 4);
	case 5:
		return slot_offset(h, k) + hostile_below(h, IVWL_PAGE_SIZE);
	case 6: case 7:
		return slot_offset(h, k) + IVWL_PAGE_SIZE +
		       hostile_below(h, 2 * h->layout.ring_size);
	default:
		r = hostile_rand(h) % h->layout.region_size;
		return r;
	}
}

static void
flip(struct hostile *h, uint64_t off)
{
	uint8_t mask = (uint8_t)(1 + hostile_below(h, 255));
	uint64_t in_slot;

	if (h->spare_partial && off >= h->layout.slot_table_offset &&
	    off < h->layout.heap_offset) {
		in_slot = (off - h->layout.slot_table_offset) %
			  h->layout.slot_stride;
		/* the low byte of the request prod: keep it aligned */
		if (in_slot == offsetof(struct ivwl_slot_ctrl,
					request.producer.prod))
			mask &= (uint8_t)~7u;
	}
	if (!mask)
		return;
	__atomic_fetch_xor(h->base + off, mask, __ATOMIC_RELAXED);
	h->st.flips++;
}

void
hostile_scribble(struct hostile *h)
{
	uint32_t k, i;

	while (hostile_time_left(h)) {
		hostile_keep_open(h);
		for (k = 0; k < h->slots; k++) {
			if (h->slot[k].phase != SLOT_LIVE)
				continue;
			hostile_drain_events(h, k, NULL, NULL);
			/* our own producer may be broken by a flipped
			 * cons: start over on that slot */
			if (h->slot[k].request.broken)
				hostile_slot_open(h, k);
			else
				send_sync(h, k);
		}
		for (i = 0; i < 256; i++)
			flip(h, scribble_target(h));
		if (hostile_below(h, 4) == 0)
			hostile_ring(h, hostile_below(h, h->nr_vectors));
		usleep(100);
	}
}

/* ---- slot-churn ----------------------------------------------------- */

static void
store_app(struct hostile *h, uint32_t k, uint32_t state, uint32_t gen)
{
	ivwl_slot_state_store(&hostile_ctrl(h, k)->app, state, gen);
	h->st.state_writes++;
}

static void
churn_one(struct hostile *h, uint32_t k)
{
	struct hostile_slot *s = &h->slot[k];
	struct ivwl_side_block *own = ivwl_region_side(h->base, IVWL_SIDE_APP);
	uint32_t i;

	switch (hostile_below(h, 12)) {
	case 0: case 1: case 2: case 3:
		hostile_slot_open(h, k);
		return;
	case 4: case 5:
		hostile_slot_close(h, k);
		return;
	case 6:
		store_app(h, k, IVWL_APP_SLOT_OPEN, s->gen - 1);
		break;
	case 7:
		store_app(h, k, IVWL_APP_SLOT_OPEN, s->gen);
		break;
	case 8:
		/* near the wrap, or anywhere */
		s->gen = hostile_below(h, 2) ? 0xfffffffeu : hostile_edgy32(h);
		hostile_slot_open(h, k);
		return;
	case 9:
		store_app(h, k, 2 + hostile_below(h, 4) * hostile_edgy32(h),
			  s->gen + 1);
		break;
	case 10:
		for (i = 0; i < 16; i++)
			store_app(h, k, i % 2 ? IVWL_APP_SLOT_FREE :
				  IVWL_APP_SLOT_OPEN, s->gen + i / 2);
		s->gen += 8;
		break;
	default:
		if (hostile_below(h, 16) == 0)
			ivwl_shm_store(&own->epoch,
				       ivwl_shm_load(&own->epoch) + 1);
		else
			store_app(h, k, IVWL_APP_SLOT_FREE, hostile_edgy32(h));
		break;
	}
	s->phase = SLOT_IDLE;
	if (hostile_below(h, 8))
		hostile_ring(h, IVWL_VECTOR_CONTROL);
}

/* Live connections get some objects, so that closing them has work. */
static void
give_work(struct hostile *h, uint32_t k)
{
	struct wl_out out;

	if (h->slot[k].next_id != 2)
		return;
	wl_out_reset(&out);
	wl_out_begin(&out, IVWL_WIRE_DISPLAY_ID,
		     IVWL_REQ_WL_DISPLAY_GET_REGISTRY);
	wl_out_u32(&out, h->slot[k].next_id++);
	wl_out_end(&out);
	wl_out_begin(&out, IVWL_WIRE_DISPLAY_ID, IVWL_REQ_WL_DISPLAY_SYNC);
	wl_out_u32(&out, h->slot[k].next_id++);
	wl_out_end(&out);
	hostile_send_wayland(h, k, &out);
}

void
hostile_slot_churn(struct hostile *h)
{
	int64_t last_probe = 0, worst = 0, t;
	uint32_t i, k;

	while (hostile_time_left(h)) {
		for (i = 0; i < 64; i++)
			churn_one(h, hostile_below(h, h->layout.slot_count));
		for (k = 0; k < h->slots; k++) {
			hostile_slot_poll(h, k);
			if (h->slot[k].phase == SLOT_LIVE) {
				give_work(h, k);
				hostile_drain_events(h, k, NULL, NULL);
			}
		}
		/* does the display still answer a proper open? */
		if (hostile_now_ms() - last_probe > 200) {
			k = hostile_below(h, h->slots);
			t = hostile_now_ms();
			if (hostile_slot_open_wait(h, k, 1000) &&
			    hostile_now_ms() - t > worst)
				worst = hostile_now_ms() - t;
			last_probe = hostile_now_ms();
		}
		usleep(100);
	}
	printf("hostile-peer: slot-churn: slowest answer to a proper open: "
	       "%lld ms\n", (long long)worst);
}

/* ---- doorbell-storm ------------------------------------------------- */

void
hostile_doorbell_storm(struct hostile *h)
{
	struct wl_globals g;
	uint64_t rings = 0;
	int64_t start = hostile_now_ms();
	uint32_t k, v;

	/* live connections first, so every slot vector reaches a ring */
	for (k = 0; k < h->slots && hostile_time_left(h); k++)
		if (k % 2 == 0)
			hostile_session_start(h, k, &g, 500);
		else
			hostile_slot_open_wait(h, k, 500);
	while (hostile_time_left(h)) {
		for (v = 0; v < h->nr_vectors; v++)
			ivwl_device_ring(h->dev, IVWL_PEER_DISPLAY, v);
		rings += h->nr_vectors;
		if (rings % (64 * h->nr_vectors) == 0)
			for (k = 0; k < h->slots; k++)
				if (h->slot[k].phase == SLOT_LIVE)
					hostile_drain_events(h, k, NULL, NULL);
	}
	h->st.doorbells += rings;
	printf("hostile-peer: doorbell-storm: %llu doorbells, %.0f per "
	       "second\n", (unsigned long long)rings,
	       rings * 1000.0 / (double)(hostile_now_ms() - start + 1));
}
