/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <libweston/libweston.h>
#include <libweston/version.h>

#include "connection.h"
#include "frame-trace.h"
#include "ivwl-limits.h"
#include "ivwl-plugin.h"
#include "map-pace.h"
#include "mono-time.h"
#include "output-clock.h"
#include "teardown.h"
#include "translate.h"
#include "vm.h"
#include "watch.h"

/* How long lazy events may wait for a frame callback's doorbell. */
#define LAZY_EVENTS_MS 50
/* How far off the next repaint may be for a presented to wait for it. */
#define PRESENTED_RIDE_MS 2

static void
update_interest(struct ivwl_connection *conn)
{
	uint32_t mask = 0;

	if (!conn->events_blocked)
		mask |= WL_EVENT_READABLE;
	if (conn->xl.to_server.len > 0)
		mask |= WL_EVENT_WRITABLE;
	/* an epoll_ctl() per service would cost more than the service */
	if (mask == conn->interest)
		return;
	ivwl_watch_update(conn->watch, mask);
	conn->interest = mask;
}

static int
on_lazy(void *data);

/*
 * How long the doorbell for what the event ring holds may wait, or -1
 * when it may not.  A presented waits only when weston's next repaint,
 * which answers the frame callback in flight, is at most
 * PRESENTED_RIDE_MS away (output-clock.c reads it off weston's repaint
 * scheduler).  weston schedules it a refresh period less the repaint
 * window after the presentation: with a window near the period the
 * done follows in 1-2 ms (weston's repaint timer waits a millisecond at
 * least) and both reach the app with one doorbell; with weston's default
 * 7 ms at 60 Hz it is 9.7 ms away, and the presented rings at once.
 */
static int64_t
lazy_wait_ms(struct ivwl_connection *conn)
{
	int64_t ms;

	if (conn->xl.events_urgent || conn->xl.firewall.callbacks == 0 ||
	    conn->xl.channels.list || !ivwl_ring_moved_since_kick(&conn->event))
		return -1;
	if (!conn->xl.events_presented)
		return LAZY_EVENTS_MS;
	ms = ivwl_output_clock_next_ms(conn->vm->plugin->output_clock);
	if (ms < 0 || ms > PRESENTED_RIDE_MS)
		return -1;
	/* the repaint itself takes time: a millisecond more for its done */
	return ms + 1;
}

/*
 * Holds back a doorbell for lazy events alone (translate.c: a buffer
 * release, delete_id) while a frame callback is in flight: its done
 * comes within a frame and takes them along.  A client that commits
 * once per frame callback then costs one doorbell per frame instead of
 * two or three, each a wake-up of the process serving it in the app-vm
 * (and, between real VMs, an interrupt).  LAZY_EVENTS_MS bounds the wait
 * for a surface weston stopped repainting; a presented waits less
 * (lazy_wait_ms).
 */
static bool
hold_lazy(struct ivwl_connection *conn)
{
	struct wl_event_loop *loop;
	int64_t ms = lazy_wait_ms(conn);

	if (ms < 0)
		return false;
	if (conn->lazy_armed &&
	    (conn->lazy_short || !conn->xl.events_presented))
		return true;
	if (!conn->lazy_timer) {
		loop = wl_display_get_event_loop(conn->vm->plugin->display);
		conn->lazy_timer = wl_event_loop_add_timer(loop, on_lazy,
							   conn);
		if (!conn->lazy_timer)
			return false;
	}
	wl_event_source_timer_update(conn->lazy_timer, (int)ms);
	conn->lazy_armed = true;
	conn->lazy_short = conn->xl.events_presented;
	if (conn->lazy_short)
		conn->xl.live.now.presented_held++;
	return true;
}

static void
kick_app(struct ivwl_connection *conn)
{
	bool owed = ivwl_ring_kick_needed(&conn->request);

	if (!hold_lazy(conn)) {
		owed = ivwl_ring_kick_needed(&conn->event) || owed;
		conn->xl.events_urgent = false;
		conn->xl.events_presented = false;
		if (conn->lazy_armed) {
			wl_event_source_timer_update(conn->lazy_timer, 0);
			conn->lazy_armed = false;
			conn->lazy_short = false;
		}
	}
	if (owed) {
		conn->xl.live.now.bells_out++;
		ivwl_display_side_kick(&conn->vm->side, conn->slot);
	}
}

static int
on_lazy(void *data)
{
	struct ivwl_connection *conn = data;

	conn->lazy_armed = false;
	conn->lazy_short = false;
	conn->xl.events_urgent = true;
	kick_app(conn);
	return 0;
}

