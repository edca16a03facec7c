/* SPDX-License-Identifier: MIT */
/*
 * Window maps, paced per repaint (map-pace.c).  A view that appears
 * costs weston's next repaint more than one that stays: weston 16 spends
 * about a second of its main thread on one repaint after a VM mapped
 * 253 windows at once, while every other client waits.  So each VM maps
 * at most IVWL_MAP_PACE_PER_REPAINT windows (xdg_toplevels and
 * xdg_popups) between two repaints of any output; a connection whose
 * map is over the budget holds its request there (translate.h,
 * IVWL_BARRIER_PACED) and tries again after the next repaint, or after
 * IVWL_MAP_PACE_IDLE_MS when no output repaints.
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
