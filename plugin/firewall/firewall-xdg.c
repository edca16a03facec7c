/* SPDX-License-Identifier: MIT */
/*
 * The firewall's rules of xdg-shell: surfaces take their role once, the
 * role object goes before the xdg_surface and the xdg_surface before the
 * wl_surface, popups nest under a live parent and go topmost first.
 * weston 10's libweston-desktop frees its state with the role object and
 * leaves NULLs behind, and keeps pointers to a popup's parent: each rule
 * here keeps a request from reaching one of those.
 */
#include <errno.h>
#include <string.h>

#include "firewall-model.h"

typedef struct ivwl_fw_object fw_obj;

static int
check_no_popups(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg,
		const fw_obj *xdg);

static int
toplevel_add(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg);

/* ---- xdg_wm_base, xdg_positioner --------------------------------------- */

static int
wm_base_destroy(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	fw_obj *wm = ivwl_fw_self(fw, msg);

	if (wm && !wl_list_empty(&wm->children))
		return ivwl_fw_refuse(fw, msg, "xdg_surfaces it made are alive "
				      "(defunct_surfaces)");
	ivwl_fw_drop(fw, msg->object);
	return 0;
}

static int
wm_base_create_positioner(struct ivwl_firewall *fw,
			  const struct ivwl_wire_msg *msg)
{
	return ivwl_fw_add_counted(fw, msg, &ivwl_iface_xdg_positioner,
				   &fw->positioners, IVWL_FW_CONN_POSITIONERS,
				   "xdg_positioners");
}

static int
positioner_destroy(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	ivwl_fw_drop(fw, msg->object);
	fw->positioners--;
	return 0;
}

static int
positioner_set_size(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	fw_obj *p = ivwl_fw_self(fw, msg);
	struct ivwl_req_xdg_positioner_set_size args;

	ivwl_req_xdg_positioner_set_size_decode(msg, &args);
	if (args.width <= 0 || args.height <= 0)
		return ivwl_fw_refuse(fw, msg, "a size must be positive "
				      "(invalid_input)");
	if (p)
		p->flags |= IVWL_FW_SIZE;
	return 0;
}

static int
positioner_set_anchor_rect(struct ivwl_firewall *fw,
			   const struct ivwl_wire_msg *msg)
{
	fw_obj *p = ivwl_fw_self(fw, msg);
	struct ivwl_req_xdg_positioner_set_anchor_rect args;

	ivwl_req_xdg_positioner_set_anchor_rect_decode(msg, &args);
	if (args.width < 0 || args.height < 0)
		return ivwl_fw_refuse(fw, msg, "a negative size "
				      "(invalid_input)");
	if (p)
		p->flags |= IVWL_FW_ANCHOR;
	return 0;
}

/*
 * Bookworm's xdg-shell.xml gives this bitfield no enum attribute (its
 * bits are 0..5); trixie's does, and the enum check refuses first, in the
 * same words.
 */
static int
positioner_set_constraint_adjustment(struct ivwl_firewall *fw,
				     const struct ivwl_wire_msg *msg)
{
	struct ivwl_req_xdg_positioner_set_constraint_adjustment args;
	fw_obj *p = ivwl_fw_self(fw, msg);
	uint32_t bits;

	ivwl_req_xdg_positioner_set_constraint_adjustment_decode(msg, &args);
	bits = args.constraint_adjustment;
	if (bits & ~0x3fu)
		return ivwl_fw_refuse(fw, msg, "%u is no value of "
				      "xdg_positioner.constraint_adjustment",
				      bits);
	if (p)
		p->adjustment = p->weston_adjustment = bits;
	return 0;
}

/* ---- xdg_surface, xdg_toplevel, xdg_popup ------------------------------ */

static int
wm_base_get_xdg_surface(struct ivwl_firewall *fw,
			const struct ivwl_wire_msg *msg)
{
	struct ivwl_req_xdg_wm_base_get_xdg_surface args;
	fw_obj *s, *wm = ivwl_fw_self(fw, msg), *xdg;
	uint32_t id;
	int ret;

	ivwl_req_xdg_wm_base_get_xdg_surface_decode(msg, &args);
	id = args.id;
	s = ivwl_fw_surface(fw, args.surface);

	if (s && s->role_object)
		return ivwl_fw_refuse(fw, msg, "wl_surface@%u already has a "
				      "live role object", s->id);
	/* the xdg kinds are one family until get_toplevel/get_popup */
	if (s && (s->role == IVWL_FW_ROLE_TOPLEVEL ||
		  s->role == IVWL_FW_ROLE_POPUP))
		ret = 0;
	else
		ret = ivwl_fw_take_role(fw, msg, s, IVWL_FW_ROLE_XDG);
	if (ret < 0)
		return ret;
	xdg = ivwl_fw_add(fw, id, &ivwl_iface_xdg_surface);
	if (!xdg)
		return ivwl_fw_no_memory(fw, msg);
	xdg->surface = s->id;
	ivwl_fw_set_parent(xdg, wm);
	s->role_object = id;
	return 0;
}