static void
channel_destroy(struct ivwl_connection *conn, struct ivwl_channel *ch)
{
	const struct ivwl_clipboard_ops *clip = conn->vm->plugin->clipboard_ops;

	if (clip)
		clip->channel_end(conn, ch);
	ivwl_watch_remove(ch->user);
	ivwl_channel_destroy(&conn->xl.channels, ch);
}

static int
handle_channel_record(struct ivwl_connection *conn, uint16_t type,
		      uint32_t len, const char **why)
{
	struct ivwl_channel *finished;

	int ret;

	ret = ivwl_channels_handle(&conn->xl.channels, type, conn->record, len,
				   &finished);
	if (ret == -EFBIG) {
		*why = "the app sent more through one pipe than weston takes";
		return ret;
	}
	if (ret < 0) {
		*why = "the app broke a pipe channel's rules";
		return ret;
	}
	if (finished)
		channel_destroy(conn, finished);
	return 0;
}

static int
handle_record(struct ivwl_connection *conn, uint16_t type, uint32_t len,
	      const char **why)
{
	switch (type) {
	case IVWL_RECORD_WAYLAND:
		return ivwl_translate_request(&conn->xl, conn->record, len,
					      why);
	case IVWL_RECORD_CHANNEL_DATA:
	case IVWL_RECORD_CHANNEL_CLOSE:
	case IVWL_RECORD_CHANNEL_CREDIT:
		return handle_channel_record(conn, type, len, why);
	default:
		*why = "unexpected record type";
		return -EPROTO;
	}
}

static void
more_work(struct ivwl_connection *conn);

/* The region's fd is there to hand libwayland (vm.c, "the region's fd"). */
static bool
region_held(struct ivwl_vm *vm)
{
	return ivwl_device_region_fd(vm->dev) >= 0;
}

/*
 * Whether a record hands libwayland the region's fd (a descriptor of kind
 * REGION: wl_shm.create_pool).  Decided on the record, before anything of
 * it is handled: translation has effects per message (firewall, object
 * map) and could not stop halfway for the fd.  A malformed record says
 * no: handle_record refuses it.
 */
static bool
record_needs_region(struct ivwl_connection *conn, uint16_t type, uint32_t len)
{
	struct ivwl_wayland_record rec;
	uint32_t i;

	if (type != IVWL_RECORD_WAYLAND ||
	    ivwl_record_parse_wayland(conn->record, len,
				      &conn->vm->side.layout, &rec) < 0)
		return false;
	for (i = 0; i < rec.nfds; i++)
		if (rec.fds[i].kind == IVWL_FD_REGION)
			return true;
	return false;
}

/*
 * The held record needs the region's fd: the VM keeps it while we wait
 * (another connection's record may have brought it), or asks for it.
 */
static void
wait_region(struct ivwl_connection *conn)
{
	if (conn->region_wait)
		return;
	conn->region_wait = true;
	ivwl_vm_region_wait(conn->vm);
}

/*
 * Whether the held record may go on: held at a barrier, once the
 * barrier's sync came back; held for the region's fd, once the VM has it
 * (a record held at a barrier may need it too).
 */
static bool
held_may_go(struct ivwl_connection *conn)
{
	if (conn->xl.barrier != IVWL_BARRIER_NONE &&
	    conn->xl.barrier != IVWL_BARRIER_PASSED)
		return false;
	return !conn->region_wait || region_held(conn->vm);
}

/*
 * The next record into conn->record: the held one once it may go on,
 * else the ring's.  -EBUSY: it waits (held).
 */
static int
next_record(struct ivwl_connection *conn, uint16_t *type, const char **why)
{
	int n;

	if (conn->held) {
		if (!held_may_go(conn))
			return -EBUSY;
		conn->held = false;
		*type = conn->held_type;
		return (int)conn->held_len;
	}
	n = ivwl_ring_read(&conn->request, type, conn->record,
			   ivwl_ring_max_payload(&conn->request));
	if (n == -EAGAIN)
		return n;
	if (n < 0) {
		*why = "the request ring is corrupt";
		return n;
	}
	if (region_held(conn->vm) ||
	    !record_needs_region(conn, *type, (uint32_t)n))
		return n;
	conn->held = true;
	conn->held_type = *type;
	conn->held_len = (uint32_t)n;
	wait_region(conn);
	return -EBUSY;
}

