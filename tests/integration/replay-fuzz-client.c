/* SPDX-License-Identifier: MIT */
/*
 * ivwl-replay-fuzz-client: a plain Wayland client (no ivwl code) that
 * builds and keeps changing a random but valid object graph, so that a
 * compositor restart finds the relay's replay model (relay/replay/replay.c)
 * in any state a real client can leave it in.
 *
 *   ivwl-replay-fuzz-client --seed N [--windows K] [--seconds S]
 *                           [--pad-ids M]
 *
 * K anchor toplevels titled "fuzz-N-a<k>" (the title may gain " ~<j>")
 * live as long as the process; toplevels "fuzz-N-e<j>" come and go.  Each
 * window gets nested subsurfaces (sync or desync, moved), viewports,
 * buffer transforms and scales, opaque and input regions (the region
 * destroyed once set), stacks of popups, min/max sizes, maximize
 * toggles.  Buffers come from wl_shm pools that are often destroyed right
 * after the buffer is made, in ARGB8888 or XRGB8888, each filled with a
 * pattern of (surface id, frame) (see pattern()).  With a seat it offers
 * selections and pastes them.  Some request sequences are cut in two by a
 * flush and a short sleep, so a restart can fall between pending state
 * and its commit.
 *
 * It acts every few milliseconds, but only once the display answered the
 * previous round (a wl_display.sync), so it never floods a display that
 * went away.  It answers what a restart brings: configures at any time,
 * popup_done, releases, frame callbacks, outputs leaving and coming,
 * focus leaving.  Those a restart shows are logged on stderr as
 * "fuzz-client: <event>".  It prints "ready" once its anchors are mapped.
 * A wl_display error ends it with status 2 (a protocol error: interface,
 * code, message) or 3 (the connection lost).  SIGTERM, or the end of
 * --seconds, prints a "summary" line and exits 0.
 *
 * --pad-ids M: once its anchors are mapped, it sends syncs until its
 * highest id is M - 1, prints "padded" and then makes no id any more
 * (configures are only acked), so a restart replays exactly M ids.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "replay-fuzz.h"

struct fuzz_app app;

/* ---- helpers ---------------------------------------------------------- */

static uint32_t
rnd(void)
{
	app.rng ^= app.rng << 13;
	app.rng ^= app.rng >> 7;
	app.rng ^= app.rng << 17;
	return (uint32_t)(app.rng >> 32);
}

int
pick(int n)
{
	return n > 0 ? (int)(rnd() % (uint32_t)n) : 0;
}

bool
chance(int percent)
{
	return pick(100) < percent;
}

