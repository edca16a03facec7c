/* SPDX-License-Identifier: MIT */
/*
 * The fuzzer's model of one connection: the ids it created and their
 * interfaces, what the server created and announced, the serials it
 * owes answers to, and the trace of every request it sent.  Every
 * request goes through ivwl_fuzz_emit(), which decodes it against the
 * same tables the plugin uses, so the model follows what was really on
 * the wire whichever part of the fuzzer built it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "ivwl-protocols.h"

struct decoded_arg {
	char type;
	uint32_t value;
	const char *str;	/* s: contents, NULL when null */
	uint32_t len;		/* s, a: bytes (s with its NUL) */
};

struct decoded {
	const struct ivwl_interface *iface;
	const struct ivwl_message *msg;
	uint32_t version;
	uint32_t nargs;
	struct decoded_arg args[IVWL_WIRE_MAX_ARGS];
};

/* Walks m's signature over the size bytes of args; false if short. */
static bool
decode_args(const uint8_t *p, uint32_t size, const struct ivwl_message *m,
	    struct decoded *d)
{
	uint32_t pos = 0, k, n, padded;
	const char *sig = m->signature;

	d->nargs = 0;
	for (k = 0; sig[k] && k < IVWL_WIRE_MAX_ARGS; k++) {
		struct decoded_arg *a = &d->args[k];

		a->type = sig[k];
		a->str = NULL;
		a->len = 0;
		a->value = 0;
		d->nargs = k + 1;
		if (a->type == 'h')
			continue;
		if (size - pos < 4)
			return false;
		memcpy(&a->value, p + pos, 4);
		pos += 4;
		if (a->type != 's' && a->type != 'a')
			continue;
		n = a->value;
		padded = (n + 3u) & ~3u;
		if (padded < n || padded > size - pos)
			return false;
		a->len = n;
		if (a->type == 's' && n > 0 && p[pos + n - 1] == '\0')
			a->str = (const char *)p + pos;
		pos += padded;
	}
	return true;
}

/* ---- objects -------------------------------------------------------- */

struct ivwl_fuzz_conn *
ivwl_fuzz_conn_new(struct ivwl_fuzz *f, uint32_t slot)
{
	const struct ivwl_layout *l = &f->h.layout;
	struct ivwl_fuzz_conn *c = calloc(1, sizeof(*c));
	uint64_t share;

	if (!c)
		return NULL;
	c->trace.lines = calloc(f->ring_cap, sizeof(char *));
	if (!c->trace.lines) {
		free(c);
		return NULL;
	}
	c->trace.cap = f->ring_cap;
	c->slot = slot;
	c->number = f->next_conn++;
	c->obj[IVWL_WIRE_DISPLAY_ID].iface = &ivwl_iface_wl_display;
	c->obj[IVWL_WIRE_DISPLAY_ID].version = 1;
	c->obj[IVWL_WIRE_DISPLAY_ID].state = IVWL_FUZZ_LIVE;
	c->count = 2;
	c->channel_next = 1;
	/* slots never share pool memory: a crash stays one slot's doing */
	share = (l->heap_size / f->nslots) & ~(uint64_t)(IVWL_PAGE_SIZE - 1);
	c->heap_off = l->heap_offset + share * slot;
	c->heap_len = share;
	c->careful = ivwl_rnd_below(&f->h, 4) != 0;
	if (f->violate_permille < 1000) {
		c->shadow = ivwl_fuzz_shadow_new();
		if (!c->shadow) {
			free(c->trace.lines);
			free(c);
			return NULL;
		}
	}
	f->st.conns++;
	return c;
}

static void
ring_push(struct ivwl_fuzz_ring *r, const char *line)
{
	uint32_t at = (r->head + r->count) % r->cap;
	char *copy = strdup(line);

	if (!copy)
		return;
	if (r->count == r->cap) {
		free(r->lines[r->head]);
		r->lines[r->head] = copy;
		r->head = (r->head + 1) % r->cap;
		r->dropped++;
		return;
	}
	r->lines[at] = copy;
	r->count++;
}