static fw_obj *
surface_of_xdg(struct ivwl_firewall *fw, const fw_obj *xdg)
{
	return ivwl_fw_find_as(fw, xdg->surface, &ivwl_iface_wl_surface);
}

static int
xdg_surface_destroy(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	fw_obj *xdg = ivwl_fw_self(fw, msg), *s;

	if (!xdg)
		return 0;
	if (xdg->role_object)
		return ivwl_fw_refuse(fw, msg, "its role object %u is alive "
				      "(defunct_role_object)",
				      xdg->role_object);
	if (check_no_popups(fw, msg, xdg) < 0)
		return -EPROTO;
	if (xdg->held_role)
		ivwl_fw_inject(fw, xdg->held_role,
			       IVWL_MSG_REQ_XDG_TOPLEVEL_DESTROY);
	s = surface_of_xdg(fw, xdg);
	if (s) {
		s->role_object = 0;
		if (s->flags & IVWL_FW_GONE)
			ivwl_fw_drop(fw, s->id);
	}
	ivwl_fw_drop(fw, msg->object);
	return 0;
}

/* An xdg_surface gets one role object, of its surface's role. */
static fw_obj *
construct(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg,
	  uint32_t id, enum ivwl_fw_role role,
	  const struct ivwl_interface *iface, int *ret)
{
	fw_obj *xdg = ivwl_fw_self(fw, msg), *s, *o;

	*ret = 0;
	if (!xdg || !(s = surface_of_xdg(fw, xdg))) {
		*ret = ivwl_fw_refuse(fw, msg, "an xdg_surface the firewall "
				      "does not know");
		return NULL;
	}
	if (xdg->role_object || (xdg->flags & IVWL_FW_DEFUNCT)) {
		*ret = ivwl_fw_refuse(fw, msg, "already constructed");
		return NULL;
	}
	if (fw->vm && fw->vm->windows >= IVWL_FW_VM_WINDOWS) {
		*ret = ivwl_fw_over(fw, msg, "windows per VM",
				    IVWL_FW_VM_WINDOWS);
		return NULL;
	}
	if (s->role == IVWL_FW_ROLE_XDG)
		s->role = IVWL_FW_ROLE_NONE;	/* the role is chosen now */
	*ret = ivwl_fw_take_role(fw, msg, s, role);
	if (*ret < 0)
		return NULL;
	o = ivwl_fw_add(fw, id, iface);
	if (!o) {
		*ret = ivwl_fw_no_memory(fw, msg);
		return NULL;
	}
	o->xdg_surface = xdg->id;
	o->surface = s->id;
	xdg->role_object = o->id;
	return o;
}

static int
xdg_surface_get_toplevel(struct ivwl_firewall *fw,
			 const struct ivwl_wire_msg *msg)
{
	struct ivwl_req_xdg_surface_get_toplevel args;
	int ret;

	ivwl_req_xdg_surface_get_toplevel_decode(msg, &args);
	construct(fw, msg, args.id, IVWL_FW_ROLE_TOPLEVEL,
		  &ivwl_iface_xdg_toplevel, &ret);
	return ret;
}

