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

#include "fdmsg.h"
#include "region.h"
#include "server.h"
#include "server-msg.h"
#include "unix-listen.h"

#define ROLE_COUNT 2
#define PROTOCOL_VERSION 0
#define SHM_MESSAGE (-1)

/*
 * A client's backlog, in batches (one id with its fds, or a bare id).  The
 * setup takes at most 5; every join/leave of the other peer adds one.  A
 * client this far behind is not reading: it is dropped.
 */
#define MAX_BATCHES 64

/* Requests read from the display per poll round: the app's turn comes. */
#define MAX_REQUESTS 64

/*
 * How long a write to one of the app's eventfds may block before a timer
 * signal ends it.  The app holds the same open file descriptions: it can
 * clear O_NONBLOCK and fill the counter, and the next write sleeps until
 * it reads.  No honest write takes more than microseconds.
 */
#define RING_GUARD_US 2000

/* Accepts per listening socket and poll round, so no role starves. */
#define MAX_ACCEPTS 16

static const char *const role_names[ROLE_COUNT] = { "display", "app" };

/*
 * A set of fds shared by every queued message that carries one of them:
 * a peer's eventfds stay open until the last message naming them is out,
 * even when the peer itself has already left.
 */
struct fd_bundle {
	unsigned int refs;
	uint32_t count;
	int fds[];
};

struct batch {
	int64_t value;
	struct fd_bundle *bundle;	/* NULL: one message without fd */
	uint32_t next;			/* next fd of bundle to send */
};

struct client {
	int sock;			/* -1 while the role is free */
	bool doomed;			/* leaves at the next reap */
	bool hello;		/* said HELLO: gets every join and leave */
	bool rings;		/* display: may ask for rings */
	/* Was sent that role's eventfds and not told it left since. */
	bool holds[ROLE_COUNT];
	uint8_t partial[8];	/* a request in pieces */
	size_t have;
	bool blocks_rings;	/* app: kept a write to its eventfd blocked */
	struct batch queue[MAX_BATCHES];
	unsigned int head;
	unsigned int len;
};

struct listener {
	const char *path;
	int fd;
	dev_t dev;
	ino_t ino;
};


/*
 * A role's eventfds, made when its first instance joins and kept for
 * the next ones.  tainted: an instance cleared O_NONBLOCK on them or
 * kept a write blocked; they are made anew once nobody who is never
 * told about a new set holds them (role_refresh).
 */
struct role {
	struct fd_bundle *eventfds;
	bool tainted;
};

struct server {
	struct ivwl_server_options opt;
	struct role roles[ROLE_COUNT];		/* indexed by peer id */
	struct listener listeners[ROLE_COUNT];	/* indexed by peer id */
	struct client clients[ROLE_COUNT];	/* indexed by peer id */
	struct fd_bundle *shm;
	int signal_fd;
	/* App vectors the display asked to ring this poll round. */
	uint64_t ring_pending[IVWL_SERVER_MAX_VECTORS / 64];
	bool rings_pending;
};

static bool verbose;

/* One write per line, so that lines from several processes stay whole. */
static void __attribute__((format(printf, 2, 0)))
vlog(const char *suffix, const char *fmt, va_list ap)
{
	char line[512];

	vsnprintf(line, sizeof(line), fmt, ap);
	fprintf(stderr, "ivwl-server: %s%s", line, suffix);
}

static void __attribute__((format(printf, 1, 2)))
log_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("\n", fmt, ap);
	va_end(ap);
}

#define log_verbose(...)                                                 \
	do {                                                             \
		if (verbose)                                             \
			log_msg(__VA_ARGS__);                            \
	} while (0)


static struct fd_bundle *
bundle_new(uint32_t count)
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

static struct fd_bundle *
bundle_ref(struct fd_bundle *b)
{
	b->refs++;
	return b;
}

static void
bundle_unref(struct fd_bundle *b)
{
	uint32_t i;

	if (!b || --b->refs > 0)
		return;
	for (i = 0; i < b->count; i++)
		if (b->fds[i] >= 0)
			close(b->fds[i]);
	free(b);
}

