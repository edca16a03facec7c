/* SPDX-License-Identifier: MIT */
/*
 * Random requests made from the message tables.  Arguments come from
 * the model: objects of the interface the table names, ids libwayland
 * would hand out, serials weston sent; now and then (--bad) one of them
 * is made wrong on purpose, and integers lean towards edge values.
 */
#include <limits.h>
#include <string.h>

#include "fuzz.h"
#include "ivwl-protocols.h"

static bool
bad(struct ivwl_fuzz *f)
{
	if (ivwl_rnd_below(&f->h, 1000) >= f->bad_permille)
		return false;
	f->st.bad_args++;
	return true;
}

static uint32_t
recent_serial(struct ivwl_fuzz *f, const struct ivwl_fuzz_conn *c)
{
	uint32_t id = ivwl_fuzz_pick(f, c, &ivwl_iface_xdg_surface);

	if (id && id < c->count && ivwl_rnd_below(&f->h, 2))
		return c->obj[id].serial;
	return c->input_serial;
}

/* Edge values now?  Always for a wild connection, now and then (as a
 * violation) for a careful one: weston ends a client for most of them
 * (negative sizes, serials it never sent, geometry past any output). */
static bool
edgy(struct ivwl_fuzz *f, const struct ivwl_fuzz_conn *c)
{
	return !c->careful || ivwl_fuzz_violate(f);
}

static uint32_t
gen_int(struct ivwl_fuzz *f, const struct ivwl_fuzz_conn *c)
{
	struct ivwl_hostile *h = &f->h;

	if (!edgy(f, c))
		return 1 + ivwl_rnd_below(h, 400);
	switch (ivwl_rnd_below(h, 10)) {
	case 0: return 0;
	case 1: return 1;
	case 2: return (uint32_t)-1;
	case 3: return (uint32_t)INT_MIN;
	case 4: return (uint32_t)INT_MAX;
	case 5: return (uint32_t)-(int32_t)ivwl_rnd_below(h, 64);
	case 6: return ivwl_rnd_edgy32(h);
	default: return ivwl_rnd_below(h, 400);
	}
}

static uint32_t
gen_uint(struct ivwl_fuzz *f, const struct ivwl_fuzz_conn *c)
{
	struct ivwl_hostile *h = &f->h;

	if (!edgy(f, c))
		return ivwl_rnd_below(h, 4) ? ivwl_rnd_below(h, 12) :
		       1 + ivwl_rnd_below(h, 400);
	switch (ivwl_rnd_below(h, 10)) {
	case 0: return recent_serial(f, c);
	case 1: return 0;
	case 2: return 1u << ivwl_rnd_below(h, 4);	/* enum bits */
	case 3: return ivwl_rnd_edgy32(h);
	case 4: return ivwl_rnd_below(h, 1000);
	default: return ivwl_rnd_below(h, 12);		/* enum values */
	}
}

static uint32_t
gen_fixed(struct ivwl_fuzz *f, const struct ivwl_fuzz_conn *c)
{
	if (edgy(f, c) && ivwl_rnd_below(&f->h, 4) == 0)
		return ivwl_rnd_edgy32(&f->h);
	/* in unsigned arithmetic: INT_MIN * 256 wraps as 24.8 does, where
	 * int would overflow (UBSan ended the fuzzer on it) */
	return gen_int(f, c) * 256u + ivwl_rnd_below(&f->h, 256);
}

static const char *const words[] = {
	"text/plain", "text/plain;charset=utf-8", "UTF8_STRING",
	"image/png", "text/uri-list", "application/x-ivwl",
	"wl_surface", "xdg_toplevel", "title", "",
	"\xc3\xa9t\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x90\x9b", "\xff\xfe bad utf-8",
};

/* A string of len bytes (NUL not counted) into out. */
static void
put_string_len(struct ivwl_fuzz *f, struct ivwl_out *out, uint32_t len)
{
	uint32_t padded = (len + 1 + 3) & ~3u, i;
	uint8_t *p;

	if (!ivwl_out_room(out, 4 + padded))
		return;
	ivwl_out_u32(out, len + 1);
	p = out->data + out->len;
	memset(p, 0, padded);
	if (ivwl_rnd_below(&f->h, 4) == 0) {
		for (i = 0; i < len; i++)	/* unique: grows weston's lists */
			p[i] = (uint8_t)(1 + ivwl_rnd_below(&f->h, 255));
	} else {
		for (i = 0; i < len; i++)
			p[i] = (uint8_t)('a' + i % 26);
	}
	out->len += padded;
}