/* The popup's parent: a constructed xdg_surface; how deep it nests. */
static int
popup_parent(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg,
	     uint32_t parent_id, fw_obj **parent, uint8_t *depth)
{
	fw_obj *role;

	*parent = ivwl_fw_find_as(fw, parent_id, &ivwl_iface_xdg_surface);
	if (!*parent)
		return ivwl_fw_refuse(fw, msg, "no parent: ivwl has no other "
				      "protocol to give one (invalid_popup_"
				      "parent)");
	if ((*parent)->id == msg->object)
		return ivwl_fw_refuse(fw, msg, "a popup cannot be its own "
				      "parent");
	role = ivwl_fw_find(fw, (*parent)->role_object);
	if (!role || !surface_of_xdg(fw, *parent) ||
	    (surface_of_xdg(fw, *parent)->flags & IVWL_FW_GONE))
		return ivwl_fw_refuse(fw, msg, "the parent has no toplevel or "
				      "popup role (invalid_popup_parent)");
	/*
	 * weston 14 gives a popup on a parent that never committed a view
	 * with no parent view, which the parent's first commit dereferences
	 * (SEGV); weston 10 passes over it.
	 */
	if (!(role->flags & IVWL_FW_COMMITTED) && ivwl_fw_weston_bug(fw, 14, 0))
		return ivwl_fw_refuse(fw, msg, "the parent has not committed "
				      "since its role (commit it first)");
	*depth = role->iface == IVWL_IFACE_XDG_POPUP ? role->depth + 1 : 1;
	if (*depth > IVWL_FW_POPUP_DEPTH)
		return ivwl_fw_over(fw, msg, "nested popups",
				    IVWL_FW_POPUP_DEPTH);
	return 0;
}

/*
 * weston 16 constrains a popup (any constraint_adjustment bit set) by
 * the output of each view of its parent's surface, at get_popup and at
 * reposition, without asking whether the view has one: a parent that
 * is unmapped, or placed off every output (a popup offset far away with
 * no adjustment of its own), takes weston down (NULL dereference).
 * weston 10 and 14 constrain nothing.  There weston gets such a popup's
 * positioner without adjustment, as weston 14 would place it, and the
 * client's own bits back for the next popup that can be constrained.
 */
static fw_obj *
constrained_positioner(const struct ivwl_firewall *fw,
		       const struct ivwl_wire_msg *msg)
{
	struct ivwl_req_xdg_surface_get_popup get_popup;
	struct ivwl_req_xdg_popup_reposition reposition;
	fw_obj *p = NULL;

	if (!ivwl_fw_weston_bug(fw, 16, 0))
		return NULL;
	if (msg->iface == &ivwl_iface_xdg_surface &&
	    msg->opcode == IVWL_REQ_XDG_SURFACE_GET_POPUP) {
		ivwl_req_xdg_surface_get_popup_decode(msg, &get_popup);
		p = ivwl_fw_find_as(fw, get_popup.positioner,
				    &ivwl_iface_xdg_positioner);
	} else if (msg->iface == &ivwl_iface_xdg_popup &&
		   msg->opcode == IVWL_REQ_XDG_POPUP_REPOSITION) {
		ivwl_req_xdg_popup_reposition_decode(msg, &reposition);
		p = ivwl_fw_find_as(fw, reposition.positioner,
				    &ivwl_iface_xdg_positioner);
	}
	return p && p->adjustment ? p : NULL;
}

bool
ivwl_firewall_needs_settled(const struct ivwl_firewall *fw,
			    const struct ivwl_wire_msg *msg)
{
	return fw->off_output && constrained_positioner(fw, msg);
}

/* Gives weston the adjustment that parent (an xdg_surface) allows. */
static void
adjust_for_parent(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg,
		  const fw_obj *parent)
{
	fw_obj *p = constrained_positioner(fw, msg), *s;
	uint32_t want;

	if (!p || !fw->off_output)
		return;
	s = parent ? surface_of_xdg(fw, parent) : NULL;
	want = s && fw->off_output(fw->off_output_data, s->id) ?
	       0 : p->adjustment;
	if (want == p->weston_adjustment)
		return;
	ivwl_fw_inject(fw, p->id,
		       IVWL_MSG_REQ_XDG_POSITIONER_SET_CONSTRAINT_ADJUSTMENT,
		       want);
	p->weston_adjustment = want;
}

/* Whether id is a positioner with a size and an anchor rectangle. */
static bool
positioner_ready(const struct ivwl_firewall *fw, uint32_t id)
{
	const fw_obj *p = ivwl_fw_find_as(fw, id, &ivwl_iface_xdg_positioner);
	const uint32_t both = IVWL_FW_SIZE | IVWL_FW_ANCHOR;

	return p && (p->flags & both) == both;
}

static int
refuse_positioner(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	return ivwl_fw_refuse(fw, msg, "the positioner has no size or anchor "
			      "rectangle (invalid_positioner)");
}

