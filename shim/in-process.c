/* SPDX-License-Identifier: MIT */
/*
 * In-process mode (IVWL_IN_PROCESS=on): the client's own process runs
 * its connection's relay (relay/relay.h) inside the calls it makes on
 * its Wayland fd, instead of an ivwl-relay process that wakes for every
 * batch of requests and every doorbell of the display's
 * (docs/architecture.md, "In-process mode").
 *
 * The client's fd becomes an epoll set of three: its end of a
 * socketpair whose other end the relay serves (libwayland's bytes and
 * fds go through it as before), the relay's own wait set (the slot's
 * doorbell, pipes; the zero-copy sockets wait in a set of their own,
 * the service thread's) and a timer for the relay's deadlines.  A
 * doorbell of the display's makes the client's own poll() return, and
 * no other process wakes.  sendmsg() and recvmsg() on the fd go to the
 * socketpair, each with a step of the relay.  An epoll set never reports
 * room to write, so a send that finds the socketpair full serves the
 * relay until there is room instead of saying EAGAIN.
 *
 * A service thread per connection does what cannot wait for the client's
 * own thread (serve()); it does not wake for frames.
 *
 * A process forked from the one that holds the rings (each has one
 * writer) keeps the fd but not the rings.  If it uses the connection, it
 * takes the rings over once the holder has exited without touching them
 * since the fork: a client that daemonizes (wl-copy) goes on in its
 * child.  Otherwise its sends and receives fail with EPIPE, and it says
 * why once.  The default mode's relay process serves both.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "frame-trace.h"
#include "in-process.h"
#include "log.h"
#include "relay.h"
#include "zero-copy-internal.h"

/* How long a forked child that uses the connection waits for the
 * process that holds it to exit: a daemon's parent does at once. */
#define TAKEOVER_WAIT_MS 2000

struct in_conn {
	int fd;			/* the client's, the epoll set; -1: closed */
	int client_end;		/* the socketpair's end the client uses */
	int timer_fd;
	bool timer_armed;
	struct relay *relay;	/* NULL once the connection is over */
	pthread_mutex_t lock;	/* for all of the above but fd */
	bool forked;		/* a forked child's copy: no rings */
	int owner_fd;		/* pidfd of the process that holds the rings */
	bool shared;		/* it forked since: a child may go on */
	/* the service thread (serve) */
	int kick_fd;		/* eventfd: it looks again at what to wait on */
	bool closed;		/* it ends */
	bool serving_pipes;	/* it waits on the relay's wait fd too */
	struct in_conn *next;
};

/*
 * Closed connections stay on the list (fd -1): a thread may still wait
 * on one without its lock (wait_relay), so it is never freed.
 */
static struct {
	pthread_mutex_t lock;		/* the list; before any conn's */
	struct in_conn *conns;
	int open;			/* read without the lock */
	pthread_once_t handlers;
} in_proc = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.handlers = PTHREAD_ONCE_INIT,
};

__thread bool ivwl_in_relay;

/*
 * True on the thread that forks, from our prepare handler to our parent
 * or child one, while it holds every lock here: other handlers run in
 * between (zero-copy's child handler closes sockets), whose calls into
 * the shim must not wait for those locks.
 */
static __thread bool forking;

bool
ivwl_in_process_enabled(void)
{
	static int mode = -1;
	const char *v;

	if (mode >= 0)
		return mode;
	v = getenv("IVWL_IN_PROCESS");
	if (!v || !*v || strcmp(v, "off") == 0) {
		mode = 0;
	} else if (strcmp(v, "on") == 0) {
		mode = 1;
	} else {
		ivwl_log("IVWL_IN_PROCESS=%s is not on or off; using off", v);
		mode = 0;
	}
	return mode;
}

/* ---- fork ------------------------------------------------------------ */

static void
fork_prepare(void)
{
	struct in_conn *c;

	pthread_mutex_lock(&in_proc.lock);
	for (c = in_proc.conns; c; c = c->next)
		pthread_mutex_lock(&c->lock);
	forking = true;
}

