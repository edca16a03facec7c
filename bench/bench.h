/* SPDX-License-Identifier: MIT */
/*
 * ivwl-bench: shared helpers of the benchmark subcommands.
 *
 * Benchmarks report numbers; they never decide pass or fail on timing.
 */
#ifndef IVWL_BENCH_H
#define IVWL_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit codes: 0 ok, 1 the run failed, 2 bad usage. */
#define BENCH_EXIT_FAIL 1
#define BENCH_EXIT_USAGE 2

/* One subcommand: argv[0] is the subcommand's name. */
int
ivwl_bench_transport_main(int argc, char *argv[]);

/* `frames` and `mpv` run bench/frames.py, which drives real processes. */
int
ivwl_bench_frames_main(int argc, char *argv[]);

int
ivwl_bench_mpv_main(int argc, char *argv[]);

/* `chromium` runs bench/chromium.py: browsers showing bench/pages/. */
int
ivwl_bench_chromium_main(int argc, char *argv[]);

/* `scale` runs bench/scale.py: N VMs' windows on one weston. */
int
ivwl_bench_scale_main(int argc, char *argv[]);

uint64_t
ivwl_bench_now_ns(void);

/* Voluntary context switches of this process so far: how often it slept. */
uint64_t
ivwl_bench_voluntary_switches(void);

/* Parses "123", "64K", "1M", "2G" (binary units); false on garbage. */
bool
ivwl_bench_parse_size(const char *s, uint64_t *out);

/* Parses a plain non-negative decimal count; false on garbage. */
bool
ivwl_bench_parse_count(const char *s, uint64_t *out);

/* Deterministic bytes from a seed, the same in every process. */
void
ivwl_bench_fill(void *buf, size_t len, uint64_t seed);

/* A fast, non-cryptographic 64-bit hash for checking copies. */
uint64_t
ivwl_bench_hash(const void *buf, size_t len);

/* Percentile (0..100) of a sorted array of n values. */
uint64_t
ivwl_bench_percentile(const uint64_t *sorted, size_t n, unsigned pct);

void
ivwl_bench_sort_u64(uint64_t *v, size_t n);

/* Writes or reads exactly len bytes, retrying on EINTR; 0 or -errno. */
int
ivwl_bench_write_full(int fd, const void *buf, size_t len);
int
ivwl_bench_read_full(int fd, void *buf, size_t len);

/*
 * Set by the SIGCHLD handler: a process this one started has exited.
 * Blocking calls return EINTR then, and the loops around them give up.
 */
extern volatile int ivwl_bench_child_died;

/*
 * Installs SIGCHLD (no SA_RESTART, so blocking calls wake up), ignores
 * SIGPIPE and arms a watchdog that ends a hung run.
 */
void
ivwl_bench_install_signals(unsigned watchdog_s);

/* A small writer for one flat JSON object. */
struct ivwl_bench_json {
	FILE *f;
	bool first;
};

void
ivwl_bench_json_begin(struct ivwl_bench_json *j, FILE *f);
void
ivwl_bench_json_num(struct ivwl_bench_json *j, const char *key, double v);
void
ivwl_bench_json_uint(struct ivwl_bench_json *j, const char *key, uint64_t v);
void
ivwl_bench_json_bool(struct ivwl_bench_json *j, const char *key, bool v);
void
ivwl_bench_json_str(struct ivwl_bench_json *j, const char *key,
		    const char *v);
void
ivwl_bench_json_end(struct ivwl_bench_json *j);

#endif
