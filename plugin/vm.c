/* SPDX-License-Identifier: MIT */
/*
 * One app-vm: its region, its doorbells and its open slots.  Attaches to
 * the region when it can and keeps retrying when it cannot, so weston
 * starts whatever order the services come up in.  The region comes from
 * ivwl-server (server=, weston on the host) or from the guest driver
 * (device=/dev/ivwlN, weston in a gui-vm).  The driver says nothing when
 * the app-vm goes away: its connections then end when its agent says GONE
 * or starts again with a new epoch (display-side.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libweston/libweston.h>
#include <libweston/config-parser.h>

#include "attach.h"
#include "config.h"
#include "device.h"
#include "display-side.h"
#include "frame-trace.h"
#include "ivwl-limits.h"
#include "ivwl-plugin.h"
#include "mono-time.h"
#include "shm-access.h"
#include "ringer.h"
#include "vm.h"
#include "watch.h"

#define RETRY_MS 1000
#define ATTACH_TIMEOUT_MS 2000
/* What an attach may hold at its peak: socket, region, vectors, and a
 * peer's vectors announced before ours were trimmed. */
#define ATTACH_FDS 8
#define DEFAULT_APP_TIMEOUT_S 10

static void
vm_detach(struct ivwl_vm *vm, bool shutdown);

bool
ivwl_vm_allows(const struct ivwl_vm *vm, const char *interface)
{
	return ivwl_policy_allows(vm->policy, interface);
}

static void
vm_probe(struct ivwl_vm *vm)
{
	vm->probe = ivwl_display_side_probe(&vm->side);
	vm->live.probes++;
	wl_event_source_timer_update(vm->liveness_timer, vm->app_timeout_ms);
}

static void
on_closed(void *data, uint32_t slot)
{
	struct ivwl_vm *vm = data;

	if (vm->conns[slot])
		vm->slots->close(vm->conns[slot], "closed by the app");
}

static bool
on_opened(void *data, uint32_t slot, uint32_t generation)
{
	struct ivwl_vm *vm = data;

	vm->conns[slot] = vm->slots->open(vm, slot, generation);
	/* The first connection starts the probes (device= only). */
	if (vm->conns[slot] && vm->liveness_timer && !vm->probe)
		vm_probe(vm);
	return vm->conns[slot] != NULL;
}

static const struct ivwl_display_side_listener side_listener = {
	.closed = on_closed,
	.opened = on_opened,
};

void
ivwl_vm_connection_gone(struct ivwl_vm *vm, uint32_t slot)
{
	vm->conns[slot] = NULL;
	if (vm->dev)
		ivwl_display_side_close(&vm->side, slot);
}

static int
on_doorbell(int fd, uint32_t mask, void *data)
{
	struct ivwl_vm *vm = data;
	uint64_t bits;
	uint32_t i;

	vm->live.wakeups++;
	/*
	 * Edge-triggered, so the counter is never read: each ring is a
	 * new edge, and one that comes while we take the word below wakes
	 * us again.  A peer that holds this eventfd itself (QEMU's server
	 * hands it out) could fill the counter so that later rings fail;
	 * that silences only its own VM, as not ringing would.
	 */
	ivwl_trace(IVWL_TRACE_WAKE, 1);
	bits = ivwl_display_side_take(&vm->side);
	if (bits & IVWL_DOORBELL_CONTROL)
		ivwl_display_side_sync(&vm->side, &side_listener, vm);
	if ((bits & IVWL_DOORBELL_CLOCK) &&
	    ivwl_clock_answer(&vm->clock, vm->side.base)) {
		ivwl_display_side_ring(&vm->side, IVWL_DOORBELL_CLOCK);
		/* Not at the end of the loop pass: the wait would widen
		 * the round trip, and with it the estimate's bound. */
		ivwl_ringer_flush();
		ivwl_device_flush_rings();
	}
	/* At most one pass over the slots, whatever the app wrote. */
	for (i = 0; i < vm->side.slots; i++)
		if ((bits & IVWL_DOORBELL_SLOT(i)) && vm->conns[i])
			vm->slots->doorbell(vm->conns[i]);
	return 0;
}

