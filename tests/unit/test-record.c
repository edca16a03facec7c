/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "record.h"
#include "ring.h"

static struct ivwl_layout layout;

static void
setup(void)
{
	REQUIRE(ivwl_layout_compute(64ull << 20, &layout) == 0);
}

static struct ivwl_fd_desc
region_desc(uint64_t offset, uint64_t length)
{
	struct ivwl_fd_desc d = {
		.kind = IVWL_FD_REGION,
		.offset = offset,
		.length = length,
	};
	return d;
}

static void
test_wayland_round_trip(void)
{
	uint64_t buf[1024];
	struct ivwl_fd_desc fds[3] = {
		region_desc(layout.heap_offset, 1 << 20),
		{ .kind = IVWL_FD_PIPE, .flags = IVWL_PIPE_WRITE_END,
		  .channel = 3 },
		{ .kind = IVWL_FD_BLOB, .channel = 5, .length = 48000 },
	};
	const char msg[] = "0123456789abcdef0123";
	struct ivwl_wayland_record rec;
	uint32_t size = ivwl_record_wayland_size(3, sizeof(msg));

	ivwl_record_wayland_build(buf, fds, 3, msg, sizeof(msg));
	CHECK_EQ(ivwl_record_parse_wayland(buf, size, &layout, &rec), 0);
	CHECK_EQ(rec.nfds, 3);
	CHECK_EQ(rec.data_len, sizeof(msg));
	CHECK(memcmp(rec.data, msg, sizeof(msg)) == 0);
	CHECK(memcmp(rec.fds, fds, sizeof(fds)) == 0);

	/* the ring rounds payloads up to 8: that slack is accepted */
	CHECK_EQ(ivwl_record_parse_wayland(buf, (size + 7) & ~7u, &layout,
					   &rec), 0);
	/* but not more, and not less */
	CHECK_EQ(ivwl_record_parse_wayland(buf, size + 8, &layout, &rec),
		 -EPROTO);
	CHECK_EQ(ivwl_record_parse_wayland(buf, size - 1, &layout, &rec),
		 -EPROTO);
}

static void
test_wayland_rejects_bad_headers(void)
{
	uint64_t buf[2048];
	struct ivwl_wayland_header *h = (void *)buf;
	struct ivwl_wayland_record rec;

	memset(buf, 0, sizeof(buf));
	CHECK_EQ(ivwl_record_parse_wayland(buf, 4, &layout, &rec), -EPROTO);

	h->nfds = IVWL_WAYLAND_MAX_FDS + 1;
	CHECK_EQ(ivwl_record_parse_wayland(buf, sizeof(buf), &layout, &rec),
		 -EPROTO);
	h->nfds = 0;
	h->data_len = IVWL_WAYLAND_MAX_DATA + 8;
	CHECK_EQ(ivwl_record_parse_wayland(buf, sizeof(buf), &layout, &rec),
		 -EPROTO);
	h->data_len = 0xffffffffu;
	CHECK_EQ(ivwl_record_parse_wayland(buf, sizeof(buf), &layout, &rec),
		 -EPROTO);
	h->data_len = 8;
	h->reserved = 1;
	CHECK_EQ(ivwl_record_parse_wayland(buf, 16, &layout, &rec), -EPROTO);
	h->reserved = 0;
	CHECK_EQ(ivwl_record_parse_wayland(buf, 16, &layout, &rec), 0);
}

