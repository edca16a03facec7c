/* SPDX-License-Identifier: MIT */
/*
 * The protocol firewall's budgets (docs/security.md, "Budgets"), each on
 * connections of their own: up to the budget passes, one more is
 * refused with -EDQUOT naming the message and the budget, and what is
 * given back lets new ones in.  Also the per-VM totals two connections
 * share, and the order ivwl_firewall_popups() gives.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "firewall/firewall-model.h"
#include "fw-fixture.h"
#include "harness.h"

#define CREATE_PRIMARY \
	IVWL_REQ_ZWP_PRIMARY_SELECTION_DEVICE_MANAGER_V1_CREATE_SOURCE

typedef int (*make_fn)(struct conn *c);

/* n requests of make, each of which must pass; stops at a refusal. */
static void
repeat(struct conn *c, uint32_t n, make_fn make)
{
	uint32_t i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = make(c);
		if (ret != 0) {
			fprintf(stderr, "refused after %u of %u: %s\n", i, n,
				c->why);
			ivwl_test_failures++;
			return;
		}
	}
}

static int
make_sync(struct conn *c)
{
	return req(c, DISPLAY, IVWL_REQ_WL_DISPLAY_SYNC, "n", new_id(c));
}

static int
make_surface(struct conn *c)
{
	return req(c, COMPOSITOR, IVWL_REQ_WL_COMPOSITOR_CREATE_SURFACE, "n",
		   new_id(c));
}

static int
make_region(struct conn *c)
{
	return req(c, COMPOSITOR, IVWL_REQ_WL_COMPOSITOR_CREATE_REGION, "n",
		   new_id(c));
}

static int
make_pool(struct conn *c)
{
	return create_pool(c, new_id(c));
}

static int
make_positioner(struct conn *c)
{
	return req(c, WM_BASE, IVWL_REQ_XDG_WM_BASE_CREATE_POSITIONER, "n",
		   new_id(c));
}

static int
make_source(struct conn *c)
{
	return req(c, DATA_MANAGER,
		   IVWL_REQ_WL_DATA_DEVICE_MANAGER_CREATE_DATA_SOURCE, "n",
		   new_id(c));
}

static int
make_primary_source(struct conn *c)
{
	return req(c, PRIMARY_MANAGER,
		   CREATE_PRIMARY, "n", new_id(c));
}

static int
make_keyboard(struct conn *c)
{
	return req(c, SEAT, IVWL_REQ_WL_SEAT_GET_KEYBOARD, "n", new_id(c));
}

static int
make_pointer(struct conn *c)
{
	return req(c, SEAT, IVWL_REQ_WL_SEAT_GET_POINTER, "n", new_id(c));
}

static int
make_touch(struct conn *c)
{
	return req(c, SEAT, IVWL_REQ_WL_SEAT_GET_TOUCH, "n", new_id(c));
}

/* ---- objects and ids ----------------------------------------------------- */

static void
test_budget_objects_per_connection(void)
{
	struct ivwl_vm *vm = vm_new();
	struct conn *c = conn_open(vm);
	uint32_t first = c->next_id;

	repeat(c, IVWL_FW_CONN_OBJECTS - c->c.objects.client.live, make_sync);
	CHECK_EQ(c->c.objects.client.live, IVWL_FW_CONN_OBJECTS);
	REFUSED(c, make_sync(c), -EDQUOT, "wl_display", DISPLAY, "sync",
		"over the budget of 16384 objects per connection");
	/* weston destroyed one: its id is free, and one more fits */
	delete_id(c, first);
	PASS(c, req(c, DISPLAY, IVWL_REQ_WL_DISPLAY_SYNC, "n", first));
	REFUSED(c, make_sync(c), -EDQUOT, "wl_display", DISPLAY, "sync",
		"objects per connection");
	conn_close(c);
	vm_free(vm);
}

