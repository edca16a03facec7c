/* SPDX-License-Identifier: MIT */
/*
 * The trusted path's keyboard: what the user types goes only to the
 * window they chose.
 *
 * weston's desktop-shell gives the keyboard to every window that maps,
 * so a VM that maps a window every few hundred milliseconds would read
 * what the user types into another VM's window.  Here every seat's
 * keyboard focus is watched, and a move to a VM's window stands only
 *  - when the VM already holds the keyboard (its dialogs, its own
 *    windows), or nobody holds it nor did (a desktop just started; not
 *    after weston restarted), or, handed on as the window that had it
 *    goes, it had it until a local window took it unasked, or
 *  - when the user asked for it: a button held or a touch down on a
 *    window of that VM, or a keyboard grab of the shell's (the window
 *    switcher), not libweston's (a key binding's key held, a VM's popup
 *    grab).
 * Any other move is undone inside weston's own focus signal, before an
 * input event can follow it; the enter and leave weston sent meanwhile
 * are held back from the VM (they carry the keys held down at that
 * moment), and the window is marked as asking for attention.  Which VM
 * holds the keyboard changes only by the user, so a VM that maps,
 * activates or fullscreens in a loop gets nothing.  A window refused so
 * as it maps goes right below the window with the keyboard, not over
 * it: no VM covers what the user is typing into or watching.
 *
 * The pointer's image is a VM's too while the pointer is over its
 * window: a cursor image shows only over what shows of that VM's window
 * (not under the windows, frames and panel stacked above it), at most
 * CURSOR_MAX square, and a drag icon as well, within ICON_MAX / 2 of the
 * pointer, so that neither can cover the panel or another VM's window.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libweston/libweston.h>
#include "weston-compat.h"

#include "connection.h"
#include "focus.h"
#include "ivwl-limits.h"
#include "ivwl-plugin.h"
#include "vm.h"
#include "window.h"

/* Sides of a VM's cursor image and drag icon, in surface coordinates. */
#define CURSOR_MAX 64
#define ICON_MAX 128

struct ivwl_focus_seat {
	struct ivwl_focus *focus;
	struct wl_list link;			/* ivwl_focus.seats */
	struct weston_seat *seat;
	struct weston_keyboard *keyboard;	/* listened to, or NULL */
	struct weston_pointer *pointer;		/* listened to, or NULL */
	struct wl_listener caps;
	struct wl_listener motion;
	struct wl_listener pointer_focus;
	struct wl_listener seat_destroy;
	struct wl_listener key_focus;
	/* The VM the user gave the keyboard to; NULL: the desktop's. */
	struct ivwl_vm *owner;
	/* The focus let stand last, to go back to. */
	struct weston_surface *granted;
	/* weston restarted and the user has not chosen a window since */
	bool restart_unchosen;
	/* the VM that had it when a local window took it unasked */
	struct ivwl_vm *before_local;
	/* the window with the keyboard went: the shell hands it on now */
	bool reverting;
	struct wl_event_source *revert_idle;
	struct wl_listener granted_destroy;
	bool undoing;
	uint64_t refusals;
	/* the holder last announced (holder_signal) */
	bool announced;
	struct ivwl_vm *announced_vm;
};

struct ivwl_focus {
	struct ivwl_plugin *plugin;
	struct wl_list seats;			/* ivwl_focus_seat.link */
	struct wl_listener seat_created;
	struct ivwl_trust_ops ops;
	struct wl_signal holder_signal;		/* ivwl_focus_holder */
	struct wl_listener image;	/* windows': a cursor image came */
	struct wl_listener mapped;	/* windows': a toplevel mapped */
	bool restarted;		/* weston ran before in this session */
};

static struct ivwl_vm *
surface_vm(struct ivwl_focus *focus, struct weston_surface *surface)
{
	if (!surface || !surface->resource)
		return NULL;
	return ivwl_vm_from_client(focus->plugin,
				   wl_resource_get_client(surface->resource));
}

/* Tells the listeners who has the keyboard now, if that changed. */
static void
holder_announce(struct ivwl_focus_seat *fs)
{
	struct ivwl_focus_holder holder = {
		.seat = fs->seat,
		.vm = surface_vm(fs->focus, fs->granted),
	};

	if (fs->announced && holder.vm == fs->announced_vm)
		return;
	fs->announced = true;
	fs->announced_vm = holder.vm;
	wl_signal_emit(&fs->focus->holder_signal, &holder);
}

