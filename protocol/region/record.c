/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>

#include "fdmsg.h"
#include "record.h"
#include "ring.h"

/* A Wayland record's fds travel on in one message with fds (fdmsg.h). */
_Static_assert(IVWL_FDMSG_MAX_FDS == IVWL_WAYLAND_MAX_FDS,
	       "fdmsg.h and record.h disagree on libwayland's fd limit");

/* Ring payloads are rounded up to IVWL_RECORD_ALIGN: allow that slack. */
static bool
size_fits(uint64_t needed, uint32_t len)
{
	return needed <= len && len - needed < IVWL_RECORD_ALIGN;
}

uint32_t
ivwl_record_wayland_size(uint32_t nfds, uint32_t data_len)
{
	return (uint32_t)sizeof(struct ivwl_wayland_header) +
	       nfds * (uint32_t)sizeof(struct ivwl_fd_desc) + data_len;
}

uint32_t
ivwl_record_channel_data_size(uint32_t len)
{
	return (uint32_t)sizeof(struct ivwl_channel_data) + len;
}

void
ivwl_record_wayland_build(void *payload, const struct ivwl_fd_desc *fds,
			  uint32_t nfds, const void *data, uint32_t data_len)
{
	struct ivwl_wayland_header h = {
		.nfds = (uint16_t)nfds,
		.data_len = data_len,
	};
	uint8_t *p = payload;

	memcpy(p, &h, sizeof(h));
	p += sizeof(h);
	if (nfds) {
		memcpy(p, fds, nfds * sizeof(*fds));
		p += nfds * sizeof(*fds);
	}
	if (data_len)
		memcpy(p, data, data_len);
}

void
ivwl_record_channel_data_build(void *payload, uint32_t channel,
			       const void *bytes, uint32_t len)
{
	struct ivwl_channel_data h = {
		.channel = channel,
		.len = len,
	};

	memcpy(payload, &h, sizeof(h));
	if (len)
		memcpy((uint8_t *)payload + sizeof(h), bytes, len);
}

bool
ivwl_fd_desc_valid(const struct ivwl_fd_desc *desc,
		   const struct ivwl_layout *layout)
{
	if (desc->reserved != 0)
		return false;

	switch (desc->kind) {
	case IVWL_FD_REGION:
		return desc->flags == 0 && desc->channel == 0 &&
		       ivwl_heap_range_valid(layout, desc->offset,
					     desc->length);
	case IVWL_FD_BLOB:
		return desc->flags == 0 && desc->channel != 0 &&
		       desc->offset == 0 && desc->length <= IVWL_BLOB_MAX;
	case IVWL_FD_PIPE:
		return (desc->flags == IVWL_PIPE_READ_END ||
			desc->flags == IVWL_PIPE_WRITE_END) &&
		       desc->channel != 0 && desc->offset == 0 &&
		       desc->length == 0;
	default:
		return false;
	}
}

int
ivwl_record_parse_wayland(const void *payload, uint32_t len,
			  const struct ivwl_layout *layout,
			  struct ivwl_wayland_record *out)
{
	struct ivwl_wayland_header h;
	const uint8_t *p = payload;
	uint32_t i;

	if (len < sizeof(h))
		return -EPROTO;
	memcpy(&h, p, sizeof(h));
	if (h.reserved != 0 || h.nfds > IVWL_WAYLAND_MAX_FDS ||
	    h.data_len > IVWL_WAYLAND_MAX_DATA ||
	    !size_fits((uint64_t)ivwl_record_wayland_size(h.nfds, h.data_len),
		       len))
		return -EPROTO;

	out->nfds = h.nfds;
	out->fds = (const struct ivwl_fd_desc *)(p + sizeof(h));
	out->data_len = h.data_len;
	out->data = p + sizeof(h) + h.nfds * sizeof(struct ivwl_fd_desc);

