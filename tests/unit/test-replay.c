/* SPDX-License-Identifier: MIT */
/*
 * The relay's replay model (relay/replay/replay.h) without a display: a
 * client's requests and a display's events go through the same calls
 * the relay makes, then the display "restarts" and the test plays the
 * new display, checking what the relay sends it and tells the client.
 */
#include <stdarg.h>
#include <string.h>

#include "harness.h"
#include "ivwl-protocols.h"
#include "replay-internal.h"

struct fixture {
	struct ivwl_wire_map map;
	struct ivwl_replay *rp;
	struct ivwl_replay_buf q;	/* requests for the new display */
	struct ivwl_replay_buf synth;	/* events for the client */
	struct ivwl_replay_buf scratch;
	const char *why;
	uint32_t last[3];	/* the first words of the last message, as
				 * the relay passed it on */
};

#define SKIPPED 2

static void
setup(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	REQUIRE(ivwl_wire_map_init(&f->map) == 0);
	f->rp = ivwl_replay_create();
	REQUIRE(f->rp);
}

static void
teardown(struct fixture *f)
{
	ivwl_replay_destroy(f->rp);
	ivwl_wire_map_release(&f->map);
	ivwl_replay_buf_release(&f->q);
	ivwl_replay_buf_release(&f->synth);
	ivwl_replay_buf_release(&f->scratch);
}

/* The one message in scratch, copied so that it may be rewritten. */
static uint32_t
scratch_msg(struct fixture *f, uint8_t *out)
{
	const struct ivwl_fd_desc *desc;
	const uint8_t *bytes;
	uint32_t pos = 0, len = 0;

	REQUIRE(ivwl_replay_buf_next(&f->scratch, &pos, &bytes, &len, &desc));
	memcpy(out, bytes, len);
	return len;
}

/* A request from the client, through the relay's calls. */
static int
send_request(struct fixture *f, const struct ivwl_fd_desc *desc)
{
	uint8_t bytes[IVWL_WIRE_MAX_MESSAGE];
	enum ivwl_replay_verdict v;
	struct ivwl_wire_msg msg;
	uint32_t len = scratch_msg(f, bytes);

	REQUIRE(ivwl_wire_parse(&f->map, IVWL_WIRE_REQUEST, bytes, len,
				&msg) == (int)len);
	v = ivwl_replay_filter_request(f->rp, &msg, bytes, &f->synth);
	memcpy(f->last, bytes, len < 12 ? 8 : 12);
	REQUIRE(ivwl_wire_track(&f->map, IVWL_WIRE_REQUEST, &msg) == 0);
	if (v == IVWL_REPLAY_PASS)
		ivwl_replay_note_request(f->rp, &f->map, &msg, bytes, desc);
	return v;
}

/* An event from the display, through the relay's calls. */
static int
send_event(struct fixture *f)
{
	uint8_t bytes[IVWL_WIRE_MAX_MESSAGE];
	enum ivwl_replay_verdict v;
	struct ivwl_wire_msg msg;
	uint32_t len = scratch_msg(f, bytes);
	int skip = ivwl_replay_skip_event(f->rp, bytes, len);

	REQUIRE(skip >= 0);
	if (skip == 1)
		return SKIPPED;
	REQUIRE(ivwl_wire_parse(&f->map, IVWL_WIRE_EVENT, bytes, len,
				&msg) == (int)len);
	REQUIRE(ivwl_replay_event(f->rp, &f->map, &msg, bytes, &v, &f->q,
				  &f->synth, &f->why) == 0);
	memcpy(f->last, bytes, len < 12 ? 8 : 12);
	if (v == IVWL_REPLAY_PASS)
		REQUIRE(ivwl_wire_track(&f->map, IVWL_WIRE_EVENT, &msg) == 0);
	return v;
}

/* What the relay tells the client, followed as the relay does. */
static void
deliver_synth(struct fixture *f)
{
	const struct ivwl_fd_desc *desc;
	struct ivwl_wire_msg msg;
	const uint8_t *bytes;
	uint32_t pos = 0, len;

	while (ivwl_replay_buf_next(&f->synth, &pos, &bytes, &len, &desc)) {
		REQUIRE(ivwl_wire_parse(&f->map, IVWL_WIRE_EVENT, bytes, len,
					&msg) == (int)len);
		REQUIRE(ivwl_wire_track(&f->map, IVWL_WIRE_EVENT, &msg) == 0);
	}
	ivwl_replay_buf_reset(&f->synth);
}

#define REQ(f, desc, ...)                                                \
	(ivwl_replay_buf_reset(&(f)->scratch),                           \
	 rp_put(&(f)->scratch, desc, __VA_ARGS__), send_request(f, desc))
#define EVT(f, ...)                                                      \
	(ivwl_replay_buf_reset(&(f)->scratch),                           \
	 rp_put(&(f)->scratch, NULL, __VA_ARGS__), send_event(f))

/* Index of the first message to object with opcode, from *pos; -1. */
static int
find(const struct ivwl_replay_buf *b, uint32_t object, uint16_t opcode,
     uint32_t *word)
{
	const struct ivwl_fd_desc *desc;
	const uint8_t *bytes;
	uint32_t pos = 0, len, head[3];
	int i = 0;

	while (ivwl_replay_buf_next(b, &pos, &bytes, &len, &desc)) {
		memcpy(head, bytes, len >= 12 ? 12 : 8);
		if (head[0] == object && (head[1] & 0xffff) == opcode) {
			if (word)
				*word = len >= 12 ? head[2] : 0;
			return i;
		}
		i++;
	}
	return -1;
}

static int
count(const struct ivwl_replay_buf *b)
{
	const struct ivwl_fd_desc *desc;
	const uint8_t *bytes;
	uint32_t pos = 0, len;
	int n = 0;

	while (ivwl_replay_buf_next(b, &pos, &bytes, &len, &desc))
		n++;
	return n;
}

/* The display answers every sync of the relay, then its marker. */
static void
answer_syncs(struct fixture *f, uint32_t from, uint32_t to)
{
	uint32_t id;

	for (id = from; id < to; id++) {
		CHECK_EQ(EVT(f, id, IVWL_MSG_EVT_WL_CALLBACK_DONE, 1),
			 SKIPPED);
		CHECK_EQ(EVT(f, IVWL_WIRE_DISPLAY_ID,
			     IVWL_MSG_EVT_WL_DISPLAY_DELETE_ID, id),
			 IVWL_REPLAY_DROP);
	}
}

static const struct ivwl_fd_desc pool_desc = {
	.kind = IVWL_FD_REGION, .offset = 4096, .length = 1 << 20,
};

/*
 * A window (toplevel with a buffer from a destroyed pool, a title, an
 * opaque region from a destroyed wl_region), a frame callback in flight,
 * and an output the new display does not have.
 */
