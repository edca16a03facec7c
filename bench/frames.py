#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`ivwl-bench frames` and `ivwl-bench mpv`: one Wayland client through
weston by every path, CPU of every process, bytes copied, latency.

    frames.py frames --build DIR [--sizes WxH,..] [--damage full,band]
                     [--frames N] [--warmup N] [--sync-every N]
                     [--paths P,..] [--json]
    frames.py mpv --build DIR [--seconds S] [--paths P,..] [--json]

One weston (headless backend, pixman renderer, ivwl.so loaded with one
[ivwl-vm]) serves every path:

  native          the client on weston's own socket
  ivwl-copy       through libivwl-shim.so, ivwl-relay, ivwl-agent and the
                  region, IVWL_ZERO_COPY=off
  ivwl-zero-copy  the same, IVWL_ZERO_COPY=on
  waypipe         `waypipe --compress none --no-gpu` server (app side) and
                  client (display side) over a unix socket

and, only when asked for with --paths:

  ivwl-copy-no-replay  ivwl-copy with IVWL_RESTART_WAIT=0: the relay keeps
                  no model to replay after a compositor restart, so the
                  two copy paths side by side show what the model costs
  ivwl-in-process  ivwl-zero-copy with IVWL_IN_PROCESS=on: the client's
                  own process relays its connection, no ivwl-relay

CPU is read from /proc: the sum over a process's threads of the time on
CPU in /proc/PID/task/TID/schedstat (ns), for every process that descends
from this driver (it makes itself a child subreaper, so the relay, which
detaches from the client, is one of them too), between the client's
"ready" line (after warm-up) and its "done" line (every measured frame
presented or discarded; the client stays connected until told).