void
ivwl_vm_more_work(struct ivwl_vm *vm)
{
	uint64_t one = 1;

	vm->more_pending = true;
	if (write(vm->plugin->more_fd, &one, sizeof(one)) < 0) {
		/* the counter is already set: a wake-up is pending anyway */
	}
}

void
ivwl_vm_serve_more(struct ivwl_vm *vm)
{
	uint32_t i;

	if (!vm->more_pending)
		return;
	vm->more_pending = false;
	for (i = 0; i < IVWL_SLOT_COUNT; i++)
		if (vm->conns[i])
			vm->slots->more(vm->conns[i]);
}

/* How often a VM's slow-downs are logged, at most. */
#define SLOW_LOG_MS 5000

static int
on_slow_end(void *data)
{
	struct ivwl_vm *vm = data;

	ivwl_vm_more_work(vm);
	return 0;
}

void
ivwl_vm_slow_down(struct ivwl_vm *vm, uint32_t ms, const char *why)
{
	uint64_t now = (uint64_t)ivwl_now_ms(), until = now + ms;
	struct wl_event_loop *loop;

	if (until <= vm->slow_until_ms)
		return;
	if (!vm->slow_timer) {
		loop = wl_display_get_event_loop(vm->plugin->display);
		vm->slow_timer = wl_event_loop_add_timer(loop, on_slow_end,
							 vm);
		if (!vm->slow_timer) {
			ivwl_log("vm %s: no timer to slow it down with", vm->name);
			return;
		}
	}
	vm->slowed_ms += until - (vm->slow_until_ms > now ?
				  vm->slow_until_ms : now);
	vm->slow_until_ms = until;
	wl_event_source_timer_update(vm->slow_timer, (int)ms);
	if (now - vm->slow_logged_ms < SLOW_LOG_MS && vm->slow_logged_ms)
		return;
	vm->slow_logged_ms = now;
	ivwl_log("vm %s: its requests wait %u ms: %s (%llu ms in all)",
		 vm->name, ms, why, (unsigned long long)vm->slowed_ms);
}

bool
ivwl_vm_slowed(struct ivwl_vm *vm)
{
	return vm->slow_until_ms > (uint64_t)ivwl_now_ms();
}

void
ivwl_vm_pipe_stalled(struct ivwl_vm *vm)
{
	uint64_t now = (uint64_t)ivwl_now_ms(), ms;
	uint32_t shift;

	if (now - vm->last_stall_ms > IVWL_STALL_FORGET_MS)
		vm->stalls = 0;
	vm->last_stall_ms = now;
	shift = vm->stalls < 16 ? vm->stalls : 16;
	vm->stalls++;
	ms = (uint64_t)IVWL_STALL_SLOW_MS << shift;
	if (ms > IVWL_STALL_SLOW_MAX_MS)
		ms = IVWL_STALL_SLOW_MAX_MS;
	ivwl_vm_slow_down(vm, (uint32_t)ms, "it left a pipe weston wrote "
			  "into unread");
}

static const char *
vm_where(const struct ivwl_vm *vm)
{
	return vm->device ? vm->device : vm->server;
}

/* The weston.ini key that names vm_where(). */
static const char *
vm_key(const struct ivwl_vm *vm)
{
	return vm->device ? "device" : "server";
}

static int
on_device(int fd, uint32_t mask, void *data)
{
	struct ivwl_vm *vm = data;
	int ret = ivwl_device_dispatch(vm->dev);
	const char *why = ivwl_device_error(vm->dev);

	if (ret < 0) {
		/* A peer's doorbell we could not take leaves it mute. */
		if (ret == -EMFILE)
			why = "cannot take an fd the server sent (Too many "
			      "open files)";
		ivwl_log("[%s] %s=%s: %s; detached, retrying every %d ms",
			 vm->name, vm_key(vm), vm_where(vm),
			 why ? why : "lost the ivshmem server", RETRY_MS);
		vm_detach(vm, false);
		wl_event_source_timer_update(vm->retry_timer, RETRY_MS);
	}
	return 0;
}