static void
build_window(struct fixture *f)
{
	REQ(f, NULL, 1, IVWL_MSG_REQ_WL_DISPLAY_GET_REGISTRY, 2);
	EVT(f, 2, IVWL_MSG_EVT_WL_REGISTRY_GLOBAL, 1, "wl_compositor", 4);
	EVT(f, 2, IVWL_MSG_EVT_WL_REGISTRY_GLOBAL, 2, "wl_shm", 1);
	EVT(f, 2, IVWL_MSG_EVT_WL_REGISTRY_GLOBAL, 3, "xdg_wm_base", 2);
	EVT(f, 2, IVWL_MSG_EVT_WL_REGISTRY_GLOBAL, 4, "wl_output", 3);
	REQ(f, NULL, 2, IVWL_MSG_REQ_WL_REGISTRY_BIND, 1, "wl_compositor",
	    4, 3);
	REQ(f, NULL, 2, IVWL_MSG_REQ_WL_REGISTRY_BIND, 2, "wl_shm", 1, 4);
	REQ(f, NULL, 2, IVWL_MSG_REQ_WL_REGISTRY_BIND, 3, "xdg_wm_base",
	    2, 5);
	REQ(f, NULL, 2, IVWL_MSG_REQ_WL_REGISTRY_BIND, 4, "wl_output", 3,
	    6);
	REQ(f, NULL, 3, IVWL_MSG_REQ_WL_COMPOSITOR_CREATE_SURFACE, 7);
	REQ(f, &pool_desc, 4, IVWL_MSG_REQ_WL_SHM_CREATE_POOL, 8, 1 << 20);
	REQ(f, NULL, 8, IVWL_MSG_REQ_WL_SHM_POOL_CREATE_BUFFER, 9, 0,
	    16, 16, 64, 0);
	REQ(f, NULL, 8, IVWL_MSG_REQ_WL_SHM_POOL_DESTROY);
	EVT(f, 1, IVWL_MSG_EVT_WL_DISPLAY_DELETE_ID, 8);
	REQ(f, NULL, 5, IVWL_MSG_REQ_XDG_WM_BASE_GET_XDG_SURFACE, 10, 7);
	REQ(f, NULL, 10, IVWL_MSG_REQ_XDG_SURFACE_GET_TOPLEVEL, 11);
	REQ(f, NULL, 11, IVWL_MSG_REQ_XDG_TOPLEVEL_SET_TITLE, "old");
	REQ(f, NULL, 11, IVWL_MSG_REQ_XDG_TOPLEVEL_SET_TITLE, "window");
	REQ(f, NULL, 7, IVWL_MSG_REQ_WL_SURFACE_COMMIT);
	EVT(f, 10, IVWL_MSG_EVT_XDG_SURFACE_CONFIGURE, 5);
	REQ(f, NULL, 10, IVWL_MSG_REQ_XDG_SURFACE_ACK_CONFIGURE, 5);
	REQ(f, NULL, 3, IVWL_MSG_REQ_WL_COMPOSITOR_CREATE_REGION, 12);
	REQ(f, NULL, 12, IVWL_MSG_REQ_WL_REGION_ADD, 0, 0, 16, 8);
	REQ(f, NULL, 7, IVWL_MSG_REQ_WL_SURFACE_SET_OPAQUE_REGION, 12);
	REQ(f, NULL, 12, IVWL_MSG_REQ_WL_REGION_DESTROY);
	REQ(f, NULL, 7, IVWL_MSG_REQ_WL_SURFACE_ATTACH, 9, 0, 0);
	REQ(f, NULL, 7, IVWL_MSG_REQ_WL_SURFACE_FRAME, 13);
	REQ(f, NULL, 7, IVWL_MSG_REQ_WL_SURFACE_COMMIT);
}

