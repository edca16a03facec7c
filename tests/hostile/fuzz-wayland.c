/* SPDX-License-Identifier: MIT */
/*
 * ivwl-wayland-fuzzer: a hostile app-VM that plays stateful Wayland
 * clients on several slots of its region at once, against a real weston
 * with ivwl.so, to find crashes, hangs and growth in weston that a VM can
 * reach through the plugin.
 *
 *   ivwl-wayland-fuzzer --socket PATH [--seconds N] [--seed S] [--slots N]
 *                       [--trace PATH] [--ring N] [--bad PERMILLE]
 *                       [--churn PERMILLE] [--scribble PERMILLE]
 *                       [--violate PERMILLE] [--spare set-parent|viewport]
 *                       [--verbose]
 *   ivwl-wayland-fuzzer --socket PATH --replay TRACE [--conn N[,N...]]
 *                       [--upto SEQ] [--delay MS] [--seconds HOLD]
 *
 * Every request sent is a trace line ("#SEQ slot K conn C: iface@id.
 * request(args) = WORDS fd=... !tag"), kept per connection in a ring of
 * the last --ring and written to --trace when the connection ends (and
 * for the live ones at exit, SIGTERM included).  --replay sends a
 * trace's lines again in SEQ order, from the words, with serials of
 * lines tagged !ack and !pong taken from the events of the replay.
 *
 * Each connection runs every request through a dry run of the plugin's
 * request path first (fuzz-oracle.c); one that would end the connection
 * is dropped, or sent as a deliberate violation with --violate's odds
 * (a trace note "-- violation: WHY" before it).  So most connections
 * live for hundreds of requests and reach the states weston's bugs need.
 *
 * Ends with one line "wayland-fuzzer: seconds=... key=value ...".
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"
#include "ivwl-protocols.h"

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static bool
running(struct ivwl_fuzz *f)
{
	return !stop && ivwl_hostile_time_left(&f->h);
}

/* ---- connections ---------------------------------------------------- */

static void
end_conn(struct ivwl_fuzz *f, uint32_t k, const char *how)
{
	struct ivwl_fuzz_conn *c = f->conn[k];

	if (!c)
		return;
	ivwl_fuzz_note(f, c, "end: %s", how);
	ivwl_fuzz_conn_end(f, c, how);
	f->conn[k] = NULL;
}

/* Waits for the sync callback id, reading events; false on timeout. */
static bool
wait_done(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c, uint32_t callback,
	  int timeout_ms)
{
	int64_t end = ivwl_now_ms() + timeout_ms;

	while (ivwl_now_ms() < end && !stop) {
		ivwl_fuzz_events(f, c);
		if (callback < c->count &&
		    c->obj[callback].state != IVWL_FUZZ_LIVE)
			return true;
		ivwl_hostile_slot_poll(&f->h, c->slot);
		if (f->h.slot[c->slot].phase != IVWL_HOSTILE_LIVE)
			return false;
		usleep(1000);
	}
	return false;
}

static uint32_t
display_req(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c, uint16_t op)
{
	uint32_t id = ivwl_fuzz_next_id(c);
	struct ivwl_out out;

	ivwl_out_reset(&out);
	ivwl_out_begin(&out, IVWL_WIRE_DISPLAY_ID, op);
	ivwl_out_u32(&out, id);
	ivwl_out_end(&out);
	return ivwl_fuzz_emit(f, c, &out, NULL) ? id : 0;
}

/* A new connection on slot k, with its registry's globals read. */
static void
start_conn(struct ivwl_fuzz *f, uint32_t k)
{
	struct ivwl_fuzz_conn *c = ivwl_fuzz_conn_new(f, k);
	uint32_t callback;

	if (!c)
		return;
	f->conn[k] = c;
	ivwl_fuzz_note(f, c, "open");
	if (!ivwl_hostile_slot_open_wait(&f->h, k, 1000)) {
		end_conn(f, k, "the display did not serve the open");
		return;
	}
	display_req(f, c, IVWL_REQ_WL_DISPLAY_GET_REGISTRY);
	callback = display_req(f, c, IVWL_REQ_WL_DISPLAY_SYNC);
	if (callback && wait_done(f, c, callback, 1000))
		f->h.st.sessions++;
}

static void
churn(struct ivwl_fuzz *f, uint32_t k)
{
	struct ivwl_fuzz_conn *c = f->conn[k];

	if (ivwl_rnd_below(&f->h, 3) == 0) {
		/* a new generation over the live one: no FREE in between */
		ivwl_fuzz_note(f, c, "reopen");
		end_conn(f, k, "reopened");
		f->st.reopens++;
	} else {
		ivwl_fuzz_note(f, c, "close");
		ivwl_hostile_slot_close(&f->h, k);
		end_conn(f, k, "closed with its state live");
		f->st.closes++;
	}
	start_conn(f, k);
}