/* Rings to the app wait for room in the server's socket. */
static void
on_device_write(void *data, bool want)
{
	struct ivwl_vm *vm = data;
	uint32_t mask = WL_EVENT_READABLE | (want ? WL_EVENT_WRITABLE : 0);

	if (vm->device_watch && ivwl_watch_update(vm->device_watch, mask) < 0)
		ivwl_log("[%s] cannot watch the server socket for room: %s; "
			 "doorbells to the app wait for its next message",
			 vm->name, strerror(errno));
}

static void
end_connections(struct ivwl_vm *vm, const char *why)
{
	uint32_t i;

	for (i = 0; i < IVWL_SLOT_COUNT; i++)
		if (vm->conns[i])
			vm->slots->close(vm->conns[i], why);
}

static void
on_ring_failed_idle(void *data)
{
	struct ivwl_vm *vm = data;

	vm->ring_failed_idle = NULL;
	end_connections(vm, "the app side blocks its doorbells");
}

/*
 * Ringing the app failed for good (device.h): it keeps a write to its
 * eventfd blocked, so none of its connections can be woken again.  This
 * may be called from inside a connection's teardown or service: end them
 * from the event loop instead, and serve no new ones (display-side.c)
 * until another app side joins.
 */
static void
on_ring_failed(void *data, int error)
{
	struct ivwl_vm *vm = data;
	struct wl_event_loop *loop =
		wl_display_get_event_loop(vm->plugin->display);

	ivwl_log("[%s] app side makes ringing impossible: %s; ending its "
		 "connections until it leaves", vm->name,
		 error == -ETIMEDOUT ? "a doorbell write stayed blocked" :
		 strerror(-error));
	if (!vm->ring_failed_idle)
		vm->ring_failed_idle = wl_event_loop_add_idle(loop,
					on_ring_failed_idle, vm);
}

static void
on_peer(void *data, uint32_t peer, bool present)
{
	struct ivwl_vm *vm = data;

	if (peer != IVWL_PEER_APP)
		return;
	ivwl_log("[%s] app side %s", vm->name, present ? "attached" :
							  "left");
	if (present) {
		/* A new app side: whatever the last one did is past. */
		if (vm->ring_failed_idle)
			wl_event_source_remove(vm->ring_failed_idle);
		vm->ring_failed_idle = NULL;
		ivwl_display_side_ring_reset(&vm->side);
		ivwl_display_side_sync(&vm->side, &side_listener, vm);
		return;
	}
	/* Its slot words will never change again: end what we serve. */
	end_connections(vm, "the app side left");
}

static bool
serving(const struct ivwl_vm *vm)
{
	uint32_t i;

	for (i = 0; i < IVWL_SLOT_COUNT; i++)
		if (vm->conns[i])
			return true;
	return false;
}

/*
 * The guest driver says nothing when the app-vm dies, and a dead app
 * side never writes GONE: its windows would stay on screen with their
 * last frame.  While we serve connections, each app-timeout we check
 * that the agent echoed the last probe, and send the next: one doorbell
 * per period, none while the VM shows nothing.  Ending connections is
 * all a missed echo costs: an app that was only slow (a paused VM) opens
 * new ones.  The app writes the echo, so it can only fool us about
 * itself.
 */
static int
on_liveness(void *data)
{
	struct ivwl_vm *vm = data;

	if (!serving(vm)) {
		vm->probe = 0;
		return 0;
	}
	if (vm->probe &&
	    ivwl_display_side_probe_answer(&vm->side) != vm->probe) {
		ivwl_log("[%s] app side did not answer for %u s; ending its "
			 "connections", vm->name, vm->app_timeout_ms / 1000);
		vm->probe = 0;
		end_connections(vm, "the app side stopped");
		return 0;
	}
	vm_probe(vm);
	return 0;
}

