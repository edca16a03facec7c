/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include "ring.h"
#include "shm-access.h"

#define HDR_SIZE ((uint32_t)sizeof(struct ivwl_record_header))

static uint32_t
align_up(uint32_t v)
{
	return (v + IVWL_RECORD_ALIGN - 1) & ~(IVWL_RECORD_ALIGN - 1);
}

static int
ring_init(struct ivwl_ring *ring, struct ivwl_ring_ctrl *ctrl, void *data,
	  uint32_t size, bool producer)
{
	if (!ivwl_is_pow2(size) || size < 64)
		return -EINVAL;

	memset(ring, 0, sizeof(*ring));
	ring->ctrl = ctrl;
	ring->data = data;
	ring->size = size;
	ring->mask = size - 1;
	ring->producer = producer;
	return 0;
}

int
ivwl_ring_init_producer(struct ivwl_ring *ring, struct ivwl_ring_ctrl *ctrl,
			void *data, uint32_t size)
{
	return ring_init(ring, ctrl, data, size, true);
}

int
ivwl_ring_init_consumer(struct ivwl_ring *ring, struct ivwl_ring_ctrl *ctrl,
			void *data, uint32_t size)
{
	return ring_init(ring, ctrl, data, size, false);
}

static uint32_t *
own_index(struct ivwl_ring *ring)
{
	return ring->producer ? &ring->ctrl->producer.prod :
				&ring->ctrl->consumer.cons;
}

static uint32_t *
peer_index(struct ivwl_ring *ring)
{
	return ring->producer ? &ring->ctrl->consumer.cons :
				&ring->ctrl->producer.prod;
}

static uint32_t *
own_token(struct ivwl_ring *ring)
{
	return ring->producer ? &ring->ctrl->producer.need_space :
				&ring->ctrl->consumer.need_data;
}

static uint32_t *
peer_token(struct ivwl_ring *ring)
{
	return ring->producer ? &ring->ctrl->consumer.need_data :
				&ring->ctrl->producer.need_space;
}

void
ivwl_ring_reset(struct ivwl_ring *ring)
{
	ring->pos = 0;
	ring->peer = 0;
	ring->broken = false;
	ring->kicked_token = 0;
	ring->checked_pos = 0;
	ring->pending_len = 0;
	ring->pending_pad = 0;
	ivwl_shm_store(own_token(ring), 0);
	ivwl_shm_store_release(own_index(ring), 0);
}

uint32_t
ivwl_ring_max_payload(const struct ivwl_ring *ring)
{
	/* Half the ring: a record of that size always fits once the ring
	 * drains, whatever the pad in front of it. */
	return ring->size / 2 - HDR_SIZE;
}

/*
 * Producer: re-reads the consumer index and checks it lies between the
 * last value seen and our own index.  Anything else is a lie.
 */
static int
producer_refresh(struct ivwl_ring *ring)
{
	uint32_t cons = ivwl_shm_load_acquire(peer_index(ring));

	if (cons - ring->peer > ring->pos - ring->peer) {
		ring->broken = true;
		return -EPIPE;
	}
	ring->peer = cons;
	return 0;
}

static uint32_t
producer_free(const struct ivwl_ring *ring)
{
	return ring->size - (ring->pos - ring->peer);
}

/* Bytes needed for a record of len at our position, pad included. */
static uint32_t
producer_pad(const struct ivwl_ring *ring, uint32_t len)
{
	uint32_t tail = ring->size - (ring->pos & ring->mask);

	return tail < len ? tail : 0;
}

int
ivwl_ring_reserve(struct ivwl_ring *ring, uint32_t payload_len, void **payload)
{
	uint32_t len, pad;
	int ret;

	if (ring->broken)
		return -EPIPE;
	if (payload_len > ivwl_ring_max_payload(ring))
		return -EMSGSIZE;

	len = align_up(payload_len + HDR_SIZE);
	pad = producer_pad(ring, len);
	if (producer_free(ring) < pad + len) {
		ret = producer_refresh(ring);
		if (ret < 0)
			return ret;
		if (producer_free(ring) < pad + len)
			return -EAGAIN;
	}

	if (pad) {
		struct ivwl_record_header h = {
			.len = pad,
			.type = IVWL_RECORD_TYPE_PAD,
		};
		memcpy(ring->data + (ring->pos & ring->mask), &h, sizeof(h));
	}
	ring->pending_pad = pad;
	ring->pending_len = len;
	*payload = ring->data + ((ring->pos + pad) & ring->mask) + HDR_SIZE;
	return 0;
}

void
ivwl_ring_commit(struct ivwl_ring *ring, uint16_t type)
{
	struct ivwl_record_header h = {
		.len = ring->pending_len,
		.type = type,
	};
	uint32_t at = ring->pos + ring->pending_pad;

	memcpy(ring->data + (at & ring->mask), &h, sizeof(h));
	ring->pos = at + ring->pending_len;
	ring->pending_len = 0;
	ring->pending_pad = 0;
	ivwl_shm_store_release(own_index(ring), ring->pos);
}

void
ivwl_ring_commit_len(struct ivwl_ring *ring, uint16_t type,
		     uint32_t payload_len)
{
	uint32_t len = align_up(payload_len + HDR_SIZE);

	if (len < ring->pending_len)
		ring->pending_len = len;
	ivwl_ring_commit(ring, type);
}

