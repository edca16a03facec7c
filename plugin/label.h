/* SPDX-License-Identifier: MIT */
#ifndef IVWL_LABEL_H
#define IVWL_LABEL_H

struct ivwl_plugin;
struct ivwl_label;

/* Borders in each VM's colour around its toplevel windows. */
struct ivwl_label *
ivwl_label_create(struct ivwl_plugin *plugin);

void
ivwl_label_destroy(struct ivwl_label *label);

#endif
