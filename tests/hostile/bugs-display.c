/* SPDX-License-Identifier: MIT */
/*
 * Reproducers aimed at what the display shows and answers outside the
 * Wayland objects themselves: the titles the live view prints
 * (plugin/live-view.c) and the clock link's answerer (plugin/vm.c,
 * protocol/region/clock-link.c).  Each prints what it did, so a test can tell
 * a fixed plugin from a broken one.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clock-link.h"
#include "hostile.h"
#include "ivwl-protocols.h"
#include "shm-access.h"

/* ---- title-bytes ---------------------------------------------------- */

/* More than the live view lists per connection (WINDOWS_MAX, 16). */
#define TITLE_WINDOWS 20
#define TITLE_SLOTS 3
/* Longer than the plugin keeps (IVWL_TITLE_MAX, 1024 with "[vm] "). */
#define TITLE_LEN 1200

/*
 * What a terminal or a Unicode-aware reader of the live view could take
 * for more than text: quotes and backslashes, C0 controls, UTF-8 C1
 * controls (CSI), line and paragraph separators, a bidi override, and
 * malformed UTF-8 (overlong, lone continuation, cut sequence, 0xff).
 */
static const char forged[] =
	"x\" windows=0 feedbacks=9/9 \\\" \n conn vm=good slot=0 \r\x1b[2J"
	"\xc2\x9b" "2J \xe2\x80\xa8 \xe2\x80\xa9 \xe2\x80\xae evil \xc3\xa9 "
	"\xc0\xaf \x80 \xe2\x82 \xff \x7f end";

/*
 * Window g's title: the forged one for the first window of a slot,
 * else TITLE_LEN bytes running through every value 0x01..0xff from a
 * start of its own, so that each title differs and each holds them all.
 */
static void
make_title(uint32_t g, char *out)
{
	uint32_t j;

	if (g % TITLE_WINDOWS == 0) {
		memcpy(out, forged, sizeof(forged));
		return;
	}
	for (j = 0; j < TITLE_LEN; j++)
		out[j] = (char)(((g * 61 + j) % 255) + 1);
	out[TITLE_LEN] = '\0';
}

static void
print_title(uint32_t k, uint32_t i, const char *title)
{
	const unsigned char *p;

	printf("hostile-peer: title-bytes: slot %u window %u title ", k, i);
	for (p = (const unsigned char *)title; *p; p++)
		printf("%02x", *p);
	printf("\n");
}

/* TITLE_WINDOWS mapped 1x1 toplevels on slot k, each titled; how many. */
static uint32_t
map_titled(struct ivwl_hostile *h, uint32_t k)
{
	struct ivwl_hostile_globals g;
	struct ivwl_fd_desc d = ivwl_out_region_desc(h->layout.heap_offset,
						     IVWL_PAGE_SIZE);
	uint32_t *id = &h->slot[k].next_id, shm, comp, wm, pool, buffer, s, i;
	uint32_t serials[TITLE_WINDOWS] = { 0 };
	struct ivwl_hostile_windows t = { .serial = serials };
	static struct ivwl_out out;
	char title[TITLE_LEN + 1];

	if (!ivwl_hostile_session_start(h, k, &g, 2000) || !g.shm ||
	    !g.compositor || !g.wm_base)
		return 0;
	shm = (*id)++;
	comp = (*id)++;
	wm = t.wm_base = (*id)++;
	pool = (*id)++;
	buffer = (*id)++;
	ivwl_out_reset(&out);
	ivwl_out_bind(&out, g.shm, "wl_shm", 1, shm);
	ivwl_out_bind(&out, g.compositor, "wl_compositor", 4, comp);
	ivwl_out_bind(&out, g.wm_base, "xdg_wm_base", 1, wm);
	ivwl_out_shm_pool(&out, shm, pool, &d, IVWL_PAGE_SIZE);
	ivwl_out_shm_buffer(&out, pool, buffer, 0, 1, 1, 4,
			    IVWL_HOSTILE_XRGB8888);
	ivwl_hostile_send_wayland(h, k, &out);

	t.first_xdg = *id + 1;
	for (i = 0; i < TITLE_WINDOWS; i++) {
		make_title(k * TITLE_WINDOWS + i, title);
		print_title(k, i, title);
		ivwl_out_reset(&out);
		s = ivwl_out_toplevel(&out, comp, wm, id);
		t.count++;
		ivwl_out_begin(&out, s + 2, IVWL_REQ_XDG_TOPLEVEL_SET_TITLE);
		ivwl_out_string(&out, title);
		ivwl_out_end(&out);
		ivwl_out_begin(&out, s, IVWL_REQ_WL_SURFACE_COMMIT);
		ivwl_out_end(&out);
		if (ivwl_hostile_send_wayland(h, k, &out) < 0)
			return 0;
	}
	while (t.configured < TITLE_WINDOWS && ivwl_hostile_time_left(h) &&
	       h->slot[k].phase == IVWL_HOSTILE_LIVE)
		if (!ivwl_hostile_roundtrip(h, k, ivwl_hostile_windows_event,
					    &t, 2000))
			break;
	for (i = 0; i < TITLE_WINDOWS; i++) {
		if (!t.serial[i])
			continue;
		s = t.first_xdg + 3 * i - 1;
		ivwl_out_reset(&out);
		ivwl_out_ack_configure(&out, s + 1, t.serial[i]);
		ivwl_out_attach_commit(&out, s, buffer);
		if (ivwl_hostile_send_wayland(h, k, &out) < 0)
			return 0;
	}
	ivwl_hostile_roundtrip(h, k, ivwl_hostile_windows_event, &t, 5000);
	return h->slot[k].phase == IVWL_HOSTILE_LIVE ? t.configured : 0;
}

