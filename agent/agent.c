/* SPDX-License-Identifier: MIT */
/*
 * ivwl-agent: the app side's owner of one region.
 *
 * It initialises the app side of the region, hands slots and heap ranges
 * to local processes and takes them back when a process goes away.  It is
 * not on the data path: a process that holds a slot rings and is rung
 * through the fds it got here, without the agent.
 *
 * The region comes from ivwl-server (--server, the agent as a host
 * process) or from the guest driver (--device /dev/ivwlN, in an app-vm).
 * With the driver, every fd a shim gets shares the agent's open file of
 * the device: it needs no access to the node itself.
 *
 * A slot or range given back is not reused until the display side has
 * let go of it (its slot state moved on, it restarted, or it is gone), so
 * one client's pixels never show up in another client's buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/eventfd.h>
#include <sys/un.h>
#include <unistd.h>

#include "agent-client.h"
#include "agent-proto.h"
#include "clock-agent.h"
#include "device.h"
#include "fdmsg.h"
#include "frame-trace.h"
#include "heap.h"
#include "log.h"
#include "mono-time.h"
#include "region.h"
#include "ring.h"
#include "shm-access.h"
#include "unix-listen.h"

#define ATTACH_TIMEOUT_MS 10000
/* How long a loopback doorbell may take to come back (TCG is slow). */
#define PROBE_VECTORS_MS 2000

enum agent_slot_state {
	AGENT_SLOT_FREE,
	AGENT_SLOT_OPEN,
	AGENT_SLOT_QUARANTINE,	/* given back, display may still use it */
};

struct agent_client {
	int fd;
	pid_t pid;
	bool dying;		/* socket gone, waiting for its slots */
	uint32_t nslots;	/* OPEN or QUARANTINE slots it owns */
	struct ivwl_extent *ranges;
	uint32_t nranges;
	uint32_t ranges_cap;
	int refused;		/* the last refusal its log line gave */
	int64_t refused_ms;	/* when a wait for the display began */
};

struct agent_slot {
	enum agent_slot_state state;
	uint32_t generation;
	uint32_t display_epoch;	/* display epoch when quarantined */
	struct agent_client *owner;
	/*
	 * The eventfd its relay waits on: we take the display's doorbells
	 * on vector 0 and pass each on to the slot it was for.  With wake
	 * vectors it is the slot's own vector, which the display also rings
	 * directly.
	 */
	int wake_fd;
};

struct agent {
	struct ivwl_device *dev;
	void *base;
	struct ivwl_layout layout;
	uint32_t usable_slots;
	/* Vector 0 and each slot's below it: region.h wake_vectors. */
	uint32_t wake_vectors;
	struct agent_slot slots[IVWL_SLOT_COUNT];
	struct ivwl_heap heap;
	struct agent_client *clients[IVWL_AGENT_MAX_CLIENTS];
	uint32_t nclients;
	const char *listen_path;
	int listen_fd;
	int signal_fd;
	bool verbose;
	struct ivwl_clock_asker clock;	/* docs/region.md, "Clock link" */
	int64_t clock_from;		/* asker time the burst began */
	int64_t clock_until;		/* asker time it samples until */
	uint32_t clock_epoch;		/* the display's, when last woken */
};

/*
 * Sampling only while a relay translates times: idle costs no wake-up.
 * A burst ends early once its answers settled the estimate, so the last
 * frames of a busy spell do not leave the link ticking into the idle.
 */
static bool
clock_active(struct agent *agent)
{
	int64_t now = ivwl_clock_asker_now(&agent->clock);

	if (now >= agent->clock_until)
		return false;
	if (ivwl_clock_asker_settled(&agent->clock, agent->clock_from,
				     IVWL_AGENT_CLOCK_SETTLED_MS * 1000000ll)) {
		agent->clock_until = now;
		return false;
	}
	return true;
}

static void
clock_wanted(struct agent *agent)
{
	int64_t now = ivwl_clock_asker_now(&agent->clock);

	/* Back from rest: the estimate is old, ask at once. */
	if (now >= agent->clock_until) {
		agent->clock_from = now;
		if (agent->clock.next_at > now)
			agent->clock.next_at = now;
	}
	agent->clock_until = now + IVWL_AGENT_CLOCK_ACTIVE_MS * 1000000ll;
}

