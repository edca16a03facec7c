/* SPDX-License-Identifier: MIT */
/*
 * ivwl-agent against a real ivwl-server, with this process as the display
 * side: bad command lines, refusal while no display is there, quotas,
 * and reclaiming the slot and heap of a client killed with SIGKILL (only
 * once the display has let go of them).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent-client.h"
#include "device.h"
#include "harness.h"
#include "region.h"
#include "shm-access.h"

static char dir[] = "/tmp/ivwl-agent-test.XXXXXX";
static char app_sock[256], display_sock[256], agent_sock[256];
static pid_t server_pid = -1, agent_pid = -1;
static struct ivwl_device *display;
static struct ivwl_layout layout;

static const char *
bin(const char *env)
{
	const char *p = getenv(env);

	REQUIRE(p && p[0]);
	return p;
}

static pid_t
spawn(char *const argv[], bool quiet)
{
	pid_t pid = fork();

	REQUIRE(pid >= 0);
	if (pid == 0) {
		if (quiet) {
			int null = open("/dev/null", O_WRONLY);

			dup2(null, 2);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

static int
wait_status(pid_t pid)
{
	int status;

	REQUIRE(waitpid(pid, &status, 0) == pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static void
wait_socket(const char *path)
{
	struct stat st;
	int i;

	for (i = 0; i < 200; i++) {
		if (stat(path, &st) == 0 && S_ISSOCK(st.st_mode))
			return;
		usleep(25000);
	}
	REQUIRE(!"socket never appeared");
}

static void
run_agent_cli(const char *a, const char *b, const char *c, const char *d,
	      int expect)
{
	char *argv[] = { (char *)bin("IVWL_AGENT_BIN"), (char *)a, (char *)b,
			 (char *)c, (char *)d, NULL };

	if (wait_status(spawn(argv, true)) != expect) {
		fprintf(stderr, "ivwl-agent %s %s %s %s: expected exit %d\n",
			a ? a : "", b ? b : "", c ? c : "", d ? d : "",
			expect);
		ivwl_test_failures++;
	}
}

static void
test_bad_command_lines(void)
{
	run_agent_cli(NULL, NULL, NULL, NULL, 2);
	run_agent_cli("--listen", "/tmp/x", NULL, NULL, 2);
	run_agent_cli("--server", "a", "--device", "b", 2);
	run_agent_cli("--server", "a", NULL, NULL, 2);
	run_agent_cli("--bogus", NULL, NULL, NULL, 2);
	run_agent_cli("--server", "a", "--listen", "", 2);
	/* well formed, but nothing to attach to */
	run_agent_cli("--server", "/nonexistent/ivwl.sock", "--listen",
		      "/tmp/ivwl-agent-test-unused.sock", 1);
}

static void
start_server_and_agent(void)
{
	char *server_argv[] = { (char *)bin("IVWL_SERVER_BIN"), "--socket",
				app_sock, "--size", "16M", "--vectors", "4",
				NULL };
	char *agent_argv[] = { (char *)bin("IVWL_AGENT_BIN"), "--server",
			       app_sock, "--listen", agent_sock, NULL };

	REQUIRE(mkdtemp(dir));
	snprintf(app_sock, sizeof(app_sock), "%s/app.sock", dir);
	snprintf(display_sock, sizeof(display_sock), "%s/app.sock.display",
		 dir);
	snprintf(agent_sock, sizeof(agent_sock), "%s/agent.sock", dir);

	server_pid = spawn(server_argv, false);
	wait_socket(app_sock);
	agent_pid = spawn(agent_argv, false);
	wait_socket(agent_sock);
}

static void
stop_all(void)
{
	if (display)
		ivwl_device_destroy(display);
	if (agent_pid > 0) {
		kill(agent_pid, SIGTERM);
		CHECK_EQ(wait_status(agent_pid), 0);
	}
	if (server_pid > 0) {
		kill(server_pid, SIGTERM);
		wait_status(server_pid);
	}
	unlink(agent_sock);
	rmdir(dir);
}

static void
status_of(int fd, struct ivwl_agent_status *st)
{
	REQUIRE(ivwl_agent_status(fd, st) == 0);
}

