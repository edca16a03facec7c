# SPDX-License-Identifier: MIT
"""What every benchmark subcommand's main does: its common options,
window sizes, one case at a time without one broken path hiding the
others, and running as a child subreaper."""

import ctypes
import os
import re

from bench_proc import BenchError, log, reap_orphans

PR_SET_CHILD_SUBREAPER = 36


def parse_sizes(s):
    out = []
    for part in s.split(","):
        m = re.fullmatch(r"(\d+)x(\d+)", part.strip())
        if not m:
            raise SystemExit(f"bad size {part!r} (want WxH)")
        out.append((int(m.group(1)), int(m.group(2))))
    return out


def try_case(disp, failed, name, fn, *args, **kw):
    """fn(*args, **kw), a row; None if it raised a BenchError, whose
    case is then added to failed: one broken path must not hide the
    others."""
    try:
        return fn(*args, **kw)
    except BenchError as e:
        log(f"FAILED: {name}: {e}")
        failed.append(name)
        reap_orphans({q.pid for q in disp.procs})
        return None


def add_common_args(parser, paths):
    """The options of every subcommand that runs a Display."""
    parser.add_argument("--paths", default=",".join(paths),
                        help="default %(default)s; waypipe is skipped "
                             "when not installed")
    parser.add_argument("--json", action="store_true",
                        help="one JSON object per line, one line per case")
    parser.add_argument("--json-out", metavar="FILE",
                        help="also write the JSON lines to FILE")
    parser.add_argument("--keep-logs", action="store_true",
                        help="keep the temporary dir with every process's "
                             "log")
    parser.add_argument("--repaint-window", type=int, default=16,
                        help="weston.ini [core] repaint-window, ms "
                             "(weston's default: 7)")


def run(args, fn):
    """fn(args) as a child subreaper (the relays, which detach from the
    client, come to us), a BenchError its message and exit status 1."""
    args.build = os.path.abspath(args.build)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        log("cannot become a child subreaper: the relay's CPU may be lost")
    try:
        return fn(args)
    except BenchError as e:
        log(str(e))
        return 1