static struct fd_bundle *
eventfds_new(uint32_t count)
{
	struct fd_bundle *b = bundle_new(count);
	uint32_t i;

	if (!b)
		return NULL;
	for (i = 0; i < count; i++) {
		b->fds[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (b->fds[i] < 0) {
			log_msg("eventfd: %s", strerror(errno));
			bundle_unref(b);
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
		log_msg("warning: the fd limit (%llu) may be too low for %u "
			"vectors", (unsigned long long)rl.rlim_cur, vectors);
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

static void
client_doom(struct client *c, uint32_t id, const char *why)
{
	if (c->doomed)
		return;
	log_msg("%s peer %u: %s, dropping it", role_names[id], id, why);
	c->doomed = true;
}

static void
client_enqueue(struct client *c, uint32_t id, int64_t value,
	       struct fd_bundle *bundle)
{
	struct batch *b;

	if (c->doomed)
		return;
	if (c->len == MAX_BATCHES) {
		client_doom(c, id, "not reading its socket");
		return;
	}
	b = &c->queue[(c->head + c->len) % MAX_BATCHES];
	b->value = value;
	b->bundle = bundle ? bundle_ref(bundle) : NULL;
	b->next = 0;
	c->len++;
}

static void
client_pop(struct client *c)
{
	bundle_unref(c->queue[c->head].bundle);
	c->queue[c->head].bundle = NULL;
	c->head = (c->head + 1) % MAX_BATCHES;
	c->len--;
}

/* Sends what the socket takes now; the rest waits for POLLOUT. */
static void
client_flush(struct client *c, uint32_t id)
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
			client_doom(c, id, why);
			return;
		}
		log_verbose("%s peer %u <- %" PRId64 "%s", role_names[id], id,
			    b->value, fd >= 0 ? " + fd" : "");
		if (b->bundle && ++b->next < b->bundle->count)
			continue;
		client_pop(c);
	}
}

static bool
client_present(const struct client *c)
{
	return c->sock >= 0 && !c->doomed;
}

static void
client_release(struct client *c)
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
	memset(c->holds, 0, sizeof(c->holds));
	c->have = 0;
	c->blocks_rings = false;
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
		if (flags < 0 || flags & O_NONBLOCK)
			continue;
		r->tainted = true;
		fcntl(r->eventfds->fds[i], F_SETFL, flags | O_NONBLOCK);
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

		if (client_present(o) && !o->hello && o->holds[id])
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
		bundle_unref(r->eventfds);
		r->eventfds = NULL;
		r->tainted = false;
		log_msg("%s role's eventfds were left blocking: the next %s "
			"peer gets new ones", role_names[id], role_names[id]);
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
			client_release(c);
			log_msg("%s peer %u left", role_names[id], id);
			/* A client that never said HELLO keeps the eventfds:
			 * they will be the next instance's. */
			for (other = 0; other < ROLE_COUNT; other++) {
				struct client *o = &s->clients[other];

				if (!client_present(o) || !o->hello ||
				    !o->holds[id])
					continue;
				o->holds[id] = false;
				client_enqueue(o, other, id, NULL);
				client_flush(o, other);
			}
			again = true;
		}
	}
	role_refresh(s);
}

/*
 * A client that said HELLO hears of every leave from now on.  One that
 * left before is news to it only if it holds the eventfds: tell it now.
 */
static void
client_hello(struct server *s, struct client *c, uint32_t id,
	     uint32_t version)
{
	uint32_t other, flags = 0;

	c->hello = true;
	c->rings = id == IVWL_PEER_DISPLAY && !s->opt.no_rings;
	for (other = 0; other < ROLE_COUNT; other++) {
		if (other == id || !c->holds[other] ||
		    client_present(&s->clients[other]))
			continue;
		c->holds[other] = false;
		client_enqueue(c, id, other, NULL);
	}
	if (!c->rings)
		flags |= IVWL_SRV_ACK_NO_RINGS;
	log_msg("%s peer %u said hello (version %u)%s", role_names[id], id,
		version, c->rings ? ": ringing the app for it" : "");
	client_enqueue(c, id, ivwl_srv_encode(IVWL_SRV_ACK, flags,
					      IVWL_SRV_VERSION), NULL);
	client_flush(c, id);
}

/*
 * HELLO first, then RING from a display the server rings for; anything
 * else means the client left.
 */
