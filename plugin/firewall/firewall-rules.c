/* SPDX-License-Identifier: MIT */
/*
 * The firewall's rules of the core protocol and the other extensions
 * (xdg-shell's are in firewall-xdg.c): one function per message that
 * needs more than the generic checks, found through the table at the
 * end by interface and opcode.  Each follows a rule of the protocol's
 * XML that weston 10 does not enforce, or not before it breaks, or a
 * budget.
 */
#include <errno.h>
#include <string.h>

#include "firewall-model.h"

typedef struct ivwl_fw_object fw_obj;

/* ---- wl_registry, wl_output ------------------------------------------- */

/* Globals whose objects the rules follow from their bind. */
static int
registry_bind(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	struct ivwl_req_wl_registry_bind args;
	const char *name;
	fw_obj *o;

	ivwl_req_wl_registry_bind_decode(msg, &args);
	name = args.id_interface;
	if (!name)
		return 0;
	/* xdg_wm_base counts its surfaces (defunct_surfaces) */
	if (strcmp(name, ivwl_iface_xdg_wm_base.name) == 0)
		o = ivwl_fw_add(fw, args.id, &ivwl_iface_xdg_wm_base);
	/* a wl_output outlives its global when a monitor is unplugged */
	else if (strcmp(name, ivwl_iface_wl_output.name) == 0)
		o = ivwl_fw_add(fw, args.id, &ivwl_iface_wl_output);
	else
		return 0;
	if (!o)
		return ivwl_fw_no_memory(fw, msg);
	o->global = args.name;
	return 0;
}

bool
ivwl_fw_unplugged(struct ivwl_firewall *fw, uint32_t output)
{
	fw_obj *o = ivwl_fw_find_as(fw, output, &ivwl_iface_wl_output);

	return o && (o->flags & IVWL_FW_UNPLUGGED);
}

static int
output_release(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	ivwl_fw_drop(fw, msg->object);
	return 0;
}

/* weston 10 dereferences the missing head of an unplugged output. */
static int
output_manager_get_xdg_output(struct ivwl_firewall *fw,
			      const struct ivwl_wire_msg *msg)
{
	struct ivwl_req_zxdg_output_manager_v1_get_xdg_output args;

	ivwl_req_zxdg_output_manager_v1_get_xdg_output_decode(msg, &args);
	if (ivwl_fw_unplugged(fw, args.output))
		return ivwl_fw_refuse(fw, msg, "the wl_output's monitor is "
				      "gone");
	return 0;
}

/* The outputs bound from a global that went are unplugged. */
static void
global_removed(struct ivwl_firewall *fw, uint32_t name)
{
	fw_obj *o;
	uint32_t i;

	for (i = 0; i < fw->nbuckets; i++)
		for (o = fw->buckets[i]; o; o = o->next)
			if (o->iface == IVWL_IFACE_WL_OUTPUT &&
			    o->global == name)
				o->flags |= IVWL_FW_UNPLUGGED;
}

/* ---- wl_compositor, wl_surface, wl_region ---------------------------- */

static int
compositor_create_surface(struct ivwl_firewall *fw,
			  const struct ivwl_wire_msg *msg)
{
	int ret;

	if (fw->vm->surfaces >= IVWL_FW_VM_SURFACES)
		return ivwl_fw_over(fw, msg, "surfaces per VM",
				    IVWL_FW_VM_SURFACES);
	ret = ivwl_fw_add_counted(fw, msg, &ivwl_iface_wl_surface,
				  &fw->surfaces, IVWL_FW_CONN_SURFACES,
				  "surfaces per connection");
	if (ret == 0)
		fw->vm->surfaces++;
	return ret;
}

static int
compositor_create_region(struct ivwl_firewall *fw,
			 const struct ivwl_wire_msg *msg)
{
	return ivwl_fw_add_counted(fw, msg, &ivwl_iface_wl_region,
				   &fw->regions, IVWL_FW_CONN_REGIONS,
				   "wl_regions per connection");
}

/*
 * Rectangles per wl_region, and per surface between commits: pixman
 * merges each into all the others, so the cost grows with the square.
 */
static int
add_rect(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	fw_obj *o = ivwl_fw_self(fw, msg);

	if (!o)
		return 0;
	if (o->amount >= IVWL_FW_MAX_RECTS)
		return ivwl_fw_over(fw, msg, "rectangles", IVWL_FW_MAX_RECTS);
	/* and in all: each is kept in a pixman region of weston's */
	if (fw->rects >= IVWL_FW_CONN_RECTS)
		return ivwl_fw_over(fw, msg, "rectangles per connection",
				    IVWL_FW_CONN_RECTS);
	o->amount++;
	fw->rects++;
	return 0;
}

/* An object's rectangles are gone (region destroyed, damage applied). */
static void
drop_rects(struct ivwl_firewall *fw, fw_obj *o)
{
	if (!o)
		return;
	fw->rects -= o->amount;
	o->amount = 0;
}

static int
region_destroy(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	drop_rects(fw, ivwl_fw_self(fw, msg));
	ivwl_fw_drop(fw, msg->object);
	fw->regions--;
	return 0;
}

