/* SPDX-License-Identifier: MIT */
/*
 * Every limit the plugin puts on what a VM may make weston hold or do:
 * memory, fds, mappings, work per wake-up.  An app-VM is hostile until
 * proven otherwise, so each bound here is one a misbehaving VM runs into
 * instead of weston running out.  docs/security.md gives the reasons and
 * the bound on weston's memory per VM they add up to.
 */
#ifndef IVWL_PLUGIN_LIMITS_H
#define IVWL_PLUGIN_LIMITS_H

/* ---- a connection's traffic (connection.c) ---- */

/* Requests waiting for libwayland: beyond this we stop reading the ring. */
#define IVWL_CONN_TO_SERVER_LIMIT (256u << 10)
/* Records handled per doorbell before yielding to the rest of weston. */
#define IVWL_CONN_RECORD_BUDGET 256
/* Bytes a VM may send weston through one pipe (selections, drops). */
#define IVWL_SINK_LIMIT (64u << 20)

/* ---- pipes weston reads through a thread (pipe-thread.c) ---- */

/* Most a decoupled pipe holds in memory before it pushes back. */
#define IVWL_PIPE_THREAD_BUFFER (64u << 20)
/* Most all decoupled pipes of one VM hold: two whole buffers. */
#define IVWL_PIPE_VM_BUFFER (128u << 20)
/* A full buffer that nobody drains for this long may hold weston. */
#define IVWL_PIPE_THREAD_STALL_MS 1000

/* ---- wl_shm and titles (translate.c) ---- */

/* Each pool maps the region's prefix in weston: bound the mappings. */
#define IVWL_CONN_MAX_POOLS 128u
#define IVWL_VM_MAX_POOLS 512u
#define IVWL_CONN_MAX_BUFFERS 1024u
/* A window title as weston gets it, "[vm] " included. */
#define IVWL_TITLE_MAX 1024u
/* A set_fullscreen this soon after the user's input to the VM is the
 * user's (fullscreen=user; browsers' user activation lasts 5 s). */
#define IVWL_FULLSCREEN_INPUT_MS 3000u

/* ---- the clipboard (clipboard.c, clipboard-trusted.c) ---- */

/* Offers withheld from one client at once: weston makes one per data
 * device per focus change or drag, and each goes within its burst. */
#define IVWL_CLIP_WITHHELD_MAX 64u
/* The trusted copy's buffer ([ivwl] clipboard-budget-mib), and the most
 * that may be set. */
#define IVWL_CLIP_DEFAULT_BUDGET_MIB 64
#define IVWL_CLIP_MAX_BUDGET_MIB 1024
/* A selection offering more is cut to its first types. */
#define IVWL_CLIP_MAX_TYPES 32u
/* No byte moved for this long: the other end stalls
 * ([ivwl] clipboard-stall-ms). */
#define IVWL_CLIP_DEFAULT_STALL_MS 3000
/* Bytes moved per wake-up before the rest of weston runs again. */
#define IVWL_CLIP_PER_WAKE (1u << 20)
/* Offers of one trusted paste, made as the keyboard moves between the
 * target VM's windows: an unread paste offered this often is
 * withdrawn. */
#define IVWL_CLIP_PASTE_OFFERS 16u
/* Receives weston passes on to a VM's source, remembered until the
 * VM's send event names the reader (clipboard-transfer.c): the oldest
 * makes room. */
#define IVWL_CLIP_READS_MAX 64u

/* ---- the firewall's budgets (firewall*.c) ---- */

/*
 * Each bounds what weston keeps for a client (memory, fds, work per
 * repaint).
 */
#define IVWL_FW_CONN_OBJECTS 16384u
#define IVWL_FW_VM_OBJECTS 65536u
#define IVWL_FW_CONN_SURFACES 512u
#define IVWL_FW_VM_SURFACES 2048u
/*
 * Toplevels and popups alive: each is a view, and a toplevel four more
 * (its frame).  weston 14 takes an opaque buffer's view as opaque, and
 * for every view of a repaint subtracts and merges the region of all
 * opaque views above it: the cost grows with the square of the windows
 * shown.  With 256 1x1 windows of one VM the other VM's client draws 90
 * frames in 2.9 s (2.3 s beside 32), with 1024 in 13.3 s, with 2047
 * not one frame in 10 s.
 */
