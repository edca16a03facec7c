/* SPDX-License-Identifier: MIT */
/*
 * The roles ivwl-xwm's window manager gives Xwayland's surfaces
 * (proxy.h): an xdg_toplevel for a window of its own, a wl_subsurface of
 * its window for a menu or tooltip.  A surface Xwayland has not made
 * yet is a wish, granted when it does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ivwl-protocols.h"
#include "log.h"
#include "proxy-internal.h"

/* X windows whose wl_surface is named before Xwayland made it. */
#define WISHES_MAX 64u

static int
bind_globals(struct ivwl_xwm_proxy *p)
{
	if (p->wm_base)
		return 0;
	if (!p->registry || !p->wm_base_name || !p->subcompositor_name) {
		ivwl_log_error("the compositor offers no xdg_wm_base or "
			       "wl_subcompositor");
		return -ENOENT;
	}
	p->wm_base = ivwl_xwm_bind(p, p->wm_base_name, "xdg_wm_base",
				   XDG_WM_BASE_VERSION);
	p->subcompositor = ivwl_xwm_bind(p, p->subcompositor_name,
					 "wl_subcompositor",
					 SUBCOMPOSITOR_VERSION);
	if (p->decoration_name)
		p->decoration_manager = ivwl_xwm_bind(p, p->decoration_name,
			"zxdg_decoration_manager_v1", 1);
	return p->wm_base && p->subcompositor &&
	       (!p->decoration_name || p->decoration_manager) ? 0 : -EPROTO;
}


/* m: a request of one string argument (set_title, set_app_id). */
static int
set_string(struct ivwl_xwm_proxy *p, uint32_t object,
	   const struct ivwl_message *m, const char *s)
{
	return ivwl_xwm_send_up(p, object, m, ivwl_xwm_wire_string(s));
}

/* What Xwayland committed while the surface waited for its role. */
static int
send_fullscreen(struct ivwl_xwm_proxy *p, struct xsurface *s)
{
	if (!s->fullscreen)
		return ivwl_xwm_request0(p, s->toplevel,
					 IVWL_REQ_XDG_TOPLEVEL_UNSET_FULLSCREEN);
	return ivwl_xwm_send_up(p, s->toplevel,
				IVWL_MSG_REQ_XDG_TOPLEVEL_SET_FULLSCREEN,
				0);	/* no output */
}

int
ivwl_xwm_release_held(struct ivwl_xwm_proxy *p, struct xsurface *s)
{
	uint32_t up = ivwl_xwm_up_of(p, s->down);
	int ret = 0;

	s->state = SURFACE_SHOWN;
	if (s->attached) {
		ret = ivwl_xwm_send_up(p, up, IVWL_MSG_REQ_WL_SURFACE_ATTACH,
				       ivwl_xwm_up_of(p, s->buffer),
				       s->buffer_x, s->buffer_y);
		if (ret == 0)
			ret = ivwl_xwm_send_up(p, up,
				IVWL_MSG_REQ_WL_SURFACE_DAMAGE_BUFFER,
				0, 0, INT32_MAX, INT32_MAX);
	}
	if (ret == 0 && (s->committed || s->attached))
		ret = ivwl_xwm_request0(p, up, IVWL_REQ_WL_SURFACE_COMMIT);
	s->attached = false;
	s->committed = false;
	/*
	 * Fullscreen only once the window has its first buffer: the
	 * configure's size must be the next buffer's (ivwl.so makes it a
	 * maximize), which X makes after Xwayland's frame callback, and
	 * that needs a commit shown first.
	 */
	if (ret == 0 && s->toplevel && s->fullscreen)
		ret = send_fullscreen(p, s);
	return ret;
}

/*
 * Asks the compositor to decorate the toplevel, where it can: the
 * window manager then draws no bar of its own once it answers
 * server_side (hooks->decorated).
 */
