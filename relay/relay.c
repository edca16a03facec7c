/* SPDX-License-Identifier: MIT */
/*
 * One Wayland connection, carried by one ivwl slot: the client's requests
 * go from the socketpair into the request ring and the display's events
 * from the event ring back, fds turned into descriptors and back.  It runs
 * in ivwl-relay, a process of its own, so that the connection lives as
 * long as any process holds the client's end, exactly like a socket.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <unistd.h>

#include "agent-client.h"
#include "fd-flags.h"
#include "ivwl-protocols.h"
#include "mono-time.h"
#include "relay-internal.h"
#include "frame-trace.h"
#include "log.h"
#include "zero-copy-proto.h"

#define OPEN_TIMEOUT_MS 5000
#define TO_CLIENT_LIMIT (64u << 20)
/* How long a client waits for a display that left (IVWL_RESTART_WAIT). */
#define RESTART_WAIT_DEFAULT_S 60
/* How long a new display may take to configure the replayed windows. */
#define REPLAY_TIMEOUT_MS 10000
/* A replay the display is quiet on this long gets a nudge (replay.h). */
#define REPLAY_NUDGE_MS 200

static void
relay_free(struct relay *r)
{
	/* First: every fd below leaves the set with it. */
	ivwl_relay_wait_release(&r->wait);
	ivwl_relay_wait_release(&r->zc_wait);
	ivwl_relay_blobs_release(r);
	ivwl_channels_release(&r->channels);
	ivwl_buffers_release(&r->buffers);
	ivwl_stream_in_release(&r->from_client);
	ivwl_stream_out_release(&r->to_client);
	ivwl_wire_map_release(&r->objects);
	if (r->slot.base)
		ivwl_app_slot_detach(&r->slot);
	ivwl_grants_release_all(&r->buffers.grants);
	if (r->agent_fd >= 0)
		close(r->agent_fd);
	if (r->sock >= 0)
		close(r->sock);
	ivwl_relay_zc_close(&r->zc);
	ivwl_replay_destroy(r->replay);
	ivwl_replay_buf_release(&r->replay_out);
	ivwl_replay_buf_release(&r->synth);
	free(r->record);
	free(r->events);
	free(r);
}

/* ---- client -> display --------------------------------------------- */

static int
forward_request(struct relay *r, struct ivwl_wire_msg *msg, uint8_t *bytes)
{
	struct ivwl_fd_desc descs[IVWL_WAYLAND_MAX_FDS];
	int fds[IVWL_WAYLAND_MAX_FDS];
	uint32_t i;
	int ret;

	if (ivwl_stream_in_take_fds(&r->from_client, msg->nfds, fds) < 0)
		return relay_fail(r, "a request arrived without its fds");
	if (ivwl_channel_message(msg)) {
		struct ivwl_channel *ch;

		/* The display's side feeds this pipe through a channel. */
		if (ivwl_channel_sink_new(&r->channels, fds[0], &descs[0],
					  &ch) < 0)
			return relay_fail(r, "too many pipes open");
	} else if (msg->nfds > 0 &&
		   !(msg->iface == &ivwl_iface_wl_shm &&
		     msg->opcode == IVWL_REQ_WL_SHM_CREATE_POOL)) {
		for (i = 0; i < msg->nfds; i++)
			close(fds[i]);
		return relay_fail(r, "a request carries an fd of a kind ivwl does "
			    "not bridge");
	}
	ret = ivwl_buffers_request(&r->buffers, msg, bytes, fds, descs,
				   &r->why);
	if (ret < 0)
		return ret;
	/* A time the display could not be told in its clock: dropped (no
	 * timed request carries an fd). */
	if (!ivwl_relay_time_request(&r->time, msg, bytes))
		return 0;
	/* No restart to survive: no model to keep (IVWL_RESTART_WAIT=0). */
	if (r->restart_wait_s)
		ivwl_replay_note_request(r->replay, &r->objects, msg, bytes,
					 descs);
	ivwl_batch_add(&r->batch, bytes, msg->size, descs, msg->nfds);
	return 0;
}

