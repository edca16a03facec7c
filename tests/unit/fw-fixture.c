/* SPDX-License-Identifier: MIT */
/*
 * The firewall tests' connection: set up like tests/fuzz/fuzz-translate.c
 * (a VM, a connection, its wire map and firewall, no weston), with a
 * builder of one-message records.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "device-backend.h"
#include "firewall/firewall-model.h"
#include "fw-fixture.h"
#include "harness.h"
#include "wire-msg.h"
#include "xl-vm-host.h"

/* Translation logs what it refuses: not wanted here. */
__attribute__((constructor)) static void
quiet_log(void)
{
	ivwl_log_set_sink(ivwl_log_discard, NULL);
}

struct ivwl_vm *one_vm;

struct conn *
open_one(void)
{
	one_vm = vm_new();
	return conn_open(one_vm);
}

void
close_one(struct conn *c)
{
	conn_close(c);
	vm_free(one_vm);
}

struct ivwl_vm *
vm_new(void)
{
	struct ivwl_vm *vm = calloc(1, sizeof(*vm));

	REQUIRE(vm);
	vm->name = "test";
	REQUIRE(ivwl_layout_compute(64ull << 20, &vm->side.layout) == 0);
	/* translate.c hands libwayland dups of the device's region fd */
	vm->dev = calloc(1, sizeof(*vm->dev));
	REQUIRE(vm->dev);
	vm->dev->region_fd = memfd_create("test-region", MFD_CLOEXEC);
	REQUIRE(vm->dev->region_fd >= 0);
	return vm;
}

void
vm_free(struct ivwl_vm *vm)
{
	close(vm->dev->region_fd);
	free(vm->dev);
	free(vm);
}

/* Notes what the plugin queued for libwayland from one record. */
static void
note_sent(struct conn *c)
{
	const uint8_t *p = c->c.to_server.buf;
	size_t left = c->c.to_server.len;
	uint32_t header[2], size;

	c->sent_count = 0;
	c->last_sent_arg0 = 0;
	c->last_sent_arg1 = 0;
	while (left >= 8) {
		memcpy(header, p, 8);
		size = header[1] >> 16;
		if (size < 8 || size > left)
			break;
		if (c->sent_count++ == 0)
			c->first_sent_opcode = header[1] & 0xffff;
		c->last_sent_object = header[0];
		c->last_sent_opcode = header[1] & 0xffff;
		if (size >= 12)
			memcpy(&c->last_sent_arg0, p + 8, 4);
		if (size >= 16)
			memcpy(&c->last_sent_arg1, p + 12, 4);
		p += size;
		left -= size;
	}
}

/* One record of one message, as the request ring hands it over. */
static int
send_record(struct conn *c, const uint8_t *msg, uint32_t len,
	    const struct ivwl_fd_desc *fd)
{
	static uint64_t payload[(IVWL_RING_MAX_SIZE / 2) / 8];
	uint32_t size = ivwl_record_wayland_size(fd ? 1 : 0, len);
	int ret;

	ivwl_record_wayland_build(payload, fd, fd ? 1 : 0, msg, len);
	ret = ivwl_translate_request(&c->c, payload, (size + 7) & ~7u,
				     &c->why);
	/* ids stay dense, as the wire walker wants, after a refusal too */
	c->next_id = c->c.objects.client.count;
	note_sent(c);
	/* libwayland would take these (and the fds): keep memory bounded */
	ivwl_stream_out_release(&c->c.to_server);
	ivwl_stream_out_init(&c->c.to_server, 1 << 20);
	return ret;
}

int
req(struct conn *c, uint32_t object, uint32_t opcode, const char *sig, ...)
{
	uint8_t msg[1024];
	uint32_t len;
	va_list ap;

	va_start(ap, sig);
	len = ivwl_test_vmsg(msg, sizeof(msg), object, opcode, sig, ap);
	va_end(ap);
	c->why = "";
	return send_record(c, msg, len, NULL);
}

int
create_pool(struct conn *c, uint32_t id)
{
	struct ivwl_fd_desc pool = {
		.kind = IVWL_FD_REGION,
		.offset = c->vm->side.layout.heap_offset,
		.length = 1 << 20,
	};
	uint8_t msg[16];
	uint32_t len = ivwl_test_msg(msg, sizeof(msg), SHM,
				     IVWL_REQ_WL_SHM_CREATE_POOL, "nhi", id,
				     1 << 20);

	c->why = "";
	return send_record(c, msg, len, &pool);
}

