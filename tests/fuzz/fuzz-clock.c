/* SPDX-License-Identifier: MIT */
/*
 * The clock link on arbitrary shared words and samples.  Input: the
 * first 1024 bytes are the region's header page from 0x000 to 0x400
 * (both side blocks, as either peer may leave them), the rest a stream
 * of round trips (t1, t2, t3) for the estimator.  The display's half
 * must write nothing but its own clock line; the app's halves never
 * give a translation outside the trust bound.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clock-link.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_answer_scope(uint8_t *page, struct ivwl_clock_answerer *a)
{
	static uint8_t before[IVWL_PAGE_SIZE];
	size_t line = offsetof(struct ivwl_region_header, side) +
		      IVWL_SIDE_DISPLAY * sizeof(struct ivwl_side_block) +
		      offsetof(struct ivwl_side_block, clock);

	memcpy(before, page, IVWL_PAGE_SIZE);
	a->last_ns = -IVWL_CLOCK_ANSWER_MIN_NS;
	ivwl_clock_answer(a, page);
	memcpy(before + line, page + line, sizeof(struct ivwl_clock_line));
	if (memcmp(before, page, IVWL_PAGE_SIZE) != 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t page[IVWL_PAGE_SIZE] __attribute__((aligned(4096)));
	struct ivwl_clock_answerer a;
	struct ivwl_clock_asker c;
	struct ivwl_clock_est est = { 0 };
	struct ivwl_clock_sample s;
	struct ivwl_clock_view view;
	struct ivwl_clock_map map;
	int64_t app, err;
	size_t head = size < 1024 ? size : 1024;

	memset(page, 0, sizeof(page));
	memcpy(page, data, head);
	ivwl_clock_answerer_init(&a, CLOCK_MONOTONIC);
	check_answer_scope(page, &a);

	ivwl_clock_asker_init(&c, page);
	ivwl_clock_ask(&c);
	ivwl_clock_heard(&c);
	if (ivwl_clock_view_read(page, &view) &&
	    ivwl_clock_view_translate(&view, view.map.ref_app,
				      view.map.ref_display, &app, &err) &&
	    (err < 0 || err > IVWL_CLOCK_TRUST_NS))
		abort();

	for (data += head, size -= head; size >= sizeof(s);
	     data += sizeof(s), size -= sizeof(s)) {
		memcpy(&s, data, sizeof(s));
		ivwl_clock_est_add(&est, &s);
		if (ivwl_clock_est_map(&est, &map)) {
			ivwl_clock_map_apply(&map, s.t2, &err);
			if (err < 0 || map.err_ns < 0 || map.growth_ppb < 0)
				abort();
		}
	}
	return 0;
}
