/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "fdmsg.h"

int
ivwl_fdmsg_build(struct msghdr *mh, union ivwl_fdmsg_ctl *ctl, const int *fds,
		 uint32_t nfds)
{
	struct cmsghdr *c;

	if (nfds > IVWL_FDMSG_MAX_FDS)
		return -EINVAL;
	if (nfds == 0) {
		mh->msg_control = NULL;
		mh->msg_controllen = 0;
		return 0;
	}
	memset(ctl, 0, sizeof(*ctl));
	mh->msg_control = ctl->buf;
	mh->msg_controllen = CMSG_SPACE(nfds * sizeof(int));
	c = CMSG_FIRSTHDR(mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
	memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	return 0;
}

void
ivwl_fdmsg_each_fd(const struct msghdr *mh, void (*fn)(int fd, void *data),
		   void *data)
{
	/* CMSG_NXTHDR takes a non-const header but only reads it. */
	struct msghdr *m = (struct msghdr *)mh;
	struct cmsghdr *c;
	size_t count, i;
	int fd;

	for (c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
		    c->cmsg_len < CMSG_LEN(0))
			continue;
		count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < count; i++) {
			/* CMSG_DATA need not be aligned for an int */
			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
			fn(fd, data);
		}
	}
}

ssize_t
ivwl_fdmsg_send(int sock, const void *buf, size_t len, const int *fds,
		uint32_t nfds, int flags)
{
	union ivwl_fdmsg_ctl ctl;
	struct iovec iov = { (void *)buf, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (ivwl_fdmsg_build(&mh, &ctl, fds, nfds) < 0)
		return -EINVAL;
	do {
		n = sendmsg(sock, &mh, flags | MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

static void
keep_fd(int fd, void *data)
{
	struct ivwl_fdmsg_fds *fds = data;

	if (fds && fds->n < fds->cap) {
		fds->fds[fds->n++] = fd;
	} else {
		close(fd);
		if (fds)
			fds->lost = true;
	}
}

ssize_t
ivwl_fdmsg_recv(int sock, void *buf, size_t len, int flags,
		struct ivwl_fdmsg_fds *fds, int *msg_flags)
{
	union ivwl_fdmsg_ctl ctl;
	struct iovec iov = { buf, len };
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctl.buf,
		.msg_controllen = sizeof(ctl.buf),
	};
	ssize_t n;

	do {
		n = recvmsg(sock, &mh, flags | MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	/* fds can come with a 0-byte read too: never leak them */
	ivwl_fdmsg_each_fd(&mh, keep_fd, fds);
	if ((mh.msg_flags & MSG_CTRUNC) && fds)
		fds->lost = true;
	if (msg_flags)
		*msg_flags = mh.msg_flags;
	return n;
}

int
ivwl_fdmsg_send_whole(int sock, const void *msg, size_t len, const int *fds,
		      int nfds)
{
	ssize_t n;

	if (nfds < 0)
		return -EINVAL;
	n = ivwl_fdmsg_send(sock, msg, len, fds, (uint32_t)nfds, 0);
	if (n < 0)
		return (int)n;
	return (size_t)n == len ? 0 : -EMSGSIZE;
}

int
ivwl_fdmsg_recv_whole(int sock, void *msg, size_t len, int *fds, int max_fds,
		      int *nfds)
{
	struct ivwl_fdmsg_fds got = {
		.fds = fds,
		.cap = max_fds > 0 ? (uint32_t)max_fds : 0,
	};
	int flags = 0;
	ssize_t n;

	*nfds = 0;
	n = ivwl_fdmsg_recv(sock, msg, len, 0, &got, &flags);
	if (n < 0)
		return (int)n;
	if (got.lost || (flags & MSG_TRUNC) || (size_t)n != len) {
		/* a short or cut message is never half-used */
		while (got.n > 0)
			close(fds[--got.n]);
		return n == 0 ? 0 : -EPROTO;
	}
	*nfds = (int)got.n;
	return (int)n;
}