static void
restart_round_trip(void)
{
	struct fixture f;
	uint32_t word = 0, marker;

	setup(&f);
	build_window(&f);

	/* The display leaves: region 12 was never confirmed deleted. */
	REQUIRE(ivwl_replay_begin(f.rp, &f.map, &f.synth, &f.why) == 0);
	CHECK(find(&f.synth, 13, IVWL_EVT_WL_CALLBACK_DONE, NULL) >= 0);
	CHECK(find(&f.synth, 1, IVWL_EVT_WL_DISPLAY_DELETE_ID, &word) >= 0);
	CHECK_EQ(word, 12);
	/* Buffer 9 is what the surface shows: not released. */
	CHECK(find(&f.synth, 9, IVWL_EVT_WL_BUFFER_RELEASE, NULL) < 0);
	deliver_synth(&f);

	/* The new display: one sync per id below 14, then a marker. */
	REQUIRE(ivwl_replay_start(f.rp, &f.map, &f.q, &f.why) == 0);
	CHECK_EQ(count(&f.q), 12 + 1);
	CHECK(find(&f.q, 1, IVWL_REQ_WL_DISPLAY_SYNC, &word) == 0);
	CHECK_EQ(word, 2);
	CHECK(!ivwl_replay_done(f.rp));
	marker = 14;
	ivwl_replay_buf_reset(&f.q);
	answer_syncs(&f, 2, marker + 1);

	/* Then the registry again, and another marker. */
	CHECK(find(&f.q, 1, IVWL_REQ_WL_DISPLAY_GET_REGISTRY, &word) == 0);
	CHECK_EQ(word, 2);
	ivwl_replay_buf_reset(&f.q);
	/* The new display's globals, under other names, without output. */
	CHECK_EQ(EVT(&f, 2, IVWL_MSG_EVT_WL_REGISTRY_GLOBAL, 21,
		     "xdg_wm_base", 3), IVWL_REPLAY_DROP);
	EVT(&f, 2, IVWL_MSG_EVT_WL_REGISTRY_GLOBAL, 22, "wl_compositor", 5);
	EVT(&f, 2, IVWL_MSG_EVT_WL_REGISTRY_GLOBAL, 23, "wl_shm", 1);
	answer_syncs(&f, marker + 1, marker + 2);

	/* The output is withdrawn from the client, the rest bound again. */
	CHECK(find(&f.synth, 2, IVWL_EVT_WL_REGISTRY_GLOBAL_REMOVE, &word) >=
	      0);
	CHECK_EQ(word, 4);
	CHECK(find(&f.q, 2, IVWL_REQ_WL_REGISTRY_BIND, &word) == 0);
	CHECK_EQ(word, 22);
	CHECK(find(&f.q, 3, IVWL_REQ_WL_COMPOSITOR_CREATE_SURFACE, &word) > 0);
	CHECK_EQ(word, 7);
	/* Buffer 9 from a pool of the relay's (id 16), then that pool goes. */
	CHECK(find(&f.q, 4, IVWL_REQ_WL_SHM_CREATE_POOL, &word) > 0);
	CHECK_EQ(word, 16);
	CHECK(find(&f.q, 16, IVWL_REQ_WL_SHM_POOL_CREATE_BUFFER, &word) > 0);
	CHECK_EQ(word, 9);
	CHECK(find(&f.q, 16, IVWL_REQ_WL_SHM_POOL_DESTROY, NULL) > 0);
	/* The last title only, and the initial commit without a buffer. */
	CHECK(find(&f.q, 11, IVWL_REQ_XDG_TOPLEVEL_SET_TITLE, NULL) > 0);
	CHECK(find(&f.q, 7, IVWL_REQ_WL_SURFACE_COMMIT, NULL) > 0);
	CHECK(find(&f.q, 7, IVWL_REQ_WL_SURFACE_ATTACH, NULL) < 0);
	CHECK(find(&f.q, 6, IVWL_REQ_WL_OUTPUT_RELEASE, NULL) < 0);
	CHECK(!ivwl_replay_done(f.rp));
	ivwl_replay_buf_reset(&f.q);
	deliver_synth(&f);
	CHECK_EQ(EVT(&f, 1, IVWL_MSG_EVT_WL_DISPLAY_DELETE_ID, 16),
		 IVWL_REPLAY_DROP);

	/* First configure: the relay acks, sets the region, shows 9. */
	CHECK_EQ(EVT(&f, 10, IVWL_MSG_EVT_XDG_SURFACE_CONFIGURE, 900),
		 IVWL_REPLAY_PASS);
	CHECK(find(&f.q, 10, IVWL_REQ_XDG_SURFACE_ACK_CONFIGURE, &word) == 0);
	CHECK_EQ(word, 900);
	CHECK(find(&f.q, 3, IVWL_REQ_WL_COMPOSITOR_CREATE_REGION, &word) > 0);
	CHECK(find(&f.q, word, IVWL_REQ_WL_REGION_ADD, NULL) > 0);
	CHECK(find(&f.q, 7, IVWL_REQ_WL_SURFACE_SET_OPAQUE_REGION, NULL) > 0);
	CHECK(find(&f.q, 7, IVWL_REQ_WL_SURFACE_ATTACH, &word) > 0);
	CHECK_EQ(word, 9);
	/* The client may reuse the region's id 17 only once it is gone. */
	CHECK(find(&f.q, 17, IVWL_REQ_WL_REGION_DESTROY, NULL) > 0);
	CHECK(!ivwl_replay_done(f.rp));
	CHECK_EQ(EVT(&f, 1, IVWL_MSG_EVT_WL_DISPLAY_DELETE_ID, 17),
		 IVWL_REPLAY_DROP);
	CHECK(ivwl_replay_done(f.rp));
	CHECK_EQ(ivwl_replay_count(f.rp), 1);

	/*
	 * The client saw serial 5 of the old display, so the new display's
	 * serials reach it 6 higher.  Its ack of that configure (906) and
	 * of the old one go nowhere.
	 */
	CHECK_EQ(REQ(&f, NULL, 10, IVWL_MSG_REQ_XDG_SURFACE_ACK_CONFIGURE,
		     5), IVWL_REPLAY_DROP);
	CHECK_EQ(REQ(&f, NULL, 10, IVWL_MSG_REQ_XDG_SURFACE_ACK_CONFIGURE,
		     906), IVWL_REPLAY_DROP);
	/* A later one, and a serial the old display used too. */
	CHECK_EQ(EVT(&f, 10, IVWL_MSG_EVT_XDG_SURFACE_CONFIGURE, 5),
		 IVWL_REPLAY_PASS);
	CHECK_EQ(f.last[2], 11);
	CHECK_EQ(REQ(&f, NULL, 10, IVWL_MSG_REQ_XDG_SURFACE_ACK_CONFIGURE,
		     11), IVWL_REPLAY_PASS);
	CHECK_EQ(f.last[2], 5);
	/* The withdrawn output is answered by the relay. */
	CHECK_EQ(REQ(&f, NULL, 6, IVWL_MSG_REQ_WL_OUTPUT_RELEASE),
		 IVWL_REPLAY_DROP);
	CHECK(find(&f.synth, 1, IVWL_EVT_WL_DISPLAY_DELETE_ID, &word) == 0);
	CHECK_EQ(word, 6);
	/* A bind by the old name goes to the new one. */
	CHECK_EQ(REQ(&f, NULL, 2, IVWL_MSG_REQ_WL_REGISTRY_BIND, 2,
		     "wl_shm", 1, 14), IVWL_REPLAY_PASS);
	teardown(&f);
}

static void
unreplayable_interface_ends_it(void)
{
	struct fixture f;

	setup(&f);
	REQ(&f, NULL, 1, IVWL_MSG_REQ_WL_DISPLAY_GET_REGISTRY, 2);
	EVT(&f, 2, IVWL_MSG_EVT_WL_REGISTRY_GLOBAL, 1,
	    "zwp_linux_dmabuf_v1", 3);
	REQ(&f, NULL, 2, IVWL_MSG_REQ_WL_REGISTRY_BIND, 1,
	    "zwp_linux_dmabuf_v1", 3, 3);
	CHECK(ivwl_replay_begin(f.rp, &f.map, &f.synth, &f.why) < 0);
	CHECK(f.why && strstr(f.why, "zwp_linux_dmabuf_v1"));
	teardown(&f);
}

/* An id reused for another object is never taken for the old one. */
static void
reused_id_is_not_the_old_object(void)
{
	struct fixture f;

	setup(&f);
	REQ(&f, NULL, 1, IVWL_MSG_REQ_WL_DISPLAY_GET_REGISTRY, 2);
	EVT(&f, 2, IVWL_MSG_EVT_WL_REGISTRY_GLOBAL, 1, "wl_compositor", 4);
	EVT(&f, 2, IVWL_MSG_EVT_WL_REGISTRY_GLOBAL, 2, "wp_viewporter", 1);
	REQ(&f, NULL, 2, IVWL_MSG_REQ_WL_REGISTRY_BIND, 1,
	    "wl_compositor", 4, 3);
	REQ(&f, NULL, 2, IVWL_MSG_REQ_WL_REGISTRY_BIND, 2,
	    "wp_viewporter", 1, 4);
	REQ(&f, NULL, 3, IVWL_MSG_REQ_WL_COMPOSITOR_CREATE_SURFACE, 5);
	REQ(&f, NULL, 4, IVWL_MSG_REQ_WP_VIEWPORTER_GET_VIEWPORT, 6, 5);
	REQ(&f, NULL, 5, IVWL_MSG_REQ_WL_SURFACE_DESTROY);
	EVT(&f, 1, IVWL_MSG_EVT_WL_DISPLAY_DELETE_ID, 5);
	REQ(&f, NULL, 3, IVWL_MSG_REQ_WL_COMPOSITOR_CREATE_REGION, 5);

	REQUIRE(ivwl_replay_begin(f.rp, &f.map, &f.synth, &f.why) == 0);
	deliver_synth(&f);
	REQUIRE(ivwl_replay_start(f.rp, &f.map, &f.q, &f.why) == 0);
	answer_syncs(&f, 2, 8);
	EVT(&f, 2, IVWL_MSG_EVT_WL_REGISTRY_GLOBAL, 7, "wl_compositor", 4);
	EVT(&f, 2, IVWL_MSG_EVT_WL_REGISTRY_GLOBAL, 8, "wp_viewporter", 1);
	ivwl_replay_buf_reset(&f.q);
	answer_syncs(&f, 8, 9);
	CHECK(find(&f.q, 3, IVWL_REQ_WL_COMPOSITOR_CREATE_REGION, NULL) >= 0);
	CHECK(find(&f.q, 4, IVWL_REQ_WP_VIEWPORTER_GET_VIEWPORT, NULL) < 0);
	CHECK(ivwl_replay_done(f.rp));
	/* The inert viewport: set_source dropped, destroy answered. */
	CHECK_EQ(REQ(&f, NULL, 6, IVWL_MSG_REQ_WP_VIEWPORT_SET_SOURCE, 0,
		     0, 1, 1), IVWL_REPLAY_DROP);
	CHECK_EQ(REQ(&f, NULL, 6, IVWL_MSG_REQ_WP_VIEWPORT_DESTROY),
		 IVWL_REPLAY_DROP);
	CHECK(find(&f.synth, 1, IVWL_EVT_WL_DISPLAY_DELETE_ID, NULL) == 0);
	teardown(&f);
}