static int
xdg_surface_get_popup(struct ivwl_firewall *fw,
		      const struct ivwl_wire_msg *msg)
{
	struct ivwl_req_xdg_surface_get_popup args;
	fw_obj *parent, *popup;
	uint8_t depth = 0;
	int ret;

	ivwl_req_xdg_surface_get_popup_decode(msg, &args);
	ret = popup_parent(fw, msg, args.parent, &parent, &depth);
	if (ret < 0)
		return ret;
	if (!positioner_ready(fw, args.positioner))
		return refuse_positioner(fw, msg);
	popup = construct(fw, msg, args.id, IVWL_FW_ROLE_POPUP,
			  &ivwl_iface_xdg_popup, &ret);
	if (!popup)
		return ret;
	ivwl_fw_set_parent(popup, parent);
	popup->depth = depth;
	adjust_for_parent(fw, msg, parent);
	return 0;
}

/* A popup placed anew: by its parent's views, as get_popup. */
static int
popup_reposition(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	struct ivwl_req_xdg_popup_reposition args;
	fw_obj *popup = ivwl_fw_self(fw, msg);

	ivwl_req_xdg_popup_reposition_decode(msg, &args);
	if (!positioner_ready(fw, args.positioner))
		return refuse_positioner(fw, msg);
	if (popup)
		adjust_for_parent(fw, msg, popup->parent);
	return 0;
}

/* set_window_geometry, ack_configure: only once a role is given. */
static int
xdg_surface_constructed(struct ivwl_firewall *fw,
			const struct ivwl_wire_msg *msg)
{
	fw_obj *xdg = ivwl_fw_self(fw, msg);

	if (!xdg || !xdg->role_object)
		return ivwl_fw_refuse(fw, msg, "no live role object "
				      "(not_constructed)");
	return 0;
}

static void
role_object_gone(struct ivwl_firewall *fw, fw_obj *o)
{
	fw_obj *xdg = ivwl_fw_find_as(fw, o->xdg_surface,
				      &ivwl_iface_xdg_surface);

	if (xdg) {
		xdg->role_object = 0;
		xdg->flags |= IVWL_FW_DEFUNCT;
	}
	ivwl_fw_drop(fw, o->id);
}

/*
 * weston 10 keeps a popup's pointer to its parent's state and writes
 * through it on the popup's next commit once the parent is gone (use
 * after free): the parent's role object, xdg_surface and wl_surface
 * live as long as a popup on it does.
 */
static int
check_no_popups(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg,
		const fw_obj *xdg)
{
	if (xdg && !wl_list_empty(&xdg->children))
		return ivwl_fw_refuse(fw, msg, "popups on it are alive "
				      "(destroy them first)");
	return 0;
}

/*
 * weston 14 keeps the window of a destroyed xdg_toplevel in its shell as
 * long as the xdg_surface lives, and sends it the configure of the next
 * focus change through the freed toplevel (use after free; a client that
 * destroys a focused toplevel and maps another window takes weston down).
 * There the destroy is held back and sent just before the xdg_surface's,
 * which takes the window's configures with it; meanwhile the window is
 * unmapped (unless a pointer constraint holds it: firewall-rules.c).
 */
static void
hold_toplevel(struct ivwl_firewall *fw, const fw_obj *top, fw_obj *xdg)
{
	fw_obj *s = surface_of_xdg(fw, xdg);

	xdg->held_role = top->id;
	fw->absorb = true;
	if (s && (s->flags & IVWL_FW_MAPPED) &&
	    !(s->flags & IVWL_FW_CONSTRAINED)) {
		ivwl_fw_inject(fw, s->id, IVWL_MSG_REQ_WL_SURFACE_ATTACH,
			       0, 0, 0);	/* no buffer */
		ivwl_fw_inject(fw, s->id, IVWL_MSG_REQ_WL_SURFACE_COMMIT);
		s->flags &= ~IVWL_FW_MAPPED;
	}
}

static int
toplevel_destroy(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	fw_obj *top = ivwl_fw_self(fw, msg), *xdg;

	if (!top)
		return 0;
	xdg = ivwl_fw_find_as(fw, top->xdg_surface, &ivwl_iface_xdg_surface);
	if (check_no_popups(fw, msg, xdg) < 0)
		return -EPROTO;
	if (xdg && ivwl_fw_weston_bug(fw, 14, 0))
		hold_toplevel(fw, top, xdg);
	role_object_gone(fw, top);
	return 0;
}

/*
 * An output unplugged since the bind is as good as none here: weston 10
 * dereferences its missing head.
 */
