/* SPDX-License-Identifier: MIT */
/*
 * ivwl-server: a QEMU-compatible ivshmem-doorbell server for one region.
 *
 * One region is shared by exactly two peers, so the server listens on two
 * sockets, one per role: whoever connects to the display socket is peer 0,
 * whoever connects to the app socket is peer 1.  QEMU cannot reconnect to a
 * restarted server, so nothing a peer does may take the server down: every
 * socket is non-blocking, and a peer that stops reading is dropped once its
 * backlog is full instead of being waited for.
 *
 * Wire format (server -> client): one little-endian int64 per sendmsg,
 * with zero or one SCM_RIGHTS fd.  EOF means a peer left.  A peer may
 * speak the extension of server-msg.h: HELLO, answered with ACK, then
 * (the display only) RING requests, for which this process writes the
 * app's eventfds; anything else it sends means it left, as before (QEMU
 * never sends a byte, and QEMU's contrib server drops a peer that does).
 *
 * A role's eventfds live as long as the server: every instance of the
 * role gets the same files.  QEMU's ivshmem frees a peer's eventfd array
 * when told the peer left and writes into the freed array when the same
 * id joins again (every QEMU so far), so a client that never said HELLO
 * (QEMU) is never told that a peer left, and is sent the other role's
 * eventfds once per connection: it keeps ringing and being rung through
 * them across the other side's restarts, with no news needed.  Clients
 * that said HELLO (ivwl's own) get every join and leave.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "fd-flags.h"
#include "fdmsg.h"
#include "region.h"
#include "server-state.h"
#include "server-msg.h"
#include "unix-listen.h"

#define PROTOCOL_VERSION 0
#define SHM_MESSAGE (-1)
/* Accepts per listening socket and poll round, so no role starves. */
#define MAX_ACCEPTS 16

static struct fd_bundle *
eventfds_new(uint32_t count)
{
	struct fd_bundle *b = ivwl_bundle_new(count);
	uint32_t i;

	if (!b)
		return NULL;
	for (i = 0; i < count; i++) {
		b->fds[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (b->fds[i] < 0) {
			ivwl_log("eventfd: %s", strerror(errno));
			ivwl_bundle_unref(b);
			return NULL;
		}
	}
	return b;
}

/*
 * Each role's eventfds are held here, one per vector, and queued
 * messages may keep a set that was replaced (role_refresh) alive a
 * little longer.
 */
static void
raise_fd_limit(uint32_t vectors)
{
	rlim_t need = 4 * (rlim_t)vectors + 64;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= need)
		return;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need ?
		      need : rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur < need)
		ivwl_log("warning: the fd limit (%llu) may be too low for %u "
			  "vectors", (unsigned long long)rl.rlim_cur, vectors);
}

/* The role's eventfds, made the first time they are needed. */
static struct fd_bundle *
role_eventfds(struct server *s, uint32_t id)
{
	struct role *r = &s->roles[id];

	if (!r->eventfds)
		r->eventfds = eventfds_new(s->opt.vectors);
	return r->eventfds;
}

/*
 * An instance of the role left.  O_NONBLOCK belongs to the open file
 * description, which it shared with us and with the next instance: set
 * it again, so that no reader of the next instance sleeps in read() and
 * no writer in write() because this one cleared it.  A count it left
 * pending is one wake-up for the next instance, which any reader of a
 * doorbell takes as a hint to look, not as a message.
 */
static void
role_left(struct server *s, uint32_t id, bool blocked)
{
	struct role *r = &s->roles[id];
	uint32_t i;
	int flags;

	if (!r->eventfds)
		return;
	if (blocked)
		r->tainted = true;
	for (i = 0; i < r->eventfds->count; i++) {
		flags = fcntl(r->eventfds->fds[i], F_GETFL);
		if (flags >= 0 && flags & O_NONBLOCK)
			continue;
		/* Tainted, the role gets fresh eventfds while it is away,
		 * should this fail too. */
		r->tainted = true;
		(void)ivwl_fd_set_nonblock(r->eventfds->fds[i], true);
	}
}

