/* SPDX-License-Identifier: MIT */
/*
 * The wire walker on hand-built Wayland traffic: a client start-up from
 * get_registry to a titled toplevel with an shm buffer, server-created
 * objects, id reuse, and every kind of malformed message.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "ivwl-protocols.h"
#include "wire.h"

#define REQ IVWL_WIRE_REQUEST
#define EVT IVWL_WIRE_EVENT
#define SERVER_ID(n) (IVWL_WIRE_SERVER_ID_START + (n))

/* A message builder: native-endian words, strings padded to 4. */
struct builder {
	uint8_t buf[8192];
	uint32_t len;
	uint32_t start;
};

static void
put_u32(struct builder *b, uint32_t v)
{
	REQUIRE(b->len + 4 <= sizeof(b->buf));
	memcpy(b->buf + b->len, &v, 4);
	b->len += 4;
}

static void
put_bytes(struct builder *b, const void *data, uint32_t len)
{
	uint32_t padded = (len + 3) & ~3u;

	REQUIRE(b->len + 4 + padded <= sizeof(b->buf));
	put_u32(b, len);
	memset(b->buf + b->len, 0, padded);
	memcpy(b->buf + b->len, data, len);
	b->len += padded;
}

static void
begin(struct builder *b, uint32_t id, uint16_t opcode)
{
	b->start = b->len;
	put_u32(b, id);
	put_u32(b, opcode);
}

/* Writes the size into the header of the message begun last. */
static void
end(struct builder *b)
{
	uint32_t word, size = b->len - b->start;

	memcpy(&word, b->buf + b->start + 4, 4);
	word = (word & 0xffff) | size << 16;
	memcpy(b->buf + b->start + 4, &word, 4);
}

/* One whole message, by protocol/wayland/wire.h's writer (ivwl_wire_write). */
static void
put_msg(struct builder *b, uint32_t id, uint16_t opcode, const char *sig,
	...)
{
	va_list ap;
	int len;

	b->start = b->len;
	va_start(ap, sig);
	len = ivwl_wire_vwrite(b->buf + b->len, sizeof(b->buf) - b->len, id,
			       opcode, sig, ap);
	va_end(ap);
	REQUIRE(len > 0);
	b->len += (uint32_t)len;
}

static void
reset(struct builder *b)
{
	b->len = 0;
	b->start = 0;
}

/* Parses and tracks every message of b; returns how many, or an error. */
static int
walk(struct ivwl_wire_map *map, enum ivwl_wire_dir dir,
     const struct builder *b)
{
	struct ivwl_wire_msg msg;
	uint32_t pos = 0;
	int n = 0, ret;

	while (pos < b->len) {
		ret = ivwl_wire_parse(map, dir, b->buf + pos, b->len - pos,
				      &msg);
		if (ret <= 0)
			return ret < 0 ? ret : -EAGAIN;
		pos += ret;
		ret = ivwl_wire_track(map, dir, &msg);
		if (ret < 0)
			return ret;
		n++;
	}
	return n;
}

/* The single message in b, parsed (and tracked when track is set). */
static int
one(struct ivwl_wire_map *map, enum ivwl_wire_dir dir,
    const struct builder *b, struct ivwl_wire_msg *msg, bool track)
{
	int ret = ivwl_wire_parse(map, dir, b->buf, b->len, msg);

	if (ret < 0 || !track)
		return ret;
	if (ret != (int)b->len)
		return -EAGAIN;
	return ivwl_wire_track(map, dir, msg);
}

static const struct ivwl_interface *
iface_of(const struct ivwl_wire_map *map, uint32_t id)
{
	struct ivwl_wire_object obj;

	return ivwl_wire_map_lookup(map, id, &obj) == 0 ? obj.iface : NULL;
}

static uint32_t
version_of(const struct ivwl_wire_map *map, uint32_t id)
{
	struct ivwl_wire_object obj;

	return ivwl_wire_map_lookup(map, id, &obj) == 0 ? obj.version : 0;
}

static bool
is_zombie(const struct ivwl_wire_map *map, uint32_t id)
{
	struct ivwl_wire_object obj;

	return ivwl_wire_map_lookup(map, id, &obj) == 0 && obj.zombie;
}

static void
bind(struct builder *b, uint32_t name, const char *iface, uint32_t version,
     uint32_t id)
{
	put_msg(b, 2, IVWL_REQ_WL_REGISTRY_BIND, "usuu", name, iface, version,
		id);
}

/*
 * The ids of the session every case starts from:
 * 2 registry, 3 callback, 4 compositor (v4), 5 shm, 6 xdg_wm_base (v5),
 * 7 surface, 8 pool, 9 buffer, 10 xdg_surface, 11 xdg_toplevel, 12 data device
 * manager, 13 seat (v7), 14 data device.
 */
static void
start_session(struct ivwl_wire_map *map)
{
	struct builder b = { 0 };

	REQUIRE(ivwl_wire_map_init(map) == 0);
	put_msg(&b, 1, IVWL_REQ_WL_DISPLAY_GET_REGISTRY, "u", 2);
	put_msg(&b, 1, IVWL_REQ_WL_DISPLAY_SYNC, "u", 3);
	REQUIRE(walk(map, REQ, &b) == 2);

	reset(&b);
	bind(&b, 1, "wl_compositor", 4, 4);
	bind(&b, 2, "wl_shm", 1, 5);
	bind(&b, 3, "xdg_wm_base", 5, 6);
	put_msg(&b, 4, IVWL_REQ_WL_COMPOSITOR_CREATE_SURFACE, "u", 7);
	put_msg(&b, 5, IVWL_REQ_WL_SHM_CREATE_POOL, "uu", 8, 65536);
	put_msg(&b, 8, IVWL_REQ_WL_SHM_POOL_CREATE_BUFFER, "uuuuuu", 9, 0, 64,
		64, 256, 1);
	put_msg(&b, 6, IVWL_REQ_XDG_WM_BASE_GET_XDG_SURFACE, "uu", 10, 7);
	put_msg(&b, 10, IVWL_REQ_XDG_SURFACE_GET_TOPLEVEL, "u", 11);
	bind(&b, 4, "wl_data_device_manager", 3, 12);
	bind(&b, 5, "wl_seat", 7, 13);
	put_msg(&b, 12, IVWL_REQ_WL_DATA_DEVICE_MANAGER_GET_DATA_DEVICE, "uu",
		14, 13);
	REQUIRE(walk(map, REQ, &b) == 11);
}

