/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"

static void
vlog(const char *fmt, va_list ap)
{
	fprintf(stderr, "ivwl-shim[%d]: ", (int)getpid());
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
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

