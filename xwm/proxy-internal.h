/* SPDX-License-Identifier: MIT */
/*
 * What proxy.c (renumbering, forwarding) and proxy-roles.c (the roles
 * the window manager gives Xwayland's surfaces) share.
 */
#ifndef IVWL_XWM_PROXY_INTERNAL_H
#define IVWL_XWM_PROXY_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "proxy.h"
#include "stream.h"
#include "wire.h"

#define OUT_LIMIT (8u << 20)
#define XDG_WM_BASE_VERSION 1u
#define SUBCOMPOSITOR_VERSION 1u
#define DATA_DEVICE_MANAGER_VERSION 3u
#define SEAT_VERSION 1u
#define SELECTION_MIMES 32u	/* types kept of one offer */
#define SELECTION_OFFERS 4u	/* offers kept at once */

enum surface_state {
	SURFACE_HELD,		/* no role yet: commits wait here */
	SURFACE_WANTED,		/* a window: role sent, awaits configure */
	SURFACE_SHOWN,		/* passes through */
};

struct xsurface {
	uint32_t down;		/* Xwayland's id; 0 for a wish */
	uint32_t wished;	/* a wish's: the id Xwayland will make */
	enum surface_state state;
	bool committed;		/* Xwayland committed while held */
	uint32_t buffer;	/* its last attach while held (down id) */
	int32_t buffer_x, buffer_y;
	bool attached;
	/* the proxy's objects (up ids) */
	uint32_t xdg, toplevel, subsurface;
	uint32_t decoration;	/* its zxdg_toplevel_decoration_v1, 0: none */
	/* what the window manager wants of it */
	bool want_toplevel, want_child, fullscreen;
	char *title, *app_id;
	uint32_t parent;	/* down id of the surface it belongs to */
	int32_t x, y;
	/*
	 * Sizes as width << 16 | height.  xdg-shell wants the first
	 * commit after the ack of a maximized (or fullscreen) configure
	 * to be of that size, and X resizes the window some time after
	 * the configure: its ack waits for a buffer of the size.
	 */
	uint32_t size;		/* of the buffer attached last */
	uint32_t geometry;	/* the window geometry set last */
	uint32_t want_size;	/* the last toplevel configure's */
	bool want_exact;	/* it was maximized or fullscreen */
	uint32_t ack_serial;	/* the configure that waits, 0: none */
	struct xsurface *next;	/* ivwl_xwm_proxy.all */
};

/* A wl_data_offer the compositor made for the proxy's data device. */
struct offer {
	uint32_t id;		/* the compositor's (0xff000000 and up) */
	char *mimes[SELECTION_MIMES];
	uint32_t n;
	bool own;		/* offers the proxy's marker: its own source */
};

/* The clipboard, seen through a data device of the proxy's own. */
struct selection {
	uint32_t manager_name, manager_version, seat_name;
	uint32_t manager, seat, device;	/* bound by the proxy */
	uint32_t source;		/* the proxy's data source, 0: none */
	uint32_t current;		/* the offer that is the selection */
	struct offer offers[SELECTION_OFFERS];
	uint32_t serial;		/* of the last input event */
	uint32_t press;			/* of the last button pressed */
	char marker[48];		/* a MIME type only its sources offer */
};

struct ids {
	uint32_t *free;		/* ids delete_id gave back */
	uint32_t nfree, cap;
	uint32_t next;		/* never used yet */
};