/* A request the new display must not see: the relay answered it. */
static int
drop_request(struct relay *r, struct ivwl_wire_msg *msg)
{
	int fds[IVWL_WAYLAND_MAX_FDS];
	uint32_t i;

	if (ivwl_stream_in_take_fds(&r->from_client, msg->nfds, fds) < 0)
		return relay_fail(r, "a request arrived without its fds");
	for (i = 0; i < msg->nfds; i++)
		close(fds[i]);
	return 0;
}

/* 0, or -EAGAIN when the request ring is full. */
static int
pump_requests(struct relay *r)
{
	struct ivwl_stream_in *in = &r->from_client;
	enum ivwl_replay_verdict verdict;
	struct ivwl_wire_msg msg;
	size_t room;
	int n, ret;

	for (;;) {
		while (in->len > 0) {
			n = ivwl_wire_parse(&r->objects, IVWL_WIRE_REQUEST,
					    in->buf, in->len, &msg);
			if (n == 0)
				break;
			if (n < 0)
				return relay_fail(r, "the client sent a request "
					    "ivwl cannot decode");
			if (!ivwl_batch_fits(&r->batch, (uint32_t)n,
					     msg.nfds)) {
				ret = ivwl_batch_flush(&r->batch,
						       &r->slot.request);
				if (ret < 0)
					return ret;
			}
			verdict = ivwl_replay_filter_request(r->replay, &msg,
							     in->buf,
							     &r->synth);
			if (ivwl_wire_track(&r->objects, IVWL_WIRE_REQUEST,
					    &msg) < 0)
				return relay_fail(r, "request breaks object rules");
			if (verdict == IVWL_REPLAY_DROP)
				ret = drop_request(r, &msg);
			else
				ret = forward_request(r, &msg, in->buf);
			if (ret == 0 && r->synth.len)
				ret = ivwl_relay_deliver_synth(r);
			if (ret < 0)
				return ret;
			ivwl_stream_in_consume(in, (size_t)n);
		}
		if (!r->sock_ready)
			break;
		room = sizeof(in->buf) - in->len;
		n = ivwl_stream_in_read(in, r->sock);
		if (n == -EAGAIN) {
			r->sock_ready = false;
			break;
		}
		/*
		 * Short: the socket had no more (or the rest carries fds,
		 * which the wait reports at once).  Saves a read that would
		 * say EAGAIN on every commit.
		 */
		if (n > 0 && (size_t)n < room)
			r->sock_ready = false;
		if (n == 0) {
			r->client_gone = true;
			break;
		}
		if (n < 0)
			return relay_fail(r, "reading the client failed");
	}
	ret = ivwl_batch_flush(&r->batch, &r->slot.request);
	if (ret == 0)
		ivwl_relay_time_flushed(&r->time, r->slot.info.generation << 8 |
					r->slot.info.slot);
	return ret;
}

void
ivwl_relay_channel_destroy(struct relay *r, struct ivwl_channel *ch)
{
	ivwl_relay_wait_forget_pipe(&r->wait, ch);
	ivwl_channel_destroy(&r->channels, ch);
}

static void
channels_release(struct relay *r)
{
	while (r->channels.list)
		ivwl_relay_channel_destroy(r, r->channels.list);
}

/* 0, or -EAGAIN when the request ring is full. */
static int
pump_channels(struct relay *r)
{
	struct ivwl_channel *ch, *next;
	int ret;

	for (ch = r->channels.list; ch; ch = next) {
		next = ch->next;
		ret = ivwl_channel_pump(ch, &r->slot.request);
		if (ret == 1)
			ivwl_relay_channel_destroy(r, ch);
		else if (ret == -EAGAIN)
			return ret;
		else if (ret < 0)
			return relay_fail(r, "the request ring broke");
	}
	return 0;
}

