#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Smoke test for `ivwl-bench chromium`: a quick run (2 s warm-up, 3 s
measured) of one small page at one small size, natively and through both
ivwl paths; stdout must be one JSON object per line with every key, and
the numbers that must be positive are.  Nothing about timing.  Exit 77
(skipped) without chromium."""

import shutil
import sys

import smoke

PATHS = ["native", "ivwl-copy", "ivwl-zero-copy"]
NUMBERS = ["fps", "frames", "wall_s", "cpu_s", "cpu_percent",
           "cpu_ms_per_frame", "transport_cpu_s",
           "transport_cpu_ms_per_frame", "copied_bytes_per_frame",
           "transport_wakeups_per_frame",
           "transport_sched_cpu_ms_per_frame"]
POSITIVE = ["fps", "frames", "wall_s", "cpu_s", "cpu_percent",
            "cpu_ms_per_frame"]


def check(r):
    name = f"{r.get('path')} {r.get('page')} {r.get('size')}"
    bad = []
    for k in ["browser", "path", "page", "size", "viewport",
              "cpu_s_by_process", "copied_bytes_source"] + NUMBERS:
        if k not in r:
            bad.append(f"{name}: no {k}")
    for k in NUMBERS:
        v = r.get(k)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
            bad.append(f"{name}: {k} = {v!r}, want a number >= 0")
    for k in POSITIVE:
        if not r.get(k, 0) > 0:
            bad.append(f"{name}: {k} = {r.get(k)!r}, want > 0")
    if not r.get("cpu_s_by_process", {}).get("browser", 0) > 0:
        bad.append(f"{name}: no CPU for the browser's processes")
    path = r.get("path", "")
    if not r.get("wakeups_per_frame_by_process", {}).get("weston", 0) > 0:
        bad.append(f"{name}: weston never woke")
    if path == "native":
        if r.get("copied_bytes_per_frame") or "relay_stats" in r:
            bad.append(f"{name}: native went through a relay")
    else:
        if not r.get("transport_wakeups_per_frame", 0) > 0:
            bad.append(f"{name}: the transport never woke")
        st = r.get("relay_stats") or {}
        for k in ("commits", "damaged_bytes", "copied_bytes",
                  "zero_copy_commits"):
            if not isinstance(st.get(k), int):
                bad.append(f"{name}: relay_stats has no {k}")
        if not st.get("commits", 0) > 0:
            bad.append(f"{name}: the relay saw no commit")
        # The window's own figures, from weston's live view at both ends.
        if "window_live_view" not in r:
            bad.append(f"{name}: no live-view figures for the window")
        if not r.get("window_commits", 0) > 0:
            bad.append(f"{name}: no commit in the measured window")
        if not r.get("damaged_bytes_per_frame", 0) > 0:
            bad.append(f"{name}: no damage in the measured window (the "
                       f"page animates an element)")
        if not r.get("cpu_vs_native", 0) > 0:
            bad.append(f"{name}: no CPU ratio to native")
    if path == "ivwl-copy" and not r.get("copied_bytes_per_frame", 0) > 0:
        bad.append(f"{name}: the copy path copied nothing in the window")
    return bad


def main():
    argv = smoke.bench_argv("check-chromium-json.py", "chromium")
    if argv is None:
        return 2
    if not shutil.which("chromium"):
        print("chromium is not installed (tools/deps.sh): skipped")
        return 77
    out = smoke.run(argv + ["--quick", "--sizes", "640x480", "--pages",
                            "small", "--paths", ",".join(PATHS),
                            "--json"] + sys.argv[2:], 170)
    if out is None:
        return 1
    return smoke.check_rows(out, check, PATHS)

if __name__ == "__main__":
    sys.exit(main())
