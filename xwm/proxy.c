/* SPDX-License-Identifier: MIT */
/*
 * ivwl-xwm's Wayland proxy (proxy.h).  Two wire maps follow the one
 * connection as each end sees it: down_map Xwayland's ids, up_map the
 * compositor's, which also holds the proxy's own objects.  Client ids
 * are renumbered both ways (libwayland-server wants new ids dense, so
 * the proxy allocates them as libwayland-client would); ids the
 * compositor makes (0xff000000 and up) are the same on both sides.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ivwl-protocols.h"
#include "log.h"
#include "proxy-internal.h"

/* ---- ids ------------------------------------------------------------ */

static uint32_t
id_take(struct ids *ids)
{
	if (ids->nfree)
		return ids->free[--ids->nfree];
	if (ids->next >= IVWL_WIRE_MAX_OBJECTS)
		return 0;
	return ids->next++;
}

static void
id_give(struct ids *ids, uint32_t id)
{
	uint32_t *grown;

	if (ids->nfree == ids->cap) {
		ids->cap = ids->cap ? ids->cap * 2 : 64;
		grown = realloc(ids->free, ids->cap * sizeof(*grown));
		if (!grown)
			return;		/* the id is lost, not reused */
		ids->free = grown;
	}
	ids->free[ids->nfree++] = id;
}

bool
ivwl_xwm_client_id(uint32_t id)
{
	return id != 0 && id < IVWL_WIRE_SERVER_ID_START;
}

/* ---- the compositor's side ------------------------------------------ */

/* Tracks a message in up_map and queues it for the compositor. */
static int
send_up(struct ivwl_xwm_proxy *p, const void *bytes, uint32_t len,
	int *fds, uint32_t nfds)
{
	struct ivwl_wire_msg msg;
	int ret;

	ret = ivwl_wire_parse(&p->up_map, IVWL_WIRE_REQUEST, bytes, len, &msg);
	if (ret <= 0 || (uint32_t)ret != len ||
	    ivwl_wire_track(&p->up_map, IVWL_WIRE_REQUEST, &msg) < 0) {
		for (uint32_t i = 0; i < nfds; i++)
			close(fds[i]);
		ivwl_log_error("a request the compositor would not take");
		return -EPROTO;
	}
	return ivwl_stream_out_append(&p->up_out, bytes, len, fds, nfds);
}

/* object.m(ap...) sent up with the fds (taken). */
static int
vsend_up(struct ivwl_xwm_proxy *p, int *fds, uint32_t nfds, uint32_t object,
	 const struct ivwl_message *m, va_list ap)
{
	uint8_t buf[IVWL_WIRE_MAX_MESSAGE];
	int len = ivwl_wire_vwrite_msg(buf, sizeof(buf), object, m, ap);

	if (len < 0) {
		for (uint32_t i = 0; i < nfds; i++)
			close(fds[i]);
		return len;
	}
	return send_up(p, buf, (uint32_t)len, fds, nfds);
}

int
ivwl_xwm_send_up(struct ivwl_xwm_proxy *p, uint32_t object,
		 const struct ivwl_message *m, ...)
{
	va_list ap;
	int ret;

	va_start(ap, m);
	ret = vsend_up(p, NULL, 0, object, m, ap);
	va_end(ap);
	return ret;
}

int
ivwl_xwm_send_up_fd(struct ivwl_xwm_proxy *p, int fd, uint32_t object,
		    const struct ivwl_message *m, ...)
{
	va_list ap;
	int ret;

	va_start(ap, m);
	ret = vsend_up(p, &fd, 1, object, m, ap);
	va_end(ap);
	return ret;
}

int
ivwl_xwm_request0(struct ivwl_xwm_proxy *p, uint32_t object, uint16_t opcode)
{
	uint8_t buf[IVWL_WIRE_HEADER_SIZE];
	int len = ivwl_wire_write(buf, sizeof(buf), object, opcode, "");

	return len < 0 ? len : send_up(p, buf, (uint32_t)len, NULL, 0);
}