/* Moves request records to libwayland while it keeps up. */
static int
pump_requests(struct ivwl_connection *conn, const char **why)
{
	int budget = IVWL_CONN_RECORD_BUDGET, n, ret;
	uint16_t type;

	if (ivwl_vm_slowed(conn->vm)) {
		/* its timer serves what waits; no doorbell meanwhile */
		conn->more_pending = true;
		return 0;
	}
	while (budget-- > 0) {
		ret = ivwl_stream_out_flush(&conn->xl.to_server, conn->fd);
		if (ret == -EAGAIN)
			break;
		if (ret < 0) {
			*why = "libwayland closed the connection";
			return ret;
		}
		n = next_record(conn, &type, why);
		if (n == -EAGAIN || n == -EBUSY)
			break;
		if (n < 0)
			return n;
		ret = handle_record(conn, type, (uint32_t)n, why);
		if (ret == -EBUSY) {
			/*
			 * halfway, at a barrier: its sync's done resumes it,
			 * or map-pace's go, for a paced map;
			 * meanwhile the region's fd, if its rest needs it,
			 * stays (the connection that brought it may be done)
			 */
			conn->held = true;
			conn->held_type = type;
			conn->held_len = (uint32_t)n;
			if (record_needs_region(conn, type, (uint32_t)n))
				wait_region(conn);
			if (conn->xl.barrier == IVWL_BARRIER_PACED)
				ivwl_map_pace_add_go_listener(
					conn->vm->plugin->map_pace,
					&conn->pace_go);
			break;
		}
		if (ret < 0)
			return ret;
	}
	/* Its held record went, and the rest of this pass with the fd. */
	if (conn->region_wait && !conn->held) {
		conn->region_wait = false;
		ivwl_vm_region_done(conn->vm);
	}
	ret = ivwl_stream_out_flush(&conn->xl.to_server, conn->fd);
	if (ret == -EAGAIN)
		return 0;	/* the socket's WRITABLE brings us back */
	if (ret < 0) {
		*why = "libwayland closed the connection";
		return ret;
	}
	/* Paused: the fd's arrival, or the barrier's done, brings us
	 * back; no doorbell needed. */
	if (conn->held) {
		if (held_may_go(conn))
			more_work(conn);	/* came: the flush stopped us */
		return 0;
	}
	/*
	 * Whatever stopped the loop (empty ring, spent budget), either come
	 * back from the event loop for what is left or ask for a doorbell:
	 * never neither, or a ring drained by the budget's last record
	 * would leave us asleep without a token.
	 */
	if (!ivwl_ring_prepare_sleep(&conn->request))
		more_work(conn);
	return 0;
}

/* True when the caller must stop: the event ring is full for now. */
static bool
event_ring_full(struct ivwl_connection *conn)
{
	/* Space may have appeared since the write failed: look once more. */
	conn->events_blocked = ivwl_ring_prepare_sleep(&conn->event);
	return conn->events_blocked;
}

static int
pump_events(struct ivwl_connection *conn, const char **why)
{
	size_t room;
	int ret, n;

	for (;;) {
		ret = ivwl_translate_events(&conn->xl, why);
		if (ret == -EAGAIN) {
			if (event_ring_full(conn))
				return 0;
			continue;
		}
		if (ret < 0)
			return ret;
		/* Doorbells say nothing of libwayland's end: on_socket does. */
		if (!conn->sock_ready)
			break;
		room = sizeof(conn->xl.from_server.buf) -
		       conn->xl.from_server.len;
		n = ivwl_stream_in_read(&conn->xl.from_server, conn->fd);
		if (n == -EAGAIN) {
			conn->sock_ready = false;
			break;
		}
		if (n == 0) {
			*why = "libwayland closed the connection";
			return -ECONNRESET;
		}
		if (n < 0) {
			*why = "reading events failed";
			return n;
		}
		/*
		 * Less than there was room for: the socket was empty then.
		 * Its watch is level-triggered and brings us back for more,
		 * so a read that would only say EAGAIN is saved (three a
		 * frame for a client with presentation feedback).
		 */
		if ((size_t)n < room)
			conn->sock_ready = false;
	}
	if (conn->held && conn->xl.barrier == IVWL_BARRIER_PASSED)
		more_work(conn);
	for (;;) {
		ret = ivwl_translate_flush(&conn->xl);
		if (ret != -EAGAIN)
			break;
		if (event_ring_full(conn))
			return 0;
	}
	if (ret < 0)
		*why = "the event ring is corrupt";
	return ret;
}

/* Moves pipe data both ways; stops when the event ring is full. */
static int
pump_channels(struct ivwl_connection *conn, const char **why)
{
	struct ivwl_channel *ch, *next;
	uint32_t mask;
	short events;
	int ret;

	for (ch = conn->xl.channels.list; ch; ch = next) {
		next = ch->next;
		ret = ivwl_channel_pump(ch, &conn->event);
		if (ret == -EAGAIN) {
			/* A finished source has no fd to wake it: retry
			 * until the ring takes it or we may sleep. */
			if (event_ring_full(conn))
				return 0;
			next = ch;
			continue;
		}
		if (ret < 0) {
			*why = "the event ring is corrupt";
			return ret;
		}
		if (ret == 1) {
			channel_destroy(conn, ch);
			continue;
		}
		events = ivwl_channel_events(ch);
		mask = (events & POLLIN ? WL_EVENT_READABLE : 0) |
		       (events & POLLOUT ? WL_EVENT_WRITABLE : 0);
		ivwl_watch_update(ch->user, mask);
	}
	return 0;
}

