/* SPDX-License-Identifier: MIT */
/*
 * The display's side of a relayed connection (relay.c): the records of
 * the event ring (Wayland events with their fds rebuilt, channel data,
 * the display's last word) and the events the relay makes itself, all
 * followed in the wire map and queued for the client.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mono-time.h"
#include "relay-internal.h"

/* Channel data collected for a BLOB descriptor that is still to come. */
struct blob_in {
	struct blob_in *next;
	uint32_t channel;
	uint32_t len;
	uint32_t cap;
	uint8_t *data;
};

void
ivwl_relay_blobs_release(struct relay *r)
{
	struct blob_in *blob;

	while ((blob = r->blobs)) {
		r->blobs = blob->next;
		free(blob->data);
		free(blob);
	}
}

/*
 * Events the relay makes (replay.h): decoded and followed like the
 * display's, so the map stays the client's view.
 */
int
ivwl_relay_deliver_synth(struct relay *r)
{
	const struct ivwl_fd_desc *desc;
	struct ivwl_wire_msg msg;
	const uint8_t *bytes;
	uint32_t pos = 0, len;

	if (r->synth.oom)
		return relay_fail(r, "out of memory for events");
	while (ivwl_replay_buf_next(&r->synth, &pos, &bytes, &len, &desc)) {
		if (ivwl_wire_parse(&r->objects, IVWL_WIRE_EVENT, bytes, len,
				    &msg) != (int)len ||
		    ivwl_wire_track(&r->objects, IVWL_WIRE_EVENT, &msg) < 0)
			return relay_fail(r, "the relay made an event that does not "
				    "decode");
		if (ivwl_stream_out_append(&r->to_client, bytes, len, NULL,
					   0) < 0)
			return relay_fail(r, "the client does not read its events");
	}
	ivwl_replay_buf_reset(&r->synth);
	return 0;
}

static struct blob_in *
blob_find(struct relay *r, uint32_t channel)
{
	struct blob_in *b;

	for (b = r->blobs; b; b = b->next)
		if (b->channel == channel)
			return b;
	return NULL;
}

static int
channel_data(struct relay *r, uint32_t len)
{
	struct ivwl_channel_data_record rec;
	struct blob_in *b;

	if (ivwl_record_parse_channel_data(r->record, len, &rec) < 0)
		return relay_fail(r, "malformed channel data");
	b = blob_find(r, rec.channel);
	if (!b) {
		b = calloc(1, sizeof(*b));
		if (!b)
			return -ENOMEM;
		b->channel = rec.channel;
		b->next = r->blobs;
		r->blobs = b;
	}
	if (rec.len > IVWL_BLOB_MAX - b->len)
		return relay_fail(r, "blob larger than allowed");
	if (b->len + rec.len > b->cap) {
		uint32_t cap = b->cap ? b->cap : 65536;
		uint8_t *n;

		while (cap < b->len + rec.len)
			cap *= 2;
		n = realloc(b->data, cap);
		if (!n)
			return -ENOMEM;
		b->data = n;
		b->cap = cap;
	}
	memcpy(b->data + b->len, rec.bytes, rec.len);
	b->len += rec.len;
	return 0;
}

/* A sealed memfd with the blob's bytes, as the compositor would give. */
static int
blob_fd(struct relay *r, const struct ivwl_fd_desc *desc)
{
	struct blob_in *b = blob_find(r, desc->channel), **pp;
	int fd;

	if (!b || b->len != desc->length)
		return -EPROTO;
	fd = memfd_create("ivwl-blob", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	if (write(fd, b->data, b->len) != (ssize_t)b->len) {
		close(fd);
		return -EIO;
	}
	/* The app must get the bytes weston sent, never others. */
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
		  F_SEAL_WRITE | F_SEAL_SEAL) < 0) {
		int err = errno;

		close(fd);
		return -err;
	}
	for (pp = &r->blobs; *pp != b; pp = &(*pp)->next)
		;
	*pp = b->next;
	free(b->data);
	free(b);
	return fd;
}

