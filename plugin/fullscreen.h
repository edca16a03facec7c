/* SPDX-License-Identifier: MIT */
#ifndef IVWL_FULLSCREEN_H
#define IVWL_FULLSCREEN_H

struct ivwl_plugin;
struct ivwl_fullscreen;

/*
 * A VM's window over the whole output (its VM's fullscreen= allowed it,
 * focus.c) keeps its label: label.c draws its frame inside the output,
 * and this module shows a notice with the VM's name ("work is full
 * screen", on the VM's colour, with the key that leaves) for a few
 * seconds when it enters and whenever the pointer touches the output's
 * top edge.  [ivwl] leave-fullscreen-key= (default super+esc) always
 * takes every VM window out of fullscreen.  NULL, logged, for a key
 * weston.ini writes wrong.
 */
struct ivwl_fullscreen *
ivwl_fullscreen_create(struct ivwl_plugin *plugin);

void
ivwl_fullscreen_destroy(struct ivwl_fullscreen *fs);

#endif
