/* SPDX-License-Identifier: MIT */
/*
 * clipboard-paste: the evil VM as the target of a trusted paste (the
 * test presses the bindings).  The paste's offer is the plugin's own,
 * not weston's: the VM asks it for a type the copy does not hold, reads
 * it, reads it again through the same offer, then calls finish on it,
 * which only a drag's offer takes.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "channel.h"
#include "hostile.h"
#include "ivwl-protocols.h"
#include "wire.h"

#define PASTE_MIME "text/plain;charset=utf-8"

struct paste {
	struct ivwl_hostile_focus f;
	struct ivwl_channels chs;
	bool error;		/* weston sent a protocol error */
};

static void
on_paste_event(void *data, const struct ivwl_hostile_event *ev)
{
	struct paste *p = data;

	if (ev->object == IVWL_WIRE_DISPLAY_ID &&
	    ev->opcode == IVWL_EVT_WL_DISPLAY_ERROR)
		p->error = true;
	ivwl_hostile_on_focus_event(&p->f, ev);
}

/* Reads events and channel records, writes what our sinks hold. */
static void
paste_pump(struct ivwl_hostile *h, struct paste *p)
{
	struct ivwl_channel *ch, *next;

	ivwl_hostile_drain_events(h, 0, on_paste_event, p);
	for (ch = p->chs.list; ch; ch = next) {
		next = ch->next;
		if (ivwl_channel_pump(ch, &h->slot[0].request) == 1)
			ivwl_channel_destroy(&p->chs, ch);
	}
	if (ivwl_ring_kick_needed(&h->slot[0].request))
		ivwl_hostile_ring(h, IVWL_DOORBELL_SLOT(0));
	ivwl_hostile_slot_poll(h, 0);
}

/* receive(mime) on offer, as the shim does it: the bytes that came
 * before the pipe's end, -1 if the end never came. */
static long long
read_paste(struct ivwl_hostile *h, struct paste *p, uint32_t offer,
	   const char *mime)
{
	static char buf[64 << 10];
	struct ivwl_channel *ch;
	struct ivwl_fd_desc desc;
	struct ivwl_out out;
	long long got = 0;
	int64_t end = ivwl_now_ms() + 5000;
	ssize_t n;
	int fds[2];

	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	if (ivwl_channel_sink_new(&p->chs, fds[1], &desc, &ch) < 0) {
		close(fds[0]);
		return -1;
	}
	ivwl_out_reset(&out);
	ivwl_out_begin(&out, offer, IVWL_REQ_WL_DATA_OFFER_RECEIVE);
	ivwl_out_string(&out, mime);
	ivwl_out_end(&out);
	ivwl_out_fd(&out, &desc);
	ivwl_hostile_send_wayland(h, 0, &out);
	while (ivwl_now_ms() < end && h->slot[0].phase == IVWL_HOSTILE_LIVE) {
		paste_pump(h, p);
		while ((n = read(fds[0], buf, sizeof(buf))) > 0)
			got += n;
		if (n == 0) {
			close(fds[0]);
			return got;
		}
		usleep(2000);
	}
	close(fds[0]);
	return -1;
}

void
ivwl_hostile_clipboard_paste(struct ivwl_hostile *h)
{
	struct paste p = { 0 };
	long long other = -1, first = -1, again = -1;
	struct ivwl_out out;
	uint32_t offer;
	int64_t end;

	ivwl_channels_init(&p.chs, IVWL_SIDE_APP);
	h->channels = &p.chs;
	ivwl_hostile_focus_and_offer(h, 0, &p.f);
	if (!p.f.selections) {
		printf("hostile-peer: clipboard-paste: no keyboard focus\n");
		goto out;
	}
	printf("hostile-peer: clipboard-paste: focused, waiting for the "
	       "paste\n");
	fflush(stdout);
	p.f.selection = false;
	while (!p.f.selection && ivwl_hostile_time_left(h) &&
	       h->slot[0].phase == IVWL_HOSTILE_LIVE) {
		paste_pump(h, &p);
		usleep(20 * 1000);
	}
	if (!p.f.selection) {
		printf("hostile-peer: clipboard-paste: no paste came\n");
		goto out;
	}
	offer = p.f.offer;
	other = read_paste(h, &p, offer, "application/x-ivwl-not-offered");
	first = read_paste(h, &p, offer, PASTE_MIME);
	again = read_paste(h, &p, offer, PASTE_MIME);

	ivwl_out_reset(&out);
	ivwl_out_begin(&out, offer, IVWL_REQ_WL_DATA_OFFER_FINISH);
	ivwl_out_end(&out);
	ivwl_hostile_send_wayland(h, 0, &out);
	end = ivwl_now_ms() + 3000;
	while (ivwl_now_ms() < end && h->slot[0].phase == IVWL_HOSTILE_LIVE) {
		paste_pump(h, &p);
		usleep(20 * 1000);
	}
	printf("hostile-peer: clipboard-paste: an unoffered type %lld bytes, "
	       "read %lld bytes, again %lld; finish: %s, connection %s\n",
	       other, first, again, p.error ? "protocol error" : "no error",
	       h->slot[0].phase == IVWL_HOSTILE_LIVE ? "open" : "closed");
out:
	fflush(stdout);
	h->channels = NULL;
	ivwl_channels_release(&p.chs);
}