static int
attach_failed(struct ivwl_vm *vm, int ret, const char *err)
{
	char why[256];

	/*
	 * What the system said, unless the reason says it all already:
	 * "cannot create a socket" alone does not tell EMFILE from EACCES.
	 */
	err = ivwl_config_explain_attach(vm->server != NULL, ret, err);
	if (!err)
		snprintf(why, sizeof(why), "%s", strerror(-ret));
	else if (ret == -EPROTO || ret == -ETIMEDOUT || ret == -EINVAL ||
		 ret == -ECONNRESET || ret == -E2BIG || ret == -ENAMETOOLONG)
		snprintf(why, sizeof(why), "%s", err);
	else
		snprintf(why, sizeof(why), "%s (%s)", err, strerror(-ret));
	/* Once per kind of failure: the retry timer runs forever. */
	if (!vm->attach_err || strcmp(why, vm->attach_err) != 0)
		ivwl_log("[%s] %s=%s: %s; retrying every %d ms", vm->name,
			 vm_key(vm), vm_where(vm), why, RETRY_MS);
	free(vm->attach_err);
	vm->attach_err = strdup(why);
	return ret;
}

/* Takes dev, attached or not. */
static int
attach_device(struct ivwl_vm *vm, struct ivwl_device *dev)
{
	struct wl_event_loop *loop =
		wl_display_get_event_loop(vm->plugin->display);
	char why[256];
	int ret;

	vm->dev = dev;
	if (!ivwl_config_display_role(vm->name, vm->server, vm->device,
				      ivwl_device_peer_id(dev))) {
		ivwl_device_destroy(dev);
		vm->dev = NULL;
		vm->refused = true;
		return -EPERM;
	}
	/* Vector 0 is all we wait on and ring: let go of the rest. */
	ivwl_device_use_vectors(vm->dev, 1);
	ret = ivwl_display_side_init(&vm->side, vm->dev);
	if (ret < 0) {
		ivwl_config_region_problem(why, sizeof(why),
					   ivwl_device_size(vm->dev),
					   ivwl_device_nr_vectors(vm->dev));
		ivwl_device_destroy(vm->dev);
		vm->dev = NULL;
		return attach_failed(vm, ret, why);
	}
	ivwl_display_side_set_ring_listener(&vm->side, on_ring_failed, vm);
	ivwl_vm_region_attached(vm);

	/* The guest driver has no membership news: no event fd. */
	if (ivwl_device_event_fd(vm->dev) >= 0) {
		vm->device_watch = ivwl_watch_add(vm->plugin->watcher,
					ivwl_device_event_fd(vm->dev),
					WL_EVENT_READABLE, on_device, vm);
		if (!vm->device_watch)
			goto err_sources;
		ivwl_device_set_write_listener(vm->dev, on_device_write, vm);
	}
	vm->doorbell_watch = ivwl_watch_add(vm->plugin->watcher,
		ivwl_device_vector_fd(vm->dev, IVWL_DOORBELL_VECTOR),
		WL_EVENT_READABLE | IVWL_WATCH_EDGE, on_doorbell, vm);
	if (!vm->doorbell_watch)
		goto err_sources;
	ivwl_device_set_peer_listener(vm->dev, on_peer, vm);
	if (!vm->device_watch && vm->app_timeout_ms) {
		vm->liveness_timer = wl_event_loop_add_timer(loop,
							     on_liveness, vm);
		if (!vm->liveness_timer)
			goto err_sources;
		vm->probe = 0;
	}

	ivwl_clock_answerer_init(&vm->clock,
				 vm->plugin->compositor->presentation_clock);
	ivwl_display_side_claim(&vm->side);
	free(vm->attach_err);
	vm->attach_err = NULL;
	ivwl_log("[%s] attached to %s: %llu MiB region, %u slots", vm->name,
		 vm_where(vm),
		 (unsigned long long)(ivwl_device_size(vm->dev) >> 20),
		 vm->side.slots);
	if (vm->server && !ivwl_device_server_rings(vm->dev))
		ivwl_log("[%s] %s does not ring the app for weston (QEMU's "
			 "server, an older ivwl-server, or --no-rings): weston "
			 "writes the app's doorbell itself, from its ringer "
			 "thread",
			 vm->name, vm->server);
	if (vm->server && !ivwl_device_region_borrowed(vm->dev))
		ivwl_log("[%s] %s does not lend weston the region's fd (QEMU's "
			 "server, an older ivwl-server, or --no-lend): weston "
			 "keeps it open, one fd more for the VM",
			 vm->name, vm->server);
	/* Events before we listened are lost: look once now. */
	ivwl_display_side_sync(&vm->side, &side_listener, vm);
	return 0;

err_sources:
	/* Most often EMFILE: weston is out of file descriptors. */
	ret = errno ? -errno : -ENOMEM;
	snprintf(why, sizeof(why), "cannot watch its doorbells: %s",
		 strerror(-ret));
	vm_detach(vm, false);
	return attach_failed(vm, ret, why);
}

