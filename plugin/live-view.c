/* SPDX-License-Identifier: MIT */
/*
 * weston-debug's scope "ivwl": what every VM and connection is doing,
 * one line per object per second (docs/deploy.md, "Watching it run").
 * A line is its kind ("vm", "conn", "closed") then key=value pairs;
 * strings are in double quotes with \" \\ and \xNN escapes, so a line
 * splits like a shell word list and titles an app chose cannot forge
 * another line or field.  Budgets read used/limit.  A line holds UTF-8
 * only, and nothing a terminal or a Unicode-aware reader takes for a
 * control or a line break (quote_piece); titles come last and are cut
 * whole escapes at a time, so a line's quotes always close and its
 * figures are never what gets cut.
 *
 * Nothing runs while nobody subscribes: the one-second timer exists only
 * between the first subscription and the last one's end.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libweston/libweston.h>
#include <libweston/weston-log.h>
#include "weston-compat.h"

#include "connection.h"
#include "ivwl-limits.h"
#include "ivwl-plugin.h"
#include "live-counts.h"
#include "live-view.h"
#include "mono-time.h"
#include "pipe-thread.h"
#include "repaint-cost.h"
#include "repaint.h"
#include "vm.h"
#include "window.h"

#define TICK_MS 1000
/*
 * A conn line: its figures take at most ~1100 bytes (every counter at
 * 20 digits), its titles WINDOWS_MAX * (" window15=\"\"" + TITLE_SHOWN):
 * 2336.  Both fit with room to spare.
 */
#define VIEW_LINE_MAX 4096
#define WINDOWS_MAX 16
/* Bytes of a title shown, escapes counted: enough to tell windows apart. */
#define TITLE_SHOWN 128

struct ivwl_live_view {
	struct ivwl_plugin *plugin;
	struct weston_log_scope *scope;
	struct wl_event_source *timer;	/* NULL while nobody subscribes */
	uint32_t subscribers;
	uint64_t last_ms;		/* of the last tick */
};

/* One line being built; what does not fit is cut, never overflowed. */
struct line {
	char buf[VIEW_LINE_MAX];
	size_t len;
};