void
event(struct conn *c, uint32_t object, uint32_t opcode, const char *sig, ...)
{
	struct ivwl_wire_msg msg;
	uint8_t bytes[1024];
	uint32_t len;
	va_list ap;

	va_start(ap, sig);
	len = ivwl_test_vmsg(bytes, sizeof(bytes), object, opcode, sig, ap);
	va_end(ap);
	REQUIRE(ivwl_wire_parse(&c->c.objects, IVWL_WIRE_EVENT, bytes, len,
				&msg) == (int)len);
	REQUIRE(ivwl_wire_track(&c->c.objects, IVWL_WIRE_EVENT, &msg) == 0);
	ivwl_firewall_event(&c->c.firewall, &msg);
}

bool
event_passed(struct conn *c, uint32_t object, uint32_t opcode,
	     const char *sig, ...)
{
	struct ivwl_stream_in *in = &c->c.from_server;
	uint32_t before = c->c.batch.len, len;
	va_list ap;

	va_start(ap, sig);
	len = ivwl_test_vmsg(in->buf + in->len, sizeof(in->buf) - in->len,
			     object, opcode, sig, ap);
	va_end(ap);
	in->len += len;
	REQUIRE(ivwl_translate_events(&c->c, &c->why) == 0);
	REQUIRE(in->len == 0);
	if (c->c.batch.len == before)
		return false;
	c->c.batch.len = 0;	/* as if the ring took it */
	return true;
}

void
delete_id(struct conn *c, uint32_t id)
{
	event(c, DISPLAY, IVWL_EVT_WL_DISPLAY_DELETE_ID, "u", id);
}

void
passed(const struct conn *c, int ret, const char *file, int line)
{
	if (ret == 0)
		return;
	fprintf(stderr, "%s:%d: refused (%d): %s\n", file, line, ret, c->why);
	ivwl_test_failures++;
}

void
refused(const struct conn *c, int ret, int want, const char *iface,
	uint32_t object, const char *request, const char *rule,
	const char *file, int line)
{
	char name[128];

	snprintf(name, sizeof(name), "%s@%u.%s: ", iface ? iface : "", object,
		 request);
	if (ret == want && (!iface || strncmp(c->why, name,
					      strlen(name)) == 0) &&
	    strstr(c->why, rule))
		return;
	fprintf(stderr, "%s:%d: got %d \"%s\", wanted %d \"%s...%s\"\n",
		file, line, ret, ret ? c->why : "", want, iface ? name : "",
		rule);
	ivwl_test_failures++;
}

static void
bind(struct conn *c, uint32_t id, const char *iface, uint32_t version)
{
	PASS(c, req(c, REGISTRY, IVWL_REQ_WL_REGISTRY_BIND, "usun", id, iface,
		    version, id));
}

struct conn *
conn_open(struct ivwl_vm *vm)
{
	struct conn *c = calloc(1, sizeof(*c));

	REQUIRE(c);
	c->vm = vm;
	REQUIRE(ivwl_translation_init(&c->c, &ivwl_test_vm_host, vm,
				      NULL) == 0);
	/* what the fixture let libwayland take, whatever the limit */
	ivwl_stream_out_release(&c->c.to_server);
	ivwl_stream_out_init(&c->c.to_server, 1 << 20);
	PASS(c, req(c, DISPLAY, IVWL_REQ_WL_DISPLAY_GET_REGISTRY, "n",
		    REGISTRY));
	bind(c, SHM, "wl_shm", 1);
	bind(c, COMPOSITOR, "wl_compositor", 5);
	bind(c, SUBCOMPOSITOR, "wl_subcompositor", 1);
	bind(c, WM_BASE, "xdg_wm_base", 5);
	bind(c, SEAT, "wl_seat", 7);
	bind(c, DATA_MANAGER, "wl_data_device_manager", 3);
	bind(c, PRIMARY_MANAGER, "zwp_primary_selection_device_manager_v1", 1);
	bind(c, PRESENTATION, "wp_presentation", 1);
	bind(c, CONSTRAINTS, "zwp_pointer_constraints_v1", 1);
	bind(c, VIEWPORTER, "wp_viewporter", 1);
	c->next_id = FIRST_ID;
	return c;
}

void
conn_close(struct conn *c)
{
	ivwl_translation_release(&c->c);
	free(c);
}

uint32_t
new_id(struct conn *c)
{
	return c->next_id++;
}

uint32_t
new_surface(struct conn *c)
{
	uint32_t id = new_id(c);

	PASS(c, req(c, COMPOSITOR, IVWL_REQ_WL_COMPOSITOR_CREATE_SURFACE, "n",
		    id));
	return id;
}

