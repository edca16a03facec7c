/* SPDX-License-Identifier: MIT */
/*
 * The device interface (device.h) over its backends: what every backend
 * answers the same way, and the range and presence checks, live here
 * once; the rest goes to the backend's ops (device-backend.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/uio.h>
#include <unistd.h>

#include "device-backend.h"
#include "frame-trace.h"
#include "mono-time.h"

int
ivwl_eventfd_ring(int fd)
{
	uint64_t one = 1;
	ssize_t n;

	do {
		n = write(fd, &one, sizeof(one));
	} while (n < 0 && errno == EINTR);
	/* EAGAIN: the counter is saturated, the peer has a wakeup already. */
	if (n < 0 && errno != EAGAIN)
		return -errno;
	return 0;
}

/*
 * The fds we drain may be shared with a peer that rings us through them:
 * it can clear O_NONBLOCK and read the counter itself between our epoll
 * and our read, which would then sleep until it rings again.  RWF_NOWAIT
 * makes this one read non-blocking whatever the flags say (eventfd honours
 * it since Linux 5.11).
 */
uint64_t
ivwl_eventfd_drain(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t v;
	struct iovec iov = { &v, sizeof(v) };
	ssize_t n;

	do {
		n = preadv2(fd, &iov, 1, -1, RWF_NOWAIT);
	} while (n < 0 && errno == EINTR);
	if (n < 0 && (errno == EOPNOTSUPP || errno == ENOSYS)) {
		/*
		 * Older kernels: read only what poll() just saw.  The peer
		 * can still empty the counter in between and block us until
		 * its next ring; this narrows the window, it does not close
		 * it.
		 */
		if (poll(&pfd, 1, 0) != 1 || !(pfd.revents & POLLIN))
			return 0;
		do {
			n = read(fd, &v, sizeof(v));
		} while (n < 0 && errno == EINTR);
	}
	return n == (ssize_t)sizeof(v) ? v : 0;
}

void
ivwl_device_destroy(struct ivwl_device *dev)
{
	if (dev)
		dev->ops->destroy(dev);
}

void *
ivwl_device_base(struct ivwl_device *dev)
{
	return dev->base;
}

uint64_t
ivwl_device_size(struct ivwl_device *dev)
{
	return dev->size;
}

int
ivwl_device_region_fd(struct ivwl_device *dev)
{
	return dev->region_fd;
}

bool
ivwl_device_region_borrowed(struct ivwl_device *dev)
{
	return dev->region_borrowed;
}

int
ivwl_device_region_ask(struct ivwl_device *dev)
{
	if (!dev->region_borrowed)
		return -EOPNOTSUPP;
	if (dev->region_fd >= 0)
		return 0;
	return dev->ops->region_ask(dev);
}

void
ivwl_device_set_region_listener(struct ivwl_device *dev,
				ivwl_region_func_t func, void *data)
{
	dev->region_listener = func;
	dev->region_listener_data = data;
}

void
ivwl_device_region_release(struct ivwl_device *dev)
{
	if (!dev->region_borrowed || dev->region_fd < 0)
		return;
	close(dev->region_fd);
	dev->region_fd = -1;
}

const char *
ivwl_device_error(struct ivwl_device *dev)
{
	return dev->error;
}

uint32_t
ivwl_device_peer_id(struct ivwl_device *dev)
{
	return dev->peer_id;
}

uint32_t
ivwl_device_nr_vectors(struct ivwl_device *dev)
{
	return dev->nr_vectors;
}

void
ivwl_device_use_vectors(struct ivwl_device *dev, uint32_t n)
{
	if (n == 0 || n >= dev->nr_vectors)
		return;
	dev->ops->drop_vectors(dev, n);
	dev->nr_vectors = n;
	if (!dev->rings_by_number)
		dev->ring_vectors = n;
}

uint32_t
ivwl_device_ring_vectors(struct ivwl_device *dev)
{
	return dev->ring_vectors;
}

uint32_t
ivwl_device_probe_vectors(struct ivwl_device *dev, int timeout_ms)
{
	struct pollfd pfd[IVWL_PROBE_VECTORS_MAX];
	bool heard[IVWL_PROBE_VECTORS_MAX] = { false };
	uint32_t n = dev->nr_vectors < dev->ring_vectors ?
		     dev->nr_vectors : dev->ring_vectors;
	uint32_t v, left, working;
	int64_t deadline = ivwl_now_ms() + timeout_ms;

	if (n > IVWL_PROBE_VECTORS_MAX)
		n = IVWL_PROBE_VECTORS_MAX;
	for (v = 1; v < n; v++) {
		ivwl_eventfd_drain(dev->ops->vector_fd(dev, v));
		dev->ops->ring(dev, dev->peer_id, v);
	}
	for (left = n - 1; left > 0 && ivwl_now_ms() < deadline;) {
		for (v = 1; v < n; v++)
			pfd[v] = (struct pollfd){
				.fd = heard[v] ? -1 : dev->ops->vector_fd(dev, v),
				.events = POLLIN,
			};
		if (poll(pfd + 1, n - 1, ivwl_ms_left(deadline)) <= 0)
			break;
		for (v = 1; v < n; v++) {
			if (heard[v] || !pfd[v].revents)
				continue;
			ivwl_eventfd_drain(pfd[v].fd);
			heard[v] = true;
			left--;
		}
	}
	for (working = 1; working < n && heard[working]; working++)
		;
	return working;
}

