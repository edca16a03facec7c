/* SPDX-License-Identifier: MIT */
/*
 * ivwl-xwm's Wayland proxy between a scripted Xwayland and a scripted
 * compositor: ids renumbered both ways around the proxy's own objects,
 * xdg_wm_base kept from Xwayland, a window's first commit held until
 * its configure, its roles gone before its surface, delete_id of the
 * proxy's own ids kept from Xwayland and the ids used again; the
 * clipboard through a data device of the proxy's own.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"
#include "ivwl-protocols.h"
#include "proxy.h"
#include "wire-msg.h"

struct rig {
	int xwayland;		/* the test's end of Xwayland's socket */
	int compositor;		/* the test's end of the compositor's */
	struct ivwl_xwm_proxy *p;
	uint32_t configured, closed;	/* hook calls, by surface */
	uint32_t decorated;		/* by surface, server_side only */
	uint32_t selections;		/* selection hook calls */
	char mimes[256];		/* their types, ' '-joined */
	char sent[64];			/* the send hook's type */
};

static void
on_configure(void *data, uint32_t surface, int32_t width, int32_t height,
	     bool activated, bool fullscreen, bool maximized)
{
	((struct rig *)data)->configured = surface;
}

static void
on_close(void *data, uint32_t surface)
{
	((struct rig *)data)->closed = surface;
}

static void
on_decorated(void *data, uint32_t surface, bool server_side)
{
	((struct rig *)data)->decorated = server_side ? surface : 0;
}

static void
on_selection(void *data, const char *const *mimes, uint32_t n)
{
	struct rig *r = data;

	r->selections++;
	r->mimes[0] = '\0';
	for (uint32_t i = 0; i < n; i++) {
		strncat(r->mimes, mimes[i], sizeof(r->mimes) -
			strlen(r->mimes) - 2);
		strcat(r->mimes, " ");
	}
}

static void
on_send(void *data, const char *mime, int fd)
{
	struct rig *r = data;

	snprintf(r->sent, sizeof(r->sent), "%s", mime);
	close(fd);
}

static const struct ivwl_xwm_proxy_hooks hooks = {
	.configure = on_configure,
	.close = on_close,
	.decorated = on_decorated,
	.selection = on_selection,
	.send = on_send,
};

static void
rig_open(struct rig *r)
{
	int down[2], up[2];

	memset(r, 0, sizeof(*r));
	REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, down) == 0);
	REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, up) == 0);
	r->xwayland = down[0];
	r->compositor = up[0];
	r->p = ivwl_xwm_proxy_create(down[1], up[1], &hooks, r);
	REQUIRE(r->p);
}

static void
rig_close(struct rig *r)
{
	ivwl_xwm_proxy_destroy(r->p);
	close(r->xwayland);
	close(r->compositor);
}

/* One message from a side, through the proxy. */
static void
send_msg(struct rig *r, int fd, uint32_t object, uint16_t opcode,
	 const char *sig, ...)
{
	uint8_t buf[256];
	uint32_t len;
	va_list ap;

	va_start(ap, sig);
	len = ivwl_test_vmsg(buf, sizeof(buf), object, opcode, sig, ap);
	va_end(ap);
	REQUIRE(write(fd, buf, len) == (ssize_t)len);
	if (fd == r->xwayland)
		CHECK_EQ(ivwl_xwm_proxy_read_down(r->p), 0);
	else
		CHECK_EQ(ivwl_xwm_proxy_read_up(r->p), 0);
	CHECK_EQ(ivwl_xwm_proxy_flush(r->p), 0);
}

struct got {
	uint32_t w[64][4];	/* object, opcode, first two argument words */
	uint32_t n;
};

/* What reached one side: each message's header and first words. */
static void
receive(int fd, struct got *g)
{
	uint8_t buf[8192];
	ssize_t len = read(fd, buf, sizeof(buf));
	uint32_t pos = 0, word[4], size;

	g->n = 0;
	while (len > 0 && pos + 8 <= (uint32_t)len && g->n < 64) {
		memset(word, 0, sizeof(word));
		memcpy(word, buf + pos, (uint32_t)len - pos < 16 ?
		       (uint32_t)len - pos : 16);
		size = word[1] >> 16;
		g->w[g->n][0] = word[0];
		g->w[g->n][1] = word[1] & 0xffff;
		g->w[g->n][2] = size > 8 ? word[2] : 0;
		g->w[g->n][3] = size > 12 ? word[3] : 0;
		g->n++;
		if (size < 8)
			break;
		pos += size;
	}
}

