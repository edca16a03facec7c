/* SPDX-License-Identifier: MIT */
/*
 * Records <-> Wayland wire bytes and fds, for one connection.
 *
 * Requests come from a hostile app: each record is parsed on a private
 * copy, every message decoded against the protocol tables and tracked,
 * every fd descriptor checked, and the few messages that name region
 * memory are rewritten so libwayland-server only ever sees offsets inside
 * the heap range the app named.  Events come from libwayland-server and
 * are trusted; their fds become channel data the app side rebuilds.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fd-flags.h"
#include "ivwl-limits.h"
#include "ivwl-protocols.h"
#include "log.h"
#include "mono-time.h"
#include "pipe-thread.h"
#include "shm-format.h"
#include "translate.h"

_Static_assert(IVWL_CONN_MAX_POOLS == 128 && IVWL_VM_MAX_POOLS == 512 &&
	       IVWL_CONN_MAX_BUFFERS == 1024, "the refusals say these");

/* ---- the host ------------------------------------------------------ */

static int
watch(struct ivwl_translation *xl, struct ivwl_channel *ch)
{
	return xl->host->watch ? xl->host->watch(xl->data, ch) : 0;
}

static int
alarm_fd(struct ivwl_translation *xl)
{
	return xl->host->alarm_fd ? xl->host->alarm_fd(xl->data) : -EBADF;
}

static int
take_mapping(struct ivwl_translation *xl)
{
	return xl->host->take_mapping ? xl->host->take_mapping(xl->data) : 0;
}

static void
drop_mapping(struct ivwl_translation *xl)
{
	if (xl->host->drop_mapping)
		xl->host->drop_mapping(xl->data);
}

/* A line for the log about this client, through the host. */
static void __attribute__((format(printf, 2, 3)))
xl_log(struct ivwl_translation *xl, const char *fmt, ...)
{
	char line[IVWL_LOG_LINE_MAX + 1];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (xl->host->log)
		xl->host->log(xl->data, line);
	else
		ivwl_log("%s", line);
}

/* The firewall's question, passed to the host (firewall.h). */
static bool
off_output(void *data, uint32_t surface)
{
	struct ivwl_translation *xl = data;

	return xl->host->off_output &&
	       xl->host->off_output(xl->data, surface);
}

/* ---- the translation ------------------------------------------------ */

int
ivwl_translation_init(struct ivwl_translation *xl,
		      const struct ivwl_translate_host *host, void *data,
		      struct ivwl_ring *events)
{
	memset(xl, 0, sizeof(*xl));
	xl->host = host;
	xl->data = data;
	xl->event = events;
	ivwl_channels_init(&xl->channels, IVWL_SIDE_DISPLAY);
	/* What a VM may push into weston through one pipe (its clipboard
	 * manager keeps all of a selection in memory). */
	xl->channels.sink_limit = IVWL_SINK_LIMIT;
	ivwl_stream_out_init(&xl->to_server, IVWL_CONN_TO_SERVER_LIMIT);
	ivwl_stream_in_init(&xl->from_server);
	if (ivwl_wire_map_init(&xl->objects) < 0)
		goto err_streams;
	if (ivwl_firewall_init(&xl->firewall, &xl->objects,
			       host->firewall_totals(data)) < 0)
		goto err_objects;
	xl->firewall.weston_major = host->weston_major ?
				    host->weston_major(data) : 0;
	xl->firewall.off_output = off_output;
	xl->firewall.off_output_data = xl;
	return 0;

err_objects:
	ivwl_wire_map_release(&xl->objects);
err_streams:
	ivwl_stream_in_release(&xl->from_server);
	ivwl_stream_out_release(&xl->to_server);
	return -ENOMEM;
}

static void
release_pools(struct ivwl_translation *xl)
{
	struct ivwl_pool *pool;

	while ((pool = xl->pools)) {
		xl->pools = pool->next;
		drop_mapping(xl);
		free(pool);
	}
	xl->npools = 0;
	free(xl->buffers);
	xl->buffers = NULL;
	xl->nbuffers = 0;
}

static void
release_blobs(struct ivwl_translation *xl)
{
	struct ivwl_blob *blob;

	while ((blob = xl->blobs)) {
		xl->blobs = blob->next;
		free(blob->data);
		free(blob);
	}
}

void
ivwl_translation_release(struct ivwl_translation *xl)
{
	release_pools(xl);
	release_blobs(xl);
	ivwl_channels_release(&xl->channels);
	ivwl_stream_out_release(&xl->to_server);
	ivwl_stream_in_release(&xl->from_server);
	ivwl_firewall_release(&xl->firewall);
	ivwl_wire_map_release(&xl->objects);
}

static bool
is(const struct ivwl_wire_msg *msg, const struct ivwl_interface *iface,
   uint32_t opcode)
{
	return msg->iface == iface && msg->opcode == opcode;
}

/*
 * Events a client drawing by frame callbacks does not wait on: a buffer
 * back for reuse, an id free again.  They can ride with the next frame
 * callback's doorbell (connection.c kick_app).  Presentation feedback is
 * not one: weston sends it after the frame callbacks, when the frame
 * was shown, and a player pacing by it needs it then, not a frame late;
 * it rides only with a done due within a few milliseconds (hold_lazy).
 */
static bool
lazy_event(const struct ivwl_wire_msg *msg)
{
	return is(msg, &ivwl_iface_wl_buffer, IVWL_EVT_WL_BUFFER_RELEASE) ||
	       is(msg, &ivwl_iface_wl_display, IVWL_EVT_WL_DISPLAY_DELETE_ID);
}

