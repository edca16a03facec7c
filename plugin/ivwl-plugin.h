/* SPDX-License-Identifier: MIT */
/*
 * Shared state of the ivwl weston module.  One ivwl_plugin per compositor,
 * one ivwl_vm per [ivwl-vm] section, one ivwl_connection per open slot.
 */
#ifndef IVWL_PLUGIN_H
#define IVWL_PLUGIN_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>

#include "log.h"

struct weston_compositor;
struct weston_config_section;
struct ivwl_vm;
struct ivwl_watch;
struct ivwl_device;
struct ivwl_connection;

/*
 * What the trusted path (focus.c) says of the requests translate.c
 * forwards.  The plugin's own; NULL where no weston runs (the fuzzers).
 */
struct ivwl_trust_ops {
	/* xdg_popup.grab's serial as weston is to see it */
	uint32_t (*popup_grab_serial)(void *data, struct ivwl_connection *conn,
				      uint32_t serial);
	/* whether xdg_toplevel.set_fullscreen goes to weston as such; if
	 * not, as set_maximized */
	bool (*fullscreen)(void *data, struct ivwl_connection *conn);
	void *data;
};

struct ivwl_wire_msg;
struct ivwl_channel;

/*
 * The clipboard's say in a VM's traffic (clipboard/clipboard.h says
 * what each means), asked by the connection's translation host.  The
 * clipboard's own, set while it exists: NULL before it is made.
 */
struct ivwl_clipboard_ops {
	/* an event for a VM's client: true to withhold it */
	bool (*event)(struct ivwl_connection *conn,
		      const struct ivwl_wire_msg *msg, uint8_t *bytes);
	/* a request: 0, or -EPROTO with *why */
	int (*request)(struct ivwl_connection *conn,
		       const struct ivwl_wire_msg *msg, const char **why);
	/* a wl_data_offer.receive's channel: true when it must not block */
	bool (*receive)(struct ivwl_connection *conn,
			const struct ivwl_wire_msg *msg,
			struct ivwl_channel *ch);
	/* a wl_data_source.send's channel */
	void (*send)(struct ivwl_connection *conn,
		     const struct ivwl_wire_msg *msg, struct ivwl_channel *ch);
	/* a channel ends */
	void (*channel_end)(struct ivwl_connection *conn,
			    struct ivwl_channel *ch);
};

struct ivwl_plugin {
	struct weston_compositor *compositor;
	struct wl_display *display;
	struct wl_listener destroy_listener;
	struct wl_listener kill_listener;
	struct wl_list vms;		/* ivwl_vm.link */
	struct ivwl_canvas *canvas;	/* what ivwl.so draws itself */
	char *font;			/* [ivwl] bar-font=: bars, indicator */
	struct ivwl_windows *windows;	/* the VMs' windows, their signals */
	struct ivwl_label *label;
	struct ivwl_indicator *indicator;	/* who has the keyboard */
	struct ivwl_xray *xray;			/* names across windows */
	struct ivwl_bar *bar;			/* title bar clicks */
	struct ivwl_fullscreen *fullscreen;	/* its notice and key */
	struct ivwl_decoration *decoration;	/* server-side, for VMs */
	struct ivwl_placement *placement;	/* places across restarts */
	struct ivwl_focus *focus;	/* the keyboard's trusted path */
	struct ivwl_repaint *repaint;	/* each VM's share of the repaints */
	struct ivwl_output_clock *output_clock;	/* when outputs repaint */
	struct ivwl_map_pace *map_pace;	/* window maps a VM may make */
	const struct ivwl_trust_ops *trust;
	/* Every fd the plugin waits on, in one source of weston's loop. */
	struct ivwl_watcher *watcher;
	struct ivwl_attacher *attacher;	/* ivwl-server attaches, threaded */
	uint32_t attaching;		/* attempts running */
	/*
	 * Connections that left work after a budget come back through it:
	 * an fd, not an idle source (libwayland runs idle sources added
	 * while it runs them before it polls again, so one flooding app
	 * would starve everyone).  One for all VMs, each VM flagged.
	 */
	int more_fd;
	struct ivwl_watch *more_watch;
	struct ivwl_clipboard *clipboard;
	const struct ivwl_clipboard_ops *clipboard_ops;	/* while it exists */
	struct ivwl_live_view *live;	/* weston-debug scope "ivwl" */
	/* Wakes the ringer once per loop iteration, for all VMs rung. */
	struct wl_event_source *ring_flush;
};

/*
 * True when weston can give n more fds to a VM: what attempts still
 * running may take counted, and some of its open-file limit kept for
 * weston itself (a shell or client it cannot start ends the session).
 */
bool
ivwl_fds_to_spare(struct ivwl_plugin *plugin, unsigned int n);

/* Raises the soft open-file limit to the hard one (module init). */
void
ivwl_fds_raise_limit(void);


/* vm.c; slots: what serves its open slots (connection.c's) */
struct ivwl_vm_slot_ops;

struct ivwl_vm *
ivwl_vm_create(struct ivwl_plugin *plugin,
	       struct weston_config_section *section,
	       const struct ivwl_vm_slot_ops *slots);

void
ivwl_vm_destroy(struct ivwl_vm *vm);

/* An attach attempt's result (attach.h's ivwl_attach_done_t). */
void
ivwl_vm_attach_done(void *owner, struct ivwl_device *dev, int ret,
		    const char *err);

/* Serves what connections left for later (ivwl_vm_more_work). */
void
ivwl_vm_serve_more(struct ivwl_vm *vm);

/* Whether the VM's policy lets its apps see a global of interface. */
bool
ivwl_vm_allows(const struct ivwl_vm *vm, const char *interface);

/* connection.c: the VM a client was created for, or NULL for a local
 * client. */
struct ivwl_vm *
ivwl_vm_from_client(struct ivwl_plugin *plugin, const struct wl_client *client);

/* connection.c: the connection behind a VM's client, or NULL. */
struct ivwl_connection *
ivwl_vm_connection(struct ivwl_vm *vm, const struct wl_client *client);

/* policy.c */
struct ivwl_policy;

struct ivwl_policy *
ivwl_policy_create(const char *allow);

void
ivwl_policy_destroy(struct ivwl_policy *policy);

bool
ivwl_policy_allows(const struct ivwl_policy *policy, const char *interface);

/* IVWL_FRAME_TRACE: a line per repaint of every output (output-trace.c). */
void
ivwl_output_trace_start(struct weston_compositor *compositor);

#endif
