/* SPDX-License-Identifier: MIT */
/* Addons: a subsystem's state on an object it does not own (addon.h). */
#include <assert.h>
#include <stddef.h>

#include "addon.h"

void
ivwl_addon_set_init(struct ivwl_addon_set *set)
{
	wl_list_init(&set->addons);
}

void
ivwl_addon_set_finish(struct ivwl_addon_set *set)
{
	struct ivwl_addon *addon;

	/* a destroy may finish other addons of the set: one at a time */
	while (!wl_list_empty(&set->addons)) {
		addon = wl_container_of(set->addons.next, addon, link);
		ivwl_addon_finish(addon);
		addon->impl->destroy(addon);
	}
}

void
ivwl_addon_init(struct ivwl_addon *addon, struct ivwl_addon_set *set,
		const void *key, const struct ivwl_addon_interface *impl)
{
	assert(!ivwl_addon_find(set, key, impl));
	addon->impl = impl;
	addon->key = key;
	wl_list_insert(&set->addons, &addon->link);
}

void
ivwl_addon_finish(struct ivwl_addon *addon)
{
	wl_list_remove(&addon->link);
	wl_list_init(&addon->link);
}

struct ivwl_addon *
ivwl_addon_find(struct ivwl_addon_set *set, const void *key,
		const struct ivwl_addon_interface *impl)
{
	struct ivwl_addon *addon;

	wl_list_for_each(addon, &set->addons, link)
		if (addon->key == key && addon->impl == impl)
			return addon;
	return NULL;
}
