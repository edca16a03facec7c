/* SPDX-License-Identifier: MIT */
/*
 * Grants for the app's processes.  The process that connected asks on a
 * socketpair made at connect (the primary channel); any process of the
 * same app may connect to the listening socket and ask as well: chromium
 * draws in its GPU process and sends the files from its browser process.
 * "The same app" is what the kernel vouches for: the peer's uid is ours
 * and the peer descends from the process that connected.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "agent-client.h"
#include "fdmsg.h"
#include "buffers.h"
#include "device.h"
#include "fd-flags.h"
#include "proc.h"
#include "relay-wait.h"
#include "relay-zc.h"
#include "log.h"

/* A process tree deeper than this is not worth walking. */
#define MAX_ANCESTRY 64

static bool
descends_from(pid_t pid, pid_t ancestor)
{
	int depth;

	for (depth = 0; depth < MAX_ANCESTRY && pid > 1; depth++) {
		if (pid == ancestor)
			return true;
		pid = ivwl_proc_parent(pid);
	}
	return false;
}

/* In the relay's wait set under its index; false if the set refused. */
static bool
watch(struct ivwl_relay_zc *zc, int fd, uint32_t index)
{
	int ret = ivwl_relay_wait_add(zc->wait, fd, EPOLLIN,
				      IVWL_RELAY_WAIT_TAG(IVWL_RELAY_WAIT_ZC,
							  index));

	if (ret < 0)
		ivwl_log("zero-copy: the relay cannot wait on a "
			      "socket: %s", strerror(-ret));
	return ret == 0;
}

static void
start_listening(struct ivwl_relay_zc *zc)
{
	struct sockaddr_un addr;
	socklen_t len = ivwl_zc_relay_address(zc->client_pid, &addr);
	int fd;

	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return;
	/* Taken: another connection of the same process serves its app. */
	if (bind(fd, (struct sockaddr *)&addr, len) < 0 || listen(fd, 8) < 0) {
		ivwl_log_debug("zero-copy: not listening for the app's "
				"other processes: %s", strerror(errno));
		close(fd);
		return;
	}
	if (!watch(zc, fd, IVWL_RELAY_ZC_LISTEN)) {
		close(fd);
		return;
	}
	zc->listen_fd = fd;
	zc->listen_ready = true;
}

void
ivwl_relay_zc_init(struct ivwl_relay_zc *zc, struct ivwl_buffers *buffers,
		   const struct ivwl_endpoint *ep,
		   struct ivwl_relay_wait *wait)
{
	int i;

	memset(zc, 0, sizeof(*zc));
	zc->buffers = buffers;
	zc->ep = ep;
	zc->wait = wait;
	zc->listen_fd = -1;
	zc->next_owner = 1;
	for (i = 0; i < IVWL_ZC_MAX_CHANNELS; i++)
		zc->chans[i].fd = -1;
}

void
ivwl_relay_zc_start(struct ivwl_relay_zc *zc, int primary_fd,
		    int client_sock)
{
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	int ret = ivwl_fd_set_nonblock(primary_fd, true);

	/* pump_chan() reads until EAGAIN: a blocking socket would hang the
	 * relay.  Not served: the app's requests fail and it copies
	 * instead. */
	if (ret < 0) {
		ivwl_log("zero-copy: the relay cannot make its socket "
			      "non-blocking: %s",
			      strerror(-ret));
		close(primary_fd);
		return;
	}
	if (!watch(zc, primary_fd, 0)) {
		close(primary_fd);
		return;
	}
	zc->chans[0] = (struct ivwl_relay_zc_chan){ .fd = primary_fd,
						    .ready = true };
	if (getsockopt(client_sock, SOL_SOCKET, SO_PEERCRED, &cred,
		       &clen) == 0 && cred.pid > 1) {
		zc->client_pid = cred.pid;
		zc->chans[0].pid = cred.pid;
		start_listening(zc);
	}
}

/* ---- requests --------------------------------------------------------- */

/* The request names the file it carries: no naming files one lacks. */
static bool
file_matches(int file_fd, const struct ivwl_zc_msg *m)
{
	struct stat st;

	return file_fd >= 0 && fstat(file_fd, &st) == 0 &&
	       S_ISREG(st.st_mode) && (uint64_t)st.st_dev == m->dev &&
	       (uint64_t)st.st_ino == m->ino;
}

