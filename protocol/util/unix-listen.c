/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "unix-listen.h"

static int
clear_stale(const struct sockaddr_un *addr, int type)
{
	struct stat st;
	int fd, ret;

	if (lstat(addr->sun_path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;

	fd = socket(AF_UNIX, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	ret = connect(fd, (const struct sockaddr *)addr, sizeof(*addr));
	/* EAGAIN: alive, its backlog full */
	ret = ret == 0 || errno == EAGAIN ? -EADDRINUSE :
	      errno == ECONNREFUSED	  ? 0 :
					    -errno;
	close(fd);
	if (ret < 0)
		return ret;
	if (unlink(addr->sun_path) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

int
ivwl_unix_listen(const char *path, int type, int backlog, struct stat *bound)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd, ret;

	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	strcpy(addr.sun_path, path);
	ret = clear_stale(&addr, type);
	if (ret < 0)
		return ret;

	fd = socket(AF_UNIX, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		ret = -errno;
		goto err_close;
	}
	if (bound && stat(path, bound) < 0)
		memset(bound, 0, sizeof(*bound));
	if (listen(fd, backlog) < 0) {
		ret = -errno;
		goto err_unlink;
	}
	return fd;

err_unlink:
	unlink(path);
err_close:
	close(fd);
	return ret;
}