#define IVWL_FW_VM_WINDOWS 256u
#define IVWL_FW_CONN_REGIONS 256u
#define IVWL_FW_MAX_RECTS 1024u
#define IVWL_FW_CONN_RECTS 16384u
#define IVWL_FW_CONN_POSITIONERS 64u
#define IVWL_FW_CONN_DATA_SOURCES 64u
#define IVWL_FW_SOURCE_MIME_TYPES 128u
#define IVWL_FW_MIME_LENGTH 255u
/* weston keeps each MIME type as its own allocation: charge for that */
#define IVWL_FW_MIME_OVERHEAD 32u
#define IVWL_FW_CONN_MIME_BYTES (64u << 10)
#define IVWL_FW_VM_MIME_BYTES (512u << 10)
#define IVWL_FW_CONN_KEYBOARDS 8u
#define IVWL_FW_VM_KEYBOARDS 64u
#define IVWL_FW_CONN_POINTERS 8u
#define IVWL_FW_CONN_TOUCHES 8u
#define IVWL_FW_CONN_CALLBACKS 1024u
#define IVWL_FW_CONN_FEEDBACKS 1024u
/* Past any output: weston and the border's geometry stay far from
 * int32 overflow. */
#define IVWL_FW_MAX_SURFACE_SIZE 32768
/* Popups nest: each level is a grab weston unwinds one by one. */
#define IVWL_FW_POPUP_DEPTH 16u

/*
 * Window maps a VM may make between two of weston's repaints on weston
 * 16 (map-pace.c, IVWL_WESTON_PACES_MAPS): each new view costs the next repaint, and weston 16
 * stalls its main thread 0.55-0.87 s once when a VM maps 253 windows at
 * once (0.44 s at 0.5 ms apart, 0.25 s at 2 ms apart, 19 ms at 20 ms
 * apart: one a frame).  A map past them waits for the next repaint, or
 * this long when none comes.
 */
#define IVWL_MAP_PACE_PER_REPAINT 2u
#define IVWL_MAP_PACE_IDLE_MS 100
/*
 * And on every weston, a VM maps at most IVWL_MAP_BURST windows at once
 * (its window budget), then IVWL_MAP_RATE a second: each map and each
 * window gone costs weston and the plugin work (its views, its frame,
 * its nameplate), and a VM that mapped its 250 windows, closed the
 * connection and did it again kept weston 10 at 97 % of a core, 12
 * times a second, and the other VM's new client from drawing at all.
 */
#define IVWL_MAP_BURST 256u
#define IVWL_MAP_RATE 64u

/*
 * A VM's share of weston's repaints (repaint.c, docs/security.md,
 * "Repaint share").  weston composites every view of a repaint, on the
 * CPU with the pixman renderer: what a VM's views cover is what it
 * costs everyone's frames.
 */
/* A window's own surfaces may cover its box this many times... */
#define IVWL_REPAINT_WINDOW_DEPTH 8u
/* ...and be this many views (toplevel and subsurfaces). */
#define IVWL_REPAINT_WINDOW_VIEWS 64u
/* A VM's views may draw this many times an output's area a repaint... */
#define IVWL_REPAINT_VM_AREA 4u
/* ...and be this many views. */
#define IVWL_REPAINT_VM_VIEWS 256u
/* A pixel of a surface drawn scaled or rotated costs this many blends. */
#define IVWL_REPAINT_TRANSFORMED_COST 4u
/* All VMs' views together may draw this many times an output's area a
 * repaint: past it, the VMs spending most wait first, the one with the
 * keyboard last. */
#define IVWL_REPAINT_ALL_AREA 4u
/* Subsurfaces nested deeper than this are not walked (nor drawn). */
#define IVWL_REPAINT_TREE_DEPTH 32
/* After a VM went over its share, its windows are admitted one by one
 * for this long (repaint.c, ivwl_repaint_admit). */
#define IVWL_REPAINT_HOT_MS 2000u
/* The longest a VM over its share waits to be read again. */
#define IVWL_REPAINT_SLOW_MAX_MS 1000u
/* A VM that leaves a pipe weston writes into unread waits
 * IVWL_STALL_SLOW_MS, doubled for each further one within
 * IVWL_STALL_FORGET_MS, up to IVWL_STALL_SLOW_MAX_MS. */
#define IVWL_STALL_SLOW_MS 250u
#define IVWL_STALL_FORGET_MS 60000u
#define IVWL_STALL_SLOW_MAX_MS 16000u

#endif
