/* SPDX-License-Identifier: MIT */
/*
 * Access to words in shared memory.  Every load and store of a word the
 * peer can see goes through these, so that the compiler neither tears,
 * merges nor re-reads them, and so that ordering is explicit.
 */
#ifndef IVWL_SHM_ACCESS_H
#define IVWL_SHM_ACCESS_H

#include <stdint.h>

static inline uint32_t
ivwl_shm_load(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline uint32_t
ivwl_shm_load_acquire(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void
ivwl_shm_store(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

static inline void
ivwl_shm_store_release(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static inline uint64_t
ivwl_shm_load64(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline void
ivwl_shm_store64(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

/* The store-then-load barrier of the sleep/wake handshake. */
static inline void
ivwl_shm_full_fence(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

#endif