static struct ivwl_side_block *
own_block(struct agent *agent)
{
	return ivwl_region_side(agent->base, IVWL_SIDE_APP);
}

static struct ivwl_side_block *
display_block(struct agent *agent)
{
	return ivwl_region_side(agent->base, IVWL_SIDE_DISPLAY);
}

static uint32_t
display_epoch(struct agent *agent)
{
	return ivwl_shm_load(&display_block(agent)->epoch);
}

static bool
display_ready(struct agent *agent)
{
	return ivwl_device_peer_present(agent->dev, IVWL_PEER_DISPLAY) &&
	       ivwl_shm_load(&display_block(agent)->state) == IVWL_SIDE_READY;
}

static void
notify_display(struct agent *agent)
{
	/* -ENOENT while no display is attached: it scans when it comes. */
	if (ivwl_doorbell_post(agent->base, IVWL_SIDE_DISPLAY,
			       IVWL_DOORBELL_CONTROL))
		ivwl_device_ring(agent->dev, IVWL_PEER_DISPLAY,
				 IVWL_DOORBELL_VECTOR);
}

static void
wake_slot(struct agent *agent, uint32_t slot)
{
	uint64_t one = 1;

	/* Non-blocking, ours alone: EAGAIN means already woken. */
	if (agent->slots[slot].wake_fd >= 0 &&
	    write(agent->slots[slot].wake_fd, &one, sizeof(one)) < 0 &&
	    errno != EAGAIN && agent->verbose)
		ivwl_log("waking slot %u: %s", slot, strerror(errno));
}

/* The display changed state, restarted or left: every relay looks. */
static void
wake_all_slots(struct agent *agent)
{
	uint32_t i;

	for (i = 0; i < agent->usable_slots; i++)
		wake_slot(agent, i);
}

static struct ivwl_slot_ctrl *
slot_ctrl(struct agent *agent, uint32_t slot)
{
	struct ivwl_slot_view view;

	ivwl_region_slot(agent->base, &agent->layout, slot, &view);
	return view.ctrl;
}

/* Zeroes the two ring indices the app side owns in this slot. */
static void
reset_app_indices(struct agent *agent, uint32_t slot)
{
	struct ivwl_slot_view view;
	struct ivwl_ring request, event;

	ivwl_region_slot(agent->base, &agent->layout, slot, &view);
	ivwl_ring_init_producer(&request, &view.ctrl->request,
				view.request_data, agent->layout.ring_size);
	ivwl_ring_init_consumer(&event, &view.ctrl->event, view.event_data,
				agent->layout.ring_size);
	ivwl_ring_reset(&request);
	ivwl_ring_reset(&event);
}

static void
client_free_ranges(struct agent *agent, struct agent_client *client)
{
	uint32_t i;

	for (i = 0; i < client->nranges; i++)
		ivwl_heap_free(&agent->heap, client->ranges[i]);
	client->nranges = 0;
}

static void
client_destroy(struct agent *agent, struct agent_client *client)
{
	uint32_t i;

	client_free_ranges(agent, client);
	free(client->ranges);
	for (i = 0; i < agent->nclients; i++) {
		if (agent->clients[i] == client) {
			agent->clients[i] = agent->clients[--agent->nclients];
			break;
		}
	}
	free(client);
}

static void
slot_release(struct agent *agent, uint32_t slot)
{
	struct agent_slot *s = &agent->slots[slot];
	struct agent_client *owner = s->owner;

	s->state = AGENT_SLOT_FREE;
	s->owner = NULL;
	if (s->wake_fd >= 0)
		close(s->wake_fd);
	s->wake_fd = -1;
	owner->nslots--;
	if (owner->dying && owner->nslots == 0) {
		if (agent->verbose)
			ivwl_log("pid %d: heap ranges reclaimed",
				  (int)owner->pid);
		client_destroy(agent, owner);
	}
}

