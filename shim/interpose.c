/* SPDX-License-Identifier: MIT */
/*
 * The libc calls the shim interposes for zero-copy (zero-copy.c has the
 * policy): mmap and munmap keep the record of a file's mappings and put
 * mappings of a moved file on its grant, sendmsg hands the fds a client
 * sends to the policy, memfd_create, shm_open and syscall note the files
 * this process made.  In in-process mode (in-process.c) sendmsg, recvmsg
 * and close on the client's Wayland fd serve its relay, and every
 * interposer passes the relay's own calls straight on.
 */
/* Both mmap and mmap64 are defined here: no header renaming of mmap. */
#undef _FILE_OFFSET_BITS
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fdmsg.h"
#include "in-process.h"
#include "log.h"
#include "shim.h"
#include "zero-copy-internal.h"

/*
 * Mappings of a file this process made (st): every one goes through
 * mmap() here, so the list is complete where /proc/self/maps cannot be
 * read.
 */
static void
track_candidate(struct zc_file *f, const struct stat *st, void *p,
		size_t len, off_t off, int prot, int flags)
{
	struct zc_map map = {
		.addr = (uintptr_t)p,
		.len = ivwl_zc_page_up(len),
		.off = (uint64_t)off,
		.prot = prot,
		.priv = (flags & MAP_TYPE) != MAP_SHARED,
	};
	if (!f) {
		if (!ivwl_zc_is_own(st->st_dev, st->st_ino) ||
		    !(f = calloc(1, sizeof(*f))))
			return;
		f->dev = st->st_dev;
		f->ino = st->st_ino;
		f->fd = -1;
		f->map_fd = -1;
		f->candidate = true;
		ivwl_zc_file_link(f);
	}
	if (ivwl_zc_maps_add(&f->maps, &map) < 0 && f->maps.n == 0)
		ivwl_zc_file_free(f);
}

static void *
map_file(mmap_func_t fn, void *addr, size_t len, int prot, int flags, int fd,
	 off_t off)
{
	bool shared = (flags & MAP_TYPE) == MAP_SHARED, file;
	struct zc_file *f = NULL;
	struct stat st;
	void *p;

	if (ivwl_in_relay ||
	    (fd < 0 && (!(flags & MAP_FIXED) ||
			__atomic_load_n(&ivwl_zc.nfiles, __ATOMIC_RELAXED) == 0)))
		return fn(addr, len, prot, flags, fd, off);

	pthread_mutex_lock(&ivwl_zc.lock);
	if (flags & MAP_FIXED)
		ivwl_zc_forget_range((uintptr_t)addr, ivwl_zc_page_up(len));
	file = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	if (file)
		f = ivwl_zc_file_find(st.st_dev, st.st_ino);
	if (!f && file && shared)
		f = ivwl_zc_file_follow(fd, &st);
	if (f && !f->candidate && shared && off >= 0 &&
	    (uint64_t)off + len <= f->grant_len) {
		p = fn(addr, len, prot, flags, f->map_fd,
		       (off_t)(f->map_off + (uint64_t)off));
		if (p != MAP_FAILED)
			ivwl_zc_track(f, (uintptr_t)p, ivwl_zc_page_up(len), (uint64_t)off,
			      prot);
		pthread_mutex_unlock(&ivwl_zc.lock);
		return p;
	}
	if (f && f->follower) {
		ivwl_log_debug("zero-copy: file %lu mapped %s: this mapping "
				"sees the file, not the pixels another "
				"process draws", (unsigned long)f->ino,
				shared ? "beyond its grant" : "privately");
	} else if (f && !f->candidate) {
		ivwl_zc_file_revert(f, shared ? "mapped beyond its grant" :
					"mapped privately");
		f = NULL;
	}
	p = fn(addr, len, prot, flags, fd, off);
	if (p != MAP_FAILED && file && (!f || f->candidate))
		track_candidate(f, &st, p, len, off, prot, flags);
	pthread_mutex_unlock(&ivwl_zc.lock);
	return p;
}

