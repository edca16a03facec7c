/* SPDX-License-Identifier: MIT */
/*
 * Zero-copy across the processes of one app (libivwl-shim.so).  chromium
 * draws in its GPU process and sends the files from its browser process,
 * which holds the Wayland connection.  A process without a Wayland
 * connection that sends a large file it made to another process moves it
 * onto a grant of its app's relay first; the relay finds the grant by
 * the file's identity when the file arrives in wl_shm.create_pool.  Any
 * process that maps a moved file maps its grant instead (it follows it).
 *
 * The app's relay listens in the abstract namespace under the pid of the
 * process that connected (zero-copy-proto.h); a process finds it among
 * its ancestors and talks only to a listener of its own uid.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "proc.h"
#include "log.h"
#include "shim.h"
#include "zero-copy-internal.h"

/* The relay of the app's Wayland connection, for files sent elsewhere. */
static struct {
	struct zc_conn *conn;
	bool tried;
} app;

void
ivwl_zc_app_forget(void)
{
	/* Its own ancestors may differ: it looks again if it needs to. */
	if (app.conn) {
		if (app.conn->ctl_fd >= 0)
			close(app.conn->ctl_fd);
		free(app.conn);
	}
	app.conn = NULL;
	app.tried = false;
}

/* Only a listener of our own uid may get our pixels. */
static int
connect_relay(pid_t pid)
{
	struct sockaddr_un addr;
	socklen_t len = ivwl_zc_relay_address(pid, &addr), clen;
	struct ucred cred;
	int fd, n;

	clen = sizeof(cred);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (REAL(connect, connect_func_t)(fd, (struct sockaddr *)&addr,
					  len) < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) < 0 ||
	    cred.uid != geteuid()) {
		close(fd);
		return -EACCES;
	}
	return fd;
}

static bool
same_exe(const struct stat *self, pid_t pid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	return stat(path, &st) == 0 && st.st_ino == self->st_ino &&
	       st.st_dev == self->st_dev;
}

/*
 * Connects to the relay of the nearest ancestor that has one (of the same
 * program as self, when self is given); the fd or -errno, *pid its pid.
 */
static int
connect_ancestor(const struct stat *self, pid_t *pid)
{
	int depth, fd = -ENOENT;

	*pid = getppid();
	for (depth = 0; depth < 8 && *pid > 1 && fd < 0; depth++) {
		if (!self || same_exe(self, *pid))
			fd = connect_relay(*pid);
		if (fd < 0)
			*pid = ivwl_proc_parent(*pid);
	}
	return fd;
}

static struct zc_conn *
adopt_conn(int fd)
{
	app.tried = true;
	app.conn = calloc(1, sizeof(*app.conn));
	if (!app.conn) {
		close(fd);
		return NULL;
	}
	app.conn->wl_fd = -1;
	app.conn->ctl_fd = fd;
	return app.conn;
}

/* The relay of the nearest ancestor that has one, or NULL. */
static struct zc_conn *
app_conn(void)
{
	pid_t pid;
	int fd;

	if (app.tried)
		return app.conn && app.conn->ctl_fd >= 0 ? app.conn : NULL;
	fd = connect_ancestor(NULL, &pid);
	if (fd < 0) {
		ivwl_log_debug("zero-copy: no relay of this app to reach: "
				"files sent to other processes stay in copy "
				"mode (%s)", strerror(-fd));
		app.tried = true;
		return NULL;
	}
	ivwl_log_debug("zero-copy: files sent to other processes are "
			"offered to the relay of pid %d", (int)pid);
	return adopt_conn(fd);
}

/* Files no relay had moved: asking again would say the same. */
#define NOT_MOVED 64
static struct file_id not_moved[NOT_MOVED];
static unsigned int not_moved_next;

static bool
was_not_moved(const struct stat *st)
{
	unsigned int i;

	for (i = 0; i < NOT_MOVED; i++)
		if (not_moved[i].ino == st->st_ino &&
		    not_moved[i].dev == st->st_dev)
			return true;
	return false;
}

static struct zc_file *
follow_on(struct zc_conn *c, int fd, const struct stat *st)
{
	struct ivwl_zc_msg m = {
		.op = IVWL_ZC_FOLLOW,
		.dev = st->st_dev,
		.ino = st->st_ino,
	};
	struct zc_file *f;
	int map_fd;

	if (ivwl_zc_request(c, &m, fd, &map_fd) != 0)
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f || map_fd < 0 || (f->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0) {
		/* It counts us as a follower: say we are not. */
		m.op = IVWL_ZC_UNFOLLOW;
		ivwl_zc_request(c, &m, -1, NULL);
		if (map_fd >= 0)
			close(map_fd);
		free(f);
		return NULL;
	}
	f->dev = st->st_dev;
	f->ino = st->st_ino;
	f->conn = c;
	f->follower = true;
	f->grant_off = m.offset;
	f->grant_len = m.length;
	f->map_fd = map_fd;
	f->map_off = m.flags & IVWL_ZC_GRANT_FD ? 0 : f->grant_off;
	ivwl_zc_file_link(f);
	ivwl_log_debug("zero-copy: file %lu, which another process moved, "
			"is mapped from its grant at %#llx",
			(unsigned long)f->ino,
			(unsigned long long)f->grant_off);
	return f;
}

/*
 * fd is about to be mapped shared.  If another process of the app moved
 * its file onto a grant, the pixels are there, not in the file.
 */
struct zc_file *
ivwl_zc_file_follow(int fd, const struct stat *st)
{
	struct zc_conn *c;
	struct zc_file *f = NULL;

	if (st->st_size < (off_t)IVWL_ZC_SHARED_MIN ||
	    ivwl_zc_is_own(st->st_dev, st->st_ino) || was_not_moved(st))
		return NULL;
	for (c = ivwl_zc.conns; c && !f; c = c->next)
		if (c->ctl_fd >= 0)
			f = follow_on(c, fd, st);
	if (!f && (c = app_conn()))
		f = follow_on(c, fd, st);
	if (!f)
		not_moved[not_moved_next++ % NOT_MOVED] =
			(struct file_id){ st->st_dev, st->st_ino };
	return f;
}

/*
 * chromium's sandbox denies its GPU process new sockets, so the
 * process connects before any sandbox is up: at load time.  Only a
 * process of the same program as an ancestor that has a relay does; a
 * shell started from a terminal does not hold a channel for nothing.
 */
void
ivwl_zc_app_conn_early(void)
{
	struct stat self;
	pid_t pid;
	int fd;

	if (stat("/proc/self/exe", &self) < 0)
		return;
	/* Not tried for good when nothing answers: the relay may come. */
	fd = connect_ancestor(&self, &pid);
	if (fd >= 0)
		adopt_conn(fd);
}

/*
 * A process without a Wayland connection of its own sends fd to another
 * process, which may send it on to the display.
 */
void
ivwl_zc_consider_sent_away(int fd)
{
	struct zc_file *f;
	struct zc_conn *c;
	struct stat st;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size < (off_t)IVWL_ZC_SHARED_MIN)
		return;
	f = ivwl_zc_file_find(st.st_dev, st.st_ino);
	if (f && !f->candidate)
		return;
	if (ivwl_zc.mode == ZC_AUTO && !ivwl_zc_is_own(st.st_dev, st.st_ino)) {
		ivwl_log_debug("zero-copy: fd %d sent to another process "
				"stays in copy mode: this process did not "
				"create it", fd);
		return;
	}
	c = app_conn();
	if (c)
		ivwl_zc_file_move(c, fd, &st, true);
}

