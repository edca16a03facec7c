#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Smoke test for `ivwl-bench scale`: a quick run (2 s busy, 2 s idle) at
N = 2, natively and through ivwl; stdout must be one JSON object per path
with every key, every window up, and the counts that must be positive
are.  Nothing about timing."""

import sys

import smoke

PATHS = ["native", "ivwl"]
N = 2
NUMBERS = ["vms", "nofile", "busy_s", "idle_s", "setup_s",
           "windows_expected", "windows_up", "vms_up", "startup_s",
           "startup_last_window_s", "weston_fds_start", "weston_fds_up",
           "weston_fds",
           "weston_fds_bare", "weston_rss_kib_start", "weston_rss_kib",
           "weston_rss_kib_bare", "weston_cpu_busy", "weston_cpu_idle",
           "transport_cpu_busy", "transport_cpu_idle", "fps_mean",
           "fps_min", "fps_max", "frames_busy", "windows_stopped",
           "commits_idle", "transport_wakeups_per_frame",
           "weston_cpu_busy_vs_native", "weston_ringer_cpu_busy",
           "weston_cpu_busy_less_ringers",
           "weston_cpu_busy_less_ringers_vs_native"]
# null when the native weston used no CPU at all while idle (0 / 0)
MAYBE_NUMBERS = ["weston_cpu_idle_vs_native"]
POSITIVE = ["busy_s", "idle_s", "setup_s", "startup_s", "weston_fds",
            "weston_fds_bare", "weston_rss_kib", "weston_cpu_busy",
            "fps_mean", "fps_min", "frames_busy",
            "weston_cpu_busy_vs_native"]
# Wake-ups every path must have in the busy phase.
BUSY_ROLES = ["weston", "client-anim"]
PER_VM = ["weston_fds", "weston_rss_kib", "weston_cpu_busy",
          "weston_cpu_idle", "transport_cpu_busy", "transport_cpu_idle",
          "wakeups_busy", "wakeups_idle"]


def number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_keys(name, r):
    bad = []
    for k in ["path", "vms_missing", "cpu_busy_by_role", "cpu_idle_by_role",
              "wakeups_busy", "wakeups_idle", "processes", "per_vm",
              "per_vm_detail", "weston_rss_kib_detail", "vm_states"]:
        if k not in r:
            bad.append(f"{name}: no {k}")
    for k in NUMBERS + MAYBE_NUMBERS:
        if k not in r:
            bad.append(f"{name}: no {k}")
        elif (not number(r[k]) or r[k] < 0) and \
                not (k in MAYBE_NUMBERS and r[k] is None):
            bad.append(f"{name}: {k} = {r[k]!r}, want a number >= 0")
    for k in POSITIVE:
        if not (number(r.get(k)) and r[k] > 0):
            bad.append(f"{name}: {k} = {r.get(k)!r}, want > 0")
    for k in PER_VM:
        if k not in r.get("per_vm", {}):
            bad.append(f"{name}: per_vm has no {k}")
    return bad


def check_counts(name, r):
    bad = []
    if r.get("windows_up") != 2 * N or r.get("vms_missing"):
        bad.append(f"{name}: windows up {r.get('windows_up')}/{2 * N}, "
                   f"missing {r.get('vms_missing')}")
    if r.get("windows_stopped") != N:
        bad.append(f"{name}: {r.get('windows_stopped')} of {N} animating "
                   "windows answered 'stop'")
    if r.get("commits_idle"):
        bad.append(f"{name}: {r['commits_idle']} commits in the idle "
                   "phase, want 0")
    for role in BUSY_ROLES:
        if not r.get("wakeups_busy", {}).get(role, 0) > 0:
            bad.append(f"{name}: no busy wake-ups for {role}")
    if len(r.get("per_vm_detail", [])) != N:
        bad.append(f"{name}: per_vm_detail has not {N} entries")
    return bad


def check_path(name, r):
    bad = []
    busy = r.get("wakeups_busy", {})
    if r.get("path") == "native":
        if r.get("transport_cpu_busy") or "ivwl-relay" in busy:
            bad.append(f"{name}: native went through a transport")
        if r.get("weston_ringer_cpu_busy"):
            bad.append(f"{name}: native weston has ringer threads")
        return bad
    procs = r.get("processes", {})
    for role, n in (("ivwl-relay", 2 * N), ("ivwl-agent", N),
                    ("ivwl-server", N)):
        if procs.get(role) != n:
            bad.append(f"{name}: {procs.get(role)} {role} processes, "
                       f"want {n}")
    if not busy.get("ivwl-relay", 0) > 0:
        bad.append(f"{name}: no busy wake-ups for ivwl-relay")
    for k in ("transport_cpu_busy", "transport_wakeups_per_frame"):
        if not r.get(k, 0) > 0:
            bad.append(f"{name}: {k} = {r.get(k)!r}, want > 0")
    # ivwl-server rings the agents for weston: it starts no ringer
    # thread, and the servers do the writes
    if r.get("weston_ringer_cpu_busy"):
        bad.append(f"{name}: weston's ringer threads ran "
                   f"({r['weston_ringer_cpu_busy']} s/s) though "
                   f"ivwl-server rings for it")
    if not busy.get("ivwl-server", 0) > 0:
        bad.append(f"{name}: no busy wake-ups for ivwl-server")
    if r.get("vms_attached") != N:
        bad.append(f"{name}: {r.get('vms_attached')} of {N} VMs attached")
    return bad


def check(r):
    name = f"{r.get('path')} N={r.get('vms')}"
    if "error" in r:
        return [f"{name}: {r['error']}"]
    return check_keys(name, r) + check_counts(name, r) + check_path(name, r)


def main():
    argv = smoke.bench_argv("check-scale-json.py", "scale")
    if argv is None:
        return 2
    out = smoke.run(argv + ["--quick", "--vms", str(N), "--json"] +
                    sys.argv[2:], 170)
    if out is None:
        return 1
    return smoke.check_rows(out, check, PATHS)


if __name__ == "__main__":
    sys.exit(main())
