/* SPDX-License-Identifier: MIT */
/*
 * The pattern client's pool and buffers, as --pool, --buffers,
 * --recreate and --new-pools ask: whose memfd it is (ours, a child's, a
 * drawer's that draws in it), and how the pool changes halfway through.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pattern-client.h"

/* After the helper marked it free: --recreate makes it anew. */
static void
buffer_release(struct ivwl_client_buffer *base)
{
	struct buffer *b = (struct buffer *)base;

	if (b->app->recreate) {
		wl_buffer_destroy(base->wl);
		base->wl = NULL;
	}
}

bool
pattern_known_pool_mode(const char *mode)
{
	static const char *const modes[] = {
		"own", "child", "regrow", "remap", "close", "sparse",
		"drawer",
	};
	size_t i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (strcmp(mode, modes[i]) == 0)
			return true;
	return false;
}

/* One byte and room for one fd: what send_fd() and recv_fd() pass. */
struct fd_msg {
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
	char byte;
	struct iovec iov;
	struct msghdr mh;
};

static void
fd_msg_init(struct fd_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->iov.iov_base = &m->byte;
	m->iov.iov_len = 1;
	m->mh.msg_iov = &m->iov;
	m->mh.msg_iovlen = 1;
	m->mh.msg_control = m->control.buf;
	m->mh.msg_controllen = sizeof(m->control.buf);
}

static int
send_fd(int sock, int fd)
{
	struct fd_msg m;
	struct cmsghdr *cm;

	fd_msg_init(&m);
	cm = CMSG_FIRSTHDR(&m.mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(fd));
	return sendmsg(sock, &m.mh, 0) == 1 ? 0 : -1;
}

/* The fd send_fd() sent, or -1. */
static int
recv_fd(int sock)
{
	struct fd_msg m;
	struct cmsghdr *cm;
	int fd = -1;

	fd_msg_init(&m);
	if (recvmsg(sock, &m.mh, 0) == 1 && (cm = CMSG_FIRSTHDR(&m.mh)) &&
	    cm->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(cm), sizeof(fd));
	return fd;
}

/*
 * Forks a child with a socket to this process: *sock is the child's end
 * in the child (0 returned), ours here (the child's pid, or -1 when the
 * fork failed); -1 when there is no socket at all.
 */
static pid_t
fork_with_socket(int *sock)
{
	int sv[2];
	pid_t pid;

	*sock = -1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	pid = fork();
	close(sv[pid == 0 ? 0 : 1]);
	*sock = sv[pid == 0 ? 1 : 0];
	return pid;
}

/* A memfd made by another process, as a GPU process would hand one. */
static int
memfd_from_child(void)
{
	int sock, fd = -1;
	pid_t pid = fork_with_socket(&sock);

	if (pid == 0) {
		fd = memfd_create("pattern-child", MFD_CLOEXEC);
		_exit(fd < 0 || send_fd(sock, fd) < 0);
	}
	if (pid > 0)
		fd = recv_fd(sock);
	if (sock >= 0)
		close(sock);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return fd;
}

/* The drawer's request: bring buffer `buffer` up to frame `frame`. */
struct drawer_job {
	int buffer, frame;
};

static void
drawer_loop(struct app *app, int sock, size_t pool_size)
{
	size_t size = (size_t)app->width * 4 * app->height;
	struct drawer_job job;
	uint8_t *map;
	int fd, i;

	fd = memfd_create("pattern-drawer", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)pool_size) < 0)
		_exit(1);
	map = mmap(NULL, pool_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED || send_fd(sock, fd) < 0)
		_exit(1);
	close(fd);
	for (i = 0; i < 2; i++) {
		app->buffers[i].base.pixels = (uint32_t *)(map + i * size);
		app->buffers[i].frame = -1;
	}
	while (read(sock, &job, sizeof(job)) == sizeof(job) &&
	       job.buffer >= 0 && job.buffer < 2) {
		pattern_paint(app, &app->buffers[job.buffer], job.frame);
		if (write(sock, "", 1) != 1)
			break;
	}
	_exit(0);
}

/* A memfd a forked child makes, maps and draws in until we hang up. */
static int
memfd_from_drawer(struct app *app, size_t pool_size)
{
	int sock, fd = -1;
	pid_t pid = fork_with_socket(&sock);

	if (pid == 0)
		drawer_loop(app, sock, pool_size);
	if (pid > 0)
		fd = recv_fd(sock);
	if (fd < 0) {
		if (sock >= 0)
			close(sock);
		return -1;
	}
	app->drawer = sock;
	return fd;
}

