/* SPDX-License-Identifier: MIT */
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

static uint64_t scratch[IVWL_RING_MAX_SIZE / 2 / sizeof(uint64_t)];

/* ---- garbage-records ------------------------------------------------ */

static uint64_t
edgy_offset(struct ivwl_hostile *h)
{
	const struct ivwl_layout *l = &h->layout;
	uint64_t heap_end = l->heap_offset + l->heap_size;

	switch (ivwl_rnd_below(h, 12)) {
	case 0: return 0;
	case 1: return l->heap_offset - IVWL_PAGE_SIZE;
	case 2: return l->heap_offset;
	case 3: return l->heap_offset + 1 + ivwl_rnd_below(h, 4095);
	case 4: return heap_end - IVWL_PAGE_SIZE;
	case 5: return heap_end;
	case 6: return UINT64_MAX & ~(uint64_t)(IVWL_PAGE_SIZE - 1);
	case 7: return 1ull << 63;
	case 8: return (uint64_t)INT32_MAX + 1;
	case 9: return l->heap_offset + (uint64_t)IVWL_PAGE_SIZE *
			ivwl_rnd_below(h, (uint32_t)(l->heap_size /
						     IVWL_PAGE_SIZE));
	case 10: return ivwl_rnd(h) & ~(uint64_t)(IVWL_PAGE_SIZE - 1);
	default: return ivwl_rnd(h);
	}
}

static uint64_t
edgy_length(struct ivwl_hostile *h, uint64_t offset)
{
	const struct ivwl_layout *l = &h->layout;

	switch (ivwl_rnd_below(h, 10)) {
	case 0: return 0;
	case 1: return 1;
	case 2: return IVWL_PAGE_SIZE;
	case 3: return l->heap_size;
	case 4: return l->heap_size + IVWL_PAGE_SIZE;
	case 5: return UINT64_MAX;
	case 6: return 0 - offset;		/* offset + length wraps to 0 */
	case 7: return 0 - offset + IVWL_PAGE_SIZE;	/* wraps past 0 */
	case 8: return l->heap_offset + l->heap_size - offset;
	default: return ivwl_rnd(h) >> ivwl_rnd_below(h, 64);
	}
}

static struct ivwl_fd_desc
edgy_desc(struct ivwl_hostile *h)
{
	struct ivwl_fd_desc d;

	memset(&d, 0, sizeof(d));
	d.kind = ivwl_rnd_below(h, 8) ? ivwl_rnd_below(h, 7) :
				      ivwl_rnd_edgy32(h);
	if (ivwl_rnd_below(h, 4) == 0)
		d.flags = ivwl_rnd_edgy32(h);
	d.offset = edgy_offset(h);
	d.length = edgy_length(h, d.offset);
	if (ivwl_rnd_below(h, 3) == 0)
		d.channel = ivwl_rnd_edgy32(h);
	if (ivwl_rnd_below(h, 16) == 0)
		d.reserved = ivwl_rnd_edgy32(h);
	return d;
}

static void
random_record(struct ivwl_hostile *h, uint32_t k)
{
	uint32_t max = ivwl_ring_max_payload(&h->slot[k].request), len;
	uint16_t type = (uint16_t)(ivwl_rnd_below(h, 8) ? ivwl_rnd_below(h, 8) :
				   ivwl_rnd_edgy32(h));

	switch (ivwl_rnd_below(h, 4)) {
	case 0: len = 0; break;
	case 1: len = ivwl_rnd_below(h, 64); break;
	case 2: len = ivwl_rnd_below(h, 5000); break;
	default: len = ivwl_rnd_below(h, max + 1); break;
	}
	ivwl_rnd_fill(h, scratch, len);
	ivwl_hostile_send(h, k, type, scratch, len, ivwl_rnd_below(h, 4) == 0);
}