static void
gen_string(struct ivwl_fuzz *f, struct ivwl_out *out, bool nullable,
	   uint32_t room)
{
	struct ivwl_hostile *h = &f->h;
	uint32_t r = ivwl_rnd_below(h, 20);

	if ((nullable && r == 0) || (r == 1 && bad(f))) {
		ivwl_out_u32(out, 0);
		return;
	}
	if (r < 4 && room > 16) {
		put_string_len(f, out, ivwl_rnd_below(h, room - 12));
		return;
	}
	if (r < 8) {
		put_string_len(f, out, ivwl_rnd_below(h, 24));
		return;
	}
	ivwl_out_string(out, words[ivwl_rnd_below(h, sizeof(words) /
					       sizeof(words[0]))]);
}

static void
gen_array(struct ivwl_fuzz *f, struct ivwl_out *out, uint32_t room)
{
	uint32_t len = ivwl_rnd_below(&f->h, 8) * 4, padded;

	if (ivwl_rnd_below(&f->h, 8) == 0 && room > 8)
		len = ivwl_rnd_below(&f->h, room - 8);
	padded = (len + 3) & ~3u;
	if (!ivwl_out_room(out, 4 + padded))
		len = padded = 0;
	ivwl_out_u32(out, len);
	ivwl_rnd_fill(&f->h, out->data + out->len, padded);
	out->len += padded;
}

static uint32_t
gen_object(struct ivwl_fuzz *f, const struct ivwl_fuzz_conn *c,
	   const struct ivwl_interface *type, bool nullable)
{
	struct ivwl_hostile *h = &f->h;
	uint32_t id;

	if (bad(f)) {
		switch (ivwl_rnd_below(h, 5)) {
		case 0: return 0;
		case 1: return ivwl_fuzz_pick(f, c, NULL);
		case 2: return c->count + ivwl_rnd_below(h, 4);
		case 3: return ivwl_rnd_below(h, c->count);	/* maybe dead */
		default: return ivwl_rnd_edgy32(h);
		}
	}
	if (nullable && ivwl_rnd_below(h, 6) == 0)
		return 0;
	/* weston ends a client for a positioner without size or anchor */
	if (type == &ivwl_iface_xdg_positioner) {
		id = ivwl_fuzz_pick_complete(f, c);
		if (id)
			return id;
	}
	id = ivwl_fuzz_pick(f, c, type);
	if (!id && !nullable)
		id = ivwl_fuzz_pick(f, c, NULL);
	return id;
}

static uint32_t
gen_new_id(struct ivwl_fuzz *f, const struct ivwl_fuzz_conn *c)
{
	struct ivwl_hostile *h = &f->h;

	if (bad(f)) {
		switch (ivwl_rnd_below(h, 4)) {
		case 0: return 0;
		case 1: return ivwl_fuzz_pick(f, c, NULL);	/* in use */
		case 2: return c->count + 1 + ivwl_rnd_below(h, 8);
		default: return IVWL_WIRE_SERVER_ID_START +
				ivwl_rnd_below(h, 4);
		}
	}
	return ivwl_fuzz_next_id(c);
}

static void
gen_fd(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c, struct ivwl_out *out)
{
	struct ivwl_hostile *h = &f->h;
	struct ivwl_fd_desc d;
	uint64_t len = IVWL_PAGE_SIZE * (1 + ivwl_rnd_below(h, 16));

	memset(&d, 0, sizeof(d));
	switch (bad(f) ? 3 + ivwl_rnd_below(h, 3) : ivwl_rnd_below(h, 3)) {
	case 0:
		d = ivwl_out_region_desc(ivwl_fuzz_heap_alloc(c, len), len);
		break;
	case 1:
	case 2:
		d.kind = IVWL_FD_PIPE;
		d.flags = ivwl_rnd_below(h, 2) ? IVWL_PIPE_READ_END :
			  IVWL_PIPE_WRITE_END;
		d.channel = c->channel_next;
		c->channel_next += 2;
		break;
	case 3:		/* past the heap */
		d = ivwl_out_region_desc(f->h.layout.region_size, len);
		break;
	case 4:		/* the slot table */
		d = ivwl_out_region_desc(0, len);
		break;
	default:
		d.kind = ivwl_rnd_below(h, 6);
		d.flags = ivwl_rnd_edgy32(h);
		d.channel = ivwl_rnd_edgy32(h);
		break;
	}
	ivwl_out_fd(out, &d);
}