/*
 * A process other than the one that connected offers files before anyone
 * knows they become buffers.  Bounded per process, tighter for one none
 * of whose files has become a buffer yet (chromium's renderers, without
 * their sandbox, send files to the GPU process only), and per relay.
 * Together they hold at most half the heap: a file sent is not always
 * shown (Xwayland makes a wl_buffer of every pixmap, an application's
 * offscreen ones too), and the rest stays for copy mode.
 */
static int
check_offer(struct ivwl_relay_zc *zc, const struct ivwl_relay_zc_chan *ch,
	    const struct ivwl_zc_msg *m, int file_fd)
{
	uint64_t mine, all, half = zc->buffers->grants.max_size / 2, held;
	bool proven, any;

	if (!file_matches(file_fd, m))
		return -EBADF;
	if (ch->owner == 0)
		return 0;
	mine = ivwl_grants_unclaimed(&zc->buffers->grants, ch->owner, &proven);
	all = ivwl_grants_unclaimed(&zc->buffers->grants,
				    IVWL_GRANTS_ANY_OWNER, &any);
	/* Sizes are the peer's: no sum that could wrap. */
	if (m->size > (proven ? IVWL_ZC_UNCLAIMED_MAX :
				IVWL_ZC_UNPROVEN_MAX) - mine ||
	    m->size > IVWL_ZC_UNCLAIMED_APP_MAX - all)
		return -EDQUOT;
	held = ivwl_grants_held_by_others(&zc->buffers->grants);
	if (held >= half || m->size > half - held)
		return -EDQUOT;
	return 0;
}

static int
grant(struct ivwl_relay_zc *zc, const struct ivwl_relay_zc_chan *ch,
      struct ivwl_zc_msg *m, int file_fd, int *grant_fd)
{
	struct ivwl_extent range = { 0, 0 };
	int ret;

	m->flags = 0;
	ret = check_offer(zc, ch, m, file_fd);
	if (ret == 0)
		ret = ivwl_grants_offer(&zc->buffers->grants, ch->owner, m->dev,
					m->ino, m->size, &range);
	m->offset = range.offset;
	m->length = range.length;
	/* With the guest driver the client maps its own pixels and
	 * nothing else of the region. */
	if (ret == 0)
		*grant_fd = ivwl_endpoint_export_range(zc->ep, range.offset,
						       range.length);
	if (*grant_fd >= 0)
		m->flags = IVWL_ZC_GRANT_FD;
	ivwl_log_debug("zero-copy offer of %llu bytes from pid %d: %s",
			(unsigned long long)m->size, (int)ch->pid,
			ret < 0 ? strerror(-ret) : "granted");
	return ret;
}

/* Same-app processes only, so this bounds bookkeeping, not an attack. */
#define MAX_FOLLOWS 4096

static int
follow(struct ivwl_relay_zc *zc, struct ivwl_relay_zc_chan *ch,
       struct ivwl_zc_msg *m, int file_fd, int *grant_fd)
{
	struct ivwl_extent range = { 0, 0 };
	int ret;

	m->flags = 0;
	if (!file_matches(file_fd, m))
		return -EBADF;
	if (ch->nfollows == ch->follows_cap) {
		uint32_t cap = ch->follows_cap ? 2 * ch->follows_cap : 8;
		struct ivwl_relay_zc_follow *n;

		if (cap > MAX_FOLLOWS)
			return -EDQUOT;
		n = realloc(ch->follows, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		ch->follows = n;
		ch->follows_cap = cap;
	}
	ret = ivwl_grants_follow(&zc->buffers->grants, m->dev, m->ino, &range);
	if (ret < 0)
		return ret;
	ch->follows[ch->nfollows++] = (struct ivwl_relay_zc_follow){
		m->dev, m->ino };
	m->offset = range.offset;
	m->length = range.length;
	*grant_fd = ivwl_endpoint_export_range(zc->ep, range.offset,
					       range.length);
	if (*grant_fd >= 0)
		m->flags = IVWL_ZC_GRANT_FD;
	ivwl_log_debug("zero-copy: pid %d maps grant %#llx of another "
			"process", (int)ch->pid,
			(unsigned long long)range.offset);
	return 0;
}

static int
unfollow(struct ivwl_relay_zc *zc, struct ivwl_relay_zc_chan *ch,
	 const struct ivwl_zc_msg *m)
{
	uint32_t i;

	for (i = 0; i < ch->nfollows; i++) {
		if (ch->follows[i].dev != m->dev ||
		    ch->follows[i].ino != m->ino)
			continue;
		ch->follows[i] = ch->follows[--ch->nfollows];
		ivwl_grants_unfollow(&zc->buffers->grants, m->dev, m->ino);
		return 0;
	}
	return -ENOENT;
}

/* Serves one request; false when its reply could not be sent. */
static bool
handle(struct ivwl_relay_zc *zc, struct ivwl_relay_zc_chan *ch,
       struct ivwl_zc_msg *m, int file_fd)
{
	int fd = zc->ep->region_fd, grant_fd = -1, ret;
	bool fd_out = false;

