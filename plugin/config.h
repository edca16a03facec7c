/* SPDX-License-Identifier: MIT */
/*
 * Checks of the configuration (config.c): each mistake is logged as one
 * line naming the key and the fix.
 */
#ifndef IVWL_CONFIG_H
#define IVWL_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clipboard-policy.h"

struct weston_config_section;

/* color= into *color; -EINVAL, logged, when absent, malformed or not
 * opaque. */
int
ivwl_config_color(struct weston_config_section *section, const char *vm,
		  uint32_t *color);

/*
 * How far apart two colours look: the distance of their CIE L*a*b*
 * coordinates (CIE76 delta E; 2.3 is barely seen side by side).  Two VMs'
 * colours must be IVWL_CONFIG_COLOR_DISTANCE apart or more.
 */
#define IVWL_CONFIG_COLOR_DISTANCE 20

double
ivwl_config_color_distance(uint32_t a, uint32_t b);

/* One path, or two names of one socket or node (a udev link). */
bool
ivwl_config_same_file(const char *a, const char *b);

/* False (logged) when the device of vm, at server= or device=, gave us
 * a peer id not the display's. */
bool
ivwl_config_display_role(const char *vm, const char *server,
			 const char *device, uint32_t peer);

/* err, or what it means for the configuration of a VM at server= (or
 * device=, server false) (static). */
const char *
ivwl_config_explain_attach(bool server, int ret, const char *err);

/* Why a region of size bytes with vectors doorbells cannot be used. */
void
ivwl_config_region_problem(char *buf, size_t len, uint64_t size,
			   uint32_t vectors);

/*
 * What a VM's xdg_toplevel.set_fullscreen gets (fullscreen=): a window
 * over the whole output, or a maximized one below the panel.
 */
enum ivwl_fullscreen_policy {
	IVWL_FULLSCREEN_USER,	/* right after the user's input to the VM */
	IVWL_FULLSCREEN_NEVER,
	IVWL_FULLSCREEN_ALWAYS,
};

/* fullscreen= into *policy; false if bad, logged. */
bool
ivwl_config_fullscreen(struct weston_config_section *section, const char *vm,
		       enum ivwl_fullscreen_policy *policy);

/* clipboard=, primary-selection=, drag-and-drop=; false if bad,
 * logged. */
bool
ivwl_config_clip_policy(struct weston_config_section *section,
			const char *vm, struct ivwl_clip_policy *policy);

#endif
