/* SPDX-License-Identifier: MIT */
/*
 * The protocol firewall's rules (docs/security.md, "The protocol
 * firewall"), each on a connection of its own: the legitimate sequence
 * passes ivwl_translate_request(), the violation is refused with -EPROTO
 * and a reason naming the message and the rule.  Budgets are in
 * test-firewall-budgets.c.
 */
#include <errno.h>
#include <string.h>

#include "fw-fixture.h"
#include "harness.h"

/* Names too long for a line */
#define GET_SUBSURFACE IVWL_REQ_WL_SUBCOMPOSITOR_GET_SUBSURFACE
#define LOCK_POINTER IVWL_REQ_ZWP_POINTER_CONSTRAINTS_V1_LOCK_POINTER
#define CREATE_PRIMARY \
	IVWL_REQ_ZWP_PRIMARY_SELECTION_DEVICE_MANAGER_V1_CREATE_SOURCE



/* ---- checks every request gets ------------------------------------------ */

static void
test_object_args_live_and_typed(void)
{
	struct conn *c = open_one();
	uint32_t s = new_surface(c), region = new_id(c);

	PASS(c, req(c, COMPOSITOR, IVWL_REQ_WL_COMPOSITOR_CREATE_REGION, "n",
		    region));
	PASS(c, req(c, s, IVWL_REQ_WL_SURFACE_SET_OPAQUE_REGION, "o", region));
	PASS(c, req(c, s, IVWL_REQ_WL_SURFACE_SET_OPAQUE_REGION, "o", 0));
	/* an id never made, then one of the wrong interface */
	REFUSED(c, req(c, s, IVWL_REQ_WL_SURFACE_SET_OPAQUE_REGION, "o", 999),
		-EPROTO, "wl_surface", s, "set_opaque_region",
		"object 999 is not alive");
	REFUSED(c, req(c, s, IVWL_REQ_WL_SURFACE_SET_INPUT_REGION, "o", s),
		-EPROTO, "wl_surface", s, "set_input_region",
		"is a wl_surface, not a wl_region");
	/* a destroyed one: a zombie until delete_id */
	PASS(c, req(c, region, IVWL_REQ_WL_REGION_DESTROY, ""));
	REFUSED(c, req(c, s, IVWL_REQ_WL_SURFACE_SET_OPAQUE_REGION, "o",
		       region),
		-EPROTO, "wl_surface", s, "set_opaque_region", "not alive");
	close_one(c);
}

static void
test_enum_args(void)
{
	struct conn *c = open_one();
	uint32_t s = new_surface(c), src = new_source(c);

	PASS(c, req(c, s, IVWL_REQ_WL_SURFACE_SET_BUFFER_TRANSFORM, "i", 7));
	REFUSED(c, req(c, s, IVWL_REQ_WL_SURFACE_SET_BUFFER_TRANSFORM, "i", 8),
		-EPROTO, "wl_surface", s, "set_buffer_transform",
		"8 is no value of wl_output.transform");
	/* a bitfield: known bits in any mix, no unknown one */
	REFUSED(c, req(c, src, IVWL_REQ_WL_DATA_SOURCE_SET_ACTIONS, "u", 8),
		-EPROTO, "wl_data_source", src, "set_actions",
		"no value of wl_data_device_manager.dnd_action");
	PASS(c, req(c, src, IVWL_REQ_WL_DATA_SOURCE_SET_ACTIONS, "u", 7));
	close_one(c);
}

static void
test_inert_role_object(void)
{
	struct conn *c = open_one();
	uint32_t parent = new_surface(c), s = new_surface(c), sub;

	sub = new_subsurface(c, s, parent);
	PASS(c, req(c, sub, IVWL_REQ_WL_SUBSURFACE_SET_POSITION, "ii", 1, 1));
	PASS(c, req(c, s, IVWL_REQ_WL_SURFACE_DESTROY, ""));
	REFUSED(c, req(c, sub, IVWL_REQ_WL_SUBSURFACE_SET_POSITION, "ii", 2,
		       2),
		-EPROTO, "wl_subsurface", sub, "set_position",
		"only destroy may follow");
	REFUSED(c, req(c, sub, IVWL_REQ_WL_SUBSURFACE_SET_DESYNC, ""),
		-EPROTO, "wl_subsurface", sub, "set_desync",
		"its wl_surface is destroyed");
	PASS(c, req(c, sub, IVWL_REQ_WL_SUBSURFACE_DESTROY, ""));
	close_one(c);
}

/*
 * Once weston deleted the destroyed wl_surface's id, a new wl_surface
 * may take it: the old subsurface stays inert, and its destructor does
 * not touch the new surface.
 */
static void
test_inert_after_id_reuse(void)
{
	struct conn *c = open_one();
	uint32_t parent = new_surface(c), s = new_surface(c), old, sub;

	old = new_subsurface(c, s, parent);
	PASS(c, req(c, s, IVWL_REQ_WL_SURFACE_DESTROY, ""));
	delete_id(c, s);
	PASS(c, req(c, COMPOSITOR, IVWL_REQ_WL_COMPOSITOR_CREATE_SURFACE, "n",
		    s));
	REFUSED(c, req(c, old, IVWL_REQ_WL_SUBSURFACE_SET_POSITION, "ii", 2,
		       2),
		-EPROTO, "wl_subsurface", old, "set_position",
		"only destroy may follow");
	sub = new_subsurface(c, s, parent);
	PASS(c, req(c, old, IVWL_REQ_WL_SUBSURFACE_DESTROY, ""));
	PASS(c, req(c, sub, IVWL_REQ_WL_SUBSURFACE_SET_POSITION, "ii", 1, 1));
	REFUSED(c, req(c, SUBCOMPOSITOR, GET_SUBSURFACE,
		       "noo", new_id(c), s, parent),
		-EPROTO, "wl_subcompositor", SUBCOMPOSITOR, "get_subsurface",
		"live role object");
	close_one(c);
}

/* ---- roles --------------------------------------------------------------- */

static void
test_role_once(void)
{
	struct conn *c = open_one();
	uint32_t s = new_surface(c), xdg = new_xdg_surface(c, s);
	uint32_t parent = new_surface(c), cursor = new_surface(c);
	uint32_t pointer = new_seat_device(c, IVWL_REQ_WL_SEAT_GET_POINTER);
	uint32_t sub_s = new_surface(c), device = new_data_device(c);
	struct window w = new_window(c);

	/* an xdg_surface's surface cannot become a subsurface */
	REFUSED(c, req(c, SUBCOMPOSITOR, GET_SUBSURFACE,
		       "noo", new_id(c), s, parent),
		-EPROTO, "wl_subcompositor", SUBCOMPOSITOR, "get_subsurface",
		"already has");
	/* nor once its xdg_surface is gone: the role is for good */
	PASS(c, req(c, xdg, IVWL_REQ_XDG_SURFACE_DESTROY, ""));
	REFUSED(c, req(c, SUBCOMPOSITOR, GET_SUBSURFACE,
		       "noo", new_id(c), s, parent),
		-EPROTO, "wl_subcompositor", SUBCOMPOSITOR, "get_subsurface",
		"already has the xdg_surface role");
	/* a cursor is no window; a toplevel is no cursor */
	PASS(c, req(c, pointer, IVWL_REQ_WL_POINTER_SET_CURSOR, "uoii", 1,
		    cursor, 0, 0));
	REFUSED(c, req(c, WM_BASE, IVWL_REQ_XDG_WM_BASE_GET_XDG_SURFACE, "no",
		       new_id(c), cursor),
		-EPROTO, "xdg_wm_base", WM_BASE, "get_xdg_surface",
		"already has the cursor role");
	REFUSED(c, req(c, pointer, IVWL_REQ_WL_POINTER_SET_CURSOR, "uoii", 1,
		       w.surface, 0, 0),
		-EPROTO, "wl_pointer", pointer, "set_cursor",
		"already has the xdg_toplevel role");
	/* a subsurface is no window and no drag icon */
	new_subsurface(c, sub_s, parent);
	REFUSED(c, req(c, WM_BASE, IVWL_REQ_XDG_WM_BASE_GET_XDG_SURFACE, "no",
		       new_id(c), sub_s),
		-EPROTO, "xdg_wm_base", WM_BASE, "get_xdg_surface",
		"live role object");
	REFUSED(c, req(c, device, IVWL_REQ_WL_DATA_DEVICE_START_DRAG, "ooou",
		       new_source(c), parent, sub_s, 1),
		-EPROTO, "wl_data_device", device, "start_drag",
		"already has the wl_subsurface role");
	close_one(c);
}

