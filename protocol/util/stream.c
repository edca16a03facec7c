/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fdmsg.h"
#include "stream.h"


static void
close_all(const int *fds, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		close(fds[i]);
}

void
ivwl_stream_out_init(struct ivwl_stream_out *out, size_t limit)
{
	memset(out, 0, sizeof(*out));
	out->limit = limit;
}

void
ivwl_stream_out_release(struct ivwl_stream_out *out)
{
	close_all(out->fds, out->nfds);
	free(out->buf);
	memset(out, 0, sizeof(*out));
}

int
ivwl_stream_out_append(struct ivwl_stream_out *out, const void *bytes,
		       size_t len, const int *fds, uint32_t nfds)
{
	if (nfds > IVWL_STREAM_MAX_FDS - out->nfds) {
		close_all(fds, nfds);
		return -EMFILE;
	}
	if (len > out->limit - out->len) {
		close_all(fds, nfds);
		return -ENOBUFS;
	}
	if (out->len + len > out->cap) {
		size_t cap = out->cap ? out->cap : 4096;
		uint8_t *n;

		while (cap < out->len + len)
			cap *= 2;
		n = realloc(out->buf, cap);
		if (!n) {
			close_all(fds, nfds);
			return -ENOMEM;
		}
		out->buf = n;
		out->cap = cap;
	}
	/* memcpy() from NULL is undefined even for 0 bytes */
	if (len > 0)
		memcpy(out->buf + out->len, bytes, len);
	out->len += len;
	if (nfds > 0)
		memcpy(out->fds + out->nfds, fds, nfds * sizeof(int));
	out->nfds += nfds;
	return 0;
}

int
ivwl_stream_out_flush(struct ivwl_stream_out *out, int sock)
{
	while (out->len > 0) {
		uint32_t nfds = out->nfds < IVWL_FDMSG_MAX_FDS ?
					out->nfds : IVWL_FDMSG_MAX_FDS;
		/* With more fds queued than one message takes, send a
		 * single byte per batch of fds so none arrives late. */
		size_t len = out->nfds > IVWL_FDMSG_MAX_FDS ? 1 : out->len;
		ssize_t n = ivwl_fdmsg_send(sock, out->buf, len, out->fds,
					    nfds, MSG_DONTWAIT);

		if (n < 0)
			return (int)n;
		close_all(out->fds, nfds);
		memmove(out->fds, out->fds + nfds,
			(out->nfds - nfds) * sizeof(int));
		out->nfds -= nfds;
		memmove(out->buf, out->buf + n, out->len - n);
		out->len -= n;
		if ((size_t)n < len)
			return -EAGAIN;
	}
	return 0;
}

void
ivwl_stream_in_init(struct ivwl_stream_in *in)
{
	in->len = 0;
	in->nfds = 0;
}

void
ivwl_stream_in_release(struct ivwl_stream_in *in)
{
	close_all(in->fds, in->nfds);
	in->nfds = 0;
	in->len = 0;
}

int
ivwl_stream_in_read(struct ivwl_stream_in *in, int sock)
{
	struct ivwl_fdmsg_fds fds = {
		.fds = in->fds,
		.cap = IVWL_STREAM_MAX_FDS,
		.n = in->nfds,
	};
	ssize_t n;

	if (in->len == sizeof(in->buf))
		return -ENOBUFS;
	n = ivwl_fdmsg_recv(sock, in->buf + in->len, sizeof(in->buf) - in->len,
			    MSG_DONTWAIT, &fds, NULL);
	in->nfds = fds.n;
	if (n < 0)
		return (int)n;
	if (fds.lost)
		return -EMFILE;
	in->len += (size_t)n;
	return (int)n;
}

void
ivwl_stream_in_consume(struct ivwl_stream_in *in, size_t n)
{
	memmove(in->buf, in->buf + n, in->len - n);
	in->len -= n;
}

int
ivwl_stream_in_take_fds(struct ivwl_stream_in *in, uint32_t n, int *out)
{
	if (n > in->nfds)
		return -EPROTO;
	memcpy(out, in->fds, n * sizeof(int));
	memmove(in->fds, in->fds + n, (in->nfds - n) * sizeof(int));
	in->nfds -= n;
	return 0;
}
