/* SPDX-License-Identifier: MIT */
/*
 * Device backend for /dev/ivwlN, the guest driver kernel/ivwl.ko.
 *
 * The region is mmap() of the device node; we ring a peer with
 * IVWL_IOCTL_DOORBELL and wait on one eventfd per own vector, bound with
 * IVWL_IOCTL_SET_EVENTFD, so callers see the same waitable eventfds as
 * with the ivshmem-client backend.
 *
 * Peer presence: ivshmem tells a guest nothing about other peers (QEMU
 * keeps that to itself and drops doorbells to absent peers), so this
 * backend reports every peer as present and never calls the peer
 * listener.  Whether the other side is there is read from the region
 * instead, as both sides already do: its side block's state and epoch
 * (docs/region.md).  What a host peer learns from the server at once, a
 * guest learns when the other side writes its block: at a clean exit
 * (GONE) or at its next start (new epoch).
 *
 * Vector bindings: one eventfd per vector for the whole device, owned by
 * the open file that bound it (kernel/uapi/ivwl.h).  The process that
 * opens the device here owns its vectors (the agent in an app-vm,
 * weston in a gui-vm); a second opener gets EBUSY and fails with a
 * message saying so, until the owner's file is gone.  The node is opened
 * twice: one file binds the vectors and never leaves this process, the
 * other maps the region and rings, and is what endpoints get dups of.
 * Relays and zero-copy clients hold those dups for as long as they
 * live; were they dups of the binding file, a crashed agent's bindings
 * would live on in them and keep its restarted successor out.
 *
 * A region the guest does not map write-back (no IVWL_INFO_F_WB) works
 * but may be uncached, so slow: warned about on stderr at open, see
 * docs/driver.md "Memory type".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "device-backend.h"
#include "log.h"
#include "region.h"
#include "uapi/ivwl.h"


#define STR(x) #x
#define XSTR(x) STR(x)

struct kernel_device {
	struct ivwl_device dev;	/* region_fd: maps and rings, shared */
	int bind_fd;		/* binds vector_fds, never shared; -1:
				 * IVWL_DEVICE_PRIVATE, region_fd does */
	uint32_t nr_vector_fds;	/* nr_vectors before use_vectors */
	int *vector_fds;	/* own eventfds, bound to the driver */
};

static const struct ivwl_device_ops kernel_ops;

