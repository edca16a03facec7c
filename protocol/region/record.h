/* SPDX-License-Identifier: MIT */
/*
 * Records carried by the slot rings, and the descriptors that stand in for
 * file descriptors.  Parsers run on a private copy (see ring.h) and check
 * every length against the payload they were given.
 */
#ifndef IVWL_RECORD_H
#define IVWL_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "region.h"

enum ivwl_record_type {
	IVWL_RECORD_WAYLAND = 1,	/* message bytes + fd descriptors */
	IVWL_RECORD_CHANNEL_DATA = 2,	/* bytes of one stream channel */
	IVWL_RECORD_CHANNEL_CLOSE = 3,	/* end of one stream channel */
	/* 4 is unused: a receiver refuses it. */
	IVWL_RECORD_DISCONNECT = 5,	/* display -> app: why it closed */
	IVWL_RECORD_CHANNEL_CREDIT = 6,	/* a sink accepts more bytes */
};

/* libwayland's own limits for one message. */
#define IVWL_WAYLAND_MAX_DATA 4096u
#define IVWL_WAYLAND_MAX_FDS 28u

/* A blob (keymap and the like) larger than this is refused. */
#define IVWL_BLOB_MAX (16u << 20)

#define IVWL_DISCONNECT_MAX_TEXT 256u

enum ivwl_fd_kind {
	IVWL_FD_REGION = 1,	/* [offset, offset+length) of the heap */
	IVWL_FD_BLOB = 2,	/* length bytes follow on channel, read-only */
	IVWL_FD_PIPE = 3,	/* one end of a pipe, bridged by channel */
};

/* ivwl_fd_desc.flags for IVWL_FD_PIPE: which end the receiver gets. */
#define IVWL_PIPE_READ_END 0x1u		/* receiver reads, sender feeds */
#define IVWL_PIPE_WRITE_END 0x2u	/* receiver writes, sender drains */

/*
 * Channel ids are chosen by the side that creates the channel; the low bit
 * names that side (enum ivwl_side) so the two never collide.  0 is unused.
 */
#define IVWL_CHANNEL_SIDE(id) ((enum ivwl_side)((id) & 1u))

/* ivwl_channel_close.flags */
#define IVWL_CHANNEL_EOF 0x1u	/* all data was sent */
#define IVWL_CHANNEL_ABORT 0x2u	/* data was lost: the reader must fail */

struct ivwl_fd_desc {
	uint32_t kind;
	uint32_t flags;
	uint64_t offset;
	uint64_t length;
	uint32_t channel;
	uint32_t reserved;
};

struct ivwl_wayland_header {
	uint16_t nfds;
	uint16_t reserved;
	uint32_t data_len;
	/* struct ivwl_fd_desc fds[nfds]; uint8_t data[data_len]; */
};

struct ivwl_channel_data {
	uint32_t channel;
	uint32_t len;
	/* uint8_t bytes[len]; */
};

struct ivwl_channel_close {
	uint32_t channel;
	uint32_t flags;
};

struct ivwl_channel_credit {
	uint32_t channel;
	uint32_t bytes;
};

struct ivwl_disconnect {
	uint32_t code;	/* 0; no codes are defined yet */
	uint32_t len;
	/* char text[len], not NUL-terminated */
};

_Static_assert(sizeof(struct ivwl_fd_desc) == 32, "fd desc size");

/* A parsed WAYLAND record; pointers into the caller's private copy. */
struct ivwl_wayland_record {
	uint32_t nfds;
	const struct ivwl_fd_desc *fds;
	uint32_t data_len;
	const uint8_t *data;
};

struct ivwl_channel_data_record {
	uint32_t channel;
	uint32_t len;
	const uint8_t *bytes;
};

/* Payload sizes, for ivwl_ring_reserve(). */
uint32_t
ivwl_record_wayland_size(uint32_t nfds, uint32_t data_len);
uint32_t
ivwl_record_channel_data_size(uint32_t len);

void
ivwl_record_wayland_build(void *payload, const struct ivwl_fd_desc *fds,
			  uint32_t nfds, const void *data, uint32_t data_len);
void
ivwl_record_channel_data_build(void *payload, uint32_t channel,
			       const void *bytes, uint32_t len);

/*
 * Parsers.  payload must be 8-byte aligned and private.  layout is the
 * receiver's trusted layout, against which region ranges are checked.
 * Return 0 or -EPROTO.
 */
int
ivwl_record_parse_wayland(const void *payload, uint32_t len,
			  const struct ivwl_layout *layout,
			  struct ivwl_wayland_record *out);
int
ivwl_record_parse_channel_data(const void *payload, uint32_t len,
			       struct ivwl_channel_data_record *out);
int
ivwl_record_parse_channel_close(const void *payload, uint32_t len,
				struct ivwl_channel_close *out);
int
ivwl_record_parse_channel_credit(const void *payload, uint32_t len,
				 struct ivwl_channel_credit *out);
int
ivwl_record_parse_disconnect(const void *payload, uint32_t len,
			     struct ivwl_disconnect *out, const char **text);

struct ivwl_ring;

/*
 * The display's last record on a connection it closes: why, for the
 * app's log.  Text past IVWL_DISCONNECT_MAX_TEXT is cut.  0, or the
 * ring's error (the record is then not sent: the slot state alone
 * still ends the connection).
 */
int
ivwl_record_disconnect_write(struct ivwl_ring *ring, const char *text);

/*
 * Groups whole Wayland messages and their fd descriptors into WAYLAND
 * records, up to the per-record limits.
 */
struct ivwl_wayland_batch {
	uint32_t len;
	uint32_t nfds;
	struct ivwl_fd_desc fds[IVWL_WAYLAND_MAX_FDS];
	uint8_t data[IVWL_WAYLAND_MAX_DATA];
};

/* True when a message of len bytes with nfds fds still fits. */
bool
ivwl_batch_fits(const struct ivwl_wayland_batch *batch, uint32_t len,
		uint32_t nfds);

/* Appends; the caller checked ivwl_batch_fits(). */
void
ivwl_batch_add(struct ivwl_wayland_batch *batch, const void *msg,
	       uint32_t len, const struct ivwl_fd_desc *fds, uint32_t nfds);

/*
 * Writes the batch as one record and empties it.  0 (also when empty),
 * or the ring's error (-EAGAIN: the batch is kept, try again later).
 */
int
ivwl_batch_flush(struct ivwl_wayland_batch *batch, struct ivwl_ring *ring);

/* One descriptor on its own; used by the parser and by tests. */
bool
ivwl_fd_desc_valid(const struct ivwl_fd_desc *desc,
		   const struct ivwl_layout *layout);

#endif
