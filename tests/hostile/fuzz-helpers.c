/* SPDX-License-Identifier: MIT */
/*
 * The few things random requests rarely get right on their own, done the
 * way a client does them: answering pings and configures, real buffers
 * in the heap, toplevels, popups with positioners, subsurfaces, data
 * sources and input devices.  They go deep enough for weston to run the
 * code paths that need state (mapping, grabs, selections, teardown of
 * trees), and the random requests then poke at that state.
 */
#include <stdarg.h>
#include <string.h>

#include "fuzz.h"
#include "ivwl-protocols.h"

#define ARGB8888 0u
#define XRGB8888 1u

/*
 * One request: fmt has one char per argument, 'u' (uint32_t), 's'
 * (string) or 'n' (a new id, allocated here, no vararg).  Returns the new
 * id, 1 when none was asked for, 0 when it was not sent.
 */
static uint32_t
req(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c, uint32_t obj, uint16_t op,
    const char *tag, const char *fmt, ...)
{
	struct ivwl_out out;
	uint32_t id = 1;
	va_list ap;

	if (!obj)
		return 0;
	ivwl_out_reset(&out);
	ivwl_out_begin(&out, obj, op);
	va_start(ap, fmt);
	for (; *fmt; fmt++) {
		switch (*fmt) {
		case 'u':
			ivwl_out_u32(&out, va_arg(ap, uint32_t));
			break;
		case 's':
			ivwl_out_string(&out, va_arg(ap, const char *));
			break;
		case 'n':
			id = ivwl_fuzz_next_id(c);
			ivwl_out_u32(&out, id);
			break;
		}
	}
	va_end(ap);
	ivwl_out_end(&out);
	if (!ivwl_fuzz_emit(f, c, &out, tag))
		return 0;
	return id;
}

static uint32_t
version_of(const struct ivwl_fuzz_conn *c, uint32_t id)
{
	uint32_t v = 0;

	ivwl_fuzz_iface_of(c, id, &v);
	return v;
}

uint32_t
ivwl_fuzz_make_pool(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c,
		    uint32_t shm, uint64_t len)
{
	struct ivwl_hostile *h = &f->h;
	struct ivwl_fd_desc d;
	struct ivwl_out out;
	uint32_t id = ivwl_fuzz_next_id(c), size;
	uint64_t off = ivwl_fuzz_heap_alloc(c, len);

	len = (len + IVWL_PAGE_SIZE - 1) & ~(uint64_t)(IVWL_PAGE_SIZE - 1);
	if (len > c->heap_len)
		len = c->heap_len;
	memset(h->base + off, (int)ivwl_rnd_below(h, 256), len);
	size = (uint32_t)len;
	if (ivwl_rnd_below(h, 8) == 0)
		size -= ivwl_rnd_below(h, size);	/* less than the range */
	d = ivwl_out_region_desc(off, len);
	ivwl_out_reset(&out);
	ivwl_out_begin(&out, shm, IVWL_REQ_WL_SHM_CREATE_POOL);
	ivwl_out_u32(&out, id);
	ivwl_out_u32(&out, size);
	ivwl_out_end(&out);
	ivwl_out_fd(&out, &d);
	return ivwl_fuzz_emit(f, c, &out, NULL) ? id : 0;
}

uint32_t
ivwl_fuzz_make_buffer(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c,
		      uint32_t pool, uint32_t w, uint32_t h)
{
	uint64_t len = pool < c->count ? c->obj[pool].pool_len : 0;
	uint32_t stride, offset = 0;

	if (len < 4)
		return 0;
	if ((uint64_t)w * 4 > len)
		w = (uint32_t)(len / 4);
	stride = w * 4;
	if ((uint64_t)stride * h > len)
		h = (uint32_t)(len / stride);
	if (h == 0)
		h = 1;
	if ((uint64_t)stride * h + IVWL_PAGE_SIZE <= len &&
	    ivwl_rnd_below(&f->h, 4) == 0)
		offset = IVWL_PAGE_SIZE;
	return req(f, c, pool, IVWL_REQ_WL_SHM_POOL_CREATE_BUFFER, NULL,
		   "nuuuuu", offset, w, h, stride,
		   ivwl_rnd_below(&f->h, 2) ? XRGB8888 : ARGB8888);
}

