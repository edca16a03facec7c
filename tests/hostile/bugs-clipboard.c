/* SPDX-License-Identifier: MIT */
/*
 * Reproducers through the clipboard: a selection weston keeps every
 * byte of, one it writes with a blocking write, an offer withheld by
 * the clipboard policy that the app guesses the id of.  Also the
 * focused window with a data device that bugs-paste.c builds on.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "channel.h"
#include "hostile.h"
#include "ivwl-protocols.h"

/* ---- clipboard-flood ------------------------------------------------ */

#define CLIP_MIME "text/plain;charset=utf-8"
#define CLIP_CHUNK (64u << 10)

struct clip {
	struct ivwl_hostile *h;
	uint32_t k;
	uint32_t source;		/* our wl_data_source */
	struct ivwl_channels chs;
	struct ivwl_channel *ch;	/* weston's pipe, bridged */
	int fd;				/* we write the selection here */
	bool finished;
	uint64_t sent;
};

static uint64_t clip_buf[IVWL_RING_MAX_SIZE / 2 / sizeof(uint64_t)];

/* wl_seat and wl_data_device_manager, bound as seat and ddm. */
static void
bind_seat_and_ddm(struct ivwl_out *out, const struct ivwl_hostile_globals *g,
		  uint32_t seat, uint32_t ddm)
{
	ivwl_out_bind(out, g->seat, "wl_seat", 1, seat);
	ivwl_out_bind(out, g->data_device_manager, "wl_data_device_manager",
		      3, ddm);
}

/* wl_data_source.send(mime, fd): weston wants the selection's bytes. */
static void
clip_wayland(struct clip *c, const void *payload, uint32_t len)
{
	struct ivwl_wayland_record rec;
	uint32_t pos = 0, object, word, size, fd_index = 0;

	if (ivwl_record_parse_wayland(payload, len, &c->h->layout, &rec) < 0)
		return;
	while (rec.data_len - pos >= 8) {
		memcpy(&object, rec.data + pos, 4);
		memcpy(&word, rec.data + pos + 4, 4);
		size = word >> 16;
		if (size < 8 || size > rec.data_len - pos)
			return;
		if (object == c->source &&
		    (word & 0xffff) == IVWL_EVT_WL_DATA_SOURCE_SEND &&
		    fd_index < rec.nfds && !c->ch &&
		    ivwl_channel_source_new(&c->chs, &rec.fds[fd_index],
					    &c->fd, &c->ch) == 0) {
			fcntl(c->fd, F_SETFL, O_NONBLOCK);
			fd_index++;
		}
		pos += (size + 3u) & ~3u;
	}
}

static void
clip_events(struct clip *c)
{
	struct ivwl_hostile_slot *s = &c->h->slot[c->k];
	struct ivwl_channel *done;
	uint16_t type;
	int n;

	while ((n = ivwl_ring_read(&s->event, &type, clip_buf,
				   ivwl_ring_max_payload(&s->event))) >= 0) {
		if (type == IVWL_RECORD_WAYLAND) {
			clip_wayland(c, clip_buf, (uint32_t)n);
		} else if (ivwl_channels_handle(&c->chs, type, clip_buf,
						(uint32_t)n, &done) == 0 &&
			   done) {
			if (done == c->ch) {
				c->ch = NULL;
				c->finished = true;
			}
			ivwl_channel_destroy(&c->chs, done);
		}
	}
	if (ivwl_ring_kick_needed(&s->event))
		ivwl_hostile_ring(c->h, IVWL_DOORBELL_SLOT(c->k));
}

