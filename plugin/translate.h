/* SPDX-License-Identifier: MIT */
/*
 * The translation of one client's traffic: request records from a VM's
 * app become Wayland wire bytes and fds for libwayland-server (checked by
 * the firewall on the way), and libwayland's events become records for
 * the event ring.  A struct ivwl_translation holds all of it; whatever
 * it needs of the program around it (the VM's name and limits, the
 * trusted path, the clipboard, the event loop, the log) it asks through
 * one struct ivwl_translate_host.  The plugin's connection (connection.c)
 * embeds one; a test or fuzzer makes its own, with a host of what it has.
 */
#ifndef IVWL_TRANSLATE_H
#define IVWL_TRANSLATE_H

#include <stdbool.h>
#include <stdint.h>

#include "channel.h"
#include "firewall/firewall.h"
#include "live-counts.h"
#include "record.h"
#include "ring.h"
#include "stream.h"
#include "wire.h"

struct ivwl_layout;
struct ivwl_pipe_budget;

/* Contents of an fd (a keymap) on their way as channel data. */
struct ivwl_blob {
	struct ivwl_blob *next;
	uint32_t channel;
	uint32_t len;
	uint32_t sent;
	uint8_t *data;
};

/*
 * One mapping of the region inside libwayland: a wl_shm_pool, alive while
 * its object or any buffer made from it is.  Counting these (not pool
 * objects) bounds how many mappings an app can make weston hold.
 */
struct ivwl_pool {
	struct ivwl_pool *next;
	uint32_t id;			/* 0 once the pool object is gone */
	uint32_t buffers;		/* live wl_buffers made from it */
	uint64_t offset;
	uint64_t length;
};

struct ivwl_buffer_ref {
	uint32_t id;
	struct ivwl_pool *pool;
};

/* Serials lo..hi, both included, in the wrapping order of serials. */
struct ivwl_serial_range {
	uint32_t lo, hi;
};

#define IVWL_CONN_MUTED_RANGES 16
#define IVWL_CONN_INPUT_SERIALS 4
#define IVWL_CONN_FULLSCREEN 4

/*
 * What translation asks of its host, each with the data pointer given to
 * ivwl_translation_init.  A member marked "may be NULL" says what a
 * missing one means; the others are needed.
 */
struct ivwl_translate_host {
	/* ---- the VM ---- */
	/* its name: titles become "[name] title" */
	const char *(*vm_name)(void *data);
	/* its region's layout, to parse request records */
	const struct ivwl_layout *(*layout)(void *data);
	/* the region's fd weston maps for wl_shm pools (not to be closed),
	 * or -1 while weston does not hold it */
	int (*region_fd)(void *data);
	/* a pool mapping more, on the VM's budget: 0 or -EDQUOT.  May be
	 * NULL: no budget per VM (drop_mapping then too). */
	int (*take_mapping)(void *data);
	/* one taken by take_mapping is gone */
	void (*drop_mapping)(void *data);
	/* what its firewalls count together (firewall.h), asked once, at
	 * ivwl_translation_init */
	struct ivwl_firewall_totals *(*firewall_totals)(void *data);
	/* its pipe threads' memory budget (pipe-thread.h) */
	struct ivwl_pipe_budget *(*pipe_budget)(void *data);
	/* a window's map (ivwl_firewall_maps_window) on the VM's budget of
	 * this repaint (map-pace.h): true, or false to hold the request
	 * until the host calls ivwl_translation_go.  May be NULL: every
	 * map goes at once. */
	bool (*may_map)(void *data);

	/* ---- weston ---- */
	/* the major version of the weston the requests go to, asked once,
	 * at ivwl_translation_init.  May be NULL: 0, the oldest. */
	int (*weston_major)(void *data);
	/* whether a view of the client's wl_surface id has no output, as
	 * weston sees it (the firewall's off_output).  May be NULL: no. */
	bool (*off_output)(void *data, uint32_t surface);

	/* ---- the trusted path (focus.c) ---- */
	/* whether an xdg_toplevel.set_fullscreen goes to weston as such;
	 * if not, as set_maximized.  May be NULL: never as such. */
	bool (*fullscreen)(void *data);
	/* xdg_popup.grab's serial as weston is to see it.  May be NULL:
	 * the client's own. */
	uint32_t (*popup_grab_serial)(void *data, uint32_t serial);

	/* ---- the clipboard (clipboard.h); each may be NULL: no say ---- */
	/* an event weston sent, after the map and the firewall took it:
	 * true to withhold it; may rewrite bytes */
	bool (*clip_event)(void *data, const struct ivwl_wire_msg *msg,
			   uint8_t *bytes);
	/* a request the firewall let through: 0, or -EPROTO with *why */
	int (*clip_request)(void *data, const struct ivwl_wire_msg *msg,
			    const char **why);
	/* the channel of a wl_data_offer.receive: true when weston writes
	 * from its main thread, so its end must not block */
	bool (*clip_receive)(void *data, const struct ivwl_wire_msg *msg,
			     struct ivwl_channel *ch);
	/* the channel of a wl_data_source.send */
	void (*clip_send)(void *data, const struct ivwl_wire_msg *msg,
			  struct ivwl_channel *ch);

	/* ---- the event loop ---- */
	/* watch a new channel's fd: 0 or -errno.  May be NULL: nothing
	 * polls it. */
	int (*watch)(void *data, struct ivwl_channel *ch);
	/* the eventfd the pipe threads raise when the app does not read
	 * (pipe-thread.h), made on first use: fd or -errno.  May be NULL:
	 * no pipe weston reads from can be made. */
	int (*alarm_fd)(void *data);

