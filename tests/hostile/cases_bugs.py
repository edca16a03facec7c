# SPDX-License-Identifier: MIT
"""test-hostile.py's reproducers of known bugs through the rings, the
slot words, wl_shm, surfaces and the doorbells' eventfds (the peer's
bugs-rings.c, bugs-surfaces.c, bugs-eventfd.c; destroy-storm is
semantics-floods.c's).  Each fails, naming its bug, until the plugin is
fixed."""

import re
import subprocess
import time

from ivwltest.hostile_session import (SYNC_P99_MS, Failure, LiveView,
                                      bystander, check_closings, closings,
                                      compare_window, good_client_after,
                                      good_client_during, pattern, wait_for)


def case_bug_partial_header_hang(s):
    """prod published 1..7 bytes past cons.  plugin/connection.c
    pump_requests() gets -EAGAIN from ivwl_ring_read() while
    ivwl_ring_readable() stays true, and re-adds its idle source on every
    pass; libwayland's wl_event_loop_dispatch_idle() runs idles until the
    list is empty, so weston never returns to epoll."""
    s.start_peer("partial-header", 6)
    _, dump, _ = good_client_during(
        s, 30, 20, lambda e: "BUG partial-header hang: after the evil VM "
        "published a request prod 4 bytes past cons, the good VM's client "
        "never finished (weston spins in plugin/connection.c "
        "pump_requests via its idle source)")
    log = s.wait_peer(30)
    print(log.strip())
    s.check_weston()
    compare_window(s, s.wait_view("[good] during"), dump, 240, 180)
    if "did NOT answer" in log:
        raise Failure("BUG partial-header: the display stopped answering "
                      "the evil VM's control vector")
    check_closings(s, True)


def case_bug_shm_stride_overread(s):
    """A wl_buffer whose stride is a quarter of width * 4 passes the
    plugin's offset + stride * height check and libwayland's stride >=
    width check; weston reads 3/4 of a row past the end of the pool.  At
    the end of the heap that is past the end of the region's mapping."""
    s.start_peer("shm-overread", 8)
    wait_for("the overread window", lambda: "ends at the end" in
             s.peer_log() or s.peer.poll() is not None, timeout=15)
    time.sleep(1.0)
    if s.weston.poll() is not None:
        raise Failure(f"BUG shm stride overread: weston died reading past "
                      f"the evil VM's pool:\n{s.weston_log()[-3000:]}")
    view = wait_for("the overread window, or its connection closed",
                    lambda: overread_view(s), timeout=10)
    if view == "closed":
        s.wait_peer(30)
        s.check_weston()
        check_closings(s, True)
        print("the plugin refused the buffer")
        return
    sw, sh, bpp, rows = s.screenshot()
    x0, y0, x1, y1 = view["rect"]
    foreign, first, leaked = 0, None, bytearray()
    for y in range(max(y0, 0), min(y1, sh)):
        for x in range(max(x0, 0), min(x1, sw)):
            px = tuple(rows[y][x * bpp:x * bpp + 3])
            if px != (0, 255, 0):
                foreign += 1
                first = first or (x - x0, y - y0, px)
                leaked += bytes((px[2], px[1], px[0]))  # B G R of XRGB
    print("weston's mappings right after each mapping of a region:")
    print(mappings_after(s.weston.pid, "ivwl-region"))
    s.wait_peer(30)
    s.check_weston()
    if foreign:
        text = "".join(chr(c) if 32 <= c < 127 else "."
                       for c in leaked[:96])
        raise Failure(f"BUG shm stride overread: the evil window shows "
                      f"{foreign} pixels that are not in its pool (first "
                      f"at {first[:2]}: {first[2]}): weston read outside "
                      f"the range the app named (plugin/translate.c "
                      f"rewrite_create_buffer does not check stride "
                      f">= width * bytes per pixel).  Bytes shown "
                      f"(3 of every 4): {text!r}")
    print("the evil window shows only its own pool's pixels")


def overread_view(s):
    if any(c[0] == "evil" for c in closings(s)):
        return "closed"
    for v in s.scene():
        if v["title"] == "[evil] overread" and v["rect"]:
            return v
    return None