/* A new object of the proxy's: its up id, 0 when ids ran out. */
uint32_t
ivwl_xwm_own_id(struct ivwl_xwm_proxy *p)
{
	uint32_t id = id_take(&p->up_ids);

	if (id)
		p->up_to_down[id] = 0;
	return id;
}

/* A global of the compositor's bound on Xwayland's registry. */
uint32_t
ivwl_xwm_bind(struct ivwl_xwm_proxy *p, uint32_t name, const char *iface,
	      uint32_t version)
{
	uint32_t id = ivwl_xwm_own_id(p);

	return id && ivwl_xwm_send_up(p, p->registry,
				      IVWL_MSG_REQ_WL_REGISTRY_BIND, name,
				      iface, version, id) == 0 ? id : 0;
}

uint32_t
ivwl_xwm_up_of(const struct ivwl_xwm_proxy *p, uint32_t down)
{
	if (!ivwl_xwm_client_id(down))
		return down;
	return down < IVWL_WIRE_MAX_OBJECTS ? p->down_to_up[down] : 0;
}

/* ---- Xwayland's requests -------------------------------------------- */

static struct xsurface *
held_surface(struct ivwl_xwm_proxy *p, uint32_t down)
{
	struct xsurface *s;

	if (!ivwl_xwm_client_id(down) || down >= IVWL_WIRE_MAX_OBJECTS)
		return NULL;
	s = p->surfaces[down];
	return s && s->state != SURFACE_SHOWN ? s : NULL;
}

static uint32_t
pack_size(int32_t width, int32_t height)
{
	if (width <= 0 || height <= 0 || width > 0xffff || height > 0xffff)
		return 0;
	return (uint32_t)width << 16 | (uint32_t)height;
}

static int
ack_configure(struct ivwl_xwm_proxy *p, struct xsurface *s, uint32_t serial)
{
	s->ack_serial = 0;
	return ivwl_xwm_send_up(p, s->xdg,
				IVWL_MSG_REQ_XDG_SURFACE_ACK_CONFIGURE, serial);
}

/*
 * Before a window's commit: the configure that waited for a buffer of
 * its size is acked, and the window geometry follows the buffer (not
 * the menus over it, which would make it bigger than configured).
 */
static int
before_commit(struct ivwl_xwm_proxy *p, struct xsurface *s)
{
	if (!s->xdg || !s->size)
		return 0;
	if (s->ack_serial && s->size == s->want_size &&
	    ack_configure(p, s, s->ack_serial) < 0)
		return -EPROTO;
	if (s->size == s->geometry)
		return 0;
	s->geometry = s->size;
	return ivwl_xwm_send_up(p, s->xdg,
				IVWL_MSG_REQ_XDG_SURFACE_SET_WINDOW_GEOMETRY,
				0, 0, s->size >> 16, s->size & 0xffff);
}

/* The sizes of Xwayland's buffers, for the configures that wait. */
static void
buffer_made(struct ivwl_xwm_proxy *p, const struct ivwl_wire_msg *msg)
{
	struct ivwl_req_wl_shm_pool_create_buffer shm;
	struct ivwl_req_zwp_linux_buffer_params_v1_create_immed dmabuf;
	uint32_t id, size;

	if (ivwl_req_wl_shm_pool_create_buffer_decode(msg, &shm)) {
		id = shm.id;
		size = pack_size(shm.width, shm.height);
	} else if (ivwl_req_zwp_linux_buffer_params_v1_create_immed_decode(
			msg, &dmabuf)) {
		id = dmabuf.buffer_id;
		size = pack_size(dmabuf.width, dmabuf.height);
	} else {
		return;
	}
	if (ivwl_xwm_client_id(id) && id < IVWL_WIRE_MAX_OBJECTS)
		p->buffer_size[id] = size;
}

/* A request on one of Xwayland's surfaces the proxy follows (1: it
 * is kept back). */