/* A display that leaves in the middle of a replay: the next one works. */
static void
display_leaves_during_replay(void)
{
	struct fixture f;
	uint32_t word = 0;

	setup(&f);
	build_window(&f);
	REQUIRE(ivwl_replay_begin(f.rp, &f.map, &f.synth, &f.why) == 0);
	deliver_synth(&f);
	REQUIRE(ivwl_replay_start(f.rp, &f.map, &f.q, &f.why) == 0);
	answer_syncs(&f, 2, 8);		/* part of the fills, then gone */
	ivwl_replay_buf_reset(&f.q);

	REQUIRE(ivwl_replay_begin(f.rp, &f.map, &f.synth, &f.why) == 0);
	deliver_synth(&f);
	REQUIRE(ivwl_replay_start(f.rp, &f.map, &f.q, &f.why) == 0);
	CHECK(!ivwl_replay_done(f.rp));
	answer_syncs(&f, 2, 15);
	CHECK(find(&f.q, 1, IVWL_REQ_WL_DISPLAY_GET_REGISTRY, &word) >= 0);
	ivwl_replay_buf_reset(&f.q);
	EVT(&f, 2, IVWL_MSG_EVT_WL_REGISTRY_GLOBAL, 31, "wl_compositor", 4);
	EVT(&f, 2, IVWL_MSG_EVT_WL_REGISTRY_GLOBAL, 32, "wl_shm", 1);
	EVT(&f, 2, IVWL_MSG_EVT_WL_REGISTRY_GLOBAL, 33, "xdg_wm_base", 2);
	EVT(&f, 2, IVWL_MSG_EVT_WL_REGISTRY_GLOBAL, 34, "wl_output", 3);
	answer_syncs(&f, 15, 16);
	CHECK(find(&f.q, 3, IVWL_REQ_WL_COMPOSITOR_CREATE_SURFACE, NULL) > 0);
	CHECK(find(&f.q, 7, IVWL_REQ_WL_SURFACE_COMMIT, NULL) > 0);
	teardown(&f);
}

/*
 * Objects the display makes get ids of the new display's choosing; the
 * client still holds an offer of the old one under the same id.
 */
static void
display_ids_are_mapped(void)
{
	const uint32_t srv = IVWL_WIRE_SERVER_ID_START;
	struct fixture f;

	setup(&f);
	REQ(&f, NULL, 1, IVWL_MSG_REQ_WL_DISPLAY_GET_REGISTRY, 2);
	EVT(&f, 2, IVWL_MSG_EVT_WL_REGISTRY_GLOBAL, 1, "wl_seat", 7);
	EVT(&f, 2, IVWL_MSG_EVT_WL_REGISTRY_GLOBAL, 2,
	    "wl_data_device_manager", 3);
	REQ(&f, NULL, 2, IVWL_MSG_REQ_WL_REGISTRY_BIND, 1, "wl_seat", 7,
	    3);
	REQ(&f, NULL, 2, IVWL_MSG_REQ_WL_REGISTRY_BIND, 2,
	    "wl_data_device_manager", 3, 4);
	REQ(&f, NULL, 4, IVWL_MSG_REQ_WL_DATA_DEVICE_MANAGER_GET_DATA_DEVICE,
	    5, 3);
	EVT(&f, 5, IVWL_MSG_EVT_WL_DATA_DEVICE_DATA_OFFER, srv);
	EVT(&f, 5, IVWL_MSG_EVT_WL_DATA_DEVICE_SELECTION, srv);

	REQUIRE(ivwl_replay_begin(f.rp, &f.map, &f.synth, &f.why) == 0);
	/* The old selection is gone for the client. */
	CHECK(find(&f.synth, 5, IVWL_EVT_WL_DATA_DEVICE_SELECTION, NULL) >= 0);
	deliver_synth(&f);
	REQUIRE(ivwl_replay_start(f.rp, &f.map, &f.q, &f.why) == 0);
	answer_syncs(&f, 2, 7);
	EVT(&f, 2, IVWL_MSG_EVT_WL_REGISTRY_GLOBAL, 1, "wl_seat", 7);
	EVT(&f, 2, IVWL_MSG_EVT_WL_REGISTRY_GLOBAL, 2,
	    "wl_data_device_manager", 3);
	answer_syncs(&f, 7, 8);
	CHECK(find(&f.q, 4, IVWL_REQ_WL_DATA_DEVICE_MANAGER_GET_DATA_DEVICE,
		   NULL) >= 0);
	CHECK(ivwl_replay_done(f.rp));

	/* The new display's first offer takes the next id on our side. */
	CHECK_EQ(EVT(&f, 5, IVWL_MSG_EVT_WL_DATA_DEVICE_DATA_OFFER, srv),
		 IVWL_REPLAY_PASS);
	CHECK_EQ(f.last[2], srv + 1);
	CHECK_EQ(EVT(&f, srv, IVWL_MSG_EVT_WL_DATA_OFFER_OFFER,
		     "text/plain"), IVWL_REPLAY_PASS);
	CHECK_EQ(f.last[0], srv + 1);
	CHECK_EQ(EVT(&f, 5, IVWL_MSG_EVT_WL_DATA_DEVICE_SELECTION, srv),
		 IVWL_REPLAY_PASS);
	CHECK_EQ(f.last[2], srv + 1);
	/* Requests to it reach the display's id; to the old one, nothing. */
	CHECK_EQ(REQ(&f, NULL, srv + 1, IVWL_MSG_REQ_WL_DATA_OFFER_ACCEPT,
		     0, "text/plain"), IVWL_REPLAY_PASS);
	CHECK_EQ(f.last[0], srv);
	CHECK_EQ(REQ(&f, NULL, srv, IVWL_MSG_REQ_WL_DATA_OFFER_DESTROY),
		 IVWL_REPLAY_DROP);
	teardown(&f);
}

/* A new display that lists the old one's globals (but the output). */
static void
list_new_globals(struct fixture *f, uint32_t marker)
{
	EVT(f, 2, IVWL_MSG_EVT_WL_REGISTRY_GLOBAL, 21, "xdg_wm_base", 3);
	EVT(f, 2, IVWL_MSG_EVT_WL_REGISTRY_GLOBAL, 22, "wl_compositor", 5);
	EVT(f, 2, IVWL_MSG_EVT_WL_REGISTRY_GLOBAL, 23, "wl_shm", 1);
	answer_syncs(f, marker, marker + 1);
}

/*
 * The display leaves once it configured the window, before it deleted
 * the relay's last ids (the region, 17): that replay did not finish, and
 * the next display takes all of it.
 */