/* Bytes a message may still take for its variable arguments. */
static uint32_t
room_left(const struct ivwl_out *out, const char *sig_rest)
{
	uint32_t need = 4 * (uint32_t)strlen(sig_rest) + 16;
	uint32_t used = out->len - out->start;

	return used + need < IVWL_WIRE_MAX_MESSAGE ?
	       IVWL_WIRE_MAX_MESSAGE - used - need : 0;
}

/*
 * The name, interface and version of a bind, all of one global g: weston
 * ends a client that names one global and another's interface (the bug
 * that ended most of this fuzzer's connections before it had a shadow).
 */
static void
bind_args(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c, struct ivwl_out *out,
	  const struct ivwl_fuzz_global *g)
{
	struct ivwl_hostile *h = &f->h;
	const struct ivwl_interface *other;
	uint32_t top, version;

	ivwl_out_u32(out, g->name);
	top = g->version;
	if (g->table && g->table->version < top)
		top = g->table->version;
	version = 1 + ivwl_rnd_below(h, top ? top : 1);
	if (bad(f)) {
		switch (ivwl_rnd_below(h, 3)) {
		case 0: version = 0; break;
		case 1: version = g->version + 1; break;
		default:
			other = ivwl_interfaces[ivwl_rnd_below(h,
							       IVWL_IFACE_COUNT)];
			ivwl_out_string(out, other->name);
			ivwl_out_u32(out, version);
			ivwl_out_u32(out, gen_new_id(f, c));
			return;
		}
	}
	ivwl_out_string(out, g->iface);
	ivwl_out_u32(out, version);
	ivwl_out_u32(out, gen_new_id(f, c));
}

bool
ivwl_fuzz_bind_random(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c)
{
	uint32_t registry = ivwl_fuzz_pick(f, c, &ivwl_iface_wl_registry);
	struct ivwl_out out;

	if (!registry || c->nglobals == 0)
		return false;
	ivwl_out_reset(&out);
	ivwl_out_begin(&out, registry, IVWL_REQ_WL_REGISTRY_BIND);
	bind_args(f, c, &out, &c->globals[ivwl_rnd_below(&f->h,
							  c->nglobals)]);
	ivwl_out_end(&out);
	return ivwl_fuzz_emit(f, c, &out, NULL);
}

uint32_t
ivwl_fuzz_ensure(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c,
		 const char *iface, uint32_t max)
{
	const struct ivwl_interface *table = ivwl_wire_interface_find(iface);
	const struct ivwl_fuzz_global *g = ivwl_fuzz_global(c, iface);
	uint32_t registry, id, version;
	struct ivwl_out out;

	if (!table)
		return 0;
	id = ivwl_fuzz_pick(f, c, table);
	if (id)
		return id;
	registry = ivwl_fuzz_pick(f, c, &ivwl_iface_wl_registry);
	if (!g || !registry)
		return 0;
	version = g->version < table->version ? g->version : table->version;
	if (version > max)
		version = max;
	id = ivwl_fuzz_next_id(c);
	ivwl_out_reset(&out);
	ivwl_out_bind(&out, g->name, iface, version, id);
	/* ivwl_out_bind names registry 2: ours may be another */
	memcpy(out.data, &registry, 4);
	return ivwl_fuzz_emit(f, c, &out, NULL) ? id : 0;
}

/* Requests whose arguments only make sense together get them right most
 * of the time: their checks are worth passing. */
