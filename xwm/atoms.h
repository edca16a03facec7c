/* SPDX-License-Identifier: MIT */
/*
 * X atoms by name, for the window manager and the selection bridge:
 * every name asked of the X server before the first answer is read, one
 * round trip for all.
 */
#ifndef IVWL_XWM_ATOMS_H
#define IVWL_XWM_ATOMS_H

#include <stddef.h>
#include <xcb/xcb.h>

/*
 * atoms[i] = the atom of names[i], for i < n; XCB_ATOM_NONE where the
 * server gave none.  0, or -EPROTO when any is missing.
 */
int
ivwl_xwm_intern_atoms(xcb_connection_t *conn, const char *const *names,
		      size_t n, xcb_atom_t *atoms);

#endif
