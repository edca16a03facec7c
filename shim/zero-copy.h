/* SPDX-License-Identifier: MIT */
#ifndef IVWL_ZERO_COPY_H
#define IVWL_ZERO_COPY_H

#include <stdbool.h>

/* False when IVWL_ZERO_COPY=off: relays then get no handshake socket. */
bool
ivwl_zero_copy_enabled(void);

/*
 * wl_fd, the client's Wayland socket, is served by a relay listening on
 * ctl_fd (ours from now on) for zero-copy requests.
 */
void
ivwl_zero_copy_add_connection(int wl_fd, int ctl_fd);

#endif
