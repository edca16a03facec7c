/* SPDX-License-Identifier: MIT */
/*
 * Non-blocking byte + fd streams over a local AF_UNIX socket: the
 * socketpair between the shim and its client, and between the plugin and
 * libwayland-server.  Output is queued and flushed when the socket takes
 * it; fds go out with the first bytes sent after they were queued, which
 * is what libwayland expects (fds never arrive after their message).
 */
#ifndef IVWL_STREAM_H
#define IVWL_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define IVWL_STREAM_MAX_FDS 256u
#define IVWL_STREAM_IN_SIZE 16384u

struct ivwl_stream_out {
	uint8_t *buf;
	size_t len;
	size_t cap;
	size_t limit;		/* append fails beyond this many bytes */
	int fds[IVWL_STREAM_MAX_FDS];
	uint32_t nfds;
};

struct ivwl_stream_in {
	size_t len;
	uint32_t nfds;
	int fds[IVWL_STREAM_MAX_FDS];
	uint8_t buf[IVWL_STREAM_IN_SIZE];
};

void
ivwl_stream_out_init(struct ivwl_stream_out *out, size_t limit);

/* Closes queued fds and frees the buffer. */
void
ivwl_stream_out_release(struct ivwl_stream_out *out);

/*
 * Queues bytes and takes ownership of fds (closed on any failure too).
 * -ENOBUFS past the limit, -EMFILE past IVWL_STREAM_MAX_FDS.
 */
int
ivwl_stream_out_append(struct ivwl_stream_out *out, const void *bytes,
		       size_t len, const int *fds, uint32_t nfds);

/* 0 when everything went out, -EAGAIN when some is left, or -errno. */
int
ivwl_stream_out_flush(struct ivwl_stream_out *out, int sock);

void
ivwl_stream_in_init(struct ivwl_stream_in *in);

void
ivwl_stream_in_release(struct ivwl_stream_in *in);

/*
 * Reads what the socket has into the free space.  Returns bytes read,
 * 0 on EOF, -EAGAIN, -EMFILE when the peer sent more fds than fit, or
 * -errno.
 */
int
ivwl_stream_in_read(struct ivwl_stream_in *in, int sock);

/* Drops n bytes from the front. */
void
ivwl_stream_in_consume(struct ivwl_stream_in *in, size_t n);

/* Moves the n oldest fds to out; -EPROTO when fewer arrived. */
int
ivwl_stream_in_take_fds(struct ivwl_stream_in *in, uint32_t n, int *out);

#endif