void
ivwl_fuzz_conn_end(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c,
		   const char *how)
{
	struct ivwl_fuzz_ring *r = &c->trace;
	uint32_t i;

	if (f->trace && !f->quiet_trace) {
		fprintf(f->trace, "# conn %u slot %u: %llu requests, %llu "
			"earlier ones dropped from the ring, ended: %s\n",
			c->number, c->slot, (unsigned long long)c->sent,
			(unsigned long long)r->dropped, how);
		for (i = 0; i < r->count; i++)
			fprintf(f->trace, "%s\n",
				r->lines[(r->head + i) % r->cap]);
		fflush(f->trace);
	}
	if (f->ndepths < IVWL_FUZZ_DEPTHS)
		f->depths[f->ndepths++] = (uint32_t)c->sent;
	ivwl_fuzz_shadow_free(c->shadow);
	for (i = 0; i < r->cap; i++)
		free(r->lines[i]);
	free(r->lines);
	free(c);
}

void
ivwl_fuzz_note(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c,
	       const char *fmt, ...)
{
	char line[512];
	int n;
	va_list ap;

	n = snprintf(line, sizeof(line), "#%llu slot %u conn %u: -- ",
		     (unsigned long long)f->seq++, c->slot, c->number);
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	ring_push(&c->trace, line);
}

uint32_t
ivwl_fuzz_next_id(const struct ivwl_fuzz_conn *c)
{
	/* libwayland's free list is a stack: the last id freed comes first */
	if (c->nfree > 0)
		return c->free_ids[c->nfree - 1];
	return c->count;
}

bool
ivwl_fuzz_is_live(const struct ivwl_fuzz_conn *c, uint32_t id)
{
	return id > 0 && id < c->count && c->obj[id].state == IVWL_FUZZ_LIVE;
}

static struct ivwl_fuzz_server_obj *
server_obj(struct ivwl_fuzz_conn *c, uint32_t id)
{
	uint32_t i;

	for (i = 0; i < c->nsrv; i++)
		if (c->srv[i].id == id)
			return &c->srv[i];
	return NULL;
}

const struct ivwl_interface *
ivwl_fuzz_iface_of(const struct ivwl_fuzz_conn *c, uint32_t id,
		   uint32_t *version)
{
	uint32_t i;

	if (id >= IVWL_WIRE_SERVER_ID_START) {
		for (i = 0; i < c->nsrv; i++) {
			if (c->srv[i].id == id) {
				*version = c->srv[i].version;
				return c->srv[i].iface;
			}
		}
		return NULL;
	}
	if (id == 0 || id >= c->count || c->obj[id].state == IVWL_FUZZ_FREE)
		return NULL;
	*version = c->obj[id].version;
	return c->obj[id].iface;
}

uint32_t
ivwl_fuzz_pick(struct ivwl_fuzz *f, const struct ivwl_fuzz_conn *c,
	       const struct ivwl_interface *iface)
{
	uint32_t id, seen = 0, chosen = 0, i;

	/* reservoir sampling over the live ids, server ones included */
	for (id = 1; id < c->count; id++) {
		if (c->obj[id].state != IVWL_FUZZ_LIVE ||
		    (iface && c->obj[id].iface != iface))
			continue;
		if (ivwl_rnd_below(&f->h, ++seen) == 0)
			chosen = id;
	}
	for (i = 0; i < c->nsrv; i++) {
		if (iface && c->srv[i].iface != iface)
			continue;
		if (ivwl_rnd_below(&f->h, ++seen) == 0)
			chosen = c->srv[i].id;
	}
	return chosen;
}

uint32_t
ivwl_fuzz_pick_complete(struct ivwl_fuzz *f, const struct ivwl_fuzz_conn *c)
{
	uint32_t id, seen = 0, chosen = 0;

	for (id = 2; id < c->count; id++) {
		if (c->obj[id].state != IVWL_FUZZ_LIVE ||
		    c->obj[id].iface != &ivwl_iface_xdg_positioner ||
		    c->obj[id].positioner != (IVWL_FUZZ_POS_SIZE |
					      IVWL_FUZZ_POS_ANCHOR))
			continue;
		if (ivwl_rnd_below(&f->h, ++seen) == 0)
			chosen = id;
	}
	return chosen;
}