/* ---- the thread ----------------------------------------------------- */

static bool
prepare_sleep(struct relay *r)
{
	if (!ivwl_ring_prepare_sleep(&r->slot.event))
		return false;
	if (r->requests_blocked &&
	    !ivwl_ring_prepare_sleep(&r->slot.request)) {
		ivwl_ring_woken(&r->slot.event);
		return false;
	}
	return true;
}

/* Awake: the display need not ring for what it writes meanwhile. */
static void
rings_woken(struct relay *r)
{
	ivwl_ring_woken(&r->slot.event);
	if (r->requests_blocked)
		ivwl_ring_woken(&r->slot.request);
}

/* The client's requests wait while the display is away or replayed to. */
static bool
holding_client(const struct relay *r)
{
	return r->display_down || !ivwl_replay_done(r->replay) ||
	       r->replay_pos < r->replay_out.len;
}

/* A replay under way on a display that serves the relay. */
static bool
replaying(const struct relay *r)
{
	return r->deadline_ms && !r->display_down &&
	       !ivwl_replay_done(r->replay);
}

static int
sleep_timeout(const struct relay *r)
{
	int64_t until = r->deadline_ms, left;

	if (!until)
		return -1;
	if (replaying(r) && r->heard_ms + REPLAY_NUDGE_MS < until)
		until = r->heard_ms + REPLAY_NUDGE_MS;
	left = until - ivwl_now_ms();
	return left > 0 ? (int)left : 0;
}

/*
 * While the display is away its rings are dead (what is left in them is
 * for no one), and the client waits: only the agent's wake-up, a hang-up
 * of the client or the deadline matter.
 */
static void
sleep_while_display_down(struct relay *r)
{
	struct pollfd pfd[2] = {
		{ .fd = r->slot.info.ep.wait_fd, .events = POLLIN },
		{ .fd = r->sock, .events = 0 },
	};

	if (r->to_client.len > 0)
		pfd[1].events |= POLLOUT;
	if (poll(pfd, 2, sleep_timeout(r)) <= 0)
		return;
	if (pfd[0].revents)
		ivwl_endpoint_drain(&r->slot.info.ep);
	if (pfd[1].revents & (POLLHUP | POLLERR))
		r->client_gone = true;
}

/* -1 when the relay cannot wait (r->why says why). */
static int
sleep_until_needed(struct relay *r)
{
	/* Requests wait while the ring is full or the client is held. */
	bool sock_in = !r->requests_blocked && !holding_client(r);
	bool slept, rang;

	if (ivwl_relay_wait_update(r, sock_in) < 0)
		return -1;
	/*
	 * No timeout but a replay's: the agent wakes us when the display
	 * changes state, restarts or leaves (it rings its control bit).  A
	 * display that moved meanwhile gets a look at the fds instead of a
	 * sleep: one wait costs less than trying each (chromium keeps about
	 * ten zero-copy channels, and this happens about every other frame).
	 */
	slept = prepare_sleep(r);
	rang = ivwl_relay_wait_sleep(r, sock_in,
				     slept ? sleep_timeout(r) : 0);
	if (slept)
		ivwl_trace(IVWL_TRACE_WAKE, rang);
	rings_woken(r);
	return 0;
}

/* For weston-debug ivwl on the display: stores only when they moved. */
static void
publish_stats(struct relay *r)
{
	const struct ivwl_buffers *b = &r->buffers;
	struct ivwl_slot_app_stats now = {
		.buffer_commits = b->buffer_commits,
		.damaged_bytes = b->damaged_bytes,
		.copied_bytes = b->copied_bytes,
		.zero_copy_commits = b->zero_copy_commits,
		.zero_copy_pools = b->zero_copy_pools,
		.copy_pools = b->copy_pools,
		.client_key = r->published.client_key,
	};

	if (memcmp(&now, &r->published, sizeof(now)) == 0)
		return;
	r->published = now;
	ivwl_app_slot_publish(&r->slot, &now);
}