static void
expect(const struct got *g, uint32_t i, uint32_t object, uint32_t opcode,
       uint32_t arg0)
{
	REQUIRE(i < g->n);
	CHECK_EQ(g->w[i][0], object);
	CHECK_EQ(g->w[i][1], opcode);
	CHECK_EQ(g->w[i][2], arg0);
}

/* Xwayland's registry and compositor, and one surface of it; with
 * decorations, the compositor offers zxdg_decoration_manager_v1 too. */
static void
session_with(struct rig *r, struct got *g, bool decorations)
{
	send_msg(r, r->xwayland, 1, IVWL_REQ_WL_DISPLAY_GET_REGISTRY, "n", 2);
	receive(r->compositor, g);
	expect(g, 0, 1, IVWL_REQ_WL_DISPLAY_GET_REGISTRY, 2);
	send_msg(r, r->compositor, 2, IVWL_EVT_WL_REGISTRY_GLOBAL, "usu", 1,
		 "wl_compositor", 4);
	send_msg(r, r->compositor, 2, IVWL_EVT_WL_REGISTRY_GLOBAL, "usu", 2,
		 "xdg_wm_base", 1);
	send_msg(r, r->compositor, 2, IVWL_EVT_WL_REGISTRY_GLOBAL, "usu", 3,
		 "wl_subcompositor", 1);
	if (decorations)
		send_msg(r, r->compositor, 2, IVWL_EVT_WL_REGISTRY_GLOBAL,
			 "usu", 9, "zxdg_decoration_manager_v1", 1);
	/* the window roles are the proxy's: Xwayland sees no xdg_wm_base
	 * nor the decoration manager */
	receive(r->xwayland, g);
	CHECK_EQ(g->n, 2);
	expect(g, 0, 2, IVWL_EVT_WL_REGISTRY_GLOBAL, 1);
	expect(g, 1, 2, IVWL_EVT_WL_REGISTRY_GLOBAL, 3);
	send_msg(r, r->xwayland, 2, IVWL_REQ_WL_REGISTRY_BIND, "usun", 1,
		 "wl_compositor", 4, 3);
	send_msg(r, r->xwayland, 3, IVWL_REQ_WL_COMPOSITOR_CREATE_SURFACE,
		 "n", 4);
	receive(r->compositor, g);
	CHECK_EQ(g->n, 2);
	expect(g, 1, 3, IVWL_REQ_WL_COMPOSITOR_CREATE_SURFACE, 4);
}

static void
session(struct rig *r, struct got *g)
{
	session_with(r, g, false);
}