/* A few bytes of the region flipped: rings, slot words, pool memory. */
static void
scribble(struct ivwl_fuzz *f)
{
	struct ivwl_hostile *h = &f->h;
	uint32_t n = 1 + ivwl_rnd_below(h, 8), i;
	uint64_t at;

	for (i = 0; i < n; i++) {
		at = ((uint64_t)ivwl_rnd(h) >> 8) % h->layout.heap_offset;
		if (ivwl_rnd_below(h, 2))
			at = h->layout.heap_offset +
			     ((uint64_t)ivwl_rnd(h) >> 8) % h->layout.heap_size;
		h->base[at] ^= (uint8_t)(1u << ivwl_rnd_below(h, 8));
		h->st.flips++;
	}
	f->st.scribbles++;
	for (i = 0; i < f->nslots; i++)
		if (f->conn[i])
			ivwl_fuzz_note(f, f->conn[i], "scribble %u bytes", n);
}

static void
step(struct ivwl_fuzz *f, uint32_t k)
{
	struct ivwl_hostile *h = &f->h;
	struct ivwl_fuzz_conn *c = f->conn[k];
	uint32_t n, i;

	if (!c) {
		start_conn(f, k);
		return;
	}
	/* events first: a wl_display.error then lands in the trace */
	ivwl_fuzz_events(f, c);
	ivwl_hostile_slot_poll(h, k);
	if (h->slot[k].phase != IVWL_HOSTILE_LIVE) {
		f->st.display_closed++;
		if (!c->violated)
			f->st.surprises++;
		end_conn(f, k, c->violated ? "the display closed it" :
			 "the display closed it, no violation sent");
		return;
	}
	if (c->dead && !c->violated)
		f->st.surprises++;
	if (c->dead || c->count + 64 >= IVWL_FUZZ_MAX_IDS) {
		ivwl_fuzz_note(f, c, "close");
		ivwl_hostile_slot_close(h, k);
		end_conn(f, k, c->dead ? "dead: error or stuck" :
			 "out of ids");
		return;
	}
	if (ivwl_rnd_below(h, 1000) < f->churn_permille) {
		churn(f, k);
		return;
	}
	ivwl_fuzz_answer(f, c);
	n = 1 + ivwl_rnd_below(h, 8);
	for (i = 0; i < n && !c->dead; i++) {
		if (ivwl_rnd_below(h, 10) < 3)
			ivwl_fuzz_helper(f, c);
		else
			ivwl_fuzz_random_request(f, c);
	}
}

static void
fuzz(struct ivwl_fuzz *f)
{
	uint32_t k;

	while (running(f)) {
		for (k = 0; k < f->nslots && running(f); k++) {
			step(f, k);
			if (ivwl_rnd_below(&f->h, 1000) < f->scribble_permille)
				scribble(f);
		}
		/* two cores: weston and the good VM need theirs */
		usleep(2000);
	}
	/* disconnecting with everything live is a test of its own */
	for (k = 0; k < f->nslots; k++) {
		if (!f->conn[k])
			continue;
		ivwl_fuzz_note(f, f->conn[k], "close");
		ivwl_hostile_slot_close(&f->h, k);
		end_conn(f, k, stop ? "signal: fuzzer stopped" :
			 "time up, closed live");
	}
}

/* ---- replay --------------------------------------------------------- */

struct line {
	unsigned long long seq;
	uint32_t slot, conn;
	char *text;		/* after "conn C: " */
};

