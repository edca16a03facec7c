/* SPDX-License-Identifier: MIT */
/*
 * Zero-copy, the client's half (libivwl-shim.so).  When the client sends
 * a shm file it made itself (a wl_shm pool's fd), the shim first asks the
 * relay for a grant, a heap range of the region as large as the file,
 * copies the file in and moves every mapping the process has of the file
 * onto the grant with MAP_FIXED.  Later mmaps of the file land there too,
 * so the client draws straight into region memory and the relay has
 * nothing to copy.
 *
 * A file goes back to copy mode (its mappings moved back onto the file,
 * which gets the grant's bytes first) when the client maps it beyond the
 * grant or privately, sends it on another connection, or unmaps it all.
 * Files are never moved when another process may write them: in auto mode
 * only files this process created through memfd_create, shm_open or
 * syscall(SYS_memfd_create) qualify.
 *
 * Apps of several processes (chromium) are zero-copy-app.c's.
 *
 *   IVWL_ZERO_COPY  auto (default): files this process created
 *                   on: any shm file the process maps shared
 *                   off: copy mode for every pool
 *
 * Known limits: a thread writing a mapping while it is being moved can
 * lose those writes; mremap() is not followed; after fork() the child
 * keeps inherited mappings but not the bookkeeping.
 *
 * The libc calls that feed it are interpose.c's.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "agent-client.h"
#include "fdmsg.h"
#include "proc.h"
#include "log.h"
#include "shim.h"
#include "zero-copy-internal.h"
#include "zero-copy-proto.h"
#include "zero-copy.h"

/* The relay answers at once unless it is stuck: then give up on it. */
#define REPLY_TIMEOUT_MS 5000

