/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>

#include "display-side.h"
#include "shm-access.h"

static struct ivwl_slot_ctrl *
slot_ctrl(struct ivwl_display_side *ds, uint32_t slot)
{
	struct ivwl_slot_view view;

	ivwl_region_slot(ds->base, &ds->layout, slot, &view);
	return view.ctrl;
}

static struct ivwl_side_block *
app_block(struct ivwl_display_side *ds)
{
	return ivwl_region_side(ds->base, IVWL_SIDE_APP);
}

int
ivwl_display_side_init(struct ivwl_display_side *ds, struct ivwl_device *dev)
{
	memset(ds, 0, sizeof(*ds));
	ds->dev = dev;
	ds->base = ivwl_device_base(dev);
	if (ivwl_layout_compute(ivwl_device_size(dev), &ds->layout) < 0)
		return -EINVAL;
	if (ivwl_device_nr_vectors(dev) == 0)
		return -EINVAL;
	ds->slots = ds->layout.slot_count;
	return 0;
}

void
ivwl_display_side_set_ring_listener(struct ivwl_display_side *ds,
				    void (*func)(void *data, int error),
				    void *data)
{
	ds->ring_failed = func;
	ds->ring_failed_data = data;
}

void
ivwl_display_side_ring_reset(struct ivwl_display_side *ds)
{
	ds->ring_error = 0;
	/* Bits left from before it came were never rung for. */
	ds->ring_owed = true;
}

/* The first ring that finds the app side making rings impossible says so. */
static int
ring_result(struct ivwl_display_side *ds, int ret)
{
	/* -ENOENT: no app side now; it looks at every slot when it comes. */
	if (ret == -ETIMEDOUT && !ds->ring_error) {
		ds->ring_error = ret;
		if (ds->ring_failed)
			ds->ring_failed(ds->ring_failed_data, ret);
	}
	return ret;
}

static int
ring_app(struct ivwl_display_side *ds, uint64_t bits)
{
	int ret;

	/*
	 * A doorbell on its way carries the new bits; but an app that
	 * blocks our writes never takes them, so ask whether it arrived.
	 */
	if (ivwl_doorbell_post(ds->base, IVWL_SIDE_APP, bits) ||
	    ds->ring_owed) {
		ds->ring_owed = false;
		ret = ivwl_device_ring(ds->dev, IVWL_PEER_APP,
				       IVWL_DOORBELL_VECTOR);
	} else
		ret = ivwl_device_ring_health(ds->dev, IVWL_PEER_APP);
	return ring_result(ds, ret);
}

/*
 * A slot's own vector when the app side waits on one (region.h
 * wake_vectors) and we can ring it: its process wakes without the
 * agent's hop.  The app's word is only a hint: a wrong one wakes the
 * wrong process of its own, or none, until its next look.
 */
static bool
slot_has_vector(struct ivwl_display_side *ds, uint32_t slot)
{
	uint32_t wake = ivwl_shm_load(&app_block(ds)->wake_vectors);
	uint32_t vector = IVWL_WAKE_VECTOR(slot);

	return vector < wake &&
	       vector < ivwl_device_ring_vectors(ds->dev);
}

void
ivwl_display_side_claim(struct ivwl_display_side *ds)
{
	struct ivwl_side_block *own = ivwl_region_side(ds->base,
						       IVWL_SIDE_DISPLAY);
	uint32_t i, state, gen;

	/* Bits an earlier instance was rung for are answered below. */
	ivwl_doorbell_take(ds->base, IVWL_SIDE_DISPLAY);
	ds->ring_owed = true;
	for (i = 0; i < ds->layout.slot_count; i++) {
		ivwl_slot_state_load(&slot_ctrl(ds, i)->app, &state, &gen);
		ds->open[i] = false;
		ds->generation[i] = gen;
		ivwl_slot_state_store(&slot_ctrl(ds, i)->display,
				      IVWL_DISPLAY_SLOT_CLOSED, gen);
	}
	ds->app_epoch = ivwl_shm_load(&app_block(ds)->epoch);
	ivwl_shm_store(&own->peer_id, ivwl_device_peer_id(ds->dev));
	ivwl_shm_store(&own->epoch, ivwl_shm_load(&own->epoch) + 1);
	ivwl_shm_store_release(&own->state, IVWL_SIDE_READY);
	ring_app(ds, IVWL_DOORBELL_CONTROL);
}

void
ivwl_display_side_release(struct ivwl_display_side *ds)
{
	struct ivwl_side_block *own = ivwl_region_side(ds->base,
						       IVWL_SIDE_DISPLAY);

	ivwl_shm_store_release(&own->state, IVWL_SIDE_GONE);
	ring_app(ds, IVWL_DOORBELL_CONTROL);
}

int
ivwl_display_side_kick(struct ivwl_display_side *ds, uint32_t slot)
{
	if (slot_has_vector(ds, slot)) {
		ds->vector_rings++;
		return ring_result(ds, ivwl_device_ring(ds->dev, IVWL_PEER_APP,
							IVWL_WAKE_VECTOR(slot)));
	}
	return ring_app(ds, IVWL_DOORBELL_SLOT(slot));
}

int
ivwl_display_side_ring(struct ivwl_display_side *ds, uint64_t bits)
{
	return ring_app(ds, bits);
}

uint64_t
ivwl_display_side_take(struct ivwl_display_side *ds)
{
	return ivwl_doorbell_take(ds->base, IVWL_SIDE_DISPLAY);
}