static void
test_window_roles_and_held_commit(void)
{
	struct rig r;
	struct got g;

	rig_open(&r);
	session(&r, &g);
	/* committed before the window manager decided: held */
	send_msg(&r, r.xwayland, 4, IVWL_REQ_WL_SURFACE_COMMIT, "");
	receive(r.compositor, &g);
	CHECK_EQ(g.n, 0);

	CHECK_EQ(ivwl_xwm_proxy_toplevel(r.p, 4, "xterm", "XTerm", 0), 0);
	CHECK_EQ(ivwl_xwm_proxy_flush(r.p), 0);
	receive(r.compositor, &g);
	/* binds (ids 5, 6), get_xdg_surface 7, get_toplevel 8, title,
	 * app_id, an empty first commit */
	REQUIRE(g.n == 8);
	expect(&g, 0, 2, IVWL_REQ_WL_REGISTRY_BIND, 2);
	expect(&g, 1, 2, IVWL_REQ_WL_REGISTRY_BIND, 3);
	expect(&g, 2, 5, IVWL_REQ_XDG_WM_BASE_GET_XDG_SURFACE, 7);
	CHECK_EQ(g.w[2][3], 4);
	expect(&g, 3, 7, IVWL_REQ_XDG_SURFACE_GET_TOPLEVEL, 8);
	CHECK_EQ(g.w[4][1], IVWL_REQ_XDG_TOPLEVEL_SET_TITLE);
	CHECK_EQ(g.w[5][1], IVWL_REQ_XDG_TOPLEVEL_SET_APP_ID);
	expect(&g, 6, 4, IVWL_REQ_WL_SURFACE_ATTACH, 0);
	expect(&g, 7, 4, IVWL_REQ_WL_SURFACE_COMMIT, 0);

	/* still held until the configure, which the proxy acks */
	send_msg(&r, r.xwayland, 4, IVWL_REQ_WL_SURFACE_COMMIT, "");
	receive(r.compositor, &g);
	CHECK_EQ(g.n, 0);
	send_msg(&r, r.compositor, 8, IVWL_EVT_XDG_TOPLEVEL_CONFIGURE, "iia",
		 640, 480, &(struct ivwl_wire_array){ NULL, 0 });
	CHECK_EQ(r.configured, 4);
	send_msg(&r, r.compositor, 7, IVWL_EVT_XDG_SURFACE_CONFIGURE, "u", 9);
	receive(r.compositor, &g);
	REQUIRE(g.n == 2);
	expect(&g, 0, 7, IVWL_REQ_XDG_SURFACE_ACK_CONFIGURE, 9);
	expect(&g, 1, 4, IVWL_REQ_WL_SURFACE_COMMIT, 0);
	/* the configures were the proxy's: Xwayland saw none */
	receive(r.xwayland, &g);
	CHECK_EQ(g.n, 0);

	/* shown: commits pass at once; close reaches the hook */
	send_msg(&r, r.xwayland, 4, IVWL_REQ_WL_SURFACE_COMMIT, "");
	receive(r.compositor, &g);
	CHECK_EQ(g.n, 1);
	send_msg(&r, r.compositor, 8, IVWL_EVT_XDG_TOPLEVEL_CLOSE, "");
	CHECK_EQ(r.closed, 4);
	rig_close(&r);
}

static void
test_roles_go_before_their_surface(void)
{
	struct rig r;
	struct got g;

	rig_open(&r);
	session(&r, &g);
	CHECK_EQ(ivwl_xwm_proxy_toplevel(r.p, 4, "t", NULL, 0), 0);
	CHECK_EQ(ivwl_xwm_proxy_flush(r.p), 0);
	receive(r.compositor, &g);
	send_msg(&r, r.xwayland, 4, IVWL_REQ_WL_SURFACE_DESTROY, "");
	receive(r.compositor, &g);
	REQUIRE(g.n == 3);
	expect(&g, 0, 8, IVWL_REQ_XDG_TOPLEVEL_DESTROY, 0);
	expect(&g, 1, 7, IVWL_REQ_XDG_SURFACE_DESTROY, 0);
	expect(&g, 2, 4, IVWL_REQ_WL_SURFACE_DESTROY, 0);

	/* delete_id: the surface's goes to Xwayland, the proxy's do not */
	send_msg(&r, r.compositor, 1, IVWL_EVT_WL_DISPLAY_DELETE_ID, "u", 8);
	send_msg(&r, r.compositor, 1, IVWL_EVT_WL_DISPLAY_DELETE_ID, "u", 7);
	send_msg(&r, r.compositor, 1, IVWL_EVT_WL_DISPLAY_DELETE_ID, "u", 4);
	receive(r.xwayland, &g);
	REQUIRE(g.n == 1);
	expect(&g, 0, 1, IVWL_EVT_WL_DISPLAY_DELETE_ID, 4);

	/* Xwayland's next surface, id 4 again, gets one of the freed ids
	 * (libwayland-server wants new ids dense) */
	send_msg(&r, r.xwayland, 3, IVWL_REQ_WL_COMPOSITOR_CREATE_SURFACE,
		 "n", 4);
	receive(r.compositor, &g);
	REQUIRE(g.n == 1);
	CHECK(g.w[0][2] == 4 || g.w[0][2] == 7 || g.w[0][2] == 8);
	rig_close(&r);
}

