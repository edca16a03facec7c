#ifndef IVWL_RELAY_H
#define IVWL_RELAY_H

/*
 * Gets a slot from the agent, waits for the display to serve it and
 * starts the thread that relays sock (our end of the client's socketpair)
 * through it.  Takes sock on success only.  0 or -errno.
 */
int
ivwl_relay_start(int sock);

#endif
