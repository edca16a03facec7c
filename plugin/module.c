/* SPDX-License-Identifier: MIT */
/*
 * ivwl.so: the weston module.  [core] modules=ivwl.so, then one [ivwl-vm]
 * section per app-vm (docs/deploy.md).  Each VM's region is served as a
 * set of ordinary wl_clients; this file only wires the VMs into weston.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <libweston/libweston.h>
#include "weston-compat.h"

#include "ivwl-plugin.h"
#include "attach.h"
#include "bar.h"
#include "clipboard/clipboard.h"
#include "config.h"
#include "canvas.h"
#include "connection.h"
#include "decoration.h"
#include "placement.h"
#include "focus.h"
#include "fullscreen.h"
#include "indicator.h"
#include "label.h"
#include "map-pace.h"
#include "repaint.h"
#include "live-view.h"
#include "nameplate.h"
#include "output-clock.h"
#include "device.h"
#include "ringer.h"
#include "vm.h"
#include "watch.h"
#include "window.h"
#include "xray.h"

/* The plugin's lines go to weston's log, which stamps the time. */
static void
log_to_weston(void *data, enum ivwl_log_level level, const char *line)
{
	weston_log("%s\n", line);
}

/* A VM's clients see only what its policy allows; local clients all
 * but the decoration manager (weston draws no bar above theirs). */
static bool
global_filter(const struct wl_client *client, const struct wl_global *global,
	      void *data)
{
	struct ivwl_plugin *plugin = data;
	struct ivwl_vm *vm = ivwl_vm_from_client(plugin, client);
	const char *name;

	if (!vm)
		return !ivwl_decoration_is_global(plugin->decoration, global);
	name = wl_global_get_interface(global)->name;
	return ivwl_vm_allows(vm, name) &&
	       !ivwl_clip_policy_hides(&vm->clip, name);
}

/*
 * The shell's kill binding would SIGKILL the client's pid, which for our
 * socketpair clients is weston's own (it skips that): end the VM's
 * connection instead.  weston still uses the surface after the signal, so
 * the connection goes from the event loop, not from here.
 */
static void
on_kill_binding(struct wl_listener *listener, void *data)
{
	struct ivwl_plugin *plugin =
		wl_container_of(listener, plugin, kill_listener);
	struct weston_surface *surface = data;
	struct wl_client *client;
	struct ivwl_vm *vm;

	if (!surface || !surface->resource)
		return;
	client = wl_resource_get_client(surface->resource);
	vm = ivwl_vm_from_client(plugin, client);
	if (vm)
		ivwl_connection_kill_later(ivwl_vm_connection(vm, client));
}

static int
on_more(int fd, uint32_t mask, void *data)
{
	struct ivwl_plugin *plugin = data;
	struct ivwl_vm *vm, *tmp;
	uint64_t v;

	if (read(fd, &v, sizeof(v)) < 0) {
		/* spurious: nothing pending */
	}
	wl_list_for_each_safe(vm, tmp, &plugin->vms, link)
		ivwl_vm_serve_more(vm);
	return 0;
}

static void
on_ring_flush(void *data)
{
	struct ivwl_plugin *plugin = data;

	plugin->ring_flush = NULL;
	ivwl_ringer_flush();
	ivwl_device_flush_rings();
}

/*
 * The first ring of a loop iteration: the idle source runs once every
 * ready fd was handled, so the VMs rung by one repaint's events cost the
 * ringer one wake-up, not one each, and apps that ivwl-server rings for
 * us are woken once weston is done with the pass.
 */
static void
schedule_ring_flush(void *data)
{
	struct ivwl_plugin *plugin = data;

	if (!plugin->ring_flush)
		plugin->ring_flush = wl_event_loop_add_idle(
			wl_display_get_event_loop(plugin->display),
			on_ring_flush, plugin);
	if (!plugin->ring_flush) {
		ivwl_ringer_flush();
		ivwl_device_flush_rings();
	}
}

static int
watch_init(struct ivwl_plugin *plugin)
{
	plugin->watcher = ivwl_watcher_create(
		wl_display_get_event_loop(plugin->display));
	if (!plugin->watcher)
		return -1;
	plugin->more_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (plugin->more_fd < 0)
		return -1;
	plugin->more_watch = ivwl_watch_add(plugin->watcher, plugin->more_fd,
					    WL_EVENT_READABLE, on_more, plugin);
	if (!plugin->more_watch)
		return -1;
	plugin->attacher = ivwl_attacher_create(plugin->watcher,
						ivwl_vm_attach_done);
	if (!plugin->attacher)
		return -1;
	ivwl_ringer_defer_wakes(schedule_ring_flush, plugin);
	ivwl_device_defer_rings(schedule_ring_flush, plugin);
	return 0;
}

static void
plugin_free(struct ivwl_plugin *plugin)
{
	struct ivwl_vm *vm, *tmp;

	wl_list_for_each_safe(vm, tmp, &plugin->vms, link)
		ivwl_vm_destroy(vm);
	ivwl_ringer_defer_wakes(NULL, NULL);
	ivwl_device_defer_rings(NULL, NULL);
	if (plugin->ring_flush)
		wl_event_source_remove(plugin->ring_flush);
	ivwl_placement_destroy(plugin->placement);
	ivwl_decoration_destroy(plugin->decoration);
	ivwl_bar_destroy(plugin->bar);
	ivwl_fullscreen_destroy(plugin->fullscreen);
	ivwl_xray_destroy(plugin->xray);
	ivwl_indicator_destroy(plugin->indicator);
	/* repaint listens to focus: it goes first */
	if (plugin->repaint)
		ivwl_repaint_destroy(plugin->repaint);
	if (plugin->map_pace)
		ivwl_map_pace_destroy(plugin->map_pace);
	ivwl_output_clock_destroy(plugin->output_clock);
	if (plugin->focus)
		ivwl_focus_destroy(plugin->focus);
	if (plugin->label)
		ivwl_label_destroy(plugin->label);
	ivwl_windows_destroy(plugin->windows);
	ivwl_canvas_destroy(plugin->canvas);
	free(plugin->font);
	if (plugin->clipboard)
		ivwl_clipboard_destroy(plugin->clipboard);
	ivwl_attacher_destroy(plugin->attacher);
	ivwl_live_view_destroy(plugin);
	ivwl_watch_remove(plugin->more_watch);
	if (plugin->more_fd >= 0)
		close(plugin->more_fd);
	ivwl_watcher_destroy(plugin->watcher);
	free(plugin);
}

