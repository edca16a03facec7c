/* SPDX-License-Identifier: MIT */
/*
 * The region's fd of a VM whose ivwl-server lends it (server=,
 * IVWL_DEVICE_SERVER_BORROW): weston keeps the region mapped and holds
 * its fd only across a burst of wl_shm.create_pool, each of which hands
 * libwayland a dup of it (translate.c; libwayland maps it and closes
 * it).  A connection whose next request record needs it holds that
 * record and waits (connection.c); the VM asks once for all of them, and
 * lets the fd go when the last of them has handled its record.  A server
 * that never answers leaves those connections waiting, costing nothing;
 * its other connections, and other VMs, go on.
 *
 * With device= or a server that does not lend, the device holds its
 * region fd for good and nothing here runs.
 */
#include "device.h"
#include "connection.h"
#include "vm.h"

/* From ivwl_device_dispatch(): the server lent the fd. */
static void
on_region(void *data)
{
	struct ivwl_vm *vm = data;
	uint32_t i;

	vm->live.region_loans++;
	/* Its waiters went meanwhile. */
	if (vm->region_waiters == 0) {
		ivwl_device_region_release(vm->dev);
		return;
	}
	for (i = 0; i < IVWL_SLOT_COUNT; i++)
		if (vm->conns[i])
			ivwl_connection_region_ready(vm->conns[i]);
}

void
ivwl_vm_region_attached(struct ivwl_vm *vm)
{
	vm->region_waiters = 0;
	ivwl_device_set_region_listener(vm->dev, on_region, vm);
}

void
ivwl_vm_region_wait(struct ivwl_vm *vm)
{
	vm->region_waiters++;
	/*
	 * Asked already: nothing more.  A server gone (-ECONNRESET) or
	 * faulty is seen by the device's dispatch, which detaches the VM
	 * and ends the waiters.
	 */
	if (vm->dev)
		ivwl_device_region_ask(vm->dev);
}

void
ivwl_vm_region_done(struct ivwl_vm *vm)
{
	if (vm->region_waiters > 0)
		vm->region_waiters--;
	if (vm->region_waiters == 0 && vm->dev)
		ivwl_device_region_release(vm->dev);
}
