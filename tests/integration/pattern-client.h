/* SPDX-License-Identifier: MIT */
/*
 * ivwl-pattern-client (pattern-client.c says what it does): its state,
 * shared by the files that draw it (pattern-draw.c) and make its pool
 * and buffers (pattern-pool.c).
 */
#ifndef IVWL_PATTERN_CLIENT_H
#define IVWL_PATTERN_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "client.h"
#include "viewporter-client-protocol.h"

struct band {
	int x, y, w, h;
};

#define MAX_BUFFERS 12

struct buffer {
	/* wl NULL: --recreate destroyed it */
	struct ivwl_client_buffer base;
	struct app *app;
	size_t offset;		/* in the pool */
	int frame;		/* the frame whose content it holds */
};

struct app {
	struct wl_display *display;
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm_base;
	struct ivwl_client_window win;
	struct ivwl_client_frame frame;
	struct buffer buffers[MAX_BUFFERS];
	int n_buffers;
	bool recreate;
	bool new_pools;		/* --new-pools */
	struct buffer *last;	/* committed last */
	int width, height, frames, next;
	int agains;		/* frames drawn on SIGUSR1 */
	int band_w, band_h;	/* --band, 0 x 0 for whole rows */
	bool frozen;		/* --pool close: nothing to draw into */
	const char *pool_mode;
	/* how the surface shows its buffers */
	struct wp_viewporter *viewporter;
	bool want_viewport, has_source, has_destination, surface_damage;
	double src[4];
	int dst[2];
	int transform, scale;
	struct ivwl_client_pool pool;
	int drawer;		/* --pool drawer: its socket, else -1 */
};

/* ---- pattern-draw.c ---- */

/*
 * Frame k >= 1 repaints a band: whole rows, an eighth of the buffer
 * high, or a w x h box when --band asks for one (0 x 0 otherwise).
 */
struct band
pattern_band(int k, int width, int height, int w, int h);

/* Brings b up to frame f: repaints what changed since its content. */
struct band
pattern_paint(struct app *app, struct buffer *b, int f);

/* The next buffer the compositor does not hold, drawn and committed. */
void
pattern_draw(struct app *app);

/* Pending state the first buffer's commit applies. */
int
pattern_set_up_view(struct app *app);

/* ---- pattern-pool.c ---- */

bool
pattern_known_pool_mode(const char *mode);

/* Buffer i at offset in the pool (and its own pool with --new-pools). */
void
pattern_new_buffer(struct app *app, int i, size_t offset);

int
pattern_create_buffers(struct app *app);

/* Halfway through, the pool changes as --pool asks. */
int
pattern_change_pool(struct app *app);

/* pattern_paint(), done by the drawer: the same pixels, another process. */
struct band
pattern_paint_in_drawer(struct app *app, struct buffer *b, int f);

#endif
