# SPDX-License-Identifier: MIT
"""The benchmarks' reports: ratios between paths, the table of paths
side by side, the median of repeated runs, JSON lines, the machine's
load."""

import json
import os

from bench_proc import read


def ratio(a, b):
    return a / b if b else None


def fmt_ratio(x):
    return "-" if x is None else f"{x:.2f}x"


def fmt_bytes(b):
    if b >= 1 << 20:
        return f"{b / (1 << 20):.2f} MiB"
    if b >= 1 << 10:
        return f"{b / 1024:.1f} KiB"
    return f"{b:.0f} B"


def add_ratios(rows, case, ratios):
    """r[NAME_vs_BASE] = r[field] / the same case's BASE row's, for every
    (NAME, field, BASEs) of ratios; a case is the rows that agree on the
    keys of case and differ in path."""
    for r in rows:
        same = {x["path"]: x for x in rows
                if all(x[k] == r[k] for k in case)}
        for name, field, bases in ratios:
            for base in bases:
                b = same.get(base)
                if b and b is not r:
                    r[f"{name}_vs_{base}"] = ratio(r[field], b[field])


def table(paths, by):
    """Prints the paths' header line; returns row(label, fn), which
    prints fn(by[path]) for every path."""
    print(f"{'':34}" + "".join(f"{p:>16}" for p in paths))

    def row(label, fn):
        print(f"{label:34}" + "".join(f"{fn(by[p]):>16}" for p in paths))
    return row


def median_rows(rows, case, medians, runs=("cpu_ms_per_frame",)):
    """Per case (the rows that agree on the keys of case, path among them)
    the run with the median total CPU per frame, in the order the cases
    came; each key of medians is the median of its own, runs_KEY lists
    every run's KEY for each key of runs."""
    groups = {}
    for r in rows:
        groups.setdefault(tuple(r[k] for k in case), []).append(r)
    out = []
    for g in groups.values():
        g = sorted(g, key=lambda r: r["cpu_ms_per_frame"])
        m = dict(g[len(g) // 2])
        m["runs"] = len(g)
        for k in runs:
            m[f"runs_{k}"] = [r[k] for r in g]
        for k in medians:
            vals = sorted(r[k] for r in g)
            m[k] = vals[len(vals) // 2]
        out.append(m)
    return out


def emit_json(rows, args):
    """--json-out FILE gets the rows as JSON lines; with --json stdout
    gets them too, and True says the table is not wanted."""
    if args.json_out:
        with open(args.json_out, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
    if args.json:
        for r in rows:
            print(json.dumps(r))
    return args.json


def machine_line():
    model = "?"
    for line in (read("/proc/cpuinfo") or "").splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    load = (read("/proc/loadavg") or "? ? ?").split()[:3]
    return (f"{os.cpu_count()} CPUs ({model}), load average "
            f"{' '.join(load)}")
