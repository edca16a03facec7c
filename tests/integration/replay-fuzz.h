/* SPDX-License-Identifier: MIT */
/*
 * ivwl-replay-fuzz-client (replay-fuzz-client.c says what it does): its
 * object graph, shared by the files that build and change it.
 */
#ifndef IVWL_REPLAY_FUZZ_H
#define IVWL_REPLAY_FUZZ_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "client.h"
#include "presentation-time-client-protocol.h"
#include "viewporter-client-protocol.h"

#define MAX_SURFS 48
#define MAX_WINS 5
#define MAX_POPUPS 3
#define MAX_BUFS 3
#define MAX_SUBS 5
#define MAX_OUTPUTS 8
#define MAX_SOURCES 4
#define MAX_PASTES 4
/* Of buffers per client: three clients share the VM's 64 MiB region. */
#define BUDGET (10u << 20)

enum role { R_TOP, R_SUB, R_POPUP };

struct win;

/* A buffer in a memfd pool of its own, the pool dropped once it is made. */
struct buf {
	struct ivwl_client_buffer base;
	struct ivwl_client_pool pool;
	uint32_t fmt;
};

struct surf {
	bool used;
	struct wl_surface *wl;
	struct win *win;
	enum role role;
	struct wl_subsurface *sub;	/* R_SUB, NULL once destroyed */
	struct surf *parent;		/* R_SUB, NULL once it is gone */
	int depth;
	bool configured;		/* may take a buffer */
	struct wp_viewport *vp;
	bool has_src, has_dst;
	int src[4], dst[2];
	int bw, bh, transform, scale;
	uint32_t fmt;
	struct buf *bufs[MAX_BUFS];
	struct ivwl_client_frame frame;
	uint32_t frames;
	bool drawn;
};

struct popup {
	struct surf *s;
	struct xdg_surface *xs;
	struct xdg_popup *p;
	struct xdg_positioner *pos;	/* kept until closed, or NULL */
	int w, h;
};

struct win {
	bool used, anchor;
	int num;
	struct surf *s;
	struct xdg_surface *xs;
	struct xdg_toplevel *top;
	bool configured, maximized, pmax;
	int pw, ph, cw, ch;
	uint32_t renames;
	struct popup pops[MAX_POPUPS];
	int npops;
};

struct paste {
	int fd;
	int64_t since;
};

struct fuzz_app {
	struct wl_display *display;
	struct wl_registry *registry;
	struct wl_compositor *compositor;
	struct wl_subcompositor *subcompositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm;
	struct wp_viewporter *viewporter;
	struct wp_presentation *presentation;
	struct wl_data_device_manager *ddm;
	struct wl_seat *seat;
	struct wl_keyboard *keyboard;
	struct wl_pointer *pointer;
	struct wl_data_device *data_device;
	struct wl_data_offer *selection, *dnd;
	struct wl_data_source *sources[MAX_SOURCES];
	struct paste pastes[MAX_PASTES];
	uint32_t serial;		/* of the last input event, 0: none */
	struct wl_output *outputs[MAX_OUTPUTS];
	uint32_t output_names[MAX_OUTPUTS];
	struct surf surfs[MAX_SURFS];
	struct win wins[MAX_WINS];
	struct wl_callback *round;	/* the sync ending the last round */
	unsigned int seed;
	int anchors, next_num;
	bool ready;
	uint32_t pad_ids;	/* --pad-ids: idle once its highest id is
				 * pad_ids - 1 */
	size_t bytes;
	uint64_t rng;
	char error[512];
	/* for the summary */
	unsigned long rounds, commits, popups, popup_done, global_remove,
		globals, releases, configures, discarded, presented,
		cancelled, leaves, pasted, windows;
};

extern struct fuzz_app app;

/* replay-fuzz-client.c */
int
pick(int n);

bool
chance(int percent);

int64_t
now_ms(void);

void
say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void
maybe_split(int percent);

/* replay-fuzz-surfaces.c */
void
buf_free(struct buf *b);

struct surf *
random_surf(struct win *w, bool sub_only);

void
draw(struct surf *s, bool force);

void
restyle(struct surf *s);

void
viewport(struct surf *s);

void
sub_add(struct win *w);

void
sub_change(struct win *w);

void
popup_open(struct win *w);

void
popup_close_from(struct win *w, int k);

void
win_new(bool anchor);

void
win_destroy(struct win *w);

void
toplevel_change(struct win *w);

/* replay-fuzz-seat.c */
extern const struct wl_registry_listener fuzz_registry_listener;
extern struct ivwl_client_global fuzz_globals[];

void
clipboard_start(void);

void
clipboard(void);

void
read_pastes(struct pollfd *pfd);

#endif
