# SPDX-License-Identifier: MIT
"""What the smoke tests of ivwl-bench (check-*-json.py) share: running a
subcommand with --json and reading what it printed."""

import json
import subprocess
import sys


def bench_argv(script, subcommand):
    """[IVWL_BENCH, subcommand] from the command line, or None (usage
    printed)."""
    if len(sys.argv) < 2:
        print(f"usage: {script} IVWL_BENCH [ARGS...]")
        return None
    return [sys.argv[1], subcommand]


def run(cmd, timeout):
    """cmd's stdout, or None (and why, printed) when it failed."""
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, timeout=timeout)
    out = proc.stdout.decode()
    if proc.returncode != 0:
        print(f"{cmd} exited {proc.returncode}; stdout:\n{out}")
        return None
    return out


def json_lines(out):
    """(objects, problems): every line of out must be one JSON object."""
    rows, bad = [], []
    for line in out.splitlines():
        try:
            r = json.loads(line)
        except json.JSONDecodeError as e:
            bad.append(f"not a JSON object: {e}: {line!r}")
            continue
        if isinstance(r, dict):
            rows.append(r)
        else:
            bad.append(f"not an object: {r!r}")
    return rows, bad


def finish(rows, bad, out):
    """Prints the problems and the whole output (exit status 1), or the
    rows (0)."""
    if bad:
        print("\n".join(bad))
        print(out)
        return 1
    for r in rows:
        print(json.dumps(r))
    return 0


def check_rows(out, check, paths):
    """finish() of out's rows, each checked by check(row) -> [problems],
    with a problem for each of paths that has no row."""
    rows, bad = json_lines(out)
    for r in rows:
        bad += check(r)
    got = {r.get("path") for r in rows}
    if set(paths) - got:
        bad.append(f"missing paths: {sorted(set(paths) - got)}")
    return finish(rows, bad, out)