/* A window named before Xwayland made its surface gets its role then. */
static void
test_wish_granted_when_made(void)
{
	struct rig r;
	struct got g;

	rig_open(&r);
	session(&r, &g);
	CHECK_EQ(ivwl_xwm_proxy_toplevel(r.p, 5, "later", NULL, 0), 0);
	CHECK_EQ(ivwl_xwm_proxy_flush(r.p), 0);
	receive(r.compositor, &g);
	CHECK_EQ(g.n, 0);
	send_msg(&r, r.xwayland, 3, IVWL_REQ_WL_COMPOSITOR_CREATE_SURFACE,
		 "n", 5);
	receive(r.compositor, &g);
	/* the surface (up id 5), two binds, xdg_surface, toplevel, title,
	 * attach, commit */
	REQUIRE(g.n == 8);
	expect(&g, 0, 3, IVWL_REQ_WL_COMPOSITOR_CREATE_SURFACE, 5);
	expect(&g, 3, 6, IVWL_REQ_XDG_WM_BASE_GET_XDG_SURFACE, 8);
	CHECK_EQ(g.w[3][3], 5);
	rig_close(&r);
}

/* Message bytes with one fd beside them, from a side. */
static void
send_with_fd(struct rig *r, int side, const uint8_t *buf, uint32_t len,
	     int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	REQUIRE(sendmsg(side, &mh, 0) == (ssize_t)len);
	if (side == r->xwayland)
		CHECK_EQ(ivwl_xwm_proxy_read_down(r->p), 0);
	else
		CHECK_EQ(ivwl_xwm_proxy_read_up(r->p), 0);
	CHECK_EQ(ivwl_xwm_proxy_flush(r->p), 0);
}

/* An event with one fd, from the compositor. */
static void
send_fd_event(struct rig *r, uint32_t object, uint16_t opcode,
	      const char *mime, int fd)
{
	uint8_t buf[256];

	send_with_fd(r, r->compositor, buf, ivwl_test_msg(buf, sizeof(buf),
		     object, opcode, "sh", mime), fd);
}

#define OFFER1 0xff000000u
#define OFFER2 0xff000001u

/*
 * Xwayland's registry with a seat and a data device manager: the proxy
 * binds both (ids 3, 4) and makes its data device (5); Xwayland binds
 * the seat (3 -> 6) and takes its keyboard (4 -> 7).
 */
static void
clipboard_session(struct rig *r, struct got *g)
{
	send_msg(r, r->xwayland, 1, IVWL_REQ_WL_DISPLAY_GET_REGISTRY, "n", 2);
	send_msg(r, r->compositor, 2, IVWL_EVT_WL_REGISTRY_GLOBAL, "usu", 1,
		 "wl_seat", 7);
	send_msg(r, r->compositor, 2, IVWL_EVT_WL_REGISTRY_GLOBAL, "usu", 2,
		 "wl_data_device_manager", 3);
	receive(r->compositor, g);
	REQUIRE(g->n == 4);
	expect(g, 1, 2, IVWL_REQ_WL_REGISTRY_BIND, 2);
	expect(g, 2, 2, IVWL_REQ_WL_REGISTRY_BIND, 1);
	expect(g, 3, 3, IVWL_REQ_WL_DATA_DEVICE_MANAGER_GET_DATA_DEVICE, 5);
	CHECK_EQ(g->w[3][3], 4);
	/* Xwayland sees both globals: they are not the proxy's alone */
	receive(r->xwayland, g);
	CHECK_EQ(g->n, 2);
	send_msg(r, r->xwayland, 2, IVWL_REQ_WL_REGISTRY_BIND, "usun", 1,
		 "wl_seat", 7, 3);
	send_msg(r, r->xwayland, 3, IVWL_REQ_WL_SEAT_GET_KEYBOARD, "n", 4);
	receive(r->compositor, g);
	REQUIRE(g->n == 2);
	expect(g, 1, 6, IVWL_REQ_WL_SEAT_GET_KEYBOARD, 7);
}

