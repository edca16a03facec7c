/* SPDX-License-Identifier: MIT */
/*
 * The replay fuzz client's windows (replay-fuzz-client.c): buffers,
 * surfaces, subsurfaces, popups and toplevels, made and changed at
 * random but always as the protocol allows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay-fuzz.h"

/* ---- buffers ---------------------------------------------------------- */

static void
buffer_release(struct ivwl_client_buffer *b)
{
	app.releases++;
}

void
buf_free(struct buf *b)
{
	wl_buffer_destroy(b->base.wl);
	ivwl_client_pool_fini(&b->pool);
	app.bytes -= b->pool.size;
	free(b);
}

static struct buf *
buf_new(int w, int h, uint32_t fmt)
{
	size_t size = (size_t)w * h * 4;
	struct buf *b;

	if (app.bytes + size > BUDGET)
		return NULL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	if (ivwl_client_pool_init(&b->pool, app.shm, -1, size,
				  "fuzz-buffer") < 0) {
		free(b);
		return NULL;
	}
	b->fmt = fmt;
	ivwl_client_buffer_init(&b->base, &b->pool, 0, w, h, fmt);
	b->base.release = buffer_release;
	/* Mostly the pool goes at once: the buffer outlives it. */
	if (chance(30))
		maybe_split(30);
	ivwl_client_pool_drop(&b->pool);
	app.bytes += size;
	return b;
}

/* What a test may predict: a colour of (surface id, frame), stripes. */
static void
pattern(struct buf *b, uint32_t id, uint32_t frame)
{
	uint32_t base = (id * 2654435761u) ^ (frame * 40503u);
	uint32_t *px = b->base.pixels;
	int x, y, w = b->base.width;

	for (y = 0; y < b->base.height; y++)
		for (x = 0; x < w; x++)
			px[y * w + x] = 0xff000000u |
				((base + (uint32_t)((x / 8 + y / 8) & 1) *
				  0x404040u) & 0xffffffu);
}

/* ---- surfaces --------------------------------------------------------- */

static void
surf_size(const struct surf *s, int *w, int *h)
{
	if (s->has_dst) {
		*w = s->dst[0];
		*h = s->dst[1];
	} else if (s->has_src) {
		*w = s->src[2];
		*h = s->src[3];
	} else {
		*w = (s->transform & 1 ? s->bh : s->bw) / s->scale;
		*h = (s->transform & 1 ? s->bw : s->bh) / s->scale;
	}
}

static struct surf *
surf_new(struct win *w, enum role role)
{
	struct surf *s = NULL;
	int i;

	for (i = 0; i < MAX_SURFS && !s; i++)
		if (!app.surfs[i].used)
			s = &app.surfs[i];
	if (!s)
		return NULL;
	memset(s, 0, sizeof(*s));
	s->used = true;
	s->win = w;
	s->role = role;
	s->configured = role == R_SUB;
	s->wl = wl_compositor_create_surface(app.compositor);
	s->scale = 1;
	s->bw = 2 * (role == R_SUB ? 8 + pick(40) : 40 + pick(80));
	s->bh = 2 * (role == R_SUB ? 8 + pick(40) : 30 + pick(60));
	s->fmt = chance(50) ? WL_SHM_FORMAT_ARGB8888 : WL_SHM_FORMAT_XRGB8888;
	return s;
}

static void
surf_destroy(struct surf *s)
{
	bool vp_late = s->vp && chance(50);
	int i;

	for (i = 0; i < MAX_SURFS; i++)
		if (app.surfs[i].used && app.surfs[i].parent == s)
			app.surfs[i].parent = NULL;	/* inert now */
	ivwl_client_frame_cancel(&s->frame);
	if (s->vp && !vp_late)
		wp_viewport_destroy(s->vp);
	if (s->sub && chance(70)) {
		wl_subsurface_destroy(s->sub);
		s->sub = NULL;
	}
	wl_surface_destroy(s->wl);
	maybe_split(10);
	/* What was made from the surface goes after it: inert meanwhile. */
	if (s->sub)
		wl_subsurface_destroy(s->sub);
	if (vp_late)
		wp_viewport_destroy(s->vp);
	for (i = 0; i < MAX_BUFS; i++)
		if (s->bufs[i])
			buf_free(s->bufs[i]);
	memset(s, 0, sizeof(*s));
}

static bool
is_maximized_main(const struct surf *s)
{
	return s->role == R_TOP && s->win->maximized;
}

