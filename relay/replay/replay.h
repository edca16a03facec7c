/* SPDX-License-Identifier: MIT */
/*
 * Windows that survive a compositor restart (docs/architecture.md,
 * "Compositor restart").  The relay keeps a model of what its client
 * built on the display: the objects it created, with the display-facing
 * request that made each and the state it set since.  When the display
 * restarts, the relay opens a new slot and replays the model there under
 * the same client ids, so the client's connection goes on.
 *
 * The model is fed the requests as the display got them (buffers.c has
 * already turned pools into region descriptors) and the events as the
 * client gets them.  Steady state costs a few stores per request and no
 * allocation per frame: frame callbacks and presentation feedback are
 * not recorded, the wire map already knows which are in flight, but for
 * a surface's frame callbacks since its last commit (its pending state).
 *
 * What cannot be replayed faithfully (objects of interfaces listed as not
 * replayable, a model that ran out of memory or bounds) ends the
 * connection at the restart, as before, with the reason logged.
 */
#ifndef IVWL_REPLAY_H
#define IVWL_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "record.h"
#include "wire.h"

struct ivwl_replay;

/* Bytes of wire messages, with at most one descriptor each. */
struct ivwl_replay_buf {
	uint8_t *data;
	uint32_t len;
	uint32_t cap;
	bool oom;
};

enum ivwl_replay_verdict {
	IVWL_REPLAY_PASS,	/* forward it (maybe rewritten in place) */
	IVWL_REPLAY_DROP,	/* the relay answered or swallowed it */
};

struct ivwl_replay *
ivwl_replay_create(void);

void
ivwl_replay_destroy(struct ivwl_replay *rp);

/*
 * A request on its way to the display, after the relay tracked it and
 * rewrote it for the display (bytes, descs).
 */
void
ivwl_replay_note_request(struct ivwl_replay *rp,
			 const struct ivwl_wire_map *map,
			 const struct ivwl_wire_msg *msg, const uint8_t *bytes,
			 const struct ivwl_fd_desc *descs);

/*
 * Before a request is tracked: after a restart, requests on objects the
 * new display does not have are dropped (destructors answered in
 * synth), and ids the client sees for display-made objects are mapped
 * to the display's.  Before any restart it passes everything.
 */
enum ivwl_replay_verdict
ivwl_replay_filter_request(struct ivwl_replay *rp,
			   const struct ivwl_wire_msg *msg, uint8_t *bytes,
			   struct ivwl_replay_buf *synth);

/*
 * An event from the display before it is decoded: 1 if it is one of the
 * relay's own (replay bookkeeping) and must be skipped, 0 to go on,
 * -EPROTO if it names an object the display never made.  Maps the
 * display's ids of objects it made to the client's in place.
 */
int
ivwl_replay_skip_event(struct ivwl_replay *rp, uint8_t *bytes, uint32_t len);

/*
 * A decoded event, as the client would get it.  May queue requests
 * (replay steps) and synthesise events for the client; may rewrite bytes
 * in place.  -EPROTO with *why when replay failed.
 */
int
ivwl_replay_event(struct ivwl_replay *rp, struct ivwl_wire_map *map,
		  struct ivwl_wire_msg *msg, uint8_t *bytes,
		  enum ivwl_replay_verdict *verdict,
		  struct ivwl_replay_buf *requests,
		  struct ivwl_replay_buf *synth, const char **why);

/*
 * The display went away.  Fills synth with what the client hears now
 * (focus left, callbacks done, popups dismissed, selections gone).
 * 0, or -EPROTO with *why when the connection cannot be replayed.
 */
int
ivwl_replay_begin(struct ivwl_replay *rp, const struct ivwl_wire_map *map,
		  struct ivwl_replay_buf *synth, const char **why);

/* The new display serves a slot: the first replay requests. */
int
ivwl_replay_start(struct ivwl_replay *rp, const struct ivwl_wire_map *map,
		  struct ivwl_replay_buf *requests, const char **why);

/*
 * A wl_display.sync of the relay's own, for a replay the display went
 * quiet on: libwayland-server sends a delete_id it queued behind a full
 * buffer only with the next event it posts, and the replay waits for
 * delete_ids with the client held.  Nothing before a new display serves.
 */
void
ivwl_replay_nudge(struct ivwl_replay *rp, struct ivwl_replay_buf *requests);

/* True once the replay has finished: the client's requests may flow. */
bool
ivwl_replay_done(const struct ivwl_replay *rp);

/* What an unfinished replay waits for, for the log. */
const char *
ivwl_replay_waiting(const struct ivwl_replay *rp);

/* Restarts survived by this connection. */
uint32_t
ivwl_replay_count(const struct ivwl_replay *rp);

/* Buffer helpers.  A message: u32 length, u32 has-desc, desc, bytes. */
void
ivwl_replay_buf_reset(struct ivwl_replay_buf *b);

void
ivwl_replay_buf_release(struct ivwl_replay_buf *b);

/*
 * Walks the messages of b: *pos starts at 0.  False at the end.  desc is
 * NULL for a message without one.
 */
bool
ivwl_replay_buf_next(const struct ivwl_replay_buf *b, uint32_t *pos,
		     const uint8_t **msg, uint32_t *len,
		     const struct ivwl_fd_desc **desc);

#endif
