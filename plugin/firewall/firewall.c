/* SPDX-License-Identifier: MIT */
/*
 * The protocol firewall's frame: the model's object table, the checks
 * every request gets whatever its message, and the lookup of the rule
 * of each message (firewall-rules.c).
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "firewall-model.h"

#define FIRST_BUCKETS 64u

static uint32_t
bucket_of(const struct ivwl_firewall *fw, uint32_t id)
{
	/* ids are dense: a multiplicative hash spreads neighbours */
	return (id * 2654435761u) & (fw->nbuckets - 1);
}

struct ivwl_fw_object *
ivwl_fw_find(const struct ivwl_firewall *fw, uint32_t id)
{
	struct ivwl_fw_object *o;

	if (!fw->buckets)
		return NULL;
	for (o = fw->buckets[bucket_of(fw, id)]; o; o = o->next)
		if (o->id == id)
			return o;
	return NULL;
}

struct ivwl_fw_object *
ivwl_fw_find_as(const struct ivwl_firewall *fw, uint32_t id,
		const struct ivwl_interface *iface)
{
	struct ivwl_fw_object *o = ivwl_fw_find(fw, id);

	return o && o->iface == iface->index ? o : NULL;
}

static int
grow(struct ivwl_firewall *fw)
{
	uint32_t n = fw->nbuckets ? fw->nbuckets * 2 : FIRST_BUCKETS, i;
	struct ivwl_fw_object **old = fw->buckets, *o, *next;
	uint32_t old_n = fw->nbuckets;

	fw->buckets = calloc(n, sizeof(*fw->buckets));
	if (!fw->buckets) {
		fw->buckets = old;
		return -ENOMEM;
	}
	fw->nbuckets = n;
	for (i = 0; i < old_n; i++) {
		for (o = old[i]; o; o = next) {
			next = o->next;
			o->next = fw->buckets[bucket_of(fw, o->id)];
			fw->buckets[bucket_of(fw, o->id)] = o;
		}
	}
	free(old);
	return 0;
}

/*
 * The window budget follows the model itself, so that no way an object
 * leaves it (a rule, an id reused, the connection's end) leaks a count.
 */
static void
count_window(struct ivwl_firewall *fw, const struct ivwl_fw_object *o,
	     int delta)
{
	if (o->iface != IVWL_IFACE_XDG_TOPLEVEL &&
	    o->iface != IVWL_IFACE_XDG_POPUP)
		return;
	fw->windows += (uint32_t)delta;
	if (fw->vm)
		fw->vm->windows += (uint32_t)delta;
}

struct ivwl_fw_object *
ivwl_fw_add(struct ivwl_firewall *fw, uint32_t id,
	    const struct ivwl_interface *iface)
{
	struct ivwl_fw_object *o;
	uint32_t b;

	/* a stale entry of a reused id is not the new object */
	ivwl_fw_drop(fw, id);
	if (fw->tracked >= fw->nbuckets && grow(fw) < 0)
		return NULL;
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->id = id;
	o->iface = iface->index;
	o->seq = ++fw->seq;
	wl_list_init(&o->children);
	wl_list_init(&o->link);
	b = bucket_of(fw, id);
	o->next = fw->buckets[b];
	fw->buckets[b] = o;
	fw->tracked++;
	count_window(fw, o, 1);
	return o;
}

void
ivwl_fw_set_parent(struct ivwl_fw_object *o, struct ivwl_fw_object *parent)
{
	wl_list_remove(&o->link);
	wl_list_init(&o->link);
	o->parent = parent;
	if (parent)
		wl_list_insert(&parent->children, &o->link);
}

void
ivwl_fw_orphan(struct ivwl_fw_object *o)
{
	struct ivwl_fw_object *child, *tmp;

	wl_list_for_each_safe(child, tmp, &o->children, link)
		ivwl_fw_set_parent(child, NULL);
}