static bool
display_let_go(struct agent *agent, uint32_t slot)
{
	struct agent_slot *s = &agent->slots[slot];
	uint32_t state, generation;

	/*
	 * GONE: it let go of everything.  The guest driver reports every
	 * peer present, so a display that left cleanly shows only here.
	 */
	if (!ivwl_device_peer_present(agent->dev, IVWL_PEER_DISPLAY) ||
	    ivwl_shm_load(&display_block(agent)->state) == IVWL_SIDE_GONE ||
	    display_epoch(agent) != s->display_epoch)
		return true;
	ivwl_slot_state_load(&slot_ctrl(agent, slot)->display, &state,
			     &generation);
	return state != IVWL_DISPLAY_SLOT_OPEN || generation != s->generation;
}

/* Frees every quarantined slot the display no longer holds. */
static void
sweep(struct agent *agent)
{
	uint32_t i;

	for (i = 0; i < agent->usable_slots; i++)
		if (agent->slots[i].state == AGENT_SLOT_QUARANTINE &&
		    display_let_go(agent, i))
			slot_release(agent, i);
}

static void
slot_close(struct agent *agent, uint32_t slot)
{
	struct agent_slot *s = &agent->slots[slot];

	ivwl_slot_state_store(&slot_ctrl(agent, slot)->app,
			      IVWL_APP_SLOT_FREE, s->generation);
	s->state = AGENT_SLOT_QUARANTINE;
	s->display_epoch = display_epoch(agent);
	notify_display(agent);
}

static void
client_gone(struct agent *agent, struct agent_client *client)
{
	uint32_t i;

	if (agent->verbose)
		ivwl_log("pid %d: gone; %u slot(s), %u range(s) return once the display lets go",
			  (int)client->pid, client->nslots, client->nranges);
	if (client->refused == -EHOSTDOWN)
		ivwl_log("pid %d: gave up waiting for the display after "
			 "%lld ms", (int)client->pid,
			 (long long)(ivwl_now_ms() - client->refused_ms));
	close(client->fd);
	client->fd = -1;
	client->dying = true;
	for (i = 0; i < agent->usable_slots; i++)
		if (agent->slots[i].owner == client &&
		    agent->slots[i].state == AGENT_SLOT_OPEN)
			slot_close(agent, i);
	if (client->nslots == 0)
		client_destroy(agent, client);
	else
		sweep(agent);
}

static int
reply(struct agent_client *client, struct ivwl_agent_reply *rep,
      const int *fds, int nfds)
{
	return ivwl_fdmsg_send_whole(client->fd, rep, sizeof(*rep), fds, nfds);
}

static int
find_free_slot(struct agent *agent)
{
	uint32_t i;

	for (i = 0; i < agent->usable_slots; i++)
		if (agent->slots[i].state == AGENT_SLOT_FREE)
			return (int)i;
	return -1;
}

/*
 * What a slot's relay needs: the region, the display's vector 0 to ring,
 * and an eventfd to wait on.  That is the slot's own vector when the
 * device has one for it, which the display rings for the slot alone, or
 * else an eventfd of ours that on_doorbell() writes.
 */
static int
export_slot_endpoint(struct agent *agent, uint32_t slot,
		     struct ivwl_endpoint *ep)
{
	uint32_t wait = IVWL_WAKE_VECTOR(slot) < agent->wake_vectors ?
			IVWL_WAKE_VECTOR(slot) : IVWL_DOORBELL_VECTOR;
	int ret;

	ret = ivwl_device_export_endpoint(agent->dev, IVWL_PEER_DISPLAY,
					  IVWL_DOORBELL_VECTOR, wait, ep);
	if (ret < 0 || wait != IVWL_DOORBELL_VECTOR)
		return ret;
	/* Not for the relay: vector 0 is ours to take. */
	close(ep->wait_fd);
	ep->wait_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (ep->wait_fd < 0) {
		ret = -errno;
		ivwl_endpoint_close(ep);
		return ret;
	}
	return 0;
}

/*
 * A connection the agent cannot give: the log says why once for each
 * client and cause, not for every ask of a relay that waits for the
 * display (IVWL_DISPLAY_WAIT), and again for the next client.
 */
static int
refuse(struct agent_client *client, int err)
{
	if (err != client->refused) {
		ivwl_log("pid %d: no connection: %s", (int)client->pid,
			 ivwl_agent_refusal(err));
		client->refused_ms = ivwl_now_ms();
	}
	client->refused = err;
	return err;
}

