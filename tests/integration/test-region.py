#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The region's fd, lent to weston by ivwl-server when it needs one
(docs/region.md, "The server protocol": REGION).

    test-region.py (loans|no-lend)

loans    two VMs of two windows each; one window makes a wl_shm_pool per
         frame (pattern client --new-pools --recreate), so weston asks
         its server for the region's fd again and again.  Every window is
         pixel-exact, the live view counts the loans, and at rest weston
         holds no region file.  Then one VM's windows end, and its
         server: weston lets go of 3 fds per window and 2 for the VM, 8
         for a VM with two windows.
no-lend  the same VM with ivwl-server --no-lend (a server that does not
         lend, as QEMU's or an older ivwl-server): weston says so once,
         keeps the region's file, windows work, and the VM costs 9.
"""

import os
import re
import signal
import sys
import time

from ivwltest.session import (ENV, Failure, Listing, LiveView,  # noqa: E402
                              Session, case_main, compare_window, wait_for)


def pattern(s, vm, name, extra=(), frames=12):
    dump = s.path(f"{name}.raw")
    p = s.client([ENV["IVWL_PATTERN_CLIENT"], "--frames", str(frames),
                  "--title", name, "--dump", dump] + list(extra), vm=vm,
                 log=f"{name}.log")
    return p, dump


def weston_fds(s):
    """{fd: link target} of weston's open files."""
    fds = {}
    base = f"/proc/{s.weston.pid}/fd"
    for name in os.listdir(base):
        try:
            fds[name] = os.readlink(f"{base}/{name}")
        except FileNotFoundError:
            pass
    return fds


def region_files(s):
    return [t for t in weston_fds(s).values()
            if t.startswith("/memfd:ivwl-region")]


def settled_fd_count(s, seconds=1.0):
    """weston's fd count, the least seen over a while: a retrying attach
    holds a socket for an instant now and then."""
    end = time.monotonic() + seconds
    least = len(weston_fds(s))
    while time.monotonic() < end:
        time.sleep(0.05)
        least = min(least, len(weston_fds(s)))
    return least


def vm_cost(s, vm, clients, views):
    """What vm costs weston: its clients end (then 3 fds per window
    should go), then its server (the VM's own fds go).  (windows' fds,
    VM's fds)."""
    before = settled_fd_count(s)
    for p in clients:
        p.send_signal(signal.SIGTERM)
        p.wait(10)
    wait_for(f"{vm}'s windows to go", lambda: not any(
        v["title"] in views for v in s.scene()))
    closing = re.compile(rf"\[{vm}\] slot \d+ generation \d+: closing:")
    wait_for(f"weston to close {vm}'s connections", lambda: len(
        closing.findall(s.weston_log())) >= len(clients))
    windows = settled_fd_count(s)
    s.servers[vm].send_signal(signal.SIGTERM)
    s.servers[vm].wait(10)
    wait_for(f"weston to detach {vm}", lambda: re.search(
        rf"\[{vm}\] server=\S+: lost the ivshmem server; detached",
        s.weston_log()))
    after = settled_fd_count(s)
    print(f"{vm}: {before - windows} fds for {len(clients)} windows, "
          f"{windows - after} for the VM, {before - after} in all")
    return before - windows, windows - after


def live_vm(live, vm, key, cond):
    """The live view's vm line of vm once cond(value of key) holds."""
    return wait_for(f"the live view of {vm} with {key} as expected",
                    lambda: [f for f in live.of("vm", name=vm)
                             if cond(int(f[key]))])[-1]


def case_loans(s):
    frames = 40
    churn, dump_churn = pattern(s, "work", "churn", frames=frames,
                                extra=["--new-pools", "--recreate"])
    still, dump_still = pattern(s, "work", "still")
    home = [pattern(s, "home", f"home-{i}") for i in range(2)]
    for p in [churn, still] + [p for p, _ in home]:
        s.wait_line(p, "ready")
    compare_window(s, s.wait_view("[work] churn"), dump_churn, 240, 180)
    compare_window(s, s.wait_view("[work] still"), dump_still, 240, 180)
    compare_window(s, s.wait_view("[home] home-0"), home[0][1], 240, 180)

    live = LiveView(s)
    try:
        work = live_vm(live, "work", "region_loans",
                       lambda n: n >= frames // 2)
        live_vm(live, "work", "region_waiters", lambda n: n == 0)
        live_vm(live, "home", "region_loans", lambda n: n >= 1)
    finally:
        live.close()
    print(f"work: {work['region_loans']} region loans for {frames} "
          f"frames of a pool each")
    held = region_files(s)
    if held:
        raise Failure(f"weston holds the region's file at rest: {held}")
    if "does not lend" in s.weston_log():
        raise Failure("weston says a server does not lend")

    windows, own = vm_cost(s, "home", [p for p, _ in home],
                           ("[home] home-0", "[home] home-1"))
    if (windows, own) != (6, 2):
        raise Failure(f"home cost weston {windows} fds for its two "
                      f"windows and {own} of its own, not 6 and 2")
    # work is served all along: one more frame, one more pool
    churn.send_signal(signal.SIGUSR1)
    s.wait_line(churn, "again 1")
    compare_window(s, s.wait_view("[work] churn"), dump_churn, 240, 180)
    if region_files(s):
        raise Failure("weston kept the region's file after the frame")


def case_no_lend(s):
    a, dump_a = pattern(s, "work", "kept-a", extra=["--new-pools"])
    b, dump_b = pattern(s, "work", "kept-b")
    s.wait_line(a, "ready")
    s.wait_line(b, "ready")
    compare_window(s, s.wait_view("[work] kept-a"), dump_a, 240, 180)
    line = "does not lend weston the region's fd"
    if s.weston_log().count(line) != 1:
        raise Failure(f"weston's log says '{line}' "
                      f"{s.weston_log().count(line)} times, not once")
    if len(region_files(s)) != 1:
        raise Failure(f"weston holds {len(region_files(s))} region files, "
                      f"not the one its server does not lend")
    windows, own = vm_cost(s, "work", [a, b],
                           ("[work] kept-a", "[work] kept-b"))
    if (windows, own) != (6, 3):
        raise Failure(f"work cost weston {windows} fds for its two "
                      f"windows and {own} of its own, not 6 and 3")


CASES = {
    "loans": (case_loans, ("work", "home"), None),
    "no-lend": (case_no_lend, ("work",), {"work": ["--no-lend"]}),
}


def start(name):
    run, vms, server_args = CASES[name]
    # room for four windows with their title bars, not stacked too deep
    return Session(vms, server_args=server_args, width=1280,
                   height=960), run, False


if __name__ == "__main__":
    sys.exit(case_main(CASES, start, Listing(
        prefix="region-", suites=("integration", "sanitized"))))