	for (i = 0; i < out->nfds; i++)
		if (!ivwl_fd_desc_valid(&out->fds[i], layout))
			return -EPROTO;
	return 0;
}

int
ivwl_record_parse_channel_data(const void *payload, uint32_t len,
			       struct ivwl_channel_data_record *out)
{
	struct ivwl_channel_data h;

	if (len < sizeof(h))
		return -EPROTO;
	memcpy(&h, payload, sizeof(h));
	if (h.channel == 0 || h.len == 0 ||
	    !size_fits((uint64_t)sizeof(h) + h.len, len))
		return -EPROTO;

	out->channel = h.channel;
	out->len = h.len;
	out->bytes = (const uint8_t *)payload + sizeof(h);
	return 0;
}

int
ivwl_record_parse_channel_close(const void *payload, uint32_t len,
				struct ivwl_channel_close *out)
{
	if (!size_fits(sizeof(*out), len))
		return -EPROTO;
	memcpy(out, payload, sizeof(*out));
	if (out->channel == 0 ||
	    (out->flags != IVWL_CHANNEL_EOF && out->flags != IVWL_CHANNEL_ABORT))
		return -EPROTO;
	return 0;
}

int
ivwl_record_parse_channel_credit(const void *payload, uint32_t len,
				 struct ivwl_channel_credit *out)
{
	if (!size_fits(sizeof(*out), len))
		return -EPROTO;
	memcpy(out, payload, sizeof(*out));
	return out->channel == 0 || out->bytes == 0 ? -EPROTO : 0;
}

int
ivwl_record_parse_disconnect(const void *payload, uint32_t len,
			     struct ivwl_disconnect *out, const char **text)
{
	if (len < sizeof(*out))
		return -EPROTO;
	memcpy(out, payload, sizeof(*out));
	if (out->len > IVWL_DISCONNECT_MAX_TEXT ||
	    !size_fits((uint64_t)sizeof(*out) + out->len, len))
		return -EPROTO;
	*text = (const char *)payload + sizeof(*out);
	return 0;
}

int
ivwl_record_disconnect_write(struct ivwl_ring *ring, const char *text)
{
	struct ivwl_disconnect d = { .code = 0 };
	struct iovec iov[2];

	d.len = (uint32_t)strnlen(text, IVWL_DISCONNECT_MAX_TEXT);
	iov[0] = (struct iovec){ &d, sizeof(d) };
	iov[1] = (struct iovec){ (void *)text, d.len };
	return ivwl_ring_write(ring, IVWL_RECORD_DISCONNECT, iov, 2);
}

bool
ivwl_batch_fits(const struct ivwl_wayland_batch *batch, uint32_t len,
		uint32_t nfds)
{
	return len <= IVWL_WAYLAND_MAX_DATA - batch->len &&
	       nfds <= IVWL_WAYLAND_MAX_FDS - batch->nfds;
}

void
ivwl_batch_add(struct ivwl_wayland_batch *batch, const void *msg,
	       uint32_t len, const struct ivwl_fd_desc *fds, uint32_t nfds)
{
	memcpy(batch->data + batch->len, msg, len);
	batch->len += len;
	if (nfds)
		memcpy(&batch->fds[batch->nfds], fds, nfds * sizeof(*fds));
	batch->nfds += nfds;
}

int
ivwl_batch_flush(struct ivwl_wayland_batch *batch, struct ivwl_ring *ring)
{
	void *payload;
	int ret;

	if (batch->len == 0 && batch->nfds == 0)
		return 0;
	ret = ivwl_ring_reserve(ring, ivwl_record_wayland_size(batch->nfds,
							       batch->len),
				&payload);
	if (ret < 0)
		return ret;
	ivwl_record_wayland_build(payload, batch->fds, batch->nfds,
				  batch->data, batch->len);
	ivwl_ring_commit(ring, IVWL_RECORD_WAYLAND);
	batch->len = 0;
	batch->nfds = 0;
	return 0;
}
