/* SPDX-License-Identifier: MIT */
/*
 * ivwl-server's command line (server-options.c) and region file
 * (server-region.c), apart from the server itself (ivwl-server.c).
 */
#ifndef IVWL_SERVER_H
#define IVWL_SERVER_H

#include <stdbool.h>
#include <stdint.h>

/* The most doorbell vectors per peer: QEMU's own limit. */
#define IVWL_SERVER_MAX_VECTORS 1024u

struct ivwl_server_options {
	const char *socket_path;
	const char *display_path;
	char *display_path_owned;
	const char *hugepages_dir;
	uint64_t size;
	uint32_t vectors;
	bool verbose;
	bool no_rings;		/* a display that asks to ring is dropped */
	bool no_lend;		/* a display that asks for the region too */
};

/* Fills opt from argv, or exits: 0 for --help, 2 for a usage error. */
void
ivwl_server_parse_options(int argc, char *argv[],
			  struct ivwl_server_options *opt);

/* The region's fd, sized and sealed, or -1 (logged). */
int
ivwl_server_region_open(const struct ivwl_server_options *opt);

#endif
