/* SPDX-License-Identifier: MIT */
/*
 * Each VM's share of weston's repaints (docs/security.md, "Repaint
 * share").  weston composites every view it repaints, on the CPU with
 * the pixman renderer, and a frame of one VM waits for all of them: a
 * VM that stacks hundreds of translucent surfaces, each within its
 * budgets, takes the frame rate of every other VM and the desktop's.
 *
 * Two bounds, both in what a VM's views draw:
 *  - A window's own surfaces (the toplevel and its subsurfaces) may
 *    cover its box IVWL_REPAINT_WINDOW_DEPTH times and be
 *    IVWL_REPAINT_WINDOW_VIEWS views, by their sizes and positions,
 *    before anything is drawn (window.c tells on each commit of them).
 *  - After each repaint, what each VM's views drew there (their area
 *    not hidden by opaque views above, as weston's renderer paints it)
 *    is summed: over IVWL_REPAINT_VM_AREA times the output's area, or
 *    over IVWL_REPAINT_VM_VIEWS views, its costliest windows are
 *    veiled until it fits, and it is slowed down: its requests wait,
 *    so its commits, and the frame callbacks and presentation feedback
 *    that follow them, come later.  A veiled window shows again once it
 *    would fit.  For IVWL_REPAINT_HOT_MS after, each window of that VM
 *    that commits must fit beside what the VM drew, or starts veiled:
 *    before weston draws it, not after.
 * A veiled window keeps its frame; an opaque veil replaces its content,
 * whose subsurfaces are no views meanwhile (window.c).
 */
#include <stdlib.h>

#include <libweston/libweston.h>
#include "weston-compat.h"

#include "focus.h"
#include "ivwl-limits.h"
#include "ivwl-plugin.h"
#include "mono-time.h"
#include "output-clock.h"
#include "repaint-cost.h"
#include "repaint.h"
#include "vm.h"
#include "window.h"

struct ivwl_repaint {
	struct ivwl_plugin *plugin;
	struct wl_listener frame;	/* of the output clock */
	struct wl_listener output_gone;
	struct wl_listener holder;	/* focus.c: who has the keyboard */
	struct wl_listener committed;	/* of the windows */
	struct ivwl_vm *holder_vm;
	uint32_t pass;			/* repaints accounted */
	/* the last one's judgement waits until weston is out of it */
	struct weston_output *judged;
	struct wl_event_source *judge;
};

/* A VM's share: repaint's addon on it. */
struct vm_share {
	struct ivwl_addon addon;
	struct ivwl_vm_share share;
};

static void
vm_share_destroy(struct ivwl_addon *addon)
{
	struct vm_share *vs = wl_container_of(addon, vs, addon);

	free(vs);
}

static const struct ivwl_addon_interface share_addon = {
	.name = "ivwl-repaint-share",
	.destroy = vm_share_destroy,
};

/* Its share, which ivwl_repaint_create gave every VM. */
static struct ivwl_vm_share *
share_of(struct ivwl_vm *vm)
{
	static struct ivwl_vm_share none;
	struct ivwl_addon *addon;
	struct vm_share *vs;

	addon = ivwl_addon_find(&vm->addons, &share_addon, &share_addon);
	if (!addon) {
		none = (struct ivwl_vm_share){ 0 };
		return &none;
	}
	vs = wl_container_of(addon, vs, addon);
	return &vs->share;
}

const struct ivwl_vm_share *
ivwl_repaint_share(struct ivwl_vm *vm)
{
	return share_of(vm);
}

/* How often a VM's veiled windows are logged, at most. */
#define VEIL_LOG_MS 5000

/* Says in weston's log that w was veiled and why, at most every few
 * seconds a VM. */
