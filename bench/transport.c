/* SPDX-License-Identifier: MIT */
/*
 * ivwl-bench transport: the ivwl ring against a unix socket and against
 * stop-and-wait shared memory, between two processes, in one run.
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "transport.h"
#include "transport-report.h"

#define STOPWAIT_BUFFER (512u << 10)
#define MIB (1ull << 20)

struct options {
	bool quick;
	bool json;
	bool ring_local;
	bool pin;
	bool verbose;
	const char *server_bin;
	unsigned links;		/* bit per link */
	uint64_t bytes;
	uint64_t repeat;
	uint64_t rtt_count;
	uint64_t flood_count;
	uint64_t work_ns;
	uint64_t region_size;
	uint64_t chunk;
	uint64_t space_batch;
	uint64_t data_batch;
	uint64_t spin_us;
	uint64_t local_ring_size;
};

struct run {
	struct options opt;
	struct ivwl_bench_link *link[IVWL_BENCH_LINKS];
	char *server_bin;
	int ctl;
	pid_t child;
	struct ivwl_bench_payload payload;
	struct ivwl_bench_results res;
};

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: ivwl-bench transport [OPTIONS]\n"
		"\n"
		"Moves bytes between two processes over the ivwl ring (through\n"
		"ivwl-server), a unix socket and stop-and-wait shared memory,\n"
		"and prints them side by side.  'ring' sleeps as soon as it has\n"
		"nothing to do; 'ring-spin' polls the ring a while first.\n"
		"\n"
		"  --quick             small counts, for smoke tests (seconds)\n"
		"  --json              one JSON object on stdout, nothing else\n"
		"  --transports LIST   comma list of ring,ring-spin,socket,\n"
		"                      stopwait (default: all)\n"
		"  --server-bin PATH   ivwl-server to use (else $IVWL_SERVER_BIN,\n"
		"                      else ../host/ivwl-server next to this binary)\n"
		"  --ring-local        ring without ivwl-server: a memfd and two\n"
		"                      eventfds (diagnostic: isolates the ring)\n"
		"  --ring-local-size SIZE  --ring-local with rings of SIZE\n"
		"                      instead of layout v1's (what-if)\n"
		"  --bytes SIZE        bytes per bulk run (1G; quick 64M)\n"
		"  --repeat N          bulk runs per transport and size, the\n"
		"                      median is reported (3; quick 1)\n"
		"  --rtt-count N       timed round trips (20000; quick 2000)\n"
		"  --flood-count N     records in the doorbell run (1000000;\n"
		"                      quick 50000; stopwait runs 1/50 of it)\n"
		"  --work-ns N         consumer work per flood record (250)\n"
		"  --region-size SIZE  region for ivwl-server (256M: 256K rings)\n"
		"  --chunk BYTES       ring record payload for bulk data\n"
		"                      (a quarter ring minus the record header)\n"
		"  --space-kick BYTES  ring consumer frees this much before it\n"
		"                      checks for a producer asleep on space\n"
		"                      (half the ring; 0: after every record)\n"
		"  --data-kick BYTES   ring producer publishes this much before\n"
		"                      it checks for a consumer asleep on data\n"
		"                      (half the ring; 0: after every record);\n"
		"                      both always check before sleeping and\n"
		"                      when idle, a producer also at the end of\n"
		"                      a message\n"
		"  --spin-us N         ring-spin: poll this long before sleeping\n"
		"                      (20)\n"
		"  --pin               app process on CPU 0, display on CPU 1\n"
		"  --verbose           let ivwl-server log to stderr\n"
		"  -h, --help          this text\n"
		"\n"
		"SIZE takes K, M, G suffixes (binary).  Exit status: 0 ok,\n"
		"1 the run failed or a checksum did not match, 2 bad usage.\n");
}

static int
bad_usage(const char *what, const char *arg)
{
	fprintf(stderr, "ivwl-bench transport: %s%s%s%s\n"
		"Try 'ivwl-bench transport --help'.\n", what,
		arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
	return BENCH_EXIT_USAGE;
}

static bool
parse_links(const char *list, unsigned *mask)
{
	char *copy = strdup(list), *tok, *save = NULL;
	unsigned i;
	bool ok = copy != NULL;

	*mask = 0;
	for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && ok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < IVWL_BENCH_LINKS; i++)
			if (strcmp(tok, ivwl_bench_link_names[i]) == 0)
				break;
		if (i == IVWL_BENCH_LINKS)
			ok = false;
		else
			*mask |= 1u << i;
	}
	free(copy);
	return ok && *mask != 0;
}