/* Four connections fill the VM exactly: the fifth gets nothing. */
static void
test_budget_objects_per_vm(void)
{
	struct ivwl_vm *vm = vm_new();
	struct conn *c[5];
	uint32_t i, first, rest;

	for (i = 0; i < 5; i++)
		c[i] = conn_open(vm);
	first = c[0]->next_id;
	for (i = 0; i < 3; i++)
		repeat(c[i], IVWL_FW_CONN_OBJECTS -
		       c[i]->c.objects.client.live, make_sync);
	rest = IVWL_FW_VM_OBJECTS - 3 * IVWL_FW_CONN_OBJECTS -
	       c[4]->c.objects.client.live;
	repeat(c[3], rest - c[3]->c.objects.client.live, make_sync);
	REFUSED(c[4], make_sync(c[4]), -EDQUOT, "wl_display", DISPLAY, "sync",
		"over the budget of 65536 objects per VM");
	REFUSED(c[3], make_sync(c[3]), -EDQUOT, "wl_display", DISPLAY, "sync",
		"objects per VM");
	delete_id(c[0], first);
	PASS(c[4], make_sync(c[4]));
	CHECK_EQ(vm->totals.objects, IVWL_FW_VM_OBJECTS);
	for (i = 0; i < 5; i++)
		conn_close(c[i]);
	CHECK_EQ(vm->totals.objects, 0);
	vm_free(vm);
}

/* Ids freed and never reused still end at the wire walker's bound. */
static void
test_budget_object_ids(void)
{
	struct ivwl_vm *vm = vm_new();
	struct conn *c = conn_open(vm);
	uint32_t id;

	for (id = c->next_id; id < IVWL_WIRE_MAX_OBJECTS; id++) {
		if (req(c, DISPLAY, IVWL_REQ_WL_DISPLAY_SYNC, "n", id) != 0)
			break;
		delete_id(c, id);
	}
	CHECK_EQ(id, IVWL_WIRE_MAX_OBJECTS);
	REFUSED(c, req(c, DISPLAY, IVWL_REQ_WL_DISPLAY_SYNC, "n", id),
		-EPROTO, NULL, 0, "", "breaks object lifetime rules");
	conn_close(c);
	vm_free(vm);
}

/* ---- surfaces, regions, rectangles --------------------------------------- */

static void
test_budget_surfaces(void)
{
	struct ivwl_vm *vm = vm_new();
	struct conn *c[5];
	uint32_t i, first;

	for (i = 0; i < 5; i++)
		c[i] = conn_open(vm);
	first = c[0]->next_id;
	repeat(c[0], IVWL_FW_CONN_SURFACES, make_surface);
	REFUSED(c[0], make_surface(c[0]), -EDQUOT, "wl_compositor", COMPOSITOR,
		"create_surface", "over the budget of 512 surfaces per "
		"connection");
	PASS(c[0], req(c[0], first, IVWL_REQ_WL_SURFACE_DESTROY, ""));
	PASS(c[0], make_surface(c[0]));
	for (i = 1; i < 4; i++)
		repeat(c[i], IVWL_FW_CONN_SURFACES, make_surface);
	CHECK_EQ(vm->totals.surfaces, IVWL_FW_VM_SURFACES);
	REFUSED(c[4], make_surface(c[4]), -EDQUOT, "wl_compositor", COMPOSITOR,
		"create_surface", "over the budget of 2048 surfaces per VM");
	conn_close(c[1]);
	PASS(c[4], make_surface(c[4]));
	conn_close(c[0]);
	for (i = 2; i < 5; i++)
		conn_close(c[i]);
	CHECK_EQ(vm->totals.surfaces, 0);
	vm_free(vm);
}

/* Toplevels and popups of all a VM's connections, whichever ends them. */
static void
test_budget_windows(void)
{
	struct ivwl_vm *vm = vm_new();
	struct conn *a = conn_open(vm), *b = conn_open(vm);
	struct window first = new_window(a);
	struct popup p = new_popup(a, first.xdg, false);
	uint32_t i, xdg;

	for (i = 2; i < IVWL_FW_VM_WINDOWS; i++)
		new_window(i % 2 ? a : b);
	CHECK_EQ(vm->totals.windows, IVWL_FW_VM_WINDOWS);
	xdg = new_xdg_surface(b, new_surface(b));
	REFUSED(b, req(b, xdg, IVWL_REQ_XDG_SURFACE_GET_TOPLEVEL, "n",
		       new_id(b)), -EDQUOT, "xdg_surface", xdg, "get_toplevel",
		"over the budget of 256 windows per VM");
	xdg = new_xdg_surface(a, new_surface(a));
	REFUSED(a, req(a, xdg, IVWL_REQ_XDG_SURFACE_GET_POPUP, "noo", new_id(a),
		       first.xdg, new_positioner(a)), -EDQUOT, "xdg_surface",
		xdg, "get_popup", "over the budget of 256 windows per VM");
	destroy_popup(a, &p);
	CHECK_EQ(vm->totals.windows, IVWL_FW_VM_WINDOWS - 1);
	new_window(b);
	conn_close(a);
	CHECK_EQ(vm->totals.windows, (IVWL_FW_VM_WINDOWS - 2) / 2 + 1);
	conn_close(b);
	CHECK_EQ(vm->totals.windows, 0);
	vm_free(vm);
}

