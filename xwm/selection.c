/* SPDX-License-Identifier: MIT */
/*
 * The clipboard bridge (selection.h).  Two kinds of transfer:
 *
 * - an X read fills a Wayland reader's pipe: ConvertSelection into a
 *   property of a window of that read's own, read (and deleted) whole
 *   or, for INCR, chunk by chunk as the owner writes them; the next
 *   chunk is asked for only once the pipe took most of the last, so a
 *   slow reader holds the owner back instead of growing the bridge.
 *   One read asks the owner at a time, the others queue: an owner may
 *   serve one transfer at a time (xclip 0.13 drops a SelectionRequest
 *   that comes during an INCR, and takes any property deletion on its
 *   requestor's window for the next chunk's cue);
 * - an X write answers a SelectionRequest from the Wayland offer: the
 *   pipe is read to its end, then put on the requestor's property
 *   whole or, past the chunk size, by INCR.
 *
 * A transfer that moves nothing for STALL_MS is given up on, so that no
 * X client or Wayland reader keeps a slot for good.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xcb/xfixes.h>

#include "atoms.h"
#include "channel.h"
#include "log.h"
#include "mono-time.h"
#include "proxy.h"
#include "selection.h"

#define READS 8			/* X reads at once: one property each */
#define WRITES 16		/* X writes at once */
#define WRITE_MAX (64u << 20)	/* what one X requestor is given */
#define CHUNK (256u << 10)	/* an INCR chunk, both ways */
#define STALL_MS 10000
#define MIMES 32u
#define UTF8_MIME "text/plain;charset=utf-8"

enum atom {
	CLIPBOARD,
	TARGETS,
	INCR,
	UTF8_STRING,
	TEXT,
	IVWL_TARGETS,
	IVWL_DATA0,		/* READS of them: one per X read */
	ATOM_COUNT = IVWL_DATA0 + READS,
};

static const char *const atom_names[IVWL_DATA0] = {
	[CLIPBOARD] = "CLIPBOARD",
	[TARGETS] = "TARGETS",
	[INCR] = "INCR",
	[UTF8_STRING] = "UTF8_STRING",
	[TEXT] = "TEXT",
	[IVWL_TARGETS] = "_IVWL_TARGETS",
};

/* A growing byte buffer, sent from off. */
struct bytes {
	uint8_t *data;
	size_t len, off, cap;
};

struct x_read {
	/*
	 * The requestor: one window a read slot, for good.  Owners tell
	 * transfers apart by requestor window (xclip keys its INCR state
	 * on it alone): two reads from one window, the second asked while
	 * the first's INCR still ran or drained, mixed their chunks.
	 */
	xcb_window_t window;
	int fd;			/* the Wayland reader's pipe; -1: free */
	xcb_atom_t target;
	bool incr;		/* the owner sends chunks */
	bool chunk_waits;	/* a chunk is there, not read yet */
	bool done;		/* all of it is in buf */
	bool asked;		/* the owner was asked (else it queues) */
	bool draining;		/* its reader left mid-INCR: the owner's
				 * chunks are deleted unread till the end,
				 * or it would wait and serve no other */
	struct bytes buf;
	int64_t active;		/* when it last moved */
};

struct x_write {
	int fd;			/* the Wayland offer's pipe; -1: read */
	bool used;
	xcb_window_t requestor;
	xcb_atom_t property, target, type;
	bool incr;		/* chunks go out as the requestor deletes */
	struct bytes buf;
	int64_t active;
};

struct ivwl_xwm_selection {
	xcb_connection_t *conn;
	xcb_window_t window;
	xcb_atom_t atom[ATOM_COUNT];
	uint8_t xfixes_event;
	struct ivwl_xwm_proxy *proxy;
	/* X's clipboard, as the Wayland selection offers it */
	xcb_atom_t x_targets[MIMES];
	char *x_mimes[MIMES];
	uint32_t x_n;
	/* the Wayland selection, as the bridge offers it to X */
	char *w_mimes[MIMES];
	uint32_t w_n;
	bool owned;		/* the bridge owns CLIPBOARD */
	struct x_read reads[READS];
	struct x_write writes[WRITES];
};

