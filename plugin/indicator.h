/* SPDX-License-Identifier: MIT */
#ifndef IVWL_INDICATOR_H
#define IVWL_INDICATOR_H

struct ivwl_plugin;
struct ivwl_indicator;

/*
 * Who has the keyboard, always on screen: at the top middle of every
 * output, above the panel and every window, a nameplate with the name
 * and colour of the VM whose window holds the keyboard, or "desktop"
 * (docs/security.md, "Trusted path").  It follows focus.c's holder
 * signal.  NULL without memory.
 */
struct ivwl_indicator *
ivwl_indicator_create(struct ivwl_plugin *plugin, const char *font);

void
ivwl_indicator_destroy(struct ivwl_indicator *indicator);

#endif