static int
surface_destroy(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	fw_obj *s = ivwl_fw_self(fw, msg);

	/*
	 * weston 10 keeps a mapped window's state for its close animation
	 * and later reaches its wl_surface through a NULL resource (at
	 * shutdown among others): the xdg_surface goes first.
	 */
	if (s && ivwl_fw_find_as(fw, s->role_object, &ivwl_iface_xdg_surface))
		return ivwl_fw_refuse(fw, msg, "its xdg_surface %u is alive "
				      "(destroy it first)", s->role_object);
	if (s && (s->flags & IVWL_FW_CONSTRAINED))
		return ivwl_fw_refuse(fw, msg, "a pointer constraint of it is "
				      "alive (destroy it first)");
	fw->surfaces--;
	fw->vm->surfaces--;
	drop_rects(fw, s);
	if (s && s->role_object) {
		fw_obj *role = ivwl_fw_find(fw, s->role_object);

		/* its subsurfaces lose their parent now */
		ivwl_fw_orphan(s);
		/* its role object lives on, inert, until destroyed; marked
		 * itself: a new wl_surface may take the id after delete_id */
		s->flags |= IVWL_FW_GONE;
		if (role)
			role->flags |= IVWL_FW_GONE;
		return 0;
	}
	ivwl_fw_drop(fw, msg->object);
	return 0;
}

static int
surface_attach(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	fw_obj *s = ivwl_fw_self(fw, msg);
	struct ivwl_req_wl_surface_attach args;

	if (!s)
		return 0;
	ivwl_req_wl_surface_attach_decode(msg, &args);
	s->flags &= ~(IVWL_FW_ATTACHED | IVWL_FW_DETACHED);
	s->flags |= args.buffer ? IVWL_FW_ATTACHED : IVWL_FW_DETACHED;
	return 0;
}

static int
surface_commit(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	fw_obj *s = ivwl_fw_self(fw, msg);
	bool window;
	int ret;

	if (!s)
		return 0;
	window = s->role == IVWL_FW_ROLE_POPUP ||
		 s->role == IVWL_FW_ROLE_TOPLEVEL;
	/* weston 10.0.1 then warps the pointer through the gone view */
	if ((s->flags & (IVWL_FW_DETACHED | IVWL_FW_CONSTRAINED)) ==
	    (IVWL_FW_DETACHED | IVWL_FW_CONSTRAINED))
		return ivwl_fw_refuse(fw, msg, "unmaps a surface with a pointer "
				      "constraint (destroy it first)");
	if (window && ivwl_fw_xdg_defunct_commit(fw, s)) {
		fw->absorb = true;
		return 0;
	}
	if (window) {
		ret = ivwl_fw_xdg_parent_commit(fw, msg, s);
		if (ret < 0)
			return ret;
	}
	drop_rects(fw, s);	/* the damage is applied */
	if (s->flags & IVWL_FW_ATTACHED)
		s->flags |= IVWL_FW_MAPPED;
	else if (s->flags & IVWL_FW_DETACHED)
		s->flags &= ~IVWL_FW_MAPPED;
	s->flags &= ~(IVWL_FW_ATTACHED | IVWL_FW_DETACHED | IVWL_FW_TIMESTAMP);
	if (window)
		ivwl_fw_xdg_committed(fw, s);
	return 0;
}

bool
ivwl_firewall_maps_window(const struct ivwl_firewall *fw,
			  const struct ivwl_wire_msg *msg)
{
	const fw_obj *s;

	if (msg->iface != &ivwl_iface_wl_surface ||
	    msg->opcode != IVWL_REQ_WL_SURFACE_COMMIT)
		return false;
	s = ivwl_fw_find_as(fw, msg->object, &ivwl_iface_wl_surface);
	if (!s || (s->role != IVWL_FW_ROLE_TOPLEVEL &&
		   s->role != IVWL_FW_ROLE_POPUP))
		return false;
	return (s->flags & (IVWL_FW_ATTACHED | IVWL_FW_MAPPED | IVWL_FW_GONE)) ==
	       IVWL_FW_ATTACHED;
}

/* Frame callbacks of a surface never shown stay with weston for good. */
static int
surface_frame(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	return ivwl_fw_add_counted(fw, msg, &ivwl_iface_wl_callback,
				   &fw->callbacks, IVWL_FW_CONN_CALLBACKS,
				   "frame callbacks in flight");
}

/*
 * weston divides the buffer by the scale and multiplies sizes by it:
 * a scale past any real output only makes empty or huge surfaces.
 */
static int
surface_set_buffer_scale(struct ivwl_firewall *fw,
			 const struct ivwl_wire_msg *msg)
{
	struct ivwl_req_wl_surface_set_buffer_scale args;

	ivwl_req_wl_surface_set_buffer_scale_decode(msg, &args);
	if (args.scale < 1 || args.scale > 8)
		return ivwl_fw_refuse(fw, msg, "scale %d is not 1 to 8",
				      args.scale);
	return 0;
}

/* ---- wl_subcompositor, wl_subsurface ---------------------------------- */

/* True when the subsurface chain above parent reaches surface. */
static bool
is_ancestor(struct ivwl_firewall *fw, uint32_t surface, fw_obj *parent)
{
	uint32_t steps = 0;

	for (; parent; parent = parent->parent)
		if (parent->id == surface || steps++ > IVWL_FW_CONN_SURFACES)
			return true;	/* a loop past the bound too */
	return false;
}

