/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"

void
ivwl_shim_debug(const char *fmt, ...)
{
	const char *v = getenv("IVWL_DEBUG");
	va_list ap;

	if (!v || strcmp(v, "1") != 0)
		return;
	fprintf(stderr, "ivwl-shim[%d]: ", (int)getpid());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

