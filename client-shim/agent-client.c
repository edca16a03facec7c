#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "agent-client.h"
#include "stream.h"

#define MAX_FDS 4

int
ivwl_agent_send(int fd, const void *msg, size_t len, const int *fds,
		int nfds)
{
	ssize_t n;

	if (nfds < 0 || nfds > MAX_FDS)
		return -EINVAL;
	n = ivwl_send_with_fds(fd, msg, len, fds, (uint32_t)nfds, 0);
	if (n < 0)
		return (int)n;
	return (size_t)n == len ? 0 : -EMSGSIZE;
}

static void
close_fds(int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++)
		close(fds[i]);
}

int
ivwl_agent_recv(int fd, void *msg, size_t len, int *fds, int max_fds,
		int *nfds)
{
	union {
		char buf[CMSG_SPACE(MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = { msg, len };
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = control.buf,
		.msg_controllen = sizeof(control.buf),
	};
	struct cmsghdr *c;
	ssize_t n;

	*nfds = 0;
	do {
		n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;

	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		int count, *in;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		in = (int *)CMSG_DATA(c);
		while (count-- > 0) {
			int got;

			memcpy(&got, in++, sizeof(got));
			if (*nfds < max_fds)
				fds[(*nfds)++] = got;
			else
				close(got);
		}
	}
	if ((mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || (size_t)n != len) {
		/* a short or cut message is never half-used */
		close_fds(fds, *nfds);
		*nfds = 0;
		return n == 0 ? 0 : -EPROTO;
	}
	return (int)n;
}

const char *
ivwl_agent_socket_path(void)
{
	const char *path = getenv("IVWL_AGENT");

	return path && path[0] ? path : IVWL_AGENT_DEFAULT_SOCKET;
}

static int
call(int fd, uint32_t op, uint64_t arg0, uint64_t arg1,
     struct ivwl_agent_reply *rep, int *fds, int max_fds, int *nfds)
{
	struct ivwl_agent_request req = {
		.op = op,
		.arg0 = arg0,
		.arg1 = arg1,
	};
	int ret, dummy;

	if (!nfds)
		nfds = &dummy;
	ret = ivwl_agent_send(fd, &req, sizeof(req), NULL, 0);
	if (ret < 0)
		return ret;
	ret = ivwl_agent_recv(fd, rep, sizeof(*rep), fds, max_fds, nfds);
	if (ret == 0)
		return -ECONNRESET;
	if (ret < 0)
		return ret;
	if (rep->op != op) {
		close_fds(fds, *nfds);
		*nfds = 0;
		return -EPROTO;
	}
	return rep->status;
}

int
ivwl_agent_connect(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct ivwl_agent_reply rep;
	int fd, ret;

	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	strcpy(addr.sun_path, path);

	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		ret = -errno;
		goto err_close;
	}
	ret = call(fd, IVWL_AGENT_HELLO, IVWL_AGENT_PROTO_VERSION, 0, &rep,
		   NULL, 0, NULL);
	if (ret < 0)
		goto err_close;
	return fd;

err_close:
	close(fd);
	return ret;
}

int
ivwl_agent_open_slot(int fd, struct ivwl_agent_slot *out)
{
	struct ivwl_agent_reply rep;
	int fds[3], nfds = 0, ret;

	ret = call(fd, IVWL_AGENT_OPEN_SLOT, 0, 0, &rep, fds, 3, &nfds);
	if (ret < 0)
		goto err_fds;
	if (nfds != 3) {
		ret = -EPROTO;
		goto err_fds;
	}
	out->slot = (uint32_t)rep.val[0];
	out->generation = (uint32_t)rep.val[1];
	out->ep.region_size = rep.val[2];
	out->ep.doorbell_kind = (uint32_t)rep.val[3];
	out->ep.doorbell_peer = (uint32_t)(rep.val[4] >> 16);
	out->ep.doorbell_vector = (uint32_t)(rep.val[4] & 0xffff);
	out->ep.region_fd = fds[0];
	out->ep.doorbell_fd = fds[1];
	out->ep.wait_fd = fds[2];
	return 0;

err_fds:
	close_fds(fds, nfds);
	return ret;
}

int
ivwl_agent_close_slot(int fd, uint32_t slot, uint32_t generation)
{
	struct ivwl_agent_reply rep;

	return call(fd, IVWL_AGENT_CLOSE_SLOT, slot, generation, &rep, NULL, 0,
		    NULL);
}

int
ivwl_agent_alloc(int fd, uint64_t length, struct ivwl_extent *out)
{
	struct ivwl_agent_reply rep;
	int ret;

	ret = call(fd, IVWL_AGENT_ALLOC, length, 0, &rep, NULL, 0, NULL);
	if (ret < 0)
		return ret;
	out->offset = rep.val[0];
	out->length = rep.val[1];
	return 0;
}

int
ivwl_agent_free(int fd, uint64_t offset)
{
	struct ivwl_agent_reply rep;

	return call(fd, IVWL_AGENT_FREE, offset, 0, &rep, NULL, 0, NULL);
}

int
ivwl_agent_status(int fd, struct ivwl_agent_status *out)
{
	struct ivwl_agent_reply rep;
	int ret;

	ret = call(fd, IVWL_AGENT_STATUS, 0, 0, &rep, NULL, 0, NULL);
	if (ret < 0)
		return ret;
	out->free_slots = (uint32_t)rep.val[0];
	out->usable_slots = (uint32_t)rep.val[1];
	out->heap_free = rep.val[2];
	out->heap_size = rep.val[3];
	out->quarantined_slots = (uint32_t)rep.val[4];
	out->app_epoch = (uint32_t)rep.val[5];
	return 0;
}
