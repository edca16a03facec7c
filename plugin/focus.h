/* SPDX-License-Identifier: MIT */
#ifndef IVWL_FOCUS_H
#define IVWL_FOCUS_H

struct ivwl_plugin;
struct ivwl_focus;
struct ivwl_vm;
struct weston_seat;
struct wl_listener;

/*
 * The keyboard goes to a VM only by the user's own action
 * (docs/security.md, "Trusted path"): every seat's keyboard focus is
 * watched, and a move to a VM's window that no click, touch or shell
 * key binding asked for is undone before a key can follow it.
 */
struct ivwl_focus *
ivwl_focus_create(struct ivwl_plugin *plugin);

void
ivwl_focus_destroy(struct ivwl_focus *focus);

/* Who has a seat's keyboard now: a VM's window, or the desktop's (vm
 * NULL: a local client's window, or no window). */
struct ivwl_focus_holder {
	struct weston_seat *seat;
	struct ivwl_vm *vm;
};

/*
 * listener gets a struct ivwl_focus_holder each time the keyboard of a
 * seat goes to another party (after the rules decided), and at once for
 * every seat there is.
 */
void
ivwl_focus_add_holder_listener(struct ivwl_focus *focus,
			       struct wl_listener *listener);

#endif
