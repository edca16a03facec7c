/* SPDX-License-Identifier: MIT */
#ifndef IVWL_IN_PROCESS_H
#define IVWL_IN_PROCESS_H

#include <stdbool.h>
#include <sys/socket.h>
#include <sys/types.h>

/*
 * True on this thread while the shim runs a relay in the client's own
 * process: the shim's interposers then pass every call straight on, as
 * the relay is not the client.
 */
extern __thread bool ivwl_in_relay;

/* IVWL_IN_PROCESS=on: connections get a relay in this process. */
bool
ivwl_in_process_enabled(void);

/*
 * fd, the socket the client connects to the display, becomes an epoll
 * set served by a relay in this process; zc_end (-1: none) carries the
 * zero-copy requests, and is taken in every case.  0 or -errno.
 */
int
ivwl_in_process_connect(int fd, int zc_end);

/*
 * sendmsg() and recvmsg() on fd when it is one such connection: true,
 * with what the call returns in *ret (errno set as it sets it); false
 * for any other fd, which the caller then passes on.
 */
bool
ivwl_in_process_sendmsg(int fd, const struct msghdr *msg, int flags,
			ssize_t *ret);

bool
ivwl_in_process_recvmsg(int fd, struct msghdr *msg, int flags,
			ssize_t *ret);

/* Before fd closes: the connection ends (its slot goes back). */
void
ivwl_in_process_close(int fd);

#endif