/* The proxy's data source offers a marker type: the test learns it. */
static void
find_marker(int fd, char *marker, size_t size)
{
	uint8_t buf[8192];
	ssize_t len = read(fd, buf, sizeof(buf));
	const char *m;

	REQUIRE(len > 0);
	m = memmem(buf, (size_t)len, "application/x-ivwl-xwm-", 23);
	REQUIRE(m);
	snprintf(marker, size, "%s", m);
	CHECK_EQ(strlen(marker), 23 + 16);
}

static void
test_clipboard(void)
{
	const char *const x_types[] = { "text/plain;charset=utf-8",
					"image/png" };
	char marker[64];
	struct rig r;
	struct got g;
	int pipe_fds[2];

	rig_open(&r);
	clipboard_session(&r, &g);

	/* the compositor's selection, told to the X side; not to Xwayland */
	send_msg(&r, r.compositor, 5, IVWL_EVT_WL_DATA_DEVICE_DATA_OFFER,
		 "n", OFFER1);
	send_msg(&r, r.compositor, OFFER1, IVWL_EVT_WL_DATA_OFFER_OFFER, "s",
		 "text/plain");
	send_msg(&r, r.compositor, OFFER1, IVWL_EVT_WL_DATA_OFFER_OFFER, "s",
		 "text/html");
	send_msg(&r, r.compositor, 5, IVWL_EVT_WL_DATA_DEVICE_SELECTION, "o",
		 OFFER1);
	CHECK_EQ(r.selections, 1);
	CHECK(strcmp(r.mimes, "text/plain text/html ") == 0);
	receive(r.xwayland, &g);
	CHECK_EQ(g.n, 0);
	REQUIRE(pipe(pipe_fds) == 0);
	CHECK_EQ(ivwl_xwm_proxy_receive(r.p, "text/html", pipe_fds[1]), 0);
	CHECK_EQ(ivwl_xwm_proxy_flush(r.p), 0);
	receive(r.compositor, &g);
	REQUIRE(g.n == 1);
	expect(&g, 0, OFFER1, IVWL_REQ_WL_DATA_OFFER_RECEIVE, 10);
	close(pipe_fds[0]);

	/* X's selection: a source with the serial of the last key */
	send_msg(&r, r.compositor, 7, IVWL_EVT_WL_KEYBOARD_KEY, "uuuu", 77,
		 0, 30, 1);
	receive(r.xwayland, &g);
	expect(&g, 0, 4, IVWL_EVT_WL_KEYBOARD_KEY, 77);
	CHECK_EQ(ivwl_xwm_proxy_set_selection(r.p, x_types, 2), 0);
	CHECK_EQ(ivwl_xwm_proxy_flush(r.p), 0);
	find_marker(r.compositor, marker, sizeof(marker));

	/* weston offers it back to the focused client: not a new one; the
	 * old offer goes */
	send_msg(&r, r.compositor, 5, IVWL_EVT_WL_DATA_DEVICE_DATA_OFFER,
		 "n", OFFER2);
	send_msg(&r, r.compositor, OFFER2, IVWL_EVT_WL_DATA_OFFER_OFFER, "s",
		 "image/png");
	send_msg(&r, r.compositor, OFFER2, IVWL_EVT_WL_DATA_OFFER_OFFER, "s",
		 marker);
	send_msg(&r, r.compositor, 5, IVWL_EVT_WL_DATA_DEVICE_SELECTION, "o",
		 OFFER2);
	CHECK_EQ(r.selections, 1);
	receive(r.compositor, &g);
	REQUIRE(g.n == 1);
	expect(&g, 0, OFFER1, IVWL_REQ_WL_DATA_OFFER_DESTROY, 0);
	/* an event for the dropped offer still on its way: not Xwayland's */
	send_msg(&r, r.compositor, OFFER1, IVWL_EVT_WL_DATA_OFFER_OFFER, "s",
		 "late");
	receive(r.xwayland, &g);
	CHECK_EQ(g.n, 0);

	/* a reader's pipe reaches the X side; the marker's does not */
	REQUIRE(pipe(pipe_fds) == 0);
	send_fd_event(&r, 8, IVWL_EVT_WL_DATA_SOURCE_SEND, "image/png",
		      pipe_fds[1]);
	CHECK(strcmp(r.sent, "image/png") == 0);
	r.sent[0] = '\0';
	send_fd_event(&r, 8, IVWL_EVT_WL_DATA_SOURCE_SEND, marker,
		      pipe_fds[1]);
	CHECK_EQ(r.sent[0], '\0');
	close(pipe_fds[0]);
	close(pipe_fds[1]);

	/* another client's selection: the source is cancelled and goes */
	send_msg(&r, r.compositor, 8, IVWL_EVT_WL_DATA_SOURCE_CANCELLED, "");
	receive(r.compositor, &g);
	REQUIRE(g.n == 1);
	expect(&g, 0, 8, IVWL_REQ_WL_DATA_SOURCE_DESTROY, 0);
	rig_close(&r);
}