enum {
	OPT_QUICK = 256, OPT_JSON, OPT_TRANSPORTS, OPT_SERVER_BIN,
	OPT_RING_LOCAL, OPT_BYTES, OPT_RTT_COUNT, OPT_FLOOD_COUNT,
	OPT_WORK_NS, OPT_REGION_SIZE, OPT_CHUNK, OPT_SPACE_KICK, OPT_DATA_KICK,
	OPT_SPIN_US,
	OPT_PIN, OPT_REPEAT, OPT_RING_LOCAL_SIZE, OPT_VERBOSE,
};

static const struct option long_options[] = {
	{ "quick", no_argument, NULL, OPT_QUICK },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "transports", required_argument, NULL, OPT_TRANSPORTS },
	{ "server-bin", required_argument, NULL, OPT_SERVER_BIN },
	{ "ring-local", no_argument, NULL, OPT_RING_LOCAL },
	{ "bytes", required_argument, NULL, OPT_BYTES },
	{ "rtt-count", required_argument, NULL, OPT_RTT_COUNT },
	{ "flood-count", required_argument, NULL, OPT_FLOOD_COUNT },
	{ "work-ns", required_argument, NULL, OPT_WORK_NS },
	{ "region-size", required_argument, NULL, OPT_REGION_SIZE },
	{ "chunk", required_argument, NULL, OPT_CHUNK },
	{ "space-kick", required_argument, NULL, OPT_SPACE_KICK },
	{ "data-kick", required_argument, NULL, OPT_DATA_KICK },
	{ "spin-us", required_argument, NULL, OPT_SPIN_US },
	{ "pin", no_argument, NULL, OPT_PIN },
	{ "verbose", no_argument, NULL, OPT_VERBOSE },
	{ "repeat", required_argument, NULL, OPT_REPEAT },
	{ "ring-local-size", required_argument, NULL, OPT_RING_LOCAL_SIZE },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int
bad_value(int c, const char *arg)
{
	char what[64];
	unsigned i;

	snprintf(what, sizeof(what), "bad value for an option:");
	for (i = 0; long_options[i].name; i++)
		if (long_options[i].val == c)
			snprintf(what, sizeof(what), "bad value for --%s:",
				 long_options[i].name);
	return bad_usage(what, arg);
}

/* Numeric options: which field, parsed how, and its sane range. */
static bool
parse_number(int c, const char *arg, struct options *o)
{
	uint64_t v;
	bool size = c == OPT_BYTES || c == OPT_REGION_SIZE ||
		    c == OPT_CHUNK || c == OPT_SPACE_KICK ||
		    c == OPT_DATA_KICK ||
		    c == OPT_RING_LOCAL_SIZE;

	if (!(size ? ivwl_bench_parse_size(arg, &v) :
		     ivwl_bench_parse_count(arg, &v)))
		return false;
	switch (c) {
	case OPT_BYTES:
		o->bytes = v;
		return v >= MIB;
	case OPT_RTT_COUNT:
		o->rtt_count = v;
		return v >= 1 && v <= 100000000;
	case OPT_FLOOD_COUNT:
		o->flood_count = v;
		return v >= 50 && v <= 1000000000;
	case OPT_WORK_NS:
		o->work_ns = v;
		return v <= 1000000;
	case OPT_REGION_SIZE:
		o->region_size = v;
		return true;	/* checked against the layout later */
	case OPT_CHUNK:
		o->chunk = v;
		return v >= 8 && v <= UINT32_MAX;
	case OPT_SPACE_KICK:
		o->space_batch = v < UINT32_MAX ? v : UINT32_MAX - 1;
		return true;
	case OPT_DATA_KICK:
		o->data_batch = v < UINT32_MAX ? v : UINT32_MAX - 1;
		return true;
	case OPT_SPIN_US:
		o->spin_us = v;
		return v >= 1 && v <= 1000000;
	case OPT_RING_LOCAL_SIZE:
		o->local_ring_size = v;
		o->ring_local = true;
		return v <= (1u << 30);
	case OPT_REPEAT:
		o->repeat = v;
		return v >= 1 && v <= IVWL_BENCH_MAX_REPEAT;
	}
	return false;
}