The modules beside this file hold what `ivwl-bench chromium` and
`ivwl-bench scale` share with it: bench_proc.py (/proc, CPU per role),
bench_display.py (the display side and the paths), bench_report.py,
bench_run.py; bench_mpv.py is the mpv subcommand.
"""

import argparse
import os
import sys
import time

import stages
from bench_display import (ALL_PATHS, MPV_PATHS, PATHS, TRANSPORT, Display,
                           available_paths)
from bench_mpv import main_mpv
from bench_proc import (BenchError, log, parse_kv, read, reap_orphans,
                        relay_stats, snapshot, usage_between)
from bench_report import (add_ratios, emit_json, fmt_bytes, fmt_ratio,
                          machine_line, median_rows, table)
from bench_run import add_common_args, parse_sizes, run, try_case


# ---- one client run ---------------------------------------------------

def run_frames(disp, path, w, h, damage, frames, warmup, sync_every, index):
    prefix, env = disp.env_for(path)
    logname = f"client-{index}-{path}-{w}x{h}-{damage}.log"
    argv = prefix + [disp.bin["client"], "--width", str(w), "--height",
                     str(h), "--damage", damage, "--frames", str(frames),
                     "--warmup", str(warmup), "--sync-every", str(sync_every),
                     "--title", f"frames-{path}-{w}x{h}-{damage}"]
    p, lines, roles, alive = disp.start_measured(path, argv, env, logname)
    try:
        ready = None
        while ready is None:
            line = lines.next(60 + warmup, alive)
            if line is None:
                raise BenchError(f"{path} {w}x{h}: client never got ready; "
                                 f"see {disp.path(logname)}:\n" +
                                 (read(disp.path(logname)) or "")[-2000:])
            if line.startswith("ready "):
                ready = int(line.split()[1])
        before = snapshot(os.getpid())
        t0 = time.monotonic()
        line = None
        while line is None or not line.startswith("done "):
            line = lines.next(60 + frames, alive)
            if line is None:
                raise BenchError(f"{path} {w}x{h}: client never finished; "
                                 f"see {disp.path(logname)}:\n" +
                                 (read(disp.path(logname)) or "")[-2000:])
        after = snapshot(os.getpid())
        wall = time.monotonic() - t0
        done = parse_kv(line)
        p.stdin.write(b"bye\n")
        p.stdin.close()
        p.wait(30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        p.stdout.close()
    stats = None
    if path.startswith("ivwl"):
        stats = relay_stats(disp.path(logname))
        if stats is None:
            raise BenchError(f"{path}: no IVWL_STATS line from the relay")
    reap_orphans({q.pid for q in disp.procs})

    usage = usage_between(before, after, roles, ready)
    presented = done.get("presented", 0)
    per = max(presented, 1)
    cpu = {k: v["cpu_ns"] / 1e6 / per for k, v in usage.items()}
    total = sum(cpu.values())
    transport = sum(cpu.get(k, 0.0) for k in TRANSPORT[path])
    r = {
        "path": path,
        "size": f"{w}x{h}",
        "damage": damage,
        "cpu_ms_per_frame": total,
        "transport_cpu_ms_per_frame": transport,
        "copied_bytes_per_frame": 0.0,
        "latency_p50_us": done.get("latency_p50_us", 0.0),
        "latency_p99_us": done.get("latency_p99_us", 0.0),
        "fps": done.get("fps", 0.0),
        "commit_rtt_p50_us": done.get("commit_rtt_p50_us", 0.0),
        "commit_rtt_p99_us": done.get("commit_rtt_p99_us", 0.0),
        "frames_committed": done.get("committed", 0),
        "frames_presented": presented,
        "frames_discarded": done.get("discarded", 0),
        "cpu_ms_per_frame_by_process": cpu,
        "switches_per_frame": sum(v["runs"] for v in usage.values()) / per,
        "switches_per_frame_by_process":
            {k: v["runs"] / per for k, v in usage.items()},
        "processes": {k: v["processes"] for k, v in usage.items()},
        "wall_s": wall,
        "client_touched_bytes_per_frame":
            done.get("touched_bytes", 0) / max(done.get("committed", 0) +
                                               warmup, 1),
        "damage_bytes_per_frame": (w * h * 4 if damage == "full" else
                                   w * max(h // 8, 1) * 4),
    }
    if disp.trace:
        st = stages.stage_figures(disp.trace, ready)
        if st:
            r.update(st)
    if stats:
        commits = max(stats.get("commits", 0), 1)
        r["copied_bytes_per_frame"] = stats.get("copied_bytes", 0) / commits
        r["copied_bytes_source"] = ("ivwl-relay IVWL_STATS copied_bytes / "
                                    "commits (whole connection, warm-up "
                                    "included)")
        r["relay_stats"] = stats
    elif path == "waypipe":
        wp = usage.get("waypipe", {"rchar": 0, "wchar": 0})
        r["copied_bytes_per_frame"] = (wp["rchar"] + wp["wchar"]) / per
        r["copied_bytes_source"] = ("waypipe /proc/PID/io rchar+wchar of "
                                    "both waypipes (bytes through "
                                    "system calls; its memcpy into "
                                    "mirrors is not counted)")
        r["waypipe_wchar_per_frame"] = wp["wchar"] / per
    else:
        r["copied_bytes_source"] = "none: the compositor reads the " \
                                   "client's memfd"
    return r


# ---- reports ----------------------------------------------------------

FRAMES_RATIOS = (("cpu", "cpu_ms_per_frame", ("native", "waypipe")),
                 ("latency_p50", "latency_p50_us", ("native", "waypipe")),
                 ("transport_cpu", "transport_cpu_ms_per_frame",
                  ("waypipe",)))


def print_table(rows, header):
    print(header)
    groups = []
    for r in rows:
        key = (r["size"], r["damage"])
        if key not in groups:
            groups.append(key)
    for size, damage in groups:
        g = [r for r in rows if r["size"] == size and r["damage"] == damage]
        by = {r["path"]: r for r in g}
        paths = [p for p in ALL_PATHS if p in by]
        print(f"\n{size}, {damage} damage "
              f"({fmt_bytes(g[0]['damage_bytes_per_frame'])} per frame)")
        row = table(paths, by)
        row("frames presented / committed",
            lambda r: f"{r['frames_presented']}/{r['frames_committed']}")
        row("fps", lambda r: f"{r['fps']:.1f}")
        row("latency p50, us", lambda r: f"{r['latency_p50_us']:.0f}")
        row("latency p99, us", lambda r: f"{r['latency_p99_us']:.0f}")
        row("commit round trip p50, us",
            lambda r: f"{r['commit_rtt_p50_us']:.0f}")
        row("commit round trip p99, us",
            lambda r: f"{r['commit_rtt_p99_us']:.0f}")
        row("CPU ms / frame, all processes",
            lambda r: f"{r['cpu_ms_per_frame']:.3f}")
        for proc in ("client", "weston", "ivwl-relay", "ivwl-agent",
                     "ivwl-server", "waypipe"):
            if any(proc in r["cpu_ms_per_frame_by_process"] for r in g):
                row(f"  {proc}", lambda r, proc=proc: "%.3f" % r[
                    "cpu_ms_per_frame_by_process"].get(proc, 0.0))
        others = sorted({k for r in g for k in r["cpu_ms_per_frame_by_process"]
                         if k.startswith("other:")})
        for proc in others:
            row(f"  {proc}", lambda r, proc=proc: "%.3f" % r[
                "cpu_ms_per_frame_by_process"].get(proc, 0.0))
        row("scheduled in / frame, all",
            lambda r: f"{r['switches_per_frame']:.1f}")
        row("transport CPU ms / frame",
            lambda r: f"{r['transport_cpu_ms_per_frame']:.3f}")
        row("transport copied / frame",
            lambda r: fmt_bytes(r["copied_bytes_per_frame"]))
        stages.print_rows(row, g)
        if "native" in by:
            row("CPU vs native", lambda r: fmt_ratio(r.get("cpu_vs_native")))
            row("latency p50 vs native",
                lambda r: fmt_ratio(r.get("latency_p50_vs_native")))
        if "waypipe" in by:
            row("CPU vs waypipe",
                lambda r: fmt_ratio(r.get("cpu_vs_waypipe")))
            row("transport CPU vs waypipe",
                lambda r: fmt_ratio(r.get("transport_cpu_vs_waypipe")))
    print("\nCPU: time on CPU between the client's first measured commit "
          "and its last feedback, / frames presented.\ntransport: ivwl = "
          "relay + agent + server (the plugin runs inside weston); "
          "waypipe = both waypipes.\ncopied: ivwl = the relay's "
          "IVWL_STATS copied_bytes / commits; waypipe = /proc io "
          "rchar+wchar of both waypipes / frames.")


def print_targets(rows):
    """The transport's targets (docs/benchmarks/), met or missed, from the
    rows that exist: zero-copy copies nothing, 4K costs at most 1.5x
    1080p, 1440p costs at most 1.2x native and half of waypipe, and
    latency stays within 200 us of native."""
    def get(path, size, damage="full"):
        for r in rows:
            if (r["path"], r["size"], r["damage"]) == (path, size, damage):
                return r
        return None

    def verdict(ok):
        return "met" if ok else "MISSED"

    out = []
    zc = [r for r in rows if r["path"] == "ivwl-zero-copy"]
    if zc:
        worst = max(r["copied_bytes_per_frame"] for r in zc)
        out.append(f"zero-copy copies 0 bytes/frame: max "
                   f"{fmt_bytes(worst)} -> {verdict(worst == 0)}")
        a, b = get("ivwl-zero-copy", "3840x2160"), \
            get("ivwl-zero-copy", "1920x1080")
        if a and b and b["transport_cpu_ms_per_frame"] > 0:
            x = a["transport_cpu_ms_per_frame"] / \
                b["transport_cpu_ms_per_frame"]
            out.append(f"zero-copy transport CPU 4K / 1080p (full): "
                       f"{a['transport_cpu_ms_per_frame']:.3f} / "
                       f"{b['transport_cpu_ms_per_frame']:.3f} ms = "
                       f"{x:.2f}x (<= 1.5x) -> {verdict(x <= 1.5)}")
    for path in ("ivwl-copy", "ivwl-zero-copy"):
        r, n, w = get(path, "2560x1440"), get("native", "2560x1440"), \
            get("waypipe", "2560x1440")
        if r and n:
            x = r["cpu_ms_per_frame"] / n["cpu_ms_per_frame"]
            out.append(f"{path} 2560x1440 full, total CPU vs native: "
                       f"{x:.2f}x (<= 1.2x) -> {verdict(x <= 1.2)}")
        if r and w:
            x = r["cpu_ms_per_frame"] / w["cpu_ms_per_frame"]
            out.append(f"{path} 2560x1440 full, total CPU vs waypipe: "
                       f"{x:.2f}x (<= 0.5x) -> {verdict(x <= 0.5)}")
    for path in ("ivwl-copy", "ivwl-zero-copy"):
        for r in rows:
            n = get("native", r["size"], r["damage"])
            if r["path"] != path or not n:
                continue
            d = r["latency_p50_us"] - n["latency_p50_us"]
            out.append(f"{path} {r['size']} {r['damage']}: latency p50 "
                       f"native {'+' if d >= 0 else ''}{d:.0f} us "
                       f"(<= +200) -> {verdict(d <= 200)}")
    if out:
        print("\nTargets:")
        for line in out:
            print("  " + line)


# The small-updates targets (docs/benchmarks/frames.md, "Small updates"):
# (name, figure of a row and its native row or None, bound, unit).
APP_SIDE = ("ivwl-relay", "ivwl-agent", "ivwl-shim")


def _bells(r, procs, key="doorbells_rung_per_frame"):
    by = r.get("doorbells_and_wakeups_by_process")
    if by is None:
        return None
    return sum(by.get(p, {}).get(key, 0.0) for p in procs)


def _over(r, n, key):
    if r.get(key) is None or n.get(key) is None:
        return None
    return r[key] - n[key]


def _ratio(r, n, key):
    if r.get(key) is None or not n.get(key):
        return None
    return r[key] / n[key]


SMALL_UPDATES = (
    ("total CPU", lambda r, n: _ratio(r, n, "cpu_ms_per_frame"), 1.25, "x"),
    ("relay wakes", lambda r, n: _bells(r, ("ivwl-relay",),
                                        "wakeups_per_frame"), 0.1, "/frame"),
    ("weston rings the app",
     lambda r, n: _bells(r, ("weston (ivwl.so)",)), 1.1, "/frame"),
    ("the app rings weston", lambda r, n: _bells(r, APP_SIDE), 1.1,
     "/frame"),
    ("presented->delivered p50 over native",
     lambda r, n: _over(r, n, "presented_to_delivered_p50_us"), 200, " us"),
    ("commit round trip p50",
     lambda r, n: _ratio(r, n, "commit_rtt_p50_us"), 1.5, "x"),
)


def small_updates(r, n):
    """One line: each small-updates figure of row r against its bound,
    and how many of them it meets."""
    parts, met = [], 0
    for name, figure, bound, unit in SMALL_UPDATES:
        v = figure(r, n)
        if v is None:
            parts.append(f"{name} - (no trace)")
            continue
        ok = v <= bound
        met += ok
        fmt = "%.2f" if unit != " us" else "%+.0f"
        parts.append(f"{name} {fmt % v}{unit} (<= {bound:g}{unit}) "
                     f"{'met' if ok else 'MISSED'}")
    return (f"small-updates {r['path']} {r['size']} {r['damage']}: "
            f"{met}/{len(SMALL_UPDATES)} met; " + "; ".join(parts))


def print_small_updates(rows):
    """The small-updates line of every ivwl band row with its native."""
    out = []
    for r in rows:
        if r["damage"] != "band" or not r["path"].startswith("ivwl"):
            continue
        n = [x for x in rows if x["path"] == "native" and
             (x["size"], x["damage"]) == (r["size"], r["damage"])]
        if n:
            out.append(small_updates(r, n[0]))
    if out:
        print()
        for line in out:
            print(line)


# ---- main -------------------------------------------------------------

# Pixels the output has beyond the largest window, each way: room for
# ivwl's frame (a border and the title bar) on the screen.
OUTPUT_MARGIN = 64

def main_frames(args):
    sizes = parse_sizes(args.sizes)
    damages = [d.strip() for d in args.damage.split(",")]
    for d in damages:
        if d not in ("full", "band"):
            raise SystemExit(f"bad damage {d!r} (full, band)")
    if args.sync_every < 1:
        raise SystemExit(f"bad --sync-every {args.sync_every} (1 or more)")
    paths = available_paths([p.strip() for p in args.paths.split(",")])
    if not paths:
        raise SystemExit("no path to run")
    # room around the largest window: every path's window off the
    # output's origin, where the shell puts a window on a desktop
    # ("Placement" in docs/benchmarks/frames.md)
    ow = max(w for w, _ in sizes) + OUTPUT_MARGIN
    oh = max(h for _, h in sizes) + OUTPUT_MARGIN
    load0 = machine_line()
    disp = Display(args.build, ow, oh, args.keep_logs, args.repaint_window,
                   trace=not args.no_stages)
    rows, failed = [], []
    try:
        i = 0
        for rep in range(args.repeat):
            for w, h in sizes:
                for damage in damages:
                    for path in paths:
                        if not args.json:
                            log(f"{path} {w}x{h} {damage} "
                                f"({args.frames} frames)")
                        r = try_case(disp, failed,
                                     f"{path} {w}x{h} {damage}",
                                     run_frames, disp, path, w, h, damage,
                                     args.frames, args.warmup,
                                     args.sync_every, i)
                        i += 1
                        if r:
                            r["repeat"] = rep
                            rows.append(r)
    finally:
        disp.close()
    if args.repeat > 1:
        rows = median_rows(rows, ("path", "size", "damage"),
                           ("latency_p50_us", "latency_p99_us", "fps",
                            "commit_rtt_p50_us", "commit_rtt_p99_us",
                            "transport_cpu_ms_per_frame"))
    add_ratios(rows, ("size", "damage"), FRAMES_RATIOS)
    status = 1 if failed else 0
    if failed:
        log(f"{len(failed)} case(s) failed: {', '.join(failed)}")
    if emit_json(rows, args):
        return status
    print_table(rows, f"ivwl-bench frames: {args.frames} measured frames "
                f"after {args.warmup} warm-up, a round trip timed on 1 "
                f"in {args.sync_every}, weston headless pixman "
                f"{ow}x{oh}, median of {args.repeat}\n"
                f"before: {load0}\nafter:  {machine_line()}")
    print_targets(rows)
    print_small_updates(rows)
    return status


def main():
    ap = argparse.ArgumentParser(prog="ivwl-bench")
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("frames", help="frames-client through every path")
    f.add_argument("--build", required=True,
                   help="build tree with host/, app/, relay/, shim/, agent/, plugin/, "
                        "bench/ (ivwl-bench passes its own)")
    f.add_argument("--sizes", default="1920x1080,2560x1440,3840x2160",
                   help="window sizes, WxH,... (default %(default)s)")
    f.add_argument("--damage", default="full,band",
                   help="full and/or band (1/8 of the height)")
    f.add_argument("--frames", type=int, default=300,
                   help="measured frames per case (default %(default)s)")
    f.add_argument("--warmup", type=int, default=30,
                   help="frames before measuring (default %(default)s)")
    f.add_argument("--sync-every", type=int, default=20,
                   help="a wl_display.sync behind every Nth measured "
                        "commit, its round trip timed; the others wait for "
                        "frame callbacks alone, as most clients do "
                        "(default %(default)s; 1: the client is woken for "
                        "a round trip every frame)")
    f.add_argument("--repeat", type=int, default=1,
                   help="runs per case, interleaved; median reported")
    f.add_argument("--no-stages", action="store_true",
                   help="no frame trace (IVWL_FRAME_TRACE): no per-stage "
                        "times, doorbells and wake-ups, and no write(2) "
                        "per traced event in the CPU figures")
    add_common_args(f, PATHS)
    m = sub.add_parser("mpv", help="mpv --vo=wlshm through every path; "
                       "--paths x11-native,x11-ivwl plays it on X")
    m.add_argument("--build", required=True)
    m.add_argument("--seconds", type=float, default=10)
    m.add_argument("--size", default="1920x1080")
    m.add_argument("--rate", type=int, default=60)
    add_common_args(m, MPV_PATHS)
    args = ap.parse_args()
    return run(args, main_frames if args.cmd == "frames" else main_mpv)

if __name__ == "__main__":
    sys.exit(main())