/* Xwayland's wl_shm (5) and a pool (6), the same ids up. */
static void
shm_pool(struct rig *r, struct got *g)
{
	uint8_t buf[64];
	int fds[2];

	send_msg(r, r->compositor, 2, IVWL_EVT_WL_REGISTRY_GLOBAL, "usu", 4,
		 "wl_shm", 1);
	send_msg(r, r->xwayland, 2, IVWL_REQ_WL_REGISTRY_BIND, "usun", 4,
		 "wl_shm", 1, 5);
	REQUIRE(pipe(fds) == 0);
	send_with_fd(r, r->xwayland, buf, ivwl_test_msg(buf, sizeof(buf), 5,
		     IVWL_REQ_WL_SHM_CREATE_POOL, "nhi", 6, 1 << 24),
		     fds[0]);
	close(fds[0]);
	close(fds[1]);
	receive(r->xwayland, g);
	receive(r->compositor, g);
	REQUIRE(g->n == 2);
}

/* A buffer of Xwayland's, id, width x height, attached and committed
 * on surface 4. */
static void
commit_buffer(struct rig *r, uint32_t id, int32_t width, int32_t height)
{
	send_msg(r, r->xwayland, 6, IVWL_REQ_WL_SHM_POOL_CREATE_BUFFER,
		 "niiiiu", id, 0, width, height, width * 4, 1);
	send_msg(r, r->xwayland, 4, IVWL_REQ_WL_SURFACE_ATTACH, "oii", id, 0,
		 0);
	send_msg(r, r->xwayland, 4, IVWL_REQ_WL_SURFACE_COMMIT, "");
}

/*
 * xdg-shell wants a maximized window's first commit after the ack at
 * the configured size, and X resizes later: the ack waits for a buffer
 * of the size, the window geometry follows the buffer.
 */