/*
 * 0: attached, or an attempt runs in a thread (ivwl_vm_attach_done);
 * -errno: failed, try again later.
 */
static int
vm_attach(struct ivwl_vm *vm)
{
	struct ivwl_device *dev = NULL;
	const char *err = NULL;
	int ret;

	if (vm->attaching)
		return 0;
	/* Weston's own clients and outputs come first. */
	if (!ivwl_fds_to_spare(vm->plugin, ATTACH_FDS))
		return attach_failed(vm, -EMFILE, "weston's open files are "
				     "near their limit, kept for weston "
				     "itself");
	if (vm->server) {
		ret = ivwl_attacher_start(vm->plugin->attacher, vm, vm->server,
					  ATTACH_TIMEOUT_MS);
		if (ret < 0)
			return attach_failed(vm, ret,
					     "cannot start an attach thread");
		vm->attaching = true;
		vm->plugin->attaching++;
		return 0;
	}
	ret = ivwl_device_open_kernel(vm->device, IVWL_DEVICE_PRIVATE, &dev,
				      &err);
	if (ret < 0)
		return attach_failed(vm, ret, err);
	return attach_device(vm, dev);
}

void
ivwl_vm_attach_done(void *owner, struct ivwl_device *dev, int ret,
		    const char *err)
{
	struct ivwl_vm *vm = owner;

	vm->attaching = false;
	vm->plugin->attaching--;

	ret = dev ? attach_device(vm, dev) : attach_failed(vm, ret, err);
	if (ret < 0 && !vm->refused)
		wl_event_source_timer_update(vm->retry_timer, RETRY_MS);
}

static void
vm_detach(struct ivwl_vm *vm, bool shutdown)
{
	uint32_t i;

	/*
	 * Gone first: a relay that sees its slot close then knows the whole
	 * display left, not just its connection, and keeps its client for
	 * the next weston (docs/architecture.md, "Compositor restart").
	 */
	if (vm->dev)
		ivwl_display_side_release(&vm->side);
	wl_signal_emit_mutable(&vm->detaching, vm);
	for (i = 0; i < IVWL_SLOT_COUNT; i++) {
		if (!vm->conns[i])
			continue;
		vm->slots->close(vm->conns[i], shutdown ?
				 "weston is shutting down" :
				 "region detached");
	}
	ivwl_watch_remove(vm->doorbell_watch);
	vm->doorbell_watch = NULL;
	vm->more_pending = false;
	ivwl_watch_remove(vm->device_watch);
	vm->device_watch = NULL;
	if (vm->liveness_timer)
		wl_event_source_remove(vm->liveness_timer);
	vm->liveness_timer = NULL;
	if (vm->dev)
		ivwl_device_destroy(vm->dev);
	vm->dev = NULL;
	vm->region_waiters = 0;
	/* After the last ring above: nothing is left to end. */
	if (vm->ring_failed_idle)
		wl_event_source_remove(vm->ring_failed_idle);
	vm->ring_failed_idle = NULL;
}