static void
test_budget_regions(void)
{
	struct ivwl_vm *vm = vm_new();
	struct conn *c = conn_open(vm);
	uint32_t first = c->next_id;

	repeat(c, IVWL_FW_CONN_REGIONS, make_region);
	REFUSED(c, make_region(c), -EDQUOT, "wl_compositor", COMPOSITOR,
		"create_region", "over the budget of 256 wl_regions");
	PASS(c, req(c, first, IVWL_REQ_WL_REGION_DESTROY, ""));
	PASS(c, make_region(c));
	conn_close(c);
	vm_free(vm);
}

/* n rectangles on object: region add/subtract or surface damage kinds. */
static void
rects(struct conn *c, uint32_t object, uint32_t n, uint32_t op_a,
      uint32_t op_b)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (req(c, object, i % 2 ? op_b : op_a, "iiii", i, 0, 1, 1)) {
			PASS(c, -1);
			return;
		}
	}
}

static void
test_budget_rectangles(void)
{
	struct ivwl_vm *vm = vm_new();
	struct conn *c = conn_open(vm);
	uint32_t region = c->next_id, s;

	PASS(c, make_region(c));
	s = new_surface(c);
	rects(c, region, IVWL_FW_MAX_RECTS, IVWL_REQ_WL_REGION_ADD,
	      IVWL_REQ_WL_REGION_SUBTRACT);
	REFUSED(c, req(c, region, IVWL_REQ_WL_REGION_ADD, "iiii", 0, 0, 1, 1),
		-EDQUOT, "wl_region", region, "add",
		"over the budget of 1024 rectangles");
	/* per surface between commits */
	rects(c, s, IVWL_FW_MAX_RECTS, IVWL_REQ_WL_SURFACE_DAMAGE,
	      IVWL_REQ_WL_SURFACE_DAMAGE_BUFFER);
	REFUSED(c, req(c, s, IVWL_REQ_WL_SURFACE_DAMAGE_BUFFER, "iiii", 0, 0,
		       1, 1),
		-EDQUOT, "wl_surface", s, "damage_buffer",
		"over the budget of 1024 rectangles");
	PASS(c, req(c, s, IVWL_REQ_WL_SURFACE_COMMIT, ""));
	rects(c, s, IVWL_FW_MAX_RECTS, IVWL_REQ_WL_SURFACE_DAMAGE,
	      IVWL_REQ_WL_SURFACE_DAMAGE);
	conn_close(c);
	vm_free(vm);
}

static void
test_budget_rectangles_in_all(void)
{
	struct ivwl_vm *vm = vm_new();
	struct conn *c = conn_open(vm);
	uint32_t first = c->next_id, last, s, i;

	for (i = 0; i < IVWL_FW_CONN_RECTS / IVWL_FW_MAX_RECTS; i++) {
		PASS(c, make_region(c));
		rects(c, first + i, IVWL_FW_MAX_RECTS, IVWL_REQ_WL_REGION_ADD,
		      IVWL_REQ_WL_REGION_ADD);
	}
	last = c->next_id;
	PASS(c, make_region(c));
	REFUSED(c, req(c, last, IVWL_REQ_WL_REGION_ADD, "iiii", 0, 0, 1, 1),
		-EDQUOT, "wl_region", last, "add",
		"over the budget of 16384 rectangles per connection");
	/* pending damage counts too */
	s = new_surface(c);
	REFUSED(c, req(c, s, IVWL_REQ_WL_SURFACE_DAMAGE, "iiii", 0, 0, 1, 1),
		-EDQUOT, "wl_surface", s, "damage",
		"rectangles per connection");
	PASS(c, req(c, first, IVWL_REQ_WL_REGION_DESTROY, ""));
	rects(c, last, IVWL_FW_MAX_RECTS, IVWL_REQ_WL_REGION_ADD,
	      IVWL_REQ_WL_REGION_ADD);
	conn_close(c);
	vm_free(vm);
}

