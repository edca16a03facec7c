/* SPDX-License-Identifier: MIT */
/* ivwl-server's command line: every mistake gets a line naming the fix. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "region.h"
#include "log.h"
#include "server.h"

#define EXIT_USAGE 2

static void __attribute__((noreturn, format(printf, 1, 2)))
usage_error(const char *fmt, ...)
{
	char line[IVWL_LOG_LINE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	ivwl_log("%s (see --help)", line);
	exit(EXIT_USAGE);
}

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: ivwl-server --socket PATH --size SIZE [options]\n"
		"\n"
		"QEMU-compatible ivshmem-doorbell server for one ivwl region.\n"
		"Clients of the display socket get peer id 0, clients of\n"
		"PATH get peer id 1; each role holds one peer at a time.\n"
		"\n"
		"  --socket PATH        app socket (peer id 1)\n"
		"  --display-socket DPATH\n"
		"                       display socket (peer id 0), default:\n"
		"                       PATH with \".display\" appended\n"
		"  --size SIZE          region size in bytes, or with a K, M\n"
		"                       or G suffix (binary); a power of two\n"
		"                       from 2M to 64G\n"
		"  --vectors N          doorbell vectors per peer, 1..%u\n"
		"                       (default %u); QEMU's vectors= must\n"
		"                       be the same\n"
		"  --hugepages DIR      back the region with a file in DIR,\n"
		"                       a hugetlbfs mount\n"
		"  --no-rings           ring nothing for the display\n"
		"                       peer: one that speaks is dropped,\n"
		"                       as QEMU's server does, and rings\n"
		"                       the app itself\n"
		"  --no-lend            send the display the region's fd\n"
		"                       at its setup only, for it to keep;\n"
		"                       one that asks again is dropped\n"
		"  --verbose            log every message sent\n"
		"  --help               show this and exit\n",
		IVWL_SERVER_MAX_VECTORS, IVWL_DEFAULT_VECTORS);
}

/* Region sizes as people write them: "64M", "1G", "2097152". */
static uint64_t
parse_size(const char *arg)
{
	unsigned long long v;
	unsigned int shift = 0;
	bool bad_suffix = false;
	char *end;

	if (arg[0] < '0' || arg[0] > '9')
		usage_error("--size: '%s' is not a size (bytes, or a number "
			    "with a K, M or G suffix)", arg);
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno == ERANGE)
		usage_error("--size: '%s' is too large (maximum %lluG)", arg,
			    IVWL_REGION_MAX_SIZE >> 30);
	switch (*end) {
	case '\0':
		break;
	case 'k': case 'K':
		shift = 10;
		break;
	case 'm': case 'M':
		shift = 20;
		break;
	case 'g': case 'G':
		shift = 30;
		break;
	default:
		bad_suffix = true;
	}
	if (bad_suffix || (*end != '\0' && end[1] != '\0'))
		usage_error("--size: '%s' has an unknown suffix "
			    "(use K, M or G)", arg);
	if (v > (UINT64_MAX >> shift))
		usage_error("--size: '%s' is too large (maximum %lluG)", arg,
			    IVWL_REGION_MAX_SIZE >> 30);
	return (uint64_t)v << shift;
}

static void
check_size(const char *arg, uint64_t size)
{
	struct ivwl_layout layout;

	if (!ivwl_is_pow2(size))
		usage_error("--size: %s is not a power of two", arg);
	if (size < IVWL_REGION_MIN_SIZE)
		usage_error("--size: %s is too small (minimum %lluM)", arg,
			    IVWL_REGION_MIN_SIZE >> 20);
	if (size > IVWL_REGION_MAX_SIZE)
		usage_error("--size: %s is too large (maximum %lluG)", arg,
			    IVWL_REGION_MAX_SIZE >> 30);
	/* The layout is the authority; the checks above only explain. */
	if (ivwl_layout_compute(size, &layout) < 0)
		usage_error("--size: %s is not a valid region size", arg);
}

static uint32_t
parse_vectors(const char *arg)
{
	unsigned long v;
	char *end;

	if (arg[0] < '0' || arg[0] > '9')
		usage_error("--vectors: '%s' is not a number", arg);
	errno = 0;
	v = strtoul(arg, &end, 10);
	if (*end != '\0')
		usage_error("--vectors: '%s' is not a number", arg);
	if (errno == ERANGE || v < 1 || v > IVWL_SERVER_MAX_VECTORS)
		usage_error("--vectors: %s is out of range (1..%u)", arg,
			    IVWL_SERVER_MAX_VECTORS);
	return (uint32_t)v;
}

static void
check_socket_path(const char *option, const char *path)
{
	struct sockaddr_un addr;

	if (path[0] == '\0')
		usage_error("%s: the path is empty", option);
	if (strlen(path) >= sizeof(addr.sun_path))
		usage_error("%s: '%s' is too long for a unix socket path "
			    "(at most %zu bytes)", option, path,
			    sizeof(addr.sun_path) - 1);
}

void
ivwl_server_parse_options(int argc, char *argv[],
			  struct ivwl_server_options *opt)
{
	static const struct option long_options[] = {
		/* Long options only: their values are not in optstring. */
		{ "socket", required_argument, NULL, 'S' },
		{ "display-socket", required_argument, NULL, 'D' },
		{ "size", required_argument, NULL, 's' },
		{ "vectors", required_argument, NULL, 'n' },
		{ "hugepages", required_argument, NULL, 'H' },
		{ "no-rings", no_argument, NULL, 'R' },
		{ "no-lend", no_argument, NULL, 'L' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *size_arg = NULL;
	int c;

	memset(opt, 0, sizeof(*opt));
	opt->vectors = IVWL_DEFAULT_VECTORS;

	/* Our own messages: getopt's are two lines and name no fix. */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", long_options, NULL)) != -1) {
		switch (c) {
		case 'S':
			opt->socket_path = optarg;
			break;
		case 'D':
			opt->display_path = optarg;
			break;
		case 's':
			size_arg = optarg;
			break;
		case 'n':
			opt->vectors = parse_vectors(optarg);
			break;
		case 'H':
			opt->hugepages_dir = optarg;
			break;
		case 'v':
			opt->verbose = true;
			break;
		case 'R':
			opt->no_rings = true;
			break;
		case 'L':
			opt->no_lend = true;
			break;
		case 'h':
			usage(stdout);
			exit(EXIT_SUCCESS);
		case ':':
			usage_error("option '%s' needs an argument",
				    argv[optind - 1]);
		default:
			/* optopt is also set for "--verbose=x". */
			if (optopt && strncmp(argv[optind - 1], "--", 2) != 0)
				usage_error("unknown option '-%c'", optopt);
			usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (!opt->socket_path)
		usage_error("missing --socket PATH");
	if (!size_arg)
		usage_error("missing --size SIZE");
	if (opt->hugepages_dir && opt->hugepages_dir[0] == '\0')
		usage_error("--hugepages: the directory is empty");

	opt->size = parse_size(size_arg);
	check_size(size_arg, opt->size);

	check_socket_path("--socket", opt->socket_path);
	if (!opt->display_path) {
		if (asprintf(&opt->display_path_owned, "%s.display",
			     opt->socket_path) < 0) {
			ivwl_log("out of memory");
			exit(EXIT_FAILURE);
		}
		opt->display_path = opt->display_path_owned;
	}
	check_socket_path("--display-socket", opt->display_path);
	if (strcmp(opt->display_path, opt->socket_path) == 0)
		usage_error("--display-socket and --socket must differ");
}