static void
test_no_display_refuses(void)
{
	struct ivwl_agent_slot slot;
	struct ivwl_agent_status st;
	int fd;

	start_server_and_agent();
	fd = ivwl_agent_connect(agent_sock);
	REQUIRE(fd >= 0);
	status_of(fd, &st);
	/* One vector serves every slot; the agent lets go of the rest. */
	CHECK_EQ(st.usable_slots, IVWL_SLOT_COUNT);
	CHECK_EQ(st.free_slots, IVWL_SLOT_COUNT);
	CHECK_EQ(st.heap_free, st.heap_size);
	CHECK(st.app_epoch >= 1);
	CHECK_EQ(ivwl_agent_open_slot(fd, &slot), -EHOSTDOWN);
	close(fd);
}

static struct ivwl_slot_ctrl *
slot_ctrl(uint32_t slot)
{
	struct ivwl_slot_view view;

	ivwl_region_slot(ivwl_device_base(display), &layout, slot, &view);
	return view.ctrl;
}

static void
attach_display(void)
{
	struct ivwl_side_block *own;
	const char *err;

	REQUIRE(ivwl_device_open_server(display_sock, 5000, &display,
					&err) == 0);
	REQUIRE(ivwl_layout_compute(ivwl_device_size(display), &layout) == 0);
	/* the agent wrote the header when it started */
	CHECK(ivwl_region_header_matches(ivwl_device_base(display), &layout));
	own = ivwl_region_side(ivwl_device_base(display), IVWL_SIDE_DISPLAY);
	ivwl_shm_store(&own->epoch, ivwl_shm_load(&own->epoch) + 1);
	ivwl_shm_store_release(&own->state, IVWL_SIDE_READY);
}

static void
display_set(uint32_t slot, uint32_t state, uint32_t gen)
{
	ivwl_slot_state_store(&slot_ctrl(slot)->display, state, gen);
	if (ivwl_doorbell_post(ivwl_device_base(display), IVWL_SIDE_APP,
			       IVWL_DOORBELL_SLOT(slot)))
		ivwl_device_ring(display, IVWL_PEER_APP,
				 IVWL_DOORBELL_VECTOR);
}

/* Polls the agent until cond holds or about 5 s pass. */
#define EVENTUALLY(fd, st, cond)                                        \
	do {                                                            \
		int _i;                                                 \
		for (_i = 0; _i < 200; _i++) {                          \
			status_of(fd, &st);                             \
			if (cond)                                       \
				break;                                  \
			usleep(25000);                                  \
		}                                                       \
		CHECK(cond);                                            \
	} while (0)