/* ---- wl_shm: translate.c's budgets, behind the firewall ----------------- */

static int
make_buffer_of(struct conn *c, uint32_t pool)
{
	return req(c, pool, IVWL_REQ_WL_SHM_POOL_CREATE_BUFFER, "niiiiu",
		   new_id(c), 0, 1, 1, 4, 0);
}

static void
test_budget_pool_mappings(void)
{
	struct ivwl_vm *vm = vm_new();
	struct conn *c[5];
	uint32_t i, pool, buffer;

	for (i = 0; i < 5; i++)
		c[i] = conn_open(vm);
	pool = c[0]->next_id;
	repeat(c[0], 128, make_pool);
	REFUSED(c[0], make_pool(c[0]), -EDQUOT, NULL, 0, "",
		"over the budget of 128 pool mappings");
	/* a buffer keeps its pool's mapping after the pool object goes */
	buffer = c[0]->next_id;
	PASS(c[0], make_buffer_of(c[0], pool));
	PASS(c[0], req(c[0], pool, IVWL_REQ_WL_SHM_POOL_DESTROY, ""));
	REFUSED(c[0], make_pool(c[0]), -EDQUOT, NULL, 0, "",
		"over the budget of 128 pool mappings");
	PASS(c[0], req(c[0], buffer, IVWL_REQ_WL_BUFFER_DESTROY, ""));
	PASS(c[0], make_pool(c[0]));
	for (i = 1; i < 4; i++)
		repeat(c[i], 128, make_pool);
	CHECK_EQ(vm->pool_mappings, 512);
	REFUSED(c[4], make_pool(c[4]), -EDQUOT, NULL, 0, "",
		"over the budget of 128 pool mappings");
	conn_close(c[0]);
	PASS(c[4], make_pool(c[4]));
	for (i = 1; i < 5; i++)
		conn_close(c[i]);
	CHECK_EQ(vm->pool_mappings, 0);
	vm_free(vm);
}

static void
test_budget_buffers(void)
{
	struct ivwl_vm *vm = vm_new();
	struct conn *c = conn_open(vm);
	uint32_t pool = c->next_id, first, i;

	PASS(c, make_pool(c));
	first = c->next_id;
	for (i = 0; i < 1024; i++)
		if (make_buffer_of(c, pool) != 0)
			break;
	CHECK_EQ(i, 1024);
	REFUSED(c, make_buffer_of(c, pool), -EDQUOT, NULL, 0, "",
		"over the budget of 1024 wl_shm buffers");
	PASS(c, req(c, first, IVWL_REQ_WL_BUFFER_DESTROY, ""));
	PASS(c, make_buffer_of(c, pool));
	conn_close(c);
	vm_free(vm);
}

/* ---- xdg_positioner, data sources, MIME types ---------------------------- */

static void
test_budget_positioners(void)
{
	struct ivwl_vm *vm = vm_new();
	struct conn *c = conn_open(vm);
	uint32_t first = c->next_id;

	repeat(c, IVWL_FW_CONN_POSITIONERS, make_positioner);
	REFUSED(c, make_positioner(c), -EDQUOT, "xdg_wm_base", WM_BASE,
		"create_positioner", "over the budget of 64 xdg_positioners");
	PASS(c, req(c, first, IVWL_REQ_XDG_POSITIONER_DESTROY, ""));
	PASS(c, make_positioner(c));
	conn_close(c);
	vm_free(vm);
}