int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
say(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fuzz-client: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* libwayland's own complaints: the protocol error's message among them. */
static void
wayland_log(const char *fmt, va_list ap)
{
	vsnprintf(app.error, sizeof(app.error), fmt, ap);
	app.error[strcspn(app.error, "\n")] = 0;
	say("libwayland: %s", app.error);
}

static void
summary(void)
{
	char line[512];

	snprintf(line, sizeof(line), "summary seed=%u rounds=%lu commits=%lu "
		 "windows=%lu popups=%lu popup_done=%lu global_remove=%lu "
		 "globals=%lu releases=%lu configures=%lu presented=%lu "
		 "discarded=%lu cancelled=%lu leaves=%lu pasted=%lu",
		 app.seed, app.rounds, app.commits, app.windows, app.popups,
		 app.popup_done, app.global_remove, app.globals, app.releases,
		 app.configures, app.presented, app.discarded, app.cancelled,
		 app.leaves, app.pasted);
	printf("%s\n", line);
	say("%s", line);
}

static void
die_of_display(void)
{
	const struct wl_interface *iface = NULL;
	int err = wl_display_get_error(app.display);
	uint32_t id = 0, code;
	char line[800];

	if (err == EPROTO) {
		code = wl_display_get_protocol_error(app.display, &iface, &id);
		snprintf(line, sizeof(line), "protocol error: interface %s "
			 "id %u code %u: %s", iface ? iface->name : "?", id,
			 code, app.error);
	} else {
		snprintf(line, sizeof(line), "connection lost: %s",
			 strerror(err ? err : errno));
	}
	printf("%s\n", line);
	say("%s", line);
	summary();
	exit(err == EPROTO ? 2 : 3);
}

/* Cuts a request sequence in two: what is sent so far may be all the
 * display got when it goes. */
void
maybe_split(int percent)
{
	if (!chance(percent))
		return;
	wl_display_flush(app.display);
	usleep(1000 * (useconds_t)(1 + pick(12)));
}

/* ---- the loop --------------------------------------------------------- */

static struct win *
random_win(void)
{
	struct win *found[MAX_WINS];
	int i, n = 0;

	for (i = 0; i < MAX_WINS; i++)
		if (app.wins[i].used)
			found[n++] = &app.wins[i];
	return n ? found[pick(n)] : NULL;
}

static void
act(void)
{
	struct win *w = random_win();
	struct surf *s = random_surf(NULL, false);
	int k;

	if (!w || !s)
		return;
	switch (pick(20)) {
	case 0: case 1: case 2: case 3: case 4:
		draw(s, false);
		break;
	case 5: case 6:
		restyle(s);
		break;
	case 7:
		viewport(s);
		break;
	case 8: case 9:
		sub_add(w);
		break;
	case 10: case 11:
		sub_change(w);
		break;
	case 12: case 13:
		toplevel_change(w);
		break;
	case 14:
		popup_open(w);
		break;
	case 15:
		if (w->npops)
			popup_close_from(w, pick(w->npops));
		break;
	case 16:
		w = &app.wins[pick(MAX_WINS)];
		if (w->used && !w->anchor)
			win_destroy(w);
		else if (!w->used)
			win_new(false);
		break;
	case 17:
		k = pick(MAX_BUFS);
		if (s->bufs[k] && (!s->bufs[k]->base.busy || chance(20))) {
			buf_free(s->bufs[k]);
			s->bufs[k] = NULL;
		}
		break;
	case 18:
		clipboard();
		break;
	case 19:
		maybe_split(100);
		break;
	}
}

static void round_done(void *data, struct wl_callback *cb, uint32_t t);

static const struct wl_callback_listener round_listener = { round_done };

static void
round_done(void *data, struct wl_callback *cb, uint32_t t)
{
	wl_callback_destroy(cb);
	app.round = NULL;
}

static bool
anchors_mapped(void)
{
	int i;

	for (i = 0; i < MAX_WINS; i++)
		if (app.wins[i].used && app.wins[i].anchor &&
		    !app.wins[i].s->drawn)
			return false;
	return true;
}

static void
pad_done(void *data, struct wl_callback *cb, uint32_t t)
{
	wl_callback_destroy(cb);
}

static const struct wl_callback_listener pad_listener = { pad_done };

/*
 * --pad-ids: syncs sent at once, each taking a new id, until the highest
 * is pad_ids - 1; then nothing that makes an id, so that a restart
 * replays exactly that many ids (the relay syncs each on the new
 * display).  The ids come free again, the highest stays.
 */
static void
pad_ids(void)
{
	struct wl_callback *cb;
	uint32_t id = 0;

	while (id + 1 < app.pad_ids) {
		cb = wl_display_sync(app.display);
		wl_callback_add_listener(cb, &pad_listener, NULL);
		id = wl_proxy_get_id((struct wl_proxy *)cb);
	}
	if (id + 1 != app.pad_ids) {
		say("cannot pad: id %u is in use already", id);
		exit(1);
	}
	printf("padded\n");
	say("padded: highest id %u", id);
}

/* A round of actions, ended by a sync: the next waits for its done. */
static void
play_round(void)
{
	int i, n = 1 + pick(4);

	if (!app.ready) {
		if (!anchors_mapped())
			return;
		app.ready = true;
		printf("ready\n");
		say("ready");
		if (app.pad_ids)
			pad_ids();
	}
	if (app.pad_ids)
		return;
	for (i = 0; i < n; i++)
		act();
	app.rounds++;
	app.round = wl_display_sync(app.display);
	wl_callback_add_listener(app.round, &round_listener, NULL);
}

static int
signal_fd(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -1;
	return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

static void
run(int seconds)
{
	struct pollfd pfd[2 + MAX_PASTES];
	int64_t end = seconds ? now_ms() + seconds * 1000ll : 0, next = 0;
	int sfd = signal_fd(), i, timeout;
	bool want_out = false;

	if (sfd < 0) {
		say("no signalfd: %s", strerror(errno));
		exit(1);
	}
	while (!end || now_ms() < end) {
		while (wl_display_prepare_read(app.display) != 0)
			if (wl_display_dispatch_pending(app.display) < 0)
				die_of_display();
		want_out = wl_display_flush(app.display) < 0;
		if (want_out && errno != EAGAIN) {
			wl_display_cancel_read(app.display);
			die_of_display();
		}
		pfd[0] = (struct pollfd){
			.fd = wl_display_get_fd(app.display),
			.events = POLLIN | (want_out ? POLLOUT : 0),
		};
		pfd[1] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		for (i = 0; i < MAX_PASTES; i++)
			pfd[2 + i] = (struct pollfd){ .fd = app.pastes[i].fd,
						      .events = POLLIN };
		timeout = app.round ? 1000 : (int)(next - now_ms());
		if (poll(pfd, 2 + MAX_PASTES, timeout < 0 ? 0 : timeout) < 0 &&
		    errno != EINTR) {
			wl_display_cancel_read(app.display);
			exit(1);
		}
		if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			if (wl_display_read_events(app.display) < 0)
				die_of_display();
		} else {
			wl_display_cancel_read(app.display);
		}
		if (wl_display_dispatch_pending(app.display) < 0)
			die_of_display();
		read_pastes(pfd + 2);
		if (pfd[1].revents)
			break;
		if (!app.round && now_ms() >= next) {
			play_round();
			next = now_ms() + 5 + pick(20);
		}
	}
	summary();
}

int
main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "windows", required_argument, NULL, 'w' },
		{ "seconds", required_argument, NULL, 't' },
		{ "pad-ids", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	int c, seconds = 0, i;

	app.anchors = 2;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's': app.seed = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'w': app.anchors = atoi(optarg); break;
		case 't': seconds = atoi(optarg); break;
		case 'p': app.pad_ids = (uint32_t)atoi(optarg); break;
		default: return 1;
		}
	}
	if (app.anchors < 1 || app.anchors > MAX_WINS - 1 || seconds < 0)
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* A paste's reader may go before we wrote it all (a restart cuts
	 * its pipe): that is an EPIPE, as for any client. */
	signal(SIGPIPE, SIG_IGN);
	app.rng = (uint64_t)app.seed * 0x9e3779b97f4a7c15ull + 1;
	for (i = 0; i < MAX_PASTES; i++)
		app.pastes[i].fd = -1;
	wl_log_set_handler_client(wayland_log);
	app.display = ivwl_client_connect(NULL, 0, "fuzz-client");
	if (!app.display)
		return 1;
	app.registry = wl_display_get_registry(app.display);
	wl_registry_add_listener(app.registry, &fuzz_registry_listener, NULL);
	if (wl_display_roundtrip(app.display) < 0)
		die_of_display();
	if (ivwl_client_check_globals(fuzz_globals, "fuzz-client") < 0)
		return 1;
	clipboard_start();
	for (i = 0; i < app.anchors; i++)
		win_new(true);
	run(seconds);
	return 0;
}