static int
surface_request(struct ivwl_xwm_proxy *p, struct xsurface *s,
		const struct ivwl_wire_msg *msg)
{
	struct ivwl_req_wl_surface_attach attach;
	uint32_t b;

	switch (msg->opcode) {
	case IVWL_REQ_WL_SURFACE_DESTROY:
		ivwl_xwm_surface_gone(p, s);
		return 0;
	case IVWL_REQ_WL_SURFACE_ATTACH:
		ivwl_req_wl_surface_attach_decode(msg, &attach);
		b = attach.buffer;
		s->size = ivwl_xwm_client_id(b) && b < IVWL_WIRE_MAX_OBJECTS ?
			  p->buffer_size[b] : 0;
		if (s->state == SURFACE_SHOWN)
			return 0;
		s->attached = true;
		s->buffer = b;
		s->buffer_x = attach.x;
		s->buffer_y = attach.y;
		return 0;
	case IVWL_REQ_WL_SURFACE_COMMIT:
		if (s->state == SURFACE_SHOWN)
			return before_commit(p, s);
		/* a first configure of a size X had to make: shown with it */
		if (s->state == SURFACE_WANTED && s->ack_serial &&
		    s->size == s->want_size) {
			s->state = SURFACE_SHOWN;
			s->attached = s->committed = false;
			return before_commit(p, s);
		}
		s->committed = true;
		return 1;
	default:
		return 0;
	}
}

/*
 * What the proxy does before a request of Xwayland's passes on (sent in
 * its place when it returns 1: the request is kept back).
 */
static int
before_request(struct ivwl_xwm_proxy *p, const struct ivwl_wire_msg *msg)
{
	struct xsurface *s;

	buffer_made(p, msg);
	switch (msg->iface->index) {
	case IVWL_IFACE_WL_SURFACE:
		s = p->surfaces[msg->object];
		return s ? surface_request(p, s, msg) : 0;
	case IVWL_IFACE_WL_BUFFER:
		if (msg->opcode != IVWL_REQ_WL_BUFFER_DESTROY)
			return 0;
		for (s = p->all; s; s = s->next)
			if (s->state != SURFACE_SHOWN && s->attached &&
			    s->buffer == msg->object)
				s->attached = false;
		return 0;
	default:
		return 0;
	}
}

/* After it went: roles Xwayland gave itself (a cursor). */
static int
after_request(struct ivwl_xwm_proxy *p, const struct ivwl_wire_msg *msg)
{
	struct ivwl_req_wl_compositor_create_surface create;
	struct ivwl_req_wl_pointer_set_cursor cursor;
	struct ivwl_req_wl_subcompositor_get_subsurface sub;
	struct xsurface *s = NULL;

	if (ivwl_req_wl_compositor_create_surface_decode(msg, &create)) {
		ivwl_xwm_surface_made(p, create.id);
		return 0;
	}
	if (ivwl_req_wl_pointer_set_cursor_decode(msg, &cursor))
		s = held_surface(p, cursor.surface);
	else if (ivwl_req_wl_subcompositor_get_subsurface_decode(msg, &sub))
		s = held_surface(p, sub.surface);
	return s ? ivwl_xwm_release_held(p, s) : 0;
}

/* Xwayland's ids in place, the compositor's written into out. */
static int
renumber_request(struct ivwl_xwm_proxy *p, const struct ivwl_wire_msg *msg,
		 uint8_t *out)
{
	uint32_t k, v, up;

	up = ivwl_xwm_up_of(p, msg->object);
	if (!up)
		return -EPROTO;
	memcpy(out, &up, 4);
	for (k = 0; k < msg->nargs; k++) {
		const struct ivwl_wire_arg *arg = &msg->args[k];

		v = arg->value;
		if (arg->type == 'n') {
			if (!ivwl_xwm_client_id(v) || v >= IVWL_WIRE_MAX_OBJECTS)
				return -EPROTO;
			up = id_take(&p->up_ids);
			if (!up)
				return -EMFILE;
			p->down_to_up[v] = up;
			p->up_to_down[up] = v;
		} else if (arg->type == 'o' && v) {
			up = ivwl_xwm_up_of(p, v);
			if (!up)
				return -EPROTO;
		} else {
			continue;
		}
		memcpy(out + arg->offset, &up, 4);
	}
	return 0;
}