def mappings_after(pid, name):
    with open(f"/proc/{pid}/maps") as f:
        lines = f.read().splitlines()
    out = []
    for i, line in enumerate(lines):
        if name in line and i + 1 < len(lines):
            out.append(f"  {line}\n    -> {lines[i + 1]}")
    return "\n".join(out)


def map_count(pid):
    with open(f"/proc/{pid}/maps") as f:
        return sum(1 for _ in f)


def case_bug_pool_flood_exhausts_mappings(s):
    """Pools kept alive by a buffer each, the wl_shm_pool destroyed, from
    every slot: weston keeps a mapping per pool, and vm.max_map_count is
    for the whole compositor.  Passes when the plugin bounds them per VM
    and the good VM's new client still works."""
    s.start_peer("pool-flood", 45)
    wait_for("the flood to hold", lambda: "holding" in s.peer_log() or
             s.peer.poll() is not None or s.weston.poll() is not None,
             timeout=60)
    print(s.peer_log().strip())
    s.check_weston()
    if "holding" not in s.peer_log():
        raise Failure("the flood did not get to hold weston's mappings")
    with open("/proc/sys/vm/max_map_count") as f:
        limit = int(f.read())
    maps = map_count(s.weston.pid)
    print(f"weston holds {maps} mappings (vm.max_map_count {limit})")
    b, dump = pattern(s, "good", "after")
    try:
        s.wait_line(b, "ready", timeout=20)
        s.check_weston()
        compare_window(s, s.wait_view("[good] after"), dump, 240, 180)
    except (Failure, subprocess.TimeoutExpired) as e:
        raise Failure(f"BUG pool flood: the evil VM holds weston's "
                      f"mappings and the good VM's new client fails: {e}")
    if maps > limit // 2:
        raise Failure(f"BUG pool flood: one VM makes weston hold {maps} "
                      f"mappings of {limit}")


def case_bug_vanished_app_keeps_connections(s):
    """The app side leaves the server (its VM died) with connections
    open.  plugin/vm.c on_peer() syncs, but the slot words still say OPEN
    with the same generation, so nothing is closed."""
    s.start_peer("vanish", 1)
    log = s.wait_peer(20)
    print(log.strip())
    left = re.findall(r"vanish: slot (\d+) generation (\d+)", log)
    if not left:
        raise Failure("the peer left no connection behind")
    wait_for("the server to report the app gone", lambda: "[evil] app side "
             "left" in s.weston_log(), timeout=10)

    def all_closed():
        done = {(c[1], c[2]) for c in closings(s) if c[0] == "evil"}
        return all(tuple(x) in done for x in left)
    try:
        wait_for("weston to close the vanished app's connections",
                 all_closed, timeout=5)
    except Failure:
        raise Failure(f"BUG vanished app: the evil app side left the "
                      f"server {len(left)} live connections ago and "
                      f"weston still serves them all (plugin/vm.c on_peer "
                      f"only re-reads slot words that still say OPEN)")
    s.check_weston()


def case_bug_event_cons_lie_without_reason(s):
    """The event ring full, then an event cons past prod.  The plugin
    closes the connection, but plugin/translate.c ivwl_translate_events()
    returns ivwl_translate_flush()'s -EPIPE without setting *why, so
    plugin/connection.c logs 'closing: (null)' (a NULL %s)."""
    s.start_peer("event-cons-lie", 3)
    log = s.wait_peer(20)
    print(log.strip())
    s.check_weston()
    if "the display closed the slot" not in log:
        raise Failure("the display never closed the lying connection")
    check_closings(s, True)


def case_bug_budget_lost_wakeup(s):
    """RECORD_BUDGET records, the last of which empties the ring.
    plugin/connection.c pump_requests() leaves its loop on the budget with
    the sleep token withdrawn (service() called ivwl_ring_woken()), finds
    the ring empty, so schedules no idle and publishes no token: the app
    is never owed a doorbell again and the connection stalls.  A good app
    that writes in bursts hits this too."""
    s.start_peer("budget-stall", 5)
    log = s.wait_peer(20)
    print(log.strip())
    s.check_weston()
    if "NEVER read" in log:
        raise Failure("BUG lost wakeup: after a full RECORD_BUDGET of "
                      "records drained the request ring, the display "
                      "slept without a sleep token and never read the "
                      "next record (plugin/connection.c pump_requests)")
    if "the display read the record" not in log:
        raise Failure("the reproducer did not get that far")