/* Clipboard and primary selection sources share one budget. */
static void
test_budget_data_sources(void)
{
	struct ivwl_vm *vm = vm_new();
	struct conn *c = conn_open(vm);
	uint32_t primary;

	repeat(c, IVWL_FW_CONN_DATA_SOURCES / 2, make_source);
	primary = c->next_id;
	repeat(c, IVWL_FW_CONN_DATA_SOURCES / 2, make_primary_source);
	REFUSED(c, make_source(c), -EDQUOT, "wl_data_device_manager",
		DATA_MANAGER, "create_data_source",
		"over the budget of 64 data sources");
	PASS(c, req(c, primary,
		    IVWL_REQ_ZWP_PRIMARY_SELECTION_SOURCE_V1_DESTROY, ""));
	PASS(c, make_source(c));
	conn_close(c);
	vm_free(vm);
}

static int
offer(struct conn *c, uint32_t source, const char *mime)
{
	return req(c, source, IVWL_REQ_WL_DATA_SOURCE_OFFER, "s", mime);
}

static void
test_budget_mime_types(void)
{
	struct ivwl_vm *vm = vm_new();
	struct conn *c = conn_open(vm);
	uint32_t src = new_source(c), i;
	char mime[32];

	for (i = 0; i < IVWL_FW_SOURCE_MIME_TYPES; i++) {
		snprintf(mime, sizeof(mime), "text/x-%u", i);
		PASS(c, offer(c, src, mime));
	}
	REFUSED(c, offer(c, src, "text/plain"), -EDQUOT, "wl_data_source", src,
		"offer", "over the budget of 128 MIME types per source");
	PASS(c, offer(c, new_source(c), "text/plain"));
	conn_close(c);
	vm_free(vm);
}

/*
 * Offers MIME types of 255 bytes (each charged 287) from new sources
 * until one is refused other than for its source's count; the number
 * that passed.  *first: the first source made.
 */
static uint32_t
offer_until_refused(struct conn *c, uint32_t *first, int *ret)
{
	char mime[256];
	uint32_t src = new_source(c), n = 0;

	memset(mime, 'm', 255);
	mime[255] = '\0';
	if (first)
		*first = src;
	while ((*ret = offer(c, src, mime)) == 0 ||
	       strstr(c->why, "per source")) {
		if (*ret == 0)
			n++;
		else
			src = new_source(c);
	}
	return n;
}

/* 64 KiB per connection, each type charged 32 bytes more. */
#define MIME_CHARGE (255u + IVWL_FW_MIME_OVERHEAD)
#define MIME_PER_CONN (IVWL_FW_CONN_MIME_BYTES / MIME_CHARGE)

static void
test_budget_mime_bytes_per_connection(void)
{
	struct ivwl_vm *vm = vm_new();
	struct conn *c = conn_open(vm);
	uint32_t first;
	int ret;

	CHECK_EQ(offer_until_refused(c, &first, &ret), MIME_PER_CONN);
	REFUSED(c, ret, -EDQUOT, "wl_data_source", c->next_id - 1, "offer",
		"over the budget of 65536 bytes of MIME types per connection");
	/* the first source's 128 types can be offered again by a new one */
	PASS(c, req(c, first, IVWL_REQ_WL_DATA_SOURCE_DESTROY, ""));
	CHECK_EQ(offer_until_refused(c, NULL, &ret),
		 IVWL_FW_SOURCE_MIME_TYPES);
	CHECK(strstr(c->why, "per connection"));
	CHECK_EQ(vm->totals.mime_bytes, MIME_PER_CONN * MIME_CHARGE);
	conn_close(c);
	CHECK_EQ(vm->totals.mime_bytes, 0);
	vm_free(vm);
}

static void
test_budget_mime_bytes_per_vm(void)
{
	struct ivwl_vm *vm = vm_new();
	uint32_t n = IVWL_FW_VM_MIME_BYTES / (MIME_PER_CONN * MIME_CHARGE), i;
	uint32_t left = IVWL_FW_VM_MIME_BYTES - n * MIME_PER_CONN * MIME_CHARGE;
	struct conn *c[16];
	int ret;

	REQUIRE(n + 1 <= 16);
	for (i = 0; i < n; i++) {
		c[i] = conn_open(vm);
		CHECK_EQ(offer_until_refused(c[i], NULL, &ret), MIME_PER_CONN);
		CHECK(strstr(c[i]->why, "per connection"));
	}
	c[n] = conn_open(vm);
	CHECK_EQ(offer_until_refused(c[n], NULL, &ret), left / MIME_CHARGE);
	REFUSED(c[n], ret, -EDQUOT, "wl_data_source", c[n]->next_id - 1,
		"offer", "over the budget of 524288 bytes of MIME types per "
		"VM");
	conn_close(c[0]);
	PASS(c[n], offer(c[n], new_source(c[n]), "text/plain"));
	for (i = 1; i <= n; i++)
		conn_close(c[i]);
	CHECK_EQ(vm->totals.mime_bytes, 0);
	vm_free(vm);
}

