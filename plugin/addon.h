/* SPDX-License-Identifier: MIT */
/*
 * Addons: the state a subsystem keeps on an object it does not own (a
 * VM, a window), in a slot of that object instead of a field of its
 * struct.  The owner has an addon set; a subsystem puts its addon there,
 * keyed by itself (any pointer) and by its interface, finds it again by
 * that key, and is told to destroy it when the owner goes.  The owner
 * knows none of its subsystems.
 */
#ifndef IVWL_ADDON_H
#define IVWL_ADDON_H

#include <wayland-server-core.h>

struct ivwl_addon;

struct ivwl_addon_interface {
	const char *name;
	/* the owner goes: free the addon (ivwl_addon_finish done already) */
	void (*destroy)(struct ivwl_addon *addon);
};

struct ivwl_addon {
	const struct ivwl_addon_interface *impl;
	const void *key;
	struct wl_list link;		/* ivwl_addon_set.addons */
};

struct ivwl_addon_set {
	struct wl_list addons;
};

void
ivwl_addon_set_init(struct ivwl_addon_set *set);

/* The owner goes: each addon left is finished and destroyed. */
void
ivwl_addon_set_finish(struct ivwl_addon_set *set);

/* Puts addon into set under key and impl; one addon per key and impl. */
void
ivwl_addon_init(struct ivwl_addon *addon, struct ivwl_addon_set *set,
		const void *key, const struct ivwl_addon_interface *impl);

/* Takes addon out of its set (its subsystem goes first). */
void
ivwl_addon_finish(struct ivwl_addon *addon);

/* The addon of key and impl in set, or NULL. */
struct ivwl_addon *
ivwl_addon_find(struct ivwl_addon_set *set, const void *key,
		const struct ivwl_addon_interface *impl);

#endif
