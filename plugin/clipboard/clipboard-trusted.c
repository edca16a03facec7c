/* SPDX-License-Identifier: MIT */
/*
 * The user's trusted copy and paste across VMs: two key bindings weston
 * handles, so no client can fake them.
 *
 * Copy reads the focused party's selection, every MIME type it offers
 * within a budget, into a clipboard the plugin owns.  Paste offers that
 * clipboard, once, to the party focused when the user pasted
 * (clipboard-paste.c), and empties the plugin's clipboard: one copy,
 * one paste.  weston's selection stays whose it was.
 *
 * Every pipe is non-blocking and watched by weston's event loop, with a
 * stall timer: a VM that floods gets cut at the budget, one that stalls
 * is given up on, and weston never waits for either.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libweston/libweston.h>
#include <libweston/config-parser.h>
#include "weston-compat.h"

#include "binding.h"
#include "clipboard-internal.h"
#include "ivwl-limits.h"
#include "ivwl-plugin.h"
#include "vm.h"
#include "watch.h"

#define DEFAULT_COPY_KEY "super+shift+c"
#define DEFAULT_PASTE_KEY "super+shift+v"
#define CHUNK (64u << 10)

/* A copy under way: one MIME type at a time. */
struct clip_copy {
	struct ivwl_clip_trusted *t;
	struct weston_data_source *source;	/* NULL once it went */
	struct wl_listener source_destroy;
	bool cut;		/* the source went during this type */
	struct ivwl_clip_data *data;
	char *types[IVWL_CLIP_MAX_TYPES];
	uint32_t ntypes, next;
	int fd;
	struct ivwl_watch *fd_watch;
	struct wl_event_source *timer;
	uint8_t *buf;
	size_t len, cap;
};

struct ivwl_clip_trusted {
	struct ivwl_clipboard *cb;
	struct wl_event_loop *loop;
	struct weston_binding *copy_binding;
	struct weston_binding *paste_binding;
	size_t budget;
	uint32_t stall_ms;
	struct ivwl_clip_data *held;	/* the plugin's clipboard */
	struct clip_copy *copy;
};

/* ---- data ------------------------------------------------------------ */

struct ivwl_clip_data *
ivwl_clip_data_ref(struct ivwl_clip_data *d)
{
	d->refs++;
	return d;
}

void
ivwl_clip_data_unref(struct ivwl_clip_data *d)
{
	uint32_t i;

	if (!d || --d->refs > 0)
		return;
	for (i = 0; i < d->n; i++) {
		free(d->items[i].mime);
		free(d->items[i].data);
	}
	free(d);
}