	switch (m->op) {
	case IVWL_ZC_OFFER:
	case IVWL_ZC_FOLLOW:
		m->status = m->op == IVWL_ZC_OFFER ?
			    grant(zc, ch, m, file_fd, &grant_fd) :
			    follow(zc, ch, m, file_fd, &grant_fd);
		if (grant_fd >= 0)
			fd = grant_fd;
		fd_out = m->status == 0;
		break;
	case IVWL_ZC_UNFOLLOW:
		m->status = unfollow(zc, ch, m);
		break;
	case IVWL_ZC_REVERT:
		m->status = ivwl_buffers_revert(zc->buffers, ch->owner, m->dev,
						m->ino,
						m->flags & IVWL_ZC_COPIED_BACK,
						m->flags & IVWL_ZC_GONE);
		break;
	default:
		m->status = -EINVAL;
		break;
	}
	ret = ivwl_fdmsg_send_whole(ch->fd, m, sizeof(*m), &fd, fd_out);
	if (grant_fd >= 0)
		close(grant_fd);
	if (ret < 0)
		ivwl_log_debug("zero-copy: pid %d: no reply sent (%s)",
				(int)ch->pid, strerror(-ret));
	return ret == 0;
}

static void
chan_close(struct ivwl_relay_zc *zc, struct ivwl_relay_zc_chan *ch)
{
	uint32_t i;

	ivwl_relay_wait_del(zc->wait, ch->fd);
	close(ch->fd);
	ch->fd = -1;
	ch->ready = false;
	for (i = 0; i < ch->nfollows; i++)
		ivwl_grants_unfollow(&zc->buffers->grants, ch->follows[i].dev,
				     ch->follows[i].ino);
	free(ch->follows);
	ch->follows = NULL;
	ch->nfollows = ch->follows_cap = 0;
	ivwl_grants_owner_gone(&zc->buffers->grants, ch->owner);
}

static void
pump_chan(struct ivwl_relay_zc *zc, struct ivwl_relay_zc_chan *ch)
{
	struct ivwl_zc_msg m;
	int fds[4], nfds, n, i;

	while (ch->fd >= 0 && ch->ready) {
		n = ivwl_fdmsg_recv_whole(ch->fd, &m, sizeof(m), fds, 4,
					  &nfds);
		if (n == -EAGAIN) {
			ch->ready = false;
		} else if (n <= 0 || nfds > 1 ||
			   !handle(zc, ch, &m, nfds == 1 ? fds[0] : -1)) {
			/* Gone, a malformed message, or the reply did not
			 * go out (the app would wait for it in vain): not
			 * served again. */
			chan_close(zc, ch);
		}
		for (i = 0; i < nfds; i++)
			close(fds[i]);
	}
}

/* ---- the app's other processes ---------------------------------------- */

static struct ivwl_relay_zc_chan *
free_chan(struct ivwl_relay_zc *zc)
{
	int i;

	for (i = 1; i < IVWL_ZC_MAX_CHANNELS; i++)
		if (zc->chans[i].fd < 0)
			return &zc->chans[i];
	return NULL;
}

static void
accept_one(struct ivwl_relay_zc *zc, int fd)
{
	struct ivwl_relay_zc_chan *ch;
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	const char *why = NULL;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) < 0)
		why = "no credentials";
	else if (cred.uid != geteuid())
		why = "another user";
	else if (!descends_from(cred.pid, zc->client_pid))
		why = "not a process of this app";
	else if (!(ch = free_chan(zc)))
		why = "too many processes";
	else if (!watch(zc, fd, (uint32_t)(ch - zc->chans)))
		why = "the relay cannot wait on it";
	if (why) {
		ivwl_log_debug("zero-copy: refused pid %d: %s",
				(int)cred.pid, why);
		close(fd);
		return;
	}
	*ch = (struct ivwl_relay_zc_chan){
		.fd = fd,
		.ready = true,
		.owner = zc->next_owner++,
		.pid = cred.pid,
	};
	ivwl_log_debug("zero-copy: pid %d of this app asks for grants",
			(int)cred.pid);
}

