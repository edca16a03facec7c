/* SPDX-License-Identifier: MIT */
/*
 * What the plugin's request and event paths do for the trusted path
 * (docs/security.md, "Trusted path"): keyboard focus that weston gave
 * and took back is never passed on, popup grabs get the serial the
 * plugin's trust hook decides, input serials are kept for it, a VM's
 * fullscreen is a maximize, and a cursor or drag icon is committed
 * right after it is set.
 */
#include <string.h>

#include "fw-fixture.h"
#include "harness.h"


static bool
enter_passed(struct conn *c, uint32_t kb, uint32_t serial, uint32_t surface)
{
	return event_passed(c, kb, IVWL_EVT_WL_KEYBOARD_ENTER, "uoa", serial,
			    surface, &(struct ivwl_wire_array){ NULL, 8 });
}

static bool
leave_passed(struct conn *c, uint32_t kb, uint32_t serial, uint32_t surface)
{
	return event_passed(c, kb, IVWL_EVT_WL_KEYBOARD_LEAVE, "uo", serial,
			    surface);
}

static void
test_taken_back_focus_is_muted(void)
{
	struct conn *c = open_one();
	struct window w = new_window(c);
	uint32_t kb = new_seat_device(c, IVWL_REQ_WL_SEAT_GET_KEYBOARD);

	ivwl_translate_mute_keyboard(&c->c, 100, 101);
	CHECK(!enter_passed(c, kb, 100, w.surface));
	CHECK(!event_passed(c, kb, IVWL_EVT_WL_KEYBOARD_MODIFIERS, "uuuuu",
			    100, 0, 0, 0, 0));
	CHECK(!leave_passed(c, kb, 101, w.surface));
	/* a focus the user gave comes through, and ends the range */
	CHECK(enter_passed(c, kb, 105, w.surface));
	CHECK_EQ(c->c.nmuted, 0);
	CHECK(event_passed(c, kb, IVWL_EVT_WL_KEYBOARD_KEY, "uuuu", 106, 0,
			   30, 1));
	CHECK(leave_passed(c, kb, 107, w.surface));
	close_one(c);
}

static void
test_muted_serials_wrap(void)
{
	struct conn *c = open_one();
	struct window w = new_window(c);
	uint32_t kb = new_seat_device(c, IVWL_REQ_WL_SEAT_GET_KEYBOARD);

	ivwl_translate_mute_keyboard(&c->c, 0xffffffffu, 0);
	CHECK(!enter_passed(c, kb, 0xffffffffu, w.surface));
	CHECK(!leave_passed(c, kb, 0, w.surface));
	CHECK(enter_passed(c, kb, 1, w.surface));
	close_one(c);
}

/* More refusals than ranges before weston's events come: none leaks. */
static void
test_muted_ranges_full(void)
{
	struct conn *c = open_one();
	struct window w = new_window(c);
	uint32_t kb = new_seat_device(c, IVWL_REQ_WL_SEAT_GET_KEYBOARD);
	uint32_t i, muted = 0, n = IVWL_CONN_MUTED_RANGES * 3;

	for (i = 0; i < n; i++)
		ivwl_translate_mute_keyboard(&c->c, 1000 + 2 * i,
					     1001 + 2 * i);
	CHECK_EQ(c->c.nmuted, IVWL_CONN_MUTED_RANGES);
	for (i = 0; i < n; i++) {
		muted += !enter_passed(c, kb, 1000 + 2 * i, w.surface);
		muted += !leave_passed(c, kb, 1001 + 2 * i, w.surface);
	}
	CHECK_EQ(muted, 2 * n);
	CHECK(enter_passed(c, kb, 1000 + 2 * n, w.surface));
	close_one(c);
}

