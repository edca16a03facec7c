#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""weston-debug's scope "ivwl" during a real run: a subscriber sees the
figures move, and they agree with what the clients did (their relays'
IVWL_STATS) and with each other.

    test-live-view.py live-view      (one meson test)
"""

import os
import sys
import time

from ivwltest.session import (ENV, Failure, LiveView, Session,  # noqa: E402
                     case_main, wait_for)

FRAMES = 90


def relay_stats(session, proc, log):
    proc.terminate()
    proc.wait()

    def line():
        with open(session.path(log)) as f:
            return next((ln for ln in f if ln.startswith("ivwl-stats:")),
                        None)
    got = wait_for(f"the relay's stats in {log}", line, 10.0)
    return {k: int(v) for k, v in (kv.split("=") for kv in got.split()[1:])}


def number(fields, key):
    return float(fields[key])


def check(ok, what):
    if not ok:
        raise Failure(what)
    print(f"ok: {what}")


def pattern(s, title, log, env=None):
    p = s.client([ENV["IVWL_PATTERN_CLIENT"], "--frames", str(FRAMES),
                  "--title", title, "--width", "200", "--height", "150"],
                 log=log, extra_env=dict(env or {}, IVWL_STATS="1"))
    return p


def case_live_view(s):
    # weston 16 run with --debug (weston-debug needs it) keeps a timer
    # of its own armed all the time: there the loop's timerfd cannot
    # tell whether the view's timer went.
    own = all(armed(s.weston.pid) for _ in samples(1.0))
    sub = LiveView(s)
    try:
        watch(s, sub, own)
    finally:
        sub.close()
        print("---- what weston-debug ivwl showed last ----")
        with open(sub.path, errors="replace") as f:
            print("".join(f.readlines()[-6:]))


def watch(s, sub, weston_timer):
    # Subscribed before anything runs: the VM, idle.
    first = wait_for("a vm line", lambda: sub.of("vm", name="work"))[0]
    check(first["connections"] == "0" and first["commits"] == "0",
          "the idle VM shows no connection and no commit")

    # A title an app chose stays one quoted field.
    title = 'live "view"'
    p = pattern(s, title, "zero-copy.log")
    s.wait_line(p, "ready")
    want = f"[work] {title}"

    def conn_settled():
        lines = sub.of("conn", vm="work", window0=want)
        return lines if lines and \
            int(lines[-1]["commits"]) == FRAMES + 1 else None
    lines = wait_for("the connection's line with every commit",
                     conn_settled, 20.0)
    check(any(number(f, "commits/s") > 0 and number(f, "frames/s") > 0
              for f in sub.of("conn", vm="work")),
          "commits/s and frames/s moved while the client drew")
    last = lines[-1]
    check(FRAMES - 1 <= int(last["frames"]) <= FRAMES,
          f"{last['frames']} frames shown for {FRAMES} drawn")
    check(int(last["surfaces"].split("/")[0]) == 1 and
          last["surfaces"].split("/")[1] == "512",
          "budget surfaces=1/512")
    check(last["app_zero_copy_pools"] == "1" and
          last["app_copied_bytes"] == "0",
          "its own memfd drawn in place: a zero-copy pool, 0 bytes copied")
    check(int(last["bells_in"]) > 0 and int(last["bells_out"]) > 0,
          f"doorbells both ways: bells_in={last['bells_in']} "
          f"bells_out={last['bells_out']}")
    for ring in ("request_ring", "event_ring"):
        fill, size = (int(x) for x in last[ring].split("/"))
        check(size >= 4096 and 0 <= fill <= size,
              f"{ring}={last[ring]}: fill within the ring's size")
    # Its share of the repaints: its one view, at most its 200x150 box.
    shares = [(int(f["repaint_px"].split("/")[0]),
               int(f["repaint_views"].split("/")[0]))
              for f in sub.of("vm", name="work")]
    check(any(px > 0 and views == 1 for px, views in shares) and
          all(px <= 200 * 150 for px, _ in shares),
          f"repaint_px and repaint_views: its window's pixels, one view "
          f"({shares[-3:]})")
    slot = last["slot"]
    st = relay_stats(s, p, "zero-copy.log")
    check(int(last["app_buffer_commits"]) == st["commits"] and
          int(last["commits"]) == st["commits"] + 1,
          f"commits agree with the relay's ({st['commits']} with a "
          f"buffer, and the first without)")

    closed = wait_for("its closure", lambda: sub.of("closed", vm="work",
                                                   slot=slot))
    check(closed[-1]["why"] in ("closed by the app", "the app disconnected"),
          f"closed with its reason: {closed[-1]['why']!r}")
    vm = wait_for("the VM after it", lambda: [
        f for f in sub.of("vm", name="work") if f["closed"] == "1" and
        f["connections"] == "0"])[-1]
    check(int(vm["commits"]) == FRAMES + 1 and
          int(vm["app_buffer_commits"]) == st["commits"] and
          int(vm["bells_in"]) >= int(last["bells_in"]) and
          int(vm["bells_out"]) >= int(last["bells_out"]),
          "the VM keeps the counts of connections gone")

    # Copy mode: the relay copies, and says so.
    p = pattern(s, "copied", "copy.log", {"IVWL_ZERO_COPY": "off"})
    s.wait_line(p, "ready")

    def copied():
        got = sub.of("conn", vm="work", window0="[work] copied")
        return got if got and \
            int(got[-1]["app_buffer_commits"]) == FRAMES else None
    last = wait_for("the copying connection", copied, 20.0)[-1]
    st = relay_stats(s, p, "copy.log")
    check(last["app_copy_pools"] == "1" and
          int(last["app_copied_bytes"]) == st["copied_bytes"] and
          st["copied_bytes"] >= 200 * 150 * 4,
          f"IVWL_ZERO_COPY=off: a copy pool, {last['app_copied_bytes']} "
          "bytes copied as the relay counted")

    # Nobody watching: the view keeps no timer.  weston's loop has one
    # timerfd for all its timers; idle, nothing else arms it.
    if weston_timer:
        sub.close()
        print("not checked: whether the view's timer went (weston keeps "
              "a timer of its own armed all the time)")
    else:
        check(all(armed(s.weston.pid) for _ in samples(1.0)),
              "weston's loop timer armed while someone watches")
        sub.close()
        check(any(not armed(s.weston.pid) for _ in samples(3.0)),
              "no timer armed once the last subscriber left")
    check(s.weston.poll() is None, "weston runs on")


def samples(seconds, step=0.1):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        yield
        time.sleep(step)


def armed(pid):
    """Whether any timerfd of pid is set to expire."""
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") != "anon_inode:[timerfd]":
                continue
            with open(f"/proc/{pid}/fdinfo/{fd}") as f:
                info = f.read()
        except OSError:
            continue
        if "it_value: (0, 0)" not in info:
            return True
    return False


def main():
    return case_main(["live-view"], lambda name: (Session(("work",)),
                                                  case_live_view, False))


if __name__ == "__main__":
    sys.exit(main())
