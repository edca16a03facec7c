/* SPDX-License-Identifier: MIT */
#ifndef IVWL_DECORATION_H
#define IVWL_DECORATION_H

#include <stdbool.h>

struct ivwl_plugin;
struct ivwl_decoration;
struct wl_global;
struct weston_surface;

/*
 * zxdg_decoration_manager_v1 for the VMs' clients (weston 10 and 14
 * offer none): every toplevel is told server_side, whatever it asks,
 * because weston draws the trusted title bar above every VM window
 * (label.c) anyway.  Clients that follow the protocol (foot, mpv, Qt,
 * ivwl-xwm) then draw no bar of their own, and the user sees one.  Local
 * clients never see the global: weston draws no bar for them.  NULL
 * without memory.
 */
struct ivwl_decoration *
ivwl_decoration_create(struct ivwl_plugin *plugin);

void
ivwl_decoration_destroy(struct ivwl_decoration *decoration);

/* Whether global is the decoration manager's (only VMs may see it). */
bool
ivwl_decoration_is_global(const struct ivwl_decoration *decoration,
			  const struct wl_global *global);

/*
 * Whether window (a VM's toplevel surface) holds a decoration object
 * now: it was told server_side and draws no title bar of its own.
 */
bool
ivwl_decoration_server_side(const struct weston_surface *window);

#endif