/* The live object of iface whose request named id first, or 0. */
static uint32_t
linked(const struct ivwl_fuzz_conn *c, const struct ivwl_interface *iface,
       uint32_t id)
{
	uint32_t k;

	for (k = 2; k < c->count; k++)
		if (c->obj[k].state == IVWL_FUZZ_LIVE &&
		    c->obj[k].iface == iface && c->obj[k].link == id)
			return k;
	return 0;
}

/*
 * Whether weston takes a buffer on surface now, and its size: an
 * xdg_surface's wl_surface only once a configure was acked, and a
 * maximized or fullscreen toplevel only at the size weston configured
 * (0 x 0 leaves it to us).  Anything else ends the client.  *fixed
 * says the size is weston's.
 */
static bool
paint_size(const struct ivwl_fuzz_conn *c, uint32_t surface, uint32_t *w,
	   uint32_t *h, bool *fixed)
{
	uint32_t xs = linked(c, &ivwl_iface_xdg_surface, surface), top;

	*fixed = false;
	if (!xs)
		return true;
	if (!c->obj[xs].acked)
		return false;
	top = linked(c, &ivwl_iface_xdg_toplevel, xs);
	if (top && c->obj[top].width > 0 && c->obj[top].height > 0 &&
	    c->obj[top].width <= 4096 && c->obj[top].height <= 4096) {
		*w = c->obj[top].width;
		*h = c->obj[top].height;
		*fixed = true;
	}
	return true;
}

static bool
has_fixed_size(const struct ivwl_fuzz_conn *c, uint32_t surface)
{
	uint32_t w = 0, h = 0;
	bool fixed;

	return paint_size(c, surface, &w, &h, &fixed) && fixed;
}

/* A buffer attached to surface, damaged and committed. */
void
ivwl_fuzz_paint(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c,
		uint32_t surface)
{
	struct ivwl_hostile *h = &f->h;
	uint32_t shm, pool, buffer = 0, w, ht;
	bool fixed;

	w = 16 + ivwl_rnd_below(h, 240);
	ht = 16 + ivwl_rnd_below(h, 240);
	if (!paint_size(c, surface, &w, &ht, &fixed))
		return;
	if (ivwl_rnd_below(h, 3) == 0 && !fixed)
		buffer = ivwl_fuzz_pick(f, c, &ivwl_iface_wl_buffer);
	if (!buffer) {
		shm = ivwl_fuzz_ensure(f, c, "wl_shm", 1);
		pool = shm ? ivwl_fuzz_make_pool(f, c, shm,
						 (uint64_t)w * ht * 4) :
		       0;
		buffer = pool ? ivwl_fuzz_make_buffer(f, c, pool, w, ht) : 0;
		if (pool && ivwl_rnd_below(h, 2))
			req(f, c, pool, IVWL_REQ_WL_SHM_POOL_DESTROY, NULL, "");
	}
	if (!buffer)
		return;
	req(f, c, surface, IVWL_REQ_WL_SURFACE_ATTACH, NULL, "uuu", buffer,
	    0, 0);
	if (version_of(c, surface) >= 4)
		req(f, c, surface, IVWL_REQ_WL_SURFACE_DAMAGE_BUFFER, NULL,
		    "uuuu", 0, 0, 0x7fffffff, 0x7fffffff);
	else
		req(f, c, surface, IVWL_REQ_WL_SURFACE_DAMAGE, NULL, "uuuu",
		    0, 0, 0x7fffffff, 0x7fffffff);
	if (ivwl_rnd_below(h, 2))
		req(f, c, surface, IVWL_REQ_WL_SURFACE_FRAME, NULL, "n");
	req(f, c, surface, IVWL_REQ_WL_SURFACE_COMMIT, NULL, "");
	f->st.buffers++;
}

