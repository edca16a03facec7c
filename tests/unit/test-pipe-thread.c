/* SPDX-License-Identifier: MIT */
/*
 * The plugin's pipe thread: weston's clipboard manager writes a cached
 * selection with one blocking write() from its main thread.  If nobody
 * drains the decoupled pipe, the thread must raise its alarm and let the
 * writer go, never leave it blocked.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "harness.h"
#include "pipe-thread.h"

#define PAYLOAD (IVWL_PIPE_THREAD_BUFFER + (16u << 20))

struct writer {
	int fd;
	size_t written;
	int done;
};

static void *
write_all(void *data)
{
	struct writer *w = data;
	uint8_t *buf = calloc(1, PAYLOAD);
	ssize_t n;

	/* one blocking write, as libweston's clipboard does */
	while (buf && w->written < PAYLOAD) {
		n = write(w->fd, buf + w->written, PAYLOAD - w->written);
		if (n <= 0)
			break;
		w->written += (size_t)n;
	}
	free(buf);
	close(w->fd);
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* The threads are detached: they give their memory back as they end. */
static void
wait_budget_empty(struct ivwl_pipe_budget *budget)
{
	int i;

	for (i = 0; i < 200 && ivwl_pipe_budget_used(budget) > 0; i++)
		usleep(10000);
	CHECK_EQ(ivwl_pipe_budget_used(budget), 0);
}

static void
test_stalled_reader_frees_blocked_writer(void)
{
	struct ivwl_pipe_budget *budget;
	struct writer w = { 0 };
	struct pollfd pfd;
	pthread_t thread;
	int p[2], out, alarm_fd, i;
	uint64_t v;

	REQUIRE(pipe2(p, O_CLOEXEC) == 0);
	alarm_fd = eventfd(0, EFD_CLOEXEC);
	REQUIRE(alarm_fd >= 0);
	budget = ivwl_pipe_budget_create(IVWL_PIPE_VM_BUFFER);
	REQUIRE(budget);
	out = ivwl_pipe_decouple(p[0], alarm_fd, budget);
	REQUIRE(out >= 0);
	w.fd = p[1];
	REQUIRE(pthread_create(&thread, NULL, write_all, &w) == 0);

	/* nobody reads `out`: the alarm must come, then the writer ends */
	pfd = (struct pollfd){ .fd = alarm_fd, .events = POLLIN };
	CHECK_EQ(poll(&pfd, 1, 20000), 1);
	CHECK_EQ(read(alarm_fd, &v, sizeof(v)), sizeof(v));
	for (i = 0; i < 200 && !__atomic_load_n(&w.done, __ATOMIC_ACQUIRE);
	     i++)
		usleep(50000);
	CHECK(__atomic_load_n(&w.done, __ATOMIC_ACQUIRE));
	CHECK_EQ(w.written, PAYLOAD);
	pthread_join(thread, NULL);
	close(out);
	close(alarm_fd);
	wait_budget_empty(budget);
	ivwl_pipe_budget_unref(budget);
}

static void
test_drained_reader_gets_everything(void)
{
	struct ivwl_pipe_budget *budget;
	struct writer w = { 0 };
	uint8_t *buf = malloc(1 << 20);
	size_t got = 0;
	pthread_t thread;
	struct pollfd pfd;
	int p[2], out, alarm_fd;
	ssize_t n;

	REQUIRE(buf && pipe2(p, O_CLOEXEC) == 0);
	alarm_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	budget = ivwl_pipe_budget_create(IVWL_PIPE_VM_BUFFER);
	REQUIRE(budget);
	out = ivwl_pipe_decouple(p[0], alarm_fd, budget);
	REQUIRE(out >= 0);
	w.fd = p[1];
	REQUIRE(pthread_create(&thread, NULL, write_all, &w) == 0);
	pfd = (struct pollfd){ .fd = out, .events = POLLIN };
	while (poll(&pfd, 1, 20000) == 1) {
		n = read(out, buf, 1 << 20);
		if (n == 0 || (n < 0 && errno != EAGAIN))
			break;
		if (n > 0)
			got += (size_t)n;
	}
	pthread_join(thread, NULL);
	CHECK_EQ(got, PAYLOAD);
	/* a reader that keeps up never sees the alarm */
	CHECK(read(alarm_fd, &(uint64_t){ 0 }, 8) < 0);
	free(buf);
	close(out);
	close(alarm_fd);
	wait_budget_empty(budget);
	ivwl_pipe_budget_unref(budget);
}

/*
 * Two stalled pipes of one VM whose budget holds one buffer: the second
 * cannot grow past what the first left, stalls, and raises its alarm
 * too.  What they hold together never passes the budget.
 */
static void
test_vm_budget_is_shared(void)
{
	struct ivwl_pipe_budget *budget;
	struct writer w[2] = { { 0 }, { 0 } };
	size_t peak = 0, used;
	pthread_t thread[2];
	int p[2][2], out[2], alarm_fd, i;
	uint64_t v, alarms = 0;

	budget = ivwl_pipe_budget_create(IVWL_PIPE_THREAD_BUFFER);
	alarm_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	REQUIRE(budget && alarm_fd >= 0);
	for (i = 0; i < 2; i++) {
		REQUIRE(pipe2(p[i], O_CLOEXEC) == 0);
		out[i] = ivwl_pipe_decouple(p[i][0], alarm_fd, budget);
		REQUIRE(out[i] >= 0);
		w[i].fd = p[i][1];
		REQUIRE(pthread_create(&thread[i], NULL, write_all,
				       &w[i]) == 0);
	}
	for (i = 0; i < 400 && alarms < 2; i++) {
		used = ivwl_pipe_budget_used(budget);
		peak = used > peak ? used : peak;
		if (read(alarm_fd, &v, sizeof(v)) == sizeof(v))
			alarms += v;
		usleep(50000);
	}
	CHECK_EQ(alarms, 2);
	CHECK(peak <= IVWL_PIPE_THREAD_BUFFER);
	for (i = 0; i < 2; i++) {
		pthread_join(thread[i], NULL);
		CHECK_EQ(w[i].written, PAYLOAD);
		close(out[i]);
	}
	close(alarm_fd);
	wait_budget_empty(budget);
	ivwl_pipe_budget_unref(budget);
}

IVWL_TEST_MAIN(
	TEST(test_stalled_reader_frees_blocked_writer),
	TEST(test_drained_reader_gets_everything),
	TEST(test_vm_budget_is_shared),
)