static int
bytes_add(struct bytes *b, const void *data, size_t len)
{
	size_t cap = b->cap ? b->cap : 4096;
	uint8_t *grown;

	while (cap - b->len < len)
		cap *= 2;
	if (cap != b->cap) {
		grown = realloc(b->data, cap);
		if (!grown)
			return -ENOMEM;
		b->data = grown;
		b->cap = cap;
	}
	memcpy(b->data + b->len, data, len);
	b->len += len;
	return 0;
}

static void
bytes_free(struct bytes *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

static xcb_atom_t
intern(xcb_connection_t *conn, const char *name)
{
	xcb_atom_t a;

	ivwl_xwm_intern_atoms(conn, &name, 1, &a);
	return a;
}

/* An atom's name (malloc'ed), or NULL. */
static char *
atom_name(xcb_connection_t *conn, xcb_atom_t a)
{
	xcb_get_atom_name_reply_t *r;
	char *name = NULL;
	int len;

	r = xcb_get_atom_name_reply(conn, xcb_get_atom_name(conn, a), NULL);
	if (!r)
		return NULL;
	len = xcb_get_atom_name_name_length(r);
	name = malloc((size_t)len + 1);
	if (name) {
		memcpy(name, xcb_get_atom_name_name(r), (size_t)len);
		name[len] = '\0';
	}
	free(r);
	return name;
}

static void
strings_free(char **s, uint32_t *n)
{
	for (uint32_t i = 0; i < *n; i++)
		free(s[i]);
	*n = 0;
}

/* ---- X's clipboard for Wayland readers ------------------------------ */

/* What X's targets are to Wayland: UTF8_STRING is the text, and a name
 * with a slash a MIME type already; the rest (STRING, COMPOUND_TEXT,
 * TARGETS...) is X's own business. */
static void
add_x_target(struct ivwl_xwm_selection *sel, xcb_atom_t a, const char *mime)
{
	if (sel->x_n == MIMES || !(sel->x_mimes[sel->x_n] = strdup(mime)))
		return;
	sel->x_targets[sel->x_n++] = a;
}

static void
x_targets_read(struct ivwl_xwm_selection *sel, xcb_atom_t property)
{
	xcb_get_property_reply_t *r;
	const xcb_atom_t *atoms;
	char *name;
	int i, n;

	strings_free(sel->x_mimes, &sel->x_n);
	r = xcb_get_property_reply(sel->conn, xcb_get_property(sel->conn, 1,
			sel->window, property, XCB_ATOM_ATOM, 0, 4 * MIMES),
			NULL);
	if (!r)
		return;
	atoms = xcb_get_property_value(r);
	n = r->type == XCB_ATOM_ATOM ? xcb_get_property_value_length(r) / 4 :
				       0;
	for (i = 0; i < n; i++) {
		if (atoms[i] == sel->atom[UTF8_STRING]) {
			add_x_target(sel, atoms[i], UTF8_MIME);
			add_x_target(sel, atoms[i], "text/plain");
			continue;
		}
		name = atom_name(sel->conn, atoms[i]);
		if (name && strchr(name, '/'))
			add_x_target(sel, atoms[i], name);
		free(name);
	}
	free(r);
	ivwl_log_debug("X's clipboard offers %u types to Wayland", sel->x_n);
	if (ivwl_xwm_proxy_set_selection(sel->proxy,
			(const char *const *)sel->x_mimes, sel->x_n) < 0)
		ivwl_log_error("X's clipboard could not be offered to "
			       "Wayland");
}

/* XFixes: another X client owns CLIPBOARD now (or none does). */
static void
x_owner_changed(struct ivwl_xwm_selection *sel,
		xcb_xfixes_selection_notify_event_t *e)
{
	if (e->selection != sel->atom[CLIPBOARD] || e->owner == sel->window)
		return;
	sel->owned = false;
	if (e->owner == XCB_NONE) {
		strings_free(sel->x_mimes, &sel->x_n);
		ivwl_xwm_proxy_set_selection(sel->proxy, NULL, 0);
		return;
	}
	xcb_convert_selection(sel->conn, sel->window, sel->atom[CLIPBOARD],
			      sel->atom[TARGETS], sel->atom[IVWL_TARGETS],
			      e->timestamp);
}

static bool
read_busy(const struct x_read *r)
{
	return r->fd >= 0 || r->draining;
}

static int
read_property(struct ivwl_xwm_selection *sel, struct x_read *r);

/* Whether r's stall counts: busy, and not queued (a queued read waits
 * on another, which has its own clock). */
static bool
read_timed(const struct x_read *r)
{
	return read_busy(r) && (r->asked || r->fd < 0);
}

/* Whether r has the owner's attention: asked, and not all read. */
static bool
read_asks(const struct x_read *r)
{
	return r->asked && !r->done && (r->fd >= 0 || r->draining);
}

/* Asks the owner for r's target, into r's property on r's window. */
static void
read_ask(struct ivwl_xwm_selection *sel, struct x_read *r)
{
	r->asked = true;
	r->active = ivwl_now_ms();
	xcb_convert_selection(sel->conn, r->window, sel->atom[CLIPBOARD],
			      r->target,
			      sel->atom[IVWL_DATA0 + (r - sel->reads)],
			      XCB_CURRENT_TIME);
}

/* The owner is free: the read queued longest asks it. */
static void
read_next(struct ivwl_xwm_selection *sel)
{
	struct x_read *next = NULL;
	int i;

	for (i = 0; i < READS; i++) {
		if (read_asks(&sel->reads[i]))
			return;
		if (sel->reads[i].fd >= 0 && !sel->reads[i].asked &&
		    (!next || sel->reads[i].active < next->active))
			next = &sel->reads[i];
	}
	if (next)
		read_ask(sel, next);
}

static void
read_end(struct ivwl_xwm_selection *sel, struct x_read *r, const char *why)
{
	bool drain = r->fd >= 0 && r->incr && !r->done;

	if (why && r->fd >= 0)
		ivwl_log_error("X's clipboard to Wayland: %s after %zu "
			       "bytes; the reader's pipe is closed", why,
			       r->buf.len);
	if (r->fd >= 0)
		close(r->fd);
	bytes_free(&r->buf);
	r->fd = -1;
	r->draining = drain;
	r->active = ivwl_now_ms();
	if (drain && r->chunk_waits && read_property(sel, r) < 0)
		r->draining = false;
}

/* Takes the property's value (deleting it, which asks INCR's owner for
 * the next chunk).  -1 on failure. */
static int
read_property(struct ivwl_xwm_selection *sel, struct x_read *r)
{
	xcb_atom_t prop = sel->atom[IVWL_DATA0 + (r - sel->reads)];
	xcb_get_property_reply_t *p;
	int len;

	p = xcb_get_property_reply(sel->conn, xcb_get_property(sel->conn, 1,
			r->window, prop, XCB_GET_PROPERTY_TYPE_ANY, 0,
			0x1fffffff), NULL);
	if (!p)
		return -1;
	r->active = ivwl_now_ms();
	r->chunk_waits = false;
	len = xcb_get_property_value_length(p);
	if (p->type == sel->atom[INCR] && !r->incr) {
		r->incr = true;		/* chunks follow as NewValue */
	} else if (len <= 0 || p->type == XCB_ATOM_NONE) {
		r->done = true;
		r->draining = false;
	} else if (r->draining) {
		/* its reader left: deleted unread */
	} else if (bytes_add(&r->buf, xcb_get_property_value(p),
			     (size_t)len) < 0) {
		free(p);
		return -1;
	} else if (!r->incr) {
		r->done = true;
	}
	free(p);
	xcb_flush(sel->conn);
	return 0;
}

/* The busy read whose window and property these are, or NULL. */
static struct x_read *
read_of(struct ivwl_xwm_selection *sel, xcb_window_t window,
	xcb_atom_t prop)
{
	for (int i = 0; i < READS; i++)
		if (read_busy(&sel->reads[i]) &&
		    sel->reads[i].window == window &&
		    sel->atom[IVWL_DATA0 + i] == prop)
			return &sel->reads[i];
	return NULL;
}

void
ivwl_xwm_selection_send(struct ivwl_xwm_selection *sel, const char *mime,
			int fd)
{
	struct x_read *r = NULL;
	xcb_atom_t target = XCB_ATOM_NONE;
	uint32_t i;

	for (i = 0; i < sel->x_n && !target; i++)
		if (strcmp(sel->x_mimes[i], mime) == 0)
			target = sel->x_targets[i];
	for (i = 0; i < READS && !r; i++)
		if (!read_busy(&sel->reads[i]))
			r = &sel->reads[i];
	if (!target || !r) {
		ivwl_log_error("X's clipboard to Wayland: %s", !target ?
			       "a type X does not offer" :
			       "too many reads at once");
		close(fd);
		return;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	*r = (struct x_read){ .window = r->window };
	r->fd = fd;
	r->target = target;
	r->active = ivwl_now_ms();	/* queued since */
	read_next(sel);
	xcb_flush(sel->conn);
}

static void
on_selection_notify(struct ivwl_xwm_selection *sel,
		    xcb_selection_notify_event_t *e)
{
	struct x_read *r = NULL;
	int i;

	if (e->property == sel->atom[IVWL_TARGETS]) {
		x_targets_read(sel, e->property);
		return;
	}
	if (e->property != XCB_NONE) {
		r = read_of(sel, e->requestor, e->property);
		if (r && !r->incr && read_property(sel, r) < 0)
			read_end(sel, r, "the property could not be read");
		return;
	}
	/* refused: the read of that window, if it waits still */
	for (i = 0; i < READS && !r; i++)
		if (sel->reads[i].window == e->requestor &&
		    sel->reads[i].fd >= 0 && sel->reads[i].asked &&
		    !sel->reads[i].incr &&
		    !sel->reads[i].done && !sel->reads[i].buf.len)
			r = &sel->reads[i];
	if (r)
		read_end(sel, r, "the X owner refused the conversion");
}

/* An INCR chunk is there: read now, or when the pipe took the last. */
static void
on_read_chunk(struct ivwl_xwm_selection *sel, struct x_read *r)
{
	if (!r->incr || r->done)
		return;
	r->chunk_waits = true;
	if (r->draining || r->buf.len - r->buf.off <= CHUNK) {
		if (read_property(sel, r) < 0) {
			r->draining = false;
			read_end(sel, r, "a chunk could not be read");
		}
	}
}

static void
read_io(struct ivwl_xwm_selection *sel, struct x_read *r, short revents)
{
	ssize_t n;

	if (revents & (POLLERR | POLLHUP) && !(revents & POLLOUT)) {
		read_end(sel, r, "the reader went");
		return;
	}
	while (r->buf.off < r->buf.len) {
		/* a reader that left must not end ivwl-xwm by SIGPIPE */
		n = ivwl_write_no_sigpipe(r->fd, r->buf.data + r->buf.off,
					  r->buf.len - r->buf.off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0) {
			read_end(sel, r, "the reader went");
			return;
		}
		r->buf.off += (size_t)n;
		r->active = ivwl_now_ms();
	}
	if (r->buf.off == r->buf.len) {
		r->buf.off = r->buf.len = 0;
		if (r->done) {
			read_end(sel, r, NULL);
			return;
		}
	}
	if (r->chunk_waits && r->buf.len - r->buf.off <= CHUNK &&
	    read_property(sel, r) < 0)
		read_end(sel, r, "a chunk could not be read");
}

/* ---- the Wayland selection for X requestors ------------------------- */

void
ivwl_xwm_selection_offered(struct ivwl_xwm_selection *sel,
			   const char *const *mimes, uint32_t n)
{
	uint32_t i;

	strings_free(sel->w_mimes, &sel->w_n);
	for (i = 0; i < n && sel->w_n < MIMES; i++)
		if ((sel->w_mimes[sel->w_n] = strdup(mimes[i])))
			sel->w_n++;
	if (sel->w_n) {
		xcb_set_selection_owner(sel->conn, sel->window,
					sel->atom[CLIPBOARD], XCB_CURRENT_TIME);
		sel->owned = true;
	} else if (sel->owned) {
		xcb_set_selection_owner(sel->conn, XCB_NONE,
					sel->atom[CLIPBOARD], XCB_CURRENT_TIME);
		sel->owned = false;
	}
	xcb_flush(sel->conn);
	ivwl_log_debug("the Wayland clipboard offers X %u types", sel->w_n);
}

static bool
offered(struct ivwl_xwm_selection *sel, const char *mime)
{
	for (uint32_t i = 0; i < sel->w_n; i++)
		if (strcmp(sel->w_mimes[i], mime) == 0)
			return true;
	return false;
}

/* The Wayland type that answers an X target, or NULL. */
static const char *
mime_of_target(struct ivwl_xwm_selection *sel, xcb_atom_t target,
	       char **name)
{
	*name = NULL;
	if (target == sel->atom[UTF8_STRING] || target == sel->atom[TEXT] ||
	    target == XCB_ATOM_STRING) {
		if (offered(sel, UTF8_MIME))
			return UTF8_MIME;
		return offered(sel, "text/plain") ? "text/plain" : NULL;
	}
	*name = atom_name(sel->conn, target);
	return *name && offered(sel, *name) ? *name : NULL;
}

static void
notify(struct ivwl_xwm_selection *sel, xcb_window_t requestor,
       xcb_atom_t target, xcb_atom_t property)
{
	xcb_selection_notify_event_t e = {
		.response_type = XCB_SELECTION_NOTIFY,
		.time = XCB_CURRENT_TIME,
		.requestor = requestor,
		.selection = sel->atom[CLIPBOARD],
		.target = target,
		.property = property,
	};

	xcb_send_event(sel->conn, 0, requestor, XCB_EVENT_MASK_NO_EVENT,
		       (const char *)&e);
	xcb_flush(sel->conn);
}

static void
answer_targets(struct ivwl_xwm_selection *sel,
	       xcb_selection_request_event_t *e, xcb_atom_t property)
{
	xcb_atom_t t[MIMES + 4];
	uint32_t n = 0, i;

	t[n++] = sel->atom[TARGETS];
	if (offered(sel, UTF8_MIME) || offered(sel, "text/plain")) {
		t[n++] = sel->atom[UTF8_STRING];
		t[n++] = sel->atom[TEXT];
		t[n++] = XCB_ATOM_STRING;
	}
	for (i = 0; i < sel->w_n && n < MIMES + 4; i++)
		if ((t[n] = intern(sel->conn, sel->w_mimes[i])))
			n++;
	xcb_change_property(sel->conn, XCB_PROP_MODE_REPLACE, e->requestor,
			    property, XCB_ATOM_ATOM, 32, n, t);
	notify(sel, e->requestor, e->target, property);
}

static void
write_end(struct ivwl_xwm_selection *sel, struct x_write *w,
	  const char *why)
{
	if (why) {
		ivwl_log_error("the Wayland clipboard to X: %s after %zu "
			       "bytes; refused", why, w->buf.len);
		if (!w->incr)
			notify(sel, w->requestor, w->target, XCB_NONE);
	}
	if (w->fd >= 0)
		close(w->fd);
	bytes_free(&w->buf);
	memset(w, 0, sizeof(*w));
	w->fd = -1;
}

static void
on_selection_request(struct ivwl_xwm_selection *sel,
		     xcb_selection_request_event_t *e)
{
	xcb_atom_t property = e->property ? e->property : e->target;
	struct x_write *w = NULL;
	const char *mime;
	char *name;
	int p[2], i;

	if (e->selection != sel->atom[CLIPBOARD] || !sel->owned) {
		notify(sel, e->requestor, e->target, XCB_NONE);
		return;
	}
	if (e->target == sel->atom[TARGETS]) {
		answer_targets(sel, e, property);
		return;
	}
	mime = mime_of_target(sel, e->target, &name);
	for (i = 0; i < WRITES && !w; i++)
		if (!sel->writes[i].used)
			w = &sel->writes[i];
	if (!mime || !w || pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0) {
		if (mime)
			ivwl_log_error("the Wayland clipboard to X: too many "
				       "transfers at once");
		notify(sel, e->requestor, e->target, XCB_NONE);
		free(name);
		return;
	}
	*w = (struct x_write){
		.fd = p[0], .used = true, .requestor = e->requestor,
		.property = property, .target = e->target,
		.type = e->target == sel->atom[TEXT] ?
			sel->atom[UTF8_STRING] : e->target,
		.active = ivwl_now_ms(),
	};
	if (ivwl_xwm_proxy_receive(sel->proxy, mime, p[1]) < 0)
		write_end(sel, w, "the Wayland selection went");
	free(name);
}

/* The pipe is read: X gets it whole, or the first of INCR's steps. */
static void
write_deliver(struct ivwl_xwm_selection *sel, struct x_write *w)
{
	const uint32_t mask = XCB_EVENT_MASK_PROPERTY_CHANGE |
			      XCB_EVENT_MASK_FOCUS_CHANGE;
	uint32_t len = (uint32_t)w->buf.len;

	close(w->fd);
	w->fd = -1;
	if (w->buf.len <= CHUNK) {
		xcb_change_property(sel->conn, XCB_PROP_MODE_REPLACE,
				    w->requestor, w->property, w->type, 8,
				    len, w->buf.data);
		notify(sel, w->requestor, w->target, w->property);
		write_end(sel, w, NULL);
		return;
	}
	/* the requestor's deletions of the property pace the chunks */
	xcb_change_window_attributes(sel->conn, w->requestor,
				     XCB_CW_EVENT_MASK, &mask);
	xcb_change_property(sel->conn, XCB_PROP_MODE_REPLACE, w->requestor,
			    w->property, sel->atom[INCR], 32, 1, &len);
	w->incr = true;
	notify(sel, w->requestor, w->target, w->property);
}

/* INCR: the requestor deleted the property, the next chunk goes (a
 * zero-length one ends it). */
static void
write_chunk(struct ivwl_xwm_selection *sel, struct x_write *w)
{
	size_t n = w->buf.len - w->buf.off;

	n = n < CHUNK ? n : CHUNK;
	xcb_change_property(sel->conn, XCB_PROP_MODE_REPLACE, w->requestor,
			    w->property, w->type, 8, (uint32_t)n,
			    w->buf.data + w->buf.off);
	xcb_flush(sel->conn);
	w->active = ivwl_now_ms();
	if (!n)
		write_end(sel, w, NULL);
	else
		w->buf.off += n;
}

static void
write_io(struct ivwl_xwm_selection *sel, struct x_write *w)
{
	uint8_t chunk[65536];
	ssize_t n;

	for (;;) {
		n = read(w->fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n < 0) {
			write_end(sel, w, "the pipe failed");
			return;
		}
		if (n == 0) {
			write_deliver(sel, w);
			return;
		}
		if (w->buf.len + (size_t)n > WRITE_MAX) {
			write_end(sel, w, "over 64 MiB");
			return;
		}
		if (bytes_add(&w->buf, chunk, (size_t)n) < 0) {
			write_end(sel, w, "out of memory");
			return;
		}
		w->active = ivwl_now_ms();
	}
}

/* ---- events, fds, time ---------------------------------------------- */

static void
on_property(struct ivwl_xwm_selection *sel, xcb_property_notify_event_t *e)
{
	struct x_read *r;
	int i;

	r = read_of(sel, e->window, e->atom);
	if (r) {
		if (e->state == XCB_PROPERTY_NEW_VALUE)
			on_read_chunk(sel, r);
		return;
	}
	if (e->state != XCB_PROPERTY_DELETE)
		return;
	for (i = 0; i < WRITES; i++)
		if (sel->writes[i].used && sel->writes[i].incr &&
		    sel->writes[i].requestor == e->window &&
		    sel->writes[i].property == e->atom)
			write_chunk(sel, &sel->writes[i]);
}

bool
ivwl_xwm_selection_handle(struct ivwl_xwm_selection *sel,
			  xcb_generic_event_t *ev)
{
	uint8_t type = ev->response_type & 0x7f;

	if (sel->xfixes_event && type == sel->xfixes_event +
	    XCB_XFIXES_SELECTION_NOTIFY) {
		x_owner_changed(sel, (xcb_xfixes_selection_notify_event_t *)ev);
		return true;
	}
	switch (type) {
	case XCB_SELECTION_NOTIFY:
		on_selection_notify(sel, (xcb_selection_notify_event_t *)ev);
		read_next(sel);
		return true;
	case XCB_SELECTION_REQUEST:
		on_selection_request(sel,
				     (xcb_selection_request_event_t *)ev);
		return true;
	case XCB_SELECTION_CLEAR:
		sel->owned = false;
		return true;
	case XCB_PROPERTY_NOTIFY:
		/* the window manager looks at these too */
		on_property(sel, (xcb_property_notify_event_t *)ev);
		read_next(sel);
		return false;
	default:
		return false;
	}
}

int
ivwl_xwm_selection_fds(struct ivwl_xwm_selection *sel, struct pollfd *pfd,
		       int max)
{
	int n = 0, i;

	for (i = 0; i < READS && n < max; i++)
		/* done with nothing left to write: ended by read_io */
		if (sel->reads[i].fd >= 0 && (sel->reads[i].done ||
		    sel->reads[i].buf.off < sel->reads[i].buf.len))
			pfd[n++] = (struct pollfd){ sel->reads[i].fd,
						    POLLOUT, 0 };
	for (i = 0; i < WRITES && n < max; i++)
		if (sel->writes[i].used && sel->writes[i].fd >= 0)
			pfd[n++] = (struct pollfd){ sel->writes[i].fd,
						    POLLIN, 0 };
	return n;
}

void
ivwl_xwm_selection_io(struct ivwl_xwm_selection *sel,
		      const struct pollfd *pfd, int n)
{
	int64_t now = ivwl_now_ms();
	int i, k;

	for (k = 0; k < n; k++) {
		if (!pfd[k].revents)
			continue;
		for (i = 0; i < READS; i++)
			if (sel->reads[i].fd == pfd[k].fd)
				read_io(sel, &sel->reads[i], pfd[k].revents);
		for (i = 0; i < WRITES; i++)
			if (sel->writes[i].used && sel->writes[i].fd ==
			    pfd[k].fd)
				write_io(sel, &sel->writes[i]);
	}
	for (i = 0; i < READS; i++) {
		if (!read_timed(&sel->reads[i]) ||
		    now - sel->reads[i].active <= STALL_MS)
			continue;
		if (sel->reads[i].draining)
			sel->reads[i].draining = false;	/* the owner left */
		else
			read_end(sel, &sel->reads[i], "stalled");
	}
	for (i = 0; i < WRITES; i++)
		if (sel->writes[i].used &&
		    now - sel->writes[i].active > STALL_MS)
			write_end(sel, &sel->writes[i], "stalled");
	read_next(sel);
	xcb_flush(sel->conn);
}

int
ivwl_xwm_selection_timeout(const struct ivwl_xwm_selection *sel)
{
	int64_t first = INT64_MAX;
	int i;

	for (i = 0; i < READS; i++)
		if (read_timed(&sel->reads[i]) &&
		    sel->reads[i].active < first)
			first = sel->reads[i].active;
	for (i = 0; i < WRITES; i++)
		if (sel->writes[i].used && sel->writes[i].active < first)
			first = sel->writes[i].active;
	return first == INT64_MAX ? -1 : ivwl_ms_left(first + STALL_MS + 1);
}

/* ---- life ------------------------------------------------------------ */

static int
intern_atoms(struct ivwl_xwm_selection *sel)
{
	char data[READS][16];
	const char *names[ATOM_COUNT];
	int i;

	for (i = 0; i < ATOM_COUNT; i++) {
		if (i < IVWL_DATA0) {
			names[i] = atom_names[i];
			continue;
		}
		snprintf(data[i - IVWL_DATA0], sizeof(data[0]),
			 "_IVWL_DATA%d", i - IVWL_DATA0);
		names[i] = data[i - IVWL_DATA0];
	}
	return ivwl_xwm_intern_atoms(sel->conn, names, ATOM_COUNT, sel->atom);
}

static int
watch_owner(struct ivwl_xwm_selection *sel)
{
	const xcb_query_extension_reply_t *ext;
	xcb_xfixes_query_version_reply_t *v;

	ext = xcb_get_extension_data(sel->conn, &xcb_xfixes_id);
	if (!ext || !ext->present)
		return -ENOTSUP;
	v = xcb_xfixes_query_version_reply(sel->conn,
			xcb_xfixes_query_version(sel->conn, 5, 0), NULL);
	free(v);
	sel->xfixes_event = ext->first_event;
	xcb_xfixes_select_selection_input(sel->conn, sel->window,
		sel->atom[CLIPBOARD],
		XCB_XFIXES_SELECTION_EVENT_MASK_SET_SELECTION_OWNER |
		XCB_XFIXES_SELECTION_EVENT_MASK_SELECTION_WINDOW_DESTROY |
		XCB_XFIXES_SELECTION_EVENT_MASK_SELECTION_CLIENT_CLOSE);
	return 0;
}

/* A window of the bridge's own, never shown, hearing what mask says. */
static xcb_window_t
input_window(xcb_connection_t *conn, xcb_screen_t *screen, uint32_t mask)
{
	xcb_window_t window = xcb_generate_id(conn);

	xcb_create_window(conn, XCB_COPY_FROM_PARENT, window, screen->root,
			  0, 0, 1, 1, 0, XCB_WINDOW_CLASS_INPUT_ONLY,
			  XCB_COPY_FROM_PARENT, XCB_CW_EVENT_MASK, &mask);
	return window;
}

struct ivwl_xwm_selection *
ivwl_xwm_selection_create(xcb_connection_t *conn, xcb_screen_t *screen,
			  struct ivwl_xwm_proxy *proxy)
{
	struct ivwl_xwm_selection *sel = calloc(1, sizeof(*sel));
	const uint32_t mask = XCB_EVENT_MASK_PROPERTY_CHANGE;
	int i;

	if (!sel)
		return NULL;
	sel->conn = conn;
	sel->proxy = proxy;
	for (i = 0; i < READS; i++)
		sel->reads[i].fd = -1;
	for (i = 0; i < WRITES; i++)
		sel->writes[i].fd = -1;
	if (intern_atoms(sel) < 0)
		goto err_sel;
	sel->window = input_window(conn, screen, mask);
	for (i = 0; i < READS; i++)
		sel->reads[i].window = input_window(conn, screen, mask);
	if (watch_owner(sel) < 0) {
		ivwl_log_error("the X server has no XFIXES: no clipboard "
			       "between X and Wayland");
		goto err_sel;
	}
	xcb_flush(conn);
	return sel;

err_sel:
	free(sel);
	return NULL;
}

void
ivwl_xwm_selection_destroy(struct ivwl_xwm_selection *sel)
{
	int i;

	if (!sel)
		return;
	for (i = 0; i < READS; i++)
		if (sel->reads[i].fd >= 0)
			read_end(sel, &sel->reads[i], NULL);
	for (i = 0; i < WRITES; i++)
		if (sel->writes[i].used)
			write_end(sel, &sel->writes[i], NULL);
	strings_free(sel->x_mimes, &sel->x_n);
	strings_free(sel->w_mimes, &sel->w_n);
	free(sel);
}
