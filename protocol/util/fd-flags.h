/* SPDX-License-Identifier: MIT */
/*
 * O_NONBLOCK on a descriptor, checked: every part sets it on fds it got
 * from elsewhere (clients' pipes, eventfds, sockets), where a silent
 * failure would leave a loop that must not block able to block.
 */
#ifndef IVWL_FD_FLAGS_H
#define IVWL_FD_FLAGS_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>

/* 0, or -errno when O_NONBLOCK could not be turned on or off. */
static inline int
ivwl_fd_set_nonblock(int fd, bool on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -errno;
	if (!!(fl & O_NONBLOCK) == on)
		return 0;
	fl = on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK;
	return fcntl(fd, F_SETFL, fl) < 0 ? -errno : 0;
}

#endif
