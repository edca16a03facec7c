/* SPDX-License-Identifier: MIT */
/*
 * How much crossed: the bytes of each transfer between parties that
 * the policy lets through, logged when it ends (never the bytes).
 *
 * A VM's end of a transfer is a channel (protocol/region/channel.h), and a
 * channel counts what it moved.  The reading side is known when a VM
 * receives: clipboard.c notes the channel then.  The writing side, a
 * wl_data_source.send weston passes a VM, names no reader: weston asks
 * the source from inside the reader's wl_data_offer.receive, so a
 * protocol logger sees that request first, with the reader's client
 * and its pipe.  The pipe the send event brings is the same pipe, so
 * its inode finds the reader again when the plugin translates the
 * event.  A send no receive asked for is weston's own copy of a new
 * selection, or the trusted copy, which logs its own sizes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "clipboard-internal.h"
#include "connection.h"
#include "ivwl-limits.h"
#include "ivwl-plugin.h"
#include "ivwl-protocols.h"
#include "vm.h"

/* One receive weston is about to pass on to a VM's source. */
struct clip_read {
	dev_t dev;
	ino_t ino;		/* 0: a free entry */
	struct ivwl_clip_owner reader;
	bool drag;
};

struct ivwl_clip_transfers {
	struct ivwl_clipboard *cb;
	struct wl_protocol_logger *logger;
	struct clip_read reads[IVWL_CLIP_READS_MAX];
	uint32_t next;
};

/* What a channel's end tells the log. */
struct clip_note {
	bool gave;		/* the VM wrote (a sink), or read (a source) */
	bool drag;
	char party[48];		/* the other party */
	char mime[IVWL_FW_MIME_LENGTH + 1];
};

static bool
pipe_id(int fd, dev_t *dev, ino_t *ino)
{
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0)
		return false;
	*dev = st.st_dev;
	*ino = st.st_ino;
	return true;
}

/*
 * wl_data_offer.receive, just before weston dispatches it.  Only one
 * weston passes on to a VM's client source is noted: the oldest note
 * makes room, so a reader that floods receives costs nothing but the
 * names in the log of reads made at the same time.
 */
static void
on_protocol(void *data, enum wl_protocol_logger_type type,
	    const struct wl_protocol_logger_message *m)
{
	const struct wl_message *receive = wl_data_offer_interface.methods +
					   IVWL_REQ_WL_DATA_OFFER_RECEIVE;
	struct ivwl_clip_transfers *tr = data;
	struct weston_data_offer *offer;
	struct weston_data_source *source;
	struct clip_read *r;
	dev_t dev;
	ino_t ino;

	if (type != WL_PROTOCOL_LOGGER_REQUEST || m->message != receive ||
	    m->arguments_count != 2 || ivwl_clip_paste_is_offer(m->resource))
		return;
	offer = wl_resource_get_user_data(m->resource);
	source = offer ? offer->source : NULL;
	if (!source || source->offer != offer || !source->resource ||
	    !ivwl_vm_from_client(tr->cb->plugin,
				 wl_resource_get_client(source->resource)) ||
	    !pipe_id(m->arguments[1].h, &dev, &ino))
		return;
	r = &tr->reads[tr->next];
	tr->next = (tr->next + 1) % IVWL_CLIP_READS_MAX;
	r->dev = dev;
	r->ino = ino;
	r->drag = !source->set_selection;
	r->reader = ivwl_clip_owner_of_client(tr->cb,
				wl_resource_get_client(m->resource));
}

struct ivwl_clip_transfers *
ivwl_clip_transfers_create(struct ivwl_clipboard *cb)
{
	struct ivwl_clip_transfers *tr = calloc(1, sizeof(*tr));

	if (!tr)
		return NULL;
	tr->cb = cb;
	tr->logger = wl_display_add_protocol_logger(
		cb->plugin->compositor->wl_display, on_protocol, tr);
	if (!tr->logger) {
		free(tr);
		return NULL;
	}
	return tr;
}

void
ivwl_clip_transfers_destroy(struct ivwl_clip_transfers *tr)
{
	if (!tr)
		return;
	wl_protocol_logger_destroy(tr->logger);
	free(tr);
}

void
ivwl_clip_transfer_note(struct ivwl_channel *ch, bool gave, bool drag,
			const char *party, const char *mime)
{
	struct clip_note *n = calloc(1, sizeof(*n));

	if (!n)
		return;		/* the transfer goes unmeasured, not refused */
	n->gave = gave;
	n->drag = drag;
	snprintf(n->party, sizeof(n->party), "%s", party);
	snprintf(n->mime, sizeof(n->mime), "%s", mime ? mime : "(null)");
	free(ch->tag);
	ch->tag = n;
}

void
ivwl_clipboard_send(struct ivwl_connection *conn,
		    const struct ivwl_wire_msg *msg, struct ivwl_channel *ch)
{
	struct ivwl_clip_transfers *tr = conn->vm->plugin->clipboard->transfers;
	struct ivwl_evt_wl_data_source_send send;
	struct clip_read *r = NULL;
	struct ivwl_clip_owner reader;
	dev_t dev;
	ino_t ino;
	uint32_t i;

	if (!ivwl_evt_wl_data_source_send_decode(msg, &send) ||
	    !pipe_id(ch->fd, &dev, &ino))
		return;
	for (i = 0; i < IVWL_CLIP_READS_MAX && !r; i++)
		if (tr->reads[i].ino == ino && tr->reads[i].dev == dev)
			r = &tr->reads[i];
	if (!r)
		return;
	r->ino = 0;
	reader = r->reader;
	if (reader.party == IVWL_CLIP_VM && reader.vm == conn->vm)
		return;
	ivwl_clip_transfer_note(ch, true, r->drag,
				ivwl_clip_owner_name(&reader),
				send.mime_type);
}

void
ivwl_clipboard_channel_end(struct ivwl_connection *conn,
			   struct ivwl_channel *ch)
{
	struct clip_note *n = ch->tag;
	const char *kind, *end;

	if (!n)
		return;
	kind = n->drag ? "drag" : "selection";
	end = ch->complete ? "complete" : "cut short";
	if (n->gave)
		ivwl_log("[%s] slot %u: gave %" PRIu64 " bytes of %s of its %s "
			 "to %s: %s", conn->vm->name, conn->slot, ch->total,
			 n->mime, kind, n->party, end);
	else
		ivwl_log("[%s] slot %u: read %" PRIu64 " bytes of %s of %s's "
			 "%s: %s", conn->vm->name, conn->slot, ch->total,
			 n->mime, n->party, kind, end);
	free(n);
	ch->tag = NULL;
}