bool
ivwl_device_peer_present(struct ivwl_device *dev, uint32_t peer)
{
	return dev->ops->peer_present(dev, peer);
}

int
ivwl_device_ring(struct ivwl_device *dev, uint32_t peer, uint32_t vector)
{
	if (vector >= dev->ring_vectors)
		return -EINVAL;
	if (!dev->ops->peer_present(dev, peer))
		return -ENOENT;
	ivwl_trace(IVWL_TRACE_RING, peer);
	return dev->ops->ring(dev, peer, vector);
}

int
ivwl_device_ring_health(struct ivwl_device *dev, uint32_t peer)
{
	if (!dev->ops->ring_health || !dev->ops->peer_present(dev, peer))
		return 0;
	return dev->ops->ring_health(dev, peer);
}

int
ivwl_device_vector_fd(struct ivwl_device *dev, uint32_t vector)
{
	if (vector >= dev->nr_vectors)
		return -1;
	return dev->ops->vector_fd(dev, vector);
}

uint64_t
ivwl_device_vector_drain(struct ivwl_device *dev, uint32_t vector)
{
	if (vector >= dev->nr_vectors)
		return 0;
	return ivwl_eventfd_drain(dev->ops->vector_fd(dev, vector));
}

bool
ivwl_device_server_rings(struct ivwl_device *dev)
{
	return dev->server_rings;
}

void
ivwl_device_set_write_listener(struct ivwl_device *dev,
			       ivwl_write_func_t func, void *data)
{
	dev->write_listener = func;
	dev->write_listener_data = data;
}

int
ivwl_device_event_fd(struct ivwl_device *dev)
{
	return dev->ops->event_fd(dev);
}

int
ivwl_device_dispatch(struct ivwl_device *dev)
{
	return dev->ops->dispatch(dev);
}

void
ivwl_device_set_peer_listener(struct ivwl_device *dev, ivwl_peer_func_t func,
			      void *data)
{
	dev->listener = func;
	dev->listener_data = data;
}

int
ivwl_device_export_endpoint(struct ivwl_device *dev, uint32_t peer,
			    uint32_t ring_vector, uint32_t wait_vector,
			    struct ivwl_endpoint *ep)
{
	int ret;

	ep->region_fd = -1;
	ep->doorbell_fd = -1;
	ep->wait_fd = -1;
	if (ring_vector >= dev->nr_vectors || wait_vector >= dev->nr_vectors)
		return -EINVAL;
	if (!dev->ops->peer_present(dev, peer))
		return -ENOENT;

	ep->region_fd = fcntl(dev->region_fd, F_DUPFD_CLOEXEC, 0);
	if (ep->region_fd < 0)
		goto err_errno;
	ret = dev->ops->export_doorbell(dev, peer, ring_vector, ep);
	if (ret < 0)
		goto err_close;
	ep->wait_fd = fcntl(dev->ops->vector_fd(dev, wait_vector),
			    F_DUPFD_CLOEXEC, 0);
	if (ep->wait_fd < 0)
		goto err_errno;
	ep->region_size = dev->size;
	ep->doorbell_peer = peer;
	ep->doorbell_vector = ring_vector;
	return 0;

err_errno:
	ret = -errno;
err_close:
	ivwl_endpoint_close(ep);
	return ret;
}

int
ivwl_endpoint_ring(const struct ivwl_endpoint *ep)
{
	ivwl_trace(IVWL_TRACE_RING, ep->doorbell_peer);
	switch (ep->doorbell_kind) {
	case IVWL_DOORBELL_EVENTFD:
		return ivwl_eventfd_ring(ep->doorbell_fd);
	case IVWL_DOORBELL_IOCTL:
		return ivwl_kernel_doorbell(ep->doorbell_fd,
					    ep->doorbell_peer,
					    ep->doorbell_vector);
	default:
		return -EINVAL;
	}
}

uint64_t
ivwl_endpoint_drain(const struct ivwl_endpoint *ep)
{
	return ivwl_eventfd_drain(ep->wait_fd);
}

int
ivwl_endpoint_export_range(const struct ivwl_endpoint *ep, uint64_t offset,
			   uint64_t length)
{
	/* The doorbell's kind says which backend made the endpoint. */
	if (ep->doorbell_kind != IVWL_DOORBELL_IOCTL)
		return -EOPNOTSUPP;
	return ivwl_kernel_export(ep->region_fd, offset, length);
}

static void
close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void
ivwl_endpoint_close(struct ivwl_endpoint *ep)
{
	close_fd(&ep->region_fd);
	close_fd(&ep->doorbell_fd);
	close_fd(&ep->wait_fd);
}