static void
display_leaves_before_replay_ids_deleted(void)
{
	struct fixture f;

	setup(&f);
	build_window(&f);
	REQUIRE(ivwl_replay_begin(f.rp, &f.map, &f.synth, &f.why) == 0);
	deliver_synth(&f);
	REQUIRE(ivwl_replay_start(f.rp, &f.map, &f.q, &f.why) == 0);
	answer_syncs(&f, 2, 15);
	list_new_globals(&f, 15);
	CHECK_EQ(EVT(&f, 1, IVWL_MSG_EVT_WL_DISPLAY_DELETE_ID, 16),
		 IVWL_REPLAY_DROP);
	CHECK_EQ(EVT(&f, 10, IVWL_MSG_EVT_XDG_SURFACE_CONFIGURE, 3),
		 IVWL_REPLAY_PASS);
	CHECK(!ivwl_replay_done(f.rp));
	REQUIRE(ivwl_replay_begin(f.rp, &f.map, &f.synth, &f.why) == 0);
	deliver_synth(&f);
	ivwl_replay_buf_reset(&f.q);

	REQUIRE(ivwl_replay_start(f.rp, &f.map, &f.q, &f.why) == 0);
	CHECK(find(&f.q, 1, IVWL_REQ_WL_DISPLAY_SYNC, NULL) == 0);
	answer_syncs(&f, 2, 15);
	list_new_globals(&f, 15);
	CHECK(find(&f.q, 3, IVWL_REQ_WL_COMPOSITOR_CREATE_SURFACE, NULL) > 0);
	CHECK_EQ(EVT(&f, 1, IVWL_MSG_EVT_WL_DISPLAY_DELETE_ID, 16),
		 IVWL_REPLAY_DROP);
	CHECK_EQ(EVT(&f, 10, IVWL_MSG_EVT_XDG_SURFACE_CONFIGURE, 3),
		 IVWL_REPLAY_PASS);
	CHECK_EQ(EVT(&f, 1, IVWL_MSG_EVT_WL_DISPLAY_DELETE_ID, 17),
		 IVWL_REPLAY_DROP);
	CHECK(ivwl_replay_done(f.rp));
	CHECK_EQ(ivwl_replay_count(f.rp), 1);
	teardown(&f);
}

/* Index of the last message to object with opcode; -1. */
static int
find_last(const struct ivwl_replay_buf *b, uint32_t object, uint16_t opcode)
{
	const struct ivwl_fd_desc *desc;
	const uint8_t *bytes;
	uint32_t pos = 0, len, head[2];
	int i = 0, last = -1;

	while (ivwl_replay_buf_next(b, &pos, &bytes, &len, &desc)) {
		memcpy(head, bytes, sizeof(head));
		if (head[0] == object && (head[1] & 0xffff) == opcode)
			last = i;
		i++;
	}
	return last;
}

/*
 * A maximized window comes back at its old size first, its buffer
 * committed; only then is it maximized, and the client answers that
 * configure itself.
 */
static void
maximized_after_first_commit(void)
{
	struct fixture f;
	int commit;

	setup(&f);
	build_window(&f);
	REQ(&f, NULL, 11, IVWL_MSG_REQ_XDG_TOPLEVEL_SET_MAXIMIZED);
	REQUIRE(ivwl_replay_begin(f.rp, &f.map, &f.synth, &f.why) == 0);
	deliver_synth(&f);
	REQUIRE(ivwl_replay_start(f.rp, &f.map, &f.q, &f.why) == 0);
	answer_syncs(&f, 2, 15);
	list_new_globals(&f, 15);
	CHECK(find(&f.q, 11, IVWL_REQ_XDG_TOPLEVEL_SET_TITLE, NULL) > 0);
	CHECK(find(&f.q, 11, IVWL_REQ_XDG_TOPLEVEL_SET_MAXIMIZED, NULL) < 0);
	CHECK_EQ(EVT(&f, 1, IVWL_MSG_EVT_WL_DISPLAY_DELETE_ID, 16),
		 IVWL_REPLAY_DROP);
	ivwl_replay_buf_reset(&f.q);

	CHECK_EQ(EVT(&f, 10, IVWL_MSG_EVT_XDG_SURFACE_CONFIGURE, 3),
		 IVWL_REPLAY_PASS);
	CHECK(find(&f.q, 10, IVWL_REQ_XDG_SURFACE_ACK_CONFIGURE, NULL) == 0);
	commit = find_last(&f.q, 7, IVWL_REQ_WL_SURFACE_COMMIT);
	CHECK(commit > 0);
	CHECK(find_last(&f.q, 11, IVWL_REQ_XDG_TOPLEVEL_SET_MAXIMIZED) >
	      commit);
	CHECK_EQ(EVT(&f, 1, IVWL_MSG_EVT_WL_DISPLAY_DELETE_ID, 17),
		 IVWL_REPLAY_DROP);
	CHECK(ivwl_replay_done(f.rp));
	/* The maximized configure: the client's ack of it goes through. */
	CHECK_EQ(EVT(&f, 10, IVWL_MSG_EVT_XDG_SURFACE_CONFIGURE, 4),
		 IVWL_REPLAY_PASS);
	CHECK_EQ(REQ(&f, NULL, 10, IVWL_MSG_REQ_XDG_SURFACE_ACK_CONFIGURE,
		     f.last[2]), IVWL_REPLAY_PASS);
	CHECK_EQ(f.last[2], 4);
	teardown(&f);
}

/* Index of the first message to object with opcode after index from. */
static int
find_after(const struct ivwl_replay_buf *b, int from, uint32_t object,
	   uint16_t opcode, uint32_t *word)
{
	const struct ivwl_fd_desc *desc;
	const uint8_t *bytes;
	uint32_t pos = 0, len, head[3];
	int i = 0;

	while (ivwl_replay_buf_next(b, &pos, &bytes, &len, &desc)) {
		memcpy(head, bytes, len >= 12 ? 12 : 8);
		if (i > from && head[0] == object &&
		    (head[1] & 0xffff) == opcode) {
			if (word)
				*word = len >= 12 ? head[2] : 0;
			return i;
		}
		i++;
	}
	return -1;
}

/*
 * A viewport's source is the surface's state like its buffer: the one
 * committed goes with the old buffer, the one the client set for its
 * next buffer (attached, transformed, not committed yet) after the
 * commit, for the client's own.
 */