/* ---- input devices ------------------------------------------------------- */

static void
test_budget_keyboards(void)
{
	struct ivwl_vm *vm = vm_new();
	uint32_t n = IVWL_FW_VM_KEYBOARDS / IVWL_FW_CONN_KEYBOARDS, i, first;
	struct conn *c[16];

	REQUIRE(n + 1 <= 16);
	for (i = 0; i <= n; i++)
		c[i] = conn_open(vm);
	first = c[0]->next_id;
	repeat(c[0], IVWL_FW_CONN_KEYBOARDS, make_keyboard);
	REFUSED(c[0], make_keyboard(c[0]), -EDQUOT, "wl_seat", SEAT,
		"get_keyboard", "over the budget of 8 keyboards per "
		"connection");
	PASS(c[0], req(c[0], first, IVWL_REQ_WL_KEYBOARD_RELEASE, ""));
	PASS(c[0], make_keyboard(c[0]));
	for (i = 1; i < n; i++)
		repeat(c[i], IVWL_FW_CONN_KEYBOARDS, make_keyboard);
	CHECK_EQ(vm->totals.keyboards, IVWL_FW_VM_KEYBOARDS);
	REFUSED(c[n], make_keyboard(c[n]), -EDQUOT, "wl_seat", SEAT,
		"get_keyboard", "over the budget of 64 keyboards per VM");
	conn_close(c[0]);
	repeat(c[n], IVWL_FW_CONN_KEYBOARDS, make_keyboard);
	for (i = 1; i <= n; i++)
		conn_close(c[i]);
	CHECK_EQ(vm->totals.keyboards, 0);
	vm_free(vm);
}

static void
test_budget_pointers_and_touches(void)
{
	struct ivwl_vm *vm = vm_new();
	struct conn *c = conn_open(vm);
	uint32_t pointer = c->next_id, touch;

	repeat(c, IVWL_FW_CONN_POINTERS, make_pointer);
	REFUSED(c, make_pointer(c), -EDQUOT, "wl_seat", SEAT, "get_pointer",
		"over the budget of 8 pointers");
	touch = c->next_id;
	repeat(c, IVWL_FW_CONN_TOUCHES, make_touch);
	REFUSED(c, make_touch(c), -EDQUOT, "wl_seat", SEAT, "get_touch",
		"over the budget of 8 touch devices");
	PASS(c, req(c, pointer, IVWL_REQ_WL_POINTER_RELEASE, ""));
	PASS(c, req(c, touch, IVWL_REQ_WL_TOUCH_RELEASE, ""));
	PASS(c, make_pointer(c));
	PASS(c, make_touch(c));
	conn_close(c);
	vm_free(vm);
}

/* ---- what ends with an event --------------------------------------------- */

static void
test_budget_frame_callbacks(void)
{
	struct ivwl_vm *vm = vm_new();
	struct conn *c = conn_open(vm);
	uint32_t s = new_surface(c), first = c->next_id, i;

	for (i = 0; i < IVWL_FW_CONN_CALLBACKS; i++)
		PASS(c, req(c, s, IVWL_REQ_WL_SURFACE_FRAME, "n", new_id(c)));
	REFUSED(c, req(c, s, IVWL_REQ_WL_SURFACE_FRAME, "n", new_id(c)),
		-EDQUOT, "wl_surface", s, "frame",
		"over the budget of 1024 frame callbacks in flight");
	/* done ends one, and its delete_id does not end another */
	event(c, first, IVWL_EVT_WL_CALLBACK_DONE, "u", 16);
	PASS(c, req(c, s, IVWL_REQ_WL_SURFACE_FRAME, "n", new_id(c)));
	delete_id(c, first);
	REFUSED(c, req(c, s, IVWL_REQ_WL_SURFACE_FRAME, "n", new_id(c)),
		-EDQUOT, "wl_surface", s, "frame", "frame callbacks");
	/* weston destroys callbacks without done when their surface goes */
	delete_id(c, first + 1);
	PASS(c, req(c, s, IVWL_REQ_WL_SURFACE_FRAME, "n", new_id(c)));
	conn_close(c);
	vm_free(vm);
}

