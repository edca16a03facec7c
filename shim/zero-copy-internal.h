/* SPDX-License-Identifier: MIT */
/*
 * What the shim's zero-copy files share: the state of the process's
 * files and relays (zero-copy.c) and the app's other processes
 * (zero-copy-app.c).  Everything here is under ivwl_zc.lock.
 */
#ifndef IVWL_ZERO_COPY_INTERNAL_H
#define IVWL_ZERO_COPY_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "zc-maps.h"
#include "zero-copy-proto.h"

#define OWN_FILES 256

enum zc_mode {
	ZC_OFF,
	ZC_AUTO,
	ZC_ON,
};

/* A relay we ask: of one of our Wayland connections, or of the app's. */
struct zc_conn {
	struct zc_conn *next;
	int wl_fd;			/* -1: the app's relay */
	dev_t wl_dev;
	ino_t wl_ino;
	int ctl_fd;			/* -1: the relay stopped answering */
};

struct zc_file {
	struct zc_file *next;
	dev_t dev;
	ino_t ino;
	int fd;				/* to write the grant back */
	struct zc_conn *conn;
	uint64_t grant_off, grant_len;	/* in the region */
	int map_fd;			/* maps the grant from map_off */
	uint64_t map_off;
	uint8_t *view;			/* our own mapping of the grant */
	bool sent_away;			/* to another process */
	bool follower;			/* another process moved it */
	/* Not moved: only this process's mappings of a file it made, so a
	 * move needs no /proc/self/maps (chromium's sandbox denies it). */
	bool candidate;
	struct zc_maps maps;		/* the client's, onto the grant */
};

struct file_id {
	dev_t dev;
	ino_t ino;
};

typedef void *(*mmap_func_t)(void *, size_t, int, int, int, off_t);
typedef int (*connect_func_t)(int, const struct sockaddr *, socklen_t);
typedef int (*munmap_func_t)(void *, size_t);
typedef ssize_t (*sendmsg_func_t)(int, const struct msghdr *, int);
typedef int (*memfd_func_t)(const char *, unsigned int);
typedef int (*shm_open_func_t)(const char *, int, mode_t);
typedef long (*syscall_func_t)(long, ...);
typedef ssize_t (*recvmsg_func_t)(int, struct msghdr *, int);
typedef int (*close_func_t)(int);

struct ivwl_zc_shim {
	enum zc_mode mode;
	pthread_mutex_t lock;
	struct zc_conn *conns;		/* of our Wayland connections */
	struct zc_file *files;
	int nfiles;			/* read unlocked: fast paths */
	struct file_id own[OWN_FILES];	/* files this process made */
	unsigned int own_next;
	/* The next definitions of what we interpose, found on first use. */
	struct {
		void *mmap, *mmap64, *munmap, *sendmsg, *memfd_create;
		void *shm_open, *syscall, *connect, *recvmsg, *close;
	} real;
};

extern struct ivwl_zc_shim ivwl_zc;

void *
ivwl_zc_resolve(void **slot, const char *name);

#define REAL(name, type) \
	((type)ivwl_zc_resolve(&ivwl_zc.real.name, #name))

/* zero-copy.c */

bool
ivwl_zc_is_own(dev_t dev, ino_t ino);

/* One request, one reply; fd_in (-1: none) goes along.  Status or -errno. */
int
ivwl_zc_request(struct zc_conn *c, struct ivwl_zc_msg *m, int fd_in,
		int *fd_out);

struct zc_file *
ivwl_zc_file_find(dev_t dev, ino_t ino);

void
ivwl_zc_file_link(struct zc_file *f);

/* Moves the file's mappings onto a new grant of c, or logs why not. */
void
ivwl_zc_file_move(struct zc_conn *c, int fd, const struct stat *st,
		  bool sent_away);

/* zero-copy-app.c */

/* At load or fork: connects before a sandbox could forbid it. */
void
ivwl_zc_app_conn_early(void);

/* In a forked child: the parent's relay connection is not ours. */
void
ivwl_zc_app_forget(void);

/*
 * fd, a regular file (st), is about to be mapped shared: the grant
 * another process moved it to, or NULL.
 */
struct zc_file *
ivwl_zc_file_follow(int fd, const struct stat *st);

/* A process with no Wayland connection sends fd to another process. */
void
ivwl_zc_consider_sent_away(int fd);

/* ---- zero-copy.c: what the interposed calls (interpose.c) use ---- */

static inline size_t
ivwl_zc_page_up(uint64_t n)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	return (size_t)((n + page - 1) & ~(page - 1));
}

/* A file this process made (memfd_create, shm_open): may be moved. */
void
ivwl_zc_note_own(int fd);

/* Under ivwl_zc.lock, all of the rest. */
int
ivwl_zc_track(struct zc_file *f, uintptr_t addr, size_t len, uint64_t off,
	      int prot);

void
ivwl_zc_file_free(struct zc_file *f);

void
ivwl_zc_file_revert(struct zc_file *f, const char *why);

/* The client's mappings in [addr, addr + len) are gone. */
void
ivwl_zc_forget_range(uintptr_t addr, size_t len);

/* An fd the client sends on c: moved into the region if it qualifies. */
void
ivwl_zc_consider_fd(struct zc_conn *c, int fd);

bool
ivwl_zc_has_wayland_conn(void);

/* Our Wayland connection of fd, or NULL. */
struct zc_conn *
ivwl_zc_conn_of(int fd);

#endif