/* The parent holds the rings still, and shares them with a child. */
static void
after_fork(bool child)
{
	struct in_conn *c;

	for (c = in_proc.conns; c; c = c->next) {
		if (child)
			c->forked = true;
		else
			c->shared = true;
		pthread_mutex_unlock(&c->lock);
	}
	pthread_mutex_unlock(&in_proc.lock);
	forking = false;
}

static void
fork_parent(void)
{
	after_fork(false);
}

static void
fork_child(void)
{
	after_fork(true);
}

static void
install_handlers(void)
{
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}

/* ---- the relay ------------------------------------------------------- */

/*
 * With the list's lock taken, fd's connection, or NULL without it (no
 * lookup at all while none is open, or on the thread that forks).
 */
static struct in_conn *
lookup(int fd)
{
	struct in_conn *c;

	if (fd < 0 || forking ||
	    __atomic_load_n(&in_proc.open, __ATOMIC_ACQUIRE) == 0)
		return NULL;
	pthread_mutex_lock(&in_proc.lock);
	for (c = in_proc.conns; c && c->fd != fd; c = c->next)
		;
	if (!c)
		pthread_mutex_unlock(&in_proc.lock);
	return c;
}

/* c's lock held: fd's connection, or NULL. */
static struct in_conn *
find_locked(int fd)
{
	struct in_conn *c = lookup(fd);

	if (c) {
		pthread_mutex_lock(&c->lock);
		pthread_mutex_unlock(&in_proc.lock);
	}
	return c;
}

static void
arm_timer(struct in_conn *c)
{
	struct itimerspec t = { 0 };
	int ms = ivwl_relay_timeout_ms(c->relay);

	if (ms < 0 && !c->timer_armed)
		return;
	if (ms >= 0) {
		if (ms == 0)
			ms = 1;
		t.it_value.tv_sec = ms / 1000;
		t.it_value.tv_nsec = (long)(ms % 1000) * 1000000L;
	}
	timerfd_settime(c->timer_fd, 0, &t, NULL);
	c->timer_armed = ms >= 0;
}

static void
end_connection(struct in_conn *c)
{
	ivwl_in_relay = true;
	if (!ivwl_relay_end(c->relay))
		ivwl_log_debug("zero-copy memory the client still draws in "
			       "stays allocated until it exits");
	ivwl_in_relay = false;
	c->relay = NULL;
	if (c->timer_armed) {
		struct itimerspec off = { 0 };

		timerfd_settime(c->timer_fd, 0, &off, NULL);
		c->timer_armed = false;
	}
}

/* The client closed the connection: what is left of it. */
static void
close_fds(struct in_conn *c)
{
	REAL(close, close_func_t)(c->client_end);
	REAL(close, close_func_t)(c->timer_fd);
	REAL(close, close_func_t)(c->kick_fd);
	if (c->owner_fd >= 0)
		REAL(close, close_func_t)(c->owner_fd);
	c->client_end = c->timer_fd = c->kick_fd = c->owner_fd = -1;
}

static void
kick_service(struct in_conn *c)
{
	uint64_t one = 1;

	if (write(c->kick_fd, &one, sizeof(one)) < 0)
		ivwl_log_debug("in-process: the service thread was not woken");
}

/* c's lock held.  0, or -EPIPE once the connection is over. */
static int
step(struct in_conn *c)
{
	uint64_t ticks;
	int ret;

	if (!c->relay)
		return -EPIPE;
	if (c->timer_armed &&
	    read(c->timer_fd, &ticks, sizeof(ticks)) == sizeof(ticks))
		c->timer_armed = false;
	ivwl_in_relay = true;
	ret = ivwl_relay_step(c->relay);
	ivwl_in_relay = false;
	if (ret < 0) {
		end_connection(c);
		kick_service(c);
		return -EPIPE;
	}
	arm_timer(c);
	/* A pipe opened: the thread serves it while the client blocks. */
	if (!c->serving_pipes && ivwl_relay_has_pipes(c->relay))
		kick_service(c);
	return 0;
}