static void
granted_set(struct ivwl_focus_seat *fs, struct weston_surface *surface)
{
	if (fs->granted)
		wl_list_remove(&fs->granted_destroy.link);
	fs->granted = surface;
	if (surface)
		wl_signal_add(&surface->destroy_signal, &fs->granted_destroy);
	holder_announce(fs);
}

static void
on_granted_destroy(struct wl_listener *listener, void *data)
{
	struct ivwl_focus_seat *fs =
		wl_container_of(listener, fs, granted_destroy);

	wl_list_remove(&fs->granted_destroy.link);
	fs->granted = NULL;
	holder_announce(fs);
}

/* The VM whose window view is, or whose window's title bar (bar.c). */
static struct ivwl_vm *
view_vm(struct ivwl_focus *focus, struct weston_view *view)
{
	struct ivwl_vm *vm = surface_vm(focus, view->surface);
	struct ivwl_window *w;

	if (!vm && (w = ivwl_window_of_bar(view)))
		vm = w->vm;
	return vm;
}

/*
 * The user's own action on a window of vm: a button held on it (or on
 * its title bar) or a finger on it, while the seat is in no grab but
 * weston's own, which a popup of some VM would be.
 */
static bool
pressed_on(struct ivwl_focus *focus, struct weston_seat *seat,
	   struct ivwl_vm *vm)
{
	struct weston_pointer *pointer = weston_seat_get_pointer(seat);
	struct weston_touch *touch = weston_seat_get_touch(seat);

	if (pointer && pointer->button_count > 0 && pointer->focus &&
	    pointer->grab == &pointer->default_grab &&
	    view_vm(focus, pointer->focus) == vm)
		return true;
	return touch && touch->num_tp > 0 && touch->focus &&
	       touch->grab == &touch->default_grab &&
	       surface_vm(focus, touch->focus->surface) == vm;
}

/* Whether code at p is libweston's own, libweston-desktop's or this
 * module's (X-ray's grab). */
static bool
in_libweston(const void *p)
{
	Dl_info at, core, desktop, ours;

	if (!dladdr(p, &at) ||
	    !dladdr((const void *)weston_keyboard_set_focus, &core) ||
	    !dladdr((const void *)weston_desktop_surface_get_maximized,
		    &desktop) ||
	    !dladdr((const void *)ivwl_focus_create, &ours))
		return true;	/* unknown: not the shell's */
	return at.dli_fbase == core.dli_fbase ||
	       at.dli_fbase == desktop.dli_fbase ||
	       at.dli_fbase == ours.dli_fbase;
}

/*
 * A shell binding holds the keyboard (the window switcher, picking
 * with the keyboard): a keyboard grab of the shell's own.  libweston's
 * and ivwl.so's (X-ray) are not: the grab it holds while any key binding's key is down (a
 * VM mapping then would take the keyboard for good) and a VM's popup
 * grab, which takes the pointer as well.
 */
static bool
shell_keyboard_grab(struct weston_seat *seat, struct weston_keyboard *keyboard)
{
	struct weston_pointer *pointer = weston_seat_get_pointer(seat);

	return keyboard->grab != &keyboard->default_grab &&
	       !in_libweston(keyboard->grab->interface) &&
	       (!pointer || pointer->grab == &pointer->default_grab);
}

static struct ivwl_connection *
surface_connection(struct ivwl_vm *vm, struct weston_surface *to)
{
	return ivwl_vm_connection(vm, wl_resource_get_client(to->resource));
}

/* ---- where a refused window maps --------------------------------- */

/* The view in a layer of surface's main surface, or NULL. */
static struct weston_view *
layer_view(struct weston_surface *surface)
{
	struct weston_view *v;

	wl_list_for_each(v, &weston_surface_get_main_surface(surface)->views,
			 surface_link)
		if (weston_view_is_mapped(v) && v->layer_link.layer)
			return v;
	return NULL;
}

/* Whether view is stacked below top in top's layer. */
static bool
stacked_below(struct weston_view *view, struct weston_view *top)
{
	struct weston_layer_entry *e = &top->layer_link;

	if (view->layer_link.layer != e->layer)
		return false;
	while (e->link.next != &e->layer->view_list.link) {
		e = wl_container_of(e->link.next, e, link);
		if (e == &view->layer_link)
			return true;
	}
	return false;
}