/* A frame shown: presented and the sync_output before it (one per
 * wl_output the client bound). */
static bool
presented_event(const struct ivwl_wire_msg *msg)
{
	return is(msg, &ivwl_iface_wp_presentation_feedback,
		  IVWL_EVT_WP_PRESENTATION_FEEDBACK_PRESENTED) ||
	       is(msg, &ivwl_iface_wp_presentation_feedback,
		  IVWL_EVT_WP_PRESENTATION_FEEDBACK_SYNC_OUTPUT);
}

static struct ivwl_pool *
find_pool(struct ivwl_translation *xl, uint32_t id)
{
	struct ivwl_pool *pool;

	for (pool = xl->pools; pool && id; pool = pool->next)
		if (pool->id == id)
			return pool;
	return NULL;
}

/* Forgets a mapping once neither its object nor a buffer holds it. */
static void
pool_maybe_release(struct ivwl_translation *xl, struct ivwl_pool *pool)
{
	struct ivwl_pool **pp;

	if (pool->id || pool->buffers)
		return;
	for (pp = &xl->pools; *pp != pool; pp = &(*pp)->next)
		;
	*pp = pool->next;
	xl->npools--;
	drop_mapping(xl);
	free(pool);
}

static void
pool_object_gone(struct ivwl_translation *xl, uint32_t id)
{
	struct ivwl_pool *pool = find_pool(xl, id);

	if (!pool)
		return;
	pool->id = 0;
	pool_maybe_release(xl, pool);
}

static int
add_pool(struct ivwl_translation *xl, uint32_t id, uint64_t offset,
	 uint64_t length)
{
	struct ivwl_pool *pool;
	int ret;

	if (xl->npools >= IVWL_CONN_MAX_POOLS)
		return -EDQUOT;
	ret = take_mapping(xl);
	if (ret < 0)
		return ret;
	pool = calloc(1, sizeof(*pool));
	if (!pool) {
		drop_mapping(xl);
		return -ENOMEM;
	}
	pool_object_gone(xl, id);	/* a stale id is not a live pool */
	*pool = (struct ivwl_pool){ xl->pools, id, 0, offset, length };
	xl->pools = pool;
	xl->npools++;
	return 0;
}

static int
add_buffer(struct ivwl_translation *xl, uint32_t id, struct ivwl_pool *pool)
{
	struct ivwl_buffer_ref *refs;

	if (xl->nbuffers >= IVWL_CONN_MAX_BUFFERS)
		return -EDQUOT;
	refs = realloc(xl->buffers, (xl->nbuffers + 1) * sizeof(*refs));
	if (!refs)
		return -ENOMEM;
	xl->buffers = refs;
	refs[xl->nbuffers++] = (struct ivwl_buffer_ref){ id, pool };
	pool->buffers++;
	return 0;
}

static void
buffer_gone(struct ivwl_translation *xl, uint32_t id)
{
	uint32_t i;

	for (i = 0; i < xl->nbuffers; i++) {
		struct ivwl_pool *pool = xl->buffers[i].pool;

		if (xl->buffers[i].id != id)
			continue;
		xl->buffers[i] = xl->buffers[--xl->nbuffers];
		pool->buffers--;
		pool_maybe_release(xl, pool);
		return;
	}
}

/*
 * wl_shm.create_pool(id, fd, size): the fd becomes the region itself and
 * size the end of the app's range, so libwayland maps [0, end) and every
 * buffer offset is moved by the range's start (create_buffer below).
 */
static int
rewrite_create_pool(struct ivwl_translation *xl, struct ivwl_wire_msg *msg,
		    uint8_t *bytes, const struct ivwl_fd_desc *desc, int *fd,
		    const char **why)
{
	uint64_t end = desc->offset + desc->length;
	struct ivwl_req_wl_shm_create_pool args;
	int ret;

	ivwl_req_wl_shm_create_pool_decode(msg, &args);
	if (desc->kind != IVWL_FD_REGION) {
		*why = "wl_shm.create_pool without a region range";
		return -EPROTO;
	}
	if (args.size <= 0 || (uint64_t)args.size > desc->length ||
	    end > INT32_MAX) {
		*why = "wl_shm.create_pool size outside its region range";
		return -EPROTO;
	}
	ret = add_pool(xl, args.id, desc->offset, desc->length);
	if (ret < 0) {
		*why = "wl_shm.create_pool: over the budget of 128 pool "
		       "mappings per connection, 512 per VM";
		return ret;
	}
	*fd = dup(xl->host->region_fd(xl->data));
	if (*fd < 0) {
		*why = errno == EMFILE || errno == ENFILE ?
		       "out of file descriptors" :
		       "wl_shm.create_pool: weston does not hold the "
		       "region's fd";
		return -errno;
	}
	args.size = (int32_t)end;
	ivwl_req_wl_shm_create_pool_rewrite(msg, bytes, &args);
	return 0;
}

