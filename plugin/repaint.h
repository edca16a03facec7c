/* SPDX-License-Identifier: MIT */
#ifndef IVWL_REPAINT_H
#define IVWL_REPAINT_H

#include <stdbool.h>
#include <stdint.h>

struct ivwl_plugin;
struct ivwl_repaint;
struct ivwl_vm;
struct ivwl_vm_share;


struct ivwl_repaint *
ivwl_repaint_create(struct ivwl_plugin *plugin);

void
ivwl_repaint_destroy(struct ivwl_repaint *repaint);

/* What vm drew in the last repaint it took part in, and its veils. */
const struct ivwl_vm_share *
ivwl_repaint_share(struct ivwl_vm *vm);

#endif
