/* SPDX-License-Identifier: MIT */
/* Key bindings as weston.ini writes them (binding.h). */
#include <linux/input.h>
#include <stdbool.h>
#include <string.h>

#include <libweston/libweston.h>

#include "binding.h"

static const struct {
	const char *name;
	uint32_t key;
} keys[] = {
	{ "a", KEY_A },
	{ "b", KEY_B },
	{ "c", KEY_C },
	{ "d", KEY_D },
	{ "e", KEY_E },
	{ "f", KEY_F },
	{ "g", KEY_G },
	{ "h", KEY_H },
	{ "i", KEY_I },
	{ "j", KEY_J },
	{ "k", KEY_K },
	{ "l", KEY_L },
	{ "m", KEY_M },
	{ "n", KEY_N },
	{ "o", KEY_O },
	{ "p", KEY_P },
	{ "q", KEY_Q },
	{ "r", KEY_R },
	{ "s", KEY_S },
	{ "t", KEY_T },
	{ "u", KEY_U },
	{ "v", KEY_V },
	{ "w", KEY_W },
	{ "x", KEY_X },
	{ "y", KEY_Y },
	{ "z", KEY_Z },
	{ "insert", KEY_INSERT },
	{ "esc", KEY_ESC },
	{ "escape", KEY_ESC },
	{ "f1", KEY_F1 },
	{ "f2", KEY_F2 },
	{ "f3", KEY_F3 },
	{ "f4", KEY_F4 },
	{ "f5", KEY_F5 },
	{ "f6", KEY_F6 },
	{ "f7", KEY_F7 },
	{ "f8", KEY_F8 },
	{ "f9", KEY_F9 },
	{ "f10", KEY_F10 },
	{ "f11", KEY_F11 },
	{ "f12", KEY_F12 },
	/* a modifier as the key: held with the others (X-ray's super+alt) */
	{ "super", KEY_LEFTMETA },
	{ "alt", KEY_LEFTALT },
	{ "ctrl", KEY_LEFTCTRL },
	{ "shift", KEY_LEFTSHIFT },
};

static const struct {
	const char *name;
	enum weston_keyboard_modifier mod;
} mods[] = {
	{ "super", MODIFIER_SUPER },
	{ "shift", MODIFIER_SHIFT },
	{ "ctrl", MODIFIER_CTRL },
	{ "alt", MODIFIER_ALT },
};

bool
ivwl_binding_parse(const char *text, uint32_t *key,
		   enum weston_keyboard_modifier *mod)
{
	char word[16];
	const char *p = text, *end;
	size_t len, i;
	bool found;

	*mod = 0;
	for (;;) {
		end = strchr(p, '+');
		len = end ? (size_t)(end - p) : strlen(p);
		if (len == 0 || len >= sizeof(word))
			return false;
		memcpy(word, p, len);
		word[len] = '\0';
		found = false;
		if (!end) {
			for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
				if (strcmp(word, keys[i].name) == 0) {
					*key = keys[i].key;
					return *mod != 0;
				}
			return false;
		}
		for (i = 0; i < sizeof(mods) / sizeof(mods[0]); i++)
			if (strcmp(word, mods[i].name) == 0) {
				*mod |= mods[i].mod;
				found = true;
			}
		if (!found)
			return false;
		p = end + 1;
	}
}