static int
on_retry(void *data)
{
	struct ivwl_vm *vm = data;

	if (!vm->dev && vm_attach(vm) < 0 && !vm->refused)
		wl_event_source_timer_update(vm->retry_timer, RETRY_MS);
	return 0;
}

static bool
valid_name(const char *name)
{
	const char *p;

	if (!name || !name[0] || strlen(name) > 32)
		return false;
	for (p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' ||
		      *p == '.'))
			return false;
	return true;
}

/*
 * Two sections on one region would fight over its display role; two of
 * one name could not be told apart in the log, the titles or the live
 * view.
 */
static bool
vm_unique(struct ivwl_plugin *plugin, const struct ivwl_vm *vm)
{
	struct ivwl_vm *other;

	wl_list_for_each(other, &plugin->vms, link) {
		if (other == vm)
			continue;
		if (strcmp(other->name, vm->name) == 0) {
			ivwl_log("[ivwl-vm] name=%s is used by two sections: "
				 "give each VM its own name", vm->name);
			return false;
		}
		if (ivwl_config_color_distance(other->color, vm->color) <
		    IVWL_CONFIG_COLOR_DISTANCE) {
			ivwl_log("[%s] color=0x%08x and [%s] color=0x%08x "
				 "are too close to tell apart (%.0f apart, "
				 "%d at least): give one another colour "
				 "(palette in weston-ivwl(7))", vm->name,
				 vm->color, other->name, other->color,
				 ivwl_config_color_distance(other->color,
							    vm->color),
				 IVWL_CONFIG_COLOR_DISTANCE);
			return false;
		}
		if (ivwl_config_same_file(other->server, vm->server) ||
		    ivwl_config_same_file(other->device, vm->device)) {
			ivwl_log("[%s] %s=%s is also [%s]'s: one section per "
				 "region; remove one or point it at its own "
				 "region", vm->name,
				 vm->server ? "server" : "device",
				 vm->server ? vm->server : vm->device,
				 other->name);
			return false;
		}
	}
	return true;
}

struct ivwl_vm *
ivwl_vm_create(struct ivwl_plugin *plugin,
	       struct weston_config_section *section,
	       const struct ivwl_vm_slot_ops *slots)
{
	struct wl_event_loop *loop = wl_display_get_event_loop(plugin->display);
	struct ivwl_vm *vm;
	char *allow = NULL;
	int app_timeout;

	vm = calloc(1, sizeof(*vm));
	if (!vm)
		return NULL;
	vm->plugin = plugin;
	vm->slots = slots;
	ivwl_addon_set_init(&vm->addons);
	wl_signal_init(&vm->detaching);
	weston_config_section_get_string(section, "name", &vm->name, NULL);
	weston_config_section_get_string(section, "server", &vm->server, NULL);
	weston_config_section_get_string(section, "device", &vm->device, NULL);
	weston_config_section_get_string(section, "allow", &allow, NULL);
	weston_config_section_get_int(section, "app-timeout", &app_timeout,
				      DEFAULT_APP_TIMEOUT_S);

	if (!valid_name(vm->name)) {
		ivwl_log("[ivwl-vm] needs name= of 1-32 letters, digits, "
			 "'-', '_' or '.'");
		goto err_vm;
	}
	if (!vm->server == !vm->device) {
		ivwl_log("[%s] needs exactly one of server= and device=",
			 vm->name);
		goto err_vm;
	}
	if (app_timeout < 0 || app_timeout > 3600) {
		ivwl_log("[%s] app-timeout=%d is not 0 to 3600 seconds",
			 vm->name, app_timeout);
		goto err_vm;
	}
	vm->app_timeout_ms = (uint32_t)app_timeout * 1000;
	if (!ivwl_config_clip_policy(section, vm->name, &vm->clip) ||
	    !ivwl_config_fullscreen(section, vm->name, &vm->fullscreen))
		goto err_vm;
	if (ivwl_config_color(section, vm->name, &vm->color) < 0 ||
	    !vm_unique(plugin, vm))
		goto err_vm;
	vm->policy = ivwl_policy_create(allow);
	vm->pipe_budget = ivwl_pipe_budget_create(IVWL_PIPE_VM_BUFFER);
	vm->retry_timer = wl_event_loop_add_timer(loop, on_retry, vm);
	if (!vm->policy || !vm->pipe_budget || !vm->retry_timer)
		goto err_vm;

	wl_list_insert(plugin->vms.prev, &vm->link);
	if (vm_attach(vm) < 0 && !vm->refused)
		wl_event_source_timer_update(vm->retry_timer, RETRY_MS);
	free(allow);
	return vm;

err_vm:
	free(allow);
	if (vm->retry_timer)
		wl_event_source_remove(vm->retry_timer);
	ivwl_pipe_budget_unref(vm->pipe_budget);
	ivwl_policy_destroy(vm->policy);
	free(vm->name);
	free(vm->server);
	free(vm->device);
	free(vm);
	return NULL;
}