/* The same role again, once no role object of the surface lives. */
static void
test_role_again(void)
{
	struct conn *c = open_one();
	uint32_t pointer = new_seat_device(c, IVWL_REQ_WL_SEAT_GET_POINTER);
	uint32_t cursor = new_surface(c), parent = new_surface(c);
	uint32_t s = new_surface(c), sub = new_subsurface(c, s, parent);
	struct window w = new_window(c), other = new_window(c);
	uint32_t top, pos;

	PASS(c, req(c, pointer, IVWL_REQ_WL_POINTER_SET_CURSOR, "uoii", 1,
		    cursor, 0, 0));
	PASS(c, req(c, pointer, IVWL_REQ_WL_POINTER_SET_CURSOR, "uoii", 2,
		    cursor, 1, 1));
	REFUSED(c, req(c, SUBCOMPOSITOR, GET_SUBSURFACE,
		       "noo", new_id(c), s, parent),
		-EPROTO, "wl_subcompositor", SUBCOMPOSITOR, "get_subsurface",
		"live role object");
	PASS(c, req(c, sub, IVWL_REQ_WL_SUBSURFACE_DESTROY, ""));
	new_subsurface(c, s, parent);
	/* a toplevel's surface: a new xdg_surface, a toplevel again */
	PASS(c, req(c, w.top, IVWL_REQ_XDG_TOPLEVEL_DESTROY, ""));
	PASS(c, req(c, w.xdg, IVWL_REQ_XDG_SURFACE_DESTROY, ""));
	w.xdg = new_xdg_surface(c, w.surface);
	pos = new_positioner(c);
	PASS(c, req(c, other.surface, IVWL_REQ_WL_SURFACE_COMMIT, ""));
	REFUSED(c, req(c, w.xdg, IVWL_REQ_XDG_SURFACE_GET_POPUP, "noo",
		       new_id(c), other.xdg, pos),
		-EPROTO, "xdg_surface", w.xdg, "get_popup",
		"already has the xdg_toplevel role");
	top = new_id(c);
	PASS(c, req(c, w.xdg, IVWL_REQ_XDG_SURFACE_GET_TOPLEVEL, "n", top));
	close_one(c);
}

/* ---- subsurfaces --------------------------------------------------------- */

static void
test_subsurface_tree(void)
{
	struct conn *c = open_one();
	uint32_t a = new_surface(c), b = new_surface(c), d = new_surface(c);

	new_subsurface(c, b, a);
	new_subsurface(c, d, b);
	REFUSED(c, req(c, SUBCOMPOSITOR, GET_SUBSURFACE,
		       "noo", new_id(c), a, a),
		-EPROTO, "wl_subcompositor", SUBCOMPOSITOR, "get_subsurface",
		"its own parent");
	/* a under d, which is under b, which is under a */
	REFUSED(c, req(c, SUBCOMPOSITOR, GET_SUBSURFACE,
		       "noo", new_id(c), a, d),
		-EPROTO, "wl_subcompositor", SUBCOMPOSITOR, "get_subsurface",
		"is an ancestor of its parent");
	close_one(c);
}

static void
test_subsurface_place(void)
{
	struct conn *c = open_one();
	uint32_t a = new_surface(c), b = new_surface(c), d = new_surface(c);
	uint32_t other = new_surface(c), sub_b, sub_d;

	sub_b = new_subsurface(c, b, a);
	sub_d = new_subsurface(c, d, a);
	PASS(c, req(c, sub_b, IVWL_REQ_WL_SUBSURFACE_PLACE_ABOVE, "o", d));
	PASS(c, req(c, sub_b, IVWL_REQ_WL_SUBSURFACE_PLACE_BELOW, "o", a));
	REFUSED(c, req(c, sub_b, IVWL_REQ_WL_SUBSURFACE_PLACE_ABOVE, "o",
		       other),
		-EPROTO, "wl_subsurface", sub_b, "place_above",
		"neither a sibling nor the parent");
	REFUSED(c, req(c, sub_b, IVWL_REQ_WL_SUBSURFACE_PLACE_BELOW, "o", b),
		-EPROTO, "wl_subsurface", sub_b, "place_below",
		"not its own sibling");
	/* once the parent is gone, there is nothing to stack in */
	PASS(c, req(c, a, IVWL_REQ_WL_SURFACE_DESTROY, ""));
	REFUSED(c, req(c, sub_b, IVWL_REQ_WL_SUBSURFACE_PLACE_ABOVE, "o", d),
		-EPROTO, "wl_subsurface", sub_b, "place_above",
		"no parent to stack in");
	PASS(c, req(c, sub_d, IVWL_REQ_WL_SUBSURFACE_DESTROY, ""));
	close_one(c);
}

/* The westons the version-bound rules are checked on; 0: unknown. */
static const int westons[] = { 0, 10, 14 };
#define NWESTONS (sizeof(westons) / sizeof(westons[0]))

static struct conn *
open_on(int weston_major)
{
	struct conn *c = open_one();

	c->c.firewall.weston_major = weston_major;
	return c;
}

/* weston 14 asserts on set_position once the parent went; 10 does not:
 * there the request is kept from weston. */
static void
test_subsurface_orphan_position(void)
{
	size_t i;

	for (i = 0; i < NWESTONS; i++) {
		struct conn *c = open_on(westons[i]);
		uint32_t a = new_surface(c), b = new_surface(c), sub;

		sub = new_subsurface(c, b, a);
		PASS(c, req(c, sub, IVWL_REQ_WL_SUBSURFACE_SET_POSITION,
			    "ii", 3, 4));
		CHECK(!c->c.firewall.absorb);
		PASS(c, req(c, a, IVWL_REQ_WL_SURFACE_DESTROY, ""));
		PASS(c, req(c, sub, IVWL_REQ_WL_SUBSURFACE_SET_POSITION,
			    "ii", 5, 6));
		CHECK(c->c.firewall.absorb == (westons[i] != 10));
		close_one(c);
	}
}

/* ---- xdg_surface and its role objects ------------------------------------ */

static void
test_xdg_constructed_once(void)
{
	struct conn *c = open_one();
	struct window w = new_window(c), w2 = new_window(c);
	uint32_t pos = new_positioner(c);

	PASS(c, req(c, w2.surface, IVWL_REQ_WL_SURFACE_COMMIT, ""));
	REFUSED(c, req(c, w.xdg, IVWL_REQ_XDG_SURFACE_GET_TOPLEVEL, "n",
		       new_id(c)),
		-EPROTO, "xdg_surface", w.xdg, "get_toplevel",
		"already constructed");
	REFUSED(c, req(c, w.xdg, IVWL_REQ_XDG_SURFACE_GET_POPUP, "noo",
		       new_id(c), w2.xdg, pos),
		-EPROTO, "xdg_surface", w.xdg, "get_popup",
		"already constructed");
	/* never again once its role object was destroyed */
	PASS(c, req(c, w.top, IVWL_REQ_XDG_TOPLEVEL_DESTROY, ""));
	REFUSED(c, req(c, w.xdg, IVWL_REQ_XDG_SURFACE_GET_TOPLEVEL, "n",
		       new_id(c)),
		-EPROTO, "xdg_surface", w.xdg, "get_toplevel",
		"already constructed");
	close_one(c);
}

