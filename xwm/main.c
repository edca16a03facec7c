/* SPDX-License-Identifier: MIT */
/*
 * ivwl-xwm: X11 applications of an app-VM as windows of their own.
 * Starts a rootless Xwayland whose Wayland connection is the proxy's
 * (proxy.h), connects to the compositor as any Wayland client of the VM
 * does (through the shim when it is preloaded), and manages Xwayland's
 * windows (wm.h).
 *
 *   ivwl-xwm [--display :N] [-- COMMAND [ARG...]]
 *
 * Prints "DISPLAY=:N" once X clients can connect.  With a COMMAND it
 * runs it on that display and exits with its status when it ends;
 * without, it serves until Xwayland or the compositor goes, or SIGTERM.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "proxy.h"
#include "selection.h"
#include "wm.h"

struct ivwl_xwm {
	struct ivwl_xwm_proxy *proxy;
	struct ivwl_xwm_wm *wm;
	pid_t xwayland, command;
	int signals;
	int status;		/* the command's exit status */
	bool done;
};

static const struct option options[] = {
	{ "display", required_argument, NULL, 'd' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void
usage(FILE *f)
{
	fprintf(f, "usage: ivwl-xwm [--display :N] [-- COMMAND [ARG...]]\n");
}

/* The compositor's socket, as libwayland-client finds it. */
static int
connect_wayland(void)
{
	const char *name = getenv("WAYLAND_DISPLAY");
	const char *dir = getenv("XDG_RUNTIME_DIR");
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd, n;

	if (!name)
		name = "wayland-0";
	if (name[0] == '/')
		n = snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", name);
	else if (dir)
		n = snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/%s",
			     dir, name);
	else
		return -ENOENT;
	if (n < 0 || (size_t)n >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	return fd;
}

static int
nonblocking(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	return flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0 ?
	       -errno : 0;
}

/* A child takes the signals main() reads from its signalfd. */
static void
unblock_in_child(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigprocmask(SIG_SETMASK, &set, NULL);
}

/*
 * Xwayland, rootless, on its end of the proxy's socketpair.  It keeps
 * the shim when ivwl-xwm has it: its connection is no connect(), so the
 * shim leaves it alone, but the pool files Xwayland makes and sends are
 * moved onto the region (zero-copy across the processes of one app).
 */
static pid_t
spawn_xwayland(const char *display, int wayland, int displayfd)
{
	char wl[16], dfd[16];
	const char *argv[10];
	int n = 0;
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	unblock_in_child();
	snprintf(wl, sizeof(wl), "%d", wayland);
	snprintf(dfd, sizeof(dfd), "%d", displayfd);
	setenv("WAYLAND_SOCKET", wl, 1);
	argv[n++] = "Xwayland";
	if (display)
		argv[n++] = display;
	argv[n++] = "-rootless";
	argv[n++] = "-displayfd";
	argv[n++] = dfd;
	argv[n++] = "-nolisten";
	argv[n++] = "tcp";
	argv[n] = NULL;
	execvp("Xwayland", (char **)argv);
	fprintf(stderr, "ivwl-xwm: cannot run Xwayland: %s\n",
		strerror(errno));
	_exit(127);
}

/* The display number Xwayland writes to -displayfd once it listens. */
static int
read_display(int fd, char *display, size_t size)
{
	char buf[32];
	size_t len = 0;
	ssize_t n;

	while (len < sizeof(buf) - 1) {
		n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (memchr(buf, '\n', len))
			break;
	}
	buf[len] = '\0';
	if (!len || buf[0] < '0' || buf[0] > '9')
		return -EPIPE;
	snprintf(display, size, ":%d", atoi(buf));
	return 0;
}

static pid_t
spawn_command(char **argv, const char *display)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	unblock_in_child();
	setenv("DISPLAY", display, 1);
	execvp(argv[0], argv);
	fprintf(stderr, "ivwl-xwm: cannot run %s: %s\n", argv[0],
		strerror(errno));
	_exit(127);
}

static void
on_configure(void *data, uint32_t surface, int32_t width, int32_t height,
	     bool activated, bool fullscreen, bool maximized)
{
	struct ivwl_xwm *x = data;

	if (x->wm)
		ivwl_xwm_wm_configure(x->wm, surface, width, height,
				      activated, fullscreen, maximized);
}

static void
on_close(void *data, uint32_t surface)
{
	struct ivwl_xwm *x = data;

	if (x->wm)
		ivwl_xwm_wm_close(x->wm, surface);
}

static void
on_selection(void *data, const char *const *mimes, uint32_t n)
{
	struct ivwl_xwm *x = data;
	struct ivwl_xwm_selection *sel = x->wm ?
		ivwl_xwm_wm_selection(x->wm) : NULL;

	if (sel)
		ivwl_xwm_selection_offered(sel, mimes, n);
}

static void
on_send(void *data, const char *mime, int fd)
{
	struct ivwl_xwm *x = data;
	struct ivwl_xwm_selection *sel = x->wm ?
		ivwl_xwm_wm_selection(x->wm) : NULL;

	if (sel)
		ivwl_xwm_selection_send(sel, mime, fd);
	else
		close(fd);
}

static void
on_decorated(void *data, uint32_t surface, bool server_side)
{
	struct ivwl_xwm *x = data;

	if (x->wm)
		ivwl_xwm_wm_decorated(x->wm, surface, server_side);
}

static const struct ivwl_xwm_proxy_hooks hooks = {
	.configure = on_configure,
	.close = on_close,
	.decorated = on_decorated,
	.selection = on_selection,
	.send = on_send,
};

static void
reap(struct ivwl_xwm *x)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (pid == x->xwayland) {
			ivwl_log_error("Xwayland ended");
			x->xwayland = 0;
			x->status = 1;
			x->done = true;
		} else if (pid == x->command) {
			x->command = 0;
			x->status = WIFEXITED(status) ? WEXITSTATUS(status) :
							128 + WTERMSIG(status);
			x->done = true;
		}
	}
}