/* A client the display's absence held back says how long it waited. */
static void
given_after_refusal(struct agent_client *client)
{
	if (client->refused == -EHOSTDOWN)
		ivwl_log("pid %d: the display attached: a connection after "
			 "waiting %lld ms for it", (int)client->pid,
			 (long long)(ivwl_now_ms() - client->refused_ms));
	client->refused = 0;
}

static int
handle_open_slot(struct agent *agent, struct agent_client *client,
		 struct ivwl_agent_reply *rep)
{
	struct ivwl_endpoint ep;
	struct agent_slot *s;
	int slot, ret, fds[3];

	if (!display_ready(agent))
		return refuse(client, -EHOSTDOWN);
	if (client->nslots >= IVWL_AGENT_MAX_SLOTS_PER_CLIENT)
		return refuse(client, -EDQUOT);
	sweep(agent);
	slot = find_free_slot(agent);
	if (slot < 0)
		return refuse(client, -EBUSY);

	ret = export_slot_endpoint(agent, (uint32_t)slot, &ep);
	if (ret < 0)
		return ret;

	s = &agent->slots[slot];
	s->wake_fd = fcntl(ep.wait_fd, F_DUPFD_CLOEXEC, 0);
	if (s->wake_fd < 0) {
		ret = -errno;
		ivwl_endpoint_close(&ep);
		return ret;
	}
	s->generation++;
	if (s->generation == 0)
		s->generation = 1;
	s->state = AGENT_SLOT_OPEN;
	s->owner = client;
	client->nslots++;

	/* Indices first: the display resets its own when it sees OPEN. */
	reset_app_indices(agent, (uint32_t)slot);
	ivwl_slot_state_store(&slot_ctrl(agent, (uint32_t)slot)->app,
			      IVWL_APP_SLOT_OPEN, s->generation);
	notify_display(agent);

	rep->val[0] = (uint32_t)slot;
	rep->val[1] = s->generation;
	rep->val[2] = ep.region_size;
	rep->val[3] = ep.doorbell_kind;
	rep->val[4] = (uint64_t)ep.doorbell_peer << 16 | ep.doorbell_vector;
	fds[0] = ep.region_fd;
	fds[1] = ep.doorbell_fd;
	fds[2] = ep.wait_fd;
	reply(client, rep, fds, 3);
	ivwl_endpoint_close(&ep);
	given_after_refusal(client);
	if (agent->verbose)
		ivwl_log("pid %d: slot %d generation %u", (int)client->pid,
			  slot, s->generation);
	/* Answered either way: a failed send shows up as EOF next. */
	return 1;
}

static int
handle_close_slot(struct agent *agent, struct agent_client *client,
		  uint64_t slot, uint64_t generation)
{
	struct agent_slot *s;

	if (slot >= agent->usable_slots)
		return -ENOENT;
	s = &agent->slots[slot];
	if (s->state != AGENT_SLOT_OPEN || s->owner != client ||
	    s->generation != generation)
		return -ENOENT;
	slot_close(agent, (uint32_t)slot);
	sweep(agent);
	return 0;
}