static void
test_budget_presentation_feedbacks(void)
{
	struct ivwl_vm *vm = vm_new();
	struct conn *c = conn_open(vm);
	uint32_t s = new_surface(c), first = c->next_id, i;

	for (i = 0; i < IVWL_FW_CONN_FEEDBACKS; i++)
		PASS(c, req(c, PRESENTATION, IVWL_REQ_WP_PRESENTATION_FEEDBACK,
			    "on", s, new_id(c)));
	REFUSED(c, req(c, PRESENTATION, IVWL_REQ_WP_PRESENTATION_FEEDBACK,
		       "on", s, new_id(c)),
		-EDQUOT, "wp_presentation", PRESENTATION, "feedback",
		"over the budget of 1024 presentation feedbacks in flight");
	event(c, first, IVWL_EVT_WP_PRESENTATION_FEEDBACK_PRESENTED,
	      "uuuuuuu", 0, 1, 2, 3, 0, 4, 0);
	PASS(c, req(c, PRESENTATION, IVWL_REQ_WP_PRESENTATION_FEEDBACK, "on",
		    s, new_id(c)));
	event(c, first + 1, IVWL_EVT_WP_PRESENTATION_FEEDBACK_DISCARDED, "");
	PASS(c, req(c, PRESENTATION, IVWL_REQ_WP_PRESENTATION_FEEDBACK, "on",
		    s, new_id(c)));
	delete_id(c, first);
	delete_id(c, first + 1);
	REFUSED(c, req(c, PRESENTATION, IVWL_REQ_WP_PRESENTATION_FEEDBACK,
		       "on", s, new_id(c)),
		-EDQUOT, "wp_presentation", PRESENTATION, "feedback",
		"presentation feedbacks");
	delete_id(c, first + 2);
	PASS(c, req(c, PRESENTATION, IVWL_REQ_WP_PRESENTATION_FEEDBACK, "on",
		    s, new_id(c)));
	conn_close(c);
	vm_free(vm);
}

/* ---- per-VM totals, popups ----------------------------------------------- */

static void
test_totals_shared_and_released(void)
{
	struct ivwl_vm *vm = vm_new();
	struct conn *a = conn_open(vm), *b = conn_open(vm);
	struct ivwl_firewall_totals *t = &vm->totals;

	new_surface(a);
	new_surface(a);
	PASS(a, make_keyboard(a));
	PASS(a, offer(a, new_source(a), "text/plain"));
	new_surface(b);
	PASS(b, make_keyboard(b));
	PASS(b, make_keyboard(b));
	PASS(b, offer(b, new_source(b), "image/png"));
	CHECK_EQ(t->surfaces, 3);
	CHECK_EQ(t->keyboards, 3);
	CHECK_EQ(t->mime_bytes, 10 + 9 + 2 * IVWL_FW_MIME_OVERHEAD);
	CHECK_EQ(t->objects, a->c.objects.client.live +
			     b->c.objects.client.live);
	conn_close(a);
	CHECK_EQ(t->surfaces, 1);
	CHECK_EQ(t->keyboards, 2);
	CHECK_EQ(t->mime_bytes, 9 + IVWL_FW_MIME_OVERHEAD);
	CHECK_EQ(t->objects, b->c.objects.client.live);
	conn_close(b);
	CHECK_EQ(t->surfaces, 0);
	CHECK_EQ(t->keyboards, 0);
	CHECK_EQ(t->mime_bytes, 0);
	CHECK_EQ(t->objects, 0);
	vm_free(vm);
}