const struct ivwl_fuzz_global *
ivwl_fuzz_global(const struct ivwl_fuzz_conn *c, const char *iface)
{
	uint32_t i;

	for (i = 0; i < c->nglobals; i++)
		if (strcmp(c->globals[i].iface, iface) == 0)
			return &c->globals[i];
	return NULL;
}

uint64_t
ivwl_fuzz_heap_alloc(struct ivwl_fuzz_conn *c, uint64_t len)
{
	uint64_t at;

	len = (len + IVWL_PAGE_SIZE - 1) & ~(uint64_t)(IVWL_PAGE_SIZE - 1);
	if (len > c->heap_len)
		len = c->heap_len;
	if (c->heap_next + len > c->heap_len)
		c->heap_next = 0;
	at = c->heap_off + c->heap_next;
	c->heap_next += len;
	return at;
}

/* ---- requests ------------------------------------------------------- */

static int
put_string(char *p, size_t room, const struct decoded_arg *a)
{
	char tmp[64];
	uint32_t i, n = 0, shown;

	if (!a->str)
		return snprintf(p, room, a->len ? "<unterminated %u>" : "null",
				a->len);
	shown = a->len - 1 < 40 ? a->len - 1 : 40;
	for (i = 0; i < shown && n + 5 < sizeof(tmp); i++) {
		unsigned char ch = (unsigned char)a->str[i];

		if (ch >= 32 && ch < 127 && ch != '"' && ch != '\\')
			tmp[n++] = (char)ch;
		else
			n += (uint32_t)snprintf(tmp + n, sizeof(tmp) - n,
						"\\x%02x", ch);
	}
	tmp[n] = '\0';
	if (a->len - 1 > shown)
		return snprintf(p, room, "\"%s\"...(%u)", tmp, a->len - 1);
	return snprintf(p, room, "\"%s\"", tmp);
}

static int
put_object(char *p, size_t room, const struct ivwl_fuzz_conn *c, uint32_t id)
{
	const struct ivwl_interface *iface;
	uint32_t version;

	if (id == 0)
		return snprintf(p, room, "null");
	iface = ivwl_fuzz_iface_of(c, id, &version);
	return snprintf(p, room, "%s@%u", iface ? iface->name : "?", id);
}

/* Formats "iface@id.request(args) = hex fd=... !tag". */
static void
format_line(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c,
	    const struct ivwl_out *out, const struct decoded *d,
	    uint32_t object, uint16_t opcode, const char *tag, char *line,
	    size_t room)
{
	size_t n;
	uint32_t k, i, fd = 0;
	int32_t v;

#define PUT(...) do { \
		int pw = snprintf(line + n, room - n, __VA_ARGS__); \
		n += pw > 0 && (size_t)pw < room - n ? (size_t)pw : 0; \
	} while (0)

	n = 0;
	PUT("#%llu slot %u conn %u: ", (unsigned long long)f->seq, c->slot,
	    c->number);
	n += (size_t)put_object(line + n, room - n, c, object);
	if (n >= room)
		n = room - 1;
	if (!d->msg) {
		PUT(".#%u(?)", opcode);
	} else {
		PUT(".%s(", d->msg->name);
		for (k = 0; k < d->nargs; k++) {
			const struct decoded_arg *a = &d->args[k];
			int w = 0;

			if (k)
				PUT(", ");
			switch (a->type) {
			case 'i':
				PUT("%d", (int32_t)a->value);
				break;
			case 'u':
				PUT("%u", a->value);
				break;
			case 'f':
				v = (int32_t)a->value;
				PUT("%.3f", v / 256.0);
				break;
			case 's':
				w = put_string(line + n, room - n, a);
				break;
			case 'o':
				w = put_object(line + n, room - n, c,
					       a->value);
				break;
			case 'n':
				PUT("new %u", a->value);
				break;
			case 'a':
				PUT("array[%u]", a->len);
				break;
			case 'h':
				PUT("fd%u", fd++);
				break;
			}
			n += w > 0 && (size_t)w < room - n ? (size_t)w : 0;
		}
		PUT(")");
	}
	PUT(" =");
	for (i = 0; i < out->len / 4 && n + 10 < room; i++) {
		uint32_t word;

		memcpy(&word, out->data + i * 4, 4);
		PUT(" %08x", word);
	}
	for (i = 0; i < out->nfds; i++) {
		const struct ivwl_fd_desc *fd_desc = &out->fds[i];

		PUT(" fd=%u:%u:%llu:%llu:%u", fd_desc->kind, fd_desc->flags,
		    (unsigned long long)fd_desc->offset,
		    (unsigned long long)fd_desc->length, fd_desc->channel);
	}
	if (tag)
		PUT(" !%s", tag);
