# SPDX-License-Identifier: MIT
"""Where one frame's time goes, from the frame trace (IVWL_FRAME_TRACE,
protocol/util/frame-trace.h) of one `ivwl-bench frames` run.

Files in the trace directory:
  frames-client-PID.frames   the client: per measured frame its commit,
                             presentation and receipt (CLOCK_MONOTONIC)
  ivwl-relay-PID.trace       "C t conn" when a commit's records are in the
                             request ring; "R t peer" per doorbell rung;
                             "W t d" per wake-up (d = 1: by a doorbell)
  weston-PID.trace           the plugin: "C t conn" when it read a commit,
                             "P t 0" when weston repainted an output, R, W
  ivwl-agent-PID.trace       R and W

Commits are lined up by their order on the connection: the client's n-th
wl_surface.commit is the relay's n-th C line and the plugin's n-th C line
of that connection (conn = generation << 8 | slot).  "Repainted" is the
first repaint after the plugin read the commit (after the commit itself
on the native path).  Doorbells and wake-ups are counted per process
between the first measured commit and the last receipt, per frame
presented.
"""

import bisect
import glob
import os
import re

STAGES = (
    ("commit_to_relay_wrote", "commit", "relay"),
    ("relay_wrote_to_plugin_read", "relay", "plugin"),
    ("plugin_read_to_repainted", "plugin", "repaint"),
    ("repainted_to_presented", "repaint", "presented"),
    ("presented_to_delivered", "presented", "received"),
)


def _percentile(sorted_values, p):
    if not sorted_values:
        return None
    i = min(len(sorted_values) - 1,
            max(0, int(round(p / 100.0 * len(sorted_values) + 0.5)) - 1))
    return sorted_values[i]


def _read_trace(path):
    events = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3:
                events.append((parts[0], int(parts[1]), int(parts[2])))
    return events


def _read_frames(path):
    first, rows = None, []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if parts[0] == "first_commit":
                first = int(parts[1])
            elif len(parts) == 4:
                rows.append(tuple(int(x) for x in parts))
    return first, rows


# Who writes a client's commits into the ring.
RELAY_ROLES = ("ivwl-relay", "ivwl-shim")


def _role(path):
    name = os.path.basename(path)
    m = re.match(r"(.*)-\d+\.trace$", name)
    role = m.group(1) if m else name
    return "weston" if role == "weston" else role


def stage_figures(trace_dir, client_pid):
    """Per-stage p50/p99 (us) and per-process doorbells and wake-ups per
    frame, or None when the run left no trace."""
    frames_path = os.path.join(trace_dir,
                               f"frames-client-{client_pid}.frames")
    if not os.path.exists(frames_path):
        return None
    first, rows = _read_frames(frames_path)
    rows = [r for r in rows if r[2] and r[3]]
    if first is None or not rows:
        return None
    t0 = min(r[1] for r in rows)
    t1 = max(r[3] for r in rows)
    traces = {p: _read_trace(p) for p in
              glob.glob(os.path.join(trace_dir, "*.trace"))}

    # This run's relay: the one whose commits fall in the run (in
    # in-process mode the client's own, whose trace is ivwl-shim's).
    relay, conn, best = None, None, 0
    for p, ev in traces.items():
        if _role(p) not in RELAY_ROLES:
            continue
        cs = [a for k, t, a in ev if k == "C" and t0 <= t <= t1]
        if len(cs) > best:
            relay, conn, best = p, max(set(cs), key=cs.count), len(cs)
    weston = [ev for p, ev in traces.items() if _role(p) == "weston"]
    weston = weston[0] if weston else []
    relay_c = [t for k, t, a in traces.get(relay, []) if k == "C" and
               a == conn]
    plugin_c = [t for k, t, a in weston if k == "C" and a == conn]
    repaints = sorted(t for k, t, a in weston if k == "P")

    spans = {name: [] for name, _, _ in STAGES}
    for index, commit, presented, received in rows:
        g = first + index
        at = {"commit": commit, "presented": presented,
              "received": received}
        if relay is not None:
            at["relay"] = relay_c[g] if g < len(relay_c) else None
            at["plugin"] = plugin_c[g] if g < len(plugin_c) else None
        after = at.get("plugin") if relay is not None else commit
        if after is not None:
            i = bisect.bisect_left(repaints, after)
            at["repaint"] = repaints[i] if i < len(repaints) else None
        if relay is None:
            at["plugin"] = commit    # native: weston reads the commit
        for name, a, b in STAGES:
            if at.get(a) is not None and at.get(b) is not None:
                spans[name].append(at[b] - at[a])

    out = {"stages_frames": len(rows),
           "stages_source": "IVWL_FRAME_TRACE (bench/stages.py)"}
    for name, _, _ in STAGES:
        v = sorted(spans[name])
        out[f"{name}_p50_us"] = (None if not v else
                                 _percentile(v, 50) / 1000.0)
        out[f"{name}_p99_us"] = (None if not v else
                                 _percentile(v, 99) / 1000.0)

    per = float(len(rows))
    procs = {}
    for p, ev in traces.items():
        if _role(p) in RELAY_ROLES and p != relay:
            continue
        inside = [(k, a) for k, t, a in ev if t0 <= t <= t1]
        if not inside:
            continue
        role = "weston (ivwl.so)" if _role(p) == "weston" else _role(p)
        procs[role] = {
            "doorbells_rung_per_frame":
                sum(1 for k, _ in inside if k == "R") / per,
            "wakeups_per_frame":
                sum(1 for k, _ in inside if k == "W") / per,
            "doorbell_wakeups_per_frame":
                sum(1 for k, a in inside if k == "W" and a == 1) / per,
        }
    out["doorbells_and_wakeups_by_process"] = procs
    return out


def _us(v):
    return "-" if v is None else f"{v:.0f}"


def print_rows(row, rows):
    """The table rows of the trace's figures (bench_report.py's table())."""
    if not any("stages_frames" in r for r in rows):
        return
    for name, _, _ in STAGES:
        label = name.replace("_to_", " -> ").replace("_", " ")
        row(f"{label}, p50/p99 us", lambda r, n=name: "%s/%s" % (
            _us(r.get(f"{n}_p50_us")), _us(r.get(f"{n}_p99_us"))))
    procs = []
    for r in rows:
        for p in r.get("doorbells_and_wakeups_by_process", {}):
            if p not in procs:
                procs.append(p)
    for p in procs:
        row(f"  {p}: doorbells/wake-ups", lambda r, p=p: "%.2f/%.2f" % (
            r.get("doorbells_and_wakeups_by_process", {}).get(p, {}).get(
                "doorbells_rung_per_frame", 0.0),
            r.get("doorbells_and_wakeups_by_process", {}).get(p, {}).get(
                "wakeups_per_frame", 0.0)))