static int
handle_alloc(struct agent *agent, struct agent_client *client,
	     uint64_t length, struct ivwl_agent_reply *rep)
{
	struct ivwl_extent range;
	int ret;

	if (client->nranges >= IVWL_AGENT_MAX_RANGES_PER_CLIENT)
		return -EDQUOT;
	if (client->nranges == client->ranges_cap) {
		uint32_t cap = client->ranges_cap ? 2 * client->ranges_cap : 16;
		struct ivwl_extent *n;

		n = realloc(client->ranges, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		client->ranges = n;
		client->ranges_cap = cap;
	}
	ret = ivwl_heap_alloc(&agent->heap, length, &range);
	if (ret < 0)
		return ret == -EINVAL && length != 0 ? -ENOMEM : ret;
	client->ranges[client->nranges++] = range;
	rep->val[0] = range.offset;
	rep->val[1] = range.length;
	return 0;
}

static int
handle_free(struct agent *agent, struct agent_client *client,
	    uint64_t offset)
{
	uint32_t i;

	for (i = 0; i < client->nranges; i++) {
		if (client->ranges[i].offset != offset)
			continue;
		ivwl_heap_free(&agent->heap, client->ranges[i]);
		client->ranges[i] = client->ranges[--client->nranges];
		return 0;
	}
	return -ENOENT;
}

static void
fill_status(struct agent *agent, struct ivwl_agent_reply *rep)
{
	uint32_t i, free_slots = 0, quarantined = 0;

	sweep(agent);
	for (i = 0; i < agent->usable_slots; i++) {
		if (agent->slots[i].state == AGENT_SLOT_FREE)
			free_slots++;
		else if (agent->slots[i].state == AGENT_SLOT_QUARANTINE)
			quarantined++;
	}
	rep->val[0] = free_slots;
	rep->val[1] = agent->usable_slots;
	rep->val[2] = agent->heap.free_bytes;
	rep->val[3] = agent->heap.size;
	rep->val[4] = quarantined;
	rep->val[5] = ivwl_shm_load(&own_block(agent)->epoch);
}

/* One request; false when the client must go. */
static bool
handle_request(struct agent *agent, struct agent_client *client)
{
	struct ivwl_agent_request req;
	struct ivwl_agent_reply rep = { 0 };
	int fds[4], nfds, ret;

	ret = ivwl_fdmsg_recv_whole(client->fd, &req, sizeof(req), fds, 4,
				    &nfds);
	while (nfds > 0)
		close(fds[--nfds]);	/* clients never send fds */
	if (ret <= 0)
		return false;

	rep.op = req.op;
	switch (req.op) {
	case IVWL_AGENT_HELLO:
		ret = req.arg0 == IVWL_AGENT_PROTO_VERSION ? 0 :
							     -EPROTONOSUPPORT;
		break;
	case IVWL_AGENT_OPEN_SLOT:
		ret = handle_open_slot(agent, client, &rep);
		if (ret > 0)
			return true;
		break;
	case IVWL_AGENT_CLOSE_SLOT:
		ret = handle_close_slot(agent, client, req.arg0, req.arg1);
		break;
	case IVWL_AGENT_ALLOC:
		ret = handle_alloc(agent, client, req.arg0, &rep);
		break;
	case IVWL_AGENT_FREE:
		ret = handle_free(agent, client, req.arg0);
		break;
	case IVWL_AGENT_STATUS:
		fill_status(agent, &rep);
		ret = 0;
		break;
	case IVWL_AGENT_CLOCK_WANTED:
		clock_wanted(agent);
		ret = 0;
		break;
	default:
		ivwl_log("pid %d: unknown request %u, disconnecting",
			  (int)client->pid, req.op);
		return false;
	}
	rep.status = ret;
	return reply(client, &rep, NULL, 0) == 0;
}

static void
accept_client(struct agent *agent)
{
	struct agent_client *client;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int fd;

	fd = accept4(agent->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		cred.pid = 0;
	if (agent->nclients >= IVWL_AGENT_MAX_CLIENTS) {
		ivwl_log("pid %d: no connection: the agent serves as many "
			 "clients as it may (%u)", (int)cred.pid,
			 IVWL_AGENT_MAX_CLIENTS);
		close(fd);
		return;
	}
	client = calloc(1, sizeof(*client));
	if (!client) {
		close(fd);
		return;
	}
	client->fd = fd;
	client->pid = cred.pid;
	agent->clients[agent->nclients++] = client;
}

static int
listen_on(const char *path)
{
	int fd = ivwl_unix_listen(path, SOCK_SEQPACKET, 16, NULL);

	if (fd == -EADDRINUSE)
		ivwl_log("%s: another agent is listening there", path);
	else if (fd < 0)
		ivwl_log("--listen %s: %s", path, strerror(-fd));
	return fd < 0 ? -1 : fd;
}

static void
on_peer(void *data, uint32_t peer, bool present)
{
	struct agent *agent = data;

	if (peer != IVWL_PEER_DISPLAY)
		return;
	ivwl_log("display side %s", present ? "attached" : "left");
	if (present)
		notify_display(agent);
	else
		sweep(agent);
	wake_all_slots(agent);
}

/* Takes over the app side of the region: a new epoch, every slot free. */
static int
claim_region(struct agent *agent)
{
	struct ivwl_region_header *h = ivwl_region_header(agent->base);
	struct ivwl_side_block *own = own_block(agent);
	uint32_t i, state, generation;

	if (memcmp(h->magic, IVWL_REGION_MAGIC, sizeof(h->magic)) == 0 &&
	    !ivwl_region_header_matches(agent->base, &agent->layout)) {
		ivwl_log("the region was laid out by another ivwl version "
			  "(%u); refusing to touch it",
			  ivwl_shm_load(&h->version));
		return -EPROTO;
	}
	ivwl_region_write_header(agent->base, &agent->layout);
	/* What an earlier agent was rung for: we start from scratch. */
	ivwl_doorbell_take(agent->base, IVWL_SIDE_APP);

	for (i = 0; i < agent->layout.slot_count; i++) {
		ivwl_slot_state_load(&slot_ctrl(agent, i)->app, &state,
				     &generation);
		agent->slots[i].generation = generation;
		ivwl_slot_state_store(&slot_ctrl(agent, i)->app,
				      IVWL_APP_SLOT_FREE, generation);
	}
	ivwl_shm_store(&own->peer_id, ivwl_device_peer_id(agent->dev));
	ivwl_shm_store(&own->wake_vectors, agent->wake_vectors);
	ivwl_shm_store(&own->epoch, ivwl_shm_load(&own->epoch) + 1);
	ivwl_shm_store_release(&own->state, IVWL_SIDE_READY);
	notify_display(agent);
	return 0;
}

static void
release_region(struct agent *agent)
{
	uint32_t i;

	for (i = 0; i < agent->layout.slot_count; i++)
		ivwl_slot_state_store(&slot_ctrl(agent, i)->app,
				      IVWL_APP_SLOT_FREE,
				      agent->slots[i].generation);
	ivwl_shm_store_release(&own_block(agent)->state, IVWL_SIDE_GONE);
	notify_display(agent);
}

static int
setup_fds(struct agent *agent)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	agent->signal_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	return agent->signal_fd < 0 ? -errno : 0;
}

enum fixed_fd {
	FD_SIGNAL,
	FD_LISTEN,
	FD_DOORBELL,
	FD_DEVICE,		/* -1 with the guest driver: poll skips it */
	FD_FIXED_COUNT,
};

/*
 * A guest's device has QEMU's vectors=, but only those ivwl-server gave
 * eventfds for (--vectors) carry a doorbell: a slot waiting on another
 * would never wake.  Ask the device which really do.
 */
static void
probe_wake_vectors(struct agent *agent, const char *device)
{
	uint32_t have = agent->wake_vectors;

	agent->wake_vectors = ivwl_device_probe_vectors(agent->dev,
							PROBE_VECTORS_MS);
	if (agent->wake_vectors < have)
		ivwl_log("--device %s: doorbells reach %u of its first %u "
			  "vectors (is QEMU's vectors= above ivwl-server's "
			  "--vectors?): relays of the other slots wait "
			  "through vector 0", device, agent->wake_vectors, have);
	ivwl_device_use_vectors(agent->dev, agent->wake_vectors);
}

/*
 * The display rang our vector.  Each slot bit goes on to its relay, at
 * once: this is the one hop between a display doorbell and the process
 * that serves the slot.
 */
static void
on_doorbell(struct agent *agent)
{
	uint64_t bits;
	uint32_t i, epoch;

	ivwl_device_vector_drain(agent->dev, IVWL_DOORBELL_VECTOR);
	ivwl_trace(IVWL_TRACE_WAKE, 1);
	bits = ivwl_doorbell_take(agent->base, IVWL_SIDE_APP);
	if (bits & IVWL_DOORBELL_CLOCK)
		ivwl_agent_clock_heard(&agent->clock, agent->verbose);
	if (bits & IVWL_DOORBELL_CONTROL) {
		/* A display that (re)started: settle the estimate now, before
		 * its clients ask for times. */
		epoch = ivwl_shm_load(&display_block(agent)->epoch);
		if (epoch != agent->clock_epoch) {
			agent->clock_epoch = epoch;
			clock_wanted(agent);
		}
		/* The display's probe: answering it is our sign of life. */
		ivwl_shm_store64(&own_block(agent)->liveness,
			ivwl_shm_load64(&display_block(agent)->liveness));
		wake_all_slots(agent);
	} else {
		for (i = 0; i < agent->usable_slots; i++)
			if (bits & IVWL_DOORBELL_SLOT(i))
				wake_slot(agent, i);
	}
	/* A slot closed from the display side comes back here. */
	sweep(agent);
}

static int
run(struct agent *agent)
{
	struct pollfd pfd[FD_FIXED_COUNT + IVWL_AGENT_MAX_CLIENTS];
	struct agent_client *polled[IVWL_AGENT_MAX_CLIENTS];
	uint32_t i, n;

	for (;;) {
		pfd[FD_SIGNAL] = (struct pollfd){ agent->signal_fd, POLLIN, 0 };
		pfd[FD_LISTEN] = (struct pollfd){ agent->listen_fd, POLLIN, 0 };
		pfd[FD_DOORBELL] = (struct pollfd){
			ivwl_device_vector_fd(agent->dev, IVWL_DOORBELL_VECTOR),
			POLLIN, 0 };
		pfd[FD_DEVICE] = (struct pollfd){
			ivwl_device_event_fd(agent->dev), POLLIN, 0 };
		n = 0;
		for (i = 0; i < agent->nclients; i++) {
			if (agent->clients[i]->dying)
				continue;
			polled[n] = agent->clients[i];
			pfd[FD_FIXED_COUNT + n] = (struct pollfd){
				agent->clients[i]->fd, POLLIN, 0 };
			n++;
		}

		if (poll(pfd, FD_FIXED_COUNT + n, clock_active(agent) ?
			 ivwl_clock_ask_timeout_ms(&agent->clock) : -1) < 0) {
			if (errno == EINTR)
				continue;
			ivwl_log("poll: %s", strerror(errno));
			return 1;
		}

		if (pfd[FD_SIGNAL].revents)
			return 0;
		if (pfd[FD_DOORBELL].revents)
			on_doorbell(agent);
		if (pfd[FD_DEVICE].revents &&
		    ivwl_device_dispatch(agent->dev) < 0) {
			ivwl_log("lost the ivshmem server; exiting");
			return 1;
		}
		for (i = 0; i < n; i++)
			if (pfd[FD_FIXED_COUNT + i].revents &&
			    !handle_request(agent, polled[i]))
				client_gone(agent, polled[i]);
		if (pfd[FD_LISTEN].revents)
			accept_client(agent);
		if (clock_active(agent) && ivwl_clock_ask(&agent->clock))
			ivwl_device_ring(agent->dev, IVWL_PEER_DISPLAY,
					 IVWL_DOORBELL_VECTOR);
	}
}

/*
 * The mistakes of starting an agent: a second one on a region whose app
 * role is held (ivwl-server drops it; the guest driver says EBUSY), and
 * the display socket given for the app's.
 */
static void
log_open_error(const char *server, const char *device, int ret,
	       const char *err)
{
	if (server && ret == -ECONNRESET)
		ivwl_log("--server %s: ivwl-server refused us: its app role is "
			  "held, by another ivwl-agent (or a weston whose "
			  "server= names this socket); stop that one first",
			  server);
	else if (device && ret == -EBUSY)
		ivwl_log("--device %s: another ivwl-agent (or weston) has it "
			  "open; stop that one first", device);
	else
		ivwl_log("--%s %s: %s (%s)", device ? "device" : "server",
			  device ? device : server, err ? err : "cannot attach",
			  strerror(-ret));
}

static bool
app_role(struct agent *agent, const char *server, const char *device)
{
	uint32_t peer = ivwl_device_peer_id(agent->dev);

	if (peer == IVWL_PEER_APP)
		return true;
	if (server)
		ivwl_log("--server %s is ivwl-server's display socket (it gave "
			  "us the display's peer id %u): give the agent the app "
			  "socket, the one without .display", server, peer);
	else
		ivwl_log("--device %s has the display's peer id %u: this VM's "
			  "ivshmem chardev is on ivwl-server's display socket; "
			  "connect it to the app socket", device, peer);
	return false;
}

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: ivwl-agent (--server PATH | --device PATH) --listen PATH"
		" [--verbose]\n"
		"  --server PATH   app-side socket of ivwl-server (host process)\n"
		"  --device PATH   /dev/ivwlN of the guest driver\n"
		"  --listen PATH   unix socket for local clients (shims read"
		" $IVWL_AGENT,\n"
		"                  default " IVWL_AGENT_DEFAULT_SOCKET ")\n");
}