/*
 * TITLE_SLOTS connections with TITLE_WINDOWS mapped windows each, titled
 * with every byte value, past the plugin's length, and with text made to
 * forge fields and lines of the live view; then held until --seconds run
 * out, answering pings through round trips, while the test reads the
 * live view.
 */
void
ivwl_hostile_title_bytes(struct ivwl_hostile *h)
{
	uint32_t k, n, total = 0;

	for (k = 0; k < TITLE_SLOTS && k < h->slots; k++) {
		n = map_titled(h, k);
		total += n;
		printf("hostile-peer: title-bytes: slot %u maps %u windows\n",
		       k, n);
		fflush(stdout);
	}
	printf("hostile-peer: title-bytes: holding %u windows\n", total);
	fflush(stdout);
	while (ivwl_hostile_time_left(h)) {
		for (k = 0; k < TITLE_SLOTS && k < h->slots; k++)
			if (h->slot[k].phase == IVWL_HOSTILE_LIVE)
				ivwl_hostile_roundtrip(h, k, NULL, NULL, 500);
		usleep(100 * 1000);
	}
}

/* ---- clock-flood ---------------------------------------------------- */

/* How long one ask waits for its answer before the next. */
#define CLOCK_ASK_WAIT_MS 20
#define CLOCK_SLOTS 8

/*
 * The clock link's bit rung without end, with garbage in the app's
 * clock line (edge and random seq and t) and every slot bit of live
 * connections alongside.  Each ask gets a seq of its own, and the peer
 * spins (ringing on) until the display's line echoes it or
 * CLOCK_ASK_WAIT_MS pass: the answers counted are a lower bound of what
 * the display wrote, so more than its rate limit allows is a finding.
 */
void
ivwl_hostile_clock_flood(struct ivwl_hostile *h)
{
	struct ivwl_side_block *app = ivwl_region_side(h->base, IVWL_SIDE_APP);
	struct ivwl_side_block *own =
		ivwl_region_side(h->base, IVWL_SIDE_DISPLAY);
	struct ivwl_hostile_globals g;
	uint64_t slot_bits = 0, rings = 0, answers = 0, asks = 0, bits;
	int64_t start, end, waited;
	uint32_t k, seq = ivwl_rnd_edgy32(h), echoed;

	for (k = 0; k < CLOCK_SLOTS && k < h->slots; k++)
		if (ivwl_hostile_session_start(h, k, &g, 1000))
			slot_bits |= IVWL_DOORBELL_SLOT(k);
	start = ivwl_now_ms();
	while (ivwl_hostile_time_left(h)) {
		seq++;
		asks++;
		ivwl_shm_store64(&app->clock.t, ivwl_rnd(h) & 1 ?
				 ivwl_rnd(h) : (uint64_t)ivwl_rnd_edgy32(h));
		ivwl_shm_store(&app->clock.clock_id, ivwl_rnd_edgy32(h));
		ivwl_shm_store_release(&app->clock.seq, seq);
		end = ivwl_now_ms() + CLOCK_ASK_WAIT_MS;
		do {
			bits = IVWL_DOORBELL_CLOCK;
			if (ivwl_rnd_below(h, 4) == 0)
				bits |= slot_bits;
			ivwl_doorbell_post(h->base, IVWL_SIDE_DISPLAY, bits);
			ivwl_device_ring(h->dev, IVWL_PEER_DISPLAY, 0);
			rings++;
			echoed = ivwl_shm_load_acquire(&own->clock.seq);
		} while (echoed != seq && ivwl_now_ms() < end);
		if (echoed == seq)
			answers++;
		if (asks % 64 == 0)
			for (k = 0; k < CLOCK_SLOTS && k < h->slots; k++)
				if (h->slot[k].phase == IVWL_HOSTILE_LIVE)
					ivwl_hostile_drain_events(h, k, NULL,
								  NULL);
	}
	waited = ivwl_now_ms() - start;
	h->st.doorbells += rings;
	printf("hostile-peer: clock-flood: asks=%llu answers=%llu "
	       "answers/s=%.0f rings=%llu rings/s=%.0f slots=%u\n",
	       (unsigned long long)asks, (unsigned long long)answers,
	       answers * 1000.0 / (double)(waited + 1),
	       (unsigned long long)rings,
	       rings * 1000.0 / (double)(waited + 1),
	       (unsigned)__builtin_popcountll(slot_bits));
}