/* An interface of each protocol file the build reads. */
static const char *const one_per_file[] = {
	"xdg_wm_base",
	"wp_viewporter",
	"wp_presentation",
	"zwp_linux_dmabuf_v1",
	"zxdg_decoration_manager_v1",
	"zwp_primary_selection_device_manager_v1",
	"zwp_pointer_constraints_v1",
	"zwp_relative_pointer_manager_v1",
	"zwp_pointer_gestures_v1",
	"zxdg_output_manager_v1",
	"zwp_idle_inhibit_manager_v1",
	"zwp_linux_explicit_synchronization_v1",
	"zwp_input_timestamps_manager_v1",
	"zwp_keyboard_shortcuts_inhibit_manager_v1",
	"zwp_tablet_manager_v2",
	"xdg_activation_v1",
	"wp_fractional_scale_manager_v1",
	"wp_single_pixel_buffer_manager_v1",
};

static void
test_tables(void)
{
	const struct ivwl_message *m;
	size_t i;

	CHECK_EQ(IVWL_REQ_WL_SURFACE_COMMIT, 6);
	CHECK_EQ(IVWL_EVT_WL_KEYBOARD_KEYMAP, 0);
	CHECK_EQ(IVWL_EVT_WL_DISPLAY_DELETE_ID, 1);

	m = &ivwl_iface_wl_keyboard.events[IVWL_EVT_WL_KEYBOARD_KEYMAP];
	CHECK(strcmp(m->name, "keymap") == 0);
	CHECK(strcmp(m->signature, "uhu") == 0);

	m = &ivwl_iface_wl_registry.requests[IVWL_REQ_WL_REGISTRY_BIND];
	CHECK(strcmp(m->signature, "usun") == 0);
	CHECK(m->types == NULL);

	m = &ivwl_iface_wl_surface.requests[IVWL_REQ_WL_SURFACE_ATTACH];
	CHECK(strcmp(m->signature, "oii") == 0);
	CHECK_EQ(m->nullable, 1);
	CHECK(m->types[0] == &ivwl_iface_wl_buffer);
	CHECK(m->types[1] == NULL);

	m = ivwl_wire_message(&ivwl_iface_wl_surface, REQ,
			      IVWL_REQ_WL_SURFACE_SET_BUFFER_SCALE);
	CHECK_EQ(m->since, 3);
	CHECK(!(m->flags & IVWL_MESSAGE_DESTRUCTOR));
	m = &ivwl_iface_xdg_toplevel.requests[IVWL_REQ_XDG_TOPLEVEL_DESTROY];
	CHECK(m->flags & IVWL_MESSAGE_DESTRUCTOR);
	m = &ivwl_iface_wl_callback.events[IVWL_EVT_WL_CALLBACK_DONE];
	CHECK(m->flags & IVWL_MESSAGE_DESTRUCTOR);

	m = ivwl_wire_message(&ivwl_iface_wl_data_device, EVT,
			      IVWL_EVT_WL_DATA_DEVICE_DATA_OFFER);
	CHECK(strcmp(m->signature, "n") == 0);
	CHECK(m->types[0] == &ivwl_iface_wl_data_offer);

	m = &ivwl_iface_wl_data_offer.requests[IVWL_REQ_WL_DATA_OFFER_ACCEPT];
	CHECK(strcmp(m->signature, "us") == 0);
	CHECK_EQ(m->nullable, 2);

	/* each protocol file made it in */
	for (i = 0; i < sizeof(one_per_file) / sizeof(one_per_file[0]); i++)
		if (!ivwl_wire_interface_find(one_per_file[i])) {
			fprintf(stderr, "%s is missing\n", one_per_file[i]);
			ivwl_test_failures++;
		}

	/* sorted, indexed and findable */
	for (i = 0; i < IVWL_IFACE_COUNT; i++) {
		CHECK_EQ(ivwl_interfaces[i]->index, i);
		CHECK(ivwl_wire_interface_find(ivwl_interfaces[i]->name) ==
		      ivwl_interfaces[i]);
		if (i > 0)
			CHECK(strcmp(ivwl_interfaces[i - 1]->name,
				     ivwl_interfaces[i]->name) < 0);
	}
}

static const struct {
	const char *name;
	size_t len;		/* 0: the whole string */
	const struct ivwl_interface *want;
} finds[] = {
	{ "wl_surface", 0, &ivwl_iface_wl_surface },
	{ "wl_display", 0, &ivwl_iface_wl_display },
	{ "wl_surfac", 0, NULL },
	{ "wl_surfaces", 0, NULL },
	{ "", 0, NULL },
	{ "aaa", 0, NULL },
	{ "zzzz", 0, NULL },
	{ "weston_screenshooter", 0, NULL },
	{ "wl_surfaceX", 10, &ivwl_iface_wl_surface },
	{ "wl_surface\0X", 12, NULL },
	{ "wl_shm", 6, &ivwl_iface_wl_shm },
	{ "wl_shm", 5, NULL },
};

static void
test_interface_find(void)
{
	const struct ivwl_interface *got;
	size_t i;

	for (i = 0; i < sizeof(finds) / sizeof(finds[0]); i++) {
		got = finds[i].len ?
		      ivwl_wire_interface_find_n(finds[i].name, finds[i].len) :
		      ivwl_wire_interface_find(finds[i].name);
		if (got != finds[i].want) {
			fprintf(stderr, "find %zu (%s): %s\n", i,
				finds[i].name, got ? got->name : "nothing");
			ivwl_test_failures++;
		}
	}
}