static int
bad_usage(const char *what)
{
	ivwl_log("%s", what);
	usage(stderr);
	return 2;
}

int
main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "server", required_argument, NULL, 's' },
		{ "device", required_argument, NULL, 'd' },
		{ "listen", required_argument, NULL, 'l' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct agent agent = { .listen_fd = -1, .signal_fd = -1 };
	const char *server = NULL, *device = NULL, *err = NULL;
	int c, ret, status = 1;
	uint32_t i;

	ivwl_log_setup("ivwl-agent", false);

	for (i = 0; i < IVWL_SLOT_COUNT; i++)
		agent.slots[i].wake_fd = -1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's': server = optarg; break;
		case 'd': device = optarg; break;
		case 'l': agent.listen_path = optarg; break;
		case 'v': agent.verbose = true; break;
		case 'h': usage(stdout); return 0;
		default: return bad_usage("unknown option");
		}
	}
	if (optind < argc)
		return bad_usage("unexpected argument");
	if (!server == !device)
		return bad_usage("give exactly one of --server and --device");
	if (!agent.listen_path || !agent.listen_path[0])
		return bad_usage("--listen PATH is required");

	if (device)
		ret = ivwl_device_open_kernel(device, 0, &agent.dev, &err);
	else
		ret = ivwl_device_open_server(server, ATTACH_TIMEOUT_MS,
					      &agent.dev, &err);
	if (ret < 0) {
		log_open_error(server, device, ret, err);
		return 1;
	}
	if (!app_role(&agent, server, device))
		goto err_device;
	agent.base = ivwl_device_base(agent.dev);
	if (ivwl_layout_compute(ivwl_device_size(agent.dev),
				&agent.layout) < 0) {
		ivwl_log("--%s %s: %llu bytes: %s",
			  device ? "device" : "server", device ? device : server,
			  (unsigned long long)ivwl_device_size(agent.dev),
			  ivwl_region_size_problem(ivwl_device_size(agent.dev)));
		goto err_device;
	}
	/*
	 * We ring the display's vector 0 and wait on ours; each slot's
	 * relay waits on its own vector where the device has one (QEMU's
	 * vectors=, ivwl-server's --vectors: 1 + slots).  The rest go.
	 */
	agent.usable_slots = agent.layout.slot_count;
	agent.wake_vectors = ivwl_device_nr_vectors(agent.dev);
	if (agent.wake_vectors > IVWL_WAKE_VECTOR(agent.usable_slots))
		agent.wake_vectors = IVWL_WAKE_VECTOR(agent.usable_slots);
	ivwl_device_use_vectors(agent.dev, agent.wake_vectors);
	if (device && agent.wake_vectors > 1)
		probe_wake_vectors(&agent, device);
	if (ivwl_device_nr_vectors(agent.dev) == 0) {
		ivwl_log("the device has no doorbell vector");
		goto err_device;
	}
	if (ivwl_heap_init(&agent.heap, agent.layout.heap_offset,
			   agent.layout.heap_size) < 0)
		goto err_device;
	if (setup_fds(&agent) < 0)
		goto err_heap;
	ivwl_clock_asker_init(&agent.clock, agent.base);
	clock_wanted(&agent);
	if (claim_region(&agent) < 0)
		goto err_heap;
	agent.listen_fd = listen_on(agent.listen_path);
	if (agent.listen_fd < 0)
		goto err_release;
	ivwl_device_set_peer_listener(agent.dev, on_peer, &agent);

	ivwl_log("peer %u, region %llu MiB, %u slots, heap %llu MiB, "
		  "listening on %s", ivwl_device_peer_id(agent.dev),
		  (unsigned long long)(agent.layout.region_size >> 20),
		  agent.usable_slots,
		  (unsigned long long)(agent.layout.heap_size >> 20),
		  agent.listen_path);
	status = run(&agent);

	unlink(agent.listen_path);
	close(agent.listen_fd);
	while (agent.nclients > 0) {
		struct agent_client *client = agent.clients[0];

		if (client->fd >= 0)
			close(client->fd);
		client_destroy(&agent, client);
	}
err_release:
	release_region(&agent);
err_heap:
	ivwl_heap_fini(&agent.heap);
err_device:
	if (agent.signal_fd >= 0)
		close(agent.signal_fd);
	ivwl_device_destroy(agent.dev);
	return status;
}