static void
log_veil(const struct ivwl_window_cost *w, enum ivwl_veil_reason reason)
{
	struct ivwl_vm *vm = w->vm;
	uint64_t now = (uint64_t)ivwl_now_ms();

	if (share_of(vm)->veil_logged_ms &&
	    now - share_of(vm)->veil_logged_ms < VEIL_LOG_MS)
		return;
	share_of(vm)->veil_logged_ms = now;
	if (reason == IVWL_VEIL_DEPTH)
		ivwl_log("vm %s: a %dx%d window veiled: its surfaces would "
			 "draw %llu pixels in %u views (at most %u times its "
			 "box, %u views)", vm->name, w->window->width,
			 w->window->height,
			 (unsigned long long)w->estimate_px, w->estimate_views,
			 IVWL_REPAINT_WINDOW_DEPTH, IVWL_REPAINT_WINDOW_VIEWS);
	else if (reason == IVWL_VEIL_SUM)
		ivwl_log("vm %s: a %dx%d window veiled: all VMs together drew "
			 "more than %u times the output in a repaint, and it "
			 "drew most (%llu pixels)", vm->name, w->window->width,
			 w->window->height, IVWL_REPAINT_ALL_AREA,
			 (unsigned long long)share_of(vm)->px);
	else
		ivwl_log("vm %s: a %dx%d window veiled: the VM drew %llu "
			 "pixels of a %llu-pixel output in %u views (at most "
			 "%u times, %u views)", vm->name, w->window->width,
			 w->window->height,
			 (unsigned long long)share_of(vm)->px,
			 (unsigned long long)share_of(vm)->output_px,
			 share_of(vm)->views, IVWL_REPAINT_VM_AREA,
			 IVWL_REPAINT_VM_VIEWS);
}

static uint64_t
region_area(pixman_region32_t *r)
{
	pixman_box32_t *b;
	uint64_t area = 0;
	int i, n;

	b = pixman_region32_rectangles(r, &n);
	for (i = 0; i < n; i++)
		area += (uint64_t)(b[i].x2 - b[i].x1) *
			(uint64_t)(b[i].y2 - b[i].y1);
	return area;
}

/*
 * What the view drew in this repaint if it was all damaged: its box on
 * the output less what opaque views above hide (as weston clips it; the
 * clip is weston's own business from weston 14, so it is made here),
 * and of that what it blended.
 */
static void
view_cost(struct weston_view *view, struct weston_output *output,
	  pixman_region32_t *clip, uint64_t *px, uint64_t *translucent)
{
	pixman_region32_t r;

	pixman_region32_init(&r);
	pixman_region32_intersect(&r, &view->transform.boundingbox,
				  &output->region);
	pixman_region32_subtract(&r, &r, clip);
	*px = region_area(&r) * ivwl_repaint_weight(view->surface);
	if (view->alpha >= 1.0f)
		pixman_region32_subtract(&r, &r, &view->transform.opaque);
	*translucent = region_area(&r) * ivwl_repaint_weight(view->surface);
	pixman_region32_fini(&r);
}

static void
account(struct ivwl_repaint *rp, struct weston_output *output)
{
	struct weston_compositor *ec = output->compositor;
	struct ivwl_window_cost *w;
	struct ivwl_window *win;
	struct weston_view *view;
	struct ivwl_vm *vm;
	uint64_t px, translucent;
	pixman_region32_t clip;		/* opaque above, top down */

	rp->pass++;
	wl_list_for_each(vm, &rp->plugin->vms, link) {
		share_of(vm)->pass = rp->pass;
		share_of(vm)->pending_px = 0;
		share_of(vm)->pending_views = 0;
		share_of(vm)->px = 0;
		share_of(vm)->shown_px = 0;
		share_of(vm)->translucent_px = 0;
		share_of(vm)->views = 0;
		share_of(vm)->output_px = (uint64_t)output->width *
				      (uint64_t)output->height;
	}
	pixman_region32_init(&clip);
	wl_list_for_each(view, &ec->view_list, link) {
		if (!ivwl_view_composited(view) ||
		    !(view->output_mask & (1u << output->id)))
			continue;
		win = view->surface->resource ? ivwl_window_of_view(view) :
						NULL;
		w = win ? &win->cost : NULL;
		if (w)
			view_cost(view, output, &clip, &px, &translucent);
		if (view->alpha >= 1.0f)
			pixman_region32_union(&clip, &clip,
					      &view->transform.opaque);
		if (!w)
			continue;
		if (w->pass != rp->pass) {
			w->pass = rp->pass;
			w->px = 0;
			w->views = 0;
		}
		w->px += px;
		w->views++;
		share_of(w->vm)->px += px;
		share_of(w->vm)->translucent_px += translucent;
		share_of(w->vm)->views++;
	}
	pixman_region32_fini(&clip);
}

