/* SPDX-License-Identifier: MIT */
/*
 * Inside the firewall: the model objects that firewall.c keeps and the
 * rules of firewall-rules.c act on.  Not for the rest of the plugin.
 */
#ifndef IVWL_FIREWALL_MODEL_H
#define IVWL_FIREWALL_MODEL_H

#include <wayland-util.h>

#include "firewall.h"
#include "ivwl-limits.h"
#include "ivwl-protocols.h"

/* A wl_surface's role: given once, for good (wl_surface "role" rule). */
enum ivwl_fw_role {
	IVWL_FW_ROLE_NONE = 0,
	IVWL_FW_ROLE_XDG,		/* has an xdg_surface, no role yet */
	IVWL_FW_ROLE_TOPLEVEL,
	IVWL_FW_ROLE_POPUP,
	IVWL_FW_ROLE_SUBSURFACE,
	IVWL_FW_ROLE_CURSOR,
	IVWL_FW_ROLE_DRAG_ICON,
};

enum ivwl_fw_flag {
	IVWL_FW_GONE = 1u << 0,		/* wl_surface destroyed, role
					 * objects still alive: inert
					 * (set on both) */
	IVWL_FW_MAPPED = 1u << 1,	/* a buffer committed */
	IVWL_FW_ATTACHED = 1u << 2,	/* pending: a buffer attached */
	IVWL_FW_DETACHED = 1u << 3,	/* pending: null attached */
	IVWL_FW_GRAB = 1u << 4,		/* xdg_popup took a grab */
	IVWL_FW_COMMITTED = 1u << 5,	/* xdg_popup, xdg_toplevel: its
					 * surface committed since */
	IVWL_FW_USED = 1u << 6,		/* data source given to weston */
	IVWL_FW_ACTIONS = 1u << 7,	/* wl_data_source.set_actions done */
	IVWL_FW_SIZE = 1u << 8,		/* xdg_positioner.set_size done */
	IVWL_FW_ANCHOR = 1u << 9,	/* set_anchor_rect done */
	IVWL_FW_DEFUNCT = 1u << 10,	/* xdg_surface whose role object is
					 * gone: weston freed its state */
	IVWL_FW_CONSTRAINED = 1u << 11,	/* wl_surface: a pointer lock or
					 * confinement of it lives */
	IVWL_FW_FRACTION = 1u << 12,	/* wp_viewport: its last source
					 * height is not whole */
	IVWL_FW_DND = 1u << 13,		/* wl_data_offer of a drag */
	IVWL_FW_ADDED = 1u << 14,	/* xdg_toplevel weston's shell has
					 * a window for */
	IVWL_FW_UNPLUGGED = 1u << 15,	/* wl_output whose global went */
	IVWL_FW_FIFO = 1u << 16,	/* wl_surface: a wp_fifo_v1 lives */
	IVWL_FW_TIMER = 1u << 17,	/* wl_surface: a wp_commit_timer_v1
					 * lives */
	IVWL_FW_TIMESTAMP = 1u << 18,	/* wl_surface: pending, a commit
					 * time */
};

/*
 * One object of the connection that a rule needs to know more about
 * than its interface.  Fields mean one thing each; which are used
 * depends on the interface (said per field).
 */
struct ivwl_fw_object {
	struct ivwl_fw_object *next;	/* in its bucket */
	uint32_t id;
	uint16_t iface;			/* index in ivwl_interfaces[] */
	uint8_t role;			/* wl_surface: enum ivwl_fw_role */
	uint8_t depth;			/* xdg_popup: 1 under a toplevel */
	uint32_t flags;			/* enum ivwl_fw_flag */
	uint32_t seq;			/* creation order */
	/* role objects, viewports...: their wl_surface */
	uint32_t surface;
	/* wl_surface: its live xdg_surface or wl_subsurface;
	 * xdg_surface: its live xdg_toplevel or xdg_popup;
	 * data sources: the device that made it the selection */
	uint32_t role_object;
	/* xdg_toplevel, xdg_popup: their xdg_surface */
	uint32_t xdg_surface;
	/*
	 * Who it hangs from, NULL when nobody (or once that one is gone):
	 * wl_surface of a subsurface: the parent wl_surface; xdg_popup: the
	 * parent xdg_surface; xdg_toplevel: the toplevel set_parent named;
	 * xdg_surface: the xdg_wm_base that made it.
	 */
	struct ivwl_fw_object *parent;
	struct wl_list children;	/* the objects whose parent it is */
	struct wl_list link;		/* in parent->children */
	/* wl_surface, wl_region: rectangles since commit / in all;
	 * data sources: bytes of MIME types */
	uint32_t amount;
	uint32_t mime_types;		/* data sources: types offered */
	uint32_t global;		/* wl_output: the global's name */
	/* xdg_surface: its xdg_toplevel, destroyed by the client, that
	 * weston still has (weston 14: firewall-xdg.c) */
	uint32_t held_role;
	/* xdg_positioner: its constraint_adjustment as the client set it,
	 * and as weston has it (firewall-xdg.c, weston 16) */
	uint32_t adjustment;
	uint32_t weston_adjustment;
};

