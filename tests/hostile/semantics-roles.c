/* SPDX-License-Identifier: MIT */
/*
 * Attacks on the roles and lifetimes of Wayland objects: a surface with
 * two roles, grabbing popups nested and closed in the wrong order,
 * requests on objects whose state weston 10 already freed, and what the
 * Wayland fuzzer found past the firewall.  Each reproduces one finding
 * and prints what the display did.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ivwl-protocols.h"
#include "semantics.h"

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

	if (!ivwl_sem_start(h, 0, &s) || !s.subcomp) {
		printf("hostile-peer: role-subsurface: no session with "
		       "wl_subcompositor\n");
		return;
	}
	ivwl_out_reset(&out);
	a = ivwl_sem_surface(&s, &out);
	b = ivwl_sem_surface(&s, &out);
	ivwl_sem_xdg_surface(&s, &out, a);
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
	surface = ivwl_sem_surface(s, &out);
	xdg = ivwl_sem_xdg_surface(s, &out, surface);
	popup = new_id(s);
	ivwl_out_begin(&out, xdg, IVWL_REQ_XDG_SURFACE_GET_POPUP);
	ivwl_out_u32(&out, popup);
	ivwl_out_u32(&out, parent);
	ivwl_out_u32(&out, positioner);
	ivwl_out_end(&out);
	ivwl_out_begin(&out, popup, IVWL_REQ_XDG_POPUP_GRAB);
	ivwl_out_u32(&out, s->seat);
	ivwl_out_u32(&out, s->press_serial);
	ivwl_out_end(&out);
	return ivwl_sem_configure_and_map(s, &out, xdg, surface) ? xdg : 0;
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

	if (!ivwl_sem_start(h, 0, &s) || !s.seat) {
		printf("hostile-peer: popup-chain: no session with a seat\n");
		return;
	}
	ivwl_out_reset(&out);
	surface = ivwl_sem_surface(&s, &out);
	parent = ivwl_sem_xdg_surface(&s, &out, surface);
	top = new_id(&s);
	ivwl_out_begin(&out, parent, IVWL_REQ_XDG_SURFACE_GET_TOPLEVEL);
	ivwl_out_u32(&out, top);
	ivwl_out_end(&out);
	ivwl_out_begin(&out, top, IVWL_REQ_XDG_TOPLEVEL_SET_TITLE);
	ivwl_out_string(&out, "popup-chain");
	ivwl_out_end(&out);
	positioner = sem_positioner(&s, &out);
	if (!ivwl_sem_configure_and_map(&s, &out, parent, surface)) {
		printf("hostile-peer: popup-chain: the toplevel never mapped\n");
		return;
	}
	/* a grab needs the keyboard and a press the user made (the test
	 * clicks the window) */
	printf("hostile-peer: popup-chain: mapped, waiting for a click\n");
	fflush(stdout);
	if (!ivwl_sem_wait_click(&s, 15000)) {
		printf("hostile-peer: popup-chain: nobody clicked\n");
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
		ivwl_hostile_roundtrip(h, 0, ivwl_sem_on_event, &s, 200);
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
	w->surface = ivwl_sem_surface(s, &out);
	w->xdg = ivwl_sem_xdg_surface(s, &out, w->surface);
	w->top = new_id(s);
	ivwl_out_begin(&out, w->xdg, IVWL_REQ_XDG_SURFACE_GET_TOPLEVEL);
	ivwl_out_u32(&out, w->top);
	ivwl_out_end(&out);
	if (map)
		return ivwl_sem_configure_and_map(s, &out, w->xdg, w->surface);
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
	child.surface = ivwl_sem_surface(s, &out);
	child.xdg = ivwl_sem_xdg_surface(s, &out, child.surface);
	popup = new_id(s);
	ivwl_out_begin(&out, child.xdg, IVWL_REQ_XDG_SURFACE_GET_POPUP);
	ivwl_out_u32(&out, popup);
	ivwl_out_u32(&out, w.xdg);
	ivwl_out_u32(&out, positioner);
	ivwl_out_end(&out);
	if (!ivwl_sem_configure_and_map(s, &out, child.xdg, child.surface))
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
	parent = ivwl_sem_surface(s, &out);
	child = ivwl_sem_surface(s, &out);
	sibling = ivwl_sem_surface(s, &out);
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
		if (!ivwl_sem_start(h, k, &s) || !s.subcomp) {
			printf("hostile-peer: %s: no session\n", mode);
			return;
		}
		if (!table[v].attack(&s)) {
			printf("hostile-peer: %s: %s: could not be set up\n",
			       mode, table[v].name);
			ivwl_hostile_slot_close(h, k);
			continue;
		}
		ivwl_hostile_roundtrip(h, k, ivwl_sem_on_event, &s, 500);
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

/* ---- pacing-misuse --------------------------------------------------- */

/*
 * wp_fifo_v1 and wp_commit_timer_v1 (weston 15 and later) used against
 * their protocol, and a queue of commits held for a time far ahead at
 * the connection's end.  Opcodes by number: the tables have them only
 * with wayland-protocols 1.38.
 */
#define FIFO_MANAGER_GET_FIFO 1
#define FIFO_SET_BARRIER 0
#define FIFO_WAIT_BARRIER 1
#define TIMING_GET_TIMER 1
#define TIMER_SET_TIMESTAMP 0

/* A surface and its fifo or timer (manager: s->fifo or s->timing). */
static bool
pacer(struct sem *s, uint32_t manager, uint32_t *surface, uint32_t *obj)
{
	struct ivwl_out out;

	if (!manager)
		return false;
	ivwl_out_reset(&out);
	*surface = ivwl_sem_surface(s, &out);
	ivwl_hostile_send_wayland(s->h, s->k, &out);
	*obj = new_id(s);
	sem_send(s, manager, manager == s->fifo ? FIFO_MANAGER_GET_FIFO :
		 TIMING_GET_TIMER, 2, *obj, *surface, 0, 0);
	return true;
}

static bool
second_fifo(struct sem *s)
{
	uint32_t surface, fifo;

	if (!pacer(s, s->fifo, &surface, &fifo))
		return false;
	sem_send(s, s->fifo, FIFO_MANAGER_GET_FIFO, 2, new_id(s), surface, 0,
		 0);
	return true;
}

static bool
barrier_after_surface(struct sem *s)
{
	uint32_t surface, fifo;

	if (!pacer(s, s->fifo, &surface, &fifo))
		return false;
	sem_send(s, surface, IVWL_REQ_WL_SURFACE_DESTROY, 0, 0, 0, 0, 0);
	sem_send(s, fifo, FIFO_SET_BARRIER, 0, 0, 0, 0, 0);
	return true;
}

static bool
second_timer(struct sem *s)
{
	uint32_t surface, timer;

	if (!pacer(s, s->timing, &surface, &timer))
		return false;
	sem_send(s, s->timing, TIMING_GET_TIMER, 2, new_id(s), surface, 0, 0);
	return true;
}

static bool
timestamp_after_surface(struct sem *s)
{
	uint32_t surface, timer;

	if (!pacer(s, s->timing, &surface, &timer))
		return false;
	sem_send(s, surface, IVWL_REQ_WL_SURFACE_DESTROY, 0, 0, 0, 0, 0);
	sem_send(s, timer, TIMER_SET_TIMESTAMP, 3, 0, 5, 0, 0);
	return true;
}

static bool
two_timestamps(struct sem *s)
{
	uint32_t surface, timer;

	if (!pacer(s, s->timing, &surface, &timer))
		return false;
	sem_send(s, timer, TIMER_SET_TIMESTAMP, 3, 0, 5, 0, 0);
	sem_send(s, timer, TIMER_SET_TIMESTAMP, 3, 0, 6, 0, 0);
	return true;
}

static bool
timestamp_nsec(struct sem *s)
{
	uint32_t surface, timer;

	if (!pacer(s, s->timing, &surface, &timer))
		return false;
	sem_send(s, timer, TIMER_SET_TIMESTAMP, 3, 0, 5, 1000000000u, 0);
	return true;
}

/*
 * A mapped window's commits held by a time 100000 s ahead, 200 of them
 * behind fifo barriers too, then the connection ends with them queued:
 * legal, and weston must free the queue.
 */
static bool
queued_at_end(struct sem *s)
{
	struct sem_window w;
	struct timespec now;
	uint32_t timer, fifo;
	int i;

	if (!s->fifo || !s->timing || !sem_toplevel(s, &w, true))
		return false;
	timer = new_id(s);
	sem_send(s, s->timing, TIMING_GET_TIMER, 2, timer, w.surface, 0, 0);
	fifo = new_id(s);
	sem_send(s, s->fifo, FIFO_MANAGER_GET_FIFO, 2, fifo, w.surface, 0, 0);
	clock_gettime(CLOCK_MONOTONIC, &now);
	for (i = 0; i < 200; i++) {
		struct ivwl_out out;

		if (i == 0)
			sem_send(s, timer, TIMER_SET_TIMESTAMP, 3, 0,
				 (uint32_t)now.tv_sec + 100000u, 0, 0);
		sem_send(s, fifo, FIFO_SET_BARRIER, 0, 0, 0, 0, 0);
		sem_send(s, fifo, FIFO_WAIT_BARRIER, 0, 0, 0, 0, 0);
		ivwl_out_reset(&out);
		ivwl_out_redraw(&out, w.surface, s->buffer, POPUP_SIZE,
				POPUP_SIZE);
		ivwl_hostile_send_wayland(s->h, s->k, &out);
	}
	/* still live: the queue is legal; the slot's close ends it */
	return ivwl_hostile_roundtrip(s->h, s->k, ivwl_sem_on_event, s, 1000);
}

static const struct variant pacing_variants[] = {
	{ "a second wp_fifo_v1 for a surface", second_fifo },
	{ "set_barrier after the surface went", barrier_after_surface },
	{ "a second wp_commit_timer_v1 for a surface", second_timer },
	{ "set_timestamp after the surface went", timestamp_after_surface },
	{ "set_timestamp twice before a commit", two_timestamps },
	{ "set_timestamp with tv_nsec of a second", timestamp_nsec },
	{ "commits queued for 100000 s at the end", queued_at_end },
};

void
ivwl_hostile_pacing_misuse(struct ivwl_hostile *h)
{
	run_variants(h, "pacing-misuse", pacing_variants,
		     sizeof(pacing_variants) / sizeof(pacing_variants[0]));
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

/* A positioner for a popup at (dx, dy) from its parent, with bits. */
static uint32_t
placed_positioner(struct sem *s, int32_t dx, int32_t dy, uint32_t bits)
{
	struct ivwl_out out;
	uint32_t p;

	ivwl_out_reset(&out);
	p = sem_positioner(s, &out);
	ivwl_out_begin(&out, p, IVWL_REQ_XDG_POSITIONER_SET_OFFSET);
	ivwl_out_u32(&out, (uint32_t)dx);
	ivwl_out_u32(&out, (uint32_t)dy);
	ivwl_out_end(&out);
	ivwl_out_begin(&out, p, IVWL_REQ_XDG_POSITIONER_SET_CONSTRAINT_ADJUSTMENT);
	ivwl_out_u32(&out, bits);
	ivwl_out_end(&out);
	ivwl_hostile_send_wayland(s->h, s->k, &out);
	return p;
}

/* A popup's ids. */
struct sem_popup {
	uint32_t surface, xdg, popup;
};

/* A popup on parent (an xdg_surface) by positioner, mapped. */
static bool
sem_popup(struct sem *s, struct sem_popup *w, uint32_t parent,
	  uint32_t positioner)
{
	struct ivwl_out out;

	ivwl_out_reset(&out);
	w->surface = ivwl_sem_surface(s, &out);
	w->xdg = ivwl_sem_xdg_surface(s, &out, w->surface);
	w->popup = new_id(s);
	ivwl_out_begin(&out, w->xdg, IVWL_REQ_XDG_SURFACE_GET_POPUP);
	ivwl_out_u32(&out, w->popup);
	ivwl_out_u32(&out, parent);
	ivwl_out_u32(&out, positioner);
	ivwl_out_end(&out);
	return ivwl_sem_configure_and_map(s, &out, w->xdg, w->surface);
}

/* Lets the display repaint what came before (its views placed). */
static void
sem_settle(struct sem *s)
{
	usleep(150 * 1000);
	ivwl_hostile_roundtrip(s->h, s->k, ivwl_sem_on_event, s, 500);
}

/* every bit of xdg_positioner.constraint_adjustment but resize */
#define SLIDE_FLIP 0xfu

/*
 * A popup placed off every output (no adjustment of its own), then a
 * popup on it that asks to be constrained: weston 16 takes the output
 * of the parent's view, which has none (SEGV in get_popup).
 */
static bool
popup_on_offscreen_popup(struct sem *s)
{
	struct sem_window w;
	struct sem_popup far, child;

	if (!sem_toplevel(s, &w, true) ||
	    !sem_popup(s, &far, w.xdg, placed_positioner(s, 20000, 20000, 0)))
		return false;
	sem_settle(s);
	return sem_popup(s, &child, far.xdg,
			 placed_positioner(s, 0, 0, SLIDE_FLIP));
}

/* A popup mapped, then unmapped (a null buffer), then one on it asking
 * to be constrained: its parent's view has no output either. */
static bool
popup_on_unmapped_popup(struct sem *s)
{
	struct sem_window w;
	struct sem_popup parent, child;

	if (!sem_toplevel(s, &w, true) ||
	    !sem_popup(s, &parent, w.xdg, placed_positioner(s, 0, 0, 0)))
		return false;
	sem_send(s, parent.surface, IVWL_REQ_WL_SURFACE_ATTACH, 3, 0, 0, 0, 0);
	sem_send(s, parent.surface, IVWL_REQ_WL_SURFACE_COMMIT, 0, 0, 0, 0, 0);
	sem_settle(s);
	return sem_popup(s, &child, parent.xdg,
			 placed_positioner(s, 0, 0, SLIDE_FLIP));
}

/*
 * The same through xdg_popup.reposition (xdg_wm_base 3): a constrained
 * popup whose parent popup is unmapped under it asks to be placed anew.
 */
static bool
reposition_on_unmapped_popup(struct sem *s)
{
	struct sem_window w;
	struct sem_popup parent, child;
	struct ivwl_out out;
	uint32_t wm1 = s->wm_base;

	s->wm_base = new_id(s);
	ivwl_out_reset(&out);
	ivwl_out_bind(&out, s->g.wm_base, "xdg_wm_base", 3, s->wm_base);
	ivwl_hostile_send_wayland(s->h, s->k, &out);
	if (!sem_toplevel(s, &w, true) ||
	    !sem_popup(s, &parent, w.xdg, placed_positioner(s, 0, 0, 0)) ||
	    !sem_popup(s, &child, parent.xdg,
		       placed_positioner(s, 0, 0, SLIDE_FLIP))) {
		s->wm_base = wm1;
		return false;
	}
	sem_send(s, parent.surface, IVWL_REQ_WL_SURFACE_ATTACH, 3, 0, 0, 0, 0);
	sem_send(s, parent.surface, IVWL_REQ_WL_SURFACE_COMMIT, 0, 0, 0, 0, 0);
	sem_settle(s);
	sem_send(s, child.popup, IVWL_REQ_XDG_POPUP_REPOSITION, 2,
		 placed_positioner(s, 4, 4, SLIDE_FLIP), 7, 0, 0);
	return true;
}

static const struct variant fuzz_variants[] = {
	{ "set_parent to a toplevel never committed", parent_uncommitted },
	{ "viewport with a fractional source destroyed, then a commit",
	  viewport_fraction },
	{ "constrained popup on a popup off every output",
	  popup_on_offscreen_popup },
	{ "constrained popup on an unmapped popup", popup_on_unmapped_popup },
	{ "constrained popup repositioned on an unmapped popup",
	  reposition_on_unmapped_popup },
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