static void
test_quotas_and_errors(void)
{
	struct ivwl_agent_slot s[IVWL_AGENT_MAX_SLOTS_PER_CLIENT + 1];
	struct ivwl_extent e;
	struct ivwl_agent_status st;
	uint32_t state, gen;
	int fd, i;

	attach_display();
	fd = ivwl_agent_connect(agent_sock);
	REQUIRE(fd >= 0);
	/* the agent sees the display once it dispatches the join */
	for (i = 0; i < 200; i++) {
		if (ivwl_agent_open_slot(fd, &s[0]) == 0)
			break;
		usleep(25000);
	}
	REQUIRE(i < 200);
	ivwl_slot_state_load(&slot_ctrl(s[0].slot)->app, &state, &gen);
	CHECK_EQ(state, IVWL_APP_SLOT_OPEN);
	CHECK_EQ(gen, s[0].generation);
	CHECK_EQ(s[0].ep.region_size, ivwl_device_size(display));
	CHECK_EQ(s[0].ep.doorbell_peer, IVWL_PEER_DISPLAY);
	CHECK_EQ(s[0].ep.doorbell_vector, IVWL_DOORBELL_VECTOR);

	for (i = 1; i < (int)IVWL_AGENT_MAX_SLOTS_PER_CLIENT; i++)
		REQUIRE(ivwl_agent_open_slot(fd, &s[i]) == 0);
	CHECK(s[0].slot != s[1].slot && s[1].slot != s[2].slot);
	CHECK_EQ(ivwl_agent_open_slot(fd, &s[i]), -EDQUOT);

	CHECK_EQ(ivwl_agent_alloc(fd, 0, &e), -EINVAL);
	CHECK_EQ(ivwl_agent_alloc(fd, layout.heap_size + 1, &e), -ENOMEM);
	CHECK_EQ(ivwl_agent_alloc(fd, UINT64_MAX, &e), -ENOMEM);
	REQUIRE(ivwl_agent_alloc(fd, 5000, &e) == 0);
	CHECK_EQ(e.length, 8192);
	CHECK(ivwl_heap_range_valid(&layout, e.offset, e.length));
	CHECK_EQ(ivwl_agent_free(fd, e.offset + 4096), -ENOENT);
	CHECK_EQ(ivwl_agent_free(fd, e.offset), 0);
	CHECK_EQ(ivwl_agent_free(fd, e.offset), -ENOENT);

	CHECK_EQ(ivwl_agent_close_slot(fd, s[0].slot, s[0].generation + 1),
		 -ENOENT);
	CHECK_EQ(ivwl_agent_close_slot(fd, 99, 1), -ENOENT);
	/* closed slots come back right away: the display never served them */
	for (i = 0; i < (int)IVWL_AGENT_MAX_SLOTS_PER_CLIENT; i++) {
		CHECK_EQ(ivwl_agent_close_slot(fd, s[i].slot, s[i].generation),
			 0);
		ivwl_endpoint_close(&s[i].ep);
	}
	EVENTUALLY(fd, st, st.free_slots == IVWL_SLOT_COUNT);
	CHECK_EQ(st.quarantined_slots, 0);
	close(fd);
}

/*
 * Every slot given: the next ask is refused as full (-EBUSY); every
 * client the agent serves: the next is hung up on (-ECONNRESET).  Each
 * has its words for the user.
 */
static void
test_full_refusals(void)
{
	enum { PER = IVWL_AGENT_MAX_SLOTS_PER_CLIENT,
	       CONNS = IVWL_SLOT_COUNT / IVWL_AGENT_MAX_SLOTS_PER_CLIENT + 1 };
	static struct ivwl_agent_slot s[CONNS][PER];
	static int fds[IVWL_AGENT_MAX_CLIENTS];
	struct ivwl_agent_slot extra;
	struct ivwl_agent_status st;
	int given[CONNS] = { 0 }, total = 0, ret = 0, c, i;

	for (c = 0; c < CONNS; c++) {
		fds[c] = ivwl_agent_connect(agent_sock);
		REQUIRE(fds[c] >= 0);
		for (i = 0; i < PER; i++) {
			ret = ivwl_agent_open_slot(fds[c], &s[c][i]);
			if (ret < 0)
				break;
			given[c]++;
			total++;
		}
		if (ret < 0)
			break;
	}
	CHECK_EQ(total, (int)IVWL_SLOT_COUNT);
	CHECK_EQ(ret, -EBUSY);
	CHECK(strstr(ivwl_agent_refusal(ret), "slot") != NULL);

	for (c = CONNS; c < (int)IVWL_AGENT_MAX_CLIENTS; c++) {
		fds[c] = ivwl_agent_connect(agent_sock);
		REQUIRE(fds[c] >= 0);
	}
	ret = ivwl_agent_connect(agent_sock);
	CHECK_EQ(ret, -ECONNRESET);
	if (ret >= 0)
		close(ret);
	CHECK(strstr(ivwl_agent_refusal(-ECONNRESET), "hung up") != NULL);
	/* and the words do not say "full" for a missing agent */
	CHECK(strstr(ivwl_agent_refusal(-ENOENT), "no ivwl-agent") != NULL);
	for (c = CONNS; c < (int)IVWL_AGENT_MAX_CLIENTS; c++)
		close(fds[c]);

	for (c = 0; c < CONNS; c++) {
		for (i = 0; i < given[c]; i++) {
			CHECK_EQ(ivwl_agent_close_slot(fds[c], s[c][i].slot,
						       s[c][i].generation), 0);
			ivwl_endpoint_close(&s[c][i].ep);
		}
	}
	/* room again */
	REQUIRE(ivwl_agent_open_slot(fds[0], &extra) == 0);
	CHECK_EQ(ivwl_agent_close_slot(fds[0], extra.slot, extra.generation),
		 0);
	ivwl_endpoint_close(&extra.ep);
	EVENTUALLY(fds[0], st, st.free_slots == IVWL_SLOT_COUNT);
	for (c = 0; c < CONNS; c++)
		close(fds[c]);
}