static void
test_xdg_needs_role_object(void)
{
	struct conn *c = open_one();
	uint32_t s = new_surface(c), xdg = new_xdg_surface(c, s), top;

	REFUSED(c, req(c, xdg, IVWL_REQ_XDG_SURFACE_SET_WINDOW_GEOMETRY,
		       "iiii", 0, 0, 10, 10),
		-EPROTO, "xdg_surface", xdg, "set_window_geometry",
		"not_constructed");
	REFUSED(c, req(c, xdg, IVWL_REQ_XDG_SURFACE_ACK_CONFIGURE, "u", 1),
		-EPROTO, "xdg_surface", xdg, "ack_configure",
		"not_constructed");
	top = new_id(c);
	PASS(c, req(c, xdg, IVWL_REQ_XDG_SURFACE_GET_TOPLEVEL, "n", top));
	PASS(c, req(c, xdg, IVWL_REQ_XDG_SURFACE_SET_WINDOW_GEOMETRY, "iiii",
		    0, 0, 10, 10));
	PASS(c, req(c, xdg, IVWL_REQ_XDG_SURFACE_ACK_CONFIGURE, "u", 1));
	PASS(c, req(c, top, IVWL_REQ_XDG_TOPLEVEL_DESTROY, ""));
	REFUSED(c, req(c, xdg, IVWL_REQ_XDG_SURFACE_ACK_CONFIGURE, "u", 2),
		-EPROTO, "xdg_surface", xdg, "ack_configure",
		"not_constructed");
	close_one(c);
}

/* Role object, then xdg_surface, then wl_surface. */
static void
test_xdg_destroy_order(void)
{
	struct conn *c = open_one();
	struct window w = new_window(c);

	REFUSED(c, req(c, w.xdg, IVWL_REQ_XDG_SURFACE_DESTROY, ""), -EPROTO,
		"xdg_surface", w.xdg, "destroy", "defunct_role_object");
	REFUSED(c, req(c, w.surface, IVWL_REQ_WL_SURFACE_DESTROY, ""),
		-EPROTO, "wl_surface", w.surface, "destroy",
		"its xdg_surface");
	PASS(c, req(c, w.top, IVWL_REQ_XDG_TOPLEVEL_DESTROY, ""));
	REFUSED(c, req(c, w.surface, IVWL_REQ_WL_SURFACE_DESTROY, ""),
		-EPROTO, "wl_surface", w.surface, "destroy",
		"its xdg_surface");
	PASS(c, req(c, w.xdg, IVWL_REQ_XDG_SURFACE_DESTROY, ""));
	PASS(c, req(c, w.surface, IVWL_REQ_WL_SURFACE_DESTROY, ""));
	close_one(c);
}

static void
test_wm_base_destroy(void)
{
	struct conn *c = open_one();
	struct window w = new_window(c);

	REFUSED(c, req(c, WM_BASE, IVWL_REQ_XDG_WM_BASE_DESTROY, ""), -EPROTO,
		"xdg_wm_base", WM_BASE, "destroy", "defunct_surfaces");
	destroy_window(c, &w);
	PASS(c, req(c, WM_BASE, IVWL_REQ_XDG_WM_BASE_DESTROY, ""));
	close_one(c);
}

/* A 1x1 buffer attached to surface, not committed. */
static void
attach_one(struct conn *c, uint32_t surface)
{
	uint32_t pool = new_id(c), buffer = new_id(c);

	PASS(c, create_pool(c, pool));
	PASS(c, req(c, pool, IVWL_REQ_WL_SHM_POOL_CREATE_BUFFER, "niiiiu",
		    buffer, 0, 1, 1, 4, 0));
	PASS(c, req(c, surface, IVWL_REQ_WL_SURFACE_ATTACH, "oii",
		    buffer, 0, 0));
}

/* A 1x1 buffer committed: the window is mapped. */
static void
map_window(struct conn *c, const struct window *w)
{
	attach_one(c, w->surface);
	PASS(c, req(c, w->surface, IVWL_REQ_WL_SURFACE_COMMIT, ""));
}

/* ---- window maps, paced (map-pace.h) ---------------------------------- */

static uint32_t maps_left;

/* The host's budget: maps_left more this repaint. */
static bool
take_map(void *data)
{
	if (maps_left == 0)
		return false;
	maps_left--;
	return true;
}

/*
 * A commit that maps a window is asked of the host's budget; over it,
 * the record is held there, nothing of it sent, until go and room; a
 * commit that maps nothing is never asked.
 */
static void
test_window_maps_paced(void)
{
	struct conn *c = open_one();
	const struct ivwl_translate_host *own = c->c.host;
	struct ivwl_translate_host host = *own;
	struct window a = new_window(c), b = new_window(c);

	host.may_map = take_map;
	c->c.host = &host;
	maps_left = 1;
	map_window(c, &a);
	CHECK_EQ(maps_left, 0u);
	PASS(c, req(c, a.surface, IVWL_REQ_WL_SURFACE_COMMIT, ""));
	attach_one(c, b.surface);
	CHECK_EQ(req(c, b.surface, IVWL_REQ_WL_SURFACE_COMMIT, ""), -EBUSY);
	CHECK_EQ(c->c.barrier, IVWL_BARRIER_PACED);
	CHECK_EQ(c->sent_count, 0u);
	/* go without room: held again */
	ivwl_translation_go(&c->c);
	CHECK_EQ(c->c.barrier, IVWL_BARRIER_PASSED);
	CHECK_EQ(req(c, b.surface, IVWL_REQ_WL_SURFACE_COMMIT, ""), -EBUSY);
	CHECK_EQ(c->c.barrier, IVWL_BARRIER_PACED);
	ivwl_translation_go(&c->c);
	maps_left = 1;
	PASS(c, req(c, b.surface, IVWL_REQ_WL_SURFACE_COMMIT, ""));
	CHECK_EQ(c->c.barrier, IVWL_BARRIER_NONE);
	CHECK_EQ(c->sent_count, 1u);
	CHECK_EQ(c->last_sent_object, b.surface);
	CHECK_EQ(c->last_sent_opcode, IVWL_REQ_WL_SURFACE_COMMIT);
	CHECK_EQ(maps_left, 0u);
	/* mapped: its commits map nothing more */
	PASS(c, req(c, b.surface, IVWL_REQ_WL_SURFACE_COMMIT, ""));
	/* unmapped (null attached), it maps anew, on the budget again */
	PASS(c, req(c, b.surface, IVWL_REQ_WL_SURFACE_ATTACH, "oii", 0, 0, 0));
	PASS(c, req(c, b.surface, IVWL_REQ_WL_SURFACE_COMMIT, ""));
	attach_one(c, b.surface);
	CHECK_EQ(req(c, b.surface, IVWL_REQ_WL_SURFACE_COMMIT, ""), -EBUSY);
	c->c.host = own;
	close_one(c);
}