static void __attribute__((format(printf, 2, 3)))
add(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (l->len >= sizeof(l->buf) - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(l->buf + l->len, sizeof(l->buf) - l->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->len += (size_t)n;
	if (l->len > sizeof(l->buf) - 1)
		l->len = sizeof(l->buf) - 1;
}

/*
 * The length of the UTF-8 sequence at p, its code point in *cp; 0 when
 * p starts no well-formed sequence (overlong, surrogate, past U+10FFFF,
 * cut short: a NUL is no continuation byte).
 */
static int
utf8_sequence(const unsigned char *p, uint32_t *cp)
{
	int n, i;

	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	*cp = p[0] & (0x7f >> n);
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		*cp = (*cp << 6) | (p[i] & 0x3f);
	}
	if ((n == 3 && (*cp < 0x800 || (*cp >= 0xd800 && *cp <= 0xdfff))) ||
	    (n == 4 && (*cp < 0x10000 || *cp > 0x10ffff)))
		return 0;
	return n;
}

/*
 * Code points shown escaped: C0 and C1 controls and DEL (a terminal acts
 * on them: ESC and CSI sequences), line and paragraph separators
 * (Python's splitlines() and others end a line there), bidi embeddings,
 * overrides and isolates (they reorder what follows on the line).
 */
static bool
code_point_hidden(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) ||
	       cp == 0x2028 || cp == 0x2029 ||
	       (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

/*
 * The next piece of text at p as shown, into out (at most 13 bytes and a NUL):
 * its length there, and the bytes of text it takes in *used.  \xNN is
 * always one byte of the text: decoding the escapes gives back the
 * text's bytes, malformed UTF-8 included.
 */
static size_t
quote_piece(const unsigned char *p, char *out, int *used)
{
	uint32_t cp;
	size_t len = 0;
	int n = utf8_sequence(p, &cp), i;

	if (n == 1 && (cp == '"' || cp == '\\')) {
		out[0] = '\\';
		out[1] = (char)cp;
		*used = 1;
		return 2;
	}
	if (n > 0 && !code_point_hidden(cp)) {
		memcpy(out, p, (size_t)n);
		*used = n;
		return (size_t)n;
	}
	/* a malformed byte alone; a hidden code point all its bytes */
	*used = n > 0 ? n : 1;
	for (i = 0; i < *used; i++)
		len += (size_t)snprintf(out + len, 5, "\\x%02x", p[i]);
	return len;
}

/*
 * key="text", escaped (the text may be an app's), cut to at most shown
 * bytes as printed, whole pieces at a time: the quotes always close, or
 * the field is left out when even that does not fit.
 */
static void
add_quoted(struct line *l, const char *key, const char *text, size_t shown)
{
	const unsigned char *p = (const unsigned char *)text;
	size_t room = sizeof(l->buf) - 1 - l->len, n;
	char piece[17];
	int used;

	if (room < strlen(key) + 4)
		return;
	add(l, " %s=\"", key);
	room = sizeof(l->buf) - 1 - l->len - 1;	/* the closing quote */
	while (*p) {
		n = quote_piece(p, piece, &used);
		if (n > room || n > shown)
			break;
		memcpy(l->buf + l->len, piece, n);
		l->len += n;
		l->buf[l->len] = '\0';
		room -= n;
		shown -= n;
		p += used;
	}
	add(l, "\"");	/* its room was kept */
}

static void
emit(struct ivwl_live_view *lv, struct weston_log_subscription *sub,
     struct line *l)
{
	if (sub)
		weston_log_subscription_printf(sub, "%s\n", l->buf);
	else
		weston_log_scope_printf(lv->scope, "%s\n", l->buf);
}

static void
app_stats(struct ivwl_connection *conn, struct ivwl_slot_app_stats *out)
{
	ivwl_display_side_app_stats(&conn->vm->side, conn->slot, out);
}

static double
rate(uint64_t now, uint64_t then, uint64_t ms)
{
	return ms && now >= then ? (double)(now - then) * 1000.0 / ms : 0.0;
}

/* Totals, and per second since the last tick (ms 0: no rates). */
static void
add_traffic(struct line *l, const struct ivwl_traffic *t,
	    const struct ivwl_traffic *mark, uint64_t ms)
{
	add(l, " commits=%llu commits/s=%.1f frames=%llu frames/s=%.1f "
	    "request_bytes=%llu request_B/s=%.0f event_bytes=%llu "
	    "event_B/s=%.0f bells_in=%llu bells_out=%llu presented_held=%llu",
	    (unsigned long long)t->commits,
	    rate(t->commits, mark->commits, ms),
	    (unsigned long long)t->frames, rate(t->frames, mark->frames, ms),
	    (unsigned long long)t->request_bytes,
	    rate(t->request_bytes, mark->request_bytes, ms),
	    (unsigned long long)t->event_bytes,
	    rate(t->event_bytes, mark->event_bytes, ms),
	    (unsigned long long)t->bells_in,
	    (unsigned long long)t->bells_out,
	    (unsigned long long)t->presented_held);
}

/*
 * The pixels' side, as the app's relay tells it: numbers an app chose, so
 * marked app_ and only ever printed.
 */
static void
add_app(struct line *l, const struct ivwl_slot_app_stats *a,
	uint64_t copied_mark, uint64_t ms)
{
	add(l, " app_buffer_commits=%llu app_zero_copy_commits=%llu "
	    "app_damaged_bytes=%llu app_copied_bytes=%llu app_copied_B/s=%.0f "
	    "app_zero_copy_pools=%llu app_copy_pools=%llu",
	    (unsigned long long)a->buffer_commits,
	    (unsigned long long)a->zero_copy_commits,
	    (unsigned long long)a->damaged_bytes,
	    (unsigned long long)a->copied_bytes,
	    rate(a->copied_bytes, copied_mark, ms),
	    (unsigned long long)a->zero_copy_pools,
	    (unsigned long long)a->copy_pools);
}

/* The titles of the connection's windows, as weston shows them. */
static void
add_windows(struct line *l, struct ivwl_connection *conn)
{
	struct weston_compositor *ec = conn->vm->plugin->compositor;
	struct weston_desktop_surface *seen[WINDOWS_MAX];
	struct weston_desktop_surface *ds;
	struct weston_layer *layer;
	struct weston_view *view;
	const char *title;
	uint32_t n = 0, i;
	char key[24];

	wl_list_for_each(layer, &ec->layer_list, link) {
		wl_list_for_each(view, &layer->view_list.link,
				 layer_link.link) {
			if (!view->surface->resource ||
			    wl_resource_get_client(view->surface->resource) !=
			    conn->client ||
			    !weston_surface_is_desktop_surface(view->surface))
				continue;
			ds = weston_surface_get_desktop_surface(view->surface);
			title = weston_desktop_surface_get_title(ds);
			for (i = 0; i < n && seen[i] != ds; i++)
				;
			if (!title || i < n || n == WINDOWS_MAX)
				continue;
			seen[n] = ds;
			snprintf(key, sizeof(key), "window%u", n++);
			add_quoted(l, key, title, TITLE_SHOWN);
		}
	}
	add(l, " windows=%u", n);
}

static void
print_conn(struct ivwl_live_view *lv, struct weston_log_subscription *sub,
	   struct ivwl_connection *conn, uint64_t t, uint64_t ms)
{
	const struct ivwl_firewall *fw = &conn->xl.firewall;
	struct ivwl_slot_app_stats app;
	struct line l = { .len = 0 };

	add(&l, "conn vm=%s slot=%u gen=%u t=%.3f", conn->vm->name,
	    conn->slot, conn->generation, t / 1000.0);
	add_traffic(&l, &conn->xl.live.now, &conn->xl.live.mark, ms);
	app_stats(conn, &app);
	add_app(&l, &app, conn->xl.live.copied_mark, ms);
	if (!sub)
		conn->xl.live.copied_mark = app.copied_bytes;
	add(&l, " request_ring=%u/%u event_ring=%u/%u events_blocked=%d",
	    ivwl_ring_fill(&conn->request), conn->request.size,
	    ivwl_ring_fill(&conn->event), conn->event.size, conn->events_blocked);
	add(&l, " pools=%u/%u buffers=%u/%u objects=%u/%u surfaces=%u/%u "
	    "regions=%u/%u rects=%u/%u positioners=%u/%u "
	    "data_sources=%u/%u mime_bytes=%u/%u keyboards=%u/%u "
	    "pointers=%u/%u touches=%u/%u callbacks=%u/%u feedbacks=%u/%u",
	    conn->xl.npools, IVWL_CONN_MAX_POOLS,
	    conn->xl.nbuffers, IVWL_CONN_MAX_BUFFERS,
	    fw->counted_objects, IVWL_FW_CONN_OBJECTS,
	    fw->surfaces, IVWL_FW_CONN_SURFACES,
	    fw->regions, IVWL_FW_CONN_REGIONS,
	    fw->rects, IVWL_FW_CONN_RECTS,
	    fw->positioners, IVWL_FW_CONN_POSITIONERS,
	    fw->data_sources, IVWL_FW_CONN_DATA_SOURCES,
	    fw->mime_bytes, IVWL_FW_CONN_MIME_BYTES,
	    fw->keyboards, IVWL_FW_CONN_KEYBOARDS,
	    fw->pointers, IVWL_FW_CONN_POINTERS,
	    fw->touches, IVWL_FW_CONN_TOUCHES,
	    fw->callbacks, IVWL_FW_CONN_CALLBACKS,
	    fw->feedbacks, IVWL_FW_CONN_FEEDBACKS);
	/* Last: the app chose them, and a line full of them loses nothing
	 * of ours. */
	add_windows(&l, conn);
	emit(lv, sub, &l);
}

static void
print_closures(struct ivwl_live_view *lv, struct weston_log_subscription *sub,
	       struct ivwl_vm *vm, uint64_t from)
{
	const struct ivwl_closure *c;
	struct line l;
	uint64_t i;

	if (vm->live.closed > from + IVWL_LIVE_CLOSURES)
		from = vm->live.closed - IVWL_LIVE_CLOSURES;
	for (i = from; i < vm->live.closed; i++) {
		c = &vm->live.closures[i % IVWL_LIVE_CLOSURES];
		l.len = 0;
		add(&l, "closed vm=%s slot=%u gen=%u t=%.3f", vm->name,
		    c->slot, c->generation, c->when_ms / 1000.0);
		add_quoted(&l, "why", c->why, sizeof(c->why) * 4);
		emit(lv, sub, &l);
	}
}

/*
 * One VM and its connections.  sub: a new subscriber, shown the last
 * closures and no rates; NULL: a tick for everyone, which moves the
 * marks the next rates start from.
 */
static void
count_veiled(struct ivwl_window *w, void *data)
{
	uint32_t *n = data;

	*n += w->cost.veil != 0;
}

/* Its part of the last repaint it took part in (repaint.c). */
static void
add_share(struct line *l, struct ivwl_vm *vm)
{
	const struct ivwl_vm_share *sh = ivwl_repaint_share(vm);
	uint64_t budget = sh->output_px * IVWL_REPAINT_VM_AREA;
	uint32_t veiled = 0;

	ivwl_windows_for_each(vm->plugin->windows, vm, count_veiled, &veiled);
	add(l, " repaint_px=%llu/%llu repaint_translucent_px=%llu "
	    "repaint_views=%u/%u repaint_share=%.2f veiled=%u overs=%llu "
	    "slowed_ms=%llu pipe_stalls=%u",
	    (unsigned long long)sh->px, (unsigned long long)budget,
	    (unsigned long long)sh->translucent_px, sh->views,
	    IVWL_REPAINT_VM_VIEWS,
	    sh->output_px ? (double)sh->px / (double)sh->output_px : 0.0,
	    veiled, (unsigned long long)sh->overs,
	    (unsigned long long)vm->slowed_ms, vm->stalls);
}

static void
print_vm(struct ivwl_live_view *lv, struct weston_log_subscription *sub,
	 struct ivwl_vm *vm, uint64_t t, uint64_t ms)
{
	struct ivwl_traffic sum = vm->live.ended;
	struct ivwl_slot_app_stats app = vm->live.app_ended, one;
	struct line l = { .len = 0 };
	uint32_t i, conns = 0;

	for (i = 0; i < IVWL_SLOT_COUNT; i++) {
		if (!vm->conns[i])
			continue;
		ivwl_traffic_sum(&sum, &vm->conns[i]->xl.live.now);
		app_stats(vm->conns[i], &one);
		ivwl_app_stats_sum(&app, &one);
		conns++;
	}
	add(&l, "vm name=%s t=%.3f attached=%d connections=%u closed=%llu",
	    vm->name, t / 1000.0, vm->dev != NULL, conns,
	    (unsigned long long)vm->live.closed);
	add_traffic(&l, &sum, &vm->live.mark, ms);
	add_app(&l, &app, vm->live.copied_mark, ms);
	add(&l, " wakeups=%llu probes=%llu vector_rings=%llu region_loans=%llu "
	    "plates=%llu "
	    "region_waiters=%u pools=%u/%u objects=%u/%u surfaces=%u/%u "
	    "windows=%u/%u keyboards=%u/%u mime_bytes=%u/%u pipe_bytes=%zu/%u",
	    (unsigned long long)vm->live.wakeups,
	    (unsigned long long)vm->live.probes,
	    (unsigned long long)vm->side.vector_rings,
	    (unsigned long long)vm->live.region_loans,
	    (unsigned long long)vm->live.plates, vm->region_waiters,
	    vm->pool_mappings, IVWL_VM_MAX_POOLS,
	    vm->totals.objects, IVWL_FW_VM_OBJECTS,
	    vm->totals.surfaces, IVWL_FW_VM_SURFACES,
	    vm->totals.windows, IVWL_FW_VM_WINDOWS,
	    vm->totals.keyboards, IVWL_FW_VM_KEYBOARDS,
	    vm->totals.mime_bytes, IVWL_FW_VM_MIME_BYTES,
	    ivwl_pipe_budget_used(vm->pipe_budget), IVWL_PIPE_VM_BUFFER);
	add_share(&l, vm);
	emit(lv, sub, &l);

	for (i = 0; i < IVWL_SLOT_COUNT; i++) {
		if (!vm->conns[i])
			continue;
		print_conn(lv, sub, vm->conns[i], t, ms);
		if (!sub)
			vm->conns[i]->xl.live.mark = vm->conns[i]->xl.live.now;
	}
	print_closures(lv, sub, vm, sub ? 0 : vm->live.printed);
	if (!sub) {
		vm->live.mark = sum;
		vm->live.copied_mark = app.copied_bytes;
		vm->live.printed = vm->live.closed;
	}
}

static void
print_all(struct ivwl_live_view *lv, struct weston_log_subscription *sub)
{
	uint64_t t = (uint64_t)ivwl_now_ms(), ms = sub ? 0 : t - lv->last_ms;
	struct ivwl_vm *vm;

	wl_list_for_each(vm, &lv->plugin->vms, link)
		print_vm(lv, sub, vm, t, ms);
	if (!sub)
		lv->last_ms = t;
}

static void
stop_ticking(struct ivwl_live_view *lv)
{
	if (lv->timer)
		wl_event_source_remove(lv->timer);
	lv->timer = NULL;
}

static int
on_tick(void *data)
{
	struct ivwl_live_view *lv = data;

	if (!weston_log_scope_is_enabled(lv->scope)) {
		stop_ticking(lv);
		return 0;
	}
	print_all(lv, NULL);
	wl_event_source_timer_update(lv->timer, TICK_MS);
	return 0;
}

/* The first tick's rates start from now, not from the last subscriber. */
static void
set_marks(struct ivwl_live_view *lv)
{
	struct ivwl_slot_app_stats app;
	struct ivwl_vm *vm;
	uint32_t i;

	wl_list_for_each(vm, &lv->plugin->vms, link) {
		vm->live.mark = vm->live.ended;
		vm->live.copied_mark = vm->live.app_ended.copied_bytes;
		for (i = 0; i < IVWL_SLOT_COUNT; i++) {
			if (!vm->conns[i])
				continue;
			vm->conns[i]->xl.live.mark = vm->conns[i]->xl.live.now;
			ivwl_traffic_sum(&vm->live.mark,
					 &vm->conns[i]->xl.live.now);
			app_stats(vm->conns[i], &app);
			vm->conns[i]->xl.live.copied_mark = app.copied_bytes;
			vm->live.copied_mark += app.copied_bytes;
		}
		vm->live.printed = vm->live.closed;
	}
	lv->last_ms = (uint64_t)ivwl_now_ms();
}

static void
on_subscribe(struct weston_log_subscription *sub, void *data)
{
	struct ivwl_live_view *lv = data;
	struct wl_event_loop *loop =
		wl_display_get_event_loop(lv->plugin->display);

	lv->subscribers++;
	print_all(lv, sub);
	if (lv->timer)
		return;
	lv->timer = wl_event_loop_add_timer(loop, on_tick, lv);
	if (!lv->timer) {
		weston_log_subscription_printf(sub, "error: no timer: "
					       "figures will not move\n");
		return;
	}
	set_marks(lv);
	wl_event_source_timer_update(lv->timer, TICK_MS);
}

static void
on_unsubscribe(struct weston_log_subscription *sub, void *data)
{
	struct ivwl_live_view *lv = data;

	if (lv->subscribers > 0)
		lv->subscribers--;
	if (lv->subscribers == 0)
		stop_ticking(lv);
}

int
ivwl_live_view_create(struct ivwl_plugin *plugin)
{
	struct ivwl_live_view *lv;

	lv = calloc(1, sizeof(*lv));
	if (!lv)
		return -1;
	lv->plugin = plugin;
	lv->scope = weston_compositor_add_log_scope(plugin->compositor, "ivwl",
		"ivwl: each VM and connection once a second: traffic, rings, "
		"budgets, closures\n", on_subscribe, on_unsubscribe, lv);
	if (!lv->scope) {
		free(lv);
		return -1;
	}
	plugin->live = lv;
	return 0;
}

void
ivwl_live_view_destroy(struct ivwl_plugin *plugin)
{
	struct ivwl_live_view *lv = plugin->live;

	if (!lv)
		return;
	stop_ticking(lv);
	weston_log_scope_destroy(lv->scope);
	free(lv);
	plugin->live = NULL;
}