	/* ---- what it tells ---- */
	/* a line for the log about this client: the host says whose.  May
	 * be NULL: ivwl_log's, as it is. */
	void (*log)(void *data, const char *line);
	/* a wl_surface.commit went to weston (frame-trace.h).  May be
	 * NULL. */
	void (*committed)(void *data);
};

struct ivwl_translation {
	const struct ivwl_translate_host *host;
	void *data;			/* the host's, for its ops */
	struct ivwl_ring *event;	/* the host's: where events go */

	struct ivwl_wire_map objects;
	struct ivwl_firewall firewall;	/* requests' semantics, budgets */
	struct ivwl_stream_out to_server;	/* requests for libwayland */
	struct ivwl_stream_in from_server;	/* events from libwayland */
	struct ivwl_wayland_batch batch;	/* events for the ring */
	/*
	 * Set by the events translated, cleared by the host when it rang
	 * the app's doorbell: events a client may wait on went into the
	 * ring (without them the doorbell can wait), and a presented is
	 * among them (connection.c, kick_app).
	 */
	bool events_urgent;
	bool events_presented;

	struct ivwl_blob *blobs;	/* channel data owed before the batch */
	struct ivwl_channels channels;	/* pipes: clipboard, drag, drop */
	struct ivwl_pool *pools;
	uint32_t npools;		/* mappings, see ivwl_pool */
	struct ivwl_buffer_ref *buffers;
	uint32_t nbuffers;
	/*
	 * A record held halfway, at a request weston 14 must see only
	 * after its idle callbacks ran (translate.c, "barrier"), or at a
	 * window's map over the VM's budget (may_map): resume_at bytes and
	 * resume_fds fds of it went already.  The host holds the record
	 * while the barrier is WAITING or PACED and hands it again once
	 * PASSED.
	 */
	enum ivwl_barrier {
		IVWL_BARRIER_NONE,
		IVWL_BARRIER_WAITING,	/* for its wl_display.sync */
		IVWL_BARRIER_PACED,	/* for ivwl_translation_go */
		IVWL_BARRIER_PASSED,	/* the held request may go */
	} barrier;
	uint32_t resume_at, resume_fds;
	uint32_t barrier_id;		/* its sync's wl_callback */
	/* counts for the live view; the host counts its doorbells here */
	struct ivwl_conn_live live;
	/*
	 * The trusted path (focus.c): keyboard enters that weston sent and
	 * took back at once, with the leaves that took them back, are not
	 * passed on (an enter carries the keys held down); serials of the
	 * input events passed on, for a popup grab to name.
	 */
	struct ivwl_serial_range muted[IVWL_CONN_MUTED_RANGES];
	uint32_t nmuted;
	uint32_t input_serials[IVWL_CONN_INPUT_SERIALS];
	uint32_t ninput_serials;
	uint64_t input_ms;		/* when the last went, ivwl_now_ms */
	/* xdg_toplevels whose set_fullscreen weston got as such (0: none) */
	uint32_t fullscreen[IVWL_CONN_FULLSCREEN];
};

/*
 * Sets xl up empty: object map, firewall (with the host's totals and
 * weston), streams, channels.  host and data stay the caller's and must
 * outlive xl; events is the ring events are flushed into (NULL: none is,
 * for a test that flushes nothing).  0, or -ENOMEM with nothing to
 * release.
 */
int
ivwl_translation_init(struct ivwl_translation *xl,
		      const struct ivwl_translate_host *host, void *data,
		      struct ivwl_ring *events);

/*
 * Frees what xl holds: pools (given back to the VM's budget), buffers,
 * pending blobs, channels still open, streams, firewall (its totals
 * given back) and object map.  The host ends the channels it watches
 * first.
 */
void
ivwl_translation_release(struct ivwl_translation *xl);

/* One request record's payload into bytes + fds for libwayland.  0,
 * -EBUSY when held at a barrier (xl->barrier), or -errno with *why. */
int
ivwl_translate_request(struct ivwl_translation *xl, const void *payload,
		       uint32_t len, const char **why);

/* The map a record is held at (IVWL_BARRIER_PACED) may try again: the
 * VM's budget has room anew.  The host then hands the record again. */
void
ivwl_translation_go(struct ivwl_translation *xl);

/* A request without arguments, of the plugin's own, queued for
 * libwayland after what is queued.  0, or -errno. */
int
ivwl_translate_request_bare(struct ivwl_translation *xl, uint32_t object,
			    uint16_t opcode);

/* Complete events waiting in from_server into the batch and the event
 * ring.  0, -EAGAIN when the ring is full, -EPROTO with *why. */
int
ivwl_translate_events(struct ivwl_translation *xl, const char **why);

/* Writes what is batched (blob data first).  0, -EAGAIN when the ring is
 * full. */
int
ivwl_translate_flush(struct ivwl_translation *xl);

/* The keyboard events with serials enter..leave are not passed on (a
 * focus weston gave and took back, focus.c). */
void
ivwl_translate_mute_keyboard(struct ivwl_translation *xl, uint32_t enter,
			     uint32_t leave);

/* Whether serial is one of the last input events passed on. */
bool
ivwl_translate_input_serial(const struct ivwl_translation *xl,
			    uint32_t serial);

/* ms since the last input event passed on (UINT64_MAX: none yet). */
uint64_t
ivwl_translate_input_age_ms(const struct ivwl_translation *xl);

#endif
