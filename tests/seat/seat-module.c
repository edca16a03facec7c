/* SPDX-License-Identifier: MIT */
/*
 * ivwl-test-seat.so: input the tests drive for sure.  A weston module of
 * the tests (never installed) that gives weston a seat with a pointer,
 * a keyboard and a touch screen when its backend has none (headless),
 * or takes the backend's seat (x11), and feeds it what a test asks on a
 * control socket, one line each, at output coordinates:
 *
 *   move X Y               the pointer to X,Y (absolute, global)
 *   button 1|2|3 down|up   left, middle, right
 *   key down|up NAME       one key by its keysym name (super, shift,
 *                          ctrl, alt and the keymap's own names)
 *   text C                 one UTF-8 character, with shift if the
 *                          keymap needs it for C
 *   touch down|motion|up ID X Y
 *   where                  answers "ok X Y", the pointer's position
 *
 * Each line is answered "ok ..." once weston has taken the event, or
 * "error WHY".  The socket is [ivwl-test-seat] socket=PATH of weston.ini.
 * Nothing about weston's pointer depends on where some other pointer
 * was: a test that moves first clicks where it moved.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <linux/input-event-codes.h>
#include <xkbcommon/xkbcommon.h>

#include "weston-compat.h"
#include "seat-weston.h"

#define IVWL_SEAT_LINE_MAX 512

struct ivwl_test_seat {
	struct weston_compositor *compositor;
	struct weston_seat *seat;	/* the backend's or own_seat */
	struct weston_seat own_seat;
	bool own;
	struct weston_touch_device *touch_device;
	int listen_fd;
	char *path;
	struct wl_event_source *listen_source;
	struct wl_list controls;	/* ivwl_seat_control.link */
	struct wl_listener destroy;
};

/* One test's connection to the socket. */
struct ivwl_seat_control {
	struct ivwl_test_seat *ts;
	struct wl_list link;
	int fd;
	struct wl_event_source *source;
	char buf[IVWL_SEAT_LINE_MAX];
	size_t len;
};

/* ---- keys ------------------------------------------------------------ */

