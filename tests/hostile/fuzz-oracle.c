/* SPDX-License-Identifier: MIT */
/*
 * The plugin's own request path, run dry inside the fuzzer: each
 * connection has a shadow ivwl_translation (wire map, firewall, pools,
 * channels) that sees every request before it is sent and every event
 * the fuzzer reads.  What the shadow refuses, the display would close the
 * connection for; the fuzzer sends such a request only as a deliberate
 * violation, now and then, so that most connections live long enough to
 * reach mapped windows, popup chains and selections, and weston sees
 * requests the firewall lets through rather than the firewall's refusals.
 *
 * All shadows share one shadow VM, so the budgets per VM count as the
 * display counts them.  The shadow trails the display on events (the
 * display has seen an event before the fuzzer reads it), which only
 * matters for events that end objects; the fuzzer does not name those.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "device-backend.h"
#include "translate.h"
#include "vm.h"
#include "../unit/xl-vm-host.h"

/* One record's payload, as the request ring hands it to the display. */
static uint64_t shadow_buf[IVWL_RING_MAX_SIZE / 2 / sizeof(uint64_t)];

static struct ivwl_device shadow_dev = { .region_fd = -1 };
static struct ivwl_vm shadow_vm = { .name = "shadow", .dev = &shadow_dev };

int
ivwl_fuzz_oracle_init(struct ivwl_fuzz *f)
{
	/* the shadow's refusals are the oracle's answers, not log lines */
	ivwl_log_set_sink(ivwl_log_discard, NULL);
	shadow_vm.side.layout = f->h.layout;
	shadow_vm.pipe_budget = ivwl_pipe_budget_create(IVWL_PIPE_VM_BUFFER);
	/* pools dup the region: any fd does, nothing maps it here */
	shadow_dev.region_fd = memfd_create("ivwl-fuzz-shadow", MFD_CLOEXEC);
	if (!shadow_vm.pipe_budget || shadow_dev.region_fd < 0)
		return -ENOMEM;
	return 0;
}

struct ivwl_translation *
ivwl_fuzz_shadow_new(void)
{
	struct ivwl_translation *xl = malloc(sizeof(*xl));

	if (!xl)
		return NULL;
	if (ivwl_translation_init(xl, &ivwl_test_vm_host, &shadow_vm,
				  NULL) < 0) {
		free(xl);
		return NULL;
	}
	ivwl_stream_out_release(&xl->to_server);
	ivwl_stream_out_init(&xl->to_server, 1 << 20);
	return xl;
}

void
ivwl_fuzz_shadow_free(struct ivwl_translation *xl)
{
	if (!xl)
		return;
	ivwl_translation_release(xl);
	free(xl);
}

int
ivwl_fuzz_shadow_request(struct ivwl_translation *conn,
			 const struct ivwl_out *out, const char **why)
{
	uint32_t len = ivwl_record_wayland_size(out->nfds, out->len);
	int ret;

	*why = NULL;
	if (!conn)
		return 0;
	ivwl_record_wayland_build(shadow_buf, out->fds, out->nfds, out->data,
				  out->len);
	ret = ivwl_translate_request(conn, shadow_buf, (len + 7) & ~7u, why);
	/* libwayland would take these: nothing waits for them here */
	ivwl_stream_out_release(&conn->to_server);
	ivwl_stream_out_init(&conn->to_server, 1 << 20);
	return ret;
}

void
ivwl_fuzz_shadow_event(struct ivwl_translation *conn, const uint8_t *bytes,
		       uint32_t len)
{
	struct ivwl_wire_msg msg;

	if (!conn || ivwl_wire_parse(&conn->objects, IVWL_WIRE_EVENT, bytes,
				     len, &msg) <= 0)
		return;
	if (ivwl_wire_track(&conn->objects, IVWL_WIRE_EVENT, &msg) < 0)
		return;
	ivwl_firewall_event(&conn->firewall, &msg);
}