static int
rewrite_create_buffer(struct ivwl_translation *xl, struct ivwl_wire_msg *msg,
		      uint8_t *bytes, const char **why)
{
	struct ivwl_pool *pool = find_pool(xl, msg->object);
	struct ivwl_req_wl_shm_pool_create_buffer args;
	int32_t offset, width, height, stride;
	uint32_t bpp;

	ivwl_req_wl_shm_pool_create_buffer_decode(msg, &args);
	offset = args.offset;
	width = args.width;
	height = args.height;
	stride = args.stride;
	bpp = ivwl_shm_format_bpp(args.format);

	if (!pool) {
		*why = "wl_shm_pool.create_buffer on an unknown pool";
		return -EPROTO;
	}
	if (bpp == 0) {
		*why = "a wl_shm format ivwl does not pass on";
		return -EPROTO;
	}
	if (width <= 0 || (uint64_t)width * bpp > (uint64_t)(int64_t)stride) {
		*why = "wl_buffer stride shorter than its rows";
		return -EPROTO;
	}
	/* pixman takes rows of whole 32-bit words only, and says so in
	 * weston's log on every commit */
	if (stride % 4 != 0) {
		*why = "wl_buffer stride not a multiple of 4";
		return -EPROTO;
	}
	if (offset < 0 || height <= 0 || stride <= 0 ||
	    (uint64_t)offset + (uint64_t)stride * (uint64_t)height >
	    pool->length) {
		*why = "wl_buffer outside its pool's region range";
		return -EPROTO;
	}
	if (add_buffer(xl, args.id, pool) < 0) {
		*why = "wl_shm_pool.create_buffer: over the budget of 1024 "
		       "wl_shm buffers";
		return -EDQUOT;
	}
	args.offset = (int32_t)(pool->offset + (uint64_t)offset);
	ivwl_req_wl_shm_pool_create_buffer_rewrite(msg, bytes, &args);
	return 0;
}

static int
rewrite_resize(struct ivwl_translation *xl, struct ivwl_wire_msg *msg,
	       uint8_t *bytes, const char **why)
{
	struct ivwl_pool *pool = find_pool(xl, msg->object);
	struct ivwl_req_wl_shm_pool_resize args;

	ivwl_req_wl_shm_pool_resize_decode(msg, &args);
	if (!pool || args.size <= 0 || (uint64_t)args.size > pool->length) {
		*why = "wl_shm_pool.resize beyond its region range";
		return -EPROTO;
	}
	/* The mapping already covers the whole range. */
	args.size = (int32_t)(pool->offset + pool->length);
	ivwl_req_wl_shm_pool_resize_rewrite(msg, bytes, &args);
	return 0;
}

/* xdg_toplevel.set_title(title) -> "[vm] title", cut to IVWL_TITLE_MAX. */
static int
send_prefixed_title(struct ivwl_translation *xl,
		    const struct ivwl_wire_msg *msg)
{
	struct ivwl_req_xdg_toplevel_set_title args;
	uint8_t out[IVWL_WIRE_HEADER_SIZE + 4 + IVWL_TITLE_MAX + 4];
	char title[IVWL_TITLE_MAX];
	int n;

	ivwl_req_xdg_toplevel_set_title_decode(msg, &args);
	n = snprintf(title, sizeof(title), "[%s] %s",
		     xl->host->vm_name(xl->data), args.title ? args.title : "");
	if (n < 0)
		return -EINVAL;
	n = ivwl_wire_write_msg(out, sizeof(out), msg->object,
				IVWL_MSG_REQ_XDG_TOPLEVEL_SET_TITLE, title);
	if (n < 0)
		return n;
	return ivwl_stream_out_append(&xl->to_server, out, (uint32_t)n,
				      NULL, 0);
}

int
ivwl_translate_request_bare(struct ivwl_translation *xl, uint32_t object,
			    uint16_t opcode)
{
	uint8_t out[IVWL_WIRE_HEADER_SIZE];
	int n = ivwl_wire_write(out, sizeof(out), object, opcode, "");

	if (n < 0)
		return n;
	return ivwl_stream_out_append(&xl->to_server, out, (uint32_t)n,
				      NULL, 0);
}

/* The slot of toplevel in xl->fullscreen[], or -1. */
static int
fullscreen_slot(const struct ivwl_translation *xl, uint32_t toplevel)
{
	int i;

	for (i = 0; i < IVWL_CONN_FULLSCREEN; i++)
		if (xl->fullscreen[i] == toplevel)
			return i;
	return -1;
}

/* Whether toplevel's set_fullscreen goes to weston as such (noted). */
static bool
fullscreen_granted(struct ivwl_translation *xl, uint32_t toplevel)
{
	int i = fullscreen_slot(xl, toplevel);

	if (!xl->host->fullscreen || !xl->host->fullscreen(xl->data)) {
		if (i >= 0)
			xl->fullscreen[i] = 0;
		return false;
	}
	if (i < 0)
		i = fullscreen_slot(xl, 0);
	if (i < 0)
		return false;	/* four at once: the rest maximized */
	xl->fullscreen[i] = toplevel;
	return true;
}

/* Forgets toplevel; whether weston had its set_fullscreen as such. */
static bool
fullscreen_forget(struct ivwl_translation *xl, uint32_t toplevel)
{
	int i = fullscreen_slot(xl, toplevel);

	if (i < 0 || toplevel == 0)
		return false;
	xl->fullscreen[i] = 0;
	return true;
}

/*
 * xdg_toplevel.set_fullscreen goes as such when the trusted path says
 * the user asked for it (focus.c: fullscreen=, the user's last input);
 * else as set_maximized: the window stays below the trusted panel, its
 * label inside its edges (label.c).  unset_fullscreen undoes whichever
 * weston got.
 */