/*
 * Puts w, which the shell just raised to the top of its layer, right
 * below the window with the keyboard of some seat, when that is in the
 * same layer and under it.  Its frame follows it (label.c restacks the
 * strips once the window's change is told).
 */
static void
lower_below_holder(struct ivwl_focus *focus, struct ivwl_window *w)
{
	struct weston_layer_entry *bottom;
	struct ivwl_focus_seat *fs;
	struct weston_view *holder;

	wl_list_for_each(fs, &focus->seats, link) {
		holder = fs->granted ? layer_view(fs->granted) : NULL;
		if (!holder || holder == w->view ||
		    !stacked_below(holder, w->view))
			continue;
		/* below its frame's backdrop too */
		bottom = ivwl_view_stack_bottom(holder, NULL, NULL);
		ivwl_view_stack_below(w->view, bottom);
		weston_view_geometry_dirty(w->view);
		weston_view_schedule_repaint(w->view);
		return;
	}
}

/*
 * A VM's toplevel was mapped, and the shell raised it.  If it was kept
 * from taking the keyboard as it mapped (it asks for attention), it
 * goes below the window the user has: they see its attention bar where
 * it shows, and the window they use stays whole.
 */
static void
on_window_mapped(struct wl_listener *listener, void *data)
{
	struct ivwl_focus *focus = wl_container_of(listener, focus, mapped);
	struct ivwl_window *w = data;

	if (w->attention && w->view)
		lower_below_holder(focus, w);
}

/* Shows or hides the attention bar of to's window. */
static void
attention_set(struct weston_surface *to, bool on)
{
	struct ivwl_window *w =
		ivwl_window_from_surface(weston_surface_get_main_surface(to));

	if (w)
		ivwl_window_attention(w, on);
}

/*
 * Undoes a VM window's taking of the keyboard.  attention: mark the
 * window as asking for it (not for a window that only came back after
 * a restart).
 */
static void
refuse(struct ivwl_focus_seat *fs, struct weston_surface *to,
       struct ivwl_vm *vm, bool attention)
{
	struct weston_keyboard *keyboard = fs->keyboard;
	struct wl_display *display = fs->focus->plugin->display;
	struct ivwl_connection *conn;
	uint32_t enter, leave;

	/* weston_keyboard_set_focus() sent the enter with focus_serial; the
	 * leave below takes the next serial. */
	enter = keyboard->focus_serial;
	leave = wl_display_get_serial(display) + 1;
	fs->undoing = true;
	weston_keyboard_set_focus(keyboard, fs->granted);
	fs->undoing = false;
	conn = surface_connection(vm, to);
	if (conn)
		ivwl_translate_mute_keyboard(&conn->xl, enter, leave);
	if (!attention)
		return;
	attention_set(to, true);
	/* one line for the first, then one per power of two */
	fs->refusals++;
	if ((fs->refusals & (fs->refusals - 1)) == 0)
		ivwl_log("[%s] kept from taking the keyboard: the user did not "
			 "choose its window (%llu times so far)", vm->name,
			 (unsigned long long)fs->refusals);
}

/* The VM says to's connection was replayed here after a restart. */
static bool
came_back(struct ivwl_vm *vm, struct weston_surface *to)
{
	struct ivwl_connection *conn = surface_connection(vm, to);

	return conn && ivwl_connection_restored(conn);
}

/*
 * Whether some view of window shows on an output: a window moved wholly
 * off the screen (an attach offset moves a VM's window anywhere) shows
 * no frame to tell whose it is.
 */
static bool
on_screen(struct weston_compositor *ec, struct weston_surface *window)
{
	struct weston_output *o;
	struct weston_view *v;
	pixman_region32_t seen;
	bool shows = false;

	pixman_region32_init(&seen);
	wl_list_for_each(v, &window->views, surface_link) {
		if (!v->is_mapped)
			continue;
		if (v->transform.dirty)
			weston_view_update_transform(v);
		wl_list_for_each(o, &ec->output_list, link) {
			pixman_region32_intersect(&seen,
						  &v->transform.boundingbox,
						  &o->region);
			shows = shows || pixman_region32_not_empty(&seen);
		}
	}
	pixman_region32_fini(&seen);
	return shows;
}

static void
on_revert_done(void *data)
{
	struct ivwl_focus_seat *fs = data;

	fs->revert_idle = NULL;
	fs->reverting = false;
}