/*
 * Whether a present client holds the role's eventfds without ever being
 * told of a new set: one that never said HELLO.
 */
static bool
role_held_silently(struct server *s, uint32_t id)
{
	uint32_t other;

	for (other = 0; other < ROLE_COUNT; other++) {
		const struct client *o = &s->clients[other];

		if (ivwl_client_present(o) && !o->hello && o->holds[id])
			return true;
	}
	return false;
}

/*
 * A tainted role's eventfds are dropped while the role is absent and no
 * silent client holds them: its process may live on somewhere and clear
 * O_NONBLOCK again, and a new set leaves it nothing to do that with.
 * While a QEMU holds them, they stay (with O_NONBLOCK set again): QEMU
 * could not be given a new set without "left" news, and an instance that
 * blocks them again costs the ring guard's period, as any app does.
 */
static void
role_refresh(struct server *s)
{
	uint32_t id;

	for (id = 0; id < ROLE_COUNT; id++) {
		struct role *r = &s->roles[id];

		if (!r->tainted || s->clients[id].sock >= 0 ||
		    role_held_silently(s, id))
			continue;
		ivwl_bundle_unref(r->eventfds);
		r->eventfds = NULL;
		r->tainted = false;
		ivwl_log("%s role's eventfds were left blocking: the next %s "
			  "peer gets new ones", ivwl_role_name[id],
			  ivwl_role_name[id]);
	}
}

/*
 * Drops doomed clients and tells the others.  Telling may doom another
 * client in turn, hence the loop; each pass removes one, so it ends.
 */
static void
server_reap(struct server *s)
{
	uint32_t id, other;
	bool again = true;

	while (again) {
		again = false;
		for (id = 0; id < ROLE_COUNT; id++) {
			struct client *c = &s->clients[id];

			if (c->sock < 0 || !c->doomed)
				continue;
			role_left(s, id, c->blocks_rings);
			ivwl_client_release(c);
			ivwl_log("%s peer %u left", ivwl_role_name[id], id);
			/* A client that never said HELLO keeps the eventfds:
			 * they will be the next instance's. */
			for (other = 0; other < ROLE_COUNT; other++) {
				struct client *o = &s->clients[other];

				if (!ivwl_client_present(o) || !o->hello ||
				    !o->holds[id])
					continue;
				o->holds[id] = false;
				ivwl_client_enqueue(o, other, id, NULL);
				ivwl_client_flush(o, other);
			}
			again = true;
		}
	}
	role_refresh(s);
}

/*
 * A role's holder may be gone while its EOF still waits in the socket:
 * look before refusing a newcomer, so that a peer that reconnects at
 * once gets its id back.
 */
static void
client_check_alive(struct server *s, uint32_t id)
{
	struct client *c = &s->clients[id];
	struct pollfd pfd = { .fd = c->sock, .events = POLLIN };

	if (c->sock < 0)
		return;
	if (poll(&pfd, 1, 0) > 0)
		ivwl_client_readable(s, id);
	server_reap(s);
}