void
ivwl_fw_drop(struct ivwl_firewall *fw, uint32_t id)
{
	struct ivwl_fw_object **pp, *o;

	if (!fw->buckets)
		return;
	for (pp = &fw->buckets[bucket_of(fw, id)]; (o = *pp); pp = &o->next) {
		if (o->id != id)
			continue;
		*pp = o->next;
		ivwl_fw_set_parent(o, NULL);
		ivwl_fw_orphan(o);
		count_window(fw, o, -1);
		free(o);
		fw->tracked--;
		return;
	}
}

static int
vrefuse(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg,
	const char *fmt, va_list ap)
{
	int n;

	n = snprintf(fw->why, sizeof(fw->why), "%s@%u.%s: ", msg->iface->name,
		     msg->object, msg->message->name);
	if (n < 0 || (size_t)n >= sizeof(fw->why))
		return -EPROTO;
	vsnprintf(fw->why + n, sizeof(fw->why) - (size_t)n, fmt, ap);
	return -EPROTO;
}

int
ivwl_fw_refuse(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg,
	       const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vrefuse(fw, msg, fmt, ap);
	va_end(ap);
	return ret;
}

int
ivwl_fw_over(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg,
	     const char *what, uint32_t limit)
{
	ivwl_fw_refuse(fw, msg, "over the budget of %u %s", limit, what);
	return -EDQUOT;
}

static const char *const role_names[] = {
	[IVWL_FW_ROLE_NONE] = "none",
	[IVWL_FW_ROLE_XDG] = "xdg_surface",
	[IVWL_FW_ROLE_TOPLEVEL] = "xdg_toplevel",
	[IVWL_FW_ROLE_POPUP] = "xdg_popup",
	[IVWL_FW_ROLE_SUBSURFACE] = "wl_subsurface",
	[IVWL_FW_ROLE_CURSOR] = "cursor",
	[IVWL_FW_ROLE_DRAG_ICON] = "drag icon",
};

/* The id of msg's first new_id argument (0 if none: the rules know). */
static uint32_t
first_new_id(const struct ivwl_wire_msg *msg)
{
	unsigned int i;

	for (i = 0; i < msg->nargs; i++)
		if (msg->args[i].type == 'n')
			return msg->args[i].value;
	return 0;
}

struct ivwl_fw_object *
ivwl_fw_self(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	return ivwl_fw_find(fw, msg->object);
}

struct ivwl_fw_object *
ivwl_fw_surface(struct ivwl_firewall *fw, uint32_t surface)
{
	return ivwl_fw_find_as(fw, surface, &ivwl_iface_wl_surface);
}

int
ivwl_fw_no_memory(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	ivwl_fw_refuse(fw, msg, "out of memory");
	return -ENOMEM;
}

int
ivwl_fw_add_counted(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg,
		    const struct ivwl_interface *iface, uint32_t *count,
		    uint32_t limit, const char *what)
{
	if (*count >= limit)
		return ivwl_fw_over(fw, msg, what, limit);
	if (!ivwl_fw_add(fw, first_new_id(msg), iface))
		return ivwl_fw_no_memory(fw, msg);
	(*count)++;
	return 0;
}

/*
 * A surface takes role once: it may take the same role again only when
 * no role object of it lives (wl_surface: "role" error).
 */
int
ivwl_fw_take_role(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg,
		  struct ivwl_fw_object *s, enum ivwl_fw_role role)
{
	if (!s)
		return ivwl_fw_refuse(fw, msg, "a wl_surface the firewall "
				      "does not know");
	if (s->role != IVWL_FW_ROLE_NONE && s->role != role)
		return ivwl_fw_refuse(fw, msg, "wl_surface@%u already has the "
				      "%s role", s->id, role_names[s->role]);
	s->role = role;
	return 0;
}

/* Rules by interface index, then opcode: built once from the tables. */
static const struct ivwl_fw_rule **rule_index[IVWL_IFACE_COUNT];
static pthread_once_t rule_index_once = PTHREAD_ONCE_INIT;
static bool rule_index_failed;