static int
subcompositor_get_subsurface(struct ivwl_firewall *fw,
			     const struct ivwl_wire_msg *msg)
{
	struct ivwl_req_wl_subcompositor_get_subsurface args;
	fw_obj *s, *parent, *sub;
	uint32_t id;
	int ret;

	ivwl_req_wl_subcompositor_get_subsurface_decode(msg, &args);
	id = args.id;
	s = ivwl_fw_surface(fw, args.surface);
	parent = ivwl_fw_surface(fw, args.parent);

	if (!s || !parent)
		return ivwl_fw_refuse(fw, msg, "a wl_surface the firewall "
				      "does not know");
	if (s == parent)
		return ivwl_fw_refuse(fw, msg, "a surface cannot be its own "
				      "parent");
	if (s->role_object)
		return ivwl_fw_refuse(fw, msg, "wl_surface@%u already has a "
				      "live role object", s->id);
	if (is_ancestor(fw, s->id, parent))
		return ivwl_fw_refuse(fw, msg, "wl_surface@%u is an ancestor "
				      "of its parent", s->id);
	ret = ivwl_fw_take_role(fw, msg, s, IVWL_FW_ROLE_SUBSURFACE);
	if (ret < 0)
		return ret;
	sub = ivwl_fw_add(fw, id, &ivwl_iface_wl_subsurface);
	if (!sub)
		return ivwl_fw_no_memory(fw, msg);
	sub->surface = s->id;
	s->role_object = id;
	ivwl_fw_set_parent(s, parent);
	return 0;
}

static int
subsurface_destroy(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	fw_obj *sub = ivwl_fw_self(fw, msg), *s;

	s = sub ? ivwl_fw_find_as(fw, sub->surface, &ivwl_iface_wl_surface) :
		  NULL;
	/* not a new wl_surface that took the id of its destroyed one */
	if (s && s->role_object == sub->id) {
		s->role_object = 0;
		ivwl_fw_set_parent(s, NULL);
		if (s->flags & IVWL_FW_GONE)
			ivwl_fw_drop(fw, s->id);
	}
	ivwl_fw_drop(fw, msg->object);
	return 0;
}

/*
 * set_position once the parent surface is gone: weston 14 asserts on the
 * missing parent (weston 10 keeps the position for nothing).  The
 * request is legal and a subsurface never gets another parent, so the
 * position can matter to nobody: weston does not see it.
 */
static int
subsurface_set_position(struct ivwl_firewall *fw,
			const struct ivwl_wire_msg *msg)
{
	fw_obj *sub = ivwl_fw_self(fw, msg), *s;

	if (!ivwl_fw_weston_bug(fw, 11, 0))
		return 0;
	s = sub ? ivwl_fw_find_as(fw, sub->surface, &ivwl_iface_wl_surface) :
		  NULL;
	if (!s || !s->parent)
		fw->absorb = true;
	return 0;
}

/* The sibling of wl_subsurface.place_above or place_below. */
static uint32_t
place_sibling(const struct ivwl_wire_msg *msg)
{
	struct ivwl_req_wl_subsurface_place_above above;
	struct ivwl_req_wl_subsurface_place_below below;

	if (ivwl_req_wl_subsurface_place_above_decode(msg, &above))
		return above.sibling;
	ivwl_req_wl_subsurface_place_below_decode(msg, &below);
	return below.sibling;
}

/* place_above/below: the sibling is the parent or shares it. */
static int
subsurface_place(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	fw_obj *sub = ivwl_fw_self(fw, msg), *s;
	fw_obj *sib = ivwl_fw_surface(fw, place_sibling(msg));

	s = sub ? ivwl_fw_find_as(fw, sub->surface, &ivwl_iface_wl_surface) :
		  NULL;
	if (!s || !sib || !s->parent)
		return ivwl_fw_refuse(fw, msg, "no parent to stack in");
	if (sib == s)
		return ivwl_fw_refuse(fw, msg, "a surface is not its own "
				      "sibling");
	if (sib != s->parent &&
	    !(sib->role == IVWL_FW_ROLE_SUBSURFACE && sib->role_object &&
	      sib->parent == s->parent))
		return ivwl_fw_refuse(fw, msg, "wl_surface@%u is neither a "
				      "sibling nor the parent", sib->id);
	return 0;
}

/* ---- wl_seat and its devices ------------------------------------------- */

/* Each keyboard costs weston a keymap fd in flight: bound them. */
static int
seat_get_keyboard(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	int ret;

	if (fw->vm->keyboards >= IVWL_FW_VM_KEYBOARDS)
		return ivwl_fw_over(fw, msg, "keyboards per VM",
				    IVWL_FW_VM_KEYBOARDS);
	ret = ivwl_fw_add_counted(fw, msg, &ivwl_iface_wl_keyboard,
				  &fw->keyboards, IVWL_FW_CONN_KEYBOARDS,
				  "keyboards per connection");
	if (ret == 0)
		fw->vm->keyboards++;
	return ret;
}

static int
keyboard_release(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	ivwl_fw_drop(fw, msg->object);
	fw->keyboards--;
	fw->vm->keyboards--;
	return 0;
}

