/* SPDX-License-Identifier: MIT */
/*
 * ivwl-server's queue of messages per client: what the socket does not
 * take now waits for POLLOUT, and a client too far behind is dropped
 * rather than waited for (ivwl-server.c).
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fdmsg.h"
#include "server-msg.h"
#include "server-state.h"

const char *const ivwl_role_name[ROLE_COUNT] = { "display", "app" };

bool ivwl_server_verbose;

struct fd_bundle *
ivwl_bundle_new(uint32_t count)
{
	struct fd_bundle *b;
	uint32_t i;

	b = malloc(sizeof(*b) + count * sizeof(b->fds[0]));
	if (!b)
		return NULL;
	b->refs = 1;
	b->count = count;
	for (i = 0; i < count; i++)
		b->fds[i] = -1;
	return b;
}

struct fd_bundle *
ivwl_bundle_ref(struct fd_bundle *b)
{
	b->refs++;
	return b;
}

void
ivwl_bundle_unref(struct fd_bundle *b)
{
	uint32_t i;

	if (!b || --b->refs > 0)
		return;
	for (i = 0; i < b->count; i++)
		if (b->fds[i] >= 0)
			close(b->fds[i]);
	free(b);
}

static int
send_message(int sock, int64_t value, int fd)
{
	int64_t wire = (int64_t)htole64((uint64_t)value);
	ssize_t n;

	n = ivwl_fdmsg_send(sock, &wire, sizeof(wire), &fd, fd >= 0,
			    MSG_DONTWAIT);
	if (n < 0)
		return (int)n;
	/* Half a message cannot be completed later without re-sending
	 * the fd: the stream would be out of step. */
	if ((size_t)n != sizeof(wire))
		return -EPIPE;
	return 0;
}

void
ivwl_client_doom(struct client *c, uint32_t id, const char *why)
{
	if (c->doomed)
		return;
	ivwl_log("%s peer %u: %s, dropping it", ivwl_role_name[id], id, why);
	c->doomed = true;
}

void
ivwl_client_enqueue(struct client *c, uint32_t id, int64_t value,
		    struct fd_bundle *bundle)
{
	struct batch *b;

	if (c->doomed)
		return;
	if (c->len == MAX_BATCHES) {
		ivwl_client_doom(c, id, "not reading its socket");
		return;
	}
	b = &c->queue[(c->head + c->len) % MAX_BATCHES];
	b->value = value;
	b->bundle = bundle ? ivwl_bundle_ref(bundle) : NULL;
	b->next = 0;
	c->len++;
}

static void
client_pop(struct client *c)
{
	if (c->queue[c->head].value == ivwl_srv_encode(IVWL_SRV_REGION, 0, 0))
		c->region_queued = false;
	ivwl_bundle_unref(c->queue[c->head].bundle);
	c->queue[c->head].bundle = NULL;
	c->head = (c->head + 1) % MAX_BATCHES;
	c->len--;
}

/* Sends what the socket takes now; the rest waits for POLLOUT. */
void
ivwl_client_flush(struct client *c, uint32_t id)
{
	char why[128];
	int ret;

	while (c->len > 0 && !c->doomed) {
		struct batch *b = &c->queue[c->head];
		int fd = b->bundle ? b->bundle->fds[b->next] : -1;

		ret = send_message(c->sock, b->value, fd);
		if (ret == -EAGAIN)
			return;
		if (ret < 0) {
			snprintf(why, sizeof(why), "cannot send: %s",
				 strerror(-ret));
			ivwl_client_doom(c, id, why);
			return;
		}
		ivwl_slog_verbose("%s peer %u <- %" PRId64 "%s",
				  ivwl_role_name[id], id, b->value,
				  fd >= 0 ? " + fd" : "");
		if (b->bundle && ++b->next < b->bundle->count)
			continue;
		client_pop(c);
	}
}

void
ivwl_client_release(struct client *c)
{
	while (c->len > 0)
		client_pop(c);
	c->head = 0;
	if (c->sock >= 0)
		close(c->sock);
	c->sock = -1;
	c->doomed = false;
	c->hello = false;
	c->rings = false;
	c->lends = false;
	c->region_asked = false;
	c->region_queued = false;
	memset(c->holds, 0, sizeof(c->holds));
	c->have = 0;
	c->blocks_rings = false;
}