/* A WAYLAND record whose header, descriptors or sizes lie. */
static void
fd_record(struct ivwl_hostile *h, uint32_t k)
{
	struct ivwl_wayland_header wh = { 0 };
	uint8_t *p = (uint8_t *)scratch;
	uint32_t nfds = ivwl_rnd_below(h, 36), data_len, i, len;
	struct ivwl_fd_desc d;

	data_len = ivwl_rnd_below(h, 3) ? 16 : ivwl_rnd_below(h, 4200);
	wh.nfds = (uint16_t)(ivwl_rnd_below(h, 8) ? nfds : ivwl_rnd_edgy32(h));
	wh.data_len = ivwl_rnd_below(h, 6) ? data_len : ivwl_rnd_edgy32(h);
	if (ivwl_rnd_below(h, 16) == 0)
		wh.reserved = (uint16_t)ivwl_rnd_edgy32(h);
	memcpy(p, &wh, sizeof(wh));
	len = sizeof(wh);
	for (i = 0; i < nfds; i++) {
		d = edgy_desc(h);
		memcpy(p + len, &d, sizeof(d));
		len += sizeof(d);
	}
	/* wl_shm.create_pool(new id, fd, size) on an object that may be */
	ivwl_rnd_fill(h, p + len, data_len);
	if (data_len >= 16) {
		uint32_t w[4] = { WL_SHM_ID, 16u << 16, POOL_ID,
				  ivwl_rnd_edgy32(h) };

		memcpy(p + len, w, sizeof(w));
	}
	len += data_len;
	switch (ivwl_rnd_below(h, 5)) {
	case 0: len += ivwl_rnd_below(h, 16); break; /* slack, too much */
	case 1: len -= len > 8 ? ivwl_rnd_below(h, 8) : 0; break; /* cut */
	default: break;
	}
	if (len > ivwl_ring_max_payload(&h->slot[k].request))
		len = ivwl_ring_max_payload(&h->slot[k].request);
	ivwl_hostile_send(h, k, IVWL_RECORD_WAYLAND, scratch, len, false);
}

static uint32_t
edgy_object(struct ivwl_hostile *h, uint32_t k)
{
	switch (ivwl_rnd_below(h, 8)) {
	case 0: return 0;
	case 1: return IVWL_WIRE_DISPLAY_ID;
	case 2: return 2;
	case 3: return h->slot[k].next_id;
	case 4: return IVWL_WIRE_SERVER_ID_START;
	case 5: return IVWL_WIRE_SERVER_ID_START - 1;
	case 6: return 1u << 18;
	default: return ivwl_rnd_edgy32(h);
	}
}

static void
random_args(struct ivwl_hostile *h, struct ivwl_out *out, uint32_t words)
{
	static const char *const names[] = {
		"wl_shm", "wl_compositor", "weston_screenshooter",
		"weston_debug_v1", "xdg_wm_base", "zwp_input_method_v1",
		"wl_seat", "",
	};
	uint32_t i;

	for (i = 0; i < words && ivwl_out_room(out, 4); i++) {
		switch (ivwl_rnd_below(h, 6)) {
		case 0:
			ivwl_out_string(out, names[ivwl_rnd_below(h, 8)]);
			break;
		case 1:
			ivwl_out_u32(out, ivwl_rnd_below(h, 40));
			break;
		default:
			ivwl_out_u32(out, ivwl_rnd_edgy32(h));
			break;
		}
	}
}

/* A request of wl_display creating new_id. */
static void
display_request(struct ivwl_out *out, uint16_t opcode, uint32_t new_id)
{
	ivwl_out_begin(out, IVWL_WIRE_DISPLAY_ID, opcode);
	ivwl_out_u32(out, new_id);
	ivwl_out_end(out);
}

static void
well_formed(struct ivwl_hostile *h, uint32_t k, struct ivwl_out *out)
{
	switch (ivwl_rnd_below(h, 3)) {
	case 0:
		display_request(out, IVWL_REQ_WL_DISPLAY_SYNC,
				edgy_object(h, k));
		break;
	case 1:
		display_request(out, IVWL_REQ_WL_DISPLAY_GET_REGISTRY,
				h->slot[k].next_id++);
		break;
	default:
		ivwl_out_bind(out, ivwl_rnd_edgy32(h),
			      ivwl_rnd_below(h, 2) ? "wl_shm" :
			      "weston_screenshooter",
			      ivwl_rnd_edgy32(h), edgy_object(h, k));
		break;
	}
}