/* Feeds the pipe and moves what it holds into the ring. */
static void
clip_feed(struct clip *c, uint64_t limit)
{
	struct ivwl_hostile_slot *s = &c->h->slot[c->k];
	static uint8_t chunk[CLIP_CHUNK];
	ssize_t n;

	if (c->fd >= 0 && c->sent < limit) {
		memset(chunk, 'x', sizeof(chunk));
		n = write(c->fd, chunk, sizeof(chunk));
		if (n > 0)
			c->sent += (uint64_t)n;
	}
	if (c->fd >= 0 && c->sent >= limit) {
		close(c->fd);		/* EOF: the selection is complete */
		c->fd = -1;
	}
	if (c->ch && ivwl_channel_pump(c->ch, &s->request) == 1) {
		ivwl_channel_destroy(&c->chs, c->ch);
		c->ch = NULL;
		c->finished = true;
	}
	if (ivwl_ring_kick_needed(&s->request))
		ivwl_hostile_ring(c->h, IVWL_DOORBELL_SLOT(c->k));
}

/*
 * Offers a selection on slot k (no input focus needed: weston takes any
 * serial while no selection is set) and, when weston's clipboard manager
 * asks for its bytes, sends limit of them.  c->source stays ours.
 */
static void
clip_offer_and_feed(struct ivwl_hostile *h, uint32_t k, uint64_t limit,
		    struct clip *c)
{
	struct ivwl_hostile_globals g;
	uint32_t *id, seat, ddm, device;
	struct ivwl_out out;

	memset(c, 0, sizeof(*c));
	c->h = h;
	c->k = k;
	c->fd = -1;
	ivwl_channels_init(&c->chs, IVWL_SIDE_APP);
	if (!ivwl_hostile_session_start(h, k, &g, 2000) || !g.seat ||
	    !g.data_device_manager)
		return;
	id = &h->slot[k].next_id;
	seat = (*id)++;
	ddm = (*id)++;
	c->source = (*id)++;
	device = (*id)++;
	ivwl_out_reset(&out);
	bind_seat_and_ddm(&out, &g, seat, ddm);
	ivwl_out_begin(&out, ddm,
		       IVWL_REQ_WL_DATA_DEVICE_MANAGER_CREATE_DATA_SOURCE);
	ivwl_out_u32(&out, c->source);
	ivwl_out_end(&out);
	ivwl_out_begin(&out, c->source, IVWL_REQ_WL_DATA_SOURCE_OFFER);
	ivwl_out_string(&out, CLIP_MIME);
	ivwl_out_end(&out);
	ivwl_out_begin(&out, ddm,
		       IVWL_REQ_WL_DATA_DEVICE_MANAGER_GET_DATA_DEVICE);
	ivwl_out_u32(&out, device);
	ivwl_out_u32(&out, seat);
	ivwl_out_end(&out);
	ivwl_out_begin(&out, device, IVWL_REQ_WL_DATA_DEVICE_SET_SELECTION);
	ivwl_out_u32(&out, c->source);
	ivwl_out_u32(&out, 0);
	ivwl_out_end(&out);
	ivwl_hostile_send_wayland(h, k, &out);

