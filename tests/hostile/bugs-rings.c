/* SPDX-License-Identifier: MIT */
/*
 * Reproducers that lie through the rings and the slot words: indices a
 * consumer must not trust, a budget that drains the ring, an app side
 * that vanishes.  Each prints what the display did, so a test can tell
 * a fixed plugin from a broken one.
 */
#include <stdio.h>
#include <unistd.h>

#include "hostile.h"
#include "shm-access.h"

/* ---- partial-header ------------------------------------------------- */

/*
 * prod published 4 bytes past cons: fewer bytes than a record header.
 * A consumer that treats that as "empty but readable" and retries from
 * an idle callback never returns to its event loop.
 */
void
ivwl_hostile_partial_header(struct ivwl_hostile *h)
{
	struct ivwl_ring_ctrl *r;
	bool closed = false, answered;
	uint32_t cons;

	if (!ivwl_hostile_slot_open_wait(h, 0, 2000)) {
		printf("hostile-peer: partial-header: the display never "
		       "served slot 0\n");
		return;
	}
	r = &ivwl_hostile_ctrl(h, 0)->request;
	cons = ivwl_shm_load(&r->consumer.cons);
	ivwl_shm_store_release(&r->producer.prod, cons + 4);
	h->st.index_writes++;
	ivwl_hostile_ring(h, IVWL_DOORBELL_SLOT(0));
	usleep(300 * 1000);

	answered = h->slots > 1 && ivwl_hostile_slot_open_wait(h, 1, 2000);
	while (ivwl_hostile_time_left(h) && !closed) {
		ivwl_hostile_slot_poll(h, 0);
		closed = h->slot[0].phase != IVWL_HOSTILE_LIVE;
		usleep(10 * 1000);
	}
	printf("hostile-peer: partial-header: the display %s slot 0 and %s "
	       "a new open on slot 1\n", closed ? "closed" : "kept serving",
	       answered ? "answered" : "did NOT answer");
}

/* ---- vanish --------------------------------------------------------- */

/* Live connections with objects, then the app side leaves the server
 * without closing them (its VM died). */
void
ivwl_hostile_vanish(struct ivwl_hostile *h)
{
	struct ivwl_hostile_globals g;
	uint32_t k, live = 0;

	for (k = 0; k < 4 && k < h->slots; k++)
		if (ivwl_hostile_session_start(h, k, &g, 1000))
			live++;
	printf("hostile-peer: vanish: leaving %u live connections behind\n",
	       live);
	for (k = 0; k < 4 && k < h->slots; k++)
		if (h->slot[k].phase == IVWL_HOSTILE_LIVE)
			printf("hostile-peer: vanish: slot %u generation %u\n",
			       k, h->slot[k].gen);
	fflush(stdout);
}

/* ---- event-cons-lie ------------------------------------------------- */

/* The event ring full, then an event cons past prod: the display's
 * producer must notice it when it needs room, and say so. */
void
ivwl_hostile_event_cons_lie(struct ivwl_hostile *h)
{
	if (!ivwl_hostile_slot_open_wait(h, 0, 2000)) {
		printf("hostile-peer: event-cons-lie: no slot\n");
		return;
	}
	ivwl_hostile_event_lie(h, 0, 0);
	while (ivwl_hostile_time_left(h) &&
	       h->slot[0].phase == IVWL_HOSTILE_LIVE) {
		ivwl_hostile_slot_poll(h, 0);
		usleep(10 * 1000);
	}
	printf("hostile-peer: event-cons-lie: the display %s the slot\n",
	       h->slot[0].phase == IVWL_HOSTILE_LIVE ? "kept serving" :
	       "closed");
}

/* ---- record-flood --------------------------------------------------- */

/*
 * Empty WAYLAND records (no message, no fd) as fast as the rings take
 * them, on four slots.  Each is valid and gives libwayland nothing to
 * read, so nothing ever pushes back on the display: it must still yield
 * to the rest of weston.
 */