/* "text/plain 12, image/png 20971520" for the log: names, sizes only. */
static void
describe(const struct ivwl_clip_data *d, char *out, size_t size)
{
	size_t used = 0;
	uint32_t i;
	int n;

	out[0] = '\0';
	for (i = 0; i < d->n && used < size; i++) {
		n = snprintf(out + used, size - used, "%s%s %zu",
			     i ? ", " : "", d->items[i].mime,
			     d->items[i].len);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

/* ---- copy ------------------------------------------------------------ */

static void
copy_next(struct clip_copy *c);

static void
copy_end_type(struct clip_copy *c, bool keep)
{
	struct ivwl_clip_data *d = c->data;
	struct ivwl_clip_item *item;

	ivwl_watch_remove(c->fd_watch);
	c->fd_watch = NULL;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	if (keep) {
		item = &d->items[d->n++];
		item->mime = c->types[c->next];
		c->types[c->next] = NULL;
		item->data = c->buf;
		item->len = c->len;
		d->bytes += c->len;
	} else {
		free(c->buf);
	}
	c->buf = NULL;
	c->len = c->cap = 0;
	c->next++;
}

static void
copy_free(struct clip_copy *c)
{
	uint32_t i;

	ivwl_watch_remove(c->fd_watch);
	if (c->fd >= 0)
		close(c->fd);
	if (c->timer)
		wl_event_source_remove(c->timer);
	if (c->source)
		wl_list_remove(&c->source_destroy.link);
	for (i = 0; i < c->ntypes; i++)
		free(c->types[i]);
	free(c->buf);
	ivwl_clip_data_unref(c->data);
	c->t->copy = NULL;
	free(c);
}

static void
copy_finish(struct clip_copy *c)
{
	struct ivwl_clip_trusted *t = c->t;
	char what[512];

	if (c->data->n == 0) {
		ivwl_log("trusted copy from %s: nothing copied",
			 ivwl_clip_owner_name(&c->data->from));
		copy_free(c);
		return;
	}
	describe(c->data, what, sizeof(what));
	ivwl_log("trusted copy from %s: %u types, %zu bytes (%s)",
		 ivwl_clip_owner_name(&c->data->from), c->data->n,
		 c->data->bytes, what);
	ivwl_clip_data_unref(t->held);
	t->held = c->data;
	c->data = NULL;
	copy_free(c);
}

static int
on_copy_readable(int fd, uint32_t mask, void *arg)
{
	struct clip_copy *c = arg;
	size_t left = c->t->budget - c->data->bytes, moved = 0, want;
	uint8_t *grown;
	ssize_t n;

	while (moved < IVWL_CLIP_PER_WAKE) {
		if (c->cap - c->len < CHUNK) {
			want = c->cap ? c->cap * 2 : 4 * CHUNK;
			grown = realloc(c->buf, want);
			if (!grown) {
				ivwl_log("trusted copy: out of memory for %s",
					 c->types[c->next]);
				goto fail;
			}
			c->buf = grown;
			c->cap = want;
		}
		n = read(fd, c->buf + c->len, CHUNK);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			break;
		if (n < 0) {
			ivwl_log("trusted copy: reading %s failed: %s",
				 c->types[c->next], strerror(errno));
			goto fail;
		}
		if (n == 0 && c->cut) {
			/* an end we cannot tell from a complete one */
			ivwl_log("trusted copy from %s: its source went while "
				 "it sent %s: not copied",
				 ivwl_clip_owner_name(&c->data->from),
				 c->types[c->next]);
			goto fail;
		}
		if (n == 0) {
			copy_end_type(c, true);
			copy_next(c);
			return 0;
		}
		c->len += (size_t)n;
		moved += (size_t)n;
		if (c->len > left) {
			ivwl_log("trusted copy from %s: %s is over the budget "
				 "of %zu bytes left: not copied",
				 ivwl_clip_owner_name(&c->data->from),
				 c->types[c->next], left);
			goto fail;
		}
	}
	wl_event_source_timer_update(c->timer, c->t->stall_ms);
	return 0;

fail:
	copy_end_type(c, false);
	copy_next(c);
	return 0;
}

static int
on_copy_stall(void *arg)
{
	struct clip_copy *c = arg;

	ivwl_log("trusted copy from %s: %s stalled after %zu bytes for "
		 "%u ms: the copy ends there",
		 ivwl_clip_owner_name(&c->data->from), c->types[c->next],
		 c->len, c->t->stall_ms);
	copy_end_type(c, false);
	copy_finish(c);
	return 0;
}

/* Asks the source for the next type; finishes after the last. */
static void
copy_next(struct clip_copy *c)
{
	int p[2];

	if (c->next >= c->ntypes || !c->source ||
	    c->data->bytes >= c->t->budget) {
		copy_finish(c);
		return;
	}
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0) {
		ivwl_log("trusted copy: no pipe: %s", strerror(errno));
		copy_finish(c);
		return;
	}
	c->fd = p[0];
	c->fd_watch = ivwl_watch_add(c->t->cb->plugin->watcher, p[0],
				     WL_EVENT_READABLE, on_copy_readable, c);
	if (!c->fd_watch) {
		close(p[1]);
		copy_finish(c);
		return;
	}
	wl_event_source_timer_update(c->timer, c->t->stall_ms);
	/* the source owns the write end from here */
	c->source->send(c->source, c->types[c->next], p[1]);
}

static void
on_copy_source_destroy(struct wl_listener *listener, void *data)
{
	struct clip_copy *c = wl_container_of(listener, c, source_destroy);

	wl_list_remove(&c->source_destroy.link);
	c->source = NULL;
	c->cut = c->fd >= 0;
}

static bool
same_party(const struct ivwl_clip_owner *a, const struct ivwl_clip_owner *b)
{
	return a->party == b->party && a->vm == b->vm;
}

static void
start_copy(struct ivwl_clip_trusted *t, struct weston_data_source *source,
	   const struct ivwl_clip_owner *from)
{
	struct clip_copy *c = calloc(1, sizeof(*c));
	char **mime;

	if (!c)
		return;
	c->t = t;
	c->fd = -1;
	c->data = calloc(1, sizeof(*c->data));
	c->timer = wl_event_loop_add_timer(t->loop, on_copy_stall, c);
	if (!c->data || !c->timer)
		goto err;
	c->data->refs = 1;
	c->data->from = *from;
	wl_array_for_each(mime, &source->mime_types) {
		if (c->ntypes == IVWL_CLIP_MAX_TYPES) {
			ivwl_log("trusted copy from %s: only the first %u "
				 "MIME types", ivwl_clip_owner_name(from),
				 IVWL_CLIP_MAX_TYPES);
			break;
		}
		c->types[c->ntypes] = strdup(*mime);
		if (!c->types[c->ntypes])
			goto err;
		c->ntypes++;
	}
	c->source = source;
	c->source_destroy.notify = on_copy_source_destroy;
	wl_signal_add(&source->destroy_signal, &c->source_destroy);
	t->copy = c;
	copy_next(c);
	return;

err:
	t->copy = c;
	copy_free(c);
}

/* The party whose window has the keyboard, or UNKNOWN. */
static struct ivwl_clip_owner
focused_party(struct ivwl_clip_trusted *t, struct weston_keyboard *keyboard)
{
	struct weston_surface *focus = keyboard->focus;

	if (!focus || !focus->resource)
		return (struct ivwl_clip_owner){ IVWL_CLIP_UNKNOWN, NULL };
	return ivwl_clip_owner_of_client(t->cb,
			wl_resource_get_client(focus->resource));
}

static void
on_copy_key(struct weston_keyboard *keyboard, const struct timespec *time,
	    uint32_t key, void *arg)
{
	struct ivwl_clip_trusted *t = arg;
	struct weston_data_source *source = keyboard->seat->selection_data_source;
	struct ivwl_clip_owner focus = focused_party(t, keyboard);
	struct ivwl_clip_owner owner = ivwl_clip_owner_of(t->cb, source);

	if (t->copy) {
		ivwl_log("trusted copy: one is under way already");
		return;
	}
	if (focus.party == IVWL_CLIP_UNKNOWN) {
		ivwl_log("trusted copy: no window has the keyboard");
		return;
	}
	/* the focused party's own selection, nobody else's */
	if (!source || !same_party(&focus, &owner)) {
		ivwl_log("trusted copy: %s holds no selection (it is %s's)",
			 ivwl_clip_owner_name(&focus),
			 source ? ivwl_clip_owner_name(&owner) : "nobody");
		return;
	}
	start_copy(t, source, &focus);
}

/* ---- paste ----------------------------------------------------------- */

static void
on_paste_key(struct weston_keyboard *keyboard, const struct timespec *time,
	     uint32_t key, void *arg)
{
	struct ivwl_clip_trusted *t = arg;
	struct ivwl_clip_owner target = focused_party(t, keyboard);
	char what[512];

	if (!t->held) {
		ivwl_log("trusted paste: nothing copied");
		return;
	}
	if (target.party == IVWL_CLIP_UNKNOWN) {
		ivwl_log("trusted paste: no window has the keyboard");
		return;
	}
	describe(t->held, what, sizeof(what));
	ivwl_log("trusted paste of %s's copy into %s: %u types, %zu bytes "
		 "(%s)", ivwl_clip_owner_name(&t->held->from),
		 ivwl_clip_owner_name(&target), t->held->n, t->held->bytes,
		 what);
	/* once: the plugin's clipboard is empty again */
	ivwl_clip_paste_offer(t->cb->pastes, keyboard->seat,
			      wl_resource_get_client(keyboard->focus->resource),
			      &target, t->held);
	t->held = NULL;
}

/* ---- bindings -------------------------------------------------------- */

static struct weston_binding *
bind_key(struct ivwl_clip_trusted *t, struct weston_config_section *s,
	 const char *name, const char *fallback,
	 weston_key_binding_handler_t handler)
{
	enum weston_keyboard_modifier mod;
	struct weston_binding *b = NULL;
	char *text = NULL;
	uint32_t key;

	weston_config_section_get_string(s, name, &text, fallback);
	if (text && ivwl_binding_parse(text, &key, &mod))
		b = weston_compositor_add_key_binding(t->cb->plugin->compositor,
						      key, mod, handler, t);
	else
		ivwl_log("[ivwl] %s=%s: want modifiers and a key, as in %s",
			 name, text ? text : "", fallback);
	free(text);
	return b;
}

struct ivwl_clip_trusted *
ivwl_clip_trusted_create(struct ivwl_clipboard *cb)
{
	struct weston_compositor *ec = cb->plugin->compositor;
	struct weston_config_section *s;
	struct ivwl_clip_trusted *t;
	int budget_mib, stall_ms;

	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->cb = cb;
	t->loop = wl_display_get_event_loop(ec->wl_display);
	s = weston_config_get_section(wet_get_config(ec), "ivwl", NULL, NULL);
	weston_config_section_get_int(s, "clipboard-budget-mib", &budget_mib,
				      IVWL_CLIP_DEFAULT_BUDGET_MIB);
	weston_config_section_get_int(s, "clipboard-stall-ms", &stall_ms,
				      IVWL_CLIP_DEFAULT_STALL_MS);
	if (budget_mib < 1 || budget_mib > IVWL_CLIP_MAX_BUDGET_MIB ||
	    stall_ms < 100 || stall_ms > 60000) {
		ivwl_log("[ivwl] clipboard-budget-mib=%d (1 to %d) or "
			 "clipboard-stall-ms=%d (100 to 60000) out of range",
			 budget_mib, IVWL_CLIP_MAX_BUDGET_MIB, stall_ms);
		goto err;
	}
	t->budget = (size_t)budget_mib << 20;
	t->stall_ms = (uint32_t)stall_ms;
	cb->pastes = ivwl_clip_pastes_create(cb, t->stall_ms);
	if (!cb->pastes)
		goto err;
	t->copy_binding = bind_key(t, s, "clipboard-copy-key",
				   DEFAULT_COPY_KEY, on_copy_key);
	t->paste_binding = bind_key(t, s, "clipboard-paste-key",
				    DEFAULT_PASTE_KEY, on_paste_key);
	if (!t->copy_binding || !t->paste_binding)
		goto err;
	return t;

err:
	ivwl_clip_trusted_destroy(t);
	return NULL;
}

void
ivwl_clip_trusted_destroy(struct ivwl_clip_trusted *t)
{
	if (!t)
		return;
	if (t->copy_binding)
		weston_binding_destroy(t->copy_binding);
	if (t->paste_binding)
		weston_binding_destroy(t->paste_binding);
	ivwl_clip_pastes_destroy(t->cb->pastes);
	t->cb->pastes = NULL;
	if (t->copy)
		copy_free(t->copy);
	ivwl_clip_data_unref(t->held);
	free(t);
}
