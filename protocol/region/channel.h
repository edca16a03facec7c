/* SPDX-License-Identifier: MIT */
/*
 * Stream channels: a pipe fd that crossed the region (clipboard, primary
 * selection, drag and drop), bridged by records.
 *
 * The side that sends the fd keeps it as the channel's sink: bytes arrive
 * as CHANNEL_DATA records and are written into it.  The side that receives
 * the descriptor makes a pipe, hands the local client its write end and
 * becomes the source: it reads the read end and sends what it reads.
 *
 * Flow control is by credit: a source never has more than the sink
 * granted in flight (IVWL_CHANNEL_WINDOW to begin with); the sink grants
 * more as it writes bytes out.  A sink that gets more than it granted is
 * talking to a broken peer.  So neither side buffers more than a window
 * per channel, and a slow reader never stalls the connection's messages.
 *
 * Ends: the source sends CLOSE(EOF) after the last byte; a sink whose
 * reader went away sends CLOSE(ABORT) and the source stops, so the writer
 * sees EPIPE as it would locally.  Nothing is dropped silently.
 */
#ifndef IVWL_CHANNEL_H
#define IVWL_CHANNEL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "record.h"
#include "region.h"

#define IVWL_CHANNEL_WINDOW (256u << 10)
#define IVWL_CHANNEL_MAX 64u

struct ivwl_ring;

struct ivwl_channel {
	struct ivwl_channel *next;
	uint32_t id;
	int fd;
	bool sink;
	bool done;		/* sink: EOF seen; source: CLOSE to send */
	uint32_t close_flags;	/* what to send when done */
	uint32_t credit;	/* source: may send; sink: granted, unseen */
	uint32_t written;	/* sink: written since the last grant */
	uint32_t len;		/* sink: buffered bytes */
	uint64_t total;		/* bytes received (sink) or read (source) */
	bool complete;		/* the writer's EOF reached the reader */
	uint8_t *buf;		/* sink: IVWL_CHANNEL_WINDOW bytes */
	void *user;		/* the caller's event source, if any */
	void *tag;		/* the caller's note on it; it frees that */
};

struct ivwl_channels {
	struct ivwl_channel *list;
	enum ivwl_side side;
	uint32_t next_id;
	uint32_t count;
	uint64_t sink_limit;	/* bytes a sink takes in all, 0: no limit */
};

void
ivwl_channels_init(struct ivwl_channels *chs, enum ivwl_side side);

/* Closes every channel's fd.  The caller removed its event sources. */
void
ivwl_channels_release(struct ivwl_channels *chs);

/* A fresh id of our side, for a channel or a blob. */
uint32_t
ivwl_channels_new_id(struct ivwl_channels *chs);

/* We send fd away: it becomes a sink; *desc names it for the peer. */
int
ivwl_channel_sink_new(struct ivwl_channels *chs, int fd,
		      struct ivwl_fd_desc *desc, struct ivwl_channel **out);

/*
 * We got a PIPE descriptor: make the pipe, keep its read end as a source,
 * return the write end (for the local client) in *client_fd.
 */
int
ivwl_channel_source_new(struct ivwl_channels *chs,
			const struct ivwl_fd_desc *desc, int *client_fd,
			struct ivwl_channel **out);

struct ivwl_channel *
ivwl_channel_find(struct ivwl_channels *chs, uint32_t id);

/* poll() events the channel waits for now (POLLIN, POLLOUT or 0). */
short
ivwl_channel_events(const struct ivwl_channel *ch);

/*
 * Moves what can move: a source reads and sends data (and CLOSE at the
 * end); a sink writes buffered data out and sends credit.  Returns 1 when
 * the channel is finished (the caller destroys it), 0 to keep going,
 * -EAGAIN when the ring is full, -EPIPE when the ring broke.
 */
int
ivwl_channel_pump(struct ivwl_channel *ch, struct ivwl_ring *ring);

/*
 * A record for one of our channels.  Returns 0 and sets *finished to the
 * channel the record ended (the caller destroys it) or NULL; -EPROTO when
 * the peer broke the rules, -EFBIG when a sink got more than sink_limit.
 */
int
ivwl_channels_handle(struct ivwl_channels *chs, uint16_t type,
		     const void *payload, uint32_t len,
		     struct ivwl_channel **finished);

void
ivwl_channel_destroy(struct ivwl_channels *chs, struct ivwl_channel *ch);

/*
 * write(), but a reader that left gives EPIPE without SIGPIPE (which
 * would end weston for a paste target that closed early).
 */
ssize_t
ivwl_write_no_sigpipe(int fd, const void *buf, size_t len);

#endif
