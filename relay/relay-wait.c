/* SPDX-License-Identifier: MIT */
/*
 * The relay's epoll set (relay-wait.h).  Level-triggered, so a flag the
 * relay leaves true after a short read, or an fd it did not drain, is
 * reported again at the next wait as poll() would; all but the doorbell,
 * which is edge-triggered so that it needs no read (each ring of an
 * eventfd is a new edge).
 */
#include <errno.h>
#include <poll.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "relay-internal.h"

/* Every fd the set can hold: one wait reports all that are ready. */
#define MAX_EVENTS (2 + IVWL_RELAY_ZC_LISTEN + 1 + IVWL_CHANNEL_MAX)

int
ivwl_relay_wait_init(struct ivwl_relay_wait *w)
{
	int i;

	w->doorbell_fd = -1;
	w->sock_events = 0;
	for (i = 0; i < (int)IVWL_CHANNEL_MAX; i++)
		w->pipes[i] = (struct ivwl_relay_wait_pipe){ .ch = NULL };
	w->epfd = epoll_create1(EPOLL_CLOEXEC);
	return w->epfd < 0 ? -errno : 0;
}

void
ivwl_relay_wait_release(struct ivwl_relay_wait *w)
{
	if (w->epfd >= 0)
		close(w->epfd);
	w->epfd = -1;
	w->doorbell_fd = -1;
}

static int
ctl(struct ivwl_relay_wait *w, int op, int fd, uint32_t events,
    uint64_t tag)
{
	struct epoll_event ev = { .events = events, .data.u64 = tag };

	if (w->epfd < 0)
		return 0;
	return epoll_ctl(w->epfd, op, fd, &ev) < 0 ? -errno : 0;
}

int
ivwl_relay_wait_add(struct ivwl_relay_wait *w, int fd, uint32_t events,
		    uint64_t tag)
{
	return ctl(w, EPOLL_CTL_ADD, fd, events, tag);
}

void
ivwl_relay_wait_del(struct ivwl_relay_wait *w, int fd)
{
	if (w->epfd >= 0 && fd >= 0)
		epoll_ctl(w->epfd, EPOLL_CTL_DEL, fd, NULL);
}

void
ivwl_relay_wait_forget_pipe(struct ivwl_relay_wait *w,
			    struct ivwl_channel *ch)
{
	struct ivwl_relay_wait_pipe *p = ch->user;

	if (!p)
		return;
	if (p->in_set)
		ivwl_relay_wait_del(w, ch->fd);
	*p = (struct ivwl_relay_wait_pipe){ .ch = NULL };
	ch->user = NULL;
}

void
ivwl_relay_wait_forget_doorbell(struct ivwl_relay_wait *w)
{
	ivwl_relay_wait_del(w, w->doorbell_fd);
	w->doorbell_fd = -1;
}

static struct ivwl_relay_wait_pipe *
pipe_attach(struct ivwl_relay_wait *w, struct ivwl_channel *ch)
{
	int i;

	/* As many places as channels: one is free unless a channel was
	 * closed without ivwl_relay_wait_forget_pipe. */
	for (i = 0; i < (int)IVWL_CHANNEL_MAX; i++) {
		if (w->pipes[i].ch)
			continue;
		w->pipes[i] = (struct ivwl_relay_wait_pipe){ .ch = ch };
		ch->user = &w->pipes[i];
		return &w->pipes[i];
	}
	return NULL;
}

static uint32_t
pipe_events(const struct ivwl_channel *ch)
{
	short ev = ivwl_channel_events(ch);

	return (ev & POLLIN ? EPOLLIN : 0) | (ev & POLLOUT ? EPOLLOUT : 0);
}

/*
 * An fd that waits for nothing is out of the set: epoll reports a hang-up
 * whatever the mask, and one that nothing acts on yet (a source while the
 * ring is full, a sink with nothing to write, a source without credit)
 * would wake us at once, again and again.  It is seen when the fd is
 * waited on again, as a read or write of it sees it anyway.
 */