static int
forward_request(struct ivwl_xwm_proxy *p, const uint8_t *bytes,
		const struct ivwl_wire_msg *msg)
{
	uint8_t out[IVWL_WIRE_MAX_MESSAGE];
	int fds[IVWL_WIRE_MAX_ARGS];
	int ret, kept;

	if (msg->nfds && ivwl_stream_in_take_fds(&p->down_in, msg->nfds,
						 fds) < 0)
		return -EPROTO;
	kept = before_request(p, msg);
	if (kept) {
		for (uint32_t i = 0; i < msg->nfds; i++)
			close(fds[i]);
		return kept < 0 ? kept : 0;
	}
	memcpy(out, bytes, msg->size);
	ret = renumber_request(p, msg, out);
	if (ret < 0) {
		for (uint32_t i = 0; i < msg->nfds; i++)
			close(fds[i]);
		ivwl_log_error("%s@%u.%s: an object the proxy does not know",
			       msg->iface->name, msg->object,
			       msg->message->name);
		return ret;
	}
	ret = send_up(p, out, msg->size, fds, msg->nfds);
	return ret < 0 ? ret : after_request(p, msg);
}

/* ---- the compositor's events ---------------------------------------- */

static bool
own_object(const struct ivwl_xwm_proxy *p, uint32_t up)
{
	return ivwl_xwm_client_id(up) && up != IVWL_WIRE_DISPLAY_ID &&
	       up < IVWL_WIRE_MAX_OBJECTS && !p->up_to_down[up];
}

static struct xsurface *
surface_of_role(struct ivwl_xwm_proxy *p, uint32_t up)
{
	struct xsurface *s;

	for (s = p->all; s; s = s->next)
		if (s->xdg == up || s->toplevel == up || s->decoration == up)
			return s;
	return NULL;
}

static bool
has_state(const struct ivwl_wire_array *states, uint32_t state)
{
	uint32_t i, v;

	for (i = 0; states->data && i < states->len / 4; i++) {
		memcpy(&v, (const uint8_t *)states->data + 4 * i, 4);
		if (v == state)
			return true;
	}
	return false;
}

/* xdg_toplevel.configure: the states' values are xdg-shell's. */
static void
toplevel_configure(struct ivwl_xwm_proxy *p, struct xsurface *s,
		   const struct ivwl_wire_msg *msg)
{
	struct ivwl_evt_xdg_toplevel_configure args;
	bool maximized, fullscreen, activated;

	ivwl_evt_xdg_toplevel_configure_decode(msg, &args);
	maximized = has_state(&args.states, 1);
	fullscreen = has_state(&args.states, 2);
	activated = has_state(&args.states, 4);
	s->want_size = pack_size(args.width, args.height);
	s->want_exact = maximized || fullscreen;

	p->hooks->configure(p->data, s->down, args.width, args.height,
			    activated, fullscreen, maximized);
}

/* An event for one of the proxy's own objects; fds taken. */
static int
own_event(struct ivwl_xwm_proxy *p, const struct ivwl_wire_msg *msg,
	  int *fds, uint32_t nfds)
{
	struct xsurface *s = surface_of_role(p, msg->object);
	struct ivwl_evt_xdg_wm_base_ping ping;
	struct ivwl_evt_xdg_surface_configure configure;
	struct ivwl_evt_zxdg_toplevel_decoration_v1_configure decoration;

	switch (msg->iface->index) {
	case IVWL_IFACE_WL_DATA_DEVICE:
	case IVWL_IFACE_WL_DATA_OFFER:
	case IVWL_IFACE_WL_DATA_SOURCE:
		return ivwl_xwm_selection_event(p, msg, fds, nfds);
	default:
		break;
	}
	for (uint32_t i = 0; i < nfds; i++)
		close(fds[i]);
	switch (msg->iface->index) {
	case IVWL_IFACE_XDG_WM_BASE:
		ivwl_evt_xdg_wm_base_ping_decode(msg, &ping);
		return ivwl_xwm_send_up(p, msg->object,
					IVWL_MSG_REQ_XDG_WM_BASE_PONG,
					ping.serial);
	case IVWL_IFACE_XDG_SURFACE:
		if (!s)
			return 0;
		ivwl_evt_xdg_surface_configure_decode(msg, &configure);
		/* a size X has yet to give the window: acked with it */
		if (s->state != SURFACE_HELD && s->want_exact &&
		    s->want_size && s->size != s->want_size) {
			s->ack_serial = configure.serial;
			return 0;
		}
		if (ack_configure(p, s, configure.serial) < 0)
			return -EPROTO;
		if (s->state != SURFACE_WANTED)
			return 0;
		return ivwl_xwm_release_held(p, s);
	case IVWL_IFACE_XDG_TOPLEVEL:
		if (!s)
			return 0;
		if (msg->opcode == IVWL_EVT_XDG_TOPLEVEL_CONFIGURE)
			toplevel_configure(p, s, msg);
		else if (msg->opcode == IVWL_EVT_XDG_TOPLEVEL_CLOSE)
			p->hooks->close(p->data, s->down);
		return 0;
	case IVWL_IFACE_ZXDG_TOPLEVEL_DECORATION_V1:
		/* configure(mode): 2 is server_side */
		ivwl_evt_zxdg_toplevel_decoration_v1_configure_decode(
			msg, &decoration);
		if (s && p->hooks->decorated)
			p->hooks->decorated(p->data, s->down,
					    decoration.mode == 2);
		return 0;
	default:
		return 0;
	}
}