static void
test_toplevel_set_parent(void)
{
	struct conn *c = open_one();
	struct window a = new_window(c), b = new_window(c), d = new_window(c);

	map_window(c, &a);
	map_window(c, &b);
	map_window(c, &d);
	PASS(c, req(c, b.top, IVWL_REQ_XDG_TOPLEVEL_SET_PARENT, "o", a.top));
	PASS(c, req(c, d.top, IVWL_REQ_XDG_TOPLEVEL_SET_PARENT, "o", b.top));
	REFUSED(c, req(c, a.top, IVWL_REQ_XDG_TOPLEVEL_SET_PARENT, "o", a.top),
		-EPROTO, "xdg_toplevel", a.top, "set_parent",
		"invalid_parent");
	REFUSED(c, req(c, a.top, IVWL_REQ_XDG_TOPLEVEL_SET_PARENT, "o", d.top),
		-EPROTO, "xdg_toplevel", a.top, "set_parent",
		"invalid_parent");
	/* unparented, b's subtree may go under a's... and a under b */
	PASS(c, req(c, b.top, IVWL_REQ_XDG_TOPLEVEL_SET_PARENT, "o", 0));
	PASS(c, req(c, a.top, IVWL_REQ_XDG_TOPLEVEL_SET_PARENT, "o", d.top));
	close_one(c);
}

/*
 * A parent never committed has no window in weston 10's shell, which
 * dereferences it: the plugin passes none on (an unmapped parent is as
 * good as none, the XML says), and no link is made that a later
 * set_parent could loop through.
 */
static void
test_toplevel_set_parent_uncommitted(void)
{
	struct conn *c = open_one();
	struct window a = new_window(c), b = new_window(c);

	map_window(c, &b);
	PASS(c, req(c, b.top, IVWL_REQ_XDG_TOPLEVEL_SET_PARENT, "o", a.top));
	CHECK_EQ(c->last_sent_arg0, 0);
	map_window(c, &a);
	PASS(c, req(c, a.top, IVWL_REQ_XDG_TOPLEVEL_SET_PARENT, "o", b.top));
	CHECK_EQ(c->last_sent_arg0, b.top);
	close_one(c);
}

/* ---- popups -------------------------------------------------------------- */

static void
test_popup_parent_and_positioner(void)
{
	struct conn *c = open_one();
	struct window w = new_window(c);
	uint32_t s = new_surface(c), xdg = new_xdg_surface(c, s);
	uint32_t bare = new_xdg_surface(c, new_surface(c));
	uint32_t pos = new_positioner(c), half, popup;

	PASS(c, req(c, w.surface, IVWL_REQ_WL_SURFACE_COMMIT, ""));
	REFUSED(c, req(c, xdg, IVWL_REQ_XDG_SURFACE_GET_POPUP, "noo",
		       new_id(c), 0, pos),
		-EPROTO, "xdg_surface", xdg, "get_popup",
		"invalid_popup_parent");
	REFUSED(c, req(c, xdg, IVWL_REQ_XDG_SURFACE_GET_POPUP, "noo",
		       new_id(c), bare, pos),
		-EPROTO, "xdg_surface", xdg, "get_popup",
		"invalid_popup_parent");
	REFUSED(c, req(c, xdg, IVWL_REQ_XDG_SURFACE_GET_POPUP, "noo",
		       new_id(c), xdg, pos),
		-EPROTO, "xdg_surface", xdg, "get_popup", "its own parent");
	/* a positioner with a size only, then with an anchor only */
	half = new_id(c);
	PASS(c, req(c, WM_BASE, IVWL_REQ_XDG_WM_BASE_CREATE_POSITIONER, "n",
		    half));
	PASS(c, req(c, half, IVWL_REQ_XDG_POSITIONER_SET_SIZE, "ii", 5, 5));
	REFUSED(c, req(c, xdg, IVWL_REQ_XDG_SURFACE_GET_POPUP, "noo",
		       new_id(c), w.xdg, half),
		-EPROTO, "xdg_surface", xdg, "get_popup",
		"invalid_positioner");
	PASS(c, req(c, half, IVWL_REQ_XDG_POSITIONER_DESTROY, ""));
	half = new_id(c);
	PASS(c, req(c, WM_BASE, IVWL_REQ_XDG_WM_BASE_CREATE_POSITIONER, "n",
		    half));
	PASS(c, req(c, half, IVWL_REQ_XDG_POSITIONER_SET_ANCHOR_RECT, "iiii",
		    0, 0, 1, 1));
	REFUSED(c, req(c, xdg, IVWL_REQ_XDG_SURFACE_GET_POPUP, "noo",
		       new_id(c), w.xdg, half),
		-EPROTO, "xdg_surface", xdg, "get_popup",
		"invalid_positioner");
	popup = new_id(c);
	PASS(c, req(c, xdg, IVWL_REQ_XDG_SURFACE_GET_POPUP, "noo", popup,
		    w.xdg, pos));
	/* a parent whose role object is gone is no parent */
	PASS(c, req(c, popup, IVWL_REQ_XDG_POPUP_DESTROY, ""));
	PASS(c, req(c, w.top, IVWL_REQ_XDG_TOPLEVEL_DESTROY, ""));
	REFUSED(c, req(c, bare, IVWL_REQ_XDG_SURFACE_GET_POPUP, "noo",
		       new_id(c), w.xdg, pos),
		-EPROTO, "xdg_surface", bare, "get_popup",
		"invalid_popup_parent");
	close_one(c);
}

static void
test_popup_depth(void)
{
	struct conn *c = open_one();
	struct window w = new_window(c);
	uint32_t parent = w.xdg, s, xdg, pos, i;
	struct popup p;

	for (i = 0; i < 16; i++) {
		p = new_popup(c, parent, true);
		parent = p.xdg;
	}
	PASS(c, req(c, p.surface, IVWL_REQ_WL_SURFACE_COMMIT, ""));
	s = new_surface(c);
	xdg = new_xdg_surface(c, s);
	pos = new_positioner(c);
	REFUSED(c, req(c, xdg, IVWL_REQ_XDG_SURFACE_GET_POPUP, "noo",
		       new_id(c), parent, pos),
		-EDQUOT, "xdg_surface", xdg, "get_popup",
		"over the budget of 16 nested popups");
	close_one(c);
}

static void
test_popup_grab(void)
{
	struct conn *c = open_one();
	struct window w = new_window(c);
	struct popup p = new_popup(c, w.xdg, true), late, above, under;

	REFUSED(c, req(c, p.popup, IVWL_REQ_XDG_POPUP_GRAB, "ou", SEAT, 2),
		-EPROTO, "xdg_popup", p.popup, "grab", "invalid_grab");
	/* after its first commit */
	late = new_popup(c, p.xdg, false);
	PASS(c, req(c, late.surface, IVWL_REQ_WL_SURFACE_COMMIT, ""));
	REFUSED(c, req(c, late.popup, IVWL_REQ_XDG_POPUP_GRAB, "ou", SEAT, 3),
		-EPROTO, "xdg_popup", late.popup, "grab", "invalid_grab");
	/* under a popup that does not grab */
	above = new_popup(c, w.xdg, false);
	under = new_popup(c, above.xdg, false);
	REFUSED(c, req(c, under.popup, IVWL_REQ_XDG_POPUP_GRAB, "ou", SEAT, 4),
		-EPROTO, "xdg_popup", under.popup, "grab",
		"neither a toplevel nor a grabbing popup");
	/* under a grabbing popup, before the commit: fine */
	under = new_popup(c, p.xdg, true);
	close_one(c);
}

/* weston 14 crashes on a window's commit while a popup made on it awaits
 * its first commit; weston 10 does not. */
