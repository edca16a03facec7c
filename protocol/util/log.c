/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "mono-time.h"

static struct {
	const char *program;
	bool with_pid;
	const char *vm;
	ivwl_log_sink_t sink;
	void *sink_data;
} log_state = { .program = "ivwl" };

void
ivwl_log_setup(const char *program, bool with_pid)
{
	log_state.program = program;
	log_state.with_pid = with_pid;
}

void
ivwl_log_set_vm(const char *vm)
{
	log_state.vm = vm;
}

void
ivwl_log_set_sink(ivwl_log_sink_t sink, void *data)
{
	log_state.sink = sink;
	log_state.sink_data = data;
}

void
ivwl_log_discard(void *data, enum ivwl_log_level level, const char *line)
{
}

bool
ivwl_log_enabled(enum ivwl_log_level level)
{
	const char *v;

	if (level != IVWL_LOG_DEBUG)
		return true;
	/* read each time: a test or a user may set it after start-up */
	v = getenv("IVWL_DEBUG");
	return v && strcmp(v, "1") == 0;
}

static void
write_all(const char *buf, size_t len)
{
	size_t off = 0;
	ssize_t n;

	while (off < len) {
		n = write(STDERR_FILENO, buf + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		off += (size_t)n;
	}
}

static size_t
add(char *line, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static size_t
add(char *line, size_t len, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (len >= IVWL_LOG_LINE_MAX)
		return len;
	va_start(ap, fmt);
	k = vsnprintf(line + len, IVWL_LOG_LINE_MAX - len, fmt, ap);
	va_end(ap);
	if (k < 0)
		return len;
	return len + (size_t)k;
}

static const char *
level_word(enum ivwl_log_level level)
{
	switch (level) {
	case IVWL_LOG_ERROR:
		return "error: ";
	case IVWL_LOG_WARNING:
		return "warning: ";
	default:
		return "";
	}
}

void
ivwl_log_vprintf(enum ivwl_log_level level, const char *fmt, va_list ap)
{
	/* one byte more for the newline of stderr's copy */
	char line[IVWL_LOG_LINE_MAX + 1];
	size_t len = 0;
	int k;

	if (!ivwl_log_enabled(level))
		return;
	/* the pid tells apart processes sharing one stderr; a sink is
	 * one process's own */
	if (log_state.with_pid && !log_state.sink)
		len = add(line, len, "%s[%d]: ", log_state.program,
			  (int)getpid());
	else
		len = add(line, len, "%s: ", log_state.program);
	if (log_state.vm)
		len = add(line, len, "vm %s: ", log_state.vm);
	len = add(line, len, "%s", level_word(level));
	if (len < IVWL_LOG_LINE_MAX) {
		k = vsnprintf(line + len, IVWL_LOG_LINE_MAX - len, fmt, ap);
		if (k > 0)
			len += (size_t)k;
	}
	if (len >= IVWL_LOG_LINE_MAX) {
		len = IVWL_LOG_LINE_MAX - 1;
		memcpy(line + len - 3, "...", 3);
	}
	line[len] = '\0';
	if (log_state.sink) {
		log_state.sink(log_state.sink_data, level, line);
		return;
	}
	line[len++] = '\n';
	write_all(line, len);
}

void
ivwl_log_printf(enum ivwl_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ivwl_log_vprintf(level, fmt, ap);
	va_end(ap);
}

bool
ivwl_log_limit_pass(struct ivwl_log_limit *limit, int64_t interval_ms,
		    unsigned *held)
{
	int64_t now = ivwl_now_ms();

	if (limit->said && now - limit->last_ms < interval_ms) {
		limit->held++;
		return false;
	}
	if (held)
		*held = limit->held;
	limit->held = 0;
	limit->said = true;
	limit->last_ms = now;
	return true;
}
