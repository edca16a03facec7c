/* SPDX-License-Identifier: MIT */
/*
 * A client's window objects destroyed in the firewall's teardown order
 * (ivwl_firewall_teardown), a batch every IVWL_TEARDOWN_TICK_MS
 * (teardown.c).  weston 14 and 16 add what each view they take off an
 * output showed to the damage of every view still above it, and that
 * damage is emptied only by a repaint: 250 windows of one VM, their
 * frames' 2,250 views, taken off at once stalled weston 3 s.  A batch
 * between two repaints costs a few milliseconds.
 */
#ifndef IVWL_TEARDOWN_H
#define IVWL_TEARDOWN_H

#include <stdbool.h>
#include <stdint.h>

struct ivwl_teardown;
struct wl_client;
struct wl_event_loop;

/* Windows ended a tick, and the objects that are (a toplevel, its
 * xdg_surface and its wl_surface each). */
#define IVWL_TEARDOWN_WINDOWS 16u
#define IVWL_TEARDOWN_BATCH (3 * IVWL_TEARDOWN_WINDOWS)
#define IVWL_TEARDOWN_TICK_MS 16

/* Destroys client's objects ids[from..to) that still exist, in order. */
void
ivwl_teardown_objects(struct wl_client *client, const uint32_t *ids,
		      uint32_t from, uint32_t to);

/*
 * Destroys client's objects ids[0..n), IVWL_TEARDOWN_BATCH at the next
 * turn of the event loop and as many every tick after (a role object
 * and its xdg_surface always in the same batch); once all are gone,
 * done(data), from the event loop (the teardown is freed before: done
 * may destroy the client).  settle (weston 14 and later): weston's idle
 * callbacks run before each batch.  Takes ids (allocated), also on
 * failure.  NULL without memory.
 */
struct ivwl_teardown *
ivwl_teardown_start(struct wl_event_loop *loop, bool settle,
		    struct wl_client *client, uint32_t *ids, uint32_t n,
		    void (*done)(void *data), void *data);

/* Destroys what is left now, without done; frees t. */
void
ivwl_teardown_finish(struct ivwl_teardown *t);

#endif
