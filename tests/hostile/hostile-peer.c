/* SPDX-License-Identifier: MIT */
/*
 * ivwl-hostile-peer: a hostile app-vm.  Attaches to an ivwl-server's app
 * socket as peer 1 (no agent, no shim) and attacks the display side
 * through the region for a bounded time, then says what it did.
 *
 *   ivwl-hostile-peer --socket PATH --mode MODE [--seconds N] [--seed S]
 *                     [--spare partial-header] [--count N] [--verbose]
 *
 * Modes (docs in tests/hostile/README.md):
 *   garbage-records  well-framed records of random types and contents,
 *                    WAYLAND records with lying fd descriptors and
 *                    messages, wl_shm requests that leave their range
 *   bad-indices      prod/cons/sleep tokens and record lengths that lie
 *   scribble         random bytes flipped all over the region
 *   slot-churn       slot states and generations in every order
 *   doorbell-storm   every display vector rung in a tight loop
 *   record-flood     valid empty records as fast as four rings take them
 *   all              each of the above in turn
 * and reproducers of single weaknesses: partial-header, vanish,
 * event-cons-lie, budget-stall (bugs-rings.c, beside record-flood),
 * shm-overread, pool-flood, window-flood, region-bomb, damage-bomb
 * (bugs-surfaces.c), clipboard-flood, clipboard-hang,
 * clipboard-cache-block, clipboard-guess
 * (bugs-clipboard.c), clipboard-paste (bugs-paste.c), eventfd-block and
 * doorbell-full (bugs-eventfd.c).
 *
 * Output: one line per mode, "hostile-peer: MODE: key=value ...".
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hostile.h"

struct mode {
	const char *name;
	void (*run)(struct ivwl_hostile *h);
};

static const struct mode modes[] = {
	{ "garbage-records", ivwl_hostile_garbage_records },
	{ "bad-indices", ivwl_hostile_bad_indices },
	{ "scribble", ivwl_hostile_scribble },
	{ "slot-churn", ivwl_hostile_slot_churn },
	{ "doorbell-storm", ivwl_hostile_doorbell_storm },
	{ "partial-header", ivwl_hostile_partial_header },
	{ "shm-overread", ivwl_hostile_shm_overread },
	{ "pool-flood", ivwl_hostile_pool_flood },
	{ "vanish", ivwl_hostile_vanish },
	{ "event-cons-lie", ivwl_hostile_event_cons_lie },
	{ "record-flood", ivwl_hostile_record_flood },
	{ "budget-stall", ivwl_hostile_budget_stall },
	{ "window-flood", ivwl_hostile_window_flood },
	{ "window-churn", ivwl_hostile_window_churn },
	{ "overdraw", ivwl_hostile_overdraw },
	{ "overdraw-grow", ivwl_hostile_overdraw_grow },
	{ "region-bomb", ivwl_hostile_region_bomb },
	{ "damage-bomb", ivwl_hostile_damage_bomb },
	{ "clipboard-flood", ivwl_hostile_clipboard_flood },
	{ "clipboard-hang", ivwl_hostile_clipboard_hang },
	{ "clipboard-cache-block", ivwl_hostile_clipboard_cache_block },
	{ "clipboard-guess", ivwl_hostile_clipboard_guess },
	{ "clipboard-paste", ivwl_hostile_clipboard_paste },
	{ "eventfd-block", ivwl_hostile_eventfd_block },
	{ "doorbell-full", ivwl_hostile_doorbell_full },
	{ "role-subsurface", ivwl_hostile_role_subsurface },
	{ "mime-flood", ivwl_hostile_mime_flood },
	{ "popup-chain", ivwl_hostile_popup_chain },
	{ "popup-hold", ivwl_hostile_popup_hold },
	{ "keyboard-flood", ivwl_hostile_keyboard_flood },
	{ "inert-requests", ivwl_hostile_inert_requests },
	{ "fuzz-findings", ivwl_hostile_fuzz_findings },
	{ "pacing-misuse", ivwl_hostile_pacing_misuse },
	{ "destroy-storm", ivwl_hostile_destroy_storm },
	{ "budget-fill", ivwl_hostile_budget_fill },
	{ "title-bytes", ivwl_hostile_title_bytes },
	{ "clock-flood", ivwl_hostile_clock_flood },
};

/* The modes "all" runs, in this order. */
#define ALL_MODES 5