static int
update_pipe(struct ivwl_relay_wait *w, struct ivwl_channel *ch,
	    bool blocked)
{
	struct ivwl_relay_wait_pipe *p = ch->user;
	uint32_t events = pipe_events(ch);
	int ret;

	if (!p && !(p = pipe_attach(w, ch)))
		return -ENOSPC;
	if ((!ch->sink && blocked) || events == 0) {
		if (p->in_set)
			ivwl_relay_wait_del(w, ch->fd);
		p->in_set = false;
		return 0;
	}
	if (p->in_set && p->events == events)
		return 0;
	ret = ctl(w, p->in_set ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, ch->fd, events,
		  IVWL_RELAY_WAIT_TAG(IVWL_RELAY_WAIT_PIPE, p - w->pipes));
	if (ret < 0)
		return ret;
	p->in_set = true;
	p->events = events;
	return 0;
}

/* The client socket, out of the set while it waits for nothing. */
static int
update_sock(struct ivwl_relay_wait *w, int sock, uint32_t events)
{
	int ret = 0;

	if (events == 0)
		ivwl_relay_wait_del(w, sock);
	else
		ret = ctl(w, w->sock_events ? EPOLL_CTL_MOD : EPOLL_CTL_ADD,
			  sock, events,
			  IVWL_RELAY_WAIT_TAG(IVWL_RELAY_WAIT_CLIENT, 0));
	if (ret == 0)
		w->sock_events = events;
	return ret;
}

int
ivwl_relay_wait_update(struct relay *r, bool sock_in)
{
	struct ivwl_relay_wait *w = &r->wait;
	int wait_fd = r->slot.info.ep.wait_fd;
	uint32_t sock_events = (sock_in ? EPOLLIN : 0) |
			       (r->to_client.len > 0 ? EPOLLOUT : 0);
	struct ivwl_channel *ch;

	if (w->doorbell_fd != wait_fd) {
		if (ivwl_relay_wait_add(w, wait_fd, EPOLLIN | EPOLLET,
					IVWL_RELAY_WAIT_TAG(
						IVWL_RELAY_WAIT_DOORBELL, 0)) < 0) {
			r->why = "the relay cannot wait on its doorbell";
			return -1;
		}
		w->doorbell_fd = wait_fd;
	}
	/* The common sleep: nothing changed, no call. */
	if (w->sock_events != sock_events && update_sock(w, r->sock,
							  sock_events) < 0) {
		r->why = "the relay cannot wait on the client";
		return -1;
	}
	for (ch = r->channels.list; ch; ch = ch->next) {
		if (update_pipe(w, ch, r->requests_blocked) < 0) {
			r->why = "the relay cannot wait on a pipe";
			return -1;
		}
	}
	return 0;
}

bool
ivwl_relay_wait_sleep(struct relay *r, bool sock_in, int timeout_ms)
{
	struct epoll_event ev[MAX_EVENTS];
	bool rang = false;
	uint64_t tag;
	int n, i;

	n = epoll_wait(r->wait.epfd, ev, MAX_EVENTS, timeout_ms);
	if (n < 0) {
		r->sock_ready = true;
		ivwl_relay_zc_all_ready(&r->zc);
		return true;
	}
	/* Not waited on for input (blocked): unchanged. */
	if (sock_in)
		r->sock_ready = false;
	ivwl_relay_zc_none_ready(&r->zc);
	for (i = 0; i < n; i++) {
		tag = ev[i].data.u64;
		switch (tag & 0xff) {
		case IVWL_RELAY_WAIT_DOORBELL:
			rang = true;
			break;
		case IVWL_RELAY_WAIT_CLIENT:
			if (sock_in)
				r->sock_ready = true;
			break;
		case IVWL_RELAY_WAIT_ZC:
			ivwl_relay_zc_woken(&r->zc, (uint32_t)(tag >> 8));
			break;
		case IVWL_RELAY_WAIT_AGENT:
			/* registered for its end only: stray bytes (the
			 * agent sends none unasked) wake nobody */
			r->agent_gone = ev[i].events &
					(EPOLLRDHUP | EPOLLHUP | EPOLLERR);
			break;
		default:
			/* A pipe: pump_channels looks at each anyway. */
			break;
		}
	}
	return rang;
}
