/* SPDX-License-Identifier: MIT */
/*
 * The attacks on Wayland semantics (semantics-*.c): type-correct
 * requests in an order or a number weston 10 does not survive, made on
 * a session that binds every global they need.
 */
#ifndef IVWL_HOSTILE_SEMANTICS_H
#define IVWL_HOSTILE_SEMANTICS_H

#include <stdbool.h>
#include <stdint.h>

#include "hostile.h"

/* The side of the one buffer, and of every popup. */
#define POPUP_SIZE 32

/* A session with what these attacks bind, and a toplevel or popups. */
struct sem {
	struct ivwl_hostile *h;
	uint32_t k;
	struct ivwl_hostile_globals g;
	uint32_t shm, comp, subcomp, wm_base, seat, ddm, primary, viewporter;
	uint32_t fifo, timing;		/* 0 where weston has none */
	uint32_t pool, buffer;		/* one 32x32 buffer for everything */
	uint32_t configure_object;	/* the xdg_surface we wait on */
	uint32_t serial;
	bool configured;
	uint32_t pointer;		/* wl_pointer, 0 until asked for */
	uint32_t press_serial;		/* of the last button press */
	bool pressed;
};

/* The session's next client object id. */
static inline uint32_t
new_id(struct sem *s)
{
	return s->h->slot[s->k].next_id++;
}

/* The display still serves the session. */
static inline bool
live(const struct sem *s)
{
	return s->h->slot[s->k].phase == IVWL_HOSTILE_LIVE;
}

/* Answers pings, notes the configure of s->configure_object and the
 * serial of a button press on s->pointer. */
void
ivwl_sem_on_event(void *data, const struct ivwl_hostile_event *ev);

/* Binds every global present it knows of; false without a session. */
bool
ivwl_sem_start(struct ivwl_hostile *h, uint32_t k, struct sem *s);

/* wl_compositor.create_surface; the new surface. */
uint32_t
ivwl_sem_surface(struct sem *s, struct ivwl_out *out);

/* xdg_wm_base.get_xdg_surface of surface; the new xdg_surface. */
uint32_t
ivwl_sem_xdg_surface(struct sem *s, struct ivwl_out *out, uint32_t surface);

/* Asks for a wl_pointer and waits up to ms for a button press on the
 * session's windows (a test clicks): false without one. */
bool
ivwl_sem_wait_click(struct sem *s, int ms);

/* Sends out, waits for the configure of xdg, acks it, maps a buffer. */
bool
ivwl_sem_configure_and_map(struct sem *s, struct ivwl_out *out, uint32_t xdg,
			   uint32_t surface);

#endif