static void
client_start(struct server *s, uint32_t id, int sock)
{
	struct client *c = &s->clients[id];
	struct fd_bundle *own = role_eventfds(s, id);
	uint32_t other;

	if (!own) {
		ivwl_log("no eventfds for a new %s peer, refusing it",
			  ivwl_role_name[id]);
		close(sock);
		return;
	}
	c->sock = sock;
	c->doomed = false;

	ivwl_client_enqueue(c, id, PROTOCOL_VERSION, NULL);
	ivwl_client_enqueue(c, id, id, NULL);
	ivwl_client_enqueue(c, id, SHM_MESSAGE, s->shm);
	for (other = 0; other < ROLE_COUNT; other++) {
		if (other == id || !ivwl_client_present(&s->clients[other]))
			continue;
		ivwl_client_enqueue(c, id, other, s->roles[other].eventfds);
		c->holds[other] = true;
	}
	ivwl_client_enqueue(c, id, id, own);
	ivwl_client_flush(c, id);
	if (c->doomed) {
		/* Nobody heard of it yet: no need to announce its exit. */
		ivwl_client_release(c);
		return;
	}
	ivwl_log("%s peer %u joined", ivwl_role_name[id], id);

	/* One that never said HELLO still rings the earlier instance's
	 * eventfds: they are these. */
	for (other = 0; other < ROLE_COUNT; other++) {
		struct client *o = &s->clients[other];

		if (other == id || !ivwl_client_present(o) || o->holds[id])
			continue;
		o->holds[id] = true;
		ivwl_client_enqueue(o, other, id, own);
		ivwl_client_flush(o, other);
	}
	server_reap(s);
}

static void
server_accept(struct server *s, uint32_t id)
{
	struct listener *l = &s->listeners[id];
	int i, sock;

	for (i = 0; i < MAX_ACCEPTS; i++) {
		sock = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (sock < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno != EAGAIN)
				ivwl_log("accept on %s: %s", l->path,
					  strerror(errno));
			return;
		}
		client_check_alive(s, id);
		if (s->clients[id].sock >= 0) {
			ivwl_log("%s role is held by peer %u: refusing "
				  "another client on %s", ivwl_role_name[id],
				  id, l->path);
			close(sock);
			continue;
		}
		client_start(s, id, sock);
	}
}

static int
listener_open(struct listener *l, const char *path)
{
	struct stat st;

	l->path = path;
	l->fd = ivwl_unix_listen(path, SOCK_STREAM, 8, &st);
	if (l->fd == -EADDRINUSE) {
		ivwl_log("%s: another server is already listening there",
			  path);
	} else if (l->fd == -EEXIST) {
		ivwl_log("%s exists and is not a socket", path);
	} else if (l->fd < 0) {
		ivwl_log("cannot listen on %s: %s", path, strerror(-l->fd));
	} else {
		/* Remember which file is ours, to remove only that one. */
		l->dev = st.st_dev;
		l->ino = st.st_ino;
		return 0;
	}
	l->fd = -1;
	return -1;
}

static void
listener_close(struct listener *l)
{
	struct stat st;

	if (l->fd < 0)
		return;
	close(l->fd);
	l->fd = -1;
	if (stat(l->path, &st) == 0 && st.st_dev == l->dev &&
	    st.st_ino == l->ino)
		unlink(l->path);
}

/* Only interrupts a write to the app that blocks (app_ring). */
static void
on_guard(int sig)
{
	(void)sig;
}

static int
signals_open(void)
{
	struct sigaction guard = { .sa_handler = on_guard };
	sigset_t mask;
	int fd;

	/* Peers vanish mid-send; that is EPIPE for us, not a signal. */
	signal(SIGPIPE, SIG_IGN);
	/* No SA_RESTART: the interrupted write must return. */
	sigemptyset(&guard.sa_mask);
	if (sigaction(SIGALRM, &guard, NULL) < 0) {
		ivwl_log("sigaction: %s", strerror(errno));
		return -1;
	}

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0) {
		ivwl_log("sigprocmask: %s", strerror(errno));
		return -1;
	}
	fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd < 0)
		ivwl_log("signalfd: %s", strerror(errno));
	return fd;
}