/*
 * Whether a window of vm, which does not hold the keyboard, may take it
 * without the user: the first window of a new desktop (nobody holds it
 * nor did; not after weston restarted, until the user chooses), or,
 * when the window that had it went and the shell hands it on, only the
 * VM that had it before a local window took it unasked (wl-paste's,
 * a local dialog): never the next VM window in the stack.
 */
static bool
may_take(const struct ivwl_focus_seat *fs, const struct ivwl_vm *vm)
{
	if (fs->reverting)
		return !fs->owner && vm == fs->before_local;
	return !fs->granted && !fs->owner && !fs->restart_unchosen;
}

static void
on_key_focus(struct wl_listener *listener, void *data)
{
	struct ivwl_focus_seat *fs = wl_container_of(listener, fs, key_focus);
	struct weston_keyboard *keyboard = data;
	struct weston_surface *to = keyboard->focus;
	struct ivwl_vm *vm;
	bool user;

	if (fs->undoing || to == fs->granted)
		return;
	if (!to) {
		/* no focus: whoever had the keyboard keeps the right to it;
		 * if its window went, the shell hands it on right away */
		granted_set(fs, NULL);
		fs->reverting = true;
		if (!fs->revert_idle)
			fs->revert_idle = wl_event_loop_add_idle(
				wl_display_get_event_loop(
					fs->focus->plugin->display),
				on_revert_done, fs);
		return;
	}
	vm = surface_vm(fs->focus, to);
	/* a window of a connection that came back after a restart: the
	 * user has not chosen its VM on this weston, whoever held the
	 * keyboard on the last; nor does it ask for attention (a new
	 * window of it later neither, until the user gives one of its
	 * windows the keyboard) */
	if (vm && vm != fs->owner && came_back(vm, to) &&
	    !pressed_on(fs->focus, fs->seat, vm) &&
	    !shell_keyboard_grab(fs->seat, keyboard)) {
		refuse(fs, to, vm, false);
		return;
	}
	/* a window of another VM that does not show, which the window
	 * switcher offers as any other: not until the user sees it */
	if (vm && vm != fs->owner &&
	    shell_keyboard_grab(fs->seat, keyboard) &&
	    !on_screen(fs->focus->plugin->compositor,
		       weston_surface_get_main_surface(to))) {
		refuse(fs, to, vm, true);
		return;
	}
	user = pressed_on(fs->focus, fs->seat, vm) ||
	       shell_keyboard_grab(fs->seat, keyboard);
	if (vm && vm != fs->owner && !user && !may_take(fs, vm)) {
		fs->reverting = false;
		refuse(fs, to, vm, true);
		return;
	}
	fs->reverting = false;
	if (user)
		fs->restart_unchosen = false;
	if (vm || user)
		fs->before_local = NULL;
	else if (fs->owner)
		fs->before_local = fs->owner;
	fs->owner = vm;
	granted_set(fs, to);
	if (!vm)
		return;
	attention_set(to, false);
	/* the user has chosen it on this weston: its rules are the usual */
	if (came_back(vm, to))
		ivwl_connection_forget_restored(surface_connection(vm, to));
}

/* ---- the pointer's image ---------------------------------------- */

static int64_t
max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

static int64_t
min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* A rectangle of global coordinates, x1 <= x < x2, y1 <= y < y2. */
struct rect {
	int64_t x1, y1, x2, y2;
};

static int64_t
rect_area(const struct rect *r)
{
	return r->x2 > r->x1 && r->y2 > r->y1 ?
		       (r->x2 - r->x1) * (r->y2 - r->y1) : 0;
}

/* Whether view is window or hangs from it (its subsurfaces, popups and
 * frame). */
static bool
of_window(struct weston_view *view, struct weston_view *window)
{
	for (; view; view = view->geometry.parent)
		if (view == window)
			return true;
	return false;
}

/*
 * Cuts r so that box e, which does not hold the anchor ax, ay, is no
 * longer in it: of the cuts that keep the anchor, the one that keeps
 * the most of r.
 */
static void
rect_cut(struct rect *r, const pixman_box32_t *e, int64_t ax, int64_t ay)
{
	struct rect cut[4], best = { 0 };
	int i;

	for (i = 0; i < 4; i++)
		cut[i] = *r;
	if (e->x2 <= ax)
		cut[0].x1 = max64(r->x1, e->x2);
	if (e->x1 > ax)
		cut[1].x2 = min64(r->x2, e->x1);
	if (e->y2 <= ay)
		cut[2].y1 = max64(r->y1, e->y2);
	if (e->y1 > ay)
		cut[3].y2 = min64(r->y2, e->y1);
	for (i = 0; i < 4; i++) {
		bool changed = memcmp(&cut[i], r, sizeof(*r)) != 0;

		if (changed && rect_area(&cut[i]) > rect_area(&best))
			best = cut[i];
	}
	*r = best;
}