struct ivwl_xwm_proxy {
	int down, up;
	struct ivwl_stream_in down_in, up_in;
	struct ivwl_stream_out down_out, up_out;
	struct ivwl_wire_map down_map, up_map;
	uint32_t *down_to_up;	/* client ids, by Xwayland's */
	uint32_t *up_to_down;	/* by the compositor's; 0: the proxy's */
	struct ids up_ids;
	struct xsurface **surfaces;	/* by Xwayland's id */
	uint32_t *buffer_size;		/* by Xwayland's wl_buffer id */
	struct xsurface *all;		/* the same, listed */
	struct xsurface **wishes;	/* for surfaces not made yet */
	uint32_t nwishes;
	uint32_t registry;	/* up id of a registry of Xwayland's */
	uint32_t wm_base_name, subcompositor_name;
	uint32_t wm_base, subcompositor;	/* bound by the proxy */
	/* zxdg_decoration_manager_v1, where the compositor offers it */
	uint32_t decoration_name, decoration_manager;
	struct selection sel;
	const struct ivwl_xwm_proxy_hooks *hooks;
	void *data;
};

/* ---- messages the proxy writes -------------------------------------- */

/*
 * s, or "" when it is too long for a message of its own (an X client's
 * title or MIME type can be): what the compositor gets in its place.
 */
static inline const char *
ivwl_xwm_wire_string(const char *s)
{
	return strlen(s) < IVWL_WIRE_MAX_MESSAGE - 16 ? s : "";
}

/* proxy.c */
bool
ivwl_xwm_client_id(uint32_t id);
/*
 * Writes object.m(args...) (ivwl_wire_write_msg: m is an IVWL_MSG_REQ_
 * of ivwl-protocols.h), tracks it in the compositor's map and queues
 * it.  0, -EMSGSIZE when it does not fit a message, or -EPROTO.
 */
int
ivwl_xwm_send_up(struct ivwl_xwm_proxy *p, uint32_t object,
		 const struct ivwl_message *m, ...);
/* A new object of the proxy's: its up id, 0 when ids ran out. */
uint32_t
ivwl_xwm_own_id(struct ivwl_xwm_proxy *p);
/* The compositor's id of one of Xwayland's objects, 0 if none. */
uint32_t
ivwl_xwm_up_of(const struct ivwl_xwm_proxy *p, uint32_t down);

/* A request without arguments (a destroy, mostly). */
int
ivwl_xwm_request0(struct ivwl_xwm_proxy *p, uint32_t object, uint16_t opcode);
/* Same, with fd (taken) for m's one fd argument. */
int
ivwl_xwm_send_up_fd(struct ivwl_xwm_proxy *p, int fd, uint32_t object,
		    const struct ivwl_message *m, ...);
/* Binds the registry's global name as iface: the proxy's id, or 0. */
uint32_t
ivwl_xwm_bind(struct ivwl_xwm_proxy *p, uint32_t name, const char *iface,
	      uint32_t version);

/* proxy-selection.c */
void
ivwl_xwm_selection_init(struct selection *sel);
void
ivwl_xwm_selection_release(struct selection *sel);
/* A global of the proxy's registry: the data device's are bound. */
void
ivwl_xwm_selection_global(struct ivwl_xwm_proxy *p, uint32_t name,
			  const char *iface, uint32_t version);
/* An event on its way to Xwayland: input serials are kept. */
void
ivwl_xwm_selection_input(struct ivwl_xwm_proxy *p,
			 const struct ivwl_wire_msg *msg);
/* True for an offer the compositor made for the proxy. */
bool
ivwl_xwm_selection_owns(const struct ivwl_xwm_proxy *p, uint32_t id);
/* An event for the proxy's data device, source or offers; fds taken. */
int
ivwl_xwm_selection_event(struct ivwl_xwm_proxy *p,
			 const struct ivwl_wire_msg *msg, int *fds,
			 uint32_t nfds);

/* proxy-roles.c */
/* What Xwayland committed while the surface waited for its role. */
int
ivwl_xwm_release_held(struct ivwl_xwm_proxy *p, struct xsurface *s);
/* Xwayland made wl_surface down, or destroys s (its roles go first). */
void
ivwl_xwm_surface_made(struct ivwl_xwm_proxy *p, uint32_t down);
void
ivwl_xwm_surface_gone(struct ivwl_xwm_proxy *p, struct xsurface *s);
void
ivwl_xwm_surface_free(struct xsurface *s);

#endif
