/* SPDX-License-Identifier: MIT */
/*
 * The part of libweston a seat backend uses: libweston exports it but
 * installs no header for it (weston's own backends and test module
 * include its private backend.h).  Declared here as weston 10 (bookworm),
 * weston 14 (trixie) and weston 16 (sid) define it, with the differences
 * bridged: 14 passes positions as weston_coord_global; 16 passes each
 * input as one event (libweston.h's weston_*_event, its time and seat
 * in it) and has no notify_motion_absolute() (read off libweston-16's
 * exported code: each takes the event's seat from its base).
 */
#ifndef IVWL_TEST_SEAT_WESTON_H
#define IVWL_TEST_SEAT_WESTON_H

#include <time.h>
#include "weston-compat.h"

void
weston_seat_init(struct weston_seat *seat, struct weston_compositor *ec,
		 const char *seat_name);
void
weston_seat_release(struct weston_seat *seat);
int
weston_seat_init_pointer(struct weston_seat *seat);
int
weston_seat_init_keyboard(struct weston_seat *seat, struct xkb_keymap *keymap);
int
weston_seat_init_touch(struct weston_seat *seat);
void
weston_touch_device_destroy(struct weston_touch_device *device);

void
notify_pointer_frame(struct weston_seat *seat);
void
notify_touch_frame(struct weston_touch_device *device);

#ifdef IVWL_WESTON_16
void
notify_button(const struct weston_pointer_button_event *event);
void
notify_key(const struct weston_key_event *event);
void
notify_motion(const struct weston_pointer_motion_event *event);
void
notify_touch_normalized(const struct weston_touch_event *event,
			const struct weston_point2d_device_normalized *norm);
struct weston_touch_device *
weston_touch_create_touch_device(struct weston_touch *touch,
				 const char *syspath, void *backend_data,
				 const struct weston_touch_device_ops *ops,
				 void *set_output);
#else
void
notify_button(struct weston_seat *seat, const struct timespec *time,
	      int32_t button, enum wl_pointer_button_state state);
void
notify_key(struct weston_seat *seat, const struct timespec *time, uint32_t key,
	   enum wl_keyboard_key_state state,
	   enum weston_key_state_update update_state);
#endif

#if defined(IVWL_WESTON_16)
#elif defined(IVWL_WESTON_14)
void
notify_motion_absolute(struct weston_seat *seat, const struct timespec *time,
		       struct weston_coord_global pos);
void
notify_touch_normalized(struct weston_touch_device *device,
			const struct timespec *time, int touch_id,
			const struct weston_coord_global *pos,
			const struct weston_point2d_device_normalized *norm,
			int touch_type);
/*
 * Later westons added a last argument (an output setter, NULL here);
 * a weston that takes four ignores it.
 */
struct weston_touch_device *
weston_touch_create_touch_device(struct weston_touch *touch,
				 const char *syspath, void *backend_data,
				 const struct weston_touch_device_ops *ops,
				 void *set_output);
#else
void
notify_motion_absolute(struct weston_seat *seat, const struct timespec *time,
		       double x, double y);
void
notify_touch_normalized(struct weston_touch_device *device,
			const struct timespec *time, int touch_id, double x,
			double y,
			const struct weston_point2d_device_normalized *norm,
			int touch_type);
struct weston_touch_device *
weston_touch_create_touch_device(struct weston_touch *touch,
				 const char *syspath, void *backend_data,
				 const struct weston_touch_device_ops *ops);
#endif

static inline void
ivwl_seat_button(struct weston_seat *seat, const struct timespec *t,
		 uint32_t button, enum wl_pointer_button_state state)
{
#ifdef IVWL_WESTON_16
	struct weston_pointer_button_event ev = {
		.base = { .ts = *t, .seat = seat },
		.button = button,
		.button_state = state,
	};

	notify_button(&ev);
#else
	notify_button(seat, t, (int32_t)button, state);
#endif
}

static inline void
ivwl_seat_key(struct weston_seat *seat, const struct timespec *t,
	      uint32_t key, enum wl_keyboard_key_state state)
{
#ifdef IVWL_WESTON_16
	struct weston_key_event ev = {
		.base = { .ts = *t, .seat = seat },
		.key = key,
		.key_state = state,
		.key_update_state = STATE_UPDATE_AUTOMATIC,
	};

	notify_key(&ev);
#else
	notify_key(seat, t, key, state, STATE_UPDATE_AUTOMATIC);
#endif
}

static inline void
ivwl_seat_motion_absolute(struct weston_seat *seat, const struct timespec *t,
			  double x, double y)
{
#if defined(IVWL_WESTON_16)
	struct weston_pointer_motion_event ev = {
		.base = { .ts = *t, .seat = seat },
		.mask = WESTON_POINTER_MOTION_ABS,
		.abs = { .c = { .x = x, .y = y } },
	};

	notify_motion(&ev);
#elif defined(IVWL_WESTON_14)
	struct weston_coord_global pos = { .c = { .x = x, .y = y } };

	notify_motion_absolute(seat, t, pos);
#else
	notify_motion_absolute(seat, t, x, y);
#endif
}

static inline void
ivwl_seat_touch(struct weston_touch_device *device, const struct timespec *t,
		int id, double x, double y, int type)
{
#if defined(IVWL_WESTON_16)
	struct weston_touch_event ev = {
		.base = { .ts = *t, .seat = device->aggregate->seat },
		.device = device,
		.touch_type = type,
		.touch_id = id,
		.pos = { .c = { .x = x, .y = y } },
	};

	notify_touch_normalized(&ev, NULL);
#elif defined(IVWL_WESTON_14)
	struct weston_coord_global pos = { .c = { .x = x, .y = y } };

	/* weston 14 asserts that a finger lifted has no position */
	notify_touch_normalized(device, t, id,
				type == WL_TOUCH_UP ? NULL : &pos, NULL, type);
#else
	notify_touch_normalized(device, t, id, x, y, NULL, type);
#endif
}

static inline struct weston_touch_device *
ivwl_seat_touch_device(struct weston_touch *touch)
{
#ifdef IVWL_WESTON_14
	return weston_touch_create_touch_device(touch, "/ivwl/test-touch", NULL,
						NULL, NULL);
#else
	return weston_touch_create_touch_device(touch, "/ivwl/test-touch", NULL,
						NULL);
#endif
}

static inline void
ivwl_seat_pointer_pos(const struct weston_pointer *p, double *x, double *y)
{
#ifdef IVWL_WESTON_14
	*x = p->pos.c.x;
	*y = p->pos.c.y;
#else
	*x = wl_fixed_to_double(p->x);
	*y = wl_fixed_to_double(p->y);
#endif
}

#endif