static int
wayland_events(struct relay *r, uint32_t len)
{
	struct ivwl_wayland_record rec;
	int fds[IVWL_WAYLAND_MAX_FDS];
	enum ivwl_replay_verdict verdict;
	struct ivwl_wire_msg msg;
	const char *why = NULL;
	uint8_t *p;
	uint32_t i, left, out = 0;
	int n, skip;

	if (ivwl_record_parse_wayland(r->record, len, &r->slot.layout,
				      &rec) < 0)
		return relay_fail(r, "malformed event record");
	if (r->deadline_ms)
		r->heard_ms = ivwl_now_ms();
	for (i = 0; i < rec.nfds; i++) {
		struct ivwl_channel *ch;

		if (rec.fds[i].kind == IVWL_FD_BLOB)
			fds[i] = blob_fd(r, &rec.fds[i]);
		else if (ivwl_channel_source_new(&r->channels, &rec.fds[i],
						 &fds[i], &ch) < 0)
			fds[i] = -EPROTO;
		if (fds[i] < 0) {
			while (i-- > 0)
				close(fds[i]);
			return relay_fail(r, "an event fd could not be rebuilt");
		}
	}
	/* Follow the events so that later requests decode. */
	for (p = (uint8_t *)rec.data, left = rec.data_len; left > 0;
	     p += n, left -= (uint32_t)n) {
		/* The replay's own callbacks: a done of 12 bytes. */
		skip = ivwl_replay_skip_event(r->replay, p, left);
		n = 12;
		if (skip == 1 && left >= (uint32_t)n)
			continue;
		n = skip < 0 ? -1 : ivwl_wire_parse(&r->objects,
						    IVWL_WIRE_EVENT, p, left,
						    &msg);
		if (n <= 0)
			goto err_fds;
		if (ivwl_replay_event(r->replay, &r->objects, &msg, p,
				      &verdict, &r->replay_out, &r->synth,
				      &why) < 0)
			goto err_fds;
		if (verdict == IVWL_REPLAY_DROP)
			continue;
		if (ivwl_wire_track(&r->objects, IVWL_WIRE_EVENT, &msg) < 0)
			goto err_fds;
		out += ivwl_relay_time_event(&r->time, &msg, p,
					     r->events + out);
	}
	if (ivwl_stream_out_append(&r->to_client, r->events, out, fds,
				   rec.nfds) < 0)
		return relay_fail(r, "the client does not read its events");
	return r->synth.len ? ivwl_relay_deliver_synth(r) : 0;

err_fds:
	for (i = 0; i < rec.nfds; i++)
		close(fds[i]);
	return relay_fail(r, why ? why : "the display sent an undecodable event");
}

static int
channel_record(struct relay *r, uint16_t type, uint32_t len)
{
	struct ivwl_channel *finished;

	if (ivwl_channels_handle(&r->channels, type, r->record, len,
				 &finished) < 0)
		return relay_fail(r, "the display broke a pipe channel's rules");
	if (finished)
		ivwl_relay_channel_destroy(r, finished);
	return 0;
}

/* The display's last word: keep its reason for the log. */
static int
disconnected(struct relay *r, uint32_t len)
{
	struct ivwl_disconnect d;
	const char *text;
	uint32_t i;

	if (ivwl_record_parse_disconnect(r->record, len, &d, &text) < 0)
		return relay_fail(r, "the display closed the connection");
	snprintf(r->why_buf, sizeof(r->why_buf),
		 "the display closed the connection: %.*s", (int)d.len, text);
	/* one line in the log, whatever the text holds */
	for (i = 0; r->why_buf[i]; i++)
		if ((unsigned char)r->why_buf[i] < 0x20 ||
		    r->why_buf[i] == 0x7f)
			r->why_buf[i] = '?';
	/* The slot state follows; a display that is leaving may return. */
	r->display_said_bye = true;
	return 0;
}

int
ivwl_relay_pump_events(struct relay *r)
{
	uint32_t cap = ivwl_ring_max_payload(&r->slot.event);
	uint16_t type;
	int n, ret;

	while ((n = ivwl_ring_read(&r->slot.event, &type, r->record,
				   cap)) >= 0) {
		switch (type) {
		case IVWL_RECORD_WAYLAND:
			ret = wayland_events(r, (uint32_t)n);
			break;
		case IVWL_RECORD_CHANNEL_DATA:
			/* Blobs have display-side ids, our pipes ours. */
			if (IVWL_CHANNEL_SIDE(((uint32_t *)r->record)[0]) ==
			    IVWL_SIDE_APP) {
				ret = channel_record(r, type, (uint32_t)n);
				break;
			}
			ret = channel_data(r, (uint32_t)n);
			break;
		case IVWL_RECORD_CHANNEL_CLOSE:
		case IVWL_RECORD_CHANNEL_CREDIT:
			ret = channel_record(r, type, (uint32_t)n);
			break;
		case IVWL_RECORD_DISCONNECT:
			ret = disconnected(r, (uint32_t)n);
			break;
		default:
			ret = relay_fail(r, "unexpected record from the display");
			break;
		}
		if (ret < 0)
			return ret;
	}
	if (n != -EAGAIN)
		return relay_fail(r, "the event ring is corrupt");
	ret = ivwl_stream_out_flush(&r->to_client, r->sock);
	if (ret < 0 && ret != -EAGAIN) {
		r->client_gone = true;
		return 0;
	}
	return 0;
}