static int
parse_options(int argc, char *argv[], struct options *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	o->links = (1u << IVWL_BENCH_LINKS) - 1;
	o->work_ns = 250;
	o->region_size = 256 * MIB;
	o->space_batch = IVWL_BENCH_KICK_BATCH_AUTO;
	o->data_batch = IVWL_BENCH_KICK_BATCH_AUTO;
	o->spin_us = 20;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", long_options, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			exit(0);
		case OPT_QUICK:
			o->quick = true;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_RING_LOCAL:
			o->ring_local = true;
			break;
		case OPT_PIN:
			o->pin = true;
			break;
		case OPT_SERVER_BIN:
			o->server_bin = optarg;
			break;
		case OPT_TRANSPORTS:
			if (!parse_links(optarg, &o->links))
				return bad_usage("unknown transport in", optarg);
			break;
		case '?':
			return bad_usage("unknown option or missing value:",
					 argv[optind - 1]);
		case OPT_VERBOSE:
			o->verbose = true;
			break;
		default:
			if (!parse_number(c, optarg, o))
				return bad_value(c, optarg);
			break;
		}
	}
	if (optind < argc)
		return bad_usage("unexpected argument", argv[optind]);

	if (!o->bytes)
		o->bytes = o->quick ? 64 * MIB : 1024 * MIB;
	if (!o->repeat)
		o->repeat = o->quick ? 1 : 3;
	if (!o->rtt_count)
		o->rtt_count = o->quick ? 2000 : 20000;
	if (!o->flood_count)
		o->flood_count = o->quick ? 50000 : 1000000;
	return 0;
}

static struct ivwl_bench_link *
create_ring(struct run *run, int spin_us, const char **err)
{
	struct ivwl_bench_ring_config rc;

	memset(&rc, 0, sizeof(rc));
	rc.server_bin = run->server_bin;
	rc.region_size = run->opt.region_size;
	rc.chunk = (uint32_t)run->opt.chunk;
	rc.space_batch = (uint32_t)run->opt.space_batch;
	rc.data_batch = (uint32_t)run->opt.data_batch;
	rc.spin_us = spin_us;
	rc.local_ring_size = (uint32_t)run->opt.local_ring_size;
	rc.server_quiet = !run->opt.verbose;
	return ivwl_bench_link_ring_create(&rc, err);
}

static bool
wanted(const struct run *run, unsigned li)
{
	return run->opt.links & (1u << li);
}

static int
create_links(struct run *run)
{
	const char *err = NULL;
	unsigned li;

	if ((wanted(run, IVWL_BENCH_RING) ||
	     wanted(run, IVWL_BENCH_RING_SPIN)) && !run->opt.ring_local) {
		run->server_bin = ivwl_bench_server_find(run->opt.server_bin);
		if (!run->server_bin) {
			fprintf(stderr, "ivwl-bench transport: ivwl-server not "
				"found: build host/ivwl-server, or pass "
				"--server-bin PATH or set IVWL_SERVER_BIN\n");
			return -ENOENT;
		}
	}
	for (li = 0; li < IVWL_BENCH_LINKS; li++) {
		if (!wanted(run, li))
			continue;
		switch (li) {
		case IVWL_BENCH_RING:
			run->link[li] = create_ring(run, 0, &err);
			break;
		case IVWL_BENCH_RING_SPIN:
			/* Its own server and region: nothing shared. */
			run->link[li] = create_ring(run, (int)run->opt.spin_us,
						    &err);
			break;
		case IVWL_BENCH_SOCKET:
			run->link[li] = ivwl_bench_link_socket_create(&err);
			break;
		case IVWL_BENCH_STOPWAIT:
			run->link[li] = ivwl_bench_link_stopwait_create(
				STOPWAIT_BUFFER, &err);
			break;
		}
		if (!run->link[li]) {
			fprintf(stderr, "ivwl-bench transport: %s: %s\n",
				ivwl_bench_link_names[li], err);
			return -EIO;
		}
	}
	return 0;
}