static int
server_init(struct server *s)
{
	uint32_t id;
	int fd;

	for (id = 0; id < ROLE_COUNT; id++) {
		s->clients[id].sock = -1;
		s->listeners[id].fd = -1;
	}
	s->signal_fd = signals_open();
	if (s->signal_fd < 0)
		return -1;

	raise_fd_limit(s->opt.vectors);
	fd = ivwl_server_region_open(&s->opt);
	if (fd < 0)
		return -1;
	s->shm = ivwl_bundle_new(1);
	if (!s->shm) {
		close(fd);
		ivwl_log("out of memory");
		return -1;
	}
	s->shm->fds[0] = fd;

	if (listener_open(&s->listeners[IVWL_PEER_DISPLAY],
			  s->opt.display_path) < 0 ||
	    listener_open(&s->listeners[IVWL_PEER_APP],
			  s->opt.socket_path) < 0)
		return -1;
	return 0;
}

static void
server_fini(struct server *s)
{
	uint32_t id;

	for (id = 0; id < ROLE_COUNT; id++) {
		ivwl_client_release(&s->clients[id]);
		listener_close(&s->listeners[id]);
		ivwl_bundle_unref(s->roles[id].eventfds);
		s->roles[id].eventfds = NULL;
	}
	ivwl_bundle_unref(s->shm);
	s->shm = NULL;
	if (s->signal_fd >= 0)
		close(s->signal_fd);
	free(s->opt.display_path_owned);
}

/* True when a termination signal arrived. */
static bool
signals_read(int fd)
{
	struct signalfd_siginfo si;
	ssize_t n;

	n = read(fd, &si, sizeof(si));
	if (n != (ssize_t)sizeof(si))
		return false;
	ivwl_log("got signal %u, shutting down", si.ssi_signo);
	return true;
}

enum {
	POLL_SIGNAL,
	POLL_LISTENER,
	POLL_CLIENT = POLL_LISTENER + ROLE_COUNT,
	POLL_COUNT = POLL_CLIENT + ROLE_COUNT,
};

static int
server_run(struct server *s)
{
	struct pollfd pfds[POLL_COUNT];
	uint32_t id;
	int n;

	for (;;) {
		pfds[POLL_SIGNAL] = (struct pollfd){ s->signal_fd, POLLIN, 0 };
		for (id = 0; id < ROLE_COUNT; id++) {
			struct client *c = &s->clients[id];

			pfds[POLL_LISTENER + id] = (struct pollfd){
				s->listeners[id].fd, POLLIN, 0 };
			pfds[POLL_CLIENT + id] = (struct pollfd){
				c->sock, POLLIN | (c->len ? POLLOUT : 0), 0 };
		}

		n = poll(pfds, POLL_COUNT, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ivwl_log("poll: %s", strerror(errno));
			return -1;
		}

		if (pfds[POLL_SIGNAL].revents && signals_read(s->signal_fd))
			return 0;

		/* Departures first, so that a returning peer finds its
		 * role free. */
		for (id = 0; id < ROLE_COUNT; id++) {
			struct client *c = &s->clients[id];
			short rev = pfds[POLL_CLIENT + id].revents;

			if (c->sock < 0 || !rev)
				continue;
			if (rev & (POLLIN | POLLHUP | POLLERR))
				ivwl_client_readable(s, id);
			if (rev & POLLOUT)
				ivwl_client_flush(c, id);
		}
		server_reap(s);

		for (id = 0; id < ROLE_COUNT; id++)
			if (pfds[POLL_LISTENER + id].revents)
				server_accept(s, id);
		ivwl_server_ring_app(s);
	}
}

int
main(int argc, char *argv[])
{
	struct server s;
	int ret;

	ivwl_log_setup("ivwl-server", false);
	memset(&s, 0, sizeof(s));
	s.signal_fd = -1;
	ivwl_server_parse_options(argc, argv, &s.opt);
	ivwl_server_verbose = s.opt.verbose;

	if (server_init(&s) < 0) {
		server_fini(&s);
		return EXIT_FAILURE;
	}
	ivwl_log("serving a %" PRIu64 "-byte region with %u vectors: "
		  "display peer on %s, app peer on %s", s.opt.size,
		  s.opt.vectors, s.opt.display_path, s.opt.socket_path);

	ret = server_run(&s);
	server_fini(&s);
	return ret < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