static void
plugin_destroy(struct wl_listener *listener, void *data)
{
	struct ivwl_plugin *plugin =
		wl_container_of(listener, plugin, destroy_listener);

	wl_display_set_global_filter(plugin->display, NULL, NULL);
	wl_list_remove(&plugin->destroy_listener.link);
	wl_list_remove(&plugin->kill_listener.link);
	plugin_free(plugin);
}

WL_EXPORT int
wet_module_init(struct weston_compositor *compositor, int *argc, char *argv[])
{
	struct weston_config *config = wet_get_config(compositor);
	struct weston_config_section *section = NULL;
	struct ivwl_plugin *plugin;
	const char *name = NULL;
	int count = 0;

	ivwl_log_setup("ivwl", false);
	ivwl_log_set_sink(log_to_weston, NULL);
	plugin = calloc(1, sizeof(*plugin));
	if (!plugin)
		return -1;
	/*
	 * weston loads a module listed twice once (dlopen hands back the
	 * same object) but calls its init twice: a second plugin would
	 * attach to the same regions and find their display role taken.
	 */
	if (!weston_compositor_add_destroy_listener_once(
		    compositor, &plugin->destroy_listener, plugin_destroy)) {
		ivwl_log("ivwl.so is listed twice ([core] modules= or "
			 "--modules): list it once; the second is ignored");
		free(plugin);
		return 0;
	}
	/*
	 * First in line: weston 10's desktop-shell tears its layers down in
	 * its own destroy listener and crashes on windows with popups still
	 * there (fixed in weston 11).  The VM clients end before that, as a
	 * disconnect would end them, while the shell is whole.  weston has
	 * no API for the order: the listener weston just added moves ahead.
	 */
	wl_list_remove(&plugin->destroy_listener.link);
	wl_list_insert(&compositor->destroy_signal.listener_list,
		       &plugin->destroy_listener.link);
	plugin->compositor = compositor;
	plugin->display = compositor->wl_display;
	wl_list_init(&plugin->vms);
	plugin->more_fd = -1;
	ivwl_fds_raise_limit();
	if (watch_init(plugin) < 0) {
		ivwl_log("cannot watch file descriptors: %s", strerror(errno));
		goto err_vms;
	}

	while (weston_config_next_section(config, &section, &name)) {
		if (strcmp(name, "ivwl-vm") != 0)
			continue;
		if (!ivwl_vm_create(plugin, section, &ivwl_connection_slots))
			goto err_vms;
		count++;
	}
	if (count == 0)
		ivwl_log("no [ivwl-vm] section in the configuration: idle");
	/* no canvas (logged): frames in solid colours, no names */
	plugin->canvas = ivwl_canvas_create(compositor);
	section = weston_config_get_section(config, "ivwl", NULL, NULL);
	weston_config_section_get_string(section, "bar-font", &plugin->font,
					 IVWL_NAMEPLATE_FONT);
	if (!plugin->font)
		goto err_vms;
	plugin->windows = ivwl_windows_create(plugin);
	if (!plugin->windows)
		goto err_vms;
	/* first to hear the windows' signals: a window that maps is framed
	 * (and moved below the panel) before placement.c fits it */
	plugin->label = ivwl_label_create(plugin, plugin->font);
	if (!plugin->label || ivwl_live_view_create(plugin) < 0)
		goto err_vms;
	plugin->focus = ivwl_focus_create(plugin);
	if (!plugin->focus)
		goto err_vms;
	plugin->output_clock = ivwl_output_clock_create(compositor);
	if (!plugin->output_clock)
		goto err_vms;
	plugin->repaint = ivwl_repaint_create(plugin);
	if (!plugin->repaint)
		goto err_vms;
	plugin->map_pace = ivwl_map_pace_create(plugin);
	if (!plugin->map_pace)
		goto err_vms;
	plugin->indicator = ivwl_indicator_create(plugin, plugin->font);
	plugin->xray = ivwl_xray_create(plugin);
	plugin->bar = ivwl_bar_create(plugin);
	plugin->fullscreen = ivwl_fullscreen_create(plugin);
	plugin->decoration = ivwl_decoration_create(plugin);
	plugin->placement = ivwl_placement_create(plugin);
	if (!plugin->xray || !plugin->bar || !plugin->fullscreen ||
	    !plugin->decoration || !plugin->placement)
		goto err_vms;
	plugin->clipboard = ivwl_clipboard_create(plugin);
	if (!plugin->clipboard)
		goto err_vms;

	wl_display_set_global_filter(plugin->display, global_filter, plugin);
	ivwl_output_trace_start(compositor);
	plugin->kill_listener.notify = on_kill_binding;
	wl_signal_add(&compositor->kill_signal, &plugin->kill_listener);
	return 0;

err_vms:
	wl_list_remove(&plugin->destroy_listener.link);
	plugin_free(plugin);
	return -1;
}