static void
viewport_and_pending_state(void)
{
	struct fixture f;
	uint32_t word = 0;
	int commit, at;

	setup(&f);
	REQ(&f, NULL, 1, IVWL_MSG_REQ_WL_DISPLAY_GET_REGISTRY, 2);
	EVT(&f, 2, IVWL_MSG_EVT_WL_REGISTRY_GLOBAL, 1, "wl_compositor", 4);
	EVT(&f, 2, IVWL_MSG_EVT_WL_REGISTRY_GLOBAL, 2, "wl_shm", 1);
	EVT(&f, 2, IVWL_MSG_EVT_WL_REGISTRY_GLOBAL, 3, "wp_viewporter", 1);
	REQ(&f, NULL, 2, IVWL_MSG_REQ_WL_REGISTRY_BIND, 1, "wl_compositor",
	    4, 3);
	REQ(&f, NULL, 2, IVWL_MSG_REQ_WL_REGISTRY_BIND, 2, "wl_shm", 1, 4);
	REQ(&f, NULL, 2, IVWL_MSG_REQ_WL_REGISTRY_BIND, 3,
	    "wp_viewporter", 1, 5);
	REQ(&f, NULL, 3, IVWL_MSG_REQ_WL_COMPOSITOR_CREATE_SURFACE, 6);
	REQ(&f, &pool_desc, 4, IVWL_MSG_REQ_WL_SHM_CREATE_POOL, 7, 1 << 20);
	REQ(&f, NULL, 7, IVWL_MSG_REQ_WL_SHM_POOL_CREATE_BUFFER, 8, 0,
	    16, 16, 64, 0);
	REQ(&f, NULL, 7, IVWL_MSG_REQ_WL_SHM_POOL_CREATE_BUFFER, 9,
	    4096, 64, 64, 256, 0);
	REQ(&f, NULL, 5, IVWL_MSG_REQ_WP_VIEWPORTER_GET_VIEWPORT, 10, 6);
	REQ(&f, NULL, 10, IVWL_MSG_REQ_WP_VIEWPORT_SET_SOURCE, 0, 0,
	    8 << 8, 8 << 8);
	REQ(&f, NULL, 6, IVWL_MSG_REQ_WL_SURFACE_ATTACH, 8, 0, 0);
	REQ(&f, NULL, 6, IVWL_MSG_REQ_WL_SURFACE_COMMIT);
	/* For the next frame, not committed when the display goes. */
	REQ(&f, NULL, 10, IVWL_MSG_REQ_WP_VIEWPORT_SET_SOURCE, 0, 0,
	    32 << 8, 32 << 8);
	REQ(&f, NULL, 6, IVWL_MSG_REQ_WL_SURFACE_SET_BUFFER_TRANSFORM, 1);
	REQ(&f, NULL, 6, IVWL_MSG_REQ_WL_SURFACE_ATTACH, 9, 0, 0);

	REQUIRE(ivwl_replay_begin(f.rp, &f.map, &f.synth, &f.why) == 0);
	deliver_synth(&f);
	REQUIRE(ivwl_replay_start(f.rp, &f.map, &f.q, &f.why) == 0);
	answer_syncs(&f, 2, 12);
	EVT(&f, 2, IVWL_MSG_EVT_WL_REGISTRY_GLOBAL, 1, "wl_compositor", 4);
	EVT(&f, 2, IVWL_MSG_EVT_WL_REGISTRY_GLOBAL, 2, "wl_shm", 1);
	EVT(&f, 2, IVWL_MSG_EVT_WL_REGISTRY_GLOBAL, 3, "wp_viewporter", 1);
	ivwl_replay_buf_reset(&f.q);
	answer_syncs(&f, 12, 13);

	/* The committed source, with the old buffer, then the commit. */
	at = find(&f.q, 10, IVWL_REQ_WP_VIEWPORT_SET_SOURCE, NULL);
	CHECK(at > find(&f.q, 5, IVWL_REQ_WP_VIEWPORTER_GET_VIEWPORT, NULL));
	commit = find(&f.q, 6, IVWL_REQ_WL_SURFACE_COMMIT, NULL);
	CHECK(at >= 0 && at < commit);
	CHECK(find(&f.q, 6, IVWL_REQ_WL_SURFACE_ATTACH, &word) < commit);
	CHECK_EQ(word, 8);
	CHECK(find(&f.q, 6, IVWL_REQ_WL_SURFACE_SET_BUFFER_TRANSFORM,
		   NULL) > commit);
	/* Then what the client's next commit applies. */
	CHECK(find_after(&f.q, at, 10, IVWL_REQ_WP_VIEWPORT_SET_SOURCE,
			 NULL) > commit);
	CHECK(find_after(&f.q, commit, 6, IVWL_REQ_WL_SURFACE_ATTACH,
			 &word) > commit);
	CHECK_EQ(word, 9);
	CHECK(find_after(&f.q, commit, 6, IVWL_REQ_WL_SURFACE_COMMIT,
			 NULL) < 0);
	teardown(&f);
}

/*
 * The client asks for a popup on one the restart dismissed, before it
 * read popup_done: the popup is dropped, so the display's xdg_surface
 * has no role, and the commit after it must not reach the display.
 */
static void
popup_on_dismissed_parent(void)
{
	struct fixture f;

	setup(&f);
	build_window(&f);
	REQ(&f, NULL, 5, IVWL_MSG_REQ_XDG_WM_BASE_CREATE_POSITIONER, 14);
	REQ(&f, NULL, 14, IVWL_MSG_REQ_XDG_POSITIONER_SET_SIZE, 8, 8);
	REQ(&f, NULL, 14, IVWL_MSG_REQ_XDG_POSITIONER_SET_ANCHOR_RECT, 0,
	    0, 4, 4);
	REQ(&f, NULL, 3, IVWL_MSG_REQ_WL_COMPOSITOR_CREATE_SURFACE, 15);
	REQ(&f, NULL, 5, IVWL_MSG_REQ_XDG_WM_BASE_GET_XDG_SURFACE, 16, 15);
	REQ(&f, NULL, 16, IVWL_MSG_REQ_XDG_SURFACE_GET_POPUP, 17, 10, 14);
	REQ(&f, NULL, 15, IVWL_MSG_REQ_WL_SURFACE_COMMIT);
	REQUIRE(ivwl_replay_begin(f.rp, &f.map, &f.synth, &f.why) == 0);
	CHECK(find(&f.synth, 17, IVWL_EVT_XDG_POPUP_POPUP_DONE, NULL) >= 0);
	deliver_synth(&f);
	REQUIRE(ivwl_replay_start(f.rp, &f.map, &f.q, &f.why) == 0);
	answer_syncs(&f, 2, 19);
	list_new_globals(&f, 19);
	CHECK(find(&f.q, 16, IVWL_REQ_XDG_SURFACE_GET_POPUP, NULL) < 0);
	CHECK_EQ(EVT(&f, 1, IVWL_MSG_EVT_WL_DISPLAY_DELETE_ID, 20),
		 IVWL_REPLAY_DROP);
	CHECK_EQ(EVT(&f, 10, IVWL_MSG_EVT_XDG_SURFACE_CONFIGURE, 3),
		 IVWL_REPLAY_PASS);
	CHECK_EQ(EVT(&f, 1, IVWL_MSG_EVT_WL_DISPLAY_DELETE_ID, 21),
		 IVWL_REPLAY_DROP);
	CHECK(ivwl_replay_done(f.rp));

	/* Queued before popup_done: a popup on the dismissed one. */
	CHECK_EQ(REQ(&f, NULL, 3, IVWL_MSG_REQ_WL_COMPOSITOR_CREATE_SURFACE,
		     18), IVWL_REPLAY_PASS);
	CHECK_EQ(REQ(&f, NULL, 5, IVWL_MSG_REQ_XDG_WM_BASE_GET_XDG_SURFACE,
		     19, 18), IVWL_REPLAY_PASS);
	CHECK_EQ(REQ(&f, NULL, 19, IVWL_MSG_REQ_XDG_SURFACE_GET_POPUP, 20,
		     16, 14), IVWL_REPLAY_DROP);
	CHECK(find(&f.synth, 20, IVWL_EVT_XDG_POPUP_POPUP_DONE, NULL) >= 0);
	CHECK_EQ(REQ(&f, NULL, 18, IVWL_MSG_REQ_WL_SURFACE_COMMIT),
		 IVWL_REPLAY_DROP);
	/* The client's answer to popup_done: the display's xdg_surface
	 * goes, and the surface may commit again. */
	CHECK_EQ(REQ(&f, NULL, 19, IVWL_MSG_REQ_XDG_SURFACE_DESTROY),
		 IVWL_REPLAY_PASS);
	CHECK_EQ(REQ(&f, NULL, 18, IVWL_MSG_REQ_WL_SURFACE_COMMIT),
		 IVWL_REPLAY_PASS);
	teardown(&f);
}

