# SPDX-License-Identifier: MIT
"""test-hostile.py's cases on weston's repaints (the peer's
bugs-repaint.c): what one VM's views may cost everyone's frames."""

import re

from hostile_session import (Failure, frames_timed, good_client_after,
                             rss_mib, wait_for)


def case_overdraw(s):
    """Four connections of the evil VM each map a window with 511
    translucent subsurfaces as big as it, stacked, and commit it every
    frame: all within the firewall's budgets, and weston would blend
    2044 layers on every repaint (without the repaint share the good VM
    kept 0-1 of 39 frames/s, weston answered in 0.6-2.1 s).  The evil
    windows are veiled and the VM slowed down: the good VM keeps >= 80 %
    of its frame rate, a local bystander's round trips stay under 50 ms
    at p99."""
    base, base_p99 = frames_timed(s, "base")
    rss0 = rss_mib(s.weston.pid)
    s.start_peer("overdraw", 90)
    wait_for("the evil windows' layers", lambda: "slot 3:" in s.peer_log()
             or s.peer.poll() is not None, timeout=80)
    layers = sum(int(n) for n in re.findall(r"slot \d+: (\d+) translucent",
                                             s.peer_log()))
    print(s.peer_log().strip())
    if layers < 4 * 500:
        raise Failure(f"the attack did not get going: {layers} layers")
    during, p99 = frames_timed(s, "during")
    ratio = base / during
    grown = rss_mib(s.weston.pid) - rss0
    print(f"good's frame rate under attack: {ratio:.0%} of its own "
          f"without; bystander p99 {p99:.1f} ms (without: "
          f"{base_p99:.1f} ms); weston grew by {grown} MiB")
    if ratio < 0.8:
        raise Failure(f"BUG overdraw: the good VM kept only {ratio:.0%} "
                      f"of its frame rate")
    if p99 > 50:
        raise Failure(f"BUG overdraw: weston answered a local client in "
                      f"{p99:.0f} ms at p99")
    # per surface weston keeps state, not pixels: the region holds them
    if grown > 64:
        raise Failure(f"weston grew by {grown} MiB")
    if not re.search(r"vm evil: a 1024x768 window veiled: its surfaces "
                     r"would draw \d+ pixels in 512 views", s.weston_log()):
        raise Failure("weston's log does not say it veiled the evil "
                      "windows")
    s.check_weston()
    good_client_after(s, "the overdraw")
