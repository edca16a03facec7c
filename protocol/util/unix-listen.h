/* SPDX-License-Identifier: MIT */
/*
 * Listening on a unix socket path that one instance owns at a time (the
 * agent's, the ivshmem server's).
 */
#ifndef IVWL_UNIX_LISTEN_H
#define IVWL_UNIX_LISTEN_H

#include <sys/stat.h>

/*
 * Binds a socket of type (SOCK_STREAM, SOCK_SEQPACKET; made non-blocking
 * and close-on-exec) to path and listens, unless another instance
 * listens there.  A socket file nobody answers on is what a crashed
 * instance leaves: it is replaced.  The probe connects, so a live
 * instance sees a peer come and go.
 *
 * Returns the fd, and in *bound (may be NULL) the file made, so that
 * only that one is removed at exit; or -EADDRINUSE when another instance
 * listens, -EEXIST when path is not a socket, -ENAMETOOLONG, -errno.
 */
int
ivwl_unix_listen(const char *path, int type, int backlog, struct stat *bound);

#endif