def windows_mapped(log):
    found = re.findall(r"window-flood: slot \d+ maps \d+ windows "
                       r"\((\d+) in all\)", log)
    return int(found[-1]) if found else 0


def case_bug_window_flood_stalls_good_vm(s):
    """Mapped toplevels from every slot of the evil VM, one 1x1 buffer
    shared by all, as many as each connection is let map: every repaint
    walks all their views and weston's memory grows by ~4 KiB a window.
    Without a bound on surfaces per VM (only ids per connection, 2^18),
    the good VM's client crawls; weston 14, which takes each opaque
    view's region into every view's below, crawls with the 2047 the
    surface budget lets through (IVWL_FW_VM_WINDOWS)."""
    want = 120000
    s.start_peer("window-flood", 50, ["--count", "20000"])
    try:
        wait_for(f"{want} evil windows", lambda: windows_mapped(
            s.peer_log()) >= want or "holding" in s.peer_log() or
            s.peer.poll() is not None, timeout=40)
    except Failure:
        pass
    mapped = windows_mapped(s.peer_log())
    with open(f"/proc/{s.weston.pid}/status") as f:
        rss = [ln.split()[1] for ln in f if ln.startswith("VmRSS")][0]
    print(f"the evil VM mapped {mapped} windows; weston's RSS is "
          f"{int(rss) >> 10} MiB")
    s.check_weston()
    _, _, took = good_client_during(
        s, 90, 10, lambda e: f"BUG window flood: with {mapped} windows of "
        f"the evil VM on screen the good VM's client did not draw 90 "
        f"frames in 10 s ({e}); nothing bounds windows per VM")
    print(f"good client: 90 frames in {took:.1f} s")
    s.check_weston()


def case_window_churn(s):
    """The window flood again and again: 250 windows mapped at once on
    one connection, the connection closed, and again on a new one, for
    20 s.  Without a bound on maps a second the churn kept weston 10 at
    97 % of a core and the good VM's new client from drawing at all.
    The good VM draws 90 frames in 10 s, and no round trip of a local
    client waits more than 5 times the p99 bound (one stall is one
    round trip, which a p99 does not see)."""
    s.start_peer("window-churn", 20, ["--count", "250"])
    wait_for("two rounds of the churn",
             lambda: "round 2:" in s.peer_log() or
             s.peer.poll() is not None, timeout=40)
    probe = bystander(s, 8)
    _, _, took = good_client_during(
        s, 90, 10, lambda e: f"BUG window churn: the good VM's client "
        f"did not draw 90 frames in 10 s ({e})")
    out = probe.communicate(timeout=30)[0].decode(errors="replace")
    print("bystander " + out.strip())
    rounds = re.findall(r"window-churn: round \d+: (\d+) windows",
                        s.peer_log())
    print(f"good client: 90 frames in {took:.1f} s; rounds so far: "
          f"{rounds}")
    if len(rounds) < 2 or min(int(n) for n in rounds[:2]) < 200:
        raise Failure(f"the churn did not get going: {rounds}")
    worst = re.search(r"max_ms=([\d.]+)", out)
    if not worst:
        raise Failure(f"the bystander measured nothing: {out!r}")
    if float(worst.group(1)) > 5 * SYNC_P99_MS:
        raise Failure(f"BUG window churn: weston kept a local client "
                      f"waiting {float(worst.group(1)):.0f} ms (at most "
                      f"{5 * SYNC_P99_MS})")
    s.check_weston()