#undef PUT
}

static void
take_id(struct ivwl_fuzz_conn *c, uint32_t id,
	const struct ivwl_interface *iface, uint32_t version, uint32_t link)
{
	uint32_t i;

	if (id == 0 || id >= IVWL_FUZZ_MAX_IDS)
		return;
	for (i = 0; i < c->nfree; i++) {
		if (c->free_ids[i] == id) {
			memmove(&c->free_ids[i], &c->free_ids[i + 1],
				(c->nfree - i - 1) * sizeof(uint32_t));
			c->nfree--;
			break;
		}
	}
	if (id >= c->count)
		c->count = id + 1;
	memset(&c->obj[id], 0, sizeof(c->obj[id]));
	c->obj[id].iface = iface;
	c->obj[id].version = version;
	c->obj[id].state = IVWL_FUZZ_LIVE;
	c->obj[id].link = link;
}

/* What a request did to the objects, once it was on its way. */
static void
apply_request(struct ivwl_fuzz_conn *c, const struct ivwl_out *out,
	      uint32_t object, const struct decoded *d)
{
	bool bind = d->iface == &ivwl_iface_wl_registry &&
		    d->msg == &d->iface->requests[IVWL_REQ_WL_REGISTRY_BIND];
	const struct ivwl_interface *iface;
	uint32_t k, version, link = object;

	for (k = 0; k < d->nargs; k++) {
		if (d->args[k].type == 'o' && d->args[k].value) {
			link = d->args[k].value;
			break;
		}
	}
	for (k = 0; k < d->nargs; k++) {
		if (d->args[k].type != 'n')
			continue;
		if (bind && k >= 2) {
			iface = d->args[k - 2].str ?
				ivwl_wire_interface_find(d->args[k - 2].str) :
				NULL;
			version = d->args[k - 1].value;
		} else {
			iface = d->msg->types ? d->msg->types[k] : NULL;
			version = d->version;
		}
		take_id(c, d->args[k].value, iface, version, link);
		if (d->iface == &ivwl_iface_wl_shm &&
		    d->args[k].value < IVWL_FUZZ_MAX_IDS && out->nfds > 0) {
			c->obj[d->args[k].value].pool_off = out->fds[0].offset;
			c->obj[d->args[k].value].pool_len = d->args[2].value;
		}
	}
	/* what weston 10's desktop-shell knows of a toplevel: added at its
	 * first commit after get_toplevel, removed again when unmapped */
	if (d->iface == &ivwl_iface_wl_surface && object < c->count &&
	    d->msg == &d->iface->requests[IVWL_REQ_WL_SURFACE_ATTACH])
		c->obj[object].null_attached = d->args[0].value == 0;
	if (d->iface == &ivwl_iface_wl_surface && object < c->count &&
	    d->msg == &d->iface->requests[IVWL_REQ_WL_SURFACE_COMMIT]) {
		c->obj[object].committed = !c->obj[object].null_attached;
		c->obj[object].null_attached = false;
	}
	if (d->iface == &ivwl_iface_wp_viewport && object < c->count &&
	    d->msg == &d->iface->requests[IVWL_REQ_WP_VIEWPORT_SET_SOURCE])
		c->obj[object].sourced = true;
	if (d->iface == &ivwl_iface_xdg_surface && object < c->count &&
	    d->msg == &d->iface->requests[IVWL_REQ_XDG_SURFACE_GET_TOPLEVEL] &&
	    c->obj[object].link < c->count)
		c->obj[c->obj[object].link].committed = false;
	if (d->iface == &ivwl_iface_xdg_positioner && object < c->count &&
	    d->nargs >= 2 && d->msg == &d->iface->requests[
			IVWL_REQ_XDG_POSITIONER_SET_SIZE] &&
	    (int32_t)d->args[0].value > 0 && (int32_t)d->args[1].value > 0)
		c->obj[object].positioner |= IVWL_FUZZ_POS_SIZE;
	if (d->iface == &ivwl_iface_xdg_positioner && object < c->count &&
	    d->nargs >= 4 && d->msg == &d->iface->requests[
			IVWL_REQ_XDG_POSITIONER_SET_ANCHOR_RECT] &&
	    (int32_t)d->args[2].value > 0 && (int32_t)d->args[3].value > 0)
		c->obj[object].positioner |= IVWL_FUZZ_POS_ANCHOR;
	if (!(d->msg->flags & IVWL_MESSAGE_DESTRUCTOR))
		return;
	if (object < c->count && c->obj[object].state == IVWL_FUZZ_LIVE)
		c->obj[object].state = IVWL_FUZZ_ZOMBIE;
}