struct windows {
	struct ivwl_window **w;
	size_t n, cap;
	uint32_t pass;
};

static void
collect_shown(struct ivwl_window *win, void *data)
{
	const struct ivwl_window_cost *w = &win->cost;
	struct windows *ws = data;
	struct ivwl_window **grown;

	if (w->veil || w->pass != ws->pass)
		return;
	if (ws->n == ws->cap) {
		ws->cap = ws->cap ? ws->cap * 2 : 16;
		grown = realloc(ws->w, ws->cap * sizeof(*ws->w));
		if (!grown) {
			ws->cap = ws->n;
			return;
		}
		ws->w = grown;
	}
	ws->w[ws->n++] = win;
}

static int
costlier_first(const void *a, const void *b)
{
	const struct ivwl_window_cost *x =
		&(*(struct ivwl_window *const *)a)->cost;
	const struct ivwl_window_cost *y =
		&(*(struct ivwl_window *const *)b)->cost;

	return x->px < y->px ? 1 : x->px > y->px ? -1 : 0;
}

struct drawn {
	uint64_t px;
	uint32_t views;
	uint32_t pass;
};

/* A window the last repaint drew and a commit veiled since (between
 * weston's repaint and the judgement, in the same turn of its loop):
 * it draws one view, its veil, from the next repaint on. */
static void
less_veiled_since(struct ivwl_window *win, void *data)
{
	const struct ivwl_window_cost *w = &win->cost;
	struct drawn *d = data;

	if (!w->veil || w->pass != d->pass)
		return;
	d->px -= w->px < d->px ? w->px : d->px;
	if (w->views > 1)
		d->views -= w->views - 1 < d->views ? w->views - 1 : d->views;
}

/* What vm's windows draw in the next repaint if nothing else changes:
 * what they drew in the last, less the windows veiled since. */
static struct drawn
still_drawn(struct ivwl_repaint *rp, struct ivwl_vm *vm)
{
	struct drawn d = {
		.px = share_of(vm)->px,
		.views = share_of(vm)->views,
		.pass = rp->pass,
	};

	ivwl_windows_for_each(rp->plugin->windows, vm, less_veiled_since, &d);
	return d;
}

/* Veils its costliest windows until the rest of d fits its share. */
static uint32_t
veil_costliest(struct ivwl_repaint *rp, struct ivwl_vm *vm,
	       const struct drawn *d)
{
	struct windows ws = { .pass = rp->pass };
	uint64_t px = d->px;
	uint32_t views = d->views, veiled = 0;
	size_t i;

	ivwl_windows_for_each(rp->plugin->windows, vm, collect_shown, &ws);
	if (ws.n > 1)
		qsort(ws.w, ws.n, sizeof(*ws.w), costlier_first);
	for (i = 0; i < ws.n && !ivwl_repaint_fits(share_of(vm), px, views); i++) {
		/* a veil is one view: it spares a window's other views, and
		 * what it covers (weston draws nothing under it) */
		if (ws.w[i]->cost.views <= 1 &&
		    ivwl_repaint_fits(share_of(vm), px, IVWL_REPAINT_VM_VIEWS))
			continue;
		px -= ws.w[i]->cost.px;
		views -= ws.w[i]->cost.views - 1;
		ivwl_window_veil(ws.w[i], IVWL_VEIL_SHARE, true);
		log_veil(&ws.w[i]->cost, IVWL_VEIL_SHARE);
		veiled++;
	}
	free(ws.w);
	share_of(vm)->shown_px = px;
	return veiled;
}

struct unveil {
	uint64_t px;
	uint32_t views;
	uint32_t still;
};