static void
on_signal(struct ivwl_xwm *x)
{
	struct signalfd_siginfo si;

	while (read(x->signals, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			reap(x);
		} else {
			x->status = 0;
			x->done = true;
		}
	}
}

static int
run(struct ivwl_xwm *x)
{
	struct ivwl_xwm_selection *sel = ivwl_xwm_wm_selection(x->wm);
	struct pollfd pfd[4 + IVWL_XWM_SELECTION_FDS];
	int ret, n = 0;

	while (!x->done) {
		pfd[0] = (struct pollfd){ ivwl_xwm_proxy_down_fd(x->proxy),
					  POLLIN, 0 };
		pfd[1] = (struct pollfd){ ivwl_xwm_proxy_up_fd(x->proxy),
					  POLLIN, 0 };
		if (ivwl_xwm_proxy_wants_write(x->proxy))
			pfd[0].events = pfd[1].events = POLLIN | POLLOUT;
		pfd[2] = (struct pollfd){ ivwl_xwm_wm_fd(x->wm), POLLIN, 0 };
		pfd[3] = (struct pollfd){ x->signals, POLLIN, 0 };
		if (sel)
			n = ivwl_xwm_selection_fds(sel, pfd + 4,
						   IVWL_XWM_SELECTION_FDS);
		if (poll(pfd, 4 + (nfds_t)n, sel ?
			 ivwl_xwm_selection_timeout(sel) : -1) < 0 &&
		    errno != EINTR)
			return -errno;
		if (pfd[3].revents)
			on_signal(x);
		ret = pfd[0].revents ? ivwl_xwm_proxy_read_down(x->proxy) : 0;
		if (ret == 0 && pfd[1].revents)
			ret = ivwl_xwm_proxy_read_up(x->proxy);
		if (ret < 0) {
			ivwl_log_error("the Wayland connection ended (%s)",
				       strerror(-ret));
			return ret;
		}
		if (ivwl_xwm_wm_dispatch(x->wm) < 0) {
			ivwl_log_error("the X server went away");
			return -EPIPE;
		}
		/* by fd: a transfer the events ended is passed over */
		if (sel)
			ivwl_xwm_selection_io(sel, pfd + 4, n);
		ret = ivwl_xwm_proxy_flush(x->proxy);
		if (ret < 0 && ret != -EAGAIN)
			return ret;
	}
	return 0;
}