static void
service(struct ivwl_connection *conn);

static int
on_channel(int fd, uint32_t mask, void *data)
{
	service(data);
	return 0;
}

static int
host_watch(void *data, struct ivwl_channel *ch)
{
	struct ivwl_connection *conn = data;

	ch->user = ivwl_watch_add(conn->vm->plugin->watcher, ch->fd, 0,
				  on_channel, conn);
	return ch->user ? 0 : -errno;
}

/*
 * Work is left after a budget: come back through an fd event, not an idle
 * source (libwayland runs idle sources added while it runs them before it
 * polls again, so one flooding app would starve everyone).
 */
static void
more_work(struct ivwl_connection *conn)
{
	conn->more_pending = true;
	ivwl_vm_more_work(conn->vm);
}

/* From the plugin's more_fd: one fd for all, whatever the connections. */
void
ivwl_connection_more(struct ivwl_connection *conn)
{
	if (!conn->more_pending)
		return;
	conn->more_pending = false;
	service(conn);
}

/* map-pace: the map it is held at may ask again. */
static void
on_pace_go(struct wl_listener *listener, void *data)
{
	struct ivwl_connection *conn =
		wl_container_of(listener, conn, pace_go);

	ivwl_translation_go(&conn->xl);
	more_work(conn);
}

void
ivwl_connection_region_ready(struct ivwl_connection *conn)
{
	if (conn->held)
		more_work(conn);
}

static void
service(struct ivwl_connection *conn)
{
	const char *why = NULL;

	/* the relay says so before it sends the replay's first record */
	if (!conn->restored)
		conn->restored = ivwl_display_side_app_replaying(
			&conn->vm->side, conn->slot);
	/* Awake: no doorbells needed until the request ring runs dry. */
	ivwl_ring_woken(&conn->request);
	if (conn->events_blocked) {
		ivwl_ring_woken(&conn->event);
		conn->events_blocked = false;
	}
	if (pump_requests(conn, &why) < 0 || pump_events(conn, &why) < 0 ||
	    pump_channels(conn, &why) < 0) {
		ivwl_connection_destroy(conn, why ? why :
					"the event ring is corrupt");
		return;
	}
	kick_app(conn);
	update_interest(conn);
}

bool
ivwl_connection_restored(const struct ivwl_connection *conn)
{
	return conn->restored;
}

uint64_t
ivwl_connection_client_key(struct ivwl_connection *conn)
{
	if (conn->ending)
		return conn->ending_key;
	return ivwl_display_side_app_client_key(&conn->vm->side, conn->slot);
}

void
ivwl_connection_forget_restored(struct ivwl_connection *conn)
{
	conn->restored = false;
}

void
ivwl_connection_doorbell(struct ivwl_connection *conn)
{
	conn->xl.live.now.bells_in++;
	service(conn);
}

/* Ending: what weston still sends the client has nowhere to go. */
static void
discard_events(struct ivwl_connection *conn)
{
	struct ivwl_stream_in *in = &conn->xl.from_server;
	int fds[IVWL_STREAM_MAX_FDS];
	uint32_t i, n;

	while (ivwl_stream_in_read(in, conn->fd) > 0) {
		n = in->nfds;
		if (ivwl_stream_in_take_fds(in, n, fds) == 0)
			for (i = 0; i < n; i++)
				close(fds[i]);
		ivwl_stream_in_consume(in, in->len);
	}
}

static int
on_socket(int fd, uint32_t mask, void *data)
{
	struct ivwl_connection *conn = data;

	if (mask & (WL_EVENT_HANGUP | WL_EVENT_ERROR)) {
		ivwl_connection_destroy(conn, "libwayland hung up");
		return 0;
	}
	if (conn->ending) {
		discard_events(conn);
		return 0;
	}
	if (mask & WL_EVENT_READABLE)
		conn->sock_ready = true;
	service(conn);
	return 0;
}

struct wl_client *
ivwl_connection_client(struct ivwl_connection *conn)
{
	return conn->client;
}