static int
seat_get_pointer(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	if (fw->pointers >= IVWL_FW_CONN_POINTERS)
		return ivwl_fw_over(fw, msg, "pointers", IVWL_FW_CONN_POINTERS);
	fw->pointers++;
	return 0;
}

static int
pointer_release(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	fw->pointers--;
	return 0;
}

static int
seat_get_touch(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	if (fw->touches >= IVWL_FW_CONN_TOUCHES)
		return ivwl_fw_over(fw, msg, "touch devices",
				    IVWL_FW_CONN_TOUCHES);
	fw->touches++;
	return 0;
}

static int
touch_release(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	fw->touches--;
	return 0;
}

static int
pointer_set_cursor(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	struct ivwl_req_wl_pointer_set_cursor args;

	ivwl_req_wl_pointer_set_cursor_decode(msg, &args);
	if (!args.surface)
		return 0;
	return ivwl_fw_take_role(fw, msg, ivwl_fw_surface(fw, args.surface),
			 IVWL_FW_ROLE_CURSOR);
}

/* ---- data sources: clipboard, primary selection, drag and drop ------- */

static int
create_source(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg,
	      const struct ivwl_interface *iface)
{
	return ivwl_fw_add_counted(fw, msg, iface, &fw->data_sources,
				   IVWL_FW_CONN_DATA_SOURCES, "data sources");
}

static int
manager_create_data_source(struct ivwl_firewall *fw,
			   const struct ivwl_wire_msg *msg)
{
	return create_source(fw, msg, &ivwl_iface_wl_data_source);
}

static int
manager_create_primary_source(struct ivwl_firewall *fw,
			      const struct ivwl_wire_msg *msg)
{
	return create_source(fw, msg,
			     &ivwl_iface_zwp_primary_selection_source_v1);
}

/* The MIME type of wl_data_source.offer or its primary twin. */
static const char *
offer_mime_type(const struct ivwl_wire_msg *msg)
{
	struct ivwl_req_wl_data_source_offer data;
	struct ivwl_req_zwp_primary_selection_source_v1_offer primary;

	if (ivwl_req_wl_data_source_offer_decode(msg, &data))
		return data.mime_type;
	ivwl_req_zwp_primary_selection_source_v1_offer_decode(msg, &primary);
	return primary.mime_type;
}

/* weston keeps every MIME type of a source until the source goes. */
static int
source_offer(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	const char *mime = offer_mime_type(msg);
	uint32_t len = mime ? (uint32_t)strlen(mime) : 0;
	fw_obj *src = ivwl_fw_self(fw, msg);

	if (!src)
		return 0;
	if (len > IVWL_FW_MIME_LENGTH)
		return ivwl_fw_refuse(fw, msg, "a MIME type of %u bytes (at "
				      "most %u)", len, IVWL_FW_MIME_LENGTH);
	len += IVWL_FW_MIME_OVERHEAD;
	if (src->mime_types >= IVWL_FW_SOURCE_MIME_TYPES)
		return ivwl_fw_over(fw, msg, "MIME types per source",
				    IVWL_FW_SOURCE_MIME_TYPES);
	if (fw->mime_bytes + len > IVWL_FW_CONN_MIME_BYTES)
		return ivwl_fw_over(fw, msg, "bytes of MIME types per "
				    "connection", IVWL_FW_CONN_MIME_BYTES);
	if (fw->vm->mime_bytes + len > IVWL_FW_VM_MIME_BYTES)
		return ivwl_fw_over(fw, msg, "bytes of MIME types per VM",
				    IVWL_FW_VM_MIME_BYTES);
	src->mime_types++;
	src->amount += len;
	fw->mime_bytes += len;
	fw->vm->mime_bytes += len;
	return 0;
}

static int
source_destroy(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	fw_obj *src = ivwl_fw_self(fw, msg);

	if (src) {
		fw->mime_bytes -= src->amount;
		fw->vm->mime_bytes -= src->amount;
		ivwl_fw_drop(fw, msg->object);
	}
	fw->data_sources--;
	return 0;
}

/* Once, and not after a drag took the source. */
static int
source_set_actions(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	fw_obj *src = ivwl_fw_self(fw, msg);

	if (src && (src->flags & (IVWL_FW_ACTIONS | IVWL_FW_USED)))
		return ivwl_fw_refuse(fw, msg, "actions set twice or after "
				      "the source was used");
	if (src)
		src->flags |= IVWL_FW_ACTIONS;
	return 0;
}

/* A source goes to weston once: one selection or one drag (used_source). */
static int
use_source(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg,
	   uint32_t source, const struct ivwl_interface *iface)
{
	fw_obj *src = ivwl_fw_find_as(fw, source, iface);

	if (!src)
		return 0;
	if (src->flags & IVWL_FW_USED)
		return ivwl_fw_refuse(fw, msg, "data source %u was used "
				      "already (used_source)", src->id);
	src->flags |= IVWL_FW_USED;
	return 0;
}

/*
 * GTK 3 sets its selection's source again through the same device:
 * weston 10 takes it back and sets it anew, or ignores the old serial.
 * Only another device, or a drag, would put it in two places.
 */
