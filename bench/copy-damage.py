#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Copy mode: bytes the transport copies per frame, next to the damage.

Runs ivwl-pattern-client (full first frame, then one damaged band per
frame, two buffers alternating) through weston + ivwl.so at several sizes
and reads the relay's IVWL_STATS line.  With two buffers, a region buffer
must catch up with the damage of the last two commits, so the floor is
about twice the damage of one frame; a transport that copied whole
buffers would show copied = width * height * 4 per frame.  The client
runs with IVWL_ZERO_COPY=off: zero-copy would copy nothing at all.

--viewport: the client damages a 64x64 box per frame with
wl_surface.damage, in surface coordinates, on a surface with an identity
wp_viewport, as Chromium does; the relay maps that damage to the buffer.

    bench/copy-damage.py [--build DIR] [--frames N] [--viewport] [--json]
"""

import argparse
import json
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# the tests' Python package (tests/ivwltest): a session of weston
sys.path.insert(0, os.path.join(HERE, "..", "tests"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--frames", type=int, default=120)
    ap.add_argument("--viewport", action="store_true",
                    help="identity wp_viewport, 64x64 wl_surface.damage")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    b = os.path.abspath(args.build)
    os.environ.update({
        "IVWL_SERVER_BIN": f"{b}/host/ivwl-server",
        "IVWL_AGENT_BIN": f"{b}/agent/ivwl-agent",
        "IVWL_PLUGIN": f"{b}/plugin/ivwl.so",
        "IVWL_SHIM": f"{b}/shim/libivwl-shim.so",
        "IVWL_PATTERN_CLIENT":
            f"{b}/tests/integration/ivwl-pattern-client",
    })
    from ivwltest.session import ENV, Session

    rows = []
    for w, h in ((640, 360), (1280, 720), (1920, 1080)):
        s = Session(("bench",), width=2048, height=1200)
        try:
            log = f"pattern-{w}.log"
            extra = (["--viewport", "--surface-damage", "--band", "64x64"]
                     if args.viewport else [])
            p = s.client([ENV["IVWL_PATTERN_CLIENT"], "--frames",
                          str(args.frames), "--width", str(w), "--height",
                          str(h), "--hold-ms", "0"] + extra, vm="bench",
                         log=log, extra_env={"IVWL_STATS": "1",
                                             "IVWL_ZERO_COPY": "off"})
            p.wait(120)
            # the relay writes its line once the client has left
            stats = None
            for _ in range(100):
                with open(s.path(log)) as f:
                    m = re.search(r"ivwl-stats: commits=(\d+) "
                                  r"damaged_bytes=(\d+) copied_bytes=(\d+)",
                                  f.read())
                if m:
                    stats = tuple(map(int, m.groups()))
                    break
                time.sleep(0.05)
            if not stats:
                raise SystemExit("no IVWL_STATS line from the relay")
        finally:
            s.close()
        commits, damaged, copied = stats
        full = w * h * 4
        rows.append({
            "size": f"{w}x{h}",
            "frames": commits,
            "damage_bytes_per_frame": damaged / commits,
            "copied_bytes_per_frame": copied / commits,
            "copied_per_damaged": copied / damaged,
            "copied_per_full_frame": copied / commits / full,
        })

    if args.json:
        print(json.dumps(rows))
        return 0
    print(f"{'size':>10} {'frames':>6} {'damage/frame':>13} "
          f"{'copied/frame':>13} {'copied/damage':>14} {'copied/full':>12}")
    for r in rows:
        print(f"{r['size']:>10} {r['frames']:>6} "
              f"{r['damage_bytes_per_frame'] / 1024:>10.1f} KiB "
              f"{r['copied_bytes_per_frame'] / 1024:>10.1f} KiB "
              f"{r['copied_per_damaged']:>14.2f} "
              f"{r['copied_per_full_frame']:>12.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