/* For the live view: its reason kept, its counts added to its VM's. */
static void
live_closed(struct ivwl_connection *conn, const char *why)
{
	struct ivwl_vm_live *live = &conn->vm->live;
	struct ivwl_closure *c =
		&live->closures[live->closed % IVWL_LIVE_CLOSURES];
	struct ivwl_slot_app_stats app;

	c->when_ms = (uint64_t)ivwl_now_ms();
	c->slot = conn->slot;
	c->generation = conn->generation;
	snprintf(c->why, sizeof(c->why), "%s", why);
	live->closed++;
	ivwl_traffic_sum(&live->ended, &conn->xl.live.now);
	ivwl_display_side_app_stats(&conn->vm->side, conn->slot, &app);
	ivwl_app_stats_sum(&live->app_ended, &app);
}

/* A kill the user asked for goes unrun: the connection ends now. */
static void
drop_kill(struct ivwl_connection *conn)
{
	if (conn->kill)
		wl_event_source_remove(conn->kill);
	conn->kill = NULL;
}

/* Its slot and what serves it go; the slot may be another's after. */
static void
release_slot(struct ivwl_connection *conn)
{
	live_closed(conn, conn->why ? conn->why : "weston ended the client");
	if (conn->region_wait)
		ivwl_vm_region_done(conn->vm);
	conn->region_wait = false;
	wl_list_remove(&conn->pace_go.link);
	wl_list_init(&conn->pace_go.link);
	ivwl_vm_connection_gone(conn->vm, conn->slot);
	if (conn->lazy_timer)
		wl_event_source_remove(conn->lazy_timer);
	conn->lazy_timer = NULL;
	ivwl_watch_remove(conn->alarm);
	conn->alarm = NULL;
	if (conn->alarm_fd >= 0)
		close(conn->alarm_fd);
	conn->alarm_fd = -1;
	/* its channels end watched, with their clipboard notes */
	while (conn->xl.channels.list)
		channel_destroy(conn, conn->xl.channels.list);
}

static void
free_connection(struct ivwl_connection *conn)
{
	/* its slot went already when its windows began to end */
	if (conn->vm_detaching.notify)
		wl_list_remove(&conn->vm_detaching.link);
	else
		release_slot(conn);
	drop_kill(conn);
	ivwl_watch_remove(conn->watch);
	if (conn->fd >= 0)
		close(conn->fd);
	ivwl_translation_release(&conn->xl);
	free(conn->record);
	free(conn);
}

/*
 * libwayland destroys a client's objects in id order: its xdg_wm_base
 * before its windows, a parent popup before its child.  weston 10 then
 * posts "not the topmost popup" through the gone xdg_wm_base, or pings
 * the client through it when the pointer's focus moves from one of its
 * dying windows to another (both NULL dereferences).  This listener runs
 * before that: end the windows here first, in the order a client that
 * closes them cleanly would.
 */
static void
destroy_windows(struct ivwl_connection *conn)
{
	uint32_t *ids, n;

	n = ivwl_firewall_teardown(&conn->xl.firewall, &ids);
	ivwl_teardown_objects(conn->client, ids, 0, n);
	free(ids);
}

/*
 * The last record on the connection, before its slot closes: the relay
 * logs why, so the app's user sees it too.  A full ring goes without
 * it; the slot state alone ends the connection.
 */
static void
tell_app(struct ivwl_connection *conn, const char *why)
{
	if (conn->told_app)
		return;
	conn->told_app = true;
	ivwl_record_disconnect_write(&conn->event, why);
}

/* libwayland destroyed the client: a protocol error, weston, shutdown. */
static void
on_client_destroy(struct wl_listener *listener, void *data)
{
	struct ivwl_connection *conn =
		wl_container_of(listener, conn, client_destroy);

	const char *why = NULL;

	/* the idle callbacks run below must not end it again */
	drop_kill(conn);
	if (conn->ending) {
		/* its slot is gone already: the rest of its windows now */
		ivwl_teardown_finish(conn->ending);
		conn->ending = NULL;
	} else {
		/*
		 * libwayland flushes the client's last events (a protocol
		 * error with its message) only after this signal: take them
		 * now, so the log and the app say what weston refused.
		 */
		wl_client_flush(conn->client);
		conn->sock_ready = true;
		if (pump_events(conn, &why) < 0)
			ivwl_log("[%s] slot %u: its last events are lost: %s",
				 conn->vm->name, conn->slot, why);
		tell_app(conn, "weston ended the client");
	}
	ivwl_log("[%s] slot %u generation %u: client gone", conn->vm->name,
		 conn->slot, conn->generation);
	/*
	 * weston 14 sends a configure it scheduled (set_maximized, a
	 * commit) from an idle callback through the role object, and does
	 * not cancel it when the client goes: run it now, while the
	 * objects live (translate.c's barrier does it for a destroy).
	 */
	if (conn->xl.firewall.weston_major >= 14)
		wl_event_loop_dispatch_idle(
			wl_display_get_event_loop(conn->vm->plugin->display));
	destroy_windows(conn);
	wl_list_remove(&conn->client_destroy.link);
	/* freed below: libwayland must not call it */
	wl_list_remove(&conn->client_key.link);
	conn->client = NULL;
	free_connection(conn);
}