static int
toplevel_set_fullscreen(struct ivwl_firewall *fw,
			const struct ivwl_wire_msg *msg)
{
	struct ivwl_req_xdg_toplevel_set_fullscreen args;

	ivwl_req_xdg_toplevel_set_fullscreen_decode(msg, &args);
	if (ivwl_fw_unplugged(fw, args.output)) {
		args.output = 0;
		ivwl_req_xdg_toplevel_set_fullscreen_rewrite(msg, fw->bytes,
							     &args);
	}
	return toplevel_add(fw, msg);
}

/*
 * invalid_parent: not itself, not one of its descendants.  A parent
 * weston's shell has no window for yet (never committed) is passed on as
 * none: the shell dereferences the missing window (SEGV at 0x40), and
 * the XML makes a parent that is not mapped as good as none.
 */
static int
toplevel_set_parent(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	fw_obj *top = ivwl_fw_self(fw, msg), *parent, *p;
	struct ivwl_req_xdg_toplevel_set_parent args;
	uint32_t steps = 0;

	ivwl_req_xdg_toplevel_set_parent_decode(msg, &args);
	parent = ivwl_fw_find_as(fw, args.parent, &ivwl_iface_xdg_toplevel);
	for (p = parent; p; p = p->parent) {
		if (p == top || steps++ > IVWL_FW_CONN_SURFACES)
			return ivwl_fw_refuse(fw, msg, "xdg_toplevel@%u would "
					      "be its own ancestor "
					      "(invalid_parent)", parent->id);
	}
	if (parent && !(parent->flags & IVWL_FW_ADDED)) {
		args.parent = 0;
		ivwl_req_xdg_toplevel_set_parent_rewrite(msg, fw->bytes, &args);
		parent = NULL;
	}
	if (top) {
		top->flags |= IVWL_FW_ADDED;
		ivwl_fw_set_parent(top, parent);
	}
	return 0;
}

/* Nested popups go in the reverse order they came (not_the_topmost). */
static int
popup_destroy(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	fw_obj *popup = ivwl_fw_self(fw, msg), *xdg;

	if (!popup)
		return 0;
	xdg = ivwl_fw_find_as(fw, popup->xdg_surface, &ivwl_iface_xdg_surface);
	if (check_no_popups(fw, msg, xdg) < 0)
		return -EPROTO;
	role_object_gone(fw, popup);
	return 0;
}

/* Before the first commit, once, under a toplevel or a grabbing popup. */
static int
popup_grab(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	fw_obj *popup = ivwl_fw_self(fw, msg), *parent, *above;

	if (!popup)
		return 0;
	if (popup->flags & (IVWL_FW_COMMITTED | IVWL_FW_GRAB))
		return ivwl_fw_refuse(fw, msg, "a grab after the first commit "
				      "or a second grab (invalid_grab)");
	parent = popup->parent;
	above = parent ? ivwl_fw_find(fw, parent->role_object) : NULL;
	if (!above || (above->iface == IVWL_IFACE_XDG_POPUP &&
		       !(above->flags & IVWL_FW_GRAB)))
		return ivwl_fw_refuse(fw, msg, "the parent is neither a "
				      "toplevel nor a grabbing popup");
	popup->flags |= IVWL_FW_GRAB;
	return 0;
}

/*
 * weston 14 walks a window's popups on the window's commit and takes
 * the view of a popup that was never committed, which has none (NULL
 * dereference through weston_desktop_surface_get_parent): no commit of
 * a window while a popup made on it awaits its first commit.  weston 10
 * passes over such a popup.
 */
int
ivwl_fw_xdg_parent_commit(struct ivwl_firewall *fw,
			  const struct ivwl_wire_msg *msg, fw_obj *s)
{
	fw_obj *xdg, *child;

	if (!ivwl_fw_weston_bug(fw, 14, 0))
		return 0;
	xdg = ivwl_fw_find_as(fw, s->role_object, &ivwl_iface_xdg_surface);
	if (!xdg)
		return 0;
	wl_list_for_each(child, &xdg->children, link)
		if (child->iface == IVWL_IFACE_XDG_POPUP &&
		    !(child->flags & IVWL_FW_COMMITTED))
			return ivwl_fw_refuse(fw, msg, "xdg_popup@%u on it "
					      "awaits its first commit "
					      "(commit it first)", child->id);
	return 0;
}

/*
 * weston 14 keeps the role of an xdg_surface whose xdg_toplevel or
 * xdg_popup was destroyed, and on the surface's next commit schedules a
 * configure that its idle callback sends through the freed role object
 * (use after free in wl_resource_post_event), or walks the gone window's
 * popups (SEGV).  Such a surface shows nothing until its xdg_surface
 * goes, so its commits are kept from weston.
 */
