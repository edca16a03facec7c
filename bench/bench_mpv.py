# SPDX-License-Identifier: MIT
"""`ivwl-bench mpv` (frames.py mpv): mpv --vo=wlshm playing a lavfi test
source through every path, its dropped and delayed frames and the CPU
of every process.  The X paths (x11-native, x11-ivwl) play it with
--vo=x11 on weston's own Xwayland and on ivwl-xwm's."""

import os
import shutil
import signal
import subprocess
import time

from bench_display import TRANSPORT, X_PATHS, Display, available_paths
from bench_proc import (BenchError, descendants, log, parse_kv, read,
                        reap_orphans, relay_stats, snapshot, usage_between)
from bench_report import (emit_json, fmt_bytes, fmt_ratio, machine_line,
                          ratio, table)
from bench_run import parse_sizes


MPV_LUA = r"""
-- Prints mpv's frame counters on stdout once the video has reached its
-- end (--keep-open holds it there until the driver ends it).
local started = false
local function counters()
    local function p(name)
        local v = mp.get_property_number(name)
        if v == nil then return "na" end
        return string.format("%d", v)
    end
    return "frame_drop=" .. p("frame-drop-count") ..
        " decoder_drop=" .. p("decoder-frame-drop-count") ..
        " vo_delayed=" .. p("vo-delayed-frame-count")
end
mp.register_event("playback-restart", function()
    if not started then
        started = true
        io.stdout:write("ivwl-mpv-start\n")
        io.stdout:flush()
    end
end)
mp.observe_property("eof-reached", "bool", function(_, v)
    if v then
        io.stdout:write("ivwl-mpv-done " .. counters() .. "\n")
        io.stdout:flush()
    end
end)
"""