static int
ask_decoration(struct ivwl_xwm_proxy *p, struct xsurface *s)
{
	if (!p->decoration_manager)
		return 0;
	s->decoration = ivwl_xwm_own_id(p);
	if (!s->decoration)
		return -EMFILE;
	if (ivwl_xwm_send_up(p, p->decoration_manager,
		IVWL_MSG_REQ_ZXDG_DECORATION_MANAGER_V1_GET_TOPLEVEL_DECORATION,
		s->decoration, s->toplevel) < 0)
		return -EPROTO;
	return ivwl_xwm_send_up(p, s->decoration,
			IVWL_MSG_REQ_ZXDG_TOPLEVEL_DECORATION_V1_SET_MODE,
			2);	/* server_side */
}

/* The role objects of a window whose surface exists: xdg-shell's first
 * commit carries no buffer, whatever Xwayland attached meanwhile. */
static int
make_toplevel(struct ivwl_xwm_proxy *p, struct xsurface *s)
{
	uint32_t up = ivwl_xwm_up_of(p, s->down);
	struct xsurface *parent;

	if (bind_globals(p) < 0)
		return -EPROTO;
	s->xdg = ivwl_xwm_own_id(p);
	s->toplevel = ivwl_xwm_own_id(p);
	if (!s->xdg || !s->toplevel)
		return -EMFILE;
	if (ivwl_xwm_send_up(p, p->wm_base,
			     IVWL_MSG_REQ_XDG_WM_BASE_GET_XDG_SURFACE,
			     s->xdg, up) < 0 ||
	    ivwl_xwm_send_up(p, s->xdg, IVWL_MSG_REQ_XDG_SURFACE_GET_TOPLEVEL,
			     s->toplevel) < 0)
		return -EPROTO;
	if (ask_decoration(p, s) < 0)
		return -EPROTO;
	if (s->title && set_string(p, s->toplevel,
				   IVWL_MSG_REQ_XDG_TOPLEVEL_SET_TITLE,
				   s->title) < 0)
		return -EPROTO;
	if (s->app_id && set_string(p, s->toplevel,
				    IVWL_MSG_REQ_XDG_TOPLEVEL_SET_APP_ID,
				    s->app_id) < 0)
		return -EPROTO;
	parent = s->parent < IVWL_WIRE_MAX_OBJECTS ? p->surfaces[s->parent] :
						     NULL;
	if (parent && parent->toplevel && parent->state == SURFACE_SHOWN &&
	    ivwl_xwm_send_up(p, s->toplevel,
			     IVWL_MSG_REQ_XDG_TOPLEVEL_SET_PARENT,
			     parent->toplevel) < 0)
		return -EPROTO;
	/* no buffer */
	if (ivwl_xwm_send_up(p, up, IVWL_MSG_REQ_WL_SURFACE_ATTACH,
			     0, 0, 0) < 0 ||
	    ivwl_xwm_request0(p, up, IVWL_REQ_WL_SURFACE_COMMIT) < 0)
		return -EPROTO;
	s->state = SURFACE_WANTED;
	return 0;
}

/*
 * A subsurface's position, and the subsurface itself, take effect with
 * its parent's next commit: one of the proxy's, as the window under a
 * menu need not draw again.
 */
static int
place_child(struct ivwl_xwm_proxy *p, struct xsurface *s)
{
	if (ivwl_xwm_send_up(p, s->subsurface,
			     IVWL_MSG_REQ_WL_SUBSURFACE_SET_POSITION,
			     s->x, s->y) < 0)
		return -EPROTO;
	return ivwl_xwm_request0(p, ivwl_xwm_up_of(p, s->parent),
			IVWL_REQ_WL_SURFACE_COMMIT);
}

static int
make_child(struct ivwl_xwm_proxy *p, struct xsurface *s)
{
	if (bind_globals(p) < 0)
		return -EPROTO;
	s->subsurface = ivwl_xwm_own_id(p);
	if (!s->subsurface)
		return -EMFILE;
	if (ivwl_xwm_send_up(p, p->subcompositor,
			     IVWL_MSG_REQ_WL_SUBCOMPOSITOR_GET_SUBSURFACE,
			     s->subsurface, ivwl_xwm_up_of(p, s->down),
			     ivwl_xwm_up_of(p, s->parent)) < 0)
		return -EPROTO;
	if (ivwl_xwm_request0(p, s->subsurface,
			      IVWL_REQ_WL_SUBSURFACE_SET_DESYNC) < 0 ||
	    ivwl_xwm_release_held(p, s) < 0)
		return -EPROTO;
	return place_child(p, s);
}