/* Messages with bad objects, bad opcodes and sizes that lie. */
static void
random_wayland(struct ivwl_hostile *h, uint32_t k)
{
	struct ivwl_out out;
	uint32_t n = 1 + ivwl_rnd_below(h, 6), i, size, word;

	ivwl_out_reset(&out);
	for (i = 0; i < n && ivwl_out_room(&out, 64); i++) {
		if (ivwl_rnd_below(h, 3) == 0) {
			/* well formed, arguments may still be absurd */
			well_formed(h, k, &out);
			continue;
		}
		ivwl_out_begin(&out, edgy_object(h, k),
			       (uint16_t)(ivwl_rnd_below(h, 4) ?
					  ivwl_rnd_below(h, 12) :
					  ivwl_rnd_edgy32(h)));
		random_args(h, &out, ivwl_rnd_below(h, 8));
		ivwl_out_end(&out);
		size = out.len - out.start;
		switch (ivwl_rnd_below(h, 8)) {
		case 0: size = 0; break;
		case 1: size = 4; break;
		case 2: size += 1 + ivwl_rnd_below(h, 3); break;
		case 3: size += 4; break;
		case 4: size = size > 8 ? size - 4 : size; break;
		case 5: size = 0xffff; break;
		default: break;
		}
		memcpy(&word, out.data + out.start + 4, 4);
		word = (size << 16) | (word & 0xffff);
		memcpy(out.data + out.start + 4, &word, 4);
	}
	ivwl_hostile_send_wayland(h, k, &out);
}

static int32_t
edgy_int(struct ivwl_hostile *h, int32_t fair)
{
	switch (ivwl_rnd_below(h, 6)) {
	case 0: return fair;
	case 1: return fair + 1;
	case 2: return -fair;
	case 3: return INT32_MAX;
	case 4: return INT32_MIN;
	default: return (int32_t)ivwl_rnd_edgy32(h);
	}
}

/*
 * A real session (registry, wl_shm bound) then one shm request that
 * overflows or leaves its range; counts whether the connection survived.
 */
static void
shm_attack(struct ivwl_hostile *h, uint32_t k)
{
	struct ivwl_hostile_globals g;
	struct ivwl_out out;
	struct ivwl_fd_desc d;
	uint32_t pages = 1 + ivwl_rnd_below(h, 16);
	uint32_t len = pages * IVWL_PAGE_SIZE;
	int32_t w = 16 + (int32_t)ivwl_rnd_below(h, 64), ht = 16;

	if (!ivwl_hostile_session_start(h, k, &g, 1000) || !g.shm)
		return;
	d = ivwl_out_region_desc(h->layout.heap_offset +
				 (uint64_t)IVWL_PAGE_SIZE *
				 ivwl_rnd_below(h, 64), len);
	ivwl_out_reset(&out);
	ivwl_out_bind(&out, g.shm, "wl_shm", 1, WL_SHM_ID);
	switch (ivwl_rnd_below(h, 8)) {
	case 0:		/* a descriptor that lies */
		d = edgy_desc(h);
		ivwl_out_shm_pool(&out, WL_SHM_ID, POOL_ID, &d,
				  edgy_int(h, (int32_t)len));
		break;
	case 1:		/* a size outside the range */
		ivwl_out_shm_pool(&out, WL_SHM_ID, POOL_ID, &d,
				  edgy_int(h, (int32_t)len + 1));
		break;
	case 2:		/* buffers that overflow or leave the pool */
		ivwl_out_shm_pool(&out, WL_SHM_ID, POOL_ID, &d, (int32_t)len);
		ivwl_out_shm_buffer(&out, POOL_ID, BUFFER_ID,
				    edgy_int(h, (int32_t)len - w * 4 * ht),
				    edgy_int(h, w), edgy_int(h, ht),
				    edgy_int(h, w * 4),
				    ivwl_rnd_below(h, 4) ?
				    IVWL_HOSTILE_XRGB8888 :
				    ivwl_rnd_edgy32(h));
		break;
	case 3:		/* resize beyond the range */
		ivwl_out_shm_pool(&out, WL_SHM_ID, POOL_ID, &d, (int32_t)len);
		ivwl_out_begin(&out, POOL_ID, IVWL_REQ_WL_SHM_POOL_RESIZE);
		ivwl_out_u32(&out, (uint32_t)edgy_int(h, (int32_t)len * 2));
		ivwl_out_end(&out);
		break;
	case 4:		/* a buffer of a destroyed pool */
		ivwl_out_shm_pool(&out, WL_SHM_ID, POOL_ID, &d, (int32_t)len);
		ivwl_out_begin(&out, POOL_ID, IVWL_REQ_WL_SHM_POOL_DESTROY);
		ivwl_out_end(&out);
		ivwl_out_shm_buffer(&out, POOL_ID, BUFFER_ID, 0, w, ht, w * 4,
				    IVWL_HOSTILE_XRGB8888);
		break;
	case 5:		/* fds that do not match the messages */
		ivwl_out_shm_pool(&out, WL_SHM_ID, POOL_ID, &d, (int32_t)len);
		if (ivwl_rnd_below(h, 2))
			out.nfds = 0;
		else
			ivwl_out_fd(&out, &d);
		break;
	case 6:		/* stride * height overflows 32 bits */
		ivwl_out_shm_pool(&out, WL_SHM_ID, POOL_ID, &d, (int32_t)len);
		ivwl_out_shm_buffer(&out, POOL_ID, BUFFER_ID, 0, 0x4000,
				    0x40000, 0x10000, IVWL_HOSTILE_XRGB8888);
		break;
	default:	/* fair, to show fair ones pass */
		ivwl_out_shm_pool(&out, WL_SHM_ID, POOL_ID, &d, (int32_t)len);
		ivwl_out_shm_buffer(&out, POOL_ID, BUFFER_ID, 0, w, ht, w * 4,
				    IVWL_HOSTILE_XRGB8888);
		break;
	}
	ivwl_hostile_send_wayland(h, k, &out);
	ivwl_hostile_roundtrip(h, k, NULL, NULL, 300);
}