static void
test_session_stream(void)
{
	struct ivwl_req_wl_display_get_registry get_registry;
	struct ivwl_evt_wl_registry_global global;
	struct ivwl_req_wl_shm_create_pool pool;
	struct ivwl_req_xdg_toplevel_set_title title;
	struct ivwl_req_xdg_toplevel_set_app_id app_id;
	struct ivwl_req_wl_surface_attach attach;
	struct ivwl_wire_map map;
	struct ivwl_wire_msg msg;
	struct builder b = { 0 };
	size_t cut;

	REQUIRE(ivwl_wire_map_init(&map) == 0);
	CHECK(iface_of(&map, 1) == &ivwl_iface_wl_display);
	CHECK_EQ(map.client.live, 1);

	/* get_registry + sync, in one stream */
	put_msg(&b, 1, IVWL_REQ_WL_DISPLAY_GET_REGISTRY, "u", 2);
	put_msg(&b, 1, IVWL_REQ_WL_DISPLAY_SYNC, "u", 3);

	/* every prefix short of the first message is incomplete */
	for (cut = 0; cut < 12; cut++)
		CHECK_EQ(ivwl_wire_parse(&map, REQ, b.buf, cut, &msg), 0);
	CHECK_EQ(ivwl_wire_parse(&map, REQ, b.buf, b.len, &msg), 12);
	CHECK_EQ(msg.object, 1);
	CHECK_EQ(msg.opcode, IVWL_REQ_WL_DISPLAY_GET_REGISTRY);
	CHECK(msg.iface == &ivwl_iface_wl_display);
	CHECK_EQ(msg.nargs, 1);
	CHECK_EQ(msg.args[0].type, 'n');
	CHECK_EQ(msg.args[0].offset, 8);
	CHECK(ivwl_req_wl_display_get_registry_decode(&msg, &get_registry));
	CHECK_EQ(get_registry.registry, 2);
	CHECK_EQ(walk(&map, REQ, &b), 2);
	CHECK(iface_of(&map, 2) == &ivwl_iface_wl_registry);
	CHECK(iface_of(&map, 3) == &ivwl_iface_wl_callback);
	CHECK_EQ(version_of(&map, 3), 1);

	/* globals, the callback, its delete_id */
	reset(&b);
	put_msg(&b, 2, IVWL_EVT_WL_REGISTRY_GLOBAL, "usu", 1, "wl_compositor",
		5);
	CHECK_EQ(ivwl_wire_parse(&map, EVT, b.buf, b.len, &msg), 36);
	CHECK(ivwl_evt_wl_registry_global_decode(&msg, &global));
	CHECK(strcmp(global.interface, "wl_compositor") == 0);
	CHECK_EQ(msg.args[1].offset, 12);
	CHECK_EQ(msg.args[1].len, 14);
	CHECK_EQ(msg.args[2].offset, 32);
	CHECK_EQ(global.version, 5);
	put_msg(&b, 2, IVWL_EVT_WL_REGISTRY_GLOBAL, "usu", 2, "wl_shm", 1);
	put_msg(&b, 2, IVWL_EVT_WL_REGISTRY_GLOBAL, "usu", 3, "xdg_wm_base", 5);
	put_msg(&b, 3, IVWL_EVT_WL_CALLBACK_DONE, "u", 77);
	CHECK_EQ(walk(&map, EVT, &b), 4);
	/* a client id destroyed by an event lives on until delete_id */
	CHECK(iface_of(&map, 3) == &ivwl_iface_wl_callback);
	reset(&b);
	put_msg(&b, 1, IVWL_EVT_WL_DISPLAY_DELETE_ID, "u", 3);
	CHECK_EQ(walk(&map, EVT, &b), 1);
	CHECK(iface_of(&map, 3) == NULL);

	/* binds, a surface, a pool with its fd, a buffer, a toplevel */
	reset(&b);
	bind(&b, 1, "wl_compositor", 5, 3);	/* reuses the freed id */
	bind(&b, 2, "wl_shm", 1, 4);
	bind(&b, 3, "xdg_wm_base", 2, 5);
	CHECK_EQ(walk(&map, REQ, &b), 3);
	CHECK(iface_of(&map, 3) == &ivwl_iface_wl_compositor);
	CHECK_EQ(version_of(&map, 3), 5);
	CHECK(iface_of(&map, 4) == &ivwl_iface_wl_shm);
	CHECK(iface_of(&map, 5) == &ivwl_iface_xdg_wm_base);
	CHECK_EQ(version_of(&map, 5), 2);

	reset(&b);
	put_msg(&b, 3, IVWL_REQ_WL_COMPOSITOR_CREATE_SURFACE, "u", 6);
	CHECK_EQ(one(&map, REQ, &b, &msg, true), 0);
	CHECK(iface_of(&map, 6) == &ivwl_iface_wl_surface);
	CHECK_EQ(version_of(&map, 6), 5);	/* the compositor's */

	reset(&b);
	put_msg(&b, 4, IVWL_REQ_WL_SHM_CREATE_POOL, "uu", 7, 4 << 20);
	CHECK_EQ(ivwl_wire_parse(&map, REQ, b.buf, b.len, &msg), 16);
	CHECK_EQ(msg.nfds, 1);
	CHECK_EQ(msg.nargs, 3);
	CHECK_EQ(msg.args[1].type, 'h');
	CHECK(ivwl_req_wl_shm_create_pool_decode(&msg, &pool));
	CHECK_EQ(pool.fd, 0);
	CHECK_EQ(msg.args[2].offset, 12);
	CHECK_EQ(pool.size, 4 << 20);
	CHECK_EQ(ivwl_wire_track(&map, REQ, &msg), 0);
	CHECK(iface_of(&map, 7) == &ivwl_iface_wl_shm_pool);

	reset(&b);
	put_msg(&b, 7, IVWL_REQ_WL_SHM_POOL_CREATE_BUFFER, "uuuuuu", 8, 0, 320,
		200, 1280, 1);
	put_msg(&b, 5, IVWL_REQ_XDG_WM_BASE_GET_XDG_SURFACE, "uu", 9, 6);
	put_msg(&b, 9, IVWL_REQ_XDG_SURFACE_GET_TOPLEVEL, "u", 10);
	CHECK_EQ(walk(&map, REQ, &b), 3);
	CHECK(iface_of(&map, 8) == &ivwl_iface_wl_buffer);
	CHECK(iface_of(&map, 9) == &ivwl_iface_xdg_surface);
	CHECK(iface_of(&map, 10) == &ivwl_iface_xdg_toplevel);
	CHECK_EQ(version_of(&map, 10), 2);

	reset(&b);
	put_msg(&b, 10, IVWL_REQ_XDG_TOPLEVEL_SET_TITLE, "s", "hello");
	CHECK_EQ(one(&map, REQ, &b, &msg, true), 0);
	CHECK_EQ(msg.size, 20);
	CHECK_EQ(msg.args[0].offset, 8);
	CHECK_EQ(msg.args[0].value, 6);
	CHECK(msg.args[0].data == b.buf + 12);
	CHECK(ivwl_req_xdg_toplevel_set_title_decode(&msg, &title));
	CHECK(strcmp(title.title, "hello") == 0);
	/* a decoder refuses another message of the same signature */
	CHECK(!ivwl_req_xdg_toplevel_set_app_id_decode(&msg, &app_id));
	CHECK(app_id.app_id == NULL);

	reset(&b);
	put_msg(&b, 6, IVWL_REQ_WL_SURFACE_ATTACH, "uuu", 8, 0, (uint32_t)-3);
	put_msg(&b, 6, IVWL_REQ_WL_SURFACE_DAMAGE, "uuuu", 0, 0, 320, 200);
	put_msg(&b, 6, IVWL_REQ_WL_SURFACE_FRAME, "u", 11);
	put_msg(&b, 6, IVWL_REQ_WL_SURFACE_COMMIT, "");
	CHECK_EQ(ivwl_wire_parse(&map, REQ, b.buf, b.len, &msg), 20);
	CHECK(ivwl_req_wl_surface_attach_decode(&msg, &attach));
	CHECK_EQ(attach.buffer, 8);
	CHECK_EQ(attach.y, -3);
	CHECK_EQ(msg.nfds, 0);
	CHECK_EQ(walk(&map, REQ, &b), 4);
	CHECK(iface_of(&map, 11) == &ivwl_iface_wl_callback);

	/* a null buffer is fine: attach's object is nullable */
	reset(&b);
	put_msg(&b, 6, IVWL_REQ_WL_SURFACE_ATTACH, "uuu", 0, 0, 0);
	CHECK_EQ(one(&map, REQ, &b, &msg, true), 0);

	/* the pool goes: a zombie until delete_id, then reusable */
	reset(&b);
	put_msg(&b, 7, IVWL_REQ_WL_SHM_POOL_DESTROY, "");
	CHECK_EQ(one(&map, REQ, &b, &msg, true), 0);
	CHECK(is_zombie(&map, 7));
	CHECK_EQ(one(&map, REQ, &b, &msg, false), -EPROTO);
	reset(&b);
	put_msg(&b, 3, IVWL_REQ_WL_COMPOSITOR_CREATE_REGION, "u", 7);
	CHECK_EQ(one(&map, REQ, &b, &msg, true), -EPROTO);
	reset(&b);
	put_msg(&b, 1, IVWL_EVT_WL_DISPLAY_DELETE_ID, "u", 7);
	CHECK_EQ(one(&map, EVT, &b, &msg, true), 0);
	CHECK(iface_of(&map, 7) == NULL);
	reset(&b);
	put_msg(&b, 3, IVWL_REQ_WL_COMPOSITOR_CREATE_REGION, "u", 7);
	CHECK_EQ(one(&map, REQ, &b, &msg, true), 0);
	CHECK(iface_of(&map, 7) == &ivwl_iface_wl_region);

	CHECK_EQ(map.client.live, 11);
	CHECK_EQ(map.server.live, 0);
	ivwl_wire_map_release(&map);
}