/* delete_id: the proxy's ids go back to its pool (0), Xwayland's to
 * Xwayland (*down). */
static int
deleted(struct ivwl_xwm_proxy *p, uint32_t up, uint32_t *down)
{
	if (!ivwl_xwm_client_id(up) || up >= IVWL_WIRE_MAX_OBJECTS)
		return -EPROTO;
	*down = p->up_to_down[up];
	p->up_to_down[up] = 0;
	id_give(&p->up_ids, up);
	if (*down)
		p->down_to_up[*down] = 0;
	return 0;
}

/* The globals the proxy binds for itself; xdg_wm_base and the
 * decoration manager stay its own. */
static bool
global_seen(struct ivwl_xwm_proxy *p, const struct ivwl_wire_msg *msg)
{
	struct ivwl_evt_wl_registry_global args;
	const char *iface;

	ivwl_evt_wl_registry_global_decode(msg, &args);
	iface = args.interface;
	if (!iface)
		return false;
	if (!p->registry)
		p->registry = msg->object;
	if (msg->object != p->registry)
		return strcmp(iface, "xdg_wm_base") == 0 ||
		       strcmp(iface, "zxdg_decoration_manager_v1") == 0;
	if (strcmp(iface, "xdg_wm_base") == 0) {
		p->wm_base_name = args.name;
		return true;
	}
	if (strcmp(iface, "wl_subcompositor") == 0)
		p->subcompositor_name = args.name;
	/* the proxy's: Xwayland decorates nothing, the window manager does */
	if (strcmp(iface, "zxdg_decoration_manager_v1") == 0) {
		p->decoration_name = args.name;
		return true;
	}
	ivwl_xwm_selection_global(p, args.name, iface, args.version);
	return false;
}

static int
renumber_event(struct ivwl_xwm_proxy *p, const struct ivwl_wire_msg *msg,
	       uint8_t *out)
{
	uint32_t k, v, down;

	for (k = 0; k < msg->nargs; k++) {
		const struct ivwl_wire_arg *arg = &msg->args[k];

		v = arg->value;
		if (arg->type != 'o' || !ivwl_xwm_client_id(v))
			continue;
		if (v >= IVWL_WIRE_MAX_OBJECTS || !(down = p->up_to_down[v]))
			return -ENOENT;
		memcpy(out + arg->offset, &down, 4);
	}
	down = ivwl_xwm_client_id(msg->object) ? p->up_to_down[msg->object] :
					 msg->object;
	if (msg->object == IVWL_WIRE_DISPLAY_ID)
		down = IVWL_WIRE_DISPLAY_ID;
	memcpy(out, &down, 4);
	return 0;
}