/* A source rectangle inside what the buffer is now, or none. */
static void
fit_viewport(struct surf *s, bool renew)
{
	int bw = (s->transform & 1 ? s->bh : s->bw) / s->scale;
	int bh = (s->transform & 1 ? s->bw : s->bh) / s->scale;

	if (!s->vp || (!renew && (!s->has_src ||
	    (s->src[0] + s->src[2] <= bw && s->src[1] + s->src[3] <= bh))))
		return;
	s->has_src = chance(70);
	if (!s->has_src) {
		wp_viewport_set_source(s->vp, wl_fixed_from_int(-1),
				       wl_fixed_from_int(-1),
				       wl_fixed_from_int(-1),
				       wl_fixed_from_int(-1));
		return;
	}
	s->src[2] = 1 + pick(bw);
	s->src[3] = 1 + pick(bh);
	s->src[0] = pick(bw - s->src[2] + 1);
	s->src[1] = pick(bh - s->src[3] + 1);
	wp_viewport_set_source(s->vp, wl_fixed_from_int(s->src[0]),
			       wl_fixed_from_int(s->src[1]),
			       wl_fixed_from_int(s->src[2]),
			       wl_fixed_from_int(s->src[3]));
}

static void
set_region(struct surf *s, bool input)
{
	struct wl_region *r = NULL;
	int i, n = pick(4);

	if (!chance(15)) {
		r = wl_compositor_create_region(app.compositor);
		for (i = 0; i < n + 1; i++) {
			if (i > 0 && chance(30))
				wl_region_subtract(r, pick(40), pick(40),
						   1 + pick(40), 1 + pick(40));
			else
				wl_region_add(r, pick(60) - 10, pick(60) - 10,
					      1 + pick(150), 1 + pick(150));
		}
	}
	if (input)
		wl_surface_set_input_region(s->wl, r);
	else
		wl_surface_set_opaque_region(s->wl, r);
	if (r)
		wl_region_destroy(r);
}

static void
fb_sync_output(void *data, struct wp_presentation_feedback *fb,
	       struct wl_output *output)
{
}

static void
fb_presented(void *data, struct wp_presentation_feedback *fb, uint32_t a,
	     uint32_t b, uint32_t c, uint32_t d, uint32_t e, uint32_t f,
	     uint32_t g)
{
	app.presented++;
	wp_presentation_feedback_destroy(fb);
}

static void
fb_discarded(void *data, struct wp_presentation_feedback *fb)
{
	app.discarded++;
	wp_presentation_feedback_destroy(fb);
}

static const struct wp_presentation_feedback_listener fb_listener = {
	fb_sync_output, fb_presented, fb_discarded,
};

/* A buffer of the surface's size and format the display does not hold. */
static struct buf *
free_buffer(struct surf *s)
{
	struct buf *b;
	int i, slot = -1;

	for (i = 0; i < MAX_BUFS; i++) {
		b = s->bufs[i];
		if (b && !b->base.busy && b->base.width == s->bw &&
		    b->base.height == s->bh && b->fmt == s->fmt)
			return b;
	}
	for (i = 0; i < MAX_BUFS && slot < 0; i++)
		if (!s->bufs[i])
			slot = i;
	for (i = 0; i < MAX_BUFS && slot < 0; i++)
		if (!s->bufs[i]->base.busy) {
			buf_free(s->bufs[i]);
			s->bufs[i] = NULL;
			slot = i;
		}
	if (slot < 0)
		return NULL;
	s->bufs[slot] = buf_new(s->bw, s->bh, s->fmt);
	return s->bufs[slot];
}

/* A new frame: buffer, damage, maybe a frame callback and feedback. */
void
draw(struct surf *s, bool force)
{
	struct buf *b;
	int i, w, h;

	if (!s->used || (!force && s->frame.callback))
		return;
	if (!s->configured)
		return;
	b = free_buffer(s);
	if (!b)
		return;
	pattern(b, wl_proxy_get_id((struct wl_proxy *)s->wl), s->frames);
	fit_viewport(s, false);
	maybe_split(5);
	ivwl_client_buffer_attach(&b->base, s->wl);
	if (chance(60)) {
		wl_surface_damage_buffer(s->wl, 0, 0, b->base.width,
					 b->base.height);
	} else {
		surf_size(s, &w, &h);
		for (i = pick(3); i >= 0; i--)
			wl_surface_damage(s->wl, pick(w), pick(h),
					  1 + pick(w), 1 + pick(h));
	}
	if (!s->frame.callback && chance(85))
		ivwl_client_frame_ask(&s->frame, s->wl);
	if (app.presentation && chance(25))
		wp_presentation_feedback_add_listener(
			wp_presentation_feedback(app.presentation, s->wl),
			&fb_listener, NULL);
	maybe_split(3);
	wl_surface_commit(s->wl);
	s->frames++;
	s->drawn = true;
	app.commits++;
}

