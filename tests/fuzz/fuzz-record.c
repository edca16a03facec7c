/* SPDX-License-Identifier: MIT */
/*
 * Record parsers on arbitrary payloads.  Input: one byte choosing the
 * parser, the rest the payload (copied to an aligned private buffer as
 * the ring consumer does).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint64_t buf[(IVWL_RING_MAX_SIZE / 2) / 8];
	struct ivwl_layout layout;
	struct ivwl_wayland_record w;
	struct ivwl_channel_data_record c;
	struct ivwl_channel_close cl;
	struct ivwl_channel_credit cr;
	struct ivwl_disconnect d;
	const uint8_t *end;
	const char *text;
	uint32_t len, i;

	if (size < 1 || size - 1 > sizeof(buf))
		return 0;
	len = (uint32_t)(size - 1);
	memcpy(buf, data + 1, len);
	end = (const uint8_t *)buf + len;
	ivwl_layout_compute(64ull << 20, &layout);

	switch (data[0] % 5) {
	case 0:
		if (ivwl_record_parse_wayland(buf, len, &layout, &w) == 0) {
			if (w.data + w.data_len > end ||
			    (const uint8_t *)(w.fds + w.nfds) > w.data)
				abort();
			for (i = 0; i < w.nfds; i++)
				if (!ivwl_fd_desc_valid(&w.fds[i], &layout))
					abort();
		}
		break;
	case 1:
		if (ivwl_record_parse_channel_data(buf, len, &c) == 0 &&
		    c.bytes + c.len > end)
			abort();
		break;
	case 2:
		ivwl_record_parse_channel_close(buf, len, &cl);
		break;
	case 3:
		if (ivwl_record_parse_channel_credit(buf, len, &cr) == 0 &&
		    (cr.channel == 0 || cr.bytes == 0))
			abort();
		break;
	default:
		if (ivwl_record_parse_disconnect(buf, len, &d, &text) == 0 &&
		    (const uint8_t *)text + d.len > end)
			abort();
		break;
	}
	return 0;
}