static int
send_fullscreen(struct ivwl_translation *xl, const struct ivwl_wire_msg *msg,
		const uint8_t *bytes)
{
	bool set = msg->opcode == IVWL_REQ_XDG_TOPLEVEL_SET_FULLSCREEN;
	bool as_such = set ? fullscreen_granted(xl, msg->object) :
			     fullscreen_forget(xl, msg->object);

	if (as_such)
		return ivwl_stream_out_append(&xl->to_server, bytes,
					      msg->size, NULL, 0);
	return ivwl_translate_request_bare(xl, msg->object,
		set ? IVWL_REQ_XDG_TOPLEVEL_SET_MAXIMIZED :
		      IVWL_REQ_XDG_TOPLEVEL_UNSET_MAXIMIZED);
}

/* xdg_popup.grab(seat, serial): the serial the trusted path lets by. */
static void
guard_popup_grab(struct ivwl_translation *xl, const struct ivwl_wire_msg *msg,
		 uint8_t *bytes)
{
	struct ivwl_req_xdg_popup_grab args;

	if (!xl->host->popup_grab_serial)
		return;
	ivwl_req_xdg_popup_grab_decode(msg, &args);
	args.serial = xl->host->popup_grab_serial(xl->data, args.serial);
	ivwl_req_xdg_popup_grab_rewrite(msg, bytes, &args);
}

/*
 * wl_pointer.set_cursor and wl_data_device.start_drag show a surface
 * weston may hold a buffer of already, without a commit of it: a
 * commit of that surface right after lets the trusted path bound the
 * image (focus.c) before weston draws it.  The surface has no other
 * role (the firewall saw to it), and a commit with nothing pending
 * changes nothing; what is pending shows a little sooner.
 */
static int
commit_image(struct ivwl_translation *xl, uint32_t surface)
{
	return surface ? ivwl_translate_request_bare(xl, surface,
			IVWL_REQ_WL_SURFACE_COMMIT) : 0;
}

/* The surface a request shows as an image (see commit_image), or 0. */
static uint32_t
image_surface(const struct ivwl_wire_msg *msg)
{
	struct ivwl_req_wl_pointer_set_cursor cursor;
	struct ivwl_req_wl_data_device_start_drag drag;

	if (ivwl_req_wl_pointer_set_cursor_decode(msg, &cursor))
		return cursor.surface;
	if (ivwl_req_wl_data_device_start_drag_decode(msg, &drag))
		return drag.icon;
	return 0;
}

/* wl_data_offer.receive and its twin: weston gets a pipe we drain. */
static int
receive_pipe(struct ivwl_translation *xl, const struct ivwl_wire_msg *msg,
	     const struct ivwl_fd_desc *desc, int *fd, const char **why)
{
	struct ivwl_channel *ch;
	int ret;

	ret = ivwl_channel_source_new(&xl->channels, desc, fd, &ch);
	if (ret < 0) {
		*why = ret == -EMFILE ? "too many pipes open" :
					"a bad pipe descriptor";
		return ret;
	}
	/* weston may be the writer, from this very thread */
	ret = alarm_fd(xl);
	if (ret < 0) {
		*why = "cannot watch a pipe";
		return ret;
	}
	ch->fd = ivwl_pipe_decouple(ch->fd, ret,
				    xl->host->pipe_budget(xl->data));
	if (ch->fd < 0) {
		*why = "cannot start a pipe thread";
		return ch->fd;
	}
	ret = watch(xl, ch);
	if (ret < 0) {
		*why = "out of memory";
		return ret;
	}
	if (xl->host->clip_receive &&
	    xl->host->clip_receive(xl->data, msg, ch) &&
	    ivwl_fd_set_nonblock(*fd, true) < 0) {
		*why = "cannot make the pipe weston writes non-blocking";
		return -EIO;
	}
	return 0;
}

