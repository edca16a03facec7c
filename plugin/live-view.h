/* SPDX-License-Identifier: MIT */
/*
 * The live view: weston-debug's scope "ivwl" (live-view.c).  It reads the
 * counters (live-counts.h) once a second, and only while someone
 * subscribes.
 */
#ifndef IVWL_LIVE_VIEW_H
#define IVWL_LIVE_VIEW_H

struct ivwl_plugin;

int
ivwl_live_view_create(struct ivwl_plugin *plugin);

void
ivwl_live_view_destroy(struct ivwl_plugin *plugin);

#endif
