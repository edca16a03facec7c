/* SPDX-License-Identifier: MIT */
/*
 * The plugin's request path: records from a hostile app, after a valid
 * prologue that binds wl_shm, wl_compositor and xdg_wm_base and creates a
 * pool, so mutations reach create_buffer, resize, set_title and friends.
 * Input: a sequence of {u8 kind, u16 length, payload} records; kind
 * picks a WAYLAND record or one of the pipe channel records.
 */
#include <errno.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "device-backend.h"
#include "ivwl-protocols.h"
#include "translate.h"
#include "vm.h"
#include "wire-msg.h"
#include "unit/xl-vm-host.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One request into batch: ivwl_test_msg's sig and arguments. */
static void
add(struct ivwl_wayland_batch *batch, const struct ivwl_fd_desc *fds,
    uint32_t nfds, uint32_t object, uint16_t opcode, const char *sig, ...)
{
	uint8_t msg[512];
	uint32_t len;
	va_list ap;

	va_start(ap, sig);
	len = ivwl_test_vmsg(msg, sizeof(msg), object, opcode, sig, ap);
	va_end(ap);
	ivwl_batch_add(batch, msg, len, fds, nfds);
}

static void
bind(struct ivwl_wayland_batch *batch, uint32_t name, const char *iface,
     uint32_t version, uint32_t id)
{
	add(batch, NULL, 0, 2, IVWL_REQ_WL_REGISTRY_BIND, "usun", name, iface,
	    version, id);
}

/* Serialises a batch as the ring would hand it over. */
static uint32_t
to_payload(struct ivwl_wayland_batch *batch, uint64_t *out)
{
	uint32_t len = ivwl_record_wayland_size(batch->nfds, batch->len);

	ivwl_record_wayland_build(out, batch->fds, batch->nfds, batch->data,
				  batch->len);
	batch->len = 0;
	batch->nfds = 0;
	return (len + 7) & ~7u;
}

static void
prologue(struct ivwl_translation *xl, struct ivwl_layout *layout,
	 uint64_t *buf)
{
	struct ivwl_wayland_batch batch = { 0 };
	struct ivwl_fd_desc pool = {
		.kind = IVWL_FD_REGION,
		.offset = layout->heap_offset,
		.length = 1 << 20,
	};
	const char *why;

	add(&batch, NULL, 0, 1, IVWL_REQ_WL_DISPLAY_GET_REGISTRY, "n", 2);
	bind(&batch, 1, "wl_shm", 1, 3);
	bind(&batch, 2, "wl_compositor", 4, 4);
	bind(&batch, 3, "xdg_wm_base", 1, 5);
	add(&batch, &pool, 1, 3, IVWL_REQ_WL_SHM_CREATE_POOL, "nhi", 6, 65536);
	add(&batch, NULL, 0, 4, IVWL_REQ_WL_COMPOSITOR_CREATE_SURFACE, "n", 7);
	if (ivwl_translate_request(xl, buf, to_payload(&batch, buf),
				   &why) < 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint64_t buf[(IVWL_RING_MAX_SIZE / 2) / 8];
	struct ivwl_device dev = { .region_fd = -1 };
	struct ivwl_vm vm = { .name = "fuzz", .dev = &dev };
	struct ivwl_translation xl;
	int alarm;
	const char *why;
	size_t pos = 0;

	/* translation logs what it refuses: not wanted here */
	ivwl_log_set_sink(ivwl_log_discard, NULL);
	if (ivwl_layout_compute(64ull << 20, &vm.side.layout) < 0)
		abort();
	vm.pipe_budget = ivwl_pipe_budget_create(IVWL_PIPE_VM_BUFFER);
	if (!vm.pipe_budget)
		abort();
	dev.region_fd = memfd_create("fuzz-region", MFD_CLOEXEC);
	alarm = eventfd(0, EFD_CLOEXEC);
	ivwl_test_vm_alarm_fd = alarm;
	if (dev.region_fd < 0 ||
	    ivwl_translation_init(&xl, &ivwl_test_vm_host, &vm, NULL) < 0)
		abort();
	ivwl_stream_out_release(&xl.to_server);
	ivwl_stream_out_init(&xl.to_server, 1 << 20);
	prologue(&xl, &vm.side.layout, buf);

	while (pos + 3 <= size) {
		static const uint16_t channel_types[] = {
			IVWL_RECORD_CHANNEL_DATA, IVWL_RECORD_CHANNEL_CLOSE,
			IVWL_RECORD_CHANNEL_CREDIT,
		};
		struct ivwl_channel *finished;
		uint8_t kind = data[pos];
		uint16_t len;
		int ret;

		memcpy(&len, data + pos + 1, 2);
		pos += 3;
		if (len > size - pos)
			len = (uint16_t)(size - pos);
		memcpy(buf, data + pos, len);
		pos += len;
		if (kind % 4 == 0) {
			ret = ivwl_translate_request(&xl, buf, len, &why);
		} else {
			ret = ivwl_channels_handle(&xl.channels,
						   channel_types[kind % 4 - 1],
						   buf, len, &finished);
			if (ret == 0 && finished)
				ivwl_channel_destroy(&xl.channels, finished);
		}
		if (ret < 0)
			break;
		/* libwayland would take these; keep the queue bounded */
		ivwl_stream_out_release(&xl.to_server);
		ivwl_stream_out_init(&xl.to_server, 1 << 20);
	}
	ivwl_translation_release(&xl);
	close(dev.region_fd);
	close(alarm);
	ivwl_test_vm_alarm_fd = -1;
	ivwl_pipe_budget_unref(vm.pipe_budget);
	return 0;
}
