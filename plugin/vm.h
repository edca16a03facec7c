/* SPDX-License-Identifier: MIT */
#ifndef IVWL_VM_H
#define IVWL_VM_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>

#include "clipboard-policy.h"
#include "clock-link.h"
#include "config.h"
#include "display-side.h"
#include "firewall/firewall.h"
#include "ivwl-limits.h"
#include "live-counts.h"
#include "addon.h"
#include "pipe-thread.h"
#include "ivwl-plugin.h"

struct ivwl_connection;
struct ivwl_policy;

/*
 * What serves a VM's open slots, one connection each (connection.c's
 * ivwl_connection_slots): the VM opens, rings and ends them through it.
 */
struct ivwl_vm_slot_ops {
	/* slot opened: its connection, or NULL (the slot is refused) */
	struct ivwl_connection *(*open)(struct ivwl_vm *vm, uint32_t slot,
					uint32_t generation);
	/* ends it (it tells ivwl_vm_connection_gone) */
	void (*close)(struct ivwl_connection *conn, const char *why);
	/* the app rang its slot */
	void (*doorbell)(struct ivwl_connection *conn);
	/* it left work for later (ivwl_vm_more_work): do it now */
	void (*more)(struct ivwl_connection *conn);
	/* the VM holds the region's fd now (vm.c, "the region's fd") */
	void (*region_ready)(struct ivwl_connection *conn);
};

struct ivwl_vm {
	struct ivwl_plugin *plugin;
	const struct ivwl_vm_slot_ops *slots;
	struct wl_list link;		/* ivwl_plugin.vms */
	char *name;
	char *server;
	char *device;
	uint32_t color;			/* 0xAARRGGBB of the window border */
	struct ivwl_policy *policy;
	struct ivwl_clip_policy clip;	/* clipboard=, drag-and-drop=... */
	enum ivwl_fullscreen_policy fullscreen;	/* fullscreen= */

	struct ivwl_device *dev;	/* NULL while detached */
	bool attaching;			/* an attempt runs in a thread */
	char *attach_err;		/* last failure logged */
	bool refused;			/* config.c said no: never retried */
	/*
	 * Connections holding a record until the device's region fd comes
	 * (ivwl_device_region_fd: -1 while weston borrows it from
	 * ivwl-server and holds none).
	 */
	uint32_t region_waiters;
	struct ivwl_display_side side;
	struct ivwl_watch *device_watch;
	struct ivwl_clock_answerer clock;	/* docs/region.md, "Clock link" */
	struct wl_event_source *retry_timer;
	/*
	 * Without membership news (device=): one liveness probe per
	 * app-timeout while we serve connections (on_liveness).
	 */
	struct wl_event_source *liveness_timer;
	uint32_t app_timeout_ms;	/* 0: never give up on it */
	uint64_t probe;			/* the last one sent, 0: none out */
	/* The app side blocks its doorbells: end its connections from here. */
	struct wl_event_source *ring_failed_idle;
	struct ivwl_watch *doorbell_watch;	/* our vector 0 */
	bool more_pending;		/* see ivwl_plugin.more_fd */
	struct ivwl_connection *conns[IVWL_SLOT_COUNT];
	uint32_t pool_mappings;		/* of all its connections */
	struct ivwl_firewall_totals totals;	/* of all its connections */
	struct ivwl_pipe_budget *pipe_budget;	/* its pipe threads' memory */
	struct ivwl_vm_live live;	/* for the live view */
	/*
	 * Slowed down (ivwl_vm_slow_down): its requests wait until then,
	 * on ivwl_now_ms's clock.  Kept across its connections.
	 */
	uint64_t slow_until_ms;
	uint64_t slow_logged_ms;
	uint64_t slowed_ms;		/* in all */
	struct wl_event_source *slow_timer;
	uint32_t stalls;		/* pipes left unread, recently */
	uint64_t last_stall_ms;
	struct ivwl_addon_set addons;	/* the subsystems' state on it */
	/*
	 * The region goes (detached, or weston ends): what still holds
	 * objects of the VM's clients ends them now (a connection whose
	 * windows end a few a frame, connection.c).
	 */
	struct wl_signal detaching;
};

/*
 * What the VM costs others comes back to it as time it waits: none of
 * its connections' requests are read for ms (or longer, if it waits
 * already).  Logged with why, at most every few seconds a VM.
 */
void
ivwl_vm_slow_down(struct ivwl_vm *vm, uint32_t ms, const char *why);

/* Whether its requests wait now. */
bool
ivwl_vm_slowed(struct ivwl_vm *vm);

/*
 * One of its connections left a pipe weston wrote into unread until the
 * pipe thread gave up: the VM waits, longer each time it does it again.
 */
void
ivwl_vm_pipe_stalled(struct ivwl_vm *vm);

/* A connection left work for later: come back to the VM soon. */
void
ivwl_vm_more_work(struct ivwl_vm *vm);

/* A connection tells its VM it is gone (slot answered CLOSED). */
void
ivwl_vm_connection_gone(struct ivwl_vm *vm, uint32_t slot);

/* The device is attached: its region fd, borrowed or not. */
void
ivwl_vm_region_attached(struct ivwl_vm *vm);

/*
 * A connection holds a record that needs the region fd, which weston
 * does not hold now: ask for it (once for all the waiters); the waiters
 * are served again once it came (the slot ops' region_ready).
 */
void
ivwl_vm_region_wait(struct ivwl_vm *vm);

/* A waiter handled its record, or went; the last one lets the fd go. */
void
ivwl_vm_region_done(struct ivwl_vm *vm);

/* One more pool mapping for the VM, of all its connections: 0, or
 * -EDQUOT past IVWL_VM_MAX_POOLS. */
static inline int
ivwl_vm_take_pool_mapping(struct ivwl_vm *vm)
{
	if (vm->pool_mappings >= IVWL_VM_MAX_POOLS)
		return -EDQUOT;
	vm->pool_mappings++;
	return 0;
}

static inline void
ivwl_vm_drop_pool_mapping(struct ivwl_vm *vm)
{
	vm->pool_mappings--;
}

#endif