static int
set_selection(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg,
	      uint32_t source, const struct ivwl_interface *iface)
{
	fw_obj *src = ivwl_fw_find_as(fw, source, iface);
	int ret;

	if (src && (src->flags & IVWL_FW_USED) &&
	    src->role_object == msg->object)
		return 0;
	ret = use_source(fw, msg, source, iface);
	if (ret == 0 && src)
		src->role_object = msg->object;
	return ret;
}

static int
data_device_set_selection(struct ivwl_firewall *fw,
			  const struct ivwl_wire_msg *msg)
{
	struct ivwl_req_wl_data_device_set_selection args;

	ivwl_req_wl_data_device_set_selection_decode(msg, &args);
	return set_selection(fw, msg, args.source, &ivwl_iface_wl_data_source);
}

static int
primary_device_set_selection(struct ivwl_firewall *fw,
			     const struct ivwl_wire_msg *msg)
{
	struct ivwl_req_zwp_primary_selection_device_v1_set_selection args;

	ivwl_req_zwp_primary_selection_device_v1_set_selection_decode(msg,
								       &args);
	return set_selection(fw, msg, args.source,
			     &ivwl_iface_zwp_primary_selection_source_v1);
}

static int
data_device_start_drag(struct ivwl_firewall *fw,
		       const struct ivwl_wire_msg *msg)
{
	struct ivwl_req_wl_data_device_start_drag args;
	int ret;

	ivwl_req_wl_data_device_start_drag_decode(msg, &args);
	if (args.icon && args.icon == args.origin)
		return ivwl_fw_refuse(fw, msg, "the drag icon is the origin");
	ret = use_source(fw, msg, args.source, &ivwl_iface_wl_data_source);
	if (ret == 0 && args.icon)
		ret = ivwl_fw_take_role(fw, msg, ivwl_fw_surface(fw, args.icon),
				IVWL_FW_ROLE_DRAG_ICON);
	return ret;
}

/* Only drags' offers take actions (invalid_offer): weston 10 asks its
 * clipboard copy's missing client for a version otherwise. */
static int
offer_set_actions(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	fw_obj *offer = ivwl_fw_find_as(fw, msg->object,
					&ivwl_iface_wl_data_offer);

	if (!offer || !(offer->flags & IVWL_FW_DND))
		return ivwl_fw_refuse(fw, msg, "not the offer of a drag "
				      "(invalid_offer)");
	return 0;
}

static int
offer_destroy(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	ivwl_fw_drop(fw, msg->object);
	return 0;
}

/* ---- wp_viewporter ----------------------------------------------------- */

static int
viewporter_get_viewport(struct ivwl_firewall *fw,
			const struct ivwl_wire_msg *msg)
{
	struct ivwl_req_wp_viewporter_get_viewport args;
	fw_obj *s, *vp;

	ivwl_req_wp_viewporter_get_viewport_decode(msg, &args);
	s = ivwl_fw_surface(fw, args.surface);
	vp = ivwl_fw_add(fw, args.id, &ivwl_iface_wp_viewport);
	if (!vp)
		return ivwl_fw_no_memory(fw, msg);
	vp->surface = s ? s->id : 0;
	return 0;
}

/* What weston 10 keeps of the source height: the last one set. */
static int
viewport_set_source(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	const int32_t unset = -256;	/* -1 as wl_fixed */
	fw_obj *vp = ivwl_fw_self(fw, msg);
	struct ivwl_req_wp_viewport_set_source args;
	int32_t h;

	ivwl_req_wp_viewport_set_source_decode(msg, &args);
	h = args.height;
	if (!vp || (args.x == unset && args.y == unset &&
		    args.width == unset && h == unset))
		return 0;
	if (h & 0xff)
		vp->flags |= IVWL_FW_FRACTION;
	else
		vp->flags &= ~IVWL_FW_FRACTION;
	return 0;
}

/* A destination unset (-1, -1) or of a size an output could show. */
static int
viewport_set_destination(struct ivwl_firewall *fw,
			 const struct ivwl_wire_msg *msg)
{
	struct ivwl_req_wp_viewport_set_destination args;
	int32_t w, h;

	ivwl_req_wp_viewport_set_destination_decode(msg, &args);
	w = args.width;
	h = args.height;
	if ((w == -1 && h == -1) ||
	    (w > 0 && h > 0 && w <= IVWL_FW_MAX_SURFACE_SIZE &&
	     h <= IVWL_FW_MAX_SURFACE_SIZE))
		return 0;
	return ivwl_fw_refuse(fw, msg, "a destination of %d x %d (1 to %d, "
			      "or -1 x -1)", w, h, IVWL_FW_MAX_SURFACE_SIZE);
}

/*
 * weston 10 forgets a destroyed viewport's source width but not its
 * height, and asserts on every later commit of the surface when that
 * height is not whole.  A whole source just before the destroy leaves
 * a harmless height behind.
 */
static int
viewport_destroy(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	fw_obj *vp = ivwl_fw_self(fw, msg), *s;

	s = vp ? ivwl_fw_find_as(fw, vp->surface, &ivwl_iface_wl_surface) :
		 NULL;
	if (vp && (vp->flags & IVWL_FW_FRACTION) && s &&
	    !(s->flags & IVWL_FW_GONE))
		ivwl_fw_inject(fw, msg->object,
			       IVWL_MSG_REQ_WP_VIEWPORT_SET_SOURCE,
			       0, 0, 256, 256);	/* 0, 0, 1 x 1 */
	ivwl_fw_drop(fw, msg->object);
	return 0;
}

