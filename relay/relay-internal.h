/* SPDX-License-Identifier: MIT */
/*
 * One relayed connection's state, shared by relay.c (the client's
 * requests, the thread, a display's restart) and relay-events.c (what
 * comes back from the display).
 */
#ifndef IVWL_RELAY_INTERNAL_H
#define IVWL_RELAY_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "app-slot.h"
#include "buffers.h"
#include "channel.h"
#include "record.h"
#include "relay.h"
#include "relay-time.h"
#include "relay-wait.h"
#include "relay-zc.h"
#include "replay/replay.h"
#include "stream.h"
#include "wire.h"

struct blob_in;	/* relay-events.c */

struct relay {
	int sock;
	int agent_fd;
	struct ivwl_app_slot slot;
	struct ivwl_wire_map objects;
	struct ivwl_buffers buffers;
	struct ivwl_stream_in from_client;
	struct ivwl_stream_out to_client;
	struct ivwl_wayland_batch batch;
	struct blob_in *blobs;
	struct ivwl_channels channels;	/* pipes: clipboard, drag and drop */
	struct ivwl_relay_zc zc;	/* grants for the app's processes */
	struct ivwl_relay_wait wait;	/* what the relay sleeps on */
	/* IVWL_RELAY_IN_PROCESS: the zero-copy sockets, waited on apart */
	struct ivwl_relay_wait zc_wait;
	struct ivwl_relay_time time;	/* the display's times in ours */
	struct ivwl_replay *replay;	/* survives a display restart */
	struct ivwl_replay_buf replay_out;	/* replay requests to send */
	uint32_t replay_pos;		/* of those, sent */
	struct ivwl_replay_buf synth;	/* events the relay makes */
	bool display_down;		/* the display left; waiting */
	bool agent_gone;		/* its socket ended: the region too */
	int64_t deadline_ms;		/* for display_down or a replay */
	int64_t heard_ms;		/* a replay: the display's last events */
	int restart_wait_s;		/* 0: end the connection instead */
	bool display_said_bye;		/* DISCONNECT came: why_buf says why */
	uint64_t *record;
	uint8_t *events;	/* a record's events as the client gets them */
	bool requests_blocked;
	bool client_gone;
	/* Worth a read: the wait said so, or we did not wait.  Each saves
	 * a syscall that would say EAGAIN (they cost on a VM's vCPU). */
	bool sock_ready;
	const char *why;
	char why_buf[64 + IVWL_DISCONNECT_MAX_TEXT];	/* the display's */
	struct ivwl_slot_app_stats published;	/* in the slot's page */
};

/* The connection is over: why is for the log. */
static inline int
relay_fail(struct relay *r, const char *why)
{
	r->why = why;
	return -EPROTO;
}

/* relay.c */
/* Out of the wait set, then closed and freed. */
void
ivwl_relay_channel_destroy(struct relay *r, struct ivwl_channel *ch);

/* relay-events.c */
/* Frees the channel data of blobs still to come. */
void
ivwl_relay_blobs_release(struct relay *r);

int
ivwl_relay_deliver_synth(struct relay *r);

/* Takes every record the display wrote, then flushes to the client. */
int
ivwl_relay_pump_events(struct relay *r);

#endif
