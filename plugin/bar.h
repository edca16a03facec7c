/* SPDX-License-Identifier: MIT */
#ifndef IVWL_BAR_H
#define IVWL_BAR_H

struct ivwl_plugin;
struct ivwl_bar;

/*
 * What the user does with the title bars weston draws (label.c): a press
 * on a bar raises its window and gives its VM the keyboard, as a click
 * on the window does; a drag moves the window; the close button asks the
 * client to close it (xdg_toplevel.close).  NULL without memory.
 */
struct ivwl_bar *
ivwl_bar_create(struct ivwl_plugin *plugin);

void
ivwl_bar_destroy(struct ivwl_bar *bar);

#endif