/* Shows a window veiled for its VM's share again if all of it fits. */
static void
unveil_fitting(struct ivwl_window *win, void *data)
{
	struct ivwl_window_cost *w = &win->cost;
	struct unveil *u = data;

	if (!(w->veil & IVWL_VEIL_SHARE))
		return;
	if (!ivwl_repaint_fits(share_of(w->vm), u->px + w->estimate_px,
			       u->views + w->estimate_views)) {
		u->still++;
		return;
	}
	u->px += w->estimate_px;
	u->views += w->estimate_views;
	ivwl_window_veil(win, IVWL_VEIL_SHARE, false);
}

/* The longest it waits: a refresh for each share it drew (in pixels or
 * in views). */
static uint32_t
slow_ms(struct ivwl_vm *vm, const struct weston_output *output)
{
	int32_t mhz = output->current_mode ? output->current_mode->refresh : 0;
	uint64_t period = mhz > 0 ? 1000000u / (uint32_t)mhz : 16;
	uint64_t shares = share_of(vm)->px /
			  (IVWL_REPAINT_VM_AREA * share_of(vm)->output_px + 1) + 1;
	uint64_t ms;

	if (share_of(vm)->views / IVWL_REPAINT_VM_VIEWS + 1 > shares)
		shares = share_of(vm)->views / IVWL_REPAINT_VM_VIEWS + 1;
	ms = period * shares;
	return ms > IVWL_REPAINT_SLOW_MAX_MS ? IVWL_REPAINT_SLOW_MAX_MS :
					       (uint32_t)ms;
}

static void
judge(struct ivwl_repaint *rp, struct ivwl_vm *vm,
      struct weston_output *output)
{
	struct unveil u = { .px = share_of(vm)->px, .views = share_of(vm)->views };
	struct drawn d = still_drawn(rp, vm);
	uint32_t veiled;

	share_of(vm)->shown_px = d.px;
	if (!ivwl_repaint_fits(share_of(vm), share_of(vm)->px, share_of(vm)->views)) {
		share_of(vm)->overs++;
		share_of(vm)->hot_until_ms = (uint64_t)ivwl_now_ms() +
					 IVWL_REPAINT_HOT_MS;
		veiled = veil_costliest(rp, vm, &d);
		share_of(vm)->veiled += veiled;
		ivwl_vm_slow_down(vm, slow_ms(vm, output),
				  "its windows drew more than its share of "
				  "a repaint");
		return;
	}
	if (share_of(vm)->veiled == 0)
		return;
	ivwl_windows_for_each(rp->plugin->windows, vm, unveil_fitting, &u);
	share_of(vm)->veiled = u.still;
}

/* The VM whose shown windows drew most in the last repaint, not yet
 * judged for the sum, other than the one with the keyboard (unless
 * spare_holder is false).  A VM that drew nothing there is never it:
 * veiling it spares nothing (another VM's windows its share veiled
 * must not make a bystander pay for them). */
static struct ivwl_vm *
costliest_vm(struct ivwl_repaint *rp, bool spare_holder)
{
	struct ivwl_vm *vm, *most = NULL;

	wl_list_for_each(vm, &rp->plugin->vms, link) {
		if (share_of(vm)->pass != rp->pass ||
		    share_of(vm)->summed_slow == rp->pass ||
		    share_of(vm)->shown_px == 0 ||
		    (spare_holder && vm == rp->holder_vm))
			continue;
		if (!most || share_of(vm)->shown_px > share_of(most)->shown_px)
			most = vm;
	}
	return most;
}

/* Veils vm's costliest shown windows until *sum fits under bound. */
static void
veil_for_sum(struct ivwl_repaint *rp, struct ivwl_vm *vm, uint64_t *sum,
	     uint64_t bound)
{
	struct windows ws = { .pass = rp->pass };
	size_t i;

	ivwl_windows_for_each(rp->plugin->windows, vm, collect_shown, &ws);
	if (ws.n > 1)
		qsort(ws.w, ws.n, sizeof(*ws.w), costlier_first);
	for (i = 0; i < ws.n && *sum > bound; i++) {
		*sum -= ws.w[i]->cost.px < *sum ? ws.w[i]->cost.px : *sum;
		ivwl_window_veil(ws.w[i], IVWL_VEIL_SUM, true);
		log_veil(&ws.w[i]->cost, IVWL_VEIL_SUM);
		share_of(vm)->sum_veiled++;
	}
	free(ws.w);
}

