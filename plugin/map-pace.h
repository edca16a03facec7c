/* SPDX-License-Identifier: MIT */
/*
 * Window maps (xdg_toplevels and xdg_popups), paced per VM (map-pace.c).
 * Each map and each window gone costs weston and the plugin work (its
 * views, its frame, its nameplate): a VM maps at most IVWL_MAP_BURST
 * windows at once, then IVWL_MAP_RATE a second.  On weston 16, whose
 * repaint pays for the new views it takes in about squared (253 at once
 * stalled it about a second), also at most IVWL_MAP_PACE_PER_REPAINT
 * between two repaints of any output.  A connection whose map is
 * refused holds its request there (translate.h, IVWL_BARRIER_PACED) and
 * tries again after the next repaint, or after the wait its VM needs.
 */
#ifndef IVWL_MAP_PACE_H
#define IVWL_MAP_PACE_H

#include <stdbool.h>

struct ivwl_map_pace;
struct ivwl_plugin;
struct ivwl_vm;
struct wl_listener;

/* Listens to the plugin's output clock, which must outlive it. */
struct ivwl_map_pace *
ivwl_map_pace_create(struct ivwl_plugin *plugin);

void
ivwl_map_pace_destroy(struct ivwl_map_pace *pace);

/*
 * One window's map on vm's budget of this repaint: true, or false when
 * the budget is spent (logged, at most every few seconds a VM); then
 * the go signal says when to ask again.
 */
bool
ivwl_map_pace_take(struct ivwl_map_pace *pace, struct ivwl_vm *vm);

/*
 * listener hears, once, that a map refused since it was added may be
 * asked again (a repaint came, or the idle time went by).  It is
 * removed from the signal before it is called.
 */
void
ivwl_map_pace_add_go_listener(struct ivwl_map_pace *pace,
			      struct wl_listener *listener);

#endif