static void
test_keymap_event(void)
{
	struct ivwl_evt_wl_keyboard_keymap keymap;
	struct ivwl_wire_map map;
	struct ivwl_wire_msg msg;
	struct builder b = { 0 };

	start_session(&map);
	put_msg(&b, 13, IVWL_REQ_WL_SEAT_GET_KEYBOARD, "u", 15);
	CHECK_EQ(one(&map, REQ, &b, &msg, true), 0);
	CHECK(iface_of(&map, 15) == &ivwl_iface_wl_keyboard);
	CHECK_EQ(version_of(&map, 15), 7);

	reset(&b);
	put_msg(&b, 15, IVWL_EVT_WL_KEYBOARD_KEYMAP, "uu", 1, 48000);
	CHECK_EQ(one(&map, EVT, &b, &msg, true), 0);
	CHECK_EQ(msg.nfds, 1);
	CHECK_EQ(msg.size, 16);
	CHECK_EQ(msg.args[0].offset, 8);
	CHECK_EQ(msg.args[1].offset, 0);
	CHECK_EQ(msg.args[2].offset, 12);
	CHECK(ivwl_evt_wl_keyboard_keymap_decode(&msg, &keymap));
	CHECK_EQ(keymap.size, 48000);

	/* repeat_info is since 4: fine at 7 */
	reset(&b);
	put_msg(&b, 15, IVWL_EVT_WL_KEYBOARD_REPEAT_INFO, "uu", 25, 600);
	CHECK_EQ(one(&map, EVT, &b, &msg, true), 0);
	ivwl_wire_map_release(&map);
}

/* wl_data_offer: created by the server, destroyed by the client. */
static void
test_server_objects(void)
{
	struct ivwl_req_wl_data_offer_accept accept;
	struct ivwl_wire_map map;
	struct ivwl_wire_msg msg;
	struct builder b = { 0 };

	start_session(&map);
	put_msg(&b, 14, IVWL_EVT_WL_DATA_DEVICE_DATA_OFFER, "u", SERVER_ID(0));
	put_msg(&b, SERVER_ID(0), IVWL_EVT_WL_DATA_OFFER_OFFER, "s",
		"text/plain;charset=utf-8");
	put_msg(&b, 14, IVWL_EVT_WL_DATA_DEVICE_SELECTION, "u", SERVER_ID(0));
	CHECK_EQ(walk(&map, EVT, &b), 3);
	CHECK(iface_of(&map, SERVER_ID(0)) == &ivwl_iface_wl_data_offer);
	CHECK_EQ(version_of(&map, SERVER_ID(0)), 3);
	CHECK_EQ(map.server.live, 1);

	/* receive carries a pipe; accept takes a null mime type */
	reset(&b);
	put_msg(&b, SERVER_ID(0), IVWL_REQ_WL_DATA_OFFER_RECEIVE, "s",
		"text/plain;charset=utf-8");
	CHECK_EQ(one(&map, REQ, &b, &msg, true), 0);
	CHECK_EQ(msg.nfds, 1);
	reset(&b);
	put_msg(&b, SERVER_ID(0), IVWL_REQ_WL_DATA_OFFER_ACCEPT, "uu", 5, 0);
	CHECK_EQ(one(&map, REQ, &b, &msg, true), 0);
	CHECK(ivwl_req_wl_data_offer_accept_decode(&msg, &accept));
	CHECK(accept.mime_type == NULL);
	CHECK(msg.args[1].data == NULL);

	/* destroyed: no more requests, late events still decode */
	reset(&b);
	put_msg(&b, SERVER_ID(0), IVWL_REQ_WL_DATA_OFFER_DESTROY, "");
	CHECK_EQ(one(&map, REQ, &b, &msg, true), 0);
	CHECK(is_zombie(&map, SERVER_ID(0)));
	reset(&b);
	put_msg(&b, SERVER_ID(0), IVWL_REQ_WL_DATA_OFFER_FINISH, "");
	CHECK_EQ(one(&map, REQ, &b, &msg, false), -EPROTO);
	reset(&b);
	put_msg(&b, SERVER_ID(0), IVWL_EVT_WL_DATA_OFFER_ACTION, "u", 1);
	CHECK_EQ(one(&map, EVT, &b, &msg, true), 0);
	/* server ids know no delete_id */
	reset(&b);
	put_msg(&b, 1, IVWL_EVT_WL_DISPLAY_DELETE_ID, "u", SERVER_ID(0));
	CHECK_EQ(one(&map, EVT, &b, &msg, true), -EPROTO);

	/* the server reuses the id; the next one is dense */
	reset(&b);
	put_msg(&b, 14, IVWL_EVT_WL_DATA_DEVICE_DATA_OFFER, "u", SERVER_ID(0));
	put_msg(&b, 14, IVWL_EVT_WL_DATA_DEVICE_DATA_OFFER, "u", SERVER_ID(1));
	CHECK_EQ(walk(&map, EVT, &b), 2);
	CHECK(!is_zombie(&map, SERVER_ID(0)));
	CHECK_EQ(map.server.live, 2);
	/* a live one cannot be created again, a far one not at all */
	reset(&b);
	put_msg(&b, 14, IVWL_EVT_WL_DATA_DEVICE_DATA_OFFER, "u", SERVER_ID(1));
	CHECK_EQ(one(&map, EVT, &b, &msg, true), -EPROTO);
	reset(&b);
	put_msg(&b, 14, IVWL_EVT_WL_DATA_DEVICE_DATA_OFFER, "u", SERVER_ID(3));
	CHECK_EQ(one(&map, EVT, &b, &msg, true), -EPROTO);
	ivwl_wire_map_release(&map);
}