static void
test_fd_descs(void)
{
	uint64_t heap = layout.heap_offset, end = heap + layout.heap_size;
	struct {
		struct ivwl_fd_desc d;
		bool ok;
	} cases[] = {
		{ region_desc(heap, 4096), true },
		{ region_desc(end - 4096, 4096), true },
		{ region_desc(0, 4096), false },		/* header */
		{ region_desc(heap - 4096, 8192), false },	/* a ring */
		{ region_desc(end, 4096), false },
		{ region_desc(end - 4096, 8192), false },
		{ region_desc(heap, 0), false },
		{ region_desc(heap + 8, 4096), false },
		{ region_desc(heap, UINT64_MAX), false },
		{ region_desc(UINT64_MAX - 4095, 4096), false },
		/* 4 was a dma-buf kind nobody sent: refused now */
		{ { .kind = 4, .offset = heap, .length = 4096 }, false },
		{ { .kind = IVWL_FD_REGION, .flags = 1, .offset = heap,
		    .length = 4096 }, false },
		{ { .kind = IVWL_FD_BLOB, .channel = 1, .length = 100 }, true },
		{ { .kind = IVWL_FD_BLOB, .channel = 0, .length = 100 }, false },
		{ { .kind = IVWL_FD_BLOB, .channel = 1,
		    .length = IVWL_BLOB_MAX + 1 }, false },
		{ { .kind = IVWL_FD_PIPE, .flags = IVWL_PIPE_READ_END,
		    .channel = 2 }, true },
		{ { .kind = IVWL_FD_PIPE, .flags = 3, .channel = 2 }, false },
		{ { .kind = IVWL_FD_PIPE, .flags = 0, .channel = 2 }, false },
		{ { .kind = IVWL_FD_PIPE, .flags = IVWL_PIPE_READ_END,
		    .channel = 0 }, false },
		{ { .kind = IVWL_FD_PIPE, .flags = IVWL_PIPE_READ_END,
		    .channel = 2, .reserved = 1 }, false },
		{ { .kind = 0 }, false },
		{ { .kind = 99 }, false },
	};
	unsigned i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (ivwl_fd_desc_valid(&cases[i].d, &layout) != cases[i].ok) {
			fprintf(stderr, "fd desc case %u\n", i);
			ivwl_test_failures++;
		}
	}
}

static void
test_wayland_rejects_bad_fd(void)
{
	uint64_t buf[256];
	struct ivwl_fd_desc fds[2] = {
		region_desc(layout.heap_offset, 4096),
		region_desc(0, 4096),
	};
	struct ivwl_wayland_record rec;

	ivwl_record_wayland_build(buf, fds, 2, "12345678", 8);
	CHECK_EQ(ivwl_record_parse_wayland(buf, ivwl_record_wayland_size(2, 8),
					   &layout, &rec), -EPROTO);
}

static void
test_channel_records(void)
{
	uint64_t buf[64];
	struct ivwl_channel_data_record data;
	struct ivwl_channel_close close_rec;
	struct ivwl_channel_close raw;
	uint32_t size = ivwl_record_channel_data_size(5);

	ivwl_record_channel_data_build(buf, 7, "abcde", 5);
	CHECK_EQ(ivwl_record_parse_channel_data(buf, size, &data), 0);
	CHECK_EQ(data.channel, 7);
	CHECK_EQ(data.len, 5);
	CHECK(memcmp(data.bytes, "abcde", 5) == 0);
	CHECK_EQ(ivwl_record_parse_channel_data(buf, size - 1, &data),
		 -EPROTO);
	CHECK_EQ(ivwl_record_parse_channel_data(buf, 4, &data), -EPROTO);
	ivwl_record_channel_data_build(buf, 0, "abcde", 5);
	CHECK_EQ(ivwl_record_parse_channel_data(buf, size, &data), -EPROTO);
	ivwl_record_channel_data_build(buf, 7, "", 0);
	CHECK_EQ(ivwl_record_parse_channel_data(buf, 8, &data), -EPROTO);

	raw = (struct ivwl_channel_close){ 4, IVWL_CHANNEL_EOF };
	CHECK_EQ(ivwl_record_parse_channel_close(&raw, 8, &close_rec), 0);
	CHECK_EQ(close_rec.channel, 4);
	raw.flags = IVWL_CHANNEL_EOF | IVWL_CHANNEL_ABORT;
	CHECK_EQ(ivwl_record_parse_channel_close(&raw, 8, &close_rec),
		 -EPROTO);
	raw = (struct ivwl_channel_close){ 0, IVWL_CHANNEL_ABORT };
	CHECK_EQ(ivwl_record_parse_channel_close(&raw, 8, &close_rec),
		 -EPROTO);
	CHECK_EQ(ivwl_record_parse_channel_close(&raw, 4, &close_rec),
		 -EPROTO);
}

static void
test_disconnect(void)
{
	uint64_t buf[64];
	struct ivwl_disconnect *d = (void *)buf, dout;
	const char *text;

	d->code = 1;
	d->len = 5;
	memcpy(d + 1, "oops!", 5);
	CHECK_EQ(ivwl_record_parse_disconnect(buf, 16, &dout, &text), 0);
	CHECK(memcmp(text, "oops!", 5) == 0);
	d->len = 9;
	CHECK_EQ(ivwl_record_parse_disconnect(buf, 16, &dout, &text), -EPROTO);
	d->len = 0xfffffff0u;
	CHECK_EQ(ivwl_record_parse_disconnect(buf, 16, &dout, &text), -EPROTO);
}

