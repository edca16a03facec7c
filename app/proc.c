/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"
#include "zero-copy-proto.h"

socklen_t
ivwl_zc_relay_address(pid_t pid, struct sockaddr_un *addr)
{
	int n;

	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	n = snprintf(addr->sun_path + 1, sizeof(addr->sun_path) - 1, "%s%d",
		     IVWL_ZC_SOCKET_PREFIX, (int)pid);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

pid_t
ivwl_proc_parent(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd, ppid;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* The name in parentheses may hold anything, ')' included. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
		return -1;
	return ppid;
}
