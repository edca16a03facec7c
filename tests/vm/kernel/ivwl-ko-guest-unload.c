/* SPDX-License-Identifier: MIT */
/*
 * ivwl-ko-guest's checks of where BAR2 is and how it is mapped, and of
 * the driver going with clients attached: rmmod refused, the PCI device
 * unbound under them (mappings fault, calls fail with ENODEV), rmmod
 * once they are gone, the reload on the memremap fallback used again.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <linux/dma-buf.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ivwl-ko-guest.h"
#include "../probe.h"

static int
delete_module(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK);
}

static int
load_module(const char *path, const char *params)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -1;
	ret = syscall(SYS_finit_module, fd, params, 0);
	close(fd);
	return ret;
}

static bool
module_loaded(void)
{
	struct stat st;

	return stat("/sys/module/ivwl", &st) == 0;
}

/*
 * BAR2's physical range, from the PCI device behind the node (line 2 of
 * its sysfs resource file).  0 on success.
 */
static int
bar2_range(uint64_t *start, uint64_t *end)
{
	char line[256];
	FILE *f;
	int i, ret = -1;

	f = fopen("/sys/class/misc/ivwl0/device/resource", "re");
	if (!f)
		return -1;
	for (i = 0; i <= 2 && fgets(line, sizeof(line), f); i++)
		if (i == 2 && sscanf(line, "%" SCNx64 " %" SCNx64, start,
				     end) == 2)
			ret = 0;
	fclose(f);
	return ret;
}

/*
 * Where BAR2 is and what memory type the guest maps it with.  With
 * g->bar_high, BAR2 must lie above 4 GiB (ivwl.ko's move_high), the
 * driver must report IVWL_INFO_F_WB and every PAT memtype entry over
 * BAR2 (the kernel mapping and each user mapping reserve one) must be
 * write-back; without, BAR2 stays in the 32-bit PCI hole, which the
 * firmware's MTRRs make uncached: no IVWL_INFO_F_WB, every entry
 * uncached-minus.  Needs debugfs at /sys/kernel/debug (test-ivwl-ko.sh
 * mounts it).
 */
void
check_memtype(const struct ivwl_guest *g, uint32_t flags, const char *when)
{
	const char *want = g->bar_high ? "write-back" : "uncached-minus";
	uint64_t start, end, a, b;
	char line[256], type[64];
	int match = 0, other = 0;
	FILE *f;

	if (bar2_range(&start, &end) < 0) {
		bad("%s: cannot read BAR2's range from sysfs", when);
		return;
	}
	if ((start >= (1ull << 32)) != g->bar_high)
		bad("%s: BAR2 at 0x%" PRIx64 ", expected %s 4 GiB", when,
		    start, g->bar_high ? "above" : "below");
	if (!!(flags & IVWL_INFO_F_WB) != g->bar_high)
		bad("%s: GET_INFO flags 0x%x %s IVWL_INFO_F_WB", when, flags,
		    g->bar_high ? "without" : "with");
	f = fopen("/sys/kernel/debug/x86/pat_memtype_list", "re");
	if (!f) {
		bad("%s: no /sys/kernel/debug/x86/pat_memtype_list: %s", when,
		    strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "PAT: [mem 0x%" SCNx64 "-0x%" SCNx64 "] %63s",
			   &a, &b, type) != 3)
			continue;
		if (b <= start || a > end)
			continue;
		if (strcmp(type, want) == 0) {
			match++;
		} else {
			other++;
			bad("%s: BAR2 memtype entry %s, expected %s", when,
			    line, want);
		}
	}
	fclose(f);
	if (match < 2)
		bad("%s: %d %s PAT memtype entries over BAR2 [0x%" PRIx64
		    "-0x%" PRIx64 "], expected at least 2 (kernel, user)",
		    when, match, want, start, end);
	else if (!other)
		say("%s: BAR2 at 0x%" PRIx64 ", %d PAT memtype entries over "
		    "it, all %s", when, start, match, want);
}