/*
 * The mapped views of ec's layers, top down, the cursor layer left out,
 * until fn(view, data) says stop or the walk reaches until: the view it
 * stopped at, or NULL.
 */
static struct weston_view *
views_top_down(struct weston_compositor *ec, struct weston_view *until,
	       bool (*fn)(struct weston_view *v, void *data), void *data)
{
	struct weston_layer *layer;
	struct weston_view *v;

	wl_list_for_each(layer, &ec->layer_list, link) {
		if (layer == &ec->cursor_layer)
			continue;
		wl_list_for_each(v, &layer->view_list.link, layer_link.link) {
			if (v == until)
				return NULL;
			if (v->surface->is_mapped && fn(v, data))
				return v;
		}
	}
	return NULL;
}

static bool
box_holds(const pixman_box32_t *e, int64_t x, int64_t y)
{
	return x >= e->x1 && x < e->x2 && y >= e->y1 && y < e->y2;
}

struct visible {
	struct weston_view *window;
	int64_t ax, ay;
	struct rect *r;
};

/* Cuts v off the visible part; stops once nothing is left of it. */
static bool
cut_by(struct weston_view *v, void *data)
{
	struct visible *vis = data;
	struct rect *r = vis->r;
	const pixman_box32_t *e;

	if (of_window(v, vis->window))
		return false;
	e = pixman_region32_extents(&v->transform.boundingbox);
	if (e->x2 <= r->x1 || e->x1 >= r->x2 || e->y2 <= r->y1 ||
	    e->y1 >= r->y2)
		return false;
	if (box_holds(e, vis->ax, vis->ay))
		*r = (struct rect){ 0 };
	else
		rect_cut(r, e, vis->ax, vis->ay);
	return !rect_area(r);
}

/*
 * What shows of window around the anchor ax, ay (a point of it no view
 * above covers): r, which starts as the window's box less the frame
 * weston may draw inside its edges (label.c), cut by every view stacked
 * above the window that is not its own: other windows and their
 * frames, the panel, the keyboard indicator.
 */
static void
visible_part(struct weston_compositor *ec, struct weston_view *window,
	     int64_t ax, int64_t ay, struct rect *r)
{
	struct visible vis = { window, ax, ay, r };

	views_top_down(ec, window, cut_by, &vis);
}

static bool
holds_point(struct weston_view *v, void *data)
{
	const int64_t *xy = data;

	return box_holds(pixman_region32_extents(&v->transform.boundingbox),
			 xy[0], xy[1]);
}

/* The window (top view) at global x, y, of any client, or NULL. */
static struct weston_view *
window_at(struct weston_compositor *ec, int64_t x, int64_t y)
{
	int64_t xy[2] = { x, y };
	struct weston_view *v = views_top_down(ec, NULL, holds_point, xy);

	while (v && v->geometry.parent)
		v = v->geometry.parent;
	return v;
}

/*
 * Clips image, a cursor or drag icon of vm, to what shows of vm's window
 * under the pointer at px, py and to bound: nothing of it over anything
 * else (another window above, the panel, another VM's window).
 */
static void
clip_image(struct ivwl_focus *focus, struct weston_view *image,
	   struct ivwl_vm *vm, struct weston_view *over, float px, float py,
	   const struct rect *bound)
{
	struct weston_compositor *ec = focus->plugin->compositor;
	const pixman_box32_t *box;
	struct rect r;
	float ix, iy;
	int64_t ax = (int64_t)px, ay = (int64_t)py;

	/* the VM's hotspot or offset puts the image anywhere: far off is
	 * nowhere */
	ivwl_view_pos(image, &ix, &iy);
	if (!over || surface_vm(focus, over->surface) != vm ||
	    !(ix > -1e9f && ix < 1e9f && iy > -1e9f && iy < 1e9f)) {
		ivwl_view_clip(image, 0, 0, 0, 0);
		return;
	}
	while (over->geometry.parent)
		over = over->geometry.parent;
	box = pixman_region32_extents(&over->transform.boundingbox);
	r.x1 = max64(bound->x1, (int64_t)box->x1 + IVWL_WINDOW_BORDER);
	r.y1 = max64(bound->y1, (int64_t)box->y1 + IVWL_WINDOW_BORDER);
	r.x2 = min64(bound->x2, (int64_t)box->x2 - IVWL_WINDOW_BORDER);
	r.y2 = min64(bound->y2, (int64_t)box->y2 - IVWL_WINDOW_BORDER);
	if (rect_area(&r))
		visible_part(ec, over, ax, ay, &r);
	if (!rect_area(&r)) {
		ivwl_view_clip(image, 0, 0, 0, 0);
		return;
	}
	ivwl_view_clip(image, (int32_t)(r.x1 - (int64_t)ix),
		       (int32_t)(r.y1 - (int64_t)iy), (int32_t)(r.x2 - r.x1),
		       (int32_t)(r.y2 - r.y1));
}