/* Pending transform, scale or regions, committed now or with a later
 * frame. */
void
restyle(struct surf *s)
{
	if (is_maximized_main(s) || s->role == R_POPUP)
		return;
	switch (pick(4)) {
	case 0:
		s->transform = pick(8);
		wl_surface_set_buffer_transform(s->wl, s->transform);
		fit_viewport(s, false);
		break;
	case 1:
		s->scale = 1 + pick(2);
		wl_surface_set_buffer_scale(s->wl, s->scale);
		fit_viewport(s, false);
		break;
	case 2:
		set_region(s, chance(50));
		break;
	case 3:
		s->bw = 2 * (8 + pick(s->role == R_SUB ? 40 : 100));
		s->bh = 2 * (8 + pick(s->role == R_SUB ? 40 : 80));
		s->fmt = chance(50) ? WL_SHM_FORMAT_ARGB8888 :
				      WL_SHM_FORMAT_XRGB8888;
		break;
	}
	maybe_split(15);
	if (chance(50))
		draw(s, true);
}

void
viewport(struct surf *s)
{
	if (!app.viewporter || is_maximized_main(s) || s->role == R_POPUP)
		return;
	if (!s->vp) {
		s->vp = wp_viewporter_get_viewport(app.viewporter, s->wl);
		s->has_src = s->has_dst = false;
	}
	switch (pick(4)) {
	case 0:
		s->has_dst = true;
		s->dst[0] = 8 + pick(200);
		s->dst[1] = 8 + pick(160);
		wp_viewport_set_destination(s->vp, s->dst[0], s->dst[1]);
		break;
	case 1:
		fit_viewport(s, true);
		break;
	case 2:
		s->has_dst = false;
		wp_viewport_set_destination(s->vp, -1, -1);
		break;
	case 3:
		wp_viewport_destroy(s->vp);
		s->vp = NULL;
		s->has_src = s->has_dst = false;
		break;
	}
	maybe_split(15);
	if (chance(50))
		draw(s, true);
}

/* ---- subsurfaces ------------------------------------------------------ */

struct surf *
random_surf(struct win *w, bool sub_only)
{
	struct surf *found[MAX_SURFS];
	int i, n = 0;

	for (i = 0; i < MAX_SURFS; i++) {
		struct surf *s = &app.surfs[i];

		if (s->used && (!w || s->win == w) &&
		    (!sub_only || s->role == R_SUB))
			found[n++] = s;
	}
	return n ? found[pick(n)] : NULL;
}

static int
count_subs(struct win *w)
{
	int i, n = 0;

	for (i = 0; i < MAX_SURFS; i++)
		n += app.surfs[i].used && app.surfs[i].win == w &&
		     app.surfs[i].role == R_SUB;
	return n;
}

void
sub_add(struct win *w)
{
	struct surf *p = random_surf(w, false), *s;

	if (!app.subcompositor || !p || p->role == R_POPUP || p->depth >= 3 ||
	    count_subs(w) >= MAX_SUBS || !(s = surf_new(w, R_SUB)))
		return;
	s->sub = wl_subcompositor_get_subsurface(app.subcompositor, s->wl,
						 p->wl);
	s->parent = p;
	s->depth = p->depth + 1;
	wl_subsurface_set_position(s->sub, pick(200) - 30, pick(160) - 30);
	if (chance(50))
		wl_subsurface_set_desync(s->sub);
	draw(s, true);
	if (chance(60))
		draw(p, true);
}

void
sub_change(struct win *w)
{
	struct surf *s = random_surf(w, true);

	if (!s)
		return;
	if (chance(25)) {
		surf_destroy(s);
		return;
	}
	if (s->sub) {
		if (chance(60))
			wl_subsurface_set_position(s->sub, pick(200) - 30,
						   pick(160) - 30);
		else if (chance(50))
			wl_subsurface_set_sync(s->sub);
		else
			wl_subsurface_set_desync(s->sub);
	}
	maybe_split(15);
	if (s->parent && chance(60))
		draw(s->parent, true);
}

/* ---- popups ----------------------------------------------------------- */

void
popup_close_from(struct win *w, int k)
{
	struct popup *p;

	while (w->npops > k) {
		p = &w->pops[--w->npops];
		xdg_popup_destroy(p->p);
		xdg_surface_destroy(p->xs);
		if (p->pos)
			xdg_positioner_destroy(p->pos);
		surf_destroy(p->s);
		memset(p, 0, sizeof(*p));
	}
}

