/* SPDX-License-Identifier: MIT */
#ifndef IVWL_RELAY_H
#define IVWL_RELAY_H

struct relay;

/*
 * Gets a slot from the agent ($IVWL_AGENT), waits for the display to
 * serve it and prepares to relay sock, our end of the client's
 * socketpair.  zc_fd, -1 when absent, carries the shim's zero-copy
 * requests (zero-copy-proto.h).  Takes both fds on success only.  0 or
 * -errno.
 */
int
ivwl_relay_open(int sock, int zc_fd, struct relay **out);

/* Relays until either side ends the connection; frees r. */
void
ivwl_relay_run(struct relay *r);

#endif