/*
 * The connection's service thread: what cannot wait for the client's
 * own thread, which may be blocked on something the relay has to do
 * first.  Another process of the app asks for a grant (chromium's GPU
 * process, a helper the client waits for); the client writes a copy into
 * a pipe, or reads a paste from one, until it is done.  It sleeps on the
 * zero-copy sockets alone, and on the relay's wait fd while pipes are
 * open: it does not wake for frames.
 */
static void *
serve(void *data)
{
	struct in_conn *c = data;
	struct pollfd pfd[4];
	uint64_t v;
	bool pipes;

	pthread_mutex_lock(&c->lock);
	while (!c->closed && !c->forked && c->relay) {
		pipes = ivwl_relay_has_pipes(c->relay);
		c->serving_pipes = pipes;
		pfd[0] = (struct pollfd){ .fd = c->kick_fd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = ivwl_relay_zc_wait_fd(c->relay),
					  .events = POLLIN };
		pfd[2] = (struct pollfd){ .fd = pipes ?
					  ivwl_relay_wait_fd(c->relay) : -1,
					  .events = POLLIN };
		pfd[3] = (struct pollfd){ .fd = pipes ? c->timer_fd : -1,
					  .events = POLLIN };
		pthread_mutex_unlock(&c->lock);
		while (poll(pfd, 4, -1) < 0 && errno == EINTR)
			;
		pthread_mutex_lock(&c->lock);
		if (pfd[0].revents &&
		    read(c->kick_fd, &v, sizeof(v)) != sizeof(v))
			v = 0;
		if (c->closed || c->forked || !c->relay)
			break;
		if (pfd[1].revents) {
			ivwl_in_relay = true;
			ivwl_relay_serve_zc(c->relay);
			ivwl_in_relay = false;
		}
		if (pfd[2].revents || pfd[3].revents)
			step(c);
	}
	c->serving_pipes = false;
	if (c->closed)
		close_fds(c);
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

static int
own_pidfd(void)
{
	return (int)syscall(SYS_pidfd_open, getpid(), 0);
}

/* Its signals are the app's threads' to take. */
static int
start_service(struct in_conn *c)
{
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t thread;
	int ret;

	sigfillset(&all);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = -pthread_create(&thread, &attr, serve, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	return ret;
}

/*
 * c's lock held, and dropped meanwhile: until the relay has work or the
 * client's end has what events (POLLIN, POLLOUT) ask for.
 */
static void
wait_relay(struct in_conn *c, short events)
{
	struct pollfd pfd[3] = {
		{ .fd = c->client_end, .events = events },
		{ .fd = ivwl_relay_wait_fd(c->relay), .events = POLLIN },
		{ .fd = c->timer_fd, .events = POLLIN },
	};

	pthread_mutex_unlock(&c->lock);
	while (poll(pfd, 3, -1) < 0 && errno == EINTR)
		;
	pthread_mutex_lock(&c->lock);
}

/*
 * c's lock held, in a forked child refused the connection: its fd
 * becomes a socket whose peer is gone, which libwayland's poll() sees
 * end.  The epoll set is the parent's too and stays as it is.
 */
static void
let_go(struct in_conn *c)
{
	int sv[2], fdflags = fcntl(c->fd, F_GETFD);

	if (fdflags >= 0 &&
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0) {
		REAL(close, close_func_t)(sv[1]);
		dup3(sv[0], c->fd, (fdflags & FD_CLOEXEC) ? O_CLOEXEC : 0);
		REAL(close, close_func_t)(sv[0]);
	}
	/* no longer ours: calls on it go to that socket */
	__atomic_store_n(&c->fd, -1, __ATOMIC_RELEASE);
	__atomic_sub_fetch(&in_proc.open, 1, __ATOMIC_RELEASE);
}

/*
 * c's lock held: a forked child uses the connection.  It goes on with
 * the rings if the process that held them exited without touching them
 * since the fork.  0, or -1 with errno EPIPE, said once.
 */
static int
claim(struct in_conn *c)
{
	struct pollfd pfd = { .fd = c->owner_fd, .events = POLLIN };
	const char *why = NULL;
	int self;

	if (!c->relay)
		why = "the connection is over";
	else if (c->owner_fd < 0)
		why = "this kernel has no pidfd to see its holder exit";
	else if (poll(&pfd, 1, TAKEOVER_WAIT_MS) <= 0)
		why = "the process that holds it still runs";
	else if (!ivwl_relay_rings_untouched(c->relay))
		why = "the process that held it used it after the fork";
	else if ((self = own_pidfd()) < 0)
		why = "no pidfd for this process";
	if (why) {
		ivwl_log("a forked process cannot use its parent's connection "
			 "to the display in in-process mode (IVWL_IN_PROCESS=on): "
			 "%s", why);
		let_go(c);
		errno = EPIPE;
		return -1;
	}
	REAL(close, close_func_t)(c->owner_fd);
	c->owner_fd = self;
	ivwl_relay_take_over(c->relay);
	c->forked = false;
	c->shared = false;
	if (start_service(c) < 0)
		ivwl_log("in-process: no service thread for the connection: "
			 "pipes and other processes' grants wait for its "
			 "thread");
	ivwl_log_debug("in-process: this process goes on with the "
		       "connection its parent left");
	return 0;
}

bool
ivwl_in_process_sendmsg(int fd, const struct msghdr *msg, int flags,
			ssize_t *ret)
{
	struct in_conn *c = find_locked(fd);
	ssize_t n;
	int err;

	if (!c)
		return false;
	if (c->forked && claim(c) < 0) {
		pthread_mutex_unlock(&c->lock);
		*ret = -1;
		return true;
	}
	for (;;) {
		n = REAL(sendmsg, sendmsg_func_t)(c->client_end, msg,
						  flags | MSG_DONTWAIT |
						  MSG_NOSIGNAL);
		err = errno;
		if (n >= 0 || err != EAGAIN || !c->relay)
			break;
		/* Full: what the relay takes makes room. */
		ivwl_relay_client_wrote(c->relay);
		if (step(c) == 0)
			wait_relay(c, POLLOUT);
	}
	if (n > 0 && c->relay) {
		ivwl_relay_client_wrote(c->relay);
		step(c);
	}
	pthread_mutex_unlock(&c->lock);
	errno = err;
	*ret = n;
	return true;
}

bool
ivwl_in_process_recvmsg(int fd, struct msghdr *msg, int flags,
			ssize_t *ret)
{
	struct in_conn *c = find_locked(fd);
	bool nonblock;
	ssize_t n;
	int err;

	if (!c)
		return false;
	if (c->forked && claim(c) < 0) {
		pthread_mutex_unlock(&c->lock);
		*ret = -1;
		return true;
	}
	nonblock = (flags & MSG_DONTWAIT) ||
		   (fcntl(fd, F_GETFL) & O_NONBLOCK);
	for (;;) {
		step(c);
		n = REAL(recvmsg, recvmsg_func_t)(c->client_end, msg,
						  flags | MSG_DONTWAIT);
		err = errno;
		if (n >= 0 || err != EAGAIN || nonblock || !c->relay)
			break;
		wait_relay(c, POLLIN);
	}
	pthread_mutex_unlock(&c->lock);
	errno = err;
	*ret = n;
	return true;
}

void
ivwl_in_process_close(int fd)
{
	struct in_conn *c = lookup(fd);

	if (!c)
		return;
	c->fd = -1;
	__atomic_sub_fetch(&in_proc.open, 1, __ATOMIC_RELEASE);
	pthread_mutex_lock(&c->lock);
	pthread_mutex_unlock(&in_proc.lock);
	/* A forked child's copy ends nothing: the parent holds the slot. */
	if (c->relay && !c->forked)
		end_connection(c);
	c->closed = true;
	/* A forked child has no service thread; otherwise the fds close
	 * once that thread has let go of them (it may poll them now). */
	if (c->forked)
		close_fds(c);
	else
		kick_service(c);
	pthread_mutex_unlock(&c->lock);
}

/*
 * The process exits: its connections end as a relay process sees them
 * end when their socket closes (the slot goes back to the agent, the
 * IVWL_STATS line is said).  One another thread holds, or one this
 * process forked with (a child may go on with it), is left to the
 * kernel's closing of its fds.
 */
__attribute__((destructor)) static void
end_at_exit(void)
{
	struct in_conn *c;

	if (__atomic_load_n(&in_proc.open, __ATOMIC_ACQUIRE) == 0 ||
	    pthread_mutex_trylock(&in_proc.lock) != 0)
		return;
	for (c = in_proc.conns; c; c = c->next) {
		if (c->fd < 0 || pthread_mutex_trylock(&c->lock) != 0)
			continue;
		/* A child may go on with one this process forked with. */
		if (c->relay && !c->forked && !c->shared)
			end_connection(c);
		pthread_mutex_unlock(&c->lock);
	}
	pthread_mutex_unlock(&in_proc.lock);
}

/* ---- connecting ------------------------------------------------------ */

/* The epoll set that takes fd's place; 0 or -errno. */
static int
become_set(struct in_conn *c, int fd)
{
	int members[3] = {
		c->client_end, ivwl_relay_wait_fd(c->relay), c->timer_fd,
	};
	struct epoll_event ev = { .events = EPOLLIN };
	int fdflags = fcntl(fd, F_GETFD), ep, i, ret = 0;

	if (fdflags < 0)
		return -errno;
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		return -errno;
	for (i = 0; i < 3 && ret == 0; i++)
		if (epoll_ctl(ep, EPOLL_CTL_ADD, members[i], &ev) < 0)
			ret = -errno;
	if (ret == 0 &&
	    dup3(ep, fd, (fdflags & FD_CLOEXEC) ? O_CLOEXEC : 0) < 0)
		ret = -errno;
	REAL(close, close_func_t)(ep);
	return ret;
}

int
ivwl_in_process_connect(int fd, int zc_end)
{
	struct in_conn *c;
	int sv[2] = { -1, -1 }, ret;

	c = calloc(1, sizeof(*c));
	if (!c) {
		ret = -ENOMEM;
		goto err_zc;
	}
	c->timer_fd = timerfd_create(CLOCK_MONOTONIC,
				     TFD_CLOEXEC | TFD_NONBLOCK);
	c->kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	c->owner_fd = own_pidfd();
	if (c->timer_fd < 0 || c->kick_fd < 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		       0, sv) < 0) {
		ret = -errno;
		goto err_conn;
	}
	ivwl_trace_set_name("ivwl-shim");
	ivwl_in_relay = true;
	ret = ivwl_relay_open(sv[1], zc_end, IVWL_RELAY_IN_PROCESS,
			      &c->relay);
	ivwl_in_relay = false;
	if (ret < 0)
		goto err_conn;
	/* Both taken by the relay. */
	sv[1] = zc_end = -1;
	c->client_end = sv[0];
	ret = become_set(c, fd);
	if (ret < 0)
		goto err_relay;
	pthread_mutex_init(&c->lock, NULL);
	ret = start_service(c);
	if (ret < 0)
		goto err_relay;
	pthread_once(&in_proc.handlers, install_handlers);
	c->fd = fd;
	pthread_mutex_lock(&in_proc.lock);
	c->next = in_proc.conns;
	in_proc.conns = c;
	__atomic_add_fetch(&in_proc.open, 1, __ATOMIC_RELEASE);
	pthread_mutex_lock(&c->lock);
	pthread_mutex_unlock(&in_proc.lock);
	/* Asleep from the start: the display rings for its first events. */
	step(c);
	pthread_mutex_unlock(&c->lock);
	ivwl_log_debug("in-process: this process relays its connection");
	return 0;

err_relay:
	end_connection(c);
err_conn:
	if (sv[0] >= 0)
		REAL(close, close_func_t)(sv[0]);
	if (sv[1] >= 0)
		REAL(close, close_func_t)(sv[1]);
	if (c->timer_fd >= 0)
		REAL(close, close_func_t)(c->timer_fd);
	if (c->kick_fd >= 0)
		REAL(close, close_func_t)(c->kick_fd);
	if (c->owner_fd >= 0)
		REAL(close, close_func_t)(c->owner_fd);
	free(c);
err_zc:
	if (zc_end >= 0)
		REAL(close, close_func_t)(zc_end);
	return ret;
}