struct unveil_sum {
	uint64_t sum, bound;
};

/* Shows a window veiled for the sum again if it fits beside the rest. */
static void
unveil_sum_fitting(struct ivwl_window *win, void *data)
{
	struct ivwl_window_cost *w = &win->cost;
	struct unveil_sum *u = data;

	if (!(w->veil & IVWL_VEIL_SUM) || u->sum + w->estimate_px > u->bound)
		return;
	u->sum += w->estimate_px;
	ivwl_window_veil(win, IVWL_VEIL_SUM, false);
	share_of(w->vm)->sum_veiled--;
}

/*
 * Each VM within its share, all of them together may still make every
 * repaint slow (their windows stacked over another VM's or the
 * desktop's, which every frame of those then draws through): past
 * IVWL_REPAINT_ALL_AREA times the output, the VMs that drew most have
 * their costliest windows veiled and wait a refresh, one VM after the
 * other until the rest fits, the one the user gave the keyboard last.
 * Under the bound, such windows show again as they fit.
 */
static void
judge_sum(struct ivwl_repaint *rp, struct weston_output *output)
{
	uint64_t out_px = (uint64_t)output->width * (uint64_t)output->height;
	struct unveil_sum u = { .bound = IVWL_REPAINT_ALL_AREA * out_px };
	struct ivwl_vm *vm;

	/* what judge() or a commit since veiled is out of the sum */
	wl_list_for_each(vm, &rp->plugin->vms, link)
		if (share_of(vm)->pass == rp->pass)
			u.sum += share_of(vm)->shown_px;
	if (u.sum <= u.bound) {
		wl_list_for_each(vm, &rp->plugin->vms, link)
			if (share_of(vm)->sum_veiled)
				ivwl_windows_for_each(rp->plugin->windows, vm,
							   unveil_sum_fitting,
							   &u);
		return;
	}
	while (u.sum > u.bound) {
		vm = costliest_vm(rp, true);
		if (!vm)
			vm = costliest_vm(rp, false);
		if (!vm)
			return;
		share_of(vm)->summed_slow = rp->pass;
		veil_for_sum(rp, vm, &u.sum, u.bound);
		ivwl_vm_slow_down(vm, slow_ms(vm, output),
				  "the VMs' windows together drew more than "
				  "a repaint may, and it drew most");
	}
}

static void
on_judge(void *data)
{
	struct ivwl_repaint *rp = data;
	struct ivwl_vm *vm;

	rp->judge = NULL;
	if (!rp->judged)
		return;
	wl_list_for_each(vm, &rp->plugin->vms, link)
		judge(rp, vm, rp->judged);
	judge_sum(rp, rp->judged);
	rp->judged = NULL;
}

static void
on_holder(struct wl_listener *listener, void *data)
{
	struct ivwl_repaint *rp = wl_container_of(listener, rp, holder);
	const struct ivwl_focus_holder *holder = data;

	rp->holder_vm = holder->vm;
}

/*
 * Right after weston repainted the output, before it sends the frame
 * callbacks: count now, while weston's clip regions are this repaint's,
 * and change views only once weston is out of its repaint.
 */
static void
on_frame(struct wl_listener *listener, void *data)
{
	struct ivwl_repaint *rp = wl_container_of(listener, rp, frame);
	struct weston_output *output = data;

	account(rp, output);
	rp->judged = output;
	if (!rp->judge)
		rp->judge = wl_event_loop_add_idle(
			wl_display_get_event_loop(rp->plugin->display),
			on_judge, rp);
}

static void
on_output_gone(struct wl_listener *listener, void *data)
{
	struct ivwl_repaint *rp = wl_container_of(listener, rp, output_gone);

	if (rp->judged == data)
		rp->judged = NULL;
}