/*
 * The plugin withheld a data offer (its source was gone): the display's
 * next one comes past the id the client could take.  From then on the
 * relay maps display-made ids, with no restart; those the client has
 * keep theirs.
 */
static void
display_id_gap_is_mapped(void)
{
	const uint32_t srv = IVWL_WIRE_SERVER_ID_START;
	struct fixture f;

	setup(&f);
	REQ(&f, NULL, 1, IVWL_MSG_REQ_WL_DISPLAY_GET_REGISTRY, 2);
	EVT(&f, 2, IVWL_MSG_EVT_WL_REGISTRY_GLOBAL, 1, "wl_seat", 7);
	EVT(&f, 2, IVWL_MSG_EVT_WL_REGISTRY_GLOBAL, 2,
	    "wl_data_device_manager", 3);
	REQ(&f, NULL, 2, IVWL_MSG_REQ_WL_REGISTRY_BIND, 1, "wl_seat", 7,
	    3);
	REQ(&f, NULL, 2, IVWL_MSG_REQ_WL_REGISTRY_BIND, 2,
	    "wl_data_device_manager", 3, 4);
	REQ(&f, NULL, 4, IVWL_MSG_REQ_WL_DATA_DEVICE_MANAGER_GET_DATA_DEVICE,
	    5, 3);
	CHECK_EQ(EVT(&f, 5, IVWL_MSG_EVT_WL_DATA_DEVICE_DATA_OFFER, srv),
		 IVWL_REPLAY_PASS);
	CHECK_EQ(f.last[2], srv);

	/* srv + 1 was withheld. */
	CHECK_EQ(EVT(&f, 5, IVWL_MSG_EVT_WL_DATA_DEVICE_DATA_OFFER, srv + 2),
		 IVWL_REPLAY_PASS);
	CHECK_EQ(f.last[2], srv + 1);
	CHECK_EQ(EVT(&f, srv + 2, IVWL_MSG_EVT_WL_DATA_OFFER_OFFER,
		     "text/plain"), IVWL_REPLAY_PASS);
	CHECK_EQ(f.last[0], srv + 1);
	CHECK_EQ(REQ(&f, NULL, srv + 1, IVWL_MSG_REQ_WL_DATA_OFFER_ACCEPT,
		     0, "text/plain"), IVWL_REPLAY_PASS);
	CHECK_EQ(f.last[0], srv + 2);
	CHECK_EQ(REQ(&f, NULL, srv, IVWL_MSG_REQ_WL_DATA_OFFER_ACCEPT, 0,
		     "text/plain"), IVWL_REPLAY_PASS);
	CHECK_EQ(f.last[0], srv);
	teardown(&f);
}

/*
 * The display left between the client's destroy of a toplevel and that
 * of its xdg_surface: the xdg_surface comes back without a role, and
 * without its window geometry, which it may only set with one.
 */
static void
setters_of_roleless_xdg_surface(void)
{
	struct fixture f;

	setup(&f);
	build_window(&f);
	REQ(&f, NULL, 10, IVWL_MSG_REQ_XDG_SURFACE_SET_WINDOW_GEOMETRY, 0,
	    0, 16, 16);
	REQ(&f, NULL, 11, IVWL_MSG_REQ_XDG_TOPLEVEL_DESTROY);
	EVT(&f, 1, IVWL_MSG_EVT_WL_DISPLAY_DELETE_ID, 11);
	REQUIRE(ivwl_replay_begin(f.rp, &f.map, &f.synth, &f.why) == 0);
	deliver_synth(&f);
	REQUIRE(ivwl_replay_start(f.rp, &f.map, &f.q, &f.why) == 0);
	answer_syncs(&f, 2, 15);
	list_new_globals(&f, 15);
	CHECK(find(&f.q, 5, IVWL_REQ_XDG_WM_BASE_GET_XDG_SURFACE, NULL) >= 0);
	CHECK(find(&f.q, 10, IVWL_REQ_XDG_SURFACE_SET_WINDOW_GEOMETRY,
		   NULL) < 0);
	CHECK(find(&f.q, 7, IVWL_REQ_WL_SURFACE_COMMIT, NULL) < 0);
	teardown(&f);
}

/*
 * build_window's frame 13 answered, then the next frame as simple-shm
 * draws it: buffer 15 attached and frame 13 asked again.  The display
 * left before the commit, or the relay read it.
 */
static void
next_frame_pending(struct fixture *f, bool committed)
{
	CHECK_EQ(EVT(f, 13, IVWL_MSG_EVT_WL_CALLBACK_DONE, 1),
		 IVWL_REPLAY_PASS);
	CHECK_EQ(EVT(f, 1, IVWL_MSG_EVT_WL_DISPLAY_DELETE_ID, 13),
		 IVWL_REPLAY_PASS);
	REQ(f, &pool_desc, 4, IVWL_MSG_REQ_WL_SHM_CREATE_POOL, 14, 1 << 20);
	REQ(f, NULL, 14, IVWL_MSG_REQ_WL_SHM_POOL_CREATE_BUFFER, 15,
	    4096, 16, 16, 64, 0);
	REQ(f, NULL, 7, IVWL_MSG_REQ_WL_SURFACE_ATTACH, 15, 0, 0);
	REQ(f, NULL, 7, IVWL_MSG_REQ_WL_SURFACE_DAMAGE_BUFFER, 0, 0, 16,
	    16);
	REQ(f, NULL, 7, IVWL_MSG_REQ_WL_SURFACE_FRAME, 13);
	if (committed)
		REQ(f, NULL, 7, IVWL_MSG_REQ_WL_SURFACE_COMMIT);
}

/*
 * The frame callback of a state the display never saw committed is not
 * answered at the restart: the client would draw its next frame with
 * buffer 9 still shown and 15 still attached, neither released, and
 * weston-simple-shm aborts ("Both buffers busy at redraw()").  The new
 * display gets it with the pending state and answers it after the
 * client's commit, as the old one would have.  A second restart before
 * that keeps it too.
 */