void
ivwl_fuzz_answer(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c)
{
	struct ivwl_hostile *h = &f->h;
	struct ivwl_fuzz_obj *o;
	uint32_t id, serial;

	for (id = 2; id < c->count && !c->dead; id++) {
		o = &c->obj[id];
		if (o->state != IVWL_FUZZ_LIVE || !o->serial_new)
			continue;
		o->serial_new = false;
		if (o->iface == &ivwl_iface_xdg_wm_base) {
			if (ivwl_rnd_below(h, 20) &&
			    req(f, c, id, IVWL_REQ_XDG_WM_BASE_PONG, "pong",
				"u", o->serial))
				f->st.pongs++;
			continue;
		}
		if (o->iface != &ivwl_iface_xdg_surface)
			continue;
		serial = o->serial;
		if (ivwl_fuzz_violate(f)) {
			/* wrong on purpose: an old or a future serial;
			 * weston ends the client, the shadow cannot tell */
			serial += ivwl_rnd_below(h, 2) ? 1 : (uint32_t)-1;
			ivwl_fuzz_note(f, c, "violation: a wrong configure "
				       "serial");
			f->st.violations++;
			c->violated = true;
			req(f, c, id, IVWL_REQ_XDG_SURFACE_ACK_CONFIGURE,
			    NULL, "u", serial);
		} else if (ivwl_rnd_below(h, 10)) {
			if (req(f, c, id, IVWL_REQ_XDG_SURFACE_ACK_CONFIGURE,
				"ack", "u", serial))
				o->acked = true;
			f->st.acks++;
		}
		/* a maximized window must show its new size at once */
		if (ivwl_fuzz_is_live(c, o->link) &&
		    (ivwl_rnd_below(h, 4) || has_fixed_size(c, o->link)))
			ivwl_fuzz_paint(f, c, o->link);
	}
}

static void
window(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c)
{
	struct ivwl_hostile *h = &f->h;
	uint32_t comp = ivwl_fuzz_ensure(f, c, "wl_compositor", 99);
	uint32_t wm = ivwl_fuzz_ensure(f, c, "xdg_wm_base", 99);
	uint32_t surface, xs, top, parent;

	surface = req(f, c, comp, IVWL_REQ_WL_COMPOSITOR_CREATE_SURFACE, NULL,
		      "n");
	xs = surface ? req(f, c, wm, IVWL_REQ_XDG_WM_BASE_GET_XDG_SURFACE,
			   NULL, "nu", surface) : 0;
	top = xs ? req(f, c, xs, IVWL_REQ_XDG_SURFACE_GET_TOPLEVEL, NULL,
		       "n") : 0;
	if (!top)
		return;
	req(f, c, top, IVWL_REQ_XDG_TOPLEVEL_SET_TITLE, NULL, "s", "fuzz");
	parent = ivwl_fuzz_pick(f, c, &ivwl_iface_xdg_toplevel);
	if (ivwl_rnd_below(h, 4) == 0 && parent != top)
		req(f, c, top, IVWL_REQ_XDG_TOPLEVEL_SET_PARENT, NULL, "u",
		    parent);
	if (ivwl_rnd_below(h, 4) == 0)
		req(f, c, top, IVWL_REQ_XDG_TOPLEVEL_SET_MAXIMIZED, NULL, "");
	if (ivwl_rnd_below(h, 8) == 0)
		req(f, c, top, IVWL_REQ_XDG_TOPLEVEL_SET_FULLSCREEN, NULL, "u",
		    0);
	req(f, c, surface, IVWL_REQ_WL_SURFACE_COMMIT, NULL, "");
	f->st.windows++;
}