/* 0, or -EAGAIN when the request ring is full. */
static int
pump_replay(struct relay *r)
{
	const struct ivwl_fd_desc *desc;
	const uint8_t *bytes;
	uint32_t pos = r->replay_pos, len;
	int ret;

	if (r->replay_out.oom)
		return relay_fail(r, "out of memory for the replay");
	while (ivwl_replay_buf_next(&r->replay_out, &pos, &bytes, &len,
				    &desc)) {
		if (!ivwl_batch_fits(&r->batch, len, desc ? 1 : 0)) {
			ret = ivwl_batch_flush(&r->batch, &r->slot.request);
			if (ret < 0)
				return ret;
		}
		ivwl_batch_add(&r->batch, bytes, len, desc, desc ? 1 : 0);
		r->replay_pos = pos;
	}
	ret = ivwl_batch_flush(&r->batch, &r->slot.request);
	if (ret == 0) {
		ivwl_replay_buf_reset(&r->replay_out);
		r->replay_pos = 0;
	}
	return ret;
}

/*
 * Clipboard and drag-and-drop pipes the old display fed or read end
 * here: their other end is gone.  The reader sees its pipe end; the log
 * says the transfer was cut short, never that it was whole.
 */
static void
cut_pipes(struct relay *r)
{
	struct ivwl_channel *ch;

	for (ch = r->channels.list; ch; ch = ch->next)
		ivwl_log("slot %u: a %s pipe was cut short after %llu "
			      "bytes: the display left", r->slot.info.slot,
			      ch->sink ? "paste" : "copy",
			      (unsigned long long)ch->total);
}

/*
 * The display left or restarted.  The client keeps its connection if the
 * model can be replayed; it hears what a restart undoes (focus, popups,
 * callbacks, selections) at once.
 */
static int
display_left(struct relay *r)
{
	const char *why = NULL;

	if (!r->restart_wait_s)
		return -1;
	if (ivwl_replay_begin(r->replay, &r->objects, &r->synth, &why) < 0) {
		ivwl_log("slot %u: the client cannot outlive the "
			      "display's restart: %s", r->slot.info.slot, why);
		return -1;
	}
	ivwl_log_debug("slot %u: %u bytes of events for the client",
			r->slot.info.slot, r->synth.len);
	if (ivwl_relay_deliver_synth(r) < 0)
		return -1;
	/* What went to the old display is in the model already, and a
	 * replay to it that did not finish is moot. */
	r->batch.len = 0;
	r->batch.nfds = 0;
	ivwl_replay_buf_reset(&r->replay_out);
	r->replay_pos = 0;
	/* A display shutting down stops reading first: its full ring is
	 * nothing to wait for on the next. */
	r->requests_blocked = false;
	cut_pipes(r);
	channels_release(r);
	ivwl_channels_init(&r->channels, IVWL_SIDE_APP);
	r->display_down = true;
	r->display_said_bye = false;
	r->deadline_ms = ivwl_now_ms() + r->restart_wait_s * 1000ll;
	ivwl_log("slot %u: the display left; keeping the client's "
		      "windows for up to %d s", r->slot.info.slot,
		      r->restart_wait_s);
	return 0;
}

