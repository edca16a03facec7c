/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "atoms.h"

int
ivwl_xwm_intern_atoms(xcb_connection_t *conn, const char *const *names,
		      size_t n, xcb_atom_t *atoms)
{
	xcb_intern_atom_cookie_t *cookie;
	xcb_intern_atom_reply_t *r;
	int ret = 0;
	size_t i;

	cookie = calloc(n ? n : 1, sizeof(*cookie));
	if (!cookie)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		cookie[i] = xcb_intern_atom(conn, 0,
					    (uint16_t)strlen(names[i]),
					    names[i]);
	for (i = 0; i < n; i++) {
		r = xcb_intern_atom_reply(conn, cookie[i], NULL);
		atoms[i] = r ? r->atom : XCB_ATOM_NONE;
		if (atoms[i] == XCB_ATOM_NONE)
			ret = -EPROTO;
		free(r);
	}
	free(cookie);
	return ret;
}