void
ivwl_hostile_garbage_records(struct ivwl_hostile *h)
{
	uint64_t round = 0;
	uint32_t k;

	while (ivwl_hostile_time_left(h)) {
		if (ivwl_hostile_keep_open(h) == 0)
			usleep(500);
		if (round++ % 8 == 0)
			shm_attack(h, ivwl_rnd_below(h, h->slots));
		for (k = 0; k < h->slots; k++) {
			if (h->slot[k].phase != IVWL_HOSTILE_LIVE)
				continue;
			switch (ivwl_rnd_below(h, 3)) {
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
 * when the partial-header hang is spared (see bugs-rings.c). */
static uint32_t
spare(struct ivwl_hostile *h, uint32_t prod, uint32_t cons)
{
	if (h->spare_partial)
		prod -= (prod - cons) & 7u;
	return prod;
}

static void
set_prod(struct ivwl_hostile *h, uint32_t k, uint32_t prod)
{
	struct ivwl_ring_ctrl *r = &ivwl_hostile_ctrl(h, k)->request;

	prod = spare(h, prod, ivwl_shm_load(&r->consumer.cons));
	ivwl_shm_store_release(&r->producer.prod, prod);
	h->st.index_writes++;
}

static void
lie_about_prod(struct ivwl_hostile *h, uint32_t k)
{
	struct ivwl_ring_ctrl *r = &ivwl_hostile_ctrl(h, k)->request;
	uint32_t cons = ivwl_shm_load(&r->consumer.cons);
	uint32_t size = h->layout.ring_size;

	switch (ivwl_rnd_below(h, 8)) {
	case 0: set_prod(h, k, ivwl_rnd_edgy32(h)); break;
	case 1: set_prod(h, k, cons + size + 8 * (1 + ivwl_rnd_below(h, 4)));
		break;
	case 2: set_prod(h, k, cons - 8 * (1 + ivwl_rnd_below(h, 4))); break;
	case 3: set_prod(h, k, cons + size); break;
	case 4: set_prod(h, k, cons + 8 * ivwl_rnd_below(h, size / 8)); break;
	case 5: set_prod(h, k, cons + 1 + ivwl_rnd_below(h, 7)); break;
	case 6: set_prod(h, k, cons + 0x80000000u); break;
	default: set_prod(h, k, (uint32_t)ivwl_rnd(h)); break;
	}
	ivwl_hostile_ring(h, IVWL_DOORBELL_SLOT(k));
}

/* A record header whose length lies, then prod published past it. */
static void
lying_header(struct ivwl_hostile *h, uint32_t k)
{
	struct ivwl_hostile_slot *s = &h->slot[k];
	uint32_t size = h->layout.ring_size, pos = s->request.pos;
	uint32_t off = pos & (size - 1), tail = size - off, publish;
	struct ivwl_record_header hd = {
		.type = (uint16_t)(ivwl_rnd_below(h, 4) ? IVWL_RECORD_WAYLAND :
				   IVWL_RECORD_TYPE_PAD),
	};

	switch (ivwl_rnd_below(h, 8)) {
	case 0: hd.len = 0; break;
	case 1: hd.len = 4; break;
	case 2: hd.len = 12 + 8 * ivwl_rnd_below(h, 8); break;
	case 3: hd.len = size + 8; break;
	case 4: hd.len = tail + 8; break;		/* crosses the end */
	case 5: hd.len = size / 2 + 8; break;		/* too big */
	case 6: hd.len = 0xfffffff8u; break;
	default: hd.len = 64; break;		/* longer than published */
	}
	memcpy(ivwl_hostile_request_data(h, k) + off, &hd, sizeof(hd));
	h->st.lies++;
	switch (ivwl_rnd_below(h, 3)) {
	case 0: publish = pos + 8; break;
	case 1: publish = pos + (tail < 256 ? tail : 256); break;
	default: publish = pos + ((hd.len + 7u) & ~7u); break;
	}
	set_prod(h, k, publish);
	ivwl_hostile_ring(h, IVWL_DOORBELL_SLOT(k));
}

static void
token_games(struct ivwl_hostile *h, uint32_t k)
{
	struct ivwl_slot_ctrl *c = ivwl_hostile_ctrl(h, k);

	ivwl_shm_store(&c->request.producer.need_space, ivwl_rnd_edgy32(h));
	ivwl_shm_store(&c->event.consumer.need_data, ivwl_rnd_edgy32(h));
	h->st.index_writes += 2;
	ivwl_hostile_ring(h, IVWL_DOORBELL_SLOT(k));
}

static void
send_sync(struct ivwl_hostile *h, uint32_t k)
{
	struct ivwl_out out;

	ivwl_out_reset(&out);
	ivwl_out_begin(&out, IVWL_WIRE_DISPLAY_ID, IVWL_REQ_WL_DISPLAY_SYNC);
	ivwl_out_u32(&out, h->slot[k].next_id++);
	ivwl_out_end(&out);
	ivwl_hostile_send_wayland(h, k, &out);
}

/* The display produces events: lie about how far we consumed them. */
static void
lie_about_cons(struct ivwl_hostile *h, uint32_t k)
{
	struct ivwl_ring_ctrl *r = &ivwl_hostile_ctrl(h, k)->event;
	uint32_t prod = ivwl_shm_load(&r->producer.prod);
	uint32_t v;

	switch (ivwl_rnd_below(h, 5)) {
	case 0: v = prod + 8; break;		/* consumed the future */
	case 1: v = prod - h->layout.ring_size - 8; break;
	case 2: v = prod + 1 + ivwl_rnd_below(h, 7); break;
	case 3: v = h->slot[k].event.pos - 8; break;	/* went back */
	default: v = ivwl_rnd_edgy32(h); break;
	}
	ivwl_shm_store_release(&r->consumer.cons, v);
	h->st.index_writes++;
	/* a few requests whose answers the display must write */
	send_sync(h, k);
	send_sync(h, k);
	ivwl_hostile_ring(h, IVWL_DOORBELL_SLOT(k));
}

/* Lets the display fill the event ring (syncs nobody reads), then lies
 * about cons while its producer has to re-read it to go on. */
void
ivwl_hostile_event_lie(struct ivwl_hostile *h, uint32_t k, int how)
{
	struct ivwl_ring_ctrl *r = &ivwl_hostile_ctrl(h, k)->event;
	uint32_t size = h->layout.ring_size, i, j, prod;
	struct ivwl_out out;
	int64_t end;

	/* each sync comes back as callback.done + delete_id, 24 bytes */
	for (j = 0; j < size / (24 * 300) + 2; j++) {
		ivwl_out_reset(&out);
		for (i = 0; i < 300; i++) {
			ivwl_out_begin(&out, IVWL_WIRE_DISPLAY_ID,
				       IVWL_REQ_WL_DISPLAY_SYNC);
			ivwl_out_u32(&out, h->slot[k].next_id++);
			ivwl_out_end(&out);
		}
		if (ivwl_hostile_send_wayland(h, k, &out) < 0)
			break;
	}
	ivwl_hostile_ring(h, IVWL_DOORBELL_SLOT(k));
	/* The answers overflow the ring: wait until the display has filled
	 * it (a slow one, under a sanitizer, takes a while), or a lie told
	 * while it still produces can turn true under its feet. */
	end = ivwl_now_ms() + 5000;
	while (ivwl_now_ms() < end && ivwl_hostile_time_left(h) &&
	       ivwl_shm_load(&r->producer.prod) - h->slot[k].event.pos <
	       size - 4096)
		usleep(1000);
	prod = ivwl_shm_load(&r->producer.prod);
	switch (how >= 0 ? (uint32_t)how : ivwl_rnd_below(h, 4)) {
	case 0: prod += 8; break;			/* the future */
	case 1: prod = h->slot[k].event.pos - 8; break;	/* went back */
	case 2: prod = ivwl_rnd_edgy32(h); break;
	default: prod -= 4; break;		/* unaligned, but in range */
	}
	ivwl_shm_store_release(&r->consumer.cons, prod);
	h->st.index_writes++;
	ivwl_hostile_ring(h, IVWL_DOORBELL_SLOT(k));
}

/* Publishes a good record, then keeps rewriting prod while it is read. */
static void
racing_prod(struct ivwl_hostile *h, uint32_t k)
{
	struct ivwl_ring_ctrl *r = &ivwl_hostile_ctrl(h, k)->request;
	uint32_t good, prod, i;

	send_sync(h, k);
	ivwl_hostile_ring(h, IVWL_DOORBELL_SLOT(k));
	good = h->slot[k].request.pos;
	for (i = 0; i < 4000; i++) {
		prod = i % 2 ? good : ivwl_rnd_edgy32(h);
		prod = spare(h, prod, ivwl_shm_load(&r->consumer.cons));
		ivwl_shm_store_release(&r->producer.prod, prod);
		h->st.index_writes++;
	}
	if (ivwl_rnd_below(h, 2))
		ivwl_shm_store_release(&r->producer.prod, good);
}

void
ivwl_hostile_bad_indices(struct ivwl_hostile *h)
{
	uint32_t k;

	while (ivwl_hostile_time_left(h)) {
		if (ivwl_hostile_keep_open(h) == 0)
			usleep(500);
		for (k = 0; k < h->slots; k++) {
			if (h->slot[k].phase != IVWL_HOSTILE_LIVE)
				continue;
			ivwl_hostile_drain_events(h, k, NULL, NULL);
			switch (ivwl_rnd_below(h, 7)) {
			case 0: lie_about_prod(h, k); break;
			case 1: lying_header(h, k); break;
			case 2: token_games(h, k); break;
			case 3: lie_about_cons(h, k); break;
			case 4: racing_prod(h, k); break;
			case 5: ivwl_hostile_event_lie(h, k, -1); break;
			default: send_sync(h, k); break;
			}
		}
		usleep(200);
	}
}

/* ---- scribble ------------------------------------------------------- */

static uint64_t
slot_offset(struct ivwl_hostile *h, uint32_t k)
{
	return h->layout.slot_table_offset + (uint64_t)k *
	       h->layout.slot_stride;
}

static uint64_t
scribble_target(struct ivwl_hostile *h)
{
	static const uint32_t words[] = {
		0x000, 0x004, 0x040, 0x044, 0x080, 0x084, 0x0c0, 0x0c4,
		0x100, 0x104, 0x140, 0x144,
		/* the relay's figures (struct ivwl_slot_app_stats) */
		0x180, 0x188, 0x190, 0x198, 0x1a0, 0x1a8,
	};
	const uint32_t nwords = sizeof(words) / sizeof(words[0]);
	_Static_assert(offsetof(struct ivwl_slot_ctrl, app_stats) == 0x180,
		       "the words above");
	uint32_t k = ivwl_rnd_below(h, h->layout.slot_count);
	uint64_t r;

	switch (ivwl_rnd_below(h, 10)) {
	case 0:
		/* the side blocks and the doorbell words */
		return 0x100 + ivwl_rnd_below(h, 0x280);
	case 1:
		return ivwl_rnd_below(h, IVWL_PAGE_SIZE);
	case 2: case 3: case 4:
		return slot_offset(h, k) + words[ivwl_rnd_below(h, nwords)] +
		       ivwl_rnd_below(h, 4);
	case 5:
		return slot_offset(h, k) + ivwl_rnd_below(h, IVWL_PAGE_SIZE);
	case 6: case 7:
		return slot_offset(h, k) + IVWL_PAGE_SIZE +
		       ivwl_rnd_below(h, 2 * h->layout.ring_size);
	default:
		r = ivwl_rnd(h) % h->layout.region_size;
		return r;
	}
}

static void
flip(struct ivwl_hostile *h, uint64_t off)
{
	uint8_t mask = (uint8_t)(1 + ivwl_rnd_below(h, 255));
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
ivwl_hostile_scribble(struct ivwl_hostile *h)
{
	uint32_t k, i;

	while (ivwl_hostile_time_left(h)) {
		ivwl_hostile_keep_open(h);
		for (k = 0; k < h->slots; k++) {
			if (h->slot[k].phase != IVWL_HOSTILE_LIVE)
				continue;
			ivwl_hostile_drain_events(h, k, NULL, NULL);
			/* our own producer may be broken by a flipped
			 * cons: start over on that slot */
			if (h->slot[k].request.broken)
				ivwl_hostile_slot_open(h, k);
			else
				send_sync(h, k);
		}
		for (i = 0; i < 256; i++)
			flip(h, scribble_target(h));
		if (ivwl_rnd_below(h, 4) == 0)
			ivwl_hostile_ring(h, ivwl_rnd_below(h, h->nr_vectors));
		usleep(100);
	}
}

/* ---- slot-churn ----------------------------------------------------- */

static void
store_app(struct ivwl_hostile *h, uint32_t k, uint32_t state, uint32_t gen)
{
	ivwl_slot_state_store(&ivwl_hostile_ctrl(h, k)->app, state, gen);
	h->st.state_writes++;
}

static void
churn_one(struct ivwl_hostile *h, uint32_t k)
{
	struct ivwl_hostile_slot *s = &h->slot[k];
	struct ivwl_side_block *own = ivwl_region_side(h->base, IVWL_SIDE_APP);
	uint32_t i;

	switch (ivwl_rnd_below(h, 12)) {
	case 0: case 1: case 2: case 3:
		ivwl_hostile_slot_open(h, k);
		return;
	case 4: case 5:
		ivwl_hostile_slot_close(h, k);
		return;
	case 6:
		store_app(h, k, IVWL_APP_SLOT_OPEN, s->gen - 1);
		break;
	case 7:
		store_app(h, k, IVWL_APP_SLOT_OPEN, s->gen);
		break;
	case 8:
		/* near the wrap, or anywhere */
		s->gen = ivwl_rnd_below(h, 2) ? 0xfffffffeu :
	ivwl_rnd_edgy32(h);
		ivwl_hostile_slot_open(h, k);
		return;
	case 9:
		store_app(h, k, 2 + ivwl_rnd_below(h, 4) * ivwl_rnd_edgy32(h),
			  s->gen + 1);
		break;
	case 10:
		for (i = 0; i < 16; i++)
			store_app(h, k, i % 2 ? IVWL_APP_SLOT_FREE :
				  IVWL_APP_SLOT_OPEN, s->gen + i / 2);
		s->gen += 8;
		break;
	default:
		if (ivwl_rnd_below(h, 16) == 0)
			ivwl_shm_store(&own->epoch,
				       ivwl_shm_load(&own->epoch) + 1);
		else
			store_app(h, k, IVWL_APP_SLOT_FREE, ivwl_rnd_edgy32(h));
		break;
	}
	s->phase = IVWL_HOSTILE_IDLE;
	if (ivwl_rnd_below(h, 8))
		ivwl_hostile_ring(h, IVWL_DOORBELL_CONTROL);
}

/* Live connections get some objects, so that closing them has work. */
static void
give_work(struct ivwl_hostile *h, uint32_t k)
{
	struct ivwl_out out;

	if (h->slot[k].next_id != 2)
		return;
	ivwl_out_reset(&out);
	ivwl_out_begin(&out, IVWL_WIRE_DISPLAY_ID,
		       IVWL_REQ_WL_DISPLAY_GET_REGISTRY);
	ivwl_out_u32(&out, h->slot[k].next_id++);
	ivwl_out_end(&out);
	ivwl_out_begin(&out, IVWL_WIRE_DISPLAY_ID, IVWL_REQ_WL_DISPLAY_SYNC);
	ivwl_out_u32(&out, h->slot[k].next_id++);
	ivwl_out_end(&out);
	ivwl_hostile_send_wayland(h, k, &out);
}

void
ivwl_hostile_slot_churn(struct ivwl_hostile *h)
{
	int64_t last_probe = 0, worst = 0, t;
	uint32_t i, k;

	while (ivwl_hostile_time_left(h)) {
		for (i = 0; i < 64; i++)
			churn_one(h, ivwl_rnd_below(h, h->layout.slot_count));
		for (k = 0; k < h->slots; k++) {
			ivwl_hostile_slot_poll(h, k);
			if (h->slot[k].phase == IVWL_HOSTILE_LIVE) {
				give_work(h, k);
				ivwl_hostile_drain_events(h, k, NULL, NULL);
			}
		}
		/* does the display still answer a proper open? */
		if (ivwl_now_ms() - last_probe > 200) {
			k = ivwl_rnd_below(h, h->slots);
			t = ivwl_now_ms();
			if (ivwl_hostile_slot_open_wait(h, k, 1000) &&
			    ivwl_now_ms() - t > worst)
				worst = ivwl_now_ms() - t;
			last_probe = ivwl_now_ms();
		}
		usleep(100);
	}
	printf("hostile-peer: slot-churn: slowest answer to a proper open: "
	       "%lld ms\n", (long long)worst);
}

/* ---- doorbell-storm ------------------------------------------------- */

void
ivwl_hostile_doorbell_storm(struct ivwl_hostile *h)
{
	struct ivwl_hostile_globals g;
	uint64_t rings = 0;
	int64_t start = ivwl_now_ms();
	uint32_t k, v;

	/* live connections first, so every slot vector reaches a ring */
	for (k = 0; k < h->slots && ivwl_hostile_time_left(h); k++)
		if (k % 2 == 0)
			ivwl_hostile_session_start(h, k, &g, 500);
		else
			ivwl_hostile_slot_open_wait(h, k, 500);
	while (ivwl_hostile_time_left(h)) {
		/* Every bit, every time: the display looks at all slots. */
		ivwl_doorbell_post(h->base, IVWL_SIDE_DISPLAY, ~0ull);
		for (v = 0; v < h->nr_vectors; v++)
			ivwl_device_ring(h->dev, IVWL_PEER_DISPLAY, v);
		rings += h->nr_vectors;
		if (rings % (64 * h->nr_vectors) != 0)
			continue;
		for (k = 0; k < h->slots; k++)
			if (h->slot[k].phase == IVWL_HOSTILE_LIVE)
				ivwl_hostile_drain_events(h, k, NULL, NULL);
	}
	h->st.doorbells += rings;
	printf("hostile-peer: doorbell-storm: %llu doorbells, %.0f per "
	       "second\n", (unsigned long long)rings,
	       rings * 1000.0 / (double)(ivwl_now_ms() - start + 1));
}
