# SPDX-License-Identifier: MIT
"""test-hostile.py's cases on weston's repaints (the peer's
bugs-repaint.c): what one VM's views may cost everyone's frames."""

import re

from ivwltest.hostile_session import (Failure, frames_timed, good_client_after,
                             kept_share, rss_mib, wait_for)


def overdraw(s, layers, veiled):
    """Four connections of the evil VM map windows with layers
    translucent subsurfaces as big as each, stacked, 2044 layers in all,
    and commit them every frame: all within the firewall's budgets, and
    weston would blend them all on every repaint (without the repaint
    share the good VM kept 5 % of its frame rate, weston answered in
    668 ms at p99).  The evil windows are veiled (weston's log says so,
    matching veiled): the good VM keeps >= 80 % of its frame rate, a
    local bystander's round trips stay under 50 ms at p99."""
    base = frames_timed(s, "base")
    rss0 = rss_mib(s.weston.pid)
    s.start_peer("overdraw", 90, ["--count", str(layers)])
    wait_for("the evil windows' layers", lambda: "slot 3:" in s.peer_log()
             or s.peer.poll() is not None, timeout=80)
    # the windows themselves are layers too
    layers = sum(int(a) + int(b) for a, b in re.findall(
        r"slot \d+: (\d+) translucent \d+x\d+ layers on (\d+) windows",
        s.peer_log()))
    print(s.peer_log().strip())
    if layers < 2044:
        raise Failure(f"the attack did not get going: {layers} layers")
    # per surface weston keeps state, not pixels: the region holds them
    kept_share(s, "overdraw", base, rss0, frames_timed(s, "during"), 64)
    said = re.findall(r"ivwl: vm evil: .*", s.weston_log())
    print("\n".join(said[:3] + (["..."] if len(said) > 4 else []) +
                    said[3:][-1:]))
    if not re.search(veiled, s.weston_log()):
        raise Failure("weston's log does not say it veiled the evil "
                      "windows")
    s.check_weston()
    good_client_after(s, "the overdraw")


def case_overdraw(s):
    """One window a connection, 511 layers on it: more than one window
    may cost, veiled before weston draws it."""
    overdraw(s, 511, r"vm evil: a 1024x768 window veiled: its surfaces "
             r"would draw \d+ pixels in 512 views")


def case_overdraw_spread(s):
    """64 windows a connection, 7 layers on each: each within what one
    window may cost, together far over what a VM may draw in a repaint;
    the VM's costliest windows are veiled after the first repaint and
    it is slowed down."""
    overdraw(s, 7, r"vm evil: a 1024x768 window veiled: the VM drew \d+ "
             r"pixels")
    if not re.search(r"vm evil: its requests wait \d+ ms: its windows "
                     r"drew more than its share", s.weston_log()):
        raise Failure("weston's log does not say it slowed the evil VM "
                      "down")