/* Newest first, by creation and not by id: a reused id comes first. */
static void
test_popups_newest_first(void)
{
	struct ivwl_vm *vm = vm_new();
	struct conn *c = conn_open(vm);
	struct window w = new_window(c);
	uint32_t low = c->next_id, ids[8], s, xdg;
	struct popup p1, p2;

	PASS(c, make_sync(c));
	delete_id(c, low);
	CHECK_EQ(ivwl_firewall_popups(&c->c.firewall, ids, 8), 0);
	p1 = new_popup(c, w.xdg, true);
	p2 = new_popup(c, p1.xdg, true);
	s = new_surface(c);
	xdg = new_xdg_surface(c, s);
	PASS(c, req(c, xdg, IVWL_REQ_XDG_SURFACE_GET_POPUP, "noo", low, w.xdg,
		    new_positioner(c)));
	REQUIRE(ivwl_firewall_popups(&c->c.firewall, ids, 8) == 3);
	CHECK_EQ(ids[0], low);
	CHECK_EQ(ids[1], p2.popup);
	CHECK_EQ(ids[2], p1.popup);
	REQUIRE(ivwl_firewall_popups(&c->c.firewall, ids, 2) == 2);
	CHECK_EQ(ids[0], low);
	CHECK_EQ(ids[1], p2.popup);
	PASS(c, req(c, low, IVWL_REQ_XDG_POPUP_DESTROY, ""));
	REQUIRE(ivwl_firewall_popups(&c->c.firewall, ids, 8) == 2);
	CHECK_EQ(ids[0], p2.popup);
	CHECK_EQ(ids[1], p1.popup);
	destroy_popup(c, &p2);
	REQUIRE(ivwl_firewall_popups(&c->c.firewall, ids, 8) == 1);
	CHECK_EQ(ids[0], p1.popup);
	conn_close(c);
	vm_free(vm);
}

/*
 * What a connection that ends leaves to destroy, in the order a clean
 * client would: popups newest first, then toplevels, each with its
 * xdg_surface and wl_surface, then subsurfaces and surfaces.
 */
static void
test_teardown_order(void)
{
	struct ivwl_vm *vm = vm_new();
	struct conn *c = conn_open(vm);
	struct window w = new_window(c);
	struct popup p = new_popup(c, w.xdg, false);
	uint32_t child = new_surface(c), sub, *ids, n;
	struct window newer;

	sub = new_subsurface(c, child, w.surface);
	newer = new_window(c);
	n = ivwl_firewall_teardown(&c->c.firewall, &ids);
	REQUIRE(ids && n == 11);
	CHECK_EQ(ids[0], p.popup);	/* each window whole */
	CHECK_EQ(ids[1], p.xdg);
	CHECK_EQ(ids[2], p.surface);
	CHECK_EQ(ids[3], newer.top);	/* toplevels newest first */
	CHECK_EQ(ids[4], newer.xdg);
	CHECK_EQ(ids[5], newer.surface);
	CHECK_EQ(ids[6], w.top);
	CHECK_EQ(ids[7], w.xdg);
	CHECK_EQ(ids[8], w.surface);
	CHECK_EQ(ids[9], sub);
	CHECK_EQ(ids[10], child);
	free(ids);
	conn_close(c);
	vm_free(vm);
}

IVWL_TEST_MAIN(
	TEST(test_teardown_order),
	TEST(test_budget_objects_per_connection),
	TEST(test_budget_objects_per_vm),
	TEST(test_budget_object_ids),
	TEST(test_budget_surfaces),
	TEST(test_budget_windows),
	TEST(test_budget_regions),
	TEST(test_budget_rectangles),
	TEST(test_budget_rectangles_in_all),
	TEST(test_budget_pool_mappings),
	TEST(test_budget_buffers),
	TEST(test_budget_positioners),
	TEST(test_budget_data_sources),
	TEST(test_budget_mime_types),
	TEST(test_budget_mime_bytes_per_connection),
	TEST(test_budget_mime_bytes_per_vm),
	TEST(test_budget_keyboards),
	TEST(test_budget_pointers_and_touches),
	TEST(test_budget_frame_callbacks),
	TEST(test_budget_presentation_feedbacks),
	TEST(test_totals_shared_and_released),
	TEST(test_popups_newest_first),
)