static void
popup(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c)
{
	struct ivwl_hostile *h = &f->h;
	uint32_t comp = ivwl_fuzz_ensure(f, c, "wl_compositor", 99);
	uint32_t wm = ivwl_fuzz_ensure(f, c, "xdg_wm_base", 99);
	uint32_t parent = ivwl_fuzz_pick(f, c, &ivwl_iface_xdg_surface);
	uint32_t pos, surface, xs, pop, seat;

	pos = req(f, c, wm, IVWL_REQ_XDG_WM_BASE_CREATE_POSITIONER, NULL,
		  "n");
	if (!pos || !parent)
		return;
	req(f, c, pos, IVWL_REQ_XDG_POSITIONER_SET_SIZE, NULL, "uu",
	    1 + ivwl_rnd_below(h, 200), 1 + ivwl_rnd_below(h, 200));
	req(f, c, pos, IVWL_REQ_XDG_POSITIONER_SET_ANCHOR_RECT, NULL, "uuuu",
	    ivwl_rnd_below(h, 100), ivwl_rnd_below(h, 100),
	    1 + ivwl_rnd_below(h, 50), 1 + ivwl_rnd_below(h, 50));
	if (ivwl_rnd_below(h, 2)) {
		req(f, c, pos, IVWL_REQ_XDG_POSITIONER_SET_ANCHOR, NULL, "u",
		    ivwl_rnd_below(h, 9));
		req(f, c, pos, IVWL_REQ_XDG_POSITIONER_SET_GRAVITY, NULL, "u",
		    ivwl_rnd_below(h, 9));
		req(f, c, pos,
		    IVWL_REQ_XDG_POSITIONER_SET_CONSTRAINT_ADJUSTMENT, NULL,
		    "u", ivwl_rnd_below(h, 64));
	}
	surface = req(f, c, comp, IVWL_REQ_WL_COMPOSITOR_CREATE_SURFACE, NULL,
		      "n");
	xs = surface ? req(f, c, wm, IVWL_REQ_XDG_WM_BASE_GET_XDG_SURFACE,
			   NULL, "nu", surface) : 0;
	pop = xs ? req(f, c, xs, IVWL_REQ_XDG_SURFACE_GET_POPUP, NULL, "nuu",
		       parent, pos) : 0;
	if (!pop)
		return;
	seat = ivwl_fuzz_pick(f, c, &ivwl_iface_wl_seat);
	if (seat && ivwl_rnd_below(h, 2))
		req(f, c, pop, IVWL_REQ_XDG_POPUP_GRAB, NULL, "uu", seat,
		    c->input_serial);
	if (ivwl_rnd_below(h, 2))
		req(f, c, pos, IVWL_REQ_XDG_POSITIONER_DESTROY, NULL, "");
	req(f, c, surface, IVWL_REQ_WL_SURFACE_COMMIT, NULL, "");
	f->st.popups++;
}

static void
subsurface(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c)
{
	struct ivwl_hostile *h = &f->h;
	uint32_t comp = ivwl_fuzz_ensure(f, c, "wl_compositor", 99);
	uint32_t subc = ivwl_fuzz_ensure(f, c, "wl_subcompositor", 1);
	uint32_t parent = ivwl_fuzz_pick(f, c, &ivwl_iface_wl_surface);
	uint32_t child = 0, sub, other;

	if (ivwl_rnd_below(h, 3))
		child = req(f, c, comp, IVWL_REQ_WL_COMPOSITOR_CREATE_SURFACE,
			    NULL, "n");
	else
		child = ivwl_fuzz_pick(f, c, &ivwl_iface_wl_surface);
	sub = child && parent ?
	      req(f, c, subc, IVWL_REQ_WL_SUBCOMPOSITOR_GET_SUBSURFACE, NULL,
		  "nuu", child, parent) : 0;
	if (!sub)
		return;
	req(f, c, sub, IVWL_REQ_WL_SUBSURFACE_SET_POSITION, NULL, "uu",
	    ivwl_rnd_below(h, 64), ivwl_rnd_below(h, 64));
	other = ivwl_fuzz_pick(f, c, &ivwl_iface_wl_surface);
	if (other && ivwl_rnd_below(h, 2))
		req(f, c, sub, ivwl_rnd_below(h, 2) ?
		    IVWL_REQ_WL_SUBSURFACE_PLACE_ABOVE :
		    IVWL_REQ_WL_SUBSURFACE_PLACE_BELOW, NULL, "u", other);
	if (ivwl_rnd_below(h, 2))
		req(f, c, sub, IVWL_REQ_WL_SUBSURFACE_SET_DESYNC, NULL, "");
	ivwl_fuzz_paint(f, c, child);
	req(f, c, parent, IVWL_REQ_WL_SURFACE_COMMIT, NULL, "");
	f->st.subsurfaces++;
}

