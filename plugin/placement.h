/* SPDX-License-Identifier: MIT */
#ifndef IVWL_PLACEMENT_H
#define IVWL_PLACEMENT_H

struct ivwl_plugin;
struct ivwl_placement;

/*
 * Where the VMs' windows stand, kept across a compositor restart: a
 * second after a window moves, every VM toplevel's place is written to
 * $XDG_RUNTIME_DIR/ivwl-places (the gui-VM's own file system, which no
 * VM reaches); a weston that starts in the same session reads it, and a
 * window that only came back (its relay replayed it) goes where it
 * stood, named by its VM, its client's key and its surface id.  A VM
 * window larger than its output's room is asked to fit as it maps.
 * NULL without memory.
 */
struct ivwl_placement *
ivwl_placement_create(struct ivwl_plugin *plugin);

void
ivwl_placement_destroy(struct ivwl_placement *placement);

#endif