static void
pump_listen(struct ivwl_relay_zc *zc)
{
	int fd;

	while (zc->listen_fd >= 0 && zc->listen_ready) {
		fd = accept4(zc->listen_fd, NULL, NULL,
			     SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0) {
			if (errno != EINTR)
				zc->listen_ready = false;
			continue;
		}
		accept_one(zc, fd);
	}
}

/* ---- the relay's loop -------------------------------------------------- */

void
ivwl_relay_zc_all_ready(struct ivwl_relay_zc *zc)
{
	int i;

	zc->listen_ready = zc->listen_fd >= 0;
	for (i = 0; i < IVWL_ZC_MAX_CHANNELS; i++)
		zc->chans[i].ready = zc->chans[i].fd >= 0;
}

void
ivwl_relay_zc_none_ready(struct ivwl_relay_zc *zc)
{
	int i;

	zc->listen_ready = false;
	for (i = 0; i < IVWL_ZC_MAX_CHANNELS; i++)
		zc->chans[i].ready = false;
}

bool
ivwl_relay_zc_any_ready(const struct ivwl_relay_zc *zc)
{
	int i;

	for (i = 0; i < IVWL_ZC_MAX_CHANNELS; i++)
		if (zc->chans[i].ready)
			return true;
	return zc->listen_ready;
}

void
ivwl_relay_zc_woken(struct ivwl_relay_zc *zc, uint32_t index)
{
	if (index == IVWL_RELAY_ZC_LISTEN)
		zc->listen_ready = zc->listen_fd >= 0;
	else if (index < IVWL_ZC_MAX_CHANNELS)
		zc->chans[index].ready = zc->chans[index].fd >= 0;
}

void
ivwl_relay_zc_pump(struct ivwl_relay_zc *zc)
{
	int i;

	pump_listen(zc);
	for (i = 0; i < IVWL_ZC_MAX_CHANNELS; i++)
		pump_chan(zc, &zc->chans[i]);
}

/* ---- after the connection ---------------------------------------------- */

/*
 * The relay no longer waits on its set (the doorbell in it would ring
 * unheard): the lingering polls the channels alone.  at[k] is pfd[k]'s.
 */
static int
linger_pollfds(const struct ivwl_relay_zc *zc, struct pollfd *pfd, int *at)
{
	int i, n = 0;

	for (i = 0; i < IVWL_ZC_MAX_CHANNELS; i++) {
		if (zc->chans[i].fd < 0)
			continue;
		pfd[n] = (struct pollfd){ .fd = zc->chans[i].fd,
					  .events = POLLIN };
		at[n++] = i;
	}
	return n;
}

static bool
any_chan(const struct ivwl_relay_zc *zc)
{
	int i;

	for (i = 0; i < IVWL_ZC_MAX_CHANNELS; i++)
		if (zc->chans[i].fd >= 0)
			return true;
	return false;
}

void
ivwl_relay_zc_linger(struct ivwl_relay_zc *zc)
{
	struct pollfd pfd[IVWL_ZC_MAX_CHANNELS];
	int at[IVWL_ZC_MAX_CHANNELS], n, k;

	if (zc->listen_fd >= 0) {
		ivwl_relay_wait_del(zc->wait, zc->listen_fd);
		close(zc->listen_fd);
		zc->listen_fd = -1;
	}
	if (ivwl_grants_client_maps(&zc->buffers->grants))
		ivwl_log_debug("the client still maps zero-copy memory: "
				"keeping it until it lets go");
	while (ivwl_grants_client_maps(&zc->buffers->grants) && any_chan(zc)) {
		n = linger_pollfds(zc, pfd, at);
		if (poll(pfd, (nfds_t)n, -1) < 0) {
			if (errno != EINTR)
				break;
			continue;
		}
		for (k = 0; k < n; k++)
			zc->chans[at[k]].ready = pfd[k].revents != 0;
		ivwl_relay_zc_pump(zc);
	}
}

void
ivwl_relay_zc_close(struct ivwl_relay_zc *zc)
{
	int i;

	ivwl_relay_wait_del(zc->wait, zc->listen_fd);
	if (zc->listen_fd >= 0)
		close(zc->listen_fd);
	zc->listen_fd = -1;
	for (i = 0; i < IVWL_ZC_MAX_CHANNELS; i++) {
		ivwl_relay_wait_del(zc->wait, zc->chans[i].fd);
		if (zc->chans[i].fd >= 0)
			close(zc->chans[i].fd);
		zc->chans[i].fd = -1;
		free(zc->chans[i].follows);
		zc->chans[i].follows = NULL;
	}
}
