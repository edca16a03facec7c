/* SPDX-License-Identifier: MIT */
/*
 * Messages with file descriptors over AF_UNIX sockets (SCM_RIGHTS): the
 * one place that builds and decodes the control data.  Every socket in
 * ivwl that carries fds goes through here: the agent's and the relay's
 * SOCK_SEQPACKET requests, the Wayland byte streams, and the ivshmem
 * server's protocol.
 */
#ifndef IVWL_FDMSG_H
#define IVWL_FDMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

/*
 * At most this many fds in one message: libwayland's own limit, the same
 * as record.h's IVWL_WAYLAND_MAX_FDS (record.c checks that they agree).
 */
#define IVWL_FDMSG_MAX_FDS 28u

/* Room for the control data of IVWL_FDMSG_MAX_FDS fds, aligned. */
union ivwl_fdmsg_ctl {
	char buf[CMSG_SPACE(IVWL_FDMSG_MAX_FDS * sizeof(int))];
	struct cmsghdr align;
};

/*
 * Points mh's control data at ctl, holding nfds fds (none: no control
 * data at all).  -EINVAL past IVWL_FDMSG_MAX_FDS.  For callers that must
 * make the sendmsg() call themselves.
 */
int
ivwl_fdmsg_build(struct msghdr *mh, union ivwl_fdmsg_ctl *ctl, const int *fds,
		 uint32_t nfds);

/* Calls fn for every fd that mh's SCM_RIGHTS data holds, in order. */
void
ivwl_fdmsg_each_fd(const struct msghdr *mh, void (*fn)(int fd, void *data),
		   void *data);

/* One sendmsg (EINTR retried, never SIGPIPE): bytes sent or -errno. */
ssize_t
ivwl_fdmsg_send(int sock, const void *buf, size_t len, const int *fds,
		uint32_t nfds, int flags);

/* Where received fds go; the caller owns every fd counted in n. */
struct ivwl_fdmsg_fds {
	int *fds;
	uint32_t cap;
	uint32_t n;	/* fds held; ivwl_fdmsg_recv appends after them */
	/* An fd arrived with no room (it was closed), or the kernel cut
	 * the control data: the message's fds are not all here. */
	bool lost;
};

/*
 * One recvmsg (EINTR retried, fds close-on-exec) into buf, with the fds
 * appended to *fds.  Bytes read (0 on EOF) or -errno; *msg_flags (may
 * be NULL) gets the kernel's MSG_TRUNC / MSG_CTRUNC.
 */
ssize_t
ivwl_fdmsg_recv(int sock, void *buf, size_t len, int flags,
		struct ivwl_fdmsg_fds *fds, int *msg_flags);

/*
 * Whole messages on a SOCK_SEQPACKET socket: a message goes or arrives
 * complete, with all its fds, or not at all.
 *
 * send: 0, -EMSGSIZE when the socket took only part of it, or -errno.
 * recv: len (0 on EOF) with *nfds fds, -EPROTO for a message of another
 * size or with more than max_fds fds (its fds closed), or -errno.
 */
int
ivwl_fdmsg_send_whole(int sock, const void *msg, size_t len, const int *fds,
		      int nfds);

int
ivwl_fdmsg_recv_whole(int sock, void *msg, size_t len, int *fds, int max_fds,
		      int *nfds);

#endif
