#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Smoke test for `ivwl-bench frames`: a tiny run (small size, few frames)
over every path that is installed; stdout must be one JSON object per line
with the required keys and sane numbers.  Nothing about timing."""

import shutil
import sys

import smoke

REQUIRED = ["path", "size", "cpu_ms_per_frame",
            "transport_cpu_ms_per_frame", "copied_bytes_per_frame",
            "latency_p50_us", "latency_p99_us", "fps"]


STAGES = ["commit_to_relay_wrote", "relay_wrote_to_plugin_read",
          "plugin_read_to_repainted", "repainted_to_presented",
          "presented_to_delivered"]


def check_stages(name, r):
    """The frame trace's figures: every stage of an ivwl path timed,
    p50 <= p99, and the relay counted its doorbells."""
    if r.get("path") not in ("ivwl-copy", "ivwl-zero-copy"):
        return []
    bad = []
    for s in STAGES:
        p50, p99 = r.get(f"{s}_p50_us"), r.get(f"{s}_p99_us")
        if not isinstance(p50, (int, float)) or \
                not isinstance(p99, (int, float)) or p99 < p50:
            bad.append(f"{name}: stage {s}: p50 {p50!r} p99 {p99!r}")
    procs = r.get("doorbells_and_wakeups_by_process") or {}
    relay = procs.get("ivwl-relay", {})
    if not relay.get("doorbells_rung_per_frame", 0) > 0:
        bad.append(f"{name}: relay doorbells per frame {relay!r}")
    return bad


def main():
    argv = smoke.bench_argv("check-frames-json.py", "frames")
    if argv is None:
        return 2
    paths = ["native", "ivwl-copy", "ivwl-zero-copy"]
    if shutil.which("waypipe"):
        paths.append("waypipe")
    out = smoke.run(argv + ["--sizes", "320x240", "--damage", "full,band",
                            "--frames", "20", "--warmup", "4", "--paths",
                            ",".join(paths), "--json"] + sys.argv[2:], 280)
    if out is None:
        return 1
    rows, failed = smoke.json_lines(out)
    for r in rows:
        name = f"{r.get('path')} {r.get('size')} {r.get('damage')}"
        for k in REQUIRED:
            if k not in r:
                failed.append(f"{name}: no {k}")
        for k in REQUIRED[2:]:
            v = r.get(k)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or \
                    v < 0:
                failed.append(f"{name}: {k} = {v!r}, want a number >= 0")
        if not r.get("frames_presented", 0) > 0:
            failed.append(f"{name}: no frame presented")
        for k in ("cpu_ms_per_frame", "fps", "latency_p50_us"):
            if not r.get(k, 0) > 0:
                failed.append(f"{name}: {k} = {r.get(k)!r}, want > 0")
        if r.get("latency_p99_us", 0) < r.get("latency_p50_us", 0):
            failed.append(f"{name}: p99 below p50")
        if r.get("path") == "native" and r.get("copied_bytes_per_frame"):
            failed.append(f"{name}: native copied bytes")
        if r.get("path") == "native" and r.get("transport_cpu_ms_per_frame"):
            failed.append(f"{name}: native transport CPU")
        if r.get("path") == "ivwl-copy" and \
                not r.get("copied_bytes_per_frame", 0) > 0:
            failed.append(f"{name}: the copy path copied nothing")
        if r.get("path", "").startswith("ivwl") and \
                not r.get("transport_cpu_ms_per_frame", 0) > 0:
            failed.append(f"{name}: no transport CPU (relay not found?)")
        failed += check_stages(name, r)
    want = {(p, d) for p in paths for d in ("full", "band")}
    got = {(r.get("path"), r.get("damage")) for r in rows}
    if want - got:
        failed.append(f"missing cases: {sorted(want - got)}")
    return smoke.finish(rows, failed, out)


if __name__ == "__main__":
    sys.exit(main())