static void
client_request(struct server *s, struct client *c, uint32_t id,
	       int64_t value)
{
	uint32_t peer, arg, op = ivwl_srv_decode(value, &peer, &arg);
	char why[128];

	if (!c->hello) {
		if (op != IVWL_SRV_HELLO || arg == 0) {
			client_doom(c, id, "it sent data");
			return;
		}
		client_hello(s, c, id, arg);
		return;
	}
	if (op != IVWL_SRV_RING) {
		snprintf(why, sizeof(why), "it sent an unknown request "
			 "0x%016" PRIx64, (uint64_t)value);
		client_doom(c, id, why);
		return;
	}
	if (!c->rings) {
		client_doom(c, id, id == IVWL_PEER_DISPLAY ?
			    "it asked for a ring (--no-rings)" :
			    "it asked for a ring (the server rings for "
			    "the display only)");
		return;
	}
	if (peer != IVWL_PEER_APP || arg >= s->opt.vectors) {
		snprintf(why, sizeof(why), "it asked to ring peer %u vector "
			 "%u (the app is peer %u, with %u vectors)", peer, arg,
			 IVWL_PEER_APP, s->opt.vectors);
		client_doom(c, id, why);
		return;
	}
	/* An app that just left: the display has not heard yet. */
	if (!client_present(&s->clients[IVWL_PEER_APP]))
		return;
	s->ring_pending[arg / 64] |= 1ull << (arg % 64);
	s->rings_pending = true;
}

/*
 * At most MAX_REQUESTS per call; a request may arrive in pieces.  No fd
 * is taken: one that comes along is closed by the kernel (MSG_CTRUNC).
 */