bool
ivwl_fuzz_ids_free(const struct ivwl_fuzz_conn *c, const struct ivwl_out *out)
{
	struct decoded d = { 0 };
	uint32_t object, word, k, id;

	if (out->len < IVWL_WIRE_HEADER_SIZE)
		return true;
	memcpy(&object, out->data, 4);
	memcpy(&word, out->data + 4, 4);
	d.iface = ivwl_fuzz_iface_of(c, object, &d.version);
	if (d.iface)
		d.msg = ivwl_wire_message(d.iface, IVWL_WIRE_REQUEST,
					  word & 0xffff);
	if (!d.msg || !decode_args(out->data + 8, out->len - 8, d.msg, &d))
		return true;
	for (k = 0; k < d.nargs; k++) {
		id = d.args[k].value;
		if (d.args[k].type == 'n' && id < c->count &&
		    c->obj[id].state != IVWL_FUZZ_FREE)
			return false;
	}
	return true;
}

/* A toplevel weston 10's desktop-shell has no state for yet: its
 * surface never committed.  set_parent to it crashes weston (--spare). */
static bool
unadded_parent(const struct ivwl_fuzz_conn *c, const struct decoded *d)
{
	uint32_t top, xs, surface;

	if (d->iface != &ivwl_iface_xdg_toplevel || d->nargs < 1 ||
	    d->msg != &d->iface->requests[IVWL_REQ_XDG_TOPLEVEL_SET_PARENT])
		return false;
	top = d->args[0].value;
	if (top == 0 || top >= c->count)
		return false;
	xs = c->obj[top].link;
	surface = xs < c->count ? c->obj[xs].link : 0;
	return surface == 0 || surface >= c->count ||
	       !c->obj[surface].committed;
}