static int
block_signals(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -errno;
	return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

int
main(int argc, char **argv)
{
	struct ivwl_xwm x = { .status = 1 };
	const char *want = NULL;
	char display[16];
	char **command = NULL;
	int pair[2], dpipe[2], up, i;

	ivwl_log_setup("ivwl-xwm", false);
	while ((i = getopt_long(argc, argv, "+", options, NULL)) != -1) {
		switch (i) {
		case 'd':
			want = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc)
		command = &argv[optind];
	up = connect_wayland();
	if (up < 0) {
		ivwl_log_error("cannot connect to the Wayland compositor: %s",
			       strerror(-up));
		return 1;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) < 0 ||
	    pipe2(dpipe, O_CLOEXEC) < 0) {
		ivwl_log_error("socketpair: %s", strerror(errno));
		return 1;
	}
	x.signals = block_signals();
	if (x.signals < 0) {
		ivwl_log_error("signalfd: %s", strerror(errno));
		return 1;
	}
	/* the child's ends are inherited: no CLOEXEC on them there */
	fcntl(pair[1], F_SETFD, 0);
	fcntl(dpipe[1], F_SETFD, 0);
	x.xwayland = spawn_xwayland(want, pair[1], dpipe[1]);
	close(pair[1]);
	close(dpipe[1]);
	if (x.xwayland < 0 || nonblocking(pair[0]) < 0 ||
	    nonblocking(up) < 0) {
		ivwl_log_error("cannot start Xwayland: %s", strerror(errno));
		return 1;
	}
	x.proxy = ivwl_xwm_proxy_create(pair[0], up, &hooks, &x);
	if (!x.proxy)
		goto err_xwayland;
	/* Xwayland talks to the compositor before it listens for X */
	for (;;) {
		struct pollfd pfd[3] = {
			{ pair[0], POLLIN, 0 }, { up, POLLIN, 0 },
			{ dpipe[0], POLLIN, 0 },
		};

		poll(pfd, 3, 1000);
		/* one write of "N\n", or the end of a failed Xwayland */
		if (pfd[2].revents) {
			if (read_display(dpipe[0], display,
					 sizeof(display)) == 0)
				break;
			ivwl_log_error("Xwayland gave no display");
			goto err_proxy;
		}
		if ((pfd[0].revents &&
		     ivwl_xwm_proxy_read_down(x.proxy) < 0) ||
		    (pfd[1].revents && ivwl_xwm_proxy_read_up(x.proxy) < 0))
			goto err_proxy;
		ivwl_xwm_proxy_flush(x.proxy);
		if (waitpid(x.xwayland, NULL, WNOHANG) == x.xwayland) {
			ivwl_log_error("Xwayland ended before its display "
				       "was ready");
			x.xwayland = 0;
			goto err_proxy;
		}
	}
	close(dpipe[0]);
	x.wm = ivwl_xwm_wm_create(display, x.proxy);
	if (!x.wm)
		goto err_proxy;
	printf("DISPLAY=%s\n", display);
	fflush(stdout);
	if (command) {
		x.command = spawn_command(command, display);
		if (x.command < 0)
			goto err_wm;
	}
	if (run(&x) < 0)
		x.status = 1;
	if (x.command > 0)
		kill(x.command, SIGTERM);
err_wm:
	ivwl_xwm_wm_destroy(x.wm);
err_proxy:
	ivwl_xwm_proxy_destroy(x.proxy);
err_xwayland:
	if (x.xwayland > 0) {
		kill(x.xwayland, SIGTERM);
		waitpid(x.xwayland, NULL, 0);
	}
	return x.status;
}