/*
 * The cursor image of a VM: CURSOR_MAX square from its corner, and no
 * more of it than shows of the window of that VM under the pointer.
 */
static void
clip_sprite(struct ivwl_focus *focus, struct weston_pointer *pointer,
	    struct ivwl_vm *vm)
{
	struct rect bound;
	float px, py, ix, iy;

	ivwl_pointer_pos(pointer, &px, &py);
	ivwl_view_pos(pointer->sprite, &ix, &iy);
	bound = (struct rect){ (int64_t)ix, (int64_t)iy,
			       (int64_t)ix + CURSOR_MAX,
			       (int64_t)iy + CURSOR_MAX };
	clip_image(focus, pointer->sprite, vm, pointer->focus, px, py, &bound);
}

/*
 * A drag icon of a VM: within ICON_MAX / 2 of the pointer, wherever the
 * VM offsets it, and only over what shows of that VM's window under the
 * pointer (a drag over another VM's window shows no icon).  A drag has
 * no pointer focus of weston's: the window is the one under the pointer.
 */
static void
clip_icon(struct ivwl_focus *focus, struct weston_view *icon,
	  struct ivwl_vm *vm)
{
	struct ivwl_focus_seat *fs;
	struct rect bound;
	float px, py;

	wl_list_for_each(fs, &focus->seats, link)
		if (fs->pointer)
			break;
	if (&fs->link == &focus->seats) {
		ivwl_view_clip(icon, 0, 0, 0, 0);
		return;
	}
	ivwl_pointer_pos(fs->pointer, &px, &py);
	bound = (struct rect){ (int64_t)px - ICON_MAX / 2,
			       (int64_t)py - ICON_MAX / 2,
			       (int64_t)px + ICON_MAX / 2,
			       (int64_t)py + ICON_MAX / 2 };
	clip_image(focus, icon, vm,
		   window_at(focus->plugin->compositor, (int64_t)px,
			     (int64_t)py),
		   px, py, &bound);
}

/* Every VM image in the cursor layer: cursors and drag icons. */
static void
bound_images(struct ivwl_focus *focus)
{
	struct weston_compositor *ec = focus->plugin->compositor;
	struct weston_view *view;
	struct ivwl_focus_seat *fs;
	struct ivwl_vm *vm;

	wl_list_for_each(view, &ec->cursor_layer.view_list.link,
			 layer_link.link) {
		vm = surface_vm(focus, view->surface);
		if (!vm || view->geometry.parent)
			continue;
		wl_list_for_each(fs, &focus->seats, link)
			if (fs->pointer && fs->pointer->sprite == view)
				break;
		if (&fs->link != &focus->seats)
			clip_sprite(focus, fs->pointer, vm);
		else
			clip_icon(focus, view, vm);
	}
}

static void
on_motion(struct wl_listener *listener, void *data)
{
	struct ivwl_focus_seat *fs = wl_container_of(listener, fs, motion);

	bound_images(fs->focus);
}

static void
on_pointer_focus(struct wl_listener *listener, void *data)
{
	struct ivwl_focus_seat *fs =
		wl_container_of(listener, fs, pointer_focus);

	bound_images(fs->focus);
}

/* A VM's cursor image or drag icon was committed: bound it. */
static void
on_image(struct wl_listener *listener, void *data)
{
	struct ivwl_focus *focus = wl_container_of(listener, focus, image);

	bound_images(focus);
}

/* ---- seats ----------------------------------------------------------- */

