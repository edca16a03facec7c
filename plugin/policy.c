/* SPDX-License-Identifier: MIT */
/*
 * Which globals a VM's clients may see.  Each global's descriptor
 * (protocol/wayland/descriptors/) says whether it is offered by default:
 * what an ordinary desktop client needs and nothing that reads other
 * clients' content, injects input or talks to the shell's private side;
 * and which are never offered, whatever the configuration says.
 */
#include <stdlib.h>
#include <string.h>

#include "ivwl-plugin.h"
#include "ivwl-protocols.h"

struct ivwl_policy {
	char **names;
	size_t count;
};

static bool
in_list(const char *const *list, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(list[i], name) == 0)
			return true;
	return false;
}

struct ivwl_policy *
ivwl_policy_create(const char *allow)
{
	struct ivwl_policy *policy = calloc(1, sizeof(*policy));
	char *copy, *tok, *save = NULL;

	if (!policy)
		return NULL;
	if (!allow)
		return policy;

	copy = strdup(allow);
	if (!copy)
		goto err_policy;
	for (tok = strtok_r(copy, ", \t", &save); tok;
	     tok = strtok_r(NULL, ", \t", &save)) {
		char **n = realloc(policy->names,
				   (policy->count + 1) * sizeof(*n));

		if (!n)
			goto err_copy;
		policy->names = n;
		policy->names[policy->count] = strdup(tok);
		if (!policy->names[policy->count])
			goto err_copy;
		policy->count++;
	}
	free(copy);
	return policy;

err_copy:
	free(copy);
err_policy:
	ivwl_policy_destroy(policy);
	return NULL;
}

void
ivwl_policy_destroy(struct ivwl_policy *policy)
{
	size_t i;

	if (!policy)
		return;
	for (i = 0; i < policy->count; i++)
		free(policy->names[i]);
	free(policy->names);
	free(policy);
}

bool
ivwl_policy_allows(const struct ivwl_policy *policy, const char *interface)
{
	const struct ivwl_interface *iface = ivwl_wire_interface_find(interface);
	uint8_t global = iface ? iface->global : IVWL_GLOBAL_NONE;

	if (global == IVWL_GLOBAL_NEVER ||
	    in_list(ivwl_private_globals, IVWL_PRIVATE_GLOBAL_COUNT, interface))
		return false;
	if (policy->names)
		return in_list((const char *const *)policy->names,
			       policy->count, interface);
	return global == IVWL_GLOBAL_ALLOW;
}