def run_mpv(disp, path, seconds, size, rate, index):
    prefix, env = disp.env_for(path)
    lua = disp.path("ivwl-mpv.lua")
    with open(lua, "w") as f:
        f.write(MPV_LUA)
    logname = f"mpv-{index}-{path}.log"
    w, h = size
    vo = "x11" if path in X_PATHS else "wlshm"
    argv = prefix + ["mpv", f"--vo={vo}", "--no-audio", "--no-config",
                     "--keep-open=yes", f"--length={seconds}",
                     f"--script={lua}", "--msg-level=all=warn",
                     f"--title=mpv-{path}",
                     f"av://lavfi:testsrc2=size={w}x{h}:rate={rate}"]
    p, lines, roles, alive = disp.start_measured(path, argv, env, logname)
    # mpv's own pid is the one named "mpv"; under waypipe p is waypipe.
    try:
        line = None
        while line is None or not line.startswith("ivwl-mpv-start"):
            line = lines.next(60, alive)
            if line is None:
                raise BenchError(f"mpv via {path} never started; see "
                                 f"{disp.path(logname)}:\n" +
                                 (read(disp.path(logname)) or "")[-2000:])
        before = snapshot(os.getpid())
        t0 = time.monotonic()
        line = None
        while line is None or not line.startswith("ivwl-mpv-done"):
            line = lines.next(seconds * 4 + 60, alive)
            if line is None:
                raise BenchError(f"mpv via {path} never reached its end; "
                                 f"see {disp.path(logname)}")
        after = snapshot(os.getpid())
        wall = time.monotonic() - t0
    finally:
        mpv_pids = [pid for pid, comm in descendants(os.getpid()).items()
                    if comm == "mpv"]
        for pid in mpv_pids:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        try:
            p.wait(20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        p.stdout.close()
    stats = relay_stats(disp.path(logname)) if "ivwl" in path else None
    reap_orphans({q.pid for q in disp.procs})
    client_pid = [pid for pid, (comm, _, _) in after.items()
                  if comm == "mpv"]
    usage = usage_between(before, after, roles,
                          client_pid[0] if client_pid else -1)
    cpu_s = {k: v["cpu_ns"] / 1e9 for k, v in usage.items()}
    counters = parse_kv(line)
    r = {
        "path": path,
        "size": f"{w}x{h}",
        "rate": rate,
        "seconds": seconds,
        "wall_s": wall,
        "frames_expected": int(seconds * rate),
        "cpu_s": sum(cpu_s.values()),
        "cpu_percent": 100.0 * sum(cpu_s.values()) / wall if wall else 0.0,
        "transport_cpu_s": sum(cpu_s.get(k, 0.0) for k in TRANSPORT[path]),
        "cpu_s_by_process": cpu_s,
    }
    r.update({k: v for k, v in counters.items()})
    if stats:
        r["relay_stats"] = stats
    return r


def print_mpv(rows, header):
    print(header)
    paths = [r["path"] for r in rows]
    by = {r["path"]: r for r in rows}
    row = table(paths, by)
    row("wall s (first frame to end)", lambda r: f"{r['wall_s']:.2f}")
    row("frames dropped (VO)", lambda r: str(r.get("frame_drop", "na")))
    row("frames dropped (decoder)",
        lambda r: str(r.get("decoder_drop", "na")))
    row("frames delayed (VO)", lambda r: str(r.get("vo_delayed", "na")))
    row("commits through the relay",
        lambda r: str(r["relay_stats"]["commits"]) if "relay_stats" in r
        else "-")
    row("relay copied / commit", lambda r: fmt_bytes(
        r["relay_stats"]["copied_bytes"] /
        max(r["relay_stats"]["commits"], 1)) if "relay_stats" in r
        else "-")
    row("CPU s, all processes", lambda r: f"{r['cpu_s']:.2f}")
    row("CPU %, all processes (of 1 core)",
        lambda r: f"{r['cpu_percent']:.0f}")
    for proc in ("client", "weston", "Xwayland", "ivwl-xwm", "ivwl-relay",
                 "ivwl-agent", "ivwl-server", "waypipe"):
        if any(proc in r["cpu_s_by_process"] for r in rows):
            row(f"  {proc}", lambda r, proc=proc: "%.2f" %
                r["cpu_s_by_process"].get(proc, 0.0))
    row("transport CPU s", lambda r: f"{r['transport_cpu_s']:.2f}")
    if "native" in by:
        row("CPU vs native", lambda r: fmt_ratio(
            ratio(r["cpu_s"], by["native"]["cpu_s"])))
    if "waypipe" in by:
        row("CPU vs waypipe", lambda r: fmt_ratio(
            ratio(r["cpu_s"], by["waypipe"]["cpu_s"])))
    if "x11-native" in by:
        row("CPU vs x11-native", lambda r: fmt_ratio(
            ratio(r["cpu_s"], by["x11-native"]["cpu_s"])))

def main_mpv(args):
    paths = available_paths([p.strip() for p in args.paths.split(",")])
    if not shutil.which("mpv"):
        raise SystemExit("mpv is not installed (tools/deps.sh)")
    size = parse_sizes(args.size)[0]
    load0 = machine_line()
    disp = Display(args.build, size[0], size[1], args.keep_logs,
                   args.repaint_window,
                   xwayland=any(p in X_PATHS for p in paths))
    rows = []
    try:
        for i, path in enumerate(paths):
            if not args.json:
                log(f"mpv via {path}, {args.seconds} s")
            rows.append(run_mpv(disp, path, args.seconds, size, args.rate,
                                i))
    finally:
        disp.close()
    if emit_json(rows, args):
        return 0
    print_mpv(rows, f"ivwl-bench mpv: mpv --vo=wlshm (x11 on the X paths), "
              f"lavfi testsrc2 "
              f"{size[0]}x{size[1]} at {args.rate} fps for {args.seconds} s"
              f" ({int(args.seconds * args.rate)} frames)\n"
              f"before: {load0}\nafter:  {machine_line()}")
    return 0