/* Unbinds the PCI device behind /dev/ivwl0 from the driver. */
static int
unbind_device(char *bdf, size_t len)
{
	char link[256];
	ssize_t n;
	int fd;

	n = readlink("/sys/class/misc/ivwl0/device", link, sizeof(link) - 1);
	if (n < 0)
		return -1;
	link[n] = '\0';
	snprintf(bdf, len, "%s", basename(link));
	fd = open("/sys/bus/pci/drivers/ivwl/unbind", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = write(fd, bdf, strlen(bdf));
	close(fd);
	return n == (ssize_t)strlen(bdf) ? 0 : -1;
}

static int
wait_for_node(const char *dev, int ms)
{
	int64_t deadline = ivwl_now_ms() + ms;
	struct stat st;

	while (stat(dev, &st) < 0) {
		if (ivwl_now_ms() > deadline)
			return -1;
		usleep(10000);
	}
	return 0;
}

/*
 * Unbind and unload with clients attached, then reload (with the
 * memremap fallback) and use again.
 */
void
check_unload_reload(struct ivwl_guest *g, int dfd, void *dmap,
		    uint64_t dsize)
{
	uint64_t seed = g->host_seed ^ PROBE_REPLY_XOR, sum, badw, t;
	struct ivwl_doorbell db = { .peer = 0, .vector = 0 };
	struct pollfd pfd = { .fd = g->fd, .events = POLLIN };
	struct ivwl_info info;
	struct ivwl_event rec;
	struct probe_block *b;
	char bdf[64], params[256];
	int fd, dfd2, ret, card = -1, i, status;
	uint32_t handle = 0;
	void *base, *p;
	bool reaped;
	pid_t child;

	/* rmmod with an open fd, a live mmap and a live mapped dma-buf */
	if (delete_module("ivwl") == 0)
		bad("rmmod ivwl succeeded with clients attached");
	else if (errno != EWOULDBLOCK)
		bad("rmmod ivwl with clients: %s, expected %s",
		    strerror(errno), strerror(EWOULDBLOCK));
	else
		say("rmmod with an open fd, mmap and dma-buf: %s as expected",
		    strerror(EWOULDBLOCK));
	if (!module_loaded())
		bad("ivwl gone from /sys/module after a refused rmmod");
	if (ivwl_touch_faults(g->base, false))
		bad("node mapping faults after a refused rmmod");

	/*
	 * Unbind the device under the clients' feet.  With a vgem
	 * attachment alive, the unbind has to wait for it (the sg_table
	 * names the region's struct pages): unbind in a child, check it is
	 * still waiting once remove() has run, then let the attachment go.
	 */
	if (g->vgem && vgem_import_keep(dfd, &card, &handle) < 0) {
		bad("vgem import before unbind: %s", strerror(errno));
		card = -1;
	}
	t = ivwl_now_us();
	if (card < 0) {
		if (unbind_device(bdf, sizeof(bdf)) < 0) {
			bad("unbind of ivwl0's PCI device: %s",
			    strerror(errno));
			return;
		}
	} else {
		child = fork();
		if (child == 0)
			_exit(unbind_device(bdf, sizeof(bdf)) < 0 ? 1 : 0);
		for (i = 0; i < 1000; i++) {
			if (ioctl(g->fd, IVWL_IOCTL_GET_INFO, &info) < 0 &&
			    errno == ENODEV)
				break;
			usleep(10000);
		}
		usleep(300000);
		reaped = waitpid(child, &status, WNOHANG) == child;
		if (i == 1000)
			bad("remove() did not run within 10 s of the unbind");
		else if (reaped)
			bad("unbind finished while vgem still had the "
			    "dma-buf mapped");
		else
			say("unbind waits while vgem has the dma-buf mapped");
		t = ivwl_now_us();
		ret = vgem_release(card, handle);
		if (ret)
			bad("vgem release during unbind: %s", strerror(-ret));
		for (i = 0; !reaped && i < 1000; i++) {
			if (waitpid(child, &status, WNOHANG) == child)
				break;
			usleep(10000);
		}
		if (i == 1000) {
			bad("unbind still blocked 10 s after vgem let go");
			return;
		}
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			bad("unbind of ivwl0's PCI device failed");
			return;
		}
		say("unbind completed once vgem let go");
	}
	say("MEASURE unbind with clients attached: %" PRIu64 " us%s",
	    ivwl_now_us() - t, card < 0 ? "" : " (after vgem let go)");
	if (access(g->dev, F_OK) == 0 || errno != ENOENT)
		bad("%s still exists after unbind", g->dev);

	if (!ivwl_touch_faults(g->base, false))
		bad("node mapping readable after unbind, expected SIGBUS");
	else if (!ivwl_touch_faults((uint8_t *)g->base + g->size - 1, true))
		bad("node mapping writable after unbind, expected SIGBUS");
	else
		say("node mapping raises SIGBUS after unbind");
	if (!ivwl_touch_faults(dmap, false) ||
	    !ivwl_touch_faults((uint8_t *)dmap + dsize - 1, true))
		bad("dma-buf mapping usable after unbind, expected SIGBUS");
	else
		say("dma-buf mapping raises SIGBUS after unbind");

	expect_ioctl_err(g->fd, IVWL_IOCTL_GET_INFO, &info, ENODEV,
			 "GET_INFO after unbind");
	expect_ioctl_err(g->fd, IVWL_IOCTL_DOORBELL, &db, ENODEV,
			 "DOORBELL after unbind");
	expect_export_err(g->fd, 0, 4096, 0, 0, ENODEV, "EXPORT after unbind");
	expect_read_err(g->fd, &rec, sizeof(rec), ENODEV,
			"read after unbind");
	expect_mmap_err(g->fd, 4096, 0, PROT_READ, MAP_SHARED, ENODEV,
			"mmap of the node after unbind");
	expect_mmap_err(dfd, 4096, 0, PROT_READ, MAP_SHARED, ENODEV,
			"mmap of the dma-buf after unbind");
	if (poll(&pfd, 1, 0) != 1 || pfd.revents != (POLLHUP | POLLERR))
		bad("poll after unbind: revents 0x%x, expected POLLHUP|POLLERR",
		    pfd.revents);
	if (dmabuf_sync(dfd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW) == 0)
		bad("DMA_BUF_IOCTL_SYNC after unbind succeeded");
	else if (errno != ENODEV)
		bad("DMA_BUF_IOCTL_SYNC after unbind: %s, expected ENODEV",
		    strerror(errno));

	if (delete_module("ivwl") == 0 || errno != EWOULDBLOCK)
		bad("rmmod after unbind with clients: %s, expected %s",
		    strerror(errno), strerror(EWOULDBLOCK));

	/* Let go: the dma-buf first (mapping, then fd), then the node. */
	munmap(dmap, dsize);
	close(dfd);
	munmap(g->base, g->size);
	g->base = NULL;
	close(g->fd);
	g->fd = -1;
	if (delete_module("ivwl") < 0) {
		bad("rmmod once every client is gone: %s", strerror(errno));
		return;
	}
	if (module_loaded())
		bad("/sys/module/ivwl still there after rmmod");
	say("rmmod succeeded once the clients were gone");

	/* Reload, this time on the memremap fallback, and use again. */
	t = ivwl_now_us();
	snprintf(params, sizeof(params), "%s no_pages=1", g->params);
	if (load_module(g->module, params) < 0) {
		bad("reload of %s: %s", g->module, strerror(errno));
		return;
	}
	if (wait_for_node(g->dev, 10000) < 0) {
		bad("no %s after the reload", g->dev);
		return;
	}
	say("MEASURE reload to device node: %" PRIu64 " ms",
	    (ivwl_now_us() - t) / 1000);
	fd = open(g->dev, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		bad("open after reload: %s", strerror(errno));
		return;
	}
	g->fd = fd;
	if (ioctl(fd, IVWL_IOCTL_GET_INFO, &info) < 0) {
		bad("GET_INFO after reload: %s", strerror(errno));
		return;
	}
	if (info.abi != IVWL_ABI_VERSION || info.ivposition != IVWL_PEER_APP ||
	    info.nr_vectors != g->vectors || info.shm_size != g->size ||
	    (info.flags & ~IVWL_INFO_F_WB) !=
	    (IVWL_INFO_F_EXPORT | IVWL_INFO_F_READ))
		bad("GET_INFO after reload: abi %u ivposition %u vectors %u "
		    "size %llu flags 0x%x, expected flags 0x%x (no pages) "
		    "and maybe write-back", info.abi, info.ivposition,
		    info.nr_vectors, (unsigned long long)info.shm_size,
		    info.flags, IVWL_INFO_F_EXPORT | IVWL_INFO_F_READ);
	else
		say("reloaded with no_pages=1: GET_INFO flags 0x%x",
		    info.flags);

	base = mmap(NULL, g->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		bad("mmap after reload: %s", strerror(errno));
		return;
	}
	g->base = base;
	b = probe_block_at(base, &g->layout, PROBE_BLOCK_REPLY);
	badw = probe_verify(probe_block_data(b), PROBE_LENGTH, seed, &sum);
	if (badw != PROBE_LENGTH / 8 || b->magic != PROBE_MAGIC_REPLY)
		bad("reply pattern not intact after reload (word %" PRIu64 ")",
		    badw);
	else
		say("reply pattern intact through the node after reload");

	dfd2 = ivwl_export(fd, g->layout.heap_offset +
			   PROBE_BLOCK_REPLY * PROBE_AREA,
			   PROBE_DATA_OFFSET + PROBE_LENGTH, 0);
	if (dfd2 < 0) {
		bad("EXPORT on the fallback: %s", strerror(errno));
	} else {
		check_dmabuf_fd(dfd2, PROBE_DATA_OFFSET + PROBE_LENGTH, false,
				"fallback dma-buf");
		p = mmap(NULL, PROBE_DATA_OFFSET + PROBE_LENGTH, PROT_READ,
			 MAP_SHARED, dfd2, 0);
		if (p == MAP_FAILED) {
			bad("dma-buf mmap on the fallback: %s",
			    strerror(errno));
		} else {
			b = p;
			badw = probe_verify(probe_block_data(b), PROBE_LENGTH,
					    seed, &sum);
			if (badw != PROBE_LENGTH / 8)
				bad("reply pattern wrong through the fallback "
				    "dma-buf (word %" PRIu64 ")", badw);
			else
				say("reply pattern read through a dma-buf on "
				    "the fallback");
			check_memtype(g, info.flags,
				      "fallback, node and dma-buf mapped");
			munmap(p, PROBE_DATA_OFFSET + PROBE_LENGTH);
		}
		if (g->vgem) {
			ret = vgem_import(dfd2);
			if (ret != -EOPNOTSUPP)
				bad("vgem import on the fallback: %s, expected "
				    "%s", ret ? strerror(-ret) : "success",
				    strerror(EOPNOTSUPP));
			else
				say("vgem import on the fallback: %s as "
				    "expected", strerror(EOPNOTSUPP));
		}
		close(dfd2);
	}
	if (loopback_once(g, fd, 0) && loopback_once(g, fd, g->vectors - 1))
		say("loopback doorbells work after the reload");
}
