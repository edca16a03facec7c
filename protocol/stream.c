#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

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

ssize_t
ivwl_send_with_fds(int sock, const void *buf, size_t len, const int *fds,
		   uint32_t nfds, int flags)
{
	union {
		char buf[CMSG_SPACE(IVWL_SEND_FDS_MAX * sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = { (void *)buf, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (nfds > IVWL_SEND_FDS_MAX)
		return -EINVAL;
	if (nfds) {
		struct cmsghdr *c;

		memset(&control, 0, sizeof(control));
		mh.msg_control = control.buf;
		mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	}
	do {
		n = sendmsg(sock, &mh, flags | MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

int
ivwl_stream_out_flush(struct ivwl_stream_out *out, int sock)
{
	while (out->len > 0) {
		uint32_t nfds = out->nfds < IVWL_SEND_FDS_MAX ? out->nfds :
							    IVWL_SEND_FDS_MAX;
		/* With more fds queued than one message takes, send a
		 * single byte per batch of fds so none arrives late. */
		size_t len = out->nfds > IVWL_SEND_FDS_MAX ? 1 : out->len;
		ssize_t n = ivwl_send_with_fds(sock, out->buf, len, out->fds,
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
	union {
		char buf[CMSG_SPACE(IVWL_SEND_FDS_MAX * sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = { in->buf + in->len, sizeof(in->buf) - in->len };
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = control.buf,
		.msg_controllen = sizeof(control.buf),
	};
	struct cmsghdr *c;
	bool overflow = false;
	ssize_t n;

	if (iov.iov_len == 0)
		return -ENOBUFS;
	do {
		n = recvmsg(sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;

	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		size_t count, i;
		int fd;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < count; i++) {
			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
			if (in->nfds < IVWL_STREAM_MAX_FDS) {
				in->fds[in->nfds++] = fd;
			} else {
				close(fd);
				overflow = true;
			}
		}
	}
	if (overflow || (mh.msg_flags & MSG_CTRUNC))
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
