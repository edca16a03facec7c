/* SPDX-License-Identifier: MIT */
/*
 * ivwl-ko-guest (ivwl-ko-guest.c says what it checks): the state of a
 * run and what every group of checks uses, shared by its files:
 *   ivwl-ko-guest-common.c     reporting, expected failures, doorbells
 *   ivwl-ko-guest-args.c       every bad argument refused
 *   ivwl-ko-guest-doorbells.c  read()/poll(), eventfds and their owner,
 *                              protocol/'s device API, host doorbells
 *   ivwl-ko-guest-dmabuf.c     the host block, the reply through a
 *                              dma-buf, vgem imports
 *   ivwl-ko-guest-unload.c     BAR2's memory type; unbind, unload and
 *                              reload with clients attached
 */
#ifndef IVWL_KO_GUEST_H
#define IVWL_KO_GUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../../../kernel/uapi/ivwl.h"
#include "mono-time.h"
#include "region.h"

#define MAX_VECTORS 64

struct ivwl_guest {
	const char *dev;
	const char *module;
	uint64_t size;
	uint32_t vectors;
	int timeout_ms;
	bool vgem;
	bool bar_high;		/* expect BAR2 moved above 4 GiB, write-back */
	const char *params;	/* ivwl.ko parameters of the first load */

	int fd;
	struct ivwl_info info;
	struct ivwl_layout layout;
	void *base;
	void *hole;		/* an unmapped user address */
	uint64_t host_seed;
};

/* ---- ivwl-ko-guest-common.c ---- */

void
say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A failed check: said, and counted for result(). */
void
bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The GUEST RESULT line; the exit status. */
int
result(const char *why);

/* The SIGBUS handler that lets ivwl_touch_faults() tell a fault. */
void
ivwl_on_sigbus(int sig);

/* Reads (write false) or writes one byte at p; true if it raised SIGBUS. */
bool
ivwl_touch_faults(volatile uint8_t *p, bool write);

/* Expects ioctl(fd, cmd, arg) to fail with errno want. */
void
expect_ioctl_err(int fd, unsigned long cmd, void *arg, int want,
		 const char *what);

/* Expects mmap of (length, offset, prot, flags) to fail with errno want. */
void
expect_mmap_err(int fd, size_t length, off_t offset, int prot, int flags,
		int want, const char *what);

/* Expects read(fd, buf, len) to fail with errno want. */
void
expect_read_err(int fd, void *buf, size_t len, int want, const char *what);

void
expect_export_err(int fd, uint64_t offset, uint64_t size, uint32_t flags,
		  uint32_t pad, int want, const char *what);

/* EXPORT_DMABUF of [offset, offset + size): the dma-buf fd, or -1. */
int
ivwl_export(int fd, uint64_t offset, uint64_t size, uint32_t flags);

/* Checks the flags and size of a dma-buf fd against what we asked. */
void
check_dmabuf_fd(int dfd, uint64_t size, bool rdwr, const char *what);

int
dmabuf_sync(int dfd, uint64_t flags);

/* DOORBELL on (peer, vector). */
int
ring(int fd, uint16_t peer, uint16_t vector);

/*
 * Waits until fd is readable and reads records until the vectors in
 * want have all been reported; counts[v] gets the sum per vector.
 * Returns the mask seen.
 */
uint64_t
collect(int fd, uint64_t want, uint32_t *counts, uint32_t nvec, int ms);

/* Expects nothing to be pending on fd (POLLIN clear, read EAGAIN). */
void
expect_quiet(int fd, const char *what);

/* One loopback doorbell on vector v, read back as exactly {v, 1}. */
bool
loopback_once(struct ivwl_guest *g, int fd, uint32_t v);

/* SET_EVENTFD (vector, efd) on fd; a failure is bad(). */
int
bind_eventfd(int fd, uint32_t vector, int efd);

/* ---- ivwl-ko-guest-args.c ---- */

void
check_bad_arguments(struct ivwl_guest *g);

/* ---- ivwl-ko-guest-doorbells.c ---- */

void
check_read_poll(struct ivwl_guest *g);

void
check_eventfd_owner(struct ivwl_guest *g);

void
measure_release(struct ivwl_guest *g);

void
check_device_api(struct ivwl_guest *g);

/* Waits for host-peer's doorbells on every eventfd and in read(). */
uint64_t
wait_host_doorbells(struct ivwl_guest *g, int *efd, int64_t deadline);

/* ---- ivwl-ko-guest-dmabuf.c ---- */

/* Imports dfd into vgem and keeps it; 0 or -errno. */
int
vgem_import_keep(int dfd, int *card, uint32_t *handle);

/* Drops the import: the exporter's unmap and detach.  0 or -errno. */
int
vgem_release(int card, uint32_t handle);

/* Imports dfd into vgem and drops it again; 0 or -errno. */
int
vgem_import(int dfd);

int
wait_for_host_block(struct ivwl_guest *g, int64_t deadline);

/* The reply block written through a dma-buf; its fd and mapping. */
int
reply_through_dmabuf(struct ivwl_guest *g, void **map, uint64_t *map_size);

/* ---- ivwl-ko-guest-unload.c ---- */

/* BAR2's place and memory type against --bar. */
void
check_memtype(const struct ivwl_guest *g, uint32_t flags, const char *when);

/*
 * Unbind and unload with clients attached, then reload (with the
 * memremap fallback) and use again.
 */
void
check_unload_reload(struct ivwl_guest *g, int dfd, void *dmap,
		    uint64_t dsize);

#endif