	while (ivwl_hostile_time_left(h) && !c->finished &&
	       h->slot[k].phase == IVWL_HOSTILE_LIVE) {
		clip_events(c);
		clip_feed(c, limit);
		ivwl_hostile_slot_poll(h, k);
		if (!c->ch)
			usleep(1000);
	}
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

static void
clip_report(struct ivwl_hostile *h, const char *mode, struct clip *c)
{
	printf("hostile-peer: %s: weston %s the selection; %llu MiB "
	       "written, transfer %s, connection %s\n", mode,
	       c->sent || c->ch ? "asked for" : "never asked for",
	       (unsigned long long)(c->sent >> 20),
	       c->finished ? "finished" : "unfinished",
	       h->slot[c->k].phase == IVWL_HOSTILE_LIVE ? "open" : "closed");
	fflush(stdout);
}

/* Sends --count MiB (256 by default) as a selection and keeps it. */
void
ivwl_hostile_clipboard_flood(struct ivwl_hostile *h)
{
	struct clip c;

	clip_offer_and_feed(h, 0, (uint64_t)(h->count ? h->count : 256) << 20,
			    &c);
	clip_report(h, "clipboard-flood", &c);
	/* keep the selection (and weston's copy of it) alive */
	while (ivwl_hostile_time_left(h) &&
	       h->slot[0].phase == IVWL_HOSTILE_LIVE) {
		clip_events(&c);
		ivwl_hostile_slot_poll(h, 0);
		usleep(10 * 1000);
	}
	ivwl_channels_release(&c.chs);
}

/* ---- clipboard-hang ------------------------------------------------- */

void
ivwl_hostile_on_focus_event(void *data, const struct ivwl_hostile_event *ev)
{
	struct ivwl_hostile_focus *f = data;
	uint32_t v;

	ivwl_hostile_on_window_event(&f->w, ev);
	if (ev->object != f->device || ev->size < 12)
		return;
	memcpy(&v, ev->args, 4);
	if (ev->opcode == IVWL_EVT_WL_DATA_DEVICE_DATA_OFFER) {
		f->offer = v;
		f->offers++;
	} else if (ev->opcode == IVWL_EVT_WL_DATA_DEVICE_SELECTION) {
		f->selection = v && v == f->offer;
		f->selections++;
	}
}

bool
ivwl_hostile_focus_and_offer(struct ivwl_hostile *h, uint32_t k,
			     struct ivwl_hostile_focus *f)
{
	struct ivwl_hostile_globals g;
	struct ivwl_out out;
	struct ivwl_fd_desc d = ivwl_out_region_desc(h->layout.heap_offset,
						     IVWL_PAGE_SIZE);
	uint32_t *id = &h->slot[k].next_id, shm, comp, seat, ddm, surface;
	uint32_t top, pool, buffer;
	int64_t end;

	if (!ivwl_hostile_session_start(h, k, &g, 2000) || !g.seat ||
	    !g.data_device_manager || !g.shm || !g.compositor || !g.wm_base)
		return false;
	shm = (*id)++;
	comp = (*id)++;
	f->w.wm_base = (*id)++;
	seat = (*id)++;
	ddm = (*id)++;
	f->device = (*id)++;
	surface = (*id)++;
	f->w.xdg_surface = (*id)++;
	top = (*id)++;
	ivwl_out_reset(&out);
	ivwl_out_bind(&out, g.shm, "wl_shm", 1, shm);
	ivwl_out_bind(&out, g.compositor, "wl_compositor", 4, comp);
	ivwl_out_bind(&out, g.wm_base, "xdg_wm_base", 1, f->w.wm_base);
	bind_seat_and_ddm(&out, &g, seat, ddm);
	ivwl_out_begin(&out, ddm,
		       IVWL_REQ_WL_DATA_DEVICE_MANAGER_GET_DATA_DEVICE);
	ivwl_out_u32(&out, f->device);
	ivwl_out_u32(&out, seat);
	ivwl_out_end(&out);
	ivwl_out_begin(&out, comp, IVWL_REQ_WL_COMPOSITOR_CREATE_SURFACE);
	ivwl_out_u32(&out, surface);
	ivwl_out_end(&out);
	ivwl_out_begin(&out, f->w.wm_base,
		       IVWL_REQ_XDG_WM_BASE_GET_XDG_SURFACE);
	ivwl_out_u32(&out, f->w.xdg_surface);
	ivwl_out_u32(&out, surface);
	ivwl_out_end(&out);
	ivwl_out_begin(&out, f->w.xdg_surface,
		       IVWL_REQ_XDG_SURFACE_GET_TOPLEVEL);
	ivwl_out_u32(&out, top);
	ivwl_out_end(&out);
	ivwl_out_begin(&out, top, IVWL_REQ_XDG_TOPLEVEL_SET_TITLE);
	ivwl_out_string(&out, "focus");
	ivwl_out_end(&out);
	ivwl_out_begin(&out, surface, IVWL_REQ_WL_SURFACE_COMMIT);
	ivwl_out_end(&out);
	ivwl_hostile_send_wayland(h, k, &out);
	end = ivwl_now_ms() + 3000;
	while (!f->w.configured && ivwl_now_ms() < end &&
	       h->slot[k].phase == IVWL_HOSTILE_LIVE)
		ivwl_hostile_roundtrip(h, k, ivwl_hostile_on_focus_event, f,
				       500);
	if (!f->w.configured)
		return false;