static void
usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: ivwl-hostile-peer --socket PATH --mode MODE "
		"[--seconds N] [--seed S]\n"
		"                         [--spare partial-header] "
		"[--count N] [--verbose]\nmodes: all");
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		fprintf(f, " %s", modes[i].name);
	fprintf(f, "\n");
}

static const struct mode *
find_mode(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (strcmp(modes[i].name, name) == 0)
			return &modes[i];
	return NULL;
}

static void
report(struct ivwl_hostile *h, const char *name, int64_t ms)
{
	const struct ivwl_hostile_stats *s = &h->st;

	printf("hostile-peer: %s: seconds=%.1f opens=%llu acks=%llu "
	       "refusals=%llu closed=%llu timeouts=%llu records=%llu "
	       "ring_full=%llu doorbells=%llu index_writes=%llu lies=%llu "
	       "flips=%llu sessions=%llu events=%llu state_writes=%llu\n",
	       name, ms / 1000.0,
	       (unsigned long long)s->opens, (unsigned long long)s->acks,
	       (unsigned long long)s->refusals, (unsigned long long)s->closed,
	       (unsigned long long)s->timeouts, (unsigned long long)s->records,
	       (unsigned long long)s->ring_full,
	       (unsigned long long)s->doorbells,
	       (unsigned long long)s->index_writes,
	       (unsigned long long)s->lies, (unsigned long long)s->flips,
	       (unsigned long long)s->sessions, (unsigned long long)s->events,
	       (unsigned long long)s->state_writes);
	fflush(stdout);
}

static void
run_mode(struct ivwl_hostile *h, const struct mode *m, double seconds)
{
	int64_t start = ivwl_now_ms();

	memset(&h->st, 0, sizeof(h->st));
	h->deadline_ms = start + (int64_t)(seconds * 1000);
	printf("hostile-peer: %s: start\n", m->name);
	fflush(stdout);
	m->run(h);
	report(h, m->name, ivwl_now_ms() - start);
}

/* Between modes of "all": our slots closed properly, a clean start. */
static void
close_all(struct ivwl_hostile *h)
{
	uint32_t k;

	for (k = 0; k < h->slots; k++)
		if (h->slot[k].phase != IVWL_HOSTILE_IDLE)
			ivwl_hostile_slot_close(h, k);
	ivwl_hostile_claim(h);
}

int
main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "mode", required_argument, NULL, 'm' },
		{ "seconds", required_argument, NULL, 't' },
		{ "seed", required_argument, NULL, 'r' },
		{ "spare", required_argument, NULL, 'p' },
		{ "count", required_argument, NULL, 'c' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ivwl_hostile h;
	const char *socket_path = NULL, *mode = NULL;
	const struct mode *m = NULL;
	double seconds = 10;
	unsigned long long seed = 0;
	int c, i;

	memset(&h, 0, sizeof(h));
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's': socket_path = optarg; break;
		case 'm': mode = optarg; break;
		case 't': seconds = atof(optarg); break;
		case 'r': seed = strtoull(optarg, NULL, 0); break;
		case 'c': h.count = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'p':
			if (strcmp(optarg, "partial-header") != 0) {
				usage(stderr);
				return 2;
			}
			h.spare_partial = true;
			break;
		case 'v': h.verbose = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!socket_path || !mode || seconds <= 0 ||
	    (strcmp(mode, "all") != 0 && !(m = find_mode(mode)))) {
		usage(stderr);
		return 2;
	}
	if (!seed)
		seed = (unsigned long long)time(NULL) ^
		       ((unsigned long long)clock() << 20);
	h.rng = seed | 1;

	if (ivwl_hostile_attach(&h, socket_path) < 0)
		return 1;
	printf("hostile-peer: attached as peer %u: %llu MiB region, "
	       "%u vectors, %u slots, ring %u KiB, seed %llu%s\n",
	       ivwl_device_peer_id(h.dev),
	       (unsigned long long)(h.layout.region_size >> 20), h.nr_vectors,
	       h.slots, h.layout.ring_size >> 10, seed,
	       h.spare_partial ? ", sparing partial-header" : "");
	ivwl_hostile_claim(&h);

	if (m) {
		run_mode(&h, m, seconds);
	} else {
		for (i = 0; i < ALL_MODES; i++) {
			run_mode(&h, &modes[i], seconds / ALL_MODES);
			close_all(&h);
		}
	}
	ivwl_hostile_detach(&h);
	return 0;
}