static void
test_popup_first_commit(void)
{
	size_t i;

	for (i = 0; i < NWESTONS; i++) {
		struct conn *c = open_on(westons[i]);
		struct window w = new_window(c);
		struct popup p;

		p = new_popup(c, w.xdg, false);
		if (westons[i] == 10) {
			PASS(c, req(c, w.surface, IVWL_REQ_WL_SURFACE_COMMIT,
				    ""));
			close_one(c);
			continue;
		}
		REFUSED(c, req(c, w.surface, IVWL_REQ_WL_SURFACE_COMMIT, ""),
			-EPROTO, "wl_surface", w.surface, "commit",
			"awaits its first commit");
		close_one(c);
		/* the popup first, then its window; a popup's own popups */
		c = open_on(westons[i]);
		w = new_window(c);
		p = new_popup(c, w.xdg, false);
		PASS(c, req(c, p.surface, IVWL_REQ_WL_SURFACE_COMMIT, ""));
		PASS(c, req(c, w.surface, IVWL_REQ_WL_SURFACE_COMMIT, ""));
		new_popup(c, p.xdg, false);
		REFUSED(c, req(c, p.surface, IVWL_REQ_WL_SURFACE_COMMIT, ""),
			-EPROTO, "wl_surface", p.surface, "commit",
			"awaits its first commit");
		close_one(c);
	}
}

/* weston 14 gives a popup on a parent that never committed a view with
 * no parent view, and the parent's first commit dereferences it. */
static void
test_popup_on_committed_parent(void)
{
	size_t i;

	for (i = 0; i < NWESTONS; i++) {
		struct conn *c = open_on(westons[i]);
		struct window w = new_window(c);
		uint32_t s = new_surface(c), xdg = new_xdg_surface(c, s);
		uint32_t pos = new_positioner(c);
		struct popup p;

		if (westons[i] == 10) {
			PASS(c, req(c, xdg, IVWL_REQ_XDG_SURFACE_GET_POPUP,
				    "noo", new_id(c), w.xdg, pos));
			close_one(c);
			continue;
		}
		REFUSED(c, req(c, xdg, IVWL_REQ_XDG_SURFACE_GET_POPUP, "noo",
			       new_id(c), w.xdg, pos),
			-EPROTO, "xdg_surface", xdg, "get_popup",
			"the parent has not committed");
		close_one(c);
		/* committed, a popup on it; a popup on that popup only
		 * after the popup's own first commit */
		c = open_on(westons[i]);
		w = new_window(c);
		PASS(c, req(c, w.surface, IVWL_REQ_WL_SURFACE_COMMIT, ""));
		p = new_popup(c, w.xdg, false);
		s = new_surface(c);
		xdg = new_xdg_surface(c, s);
		pos = new_positioner(c);
		REFUSED(c, req(c, xdg, IVWL_REQ_XDG_SURFACE_GET_POPUP, "noo",
			       new_id(c), p.xdg, pos),
			-EPROTO, "xdg_surface", xdg, "get_popup",
			"the parent has not committed");
		close_one(c);
	}
}

/* The request injected before the last one, word w (0: its object). */
static uint32_t
injected(const struct conn *c, unsigned int w)
{
	uint32_t v;

	memcpy(&v, c->c.firewall.inject + 4 * w, sizeof(v));
	return v;
}

/*
 * weston 14 keeps the window of a destroyed toplevel while its
 * xdg_surface lives: sends it the next focus change's configure through
 * the freed toplevel, and the configure of a commit of its surface.  The
 * destroy is held until the xdg_surface's, the window unmapped, and the
 * surface's commits kept from weston meanwhile; weston 10 gets them all.
 */
static void
test_held_toplevel(void)
{
	size_t i;

	for (i = 0; i < NWESTONS; i++) {
		struct conn *c = open_on(westons[i]);
		struct window w = new_window(c);
		bool held = westons[i] != 10;

		map_window(c, &w);
		PASS(c, req_past_barrier(c, w.top,
					 IVWL_REQ_XDG_TOPLEVEL_DESTROY));
		CHECK(c->c.firewall.absorb == held);
		/* unmapped: attach(null) and commit */
		CHECK_EQ(c->c.firewall.inject_len, held ? 28u : 0u);
		if (held) {
			CHECK_EQ(injected(c, 0), w.surface);
			CHECK_EQ(injected(c, 1) & 0xffff,
				 IVWL_REQ_WL_SURFACE_ATTACH);
			CHECK_EQ(injected(c, 2), 0u);
			CHECK_EQ(injected(c, 5), w.surface);
			CHECK_EQ(injected(c, 6) & 0xffff,
				 IVWL_REQ_WL_SURFACE_COMMIT);
		}
		PASS(c, req(c, w.surface, IVWL_REQ_WL_SURFACE_COMMIT, ""));
		CHECK(c->c.firewall.absorb == held);
		/* the toplevel's destroy just before the xdg_surface's */
		PASS(c, req_past_barrier(c, w.xdg,
					 IVWL_REQ_XDG_SURFACE_DESTROY));
		CHECK_EQ(c->c.firewall.inject_len, held ? 8u : 0u);
		if (held) {
			CHECK_EQ(injected(c, 0), w.top);
			CHECK_EQ(injected(c, 1), 8u << 16 |
				 IVWL_REQ_XDG_TOPLEVEL_DESTROY);
		}
		/* the surface is weston's again */
		PASS(c, req(c, w.surface, IVWL_REQ_WL_SURFACE_COMMIT, ""));
		CHECK(!c->c.firewall.absorb);
		close_one(c);
	}
}

/* Topmost first: a popup, then what it hangs from. */
static void
test_popup_destroy_order(void)
{
	struct conn *c = open_one();
	struct window w = new_window(c);
	struct popup p = new_popup(c, w.xdg, true);
	struct popup child = new_popup(c, p.xdg, true);

	REFUSED(c, req(c, p.popup, IVWL_REQ_XDG_POPUP_DESTROY, ""), -EPROTO,
		"xdg_popup", p.popup, "destroy", "popups on it are alive");
	REFUSED(c, req(c, w.top, IVWL_REQ_XDG_TOPLEVEL_DESTROY, ""), -EPROTO,
		"xdg_toplevel", w.top, "destroy", "popups on it are alive");
	REFUSED(c, req(c, w.xdg, IVWL_REQ_XDG_SURFACE_DESTROY, ""), -EPROTO,
		"xdg_surface", w.xdg, "destroy", "");
	REFUSED(c, req(c, w.surface, IVWL_REQ_WL_SURFACE_DESTROY, ""), -EPROTO,
		"wl_surface", w.surface, "destroy", "");
	destroy_popup(c, &child);
	destroy_popup(c, &p);
	destroy_window(c, &w);
	close_one(c);
}

/* ---- pointer constraints ------------------------------------------------- */

static void
test_pointer_constraints(void)
{
	struct conn *c = open_one();
	uint32_t pointer = new_seat_device(c, IVWL_REQ_WL_SEAT_GET_POINTER);
	uint32_t s = new_surface(c), lock = new_id(c), confine;

	PASS(c, req(c, CONSTRAINTS, LOCK_POINTER,
		    "nooou", lock, s, pointer, 0, 1));
	REFUSED(c, req(c, CONSTRAINTS,
		       IVWL_REQ_ZWP_POINTER_CONSTRAINTS_V1_CONFINE_POINTER,
		       "nooou", new_id(c), s, pointer, 0, 1),
		-EPROTO, "zwp_pointer_constraints_v1", CONSTRAINTS,
		"confine_pointer", "already_constrained");
	REFUSED(c, req(c, s, IVWL_REQ_WL_SURFACE_DESTROY, ""), -EPROTO,
		"wl_surface", s, "destroy", "pointer constraint");
	PASS(c, req(c, s, IVWL_REQ_WL_SURFACE_ATTACH, "oii", 0, 0, 0));
	REFUSED(c, req(c, s, IVWL_REQ_WL_SURFACE_COMMIT, ""), -EPROTO,
		"wl_surface", s, "commit", "unmaps a surface with a pointer "
		"constraint");
	PASS(c, req(c, lock, IVWL_REQ_ZWP_LOCKED_POINTER_V1_DESTROY, ""));
	PASS(c, req(c, s, IVWL_REQ_WL_SURFACE_COMMIT, ""));
	confine = new_id(c);
	PASS(c, req(c, CONSTRAINTS,
		    IVWL_REQ_ZWP_POINTER_CONSTRAINTS_V1_CONFINE_POINTER,
		    "nooou", confine, s, pointer, 0, 2));
	REFUSED(c, req(c, CONSTRAINTS,
		       IVWL_REQ_ZWP_POINTER_CONSTRAINTS_V1_LOCK_POINTER,
		       "nooou", new_id(c), s, pointer, 0, 1),
		-EPROTO, "zwp_pointer_constraints_v1", CONSTRAINTS,
		"lock_pointer", "already_constrained");
	PASS(c, req(c, confine, IVWL_REQ_ZWP_CONFINED_POINTER_V1_DESTROY, ""));
	PASS(c, req(c, s, IVWL_REQ_WL_SURFACE_DESTROY, ""));
	close_one(c);
}

