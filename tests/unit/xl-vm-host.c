/* SPDX-License-Identifier: MIT */
#include <errno.h>

#include "device-backend.h"
#include "ivwl-limits.h"
#include "ivwl-plugin.h"
#include "vm.h"
#include "xl-vm-host.h"

int ivwl_test_vm_alarm_fd = -1;

static const char *
vm_name(void *data)
{
	struct ivwl_vm *vm = data;

	return vm->name;
}

static const struct ivwl_layout *
layout(void *data)
{
	struct ivwl_vm *vm = data;

	return &vm->side.layout;
}

static int
region_fd(void *data)
{
	struct ivwl_vm *vm = data;

	return ivwl_device_region_fd(vm->dev);
}

static int
take_mapping(void *data)
{
	return ivwl_vm_take_pool_mapping(data);
}

static void
drop_mapping(void *data)
{
	ivwl_vm_drop_pool_mapping(data);
}

static struct ivwl_firewall_totals *
firewall_totals(void *data)
{
	struct ivwl_vm *vm = data;

	return &vm->totals;
}

static struct ivwl_pipe_budget *
pipe_budget(void *data)
{
	struct ivwl_vm *vm = data;

	return vm->pipe_budget;
}

static const struct ivwl_trust_ops *
trust(struct ivwl_vm *vm)
{
	return vm->plugin ? vm->plugin->trust : NULL;
}

static bool
fullscreen(void *data)
{
	const struct ivwl_trust_ops *t = trust(data);

	return t && t->fullscreen && t->fullscreen(t->data, NULL);
}

static uint32_t
popup_grab_serial(void *data, uint32_t serial)
{
	const struct ivwl_trust_ops *t = trust(data);

	if (!t || !t->popup_grab_serial)
		return serial;
	return t->popup_grab_serial(t->data, NULL, serial);
}

static int
alarm_fd(void *data)
{
	return ivwl_test_vm_alarm_fd;
}

const struct ivwl_translate_host ivwl_test_vm_host = {
	.vm_name = vm_name,
	.layout = layout,
	.region_fd = region_fd,
	.take_mapping = take_mapping,
	.drop_mapping = drop_mapping,
	.firewall_totals = firewall_totals,
	.pipe_budget = pipe_budget,
	.fullscreen = fullscreen,
	.popup_grab_serial = popup_grab_serial,
	.alarm_fd = alarm_fd,
};