struct ivwl_fw_object *
ivwl_fw_find(const struct ivwl_firewall *fw, uint32_t id);

/* The model object of id if it is of interface iface, else NULL. */
struct ivwl_fw_object *
ivwl_fw_find_as(const struct ivwl_firewall *fw, uint32_t id,
		const struct ivwl_interface *iface);

/* A new model object (fields zero); NULL when out of memory. */
struct ivwl_fw_object *
ivwl_fw_add(struct ivwl_firewall *fw, uint32_t id,
	    const struct ivwl_interface *iface);

/* Forgets id; what hung from it is orphaned (parent NULL). */
void
ivwl_fw_drop(struct ivwl_firewall *fw, uint32_t id);

/* Hangs o from parent (NULL: from nobody). */
void
ivwl_fw_set_parent(struct ivwl_fw_object *o, struct ivwl_fw_object *parent);

/* Everything that hangs from o hangs from nobody now. */
void
ivwl_fw_orphan(struct ivwl_fw_object *o);

/*
 * Whether the weston behind fw has a bug of majors first to last (0: no
 * fix known yet); true when that weston is unknown.
 */
static inline bool
ivwl_fw_weston_bug(const struct ivwl_firewall *fw, int first, int last)
{
	return fw->weston_major == 0 ||
	       (fw->weston_major >= first &&
		(last == 0 || fw->weston_major <= last));
}

/* Sets fw->why to "iface@id.request: " + the rule; returns -EPROTO. */
int
ivwl_fw_refuse(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg,
	       const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Same for a spent budget: -EDQUOT. */
int
ivwl_fw_over(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg,
	     const char *what, uint32_t limit);

/*
 * A rule: called for its message once the generic checks passed (live
 * object arguments of the right interface, enum values).  0 or the
 * result of ivwl_fw_refuse / ivwl_fw_over.
 */
typedef int (*ivwl_fw_rule_t)(struct ivwl_firewall *fw,
			      const struct ivwl_wire_msg *msg);

struct ivwl_fw_rule {
	const struct ivwl_interface *iface;
	uint16_t opcode;
	ivwl_fw_rule_t check;
};

/* firewall-rules.c: the core protocol's and the other extensions' */
extern const struct ivwl_fw_rule ivwl_fw_core_rules[];
extern const uint32_t ivwl_fw_core_rule_count;
/* firewall-xdg.c: xdg-shell's */
extern const struct ivwl_fw_rule ivwl_fw_xdg_rules[];
extern const uint32_t ivwl_fw_xdg_rule_count;

/* Helpers of the rules (firewall.c). */
struct ivwl_fw_object *
ivwl_fw_self(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg);

/*
 * The wl_surface that o (a role object, viewport...) was made for, if
 * it lives: NULL once destroyed, even if a new one has its id.
 */
struct ivwl_fw_object *
ivwl_fw_own_surface(const struct ivwl_firewall *fw,
		    const struct ivwl_fw_object *o);

/* The model of wl_surface id surface, or NULL (a request's argument:
 * the walker checked it is no null where the XML forbids it). */
struct ivwl_fw_object *
ivwl_fw_surface(struct ivwl_firewall *fw, uint32_t surface);

/*
 * Has weston get object.m(args...) just before that request, after what
 * was injected before for it: m is an IVWL_MSG_REQ_ of
 * ivwl-protocols.h, args as for ivwl_wire_write_msg.  Left out when the
 * injection buffer is full.
 */
void
ivwl_fw_inject(struct ivwl_firewall *fw, uint32_t object,
	       const struct ivwl_message *m, ...);

/*
 * The model object of the message's new id, counted in *count: refused
 * with -EDQUOT when *count is at limit (what names the budget).
 */
int
ivwl_fw_add_counted(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg,
		    const struct ivwl_interface *iface, uint32_t *count,
		    uint32_t limit, const char *what);

/* Sets why and returns -ENOMEM. */
int
ivwl_fw_no_memory(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg);

int
ivwl_fw_take_role(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg,
		  struct ivwl_fw_object *s, enum ivwl_fw_role role);

/* firewall-rules.c: true for a wl_output whose global went. */
bool
ivwl_fw_unplugged(struct ivwl_firewall *fw, uint32_t output);

/* firewall-xdg.c: whether surface s, a toplevel's or popup's, may commit
 * (weston 14: not while a popup on it awaits its first commit). */
int
ivwl_fw_xdg_parent_commit(struct ivwl_firewall *fw,
			  const struct ivwl_wire_msg *msg,
			  struct ivwl_fw_object *s);

/* firewall-xdg.c: whether weston must not see a commit of surface s, a
 * toplevel's or popup's (weston 14: its role object is gone). */
bool
ivwl_fw_xdg_defunct_commit(struct ivwl_firewall *fw, struct ivwl_fw_object *s);

/* firewall-xdg.c: surface s committed with its toplevel or popup role. */
void
ivwl_fw_xdg_committed(struct ivwl_firewall *fw, struct ivwl_fw_object *s);

/* firewall-rules.c: an event weston sent ends what it ends. */
void
ivwl_fw_rules_event(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg);

#endif
