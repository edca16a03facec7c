/* SPDX-License-Identifier: MIT */
/*
 * The relay's copy mode (relay/buffers.c) without a relay: a
 * client's requests go through ivwl_buffers_request as the relay passes
 * them, over a memfd pool this test draws in, and the test checks what
 * was copied (the relay's copied_bytes) and what a buffer's region copy
 * then holds, against the client's own pixels.  The agent is a stand-in
 * handing out heap ranges in turn (ivwl_agent_alloc below).
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "agent-client.h"
#include "buffers.h"
#include "harness.h"
#include "wire-msg.h"
#include "ivwl-protocols.h"

#define HEAP_OFFSET 4096u
#define HEAP_SIZE (1u << 20)
#define POOL_SIZE (64u << 10)
#define W 16
#define H 16
#define STRIDE (W * 4)
#define BUFFER_BYTES (STRIDE * H)
#define FORMAT_XRGB8888 1u

/* object ids of the client, as libwayland hands them out */
enum {
	REGISTRY = 2, COMPOSITOR, SHM, SURFACE, POOL, BUF_A, BUF_B,
};

static uint64_t next_range;

int
ivwl_agent_alloc(int fd, uint64_t length, struct ivwl_extent *out)
{
	(void)fd;
	length = (length + 4095) & ~(uint64_t)4095;
	if (next_range + length > HEAP_SIZE)
		return -ENOMEM;
	out->offset = HEAP_OFFSET + next_range;
	out->length = length;
	next_range += length;
	return 0;
}

int
ivwl_agent_free(int fd, uint64_t offset)
{
	(void)fd;
	(void)offset;
	return 0;
}

struct fixture {
	struct ivwl_wire_map map;
	struct ivwl_layout layout;
	struct ivwl_buffers b;
	uint8_t *region;
	uint8_t *pool;		/* the client's mapping of its memfd */
	int pool_fd;
	uint64_t copy_of[BUF_B + 1];	/* region offset of a buffer's copy */
};

/*
 * A request from the client, through the calls the relay makes; fd goes
 * with it (-1: none).  Returns its bytes as rewritten for the display.
 */
static const uint8_t *
request(struct fixture *f, int fd, uint32_t object, uint16_t opcode,
	const char *fmt, ...)
{
	static uint8_t bytes[IVWL_WIRE_MAX_MESSAGE];
	struct ivwl_fd_desc descs[1];
	struct ivwl_wire_msg msg;
	const char *why = NULL;
	va_list ap;
	uint32_t len;

	va_start(ap, fmt);
	len = ivwl_test_vmsg(bytes, sizeof(bytes), object, opcode, fmt, ap);
	va_end(ap);
	REQUIRE(ivwl_wire_parse(&f->map, IVWL_WIRE_REQUEST, bytes, len,
				&msg) == (int)len);
	REQUIRE(ivwl_buffers_request(&f->b, &msg, bytes, &fd, descs,
				     &why) == 0);
	REQUIRE(ivwl_wire_track(&f->map, IVWL_WIRE_REQUEST, &msg) == 0);
	return bytes;
}

/* The display deletes id, which the client may then use again. */
static void
delete_id(struct fixture *f, uint32_t id)
{
	uint8_t bytes[16];
	struct ivwl_wire_msg msg;
	uint32_t len;

	len = ivwl_test_msg(bytes, sizeof(bytes), IVWL_WIRE_DISPLAY_ID, IVWL_EVT_WL_DISPLAY_DELETE_ID,
		  "u", id);
	REQUIRE(ivwl_wire_parse(&f->map, IVWL_WIRE_EVENT, bytes, len,
				&msg) == (int)len);
	REQUIRE(ivwl_wire_track(&f->map, IVWL_WIRE_EVENT, &msg) == 0);
}

