/* SPDX-License-Identifier: MIT */
/*
 * What differs between the westons ivwl.so builds against: weston 10
 * (Debian bookworm) and weston 14 (trixie).  The rest of the plugin
 * writes to one API; each difference is bridged here, once.
 */
#ifndef IVWL_WESTON_COMPAT_H
#define IVWL_WESTON_COMPAT_H

#include <libweston/libweston.h>
#include <libweston/version.h>

/* weston 12 moved libweston-desktop into libweston. */
/* (weston's WESTON_VERSION_AT_LEAST is true only within one major) */
#if WESTON_VERSION_MAJOR >= 12
#include <libweston/desktop.h>
#else
#include <libweston-desktop/libweston-desktop.h>
#endif

/*
 * The frontend's API (wet_get_config): bookworm's weston installs
 * weston.h, trixie's does not, and libexec_weston.so exports it in both.
 */
#ifdef IVWL_HAVE_WESTON_H
#include <weston.h>
#else
struct weston_config;

struct weston_config *
wet_get_config(struct weston_compositor *compositor);

WL_EXPORT int
wet_module_init(struct weston_compositor *compositor, int *argc,
		char *argv[]);
#endif

#endif