static void
data(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c)
{
	struct ivwl_hostile *h = &f->h;
	uint32_t ddm = ivwl_fuzz_ensure(f, c, "wl_data_device_manager", 99);
	uint32_t seat = ivwl_fuzz_ensure(f, c, "wl_seat", 99);
	uint32_t src, dev, n, i, origin;
	char mime[40];

	src = req(f, c, ddm, IVWL_REQ_WL_DATA_DEVICE_MANAGER_CREATE_DATA_SOURCE,
		  NULL, "n");
	if (!src)
		return;
	n = 1 + ivwl_rnd_below(h, 4);
	for (i = 0; i < n; i++) {
		snprintf(mime, sizeof(mime), "text/x-fuzz-%u",
			 ivwl_rnd_below(h, 8));
		req(f, c, src, IVWL_REQ_WL_DATA_SOURCE_OFFER, NULL, "s", mime);
	}
	f->st.sources++;
	dev = ivwl_fuzz_pick(f, c, &ivwl_iface_wl_data_device);
	if (!dev || ivwl_rnd_below(h, 4) == 0)
		dev = req(f, c, ddm,
			  IVWL_REQ_WL_DATA_DEVICE_MANAGER_GET_DATA_DEVICE,
			  NULL, "nu", seat);
	if (!dev)
		return;
	origin = ivwl_fuzz_pick(f, c, &ivwl_iface_wl_surface);
	if (origin && ivwl_rnd_below(h, 3) == 0) {
		/* actions are for drags: weston ends a client that sets
		 * a source with actions as its selection */
		if (version_of(c, src) >= 3)
			req(f, c, src, IVWL_REQ_WL_DATA_SOURCE_SET_ACTIONS,
			    NULL, "u", 1 + ivwl_rnd_below(h, 7));
		req(f, c, dev, IVWL_REQ_WL_DATA_DEVICE_START_DRAG, NULL,
		    "uuuu", src, origin, 0, c->input_serial);
	} else
		req(f, c, dev, IVWL_REQ_WL_DATA_DEVICE_SET_SELECTION, NULL,
		    "uu", src, c->input_serial);
}

static void
input(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c)
{
	struct ivwl_hostile *h = &f->h;
	uint32_t seat = ivwl_fuzz_ensure(f, c, "wl_seat", 99);
	uint32_t ptr, surface;

	switch (ivwl_rnd_below(h, 3)) {
	case 0:
		ptr = req(f, c, seat, IVWL_REQ_WL_SEAT_GET_POINTER, NULL, "n");
		surface = ivwl_fuzz_pick(f, c, &ivwl_iface_wl_surface);
		if (ptr && ivwl_rnd_below(h, 2))
			req(f, c, ptr, IVWL_REQ_WL_POINTER_SET_CURSOR, NULL,
			    "uuuu", c->input_serial, surface,
			    ivwl_rnd_below(h, 8), ivwl_rnd_below(h, 8));
		break;
	case 1:
		req(f, c, seat, IVWL_REQ_WL_SEAT_GET_KEYBOARD, NULL, "n");
		break;
	default:
		req(f, c, seat, IVWL_REQ_WL_SEAT_GET_TOUCH, NULL, "n");
		break;
	}
}

/* The destructor request of a random live object: teardown orders. */
static void
destroy_one(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c)
{
	uint32_t id = ivwl_fuzz_pick(f, c, NULL), v, op;
	const struct ivwl_interface *iface = ivwl_fuzz_iface_of(c, id, &v);

	if (!iface || id >= IVWL_WIRE_SERVER_ID_START)
		return;
	for (op = 0; op < iface->request_count; op++) {
		if ((iface->requests[op].flags & IVWL_MESSAGE_DESTRUCTOR) &&
		    iface->requests[op].signature[0] == '\0' &&
		    iface->requests[op].since <= v) {
			req(f, c, id, (uint16_t)op, NULL, "");
			return;
		}
	}
}

void
ivwl_fuzz_helper(struct ivwl_fuzz *f, struct ivwl_fuzz_conn *c)
{
	struct ivwl_hostile *h = &f->h;
	uint32_t surface;

	switch (ivwl_rnd_below(h, 12)) {
	case 0:
	case 1:
		window(f, c);
		break;
	case 2:
	case 3:
		surface = ivwl_fuzz_pick(f, c, &ivwl_iface_wl_surface);
		if (surface)
			ivwl_fuzz_paint(f, c, surface);
		break;
	case 4:
	case 5:
		popup(f, c);
		break;
	case 6:
		subsurface(f, c);
		break;
	case 7:
		data(f, c);
		break;
	case 8:
		input(f, c);
		break;
	case 9:
		ivwl_fuzz_bind_random(f, c);
		break;
	default:
		destroy_one(f, c);
		break;
	}
}