/* A new display serves the region: a slot on it, and the replay. */
static int
display_back(struct relay *r)
{
	struct ivwl_agent_slot info;
	const char *why = NULL;
	bool ready;
	int ret;

	/* The move closes the old slot's doorbell. */
	ivwl_relay_wait_forget_doorbell(&r->wait);
	ivwl_agent_close_slot(r->agent_fd, r->slot.info.slot,
			      r->slot.info.generation);
	ret = ivwl_agent_open_slot(r->agent_fd, &info);
	/* the agent ended between our sleep and this ask */
	if (ret == -ECONNRESET || ret == -EPIPE) {
		r->agent_gone = true;
		return 0;
	}
	if (ret == 0)
		ret = ivwl_app_slot_move(&r->slot, &info);
	if (ret == 0)
		ret = ivwl_app_slot_wait_open(&r->slot, OPEN_TIMEOUT_MS);
	/* Gone again before it served us: wait for the next one. */
	if (ret == -ENOTCONN || (ret == -ETIMEDOUT &&
	    ivwl_app_slot_display_restarted(&r->slot, &ready))) {
		ivwl_log("slot %u: the new display left before it "
			      "opened a slot; waiting for another",
			      r->slot.info.slot);
		return 0;
	}
	if (ret < 0) {
		r->why = "the new display did not open a slot";
		return ret;
	}
	ivwl_app_slot_publish(&r->slot, &r->published);
	ret = ivwl_replay_start(r->replay, &r->objects, &r->replay_out, &why);
	if (ret < 0) {
		r->why = why;
		return ret;
	}
	r->display_down = false;
	ivwl_app_slot_set_replaying(&r->slot, true);
	r->heard_ms = ivwl_now_ms();
	r->deadline_ms = r->heard_ms + REPLAY_TIMEOUT_MS;
	ivwl_log("slot %u generation %u: replaying the client's "
		      "windows on the new display", r->slot.info.slot,
		      r->slot.info.generation);
	return 0;
}

/* -1 when the connection is over. */
static int
watch_display(struct relay *r)
{
	bool ready;

	if (r->agent_gone) {
		r->why = "the VM's ivwl-agent went away, and with it the "
			 "region: no display can come back on it";
		return -1;
	}

	if (r->display_down) {
		if (ivwl_app_slot_display_restarted(&r->slot, &ready) &&
		    ready)
			return display_back(r);
		if (sleep_timeout(r) == 0) {
			r->why = "no display came back in time";
			return -1;
		}
		return 0;
	}
	if (r->deadline_ms && ivwl_replay_done(r->replay)) {
		r->deadline_ms = 0;
		ivwl_app_slot_set_replaying(&r->slot, false);
		ivwl_log("slot %u: the client's windows are back",
			      r->slot.info.slot);
	}
	if (replaying(r) && ivwl_now_ms() - r->heard_ms >= REPLAY_NUDGE_MS) {
		ivwl_replay_nudge(r->replay, &r->replay_out);
		r->heard_ms = ivwl_now_ms();
	}
	if (r->deadline_ms && ivwl_now_ms() >= r->deadline_ms) {
		snprintf(r->why_buf, sizeof(r->why_buf), "the new display did "
			 "not take the replay in time (waiting for %s)",
			 ivwl_replay_waiting(r->replay));
		r->why = r->why_buf;
		return -1;
	}
	if (ivwl_app_slot_alive(&r->slot))
		return 0;
	/* Its last events, and DISCONNECT saying why, came before the
	 * slot state: take them. */
	if (ivwl_relay_pump_events(r) < 0)
		return -1;
	if (ivwl_app_slot_display_restarted(&r->slot, &ready) &&
	    display_left(r) == 0)
		return watch_display(r);
	if (!r->why)
		r->why = r->display_said_bye ? r->why_buf :
			 "the display closed the connection";
	return -1;
}

/*
 * What the relay does each time it wakes, up to its sleep: the client's
 * requests and the replay's, the display's events, the pipes, then a
 * look at the display.  -1 when the connection is over.
 */
