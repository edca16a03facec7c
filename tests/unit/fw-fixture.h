/* SPDX-License-Identifier: MIT */
/*
 * A connection's translation without weston, for the firewall's tests:
 * requests go through ivwl_translate_request() as records of one message
 * each, so the firewall sits where it does in the plugin (before the wire
 * map tracks the message), and events through the wire map then
 * ivwl_firewall_event(), as ivwl_translate_events() does.
 */
#ifndef IVWL_TEST_FW_FIXTURE_H
#define IVWL_TEST_FW_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "ivwl-protocols.h"
#include "translate.h"
#include "vm.h"

/* The globals every connection binds first, at these ids. */
enum {
	DISPLAY = 1,
	REGISTRY,
	SHM,
	COMPOSITOR,
	SUBCOMPOSITOR,
	WM_BASE,
	SEAT,
	DATA_MANAGER,
	PRIMARY_MANAGER,
	PRESENTATION,
	CONSTRAINTS,
	VIEWPORTER,
	FIRST_ID,
};

struct conn {
	struct ivwl_translation c;
	struct ivwl_vm *vm;	/* its host (xl-vm-host.h) */
	uint32_t next_id;	/* one past the highest client id used */
	const char *why;
	/* what the last record gave libwayland */
	uint32_t sent_count;		/* messages */
	uint32_t last_sent_object;	/* of the last message */
	uint32_t last_sent_opcode;
	uint32_t last_sent_arg0;	/* its first word of arguments */
	uint32_t last_sent_arg1;	/* and its second */
	uint32_t first_sent_opcode;	/* of the first message */
};

struct window {
	uint32_t surface, xdg, top;
};

struct popup {
	uint32_t surface, xdg, popup;
};

struct ivwl_vm *
vm_new(void);
void
vm_free(struct ivwl_vm *vm);

/* The one connection of a VM of its own (one_vm, until close_one). */
extern struct ivwl_vm *one_vm;
struct conn *
open_one(void);
void
close_one(struct conn *c);

/* A connection of vm with the globals above bound. */
struct conn *
conn_open(struct ivwl_vm *vm);
/* Ends it as the plugin does: the firewall gives back its totals. */
void
conn_close(struct conn *c);

/*
 * One request to object, arguments by sig: i, u, o, n take an int or a
 * uint32_t, s a string, a a count of zero bytes for an array.  Returns what ivwl_translate_request says; c->why
 * holds its reason.
 */
int
req(struct conn *c, uint32_t object, uint32_t opcode, const char *sig, ...);
/* wl_shm.create_pool of a 1 MiB range of the heap; returns the result. */
int
create_pool(struct conn *c, uint32_t id);
/* An event from weston, tracked and given to the firewall. */
void
event(struct conn *c, uint32_t object, uint32_t opcode, const char *sig, ...);
/* An event through the plugin's whole event path (ivwl_translate_events):
 * whether it was passed on to the app. */
bool
event_passed(struct conn *c, uint32_t object, uint32_t opcode,
	     const char *sig, ...);
void
delete_id(struct conn *c, uint32_t id);

/* Counts a failed check when ret is not 0, with the reason. */
#define PASS(c, expr) passed((c), (expr), __FILE__, __LINE__)
void
passed(const struct conn *c, int ret, const char *file, int line);

/*
 * Checks a refusal: ret is want and c->why starts "iface@object.request: "
 * (unless iface is NULL) and contains rule.
 */
#define REFUSED(c, expr, want, iface, object, request, rule) \
	refused((c), (expr), (want), (iface), (object), (request), (rule), \
		__FILE__, __LINE__)
void
refused(const struct conn *c, int ret, int want, const char *iface,
	uint32_t object, const char *request, const char *rule,
	const char *file, int line);

/* Objects made by legitimate requests; each must pass. */
uint32_t
new_id(struct conn *c);
uint32_t
new_surface(struct conn *c);
uint32_t
new_xdg_surface(struct conn *c, uint32_t surface);
struct window
new_window(struct conn *c);
/* xdg_popup.destroy, xdg_surface.destroy and the like, past weston 14's
 * barrier (translate.c) as if its sync came back. */
int
req_past_barrier(struct conn *c, uint32_t object, uint32_t opcode);
/* A positioner with a size and an anchor rectangle. */
uint32_t
new_positioner(struct conn *c);
/* A popup on parent (an xdg_surface), grabbing if asked; the parent's
 * surface commits first if it has not since its role (weston 14). */
struct popup
new_popup(struct conn *c, uint32_t parent, bool grab);
uint32_t
new_subsurface(struct conn *c, uint32_t surface, uint32_t parent);
uint32_t
new_seat_device(struct conn *c, uint32_t opcode);
uint32_t
new_source(struct conn *c);
uint32_t
new_data_device(struct conn *c);
/* Destroys a window in the order the protocol asks. */
void
destroy_window(struct conn *c, const struct window *w);
void
destroy_popup(struct conn *c, const struct popup *p);

#endif
