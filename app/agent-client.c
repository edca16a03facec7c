/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "agent-client.h"
#include "fdmsg.h"

static void
close_fds(int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++)
		close(fds[i]);
}

const char *
ivwl_agent_socket_path(void)
{
	const char *path = getenv("IVWL_AGENT");

	return path && path[0] ? path : IVWL_AGENT_DEFAULT_SOCKET;
}

const char *
ivwl_agent_refusal(int err)
{
	switch (err) {
	case -ENOENT:
	case -ECONNREFUSED:
		return "no ivwl-agent listens at its socket (IVWL_AGENT)";
	case -EHOSTDOWN:
		return "the display (weston with ivwl.so) has not attached "
		       "to the region yet";
	case -EBUSY:
		return "every connection slot of the region is in use";
	case -EDQUOT:
		return "the process holds as many connections as one may";
	case -EACCES:
		return "the display refused it (weston's log says why)";
	case -ETIMEDOUT:
		return "no answer in time";
	case -ECONNRESET:
		return "the agent hung up (it stopped, or it serves as many "
		       "clients as it may: its log says which)";
	case -EPROTONOSUPPORT:
		return "the agent speaks another version";
	default:
		return strerror(-err);
	}
}

/* $IVWL_DISPLAY_WAIT in seconds; -1 unset or empty, -2 not 0 to 60. */
static long
display_wait_s(void)
{
	const char *v = getenv("IVWL_DISPLAY_WAIT");
	char *end;
	long s;

	if (!v || !*v)
		return -1;
	s = strtol(v, &end, 10);
	if (*end || s < 0 || s > 60)
		return -2;
	return s;
}

int
ivwl_display_wait_ms(void)
{
	long s = display_wait_s();

	return (int)(s < 0 ? IVWL_DISPLAY_WAIT_DEFAULT_S : s) * 1000;
}

const char *
ivwl_display_wait_bad(void)
{
	return display_wait_s() == -2 ? getenv("IVWL_DISPLAY_WAIT") : NULL;
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
	ret = ivwl_fdmsg_send_whole(fd, &req, sizeof(req), NULL, 0);
	if (ret < 0)
		return ret;
	ret = ivwl_fdmsg_recv_whole(fd, rep, sizeof(*rep), fds, max_fds, nfds);
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
ivwl_agent_clock_wanted(int fd)
{
	struct ivwl_agent_reply rep;

	return call(fd, IVWL_AGENT_CLOCK_WANTED, 0, 0, &rep, NULL, 0, NULL);
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