static void
test_maximized_ack_waits_for_its_size(void)
{
	struct rig r;
	struct got g;
	uint32_t states[1] = { 1 /* maximized */ };
	uint8_t buf[64];
	uint32_t len;

	rig_open(&r);
	session(&r, &g);
	shm_pool(&r, &g);
	CHECK_EQ(ivwl_xwm_proxy_toplevel(r.p, 4, "x", NULL, 0), 0);
	CHECK_EQ(ivwl_xwm_proxy_flush(r.p), 0);
	receive(r.compositor, &g);
	/* the proxy's binds are 7 and 8, its xdg_surface 9, toplevel 10 */
	send_msg(&r, r.compositor, 10, IVWL_EVT_XDG_TOPLEVEL_CONFIGURE, "iia",
		 0, 0, &(struct ivwl_wire_array){ NULL, 0 });
	send_msg(&r, r.compositor, 9, IVWL_EVT_XDG_SURFACE_CONFIGURE, "u", 1);
	receive(r.compositor, &g);
	commit_buffer(&r, 7, 300, 200);
	receive(r.compositor, &g);
	/* create_buffer, attach, the geometry, commit */
	REQUIRE(g.n == 4);
	expect(&g, 2, 9, IVWL_REQ_XDG_SURFACE_SET_WINDOW_GEOMETRY, 0);
	expect(&g, 3, 4, IVWL_REQ_WL_SURFACE_COMMIT, 0);

	/* maximized at 800x600: no ack while X commits 300x200 */
	len = ivwl_test_msg(buf, sizeof(buf), 10,
			    IVWL_EVT_XDG_TOPLEVEL_CONFIGURE, "iia", 800, 600,
			    &(struct ivwl_wire_array){ states, 4 });
	REQUIRE(write(r.compositor, buf, len) == (ssize_t)len);
	CHECK_EQ(ivwl_xwm_proxy_read_up(r.p), 0);
	send_msg(&r, r.compositor, 9, IVWL_EVT_XDG_SURFACE_CONFIGURE, "u", 2);
	receive(r.compositor, &g);
	CHECK_EQ(g.n, 0);
	commit_buffer(&r, 8, 300, 200);
	receive(r.compositor, &g);
	REQUIRE(g.n == 3);
	expect(&g, 2, 4, IVWL_REQ_WL_SURFACE_COMMIT, 0);

	/* the buffer of the size: acked, geometry, then its commit */
	commit_buffer(&r, 9, 800, 600);
	receive(r.compositor, &g);
	REQUIRE(g.n == 5);
	expect(&g, 2, 9, IVWL_REQ_XDG_SURFACE_ACK_CONFIGURE, 2);
	expect(&g, 3, 9, IVWL_REQ_XDG_SURFACE_SET_WINDOW_GEOMETRY, 0);
	CHECK_EQ(g.w[3][3], 0);
	expect(&g, 4, 4, IVWL_REQ_WL_SURFACE_COMMIT, 0);
	rig_close(&r);
}

/*
 * Where the compositor offers zxdg_decoration_manager_v1 (Xwayland does
 * not see it), each toplevel asks for server-side decorations before
 * its first commit, the answer reaches the hook, and the decoration
 * goes before its toplevel.
 */
static void
test_server_side_decorations(void)
{
	struct rig r;
	struct got g;

	rig_open(&r);
	session_with(&r, &g, true);
	CHECK_EQ(ivwl_xwm_proxy_toplevel(r.p, 4, "xterm", NULL, 0), 0);
	CHECK_EQ(ivwl_xwm_proxy_flush(r.p), 0);
	receive(r.compositor, &g);
	/* binds (5, 6, 7: the manager), get_xdg_surface 8, get_toplevel
	 * 9, get_toplevel_decoration 10, set_mode(server_side), title,
	 * attach, commit */
	REQUIRE(g.n == 10);
	expect(&g, 2, 2, IVWL_REQ_WL_REGISTRY_BIND, 9);
	expect(&g, 5, 7,
	       IVWL_REQ_ZXDG_DECORATION_MANAGER_V1_GET_TOPLEVEL_DECORATION,
	       10);
	CHECK_EQ(g.w[5][3], 9);
	expect(&g, 6, 10, IVWL_REQ_ZXDG_TOPLEVEL_DECORATION_V1_SET_MODE, 2);
	expect(&g, 9, 4, IVWL_REQ_WL_SURFACE_COMMIT, 0);
	send_msg(&r, r.compositor, 10,
		 IVWL_EVT_ZXDG_TOPLEVEL_DECORATION_V1_CONFIGURE, "u", 2);
	CHECK_EQ(r.decorated, 4);
	receive(r.xwayland, &g);
	CHECK_EQ(g.n, 0);
	send_msg(&r, r.xwayland, 4, IVWL_REQ_WL_SURFACE_DESTROY, "");
	receive(r.compositor, &g);
	REQUIRE(g.n == 4);
	expect(&g, 0, 10, IVWL_REQ_ZXDG_TOPLEVEL_DECORATION_V1_DESTROY, 0);
	expect(&g, 1, 9, IVWL_REQ_XDG_TOPLEVEL_DESTROY, 0);
	rig_close(&r);
}

IVWL_TEST_MAIN(TEST(test_window_roles_and_held_commit),
	       TEST(test_server_side_decorations),
	       TEST(test_roles_go_before_their_surface),
	       TEST(test_wish_granted_when_made),
	       TEST(test_clipboard),
	       TEST(test_maximized_ack_waits_for_its_size))