uint32_t
new_xdg_surface(struct conn *c, uint32_t surface)
{
	uint32_t id = new_id(c);

	PASS(c, req(c, WM_BASE, IVWL_REQ_XDG_WM_BASE_GET_XDG_SURFACE, "no",
		    id, surface));
	return id;
}

struct window
new_window(struct conn *c)
{
	struct window w;

	w.surface = new_surface(c);
	w.xdg = new_xdg_surface(c, w.surface);
	w.top = new_id(c);
	PASS(c, req(c, w.xdg, IVWL_REQ_XDG_SURFACE_GET_TOPLEVEL, "n", w.top));
	return w;
}

uint32_t
new_positioner(struct conn *c)
{
	uint32_t id = new_id(c);

	PASS(c, req(c, WM_BASE, IVWL_REQ_XDG_WM_BASE_CREATE_POSITIONER, "n",
		    id));
	PASS(c, req(c, id, IVWL_REQ_XDG_POSITIONER_SET_SIZE, "ii", 10, 10));
	PASS(c, req(c, id, IVWL_REQ_XDG_POSITIONER_SET_ANCHOR_RECT, "iiii",
		    0, 0, 1, 1));
	return id;
}

struct popup
new_popup(struct conn *c, uint32_t parent, bool grab)
{
	uint32_t positioner = new_positioner(c);
	struct ivwl_fw_object *xdg, *role;
	struct popup p;

	/* weston 14 wants a popup's parent committed first */
	xdg = ivwl_fw_find(&c->c.firewall, parent);
	role = xdg ? ivwl_fw_find(&c->c.firewall, xdg->role_object) : NULL;
	if (role && !(role->flags & IVWL_FW_COMMITTED))
		PASS(c, req(c, xdg->surface, IVWL_REQ_WL_SURFACE_COMMIT, ""));

	p.surface = new_surface(c);
	p.xdg = new_xdg_surface(c, p.surface);
	p.popup = new_id(c);
	PASS(c, req(c, p.xdg, IVWL_REQ_XDG_SURFACE_GET_POPUP, "noo", p.popup,
		    parent, positioner));
	if (grab)
		PASS(c, req(c, p.popup, IVWL_REQ_XDG_POPUP_GRAB, "ou", SEAT,
			    1));
	PASS(c, req(c, positioner, IVWL_REQ_XDG_POSITIONER_DESTROY, ""));
	return p;
}

uint32_t
new_subsurface(struct conn *c, uint32_t surface, uint32_t parent)
{
	uint32_t id = new_id(c);

	PASS(c, req(c, SUBCOMPOSITOR, IVWL_REQ_WL_SUBCOMPOSITOR_GET_SUBSURFACE,
		    "noo", id, surface, parent));
	return id;
}

uint32_t
new_seat_device(struct conn *c, uint32_t opcode)
{
	uint32_t id = new_id(c);

	PASS(c, req(c, SEAT, opcode, "n", id));
	return id;
}

uint32_t
new_source(struct conn *c)
{
	uint32_t id = new_id(c);

	PASS(c, req(c, DATA_MANAGER,
		    IVWL_REQ_WL_DATA_DEVICE_MANAGER_CREATE_DATA_SOURCE, "n",
		    id));
	return id;
}

uint32_t
new_data_device(struct conn *c)
{
	uint32_t id = new_id(c);

	PASS(c, req(c, DATA_MANAGER,
		    IVWL_REQ_WL_DATA_DEVICE_MANAGER_GET_DATA_DEVICE, "no", id,
		    SEAT));
	return id;
}

int
req_past_barrier(struct conn *c, uint32_t object, uint32_t opcode)
{
	int ret = req(c, object, opcode, "");

	if (ret != -EBUSY)
		return ret;
	/* held behind weston 14's barrier: its sync's done came back */
	c->c.barrier = IVWL_BARRIER_PASSED;
	return req(c, object, opcode, "");
}

void
destroy_window(struct conn *c, const struct window *w)
{
	PASS(c, req_past_barrier(c, w->top, IVWL_REQ_XDG_TOPLEVEL_DESTROY));
	PASS(c, req_past_barrier(c, w->xdg, IVWL_REQ_XDG_SURFACE_DESTROY));
	PASS(c, req(c, w->surface, IVWL_REQ_WL_SURFACE_DESTROY, ""));
}

void
destroy_popup(struct conn *c, const struct popup *p)
{
	PASS(c, req_past_barrier(c, p->popup, IVWL_REQ_XDG_POPUP_DESTROY));
	PASS(c, req_past_barrier(c, p->xdg, IVWL_REQ_XDG_SURFACE_DESTROY));
	PASS(c, req(c, p->surface, IVWL_REQ_WL_SURFACE_DESTROY, ""));
}
