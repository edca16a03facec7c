/* SPDX-License-Identifier: MIT */
/*
 * Copy mode: which pixels of a client buffer a wl_surface.damage
 * rectangle covers, given how the surface shows its buffer (buffer
 * transform, buffer scale, wp_viewport source and destination).
 *
 * Pure arithmetic, no relay state: tests/unit/test-damage-map.c drives it.
 */
#ifndef IVWL_DAMAGE_MAP_H
#define IVWL_DAMAGE_MAP_H

#include <stdbool.h>
#include <stdint.h>

struct ivwl_rect {
	int32_t x, y, w, h;
};

/*
 * The double-buffered surface state that places a buffer on its surface,
 * as the client sent it: nothing here has been checked.
 */
struct ivwl_buffer_view {
	int32_t transform;		/* wl_output.transform */
	int32_t scale;			/* wl_surface.set_buffer_scale */
	bool has_source;		/* wp_viewport.set_source, not unset */
	int32_t src_x, src_y;		/* wl_fixed_t */
	int32_t src_w, src_h;		/* wl_fixed_t */
	bool has_destination;		/* wp_viewport.set_destination */
	int32_t dst_w, dst_h;
};

/* A surface without a viewport, transform or scale. */
#define IVWL_BUFFER_VIEW_IDENTITY ((struct ivwl_buffer_view){ .scale = 1 })

/*
 * Maps damage, in surface coordinates, to the pixels of a buffer of
 * width x height it covers: rounded outward (a pixel partly damaged is
 * damaged) and clipped to the buffer.  *out is empty (w == h == 0) when
 * the damage covers none of the surface.
 *
 * false when v cannot place the buffer exactly (a value the protocol
 * refuses, or a buffer too large for the arithmetic): the caller then
 * takes the whole buffer as damaged.
 */
bool
ivwl_damage_map(const struct ivwl_buffer_view *v, int32_t width,
		int32_t height, struct ivwl_rect damage,
		struct ivwl_rect *out);

/*
 * True when a and b show the same pixels of a buffer (destination
 * sizes aside, which only scale what is shown).
 */
bool
ivwl_buffer_view_same_pixels(const struct ivwl_buffer_view *a,
			     const struct ivwl_buffer_view *b);

#endif
