/* SPDX-License-Identifier: MIT */
/*
 * The region's fd, borrowed from ivwl-server (IVWL_DEVICE_SERVER_BORROW,
 * REGION in server-msg.h): the display keeps only the mapping, and asks
 * the server for the fd again when it must hand one on (weston: to
 * libwayland, at each wl_shm.create_pool).
 *
 * The server is trusted, but what comes back is checked all the same:
 * a file that is not the one mapped would give libwayland pools over
 * other memory than the region the firewall checked ranges against.
 * Such an answer is a fault of the server's, as a protocol error: the
 * device stops (dispatch fails from then on) and says why.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "device-ivshmem-client-internal.h"

static struct server_device *
to_server(struct ivwl_device *dev)
{
	return (struct server_device *)dev;
}

int
ivwl_sdev_region_ask(struct ivwl_device *dev)
{
	struct server_device *sd = to_server(dev);

	if (sd->gone || sd->fault)
		return -ECONNRESET;
	if (sd->region_asked)
		return 0;
	sd->region_asked = true;
	sd->region_owed = true;
	ivwl_sdev_request_owed(sd);
	return 0;
}

/* NULL when fd is the file the device mapped, else why not. */
static const char *
not_the_region(struct server_device *sd, int fd)
{
	struct stat st;
	int fl;

	if (fstat(fd, &st) < 0)
		return "cannot stat the region fd the server lent";
	if (!S_ISREG(st.st_mode))
		return "the server lent a region fd that is not a regular file";
	if (st.st_dev != sd->region_dev || st.st_ino != sd->region_ino)
		return "the server lent a file that is not the region it "
		       "sent at the setup";
	if (st.st_size < 0 || (uint64_t)st.st_size < sd->dev.size)
		return "the server lent the region smaller than it was "
		       "mapped";
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || (fl & O_ACCMODE) != O_RDWR)
		return "the server lent the region not open for reading and "
		       "writing";
	return NULL;
}

static void
fault(struct server_device *sd, const char *why)
{
	sd->dev.error = why;
	sd->fault = -EPROTO;
}

void
ivwl_sdev_region_answer(struct server_device *sd, int fd)
{
	const char *why;

	/* Not asked for (or not borrowing): nothing to do with it. */
	if (!sd->region_asked) {
		close_fd(&fd);
		return;
	}
	sd->region_asked = false;
	if (fd < 0) {
		fault(sd, "the server answered REGION without the region");
		return;
	}
	why = not_the_region(sd, fd);
	if (why) {
		close_fd(&fd);
		fault(sd, why);
		return;
	}
	/* Asked while none was held: nothing to replace. */
	close_fd(&sd->dev.region_fd);
	sd->dev.region_fd = fd;
	if (sd->dev.region_listener)
		sd->dev.region_listener(sd->dev.region_listener_data);
}