def case_gone_windows(s):
    """A connection that goes with more than 16 windows: weston's log
    says they end 16 a frame, and all of them go soon after (the VM's
    window count, in the live view, back to 0), weston alive.  Taken
    down at once, 250 such windows cost weston 14 and 16 seconds
    (docs/security.md, "Windows of a gone connection")."""
    live = LiveView(s)
    s.start_peer("window-churn", 3, ["--count", "40"])
    log = s.wait_peer(30)
    rounds = re.findall(r"window-churn: round \d+: (\d+) windows", log)
    if not rounds or int(rounds[0]) != 40:
        raise Failure(f"the peer did not map its 40 windows: {rounds}")
    ending = re.compile(r"\[evil\] slot \d+ generation \d+: its 40 "
                        r"windows end 16 a frame")
    wait_for("weston's word that the windows end 16 a frame",
             lambda: ending.search(s.weston_log()), timeout=10)

    def evil_windows():
        lines = live.of("vm", name="evil")
        return int(lines[-1]["windows"].split("/")[0]) if lines else -1

    try:
        wait_for("the evil VM's windows all gone",
                 lambda: evil_windows() == 0, timeout=10)
    finally:
        live.close()
    print(f"rounds: {rounds}; the evil VM's windows: {evil_windows()}")
    s.check_weston()


def bomb_case(s, mode, what):
    """mode merges disjoint 1x1 rectangles into one pixman region of
    weston's: quadratic work for linear bytes.  After a few seconds of
    it the good VM's client must still draw 90 frames in 10 s."""
    s.start_peer(mode, 22)
    time.sleep(8)

    def why(e):
        s.wait_peer(40)
        print(s.peer_log().strip())
        return (f"BUG {mode}: while the evil VM {what} the good VM's "
                f"client did not draw 90 frames in 10 s ({e})")
    _, dump, took = good_client_during(s, 90, 10, why)
    print(f"good client: 90 frames in {took:.1f} s")
    print(s.wait_peer(40).strip())
    s.check_weston()
    compare_window(s, s.wait_view("[good] during"), dump, 240, 180)


def case_bug_destroy_storm_stalls_good_vm(s):
    """Thousands of objects in each connection's firewall model, then
    surfaces created and destroyed as fast as the rings take them: a
    firewall that walked its whole model on every destroy spent seconds
    per wake-up."""
    bomb_case(s, "destroy-storm", "created and destroyed surfaces over a "
              "full firewall model (each destroy walked the model)")


def case_bug_region_bomb_stalls_good_vm(s):
    """wl_region.add of rectangles that never touch, on one region:
    weston's pixman_region32_union_rect walks every rectangle so far."""
    bomb_case(s, "region-bomb", "grew a wl_region by disjoint 1x1 "
              "rectangles (nothing bounded them)")


def case_bug_damage_bomb_stalls_good_vm(s):
    """wl_surface.damage_buffer of rectangles that never touch, never
    committed: weston merges each into the surface's pending damage."""
    bomb_case(s, "damage-bomb", "grew a surface's pending damage by "
              "disjoint 1x1 rectangles (nothing bounded them)")