struct ivwl_zc_shim ivwl_zc = {
	.mode = ZC_AUTO,
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

static void
fork_prepare(void)
{
	pthread_mutex_lock(&ivwl_zc.lock);
}

static void
fork_parent(void)
{
	pthread_mutex_unlock(&ivwl_zc.lock);
}

/*
 * The child shares the relay socket with its parent, whose requests and
 * replies would interleave with its own: it keeps its inherited mappings
 * (shared with the parent, so they stay right) and forgets the rest.
 */
static void
fork_child(void)
{
	bool had_wayland = ivwl_zc_has_wayland_conn();

	ivwl_zc_app_forget();
	ivwl_zc.conns = NULL;
	ivwl_zc.files = NULL;
	__atomic_store_n(&ivwl_zc.nfiles, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&ivwl_zc.lock);
	/* chromium forks its GPU process from a zygote that started
	 * before any relay did, and sandboxes it soon after: now or never. */
	if (ivwl_zc.mode != ZC_OFF && !had_wayland)
		ivwl_zc_app_conn_early();
}

/*
 * Other libraries' constructors may call in before ours has run: each
 * call finds its real function itself (the same value whoever wins).
 */
void *
ivwl_zc_resolve(void **slot, const char *name)
{
	void *fn = __atomic_load_n(slot, __ATOMIC_RELAXED);

	if (!fn) {
		fn = dlsym(RTLD_NEXT, name);
		__atomic_store_n(slot, fn, __ATOMIC_RELAXED);
	}
	return fn;
}

__attribute__((constructor)) static void
zc_init(void)
{
	const char *v = getenv("IVWL_ZERO_COPY");

	ivwl_log_setup("ivwl-shim", true);
	if (!v || !v[0] || strcmp(v, "auto") == 0) {
		ivwl_zc.mode = ZC_AUTO;
	} else if (strcmp(v, "on") == 0) {
		ivwl_zc.mode = ZC_ON;
	} else if (strcmp(v, "off") == 0) {
		ivwl_zc.mode = ZC_OFF;
	} else {
		ivwl_zc.mode = ZC_OFF;
		ivwl_log_warning("IVWL_ZERO_COPY=%s: expected auto, on or off; "
				 "using copy mode", v);
	}
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	if (ivwl_zc.mode != ZC_OFF)
		ivwl_zc_app_conn_early();
}

bool
ivwl_zero_copy_enabled(void)
{
	return ivwl_zc.mode != ZC_OFF;
}

/* ---- files this process made ----------------------------------------- */

void
ivwl_zc_note_own(int fd)
{
	struct stat st;

	if (fd < 0 || ivwl_zc.mode != ZC_AUTO || fstat(fd, &st) < 0)
		return;
	pthread_mutex_lock(&ivwl_zc.lock);
	ivwl_zc.own[ivwl_zc.own_next++ % OWN_FILES] =
		(struct file_id){ st.st_dev, st.st_ino };
	pthread_mutex_unlock(&ivwl_zc.lock);
}

bool
ivwl_zc_is_own(dev_t dev, ino_t ino)
{
	unsigned int i;

	for (i = 0; i < OWN_FILES; i++)
		if (ivwl_zc.own[i].ino == ino && ivwl_zc.own[i].dev == dev &&
		    ino != 0)
			return true;
	return false;
}

/* ---- the relay --------------------------------------------------------- */

static int
recv_reply(struct zc_conn *c, struct ivwl_zc_msg *m, int *fd_out)
{
	struct pollfd pfd = { .fd = c->ctl_fd, .events = POLLIN };
	int r, n, fd, nfds;

	do {
		r = poll(&pfd, 1, REPLY_TIMEOUT_MS);
	} while (r < 0 && errno == EINTR);
	if (r <= 0)
		return -ETIMEDOUT;
	n = ivwl_fdmsg_recv_whole(c->ctl_fd, m, sizeof(*m), &fd, 1, &nfds);
	if (nfds > 0) {
		if (fd_out && *fd_out < 0)
			*fd_out = fd;
		else
			close(fd);
	}
	if (n < 0)
		return n;
	return n == (int)sizeof(*m) ? 0 : -EPROTO;
}

/*
 * One request, one reply; the reply's status, or -errno on the way.
 * fd_in (-1 for none) goes with the request.  Not ivwl_fdmsg_send: its
 * sendmsg() would be our own, which takes the lock we hold.
 */
int
ivwl_zc_request(struct zc_conn *c, struct ivwl_zc_msg *m, int fd_in,
		int *fd_out)
{
	union ivwl_fdmsg_ctl ctl;
	struct iovec iov = { m, sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;
	int ret;

	if (fd_out)
		*fd_out = -1;
	if (c->ctl_fd < 0)
		return -ENOTCONN;
	ivwl_fdmsg_build(&mh, &ctl, &fd_in, fd_in >= 0);
	do {
		n = REAL(sendmsg, sendmsg_func_t)(c->ctl_fd, &mh, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	ret = n == (ssize_t)sizeof(*m) ? recv_reply(c, m, fd_out) :
	      n < 0 ? -errno : -EPROTO;
	if (ret < 0) {
		/* Replies could come out of step now: stop asking. */
		ivwl_log_debug("zero-copy: the relay does not answer (%s)",
				strerror(-ret));
		close(c->ctl_fd);
		c->ctl_fd = -1;
		if (fd_out && *fd_out >= 0) {
			close(*fd_out);
			*fd_out = -1;
		}
		return ret;
	}
	return m->status;
}

static int
send_revert(struct zc_file *f, uint32_t flags)
{
	struct ivwl_zc_msg m = {
		.op = IVWL_ZC_REVERT,
		.flags = flags,
		.dev = f->dev,
		.ino = f->ino,
	};

	return ivwl_zc_request(f->conn, &m, -1, NULL);
}

/* ---- moving mappings --------------------------------------------------- */

int
ivwl_zc_track(struct zc_file *f, uintptr_t addr, size_t len, uint64_t off, int prot)
{
	return ivwl_zc_maps_add(&f->maps,
				&(struct zc_map){ addr, len, off, prot, false });
}

/* Writes the grant back into the file, as far as the file now goes. */
static void
copy_back(struct zc_file *f)
{
	struct stat st;
	uint64_t len, done = 0;
	ssize_t n;

	if (fstat(f->fd, &st) < 0)
		return;
	len = (uint64_t)st.st_size < f->grant_len ? (uint64_t)st.st_size :
						     f->grant_len;
	while (done < len) {
		n = pwrite(f->fd, f->view + done, len - done, (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ivwl_log_debug("zero-copy: writing pixels back "
					"failed: %s", strerror(errno));
			return;
		}
		done += (uint64_t)n;
	}
}

void
ivwl_zc_file_free(struct zc_file *f)
{
	struct zc_file **pp;

	for (pp = &ivwl_zc.files; *pp && *pp != f; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = f->next;
	__atomic_store_n(&ivwl_zc.nfiles, ivwl_zc.nfiles - 1, __ATOMIC_RELAXED);
	if (f->view)
		REAL(munmap, munmap_func_t)(f->view, f->grant_len);
	close(f->fd);
	close(f->map_fd);
	ivwl_zc_maps_release(&f->maps);
	free(f);
}

/* Its mappings are on the file again: tracked still, should it move. */
static void
become_candidate(struct zc_file *f)
{
	REAL(munmap, munmap_func_t)(f->view, f->grant_len);
	f->view = NULL;
	close(f->fd);
	close(f->map_fd);
	f->fd = f->map_fd = -1;
	f->conn = NULL;
	f->grant_off = f->grant_len = f->map_off = 0;
	f->sent_away = false;
	f->candidate = true;
}

/* The client still maps f: its mappings go back onto the file itself. */
void
ivwl_zc_file_revert(struct zc_file *f, const char *why)
{
	size_t i;

	copy_back(f);
	for (i = 0; i < f->maps.n; i++) {
		struct zc_map *m = &f->maps.v[i];

		if (REAL(mmap, mmap_func_t)((void *)m->addr, m->len, m->prot,
			      MAP_SHARED | MAP_FIXED, f->fd,
			      (off_t)m->off) == MAP_FAILED)
			ivwl_log_debug("zero-copy: cannot map the file back "
					"at %#lx: %s", (unsigned long)m->addr,
					strerror(errno));
	}
	send_revert(f, IVWL_ZC_COPIED_BACK);
	ivwl_log_debug("zero-copy: file %lu back to copy mode: %s",
			(unsigned long)f->ino, why);
	become_candidate(f);
}

/*
 * True when the process can reach f's file no more: no name (a memfd, an
 * unlinked file) and no fd of the client's own.  Then the grant's pixels
 * are final and need not go back into the file.
 */
static bool
file_gone(struct zc_file *f)
{
	struct dirent *de;
	struct stat st;
	bool open = false;
	DIR *dir;
	int fd;

	if (fstat(f->fd, &st) < 0 || st.st_nlink > 0)
		return false;
	dir = opendir("/proc/self/fd");
	if (!dir)
		return false;
	while (!open && (de = readdir(dir))) {
		fd = atoi(de->d_name);
		if (de->d_name[0] == '.' || fd == f->fd || fd == dirfd(dir))
			continue;
		open = fstat(fd, &st) == 0 && st.st_ino == f->ino &&
		       st.st_dev == f->dev;
	}
	closedir(dir);
	return !open;
}

/* The client unmapped all of f. */
static void
file_release(struct zc_file *f)
{
	struct ivwl_zc_msg m = {
		.op = IVWL_ZC_UNFOLLOW,
		.dev = f->dev,
		.ino = f->ino,
	};
	bool copied;

	if (f->candidate) {
		ivwl_zc_file_free(f);
		return;
	}
	if (f->follower) {
		ivwl_zc_request(f->conn, &m, -1, NULL);
		ivwl_zc_file_free(f);
		return;
	}

	/* GTK unmaps a pool whose wl_buffer destroy it has not sent yet:
	 * writing 4.6 MB back each time would be for nothing.  A file
	 * sent to another process may still be reachable there. */
	if (!f->sent_away && file_gone(f) &&
	    send_revert(f, IVWL_ZC_GONE) == 0) {
		ivwl_log_debug("zero-copy: file %lu closed and unmapped, "
				"its grant holds its last pixels",
				(unsigned long)f->ino);
		ivwl_zc_file_free(f);
		return;
	}
	/* Pixels matter only if pools still show them. */
	copied = send_revert(f, 0) != 0;

	if (copied) {
		copy_back(f);
		send_revert(f, IVWL_ZC_COPIED_BACK);
	}
	ivwl_log_debug("zero-copy: file %lu unmapped, grant given back%s",
			(unsigned long)f->ino, copied ?
			" (written back first: a pool still uses it)" : "");
	ivwl_zc_file_free(f);
}

/* Forgets [addr, addr + len) in every file's mappings. */
void
ivwl_zc_forget_range(uintptr_t addr, size_t len)
{
	struct zc_file *f, *next;

	for (f = ivwl_zc.files; f; f = next) {
		bool had = f->maps.n > 0;

		next = f->next;
		if (ivwl_zc_maps_forget(&f->maps, addr, len) < 0)
			ivwl_log_debug("zero-copy: out of memory: a part of "
					"a mapping is no longer tracked");
		if (had && f->maps.n == 0)
			file_release(f);
	}
}

void
ivwl_zc_file_link(struct zc_file *f)
{
	f->next = ivwl_zc.files;
	ivwl_zc.files = f;
	__atomic_store_n(&ivwl_zc.nfiles, ivwl_zc.nfiles + 1,
			 __ATOMIC_RELAXED);
}

struct zc_file *
ivwl_zc_file_find(dev_t dev, ino_t ino)
{
	struct zc_file *f;

	for (f = ivwl_zc.files; f; f = f->next)
		if (f->ino == ino && f->dev == dev)
			return f;
	return NULL;
}

/*
 * Adds this process's mappings of the file to f, from /proc/self/maps.
 * -errno with *why set when the file cannot move: mapped privately, or
 * further than limit.
 */
static int
find_mappings(const struct stat *st, uint64_t limit, struct zc_file *f,
	      const char **why)
{
	unsigned long start, end, ino;
	unsigned long long off;
	unsigned int maj, min;
	char perms[5], *line = NULL;
	size_t cap = 0;
	FILE *fp;
	int ret = 0;

	fp = fopen("/proc/self/maps", "re");
	if (!fp) {
		*why = "cannot read /proc/self/maps";
		return -errno;
	}
	while (ret == 0 && getline(&line, &cap, fp) > 0) {
		if (sscanf(line, "%lx-%lx %4s %llx %x:%x %lu", &start, &end,
			   perms, &off, &maj, &min, &ino) != 7 ||
		    ino != st->st_ino || makedev(maj, min) != st->st_dev)
			continue;
		if (perms[3] != 's') {
			*why = "the process maps it privately";
			ret = -EPERM;
		} else if (off + (end - start) > limit) {
			*why = "the process maps it beyond its size";
			ret = -ERANGE;
		} else {
			ret = ivwl_zc_track(f, start, end - start, off,
				    (perms[0] == 'r' ? PROT_READ : 0) |
				    (perms[1] == 'w' ? PROT_WRITE : 0) |
				    (perms[2] == 'x' ? PROT_EXEC : 0));
		}
	}
	free(line);
	fclose(fp);
	return ret;
}

/* The mappings cand tracked, as find_mappings would have found them. */
static int
adopt_mappings(const struct zc_file *cand, uint64_t limit, struct zc_file *f,
	       const char **why)
{
	size_t i;
	int ret;

	for (i = 0; i < cand->maps.n; i++) {
		const struct zc_map *m = &cand->maps.v[i];

		if (m->priv) {
			*why = "the process maps it privately";
			return -EPERM;
		}
		if (m->off + m->len > limit) {
			*why = "the process maps it beyond its size";
			return -ERANGE;
		}
		ret = ivwl_zc_maps_add(&f->maps, m);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int
fill_grant(struct zc_file *f, uint64_t size)
{
	uint64_t done = 0;
	ssize_t n;

	while (done < size) {
		n = pread(f->fd, f->view + done, size - done, (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0) {
			/* Shrunk meanwhile: the rest reads as zeros. */
			memset(f->view + done, 0, size - done);
			break;
		}
		done += (uint64_t)n;
	}
	return 0;
}

/* Moves the file's mappings onto a new grant; the file stays in copy
 * mode when anything fails. */
void
ivwl_zc_file_move(struct zc_conn *c, int fd, const struct stat *st,
		  bool sent_away)
{
	struct ivwl_zc_msg m = {
		.op = IVWL_ZC_OFFER,
		.dev = st->st_dev,
		.ino = st->st_ino,
		.size = ivwl_zc_page_up((uint64_t)st->st_size),
	};
	const char *why = NULL;
	struct zc_file *f, *cand;
	size_t i, moved;
	int ret;

	f = calloc(1, sizeof(*f));
	if (!f)
		return;
	f->dev = st->st_dev;
	f->ino = st->st_ino;
	f->conn = c;
	f->sent_away = sent_away;
	f->map_fd = -1;
	f->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	cand = ivwl_zc_file_find(st->st_dev, st->st_ino);
	if (f->fd < 0 ||
	    (cand ? adopt_mappings(cand, m.size, f, &why) :
	     find_mappings(st, m.size, f, &why)) < 0)
		goto err_file;
	ret = ivwl_zc_request(c, &m, fd, &f->map_fd);
	if (ret < 0) {
		why = ret == -ENOSPC ? "no room in the region" :
		      ret == -EDQUOT ? "the app's grants no pool uses yet "
				       "are at their bound" :
		      ret == -EBUSY ? "another process of the app moved it" :
				      "the relay refused it";
		goto err_file;
	}
	f->grant_off = m.offset;
	f->grant_len = m.length;
	f->map_off = m.flags & IVWL_ZC_GRANT_FD ? 0 : f->grant_off;
	f->view = MAP_FAILED;
	if (f->map_fd >= 0)
		f->view = REAL(mmap, mmap_func_t)(NULL, f->grant_len,
						  PROT_READ | PROT_WRITE,
						  MAP_SHARED, f->map_fd,
						  (off_t)f->map_off);
	if (f->view == MAP_FAILED) {
		f->view = NULL;
		why = "cannot map the grant";
		goto err_grant;
	}
	if (fill_grant(f, (uint64_t)st->st_size) < 0) {
		why = "cannot read the file";
		goto err_grant;
	}
	for (moved = 0; moved < f->maps.n; moved++) {
		struct zc_map *zm = &f->maps.v[moved];

		if (REAL(mmap, mmap_func_t)((void *)zm->addr, zm->len, zm->prot,
			      MAP_SHARED | MAP_FIXED, f->map_fd,
			      (off_t)(f->map_off + zm->off)) == MAP_FAILED)
			break;
	}
	if (moved < f->maps.n) {
		for (i = 0; i < moved; i++)
			REAL(mmap, mmap_func_t)((void *)f->maps.v[i].addr,
						f->maps.v[i].len,
						f->maps.v[i].prot,
						MAP_SHARED | MAP_FIXED,
						f->fd,
						(off_t)f->maps.v[i].off);
		why = "cannot move a mapping";
		goto err_grant;
	}
	if (cand)
		ivwl_zc_file_free(cand);
	ivwl_zc_file_link(f);
	ivwl_log_debug("zero-copy: fd %d (file %lu, %llu bytes, %zu "
			"mappings) drawn in the region at %#llx%s", fd,
			(unsigned long)f->ino, (unsigned long long)m.size,
			f->maps.n, (unsigned long long)f->grant_off,
			f->map_off == f->grant_off ? "" :
			", mapped through a dma-buf of the grant alone");
	return;

err_grant:
	if (f->view)
		REAL(munmap, munmap_func_t)(f->view, f->grant_len);
	send_revert(f, IVWL_ZC_COPIED_BACK);
err_file:
	ivwl_log_debug("zero-copy: fd %d stays in copy mode: %s", fd,
			why ? why : strerror(errno));
	if (f->fd >= 0)
		close(f->fd);
	if (f->map_fd >= 0)
		close(f->map_fd);
	ivwl_zc_maps_release(&f->maps);
	free(f);
}

void
ivwl_zc_consider_fd(struct zc_conn *c, int fd)
{
	struct zc_file *f;
	struct stat st;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0)
		return;
	f = ivwl_zc_file_find(st.st_dev, st.st_ino);
	if (f && f->candidate)
		f = NULL;
	/* A follower's relay finds the grant by the file's identity. */
	if (f && (f->conn == c || f->follower))
		return;
	if (f)
		ivwl_zc_file_revert(f, "sent on another Wayland connection");
	if (ivwl_zc.mode == ZC_AUTO && !ivwl_zc_is_own(st.st_dev, st.st_ino)) {
		ivwl_log_debug("zero-copy: fd %d not moved here: this "
				"process did not create it (the process that "
				"did may have)", fd);
		return;
	}
	if (c->ctl_fd >= 0)
		ivwl_zc_file_move(c, fd, &st, false);
}

bool
ivwl_zc_has_wayland_conn(void)
{
	const struct zc_conn *c;

	for (c = ivwl_zc.conns; c; c = c->next)
		if (c->wl_fd >= 0)
			return true;
	return false;
}

struct zc_conn *
ivwl_zc_conn_of(int fd)
{
	struct zc_conn *c;
	struct stat st;

	for (c = ivwl_zc.conns; c; c = c->next)
		if (c->wl_fd == fd)
			break;
	/* The number may have been closed and reused since. */
	if (!c || fstat(fd, &st) < 0 || st.st_ino != c->wl_ino ||
	    st.st_dev != c->wl_dev)
		return NULL;
	return c;
}

static bool
conn_has_files(const struct zc_conn *c)
{
	const struct zc_file *f;

	for (f = ivwl_zc.files; f; f = f->next)
		if (f->conn == c)
			return true;
	return false;
}

/*
 * The shim never sees a connection close; its relay closes the handshake
 * socket when it exits (it waits while grants are mapped).  A process
 * that connects again and again must not keep the fds of the old ones.
 */
static void
prune_conns(void)
{
	struct zc_conn **pp = &ivwl_zc.conns, *c;
	struct pollfd pfd;

	while ((c = *pp)) {
		pfd = (struct pollfd){ .fd = c->ctl_fd, .events = POLLIN };
		if (c->ctl_fd >= 0 && (poll(&pfd, 1, 0) != 1 ||
				       !(pfd.revents & (POLLHUP | POLLERR)))) {
			pp = &c->next;
			continue;
		}
		if (conn_has_files(c)) {
			pp = &c->next;
			continue;
		}
		*pp = c->next;
		if (c->ctl_fd >= 0)
			close(c->ctl_fd);
		free(c);
	}
}

void
ivwl_zero_copy_add_connection(int wl_fd, int ctl_fd)
{
	struct zc_conn *c, **pp;
	struct stat st;

	if (fstat(wl_fd, &st) < 0 || !(c = calloc(1, sizeof(*c)))) {
		close(ctl_fd);
		return;
	}
	c->wl_fd = wl_fd;
	c->wl_dev = st.st_dev;
	c->wl_ino = st.st_ino;
	c->ctl_fd = ctl_fd;
	pthread_mutex_lock(&ivwl_zc.lock);
	prune_conns();
	/* A connection whose fd number came back is over. */
	for (pp = &ivwl_zc.conns; *pp; pp = &(*pp)->next)
		if ((*pp)->wl_fd == wl_fd)
			(*pp)->wl_fd = -1;
	c->next = ivwl_zc.conns;
	__atomic_store_n(&ivwl_zc.conns, c, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&ivwl_zc.lock);
}
