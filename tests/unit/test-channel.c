/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "channel.h"
#include "harness.h"
#include "ring.h"

#define RING_SIZE (64u << 10)

/* One direction: a ring in private memory, both views of it. */
struct lane {
	struct ivwl_ring_ctrl *ctrl;
	uint8_t *data;
	struct ivwl_ring tx, rx;
};

static void
lane_init(struct lane *l)
{
	l->ctrl = aligned_alloc(64, sizeof(*l->ctrl));
	l->data = aligned_alloc(64, RING_SIZE);
	REQUIRE(l->ctrl && l->data);
	memset(l->ctrl, 0, sizeof(*l->ctrl));
	ivwl_ring_init_producer(&l->tx, l->ctrl, l->data, RING_SIZE);
	ivwl_ring_init_consumer(&l->rx, l->ctrl, l->data, RING_SIZE);
}

static void
lane_fini(struct lane *l)
{
	free(l->ctrl);
	free(l->data);
}

/* What the last channel deliver() finished counted, and how it ended. */
static uint64_t last_total;
static bool last_complete;

/* Hands every record of a lane to a side's channels. */
static int
deliver(struct lane *l, struct ivwl_channels *chs, int *finished_count)
{
	static uint64_t buf[RING_SIZE / 8];
	struct ivwl_channel *finished;
	uint16_t type;
	int n, ret;

	while ((n = ivwl_ring_read(&l->rx, &type, buf, sizeof(buf))) >= 0) {
		ret = ivwl_channels_handle(chs, type, buf, (uint32_t)n,
					   &finished);
		if (ret < 0)
			return ret;
		if (finished) {
			last_total = finished->total;
			last_complete = finished->complete;
			ivwl_channel_destroy(chs, finished);
			(*finished_count)++;
		}
	}
	return 0;
}

struct bridge {
	struct lane to_sink, to_source;
	struct ivwl_channels sink_side, source_side;
	struct ivwl_channel *sink, *source;
	int writer;		/* what the source side's client writes */
	int reader;		/* what the sink side's local reader reads */
};

static void
bridge_init(struct bridge *b)
{
	struct ivwl_fd_desc desc;
	int p[2];

	lane_init(&b->to_sink);
	lane_init(&b->to_source);
	ivwl_channels_init(&b->sink_side, IVWL_SIDE_DISPLAY);
	ivwl_channels_init(&b->source_side, IVWL_SIDE_APP);
	/* the sink side holds a pipe's write end, as weston's fd would be */
	REQUIRE(pipe2(p, O_CLOEXEC) == 0);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	b->reader = p[0];
	REQUIRE(ivwl_channel_sink_new(&b->sink_side, p[1], &desc,
				      &b->sink) == 0);
	CHECK_EQ(desc.kind, IVWL_FD_PIPE);
	CHECK_EQ(desc.flags, IVWL_PIPE_WRITE_END);
	CHECK_EQ(IVWL_CHANNEL_SIDE(desc.channel), IVWL_SIDE_DISPLAY);
	REQUIRE(ivwl_channel_source_new(&b->source_side, &desc, &b->writer,
					&b->source) == 0);
}

static void
bridge_fini(struct bridge *b)
{
	ivwl_channels_release(&b->sink_side);
	ivwl_channels_release(&b->source_side);
	if (b->writer >= 0)
		close(b->writer);
	close(b->reader);
	lane_fini(&b->to_sink);
	lane_fini(&b->to_source);
}

static void
test_bytes_cross_with_credit(void)
{
	enum { TOTAL = 3 << 20 };
	struct bridge b;
	uint8_t *in = malloc(TOTAL), *out = malloc(TOTAL);
	size_t written = 0, got = 0;
	int finished = 0, rounds = 0, i;
	bool sink_done = false;

	REQUIRE(in && out);
	for (i = 0; i < TOTAL; i++)
		in[i] = (uint8_t)(i * 7 + (i >> 11));
	bridge_init(&b);
	fcntl(b.writer, F_SETFL, O_NONBLOCK);

	while (got < TOTAL && rounds++ < 100000) {
		ssize_t n;

		if (written < TOTAL) {
			n = write(b.writer, in + written, TOTAL - written);
			if (n > 0)
				written += (size_t)n;
			if (written == TOTAL) {
				close(b.writer);
				b.writer = -1;
			}
		}
		if (b.source && ivwl_channel_pump(b.source,
						  &b.to_sink.tx) == 1) {
			/* both ends count what crossed */
			CHECK_EQ(b.source->total, TOTAL);
			CHECK(b.source->complete);
			ivwl_channel_destroy(&b.source_side, b.source);
			b.source = NULL;
		}
		last_total = 0;
		REQUIRE(deliver(&b.to_sink, &b.sink_side, &finished) == 0);
		if (last_total) {
			/* the sink ended on the CLOSE, its buffer empty */
			CHECK_EQ(last_total, TOTAL);
			CHECK(last_complete);
			b.sink = NULL;
			sink_done = true;
		}
		/* never more in flight than the window */
		if (b.sink)
			CHECK(b.sink->len <= IVWL_CHANNEL_WINDOW);
		if (b.sink && ivwl_channel_pump(b.sink, &b.to_source.tx) == 1) {
			CHECK_EQ(b.sink->total, TOTAL);
			CHECK(b.sink->complete);
			ivwl_channel_destroy(&b.sink_side, b.sink);
			b.sink = NULL;
			sink_done = true;
		}
		REQUIRE(deliver(&b.to_source, &b.source_side, &finished) == 0);
		while ((n = read(b.reader, out + got, TOTAL - got)) > 0)
			got += (size_t)n;
	}
	CHECK_EQ(got, TOTAL);
	CHECK(memcmp(in, out, TOTAL) == 0);
	/* the sink finished on EOF, the source on its own EOF */
	CHECK(sink_done);
	CHECK(b.sink == NULL);
	CHECK(b.source == NULL);
	CHECK_EQ(read(b.reader, out, 1), 0);
	free(in);
	free(out);
	bridge_fini(&b);
}

