/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "channel.h"
#include "fd-flags.h"
#include "ring.h"

/* Data records stay well under the smallest ring's largest record. */
#define CHUNK_MAX (4096u)
/* A sink grants credit back in steps of this much at least. */
#define GRANT_STEP (IVWL_CHANNEL_WINDOW / 4)

void
ivwl_channels_init(struct ivwl_channels *chs, enum ivwl_side side)
{
	memset(chs, 0, sizeof(*chs));
	chs->side = side;
	chs->next_id = 2 + (uint32_t)side;
}

static struct ivwl_channel *
channel_add(struct ivwl_channels *chs, uint32_t id, int fd, bool sink)
{
	struct ivwl_channel *ch;

	if (chs->count >= IVWL_CHANNEL_MAX)
		return NULL;
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return NULL;
	if (sink) {
		ch->buf = malloc(IVWL_CHANNEL_WINDOW);
		if (!ch->buf) {
			free(ch);
			return NULL;
		}
	}
	ch->id = id;
	ch->fd = fd;
	ch->sink = sink;
	ch->credit = IVWL_CHANNEL_WINDOW;
	ch->next = chs->list;
	chs->list = ch;
	chs->count++;
	return ch;
}

void
ivwl_channel_destroy(struct ivwl_channels *chs, struct ivwl_channel *ch)
{
	struct ivwl_channel **pp;

	for (pp = &chs->list; *pp; pp = &(*pp)->next) {
		if (*pp == ch) {
			*pp = ch->next;
			chs->count--;
			break;
		}
	}
	if (ch->fd >= 0)
		close(ch->fd);
	free(ch->buf);
	free(ch);
}

void
ivwl_channels_release(struct ivwl_channels *chs)
{
	while (chs->list)
		ivwl_channel_destroy(chs, chs->list);
}

struct ivwl_channel *
ivwl_channel_find(struct ivwl_channels *chs, uint32_t id)
{
	struct ivwl_channel *ch;

	for (ch = chs->list; ch; ch = ch->next)
		if (ch->id == id)
			return ch;
	return NULL;
}

uint32_t
ivwl_channels_new_id(struct ivwl_channels *chs)
{
	uint32_t id = chs->next_id;

	chs->next_id += 2;
	if (chs->next_id < 2)
		chs->next_id = 2 + (uint32_t)chs->side;
	return id;
}

int
ivwl_channel_sink_new(struct ivwl_channels *chs, int fd,
		      struct ivwl_fd_desc *desc, struct ivwl_channel **out)
{
	struct ivwl_channel *ch;
	uint32_t id = ivwl_channels_new_id(chs);
	int ret = ivwl_fd_set_nonblock(fd, true);

	if (ret < 0) {
		close(fd);
		return ret;
	}
	ch = channel_add(chs, id, fd, true);
	if (!ch) {
		close(fd);
		return -EMFILE;
	}
	memset(desc, 0, sizeof(*desc));
	desc->kind = IVWL_FD_PIPE;
	desc->flags = IVWL_PIPE_WRITE_END;
	desc->channel = id;
	*out = ch;
	return 0;
}

int
ivwl_channel_source_new(struct ivwl_channels *chs,
			const struct ivwl_fd_desc *desc, int *client_fd,
			struct ivwl_channel **out)
{
	struct ivwl_channel *ch;
	int p[2], ret;

	/* Only write ends cross today; the peer names the channel. */
	if (desc->kind != IVWL_FD_PIPE || desc->flags != IVWL_PIPE_WRITE_END ||
	    IVWL_CHANNEL_SIDE(desc->channel) == chs->side ||
	    ivwl_channel_find(chs, desc->channel))
		return -EPROTO;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	/* Ours may not block; the client's end stays as pipes come. */
	ret = ivwl_fd_set_nonblock(p[0], true);
	if (ret < 0) {
		close(p[0]);
		close(p[1]);
		return ret;
	}
	ch = channel_add(chs, desc->channel, p[0], false);
	if (!ch) {
		close(p[0]);
		close(p[1]);
		return -EMFILE;
	}
	*client_fd = p[1];
	*out = ch;
	return 0;
}

short
ivwl_channel_events(const struct ivwl_channel *ch)
{
	if (ch->sink)
		return ch->len > 0 ? POLLOUT : 0;
	return !ch->done && ch->credit > 0 ? POLLIN : 0;
}

static int
send_small(struct ivwl_ring *ring, uint16_t type, uint32_t channel,
	   uint32_t value)
{
	uint32_t words[2] = { channel, value };
	struct iovec iov = { words, sizeof(words) };

	return ivwl_ring_write(ring, type, &iov, 1);
}

static int
source_pump(struct ivwl_channel *ch, struct ivwl_ring *ring)
{
	struct ivwl_channel_data h;
	uint8_t *payload;
	uint32_t chunk;
	ssize_t n;
	int ret;

	while (!ch->done && ch->credit > 0) {
		chunk = ch->credit < CHUNK_MAX ? ch->credit : CHUNK_MAX;
		/* Room first: bytes read are never held back. */
		ret = ivwl_ring_reserve(ring, ivwl_record_channel_data_size(chunk),
					(void **)&payload);
		if (ret < 0)
			return ret;
		n = read(ch->fd, payload + sizeof(h), chunk);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (n <= 0) {
			ch->done = true;
			ch->close_flags = n == 0 ? IVWL_CHANNEL_EOF :
						   IVWL_CHANNEL_ABORT;
			break;
		}
		h.channel = ch->id;
		h.len = (uint32_t)n;
		memcpy(payload, &h, sizeof(h));
		ivwl_ring_commit_len(ring, IVWL_RECORD_CHANNEL_DATA,
				     (uint32_t)(sizeof(h) + n));
		ch->credit -= (uint32_t)n;
		ch->total += (uint64_t)n;
	}
	if (!ch->done)
		return 0;
	ret = send_small(ring, IVWL_RECORD_CHANNEL_CLOSE, ch->id,
			 ch->close_flags);
	if (ret < 0)
		return ret;
	ch->complete = ch->close_flags == IVWL_CHANNEL_EOF;
	return 1;
}