/* ---- single values ------------------------------------------------------- */

static void
test_positioner_input(void)
{
	struct conn *c = open_one();
	uint32_t p = new_id(c);

	PASS(c, req(c, WM_BASE, IVWL_REQ_XDG_WM_BASE_CREATE_POSITIONER, "n",
		    p));
	REFUSED(c, req(c, p, IVWL_REQ_XDG_POSITIONER_SET_SIZE, "ii", 0, 5),
		-EPROTO, "xdg_positioner", p, "set_size", "invalid_input");
	REFUSED(c, req(c, p, IVWL_REQ_XDG_POSITIONER_SET_SIZE, "ii", 5, -1),
		-EPROTO, "xdg_positioner", p, "set_size", "invalid_input");
	PASS(c, req(c, p, IVWL_REQ_XDG_POSITIONER_SET_SIZE, "ii", 1, 1));
	REFUSED(c, req(c, p, IVWL_REQ_XDG_POSITIONER_SET_ANCHOR_RECT, "iiii",
		       0, 0, -1, 1),
		-EPROTO, "xdg_positioner", p, "set_anchor_rect",
		"invalid_input");
	REFUSED(c, req(c, p, IVWL_REQ_XDG_POSITIONER_SET_ANCHOR_RECT, "iiii",
		       0, 0, 1, -1),
		-EPROTO, "xdg_positioner", p, "set_anchor_rect",
		"invalid_input");
	PASS(c, req(c, p, IVWL_REQ_XDG_POSITIONER_SET_ANCHOR_RECT, "iiii", -5,
		    -5, 0, 0));
	REFUSED(c, req(c, p, IVWL_REQ_XDG_POSITIONER_SET_CONSTRAINT_ADJUSTMENT,
		       "u", 0x40),
		-EPROTO, "xdg_positioner", p, "set_constraint_adjustment",
		"64 is no value of xdg_positioner.constraint_adjustment");
	PASS(c, req(c, p, IVWL_REQ_XDG_POSITIONER_SET_CONSTRAINT_ADJUSTMENT,
		    "u", 0x3f));
	close_one(c);
}

static void
test_buffer_scale(void)
{
	struct conn *c = open_one();
	uint32_t s = new_surface(c);

	PASS(c, req(c, s, IVWL_REQ_WL_SURFACE_SET_BUFFER_SCALE, "i", 1));
	PASS(c, req(c, s, IVWL_REQ_WL_SURFACE_SET_BUFFER_SCALE, "i", 8));
	REFUSED(c, req(c, s, IVWL_REQ_WL_SURFACE_SET_BUFFER_SCALE, "i", 0),
		-EPROTO, "wl_surface", s, "set_buffer_scale", "not 1 to 8");
	REFUSED(c, req(c, s, IVWL_REQ_WL_SURFACE_SET_BUFFER_SCALE, "i", 9),
		-EPROTO, "wl_surface", s, "set_buffer_scale", "not 1 to 8");
	REFUSED(c, req(c, s, IVWL_REQ_WL_SURFACE_SET_BUFFER_SCALE, "i", -2),
		-EPROTO, "wl_surface", s, "set_buffer_scale", "not 1 to 8");
	close_one(c);
}

/* ---- data sources -------------------------------------------------------- */

static void
test_source_used_once(void)
{
	struct conn *c = open_one();
	uint32_t device = new_data_device(c), src = new_source(c), drag;
	uint32_t origin = new_surface(c), icon = new_surface(c), primary;
	uint32_t pdevice, psrc, other;

	PASS(c, req(c, src, IVWL_REQ_WL_DATA_SOURCE_OFFER, "s", "text/plain"));
	PASS(c, req(c, src, IVWL_REQ_WL_DATA_SOURCE_OFFER, "s", "UTF8_STRING"));
	PASS(c, req(c, src, IVWL_REQ_WL_DATA_SOURCE_OFFER, "s", "image/png"));
	PASS(c, req(c, device, IVWL_REQ_WL_DATA_DEVICE_SET_SELECTION, "ou",
		    src, 1));
	/* again through the same device, as GTK 3 does: one place still */
	PASS(c, req(c, device, IVWL_REQ_WL_DATA_DEVICE_SET_SELECTION, "ou",
		    src, 2));
	other = new_data_device(c);
	REFUSED(c, req(c, other, IVWL_REQ_WL_DATA_DEVICE_SET_SELECTION, "ou",
		       src, 2),
		-EPROTO, "wl_data_device", other, "set_selection",
		"used_source");
	REFUSED(c, req(c, device, IVWL_REQ_WL_DATA_DEVICE_START_DRAG, "ooou",
		       src, origin, icon, 2),
		-EPROTO, "wl_data_device", device, "start_drag",
		"used_source");
	PASS(c, req(c, device, IVWL_REQ_WL_DATA_DEVICE_SET_SELECTION, "ou", 0,
		    3));
	/* a drag takes its source too; its icon is not its origin */
	drag = new_source(c);
	REFUSED(c, req(c, device, IVWL_REQ_WL_DATA_DEVICE_START_DRAG, "ooou",
		       drag, origin, origin, 4),
		-EPROTO, "wl_data_device", device, "start_drag",
		"the drag icon is the origin");
	PASS(c, req(c, device, IVWL_REQ_WL_DATA_DEVICE_START_DRAG, "ooou",
		    drag, origin, icon, 4));
	REFUSED(c, req(c, device, IVWL_REQ_WL_DATA_DEVICE_SET_SELECTION, "ou",
		       drag, 5),
		-EPROTO, "wl_data_device", device, "set_selection",
		"used_source");
	/* the primary selection's */
	pdevice = new_id(c);
	psrc = new_id(c);
	PASS(c, req(c, PRIMARY_MANAGER,
		    IVWL_REQ_ZWP_PRIMARY_SELECTION_DEVICE_MANAGER_V1_GET_DEVICE,
		    "no", pdevice, SEAT));
	PASS(c, req(c, PRIMARY_MANAGER,
		    CREATE_PRIMARY,
		    "n", psrc));
	primary = IVWL_REQ_ZWP_PRIMARY_SELECTION_DEVICE_V1_SET_SELECTION;
	PASS(c, req(c, pdevice, primary, "ou", psrc, 6));
	PASS(c, req(c, pdevice, primary, "ou", psrc, 7));
	other = new_id(c);
	PASS(c, req(c, PRIMARY_MANAGER,
		    IVWL_REQ_ZWP_PRIMARY_SELECTION_DEVICE_MANAGER_V1_GET_DEVICE,
		    "no", other, SEAT));
	REFUSED(c, req(c, other, primary, "ou", psrc, 8), -EPROTO,
		"zwp_primary_selection_device_v1", other, "set_selection",
		"used_source");
	close_one(c);
}

