/* SPDX-License-Identifier: MIT */
/*
 * A link: one way of moving bytes between two processes, measured by the
 * transport benchmark.  A link is created before fork(); each process
 * then attaches to its side.  The app side sends bulk data, the display
 * side receives it; small messages go both ways.
 *
 * Every link receives into the caller's private buffer, as a real consumer
 * must: a link never hands out pointers into shared memory.
 */
#ifndef IVWL_BENCH_LINK_H
#define IVWL_BENCH_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ivwl_bench_role {
	IVWL_BENCH_ROLE_APP = 0,	/* the parent process, peer 1 */
	IVWL_BENCH_ROLE_DISPLAY = 1,	/* the forked child, peer 0 */
};

struct ivwl_bench_link_stats {
	uint64_t doorbells;	/* doorbells this process rang */
	uint64_t sleeps;	/* times this process went to sleep */
};

struct ivwl_bench_link;

struct ivwl_bench_link_ops {
	/* In each process after fork.  0 or -errno, *err says why. */
	int (*attach)(struct ivwl_bench_link *link, enum ivwl_bench_role role,
		      const char **err);
	/*
	 * Sends len bytes as one message; returns once they are handed to
	 * the link (not necessarily received).  0 or -errno.
	 */
	int (*send)(struct ivwl_bench_link *link, const void *buf, size_t len);
	/* Receives exactly one message of len bytes into buf. */
	int (*recv)(struct ivwl_bench_link *link, void *buf, size_t len);
	/* Publishes anything still owed to the peer before going idle. */
	int (*flush)(struct ivwl_bench_link *link);
	void (*destroy)(struct ivwl_bench_link *link);
};

struct ivwl_bench_link {
	const struct ivwl_bench_link_ops *ops;
	const char *name;
	struct ivwl_bench_link_stats stats;
};

struct ivwl_bench_ring_config {
	const char *server_bin;		/* NULL: the local backend */
	uint64_t region_size;
	uint32_t chunk;		/* bulk record payload; 0 = automatic */
	uint32_t space_batch;	/* bytes a consumer frees between checks */
	uint32_t data_batch;	/* bytes a producer publishes between checks */
	int spin_us;		/* poll the ring this long before sleeping */
	uint32_t local_ring_size; /* local backend: not layout v1's size */
	bool server_quiet;	/* ivwl-server's logs go to /dev/null */
};

/* A batch chosen by the link: half the ring. */
#define IVWL_BENCH_KICK_BATCH_AUTO UINT32_MAX

/* Each returns NULL with *err set on failure. */
struct ivwl_bench_link *
ivwl_bench_link_socket_create(const char **err);

struct ivwl_bench_link *
ivwl_bench_link_stopwait_create(size_t buffer_size, const char **err);

struct ivwl_bench_link *
ivwl_bench_link_ring_create(const struct ivwl_bench_ring_config *config,
			    const char **err);

/* Ring-only facts for the report, as settled by attach. */
struct ivwl_bench_ring_info {
	uint32_t size;
	uint32_t chunk;
	uint32_t space_batch;
	uint32_t data_batch;
};

void
ivwl_bench_link_ring_info(struct ivwl_bench_link *link,
			  struct ivwl_bench_ring_info *info);

/* Starts ivwl-server; *pid for ivwl_bench_server_stop().  0 or -errno. */
int
ivwl_bench_server_start(const char *bin, const char *app_socket,
			const char *display_socket, uint64_t region_size,
			bool quiet, int *pid, const char **err);

void
ivwl_bench_server_stop(int pid);

/*
 * Where ivwl-server lives: explicit path, else $IVWL_SERVER_BIN, else
 * ../host/ivwl-server next to this executable in the build tree.  The
 * result is malloc'ed; NULL when nothing executable was found.
 */
char *
ivwl_bench_server_find(const char *explicit_path);

#endif