/* Builds one message of raw words and expects parse to refuse it. */
static int
parse_words(struct ivwl_wire_map *map, enum ivwl_wire_dir dir,
	    const uint32_t *words, size_t n)
{
	struct ivwl_wire_msg msg;

	return ivwl_wire_parse(map, dir, words, n * 4, &msg);
}

#define HDR(size, op) (((uint32_t)(size) << 16) | (op))

/* Short names for the opcodes the tables below use most. */
#define SET_TITLE IVWL_REQ_XDG_TOPLEVEL_SET_TITLE
#define TL_CONFIGURE IVWL_EVT_XDG_TOPLEVEL_CONFIGURE
#define NEW_SURFACE IVWL_REQ_WL_COMPOSITOR_CREATE_SURFACE
#define NEW_REGION IVWL_REQ_WL_COMPOSITOR_CREATE_REGION
#define DELETE_ID IVWL_EVT_WL_DISPLAY_DELETE_ID
#define DATA_OFFER IVWL_EVT_WL_DATA_DEVICE_DATA_OFFER
#define GET_XDG_SURFACE IVWL_REQ_XDG_WM_BASE_GET_XDG_SURFACE
#define SET_BUFFER_SCALE IVWL_REQ_WL_SURFACE_SET_BUFFER_SCALE
#define SET_INPUT_REGION IVWL_REQ_WL_SURFACE_SET_INPUT_REGION

static int
track_words(struct ivwl_wire_map *map, enum ivwl_wire_dir dir,
	    const uint32_t *words, size_t n)
{
	struct ivwl_wire_msg msg;
	int ret = ivwl_wire_parse(map, dir, words, n * 4, &msg);

	if (ret < 0)
		return ret;
	return ivwl_wire_track(map, dir, &msg);
}

#define TRACK(dir, ...)                                                  \
	track_words(&map, dir, (const uint32_t[]){ __VA_ARGS__ },        \
		    sizeof((const uint32_t[]){ __VA_ARGS__ }) / 4)
#define TRACKED(...) CHECK_EQ(TRACK(__VA_ARGS__), 0)

/* One message as raw words, and what parsing it must give. */
struct parse_case {
	enum ivwl_wire_dir dir;
	int want;		/* its size, or -EPROTO */
	uint32_t n;
	uint32_t words[8];
};

#define WORDS(...) \
	sizeof((const uint32_t[]){ __VA_ARGS__ }) / 4, { __VA_ARGS__ }

/* Against start_session's objects, and a wl_output (v1) at 15. */
static const struct parse_case parse_cases[] = {
	/* the good twin of what follows */
	{ REQ, 8, WORDS(7, HDR(8, IVWL_REQ_WL_SURFACE_COMMIT)) },

	/* sizes */
	{ REQ, -EPROTO, WORDS(7, HDR(0, 6)) },
	{ REQ, -EPROTO, WORDS(7, HDR(4, 6)) },
	{ REQ, -EPROTO, WORDS(7, HDR(10, 6), 0) },
	{ REQ, -EPROTO, WORDS(7, HDR(0xfffc, 6)) },

	/* refused as soon as the header is in, not "incomplete" */
	{ REQ, -EPROTO, WORDS(7, HDR(10, 6)) },
	{ REQ, -EPROTO, WORDS(7, HDR(4099, 6)) },

	/* a size below the header must not let arguments start past it */
	{ REQ, -EPROTO, WORDS(4, HDR(4, NEW_SURFACE)) },
	{ REQ, -EPROTO, WORDS(4, HDR(0, NEW_SURFACE)) },

	/* targets */
	{ REQ, -EPROTO, WORDS(0, HDR(8, 0)) },
	{ REQ, -EPROTO, WORDS(99, HDR(8, 0)) },
	{ REQ, -EPROTO, WORDS(0xffffffffu, HDR(8, 0)) },
	{ EVT, -EPROTO, WORDS(SERVER_ID(0), HDR(8, 0)) },

	/* opcodes out of range, for each direction */
	{ REQ, -EPROTO, WORDS(1, HDR(12, 2), 20) },
	{ EVT, -EPROTO, WORDS(1, HDR(12, 2), 20) },
	{ REQ, -EPROTO, WORDS(7, HDR(8, 0xffff)) },
	{ EVT, -EPROTO, WORDS(5, HDR(12, 1), 1) },	/* wl_shm: one event */

	/*
	 * since > version: set_buffer_scale (3) and offset (5) on a v4
	 * surface; wl_output's scale and done (2) at v1
	 */
	{ REQ, 12, WORDS(7, HDR(12, SET_BUFFER_SCALE), 2) },
	{ REQ, -EPROTO, WORDS(7, HDR(16, IVWL_REQ_WL_SURFACE_OFFSET), 1, 1) },
	{ EVT, -EPROTO, WORDS(15, HDR(12, IVWL_EVT_WL_OUTPUT_SCALE), 2) },
	{ EVT, -EPROTO, WORDS(15, HDR(8, IVWL_EVT_WL_OUTPUT_DONE)) },
	{ EVT, 24, WORDS(15, HDR(24, IVWL_EVT_WL_OUTPUT_MODE), 1, 64, 48, 60) },

	/* arguments overrun the message */
	{ REQ, -EPROTO, WORDS(4, HDR(8, NEW_SURFACE)) },
	{ EVT, -EPROTO, WORDS(10, HDR(8, IVWL_EVT_XDG_SURFACE_CONFIGURE)) },
	{ REQ, -EPROTO, WORDS(7, HDR(16, IVWL_REQ_WL_SURFACE_ATTACH), 9, 0) },
	{ REQ, -EPROTO, WORDS(11, HDR(12, SET_TITLE), 6) },
	{ REQ, -EPROTO, WORDS(11, HDR(16, SET_TITLE), 6, 0x006c6c65) },
	{ REQ, -EPROTO, WORDS(11, HDR(16, SET_TITLE), 0xffffffffu, 0) },
	{ REQ, -EPROTO, WORDS(11, HDR(16, SET_TITLE), 0xfffffffdu, 0) },
	{ REQ, -EPROTO, WORDS(11, HDR(16, SET_TITLE), 5, 0) },

	/* strings: NUL-terminated, not empty unless nullable */
	{ REQ, 16, WORDS(11, HDR(16, SET_TITLE), 4, 0x006c6c65) },
	{ REQ, -EPROTO, WORDS(11, HDR(16, SET_TITLE), 4, 0x786c6c65) },
	{ REQ, 16, WORDS(11, HDR(16, SET_TITLE), 3, 0x00006c65) },
	{ REQ, 16, WORDS(11, HDR(16, SET_TITLE), 3, 0x78006c65) },
	{ REQ, -EPROTO, WORDS(11, HDR(16, SET_TITLE), 2, 0x00007865) },
	{ REQ, -EPROTO, WORDS(11, HDR(12, SET_TITLE), 0) },

	/* arrays: any length that fits, 0 included */
	{ EVT, 20, WORDS(11, HDR(20, TL_CONFIGURE), 1, 2, 0) },
	{ EVT, 24, WORDS(11, HDR(24, TL_CONFIGURE), 1, 2, 4, 1) },
	{ EVT, -EPROTO, WORDS(11, HDR(24, TL_CONFIGURE), 1, 2, 5, 1) },
	{ EVT, -EPROTO,
	  WORDS(11, HDR(24, TL_CONFIGURE), 1, 2, 0x80000000u, 0) },
	{ EVT, -EPROTO, WORDS(11, HDR(20, TL_CONFIGURE), 1, 2, 0xfffffffdu) },
	{ EVT, -EPROTO, WORDS(11, HDR(20, TL_CONFIGURE), 1, 2, 0xffffffffu) },

	/* nulls where not allowed */
	{ REQ, -EPROTO, WORDS(6, HDR(16, GET_XDG_SURFACE), 16, 0) },
	{ REQ, -EPROTO, WORDS(6, HDR(16, GET_XDG_SURFACE), 0, 7) },
	{ REQ, -EPROTO, WORDS(4, HDR(12, NEW_SURFACE), 0) },
	{ REQ, 12, WORDS(7, HDR(12, SET_INPUT_REGION), 0) },

	/* trailing bytes */
	{ REQ, -EPROTO, WORDS(7, HDR(12, IVWL_REQ_WL_SURFACE_COMMIT), 0) },
	{ REQ, -EPROTO, WORDS(11, HDR(20, SET_TITLE), 4, 0x006c6c65, 0) },
	{ REQ, -EPROTO, WORDS(4, HDR(16, NEW_SURFACE), 16, 0) },
};