static void
index_rules(const struct ivwl_fw_rule *table, uint32_t count)
{
	const struct ivwl_fw_rule *r;
	uint32_t i;

	for (i = 0; i < count; i++) {
		r = &table[i];
		if (!rule_index[r->iface->index])
			rule_index[r->iface->index] = calloc(
				r->iface->request_count,
				sizeof(**rule_index));
		if (!rule_index[r->iface->index] ||
		    r->opcode >= r->iface->request_count) {
			rule_index_failed = true;
			return;
		}
		rule_index[r->iface->index][r->opcode] = r;
	}
}

static void
build_rule_index(void)
{
	index_rules(ivwl_fw_core_rules, ivwl_fw_core_rule_count);
	index_rules(ivwl_fw_xdg_rules, ivwl_fw_xdg_rule_count);
}

bool
ivwl_firewall_has_rule(const struct ivwl_interface *iface, uint16_t opcode)
{
	pthread_once(&rule_index_once, build_rule_index);
	return rule_index[iface->index] && opcode < iface->request_count &&
	       rule_index[iface->index][opcode];
}

int
ivwl_firewall_init(struct ivwl_firewall *fw,
		   const struct ivwl_wire_map *objects,
		   struct ivwl_firewall_totals *vm)
{
	pthread_once(&rule_index_once, build_rule_index);
	memset(fw, 0, sizeof(*fw));
	fw->objects = objects;
	fw->vm = vm;
	if (rule_index_failed)
		return -ENOMEM;
	return grow(fw);
}

void
ivwl_firewall_release(struct ivwl_firewall *fw)
{
	struct ivwl_fw_object *o, *next;
	uint32_t i;

	for (i = 0; i < fw->nbuckets; i++) {
		for (o = fw->buckets[i]; o; o = next) {
			next = o->next;
			free(o);
		}
	}
	free(fw->buckets);
	if (fw->vm) {
		fw->vm->objects -= fw->counted_objects;
		fw->vm->surfaces -= fw->surfaces;
		fw->vm->windows -= fw->windows;
		fw->vm->keyboards -= fw->keyboards;
		fw->vm->mime_bytes -= fw->mime_bytes;
	}
	memset(fw, 0, sizeof(*fw));
}

/* The VM's object count follows the map, which changes after us. */
static void
count_objects(struct ivwl_firewall *fw)
{
	uint32_t live = fw->objects->client.live;

	fw->vm->objects += live - fw->counted_objects;
	fw->counted_objects = live;
}

static uint32_t
new_ids(const struct ivwl_wire_msg *msg)
{
	uint32_t i, n = 0;

	for (i = 0; i < msg->nargs; i++)
		if (msg->args[i].type == 'n' && msg->args[i].value)
			n++;
	return n;
}

/*
 * What libwayland would check later, checked here so that the log says
 * which argument, and what it would not: enum values.
 */
static int
check_args(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	const struct ivwl_message *m = msg->message;
	const struct ivwl_interface *want;
	struct ivwl_wire_object o;
	uint32_t i, v;

	for (i = 0; i < msg->nargs; i++) {
		v = msg->args[i].value;
		if (m->enums && m->enums[i] &&
		    !ivwl_wire_enum_valid(m->enums[i], v))
			return ivwl_fw_refuse(fw, msg, "argument %u: %u is "
					      "no value of %s", i, v,
					      m->enums[i]->name);
		/* the map takes new ids after the rules: none may be in use
		 * while a rule looks at the model */
		if (msg->args[i].type == 'n' && v != 0 &&
		    ivwl_wire_map_lookup(fw->objects, v, &o) == 0)
			return ivwl_fw_refuse(fw, msg, "argument %u: new id %u "
					      "is in use", i, v);
		if (msg->args[i].type != 'o' || v == 0)
			continue;
		if (ivwl_wire_map_lookup(fw->objects, v, &o) < 0 || o.zombie)
			return ivwl_fw_refuse(fw, msg, "argument %u: object "
					      "%u is not alive", i, v);
		want = m->types ? m->types[i] : NULL;
		if (want && o.iface != want)
			return ivwl_fw_refuse(fw, msg, "argument %u: object "
					      "%u is a %s, not a %s", i, v,
					      o.iface->name, want->name);
	}
	return 0;
}

