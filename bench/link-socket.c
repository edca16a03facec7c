/* SPDX-License-Identifier: MIT */
/*
 * The baseline: an AF_UNIX stream socketpair with blocking read/write,
 * the way waypipe and the Ghaf proxy talk to their local peers.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench.h"
#include "link.h"

struct socket_link {
	struct ivwl_bench_link base;
	int fds[2];
	int fd;		/* this process's end after attach */
};

static struct socket_link *
to_socket(struct ivwl_bench_link *link)
{
	return (struct socket_link *)link;
}

static int
socket_attach(struct ivwl_bench_link *link, enum ivwl_bench_role role,
	      const char **err)
{
	struct socket_link *s = to_socket(link);
	int keep = role == IVWL_BENCH_ROLE_APP ? 0 : 1;

	/* Close the other end, so that a dead peer reads as EOF. */
	close(s->fds[1 - keep]);
	s->fds[1 - keep] = -1;
	s->fd = s->fds[keep];
	return 0;
}

static int
socket_send(struct ivwl_bench_link *link, const void *buf, size_t len)
{
	return ivwl_bench_write_full(to_socket(link)->fd, buf, len);
}

static int
socket_recv(struct ivwl_bench_link *link, void *buf, size_t len)
{
	return ivwl_bench_read_full(to_socket(link)->fd, buf, len);
}

static int
socket_flush(struct ivwl_bench_link *link)
{
	return 0;
}

static void
socket_destroy(struct ivwl_bench_link *link)
{
	struct socket_link *s = to_socket(link);
	int i;

	for (i = 0; i < 2; i++)
		if (s->fds[i] >= 0)
			close(s->fds[i]);
	free(s);
}

static const struct ivwl_bench_link_ops socket_ops = {
	.attach = socket_attach,
	.send = socket_send,
	.recv = socket_recv,
	.flush = socket_flush,
	.destroy = socket_destroy,
};

struct ivwl_bench_link *
ivwl_bench_link_socket_create(const char **err)
{
	struct socket_link *s;

	s = calloc(1, sizeof(*s));
	if (!s) {
		*err = "out of memory";
		return NULL;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, s->fds) < 0) {
		*err = "socketpair failed";
		free(s);
		return NULL;
	}
	s->fd = -1;
	s->base.ops = &socket_ops;
	s->base.name = "socket";
	return &s->base;
}