static void
popup_configure(void *data, struct xdg_popup *xp, int32_t x, int32_t y,
		int32_t w, int32_t h)
{
	struct popup *p = data;

	if (w > 0 && h > 0) {
		p->s->bw = w;
		p->s->bh = h;
	}
}

static void
popup_done(void *data, struct xdg_popup *xp)
{
	struct popup *p = data;
	struct win *w = p->s->win;

	say("popup_done");
	app.popup_done++;
	popup_close_from(w, (int)(p - w->pops));
}

static void
popup_repositioned(void *data, struct xdg_popup *xp, uint32_t token)
{
}

static const struct xdg_popup_listener popup_listener = {
	popup_configure, popup_done, popup_repositioned,
};

static void
popup_surface_configure(void *data, struct xdg_surface *xs, uint32_t serial)
{
	struct popup *p = data;

	app.configures++;
	xdg_surface_ack_configure(xs, serial);
	p->s->configured = true;
	draw(p->s, true);
}

static const struct xdg_surface_listener popup_surface_listener = {
	popup_surface_configure,
};

void
popup_open(struct win *w)
{
	struct xdg_surface *parent;
	struct popup *p;
	int pw, ph;

	if (!w->configured || !w->s->drawn || w->npops == MAX_POPUPS)
		return;
	if (w->npops) {
		if (!w->pops[w->npops - 1].s->drawn)
			return;
		parent = w->pops[w->npops - 1].xs;
		pw = w->pops[w->npops - 1].w;
		ph = w->pops[w->npops - 1].h;
	} else {
		parent = w->xs;
		surf_size(w->s, &pw, &ph);
	}
	p = &w->pops[w->npops];
	p->s = surf_new(w, R_POPUP);
	if (!p->s)
		return;
	p->w = 16 + pick(100);
	p->h = 16 + pick(80);
	p->s->bw = p->w;
	p->s->bh = p->h;
	p->pos = xdg_wm_base_create_positioner(app.wm);
	xdg_positioner_set_size(p->pos, p->w, p->h);
	xdg_positioner_set_anchor_rect(p->pos, pick(pw > 1 ? pw / 2 : 1),
				       pick(ph > 1 ? ph / 2 : 1), 1 + pick(8),
				       1 + pick(8));
	xdg_positioner_set_anchor(p->pos, (uint32_t)pick(9));
	xdg_positioner_set_gravity(p->pos, (uint32_t)pick(9));
	xdg_positioner_set_constraint_adjustment(p->pos, (uint32_t)pick(64));
	xdg_positioner_set_offset(p->pos, pick(21) - 10, pick(21) - 10);
	p->xs = xdg_wm_base_get_xdg_surface(app.wm, p->s->wl);
	xdg_surface_add_listener(p->xs, &popup_surface_listener, p);
	p->p = xdg_surface_get_popup(p->xs, parent, p->pos);
	xdg_popup_add_listener(p->p, &popup_listener, p);
	if (chance(60)) {
		xdg_positioner_destroy(p->pos);
		p->pos = NULL;
	}
	wl_surface_commit(p->s->wl);
	w->npops++;
	app.popups++;
}

/* ---- toplevels -------------------------------------------------------- */

static void
toplevel_configure(void *data, struct xdg_toplevel *t, int32_t w, int32_t h,
		   struct wl_array *states)
{
	struct win *win = data;
	uint32_t *state;

	win->pw = w;
	win->ph = h;
	win->pmax = false;
	wl_array_for_each(state, states)
		if (*state == XDG_TOPLEVEL_STATE_MAXIMIZED)
			win->pmax = true;
}

static void
toplevel_close(void *data, struct xdg_toplevel *t)
{
	say("close");
}

static void
toplevel_bounds(void *data, struct xdg_toplevel *t, int32_t w, int32_t h)
{
}

static void
toplevel_caps(void *data, struct xdg_toplevel *t, struct wl_array *caps)
{
}

static const struct xdg_toplevel_listener toplevel_listener = {
	toplevel_configure, toplevel_close, toplevel_bounds, toplevel_caps,
};

/* A maximized window's geometry is what the display asked for, exactly. */
static void
take_maximized(struct win *w)
{
	struct surf *s = w->s;

	s->bw = w->pw;
	s->bh = w->ph;
	if (s->transform)
		wl_surface_set_buffer_transform(s->wl, 0);
	if (s->scale != 1)
		wl_surface_set_buffer_scale(s->wl, 1);
	s->transform = 0;
	s->scale = 1;
	if (s->vp) {
		wp_viewport_destroy(s->vp);
		s->vp = NULL;
		s->has_src = s->has_dst = false;
	}
	xdg_surface_set_window_geometry(w->xs, 0, 0, w->pw, w->ph);
}