static void
test_source_set_actions(void)
{
	struct conn *c = open_one();
	uint32_t device = new_data_device(c), src = new_source(c), late;

	PASS(c, req(c, src, IVWL_REQ_WL_DATA_SOURCE_SET_ACTIONS, "u", 1));
	REFUSED(c, req(c, src, IVWL_REQ_WL_DATA_SOURCE_SET_ACTIONS, "u", 2),
		-EPROTO, "wl_data_source", src, "set_actions",
		"actions set twice");
	late = new_source(c);
	PASS(c, req(c, device, IVWL_REQ_WL_DATA_DEVICE_SET_SELECTION, "ou",
		    late, 1));
	REFUSED(c, req(c, late, IVWL_REQ_WL_DATA_SOURCE_SET_ACTIONS, "u", 1),
		-EPROTO, "wl_data_source", late, "set_actions",
		"after the source was used");
	close_one(c);
}

static void
test_mime_length(void)
{
	struct conn *c = open_one();
	uint32_t src = new_source(c), psrc = new_id(c);
	char mime[257];

	memset(mime, 'a', 256);
	mime[256] = '\0';
	PASS(c, req(c, PRIMARY_MANAGER,
		    CREATE_PRIMARY,
		    "n", psrc));
	REFUSED(c, req(c, src, IVWL_REQ_WL_DATA_SOURCE_OFFER, "s", mime),
		-EPROTO, "wl_data_source", src, "offer",
		"a MIME type of 256 bytes (at most 255)");
	REFUSED(c, req(c, psrc, IVWL_REQ_ZWP_PRIMARY_SELECTION_SOURCE_V1_OFFER,
		       "s", mime),
		-EPROTO, "zwp_primary_selection_source_v1", psrc, "offer",
		"a MIME type of 256 bytes");
	mime[255] = '\0';
	PASS(c, req(c, src, IVWL_REQ_WL_DATA_SOURCE_OFFER, "s", mime));
	PASS(c, req(c, psrc, IVWL_REQ_ZWP_PRIMARY_SELECTION_SOURCE_V1_OFFER,
		    "s", mime));
	close_one(c);
}

/*
 * weston 10 keeps a destroyed viewport's source height, and asserts on
 * the surface's next commit when it is not whole: before such a destroy
 * the plugin sets a whole source, whatever unset came between.
 */
static void
test_viewport_fraction_destroy(void)
{
	struct conn *c = open_one();
	uint32_t s = new_surface(c), vp = new_id(c), whole, s2;
	const uint32_t half = 10 * 256 + 128;

	PASS(c, req(c, VIEWPORTER, IVWL_REQ_WP_VIEWPORTER_GET_VIEWPORT, "no",
		    vp, s));
	PASS(c, req(c, vp, IVWL_REQ_WP_VIEWPORT_SET_SOURCE, "ffff", 0, 0,
		    half, half));
	PASS(c, req(c, vp, IVWL_REQ_WP_VIEWPORT_SET_SOURCE, "ffff", -256,
		    -256, -256, -256));
	PASS(c, req(c, vp, IVWL_REQ_WP_VIEWPORT_DESTROY, ""));
	CHECK_EQ(c->sent_count, 2);
	CHECK_EQ(c->first_sent_opcode, IVWL_REQ_WP_VIEWPORT_SET_SOURCE);
	CHECK_EQ(c->last_sent_opcode, IVWL_REQ_WP_VIEWPORT_DESTROY);

	/* a whole height needs nothing */
	s2 = new_surface(c);
	whole = new_id(c);
	PASS(c, req(c, VIEWPORTER, IVWL_REQ_WP_VIEWPORTER_GET_VIEWPORT, "no",
		    whole, s2));
	PASS(c, req(c, whole, IVWL_REQ_WP_VIEWPORT_SET_SOURCE, "ffff", 0, 0,
		    half, 20 * 256));
	PASS(c, req(c, whole, IVWL_REQ_WP_VIEWPORT_DESTROY, ""));
	CHECK_EQ(c->sent_count, 1);
	close_one(c);
}

/* set_actions on a selection's offer, not a drag's (invalid_offer). */
static void
test_offer_set_actions(void)
{
	struct conn *c = open_one();
	uint32_t device = new_data_device(c), s = new_surface(c);
	/* server ids are dense from 0xff000000, on each connection */
	uint32_t selection = 0xff000000u, drag = 0xff000000u;

	event(c, device, IVWL_EVT_WL_DATA_DEVICE_DATA_OFFER, "n", selection);
	event(c, device, IVWL_EVT_WL_DATA_DEVICE_SELECTION, "o", selection);
	REFUSED(c, req(c, selection, IVWL_REQ_WL_DATA_OFFER_SET_ACTIONS, "uu",
		       1, 1),
		-EPROTO, "wl_data_offer", selection, "set_actions",
		"invalid_offer");
	close_one(c);

	c = open_one();
	device = new_data_device(c);
	s = new_surface(c);
	event(c, device, IVWL_EVT_WL_DATA_DEVICE_DATA_OFFER, "n", drag);
	event(c, device, IVWL_EVT_WL_DATA_DEVICE_ENTER, "uoffo", 7, s, 0, 0,
	      drag);
	PASS(c, req(c, drag, IVWL_REQ_WL_DATA_OFFER_SET_ACTIONS, "uu", 1, 1));
	PASS(c, req(c, drag, IVWL_REQ_WL_DATA_OFFER_DESTROY, ""));
	close_one(c);
}

/*
 * A new id that names a live object (found by the fuzzer): the map
 * refuses it only after the rules ran, and get_xdg_surface's rule freed
 * the live surface's model making room for the "new" object.
 */
static void
test_new_id_in_use(void)
{
	struct conn *c = open_one();
	uint32_t s = new_surface(c);

	REFUSED(c, req(c, WM_BASE, IVWL_REQ_XDG_WM_BASE_GET_XDG_SURFACE, "no",
		       s, s),
		-EPROTO, "xdg_wm_base", WM_BASE, "get_xdg_surface",
		"is in use");
	close_one(c);
}

/* A destination past any output overflowed weston's and the border's
 * geometry (found by the fuzzer, UBSan in label.c). */
static void
test_viewport_destination(void)
{
	struct conn *c = open_one();
	uint32_t s = new_surface(c), vp = new_id(c);

	PASS(c, req(c, VIEWPORTER, IVWL_REQ_WP_VIEWPORTER_GET_VIEWPORT, "no",
		    vp, s));
	PASS(c, req(c, vp, IVWL_REQ_WP_VIEWPORT_SET_DESTINATION, "ii", 640,
		    480));
	PASS(c, req(c, vp, IVWL_REQ_WP_VIEWPORT_SET_DESTINATION, "ii", -1,
		    -1));
	PASS(c, req(c, vp, IVWL_REQ_WP_VIEWPORT_SET_DESTINATION, "ii", 32768,
		    1));
	REFUSED(c, req(c, vp, IVWL_REQ_WP_VIEWPORT_SET_DESTINATION, "ii",
		       2147483647, 2147483647),
		-EPROTO, "wp_viewport", vp, "set_destination", "a destination");
	close_one(c);
}

/*
 * A monitor unplugged: its wl_output lives on in the client, weston 10
 * dereferences the missing head of it.  set_fullscreen on it goes to no
 * output in particular, get_xdg_output of it is refused.
 */
