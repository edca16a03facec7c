/* SPDX-License-Identifier: MIT */
/*
 * Helpers for the tests of ivwl-server and the ivshmem-client backend:
 * starting and stopping server processes, and a raw protocol client that
 * uses none of the code under test.
 *
 * Every test binary gets a private temporary directory and a watchdog:
 * servers are killed and the directory removed at exit, on REQUIRE
 * failures and when the watchdog fires.
 */
#ifndef IVWL_TEST_HOST_UTIL_H
#define IVWL_TEST_HOST_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "mono-time.h"

#define HU_PATH_MAX 108
#define HU_TIMEOUT_MS 3000

/* The directory of this test binary's files. */
const char *
hu_dir(void);

/* dir/name, in a static rotating buffer (a few stay valid at once). */
const char *
hu_path(const char *name);

struct hu_output {
	int status;		/* as from waitpid, -1 when it hung */
	char out[8192];
	char err[8192];
	pid_t pid;
	int out_fd, err_fd;
};

/* Runs the server with argv (NULL-terminated, without argv[0]). */
void
hu_run_server(const char *const *args, struct hu_output *o);

/* The same in two halves, to run many at once (at most 60). */
void
hu_run_start(const char *const *args, struct hu_output *o);

void
hu_run_finish(struct hu_output *o);

/* Exit code of a finished run, -1 when it did not exit normally. */
int
hu_exit_code(const struct hu_output *o);

struct hu_server {
	pid_t pid;
	char app[HU_PATH_MAX];
	char display[HU_PATH_MAX];
	char log[HU_PATH_MAX];
};

/*
 * Starts ivwl-server --socket dir/name --size size --vectors vectors
 * (vectors 0: left out) and waits until it listens on both sockets.
 */
int
hu_server_start(struct hu_server *srv, const char *name, const char *size,
		uint32_t vectors);

/* Same, with the full argument list (without argv[0]). */
int
hu_server_start_args(struct hu_server *srv, const char *log_name,
		     const char *const *args);

/* The two halves of hu_server_start_args, to start several at once. */
void
hu_server_spawn(struct hu_server *srv, const char *log_name,
		const char *const *args);

int
hu_server_wait_ready(struct hu_server *srv);

bool
hu_server_alive(struct hu_server *srv);

/* Sends sig and reaps: waitpid status, or -1 when it did not exit. */
int
hu_server_stop(struct hu_server *srv, int sig);

/* How many fds the server holds open, -1 when unknown. */
int
hu_server_fd_count(struct hu_server *srv);

/* The server's log so far (static buffer). */
const char *
hu_server_log(struct hu_server *srv);

/* Waits at most ms until the server's log contains needle. */
bool
hu_server_wait_log(struct hu_server *srv, const char *needle, int ms);

/* Connected unix stream socket, or -1. */
int
hu_connect(const char *path);

struct hu_msg {
	int64_t value;
	int fd;			/* first fd, -1 if none */
	int nfds;		/* fds that came with it */
};

/* 1: a message, 0: EOF, -ETIMEDOUT, or -errno. */
int
hu_recv(int sock, int timeout_ms, struct hu_msg *m);

/* Sends one protocol message with nfds fds (a fake server's side). */
int
hu_send(int sock, int64_t value, const int *fds, int nfds);

/*
 * The display's requests (protocol/device/server-msg.h), spelt out here
 * so that the tests pin the wire format: "IW", op, zero, peer,
 * vector/version.
 */
#define HU_HELLO ((int64_t)0x4957010000000001ll)
/* The display's ACK: it rings, it lends the region (version 2). */
#define HU_ACK ((int64_t)0x4957030000020002ll)
/* The ACK with IVWL_SRV_ACK_NO_RINGS alone: the app's. */
#define HU_ACK_NO_RINGS ((int64_t)0x4957030000010002ll)
/* The display's with --no-rings: it still lends the region. */
#define HU_ACK_NO_RINGS_LENDS ((int64_t)0x4957030000030002ll)
/* The display's with --no-lend: it still rings. */
#define HU_ACK_NO_LEND ((int64_t)0x4957030000000002ll)
/* Any ACK, whatever its flags and version. */
#define HU_IS_ACK(v) ((uint64_t)(v) >> 32 == 0x49570300ull)
/* REGION, the display's ask and (with the fd) the server's answer. */
#define HU_REGION ((int64_t)0x4957040000000000ll)
#define HU_RING(peer, vector)                                           \
	((int64_t)(0x4957020000000000ull | (uint64_t)(peer) << 16 |      \
		   (uint64_t)(vector)))

/* Writes the requests as one little-endian byte string, in one write. */
int
hu_send_requests(int sock, const int64_t *values, int n);

/* Says HELLO and expects the ACK (recorded as checks); 0 when it came. */
int
hu_client_hello(int sock);

/* The same, expecting ack (HU_ACK or HU_ACK_NO_RINGS). */
int
hu_client_hello_ack(int sock, int64_t ack);

/* Expects ack as the next message; 0 when it came. */
int
hu_expect_ack(int sock, int64_t ack);

/* A raw protocol client and what it learnt. */
struct hu_client {
	int sock;
	uint32_t id;
	uint32_t vectors;
	int shm_fd;
	uint64_t shm_size;
	int *own;		/* own eventfds (receive) */
	int *peer[2];		/* other peers' eventfds (ring), by id */
};

/*
 * Connects and checks the whole setup sequence: version, id, region,
 * the other peer's vectors when other_present, own vectors.  Returns 0
 * when it went as expected (failures are recorded as checks).
 */
int
hu_client_join(struct hu_client *c, const char *path, uint32_t expect_id,
	       uint32_t vectors, uint64_t size, bool other_present);

/* Expects the other peer's id with one eventfd per vector. */
void
hu_client_expect_join(struct hu_client *c, uint32_t other);

/* Expects the other peer's bare id. */
void
hu_client_expect_leave(struct hu_client *c, uint32_t other);

/* Expects nothing to arrive within ms. */
void
hu_client_expect_quiet(struct hu_client *c, int ms);

void
hu_client_close(struct hu_client *c);

/* Checks that ringing through 'from' reaches every vector of 'to'. */
void
hu_check_ring(struct hu_client *from, struct hu_client *to);

/*
 * Whether fds a and b are the same open file (kcmp, else the eventfd-id
 * of fdinfo).  Not st_ino: every eventfd shares one anonymous inode.
 */
bool
hu_same_file(int a, int b);

/*
 * Connects a display (which says HELLO) and an app client, checks both
 * setups, rings both ways and leaves.  The way to show the server still
 * works.
 */
void
hu_check_fresh_pair(struct hu_server *srv, uint32_t vectors, uint64_t size);

bool
hu_is_eventfd(int fd);

/* 1 readable, 0 not within ms. */
int
hu_wait_readable(int fd, int ms);

int
hu_ring_fd(int fd);

/* Reads an eventfd counter, 0 when nothing is pending. */
uint64_t
hu_eventfd_take(int fd);

void
hu_raise_fd_limit(void);

/* ---- devices and children of the tests ---- */

struct ivwl_device;

/* How long a test waits for a device to open. */
#define HU_OPEN_MS 2000

/* Opens a server device at path with flags (IVWL_DEVICE_SERVER_*);
 * fails the test if it does not open cleanly. */
struct ivwl_device *
hu_open_device(const char *path, uint32_t flags);

/* Open fds of this process. */
int
hu_count_fds(void);

/* A child's exit code, or -1 when it did not exit by itself within
 * HU_TIMEOUT_MS (then it is killed) or died of a signal. */
int
hu_wait_child(pid_t pid);

#endif
