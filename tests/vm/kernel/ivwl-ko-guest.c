/* SPDX-License-Identifier: MIT */
/*
 * ivwl-ko-guest: runs in the VM with ivwl.ko loaded and drives
 * /dev/ivwl0 against tests/vm/host-peer (same exchange as guest-probe,
 * docs/vm-testing.md, but through the driver), then unbinds, unloads and
 * reloads the driver with clients attached:
 *   - the node (char device, mode 0600) and IVWL_IOCTL_GET_INFO;
 *   - every bad ioctl, read and mmap argument refused with the right errno;
 *   - read()/poll() of doorbells rung on our own peer (loopback through
 *     QEMU): exact records, per-file counts, round robin, blocking read;
 *   - binds an eventfd to every vector (SET_EVENTFD); bindings belong to
 *     the open file that made them: EBUSY from another file, a dup of
 *     the owner rebinds, the binding goes when the owner is released;
 *   - times the release of a file with every vector bound (MEASURE
 *     line; printed, not judged) and checks it unbound them all;
 *   - protocol/'s device API on the node: a second opener fails with
 *     EBUSY and says why, a region not mapped write-back is warned about;
 *   - mmaps the region, checks the host block;
 *   - exports the reply block as a dma-buf, writes the reply pattern
 *     through the dma-buf mapping, checks it through the /dev mapping
 *     (host-peer then checks it on the host), imports it into vgem when
 *     --vgem is given (a device attachment);
 *   - rings peer 0 on every vector (DOORBELL);
 *   - waits for the host's doorbell on every eventfd and in read(),
 *     writes the ack;
 *   - where BAR2 is and its memory type: IVWL_INFO_F_WB and every PAT
 *     memtype entry over BAR2 against --bar (check_memtype());
 *   - with an open fd, a live mmap and a live dma-buf (mapped): rmmod
 *     fails with EWOULDBLOCK; unbinding the PCI device succeeds (after
 *     waiting for a vgem import to let go), the mappings then raise
 *     SIGBUS and every call fails with ENODEV;
 *     once they are closed rmmod succeeds; the module is loaded again
 *     with no_pages=1 (the memremap fallback) and used again: pattern
 *     read back through the node and a dma-buf, loopback doorbell,
 *     device attachment refused with EOPNOTSUPP.
 * The last line is "GUEST RESULT: PASS" or "GUEST RESULT: FAIL <why>".
 *
 *   ivwl-ko-guest --size BYTES --vectors N --module PATH [--vgem]
 *                 [--bar high|low] [--params 'P=V ...']
 *                 [--timeout-ms MS] [--dev PATH]
 *
 * --bar says where BAR2 must be and so which memory type the mapping
 * must have (see check_memtype()); --params are the parameters ivwl.ko
 * was first loaded with (the reload adds no_pages=1).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ivwl-ko-guest.h"
#include "../probe.h"

#define ALL_FLAGS (IVWL_INFO_F_PAGES | IVWL_INFO_F_EXPORT | IVWL_INFO_F_READ)

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "vectors", required_argument, NULL, 'v' },
		{ "timeout-ms", required_argument, NULL, 't' },
		{ "dev", required_argument, NULL, 'd' },
		{ "module", required_argument, NULL, 'm' },
		{ "vgem", no_argument, NULL, 'g' },
		{ "bar", required_argument, NULL, 'b' },
		{ "params", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	struct ivwl_guest g = {
		.dev = "/dev/ivwl0", .timeout_ms = 60000, .fd = -1,
		.bar_high = true, .params = "",
	};
	struct probe_block *b;
	struct sigaction sa;
	int64_t deadline;
	uint64_t seen, dsize = 0;
	uint32_t v;
	int c, efd[MAX_VECTORS], dfd;
	struct stat st;
	void *dmap = NULL;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's': g.size = strtoull(optarg, NULL, 0); break;
		case 'v': g.vectors = strtoul(optarg, NULL, 0); break;
		case 't': g.timeout_ms = atoi(optarg); break;
		case 'd': g.dev = optarg; break;
		case 'm': g.module = optarg; break;
		case 'g': g.vgem = true; break;
		case 'b': g.bar_high = strcmp(optarg, "low") != 0; break;
		case 'p': g.params = optarg; break;
		default: return result("bad arguments");
		}
	}
	if (!g.size || g.vectors < 2 || g.vectors > MAX_VECTORS || !g.module)
		return result("usage: --size BYTES --vectors N (2..64) "
			      "--module PATH [--vgem]");

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = ivwl_on_sigbus;
	sigaction(SIGBUS, &sa, NULL);
	g.hole = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		      0);
	if (g.hole == MAP_FAILED)
		return result("mmap of a scratch page failed");
	munmap(g.hole, 4096);

	if (stat(g.dev, &st) < 0)
		return result("no device node (driver not bound?)");
	if (!S_ISCHR(st.st_mode))
		bad("%s is not a character device", g.dev);
	if ((st.st_mode & 0777) != 0600)
		bad("%s has mode %03o, expected 600", g.dev, st.st_mode & 0777);
	g.fd = open(g.dev, O_RDWR | O_CLOEXEC);
	if (g.fd < 0)
		return result("cannot open the device node");

	if (ioctl(g.fd, IVWL_IOCTL_GET_INFO, &g.info) < 0)
		return result("GET_INFO failed");
	say("GET_INFO: abi %u ivposition %u nr_vectors %u flags 0x%x "
	    "shm_size %" PRIu64, g.info.abi, g.info.ivposition,
	    g.info.nr_vectors, g.info.flags, (uint64_t)g.info.shm_size);
	if (g.info.abi != IVWL_ABI_VERSION)
		bad("abi %u, expected %u", g.info.abi, IVWL_ABI_VERSION);
	if (g.info.ivposition != IVWL_PEER_APP)
		bad("ivposition %u, expected %u", g.info.ivposition,
		    IVWL_PEER_APP);
	if (g.info.nr_vectors != g.vectors)
		bad("nr_vectors %u, expected %u", g.info.nr_vectors, g.vectors);
	if (g.info.shm_size != g.size)
		return result("shm_size does not match --size");
	if ((g.info.flags & ~IVWL_INFO_F_WB) != ALL_FLAGS)
		bad("flags 0x%x, expected 0x%x (pages, export, read) and "
		    "maybe write-back", g.info.flags, ALL_FLAGS);
	if (ivwl_layout_compute(g.size, &g.layout) < 0 ||
	    g.layout.heap_size < PROBE_HEAP_NEEDED)
		return result("region too small for the probe layout");

	check_bad_arguments(&g);
	check_read_poll(&g);
	check_eventfd_owner(&g);
	measure_release(&g);
	check_device_api(&g);

	/* Bind, rebind and unbind once before the real bindings. */
	efd[0] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (efd[0] < 0)
		return result("eventfd failed");
	bind_eventfd(g.fd, 0, efd[0]);
	bind_eventfd(g.fd, 0, efd[0]);
	bind_eventfd(g.fd, 0, -1);
	bind_eventfd(g.fd, 0, -1);
	close(efd[0]);

	for (v = 0; v < g.vectors; v++) {
		efd[v] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (efd[v] < 0)
			return result("eventfd failed");
		if (bind_eventfd(g.fd, v, efd[v]) < 0)
			return result("cannot bind eventfds");
	}
	say("eventfds bound to vectors 0..%u", g.vectors - 1);

	g.base = mmap(NULL, g.size, PROT_READ | PROT_WRITE, MAP_SHARED, g.fd,
		      0);
	if (g.base == MAP_FAILED)
		return result("mmap of the whole region failed");

	deadline = ivwl_now_ms() + g.timeout_ms;
	if (wait_for_host_block(&g, deadline) < 0)
		return result("no valid host block");

	dfd = reply_through_dmabuf(&g, &dmap, &dsize);
	if (dfd < 0)
		return result("reply through a dma-buf failed");
	check_memtype(&g, g.info.flags, "pages, node and dma-buf mapped");

	for (v = 0; v < g.vectors; v++)
		if (ring(g.fd, IVWL_PEER_DISPLAY, v) < 0)
			bad("DOORBELL peer 0 vector %u: %s", v,
			    strerror(errno));
	say("rang peer %u on vectors 0..%u", IVWL_PEER_DISPLAY, g.vectors - 1);

	seen = wait_host_doorbells(&g, efd, deadline);

	b = probe_block_at(g.base, &g.layout, PROBE_BLOCK_ACK);
	b->value = seen;
	__atomic_store_n(&b->magic, PROBE_MAGIC_ACK, __ATOMIC_RELEASE);

	/* Eventfds stay bound: the unbind must drop them too. */
	check_unload_reload(&g, dfd, dmap, dsize);
	for (v = 0; v < g.vectors; v++)
		close(efd[v]);
	if (g.base)
		munmap(g.base, g.size);
	if (g.fd >= 0)
		close(g.fd);
	return result(NULL);
}