struct ivwl_fw_object *
ivwl_fw_own_surface(const struct ivwl_firewall *fw,
		    const struct ivwl_fw_object *o)
{
	struct ivwl_fw_object *s;

	s = ivwl_fw_find_as(fw, o->surface, &ivwl_iface_wl_surface);
	/* made after o: a new wl_surface that took the id of o's */
	if (!s || (s->flags & IVWL_FW_GONE) || (o->flags & IVWL_FW_GONE) ||
	    s->seq > o->seq)
		return NULL;
	return s;
}

/*
 * A role object whose wl_surface is destroyed is inert (wl_subsurface,
 * wp_viewport, xdg_surface say so; wp_fifo_v1 and wp_commit_timer_v1
 * call the rest surface_destroyed): only its destructor may follow.
 */
static int
check_inert(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	struct ivwl_fw_object *o = ivwl_fw_find(fw, msg->object);

	if (!o || !o->surface || (msg->message->flags &
				  IVWL_MESSAGE_DESTRUCTOR))
		return 0;
	if (ivwl_fw_own_surface(fw, o))
		return 0;
	return ivwl_fw_refuse(fw, msg, "its wl_surface is destroyed: only "
			      "destroy may follow");
}

void
ivwl_fw_inject(struct ivwl_firewall *fw, uint32_t object,
	       const struct ivwl_message *m, ...)
{
	va_list ap;
	int size;

	va_start(ap, m);
	size = ivwl_wire_vwrite_msg(fw->inject + fw->inject_len,
				    sizeof(fw->inject) - fw->inject_len,
				    object, m, ap);
	va_end(ap);
	if (size > 0)
		fw->inject_len += (uint32_t)size;
}

int
ivwl_firewall_request(struct ivwl_firewall *fw,
		      const struct ivwl_wire_msg *msg, uint8_t *bytes,
		      const char **why)
{
	const struct ivwl_fw_rule *const *rules;
	uint32_t more;
	int ret;

	*why = fw->why;
	fw->bytes = bytes;
	fw->inject_len = 0;
	fw->absorb = false;
	count_objects(fw);
	more = new_ids(msg);
	if (more && fw->objects->client.live + more > IVWL_FW_CONN_OBJECTS)
		return ivwl_fw_over(fw, msg, "objects per connection",
				    IVWL_FW_CONN_OBJECTS);
	if (more && fw->vm->objects + more > IVWL_FW_VM_OBJECTS)
		return ivwl_fw_over(fw, msg, "objects per VM",
				    IVWL_FW_VM_OBJECTS);
	ret = check_args(fw, msg);
	if (ret == 0)
		ret = check_inert(fw, msg);
	if (ret < 0)
		return ret;
	rules = rule_index[msg->iface->index];
	if (rules && rules[msg->opcode])
		ret = rules[msg->opcode]->check(fw, msg);
	/*
	 * Counted now, not at this connection's next message: the map takes
	 * them after us, and another connection of the VM may ask first.
	 */
	if (ret == 0) {
		fw->vm->objects += more;
		fw->counted_objects += more;
	}
	return ret;
}

void
ivwl_firewall_event(struct ivwl_firewall *fw, const struct ivwl_wire_msg *msg)
{
	count_objects(fw);
	ivwl_fw_rules_event(fw, msg);
}

/*
 * Where an object goes when a connection ends, as a client that ends its
 * windows cleanly would: popups (newest first), toplevels, xdg_surfaces,
 * subsurfaces, surfaces.  -1: not ended by the plugin.
 */