/* ---- zwp_pointer_constraints_v1 ----------------------------------------- */

/* One lock or confinement of a surface at a time (already_constrained). */
static int
constrain_pointer(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg,
		  uint32_t id, uint32_t surface,
		  const struct ivwl_interface *iface)
{
	fw_obj *s = ivwl_fw_surface(fw, surface), *c;

	if (!s)
		return ivwl_fw_refuse(fw, msg, "a wl_surface the firewall "
				      "does not know");
	if (s->flags & IVWL_FW_CONSTRAINED)
		return ivwl_fw_refuse(fw, msg, "wl_surface@%u is constrained "
				      "already (already_constrained)", s->id);
	c = ivwl_fw_add(fw, id, iface);
	if (!c)
		return ivwl_fw_no_memory(fw, msg);
	c->surface = s->id;
	s->flags |= IVWL_FW_CONSTRAINED;
	return 0;
}

static int
constraints_lock_pointer(struct ivwl_firewall *fw,
			 const struct ivwl_wire_msg *msg)
{
	struct ivwl_req_zwp_pointer_constraints_v1_lock_pointer args;

	ivwl_req_zwp_pointer_constraints_v1_lock_pointer_decode(msg, &args);
	return constrain_pointer(fw, msg, args.id, args.surface,
				 &ivwl_iface_zwp_locked_pointer_v1);
}

static int
constraints_confine_pointer(struct ivwl_firewall *fw,
			    const struct ivwl_wire_msg *msg)
{
	struct ivwl_req_zwp_pointer_constraints_v1_confine_pointer args;

	ivwl_req_zwp_pointer_constraints_v1_confine_pointer_decode(msg, &args);
	return constrain_pointer(fw, msg, args.id, args.surface,
				 &ivwl_iface_zwp_confined_pointer_v1);
}

static int
constraint_destroy(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	fw_obj *c = ivwl_fw_self(fw, msg), *s;

	s = c ? ivwl_fw_find_as(fw, c->surface, &ivwl_iface_wl_surface) : NULL;
	if (s)
		s->flags &= ~IVWL_FW_CONSTRAINED;
	ivwl_fw_drop(fw, msg->object);
	return 0;
}

/* ---- wp_presentation --------------------------------------------------- */

static int
presentation_feedback(struct ivwl_firewall *fw,
		      const struct ivwl_wire_msg *msg)
{
	return ivwl_fw_add_counted(fw, msg,
				   &ivwl_iface_wp_presentation_feedback,
				   &fw->feedbacks, IVWL_FW_CONN_FEEDBACKS,
				   "presentation feedbacks in flight");
}

/* ---- wp_fifo_manager_v1, wp_commit_timing_manager_v1 --------------------- */

/* wayland-protocols 1.38 and later (their descriptors' since) */
#if defined(IVWL_HAVE_WP_FIFO_V1) || defined(IVWL_HAVE_WP_COMMIT_TIMER_V1)

/*
 * One wp_fifo_v1 or wp_commit_timer_v1 per wl_surface (already_exists,
 * commit_timer_exists); once the surface is gone, only its destructor
 * may follow (check_inert: surface_destroyed).  flag marks the surface.
 */
static int
pacer_new(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg,
	  uint32_t id, uint32_t surface, const struct ivwl_interface *iface,
	  uint32_t flag)
{
	fw_obj *s = ivwl_fw_surface(fw, surface), *o;

	if (!s)
		return ivwl_fw_refuse(fw, msg, "a wl_surface the firewall "
				      "does not know");
	if (s->flags & flag)
		return ivwl_fw_refuse(fw, msg, "wl_surface@%u has a %s "
				      "already (%s)", s->id, iface->name,
				      flag == IVWL_FW_FIFO ? "already_exists" :
				      "commit_timer_exists");
	o = ivwl_fw_add(fw, id, iface);
	if (!o)
		return ivwl_fw_no_memory(fw, msg);
	o->surface = s->id;
	s->flags |= flag;
	return 0;
}

/* Its surface may have another once it is gone. */
static void
pacer_destroy(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg,
	      uint32_t flag)
{
	fw_obj *o = ivwl_fw_self(fw, msg), *s;

	s = o ? ivwl_fw_own_surface(fw, o) : NULL;
	if (s)
		s->flags &= ~flag;
	ivwl_fw_drop(fw, msg->object);
}
#endif

#ifdef IVWL_HAVE_WP_FIFO_V1
static int
fifo_manager_get_fifo(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	struct ivwl_req_wp_fifo_manager_v1_get_fifo args;

	ivwl_req_wp_fifo_manager_v1_get_fifo_decode(msg, &args);
	return pacer_new(fw, msg, args.id, args.surface,
			 &ivwl_iface_wp_fifo_v1, IVWL_FW_FIFO);
}

static int
fifo_destroy(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	pacer_destroy(fw, msg, IVWL_FW_FIFO);
	return 0;
}
#endif

