/* SPDX-License-Identifier: MIT */
#ifndef IVWL_RELAY_H
#define IVWL_RELAY_H

#include <stdbool.h>

struct relay;

/* The client's own process runs the relay (the shim's in-process mode):
 * the zero-copy sockets are waited on apart (ivwl_relay_zc_wait_fd). */
#define IVWL_RELAY_IN_PROCESS 1u

/*
 * Gets a slot from the agent ($IVWL_AGENT), waits for the display to
 * serve it and prepares to relay sock, our end of the client's
 * socketpair.  zc_fd, -1 when absent, carries the shim's zero-copy
 * requests (zero-copy-proto.h).  flags: 0 or IVWL_RELAY_IN_PROCESS.
 * Takes both fds on success only.  0 or -errno.
 */
int
ivwl_relay_open(int sock, int zc_fd, unsigned flags, struct relay **out);

/* Relays until either side ends the connection; frees r. */
void
ivwl_relay_run(struct relay *r);

/*
 * For a relay the client's own process runs (the shim's in-process
 * mode, in-process.c) instead of ivwl_relay_run: the process wakes when
 * ivwl_relay_wait_fd() is readable or ivwl_relay_timeout_ms() passed,
 * and calls ivwl_relay_step().
 */

/*
 * Serves whatever is there, as ivwl_relay_run does when it wakes, and
 * leaves the rings set to ring us before it returns 0: nothing is left
 * that would not make the wait fd readable.  -1 once the connection is
 * over (then ivwl_relay_end).
 */
int
ivwl_relay_step(struct relay *r);

/* The client wrote into its end: worth a read at the next step. */
void
ivwl_relay_client_wrote(struct relay *r);

/* An epoll fd, readable when the relay has work. */
int
ivwl_relay_wait_fd(const struct relay *r);

/* When the relay must look again though nothing woke it: ms, or -1. */
int
ivwl_relay_timeout_ms(const struct relay *r);

/*
 * In-process, what must not wait for the client's thread: the app's
 * other processes' zero-copy requests (an epoll fd, readable when one
 * came; ivwl_relay_serve_zc answers), and pipes being fed or drained
 * (ivwl_relay_has_pipes: while true, steps are due whenever
 * ivwl_relay_wait_fd is readable, as a client blocked on a pipe takes
 * none).
 */
int
ivwl_relay_zc_wait_fd(const struct relay *r);

void
ivwl_relay_serve_zc(struct relay *r);

bool
ivwl_relay_has_pipes(const struct relay *r);

/*
 * A forked copy of the relay: whether the rings are where this copy
 * left them, so that it may go on with them (nobody else wrote a
 * request or took an event since the fork).
 */
bool
ivwl_relay_rings_untouched(struct relay *r);

/* This copy goes on with the rings: the display rings it for its sleeps,
 * not taking them for the ones the other copy published since the fork. */
void
ivwl_relay_take_over(struct relay *r);

/*
 * Ends the connection: the slot back to the agent, the client's end
 * sees its end.  Frees r and true, or false while the client still
 * draws in zero-copy memory: r then holds that memory until the
 * process exits.
 */
bool
ivwl_relay_end(struct relay *r);

#endif