/*
 * write() to a pipe whose reader left raises SIGPIPE, which would end
 * weston (or whoever runs this) for a paste target that closed early.
 * Block it around the write and take a pending one back; EPIPE remains.
 */
ssize_t
ivwl_write_no_sigpipe(int fd, const void *buf, size_t len)
{
	static const struct timespec now = { 0, 0 };
	sigset_t pipe_set, old;
	ssize_t n;
	int err;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	n = write(fd, buf, len);
	err = errno;
	if (n < 0 && err == EPIPE)
		while (sigtimedwait(&pipe_set, NULL, &now) < 0 && errno == EINTR)
			;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = err;
	return n;
}

static int
sink_pump(struct ivwl_channel *ch, struct ivwl_ring *ring)
{
	ssize_t n;
	int ret;

	while (ch->len > 0 && ch->fd >= 0) {
		n = ivwl_write_no_sigpipe(ch->fd, ch->buf, ch->len);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			break;
		if (n < 0) {
			/* The reader is gone: tell the source to stop. */
			ret = send_small(ring, IVWL_RECORD_CHANNEL_CLOSE,
					 ch->id, IVWL_CHANNEL_ABORT);
			return ret < 0 ? ret : 1;
		}
		memmove(ch->buf, ch->buf + n, ch->len - (size_t)n);
		ch->len -= (uint32_t)n;
		ch->written += (uint32_t)n;
	}
	if (ch->done && ch->len == 0) {
		ch->complete = true;
		return 1;
	}
	if (ch->written >= GRANT_STEP ||
	    (ch->written > 0 && ch->len == 0)) {
		ret = send_small(ring, IVWL_RECORD_CHANNEL_CREDIT, ch->id,
				 ch->written);
		if (ret < 0)
			return ret;
		ch->credit += ch->written;
		ch->written = 0;
	}
	return 0;
}

int
ivwl_channel_pump(struct ivwl_channel *ch, struct ivwl_ring *ring)
{
	return ch->sink ? sink_pump(ch, ring) : source_pump(ch, ring);
}

static int
handle_data(struct ivwl_channels *chs, const void *payload, uint32_t len)
{
	struct ivwl_channel_data_record rec;
	struct ivwl_channel *ch;

	if (ivwl_record_parse_channel_data(payload, len, &rec) < 0)
		return -EPROTO;
	ch = ivwl_channel_find(chs, rec.channel);
	if (!ch) {
		/* Ours and already over (we aborted it): bytes in flight. */
		return IVWL_CHANNEL_SIDE(rec.channel) == chs->side ? 0 :
								      -EPROTO;
	}
	if (!ch->sink || ch->done || rec.len > ch->credit ||
	    rec.len > IVWL_CHANNEL_WINDOW - ch->len)
		return -EPROTO;
	ch->total += rec.len;
	if (chs->sink_limit && ch->total > chs->sink_limit)
		return -EFBIG;	/* too much for one pipe: the caller ends it */
	memcpy(ch->buf + ch->len, rec.bytes, rec.len);
	ch->len += rec.len;
	ch->credit -= rec.len;
	return 0;
}

static int
handle_close(struct ivwl_channels *chs, const void *payload, uint32_t len,
	     struct ivwl_channel **finished)
{
	struct ivwl_channel_close rec;
	struct ivwl_channel *ch;

	if (ivwl_record_parse_channel_close(payload, len, &rec) < 0)
		return -EPROTO;
	ch = ivwl_channel_find(chs, rec.channel);
	if (!ch)
		return 0;	/* both ends closed at once */
	/* A source: the sink's reader left, stop reading.  A sink told
	 * ABORT: the writer failed, the reader sees the end, as locally. */
	if (!ch->sink || rec.flags == IVWL_CHANNEL_ABORT) {
		*finished = ch;
		return 0;
	}
	ch->done = true;
	if (ch->len == 0) {
		ch->complete = true;
		*finished = ch;
	}
	return 0;
}

static int
handle_credit(struct ivwl_channels *chs, const void *payload, uint32_t len)
{
	struct ivwl_channel_credit rec;
	struct ivwl_channel *ch;

	if (ivwl_record_parse_channel_credit(payload, len, &rec) < 0)
		return -EPROTO;
	ch = ivwl_channel_find(chs, rec.channel);
	if (!ch)
		return IVWL_CHANNEL_SIDE(rec.channel) != chs->side ? 0 :
								      -EPROTO;
	if (ch->sink || rec.bytes > IVWL_CHANNEL_WINDOW - ch->credit)
		return -EPROTO;
	ch->credit += rec.bytes;
	return 0;
}

int
ivwl_channels_handle(struct ivwl_channels *chs, uint16_t type,
		     const void *payload, uint32_t len,
		     struct ivwl_channel **finished)
{
	*finished = NULL;
	switch (type) {
	case IVWL_RECORD_CHANNEL_DATA:
		return handle_data(chs, payload, len);
	case IVWL_RECORD_CHANNEL_CLOSE:
		return handle_close(chs, payload, len, finished);
	case IVWL_RECORD_CHANNEL_CREDIT:
		return handle_credit(chs, payload, len);
	default:
		return -EPROTO;
	}
}