/* What the plugin writes when it closes a connection, as the relay reads
 * it: the reason, cut at IVWL_DISCONNECT_MAX_TEXT. */
static void
test_disconnect_write(void)
{
	static struct ivwl_ring_ctrl ctrl;
	static uint64_t data[4096 / 8], rec[4096 / 8];
	char long_text[IVWL_DISCONNECT_MAX_TEXT + 40];
	struct ivwl_ring tx, rx;
	struct ivwl_disconnect d;
	const char *text;
	uint16_t type;
	int n;

	REQUIRE(ivwl_ring_init_producer(&tx, &ctrl, data, sizeof(data)) == 0);
	REQUIRE(ivwl_ring_init_consumer(&rx, &ctrl, data, sizeof(data)) == 0);
	ivwl_ring_reset(&tx);
	ivwl_ring_reset(&rx);

	CHECK_EQ(ivwl_record_disconnect_write(&tx, "killed by the user"), 0);
	n = ivwl_ring_read(&rx, &type, rec, sizeof(rec));
	REQUIRE(n > 0);
	CHECK_EQ(type, IVWL_RECORD_DISCONNECT);
	CHECK_EQ(ivwl_record_parse_disconnect(rec, (uint32_t)n, &d, &text), 0);
	CHECK_EQ(d.code, 0);
	CHECK_EQ(d.len, strlen("killed by the user"));
	CHECK(memcmp(text, "killed by the user", d.len) == 0);

	memset(long_text, 'x', sizeof(long_text) - 1);
	long_text[sizeof(long_text) - 1] = '\0';
	CHECK_EQ(ivwl_record_disconnect_write(&tx, long_text), 0);
	n = ivwl_ring_read(&rx, &type, rec, sizeof(rec));
	REQUIRE(n > 0);
	CHECK_EQ(ivwl_record_parse_disconnect(rec, (uint32_t)n, &d, &text), 0);
	CHECK_EQ(d.len, IVWL_DISCONNECT_MAX_TEXT);
}

/* Random payloads: parsers accept or refuse, never read past len. */
static void
test_garbage_parsers(void)
{
	unsigned seed = 777, iter;

	for (iter = 0; iter < 20000; iter++) {
		uint32_t len = rand_r(&seed) % 1200;
		uint64_t *buf = malloc(len + 8);
		struct ivwl_wayland_record w;
		struct ivwl_channel_data_record c;
		struct ivwl_channel_close cl;
		struct ivwl_disconnect d;
		const char *text;
		uint32_t i;

		REQUIRE(buf);
		for (i = 0; i < len; i++)
			((uint8_t *)buf)[i] = (uint8_t)rand_r(&seed);
		if (len >= 8 && iter % 2) {
			/* plausible header, random rest */
			struct ivwl_wayland_header h = {
				.nfds = rand_r(&seed) % 4,
				.data_len = rand_r(&seed) % 1100,
			};
			memcpy(buf, &h, sizeof(h));
		}
		if (ivwl_record_parse_wayland(buf, len, &layout, &w) == 0)
			CHECK((const uint8_t *)w.data + w.data_len <=
			      (const uint8_t *)buf + len);
		if (ivwl_record_parse_channel_data(buf, len, &c) == 0)
			CHECK(c.bytes + c.len <= (const uint8_t *)buf + len);
		ivwl_record_parse_channel_close(buf, len, &cl);
		if (ivwl_record_parse_disconnect(buf, len, &d, &text) == 0)
			CHECK(text + d.len <= (const char *)buf + len);
		free(buf);
	}
}

IVWL_TEST_MAIN(
	TEST(setup),
	TEST(test_wayland_round_trip),
	TEST(test_wayland_rejects_bad_headers),
	TEST(test_fd_descs),
	TEST(test_wayland_rejects_bad_fd),
	TEST(test_channel_records),
	TEST(test_disconnect),
	TEST(test_disconnect_write),
	TEST(test_garbage_parsers),
)