static void
pointer_watch(struct ivwl_focus_seat *fs)
{
	struct weston_pointer *pointer = weston_seat_get_pointer(fs->seat);

	if (!pointer || pointer == fs->pointer)
		return;
	if (fs->pointer) {
		wl_list_remove(&fs->motion.link);
		wl_list_remove(&fs->pointer_focus.link);
	}
	fs->pointer = pointer;
	fs->motion.notify = on_motion;
	wl_signal_add(&pointer->motion_signal, &fs->motion);
	fs->pointer_focus.notify = on_pointer_focus;
	wl_signal_add(&pointer->focus_signal, &fs->pointer_focus);
}

static void
keyboard_watch(struct ivwl_focus_seat *fs)
{
	struct weston_keyboard *keyboard = weston_seat_get_keyboard(fs->seat);

	if (!keyboard || keyboard == fs->keyboard)
		return;
	if (fs->keyboard)
		wl_list_remove(&fs->key_focus.link);
	fs->keyboard = keyboard;
	fs->key_focus.notify = on_key_focus;
	wl_signal_add(&keyboard->focus_signal, &fs->key_focus);
	/* what it has now was not ours to judge */
	fs->owner = surface_vm(fs->focus, keyboard->focus);
	granted_set(fs, keyboard->focus);
}

static void
on_caps(struct wl_listener *listener, void *data)
{
	struct ivwl_focus_seat *fs = wl_container_of(listener, fs, caps);

	keyboard_watch(fs);
	pointer_watch(fs);
}

static void
seat_forget(struct ivwl_focus_seat *fs)
{
	granted_set(fs, NULL);
	if (fs->revert_idle)
		wl_event_source_remove(fs->revert_idle);
	if (fs->keyboard)
		wl_list_remove(&fs->key_focus.link);
	if (fs->pointer) {
		wl_list_remove(&fs->motion.link);
		wl_list_remove(&fs->pointer_focus.link);
	}
	wl_list_remove(&fs->caps.link);
	wl_list_remove(&fs->seat_destroy.link);
	wl_list_remove(&fs->link);
	free(fs);
}

static void
on_seat_destroy(struct wl_listener *listener, void *data)
{
	struct ivwl_focus_seat *fs =
		wl_container_of(listener, fs, seat_destroy);

	seat_forget(fs);
}

static void
seat_add(struct ivwl_focus *focus, struct weston_seat *seat)
{
	struct ivwl_focus_seat *fs = calloc(1, sizeof(*fs));

	if (!fs) {
		ivwl_log("out of memory: the keyboard of seat %s is not "
			 "guarded", seat->seat_name);
		return;
	}
	fs->focus = focus;
	fs->seat = seat;
	fs->restart_unchosen = focus->restarted;
	fs->granted_destroy.notify = on_granted_destroy;
	fs->caps.notify = on_caps;
	wl_signal_add(&seat->updated_caps_signal, &fs->caps);
	fs->seat_destroy.notify = on_seat_destroy;
	wl_signal_add(&seat->destroy_signal, &fs->seat_destroy);
	wl_list_insert(&focus->seats, &fs->link);
	keyboard_watch(fs);
	pointer_watch(fs);
}

static void
on_seat_created(struct wl_listener *listener, void *data)
{
	struct ivwl_focus *focus =
		wl_container_of(listener, focus, seat_created);

	seat_add(focus, data);
}

/* Whether the user gave the keyboard of some seat to vm. */
static bool
held_by(const struct ivwl_focus *focus, const struct ivwl_vm *vm)
{
	const struct ivwl_focus_seat *fs;

	wl_list_for_each(fs, &focus->seats, link)
		if (fs->owner == vm && fs->granted)
			return true;
	return false;
}

/*
 * A popup grab takes every click on the desktop until it ends: only
 * the VM holding the keyboard may start one, and only with the serial
 * of an input event weston sent it.  Otherwise weston gets a serial
 * no input event has, refuses the grab and dismisses the popup.
 */
static uint32_t
popup_grab_serial(void *data, struct ivwl_connection *conn, uint32_t serial)
{
	struct ivwl_focus *focus = data;
	struct ivwl_focus_seat *fs;
	uint32_t bad = 0;
	bool moved = true;

	if (held_by(focus, conn->vm) &&
	    ivwl_translate_input_serial(&conn->xl, serial))
		return serial;
	/* the smallest serial that is no seat's last input */
	while (moved) {
		moved = false;
		wl_list_for_each(fs, &focus->seats, link) {
			struct weston_pointer *p =
				weston_seat_get_pointer(fs->seat);
			struct weston_touch *t =
				weston_seat_get_touch(fs->seat);

			if ((fs->keyboard && fs->keyboard->grab_serial == bad) ||
			    (p && p->grab_serial == bad) ||
			    (t && t->grab_serial == bad)) {
				bad++;
				moved = true;
			}
		}
	}
	return bad;
}

