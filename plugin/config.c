/* SPDX-License-Identifier: MIT */
/*
 * The configuration mistakes people make, each refused with one log line
 * that names the key and the fix (docs/deploy.md, "Configuration
 * errors").  The keys themselves are read in vm.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libweston/config-parser.h>

#include "config.h"
#include "ivwl-plugin.h"
#include "region.h"
#include "vm.h"

int
ivwl_config_color(struct weston_config_section *section, const char *vm,
		  uint32_t *color)
{
	char *text = NULL;

	if (weston_config_section_get_color(section, "color", color,
					    *color) == 0 || errno == ENOENT)
		return 0;
	weston_config_section_get_string(section, "color", &text, "");
	ivwl_log("[%s] color=%s is not 0xAARRGGBB: write 8 hex digits, "
		 "alpha first, e.g. color=0xff3070c0", vm, text);
	free(text);
	return -EINVAL;
}

/* One path, or two names of one socket or node (a udev link). */
static bool
same(const char *a, const char *b)
{
	struct stat sa, sb;

	if (!a || !b)
		return false;
	if (strcmp(a, b) == 0)
		return true;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/*
 * Two sections on one region would fight over its display role; two of
 * one name could not be told apart in the log, the titles or the live
 * view.
 */
bool
ivwl_config_vm_unique(struct ivwl_plugin *plugin, const struct ivwl_vm *vm)
{
	struct ivwl_vm *other;

	wl_list_for_each(other, &plugin->vms, link) {
		if (other == vm)
			continue;
		if (strcmp(other->name, vm->name) == 0) {
			ivwl_log("[ivwl-vm] name=%s is used by two sections: "
				 "give each VM its own name", vm->name);
			return false;
		}
		if (same(other->server, vm->server) ||
		    same(other->device, vm->device)) {
			ivwl_log("[%s] %s=%s is also [%s]'s: one section per "
				 "region; remove one or point it at its own "
				 "region", vm->name,
				 vm->server ? "server" : "device",
				 vm->server ? vm->server : vm->device,
				 other->name);
			return false;
		}
	}
	return true;
}

/*
 * Given ivwl-server's app socket, weston would take the app's role and
 * the real agent be refused: say which socket is the display's, and stay
 * off the region rather than retry into the same role.
 */
bool
ivwl_config_display_role(const struct ivwl_vm *vm, uint32_t peer)
{
	if (peer == IVWL_PEER_DISPLAY)
		return true;
	if (vm->device)
		ivwl_log("[%s] device=%s has the app's peer id %u: this VM's "
			 "ivshmem chardev is on ivwl-server's app socket; "
			 "connect it to SOCKET.display; not retrying",
			 vm->name, vm->device, peer);
	else
		ivwl_log("[%s] server=%s is ivwl-server's app socket (it gave "
			 "us the app's peer id %u): use server=%s.display; "
			 "not retrying", vm->name, vm->server, peer,
			 vm->server);
	return false;
}

/*
 * ivwl-server drops a client whose socket's role is held.  On the app
 * socket the agent holds it: the same mistake as above, seen from the
 * other order of starting.
 */
const char *
ivwl_config_explain_attach(const struct ivwl_vm *vm, int ret, const char *err)
{
	if (vm->server && ret == -ECONNRESET)
		return "ivwl-server refused us: this socket's role is held; "
		       "if it is the app socket (the agent holds it), use "
		       "SOCKET.display; else stop the other weston";
	return err;
}

void
ivwl_config_region_problem(char *buf, size_t len, uint64_t size,
			   uint32_t vectors)
{
	if (vectors == 0)
		snprintf(buf, len, "the device has no doorbell vector: give "
			 "the ivshmem device vectors=1 or more");
	else
		snprintf(buf, len, "%llu bytes: %s", (unsigned long long)size,
			 ivwl_region_size_problem(size));
}

bool
ivwl_config_clip_policy(struct weston_config_section *section,
			const char *vm, struct ivwl_clip_policy *policy)
{
	enum ivwl_clip_kind k;
	const char *choices;
	char *value;
	bool ok = true;

	for (k = IVWL_CLIP_SELECTION; k <= IVWL_CLIP_DRAG && ok; k++) {
		value = NULL;
		weston_config_section_get_string(section,
						 ivwl_clip_policy_key(k),
						 &value, "isolated");
		ok = value && ivwl_clip_policy_set(policy, k, value, &choices);
		if (!ok)
			ivwl_log("[%s] %s=%s is not one of %s", vm,
				 ivwl_clip_policy_key(k), value ? value : "",
				 choices);
		free(value);
	}
	return ok;
}
