/* SPDX-License-Identifier: MIT */
/*
 * The configuration mistakes people make, each refused with one log line
 * that names the key and the fix (docs/deploy.md, "Configuration
 * errors").  The keys themselves are read in vm.c.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libweston/config-parser.h>

#include "config.h"
#include "ivwl-plugin.h"
#include "region.h"

int
ivwl_config_color(struct weston_config_section *section, const char *vm,
		  uint32_t *color)
{
	char *text = NULL;

	if (weston_config_section_get_color(section, "color", color, 0) < 0) {
		if (errno == ENOENT) {
			ivwl_log("[%s] has no color=: each VM needs a colour "
				 "of its own for its windows' frames and "
				 "title bars, e.g. color=0xff3070c0 (palette "
				 "in weston-ivwl(7))", vm);
			return -EINVAL;
		}
		weston_config_section_get_string(section, "color", &text, "");
		ivwl_log("[%s] color=%s is not 0xAARRGGBB: write 8 hex "
			 "digits, alpha first, e.g. color=0xff3070c0", vm,
			 text);
		free(text);
		return -EINVAL;
	}
	if (*color >> 24 != 0xff) {
		ivwl_log("[%s] color=0x%08x is not opaque: a label must not "
			 "show what lies under it; write ff for alpha, e.g. "
			 "color=0xff%06x", vm, *color, *color & 0xffffff);
		return -EINVAL;
	}
	return 0;
}

/* sRGB channel (0-255) to linear light. */
static double
linear(uint32_t v)
{
	double c = v / 255.0;

	return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

static double
lab_f(double t)
{
	return t > 216.0 / 24389.0 ? cbrt(t) : (24389.0 / 27.0 * t + 16.0) /
					       116.0;
}

/* CIE L*a*b* (D65) of an 0xAARRGGBB colour. */
static void
to_lab(uint32_t argb, double lab[3])
{
	double r = linear((argb >> 16) & 0xff), g = linear((argb >> 8) & 0xff);
	double b = linear(argb & 0xff);
	double fx = lab_f((0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047);
	double fy = lab_f(0.2126 * r + 0.7152 * g + 0.0722 * b);
	double fz = lab_f((0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883);

	lab[0] = 116.0 * fy - 16.0;
	lab[1] = 500.0 * (fx - fy);
	lab[2] = 200.0 * (fy - fz);
}

double
ivwl_config_color_distance(uint32_t a, uint32_t b)
{
	double la[3], lb[3];

	to_lab(a, la);
	to_lab(b, lb);
	return sqrt((la[0] - lb[0]) * (la[0] - lb[0]) +
		    (la[1] - lb[1]) * (la[1] - lb[1]) +
		    (la[2] - lb[2]) * (la[2] - lb[2]));
}

bool
ivwl_config_same_file(const char *a, const char *b)
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
 * Given ivwl-server's app socket, weston would take the app's role and
 * the real agent be refused: say which socket is the display's, and stay
 * off the region rather than retry into the same role.
 */
bool
ivwl_config_display_role(const char *vm, const char *server,
			 const char *device, uint32_t peer)
{
	if (peer == IVWL_PEER_DISPLAY)
		return true;
	if (device)
		ivwl_log("[%s] device=%s has the app's peer id %u: this VM's "
			 "ivshmem chardev is on ivwl-server's app socket; "
			 "connect it to SOCKET.display; not retrying",
			 vm, device, peer);
	else
		ivwl_log("[%s] server=%s is ivwl-server's app socket (it gave "
			 "us the app's peer id %u): use server=%s.display; "
			 "not retrying", vm, server, peer, server);
	return false;
}

/*
 * ivwl-server drops a client whose socket's role is held.  On the app
 * socket the agent holds it: the same mistake as above, seen from the
 * other order of starting.
 */
const char *
ivwl_config_explain_attach(bool server, int ret, const char *err)
{
	if (server && ret == -ECONNRESET)
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

bool
ivwl_config_fullscreen(struct weston_config_section *section, const char *vm,
		       enum ivwl_fullscreen_policy *policy)
{
	static const char *const names[] = {
		[IVWL_FULLSCREEN_USER] = "user",
		[IVWL_FULLSCREEN_NEVER] = "never",
		[IVWL_FULLSCREEN_ALWAYS] = "always",
	};
	char *value = NULL;
	size_t i;

	weston_config_section_get_string(section, "fullscreen", &value,
					 "user");
	for (i = 0; value && i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(value, names[i]) == 0) {
			*policy = (enum ivwl_fullscreen_policy)i;
			free(value);
			return true;
		}
	}
	ivwl_log("[%s] fullscreen=%s is not one of user, never, always", vm,
		 value ? value : "");
	free(value);
	return false;
}