static void
test_input_serials_kept(void)
{
	struct conn *c = open_one();
	uint32_t ptr = new_seat_device(c, IVWL_REQ_WL_SEAT_GET_POINTER);
	uint32_t kb = new_seat_device(c, IVWL_REQ_WL_SEAT_GET_KEYBOARD);
	uint32_t i;

	CHECK(!ivwl_translate_input_serial(&c->c, 0));
	CHECK(event_passed(c, ptr, IVWL_EVT_WL_POINTER_BUTTON, "uuuu", 42, 0,
			   0x110, 1));
	CHECK(ivwl_translate_input_serial(&c->c, 42));
	CHECK(!ivwl_translate_input_serial(&c->c, 41));
	/* pointer motion has no serial to keep */
	CHECK(event_passed(c, ptr, IVWL_EVT_WL_POINTER_MOTION, "uii", 0, 0,
			   0));
	CHECK(!ivwl_translate_input_serial(&c->c, 0));
	/* the last few only */
	for (i = 0; i < IVWL_CONN_INPUT_SERIALS; i++)
		CHECK(event_passed(c, kb, IVWL_EVT_WL_KEYBOARD_KEY, "uuuu",
				   50 + i, 0, 30, 1));
	CHECK(!ivwl_translate_input_serial(&c->c, 42));
	CHECK(ivwl_translate_input_serial(&c->c, 50));
	/* and when the last went */
	CHECK(ivwl_translate_input_age_ms(&c->c) < 1000);
	close_one(c);
	c = open_one();
	CHECK(ivwl_translate_input_age_ms(&c->c) == UINT64_MAX);
	close_one(c);
}

static uint32_t asked_serial;

static uint32_t
decide(void *data, struct ivwl_connection *conn, uint32_t serial)
{
	asked_serial = serial;
	return *(uint32_t *)data;
}

static void
test_popup_grab_serial_decided(void)
{
	struct conn *c = open_one();
	struct window w = new_window(c);
	uint32_t verdict = 7;
	struct ivwl_trust_ops ops = { .popup_grab_serial = decide,
				      .data = &verdict };
	struct ivwl_plugin plugin;
	struct popup p;

	memset(&plugin, 0, sizeof(plugin));
	plugin.trust = &ops;
	one_vm->plugin = &plugin;
	p = new_popup(c, w.xdg, false);
	PASS(c, req(c, p.popup, IVWL_REQ_XDG_POPUP_GRAB, "ou", SEAT, 1234));
	CHECK_EQ(asked_serial, 1234);
	CHECK_EQ(c->last_sent_opcode, IVWL_REQ_XDG_POPUP_GRAB);
	CHECK_EQ(c->last_sent_arg1, 7);
	one_vm->plugin = NULL;
	close_one(c);
}

static void
test_fullscreen_is_maximize(void)
{
	struct conn *c = open_one();
	struct window w = new_window(c);

	PASS(c, req(c, w.top, IVWL_REQ_XDG_TOPLEVEL_SET_FULLSCREEN, "o", 0));
	CHECK_EQ(c->sent_count, 1);
	CHECK_EQ(c->last_sent_object, w.top);
	CHECK_EQ(c->last_sent_opcode, IVWL_REQ_XDG_TOPLEVEL_SET_MAXIMIZED);
	PASS(c, req(c, w.top, IVWL_REQ_XDG_TOPLEVEL_UNSET_FULLSCREEN, ""));
	CHECK_EQ(c->sent_count, 1);
	CHECK_EQ(c->last_sent_opcode, IVWL_REQ_XDG_TOPLEVEL_UNSET_MAXIMIZED);
	close_one(c);
}

static bool granted;
static int fullscreen_asked;

static bool
grant(void *data, struct ivwl_connection *conn)
{
	fullscreen_asked++;
	return granted;
}

/* With the trusted path's yes, fullscreen goes as such and its unset
 * too; with its no, both as maximize; a destroyed toplevel is
 * forgotten. */