/* The role objects go, the surface is held again (X unmapped it). */
static int
drop_role(struct ivwl_xwm_proxy *p, struct xsurface *s)
{
	int ret = 0;

	if (s->subsurface)
		ret = ivwl_xwm_request0(p, s->subsurface,
					IVWL_REQ_WL_SUBSURFACE_DESTROY);
	/* the decoration before its toplevel, as the protocol wants */
	if (s->decoration && ret == 0)
		ret = ivwl_xwm_request0(p, s->decoration,
				IVWL_REQ_ZXDG_TOPLEVEL_DECORATION_V1_DESTROY);
	if (s->toplevel && ret == 0)
		ret = ivwl_xwm_request0(p, s->toplevel,
					IVWL_REQ_XDG_TOPLEVEL_DESTROY);
	if (s->xdg && ret == 0)
		ret = ivwl_xwm_request0(p, s->xdg,
					IVWL_REQ_XDG_SURFACE_DESTROY);
	s->subsurface = s->toplevel = s->xdg = s->decoration = 0;
	s->want_toplevel = s->want_child = false;
	s->state = SURFACE_HELD;
	return ret;
}

void
ivwl_xwm_surface_free(struct xsurface *s)
{
	free(s->title);
	free(s->app_id);
	free(s);
}

/* ---- the window manager's decisions --------------------------------- */

static struct xsurface *
surface_for(struct ivwl_xwm_proxy *p, uint32_t down)
{
	struct xsurface *s, **grown;

	if (!ivwl_xwm_client_id(down) || down >= IVWL_WIRE_MAX_OBJECTS)
		return NULL;
	if (p->surfaces[down])
		return p->surfaces[down];
	for (uint32_t i = 0; i < p->nwishes; i++)
		if (p->wishes[i]->wished == down)
			return p->wishes[i];
	/* a wish for a surface that never comes (named, then destroyed
	 * before the name arrived) is dropped once there are enough */
	if (p->nwishes == WISHES_MAX) {
		ivwl_xwm_surface_free(p->wishes[0]);
		memmove(p->wishes, p->wishes + 1,
			--p->nwishes * sizeof(*p->wishes));
	}
	s = calloc(1, sizeof(*s));
	grown = s ? realloc(p->wishes, (p->nwishes + 1) * sizeof(*grown)) :
		    NULL;
	if (!grown) {
		free(s);
		return NULL;
	}
	p->wishes = grown;
	s->wished = down;
	p->wishes[p->nwishes++] = s;
	return s;
}

static int
apply_wish(struct ivwl_xwm_proxy *p, struct xsurface *s)
{
	if (!s->down)
		return 0;	/* when Xwayland makes it */
	if (s->want_toplevel && !s->toplevel)
		return make_toplevel(p, s);
	if (s->want_child && !s->subsurface)
		return make_child(p, s);
	return 0;
}

int
ivwl_xwm_proxy_toplevel(struct ivwl_xwm_proxy *p, uint32_t surface,
			const char *title, const char *app_id, uint32_t parent)
{
	struct xsurface *s = surface_for(p, surface);

	if (!s)
		return -ENOMEM;
	if (s->toplevel || s->subsurface)
		return 0;
	free(s->title);
	free(s->app_id);
	s->title = title ? strdup(title) : NULL;
	s->app_id = app_id ? strdup(app_id) : NULL;
	s->parent = parent;
	s->want_toplevel = true;
	return apply_wish(p, s);
}

int
ivwl_xwm_proxy_set_title(struct ivwl_xwm_proxy *p, uint32_t surface,
			 const char *title)
{
	struct xsurface *s = surface_for(p, surface);

	if (!s || !title)
		return s ? 0 : -ENOMEM;
	free(s->title);
	s->title = strdup(title);
	if (!s->toplevel || !s->title)
		return 0;
	return set_string(p, s->toplevel, IVWL_MSG_REQ_XDG_TOPLEVEL_SET_TITLE,
			  s->title);
}