void
ivwl_hostile_record_flood(struct ivwl_hostile *h)
{
	struct ivwl_wayland_header empty = { 0 };
	uint64_t sent = 0;
	uint32_t k, live = 0;

	for (k = 0; k < 4 && k < h->slots; k++)
		if (ivwl_hostile_slot_open_wait(h, k, 2000))
			live++;
	while (live && ivwl_hostile_time_left(h)) {
		for (k = 0; k < 4 && k < h->slots; k++) {
			if (h->slot[k].phase != IVWL_HOSTILE_LIVE)
				continue;
			while (ivwl_hostile_send(h, k, IVWL_RECORD_WAYLAND,
						 &empty,
						 sizeof(empty), false) == 0)
				sent++;
		}
		if (sent % 64 == 0)
			for (k = 0; k < 4 && k < h->slots; k++)
				ivwl_hostile_slot_poll(h, k);
	}
	printf("hostile-peer: record-flood: %llu empty records on %u slots\n",
	       (unsigned long long)sent, live);
}

/* ---- budget-stall --------------------------------------------------- */

#define RECORD_BUDGET 256	/* plugin/ivwl-limits.h */

static void
ring_state(struct ivwl_hostile *h, uint32_t k, uint32_t *prod, uint32_t *cons,
	   uint32_t *token)
{
	struct ivwl_ring_ctrl *r = &ivwl_hostile_ctrl(h, k)->request;

	*prod = ivwl_shm_load(&r->producer.prod);
	*cons = ivwl_shm_load(&r->consumer.cons);
	*token = ivwl_shm_load(&r->consumer.need_data);
}

/*
 * Exactly one budget of records, published at once and rung once: the
 * display drains the ring with its last budgeted read.  It must then
 * either sleep with a token (so our next record rings it) or come back
 * by itself.  One more record, rung only if a token asks for it, shows
 * which: a display that did neither never reads it.
 */
void
ivwl_hostile_budget_stall(struct ivwl_hostile *h)
{
	struct ivwl_wayland_header empty = { 0 };
	struct iovec iov = { &empty, sizeof(empty) };
	struct ivwl_hostile_slot *s = &h->slot[0];
	uint32_t prod, cons, token, i;
	int64_t end;

	if (!ivwl_hostile_slot_open_wait(h, 0, 2000)) {
		printf("hostile-peer: budget-stall: no slot\n");
		return;
	}
	usleep(100 * 1000);	/* the display sleeps on its token */
	for (i = 0; i < RECORD_BUDGET; i++)
		ivwl_ring_write(&s->request, IVWL_RECORD_WAYLAND, &iov, 1);
	h->st.records += RECORD_BUDGET;
	ivwl_hostile_ring(h, IVWL_DOORBELL_SLOT(0));

	end = ivwl_now_ms() + 2000;
	do {
		usleep(10 * 1000);
		ring_state(h, 0, &prod, &cons, &token);
	} while (cons != prod && ivwl_now_ms() < end);
	usleep(100 * 1000);
	ring_state(h, 0, &prod, &cons, &token);
	printf("hostile-peer: budget-stall: %u records read, sleep token "
	       "%u\n", (cons - 0) / 16, token);

	/* the protocol's rule: ring only a consumer that asked for it */
	ivwl_hostile_send(h, 0, IVWL_RECORD_WAYLAND, &empty, sizeof(empty),
			  false);
	end = ivwl_now_ms() + 1000;
	do {
		usleep(10 * 1000);
		ring_state(h, 0, &prod, &cons, &token);
	} while (cons != prod && ivwl_now_ms() < end);
	printf("hostile-peer: budget-stall: the display %s the record sent "
	       "after its budget ran out with the ring empty%s\n",
	       cons == prod ? "read" : "NEVER read",
	       cons == prod ? "" : " (it slept without a sleep token)");
}
