/* SPDX-License-Identifier: MIT */
/*
 * ivwl-xwm's Wayland proxy between a scripted Xwayland and a scripted
 * compositor: ids renumbered both ways around the proxy's own objects,
 * xdg_wm_base kept from Xwayland, a window's first commit held until
 * its configure, its roles gone before its surface, delete_id of the
 * proxy's own ids kept from Xwayland and the ids used again.
 */
#include <errno.h>
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
};

static void
on_configure(void *data, uint32_t surface, int32_t width, int32_t height,
	     bool activated, bool fullscreen)
{
	((struct rig *)data)->configured = surface;
}

static void
on_close(void *data, uint32_t surface)
{
	((struct rig *)data)->closed = surface;
}

static const struct ivwl_xwm_proxy_hooks hooks = {
	.configure = on_configure,
	.close = on_close,
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

/* Xwayland's registry and compositor, and one surface of it. */
static void
session(struct rig *r, struct got *g)
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
	/* the window roles are the proxy's: Xwayland sees no xdg_wm_base */
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
		 640, 480, 0);
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

IVWL_TEST_MAIN(TEST(test_window_roles_and_held_commit),
	       TEST(test_roles_go_before_their_surface),
	       TEST(test_wish_granted_when_made))
