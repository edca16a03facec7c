/* SPDX-License-Identifier: MIT */
/*
 * Window maps, paced (map-pace.h, docs/security.md "Window maps").  Each
 * VM's count lives in an addon on it: the maps it may still make (a
 * bucket of IVWL_MAP_BURST, refilled IVWL_MAP_RATE a second, as it
 * asks) and, on weston 16, those of the repaint it was counted in,
 * reset lazily by a later repaint's first map.  A repaint costs nothing
 * here unless some map waits.
 */
#include <stdint.h>
#include <stdlib.h>

#include <wayland-server-core.h>

#include "addon.h"
#include "ivwl-limits.h"
#include "ivwl-plugin.h"
#include "log.h"
#include "map-pace.h"
#include "mono-time.h"
#include "output-clock.h"
#include "weston-compat.h"
#include "vm.h"

struct ivwl_map_pace {
	struct ivwl_plugin *plugin;
	struct wl_listener frame;	/* of the output clock */
	struct wl_signal go;		/* maps refused may ask again */
	struct wl_event_source *idle;	/* no repaint came: go anyway */
	uint64_t repaint;		/* repaints seen, and idle times */
	bool refused;			/* a map since the last go */
};

/* A VM's maps this repaint: map-pace's addon on it. */
struct vm_maps {
	struct ivwl_addon addon;
	uint64_t repaint;		/* the repaint counted in */
	uint32_t maps;
	uint64_t tokens;		/* maps it may make now, in 1/1000s */
	uint64_t filled_ms;		/* when tokens was last filled */
	uint64_t refused;		/* maps that waited, in all */
	uint64_t logged_ms;		/* when that was last said */
};

/* How often a VM's waiting maps are logged, at most. */
#define PACE_LOG_MS 5000

static void
vm_maps_destroy(struct ivwl_addon *addon)
{
	struct vm_maps *vms = wl_container_of(addon, vms, addon);

	free(vms);
}

static const struct ivwl_addon_interface maps_addon = {
	.name = "ivwl-map-pace",
	.destroy = vm_maps_destroy,
};

/* vm's count, made on first use; NULL when out of memory. */
static struct vm_maps *
maps_of(struct ivwl_map_pace *pace, struct ivwl_vm *vm)
{
	struct ivwl_addon *addon;
	struct vm_maps *vms;

	addon = ivwl_addon_find(&vm->addons, pace, &maps_addon);
	if (addon)
		return wl_container_of(addon, vms, addon);
	vms = calloc(1, sizeof(*vms));
	if (!vms)
		return NULL;
	vms->repaint = pace->repaint;
	vms->tokens = (uint64_t)IVWL_MAP_BURST * 1000u;
	vms->filled_ms = (uint64_t)ivwl_now_ms();
	ivwl_addon_init(&vms->addon, &vm->addons, pace, &maps_addon);
	return vms;
}

/* Every listener once, each off the signal before it hears. */
static void
go(struct ivwl_map_pace *pace)
{
	struct wl_list waiting;
	struct wl_listener *l;

	pace->repaint++;
	if (!pace->refused)
		return;
	pace->refused = false;
	wl_event_source_timer_update(pace->idle, 0);
	wl_list_init(&waiting);
	wl_list_insert_list(&waiting, &pace->go.listener_list);
	wl_list_init(&pace->go.listener_list);
	while (!wl_list_empty(&waiting)) {
		l = wl_container_of(waiting.next, l, link);
		wl_list_remove(&l->link);
		wl_list_init(&l->link);
		l->notify(l, NULL);
	}
}

static void
on_frame(struct wl_listener *listener, void *data)
{
	struct ivwl_map_pace *pace = wl_container_of(listener, pace, frame);

	go(pace);
}

static int
on_idle(void *data)
{
	go(data);
	return 0;
}

