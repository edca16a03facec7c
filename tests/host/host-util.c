/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "device.h"
#include "fdmsg.h"
#include "harness.h"
#include "host-util.h"
#include "mono-time.h"

/* Each test binary must finish well within this. */
#define WATCHDOG_S 20
#define MAX_CHILDREN 64
#define MAX_FILES 64

static char tmp_dir[64];
static pid_t children[MAX_CHILDREN];
static char files[MAX_FILES][HU_PATH_MAX];
static int nfiles;

static void
child_add(pid_t pid)
{
	int i;

	for (i = 0; i < MAX_CHILDREN; i++) {
		if (children[i] == 0) {
			children[i] = pid;
			return;
		}
	}
}

static void
child_remove(pid_t pid)
{
	int i;

	for (i = 0; i < MAX_CHILDREN; i++)
		if (children[i] == pid)
			children[i] = 0;
}

/* Only async-signal-safe calls: the watchdog runs this too. */
static void
cleanup_now(void)
{
	int i;

	for (i = 0; i < MAX_CHILDREN; i++) {
		if (children[i] > 0) {
			kill(children[i], SIGKILL);
			waitpid(children[i], NULL, 0);
			children[i] = 0;
		}
	}
	for (i = 0; i < nfiles; i++)
		unlink(files[i]);
	if (tmp_dir[0])
		rmdir(tmp_dir);
}

/* Out of a signal handler, anything the servers left is found too. */
static void
cleanup_at_exit(void)
{
	char path[HU_PATH_MAX + 256];
	struct dirent *e;
	DIR *d;

	cleanup_now();
	d = opendir(tmp_dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", tmp_dir, e->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(tmp_dir);
}

static void
watchdog(int sig)
{
	static const char msg[] = "watchdog: test took too long\n";

	(void)sig;
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0) {
		/* nothing more to do */
	}
	cleanup_now();
	_exit(1);
}

static void __attribute__((constructor))
hu_setup(void)
{
	strcpy(tmp_dir, "/tmp/ivwl-host-test-XXXXXX");
	if (!mkdtemp(tmp_dir)) {
		perror("mkdtemp");
		exit(1);
	}
	atexit(cleanup_at_exit);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGALRM, watchdog);
	alarm(WATCHDOG_S);
}

const char *
hu_dir(void)
{
	return tmp_dir;
}

const char *
hu_path(const char *name)
{
	static char bufs[8][HU_PATH_MAX];
	static int next;
	char *p = bufs[next++ % 8];
	int i;

	/* A unix socket's path must fit sun_path: too long is a bug here. */
	if (snprintf(p, HU_PATH_MAX, "%s/%s", tmp_dir, name) >= HU_PATH_MAX)
		abort();
	for (i = 0; i < nfiles; i++)
		if (strcmp(files[i], p) == 0)
			return p;
	if (nfiles < MAX_FILES)
		strcpy(files[nfiles++], p);
	return p;
}

static const char *
server_binary(void)
{
	const char *s = getenv("IVWL_SERVER");

	REQUIRE(s && access(s, X_OK) == 0);
	return s;
}