static void
test_malformed(void)
{
	static uint32_t big[1100];
	struct ivwl_wire_map map;
	struct ivwl_wire_msg msg;
	size_t i, k;

	start_session(&map);
	CHECK_EQ(TRACK(REQ, 2, HDR(36, IVWL_REQ_WL_REGISTRY_BIND), 9, 10,
		       0x6f5f6c77, 0x75707475, 0x74, 1, 15), 0);
	for (i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
		const struct parse_case *c = &parse_cases[i];
		int ret = parse_words(&map, c->dir, c->words, c->n);

		if (ret == c->want)
			continue;
		fprintf(stderr, "parse case %zu (%s", i,
			c->dir == REQ ? "request" : "event");
		for (k = 0; k < c->n; k++)
			fprintf(stderr, " %#x", c->words[k]);
		fprintf(stderr, "): %d, want %d\n", ret, c->want);
		ivwl_test_failures++;
	}

	/* past libwayland's 4096 bytes: refused */
	big[0] = 11;
	big[1] = HDR(4100, IVWL_REQ_XDG_TOPLEVEL_SET_TITLE);
	CHECK_EQ(parse_words(&map, REQ, big, 4100 / 4), -EPROTO);
	/* 4096 is still fine */
	big[1] = HDR(4096, IVWL_REQ_XDG_TOPLEVEL_SET_TITLE);
	big[2] = 4096 - 12;
	memset(&big[3], 'x', 4096 - 12);
	((uint8_t *)big)[4095] = 0;
	CHECK_EQ(parse_words(&map, REQ, big, 1024), 4096);
	/* incomplete is not malformed */
	CHECK_EQ(parse_words(&map, REQ, big, 1023), 0);
	CHECK_EQ(ivwl_wire_parse(&map, REQ, big, 7, &msg), 0);
	ivwl_wire_map_release(&map);
}

/* Steps in order, each parsed and tracked: what tracking must give. */
static const struct parse_case id_steps[] = {
	/* new ids: live, not dense, the server's, then the right one */
	{ REQ, -EPROTO, WORDS(4, HDR(12, NEW_SURFACE), 7) },
	{ REQ, -EPROTO, WORDS(4, HDR(12, NEW_SURFACE), 1) },
	{ REQ, -EPROTO, WORDS(4, HDR(12, NEW_SURFACE), 16) },
	{ REQ, -EPROTO, WORDS(4, HDR(12, NEW_SURFACE), 1000) },
	{ REQ, -EPROTO, WORDS(4, HDR(12, NEW_SURFACE), SERVER_ID(0)) },
	{ REQ, -EPROTO, WORDS(4, HDR(12, NEW_SURFACE), 0xffffffffu) },
	{ EVT, -EPROTO, WORDS(14, HDR(12, DATA_OFFER), 15) },
	{ REQ, 0, WORDS(4, HDR(12, NEW_SURFACE), 15) },

	/* delete_id: only live client ids, never the display */
	{ EVT, -EPROTO, WORDS(1, HDR(12, DELETE_ID), 17) },
	{ EVT, -EPROTO, WORDS(1, HDR(12, DELETE_ID), 1) },
	{ EVT, -EPROTO, WORDS(1, HDR(12, DELETE_ID), 0) },
	{ EVT, 0, WORDS(1, HDR(12, DELETE_ID), 15) },
	{ EVT, -EPROTO, WORDS(1, HDR(12, DELETE_ID), 15) },
};

/* wl_registry.bind as id 16, in order. */
static const struct {
	const char *name;
	uint32_t name_len;	/* with its NUL; 0: strlen + 1 */
	bool ours;		/* version: added to our wl_output's */
	int32_t version;
	int want;
} binds[] = {
	{ "weston_screenshooter", 0, false, 1, -EPROTO },	/* unknown */
	{ "wl_output", 0, false, 0, -EPROTO },
	{ "wl_output", 0, true, 1, -EPROTO },	/* newer than ours */
	{ "wl_output\0x", 12, false, 1, -EPROTO },	/* a NUL inside */
	{ "wl_output", 0, true, 0, 1 },
};