/* pattern_paint(), done by the drawer: the same pixels, another process. */
struct band
pattern_paint_in_drawer(struct app *app, struct buffer *b, int f)
{
	struct drawer_job job = { (int)(b - app->buffers), f };
	char ack;

	if (write(app->drawer, &job, sizeof(job)) != sizeof(job) ||
	    read(app->drawer, &ack, 1) != 1) {
		fprintf(stderr, "pattern-client: the drawer is gone\n");
		exit(1);
	}
	b->frame = f;
	return pattern_band(f, app->width, app->height, app->band_w,
			    app->band_h);
}

void
pattern_new_buffer(struct app *app, int i, size_t offset)
{
	struct ivwl_client_pool pool = app->pool;
	struct buffer *b = &app->buffers[i];

	if (app->new_pools)
		pool.wl = wl_shm_create_pool(app->shm, app->pool.fd,
					     (int32_t)app->pool.size);
	b->app = app;
	b->offset = offset;
	ivwl_client_buffer_init(&b->base, &pool, offset, app->width,
				app->height, WL_SHM_FORMAT_XRGB8888);
	b->base.release = buffer_release;
	/* The buffer keeps the pool's memory. */
	if (pool.wl != app->pool.wl)
		wl_shm_pool_destroy(pool.wl);
}

int
pattern_create_buffers(struct app *app)
{
	size_t size = (size_t)app->width * 4 * app->height;
	size_t pool_size = (size_t)app->n_buffers * size;
	int i, fd = -1;

	if (strcmp(app->pool_mode, "sparse") == 0)
		pool_size += 256u << 20;
	/* Another process's memfd, or (-1) one of ours */
	if (strcmp(app->pool_mode, "child") == 0 &&
	    (fd = memfd_from_child()) < 0)
		return -1;
	if (strcmp(app->pool_mode, "drawer") == 0 &&
	    (fd = memfd_from_drawer(app, pool_size)) < 0)
		return -1;
	if (ivwl_client_pool_init(&app->pool, app->shm, fd, pool_size,
				  "pattern") < 0)
		return -1;
	for (i = 0; i < app->n_buffers; i++) {
		app->buffers[i].frame = -1;
		pattern_new_buffer(app, i, i * size);
	}
	return 0;
}

/*
 * Mapped anew, likely at a new address: the pixels must have followed.
 * unmap_old false: the caller has unmapped the old mapping already.
 */
static int
remap_pool(struct app *app, size_t new_size, bool unmap_old)
{
	uint8_t *old = app->pool.map;
	int i;

	app->pool.map = mmap(NULL, new_size, PROT_READ | PROT_WRITE,
			     MAP_SHARED, app->pool.fd, 0);
	if (app->pool.map == MAP_FAILED)
		return -1;
	if (unmap_old)
		munmap(old, app->pool.size);
	app->pool.size = new_size;
	for (i = 0; i < app->n_buffers; i++)
		app->buffers[i].base.pixels = (uint32_t *)(app->pool.map +
			((uint8_t *)app->buffers[i].base.pixels - old));
	return 0;
}

/* Halfway through, the pool changes as --pool asks. */
int
pattern_change_pool(struct app *app)
{
	size_t size = (size_t)app->width * 4 * app->height;
	struct buffer *b = &app->buffers[0];
	int frame = b->frame, i;

	if (strcmp(app->pool_mode, "remap") == 0) {
		/* All of it unmapped first, then mapped again. */
		munmap(app->pool.map, app->pool.size);
		return remap_pool(app, app->pool.size, false);
	}
	if (strcmp(app->pool_mode, "close") == 0) {
		/* The window must keep what the buffers held. */
		for (i = 0; i < app->n_buffers; i++) {
			uint32_t *copy = malloc(size);

			if (!copy)
				return -1;
			memcpy(copy, app->buffers[i].base.pixels, size);
			app->buffers[i].base.pixels = copy;
		}
		close(app->pool.fd);
		munmap(app->pool.map, app->pool.size);
		app->frozen = true;
		return 0;
	}
	if (strcmp(app->pool_mode, "regrow") != 0)
		return 0;
	if (ftruncate(app->pool.fd, (off_t)(3 * size)) < 0 ||
	    remap_pool(app, 3 * size, true) < 0)
		return -1;
	wl_shm_pool_resize(app->pool.wl, (int32_t)(3 * size));
	memcpy(app->pool.map + 2 * size, b->base.pixels, size);
	if (!b->base.busy)
		wl_buffer_destroy(b->base.wl);
	pattern_new_buffer(app, 0, 2 * size);
	b->frame = frame;
	return 0;
}