static int
relay_pass(struct relay *r)
{
	int ret = 0, cret;

	if (!r->display_down) {
		/* Before requests: a create_pool may name a grant. */
		ivwl_relay_zc_pump(&r->zc);
		ret = pump_replay(r);
		if (ret == 0 && !holding_client(r))
			ret = pump_requests(r);
		if (ret < 0 && ret != -EAGAIN)
			return -1;
		publish_stats(r);
		if (ivwl_relay_pump_events(r) < 0)
			return -1;
		/* Sinks write out even while the ring is full. */
		cret = pump_channels(r);
		if (cret < 0 && cret != -EAGAIN)
			return -1;
		r->requests_blocked = ret == -EAGAIN || cret == -EAGAIN;
		ivwl_app_slot_kick(&r->slot);
	}
	if (watch_display(r) < 0 || r->client_gone)
		return -1;
	return 0;
}

/* Whether a pass must follow at once, without a wait. */
static bool
pass_again(const struct relay *r)
{
	/* Events may have queued the replay's next steps. */
	return r->replay_pos < r->replay_out.len && !r->requests_blocked;
}

/* What a gone connection leaves: its slot, the client's end, the log. */
static void
relay_end(struct relay *r)
{
	/* No more sleeps: out of the set before anything in it closes. */
	ivwl_relay_wait_release(&r->wait);
	ivwl_relay_wait_release(&r->zc_wait);
	/* An app that lost its display says why in its own log. */
	if (r->why)
		ivwl_log("slot %u: connection over: %s",
			      r->slot.info.slot, r->why);
	else
		ivwl_log_debug("slot %u: connection over: the client "
				"closed it", r->slot.info.slot);
	if (getenv("IVWL_STATS"))
		fprintf(stderr, "ivwl-stats: commits=%llu damaged_bytes=%llu "
			"copied_bytes=%llu zero_copy_commits=%llu "
			"zero_copy_pools=%llu copy_pools=%llu restarts=%u\n",
			(unsigned long long)r->buffers.buffer_commits,
			(unsigned long long)r->buffers.damaged_bytes,
			(unsigned long long)r->buffers.copied_bytes,
			(unsigned long long)r->buffers.zero_copy_commits,
			(unsigned long long)r->buffers.zero_copy_pools,
			(unsigned long long)r->buffers.copy_pools,
			ivwl_replay_count(r->replay));
	/* The agent frees the slot when our socket closes anyway. */
	if (ivwl_agent_close_slot(r->agent_fd, r->slot.info.slot,
				  r->slot.info.generation) < 0)
		ivwl_log_debug("slot %u: the agent did not take it back",
				r->slot.info.slot);
	/* The client must see its connection end meanwhile. */
	close(r->sock);
	r->sock = -1;
}

void
ivwl_relay_run(struct relay *r)
{
	int ret;

	while (!r->client_gone) {
		if (relay_pass(r) < 0)
			break;
		if (pass_again(r))
			continue;
		if (r->display_down) {
			/* Only a hang-up of the client matters now. */
			ret = ivwl_stream_out_flush(&r->to_client, r->sock);
			if (ret < 0 && ret != -EAGAIN)
				r->client_gone = true;
			else
				sleep_while_display_down(r);
			continue;
		}
		if (sleep_until_needed(r) < 0)
			break;
	}
	relay_end(r);
	ivwl_buffers_release(&r->buffers);
	ivwl_relay_zc_linger(&r->zc);
	relay_free(r);
}

/* ---- run by the client's own process ------------------------------- */

int
ivwl_relay_step(struct relay *r)
{
	bool sock_in, slept, rang;
	int ret;

	rings_woken(r);
	for (;;) {
		if (r->client_gone || relay_pass(r) < 0)
			return -1;
		if (pass_again(r))
			continue;
		if (r->display_down) {
			ret = ivwl_stream_out_flush(&r->to_client, r->sock);
			if (ret < 0 && ret != -EAGAIN)
				return -1;
			/* the doorbell and the timer say when to look */
			ivwl_relay_wait_sleep(r, false, 0);
			return 0;
		}
		sock_in = !r->requests_blocked && !holding_client(r);
		if (ivwl_relay_wait_update(r, sock_in) < 0)
			return -1;
		slept = prepare_sleep(r);
		rang = ivwl_relay_wait_sleep(r, sock_in, 0);
		if (slept && !rang && !(sock_in && r->sock_ready) &&
		    !ivwl_relay_zc_any_ready(&r->zc))
			return 0;	/* asleep: the display rings */
		rings_woken(r);
	}
}