/* Never called: on_client_destroy takes the key out before it frees. */
static void
client_key_gone(struct wl_listener *listener, void *data)
{
}

struct ivwl_connection *
ivwl_connection_of_client(const struct wl_client *client)
{
	struct wl_listener *key;
	struct ivwl_connection *conn;

	/* libwayland takes no const client here, and changes nothing */
	key = wl_client_get_destroy_listener((struct wl_client *)client,
					     client_key_gone);
	if (!key)
		return NULL;
	return wl_container_of(key, conn, client_key);
}

struct ivwl_vm *
ivwl_vm_from_client(struct ivwl_plugin *plugin, const struct wl_client *client)
{
	struct ivwl_connection *conn = ivwl_connection_of_client(client);

	return conn && conn->client && conn->vm->plugin == plugin ? conn->vm :
								    NULL;
}

struct ivwl_connection *
ivwl_vm_connection(struct ivwl_vm *vm, const struct wl_client *client)
{
	struct ivwl_connection *conn = ivwl_connection_of_client(client);

	return conn && conn->client && conn->vm == vm ? conn : NULL;
}

static void
on_windows_ended(void *data)
{
	struct ivwl_connection *conn = data;

	conn->ending = NULL;	/* freed */
	wl_client_destroy(conn->client);	/* frees conn */
}

static void
on_vm_detaching(struct wl_listener *listener, void *data)
{
	struct ivwl_connection *conn =
		wl_container_of(listener, conn, vm_detaching);

	wl_client_destroy(conn->client);
}

/*
 * Its windows end a batch a tick, its client after them (teardown.h),
 * when it has more than a batch; its slot goes now.  False: end it all
 * at once.
 */
static bool
end_windows_slowly(struct ivwl_connection *conn)
{
	uint32_t *ids, n, windows = conn->xl.firewall.windows;

	if (windows <= IVWL_TEARDOWN_WINDOWS)
		return false;
	conn->ending_key = ivwl_connection_client_key(conn);
	n = ivwl_firewall_teardown(&conn->xl.firewall, &ids);
	conn->ending = ivwl_teardown_start(
		wl_display_get_event_loop(conn->vm->plugin->display),
		conn->xl.firewall.weston_major >= 14, conn->client, ids, n,
		on_windows_ended, conn);
	if (!conn->ending)
		return false;
	ivwl_log("[%s] slot %u generation %u: its %u windows end %u a "
		 "frame", conn->vm->name, conn->slot, conn->generation,
		 windows, IVWL_TEARDOWN_WINDOWS);
	release_slot(conn);
	/*
	 * What it had for libwayland is dropped, as with its client: a
	 * watch left waiting for room would call on_socket in a loop.
	 */
	if (conn->interest != WL_EVENT_READABLE &&
	    ivwl_watch_update(conn->watch, WL_EVENT_READABLE) == 0)
		conn->interest = WL_EVENT_READABLE;
	conn->vm_detaching.notify = on_vm_detaching;
	wl_signal_add(&conn->vm->detaching, &conn->vm_detaching);
	return true;
}

void
ivwl_connection_destroy(struct ivwl_connection *conn, const char *why)
{
	struct wl_client *client = conn->client;

	drop_kill(conn);
	if (conn->ending) {
		/* the user's kill, or libwayland's: the rest now */
		wl_client_destroy(client);
		return;
	}
	ivwl_log("[%s] slot %u generation %u: closing: %s", conn->vm->name,
		 conn->slot, conn->generation, why);
	tell_app(conn, why);
	conn->why = why;
	if (client && end_windows_slowly(conn))
		return;
	if (client) {
		/* Its destroy listener frees the connection. */
		wl_client_destroy(client);
		return;
	}
	free_connection(conn);
}

static void
destroy_killed(void *data)
{
	struct ivwl_connection *conn = data;

	conn->kill = NULL;
	ivwl_connection_destroy(conn, "killed by the user");
}

void
ivwl_connection_kill_later(struct ivwl_connection *conn)
{
	/* ending: it goes anyway, and its batches run idle callbacks
	 * (teardown.h), which must not free it under them */
	if (conn->ending)
		return;
	if (!conn->kill)
		conn->kill = wl_event_loop_add_idle(
			wl_display_get_event_loop(conn->vm->plugin->display),
			destroy_killed, conn);
}