static void
test_bad_ids(void)
{
	struct ivwl_wire_map map;
	struct builder b = { 0 };
	size_t i;

	start_session(&map);
	for (i = 0; i < sizeof(id_steps) / sizeof(id_steps[0]); i++) {
		const struct parse_case *c = &id_steps[i];
		int ret = track_words(&map, c->dir, c->words, c->n);

		if (ret != c->want) {
			fprintf(stderr, "id step %zu: %d, want %d\n", i, ret,
				c->want);
			ivwl_test_failures++;
		}
	}
	CHECK_EQ(map.client.count, 16);

	for (i = 0; i < sizeof(binds) / sizeof(binds[0]); i++) {
		uint32_t version = (uint32_t)binds[i].version +
				   (binds[i].ours ?
				    ivwl_iface_wl_output.version : 0);

		reset(&b);
		begin(&b, 2, IVWL_REQ_WL_REGISTRY_BIND);
		put_u32(&b, 9);
		put_bytes(&b, binds[i].name, binds[i].name_len ?
			  binds[i].name_len : strlen(binds[i].name) + 1);
		put_u32(&b, version);
		put_u32(&b, 16);
		end(&b);
		if (walk(&map, REQ, &b) != binds[i].want) {
			fprintf(stderr, "bind %zu of %s v%u: not %d\n", i,
				binds[i].name, version, binds[i].want);
			ivwl_test_failures++;
		}
	}
	CHECK(iface_of(&map, 16) == &ivwl_iface_wl_output);
	ivwl_wire_map_release(&map);
}

/* A peer creating objects without end meets the cap, not the OOM killer. */
static void
test_object_cap(void)
{
	struct ivwl_wire_map map;
	uint32_t id, live;
	int bad = 0;

	start_session(&map);
	live = map.client.live;
	for (id = map.client.count; id < IVWL_WIRE_MAX_OBJECTS; id++)
		bad += TRACK(REQ, 4, HDR(12, NEW_REGION), id) != 0;
	CHECK_EQ(bad, 0);
	CHECK_EQ(map.client.live, live + IVWL_WIRE_MAX_OBJECTS - 15);
	CHECK_EQ(TRACK(REQ, 4, HDR(12, NEW_REGION),
		       IVWL_WIRE_MAX_OBJECTS), -EPROTO);
	CHECK(map.client.alloc <= IVWL_WIRE_MAX_OBJECTS);
	/* freeing one makes room again */
	TRACKED(REQ, 1000, HDR(8, IVWL_REQ_WL_REGION_DESTROY));
	TRACKED(EVT, 1, HDR(12, DELETE_ID), 1000);
	TRACKED(REQ, 4, HDR(12, NEW_SURFACE), 1000);
	ivwl_wire_map_release(&map);
}

/* A message cut at every length, and every byte of it flipped. */
static void
test_cuts_and_flips(void)
{
	struct ivwl_wire_map map;
	struct ivwl_wire_msg msg;
	struct builder b = { 0 };
	uint32_t cut, i, bit;

	start_session(&map);
	put_msg(&b, 2, IVWL_REQ_WL_REGISTRY_BIND, "usuu", 9, "wl_output", 3,
		15);
	for (cut = 0; cut < b.len; cut++)
		CHECK_EQ(ivwl_wire_parse(&map, REQ, b.buf, cut, &msg), 0);
	for (i = 0; i < b.len; i++) {
		for (bit = 0; bit < 8; bit++) {
			int ret;

			b.buf[i] ^= 1u << bit;
			ret = ivwl_wire_parse(&map, REQ, b.buf, b.len, &msg);
			/* a bigger size only makes it incomplete */
			CHECK(ret == -EPROTO || ret == 0 ||
			      (ret >= 8 && ret <= (int)b.len));
			if (ret > 0) {
				uint32_t k;

				for (k = 0; k < msg.nargs; k++)
					CHECK(msg.args[k].offset + 4u +
					      msg.args[k].len <= (uint32_t)ret);
			}
			b.buf[i] ^= 1u << bit;
		}
	}
	ivwl_wire_map_release(&map);
}

/* Enum arguments carry the XML's values, other files' enums included. */
static void
test_enums(void)
{
	const struct ivwl_message *m;
	const struct ivwl_enum *e;

	m = &ivwl_iface_wl_surface.requests
		[IVWL_REQ_WL_SURFACE_SET_BUFFER_TRANSFORM];
	REQUIRE(m->enums && m->enums[0]);
	e = m->enums[0];
	CHECK(strcmp(e->name, "wl_output.transform") == 0);
	CHECK(!e->bitfield);
	CHECK(ivwl_wire_enum_valid(e, 0));
	CHECK(ivwl_wire_enum_valid(e, 7));
	CHECK(!ivwl_wire_enum_valid(e, 8));
	CHECK(!ivwl_wire_enum_valid(e, (uint32_t)-1));

	/* wl_data_offer.set_actions(dnd_actions, preferred_action) */
	m = &ivwl_iface_wl_data_offer.requests
		[IVWL_REQ_WL_DATA_OFFER_SET_ACTIONS];
	REQUIRE(m->enums && m->enums[0] && m->enums[1]);
	e = m->enums[0];
	CHECK(strcmp(e->name, "wl_data_device_manager.dnd_action") == 0);
	CHECK(e->bitfield);
	CHECK(ivwl_wire_enum_valid(e, 0));
	CHECK(ivwl_wire_enum_valid(e, 7));
	CHECK(!ivwl_wire_enum_valid(e, 8));

	/* xdg_toplevel.resize_edge has gaps: 3 and 7 are no edge */
	m = &ivwl_iface_xdg_toplevel.requests[IVWL_REQ_XDG_TOPLEVEL_RESIZE];
	REQUIRE(m->enums && m->enums[2]);
	CHECK(m->enums[0] == NULL && m->enums[1] == NULL);
	CHECK(ivwl_wire_enum_valid(m->enums[2], 10));
	CHECK(!ivwl_wire_enum_valid(m->enums[2], 3));
	CHECK(!ivwl_wire_enum_valid(m->enums[2], 11));

	m = &ivwl_iface_wl_surface.requests[IVWL_REQ_WL_SURFACE_ATTACH];
	CHECK(m->enums == NULL);
}