static bool
semantic(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c, uint32_t target,
	 const struct ivwl_interface *iface, uint32_t op)
{
	struct ivwl_hostile *h = &f->h;
	struct ivwl_out out;
	uint32_t side;

	if (!c->careful && ivwl_rnd_below(h, 10) == 0)
		return false;
	if (iface == &ivwl_iface_wl_shm && op == IVWL_REQ_WL_SHM_CREATE_POOL)
		return ivwl_fuzz_make_pool(f, c, target, IVWL_PAGE_SIZE *
					   (1 + ivwl_rnd_below(h, 64))) != 0;
	if (iface == &ivwl_iface_wl_shm_pool &&
	    op == IVWL_REQ_WL_SHM_POOL_CREATE_BUFFER) {
		side = 1 + ivwl_rnd_below(h, 128);
		return ivwl_fuzz_make_buffer(f, c, target, side,
					     1 + ivwl_rnd_below(h, 128)) != 0;
	}
	ivwl_out_reset(&out);
	if (iface == &ivwl_iface_xdg_surface &&
	    op == IVWL_REQ_XDG_SURFACE_ACK_CONFIGURE) {
		/* a serial weston never sent, or one acked already,
		 * ends the client */
		if (!c->obj[target].serial_new)
			return true;
		c->obj[target].acked = true;
		ivwl_out_begin(&out, target, op);
		ivwl_out_u32(&out, c->obj[target].serial);
		ivwl_out_end(&out);
		c->obj[target].serial_new = false;
		return ivwl_fuzz_emit(f, c, &out, "ack");
	}
	if (iface == &ivwl_iface_xdg_wm_base &&
	    op == IVWL_REQ_XDG_WM_BASE_PONG) {
		ivwl_out_begin(&out, target, op);
		ivwl_out_u32(&out, c->obj[target].serial);
		ivwl_out_end(&out);
		c->obj[target].serial_new = false;
		return ivwl_fuzz_emit(f, c, &out, "pong");
	}
	if (iface == &ivwl_iface_wl_registry &&
	    op == IVWL_REQ_WL_REGISTRY_BIND)
		return ivwl_fuzz_bind_random(f, c);
	/* a careful client attaches what the surface's role takes */
	if (c->careful && iface == &ivwl_iface_wl_surface &&
	    op == IVWL_REQ_WL_SURFACE_ATTACH) {
		ivwl_fuzz_paint(f, c, target);
		return true;
	}
	return false;
}

bool
ivwl_fuzz_random_request(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c)
{
	struct ivwl_hostile *h = &f->h;
	const struct ivwl_interface *iface, *type;
	const struct ivwl_message *m;
	uint32_t target, version, op, k, tries;
	struct ivwl_out out;
	const char *sig;

	target = ivwl_fuzz_pick(f, c, NULL);
	iface = ivwl_fuzz_iface_of(c, target, &version);
	if (!iface || iface->request_count == 0)
		return false;
	for (tries = 0;; tries++) {
		op = ivwl_rnd_below(h, iface->request_count);
		m = &iface->requests[op];
		if (m->since <= version || tries >= 4 || bad(f))
			break;
	}
	if (target < IVWL_WIRE_SERVER_ID_START &&
	    semantic(f, c, target, iface, op))
		return true;
	/* a bind's arguments only make sense together: see bind_args() */
	if (iface == &ivwl_iface_wl_registry &&
	    op == IVWL_REQ_WL_REGISTRY_BIND)
		return ivwl_fuzz_bind_random(f, c);

	ivwl_out_reset(&out);
	ivwl_out_begin(&out, target, (uint16_t)op);
	sig = m->signature;
	for (k = 0; sig[k]; k++) {
		type = m->types ? m->types[k] : NULL;
		switch (sig[k]) {
		case 'i':
			ivwl_out_u32(&out, gen_int(f, c));
			break;
		case 'u':
			ivwl_out_u32(&out, gen_uint(f, c));
			break;
		case 'f':
			ivwl_out_u32(&out, gen_fixed(f, c));
			break;
		case 's':
			gen_string(f, &out, m->nullable & (1u << k),
				   room_left(&out, sig + k));
			break;
		case 'o':
			ivwl_out_u32(&out, gen_object(f, c, type,
						      m->nullable & (1u << k)));
			break;
		case 'n':
			ivwl_out_u32(&out, gen_new_id(f, c));
			break;
		case 'a':
			if ((m->nullable & (1u << k)) &&
			    ivwl_rnd_below(h, 4) == 0) {
				ivwl_out_u32(&out, 0);
				break;
			}
			gen_array(f, &out, room_left(&out, sig + k));
			break;
		case 'h':
			gen_fd(f, c, &out);
			break;
		}
	}
	ivwl_out_end(&out);
	return ivwl_fuzz_emit(f, c, &out, NULL);
}