bool
ivwl_fuzz_emit(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c,
	       const struct ivwl_out *out, const char *tag)
{
	static char line[IVWL_FUZZ_TRACE_LINE + 12000];
	struct ivwl_hostile *h = &f->h;
	struct decoded d = { 0 };
	uint32_t object, word;
	uint16_t opcode;
	const char *why;
	int ret, tries;

	if (c->dead || out->len < IVWL_WIRE_HEADER_SIZE)
		return false;
	memcpy(&object, out->data, 4);
	memcpy(&word, out->data + 4, 4);
	opcode = (uint16_t)word;
	d.iface = ivwl_fuzz_iface_of(c, object, &d.version);
	if (d.iface)
		d.msg = ivwl_wire_message(d.iface, IVWL_WIRE_REQUEST, opcode);
	if (d.msg && !decode_args(out->data + 8, out->len - 8, d.msg, &d))
		d.msg = NULL;
	if ((f->spare & IVWL_FUZZ_SPARE_SET_PARENT) && d.msg &&
	    unadded_parent(c, &d))
		return false;
	if ((f->spare & IVWL_FUZZ_SPARE_VIEWPORT) && d.msg &&
	    d.iface == &ivwl_iface_wp_viewport &&
	    (d.msg->flags & IVWL_MESSAGE_DESTRUCTOR) && object < c->count &&
	    c->obj[object].sourced)
		return false;
	/* after the spares: the shadow follows what it lets through */
	if (c->shadow && ivwl_fuzz_shadow_request(c->shadow, out, &why) < 0) {
		/* the display would close the connection for it */
		f->st.refused++;
		if (!ivwl_fuzz_violate(f))
			return false;
		ivwl_fuzz_note(f, c, "violation: %s", why ? why : "?");
		f->st.violations++;
		c->violated = true;
		/* its model is off from here; the connection ends soon */
		ivwl_fuzz_shadow_free(c->shadow);
		c->shadow = NULL;
	}
	format_line(f, c, out, &d, object, opcode, tag, line, sizeof(line));

	for (tries = 0;; tries++) {
		ret = ivwl_hostile_send_wayland(h, c->slot, out);
		if (ret != -EAGAIN || tries >= 500)
			break;
		/* the display is behind: let it catch up, as a client would */
		ivwl_fuzz_events(f, c);
		ivwl_hostile_slot_poll(h, c->slot);
		if (h->slot[c->slot].phase != IVWL_HOSTILE_LIVE)
			break;
		usleep(2000);
	}
	if (ret < 0) {
		c->dead = true;
		return false;
	}
	f->seq++;
	ring_push(&c->trace, line);
	c->sent++;
	f->st.messages++;
	if (d.msg)
		apply_request(c, out, object, &d);
	return true;
}

bool
ivwl_fuzz_violate(struct ivwl_fuzz *f)
{
	return ivwl_rnd_below(&f->h, 1000) < f->violate_permille;
}

/* ---- events --------------------------------------------------------- */

struct event_ctx {
	struct ivwl_fuzz *f;
	struct ivwl_fuzz_conn *c;
};

static void
free_id(struct ivwl_fuzz_conn *c, uint32_t id)
{
	if (id == 0 || id >= c->count || c->obj[id].state == IVWL_FUZZ_FREE)
		return;
	c->obj[id].state = IVWL_FUZZ_FREE;
	if (c->nfree < IVWL_FUZZ_MAX_IDS)
		c->free_ids[c->nfree++] = id;
}

static void
add_global(struct ivwl_fuzz_conn *c, const struct decoded *d)
{
	struct ivwl_fuzz_global *g;
	uint32_t i;

	if (!d->args[1].str)
		return;
	for (i = 0; i < c->nglobals; i++)
		if (c->globals[i].name == d->args[0].value)
			return;
	if (c->nglobals == IVWL_FUZZ_MAX_GLOBALS)
		return;
	g = &c->globals[c->nglobals++];
	g->name = d->args[0].value;
	g->version = d->args[2].value;
	snprintf(g->iface, sizeof(g->iface), "%s", d->args[1].str);
	g->table = ivwl_wire_interface_find(g->iface);
}

static void
remove_global(struct ivwl_fuzz_conn *c, uint32_t name)
{
	uint32_t i;

	for (i = 0; i < c->nglobals; i++) {
		if (c->globals[i].name == name) {
			c->globals[i] = c->globals[--c->nglobals];
			return;
		}
	}
}

static void
remove_server_obj(struct ivwl_fuzz_conn *c, uint32_t id)
{
	struct ivwl_fuzz_server_obj *s = server_obj(c, id);

	if (s)
		*s = c->srv[--c->nsrv];
}

static bool
is_event(const struct decoded *d, const struct ivwl_interface *iface,
	 uint32_t opcode)
{
	return d->iface == iface && d->msg == &iface->events[opcode];
}