int
ivwl_kernel_doorbell(int fd, uint32_t peer, uint32_t vector)
{
	struct ivwl_doorbell db = {
		.peer = (uint16_t)peer,
		.vector = (uint16_t)vector,
	};

	if (peer > IVWL_MAX_PEER_ID || vector > UINT16_MAX)
		return -EINVAL;
	while (ioctl(fd, IVWL_IOCTL_DOORBELL, &db) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

int
ivwl_kernel_export(int fd, uint64_t offset, uint64_t length)
{
	struct ivwl_export ex = {
		.offset = offset,
		.size = length,
		.flags = IVWL_EXPORT_F_RDWR,
	};
	int ret;

	do {
		ret = ioctl(fd, IVWL_IOCTL_EXPORT_DMABUF, &ex);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : ret;
}

static int
open_node(const char *path, const char **err)
{
	struct stat st;
	int fd, ret;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		switch (ret) {
		case -ENOENT:
			*err = "no such device node (is ivwl.ko loaded and "
			       "does the VM have an ivshmem-doorbell device?)";
			break;
		case -EACCES:
		case -EPERM:
			*err = "permission denied (the node is for root and "
			       "group ivwl: see kernel/udev/60-ivwl.rules)";
			break;
		case -ENXIO:
		case -ENODEV:
			*err = "the device is gone (driver unbound?)";
			break;
		default:
			*err = "cannot open the device node";
			break;
		}
		return ret;
	}
	if (fstat(fd, &st) < 0 || !S_ISCHR(st.st_mode)) {
		close(fd);
		*err = "not a character device (want /dev/ivwlN)";
		return -ENOTTY;
	}
	return fd;
}

static int
get_info(int fd, struct ivwl_info *info, const char **err)
{
	memset(info, 0, sizeof(*info));
	if (ioctl(fd, IVWL_IOCTL_GET_INFO, info) < 0) {
		if (errno == ENOTTY || errno == EINVAL) {
			*err = "not an ivwl device, or an ivwl.ko older "
			       "than this build's ioctl numbers (it refuses "
			       "IVWL_IOCTL_GET_INFO)";
			return -ENOTTY;
		}
		*err = "IVWL_IOCTL_GET_INFO failed";
		return -errno;
	}
	if (info->abi != IVWL_ABI_VERSION) {
		*err = "ivwl.ko speaks another ABI version than this build "
		       "(IVWL_ABI_VERSION " XSTR(IVWL_ABI_VERSION) "): "
		       "install a matching driver";
		return -EPROTO;
	}
	if (info->nr_vectors == 0) {
		*err = "the device has no doorbell vectors";
		return -EPROTO;
	}
	if (info->ivposition > IVWL_MAX_PEER_ID) {
		*err = "the device reports an invalid peer id";
		return -EPROTO;
	}
	return 0;
}

/*
 * No IVWL_INFO_F_WB: the guest maps the region uncached-minus (BAR2 in
 * the MTRR-uncached 32-bit PCI hole), or the driver predates the flag.
 * Everything works, slowly where the hypervisor honours guest memory
 * types.  Said through the logger of the program that opened the
 * device (ivwl-agent's, or weston's log for the plugin).
 */
static void
warn_not_wb(const char *path)
{
	ivwl_log_warning("%s: the guest does not map the region write-back "
			 "(GET_INFO without IVWL_INFO_F_WB): it may be "
			 "uncached and every access slow; see the driver's "
			 "\"BAR 2\" and \"not write-back\" lines in dmesg and "
			 "docs/driver.md \"Memory type\"", path);
}

/* The open file the vectors are bound through: closing it unbinds them. */
static int
binder(const struct kernel_device *kd)
{
	return kd->bind_fd >= 0 ? kd->bind_fd : kd->dev.region_fd;
}

static int
bind_vectors(struct kernel_device *kd, const char **err)
{
	struct ivwl_eventfd req;
	uint32_t v;

	kd->vector_fds = malloc(kd->dev.nr_vectors * sizeof(int));
	if (!kd->vector_fds) {
		*err = "out of memory";
		return -ENOMEM;
	}
	kd->nr_vector_fds = kd->dev.nr_vectors;
	for (v = 0; v < kd->dev.nr_vectors; v++)
		kd->vector_fds[v] = -1;

	for (v = 0; v < kd->dev.nr_vectors; v++) {
		/*
		 * Non-blocking: draining must return at once when nothing
		 * is pending, as with the server's eventfds.
		 */
		kd->vector_fds[v] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (kd->vector_fds[v] < 0) {
			*err = "cannot create an eventfd";
			return -errno;
		}
		req.vector = v;
		req.fd = kd->vector_fds[v];
		if (ioctl(binder(kd), IVWL_IOCTL_SET_EVENTFD, &req) < 0) {
			if (errno == EBUSY)
				*err = "the device's doorbell vectors are "
				       "bound by another process: is another "
				       "ivwl-agent or weston using it?";
			else
				*err = "IVWL_IOCTL_SET_EVENTFD failed";
			return -errno;
		}
	}
	return 0;
}

int
ivwl_device_open_kernel(const char *path, uint32_t flags,
			struct ivwl_device **out, const char **err)
{
	struct ivwl_layout layout;
	struct kernel_device *kd;
	struct ivwl_info info;
	const char *dummy;
	int ret;

	if (!err)
		err = &dummy;
	*err = NULL;
	*out = NULL;

	kd = calloc(1, sizeof(*kd));
	if (!kd) {
		*err = "out of memory";
		return -ENOMEM;
	}
	kd->dev.ops = &kernel_ops;
	kd->bind_fd = -1;
	kd->dev.region_fd = open_node(path, err);
	if (kd->dev.region_fd < 0) {
		ret = kd->dev.region_fd;
		goto err_free;
	}
	ret = get_info(kd->dev.region_fd, &info, err);
	if (ret < 0)
		goto err_close;
	if (ivwl_layout_compute(info.shm_size, &layout) < 0) {
		*err = "the region size is not a valid ivwl region size "
		       "(a power of two, 2 MiB to 64 GiB)";
		ret = -EINVAL;
		goto err_close;
	}
	if (!(info.flags & IVWL_INFO_F_WB))
		warn_not_wb(path);
	kd->dev.size = info.shm_size;
	kd->dev.peer_id = info.ivposition;
	kd->dev.nr_vectors = info.nr_vectors;
	kd->dev.ring_vectors = info.nr_vectors;
	kd->dev.rings_by_number = true;

	kd->dev.base = mmap(NULL, kd->dev.size, PROT_READ | PROT_WRITE,
			    MAP_SHARED, kd->dev.region_fd, 0);
	if (kd->dev.base == MAP_FAILED) {
		ret = -errno;
		kd->dev.base = NULL;
		*err = "cannot map the region";
		goto err_close;
	}
	if (!(flags & IVWL_DEVICE_PRIVATE)) {
		kd->bind_fd = open_node(path, err);
		if (kd->bind_fd < 0) {
			ret = kd->bind_fd;
			goto err_destroy;
		}
	}
	ret = bind_vectors(kd, err);
	if (ret < 0)
		goto err_destroy;

	*out = &kd->dev;
	return 0;

err_destroy:
	ivwl_device_destroy(&kd->dev);
	return ret;
err_close:
	close(kd->dev.region_fd);
err_free:
	free(kd);
	return ret;
}

static struct kernel_device *
to_kernel(struct ivwl_device *dev)
{
	return (struct kernel_device *)dev;
}

static void
kernel_destroy(struct ivwl_device *dev)
{
	struct kernel_device *kd = to_kernel(dev);
	uint32_t v;

	/* Closing the binding file unbinds the vectors at once (the region's
	 * file, when it is the binder, once unmapped too). */
	if (kd->bind_fd >= 0)
		close(kd->bind_fd);
	if (kd->dev.base)
		munmap(kd->dev.base, kd->dev.size);
	close(kd->dev.region_fd);
	for (v = 0; kd->vector_fds && v < kd->nr_vector_fds; v++)
		if (kd->vector_fds[v] >= 0)
			close(kd->vector_fds[v]);
	free(kd->vector_fds);
	free(kd);
}

static int
kernel_ring(struct ivwl_device *dev, uint32_t peer, uint32_t vector)
{
	return ivwl_kernel_doorbell(dev->region_fd, peer, vector);
}

static bool
kernel_peer_present(struct ivwl_device *dev, uint32_t peer)
{
	/* See the top of the file. */
	return peer <= IVWL_MAX_PEER_ID;
}

static int
kernel_vector_fd(struct ivwl_device *dev, uint32_t vector)
{
	return to_kernel(dev)->vector_fds[vector];
}

static int
kernel_event_fd(struct ivwl_device *dev)
{
	return -1;
}

static int
kernel_dispatch(struct ivwl_device *dev)
{
	return 0;
}

static int
kernel_export_doorbell(struct ivwl_device *dev, uint32_t peer,
		       uint32_t vector, struct ivwl_endpoint *ep)
{
	/*
	 * A dup shares our open file: the receiver needs no permission on
	 * the node and rings with IVWL_IOCTL_DOORBELL like we do.  Not the
	 * file our vectors are bound through: the receiver could rebind.
	 */
	if (to_kernel(dev)->bind_fd < 0)
		return -EPERM;
	ep->doorbell_fd = fcntl(dev->region_fd, F_DUPFD_CLOEXEC, 0);
	if (ep->doorbell_fd < 0)
		return -errno;
	ep->doorbell_kind = IVWL_DOORBELL_IOCTL;
	return 0;
}

static void
kernel_drop_vectors(struct ivwl_device *dev, uint32_t n)
{
	struct kernel_device *kd = to_kernel(dev);
	struct ivwl_eventfd req = { .fd = -1 };
	uint32_t v;

	for (v = n; v < kd->dev.nr_vectors; v++) {
		req.vector = v;
		/* Unbound, an interrupt on it signals nothing. */
		if (ioctl(binder(kd), IVWL_IOCTL_SET_EVENTFD, &req) < 0)
			continue;
		close(kd->vector_fds[v]);
		kd->vector_fds[v] = -1;
	}
}

static const struct ivwl_device_ops kernel_ops = {
	.destroy = kernel_destroy,
	.ring = kernel_ring,
	.peer_present = kernel_peer_present,
	.vector_fd = kernel_vector_fd,
	.event_fd = kernel_event_fd,
	.dispatch = kernel_dispatch,
	.export_doorbell = kernel_export_doorbell,
	.drop_vectors = kernel_drop_vectors,
};