uint64_t
ivwl_display_side_probe(struct ivwl_display_side *ds)
{
	struct ivwl_side_block *own = ivwl_region_side(ds->base,
						       IVWL_SIDE_DISPLAY);
	/* Our epoch in it: an echo of an earlier instance never matches. */
	uint64_t probe = (uint64_t)ivwl_shm_load(&own->epoch) << 32 |
			 ++ds->probe_seq;

	ivwl_shm_store64(&own->liveness, probe);
	ring_app(ds, IVWL_DOORBELL_CONTROL);
	return probe;
}

uint64_t
ivwl_display_side_probe_answer(struct ivwl_display_side *ds)
{
	return ivwl_shm_load64(&app_block(ds)->liveness);
}

void
ivwl_display_side_close(struct ivwl_display_side *ds, uint32_t slot)
{
	if (!ds->open[slot])
		return;
	ds->open[slot] = false;
	ivwl_slot_state_store(&slot_ctrl(ds, slot)->display,
			      IVWL_DISPLAY_SLOT_CLOSED, ds->generation[slot]);
	/* Through the agent, which takes the slot back. */
	ring_app(ds, IVWL_DOORBELL_SLOT(slot));
}

void
ivwl_display_side_rings(struct ivwl_display_side *ds, uint32_t slot,
			struct ivwl_ring *request, struct ivwl_ring *event)
{
	struct ivwl_slot_view view;

	ivwl_region_slot(ds->base, &ds->layout, slot, &view);
	ivwl_ring_init_consumer(request, &view.ctrl->request,
				view.request_data, ds->layout.ring_size);
	ivwl_ring_init_producer(event, &view.ctrl->event, view.event_data,
				ds->layout.ring_size);
}

void
ivwl_display_side_app_stats(struct ivwl_display_side *ds, uint32_t slot,
			    struct ivwl_slot_app_stats *out)
{
	const struct ivwl_slot_app_stats *in;
	struct ivwl_slot_view view;

	ivwl_region_slot(ds->base, &ds->layout, slot, &view);
	in = &view.ctrl->app_stats;
	out->buffer_commits = ivwl_shm_load64(&in->buffer_commits);
	out->damaged_bytes = ivwl_shm_load64(&in->damaged_bytes);
	out->copied_bytes = ivwl_shm_load64(&in->copied_bytes);
	out->zero_copy_commits = ivwl_shm_load64(&in->zero_copy_commits);
	out->zero_copy_pools = ivwl_shm_load64(&in->zero_copy_pools);
	out->copy_pools = ivwl_shm_load64(&in->copy_pools);
	out->flags = ivwl_shm_load64(&in->flags);
	out->client_key = ivwl_shm_load64(&in->client_key);
}

uint64_t
ivwl_display_side_app_client_key(struct ivwl_display_side *ds,
				 uint32_t slot)
{
	struct ivwl_slot_view view;

	ivwl_region_slot(ds->base, &ds->layout, slot, &view);
	return ivwl_shm_load64(&view.ctrl->app_stats.client_key);
}

bool
ivwl_display_side_app_replaying(struct ivwl_display_side *ds, uint32_t slot)
{
	struct ivwl_slot_view view;

	ivwl_region_slot(ds->base, &ds->layout, slot, &view);
	return ivwl_shm_load64(&view.ctrl->app_stats.flags) &
	       IVWL_SLOT_APP_REPLAYING;
}

static void
reset_own_lines(struct ivwl_display_side *ds, uint32_t slot)
{
	struct ivwl_ring request, event;

	ivwl_display_side_rings(ds, slot, &request, &event);
	ivwl_ring_reset(&request);
	ivwl_ring_reset(&event);
}

void
ivwl_display_side_sync(struct ivwl_display_side *ds,
		       const struct ivwl_display_side_listener *listener,
		       void *data)
{
	uint32_t i, state, gen, epoch;
	bool restarted;

	/* A new app epoch ends every connection of the old one. */
	epoch = ivwl_shm_load(&app_block(ds)->epoch);
	restarted = epoch != ds->app_epoch;
	ds->app_epoch = epoch;

	for (i = 0; i < ds->slots; i++) {
		ivwl_slot_state_load(&slot_ctrl(ds, i)->app, &state, &gen);
		if (ds->open[i] && (restarted || state != IVWL_APP_SLOT_OPEN ||
				    gen != ds->generation[i])) {
			ivwl_display_side_close(ds, i);
			listener->closed(data, i);
		}
		if (ds->open[i] || state != IVWL_APP_SLOT_OPEN ||
		    gen == ds->generation[i])
			continue;
		/* It could never be woken: leave its open unanswered. */
		if (ds->ring_error)
			continue;

		ds->generation[i] = gen;
		reset_own_lines(ds, i);
		if (!listener->opened(data, i, gen)) {
			ivwl_slot_state_store(&slot_ctrl(ds, i)->display,
					      IVWL_DISPLAY_SLOT_CLOSED, gen);
			ring_app(ds, IVWL_DOORBELL_SLOT(i));
			continue;
		}
		ds->open[i] = true;
		/* Answers go through the agent, which sees every one. */
		ivwl_slot_state_store(&slot_ctrl(ds, i)->display,
				      IVWL_DISPLAY_SLOT_OPEN, gen);
		ring_app(ds, IVWL_DOORBELL_SLOT(i));
	}
}