bool
ivwl_fw_xdg_defunct_commit(struct ivwl_firewall *fw, fw_obj *s)
{
	fw_obj *xdg;

	if (!ivwl_fw_weston_bug(fw, 14, 0))
		return false;
	xdg = ivwl_fw_find_as(fw, s->role_object, &ivwl_iface_xdg_surface);
	return xdg && (xdg->flags & IVWL_FW_DEFUNCT);
}

/* Its role object committed: a popup may grab no more, popups on it may
 * commit, a toplevel gets its window in the shell. */
void
ivwl_fw_xdg_committed(struct ivwl_firewall *fw, fw_obj *s)
{
	fw_obj *xdg, *role;

	xdg = ivwl_fw_find_as(fw, s->role_object, &ivwl_iface_xdg_surface);
	role = xdg ? ivwl_fw_find(fw, xdg->role_object) : NULL;
	if (role)
		role->flags |= IVWL_FW_COMMITTED;
	if (role && role->iface == IVWL_IFACE_XDG_TOPLEVEL)
		role->flags |= IVWL_FW_ADDED;
}

/*
 * weston 10 gives a toplevel its window in the shell at its first
 * commit, or at the first of these requests, and keeps it until the
 * toplevel goes.
 */
static int
toplevel_add(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	fw_obj *top = ivwl_fw_self(fw, msg);

	if (top)
		top->flags |= IVWL_FW_ADDED;
	return 0;
}

#define RULE(iface, req, fn) \
	{ &ivwl_iface_##iface, IVWL_REQ_##req, fn }

const struct ivwl_fw_rule ivwl_fw_xdg_rules[] = {
	RULE(xdg_wm_base, XDG_WM_BASE_DESTROY, wm_base_destroy),
	RULE(xdg_wm_base, XDG_WM_BASE_CREATE_POSITIONER,
	     wm_base_create_positioner),
	RULE(xdg_wm_base, XDG_WM_BASE_GET_XDG_SURFACE,
	     wm_base_get_xdg_surface),
	RULE(xdg_positioner, XDG_POSITIONER_DESTROY, positioner_destroy),
	RULE(xdg_positioner, XDG_POSITIONER_SET_SIZE, positioner_set_size),
	RULE(xdg_positioner, XDG_POSITIONER_SET_ANCHOR_RECT,
	     positioner_set_anchor_rect),
	RULE(xdg_positioner, XDG_POSITIONER_SET_CONSTRAINT_ADJUSTMENT,
	     positioner_set_constraint_adjustment),
	RULE(xdg_surface, XDG_SURFACE_DESTROY, xdg_surface_destroy),
	RULE(xdg_surface, XDG_SURFACE_GET_TOPLEVEL, xdg_surface_get_toplevel),
	RULE(xdg_surface, XDG_SURFACE_GET_POPUP, xdg_surface_get_popup),
	RULE(xdg_surface, XDG_SURFACE_SET_WINDOW_GEOMETRY,
	     xdg_surface_constructed),
	RULE(xdg_surface, XDG_SURFACE_ACK_CONFIGURE, xdg_surface_constructed),
	RULE(xdg_toplevel, XDG_TOPLEVEL_DESTROY, toplevel_destroy),
	RULE(xdg_toplevel, XDG_TOPLEVEL_SET_PARENT, toplevel_set_parent),
	RULE(xdg_toplevel, XDG_TOPLEVEL_SET_MAXIMIZED, toplevel_add),
	RULE(xdg_toplevel, XDG_TOPLEVEL_UNSET_MAXIMIZED, toplevel_add),
	RULE(xdg_toplevel, XDG_TOPLEVEL_SET_FULLSCREEN, toplevel_set_fullscreen),
	RULE(xdg_toplevel, XDG_TOPLEVEL_UNSET_FULLSCREEN, toplevel_add),
	RULE(xdg_toplevel, XDG_TOPLEVEL_SET_MINIMIZED, toplevel_add),
	RULE(xdg_popup, XDG_POPUP_DESTROY, popup_destroy),
	RULE(xdg_popup, XDG_POPUP_GRAB, popup_grab),
	RULE(xdg_popup, XDG_POPUP_REPOSITION, popup_reposition),
};

const uint32_t ivwl_fw_xdg_rule_count =
	sizeof(ivwl_fw_xdg_rules) / sizeof(ivwl_fw_xdg_rules[0]);