int
ivwl_ring_write(struct ivwl_ring *ring, uint16_t type,
		const struct iovec *iov, int iovcnt)
{
	uint64_t total = 0;
	uint8_t *p;
	void *dst;
	int i, ret;

	for (i = 0; i < iovcnt; i++)
		total += iov[i].iov_len;
	if (total > ivwl_ring_max_payload(ring))
		return -EMSGSIZE;

	ret = ivwl_ring_reserve(ring, (uint32_t)total, &dst);
	if (ret < 0)
		return ret;

	p = dst;
	for (i = 0; i < iovcnt; i++) {
		memcpy(p, iov[i].iov_base, iov[i].iov_len);
		p += iov[i].iov_len;
	}
	ivwl_ring_commit(ring, type);
	return 0;
}

/*
 * Consumer: reads the producer index once and accepts it only if it does
 * not claim more than a ring's worth of unread bytes.
 */
static int
consumer_refresh(struct ivwl_ring *ring)
{
	uint32_t prod = ivwl_shm_load_acquire(peer_index(ring));

	/* Producers publish whole records only: anything else is a lie,
	 * and one that would otherwise look readable forever. */
	if (prod - ring->pos > ring->size ||
	    (prod - ring->pos) % IVWL_RECORD_ALIGN != 0) {
		ring->broken = true;
		return -EPIPE;
	}
	ring->peer = prod;
	return 0;
}

static int
consumer_fail(struct ivwl_ring *ring)
{
	ring->broken = true;
	return -EPIPE;
}

int
ivwl_ring_read(struct ivwl_ring *ring, uint16_t *type, void *buf, uint32_t cap)
{
	struct ivwl_record_header h;
	uint32_t avail, off, payload;
	int ret;

	/* Bounded: every pass consumes at least 8 of at most size bytes. */
	for (;;) {
		if (ring->broken)
			return -EPIPE;

		avail = ring->peer - ring->pos;
		if (avail < HDR_SIZE) {
			ret = consumer_refresh(ring);
			if (ret < 0)
				return ret;
			avail = ring->peer - ring->pos;
			if (avail < HDR_SIZE)
				return -EAGAIN;
		}

		off = ring->pos & ring->mask;
		memcpy(&h, ring->data + off, sizeof(h));
		if (h.len < HDR_SIZE || h.len % IVWL_RECORD_ALIGN != 0 ||
		    h.len > avail || h.len > ring->size - off)
			return consumer_fail(ring);

		if (h.type == IVWL_RECORD_TYPE_PAD) {
			ring->pos += h.len;
			ivwl_shm_store_release(own_index(ring), ring->pos);
			continue;
		}

		/* Our copy of len decides how much we copy; the payload
		 * bytes themselves are copied exactly once. */
		payload = h.len - HDR_SIZE;
		if (payload > cap || h.len > ring->size / 2)
			return consumer_fail(ring);
		memcpy(buf, ring->data + off + HDR_SIZE, payload);
		ring->pos += h.len;
		ivwl_shm_store_release(own_index(ring), ring->pos);
		*type = h.type;
		return (int)payload;
	}
}

uint32_t
ivwl_ring_fill(const struct ivwl_ring *ring)
{
	uint32_t seen = ring->producer ?
			ivwl_shm_load(&ring->ctrl->consumer.cons) :
			ivwl_shm_load(&ring->ctrl->producer.prod);
	uint32_t fill = ring->producer ? ring->pos - seen : seen - ring->pos;

	/* The peer writes its index: a lie can only read as full. */
	return fill > ring->size ? ring->size : fill;
}

bool
ivwl_ring_readable(struct ivwl_ring *ring)
{
	return ivwl_shm_load_acquire(peer_index(ring)) != ring->pos;
}

static bool
peer_moved(struct ivwl_ring *ring)
{
	uint32_t seen = ivwl_shm_load(peer_index(ring));

	if (ring->producer)
		return seen != ring->peer;
	return seen != ring->pos;
}

bool
ivwl_ring_prepare_sleep(struct ivwl_ring *ring)
{
	if (ring->broken)
		return true;

	ring->sleep_token++;
	if (ring->sleep_token == 0)
		ring->sleep_token = 1;
	ivwl_shm_store(own_token(ring), ring->sleep_token);
	ivwl_shm_full_fence();

	if (peer_moved(ring)) {
		ivwl_shm_store(own_token(ring), 0);
		return false;
	}
	return true;
}

void
ivwl_ring_woken(struct ivwl_ring *ring)
{
	ivwl_shm_store(own_token(ring), 0);
}

void
ivwl_ring_renew_tokens(struct ivwl_ring *ring)
{
	uint32_t t = 0;

	if (getrandom(&t, sizeof(t), GRND_NONBLOCK) != sizeof(t))
		t = ring->sleep_token + 0x9e3779b9u;
	ring->sleep_token = t;
}

bool
ivwl_ring_published_is_own(struct ivwl_ring *ring)
{
	return ivwl_shm_load(own_index(ring)) == ring->pos;
}

bool
ivwl_ring_moved_since_kick(const struct ivwl_ring *ring)
{
	return ring->pos != ring->checked_pos;
}

bool
ivwl_ring_kick_needed(struct ivwl_ring *ring)
{
	uint32_t token;
	bool moved = ring->pos != ring->checked_pos;

	ivwl_shm_full_fence();
	token = ivwl_shm_load(peer_token(ring));
	ring->checked_pos = ring->pos;
	if (!moved || token == 0 || token == ring->kicked_token)
		return false;
	ring->kicked_token = token;
	return true;
}
