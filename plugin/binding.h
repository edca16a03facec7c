/* SPDX-License-Identifier: MIT */
#ifndef IVWL_BINDING_H
#define IVWL_BINDING_H

#include <stdbool.h>
#include <stdint.h>

#include <libweston/libweston.h>

/*
 * "super+shift+c": one or more modifiers (super, shift, ctrl, alt), then
 * one key (a to z, f1 to f12, insert, or a modifier's left key: "super+alt"
 * is alt held with super).  false if text is not that.
 */
bool
ivwl_binding_parse(const char *text, uint32_t *key,
		   enum weston_keyboard_modifier *mod);

#endif
