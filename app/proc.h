/* SPDX-License-Identifier: MIT */
#ifndef IVWL_PROC_H
#define IVWL_PROC_H

#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

/* pid's parent from /proc, or -1. */
pid_t
ivwl_proc_parent(pid_t pid);

/* The abstract address the relay of pid's connection listens on. */
socklen_t
ivwl_zc_relay_address(pid_t pid, struct sockaddr_un *addr);

#endif