int
ivwl_connection_request(struct ivwl_connection *conn, uint32_t object,
			uint16_t opcode)
{
	int ret;

	if (conn->ending)
		return 0;	/* its windows end anyway */
	ret = ivwl_translate_request_bare(&conn->xl, object, opcode);
	if (ret < 0)
		return ret;
	ret = ivwl_stream_out_flush(&conn->xl.to_server, conn->fd);
	if (ret == -EAGAIN)
		update_interest(conn);	/* its WRITABLE flushes the rest */
	return ret == -EAGAIN ? 0 : ret;
}

static int
on_alarm(int fd, uint32_t mask, void *data)
{
	struct ivwl_connection *conn = data;

	ivwl_vm_pipe_stalled(conn->vm);
	ivwl_connection_destroy(conn, "the app did not read a pipe weston "
				"kept writing into; data was dropped");
	return 0;
}

/* Made with the first pipe: most connections never need one. */
static int
host_alarm_fd(void *data)
{
	struct ivwl_connection *conn = data;
	int fd;

	if (conn->alarm_fd >= 0)
		return conn->alarm_fd;
	fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (fd < 0)
		return -errno;
	conn->alarm = ivwl_watch_add(conn->vm->plugin->watcher, fd,
				     WL_EVENT_READABLE, on_alarm, conn);
	if (!conn->alarm) {
		close(fd);
		return -errno;
	}
	conn->alarm_fd = fd;
	return fd;
}

/*
 * The firewall's question (firewall.h): whether a view of the client's
 * wl_surface id has no output, as weston itself sees it.
 */
static bool
host_off_output(void *data, uint32_t id)
{
	struct ivwl_connection *conn = data;
	struct wl_resource *r = wl_client_get_object(conn->client, id);
	struct weston_surface *surface;
	struct weston_view *view;

	if (!r || strcmp(wl_resource_get_class(r), "wl_surface") != 0)
		return false;
	surface = wl_resource_get_user_data(r);
	if (!surface)
		return false;
	wl_list_for_each(view, &surface->views, surface_link)
		if (!view->output)
			return true;
	return false;
}

static const char *
host_vm_name(void *data)
{
	struct ivwl_connection *conn = data;

	return conn->vm->name;
}

static const struct ivwl_layout *
host_layout(void *data)
{
	struct ivwl_connection *conn = data;

	return &conn->vm->side.layout;
}

static int
host_region_fd(void *data)
{
	struct ivwl_connection *conn = data;

	return ivwl_device_region_fd(conn->vm->dev);
}

/* A VM's pool mappings, of all its connections (vm.h). */
static int
host_take_mapping(void *data)
{
	struct ivwl_connection *conn = data;

	return ivwl_vm_take_pool_mapping(conn->vm);
}

static void
host_drop_mapping(void *data)
{
	struct ivwl_connection *conn = data;

	ivwl_vm_drop_pool_mapping(conn->vm);
}

static struct ivwl_firewall_totals *
host_firewall_totals(void *data)
{
	struct ivwl_connection *conn = data;

	return &conn->vm->totals;
}

static bool
host_may_map(void *data)
{
	struct ivwl_connection *conn = data;

	return ivwl_map_pace_take(conn->vm->plugin->map_pace, conn->vm);
}

static struct ivwl_pipe_budget *
host_pipe_budget(void *data)
{
	struct ivwl_connection *conn = data;

	return conn->vm->pipe_budget;
}

static int
host_weston_major(void *data)
{
	return WESTON_VERSION_MAJOR;
}

/* The trusted path's say (ivwl-plugin.h, trust): none without it. */
static bool
host_fullscreen(void *data)
{
	struct ivwl_connection *conn = data;
	const struct ivwl_trust_ops *trust = conn->vm->plugin->trust;

	return trust && trust->fullscreen &&
	       trust->fullscreen(trust->data, conn);
}

static uint32_t
host_popup_grab_serial(void *data, uint32_t serial)
{
	struct ivwl_connection *conn = data;
	const struct ivwl_trust_ops *trust = conn->vm->plugin->trust;

	if (!trust || !trust->popup_grab_serial)
		return serial;
	return trust->popup_grab_serial(trust->data, conn, serial);
}

/* The clipboard's say (ivwl-plugin.h): none before it is made. */
static bool
host_clip_event(void *data, const struct ivwl_wire_msg *msg, uint8_t *bytes)
{
	struct ivwl_connection *conn = data;
	const struct ivwl_clipboard_ops *clip = conn->vm->plugin->clipboard_ops;

	return clip && clip->event(conn, msg, bytes);
}