static void
test_sigkill_reclaims_after_display_lets_go(void)
{
	struct ivwl_agent_status st;
	uint32_t state, gen, slot;
	int fd, sync[2];
	pid_t child;

	REQUIRE(pipe(sync) == 0);
	child = fork();
	REQUIRE(child >= 0);
	if (child == 0) {
		struct ivwl_agent_slot s;
		struct ivwl_extent e;
		int cfd = ivwl_agent_connect(agent_sock), i;

		if (cfd < 0 || ivwl_agent_open_slot(cfd, &s) < 0)
			_exit(1);
		for (i = 0; i < 3; i++)
			if (ivwl_agent_alloc(cfd, 1 << 20, &e) < 0)
				_exit(1);
		slot = s.slot;
		if (write(sync[1], &slot, sizeof(slot)) != sizeof(slot))
			_exit(1);
		pause();
		_exit(0);
	}
	close(sync[1]);
	REQUIRE(read(sync[0], &slot, sizeof(slot)) == sizeof(slot));
	close(sync[0]);

	fd = ivwl_agent_connect(agent_sock);
	REQUIRE(fd >= 0);
	status_of(fd, &st);
	CHECK_EQ(st.free_slots, IVWL_SLOT_COUNT - 1);
	CHECK_EQ(st.heap_size - st.heap_free, 3 << 20);

	/* the display serves the connection, then the client dies */
	ivwl_slot_state_load(&slot_ctrl(slot)->app, &state, &gen);
	CHECK_EQ(state, IVWL_APP_SLOT_OPEN);
	display_set(slot, IVWL_DISPLAY_SLOT_OPEN, gen);
	kill(child, SIGKILL);
	wait_status(child);

	/* given back at once in the region, but held while displayed */
	EVENTUALLY(fd, st, st.quarantined_slots == 1);
	ivwl_slot_state_load(&slot_ctrl(slot)->app, &state, &gen);
	CHECK_EQ(state, IVWL_APP_SLOT_FREE);
	CHECK_EQ(st.free_slots, IVWL_SLOT_COUNT - 1);
	CHECK_EQ(st.heap_size - st.heap_free, 3 << 20);

	/* the display lets go: everything comes back */
	display_set(slot, IVWL_DISPLAY_SLOT_CLOSED, gen);
	EVENTUALLY(fd, st, st.free_slots == IVWL_SLOT_COUNT);
	CHECK_EQ(st.quarantined_slots, 0);
	CHECK_EQ(st.heap_free, st.heap_size);
	close(fd);
}

static void
test_display_leaving_releases_quarantine(void)
{
	struct ivwl_agent_slot s;
	struct ivwl_agent_status st;
	int fd, owner;

	owner = ivwl_agent_connect(agent_sock);
	fd = ivwl_agent_connect(agent_sock);
	REQUIRE(owner >= 0 && fd >= 0);
	REQUIRE(ivwl_agent_open_slot(owner, &s) == 0);
	display_set(s.slot, IVWL_DISPLAY_SLOT_OPEN, s.generation);
	ivwl_endpoint_close(&s.ep);
	close(owner);
	EVENTUALLY(fd, st, st.quarantined_slots == 1);

	ivwl_device_destroy(display);
	display = NULL;
	EVENTUALLY(fd, st, st.free_slots == IVWL_SLOT_COUNT);
	CHECK_EQ(st.quarantined_slots, 0);
	close(fd);
}

static void
test_shutdown(void)
{
	stop_all();
}

IVWL_TEST_MAIN(
	TEST(test_bad_command_lines),
	TEST(test_no_display_refuses),
	TEST(test_quotas_and_errors),
	TEST(test_full_refusals),
	TEST(test_sigkill_reclaims_after_display_lets_go),
	TEST(test_display_leaving_releases_quarantine),
	TEST(test_shutdown),
)