def case_bug_eventfd_block_hangs_weston(s, legacy=False):
    """With ivwl-server the app peer holds the very eventfds that ring it:
    it clears O_NONBLOCK on them, fills each counter to
    0xfffffffffffffffe and opens a slot.  The server writes them for
    weston (protocol/device/server-msg.h); with legacy (the evil VM's server
    runs --no-rings, like QEMU's) weston does, and once blocked forever in
    write() (protocol/device/device.c ivwl_eventfd_ring <- server_ring <-
    ivwl_display_side_kick <- ivwl_display_side_sync <- plugin/vm.c
    on_vector).  Then it clears O_NONBLOCK on the display's own vectors
    and empties them right after ringing, so a read() after epoll blocks
    too.  weston must keep going; legacy, it ends the evil VM's
    connections with a reason (its ringer gave up on them); else the
    server says it drops what the app blocks, and serves on."""
    reason = "the app side blocks its doorbells"
    s.start_peer("eventfd-block", 8)
    time.sleep(1.0)
    _, dump, _ = good_client_during(
        s, 60, 20, lambda e: f"BUG eventfd block: the evil VM cleared "
        f"O_NONBLOCK on its shared eventfds and filled them, and the good "
        f"VM's client stopped ({e}): weston blocks in write() ringing the "
        f"evil VM (protocol/device/device.c ivwl_eventfd_ring from "
        f"plugin/vm.c on_vector)")
    log = s.wait_peer(30)
    print("\n".join(ln for ln in log.splitlines()
                    if ln.startswith("hostile-peer:")))
    if s.weston.poll() is None and not s.weston_responsive():
        raise Failure("BUG eventfd block: weston stopped answering once "
                      "the evil VM emptied the display's vectors right "
                      "after ringing them: it sleeps in read() after epoll "
                      "said readable (protocol/device/device.c "
                      "ivwl_eventfd_drain)")
    s.check_weston()
    compare_window(s, s.wait_view("[good] during"), dump, 240, 180)
    if "phase 2:" not in log:
        raise Failure("the reproducer did not get to its second phase")
    good_client_after(s, "the attack")
    evil = check_closings(s, False)
    ringer = f"[evil] {s.path('evil.sock.display')} does not ring the app"
    if legacy != (ringer in s.weston_log()):
        raise Failure(f"weston's log {'lacks' if legacy else 'has'} "
                      f"'{ringer}': the server= the VM names "
                      f"{'rang' if legacy else 'did not ring'} the app "
                      f"for weston")
    if not legacy:
        with open(s.path("server-evil.log"), errors="replace") as f:
            if "app peer 1 keeps a write to its vector 0 blocked" \
                    not in f.read():
                raise Failure("the evil VM's ivwl-server did not log "
                              "that the app blocks its doorbells")
        if not s.server_alive("evil"):
            raise Failure("BUG eventfd block: the evil VM's ivwl-server "
                          "died")
        return
    if not any(c[3] == reason for c in evil):
        raise Failure(f"weston never ended an evil connection with "
                      f"'{reason}'")
    if "[evil] app side makes ringing impossible" not in s.weston_log():
        raise Failure("weston did not log that the evil app side makes "
                      "ringing impossible")


def case_bug_eventfd_block_hangs_weston_legacy(s):
    case_bug_eventfd_block_hangs_weston(s, legacy=True)


def case_bug_full_doorbell_spins_weston(s):
    """The evil VM holds the eventfd it rings weston through (the
    display's vector 0) and fills it to 0xfffffffffffffffe: it stays
    readable for good and every later ring of that VM fails
    (bugs-eventfd.c doorbell-full).  weston never reads its vectors, so
    a wait on them that were level-triggered would wake weston without
    end (plugin/watch.c IVWL_WATCH_EDGE, plugin/vm.c on_doorbell): it
    must stay near idle while the evil VM holds still, and the good VM
    must draw."""
    seconds = 16
    s.start_peer("doorbell-full", seconds)
    line = wait_for("the evil VM to fill the display's vector",
                    lambda: re.search(r"hostile-peer: doorbell-full: \d+ slots .*",
                                      s.peer_log()), 15, 0.2).group(0)
    print(line)
    if "NOT filled" in line or " 0 slots open" in line:
        raise Failure(f"the reproducer did not set up its attack: {line}")
    time.sleep(0.5)
    cpu0 = s.weston_cpu()
    time.sleep(3.0)
    busy = s.weston_cpu() - cpu0
    print(f"weston used {busy:.2f} s CPU in 3 s with the evil VM's "
          f"doorbell full and nothing to draw")
    if busy > 1.5:
        raise Failure(f"BUG full doorbell: weston used {busy:.2f} s of CPU "
                      f"in 3 s once the evil VM filled the eventfd it is "
                      f"rung through: it wakes for a vector that stays "
                      f"readable (plugin/watch.c IVWL_WATCH_EDGE, "
                      f"plugin/vm.c on_doorbell)")
    _, dump, _ = good_client_during(
        s, 60, 20, lambda e: f"BUG full doorbell: the good VM's client "
        f"stopped while the evil VM's doorbell was full ({e})")
    compare_window(s, s.wait_view("[good] during"), dump, 240, 180)
    s.wait_peer(seconds + 20)
    s.check_weston()
    good_client_after(s, "the full doorbell")