void
ivwl_relay_client_wrote(struct relay *r)
{
	r->sock_ready = true;
}

int
ivwl_relay_wait_fd(const struct relay *r)
{
	return r->wait.epfd;
}

int
ivwl_relay_timeout_ms(const struct relay *r)
{
	return sleep_timeout(r);
}

int
ivwl_relay_zc_wait_fd(const struct relay *r)
{
	return r->zc_wait.epfd;
}

void
ivwl_relay_serve_zc(struct relay *r)
{
	struct epoll_event ev[IVWL_ZC_MAX_CHANNELS + 1];
	int n, i;

	n = epoll_wait(r->zc_wait.epfd, ev, IVWL_ZC_MAX_CHANNELS + 1, 0);
	if (n <= 0)
		return;
	for (i = 0; i < n; i++)
		ivwl_relay_zc_woken(&r->zc, (uint32_t)(ev[i].data.u64 >> 8));
	ivwl_relay_zc_pump(&r->zc);
	ivwl_relay_zc_none_ready(&r->zc);
}

bool
ivwl_relay_rings_untouched(struct relay *r)
{
	return ivwl_ring_published_is_own(&r->slot.request) &&
	       ivwl_ring_published_is_own(&r->slot.event);
}

void
ivwl_relay_take_over(struct relay *r)
{
	ivwl_ring_renew_tokens(&r->slot.request);
	ivwl_ring_renew_tokens(&r->slot.event);
}

bool
ivwl_relay_has_pipes(const struct relay *r)
{
	return r->channels.list != NULL;
}

bool
ivwl_relay_end(struct relay *r)
{
	relay_end(r);
	/* Memory the client draws in stays its own until it exits. */
	if (ivwl_grants_client_maps(&r->buffers.grants))
		return false;
	ivwl_buffers_release(&r->buffers);
	relay_free(r);
	return true;
}

/*
 * The client's key (region.h's client_key): a display keeps where its
 * windows stood under it.  Never 0, which says a relay draws none.
 */
static uint64_t
client_key(void)
{
	uint64_t key = 0;

	if (getrandom(&key, sizeof(key), GRND_NONBLOCK) != sizeof(key))
		key = (uint64_t)getpid() << 32 ^ (uint64_t)ivwl_now_ns();
	return key ? key : 1;
}

/* IVWL_RESTART_WAIT: seconds, 0 to end connections when the display goes. */
static int
restart_wait_s(void)
{
	const char *v = getenv("IVWL_RESTART_WAIT");
	char *end;
	long s;

	if (!v || !*v)
		return RESTART_WAIT_DEFAULT_S;
	s = strtol(v, &end, 10);
	if (*end || s < 0 || s > 86400) {
		ivwl_log("IVWL_RESTART_WAIT=%s is not 0 to 86400 seconds; "
			      "using %d", v, RESTART_WAIT_DEFAULT_S);
		return RESTART_WAIT_DEFAULT_S;
	}
	return (int)s;
}

/*
 * A slot of the agent's, waiting up to IVWL_DISPLAY_WAIT for a display
 * not attached yet: a client started with its VM, a moment before the
 * gui-VM's weston attached, shows its window instead of failing.
 */
