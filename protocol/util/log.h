/* SPDX-License-Identifier: MIT */
/*
 * The one logger of every ivwl program: a line is "PROGRAM[PID]: " or
 * "PROGRAM: ", an optional "vm NAME: ", a level word for errors and
 * warnings, then the text, written whole with one write(2) so that the
 * lines of processes sharing a stderr never interleave.  The plugin
 * sends its lines to weston's log instead (ivwl_log_set_sink).
 */
#ifndef IVWL_LOG_H
#define IVWL_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

enum ivwl_log_level {
	IVWL_LOG_ERROR,
	IVWL_LOG_WARNING,
	IVWL_LOG_INFO,
	/* shown only with IVWL_DEBUG=1 in the environment */
	IVWL_LOG_DEBUG,
};

/* Longer lines end in "..." (the log is for people, not for data). */
#define IVWL_LOG_LINE_MAX 1024

/* Where finished lines go; line holds no newline. */
typedef void (*ivwl_log_sink_t)(void *data, enum ivwl_log_level level,
				const char *line);

/*
 * Names the program in every line; with_pid adds "[PID]" (for programs
 * that run many times beside each other).  program is kept, not copied.
 */
void
ivwl_log_setup(const char *program, bool with_pid);

/* The VM this process serves, named in every line (NULL: none). */
void
ivwl_log_set_vm(const char *vm);

/* Lines go to sink instead of stderr (NULL: back to stderr). */
void
ivwl_log_set_sink(ivwl_log_sink_t sink, void *data);

/* A sink that drops every line (fuzzers, tests of code that logs). */
void
ivwl_log_discard(void *data, enum ivwl_log_level level, const char *line);

bool
ivwl_log_enabled(enum ivwl_log_level level);

void
ivwl_log_vprintf(enum ivwl_log_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

void
ivwl_log_printf(enum ivwl_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define ivwl_log(...) ivwl_log_printf(IVWL_LOG_INFO, __VA_ARGS__)
#define ivwl_log_error(...) ivwl_log_printf(IVWL_LOG_ERROR, __VA_ARGS__)
#define ivwl_log_warning(...) ivwl_log_printf(IVWL_LOG_WARNING, __VA_ARGS__)
#define ivwl_log_debug(...) ivwl_log_printf(IVWL_LOG_DEBUG, __VA_ARGS__)

/*
 * A rate limit for lines a peer can cause at will: at most one line per
 * interval_ms; the lines held back are counted and ivwl_log_limit_pass
 * returns their number with the next line it lets through.
 */
struct ivwl_log_limit {
	int64_t last_ms;
	bool said;
	unsigned held;
};

/* True when a line may be written now; *held: lines held back since. */
bool
ivwl_log_limit_pass(struct ivwl_log_limit *limit, int64_t interval_ms,
		    unsigned *held);

#endif