static void
client_readable(struct server *s, uint32_t id)
{
	struct client *c = &s->clients[id];
	uint8_t buf[MAX_REQUESTS * 8];
	struct iovec iov;
	struct msghdr mh;
	uint64_t wire;
	size_t len, off;
	ssize_t n;

	memcpy(buf, c->partial, c->have);
	iov = (struct iovec){ buf + c->have, sizeof(buf) - c->have };
	mh = (struct msghdr){ .msg_iov = &iov, .msg_iovlen = 1 };
	do {
		n = recvmsg(c->sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN)
		return;
	if (n == 0) {
		c->doomed = true;
		return;
	}
	if (n < 0) {
		client_doom(c, id, strerror(errno));
		return;
	}
	if (mh.msg_flags & MSG_CTRUNC) {
		client_doom(c, id, "it sent an fd");
		return;
	}
	len = c->have + (size_t)n;
	for (off = 0; off + 8 <= len && !c->doomed; off += 8) {
		memcpy(&wire, buf + off, sizeof(wire));
		client_request(s, c, id, (int64_t)le64toh(wire));
	}
	c->have = len - off;
	memcpy(c->partial, buf + off, c->have);
}

static void
guard_set(suseconds_t us)
{
	struct itimerval it = { { 0, us }, { 0, us } };

	setitimer(ITIMER_REAL, &it, NULL);
}

/*
 * One doorbell of the app's.  A counter it filled (EAGAIN) wakes it
 * anyway: nothing is lost.  A write it keeps blocked (O_NONBLOCK cleared
 * on its side) ends with the guard's signal (EINTR); from then on its
 * counters are looked at first, so that only a race costs the guard's
 * period again.
 */
static void
app_ring(struct client *app, struct fd_bundle *eventfds, uint32_t vector)
{
	int fd = eventfds->fds[vector];
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	uint64_t one = 1;

	if (app->blocks_rings &&
	    (poll(&pfd, 1, 0) != 1 || !(pfd.revents & POLLOUT)))
		return;
	if (write(fd, &one, sizeof(one)) == (ssize_t)sizeof(one)) {
		log_verbose("app peer %u rung on vector %u", IVWL_PEER_APP,
			    vector);
		return;
	}
	if (errno == EINTR && !app->blocks_rings) {
		app->blocks_rings = true;
		log_msg("app peer %u keeps a write to its vector %u blocked "
			"(it cleared O_NONBLOCK and filled it): its rings are "
			"dropped while its counters stay full", IVWL_PEER_APP,
			vector);
	}
}

/* Each vector asked for this round once, however many asked. */
static void
server_ring_app(struct server *s)
{
	struct client *app = &s->clients[IVWL_PEER_APP];
	uint32_t w, bit;

	if (!s->rings_pending)
		return;
	s->rings_pending = false;
	/* Rings for an app that left would wait for the next one. */
	if (client_present(app)) {
		guard_set(RING_GUARD_US);
		for (w = 0; w * 64 < s->opt.vectors; w++)
			for (bit = 0; bit < 64; bit++)
				if (s->ring_pending[w] & 1ull << bit)
					app_ring(app, s->roles[IVWL_PEER_APP].
						 eventfds, w * 64 + bit);
		guard_set(0);
	}
	memset(s->ring_pending, 0, sizeof(s->ring_pending));
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
		client_readable(s, id);
	server_reap(s);
}

static void
client_start(struct server *s, uint32_t id, int sock)
{
	struct client *c = &s->clients[id];
	struct fd_bundle *own = role_eventfds(s, id);
	uint32_t other;

	if (!own) {
		log_msg("no eventfds for a new %s peer, refusing it",
			role_names[id]);
		close(sock);
		return;
	}
	c->sock = sock;
	c->doomed = false;

	client_enqueue(c, id, PROTOCOL_VERSION, NULL);
	client_enqueue(c, id, id, NULL);
	client_enqueue(c, id, SHM_MESSAGE, s->shm);
	for (other = 0; other < ROLE_COUNT; other++) {
		if (other == id || !client_present(&s->clients[other]))
			continue;
		client_enqueue(c, id, other, s->roles[other].eventfds);
		c->holds[other] = true;
	}
	client_enqueue(c, id, id, own);
	client_flush(c, id);
	if (c->doomed) {
		/* Nobody heard of it yet: no need to announce its exit. */
		client_release(c);
		return;
	}
	log_msg("%s peer %u joined", role_names[id], id);

	/* One that never said HELLO still rings the earlier instance's
	 * eventfds: they are these. */
	for (other = 0; other < ROLE_COUNT; other++) {
		struct client *o = &s->clients[other];

		if (other == id || !client_present(o) || o->holds[id])
			continue;
		o->holds[id] = true;
		client_enqueue(o, other, id, own);
		client_flush(o, other);
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
				log_msg("accept on %s: %s", l->path,
					strerror(errno));
			return;
		}
		client_check_alive(s, id);
		if (s->clients[id].sock >= 0) {
			log_msg("%s role is held by peer %u: refusing another "
				"client on %s", role_names[id], id, l->path);
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
		log_msg("%s: another server is already listening there", path);
	} else if (l->fd == -EEXIST) {
		log_msg("%s exists and is not a socket", path);
	} else if (l->fd < 0) {
		log_msg("cannot listen on %s: %s", path, strerror(-l->fd));
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
		log_msg("sigaction: %s", strerror(errno));
		return -1;
	}

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0) {
		log_msg("sigprocmask: %s", strerror(errno));
		return -1;
	}
	fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd < 0)
		log_msg("signalfd: %s", strerror(errno));
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
	s->shm = bundle_new(1);
	if (!s->shm) {
		close(fd);
		log_msg("out of memory");
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
		client_release(&s->clients[id]);
		listener_close(&s->listeners[id]);
		bundle_unref(s->roles[id].eventfds);
		s->roles[id].eventfds = NULL;
	}
	bundle_unref(s->shm);
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
	log_msg("got signal %u, shutting down", si.ssi_signo);
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
			log_msg("poll: %s", strerror(errno));
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
				client_readable(s, id);
			if (rev & POLLOUT)
				client_flush(c, id);
		}
		server_reap(s);

		for (id = 0; id < ROLE_COUNT; id++)
			if (pfds[POLL_LISTENER + id].revents)
				server_accept(s, id);
		server_ring_app(s);
	}
}

int
main(int argc, char *argv[])
{
	struct server s;
	int ret;

	memset(&s, 0, sizeof(s));
	s.signal_fd = -1;
	ivwl_server_parse_options(argc, argv, &s.opt);
	verbose = s.opt.verbose;

	if (server_init(&s) < 0) {
		server_fini(&s);
		return EXIT_FAILURE;
	}
	log_msg("serving a %" PRIu64 "-byte region with %u vectors: "
		"display peer on %s, app peer on %s", s.opt.size,
		s.opt.vectors, s.opt.display_path, s.opt.socket_path);

	ret = server_run(&s);
	server_fini(&s);
	return ret < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