static void
test_fullscreen_when_granted(void)
{
	struct conn *c = open_one();
	struct window w = new_window(c), w2 = new_window(c);
	struct ivwl_trust_ops ops = { .fullscreen = grant };
	struct ivwl_plugin plugin;

	memset(&plugin, 0, sizeof(plugin));
	plugin.trust = &ops;
	one_vm->plugin = &plugin;
	granted = true;
	PASS(c, req(c, w.top, IVWL_REQ_XDG_TOPLEVEL_SET_FULLSCREEN, "o", 0));
	CHECK_EQ(fullscreen_asked, 1);
	CHECK_EQ(c->last_sent_opcode, IVWL_REQ_XDG_TOPLEVEL_SET_FULLSCREEN);
	granted = false;
	PASS(c, req(c, w2.top, IVWL_REQ_XDG_TOPLEVEL_SET_FULLSCREEN, "o", 0));
	CHECK_EQ(c->last_sent_opcode, IVWL_REQ_XDG_TOPLEVEL_SET_MAXIMIZED);
	/* each undone as weston had it */
	PASS(c, req(c, w.top, IVWL_REQ_XDG_TOPLEVEL_UNSET_FULLSCREEN, ""));
	CHECK_EQ(c->last_sent_opcode, IVWL_REQ_XDG_TOPLEVEL_UNSET_FULLSCREEN);
	PASS(c, req(c, w2.top, IVWL_REQ_XDG_TOPLEVEL_UNSET_FULLSCREEN, ""));
	CHECK_EQ(c->last_sent_opcode, IVWL_REQ_XDG_TOPLEVEL_UNSET_MAXIMIZED);
	/* once unset, a second unset is a maximize's */
	PASS(c, req(c, w.top, IVWL_REQ_XDG_TOPLEVEL_UNSET_FULLSCREEN, ""));
	CHECK_EQ(c->last_sent_opcode, IVWL_REQ_XDG_TOPLEVEL_UNSET_MAXIMIZED);
	/* granted, then refused: the refusal's unset is a maximize's */
	granted = true;
	PASS(c, req(c, w.top, IVWL_REQ_XDG_TOPLEVEL_SET_FULLSCREEN, "o", 0));
	granted = false;
	PASS(c, req(c, w.top, IVWL_REQ_XDG_TOPLEVEL_SET_FULLSCREEN, "o", 0));
	CHECK_EQ(c->last_sent_opcode, IVWL_REQ_XDG_TOPLEVEL_SET_MAXIMIZED);
	PASS(c, req(c, w.top, IVWL_REQ_XDG_TOPLEVEL_UNSET_FULLSCREEN, ""));
	CHECK_EQ(c->last_sent_opcode, IVWL_REQ_XDG_TOPLEVEL_UNSET_MAXIMIZED);
	/* destroyed while fullscreen: forgotten */
	granted = true;
	PASS(c, req(c, w2.top, IVWL_REQ_XDG_TOPLEVEL_SET_FULLSCREEN, "o", 0));
	CHECK_EQ(c->c.fullscreen[0] == w2.top || c->c.fullscreen[1] == w2.top,
		 1);
	PASS(c, req(c, w2.top, IVWL_REQ_XDG_TOPLEVEL_DESTROY, ""));
	CHECK_EQ(c->c.fullscreen[0] == w2.top || c->c.fullscreen[1] == w2.top,
		 0);
	one_vm->plugin = NULL;
	close_one(c);
}

static void
test_cursor_committed_when_set(void)
{
	struct conn *c = open_one();
	uint32_t ptr = new_seat_device(c, IVWL_REQ_WL_SEAT_GET_POINTER);
	uint32_t cursor = new_surface(c);

	PASS(c, req(c, ptr, IVWL_REQ_WL_POINTER_SET_CURSOR, "uoii", 1,
		    cursor, 0, 0));
	CHECK_EQ(c->sent_count, 2);
	CHECK_EQ(c->first_sent_opcode, IVWL_REQ_WL_POINTER_SET_CURSOR);
	CHECK_EQ(c->last_sent_object, cursor);
	CHECK_EQ(c->last_sent_opcode, IVWL_REQ_WL_SURFACE_COMMIT);
	/* hiding the cursor commits nothing */
	PASS(c, req(c, ptr, IVWL_REQ_WL_POINTER_SET_CURSOR, "uoii", 2, 0, 0,
		    0));
	CHECK_EQ(c->sent_count, 1);
	close_one(c);
}

IVWL_TEST_MAIN(
	TEST(test_taken_back_focus_is_muted),
	TEST(test_muted_serials_wrap),
	TEST(test_muted_ranges_full),
	TEST(test_input_serials_kept),
	TEST(test_popup_grab_serial_decided),
	TEST(test_fullscreen_is_maximize),
	TEST(test_fullscreen_when_granted),
	TEST(test_cursor_committed_when_set),
)