static void
test_reader_gone_aborts_writer(void)
{
	struct bridge b;
	uint8_t chunk[4096] = { 1 };
	int finished = 0, i;

	bridge_init(&b);
	close(b.reader);
	b.reader = open("/dev/null", O_RDONLY);
	REQUIRE(write(b.writer, chunk, sizeof(chunk)) == sizeof(chunk));
	for (i = 0; i < 10 && b.source; i++) {
		if (ivwl_channel_pump(b.source, &b.to_sink.tx) == 1) {
			ivwl_channel_destroy(&b.source_side, b.source);
			b.source = NULL;
			break;
		}
		REQUIRE(deliver(&b.to_sink, &b.sink_side, &finished) == 0);
		/* writing into a pipe nobody reads: EPIPE, the sink aborts */
		if (b.sink && ivwl_channel_pump(b.sink, &b.to_source.tx) == 1) {
			/* cut: what came is counted, the end not reached */
			CHECK_EQ(b.sink->total, sizeof(chunk));
			CHECK(!b.sink->complete);
			ivwl_channel_destroy(&b.sink_side, b.sink);
			b.sink = NULL;
		}
		finished = 0;
		REQUIRE(deliver(&b.to_source, &b.source_side, &finished) == 0);
		if (finished)
			b.source = NULL;	/* destroyed by deliver() */
	}
	CHECK(b.sink == NULL);
	CHECK(b.source == NULL);
	bridge_fini(&b);
}

static int
send_record(struct lane *l, uint16_t type, const void *p, uint32_t len)
{
	struct iovec iov = { (void *)p, len };

	return ivwl_ring_write(&l->tx, type, &iov, 1);
}

static void
test_peer_breaking_rules(void)
{
	struct bridge b;
	static uint8_t chunk[16 << 10];
	struct ivwl_channel_credit credit;
	struct ivwl_fd_desc mine;
	int finished = 0, fd, i, ret = 0;
	uint32_t id;

	bridge_init(&b);
	id = b.sink->id;

	/* more data than granted (no credit comes back): broken peer */
	memcpy(chunk, &id, 4);
	memcpy(chunk + 4, &(uint32_t){ sizeof(chunk) - 8 }, 4);
	for (i = 0; i < 64 && ret == 0; i++) {
		REQUIRE(send_record(&b.to_sink, IVWL_RECORD_CHANNEL_DATA, chunk,
				    sizeof(chunk)) == 0);
		ret = deliver(&b.to_sink, &b.sink_side, &finished);
	}
	CHECK_EQ(ret, -EPROTO);
	/* exactly when the window ran out */
	CHECK_EQ(i, IVWL_CHANNEL_WINDOW / (sizeof(chunk) - 8) + 1);

	/* credit that would exceed the window */
	credit = (struct ivwl_channel_credit){ b.source->id, 1 };
	REQUIRE(send_record(&b.to_source, IVWL_RECORD_CHANNEL_CREDIT, &credit,
			    sizeof(credit)) == 0);
	CHECK_EQ(deliver(&b.to_source, &b.source_side, &finished), -EPROTO);

	/* a descriptor naming a channel of the receiver's own side */
	memset(&mine, 0, sizeof(mine));
	mine.kind = IVWL_FD_PIPE;
	mine.flags = IVWL_PIPE_WRITE_END;
	mine.channel = 5;	/* odd: app side, the receiver's own */
	CHECK_EQ(ivwl_channel_source_new(&b.source_side, &mine, &fd,
					 &b.source), -EPROTO);
	mine.flags = IVWL_PIPE_READ_END;
	mine.channel = 4;
	CHECK_EQ(ivwl_channel_source_new(&b.source_side, &mine, &fd,
					 &b.source), -EPROTO);
	bridge_fini(&b);
}

static void
test_channel_limit(void)
{
	struct ivwl_channels chs;
	struct ivwl_fd_desc desc;
	struct ivwl_channel *ch;
	unsigned i;
	int p[2];

	ivwl_channels_init(&chs, IVWL_SIDE_APP);
	for (i = 0; i < IVWL_CHANNEL_MAX; i++) {
		REQUIRE(pipe2(p, O_CLOEXEC) == 0);
		close(p[0]);
		REQUIRE(ivwl_channel_sink_new(&chs, p[1], &desc, &ch) == 0);
		CHECK_EQ(IVWL_CHANNEL_SIDE(desc.channel), IVWL_SIDE_APP);
	}
	REQUIRE(pipe2(p, O_CLOEXEC) == 0);
	close(p[0]);
	CHECK_EQ(ivwl_channel_sink_new(&chs, p[1], &desc, &ch), -EMFILE);
	CHECK_EQ(chs.count, IVWL_CHANNEL_MAX);
	ivwl_channels_release(&chs);
	CHECK_EQ(chs.count, 0);
}

IVWL_TEST_MAIN(
	TEST(test_bytes_cross_with_credit),
	TEST(test_reader_gone_aborts_writer),
	TEST(test_peer_breaking_rules),
	TEST(test_channel_limit),
)