static int
by_seq(const void *a, const void *b)
{
	const struct line *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static bool
wanted(const char *list, uint32_t conn)
{
	char buf[16];
	const char *p;
	size_t n;

	if (!list)
		return true;
	n = (size_t)snprintf(buf, sizeof(buf), "%u", conn);
	for (p = list; (p = strstr(p, buf)); p += n)
		if ((p == list || p[-1] == ',') &&
		    (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

static struct line *
read_trace(const char *path, const char *conns, unsigned long long upto,
	   size_t *count)
{
	struct line *lines = NULL, *grown;
	size_t n = 0, alloc = 0, cap = 0;
	char *buf = NULL, *colon;
	struct line l;
	FILE *in = fopen(path, "r");
	int used;

	if (!in) {
		fprintf(stderr, "wayland-fuzzer: %s: %s\n", path,
			strerror(errno));
		return NULL;
	}
	while (getline(&buf, &cap, in) > 0) {
		buf[strcspn(buf, "\n")] = '\0';
		if (sscanf(buf, "#%llu slot %u conn %u: %n", &l.seq, &l.slot,
			   &l.conn, &used) != 3 || (upto && l.seq > upto) ||
		    !wanted(conns, l.conn) || l.slot >= IVWL_SLOT_COUNT)
			continue;
		colon = buf + used;
		if (n == alloc) {
			alloc = alloc ? alloc * 2 : 1024;
			grown = realloc(lines, alloc * sizeof(*lines));
			if (!grown)
				break;
			lines = grown;
		}
		l.text = strdup(colon);
		if (l.text)
			lines[n++] = l;
	}
	free(buf);
	fclose(in);
	qsort(lines, n, sizeof(*lines), by_seq);
	*count = n;
	return lines;
}

/* The words and fds of a message line into out; tag set if any. */
static bool
parse_message(const char *text, struct ivwl_out *out, char *tag,
	      size_t tag_len)
{
	const char *p = strstr(text, ") = ");
	struct ivwl_fd_desc d;
	unsigned long long off, len;
	unsigned int word;
	int used;

	if (!p)
		p = strstr(text, "(?) =");
	if (!p)
		return false;
	p = strchr(p, '=') + 1;
	ivwl_out_reset(out);
	tag[0] = '\0';
	/* words are exactly 8 hex digits; "fd=" would parse as hex too */
	while (p[0] == ' ' && strspn(p + 1, "0123456789abcdef") == 8 &&
	       (p[9] == ' ' || p[9] == '\0')) {
		word = (unsigned int)strtoul(p + 1, NULL, 16);
		ivwl_out_u32(out, word);
		p += 9;
	}
	while (*p == ' ') {
		memset(&d, 0, sizeof(d));
		if (sscanf(p, " fd=%u:%u:%llu:%llu:%u%n", &d.kind, &d.flags,
			   &off, &len, &d.channel, &used) == 5) {
			d.offset = off;
			d.length = len;
			ivwl_out_fd(out, &d);
			p += used;
		} else if (sscanf(p, " !%15s%n", tag, &used) == 1) {
			p += used;
		} else {
			break;
		}
	}
	(void)tag_len;
	return out->len >= IVWL_WIRE_HEADER_SIZE;
}

static void
replay_events(struct ivwl_fuzz *f)
{
	uint32_t k;

	for (k = 0; k < IVWL_SLOT_COUNT; k++)
		if (f->conn[k])
			ivwl_fuzz_events(f, f->conn[k]);
}

static void
replay_line(struct ivwl_fuzz *f, const struct line *l)
{
	struct ivwl_fuzz_conn *c = f->conn[l->slot];
	uint32_t object, serial;
	struct ivwl_out out;
	char tag[16];
	int64_t end;

	if (c && c->number != l->conn) {
		ivwl_hostile_slot_close(&f->h, l->slot);
		end_conn(f, l->slot, "replaced");
		c = NULL;
	}
	if (!c) {
		c = ivwl_fuzz_conn_new(f, l->slot);
		if (!c)
			return;
		c->number = l->conn;
		f->conn[l->slot] = c;
		ivwl_hostile_slot_open_wait(&f->h, l->slot, 1000);
	}
	if (strcmp(l->text, "-- close") == 0) {
		ivwl_hostile_slot_close(&f->h, l->slot);
		end_conn(f, l->slot, "closed");
		return;
	}
	if (strcmp(l->text, "-- reopen") == 0) {
		end_conn(f, l->slot, "reopened");
		return;
	}
	if (strncmp(l->text, "--", 2) == 0)
		return;
	if (!parse_message(l->text, &out, tag, sizeof(tag)))
		return;
	memcpy(&object, out.data, 4);
	if (tag[0] && object < c->count && out.len >= 12) {
		/*
		 * The serial weston gave this replay, not the original's:
		 * wait for the configure or ping it answers, as the
		 * recording did; an old serial ends the client early.
		 */
		end = ivwl_now_ms() + 1000;
		while (!c->obj[object].serial_new &&
		       ivwl_now_ms() < end && !stop) {
			ivwl_fuzz_events(f, c);
			usleep(1000);
		}
		c->obj[object].serial_new = false;
		serial = c->obj[object].serial;
		memcpy(out.data + 8, &serial, 4);
	}
	end = ivwl_now_ms() + 1000;
	while (!ivwl_fuzz_ids_free(c, &out) && ivwl_now_ms() < end &&
	       !stop) {
		ivwl_fuzz_events(f, c);
		usleep(1000);
	}
	c->dead = false;
	ivwl_fuzz_emit(f, c, &out, tag[0] ? tag : NULL);
}

static int
replay(struct ivwl_fuzz *f, const char *path, const char *conns,
       unsigned long long upto, int delay_ms, double hold)
{
	size_t n = 0, i;
	struct line *lines = read_trace(path, conns, upto, &n);
	int64_t end;
	uint32_t k;

	if (!lines)
		return 1;
	printf("wayland-fuzzer: replaying %zu lines of %s\n", n, path);
	fflush(stdout);
	f->nslots = IVWL_SLOT_COUNT < f->h.slots ? IVWL_SLOT_COUNT :
		    f->h.slots;
	for (i = 0; i < n && !stop; i++) {
		if (f->h.verbose)
			fprintf(stderr, "replay: #%llu slot %u conn %u: %.200s\n",
				lines[i].seq, lines[i].slot, lines[i].conn,
				lines[i].text);
		replay_line(f, &lines[i]);
		replay_events(f);
		if (delay_ms)
			usleep((useconds_t)delay_ms * 1000);
	}
	printf("wayland-fuzzer: replay sent, holding %.1f s\n", hold);
	fflush(stdout);
	end = ivwl_now_ms() + (int64_t)(hold * 1000);
	while (ivwl_now_ms() < end && !stop) {
		replay_events(f);
		usleep(10000);
	}
	for (k = 0; k < IVWL_SLOT_COUNT; k++) {
		if (f->conn[k]) {
			ivwl_hostile_slot_close(&f->h, k);
			end_conn(f, k, "replay over");
		}
	}
	for (i = 0; i < n; i++)
		free(lines[i].text);
	free(lines);
	usleep(500 * 1000);	/* let the display see the closes */
	return 0;
}

/* ---- main ----------------------------------------------------------- */

static void
usage(FILE *out)
{
	fprintf(out, "usage: ivwl-wayland-fuzzer --socket PATH [--seconds N] "
		"[--seed S] [--slots N]\n"
		"       [--trace PATH] [--ring N] [--bad PERMILLE] "
		"[--churn PERMILLE]\n"
		"       [--scribble PERMILLE] [--violate PERMILLE] "
		"[--spare set-parent|viewport] [--verbose]\n"
		"   or: ivwl-wayland-fuzzer --socket PATH --replay TRACE "
		"[--conn N,...] [--upto SEQ]\n"
		"       [--delay MS] [--seconds HOLD] [--trace PATH]\n");
}

static int
by_value(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void
report(struct ivwl_fuzz *f, unsigned long long seed, int64_t ms)
{
	const struct ivwl_fuzz_stats *s = &f->st;
	uint32_t median = 0;

	qsort(f->depths, f->ndepths, sizeof(f->depths[0]), by_value);
	if (f->ndepths)
		median = f->depths[f->ndepths / 2];

	printf("wayland-fuzzer: seconds=%.1f seed=%llu conns=%llu "
	       "messages=%llu bad_args=%llu errors=%llu closes=%llu "
	       "reopens=%llu display_closed=%llu windows=%llu buffers=%llu "
	       "acks=%llu pongs=%llu popups=%llu subsurfaces=%llu "
	       "sources=%llu scribbles=%llu events=%llu ring_full=%llu "
	       "refused=%llu violations=%llu surprises=%llu "
	       "median_requests=%u\n",
	       ms / 1000.0, seed, (unsigned long long)s->conns,
	       (unsigned long long)s->messages,
	       (unsigned long long)s->bad_args, (unsigned long long)s->errors,
	       (unsigned long long)s->closes, (unsigned long long)s->reopens,
	       (unsigned long long)s->display_closed,
	       (unsigned long long)s->windows, (unsigned long long)s->buffers,
	       (unsigned long long)s->acks, (unsigned long long)s->pongs,
	       (unsigned long long)s->popups,
	       (unsigned long long)s->subsurfaces,
	       (unsigned long long)s->sources,
	       (unsigned long long)s->scribbles,
	       (unsigned long long)f->h.st.events,
	       (unsigned long long)f->h.st.ring_full,
	       (unsigned long long)s->refused,
	       (unsigned long long)s->violations,
	       (unsigned long long)s->surprises, median);
	fflush(stdout);
}

int
main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "seconds", required_argument, NULL, 't' },
		{ "seed", required_argument, NULL, 'r' },
		{ "slots", required_argument, NULL, 'n' },
		{ "trace", required_argument, NULL, 'o' },
		{ "ring", required_argument, NULL, 'R' },
		{ "bad", required_argument, NULL, 'b' },
		{ "churn", required_argument, NULL, 'c' },
		{ "scribble", required_argument, NULL, 'x' },
		{ "violate", required_argument, NULL, 'V' },
		{ "spare", required_argument, NULL, 'S' },
		{ "replay", required_argument, NULL, 'p' },
		{ "conn", required_argument, NULL, 'C' },
		{ "upto", required_argument, NULL, 'u' },
		{ "delay", required_argument, NULL, 'd' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct ivwl_fuzz f;
	const char *socket_path = NULL, *trace = NULL, *replay_path = NULL;
	const char *conns = NULL;
	unsigned long long seed = 0, upto = 0;
	double seconds = -1;
	int c, delay_ms = 0, ret = 0;
	int64_t start;
	struct sigaction sa;

	f.nslots = 4;
	f.ring_cap = 20000;
	f.bad_permille = 10;
	f.churn_permille = 2;
	f.violate_permille = 5;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's': socket_path = optarg; break;
		case 't': seconds = atof(optarg); break;
		case 'r': seed = strtoull(optarg, NULL, 0); break;
		case 'n': f.nslots = (uint32_t)atoi(optarg); break;
		case 'o': trace = optarg; break;
		case 'R': f.ring_cap = (uint32_t)atoi(optarg); break;
		case 'b': f.bad_permille = (uint32_t)atoi(optarg); break;
		case 'c': f.churn_permille = (uint32_t)atoi(optarg); break;
		case 'x': f.scribble_permille = (uint32_t)atoi(optarg); break;
		case 'V': f.violate_permille = (uint32_t)atoi(optarg); break;
		case 'S':
			if (strcmp(optarg, "set-parent") == 0) {
				f.spare |= IVWL_FUZZ_SPARE_SET_PARENT;
			} else if (strcmp(optarg, "viewport") == 0) {
				f.spare |= IVWL_FUZZ_SPARE_VIEWPORT;
			} else {
				usage(stderr);
				return 2;
			}
			break;
		case 'p': replay_path = optarg; break;
		case 'C': conns = optarg; break;
		case 'u': upto = strtoull(optarg, NULL, 0); break;
		case 'd': delay_ms = atoi(optarg); break;
		case 'v': f.h.verbose = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!socket_path || f.nslots == 0 || f.ring_cap == 0) {
		usage(stderr);
		return 2;
	}
	if (seconds < 0)
		seconds = replay_path ? 2 : 30;
	if (replay_path)
		f.violate_permille = 1000;	/* send the trace as it is */
	if (!seed)
		seed = (unsigned long long)time(NULL) ^
		       ((unsigned long long)getpid() << 20);
	f.h.rng = seed | 1;
	if (trace) {
		f.trace = fopen(trace, "w");
		if (!f.trace) {
			fprintf(stderr, "wayland-fuzzer: %s: %s\n", trace,
				strerror(errno));
			return 1;
		}
		fprintf(f.trace, "# ivwl-wayland-fuzzer seed %llu slots %u "
			"bad %u churn %u scribble %u violate %u%s%s\n", seed,
			f.nslots, f.bad_permille, f.churn_permille,
			f.scribble_permille, f.violate_permille,
			replay_path ? " replay of " : "",
			replay_path ? replay_path : "");
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (ivwl_hostile_attach(&f.h, socket_path) < 0)
		return 1;
	if (f.nslots > f.h.slots)
		f.nslots = f.h.slots;
	printf("wayland-fuzzer: attached as peer %u: %llu MiB region, %u "
	       "slots (using %u), seed %llu\n", ivwl_device_peer_id(f.h.dev),
	       (unsigned long long)(f.h.layout.region_size >> 20), f.h.slots,
	       f.nslots, seed);
	fflush(stdout);
	ivwl_hostile_claim(&f.h);
	if (f.violate_permille < 1000 && ivwl_fuzz_oracle_init(&f) < 0) {
		fprintf(stderr, "wayland-fuzzer: cannot set up the shadow\n");
		return 1;
	}

	start = ivwl_now_ms();
	if (replay_path) {
		f.h.deadline_ms = INT64_MAX;
		ret = replay(&f, replay_path, conns, upto, delay_ms, seconds);
	} else {
		f.h.deadline_ms = start + (int64_t)(seconds * 1000);
		fuzz(&f);
	}
	report(&f, seed, ivwl_now_ms() - start);
	if (f.trace)
		fclose(f.trace);
	ivwl_hostile_detach(&f.h);
	return ret;
}
