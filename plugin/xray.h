/* SPDX-License-Identifier: MIT */
#ifndef IVWL_XRAY_H
#define IVWL_XRAY_H

struct ivwl_plugin;
struct ivwl_xray;

/*
 * X-ray: while the user holds [ivwl] xray-key= (default super+alt),
 * every VM window is darkened and its VM's name shown large across it
 * (label.c draws it); the keys go to no client meanwhile.  NULL, logged,
 * for a key weston.ini writes wrong.
 */
struct ivwl_xray *
ivwl_xray_create(struct ivwl_plugin *plugin);

void
ivwl_xray_destroy(struct ivwl_xray *xray);

#endif