static int
send_down(struct ivwl_xwm_proxy *p, const uint8_t *bytes, uint32_t size,
	  int *fds, uint32_t nfds)
{
	struct ivwl_wire_msg msg;
	int ret;

	ret = ivwl_wire_parse(&p->down_map, IVWL_WIRE_EVENT, bytes, size,
			      &msg);
	if (ret <= 0 || ivwl_wire_track(&p->down_map, IVWL_WIRE_EVENT,
					&msg) < 0) {
		for (uint32_t i = 0; i < nfds; i++)
			close(fds[i]);
		ivwl_log_error("an event Xwayland could not take");
		return -EPROTO;
	}
	return ivwl_stream_out_append(&p->down_out, bytes, size, fds, nfds);
}

static int
forward_event(struct ivwl_xwm_proxy *p, const uint8_t *bytes,
	      const struct ivwl_wire_msg *msg)
{
	uint8_t out[IVWL_WIRE_MAX_MESSAGE];
	int fds[IVWL_WIRE_MAX_ARGS];
	uint32_t nfds = msg->nfds;
	struct ivwl_evt_wl_display_delete_id gone;
	struct ivwl_wire_object known;

	if (nfds && ivwl_stream_in_take_fds(&p->up_in, nfds, fds) < 0)
		return -EPROTO;
	memcpy(out, bytes, msg->size);
	if (ivwl_evt_wl_display_delete_id_decode(msg, &gone)) {
		uint32_t down;

		if (deleted(p, gone.id, &down) < 0)
			return -EPROTO;
		if (!down)
			return 0;
		gone.id = down;
		ivwl_evt_wl_display_delete_id_rewrite(msg, out, &gone);
		return send_down(p, out, msg->size, NULL, 0);
	}
	if (own_object(p, msg->object) ||
	    ivwl_xwm_selection_owns(p, msg->object))
		return own_event(p, msg, fds, nfds);
	if (!ivwl_xwm_client_id(msg->object) &&
	    ivwl_wire_map_lookup(&p->down_map, msg->object, &known) < 0) {
		/* made for the proxy (an offer it already dropped) */
		for (uint32_t i = 0; i < nfds; i++)
			close(fds[i]);
		return 0;
	}
	ivwl_xwm_selection_input(p, msg);
	if (msg->iface->index == IVWL_IFACE_WL_REGISTRY &&
	    msg->opcode == IVWL_EVT_WL_REGISTRY_GLOBAL &&
	    global_seen(p, msg))
		return 0;
	if (renumber_event(p, msg, out) < 0) {
		/* about an object of the proxy's: Xwayland has no use */
		ivwl_log_debug("%s@%u.%s: not for Xwayland", msg->iface->name,
			       msg->object, msg->message->name);
		for (uint32_t i = 0; i < nfds; i++)
			close(fds[i]);
		return 0;
	}
	return send_down(p, out, msg->size, fds, nfds);
}

typedef int (*forward_fn)(struct ivwl_xwm_proxy *p, const uint8_t *bytes,
			  const struct ivwl_wire_msg *msg);

/* Reads what one side sent and forwards each whole message in it. */
static int
read_side(struct ivwl_xwm_proxy *p, int fd, struct ivwl_stream_in *in,
	  struct ivwl_wire_map *map, enum ivwl_wire_dir dir,
	  forward_fn forward, const char *who)
{
	struct ivwl_wire_msg msg;
	int ret;

	ret = ivwl_stream_in_read(in, fd);
	if (ret == -EAGAIN)
		return 0;
	if (ret <= 0)
		return ret == 0 ? -EPIPE : ret;
	for (;;) {
		ret = ivwl_wire_parse(map, dir, in->buf, in->len, &msg);
		if (ret == 0)
			return 0;
		if (ret < 0 || ivwl_wire_track(map, dir, &msg) < 0) {
			ivwl_log_error("%s sent a message the proxy cannot "
				       "read", who);
			return -EPROTO;
		}
		ret = forward(p, in->buf, &msg);
		if (ret < 0)
			return ret;
		ivwl_stream_in_consume(in, msg.size);
	}
}

int
ivwl_xwm_proxy_read_down(struct ivwl_xwm_proxy *p)
{
	return read_side(p, p->down, &p->down_in, &p->down_map,
			 IVWL_WIRE_REQUEST, forward_request, "Xwayland");
}

int
ivwl_xwm_proxy_read_up(struct ivwl_xwm_proxy *p)
{
	return read_side(p, p->up, &p->up_in, &p->up_map, IVWL_WIRE_EVENT,
			 forward_event, "the compositor");
}