static void
setup(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	next_range = 0;
	REQUIRE(ivwl_wire_map_init(&f->map) == 0);
	f->layout.heap_offset = HEAP_OFFSET;
	f->layout.heap_size = HEAP_SIZE;
	f->layout.region_size = HEAP_OFFSET + HEAP_SIZE;
	f->region = calloc(1, f->layout.region_size);
	REQUIRE(f->region);
	ivwl_buffers_init(&f->b, -1, f->region, &f->layout);

	f->pool_fd = memfd_create("test-buffers", MFD_CLOEXEC);
	REQUIRE(f->pool_fd >= 0 && ftruncate(f->pool_fd, POOL_SIZE) == 0);
	f->pool = mmap(NULL, POOL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		       f->pool_fd, 0);
	REQUIRE(f->pool != MAP_FAILED);

	request(f, -1, IVWL_WIRE_DISPLAY_ID, IVWL_REQ_WL_DISPLAY_GET_REGISTRY,
		"n", REGISTRY);
	request(f, -1, REGISTRY, IVWL_REQ_WL_REGISTRY_BIND, "usun", 1,
		"wl_compositor", 4, COMPOSITOR);
	request(f, -1, REGISTRY, IVWL_REQ_WL_REGISTRY_BIND, "usun", 2,
		"wl_shm", 1, SHM);
	request(f, -1, COMPOSITOR, IVWL_REQ_WL_COMPOSITOR_CREATE_SURFACE, "n",
		SURFACE);
	/* the relay owns the fd it is given */
	request(f, dup(f->pool_fd), SHM, IVWL_REQ_WL_SHM_CREATE_POOL, "nhi",
		POOL, POOL_SIZE);
}

static void
teardown(struct fixture *f)
{
	ivwl_buffers_release(&f->b);
	ivwl_wire_map_release(&f->map);
	munmap(f->pool, POOL_SIZE);
	close(f->pool_fd);
	free(f->region);
}

/* A W x H buffer at offset in the pool; notes where its copy is. */
static void
create_buffer(struct fixture *f, uint32_t id, uint32_t offset)
{
	const uint8_t *bytes;
	uint32_t rel;

	bytes = request(f, -1, POOL, IVWL_REQ_WL_SHM_POOL_CREATE_BUFFER,
			"niiiiu", id, offset, W, H, STRIDE, FORMAT_XRGB8888);
	/* the display finds the copy at this offset of its pool */
	memcpy(&rel, bytes + 12, 4);
	f->copy_of[id] = HEAP_OFFSET + (uint64_t)rel;
}

/* The client draws the whole buffer at offset, each pixel its own. */
static void
draw(struct fixture *f, uint32_t offset, uint32_t gen)
{
	uint32_t i, px;

	for (i = 0; i < W * H; i++) {
		px = 0xff000000u | gen << 16 | i;
		memcpy(f->pool + offset + 4 * i, &px, 4);
	}
}

/* wl_surface.damage_buffer then commit; buffer 0: no attach. */
static void
commit(struct fixture *f, uint32_t buffer, int32_t x, int32_t y, int32_t w,
       int32_t h)
{
	if (buffer)
		request(f, -1, SURFACE, IVWL_REQ_WL_SURFACE_ATTACH, "oii",
			buffer, 0, 0);
	request(f, -1, SURFACE, IVWL_REQ_WL_SURFACE_DAMAGE_BUFFER, "iiii",
		x, y, w, h);
	request(f, -1, SURFACE, IVWL_REQ_WL_SURFACE_COMMIT, "");
}

/* The region copy of buffer id holds the client's pixels at offset. */
static bool
copy_matches(const struct fixture *f, uint32_t id, uint32_t offset)
{
	return memcmp(f->region + f->copy_of[id], f->pool + offset,
		      BUFFER_BYTES) == 0;
}

static void
destroy_buffer(struct fixture *f, uint32_t id)
{
	request(f, -1, id, IVWL_REQ_WL_BUFFER_DESTROY, "");
	delete_id(f, id);
}

