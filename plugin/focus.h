/* SPDX-License-Identifier: MIT */
#ifndef IVWL_FOCUS_H
#define IVWL_FOCUS_H

struct ivwl_plugin;
struct ivwl_focus;

/*
 * The keyboard goes to a VM only by the user's own action
 * (docs/security.md, "Trusted path"): every seat's keyboard focus is
 * watched, and a move to a VM's window that no click, touch or shell
 * key binding asked for is undone before a key can follow it.
 */
struct ivwl_focus *
ivwl_focus_create(struct ivwl_plugin *plugin);

void
ivwl_focus_destroy(struct ivwl_focus *focus);

/* A VM's cursor image or drag icon was committed: bound it. */
void
ivwl_focus_image_committed(struct ivwl_focus *focus);

#endif