static int
open_slot_waiting(int agent_fd, struct ivwl_agent_slot *info)
{
	int64_t start = ivwl_now_ms();
	int64_t deadline = start + ivwl_display_wait_ms();
	const char *bad = ivwl_display_wait_bad();
	bool waited = false;
	int ret;

	if (bad)
		ivwl_log("IVWL_DISPLAY_WAIT=%s is not 0 to 60 seconds; "
			 "using %d", bad, IVWL_DISPLAY_WAIT_DEFAULT_S);

	while ((ret = ivwl_agent_open_slot(agent_fd, info)) == -EHOSTDOWN &&
	       ivwl_ms_left(deadline) > 0) {
		waited = true;
		poll(NULL, 0, 100);
	}
	if (waited && ret == 0)
		ivwl_log_debug("the display attached after %lld ms of waiting",
			       (long long)(ivwl_now_ms() - start));
	return ret;
}

int
ivwl_relay_open(int sock, int zc_fd, unsigned flags, struct relay **out)
{
	struct ivwl_agent_slot info;
	struct relay *r;
	int ret;

	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->sock = -1;
	r->sock_ready = true;
	r->zc_wait.epfd = -1;
	ret = ivwl_relay_wait_init(&r->wait);
	if (ret == 0 && (flags & IVWL_RELAY_IN_PROCESS))
		ret = ivwl_relay_wait_init(&r->zc_wait);
	ivwl_relay_zc_init(&r->zc, &r->buffers, &r->slot.info.ep,
			   r->zc_wait.epfd >= 0 ? &r->zc_wait : &r->wait);
	if (ret < 0)
		goto err_relay;
	r->agent_fd = ivwl_agent_connect(ivwl_agent_socket_path());
	if (r->agent_fd < 0) {
		ret = r->agent_fd;
		goto err_relay;
	}
	/* the agent owns the region and tells of the display's leaving:
	 * no display comes back on a region without it (watch_display) */
	ret = ivwl_relay_wait_add(&r->wait, r->agent_fd, EPOLLRDHUP,
				  IVWL_RELAY_WAIT_TAG(IVWL_RELAY_WAIT_AGENT, 0));
	if (ret < 0)
		goto err_relay;
	ret = open_slot_waiting(r->agent_fd, &info);
	if (ret < 0)
		goto err_relay;
	ret = ivwl_app_slot_attach(&r->slot, &info);
	if (ret < 0)
		goto err_relay;
	/* What an earlier connection of the slot did is not ours. */
	r->published.client_key = client_key();
	ivwl_app_slot_publish(&r->slot, &r->published);
	ivwl_app_slot_set_replaying(&r->slot, false);
	ret = ivwl_app_slot_wait_open(&r->slot, OPEN_TIMEOUT_MS);
	if (ret == -ECONNREFUSED)
		ret = -EACCES;		/* the display closed the slot */
	if (ret < 0)
		goto err_relay;
	r->record = malloc(ivwl_ring_max_payload(&r->slot.event));
	r->events = malloc(ivwl_ring_max_payload(&r->slot.event));
	r->replay = ivwl_replay_create();
	if (!r->record || !r->events || !r->replay ||
	    ivwl_wire_map_init(&r->objects) < 0) {
		ret = -ENOMEM;
		goto err_relay;
	}
	ivwl_buffers_init(&r->buffers, r->agent_fd, r->slot.base,
			  &r->slot.layout);
	ivwl_channels_init(&r->channels, IVWL_SIDE_APP);
	ivwl_relay_time_init(&r->time, r->slot.base, r->agent_fd);
	r->restart_wait_s = restart_wait_s();
	ivwl_stream_in_init(&r->from_client);
	ivwl_stream_out_init(&r->to_client, TO_CLIENT_LIMIT);
	ret = ivwl_fd_set_nonblock(sock, true);
	if (ret < 0)
		goto err_relay;
	/* In the relay's set from its first sleep (ivwl_relay_wait_update). */
	r->sock = sock;
	if (zc_fd >= 0)
		ivwl_relay_zc_start(&r->zc, zc_fd, sock);
	ivwl_log_debug("slot %u generation %u: relaying", info.slot,
			info.generation);
	*out = r;
	return 0;

err_relay:
	relay_free(r);
	return ret;
}