static void
destroy_links(struct run *run)
{
	unsigned i;

	for (i = 0; i < IVWL_BENCH_LINKS; i++) {
		if (run->link[i])
			run->link[i]->ops->destroy(run->link[i]);
		run->link[i] = NULL;
	}
}

/* One CPU per process, when asked and when there are two. */
static void
pin_to_cpu(const struct run *run, enum ivwl_bench_role role)
{
	cpu_set_t set;

	if (!run->opt.pin || sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return;
	CPU_ZERO(&set);
	CPU_SET(role == IVWL_BENCH_ROLE_APP ? 0 : 1, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		fprintf(stderr, "ivwl-bench transport: cannot pin: %s\n",
			strerror(errno));
}

/* Both processes: attach every link and make the private buffers. */
static int
attach_all(struct run *run, enum ivwl_bench_role role)
{
	const uint64_t sizes[2] = { 64 << 10, MIB };
	const char *err;
	unsigned i;
	int ret;

	pin_to_cpu(run, role);
	for (i = 0; i < IVWL_BENCH_LINKS; i++) {
		if (!run->link[i])
			continue;
		err = NULL;
		ret = run->link[i]->ops->attach(run->link[i], role, &err);
		if (ret < 0) {
			fprintf(stderr, "ivwl-bench transport: %s (%s side): "
				"%s: %s%s\n", ivwl_bench_link_names[i],
				role == IVWL_BENCH_ROLE_APP ? "app" : "display",
				err ? err : "attach failed", strerror(-ret),
				run->opt.verbose ? "" :
				" (--verbose shows ivwl-server's log)");
			return ret;
		}
	}
	return ivwl_bench_payload_init(&run->payload, MIB, sizes);
}

static int
ctl_send(int fd, const void *msg, size_t len)
{
	ssize_t n;

	do
		n = send(fd, msg, len, 0);
	while (n < 0 && errno == EINTR && !ivwl_bench_child_died);
	return n == (ssize_t)len ? 0 : -EPIPE;
}

static int
ctl_recv(int fd, void *msg, size_t len)
{
	ssize_t n;

	do
		n = recv(fd, msg, len, 0);
	while (n < 0 && errno == EINTR && !ivwl_bench_child_died);
	return n == (ssize_t)len ? 0 : -EPIPE;
}

/* The display process: attach, then serve phases until told to quit. */
static int
child_main(struct run *run)
{
	struct ivwl_bench_report rep;
	struct ivwl_bench_cmd cmd;
	struct ivwl_bench_link *link;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	memset(&rep, 0, sizeof(rep));
	rep.status = attach_all(run, IVWL_BENCH_ROLE_DISPLAY);
	if (ctl_send(run->ctl, &rep, sizeof(rep)) < 0 || rep.status < 0)
		return BENCH_EXIT_FAIL;

	while (ctl_recv(run->ctl, &cmd, sizeof(cmd)) == 0) {
		if (cmd.phase == IVWL_BENCH_PHASE_QUIT)
			return 0;
		link = cmd.link < IVWL_BENCH_LINKS ? run->link[cmd.link] :
						     NULL;
		if (!link) {
			memset(&rep, 0, sizeof(rep));
			rep.status = -EINVAL;
		} else {
			ivwl_bench_serve_phase(link, &run->payload, &cmd, &rep);
		}
		if (ctl_send(run->ctl, &rep, sizeof(rep)) < 0)
			break;
	}
	return BENCH_EXIT_FAIL;
}

static void
note_report(struct run *run, const struct ivwl_bench_report *rep)
{
	run->res.messages += rep->messages;
	run->res.verified += rep->verified;
	run->res.bad += rep->bad;
}

static int
phase_rtt(struct run *run, unsigned li)
{
	struct ivwl_bench_link *link = run->link[li];
	struct ivwl_bench_link_result *r = &run->res.link[li];
	uint64_t warmup = run->opt.rtt_count / 10 + 10;
	struct ivwl_bench_cmd cmd = {
		.phase = IVWL_BENCH_PHASE_RTT,
		.link = li,
		.count = warmup + run->opt.rtt_count,
	};
	struct ivwl_bench_report rep;
	uint64_t *rtt;
	int ret;

	rtt = calloc(run->opt.rtt_count, sizeof(*rtt));
	if (!rtt)
		return -ENOMEM;
	ret = ctl_send(run->ctl, &cmd, sizeof(cmd));
	if (ret == 0)
		ret = ivwl_bench_rtt_run(link, warmup, run->opt.rtt_count, rtt);
	if (ret == 0)
		ret = ctl_recv(run->ctl, &rep, sizeof(rep));
	if (ret == 0)
		ret = rep.status;
	if (ret == 0) {
		note_report(run, &rep);
		ivwl_bench_sort_u64(rtt, run->opt.rtt_count);
		r->rtt_done = true;
		r->rtt_p50_us = ivwl_bench_percentile(rtt, run->opt.rtt_count,
						      50) / 1000.0;
		r->rtt_p99_us = ivwl_bench_percentile(rtt, run->opt.rtt_count,
						      99) / 1000.0;
	}
	free(rtt);
	return ret;
}

static int
phase_bulk(struct run *run, unsigned li, unsigned si, uint64_t size)
{
	struct ivwl_bench_link *link = run->link[li];
	struct ivwl_bench_link_result *r = &run->res.link[li];
	struct ivwl_bench_link_stats before = link->stats;
	struct ivwl_bench_cmd cmd = {
		.phase = IVWL_BENCH_PHASE_BULK,
		.link = li,
		.size = size,
	};
	struct ivwl_bench_report rep;
	uint64_t t0, t1, switches;
	int ret;

	cmd.count = run->opt.bytes / size;
	if (cmd.count < 4)
		cmd.count = 4;
	ret = ctl_send(run->ctl, &cmd, sizeof(cmd));
	if (ret < 0)
		return ret;
	switches = ivwl_bench_voluntary_switches();
	t0 = ivwl_bench_now_ns();
	ret = ivwl_bench_bulk_send(link, &run->payload, size, cmd.count);
	/* Timed up to the receiver's word that it has every byte. */
	if (ret == 0)
		ret = ctl_recv(run->ctl, &rep, sizeof(rep));
	t1 = ivwl_bench_now_ns();
	switches = ivwl_bench_voluntary_switches() - switches;
	if (ret == 0)
		ret = rep.status;
	if (ret < 0)
		return ret;
	note_report(run, &rep);
	r->has_doorbells = li != IVWL_BENCH_SOCKET;
	if (r->runs[si] < IVWL_BENCH_MAX_REPEAT)
		r->gbps_run[si][r->runs[si]++] = (double)(size * cmd.count) /
						 (double)(t1 - t0);
	r->bulk_doorbells[si] += link->stats.doorbells - before.doorbells +
				 rep.doorbells;
	r->bulk_messages[si] += cmd.count;
	/* Less the one wait for the receiver's report. */
	r->bulk_switches[si] += switches + rep.switches - (switches > 0);
	return 0;
}

static int
phase_flood(struct run *run, unsigned li)
{
	struct ivwl_bench_link *link = run->link[li];
	struct ivwl_bench_link_result *r = &run->res.link[li];
	struct ivwl_bench_link_stats before = link->stats;
	struct ivwl_bench_cmd cmd = {
		.phase = IVWL_BENCH_PHASE_FLOOD,
		.link = li,
		.count = run->opt.flood_count,
		.work_ns = run->opt.work_ns,
	};
	struct ivwl_bench_report rep;
	uint64_t t0, t1;
	int ret;

	if (li == IVWL_BENCH_STOPWAIT)
		cmd.count = run->opt.flood_count / 50;
	ret = ctl_send(run->ctl, &cmd, sizeof(cmd));
	if (ret < 0)
		return ret;
	t0 = ivwl_bench_now_ns();
	ret = ivwl_bench_flood_send(link, cmd.count);
	if (ret == 0)
		ret = ctl_recv(run->ctl, &rep, sizeof(rep));
	t1 = ivwl_bench_now_ns();
	if (ret == 0)
		ret = rep.status;
	if (ret < 0)
		return ret;
	note_report(run, &rep);
	r->flood_done = true;
	r->flood_records = cmd.count;
	r->flood_producer_doorbells = link->stats.doorbells - before.doorbells;
	r->flood_consumer_doorbells = rep.doorbells;
	r->flood_producer_sleeps = link->stats.sleeps - before.sleeps;
	r->flood_consumer_sleeps = rep.sleeps;
	r->flood_ns_per_record = (double)(t1 - t0) / (double)cmd.count;
	return 0;
}

static int
run_phases(struct run *run)
{
	static const uint64_t sizes[2] = { 64 << 10, MIB };
	unsigned li, si, rep;
	int ret = 0;

	for (li = 0; li < IVWL_BENCH_LINKS && ret == 0; li++)
		if (run->link[li])
			ret = phase_rtt(run, li);
	/* Interleaved, so that a burst of load elsewhere on the machine
	 * hits every transport rather than one. */
	for (rep = 0; rep < run->opt.repeat; rep++)
		for (si = 0; si < 2; si++)
			for (li = 0; li < IVWL_BENCH_LINKS && ret == 0; li++)
				if (run->link[li])
					ret = phase_bulk(run, li, si,
							 sizes[si]);
	/* The socket has no doorbells to count. */
	for (li = 0; li < IVWL_BENCH_LINKS && ret == 0; li++)
		if (run->link[li] && li != IVWL_BENCH_SOCKET)
			ret = phase_flood(run, li);
	if (ret < 0)
		fprintf(stderr, "ivwl-bench transport: a phase failed: %s\n",
			strerror(-ret));
	return ret;
}

static int
parent_main(struct run *run)
{
	struct ivwl_bench_report rep;
	struct ivwl_bench_cmd quit = { .phase = IVWL_BENCH_PHASE_QUIT };
	int ret, status;

	ret = attach_all(run, IVWL_BENCH_ROLE_APP);
	if (ret == 0)
		ret = ctl_recv(run->ctl, &rep, sizeof(rep));
	if (ret == 0 && rep.status < 0)
		ret = rep.status;
	if (ret == 0)
		ret = run_phases(run);

	ctl_send(run->ctl, &quit, sizeof(quit));
	close(run->ctl);
	waitpid(run->child, &status, 0);
	if (ret == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		ret = -EPIPE;
	return ret;
}

static void
fill_config(struct run *run)
{
	struct ivwl_bench_link *ring = run->link[IVWL_BENCH_RING] ?
		run->link[IVWL_BENCH_RING] : run->link[IVWL_BENCH_RING_SPIN];
	struct ivwl_bench_ring_info info;

	run->res.quick = run->opt.quick;
	run->res.ring_local = run->opt.ring_local;
	run->res.bytes = run->opt.bytes;
	run->res.repeat = run->opt.repeat;
	run->res.rtt_count = run->opt.rtt_count;
	run->res.work_ns = run->opt.work_ns;
	run->res.spin_us = run->opt.spin_us;
	run->res.stopwait_buffer = STOPWAIT_BUFFER;
	if (ring) {
		ivwl_bench_link_ring_info(ring, &info);
		run->res.ring_size = info.size;
		run->res.ring_chunk = info.chunk;
		run->res.space_batch = info.space_batch;
		run->res.data_batch = info.data_batch;
	}
}

int
ivwl_bench_transport_main(int argc, char *argv[])
{
	struct run run;
	int sv[2], ret;

	memset(&run, 0, sizeof(run));
	ret = parse_options(argc, argv, &run.opt);
	if (ret)
		return ret;
	ivwl_bench_install_signals(run.opt.quick ? 120 : 600);

	if (create_links(&run) < 0)
		goto err_links;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		goto err_links;

	fflush(NULL);
	run.child = fork();
	if (run.child < 0)
		goto err_sv;
	if (run.child == 0) {
		close(sv[0]);
		run.ctl = sv[1];
		_exit(child_main(&run));
	}
	close(sv[1]);
	run.ctl = sv[0];

	ret = parent_main(&run);
	fill_config(&run);
	ivwl_bench_report_summarize(&run.res);
	destroy_links(&run);
	ivwl_bench_payload_fini(&run.payload);
	free(run.server_bin);

	run.res.checksums_ok = ret == 0 && run.res.bad == 0 &&
			       run.res.verified > 0;
	if (ret == 0 || run.opt.json)
		ivwl_bench_report_print(&run.res, run.opt.json);
	return ret == 0 && run.res.checksums_ok ? 0 : BENCH_EXIT_FAIL;

err_sv:
	close(sv[0]);
	close(sv[1]);
err_links:
	destroy_links(&run);
	free(run.server_bin);
	return BENCH_EXIT_FAIL;
}