/* The generated decoders name what the positional accessors number. */
static void
test_decode(void)
{
	struct ivwl_req_wl_registry_bind bind_args;
	struct ivwl_req_wl_shm_create_pool pool;
	struct ivwl_evt_wl_keyboard_enter enter;
	struct ivwl_wire_map map;
	struct ivwl_wire_msg msg;
	struct builder b = { 0 };
	uint32_t keys[2] = { 30, 31 };

	REQUIRE(ivwl_wire_map_init(&map) == 0);
	put_msg(&b, 1, IVWL_REQ_WL_DISPLAY_GET_REGISTRY, "n", 2);
	CHECK_EQ(walk(&map, REQ, &b), 1);

	reset(&b);
	put_msg(&b, 2, IVWL_REQ_WL_REGISTRY_BIND, "usun", 7, "wl_shm", 1, 3);
	CHECK_EQ(one(&map, REQ, &b, &msg, true), 0);
	CHECK(msg.message == IVWL_MSG_REQ_WL_REGISTRY_BIND);
	CHECK(ivwl_req_wl_registry_bind_decode(&msg, &bind_args));
	CHECK_EQ(bind_args.name, 7);
	CHECK(strcmp(bind_args.id_interface, "wl_shm") == 0);
	CHECK_EQ(bind_args.id_version, 1);
	CHECK_EQ(bind_args.id, 3);

	reset(&b);
	put_msg(&b, 3, IVWL_REQ_WL_SHM_CREATE_POOL, "nhi", 4, -5);
	CHECK_EQ(one(&map, REQ, &b, &msg, true), 0);
	CHECK(ivwl_req_wl_shm_create_pool_decode(&msg, &pool));
	CHECK_EQ(pool.id, 4);
	CHECK_EQ(pool.fd, 0);
	CHECK_EQ(pool.size, -5);
	/* another message: zeros, no fd, false */
	CHECK(!ivwl_req_wl_registry_bind_decode(&msg, &bind_args));
	CHECK_EQ(bind_args.name, 0);
	CHECK(bind_args.id_interface == NULL);

	/* an event with an array, on a seat's keyboard (server ids) */
	reset(&b);
	put_msg(&b, 1, IVWL_EVT_WL_DISPLAY_DELETE_ID, "u", 2);
	CHECK_EQ(ivwl_wire_parse(&map, EVT, b.buf, b.len, &msg), 12);
	CHECK(!ivwl_evt_wl_keyboard_enter_decode(&msg, &enter));
	CHECK(enter.keys.data == NULL && enter.keys.len == 0);
	reset(&b);
	bind(&b, 7, "wl_seat", 1, 5);
	put_msg(&b, 5, IVWL_REQ_WL_SEAT_GET_KEYBOARD, "n", 6);
	CHECK_EQ(walk(&map, REQ, &b), 2);
	reset(&b);
	put_msg(&b, 6, IVWL_EVT_WL_KEYBOARD_ENTER, "uoa", 9, 8,
		&(struct ivwl_wire_array){ keys, sizeof(keys) });
	CHECK_EQ(ivwl_wire_parse(&map, EVT, b.buf, b.len, &msg), 28);
	CHECK(ivwl_evt_wl_keyboard_enter_decode(&msg, &enter));
	CHECK_EQ(enter.serial, 9);
	CHECK_EQ(enter.surface, 8);
	CHECK_EQ(enter.keys.len, 8);
	CHECK(memcmp(enter.keys.data, keys, 8) == 0);
	ivwl_wire_map_release(&map);
}

static int
seen_attach(void *data, const struct ivwl_wire_msg *msg,
	    const struct ivwl_req_wl_surface_attach *args)
{
	int *seen = data;

	(void)msg;
	*seen = args->x;
	return 7;
}

/* The handler tables call the one handler of a message, with its args. */
static void
test_dispatch(void)
{
	static const struct ivwl_wl_surface_request_handlers surface = {
		.attach = seen_attach,
	};
	static const struct ivwl_request_handlers handlers = {
		.wl_surface = &surface,
	};
	static const struct ivwl_event_handlers none = { 0 };
	struct ivwl_wire_map map;
	struct ivwl_wire_msg msg;
	struct builder b = { 0 };
	int seen = 0;

	start_session(&map);
	put_msg(&b, 7, IVWL_REQ_WL_SURFACE_ATTACH, "oii", 0, 5, 6);
	REQUIRE(one(&map, REQ, &b, &msg, false) > 0);
	CHECK_EQ(ivwl_request_dispatch(&handlers, &seen, &msg), 7);
	CHECK_EQ(seen, 5);
	CHECK_EQ(ivwl_event_dispatch(&none, &seen, &msg), 0);
	/* no handler for commit, none for another interface */
	reset(&b);
	put_msg(&b, 7, IVWL_REQ_WL_SURFACE_COMMIT, "");
	REQUIRE(one(&map, REQ, &b, &msg, false) > 0);
	CHECK_EQ(ivwl_request_dispatch(&handlers, &seen, &msg), 0);
	reset(&b);
	put_msg(&b, 1, IVWL_REQ_WL_DISPLAY_SYNC, "n", 15);
	REQUIRE(one(&map, REQ, &b, &msg, false) > 0);
	CHECK_EQ(ivwl_request_dispatch(&handlers, &seen, &msg), 0);
	ivwl_wire_map_release(&map);
}

/* The writer: what the tables say, and what does not fit. */
static void
test_write(void)
{
	uint8_t buf[64], big[IVWL_WIRE_MAX_MESSAGE + 8];
	char name[IVWL_WIRE_MAX_MESSAGE];
	uint32_t w[6];

	CHECK_EQ(ivwl_wire_write_msg(buf, sizeof(buf), 6,
				     IVWL_MSG_REQ_WL_SURFACE_ATTACH, 8, 0, -3),
		 20);
	memcpy(w, buf, 20);
	CHECK_EQ(w[0], 6);
	CHECK_EQ(w[1], 20u << 16 | IVWL_REQ_WL_SURFACE_ATTACH);
	CHECK_EQ(w[2], 8);
	CHECK_EQ((int32_t)w[4], -3);

	/* a string, padded with zeros; a null string is a zero length */
	memset(buf, 0xff, sizeof(buf));
	CHECK_EQ(ivwl_wire_write(buf, sizeof(buf), 2, 0, "ss", "abcde", NULL),
		 24);
	memcpy(w, buf, 24);
	CHECK_EQ(w[2], 6);
	CHECK(memcmp(&w[3], "abcde\0\0\0", 8) == 0);
	CHECK_EQ(w[5], 0);
	/* an array of zeros; fds take no bytes */
	CHECK_EQ(ivwl_wire_write(buf, sizeof(buf), 2, 0, "hah",
				 &(struct ivwl_wire_array){ NULL, 5 }), 20);
	memcpy(w, buf, 20);
	CHECK_EQ(w[2], 5);
	CHECK(w[3] == 0 && w[4] == 0);

	CHECK_EQ(ivwl_wire_write(buf, 7, 2, 0, ""), -EMSGSIZE);
	CHECK_EQ(ivwl_wire_write(buf, 12, 2, 0, "uu", 1, 2), -EMSGSIZE);
	CHECK_EQ(ivwl_wire_write(buf, sizeof(buf), 2, 0, "x", 1), -EINVAL);
	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	CHECK_EQ(ivwl_wire_write(big, sizeof(big), 2, 0, "s", name),
		 -EMSGSIZE);
	name[IVWL_WIRE_MAX_MESSAGE - 13] = '\0';	/* 4084 with its NUL */
	CHECK_EQ(ivwl_wire_write(big, sizeof(big), 2, 0, "s", name),
		 (int)IVWL_WIRE_MAX_MESSAGE);
}

IVWL_TEST_MAIN(
	TEST(test_tables),
	TEST(test_decode),
	TEST(test_write),
	TEST(test_dispatch),
	TEST(test_enums),
	TEST(test_interface_find),
	TEST(test_session_stream),
	TEST(test_keymap_event),
	TEST(test_server_objects),
	TEST(test_malformed),
	TEST(test_bad_ids),
	TEST(test_object_cap),
	TEST(test_cuts_and_flips),
)