static void
test_output_unplugged(void)
{
	struct conn *c = open_one();
	struct window w = new_window(c);
	uint32_t plugged = new_id(c), gone, manager;

	PASS(c, req(c, REGISTRY, IVWL_REQ_WL_REGISTRY_BIND, "usun", 40,
		    "wl_output", 3, plugged));
	gone = new_id(c);
	PASS(c, req(c, REGISTRY, IVWL_REQ_WL_REGISTRY_BIND, "usun", 41,
		    "wl_output", 3, gone));
	manager = new_id(c);
	PASS(c, req(c, REGISTRY, IVWL_REQ_WL_REGISTRY_BIND, "usun", 42,
		    "zxdg_output_manager_v1", 3, manager));
	event(c, REGISTRY, IVWL_EVT_WL_REGISTRY_GLOBAL_REMOVE, "u", 41);

	/* either passes, served as maximize (test-trusted-path.c): weston
	 * never sees the output */
	PASS(c, req(c, w.top, IVWL_REQ_XDG_TOPLEVEL_SET_FULLSCREEN, "o",
		    plugged));
	CHECK_EQ(c->last_sent_opcode, IVWL_REQ_XDG_TOPLEVEL_SET_MAXIMIZED);
	PASS(c, req(c, w.top, IVWL_REQ_XDG_TOPLEVEL_SET_FULLSCREEN, "o",
		    gone));
	CHECK_EQ(c->last_sent_opcode, IVWL_REQ_XDG_TOPLEVEL_SET_MAXIMIZED);
	PASS(c, req(c, manager, IVWL_REQ_ZXDG_OUTPUT_MANAGER_V1_GET_XDG_OUTPUT,
		    "no", new_id(c), plugged));
	REFUSED(c, req(c, manager,
		       IVWL_REQ_ZXDG_OUTPUT_MANAGER_V1_GET_XDG_OUTPUT, "no",
		       new_id(c), gone),
		-EPROTO, "zxdg_output_manager_v1", manager, "get_xdg_output",
		"monitor is gone");
	close_one(c);
}

/* The surface whose view the fake weston has on no output (0: none). */
static uint32_t off_surface;

static bool
fake_off_output(void *data, uint32_t surface)
{
	(void)data;
	return surface == off_surface;
}

/*
 * Sends a request with one new id or object and two objects; on weston
 * 16 it must first be held at the barrier (its rule asks weston), then
 * pass; elsewhere pass at once.  Returns the adjustment injected before
 * it for positioner, or -1 for none.
 */
static int64_t
settled_req(struct conn *c, int major, uint32_t object, uint32_t opcode,
	    const char *sig, uint32_t a, uint32_t b, uint32_t d,
	    uint32_t positioner)
{
	if (major >= 16) {
		CHECK_EQ(req(c, object, opcode, sig, a, b, d), -EBUSY);
		c->c.barrier = IVWL_BARRIER_PASSED;
	}
	PASS(c, req(c, object, opcode, sig, a, b, d));
	if (c->c.firewall.inject_len == 0)
		return -1;
	CHECK_EQ(c->c.firewall.inject_len, 12u);
	CHECK_EQ(injected(c, 0), positioner);
	CHECK_EQ(injected(c, 1), 12u << 16 |
		 IVWL_REQ_XDG_POSITIONER_SET_CONSTRAINT_ADJUSTMENT);
	return injected(c, 2);
}

/*
 * weston 16 constrains a popup by the outputs of its parent's views and
 * dereferences a view's output unasked: on a parent unmapped or off
 * every output weston gets the positioner without adjustment, and the
 * client's bits back for the next popup on a placed parent.  weston 14
 * constrains nothing and is not asked.
 */
static void
test_popup_constraint_off_output(void)
{
	static const int majors[] = { 14, 16 };
	size_t i;

	for (i = 0; i < 2; i++) {
		int m = majors[i];
		struct conn *c = open_on(m);
		struct window w = new_window(c);
		struct popup p;
		uint32_t pos, s, xdg, id, far;

		c->c.firewall.off_output = fake_off_output;
		PASS(c, req(c, w.surface, IVWL_REQ_WL_SURFACE_COMMIT, ""));
		p = new_popup(c, w.xdg, false);
		PASS(c, req(c, p.surface, IVWL_REQ_WL_SURFACE_COMMIT, ""));
		pos = new_positioner(c);
		PASS(c, req(c, pos,
			    IVWL_REQ_XDG_POSITIONER_SET_CONSTRAINT_ADJUSTMENT,
			    "u", 5));

		/* on the popup whose view is off every output: 0 */
		off_surface = p.surface;
		s = new_surface(c);
		xdg = new_xdg_surface(c, s);
		far = new_id(c);
		CHECK_EQ(settled_req(c, m, xdg, IVWL_REQ_XDG_SURFACE_GET_POPUP,
				     "noo", far, p.xdg, pos, pos),
			 m >= 16 ? 0 : -1);
		/* on the toplevel, placed: the client's 5 again, once */
		off_surface = 0;
		s = new_surface(c);
		xdg = new_xdg_surface(c, s);
		id = new_id(c);
		CHECK_EQ(settled_req(c, m, xdg, IVWL_REQ_XDG_SURFACE_GET_POPUP,
				     "noo", id, w.xdg, pos, pos),
			 m >= 16 ? 5 : -1);
		s = new_surface(c);
		xdg = new_xdg_surface(c, s);
		CHECK_EQ(settled_req(c, m, xdg, IVWL_REQ_XDG_SURFACE_GET_POPUP,
				     "noo", new_id(c), w.xdg, pos, pos), -1);
		/* reposition: by the parent's views as well */
		off_surface = p.surface;
		CHECK_EQ(settled_req(c, m, far, IVWL_REQ_XDG_POPUP_REPOSITION,
				     "ou", pos, 1, 0, pos),
			 m >= 16 ? 0 : -1);
		/* a positioner without adjustment is never held */
		PASS(c, req(c, pos,
			    IVWL_REQ_XDG_POSITIONER_SET_CONSTRAINT_ADJUSTMENT,
			    "u", 0));
		PASS(c, req(c, far, IVWL_REQ_XDG_POPUP_REPOSITION, "ou", pos,
			    2));
		CHECK_EQ(c->c.firewall.inject_len, 0u);
		off_surface = 0;
		close_one(c);
	}
}

IVWL_TEST_MAIN(
	TEST(test_object_args_live_and_typed),
	TEST(test_enum_args),
	TEST(test_inert_role_object),
	TEST(test_inert_after_id_reuse),
	TEST(test_role_once),
	TEST(test_role_again),
	TEST(test_subsurface_tree),
	TEST(test_subsurface_place),
	TEST(test_subsurface_orphan_position),
	TEST(test_xdg_constructed_once),
	TEST(test_xdg_needs_role_object),
	TEST(test_xdg_destroy_order),
	TEST(test_wm_base_destroy),
	TEST(test_window_maps_paced),
	TEST(test_toplevel_set_parent),
	TEST(test_toplevel_set_parent_uncommitted),
	TEST(test_viewport_fraction_destroy),
	TEST(test_offer_set_actions),
	TEST(test_new_id_in_use),
	TEST(test_viewport_destination),
	TEST(test_output_unplugged),
	TEST(test_popup_parent_and_positioner),
	TEST(test_popup_depth),
	TEST(test_popup_grab),
	TEST(test_popup_first_commit),
	TEST(test_held_toplevel),
	TEST(test_popup_on_committed_parent),
	TEST(test_popup_destroy_order),
	TEST(test_popup_constraint_off_output),
	TEST(test_pointer_constraints),
	TEST(test_positioner_input),
	TEST(test_buffer_scale),
	TEST(test_source_used_once),
	TEST(test_source_set_actions),
	TEST(test_mime_length),
)