static void
close_fds(int *fds, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* One request: checks, rewrites, queues for libwayland. */
static int
forward_request(struct ivwl_translation *xl, struct ivwl_wire_msg *msg,
		uint8_t *bytes, const struct ivwl_fd_desc *descs,
		const char **why)
{
	int fds[IVWL_WAYLAND_MAX_FDS];
	uint32_t i;
	int ret = 0;

	for (i = 0; i < msg->nfds; i++)
		fds[i] = -1;

	if (is(msg, &ivwl_iface_wl_shm, IVWL_REQ_WL_SHM_CREATE_POOL)) {
		ret = rewrite_create_pool(xl, msg, bytes, &descs[0], &fds[0],
					  why);
	} else if (ivwl_channel_message(msg)) {
		ret = receive_pipe(xl, msg, &descs[0], &fds[0], why);
	} else if (msg->nfds > 0) {
		*why = "a request carries an fd of a kind ivwl does not bridge";
		ret = -EPROTO;
	} else if (is(msg, &ivwl_iface_wl_shm_pool,
		      IVWL_REQ_WL_SHM_POOL_CREATE_BUFFER)) {
		ret = rewrite_create_buffer(xl, msg, bytes, why);
	} else if (is(msg, &ivwl_iface_wl_shm_pool,
		      IVWL_REQ_WL_SHM_POOL_RESIZE)) {
		ret = rewrite_resize(xl, msg, bytes, why);
	} else if (is(msg, &ivwl_iface_wl_shm_pool,
		      IVWL_REQ_WL_SHM_POOL_DESTROY)) {
		pool_object_gone(xl, msg->object);
	} else if (is(msg, &ivwl_iface_wl_buffer,
		      IVWL_REQ_WL_BUFFER_DESTROY)) {
		buffer_gone(xl, msg->object);
	} else if (is(msg, &ivwl_iface_xdg_toplevel,
		      IVWL_REQ_XDG_TOPLEVEL_SET_TITLE)) {
		return send_prefixed_title(xl, msg);
	} else if (is(msg, &ivwl_iface_xdg_toplevel,
		      IVWL_REQ_XDG_TOPLEVEL_SET_FULLSCREEN) ||
		   is(msg, &ivwl_iface_xdg_toplevel,
		      IVWL_REQ_XDG_TOPLEVEL_UNSET_FULLSCREEN)) {
		return send_fullscreen(xl, msg, bytes);
	} else if (is(msg, &ivwl_iface_xdg_popup, IVWL_REQ_XDG_POPUP_GRAB)) {
		guard_popup_grab(xl, msg, bytes);
	}
	if (ret < 0) {
		close_fds(fds, msg->nfds);
		return ret;
	}
	ret = ivwl_stream_out_append(&xl->to_server, bytes, msg->size, fds,
				     msg->nfds);
	if (ret == 0)
		ret = commit_image(xl, image_surface(msg));
	if (ret < 0)
		*why = "libwayland is not reading its requests";
	return ret;
}

/*
 * The barrier.  weston 14 sends an xdg_surface's scheduled configure
 * from an idle callback through its role object's resource, and does
 * not cancel it when the client destroys the xdg_toplevel or xdg_popup
 * first: a client that asks for a state (set_maximized, a commit) and
 * destroys the role object in the same read takes weston down (use
 * after free in wl_resource_post_event; the weston-fuzz suite found it).
 * weston 10 cancels it.  On weston 14 ivwl passes an xdg_popup's
 * destroy, and an xdg_surface's (the held xdg_toplevel's goes just
 * before it: firewall-xdg.c), only once weston has run the idle
 * callbacks of what came before: it sends
 * a wl_display.sync of its own and holds the rest of the record until
 * the sync's done comes back (weston answers it in the read that ran
 * the requests before, and runs its idle callbacks before it flushes
 * the answer).  A request whose firewall rule asks weston's state waits
 * the same way (ivwl_firewall_needs_settled).  The sync takes the lowest client id free in weston
 * (libwayland takes no new id past the end of its map); the client's
 * own requests, which may reuse it, wait until weston freed it again.
 */
static bool
needs_barrier(const struct ivwl_translation *xl,
	      const struct ivwl_wire_msg *msg)
{
	if (ivwl_firewall_needs_settled(&xl->firewall, msg))
		return true;
	return xl->firewall.weston_major >= 14 &&
	       (is(msg, &ivwl_iface_xdg_surface,
		   IVWL_REQ_XDG_SURFACE_DESTROY) ||
		is(msg, &ivwl_iface_xdg_popup, IVWL_REQ_XDG_POPUP_DESTROY));
}

/*
 * Window maps are paced per VM (map-pace.h: so many at once, then so
 * many a second, and on weston 16 so many a repaint).  Past that, the
 * record is held at the map's commit, as at a barrier, until the
 * host's ivwl_translation_go.  -EBUSY: held.
 */
static int
hold_for_pace(struct ivwl_translation *xl, uint32_t offset, uint32_t fds)
{
	xl->barrier = IVWL_BARRIER_PACED;
	xl->resume_at = offset;
	xl->resume_fds = fds;
	return -EBUSY;
}

void
ivwl_translation_go(struct ivwl_translation *xl)
{
	if (xl->barrier == IVWL_BARRIER_PACED)
		xl->barrier = IVWL_BARRIER_PASSED;
}

static bool
paced(struct ivwl_translation *xl, const struct ivwl_wire_msg *msg)
{
	return xl->host->may_map &&
	       ivwl_firewall_maps_window(&xl->firewall, msg) &&
	       !xl->host->may_map(xl->data);
}

/* -EBUSY: held at msg, whose bytes start at offset of the record. */
static int
raise_barrier(struct ivwl_translation *xl, uint32_t offset, uint32_t fds,
	      const char **why)
{
	struct ivwl_wire_object o;
	uint8_t sync[IVWL_WIRE_HEADER_SIZE + 4];
	uint32_t id = 2;
	int n;

	/* ids still in the map, zombies included, are weston's or soon */
	while (ivwl_wire_map_lookup(&xl->objects, id, &o) == 0)
		id++;
	xl->barrier_id = id;
	n = ivwl_wire_write_msg(sync, sizeof(sync), IVWL_WIRE_DISPLAY_ID,
				IVWL_MSG_REQ_WL_DISPLAY_SYNC, id);
	if (n < 0 || ivwl_stream_out_append(&xl->to_server, sync,
					    (uint32_t)n, NULL, 0) < 0) {
		*why = "libwayland is not reading its requests";
		return -ENOBUFS;
	}
	xl->barrier = IVWL_BARRIER_WAITING;
	xl->resume_at = offset;
	xl->resume_fds = fds;
	return -EBUSY;
}

/*
 * The barrier's events: its callback's done and the delete_id of its
 * id.  The bytes they take, 0 for an event of the client's, -EAGAIN for
 * one not all there yet.
 */
static int
barrier_event(struct ivwl_translation *xl, const uint8_t *buf, size_t len)
{
	uint32_t h[3];
	uint32_t size;

	if (xl->barrier != IVWL_BARRIER_WAITING)
		return 0;
	if (len < 8)
		return -EAGAIN;
	memcpy(h, buf, 8);
	size = h[1] >> 16;
	if (h[0] == xl->barrier_id)
		return len < size ? -EAGAIN : (int)size;
	if (h[0] != 1 || (h[1] & 0xffff) != IVWL_EVT_WL_DISPLAY_DELETE_ID ||
	    size != 12)
		return 0;
	if (len < 12)
		return -EAGAIN;
	memcpy(h, buf, 12);
	if (h[2] != xl->barrier_id)
		return 0;
	xl->barrier = IVWL_BARRIER_PASSED;
	return 12;
}

int
ivwl_translate_request(struct ivwl_translation *xl, const void *payload,
		       uint32_t len, const char **why)
{
	struct ivwl_wayland_record rec;
	struct ivwl_wire_msg msg;
	uint8_t *p;
	uint32_t left, fd_index = 0;
	bool resumed = false;
	int n, ret;

	if (ivwl_record_parse_wayland(payload, len, xl->host->layout(xl->data),
				      &rec) < 0) {
		*why = "malformed WAYLAND record";
		return -EPROTO;
	}
	/* The record is our private copy: rewriting in place is safe. */
	p = (uint8_t *)rec.data;
	left = rec.data_len;
	if (xl->barrier == IVWL_BARRIER_PASSED) {
		/* the rest of a record held at a barrier: its first request
		 * passed the barrier (a pace, though, is asked again) */
		p += xl->resume_at;
		left -= xl->resume_at;
		fd_index = xl->resume_fds;
		xl->barrier = IVWL_BARRIER_NONE;
		resumed = true;
	} else {
		xl->live.now.request_bytes += left;
	}
	while (left > 0) {
		n = ivwl_wire_parse(&xl->objects, IVWL_WIRE_REQUEST, p, left,
				    &msg);
		if (n <= 0) {
			*why = "malformed or cut Wayland request";
			return -EPROTO;
		}
		if (msg.nfds > rec.nfds - fd_index) {
			*why = "a request names more fds than the record has";
			return -EPROTO;
		}
		if (!resumed && needs_barrier(xl, &msg))
			return raise_barrier(xl,
					     (uint32_t)(p - (uint8_t *)rec.data),
					     fd_index, why);
		if (paced(xl, &msg))
			return hold_for_pace(xl,
					     (uint32_t)(p - (uint8_t *)rec.data),
					     fd_index);
		resumed = false;
		ret = ivwl_firewall_request(&xl->firewall, &msg, p, why);
		if (ret == 0 && xl->host->clip_request)
			ret = xl->host->clip_request(xl->data, &msg, why);
		if (ret < 0)
			return ret;
		if (xl->firewall.inject_len > 0 &&
		    ivwl_stream_out_append(&xl->to_server,
					   xl->firewall.inject,
					   xl->firewall.inject_len,
					   NULL, 0) < 0) {
			*why = "libwayland is not reading its requests";
			return -ENOBUFS;
		}
		ret = ivwl_wire_track(&xl->objects, IVWL_WIRE_REQUEST, &msg);
		if (ret < 0) {
			*why = "request breaks object lifetime rules";
			return ret;
		}
		/* its id is free for the client's next object (even while
		 * the firewall holds the destroy back) */
		if (is(&msg, &ivwl_iface_xdg_toplevel,
		       IVWL_REQ_XDG_TOPLEVEL_DESTROY))
			fullscreen_forget(xl, msg.object);
		/* absorbed: a request of no fds (firewall-rules.c) */
		ret = xl->firewall.absorb ? 0 :
		      forward_request(xl, &msg, p, &rec.fds[fd_index], why);
		if (ret < 0)
			return ret;
		if (is(&msg, &ivwl_iface_wl_surface,
		       IVWL_REQ_WL_SURFACE_COMMIT)) {
			if (xl->host->committed)
				xl->host->committed(xl->data);
			xl->live.now.commits++;
		}
		fd_index += msg.nfds;
		p += n;
		left -= (uint32_t)n;
	}
	if (fd_index != rec.nfds) {
		*why = "a record carries fds no request uses";
		return -EPROTO;
	}
	return 0;
}

/* ---- events ---------------------------------------------------------- */

/* s in lo..hi, serials wrapping as weston's do */
static bool
serial_in(uint32_t s, const struct ivwl_serial_range *r)
{
	return s - r->lo <= r->hi - r->lo;
}

void
ivwl_translate_mute_keyboard(struct ivwl_translation *xl, uint32_t enter,
			     uint32_t leave)
{
	struct ivwl_serial_range *last;

	/* Full: the newest two become one range, which mutes more, never
	 * less. */
	if (xl->nmuted == IVWL_CONN_MUTED_RANGES) {
		last = &xl->muted[xl->nmuted - 1];
		if (leave - last->lo > last->hi - last->lo)
			last->hi = leave;
		return;
	}
	xl->muted[xl->nmuted].lo = enter;
	xl->muted[xl->nmuted].hi = leave;
	xl->nmuted++;
}

static void
unmute(struct ivwl_translation *xl, uint32_t i)
{
	xl->muted[i] = xl->muted[--xl->nmuted];
}

/* The serial of wl_keyboard.enter, leave or modifiers; else 0. */
static uint32_t
keyboard_focus_serial(const struct ivwl_wire_msg *msg)
{
	struct ivwl_evt_wl_keyboard_enter enter;
	struct ivwl_evt_wl_keyboard_leave leave;
	struct ivwl_evt_wl_keyboard_modifiers modifiers;

	if (ivwl_evt_wl_keyboard_enter_decode(msg, &enter))
		return enter.serial;
	if (ivwl_evt_wl_keyboard_leave_decode(msg, &leave))
		return leave.serial;
	ivwl_evt_wl_keyboard_modifiers_decode(msg, &modifiers);
	return modifiers.serial;
}

/*
 * Whether a keyboard focus event is one weston took back (muted): the
 * enter and its modifiers carry the enter's serial, the leave that took
 * it back the range's last.  A range a later serial went past is done.
 */
static bool
muted_keyboard_event(struct ivwl_translation *xl,
		     const struct ivwl_wire_msg *msg)
{
	uint32_t s, i;
	bool muted = false;

	if (msg->iface != &ivwl_iface_wl_keyboard || xl->nmuted == 0 ||
	    (msg->opcode != IVWL_EVT_WL_KEYBOARD_ENTER &&
	     msg->opcode != IVWL_EVT_WL_KEYBOARD_LEAVE &&
	     msg->opcode != IVWL_EVT_WL_KEYBOARD_MODIFIERS))
		return false;
	s = keyboard_focus_serial(msg);
	for (i = xl->nmuted; i-- > 0;) {
		if (serial_in(s, &xl->muted[i]))
			muted = true;
		else if (s - xl->muted[i].hi < 0x80000000u)
			unmute(xl, i);
	}
	return muted;
}

/* A button, key or touch passed on: its serial may back a popup grab,
 * its time a set_fullscreen. */
static void
note_input_serial(struct ivwl_translation *xl, const struct ivwl_wire_msg *msg)
{
	struct ivwl_evt_wl_pointer_button button;
	struct ivwl_evt_wl_keyboard_key key;
	struct ivwl_evt_wl_touch_down down;
	uint32_t serial;

	if (ivwl_evt_wl_pointer_button_decode(msg, &button))
		serial = button.serial;
	else if (ivwl_evt_wl_keyboard_key_decode(msg, &key))
		serial = key.serial;
	else if (ivwl_evt_wl_touch_down_decode(msg, &down))
		serial = down.serial;
	else
		return;
	xl->input_serials[xl->ninput_serials++ % IVWL_CONN_INPUT_SERIALS] =
		serial;
	xl->input_ms = ivwl_now_ms();
}

uint64_t
ivwl_translate_input_age_ms(const struct ivwl_translation *xl)
{
	if (xl->ninput_serials == 0)
		return UINT64_MAX;
	return ivwl_now_ms() - xl->input_ms;
}

bool
ivwl_translate_input_serial(const struct ivwl_translation *xl,
			    uint32_t serial)
{
	uint32_t i, n = xl->ninput_serials < IVWL_CONN_INPUT_SERIALS ?
				xl->ninput_serials :
				IVWL_CONN_INPUT_SERIALS;

	for (i = 0; i < n; i++)
		if (xl->input_serials[i] == serial)
			return true;
	return false;
}

static int
queue_blob(struct ivwl_translation *xl, int fd, uint32_t size,
	   struct ivwl_fd_desc *desc)
{
	struct ivwl_blob *blob, **tail;
	void *map;

	if (size == 0 || size > IVWL_BLOB_MAX)
		return -EINVAL;
	blob = calloc(1, sizeof(*blob));
	if (!blob)
		return -ENOMEM;
	blob->data = malloc(size);
	map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (!blob->data || map == MAP_FAILED) {
		if (map != MAP_FAILED)
			munmap(map, size);
		free(blob->data);
		free(blob);
		return -ENOMEM;
	}
	memcpy(blob->data, map, size);
	munmap(map, size);
	blob->len = size;
	blob->channel = ivwl_channels_new_id(&xl->channels);
	for (tail = &xl->blobs; *tail; tail = &(*tail)->next)
		;
	*tail = blob;

	memset(desc, 0, sizeof(*desc));
	desc->kind = IVWL_FD_BLOB;
	desc->channel = blob->channel;
	desc->length = size;
	return 0;
}

static int
translate_event_fds(struct ivwl_translation *xl,
		    const struct ivwl_wire_msg *msg, struct ivwl_fd_desc *descs,
		    const char **why)
{
	struct ivwl_evt_wl_keyboard_keymap keymap;
	int fds[IVWL_WAYLAND_MAX_FDS];
	int ret;

	if (msg->nfds == 0)
		return 0;
	if (ivwl_stream_in_take_fds(&xl->from_server, msg->nfds, fds) < 0) {
		*why = "an event arrived without its fds";
		return -EPROTO;
	}
	if (ivwl_evt_wl_keyboard_keymap_decode(msg, &keymap)) {
		ret = queue_blob(xl, fds[0], keymap.size, &descs[0]);
		if (ret < 0)
			*why = "cannot read the keymap";
	} else if (ivwl_channel_message(msg)) {
		struct ivwl_channel *ch;

		/* The app writes, we pass it on into weston's pipe. */
		ret = ivwl_channel_sink_new(&xl->channels, fds[0], &descs[0],
					    &ch);
		if (ret == 0)
			ret = watch(xl, ch);
		if (ret < 0) {
			*why = "too many pipes open";
			return ret;
		}
		if (xl->host->clip_send)
			xl->host->clip_send(xl->data, msg, ch);
		return 0;
	} else {
		*why = "an event carries an fd ivwl does not bridge yet";
		ret = -EPROTO;
	}
	close_fds(fds, msg->nfds);
	return ret;
}

/* Writes pending blob data; the batch may follow only when this is 0. */
static int
flush_blobs(struct ivwl_translation *xl)
{
	uint32_t max = ivwl_ring_max_payload(xl->event) -
		       (uint32_t)sizeof(struct ivwl_channel_data);
	struct ivwl_blob *blob;
	void *payload;
	int ret;

	while ((blob = xl->blobs)) {
		while (blob->sent < blob->len) {
			uint32_t chunk = blob->len - blob->sent;

			if (chunk > max)
				chunk = max;
			ret = ivwl_ring_reserve(xl->event,
				ivwl_record_channel_data_size(chunk), &payload);
			if (ret < 0)
				return ret;
			ivwl_record_channel_data_build(payload, blob->channel,
				blob->data + blob->sent, chunk);
			ivwl_ring_commit(xl->event,
					 IVWL_RECORD_CHANNEL_DATA);
			blob->sent += chunk;
		}
		xl->blobs = blob->next;
		free(blob->data);
		free(blob);
	}
	return 0;
}

int
ivwl_translate_flush(struct ivwl_translation *xl)
{
	int ret = flush_blobs(xl);

	if (ret < 0)
		return ret;
	return ivwl_batch_flush(&xl->batch, xl->event);
}

/*
 * wl_registry.global: a client may bind up to the advertised version, and
 * the wire walker only follows versions its tables know.  Advertise no
 * more than that, so a newer weston never strands a client.
 */
static void
clamp_global_version(struct ivwl_wire_msg *msg, uint8_t *bytes)
{
	const struct ivwl_interface *iface;
	struct ivwl_evt_wl_registry_global args;

	ivwl_evt_wl_registry_global_decode(msg, &args);
	iface = args.interface ? ivwl_wire_interface_find(args.interface) :
				 NULL;
	if (!iface || args.version <= iface->version)
		return;
	args.version = iface->version;
	ivwl_evt_wl_registry_global_rewrite(msg, bytes, &args);
}

/* weston ends the client after this: say why, with the VM and slot. */
static void
log_display_error(struct ivwl_translation *xl, const struct ivwl_wire_msg *msg)
{
	struct ivwl_evt_wl_display_error args;
	struct ivwl_wire_object o;

	ivwl_evt_wl_display_error_decode(msg, &args);
	if (ivwl_wire_map_lookup(&xl->objects, args.object_id, &o) < 0)
		o.iface = NULL;
	xl_log(xl, "weston sent a protocol error: %s@%u code %u: %s",
	       o.iface ? o.iface->name : "?", args.object_id, args.code,
	       args.message ? args.message : "");
}

/* wl_shm.format of a format create_buffer would refuse. */
static bool
unbridged_format(const struct ivwl_wire_msg *msg)
{
	struct ivwl_evt_wl_shm_format args;

	return ivwl_evt_wl_shm_format_decode(msg, &args) &&
	       ivwl_shm_format_bpp(args.format) == 0;
}

int
ivwl_translate_events(struct ivwl_translation *xl, const char **why)
{
	struct ivwl_stream_in *in = &xl->from_server;
	struct ivwl_fd_desc descs[IVWL_WAYLAND_MAX_FDS];
	struct ivwl_wire_msg msg;
	uint32_t callbacks;
	int n, ret;

	while (in->len > 0) {
		n = barrier_event(xl, in->buf, in->len);
		if (n == -EAGAIN)
			break;
		if (n > 0) {
			ivwl_stream_in_consume(in, (size_t)n);
			continue;
		}
		n = ivwl_wire_parse(&xl->objects, IVWL_WIRE_EVENT, in->buf,
				    in->len, &msg);
		if (n == 0)
			break;
		if (n < 0) {
			*why = "libwayland sent an event ivwl cannot decode";
			return -EPROTO;
		}
		if (!ivwl_batch_fits(&xl->batch, (uint32_t)n, msg.nfds)) {
			ret = ivwl_translate_flush(xl);
			if (ret < 0)
				return ret;
		}
		ret = ivwl_wire_track(&xl->objects, IVWL_WIRE_EVENT, &msg);
		if (ret < 0) {
			*why = "an event breaks object lifetime rules";
			return ret;
		}
		callbacks = xl->firewall.callbacks;
		ivwl_firewall_event(&xl->firewall, &msg);
		/* Only frame callbacks are counted there: a frame shown. */
		if (msg.iface == &ivwl_iface_wl_callback &&
		    xl->firewall.callbacks < callbacks)
			xl->live.now.frames++;
		xl->live.now.event_bytes += (uint32_t)n;
		if (is(&msg, &ivwl_iface_wl_display, IVWL_EVT_WL_DISPLAY_ERROR))
			log_display_error(xl, &msg);
		ret = translate_event_fds(xl, &msg, descs, why);
		if (ret < 0)
			return ret;
		if (is(&msg, &ivwl_iface_wl_registry,
		       IVWL_EVT_WL_REGISTRY_GLOBAL))
			clamp_global_version(&msg, in->buf);
		/* Formats create_buffer would refuse are not offered, nor
		 * data the VM's clipboard policy keeps from it. */
		if (unbridged_format(&msg) ||
		    muted_keyboard_event(xl, &msg) ||
		    (xl->host->clip_event &&
		     xl->host->clip_event(xl->data, &msg, in->buf))) {
			ivwl_stream_in_consume(in, (size_t)n);
			continue;
		}
		note_input_serial(xl, &msg);
		ivwl_batch_add(&xl->batch, in->buf, (uint32_t)n, descs,
			       msg.nfds);
		ivwl_stream_in_consume(in, (size_t)n);
		if (presented_event(&msg))
			xl->events_presented = true;
		else if (!lazy_event(&msg))
			xl->events_urgent = true;
	}
	return 0;
}
