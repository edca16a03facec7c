/* SPDX-License-Identifier: MIT */
#include <stddef.h>
#include <wayland-client-protocol.h>

#include "shm-format.h"

static const struct {
	uint32_t format;
	uint32_t bpp;
	const char *name;
} formats[] = {
	{ WL_SHM_FORMAT_ARGB8888, 4, "argb8888" },
	{ WL_SHM_FORMAT_XRGB8888, 4, "xrgb8888" },
	{ WL_SHM_FORMAT_ABGR8888, 4, "abgr8888" },
	{ WL_SHM_FORMAT_XBGR8888, 4, "xbgr8888" },
	{ WL_SHM_FORMAT_RGBA8888, 4, "rgba8888" },
	{ WL_SHM_FORMAT_RGBX8888, 4, "rgbx8888" },
	{ WL_SHM_FORMAT_ARGB2101010, 4, "argb2101010" },
	{ WL_SHM_FORMAT_XRGB2101010, 4, "xrgb2101010" },
	{ WL_SHM_FORMAT_ABGR2101010, 4, "abgr2101010" },
	{ WL_SHM_FORMAT_XBGR2101010, 4, "xbgr2101010" },
	{ WL_SHM_FORMAT_RGB888, 3, "rgb888" },
	{ WL_SHM_FORMAT_BGR888, 3, "bgr888" },
	{ WL_SHM_FORMAT_RGB565, 2, "rgb565" },
};

static int
find(uint32_t format)
{
	size_t i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (formats[i].format == format)
			return (int)i;
	return -1;
}

uint32_t
ivwl_shm_format_bpp(uint32_t format)
{
	int i = find(format);

	return i < 0 ? 0 : formats[i].bpp;
}

const char *
ivwl_shm_format_name(uint32_t format)
{
	int i = find(format);

	return i < 0 ? NULL : formats[i].name;
}