static int
host_clip_request(void *data, const struct ivwl_wire_msg *msg,
		  const char **why)
{
	struct ivwl_connection *conn = data;
	const struct ivwl_clipboard_ops *clip = conn->vm->plugin->clipboard_ops;

	return clip ? clip->request(conn, msg, why) : 0;
}

static bool
host_clip_receive(void *data, const struct ivwl_wire_msg *msg,
		  struct ivwl_channel *ch)
{
	struct ivwl_connection *conn = data;
	const struct ivwl_clipboard_ops *clip = conn->vm->plugin->clipboard_ops;

	return clip && clip->receive(conn, msg, ch);
}

static void
host_clip_send(void *data, const struct ivwl_wire_msg *msg,
	       struct ivwl_channel *ch)
{
	struct ivwl_connection *conn = data;
	const struct ivwl_clipboard_ops *clip = conn->vm->plugin->clipboard_ops;

	if (clip)
		clip->send(conn, msg, ch);
}

static void
host_log(void *data, const char *line)
{
	struct ivwl_connection *conn = data;

	ivwl_log("[%s] slot %u generation %u: %s", conn->vm->name, conn->slot,
		 conn->generation, line);
}

static void
host_committed(void *data)
{
	struct ivwl_connection *conn = data;

	ivwl_trace(IVWL_TRACE_COMMIT,
		   (uint64_t)conn->generation << 8 | conn->slot);
}

/* What the connection's translation asks of it (translate.h). */
static const struct ivwl_translate_host connection_host = {
	.vm_name = host_vm_name,
	.layout = host_layout,
	.region_fd = host_region_fd,
	.take_mapping = host_take_mapping,
	.drop_mapping = host_drop_mapping,
	.firewall_totals = host_firewall_totals,
	.pipe_budget = host_pipe_budget,
	.may_map = host_may_map,
	.weston_major = host_weston_major,
	.off_output = host_off_output,
	.fullscreen = host_fullscreen,
	.popup_grab_serial = host_popup_grab_serial,
	.clip_event = host_clip_event,
	.clip_request = host_clip_request,
	.clip_receive = host_clip_receive,
	.clip_send = host_clip_send,
	.watch = host_watch,
	.alarm_fd = host_alarm_fd,
	.log = host_log,
	.committed = host_committed,
};

struct ivwl_connection *
ivwl_connection_create(struct ivwl_vm *vm, uint32_t slot, uint32_t generation)
{
	struct ivwl_connection *conn;
	int sv[2];

	conn = calloc(1, sizeof(*conn));
	if (!conn)
		return NULL;
	conn->vm = vm;
	conn->slot = slot;
	conn->generation = generation;
	conn->fd = -1;
	conn->alarm_fd = -1;
	conn->pace_go.notify = on_pace_go;
	wl_list_init(&conn->pace_go.link);
	ivwl_display_side_rings(&vm->side, slot, &conn->request, &conn->event);
	conn->record = malloc(ivwl_ring_max_payload(&conn->request));
	if (!conn->record)
		goto err_conn;
	if (ivwl_translation_init(&conn->xl, &connection_host, conn,
				  &conn->event) < 0)
		goto err_conn;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0,
		       sv) < 0)
		goto err_xl;
	conn->fd = sv[1];
	conn->client = wl_client_create(vm->plugin->display, sv[0]);
	if (!conn->client) {
		close(sv[0]);
		goto err_xl;
	}
	conn->client_destroy.notify = on_client_destroy;
	wl_client_add_destroy_listener(conn->client, &conn->client_destroy);
	conn->client_key.notify = client_key_gone;
	wl_client_add_destroy_listener(conn->client, &conn->client_key);
	conn->watch = ivwl_watch_add(vm->plugin->watcher, conn->fd,
				     WL_EVENT_READABLE, on_socket, conn);
	conn->interest = WL_EVENT_READABLE;
	conn->sock_ready = true;
	if (!conn->watch) {
		wl_client_destroy(conn->client);
		return NULL;
	}
	/* The app rings only a consumer that asked for it. */
	ivwl_ring_prepare_sleep(&conn->request);
	ivwl_log("[%s] slot %u generation %u: new client", vm->name, slot,
		 generation);
	return conn;

err_xl:
	if (conn->fd >= 0)
		close(conn->fd);
	ivwl_translation_release(&conn->xl);
err_conn:
	free(conn->record);
	free(conn);
	return NULL;
}

const struct ivwl_vm_slot_ops ivwl_connection_slots = {
	.open = ivwl_connection_create,
	.close = ivwl_connection_destroy,
	.doorbell = ivwl_connection_doorbell,
	.more = ivwl_connection_more,
	.region_ready = ivwl_connection_region_ready,
};