/*
 * Only at compositor shutdown (or a failed start).  The plugin's destroy
 * listener runs before the shell's (ivwl-plugin.c), so the VM's clients
 * end as if they had disconnected, with the shell still there.
 */
void
ivwl_vm_destroy(struct ivwl_vm *vm)
{
	ivwl_attacher_cancel(vm->plugin->attacher, vm);
	if (vm->attaching)
		vm->plugin->attaching--;
	vm_detach(vm, true);
	wl_event_source_remove(vm->retry_timer);
	if (vm->slow_timer)
		wl_event_source_remove(vm->slow_timer);
	ivwl_addon_set_finish(&vm->addons);
	wl_list_remove(&vm->link);
	ivwl_pipe_budget_unref(vm->pipe_budget);
	ivwl_policy_destroy(vm->policy);
	free(vm->name);
	free(vm->server);
	free(vm->device);
	free(vm->attach_err);
	free(vm);
}

/* ---- the region's fd ------------------------------------------------ */

/*
 * The region's fd of a VM whose ivwl-server lends it (server=,
 * IVWL_DEVICE_SERVER_BORROW): weston keeps the region mapped and holds
 * its fd only across a burst of wl_shm.create_pool, each of which hands
 * libwayland a dup of it (translate.c; libwayland maps it and closes
 * it).  A connection whose next request record needs it holds that
 * record and waits (connection.c); the VM asks once for all of them, and
 * lets the fd go when the last of them has handled its record.  A server
 * that never answers leaves those connections waiting, costing nothing;
 * its other connections, and other VMs, go on.
 *
 * With device= or a server that does not lend, the device holds its
 * region fd for good and nothing here runs.
 */

/* From ivwl_device_dispatch(): the server lent the fd. */
static void
on_region(void *data)
{
	struct ivwl_vm *vm = data;
	uint32_t i;

	vm->live.region_loans++;
	/* Its waiters went meanwhile. */
	if (vm->region_waiters == 0) {
		ivwl_device_region_release(vm->dev);
		return;
	}
	for (i = 0; i < IVWL_SLOT_COUNT; i++)
		if (vm->conns[i])
			vm->slots->region_ready(vm->conns[i]);
}

void
ivwl_vm_region_attached(struct ivwl_vm *vm)
{
	vm->region_waiters = 0;
	ivwl_device_set_region_listener(vm->dev, on_region, vm);
}

void
ivwl_vm_region_wait(struct ivwl_vm *vm)
{
	vm->region_waiters++;
	/*
	 * Asked already: nothing more.  A server gone (-ECONNRESET) or
	 * faulty is seen by the device's dispatch, which detaches the VM
	 * and ends the waiters.
	 */
	if (vm->dev)
		ivwl_device_region_ask(vm->dev);
}

void
ivwl_vm_region_done(struct ivwl_vm *vm)
{
	if (vm->region_waiters > 0)
		vm->region_waiters--;
	if (vm->region_waiters == 0 && vm->dev)
		ivwl_device_region_release(vm->dev);
}