static void
frame_of_uncommitted_state_waits(void)
{
	struct fixture f;
	int commit, frame;
	uint32_t word = 0;

	setup(&f);
	build_window(&f);
	next_frame_pending(&f, false);
	REQUIRE(ivwl_replay_begin(f.rp, &f.map, &f.synth, &f.why) == 0);
	CHECK(find(&f.synth, 13, IVWL_EVT_WL_CALLBACK_DONE, NULL) < 0);
	CHECK(find(&f.synth, 1, IVWL_EVT_WL_DISPLAY_DELETE_ID, &word) >= 0);
	CHECK_EQ(word, 12);
	CHECK(find(&f.synth, 9, IVWL_EVT_WL_BUFFER_RELEASE, NULL) < 0);
	CHECK(find(&f.synth, 15, IVWL_EVT_WL_BUFFER_RELEASE, NULL) < 0);
	deliver_synth(&f);

	/* A display that leaves during the replay: still not answered. */
	REQUIRE(ivwl_replay_start(f.rp, &f.map, &f.q, &f.why) == 0);
	answer_syncs(&f, 2, 17);
	list_new_globals(&f, 17);
	CHECK(find(&f.q, 7, IVWL_REQ_WL_SURFACE_FRAME, NULL) < 0);
	REQUIRE(ivwl_replay_begin(f.rp, &f.map, &f.synth, &f.why) == 0);
	CHECK(find(&f.synth, 13, IVWL_EVT_WL_CALLBACK_DONE, NULL) < 0);
	deliver_synth(&f);
	ivwl_replay_buf_reset(&f.q);

	REQUIRE(ivwl_replay_start(f.rp, &f.map, &f.q, &f.why) == 0);
	answer_syncs(&f, 2, 17);
	list_new_globals(&f, 17);
	CHECK(find(&f.q, 14, IVWL_REQ_WL_SHM_POOL_CREATE_BUFFER, &word) > 0);
	CHECK_EQ(word, 15);
	CHECK(find(&f.q, 7, IVWL_REQ_WL_SURFACE_FRAME, NULL) < 0);
	CHECK_EQ(EVT(&f, 1, IVWL_MSG_EVT_WL_DISPLAY_DELETE_ID, 18),
		 IVWL_REPLAY_DROP);
	ivwl_replay_buf_reset(&f.q);

	/* Buffer 9 shown again, then 15 and the frame for the client's
	 * commit, after the relay's. */
	CHECK_EQ(EVT(&f, 10, IVWL_MSG_EVT_XDG_SURFACE_CONFIGURE, 3),
		 IVWL_REPLAY_PASS);
	commit = find(&f.q, 7, IVWL_REQ_WL_SURFACE_COMMIT, NULL);
	CHECK(commit > 0);
	CHECK(find(&f.q, 7, IVWL_REQ_WL_SURFACE_ATTACH, &word) < commit);
	CHECK_EQ(word, 9);
	CHECK(find_after(&f.q, commit, 7, IVWL_REQ_WL_SURFACE_ATTACH,
			 &word) > commit);
	CHECK_EQ(word, 15);
	frame = find(&f.q, 7, IVWL_REQ_WL_SURFACE_FRAME, &word);
	CHECK(frame > commit);
	CHECK_EQ(word, 13);
	CHECK_EQ(find_last(&f.q, 7, IVWL_REQ_WL_SURFACE_COMMIT), commit);
	CHECK_EQ(EVT(&f, 1, IVWL_MSG_EVT_WL_DISPLAY_DELETE_ID, 19),
		 IVWL_REPLAY_DROP);
	CHECK(ivwl_replay_done(f.rp));

	/* The client's commit; the new display answers as the old would. */
	CHECK_EQ(REQ(&f, NULL, 7, IVWL_MSG_REQ_WL_SURFACE_COMMIT),
		 IVWL_REPLAY_PASS);
	CHECK_EQ(EVT(&f, 9, IVWL_MSG_EVT_WL_BUFFER_RELEASE),
		 IVWL_REPLAY_PASS);
	CHECK_EQ(EVT(&f, 13, IVWL_MSG_EVT_WL_CALLBACK_DONE, 7),
		 IVWL_REPLAY_PASS);
	CHECK_EQ(EVT(&f, 1, IVWL_MSG_EVT_WL_DISPLAY_DELETE_ID, 13),
		 IVWL_REPLAY_PASS);

	/* Committed since: the next restart answers it, releases 9. */
	REQ(&f, NULL, 7, IVWL_MSG_REQ_WL_SURFACE_FRAME, 13);
	REQ(&f, NULL, 7, IVWL_MSG_REQ_WL_SURFACE_COMMIT);
	REQUIRE(ivwl_replay_begin(f.rp, &f.map, &f.synth, &f.why) == 0);
	CHECK(find(&f.synth, 13, IVWL_EVT_WL_CALLBACK_DONE, NULL) >= 0);
	teardown(&f);
}

/*
 * The display left once it had the commit but before its answers came:
 * the frame is answered at once and the buffer the display replaced is
 * released before, so the client has one to draw into when the done
 * comes (weston-simple-shm aborted when the release came after).
 */
static void
frame_of_committed_state_answered(void)
{
	struct fixture f;
	int done, release;

	setup(&f);
	build_window(&f);
	next_frame_pending(&f, true);
	REQUIRE(ivwl_replay_begin(f.rp, &f.map, &f.synth, &f.why) == 0);
	done = find(&f.synth, 13, IVWL_EVT_WL_CALLBACK_DONE, NULL);
	release = find(&f.synth, 9, IVWL_EVT_WL_BUFFER_RELEASE, NULL);
	CHECK(release >= 0);
	CHECK(done > release);
	CHECK(find(&f.synth, 15, IVWL_EVT_WL_BUFFER_RELEASE, NULL) < 0);
	deliver_synth(&f);
	REQUIRE(ivwl_replay_start(f.rp, &f.map, &f.q, &f.why) == 0);
	answer_syncs(&f, 2, 17);
	list_new_globals(&f, 17);
	CHECK(find(&f.q, 7, IVWL_REQ_WL_SURFACE_FRAME, NULL) < 0);
	ivwl_replay_buf_reset(&f.q);
	CHECK_EQ(EVT(&f, 10, IVWL_MSG_EVT_XDG_SURFACE_CONFIGURE, 3),
		 IVWL_REPLAY_PASS);
	CHECK(find(&f.q, 7, IVWL_REQ_WL_SURFACE_FRAME, NULL) < 0);
	teardown(&f);
}

IVWL_TEST_MAIN(TEST(restart_round_trip),
	       TEST(frame_of_uncommitted_state_waits),
	       TEST(frame_of_committed_state_answered),
	       TEST(setters_of_roleless_xdg_surface),
	       TEST(display_id_gap_is_mapped),
	       TEST(popup_on_dismissed_parent),
	       TEST(viewport_and_pending_state),
	       TEST(maximized_after_first_commit),
	       TEST(display_ids_are_mapped),
	       TEST(display_leaves_during_replay),
	       TEST(display_leaves_before_replay_ids_deleted),
	       TEST(unreplayable_interface_ends_it),
	       TEST(reused_id_is_not_the_old_object))
