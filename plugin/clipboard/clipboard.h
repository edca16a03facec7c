/* SPDX-License-Identifier: MIT */
/*
 * Clipboard, primary selection and drag-and-drop between VMs.
 *
 * weston keeps one selection per seat and offers it to whichever client
 * has keyboard focus, and a drag to whichever surface it enters.  The
 * plugin serves every VM client's socket itself, so it sees each
 * wl_data_offer weston makes for a VM and, through weston's public
 * weston_data_offer, the source it stands for: an offer the VM's policy
 * does not allow never reaches the VM (clipboard.c).  A trusted copy and
 * paste, two key bindings weston handles, moves a selection across
 * anyway when the user asks (clipboard-trusted.c).
 */
#ifndef IVWL_CLIPBOARD_H
#define IVWL_CLIPBOARD_H

#include <stdbool.h>
#include <stdint.h>

struct ivwl_plugin;
struct ivwl_channel;
struct ivwl_connection;
struct ivwl_wire_msg;
struct ivwl_vm;

#include "clipboard-policy.h"

/* clipboard.c */

struct ivwl_clipboard *
ivwl_clipboard_create(struct ivwl_plugin *plugin);

void
ivwl_clipboard_destroy(struct ivwl_clipboard *clipboard);

/* The clipboard's hooks in translation (translate.h), for the plugin
 * to register. */
struct ivwl_translate_clipboard;
extern const struct ivwl_translate_clipboard ivwl_clipboard_hooks;

#endif