	pool = (*id)++;
	buffer = (*id)++;
	ivwl_out_reset(&out);
	ivwl_out_ack_configure(&out, f->w.xdg_surface, f->w.serial);
	ivwl_out_shm_pool(&out, shm, pool, &d, IVWL_PAGE_SIZE);
	/* 32x32: big enough to click, one page */
	ivwl_out_shm_buffer(&out, pool, buffer, 0, 32, 32, 128,
			    IVWL_HOSTILE_XRGB8888);
	ivwl_out_attach_commit(&out, surface, buffer);
	ivwl_hostile_send_wayland(h, k, &out);
	/* the window has the keyboard if nobody held it; else the user
	 * gives it with a click (docs/security.md, "Trusted path") */
	printf("hostile-peer: window \"focus\" mapped, waiting for a click "
	       "or the keyboard\n");
	fflush(stdout);
	end = ivwl_now_ms() + 15000;
	while (!f->selection && ivwl_now_ms() < end &&
	       h->slot[k].phase == IVWL_HOSTILE_LIVE)
		ivwl_hostile_roundtrip(h, k, ivwl_hostile_on_focus_event, f,
				       500);
	return f->selection;
}

/* wl_data_offer.receive of CLIP_MIME into a pipe of ours, on slot k. */
static void
receive_offer(struct ivwl_hostile *h, uint32_t k, uint32_t offer)
{
	static const struct ivwl_fd_desc pipe_desc = {
		.kind = IVWL_FD_PIPE,
		.flags = IVWL_PIPE_WRITE_END,
		.channel = 1,		/* odd: an app side channel */
	};
	struct ivwl_out out;

	ivwl_out_reset(&out);
	ivwl_out_begin(&out, offer, IVWL_REQ_WL_DATA_OFFER_RECEIVE);
	ivwl_out_string(&out, CLIP_MIME);
	ivwl_out_end(&out);
	ivwl_out_fd(&out, &pipe_desc);
	ivwl_hostile_send_wayland(h, k, &out);
}

/*
 * A selection of mib MiB on slot 0, sent whole, then its source
 * destroyed: weston's clipboard manager serves its own copy from then
 * on.  False when weston did not take it all.
 */
static bool
clip_cached_by_weston(struct ivwl_hostile *h, const char *mode, uint64_t mib)
{
	struct ivwl_out out;
	struct clip c;

	clip_offer_and_feed(h, 0, mib << 20, &c);
	clip_report(h, mode, &c);
	if (!c.finished) {
		ivwl_channels_release(&c.chs);
		return false;
	}
	ivwl_out_reset(&out);
	ivwl_out_begin(&out, c.source, IVWL_REQ_WL_DATA_SOURCE_DESTROY);
	ivwl_out_end(&out);
	ivwl_hostile_send_wayland(h, 0, &out);
	ivwl_hostile_roundtrip(h, 0, NULL, NULL, 2000);
	ivwl_channels_release(&c.chs);
	return true;
}

/*
 * A selection bigger than the plugin's pipe buffer, cached by weston's
 * clipboard manager (our source destroyed, weston serves its copy), then
 * received by a focused client of ours that never grants credit: weston
 * writes the selection with one blocking write from its main thread.
 * Probes whether the display still answers a new connection.
 */
void
ivwl_hostile_clipboard_hang(struct ivwl_hostile *h)
{
	struct ivwl_hostile_focus f = { 0 };
	uint32_t probes = 0, answered = 0;

	if (!clip_cached_by_weston(h, "clipboard-hang",
				   h->count ? h->count : 128))
		return;

	if (!ivwl_hostile_focus_and_offer(h, 1, &f)) {
		printf("hostile-peer: clipboard-hang: no selection offer "
		       "(no keyboard focus?)\n");
		return;
	}
	receive_offer(h, 1, f.offer);
	printf("hostile-peer: clipboard-hang: receiving weston's copy, "
	       "granting no credit\n");
	fflush(stdout);

	while (ivwl_hostile_time_left(h)) {
		/* read what comes (channel data included), grant nothing */
		ivwl_hostile_drain_events(h, 1, ivwl_hostile_on_focus_event,
					  &f);
		probes++;
		if (ivwl_hostile_slot_open_wait(h, 2, 2000))
			answered++;
		ivwl_hostile_slot_close(h, 2);
		usleep(300 * 1000);
	}
	printf("hostile-peer: clipboard-hang: the display answered %u of %u "
	       "new connections after the receive\n", answered, probes);
}

/*
 * clipboard-cache-block: a 60 MiB selection cached by weston, then every
 * further slot a window with the keyboard that receives weston's copy
 * and never grants credit, one after the other: weston's clipboard
 * manager writes each with one write() when the pipe is writable.
 */
void
ivwl_hostile_clipboard_cache_block(struct ivwl_hostile *h)
{
	struct ivwl_hostile_focus f[IVWL_SLOT_COUNT];
	uint32_t k, receives = 0, slots = 1;

	if (!clip_cached_by_weston(h, "clipboard-cache-block",
				   h->count ? h->count : 60))
		return;
	memset(f, 0, sizeof(f));
	for (k = 1; k < h->slots && ivwl_hostile_time_left(h); k++) {
		if (!ivwl_hostile_focus_and_offer(h, k, &f[k])) {
			printf("hostile-peer: clipboard-cache-block: slot %u "
			       "got no offer\n", k);
			continue;
		}
		slots++;
		receive_offer(h, k, f[k].offer);
		receives++;
		printf("hostile-peer: clipboard-cache-block: slot %u receives "
		       "weston's copy, granting no credit\n", k);
		fflush(stdout);
	}
	/* hold them all, reading events and granting nothing */
	while (ivwl_hostile_time_left(h)) {
		for (k = 1; k < slots; k++)
			ivwl_hostile_drain_events(h, k,
						  ivwl_hostile_on_focus_event,
						  &f[k]);
		usleep(100 * 1000);
	}
	printf("hostile-peer: clipboard-cache-block: %u receives\n",
	       receives);
}

/* ---- clipboard-guess ------------------------------------------------ */

/* A client's first server-made object: the offer weston made for it. */
#define FIRST_SERVER_ID 0xff000000u

/*
 * Another VM's selection, which the clipboard policy keeps from this
 * one: a window of ours with the keyboard must hear of no offer, only
 * of no selection.  Then the guess: wl_data_offer.receive on the id
 * weston gave the withheld offer, which must end the connection before
 * a byte of the selection is sent.
 */
void
ivwl_hostile_clipboard_guess(struct ivwl_hostile *h)
{
	struct ivwl_hostile_focus f = { 0 };
	int64_t end;

	ivwl_hostile_focus_and_offer(h, 0, &f);
	printf("hostile-peer: clipboard-guess: focused window heard %u data "
	       "offers, %u selection events, the last %s\n", f.offers,
	       f.selections, f.selection ? "an offer" : "null");
	fflush(stdout);
	if (h->slot[0].phase != IVWL_HOSTILE_LIVE)
		return;
	receive_offer(h, 0, FIRST_SERVER_ID);
	end = ivwl_now_ms() + 3000;
	while (ivwl_now_ms() < end &&
	       h->slot[0].phase == IVWL_HOSTILE_LIVE) {
		ivwl_hostile_drain_events(h, 0, ivwl_hostile_on_focus_event,
					  &f);
		ivwl_hostile_slot_poll(h, 0);
		usleep(50 * 1000);
	}
	printf("hostile-peer: clipboard-guess: receive on wl_data_offer@%u: "
	       "connection %s\n", FIRST_SERVER_ID,
	       h->slot[0].phase == IVWL_HOSTILE_LIVE ? "open" : "closed");
}