#ifdef IVWL_HAVE_WP_COMMIT_TIMER_V1
static int
commit_timing_get_timer(struct ivwl_firewall *fw,
			const struct ivwl_wire_msg *msg)
{
	struct ivwl_req_wp_commit_timing_manager_v1_get_timer args;

	ivwl_req_wp_commit_timing_manager_v1_get_timer_decode(msg, &args);
	return pacer_new(fw, msg, args.id, args.surface,
			 &ivwl_iface_wp_commit_timer_v1, IVWL_FW_TIMER);
}

/* A whole time (invalid_timestamp), once per commit (timestamp_exists). */
static int
commit_timer_set_timestamp(struct ivwl_firewall *fw,
			   const struct ivwl_wire_msg *msg)
{
	struct ivwl_req_wp_commit_timer_v1_set_timestamp args;
	fw_obj *o = ivwl_fw_self(fw, msg);
	fw_obj *s = o ? ivwl_fw_own_surface(fw, o) : NULL;
	uint32_t nsec;

	ivwl_req_wp_commit_timer_v1_set_timestamp_decode(msg, &args);
	nsec = args.tv_nsec;
	if (nsec >= 1000000000u)
		return ivwl_fw_refuse(fw, msg, "tv_nsec %u is not below a "
				      "second (invalid_timestamp)", nsec);
	if (!s)
		return 0;
	if (s->flags & IVWL_FW_TIMESTAMP)
		return ivwl_fw_refuse(fw, msg, "wl_surface@%u has a time for "
				      "its next commit already "
				      "(timestamp_exists)", s->id);
	s->flags |= IVWL_FW_TIMESTAMP;
	return 0;
}

static int
commit_timer_destroy(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	pacer_destroy(fw, msg, IVWL_FW_TIMER);
	return 0;
}
#endif

/* ---- the table --------------------------------------------------------- */