/*
 * A VM's window goes over the whole output, above the panel, only when
 * its VM's fullscreen= allows it: with `user`, right after an input
 * event the user gave that VM's window (a double click on a video's
 * button, a key) while the VM holds the keyboard.  The label stays
 * (label.c draws the frame inside the output, fullscreen.c names the
 * VM), and the keyboard does not move.
 */
static bool
fullscreen_allowed(void *data, struct ivwl_connection *conn)
{
	struct ivwl_focus *focus = data;

	switch (conn->vm->fullscreen) {
	case IVWL_FULLSCREEN_ALWAYS:
		return true;
	case IVWL_FULLSCREEN_NEVER:
		return false;
	case IVWL_FULLSCREEN_USER:
		break;
	}
	return held_by(focus, conn->vm) &&
	       ivwl_translate_input_age_ms(&conn->xl) <=
	       IVWL_FULLSCREEN_INPUT_MS;
}

/*
 * Whether a weston with this module ran before in this desktop session:
 * a mark in XDG_RUNTIME_DIR, which lives as long as the user's session
 * (the gui-VM's own file system: no VM can set or clear it).  After a
 * restart, no window takes the keyboard until the user gives it: the
 * first window to map may be a hostile VM's, racing the replay of the
 * windows the user had.
 */
static bool
session_restarted(void)
{
	const char *dir = getenv("XDG_RUNTIME_DIR");
	char path[4096];
	int fd;

	if (!dir || snprintf(path, sizeof(path), "%s/ivwl-desktop-started",
			     dir) >= (int)sizeof(path))
		return true;	/* no session to tell by: the careful way */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0) {
		close(fd);
		return false;
	}
	if (errno != EEXIST)
		ivwl_log("cannot mark the desktop started (%s: %s): no window "
			 "gets the keyboard before the user's click",
			 path, strerror(errno));
	return true;
}

struct ivwl_focus *
ivwl_focus_create(struct ivwl_plugin *plugin)
{
	struct ivwl_focus *focus = calloc(1, sizeof(*focus));
	struct weston_seat *seat;

	if (!focus)
		return NULL;
	focus->plugin = plugin;
	focus->restarted = session_restarted();
	wl_list_init(&focus->seats);
	wl_signal_init(&focus->holder_signal);
	focus->image.notify = on_image;
	wl_signal_add(&ivwl_windows_events(plugin->windows)->image,
		      &focus->image);
	focus->mapped.notify = on_window_mapped;
	wl_signal_add(&ivwl_windows_events(plugin->windows)->mapped,
		      &focus->mapped);
	focus->seat_created.notify = on_seat_created;
	wl_signal_add(&plugin->compositor->seat_created_signal,
		      &focus->seat_created);
	wl_list_for_each(seat, &plugin->compositor->seat_list, link)
		seat_add(focus, seat);
	focus->ops.popup_grab_serial = popup_grab_serial;
	focus->ops.fullscreen = fullscreen_allowed;
	focus->ops.data = focus;
	plugin->trust = &focus->ops;
	return focus;
}

void
ivwl_focus_add_holder_listener(struct ivwl_focus *focus,
			       struct wl_listener *listener)
{
	struct ivwl_focus_seat *fs;
	struct ivwl_focus_holder holder;

	wl_signal_add(&focus->holder_signal, listener);
	/* what holds it now, at once */
	wl_list_for_each(fs, &focus->seats, link) {
		holder.seat = fs->seat;
		holder.vm = surface_vm(focus, fs->granted);
		listener->notify(listener, &holder);
	}
}

void
ivwl_focus_destroy(struct ivwl_focus *focus)
{
	struct ivwl_focus_seat *fs, *tmp;

	wl_list_for_each_safe(fs, tmp, &focus->seats, link)
		seat_forget(fs);
	wl_list_remove(&focus->seat_created.link);
	wl_list_remove(&focus->image.link);
	wl_list_remove(&focus->mapped.link);
	if (focus->plugin->trust == &focus->ops)
		focus->plugin->trust = NULL;
	free(focus);
}