static void
toplevel_surface_configure(void *data, struct xdg_surface *xs,
			   uint32_t serial)
{
	struct win *w = data;

	app.configures++;
	xdg_surface_ack_configure(xs, serial);
	if (app.pad_ids && app.ready)
		return;		/* idle: no new ids */
	if (w->pmax && w->pw > 0 && w->ph > 0) {
		take_maximized(w);
		w->maximized = true;
	} else if (w->maximized || (w->pw > 0 && w->ph > 0)) {
		w->s->bw = 2 * (w->pw > 32 && w->pw < 400 ? w->pw / 2 : 80);
		w->s->bh = 2 * (w->ph > 32 && w->ph < 300 ? w->ph / 2 : 60);
		w->maximized = false;
	}
	w->configured = w->s->configured = true;
	draw(w->s, true);
}

static const struct xdg_surface_listener toplevel_surface_listener = {
	toplevel_surface_configure,
};

static void
title(struct win *w)
{
	char text[64];

	if (w->anchor && w->renames)
		snprintf(text, sizeof(text), "fuzz-%u-a%d ~%u", app.seed,
			 w->num, w->renames);
	else
		snprintf(text, sizeof(text), "fuzz-%u-%c%d", app.seed,
			 w->anchor ? 'a' : 'e', w->num);
	xdg_toplevel_set_title(w->top, text);
}

void
win_new(bool anchor)
{
	struct win *w = NULL;
	int i;

	for (i = 0; i < MAX_WINS && !w; i++)
		if (!app.wins[i].used)
			w = &app.wins[i];
	if (!w)
		return;
	memset(w, 0, sizeof(*w));
	w->s = surf_new(w, R_TOP);
	if (!w->s)
		return;
	w->used = true;
	w->anchor = anchor;
	w->num = anchor ? app.next_num++ : 100 + app.next_num++;
	w->xs = xdg_wm_base_get_xdg_surface(app.wm, w->s->wl);
	xdg_surface_add_listener(w->xs, &toplevel_surface_listener, w);
	w->top = xdg_surface_get_toplevel(w->xs);
	xdg_toplevel_add_listener(w->top, &toplevel_listener, w);
	title(w);
	if (chance(50))
		xdg_toplevel_set_app_id(w->top, "ivwl.fuzz");
	maybe_split(10);
	wl_surface_commit(w->s->wl);
	app.windows++;
}

void
win_destroy(struct win *w)
{
	struct surf *s;

	popup_close_from(w, 0);
	while ((s = random_surf(w, true)))
		surf_destroy(s);
	xdg_toplevel_destroy(w->top);
	maybe_split(10);
	xdg_surface_destroy(w->xs);
	surf_destroy(w->s);
	memset(w, 0, sizeof(*w));
}

static bool
any_maximized(void)
{
	int i;

	for (i = 0; i < MAX_WINS; i++)
		if (app.wins[i].used && (app.wins[i].maximized ||
					 app.wins[i].pmax))
			return true;
	return false;
}

void
toplevel_change(struct win *w)
{
	int a, b;

	switch (pick(6)) {
	case 0:
		if (w->anchor)
			w->renames = chance(30) ? 0 : w->renames + 1;
		title(w);
		break;
	case 1:
		xdg_toplevel_set_app_id(w->top, chance(50) ? "ivwl.fuzz" :
					"ivwl.fuzz.other");
		break;
	case 2:
		a = chance(30) ? 0 : 20 + pick(100);
		b = chance(30) ? 0 : 20 + pick(100);
		xdg_toplevel_set_min_size(w->top, a, b);
		xdg_toplevel_set_max_size(w->top, a && !chance(30) ?
					  a + pick(300) : 0,
					  b && !chance(30) ? b + pick(300) : 0);
		break;
	case 3:
		if (!w->maximized && !w->pmax)
			xdg_surface_set_window_geometry(w->xs, pick(10),
							pick(10),
							20 + pick(100),
							20 + pick(100));
		break;
	case 4:
	case 5:
		if (w->maximized || w->pmax)
			xdg_toplevel_unset_maximized(w->top);
		else if (!any_maximized())
			xdg_toplevel_set_maximized(w->top);
		break;
	}
	maybe_split(10);
	if (chance(40))
		draw(w->s, true);
}