static void
say_refused(struct vm_maps *vms, struct ivwl_vm *vm, bool per_repaint)
{
	uint64_t now = (uint64_t)ivwl_now_ms();

	vms->refused++;
	if (vms->logged_ms && now - vms->logged_ms < PACE_LOG_MS)
		return;
	vms->logged_ms = now;
	if (per_repaint)
		ivwl_log("vm %s: its windows map at most %u a repaint: the "
			 "rest wait (%llu maps waited in all)", vm->name,
			 IVWL_MAP_PACE_PER_REPAINT,
			 (unsigned long long)vms->refused);
	else
		ivwl_log("vm %s: its windows map at most %u a second past %u "
			 "at once: the rest wait (%llu maps waited in all)",
			 vm->name, IVWL_MAP_RATE, IVWL_MAP_BURST,
			 (unsigned long long)vms->refused);
}

/* The VM's maps of this moment: IVWL_MAP_RATE a second, refilled as
 * time goes, up to IVWL_MAP_BURST. */
static void
fill(struct vm_maps *vms, uint64_t now)
{
	uint64_t full = (uint64_t)IVWL_MAP_BURST * 1000u;

	vms->tokens += (now - vms->filled_ms) * IVWL_MAP_RATE;
	if (vms->tokens > full)
		vms->tokens = full;
	vms->filled_ms = now;
}

/* Refuses a map: the go signal comes after wait_ms, or a repaint. */
static bool
refuse(struct ivwl_map_pace *pace, struct vm_maps *vms, struct ivwl_vm *vm,
       bool per_repaint, int wait_ms)
{
	say_refused(vms, vm, per_repaint);
	if (!pace->refused)
		wl_event_source_timer_update(pace->idle, wait_ms);
	pace->refused = true;
	return false;
}

bool
ivwl_map_pace_take(struct ivwl_map_pace *pace, struct ivwl_vm *vm)
{
	struct vm_maps *vms = maps_of(pace, vm);
	uint64_t now = (uint64_t)ivwl_now_ms();

	if (!vms)
		return true;	/* no memory for a count: not the VM's fault */
	if (vms->repaint != pace->repaint) {
		vms->repaint = pace->repaint;
		vms->maps = 0;
	}
	if (IVWL_WESTON_PACES_MAPS &&
	    vms->maps >= IVWL_MAP_PACE_PER_REPAINT)
		return refuse(pace, vms, vm, true, IVWL_MAP_PACE_IDLE_MS);
	fill(vms, now);
	if (vms->tokens < 1000u)
		return refuse(pace, vms, vm, false,
			      (int)((1000u - vms->tokens) / IVWL_MAP_RATE) +
			      1);
	vms->tokens -= 1000u;
	vms->maps++;
	return true;
}

void
ivwl_map_pace_add_go_listener(struct ivwl_map_pace *pace,
			      struct wl_listener *listener)
{
	wl_signal_add(&pace->go, listener);
}

struct ivwl_map_pace *
ivwl_map_pace_create(struct ivwl_plugin *plugin)
{
	struct ivwl_map_pace *pace = calloc(1, sizeof(*pace));
	struct wl_event_loop *loop;

	if (!pace)
		return NULL;
	loop = wl_display_get_event_loop(plugin->display);
	pace->idle = wl_event_loop_add_timer(loop, on_idle, pace);
	if (!pace->idle)
		goto err_free;
	pace->plugin = plugin;
	wl_signal_init(&pace->go);
	pace->frame.notify = on_frame;
	ivwl_output_clock_add_frame_listener(plugin->output_clock,
					     &pace->frame);
	return pace;

err_free:
	free(pace);
	return NULL;
}

void
ivwl_map_pace_destroy(struct ivwl_map_pace *pace)
{
	struct ivwl_addon *addon;
	struct ivwl_vm *vm;

	wl_list_for_each(vm, &pace->plugin->vms, link) {
		addon = ivwl_addon_find(&vm->addons, pace, &maps_addon);
		if (!addon)
			continue;
		ivwl_addon_finish(addon);
		vm_maps_destroy(addon);
	}
	wl_list_remove(&pace->frame.link);
	wl_event_source_remove(pace->idle);
	free(pace);
}