static xkb_keysym_t
keysym_named(const char *name)
{
	static const struct {
		const char *alias, *name;
	} aliases[] = {
		{ "super", "Super_L" },	 { "shift", "Shift_L" },
		{ "ctrl", "Control_L" }, { "control", "Control_L" },
		{ "alt", "Alt_L" },	 { "enter", "Return" },
		{ "esc", "Escape" },
	};
	xkb_keysym_t sym;
	size_t i;

	for (i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (strcasecmp(name, aliases[i].alias) == 0)
			name = aliases[i].name;
	sym = xkb_keysym_from_name(name, XKB_KEYSYM_NO_FLAGS);
	if (sym == XKB_KEY_NoSymbol)
		sym = xkb_keysym_from_name(name, XKB_KEYSYM_CASE_INSENSITIVE);
	return sym;
}

/*
 * The evdev key that gives sym in the first layout, and the shift level
 * it needs (0 or 1); -1 when no key of the keymap gives it there.
 */
static int
key_for(struct xkb_keymap *keymap, xkb_keysym_t sym, int *level)
{
	xkb_keycode_t kc;
	int lv;

	for (lv = 0; lv < 2; lv++) {
		for (kc = xkb_keymap_min_keycode(keymap);
		     kc <= xkb_keymap_max_keycode(keymap); kc++) {
			const xkb_keysym_t *syms;
			int n;

			if ((xkb_level_index_t)lv >=
			    xkb_keymap_num_levels_for_key(keymap, kc, 0))
				continue;
			n = xkb_keymap_key_get_syms_by_level(keymap, kc, 0, lv,
							     &syms);
			if (n == 1 && syms[0] == sym) {
				*level = lv;
				return (int)kc - 8;
			}
		}
	}
	return -1;
}

static struct xkb_keymap *
seat_keymap(struct ivwl_test_seat *ts)
{
	struct weston_keyboard *kb = weston_seat_get_keyboard(ts->seat);

	return kb && kb->xkb_info ? kb->xkb_info->keymap : NULL;
}

static void
press(struct ivwl_test_seat *ts, int key, bool down)
{
	struct timespec t;

	weston_compositor_get_time(&t);
	ivwl_seat_key(ts->seat, &t, (uint32_t)key,
		      down ? WL_KEYBOARD_KEY_STATE_PRESSED :
			     WL_KEYBOARD_KEY_STATE_RELEASED);
}

static const char *
do_key(struct ivwl_test_seat *ts, const char *state, const char *name)
{
	struct xkb_keymap *keymap = seat_keymap(ts);
	xkb_keysym_t sym;
	int key, level;

	if (!keymap)
		return "the seat has no keyboard";
	if (strcmp(state, "down") != 0 && strcmp(state, "up") != 0)
		return "key wants down or up";
	sym = keysym_named(name);
	if (sym == XKB_KEY_NoSymbol)
		return "no such key name";
	key = key_for(keymap, sym, &level);
	if (key < 0)
		return "no key of the keymap gives that";
	press(ts, key, strcmp(state, "down") == 0);
	return NULL;
}

/* One character of UTF-8 text, typed as a user types it. */
static const char *
do_text(struct ivwl_test_seat *ts, const char *text)
{
	struct xkb_keymap *keymap = seat_keymap(ts);
	uint32_t cp;
	xkb_keysym_t sym;
	int key, level, shift = -1, shift_level;
	unsigned char c = (unsigned char)text[0];

	if (!keymap)
		return "the seat has no keyboard";
	if (c < 0x80) {
		cp = c;
	} else if ((c & 0xe0) == 0xc0 && text[1]) {
		cp = ((c & 0x1fu) << 6) | (text[1] & 0x3fu);
	} else if ((c & 0xf0) == 0xe0 && text[1] && text[2]) {
		cp = ((c & 0x0fu) << 12) | ((text[1] & 0x3fu) << 6) |
		     (text[2] & 0x3fu);
	} else {
		return "text wants one UTF-8 character";
	}
	sym = cp == '\n' ? XKB_KEY_Return : xkb_utf32_to_keysym(cp);
	key = key_for(keymap, sym, &level);
	if (key < 0)
		return "no key of the keymap types that character";
	if (level == 1) {
		shift = key_for(keymap, XKB_KEY_Shift_L, &shift_level);
		if (shift < 0)
			return "the keymap has no shift key";
		press(ts, shift, true);
	}
	press(ts, key, true);
	press(ts, key, false);
	if (shift >= 0)
		press(ts, shift, false);
	return NULL;
}

/* ---- pointer and touch ----------------------------------------------- */

static const char *
do_move(struct ivwl_test_seat *ts, double x, double y)
{
	struct timespec t;

	if (!weston_seat_get_pointer(ts->seat))
		return "the seat has no pointer";
	weston_compositor_get_time(&t);
	ivwl_seat_motion_absolute(ts->seat, &t, x, y);
	notify_pointer_frame(ts->seat);
	return NULL;
}

static const char *
do_button(struct ivwl_test_seat *ts, int which, const char *state)
{
	static const int buttons[] = { BTN_LEFT, BTN_MIDDLE, BTN_RIGHT };
	struct timespec t;

	if (!weston_seat_get_pointer(ts->seat))
		return "the seat has no pointer";
	if (which < 1 || which > 3)
		return "button wants 1, 2 or 3";
	if (strcmp(state, "down") != 0 && strcmp(state, "up") != 0)
		return "button wants down or up";
	weston_compositor_get_time(&t);
	ivwl_seat_button(ts->seat, &t, (uint32_t)buttons[which - 1],
			 strcmp(state, "down") == 0 ?
				 WL_POINTER_BUTTON_STATE_PRESSED :
				 WL_POINTER_BUTTON_STATE_RELEASED);
	notify_pointer_frame(ts->seat);
	return NULL;
}

static const char *
do_touch(struct ivwl_test_seat *ts, const char *state, int id, double x,
	 double y)
{
	struct timespec t;
	int type;

	if (!ts->touch_device)
		return "the seat has no touch screen of this module's";
	if (strcmp(state, "down") == 0)
		type = WL_TOUCH_DOWN;
	else if (strcmp(state, "motion") == 0)
		type = WL_TOUCH_MOTION;
	else if (strcmp(state, "up") == 0)
		type = WL_TOUCH_UP;
	else
		return "touch wants down, motion or up";
	weston_compositor_get_time(&t);
	ivwl_seat_touch(ts->touch_device, &t, id, x, y, type);
	notify_touch_frame(ts->touch_device);
	return NULL;
}

/* ---- the control socket ---------------------------------------------- */

static void
reply(struct ivwl_seat_control *ctl, const char *line)
{
	size_t len = strlen(line);

	/* a test reads every answer: a short write means it left */
	if (send(ctl->fd, line, len, MSG_NOSIGNAL) != (ssize_t)len)
		weston_log("ivwl-test-seat: a test left before its answer\n");
}

static const char *
run_line(struct ivwl_test_seat *ts, char *line, char *answer, size_t size)
{
	char word[16], arg[64];
	double x, y;
	int n, id;

	if (sscanf(line, "move %lf %lf", &x, &y) == 2)
		return do_move(ts, x, y);
	if (sscanf(line, "button %d %15s", &n, word) == 2)
		return do_button(ts, n, word);
	if (sscanf(line, "key %15s %63s", word, arg) == 2)
		return do_key(ts, word, arg);
	if (strncmp(line, "text ", 5) == 0)
		return do_text(ts, line + 5);
	if (sscanf(line, "touch %15s %d %lf %lf", word, &id, &x, &y) == 4)
		return do_touch(ts, word, id, x, y);
	if (strcmp(line, "where") == 0) {
		struct weston_pointer *p = weston_seat_get_pointer(ts->seat);
		double px, py;

		if (!p)
			return "the seat has no pointer";
		ivwl_seat_pointer_pos(p, &px, &py);
		snprintf(answer, size, "ok %.0f %.0f\n", px, py);
		return NULL;
	}
	return "unknown command";
}

static void
control_destroy(struct ivwl_seat_control *ctl)
{
	wl_event_source_remove(ctl->source);
	wl_list_remove(&ctl->link);
	close(ctl->fd);
	free(ctl);
}

static int
on_control_data(int fd, uint32_t mask, void *data)
{
	struct ivwl_seat_control *ctl = data;
	char *nl;
	ssize_t n;

	n = read(fd, ctl->buf + ctl->len, sizeof(ctl->buf) - 1 - ctl->len);
	if (n <= 0) {
		control_destroy(ctl);
		return 0;
	}
	ctl->len += (size_t)n;
	ctl->buf[ctl->len] = '\0';
	while ((nl = strchr(ctl->buf, '\n'))) {
		char answer[64] = "ok\n", out[160];
		const char *why;

		*nl = '\0';
		why = run_line(ctl->ts, ctl->buf, answer, sizeof(answer));
		if (why) {
			snprintf(out, sizeof(out), "error %s\n", why);
			weston_log("ivwl-test-seat: \"%.60s\": %s\n", ctl->buf,
				   why);
		}
		reply(ctl, why ? out : answer);
		ctl->len -= (size_t)(nl + 1 - ctl->buf);
		memmove(ctl->buf, nl + 1, ctl->len + 1);
	}
	if (ctl->len == sizeof(ctl->buf) - 1) {
		reply(ctl, "error line too long\n");
		control_destroy(ctl);
	}
	return 0;
}

static int
on_control_connect(int fd, uint32_t mask, void *data)
{
	struct ivwl_test_seat *ts = data;
	struct ivwl_seat_control *ctl;
	struct wl_event_loop *loop;
	int cfd;

	cfd = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
	if (cfd < 0)
		return 0;
	ctl = calloc(1, sizeof(*ctl));
	if (!ctl)
		goto err_close;
	loop = wl_display_get_event_loop(ts->compositor->wl_display);
	ctl->source = wl_event_loop_add_fd(loop, cfd, WL_EVENT_READABLE,
					   on_control_data, ctl);
	if (!ctl->source)
		goto err_free;
	ctl->ts = ts;
	ctl->fd = cfd;
	wl_list_insert(&ts->controls, &ctl->link);
	return 0;

err_free:
	free(ctl);
err_close:
	close(cfd);
	return 0;
}

static int
listen_on(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(addr.sun_path))
		return -1;
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	unlink(path);
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    listen(fd, 4) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* ---- the seat -------------------------------------------------------- */

static int
seat_make(struct ivwl_test_seat *ts)
{
	struct weston_seat *seat;

	/* a backend with a seat of its own (x11): drive that one */
	wl_list_for_each(seat, &ts->compositor->seat_list, link)
	{
		ts->seat = seat;
		return 0;
	}
	weston_seat_init(&ts->own_seat, ts->compositor, "ivwl-test");
	ts->own = true;
	ts->seat = &ts->own_seat;
	weston_seat_init_pointer(ts->seat);
	if (weston_seat_init_keyboard(ts->seat, NULL) < 0)
		return -1;
	weston_seat_init_touch(ts->seat);
	ts->touch_device = ivwl_seat_touch_device(ts->seat->touch_state);
	return ts->touch_device ? 0 : -1;
}

static void
on_compositor_destroy(struct wl_listener *listener, void *data)
{
	struct ivwl_test_seat *ts = wl_container_of(listener, ts, destroy);
	struct ivwl_seat_control *ctl, *tmp;

	wl_list_for_each_safe(ctl, tmp, &ts->controls, link)
		control_destroy(ctl);
	wl_event_source_remove(ts->listen_source);
	close(ts->listen_fd);
	unlink(ts->path);
	free(ts->path);
	wl_list_remove(&ts->destroy.link);
	if (ts->touch_device)
		weston_touch_device_destroy(ts->touch_device);
	if (ts->own)
		weston_seat_release(&ts->own_seat);
	free(ts);
}

WL_EXPORT int
wet_module_init(struct weston_compositor *compositor, int *argc, char *argv[])
{
	struct weston_config_section *section;
	struct wl_event_loop *loop;
	struct ivwl_test_seat *ts;

	ts = calloc(1, sizeof(*ts));
	if (!ts)
		return -1;
	ts->compositor = compositor;
	wl_list_init(&ts->controls);
	section = weston_config_get_section(wet_get_config(compositor),
					    "ivwl-test-seat", NULL, NULL);
	weston_config_section_get_string(section, "socket", &ts->path, NULL);
	if (!ts->path) {
		weston_log("ivwl-test-seat: no socket= in [ivwl-test-seat]\n");
		goto err_free;
	}
	if (seat_make(ts) < 0) {
		weston_log("ivwl-test-seat: cannot make a seat\n");
		goto err_seat;
	}
	ts->listen_fd = listen_on(ts->path);
	if (ts->listen_fd < 0) {
		weston_log("ivwl-test-seat: cannot listen on %s: %s\n",
			   ts->path, strerror(errno));
		goto err_seat;
	}
	loop = wl_display_get_event_loop(compositor->wl_display);
	ts->listen_source =
		wl_event_loop_add_fd(loop, ts->listen_fd, WL_EVENT_READABLE,
				     on_control_connect, ts);
	if (!ts->listen_source)
		goto err_listen;
	ts->destroy.notify = on_compositor_destroy;
	wl_signal_add(&compositor->destroy_signal, &ts->destroy);
	weston_log("ivwl-test-seat: seat %s driven from %s\n",
		   ts->seat->seat_name, ts->path);
	return 0;

err_listen:
	close(ts->listen_fd);
err_seat:
	if (ts->touch_device)
		weston_touch_device_destroy(ts->touch_device);
	if (ts->own)
		weston_seat_release(&ts->own_seat);
err_free:
	free(ts->path);
	free(ts);
	return -1;
}