/* A shown buffer A at pool offset 0, then destroyed. */
static void
show_then_destroy(struct fixture *f)
{
	create_buffer(f, BUF_A, 0);
	draw(f, 0, 1);
	commit(f, BUF_A, 0, 0, W, H);
	destroy_buffer(f, BUF_A);
}

/* Bytes a commit without an attach copies, a 4 x 4 box damaged. */
static uint64_t
copied_by_bare_commit(struct fixture *f)
{
	uint64_t before = f->b.copied_bytes;

	commit(f, 0, 0, 0, 4, 4);
	return f->b.copied_bytes - before;
}

static void
first_commit_copies_all_then_damage(void)
{
	struct fixture f;

	setup(&f);
	create_buffer(&f, BUF_A, 0);
	draw(&f, 0, 1);
	commit(&f, BUF_A, 0, 0, W, H);
	CHECK_EQ(f.b.copied_bytes, BUFFER_BYTES);
	CHECK(copy_matches(&f, BUF_A, 0));

	/* the client changes one 4 x 4 box and damages it */
	draw(&f, 0, 2);
	CHECK_EQ(copied_by_bare_commit(&f), 4 * 4 * 4);
	teardown(&f);
}

/*
 * The surface's buffer is destroyed and its id taken by a new wl_buffer
 * over other bytes, never attached: a commit without an attach shows
 * no buffer, and copies none.  Then the new buffer is attached with a
 * small damage: it was never shown, so all of it is copied, whatever
 * the client drew into it before.
 */
static void
reused_id_of_current_buffer_is_not_attached(void)
{
	struct fixture f;

	setup(&f);
	show_then_destroy(&f);
	create_buffer(&f, BUF_A, 8192);
	draw(&f, 8192, 3);
	CHECK_EQ(copied_by_bare_commit(&f), 0);

	draw(&f, 8192, 4);
	commit(&f, BUF_A, 0, 0, 4, 4);
	CHECK(copy_matches(&f, BUF_A, 8192));
	teardown(&f);
}

/*
 * Attached, destroyed before the commit, its id taken again: the
 * commit attaches no buffer (the display's pending buffer went with
 * the wl_buffer), so nothing is copied.
 */
static void
reused_id_of_pending_buffer_is_not_attached(void)
{
	struct fixture f;

	setup(&f);
	create_buffer(&f, BUF_A, 0);
	draw(&f, 0, 1);
	request(&f, -1, SURFACE, IVWL_REQ_WL_SURFACE_ATTACH, "oii", BUF_A, 0,
		0);
	destroy_buffer(&f, BUF_A);
	create_buffer(&f, BUF_A, 8192);
	draw(&f, 8192, 2);
	request(&f, -1, SURFACE, IVWL_REQ_WL_SURFACE_COMMIT, "");
	CHECK_EQ(f.b.copied_bytes, 0);
	teardown(&f);
}

/*
 * The surface's buffer is destroyed (its copy kept as a spare), the
 * surface committed without a buffer, and a new wl_buffer made over the
 * same bytes: the spare serves it, and its copy holds what the client
 * drew since, though only a box is damaged.
 */
static void
spare_after_bufferless_commit(void)
{
	struct fixture f;

	setup(&f);
	show_then_destroy(&f);
	draw(&f, 0, 2);
	CHECK_EQ(copied_by_bare_commit(&f), 0);

	create_buffer(&f, BUF_B, 0);
	draw(&f, 0, 3);
	commit(&f, BUF_B, 0, 0, 4, 4);
	CHECK(copy_matches(&f, BUF_B, 0));
	teardown(&f);
}

IVWL_TEST_MAIN(TEST(first_commit_copies_all_then_damage),
	       TEST(reused_id_of_current_buffer_is_not_attached),
	       TEST(reused_id_of_pending_buffer_is_not_attached),
	       TEST(spare_after_bufferless_commit))