/*
 * The window's popups (the views stacked right above its own that hang
 * from it, below its frame) into its cost estimate: a window with
 * hundreds of translucent popups costs what they draw.
 */
static void
popups_estimate(struct ivwl_window *win)
{
	struct weston_view *view = win->view, *v;
	struct weston_layer_entry *e = &view->layer_link;
	float wx, wy, px, py;

	ivwl_view_to_global(view, 0, 0, &wx, &wy);
	while (e->link.prev != &e->layer->view_list.link) {
		e = wl_container_of(e->link.prev, e, link);
		v = wl_container_of(e, v, layer_link);
		/* its frame's views are no VM's surfaces */
		if (ivwl_window_of_view(v) != win)
			break;
		/* a popup's own view; its subsurfaces come with its tree */
		if (weston_surface_get_main_surface(v->surface) != v->surface)
			continue;
		ivwl_view_to_global(v, 0, 0, &px, &py);
		ivwl_repaint_estimate_add(&win->cost, v->surface,
					  (int64_t)(px - wx),
					  (int64_t)(py - wy));
	}
}

/*
 * A VM's window changed (a commit of its surfaces, a move): what it
 * would draw, and whether it may show so before weston draws it.
 */
static void
on_committed(struct wl_listener *listener, void *data)
{
	struct ivwl_window *win = data;
	struct ivwl_window_cost *w = &win->cost;
	bool deep;

	ivwl_repaint_estimate(w);
	popups_estimate(win);
	if (!(w->veil & IVWL_VEIL_SHARE) && !ivwl_repaint_admit(share_of(w->vm), w)) {
		share_of(w->vm)->veiled++;
		log_veil(w, IVWL_VEIL_SHARE);
		ivwl_window_veil(win, IVWL_VEIL_SHARE, true);
	}
	deep = ivwl_repaint_too_deep(w);
	if (deep && !(w->veil & IVWL_VEIL_DEPTH))
		log_veil(w, IVWL_VEIL_DEPTH);
	ivwl_window_veil(win, IVWL_VEIL_DEPTH, deep);
}

static void
shares_destroy(struct ivwl_plugin *plugin)
{
	struct ivwl_addon *addon;
	struct ivwl_vm *vm;

	wl_list_for_each(vm, &plugin->vms, link) {
		addon = ivwl_addon_find(&vm->addons, &share_addon,
					&share_addon);
		if (!addon)
			continue;
		ivwl_addon_finish(addon);
		vm_share_destroy(addon);
	}
}

struct ivwl_repaint *
ivwl_repaint_create(struct ivwl_plugin *plugin)
{
	struct ivwl_repaint *rp = calloc(1, sizeof(*rp));
	struct vm_share *vs;
	struct ivwl_vm *vm;

	if (!rp)
		return NULL;
	rp->plugin = plugin;
	wl_list_for_each(vm, &plugin->vms, link) {
		vs = calloc(1, sizeof(*vs));
		if (!vs)
			goto err_shares;
		ivwl_addon_init(&vs->addon, &vm->addons, &share_addon,
				&share_addon);
	}
	rp->frame.notify = on_frame;
	ivwl_output_clock_add_frame_listener(plugin->output_clock, &rp->frame);
	rp->output_gone.notify = on_output_gone;
	ivwl_output_clock_add_gone_listener(plugin->output_clock,
					    &rp->output_gone);
	rp->holder.notify = on_holder;
	ivwl_focus_add_holder_listener(plugin->focus, &rp->holder);
	rp->committed.notify = on_committed;
	wl_signal_add(&ivwl_windows_events(plugin->windows)->committed,
		      &rp->committed);
	return rp;

err_shares:
	shares_destroy(plugin);
	free(rp);
	return NULL;
}

void
ivwl_repaint_destroy(struct ivwl_repaint *rp)
{
	if (rp->judge)
		wl_event_source_remove(rp->judge);
	wl_list_remove(&rp->frame.link);
	wl_list_remove(&rp->output_gone.link);
	wl_list_remove(&rp->holder.link);
	wl_list_remove(&rp->committed.link);
	shares_destroy(rp->plugin);
	free(rp);
}