static void
on_event(void *data, const struct ivwl_hostile_event *ev)
{
	struct event_ctx *x = data;
	struct ivwl_fuzz_conn *c = x->c;
	struct ivwl_fuzz_server_obj *s;
	struct decoded d = { 0 };
	uint32_t k, id;

	ivwl_fuzz_shadow_event(c->shadow, ev->bytes, ev->size);
	d.iface = ivwl_fuzz_iface_of(c, ev->object, &d.version);
	if (!d.iface)
		return;
	d.msg = ivwl_wire_message(d.iface, IVWL_WIRE_EVENT, ev->opcode);
	if (!d.msg || !decode_args(ev->args, ev->size - 8u, d.msg, &d))
		return;

	if (is_event(&d, &ivwl_iface_wl_display, IVWL_EVT_WL_DISPLAY_ERROR)) {
		x->f->st.errors++;
		c->dead = true;
		ivwl_fuzz_note(x->f, c, "error: object %u code %u: %s",
			       d.args[0].value, d.args[1].value,
			       d.args[2].str ? d.args[2].str : "");
		if (x->f->h.verbose)
			fprintf(stderr, "fuzz: slot %u conn %u: error %s\n",
				c->slot, c->number,
				d.args[2].str ? d.args[2].str : "");
	} else if (is_event(&d, &ivwl_iface_wl_display,
			    IVWL_EVT_WL_DISPLAY_DELETE_ID)) {
		free_id(c, d.args[0].value);
	} else if (is_event(&d, &ivwl_iface_wl_registry,
			    IVWL_EVT_WL_REGISTRY_GLOBAL)) {
		add_global(c, &d);
	} else if (is_event(&d, &ivwl_iface_wl_registry,
			    IVWL_EVT_WL_REGISTRY_GLOBAL_REMOVE)) {
		remove_global(c, d.args[0].value);
	} else if ((is_event(&d, &ivwl_iface_xdg_surface,
			     IVWL_EVT_XDG_SURFACE_CONFIGURE) ||
		    is_event(&d, &ivwl_iface_xdg_wm_base,
			     IVWL_EVT_XDG_WM_BASE_PING)) &&
		   ev->object < c->count) {
		c->obj[ev->object].serial = d.args[0].value;
		c->obj[ev->object].serial_new = true;
	} else if (is_event(&d, &ivwl_iface_xdg_toplevel,
			    IVWL_EVT_XDG_TOPLEVEL_CONFIGURE) &&
		   ev->object < c->count) {
		c->obj[ev->object].width = d.args[0].value;
		c->obj[ev->object].height = d.args[1].value;
	} else if (is_event(&d, &ivwl_iface_wl_pointer,
			    IVWL_EVT_WL_POINTER_ENTER) ||
		   is_event(&d, &ivwl_iface_wl_pointer,
			    IVWL_EVT_WL_POINTER_BUTTON) ||
		   is_event(&d, &ivwl_iface_wl_keyboard,
			    IVWL_EVT_WL_KEYBOARD_ENTER) ||
		   is_event(&d, &ivwl_iface_wl_keyboard,
			    IVWL_EVT_WL_KEYBOARD_KEY)) {
		c->input_serial = d.args[0].value;
	}

	for (k = 0; k < d.nargs; k++) {
		id = d.args[k].value;
		if (d.args[k].type != 'n' || id < IVWL_WIRE_SERVER_ID_START)
			continue;
		s = server_obj(c, id);
		if (!s && c->nsrv < IVWL_FUZZ_MAX_SERVER)
			s = &c->srv[c->nsrv++];
		if (!s)
			continue;
		s->id = id;
		s->iface = d.msg->types ? d.msg->types[k] : NULL;
		s->version = d.version;
	}
	if (d.msg->flags & IVWL_MESSAGE_DESTRUCTOR) {
		if (ev->object >= IVWL_WIRE_SERVER_ID_START)
			remove_server_obj(c, ev->object);
		else if (ev->object < c->count &&
			 c->obj[ev->object].state == IVWL_FUZZ_LIVE)
			c->obj[ev->object].state = IVWL_FUZZ_ZOMBIE;
	}
}

int
ivwl_fuzz_events(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c)
{
	struct event_ctx x = { f, c };

	return ivwl_hostile_drain_events(&f->h, c->slot, on_event, &x);
}
