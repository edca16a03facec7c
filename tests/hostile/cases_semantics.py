# SPDX-License-Identifier: MIT
"""test-hostile.py's cases on Wayland semantics weston 10 does not
survive (the peer's semantics-roles.c and semantics-floods.c)."""

import os
import re
import time

from ivwltest.hostile_session import (Failure, check_closings, click_when_asked,
                             closings, compare_window, good_client_after,
                             good_client_during, pattern, peer_run, rss_mib,
                             wait_for)


def case_bug_subsurface_of_xdg_surface_aborts_weston(s):
    """create_surface A and B, get_xdg_surface(A), get_subsurface(A, B):
    weston 10 gives A its xdg role only at get_toplevel, so A takes a
    second role, and weston_subsurface_destroy asserts when the app
    closes (weston exits, every VM loses its windows)."""
    log = peer_run(s, "role-subsurface", 8)
    if "accepted the second role" in log:
        raise Failure("BUG role: the plugin let a surface with an "
                      "xdg_surface become a subsurface")
    check_closings(s, True)
    good_client_after(s)


def fd_count(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def watch_peer(s, sample):
    """Calls sample() every half second while the peer runs; the max."""
    peak = 0
    while s.peer.poll() is None:
        peak = max(peak, sample())
        time.sleep(0.5)
    return max(peak, sample())


def case_bug_inert_role_objects_crash_weston(s):
    """Requests on xdg objects whose state weston 10 freed (their
    wl_surface, role object or xdg_wm_base destroyed first), a popup
    committed after its parent went, place_above after the parent
    surface went: NULL dereferences in libweston-desktop (the SEGV at
    0x28 that random requests found within seconds) and a write into
    freed memory."""
    log = peer_run(s, "inert-requests", 20)
    lines = re.findall(r"inert-requests: (.*): the display (\w+) it", log)
    if len(lines) != 5:
        raise Failure(f"the reproducer ran {len(lines)} of 5 variants")
    accepted = [what for what, verdict in lines if verdict != "refused"]
    if accepted:
        raise Failure(f"BUG inert objects: the plugin let through: "
                      f"{accepted}")
    check_closings(s, True)
    good_client_after(s)


PACING_LEGAL = {"commits queued for 100000 s at the end"}


def case_pacing_misuse(s):
    """wp_fifo_v1 and wp_commit_timer_v1 against their protocol (a
    second one for a surface, requests after the surface went, two times
    for one commit, a tv_nsec of a second): each refused by the firewall
    with its why; and 200 commits queued behind a time 100000 s ahead
    and fifo barriers when the connection ends: accepted, and weston
    frees them and lives on.  weston before 15 offers neither: nothing
    to check there."""
    log = peer_run(s, "pacing-misuse", 20)
    if log.count("could not be set up") == 7:
        print("weston offers neither wp_fifo_manager_v1 nor "
              "wp_commit_timing_manager_v1: nothing to misuse")
        return
    lines = re.findall(r"pacing-misuse: (.*): the display (\w+) it", log)
    if len(lines) != 7:
        raise Failure(f"the peer ran {len(lines)} of 7 variants")
    wrong = [what for what, verdict in lines
             if (verdict == "refused") == (what in PACING_LEGAL)]
    if wrong:
        raise Failure(f"BUG pacing: wrongly refused or let through: "
                      f"{wrong}")
    check_closings(s, True)
    good_client_after(s)


# docs/security.md: what weston and the plugin can hold for one VM
VM_MEMORY_BOUND_MIB = 330


def case_budget_fill_within_memory_bound(s):
    """Every budget of the firewall filled to its limit on every slot of
    the evil VM (surfaces with frame callbacks never done, regions of
    1024 rectangles, MIME types, positioners, objects): weston's RSS
    growth stays within the bound docs/security.md states per VM, and
    the good VM still draws."""
    before = rss_mib(s.weston.pid)
    s.start_peer("budget-fill", 40)
    wait_for("the budgets filled", lambda: "holding" in s.peer_log() or
             s.peer.poll() is not None, timeout=45)
    print("\n".join(ln for ln in s.peer_log().splitlines()
                    if ln.startswith("hostile-peer:")))
    if "holding" not in s.peer_log() or "ended while filling" in \
            s.peer_log():
        raise Failure("the peer did not fill every budget")
    time.sleep(1.0)
    grown = rss_mib(s.weston.pid) - before
    print(f"weston's RSS grew by {grown} MiB with every budget of the "
          f"evil VM full (bound {VM_MEMORY_BOUND_MIB} MiB)")
    s.check_weston()
    if grown > VM_MEMORY_BOUND_MIB:
        raise Failure(f"weston grew by {grown} MiB for one VM, past the "
                      f"documented bound of {VM_MEMORY_BOUND_MIB} MiB")
    evil = [c for c in closings(s) if c[0] == "evil"]
    if evil:
        raise Failure(f"the plugin ended connections that stayed within "
                      f"the budgets: {evil[:3]}")
    _, dump, _ = good_client_during(s, 60, 20, str)
    compare_window(s, s.wait_view("[good] during"), dump, 240, 180)


def case_bug_fuzz_findings_crash_weston(s):
    """What the Wayland fuzzers found past the firewall's first rules:
    set_parent to a toplevel never committed (desktop-shell SEGV at
    0x40), a viewport with a fractional source destroyed before a
    commit (assertion in surface_commit), and on weston 16 a popup that
    asks to be constrained on a parent popup that is unmapped or off
    every output, at get_popup or reposition (SEGV: the parent's view
    has no output).  The plugin lets them through made harmless; weston
    must live and answer after each, and the popups must be let in."""
    log = peer_run(s, "fuzz-findings", 30)
    lines = re.findall(r"fuzz-findings: (.*): the display (\w+) it; then "
                       r"it answered", log)
    if len(lines) != 5:
        raise Failure(f"weston answered after {len(lines)} of 5 variants:"
                      f"\n{log[-2000:]}")
    refused = [what for what, verdict in lines
               if "popup" in what and verdict != "accepted"]
    if refused:
        raise Failure(f"the plugin refused a well-formed popup: {refused}")
    if "could not be set up" in log:
        raise Failure("a variant could not be set up")
    good_client_after(s)


def growth_case(s, mode, measure, what, limit, bug):
    """mode runs for 10 s while measure() is sampled: weston's what must
    not grow by more than limit, and weston must live on."""
    before = measure()
    s.start_peer(mode, 10)
    grown = watch_peer(s, lambda: measure() - before)
    print(s.wait_peer(30).strip())
    s.check_weston()
    print(f"weston's {what} grew by at most {grown} (from {before})")
    if grown > limit:
        raise Failure(f"BUG {bug}: weston's {what} grew by {grown}")


def case_bug_mime_flood_grows_weston(s):
    """Unique 4 KB MIME types through wl_data_source.offer, no seat or
    focus needed: weston keeps every string until the source goes (about
    220 MB/s without a bound)."""
    growth_case(s, "mime-flood", lambda: rss_mib(s.weston.pid), "MiB of RSS",
                64, "MIME flood: weston keeps the evil VM's MIME types (no "
                "budget on offers)")
    check_closings(s, True)
    good_client_after(s)


def popup_case(s, count):
    log = peer_run(s, "popup-chain", 20, ["--count", str(count)],
                   click="[evil] popup-chain")
    made = re.search(r"popup-chain: (\d+) grabbing popups", log)
    if not made or int(made.group(1)) < 2:
        raise Failure("the reproducer did not nest two grabbing popups")
    time.sleep(1.0)
    s.check_weston()
    good_client_after(s)
    return log


def case_bug_popup_chain_app_close_crashes_weston(s):
    """A toplevel, a grabbing popup of it and one of that popup, then the
    app closes its slot: libwayland destroys the client's objects in id
    order, the parent popup first, and libweston-desktop posts "not the
    topmost popup" through an xdg_wm_base already gone (SEGV)."""
    popup_case(s, 2)


def case_bug_popup_chain_plugin_close_crashes_weston(s):
    """The same chain, nested until the plugin itself ends the connection
    (a bound on nesting, formerly "too many surfaces"): its close takes
    the same path through wl_client_destroy."""
    log = popup_case(s, 40)
    if "the display closed the connection" not in log:
        raise Failure("the plugin never closed the deep popup chain")
    check_closings(s, True)


def case_bug_shutdown_with_popups_crashes_weston(s):
    """weston 10's desktop-shell frees popup views while it walks its
    layers at shutdown (fixed in weston 11): SIGTERM with a VM's window
    and its grabbing popups on screen must still exit cleanly."""
    s.start_peer("popup-hold", 30, ["--count", "2"])
    click_when_asked(s, "[evil] popup-chain")
    wait_for("the popups", lambda: "held until the end" in s.peer_log() or
             s.peer.poll() is not None, timeout=20)
    if "held until the end" not in s.peer_log():
        raise Failure(f"the popups were not set up:\n{s.peer_log()}")
    a, _ = pattern(s, "good", "during", frames=1000000)
    s.wait_view("[good] during")
    status = s.stop_weston()
    log = s.weston_log()
    if status != 0 or "Segmentation" in log or "Aborted" in log or \
            "caught signal 11" in log:
        raise Failure(f"BUG shutdown: weston exited with {status} with VM "
                      f"popups on screen:\n{log[-3000:]}")
    print("weston exited cleanly with VM windows and popups on screen")


def case_bug_keyboard_flood_exhausts_fds(s):
    """Every slot loops on wl_seat.get_keyboard and never reads: each
    keyboard's keymap fd waits in weston until read, weston runs out of
    fds and libwayland kills clients of every VM."""
    growth_case(s, "keyboard-flood", lambda: fd_count(s.weston.pid),
                "open fds", 300, "keyboard flood: weston holds fds for the "
                "evil VM's keyboards")
    if "Too many open files" in s.weston_log():
        raise Failure("BUG keyboard flood: weston ran out of fds")
    check_closings(s, True)
    good_client_after(s)
