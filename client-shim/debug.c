/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"

/* Longer lines end in "..." (the log is for people, not for data). */
#define LINE_MAX_BYTES 1024

/*
 * One write(2) a line: the app's processes and their relays share one
 * stderr, and a line written in pieces (stderr is unbuffered) came out
 * cut by another process's, so that a reader of the log missed both.
 */
static void
vlog(const char *fmt, va_list ap)
{
	char line[LINE_MAX_BYTES];
	size_t len, off = 0;
	ssize_t n;
	int k;

	k = snprintf(line, sizeof(line), "ivwl-shim[%d]: ", (int)getpid());
	len = k < 0 ? 0 : (size_t)k;
	k = vsnprintf(line + len, sizeof(line) - len - 1, fmt, ap);
	if (k < 0)
		k = 0;
	if ((size_t)k >= sizeof(line) - len - 1) {
		len = sizeof(line) - 1;
		memcpy(line + len - 3, "...", 3);
	} else {
		len += (size_t)k;
	}
	line[len++] = '\n';
	while (off < len) {
		n = write(STDERR_FILENO, line + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
}

void
ivwl_shim_debug(const char *fmt, ...)
{
	const char *v = getenv("IVWL_DEBUG");
	va_list ap;

	if (!v || strcmp(v, "1") != 0)
		return;
	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
}

void
ivwl_shim_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
}