/* ---- the proxy itself ----------------------------------------------- */

int
ivwl_xwm_proxy_flush(struct ivwl_xwm_proxy *p)
{
	int a = ivwl_stream_out_flush(&p->up_out, p->up);
	int b = ivwl_stream_out_flush(&p->down_out, p->down);

	if (a < 0 && a != -EAGAIN)
		return a;
	if (b < 0 && b != -EAGAIN)
		return b;
	return a == -EAGAIN || b == -EAGAIN ? -EAGAIN : 0;
}

bool
ivwl_xwm_proxy_wants_write(const struct ivwl_xwm_proxy *p)
{
	return p->up_out.len || p->down_out.len;
}

int
ivwl_xwm_proxy_down_fd(const struct ivwl_xwm_proxy *p)
{
	return p->down;
}

int
ivwl_xwm_proxy_up_fd(const struct ivwl_xwm_proxy *p)
{
	return p->up;
}

struct ivwl_xwm_proxy *
ivwl_xwm_proxy_create(int down, int up, const struct ivwl_xwm_proxy_hooks *hooks,
		      void *data)
{
	struct ivwl_xwm_proxy *p = calloc(1, sizeof(*p));

	if (!p)
		goto err_fds;
	p->down = down;
	p->up = up;
	p->hooks = hooks;
	p->data = data;
	ivwl_stream_in_init(&p->down_in);
	ivwl_stream_in_init(&p->up_in);
	ivwl_stream_out_init(&p->down_out, OUT_LIMIT);
	ivwl_stream_out_init(&p->up_out, OUT_LIMIT);
	p->down_to_up = calloc(IVWL_WIRE_MAX_OBJECTS, sizeof(uint32_t));
	p->up_to_down = calloc(IVWL_WIRE_MAX_OBJECTS, sizeof(uint32_t));
	p->surfaces = calloc(IVWL_WIRE_MAX_OBJECTS, sizeof(*p->surfaces));
	p->buffer_size = calloc(IVWL_WIRE_MAX_OBJECTS, sizeof(uint32_t));
	if (!p->down_to_up || !p->up_to_down || !p->surfaces ||
	    !p->buffer_size ||
	    ivwl_wire_map_init(&p->down_map) < 0)
		goto err_proxy;
	if (ivwl_wire_map_init(&p->up_map) < 0)
		goto err_down_map;
	p->down_to_up[IVWL_WIRE_DISPLAY_ID] = IVWL_WIRE_DISPLAY_ID;
	p->up_to_down[IVWL_WIRE_DISPLAY_ID] = IVWL_WIRE_DISPLAY_ID;
	p->up_ids.next = IVWL_WIRE_DISPLAY_ID + 1;
	ivwl_xwm_selection_init(&p->sel);
	return p;

err_down_map:
	ivwl_wire_map_release(&p->down_map);
err_proxy:
	free(p->down_to_up);
	free(p->up_to_down);
	free(p->surfaces);
	free(p->buffer_size);
	free(p);
err_fds:
	close(down);
	close(up);
	return NULL;
}

void
ivwl_xwm_proxy_destroy(struct ivwl_xwm_proxy *p)
{
	struct xsurface *s, *next;
	uint32_t i;

	for (s = p->all; s; s = next) {
		next = s->next;
		ivwl_xwm_surface_free(s);
	}
	for (i = 0; i < p->nwishes; i++)
		ivwl_xwm_surface_free(p->wishes[i]);
	free(p->wishes);
	ivwl_xwm_selection_release(&p->sel);
	ivwl_stream_in_release(&p->down_in);
	ivwl_stream_in_release(&p->up_in);
	ivwl_stream_out_release(&p->down_out);
	ivwl_stream_out_release(&p->up_out);
	ivwl_wire_map_release(&p->down_map);
	ivwl_wire_map_release(&p->up_map);
	free(p->down_to_up);
	free(p->up_to_down);
	free(p->surfaces);
	free(p->buffer_size);
	free(p->up_ids.free);
	close(p->down);
	close(p->up);
	free(p);
}