IVWL_SHIM_EXPORT void *
mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return map_file(REAL(mmap, mmap_func_t), addr, len, prot, flags, fd,
			off);
}

IVWL_SHIM_EXPORT void *
mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return map_file(REAL(mmap64, mmap_func_t), addr, len, prot, flags,
			fd, off);
}

IVWL_SHIM_EXPORT int
munmap(void *addr, size_t len)
{
	munmap_func_t fn = REAL(munmap, munmap_func_t);
	int ret;

	if (ivwl_in_relay ||
	    __atomic_load_n(&ivwl_zc.nfiles, __ATOMIC_RELAXED) == 0)
		return fn(addr, len);
	/* Under the lock: another thread's mmap may reuse the range at
	 * once, and its mapping must not be forgotten instead. */
	pthread_mutex_lock(&ivwl_zc.lock);
	ret = fn(addr, len);
	if (ret == 0)
		ivwl_zc_forget_range((uintptr_t)addr, ivwl_zc_page_up(len));
	pthread_mutex_unlock(&ivwl_zc.lock);
	return ret;
}

static void
consider_sent_fd(int fd, void *data)
{
	struct zc_conn *c = data;

	if (c)
		ivwl_zc_consider_fd(c, fd);
	else
		ivwl_zc_consider_sent_away(fd);
}

IVWL_SHIM_EXPORT ssize_t
sendmsg(int fd, const struct msghdr *msg, int flags)
{
	struct zc_conn *c;
	ssize_t n;

	if (ivwl_in_relay)
		return REAL(sendmsg, sendmsg_func_t)(fd, msg, flags);
	if (ivwl_zc.mode != ZC_OFF && msg && msg->msg_control) {
		pthread_mutex_lock(&ivwl_zc.lock);
		c = ivwl_zc_conn_of(fd);
		if (c || !ivwl_zc_has_wayland_conn())
			ivwl_fdmsg_each_fd(msg, consider_sent_fd, c);
		pthread_mutex_unlock(&ivwl_zc.lock);
	}
	if (ivwl_in_process_sendmsg(fd, msg, flags, &n))
		return n;
	return REAL(sendmsg, sendmsg_func_t)(fd, msg, flags);
}

IVWL_SHIM_EXPORT ssize_t
recvmsg(int fd, struct msghdr *msg, int flags)
{
	ssize_t n;

	if (!ivwl_in_relay && ivwl_in_process_recvmsg(fd, msg, flags, &n))
		return n;
	return REAL(recvmsg, recvmsg_func_t)(fd, msg, flags);
}

IVWL_SHIM_EXPORT int
close(int fd)
{
	if (!ivwl_in_relay)
		ivwl_in_process_close(fd);
	return REAL(close, close_func_t)(fd);
}

IVWL_SHIM_EXPORT int
memfd_create(const char *name, unsigned int flags)
{
	int fd = REAL(memfd_create, memfd_func_t)(name, flags);

	if (!ivwl_in_relay)
		ivwl_zc_note_own(fd);
	return fd;
}

IVWL_SHIM_EXPORT int
shm_open(const char *name, int oflag, mode_t mode_bits)
{
	int fd = REAL(shm_open, shm_open_func_t)(name, oflag, mode_bits);

	if (!ivwl_in_relay)
		ivwl_zc_note_own(fd);
	return fd;
}

/* GTK 3 makes its pools' files with syscall(SYS_memfd_create, ...). */
IVWL_SHIM_EXPORT long
syscall(long number, ...)
{
	long a[6];
	va_list ap;
	long ret;
	int i;

	va_start(ap, number);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	ret = REAL(syscall, syscall_func_t)(number, a[0], a[1], a[2], a[3],
					    a[4], a[5]);
	if (number == SYS_memfd_create && ret >= 0 && !ivwl_in_relay)
		ivwl_zc_note_own((int)ret);
	return ret;
}
