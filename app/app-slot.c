/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "app-slot.h"
#include "mono-time.h"
#include "shm-access.h"

/* The rings of slot->info.slot in the mapped region, and its display. */
static void
take_slot(struct ivwl_app_slot *slot)
{
	struct ivwl_side_block *display;

	ivwl_region_slot(slot->base, &slot->layout, slot->info.slot,
			 &slot->view);
	ivwl_ring_init_producer(&slot->request, &slot->view.ctrl->request,
				slot->view.request_data,
				slot->layout.ring_size);
	ivwl_ring_init_consumer(&slot->event, &slot->view.ctrl->event,
				slot->view.event_data, slot->layout.ring_size);
	display = ivwl_region_side(slot->base, IVWL_SIDE_DISPLAY);
	slot->display_epoch = ivwl_shm_load(&display->epoch);
}

int
ivwl_app_slot_attach(struct ivwl_app_slot *slot,
		     const struct ivwl_agent_slot *info)
{
	int ret;

	memset(slot, 0, sizeof(*slot));
	slot->info = *info;
	ret = ivwl_layout_compute(info->ep.region_size, &slot->layout);
	if (ret < 0 || info->slot >= slot->layout.slot_count)
		goto err_close;

	slot->base = mmap(NULL, info->ep.region_size, PROT_READ | PROT_WRITE,
			  MAP_SHARED, info->ep.region_fd, 0);
	if (slot->base == MAP_FAILED) {
		ret = -errno;
		slot->base = NULL;
		goto err_close;
	}
	/* The agent zeroed our indices before publishing the slot. */
	take_slot(slot);
	return 0;

err_close:
	ivwl_endpoint_close(&slot->info.ep);
	return ret < 0 ? ret : -EINVAL;
}

int
ivwl_app_slot_move(struct ivwl_app_slot *slot,
		   const struct ivwl_agent_slot *info)
{
	if (info->ep.region_size != slot->info.ep.region_size ||
	    info->slot >= slot->layout.slot_count) {
		ivwl_endpoint_close((struct ivwl_endpoint *)&info->ep);
		return -EINVAL;
	}
	ivwl_endpoint_close(&slot->info.ep);
	slot->info = *info;
	take_slot(slot);
	return 0;
}

bool
ivwl_app_slot_display_restarted(struct ivwl_app_slot *slot, bool *ready)
{
	struct ivwl_side_block *display =
		ivwl_region_side(slot->base, IVWL_SIDE_DISPLAY);

	*ready = ivwl_shm_load(&display->state) == IVWL_SIDE_READY;
	return !*ready ||
	       ivwl_shm_load(&display->epoch) != slot->display_epoch;
}

void
ivwl_app_slot_detach(struct ivwl_app_slot *slot)
{
	if (slot->base)
		munmap(slot->base, slot->info.ep.region_size);
	slot->base = NULL;
	ivwl_endpoint_close(&slot->info.ep);
}

static void
display_state(struct ivwl_app_slot *slot, uint32_t *state, uint32_t *gen)
{
	ivwl_slot_state_load(&slot->view.ctrl->display, state, gen);
}

bool
ivwl_app_slot_alive(struct ivwl_app_slot *slot)
{
	struct ivwl_side_block *display =
		ivwl_region_side(slot->base, IVWL_SIDE_DISPLAY);
	uint32_t state, gen;

	if (ivwl_shm_load(&display->state) != IVWL_SIDE_READY ||
	    ivwl_shm_load(&display->epoch) != slot->display_epoch)
		return false;
	display_state(slot, &state, &gen);
	return !(state == IVWL_DISPLAY_SLOT_CLOSED &&
		 gen == slot->info.generation);
}

static int
poll_wait_fd(struct ivwl_app_slot *slot, int timeout_ms)
{
	struct pollfd pfd = { .fd = slot->info.ep.wait_fd, .events = POLLIN };
	int ret;

	do {
		ret = poll(&pfd, 1, timeout_ms);
	} while (ret < 0 && errno == EINTR);
	if (ret < 0)
		return -errno;
	if (ret == 0)
		return -ETIMEDOUT;
	ivwl_endpoint_drain(&slot->info.ep);
	return 0;
}

int
ivwl_app_slot_wait_open(struct ivwl_app_slot *slot, int timeout_ms)
{
	int64_t deadline = ivwl_now_ms() + timeout_ms;
	uint32_t state, gen;
	bool ready;
	int ret;

	for (;;) {
		/* The agent wakes us when the display leaves or restarts. */
		if (ivwl_app_slot_display_restarted(slot, &ready))
			return -ENOTCONN;
		display_state(slot, &state, &gen);
		if (gen == slot->info.generation) {
			if (state == IVWL_DISPLAY_SLOT_OPEN)
				break;
			if (state == IVWL_DISPLAY_SLOT_CLOSED)
				return -ECONNREFUSED;
		}
		/* The display rings our slot vector once it answered. */
		ret = poll_wait_fd(slot, ivwl_ms_left(deadline));
		if (ret < 0)
			return ret;
	}
	/* Only now are the display's indices those of this generation. */
	ivwl_ring_reset(&slot->request);
	ivwl_ring_reset(&slot->event);
	return 0;
}

int
ivwl_app_slot_wait(struct ivwl_app_slot *slot, bool want_events,
		   bool want_space, int timeout_ms)
{
	int ret;

	if (want_events && !ivwl_ring_prepare_sleep(&slot->event))
		return 0;
	if (want_space && !ivwl_ring_prepare_sleep(&slot->request)) {
		if (want_events)
			ivwl_ring_woken(&slot->event);
		return 0;
	}
	ret = poll_wait_fd(slot, timeout_ms);
	if (want_events)
		ivwl_ring_woken(&slot->event);
	if (want_space)
		ivwl_ring_woken(&slot->request);
	return ret;
}

void
ivwl_app_slot_publish(struct ivwl_app_slot *slot,
		      const struct ivwl_slot_app_stats *stats)
{
	struct ivwl_slot_app_stats *out = &slot->view.ctrl->app_stats;

	ivwl_shm_store64(&out->buffer_commits, stats->buffer_commits);
	ivwl_shm_store64(&out->damaged_bytes, stats->damaged_bytes);
	ivwl_shm_store64(&out->copied_bytes, stats->copied_bytes);
	ivwl_shm_store64(&out->zero_copy_commits, stats->zero_copy_commits);
	ivwl_shm_store64(&out->zero_copy_pools, stats->zero_copy_pools);
	ivwl_shm_store64(&out->copy_pools, stats->copy_pools);
	ivwl_shm_store64(&out->client_key, stats->client_key);
}

void
ivwl_app_slot_set_replaying(struct ivwl_app_slot *slot, bool replaying)
{
	ivwl_shm_store64(&slot->view.ctrl->app_stats.flags,
			 replaying ? IVWL_SLOT_APP_REPLAYING : 0);
}

bool
ivwl_app_slot_kick(struct ivwl_app_slot *slot)
{
	bool owed = ivwl_ring_kick_needed(&slot->request);

	/* Evaluate both: each remembers the token it rang for. */
	owed = ivwl_ring_kick_needed(&slot->event) || owed;
	if (owed && ivwl_doorbell_post(slot->base, IVWL_SIDE_DISPLAY,
				       IVWL_DOORBELL_SLOT(slot->info.slot)))
		ivwl_endpoint_ring(&slot->info.ep);
	return owed;
}