int
ivwl_xwm_proxy_set_fullscreen(struct ivwl_xwm_proxy *p, uint32_t surface,
			      bool fullscreen)
{
	struct xsurface *s = surface_for(p, surface);

	if (!s)
		return -ENOMEM;
	s->fullscreen = fullscreen;
	/* a window not shown yet asks once it is (release_held) */
	if (!s->toplevel || s->state != SURFACE_SHOWN)
		return 0;
	return send_fullscreen(p, s);
}

/* Only a window shown has a toplevel to ask about. */
static struct xsurface *
shown_toplevel(struct ivwl_xwm_proxy *p, uint32_t surface)
{
	struct xsurface *s;

	if (!ivwl_xwm_client_id(surface) || surface >= IVWL_WIRE_MAX_OBJECTS)
		return NULL;
	s = p->surfaces[surface];
	return s && s->toplevel ? s : NULL;
}

int
ivwl_xwm_proxy_set_maximized(struct ivwl_xwm_proxy *p, uint32_t surface,
			     bool maximized)
{
	struct xsurface *s = shown_toplevel(p, surface);

	if (!s)
		return -ENOENT;
	return ivwl_xwm_request0(p, s->toplevel, maximized ?
			IVWL_REQ_XDG_TOPLEVEL_SET_MAXIMIZED :
			IVWL_REQ_XDG_TOPLEVEL_UNSET_MAXIMIZED);
}

int
ivwl_xwm_proxy_move(struct ivwl_xwm_proxy *p, uint32_t surface)
{
	struct xsurface *s = shown_toplevel(p, surface);

	if (!s || !p->sel.seat)
		return -ENOENT;
	return ivwl_xwm_send_up(p, s->toplevel, IVWL_MSG_REQ_XDG_TOPLEVEL_MOVE,
				p->sel.seat, p->sel.press);
}

int
ivwl_xwm_proxy_child(struct ivwl_xwm_proxy *p, uint32_t surface,
		     uint32_t parent, int32_t x, int32_t y)
{
	struct xsurface *s = surface_for(p, surface);

	if (!s)
		return -ENOMEM;
	if (s->toplevel || s->subsurface)
		return 0;
	s->parent = parent;
	s->x = x;
	s->y = y;
	s->want_child = true;
	return apply_wish(p, s);
}

int
ivwl_xwm_proxy_move_child(struct ivwl_xwm_proxy *p, uint32_t surface,
			  int32_t x, int32_t y)
{
	struct xsurface *s = surface_for(p, surface);

	if (!s)
		return -ENOMEM;
	if (s->x == x && s->y == y)
		return 0;
	s->x = x;
	s->y = y;
	return s->subsurface ? place_child(p, s) : 0;
}

void
ivwl_xwm_proxy_unmap(struct ivwl_xwm_proxy *p, uint32_t surface)
{
	struct xsurface *s;

	if (!ivwl_xwm_client_id(surface) || surface >= IVWL_WIRE_MAX_OBJECTS)
		return;
	s = p->surfaces[surface];
	if (s && (s->toplevel || s->subsurface || s->xdg))
		drop_role(p, s);
	else if (s)
		s->want_toplevel = s->want_child = false;
}

void
ivwl_xwm_surface_made(struct ivwl_xwm_proxy *p, uint32_t down)
{
	struct xsurface *s = NULL;
	uint32_t i;

	for (i = 0; i < p->nwishes; i++) {
		if (p->wishes[i]->wished != down)
			continue;
		s = p->wishes[i];
		p->wishes[i] = p->wishes[--p->nwishes];
		break;
	}
	if (!s)
		s = calloc(1, sizeof(*s));
	if (!s) {
		ivwl_log_error("out of memory for a surface");
		return;
	}
	s->down = down;
	s->state = SURFACE_HELD;
	s->next = p->all;
	p->all = s;
	p->surfaces[down] = s;
	if (apply_wish(p, s) < 0)
		ivwl_log_error("could not make wl_surface@%u a window", down);
}

void
ivwl_xwm_surface_gone(struct ivwl_xwm_proxy *p, struct xsurface *s)
{
	struct xsurface **pp;

	drop_role(p, s);
	for (pp = &p->all; *pp; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	}
	p->surfaces[s->down] = NULL;
	ivwl_xwm_surface_free(s);
}