#define RULE(iface, req, fn) \
	{ &ivwl_iface_##iface, IVWL_REQ_##req, fn }

const struct ivwl_fw_rule ivwl_fw_core_rules[] = {
	RULE(wl_registry, WL_REGISTRY_BIND, registry_bind),
	RULE(wl_output, WL_OUTPUT_RELEASE, output_release),
	RULE(zxdg_output_manager_v1, ZXDG_OUTPUT_MANAGER_V1_GET_XDG_OUTPUT,
	     output_manager_get_xdg_output),
	RULE(wl_compositor, WL_COMPOSITOR_CREATE_SURFACE,
	     compositor_create_surface),
	RULE(wl_compositor, WL_COMPOSITOR_CREATE_REGION,
	     compositor_create_region),
	RULE(wl_region, WL_REGION_DESTROY, region_destroy),
	RULE(wl_region, WL_REGION_ADD, add_rect),
	RULE(wl_region, WL_REGION_SUBTRACT, add_rect),
	RULE(wl_surface, WL_SURFACE_DESTROY, surface_destroy),
	RULE(wl_surface, WL_SURFACE_ATTACH, surface_attach),
	RULE(wl_surface, WL_SURFACE_DAMAGE, add_rect),
	RULE(wl_surface, WL_SURFACE_DAMAGE_BUFFER, add_rect),
	RULE(wl_surface, WL_SURFACE_FRAME, surface_frame),
	RULE(wl_surface, WL_SURFACE_COMMIT, surface_commit),
	RULE(wl_surface, WL_SURFACE_SET_BUFFER_SCALE,
	     surface_set_buffer_scale),
	RULE(wl_subcompositor, WL_SUBCOMPOSITOR_GET_SUBSURFACE,
	     subcompositor_get_subsurface),
	RULE(wl_subsurface, WL_SUBSURFACE_DESTROY, subsurface_destroy),
	RULE(wl_subsurface, WL_SUBSURFACE_SET_POSITION,
	     subsurface_set_position),
	RULE(wl_subsurface, WL_SUBSURFACE_PLACE_ABOVE, subsurface_place),
	RULE(wl_subsurface, WL_SUBSURFACE_PLACE_BELOW, subsurface_place),
	RULE(wl_seat, WL_SEAT_GET_KEYBOARD, seat_get_keyboard),
	RULE(wl_seat, WL_SEAT_GET_POINTER, seat_get_pointer),
	RULE(wl_seat, WL_SEAT_GET_TOUCH, seat_get_touch),
	RULE(wl_keyboard, WL_KEYBOARD_RELEASE, keyboard_release),
	RULE(wl_pointer, WL_POINTER_RELEASE, pointer_release),
	RULE(wl_touch, WL_TOUCH_RELEASE, touch_release),
	RULE(wl_pointer, WL_POINTER_SET_CURSOR, pointer_set_cursor),
	RULE(wl_data_device_manager, WL_DATA_DEVICE_MANAGER_CREATE_DATA_SOURCE,
	     manager_create_data_source),
	RULE(wl_data_source, WL_DATA_SOURCE_OFFER, source_offer),
	RULE(wl_data_source, WL_DATA_SOURCE_DESTROY, source_destroy),
	RULE(wl_data_source, WL_DATA_SOURCE_SET_ACTIONS, source_set_actions),
	RULE(wl_data_device, WL_DATA_DEVICE_SET_SELECTION,
	     data_device_set_selection),
	RULE(wl_data_device, WL_DATA_DEVICE_START_DRAG,
	     data_device_start_drag),
	RULE(zwp_primary_selection_device_manager_v1,
	     ZWP_PRIMARY_SELECTION_DEVICE_MANAGER_V1_CREATE_SOURCE,
	     manager_create_primary_source),
	RULE(zwp_primary_selection_source_v1,
	     ZWP_PRIMARY_SELECTION_SOURCE_V1_OFFER, source_offer),
	RULE(zwp_primary_selection_source_v1,
	     ZWP_PRIMARY_SELECTION_SOURCE_V1_DESTROY, source_destroy),
	RULE(zwp_primary_selection_device_v1,
	     ZWP_PRIMARY_SELECTION_DEVICE_V1_SET_SELECTION,
	     primary_device_set_selection),
	RULE(wp_presentation, WP_PRESENTATION_FEEDBACK, presentation_feedback),
	RULE(wl_data_offer, WL_DATA_OFFER_SET_ACTIONS, offer_set_actions),
	RULE(wl_data_offer, WL_DATA_OFFER_DESTROY, offer_destroy),
	RULE(wp_viewporter, WP_VIEWPORTER_GET_VIEWPORT,
	     viewporter_get_viewport),
	RULE(wp_viewport, WP_VIEWPORT_SET_SOURCE, viewport_set_source),
	RULE(wp_viewport, WP_VIEWPORT_DESTROY, viewport_destroy),
	RULE(wp_viewport, WP_VIEWPORT_SET_DESTINATION,
	     viewport_set_destination),
	RULE(zwp_pointer_constraints_v1,
	     ZWP_POINTER_CONSTRAINTS_V1_LOCK_POINTER, constraints_lock_pointer),
	RULE(zwp_pointer_constraints_v1,
	     ZWP_POINTER_CONSTRAINTS_V1_CONFINE_POINTER,
	     constraints_confine_pointer),
	RULE(zwp_locked_pointer_v1, ZWP_LOCKED_POINTER_V1_DESTROY,
	     constraint_destroy),
	RULE(zwp_confined_pointer_v1, ZWP_CONFINED_POINTER_V1_DESTROY,
	     constraint_destroy),
	/* wayland-protocols 1.38 and later (their descriptors' since) */
#ifdef IVWL_HAVE_WP_FIFO_V1
	RULE(wp_fifo_manager_v1, WP_FIFO_MANAGER_V1_GET_FIFO,
	     fifo_manager_get_fifo),
	RULE(wp_fifo_v1, WP_FIFO_V1_DESTROY, fifo_destroy),
#endif
#ifdef IVWL_HAVE_WP_COMMIT_TIMER_V1
	RULE(wp_commit_timing_manager_v1,
	     WP_COMMIT_TIMING_MANAGER_V1_GET_TIMER, commit_timing_get_timer),
	RULE(wp_commit_timer_v1, WP_COMMIT_TIMER_V1_SET_TIMESTAMP,
	     commit_timer_set_timestamp),
	RULE(wp_commit_timer_v1, WP_COMMIT_TIMER_V1_DESTROY,
	     commit_timer_destroy),
#endif
};

const uint32_t ivwl_fw_core_rule_count =
	sizeof(ivwl_fw_core_rules) / sizeof(ivwl_fw_core_rules[0]);

/* ---- events ------------------------------------------------------------ */

/*
 * Callbacks and feedbacks end with done, presented or discarded (their
 * destructor events), or, when weston destroys them without any of those
 * as their surface goes, with the delete_id libwayland sends for the id.
 * Whichever comes first ends them; the model object goes with it, so
 * the delete_id after a done ends nothing more.
 */
void
ivwl_fw_rules_event(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	struct ivwl_evt_wl_registry_global_remove removed;
	struct ivwl_evt_wl_data_device_enter enter;
	struct ivwl_evt_wl_display_delete_id deleted;
	uint32_t id;
	fw_obj *o;

	if (ivwl_evt_wl_registry_global_remove_decode(msg, &removed)) {
		global_removed(fw, removed.name);
		return;
	}
	/* the offer a drag brings: the only kind that takes actions */
	if (ivwl_evt_wl_data_device_enter_decode(msg, &enter)) {
		id = enter.id;
		o = id ? ivwl_fw_add(fw, id, &ivwl_iface_wl_data_offer) : NULL;
		if (o)
			o->flags |= IVWL_FW_DND;
		return;
	}
	if (ivwl_evt_wl_display_delete_id_decode(msg, &deleted))
		id = deleted.id;
	else if ((msg->iface == &ivwl_iface_wl_callback ||
		  msg->iface == &ivwl_iface_wp_presentation_feedback) &&
		 (msg->message->flags & IVWL_MESSAGE_DESTRUCTOR))
		id = msg->object;
	else
		return;
	o = ivwl_fw_find(fw, id);
	if (!o)
		return;
	if (o->iface == IVWL_IFACE_WL_CALLBACK)
		fw->callbacks--;
	else if (o->iface == IVWL_IFACE_WP_PRESENTATION_FEEDBACK)
		fw->feedbacks--;
	else
		return;
	ivwl_fw_drop(fw, o->id);
}