static void __attribute__((noreturn))
exec_server(const char *const *args)
{
	const char *argv[32];
	int i;

	argv[0] = server_binary();
	for (i = 0; args[i] && i < 30; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	/* A server must never outlive its test. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGALRM, SIG_DFL);
	execv(argv[0], (char *const *)argv);
	_exit(127);
}

static void
read_into(int fd, char *buf, size_t size, size_t *len, bool *open)
{
	ssize_t n;

	n = read(fd, buf + *len, size - 1 - *len);
	if (n <= 0) {
		*open = false;
		return;
	}
	*len += (size_t)n;
	buf[*len] = '\0';
	if (*len == size - 1)
		*open = false;
}

static int
reap(pid_t pid, int ms)
{
	int64_t deadline = ivwl_now_ms() + ms;
	int status;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid) {
			child_remove(pid);
			return status;
		}
		if (r < 0 || ivwl_now_ms() > deadline)
			break;
		poll(NULL, 0, 5);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	child_remove(pid);
	return -1;
}

void
hu_run_start(const char *const *args, struct hu_output *o)
{
	int out[2], err[2];

	memset(o, 0, sizeof(*o));
	REQUIRE(pipe2(out, O_CLOEXEC) == 0 && pipe2(err, O_CLOEXEC) == 0);
	o->pid = fork();
	REQUIRE(o->pid >= 0);
	if (o->pid == 0) {
		dup2(out[1], STDOUT_FILENO);
		dup2(err[1], STDERR_FILENO);
		exec_server(args);
	}
	child_add(o->pid);
	close(out[1]);
	close(err[1]);
	o->out_fd = out[0];
	o->err_fd = err[0];
}

void
hu_run_finish(struct hu_output *o)
{
	size_t out_len = 0, err_len = 0;
	bool out_open = true, err_open = true;
	int64_t deadline = ivwl_now_ms() + 5000;

	while ((out_open || err_open) && ivwl_now_ms() < deadline) {
		struct pollfd pfd[2] = {
			{ out_open ? o->out_fd : -1, POLLIN, 0 },
			{ err_open ? o->err_fd : -1, POLLIN, 0 },
		};

		if (poll(pfd, 2, 100) <= 0)
			continue;
		if (pfd[0].revents)
			read_into(o->out_fd, o->out, sizeof(o->out), &out_len,
				  &out_open);
		if (pfd[1].revents)
			read_into(o->err_fd, o->err, sizeof(o->err), &err_len,
				  &err_open);
	}
	close(o->out_fd);
	close(o->err_fd);
	o->status = reap(o->pid, 1000);
}

void
hu_run_server(const char *const *args, struct hu_output *o)
{
	hu_run_start(args, o);
	hu_run_finish(o);
}

int
hu_exit_code(const struct hu_output *o)
{
	if (o->status < 0 || !WIFEXITED(o->status))
		return -1;
	return WEXITSTATUS(o->status);
}

const char *
hu_server_log(struct hu_server *srv)
{
	static char buf[16384];
	ssize_t n;
	int fd;

	buf[0] = '\0';
	fd = open(srv->log, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return buf;
	n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
	return buf;
}

bool
hu_server_wait_log(struct hu_server *srv, const char *needle, int ms)
{
	int64_t deadline = ivwl_now_ms() + ms;

	while (!strstr(hu_server_log(srv), needle)) {
		if (ivwl_now_ms() > deadline)
			return false;
		poll(NULL, 0, 5);
	}
	return true;
}

void
hu_server_spawn(struct hu_server *srv, const char *log_name,
		const char *const *args)
{
	int fd;

	snprintf(srv->log, sizeof(srv->log), "%s", hu_path(log_name));
	fd = open(srv->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	REQUIRE(fd >= 0);
	srv->pid = fork();
	REQUIRE(srv->pid >= 0);
	if (srv->pid == 0) {
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		exec_server(args);
	}
	close(fd);
	child_add(srv->pid);
}

int
hu_server_wait_ready(struct hu_server *srv)
{
	int64_t deadline = ivwl_now_ms() + 5000;

	/* It says so once both sockets listen. */
	while (ivwl_now_ms() < deadline) {
		if (strstr(hu_server_log(srv), "serving "))
			return 0;
		if (!hu_server_alive(srv))
			break;
		poll(NULL, 0, 5);
	}
	fprintf(stderr, "server did not start: %s\n", hu_server_log(srv));
	hu_server_stop(srv, SIGKILL);
	return -1;
}

int
hu_server_start_args(struct hu_server *srv, const char *log_name,
		     const char *const *args)
{
	hu_server_spawn(srv, log_name, args);
	return hu_server_wait_ready(srv);
}

int
hu_server_start(struct hu_server *srv, const char *name, const char *size,
		uint32_t vectors)
{
	char display_name[64], log_name[64], vec[16];
	const char *args[16];
	int n = 0;

	snprintf(display_name, sizeof(display_name), "%s.display", name);
	snprintf(log_name, sizeof(log_name), "%s.log", name);
	snprintf(srv->app, sizeof(srv->app), "%s", hu_path(name));
	snprintf(srv->display, sizeof(srv->display), "%s",
		 hu_path(display_name));
	snprintf(vec, sizeof(vec), "%u", vectors);

	args[n++] = "--socket";
	args[n++] = srv->app;
	args[n++] = "--size";
	args[n++] = size;
	if (vectors) {
		args[n++] = "--vectors";
		args[n++] = vec;
	}
	args[n] = NULL;
	return hu_server_start_args(srv, log_name, args);
}

bool
hu_server_alive(struct hu_server *srv)
{
	int status;

	return srv->pid > 0 && waitpid(srv->pid, &status, WNOHANG) == 0;
}

int
hu_server_stop(struct hu_server *srv, int sig)
{
	int status;

	if (srv->pid <= 0)
		return -1;
	kill(srv->pid, sig);
	status = reap(srv->pid, 5000);
	srv->pid = 0;
	return status;
}

int
hu_server_fd_count(struct hu_server *srv)
{
	char path[64];
	struct dirent *e;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)srv->pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

int
hu_connect(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int
hu_wait_readable(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int ret;

	do {
		ret = poll(&pfd, 1, ms);
	} while (ret < 0 && errno == EINTR);
	return ret > 0;
}

int
hu_recv(int sock, int timeout_ms, struct hu_msg *m)
{
	int64_t deadline = ivwl_now_ms() + timeout_ms;
	uint8_t bytes[8];
	size_t have = 0;

	m->value = 0;
	m->fd = -1;
	m->nfds = 0;
	while (have < sizeof(bytes)) {
		int got[IVWL_FDMSG_MAX_FDS];
		struct ivwl_fdmsg_fds fds = {
			.fds = got,
			.cap = IVWL_FDMSG_MAX_FDS,
		};
		int64_t left = deadline - ivwl_now_ms();
		ssize_t n;
		uint32_t k;

		if (left <= 0 || !hu_wait_readable(sock, (int)left))
			return -ETIMEDOUT;
		n = ivwl_fdmsg_recv(sock, bytes + have, sizeof(bytes) - have,
				    MSG_DONTWAIT, &fds, NULL);
		if (n == -EAGAIN)
			continue;
		if (n < 0)
			return (int)n;
		/* the first fd is the message's; count the rest */
		for (k = 0; k < fds.n; k++) {
			if (m->fd < 0)
				m->fd = got[k];
			else
				close(got[k]);
			m->nfds++;
		}
		if (n == 0)
			return have == 0 && m->nfds == 0 ? 0 : -EPROTO;
		have += (size_t)n;
	}
	memcpy(&m->value, bytes, sizeof(m->value));
	m->value = (int64_t)le64toh((uint64_t)m->value);
	return 1;
}

int
hu_send(int sock, int64_t value, const int *fds, int nfds)
{
	uint64_t wire = htole64((uint64_t)value);
	ssize_t n;

	n = ivwl_fdmsg_send(sock, &wire, sizeof(wire), fds,
			    nfds > 0 ? (uint32_t)nfds : 0, 0);
	if (n < 0)
		return (int)n;
	return n == sizeof(wire) ? 0 : -EPIPE;
}

bool
hu_is_eventfd(int fd)
{
	char link[64], target[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	return strcmp(target, "anon_inode:[eventfd]") == 0;
}

/* One message with the given value and fd count; its fd in *fd. */
static bool
expect_msg(struct hu_client *c, int64_t value, int nfds, int *fd)
{
	struct hu_msg m;
	int ret;

	ret = hu_recv(c->sock, HU_TIMEOUT_MS, &m);
	CHECK_EQ(ret, 1);
	if (ret != 1)
		return false;
	CHECK_EQ(m.value, value);
	CHECK_EQ(m.nfds, nfds);
	if (m.value != value || m.nfds != nfds) {
		if (m.fd >= 0)
			close(m.fd);
		return false;
	}
	if (fd)
		*fd = m.fd;
	else if (m.fd >= 0)
		close(m.fd);
	return true;
}

static int *
fd_array(uint32_t n)
{
	int *a = malloc(n * sizeof(*a));
	uint32_t i;

	REQUIRE(a);
	for (i = 0; i < n; i++)
		a[i] = -1;
	return a;
}

static bool
expect_vectors(struct hu_client *c, uint32_t id, int *fds)
{
	uint32_t v;

	for (v = 0; v < c->vectors; v++) {
		if (!expect_msg(c, id, 1, &fds[v]))
			return false;
		CHECK(hu_is_eventfd(fds[v]));
	}
	return true;
}

int
hu_client_join(struct hu_client *c, const char *path, uint32_t expect_id,
	       uint32_t vectors, uint64_t size, bool other_present)
{
	struct stat st;

	memset(c, 0, sizeof(*c));
	c->shm_fd = -1;
	c->id = expect_id;
	c->vectors = vectors;
	c->own = fd_array(vectors);
	c->peer[0] = fd_array(vectors);
	c->peer[1] = fd_array(vectors);
	c->sock = hu_connect(path);
	CHECK(c->sock >= 0);
	if (c->sock < 0)
		return -1;

	if (!expect_msg(c, 0, 0, NULL) ||
	    !expect_msg(c, expect_id, 0, NULL) ||
	    !expect_msg(c, -1, 1, &c->shm_fd))
		return -1;
	CHECK(fstat(c->shm_fd, &st) == 0);
	c->shm_size = (uint64_t)st.st_size;
	CHECK_EQ(c->shm_size, size);

	if (other_present &&
	    !expect_vectors(c, 1 - expect_id, c->peer[1 - expect_id]))
		return -1;
	if (!expect_vectors(c, expect_id, c->own))
		return -1;
	return 0;
}

void
hu_client_expect_join(struct hu_client *c, uint32_t other)
{
	uint32_t v;

	for (v = 0; v < c->vectors; v++)
		if (c->peer[other][v] >= 0)
			close(c->peer[other][v]);
	expect_vectors(c, other, c->peer[other]);
}

void
hu_client_expect_leave(struct hu_client *c, uint32_t other)
{
	expect_msg(c, other, 0, NULL);
}

void
hu_client_expect_quiet(struct hu_client *c, int ms)
{
	CHECK(!hu_wait_readable(c->sock, ms));
}

static void
close_fds(int *fds, uint32_t n)
{
	uint32_t i;

	if (!fds)
		return;
	for (i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
}

void
hu_client_close(struct hu_client *c)
{
	if (c->sock >= 0)
		close(c->sock);
	if (c->shm_fd >= 0)
		close(c->shm_fd);
	close_fds(c->own, c->vectors);
	close_fds(c->peer[0], c->vectors);
	close_fds(c->peer[1], c->vectors);
	memset(c, 0, sizeof(*c));
	c->sock = -1;
	c->shm_fd = -1;
}

int
hu_ring_fd(int fd)
{
	uint64_t one = 1;

	return write(fd, &one, sizeof(one)) == sizeof(one) ? 0 : -errno;
}

uint64_t
hu_eventfd_take(int fd)
{
	uint64_t v;

	if (!hu_wait_readable(fd, 0))
		return 0;
	return read(fd, &v, sizeof(v)) == sizeof(v) ? v : 0;
}

void
hu_check_ring(struct hu_client *from, struct hu_client *to)
{
	uint32_t v, n = to->vectors;

	for (v = 0; v < n; v++) {
		CHECK(from->peer[to->id][v] >= 0);
		if (from->peer[to->id][v] < 0)
			continue;
		CHECK_EQ(hu_ring_fd(from->peer[to->id][v]), 0);
		CHECK(hu_wait_readable(to->own[v], 1000));
		/* Only the rung vector fires. */
		if (n > 1)
			CHECK(!hu_wait_readable(to->own[(v + 1) % n], 0));
		CHECK_EQ(hu_eventfd_take(to->own[v]), 1);
	}
}

/* HELLO, answered by any ACK (a server run with --no-rings...). */
static int
fresh_hello(int sock)
{
	int64_t hello = HU_HELLO;
	struct hu_msg m;

	CHECK_EQ(hu_send_requests(sock, &hello, 1), 0);
	CHECK_EQ(hu_recv(sock, HU_TIMEOUT_MS, &m), 1);
	if (m.fd >= 0)
		close(m.fd);
	CHECK(HU_IS_ACK(m.value));
	return HU_IS_ACK(m.value) ? 0 : -1;
}

void
hu_check_fresh_pair(struct hu_server *srv, uint32_t vectors, uint64_t size)
{
	struct hu_client display, app;

	memset(&app, 0, sizeof(app));
	app.sock = -1;
	app.shm_fd = -1;
	if (hu_client_join(&display, srv->display, 0, vectors, size,
			   false) == 0 &&
	    fresh_hello(display.sock) == 0 &&
	    hu_client_join(&app, srv->app, 1, vectors, size, true) == 0) {
		hu_client_expect_join(&display, 1);
		hu_check_ring(&display, &app);
		hu_check_ring(&app, &display);
		hu_client_expect_quiet(&display, 20);
		hu_client_expect_quiet(&app, 0);
		hu_client_close(&app);
		hu_client_expect_leave(&display, 1);
	} else {
		hu_client_close(&app);
	}
	hu_client_close(&display);
	CHECK(hu_server_alive(srv));
}

void
hu_raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int
hu_send_requests(int sock, const int64_t *values, int n)
{
	uint8_t buf[8 * 64];
	uint64_t wire;
	int i;

	if (n > 64)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		wire = htole64((uint64_t)values[i]);
		memcpy(buf + 8 * i, &wire, sizeof(wire));
	}
	return write(sock, buf, 8 * (size_t)n) == 8 * (ssize_t)n ? 0 : -EIO;
}

int
hu_client_hello(int sock)
{
	return hu_client_hello_ack(sock, HU_ACK);
}

int
hu_client_hello_ack(int sock, int64_t ack)
{
	int64_t hello = HU_HELLO;

	CHECK_EQ(hu_send_requests(sock, &hello, 1), 0);
	return hu_expect_ack(sock, ack);
}

int
hu_expect_ack(int sock, int64_t ack)
{
	struct hu_msg m;
	int ret;

	ret = hu_recv(sock, HU_TIMEOUT_MS, &m);
	CHECK_EQ(ret, 1);
	if (ret != 1)
		return -1;
	if (m.fd >= 0)
		close(m.fd);
	CHECK_EQ(m.nfds, 0);
	CHECK_EQ(m.value, ack);
	return m.value == ack && m.nfds == 0 ? 0 : -1;
}

/* fdinfo's "eventfd-id:", -1 when it has none. */
static long long
eventfd_id(int fd)
{
	char path[64], line[128];
	long long id = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "eventfd-id: %lld", &id) == 1)
			break;
	fclose(f);
	return id;
}

bool
hu_same_file(int a, int b)
{
	pid_t self = getpid();
	long ret;

	ret = syscall(SYS_kcmp, self, self, KCMP_FILE, a, b);
	if (ret >= 0)
		return ret == 0;
	REQUIRE(eventfd_id(a) >= 0);
	return eventfd_id(a) == eventfd_id(b);
}

struct ivwl_device *
hu_open_device(const char *path, uint32_t flags)
{
	struct ivwl_device *dev = NULL;
	const char *err = NULL;
	int ret;

	ret = ivwl_device_open_server_flags(path, HU_OPEN_MS, flags, &dev,
					    &err);
	if (ret < 0)
		fprintf(stderr, "open %s: %s (%s)\n", path, err ? err : "?",
			strerror(-ret));
	REQUIRE(ret == 0 && dev);
	CHECK(err == NULL);
	return dev;
}

int
hu_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	REQUIRE(d != NULL);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the directory's own */
}

int
hu_wait_child(pid_t pid)
{
	int64_t deadline = ivwl_now_ms() + HU_TIMEOUT_MS;
	int status;

	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (ivwl_now_ms() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
		poll(NULL, 0, 5);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