static int
teardown_rank(const struct ivwl_fw_object *o)
{
	switch (o->iface) {
	case IVWL_IFACE_XDG_POPUP:
		return 0;
	case IVWL_IFACE_XDG_TOPLEVEL:
		return 1;
	case IVWL_IFACE_XDG_SURFACE:
		return 2;
	case IVWL_IFACE_WL_SUBSURFACE:
		return 3;
	case IVWL_IFACE_WL_SURFACE:
		return o->flags & IVWL_FW_GONE ? -1 : 4;
	default:
		return -1;
	}
}

static int
teardown_first(const void *a, const void *b)
{
	const struct ivwl_fw_object *x = *(const struct ivwl_fw_object **)a;
	const struct ivwl_fw_object *y = *(const struct ivwl_fw_object **)b;
	int rx = teardown_rank(x), ry = teardown_rank(y);

	if (rx != ry)
		return rx < ry ? -1 : 1;
	return x->seq < y->seq ? 1 : x->seq > y->seq ? -1 : 0;
}

/* The objects of rank up to last_rank in teardown order, at most max. */
static uint32_t
in_teardown_order(const struct ivwl_firewall *fw, uint32_t *ids,
		  uint32_t max, int last_rank)
{
	struct ivwl_fw_object **found, *o;
	uint32_t i, n = 0;
	int rank;

	if (fw->tracked == 0)
		return 0;
	found = calloc(fw->tracked, sizeof(*found));
	if (!found)
		return 0;
	for (i = 0; i < fw->nbuckets; i++) {
		for (o = fw->buckets[i]; o; o = o->next) {
			rank = teardown_rank(o);
			if (rank >= 0 && rank <= last_rank)
				found[n++] = o;
		}
	}
	qsort(found, n, sizeof(*found), teardown_first);
	if (n > max)
		n = max;
	for (i = 0; i < n; i++)
		ids[i] = found[i]->id;
	free(found);
	return n;
}

uint32_t
ivwl_firewall_popups(const struct ivwl_firewall *fw, uint32_t *ids,
		     uint32_t max)
{
	return in_teardown_order(fw, ids, max, 0);
}

static int
id_order(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Appends a role object's (an xdg_toplevel's or xdg_popup's) xdg_surface
 * and wl_surface to out (at *n) if they are still to be ended; *n
 * counts what out holds.
 */
static void
window_objects(const struct ivwl_firewall *fw,
	       const struct ivwl_fw_object *role, uint32_t *out, uint32_t *n)
{
	const struct ivwl_fw_object *xdg, *s;

	xdg = ivwl_fw_find(fw, role->xdg_surface);
	if (xdg && teardown_rank(xdg) == 2)
		out[(*n)++] = xdg->id;
	s = ivwl_fw_find(fw, role->surface);
	if (s && teardown_rank(s) == 4)
		out[(*n)++] = s->id;
}

uint32_t
ivwl_firewall_teardown(const struct ivwl_firewall *fw, uint32_t **ids)
{
	const struct ivwl_fw_object *o;
	uint32_t *order, *gone, *out, n, i, k = 0, windows;
	size_t size = fw->tracked ? fw->tracked : 1;

	order = calloc(size, sizeof(*order));
	gone = calloc(size, sizeof(*gone));
	out = calloc(size, sizeof(*out));
	*ids = out;
	if (!order || !gone || !out) {
		free(order);
		free(gone);
		return 0;
	}
	n = in_teardown_order(fw, order, fw->tracked, 4);
	/* popups, then toplevels, each with its xdg_surface and wl_surface */
	for (i = 0; i < n; i++) {
		o = ivwl_fw_find(fw, order[i]);
		if (teardown_rank(o) > 1)
			break;
		out[k++] = o->id;
		window_objects(fw, o, out, &k);
	}
	/* the rest in their order, without what went with a window */
	windows = k;
	memcpy(gone, out, windows * sizeof(*out));
	qsort(gone, windows, sizeof(*gone), id_order);
	for (; i < n; i++)
		if (!bsearch(&order[i], gone, windows, sizeof(*gone),
			     id_order))
			out[k++] = order[i];
	free(order);
	free(gone);
	return k;
}
