#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A hostile app-vm against a real weston + ivwl.so.

    test-hostile.py CASE      (meson runs one case per test)

Two VMs: "evil" has no agent; ivwl-hostile-peer attaches to its region as
the app side and attacks the display side.  "good" is an ordinary VM whose
pattern client must keep working meanwhile and afterwards, pixel for
pixel, while weston stays up, keeps answering and says why it closed the
evil connections.

Cases named bug-* reproduce one known plugin bug each: they fail until the
plugin is fixed, and their failure message names the bug.

Environment: what tests/integration uses, plus IVWL_HOSTILE_PEER and
IVWL_INTEGRATION_DIR; IVWL_HOSTILE_SEED to replay a run;
IVWL_HOSTILE_NO_SPARE=1 to attack with unaligned request indices too.
"""

import os
import random
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
INTEGRATION = os.environ.get("IVWL_INTEGRATION_DIR") or os.path.join(
    HERE, "..", "integration")
sys.path.insert(0, INTEGRATION)
from session import (ENV, Failure, LiveView, Session,  # noqa: E402
                     compare_window, wait_for)


def pattern(session, vm, name, frames=12, w=240, h=180):
    """test-weston.py's pattern client, with the shim saying why a
    connection ended (IVWL_DEBUG) in its log."""
    dump = session.path(f"{name}.raw")
    p = session.client([ENV["IVWL_PATTERN_CLIENT"], "--frames", str(frames),
                        "--width", str(w), "--height", str(h), "--title",
                        name, "--dump", dump], vm=vm, log=f"{name}.log",
                       extra_env={"IVWL_DEBUG": "1"})
    return p, dump

CLOSING = re.compile(r"ivwl: \[([\w.-]+)\] slot (\d+) generation (\d+): "
                     r"closing: (.*)")
# reasons that are not the plugin refusing hostile input
BENIGN = ("closed by the app", "region detached")


class HostileSession(Session):
    """A Session whose evil VM gets no agent: the hostile peer is its app
    side instead."""

    def __init__(self, evil=("evil",), vms=("evil", "good"), **kw):
        self.evil = set(evil)
        self.peer = None
        super().__init__(vms, **kw)

    def _start_agent(self, vm):
        if vm not in self.evil:
            super()._start_agent(vm)

    def start_peer(self, mode, seconds, extra=()):
        seed = int(os.environ.get("IVWL_HOSTILE_SEED", "0")) or \
            random.randrange(1, 2**63)
        log = self.path("hostile.log")
        argv = [ENV["IVWL_HOSTILE_PEER"], "--socket", self.path("evil.sock"),
                "--mode", mode, "--seconds", str(seconds), "--seed",
                str(seed)] + list(extra)
        print("run:", " ".join(argv[1:]))
        self.peer = self._spawn(argv, "hostile.log")
        wait_for("hostile-peer to attach",
                 lambda: "attached as peer" in self.peer_log() or
                 self.peer.poll() is not None, timeout=10)
        if self.peer.poll() is not None and \
                "attached as peer" not in self.peer_log():
            raise Failure(f"hostile-peer failed to start: "
                          f"{self.peer_log()[-500:]}")
        return self.peer

    def peer_log(self):
        try:
            with open(self.path("hostile.log"), errors="replace") as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def wait_peer(self, timeout):
        try:
            self.peer.wait(timeout)
        except subprocess.TimeoutExpired:
            raise Failure("hostile-peer itself hung past its --seconds")
        return self.peer_log()

    # ---- weston's health ----------------------------------------------

    def weston_cpu(self):
        """User + system CPU seconds weston used so far."""
        with open(f"/proc/{self.weston.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf(
            "SC_CLK_TCK")

    def weston_responsive(self, timeout=5.0):
        try:
            subprocess.run(["weston-debug", "-l"], env=self._debug_env(),
                           capture_output=True, timeout=timeout)
            return True
        except subprocess.TimeoutExpired:
            return False

    def check_weston(self):
        status = self.weston.poll()
        if status is not None:
            tail = self.weston_log()[-3000:]
            raise Failure(f"weston died (status {status}); its log ends "
                          f"with:\n{tail}")
        if not self.weston_responsive():
            raise Failure("weston no longer answers its clients (hung)")

    def diagnose(self):
        """On failure: is weston alive, answering, and where is it."""
        status = self.weston.poll()
        for line in self.weston_log().splitlines():
            if "caught signal" in line:
                print(f"diagnosis: weston's log says: {line.strip()} (a "
                      f"signal 15 before the test ended came from outside "
                      f"this test, not from the attack)")
        if status is not None:
            print(f"diagnosis: weston exited with status {status}")
            return
        before = self.weston_cpu()
        time.sleep(1.0)
        busy = self.weston_cpu() - before
        answers = self.weston_responsive(3)
        print(f"diagnosis: weston alive, {busy:.2f} s CPU in the last "
              f"second, {'answers' if answers else 'does NOT answer'} "
              f"clients")
        if not answers or busy > 0.8:
            print(backtrace(self.weston.pid))


def backtrace(pid):
    try:
        out = subprocess.run(
            ["gdb", "-batch", "-p", str(pid), "-ex",
             "thread apply all bt"], capture_output=True, timeout=60)
        text = out.stdout.decode(errors="replace")
        lines = [ln for ln in text.splitlines()
                 if ln.startswith("#") or ln.startswith("Thread")]
        return "weston backtrace (gdb):\n" + "\n".join(lines)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"no backtrace: {e}"


def peer_stats(log, mode):
    """key=value pairs of the peer's summary line of mode."""
    for line in log.splitlines():
        if line.startswith(f"hostile-peer: {mode}: seconds="):
            return dict(kv.split("=", 1) for kv in line.split()[2:])
    raise Failure(f"hostile-peer printed no summary for {mode}:\n{log}")


def closings(session):
    """(vm, slot, generation, reason) of every connection ivwl closed."""
    return [m.groups() for m in CLOSING.finditer(session.weston_log())]


def check_closings(session, protocol_reasons, tolerate_null=False):
    """The plugin says why; the good VM lost nothing.  tolerate_null lets
    a known bug (closing with no reason, its own case
    bug-event-cons-lie-without-reason) pass here."""
    found = closings(session)
    evil = [c for c in found if c[0] == "evil"]
    good = [c for c in found if c[0] == "good"]
    reasons = {}
    for c in evil:
        reasons[c[3]] = reasons.get(c[3], 0) + 1
    print(f"weston closed {len(evil)} evil connections:")
    for why, n in sorted(reasons.items(), key=lambda kv: -kv[1]):
        print(f"  {n:6d}  {why}")
    if good:
        raise Failure(f"weston closed connections of the good VM: {good}")
    empty = [c for c in evil if c[3].strip() in ("", "(null)")]
    if empty and tolerate_null:
        print(f"tolerating {len(empty)} closings without a reason: known "
              f"bug, see case bug-event-cons-lie-without-reason")
    elif empty:
        raise Failure(f"BUG: the plugin closed {len(empty)} evil "
                      f"connections without a reason (log says "
                      f"'closing: {empty[0][3]}')")
    if protocol_reasons and not any(
            c[3] not in BENIGN for c in evil):
        raise Failure("weston never closed an evil connection for "
                      "breaking the protocol")
    return evil


# ---- the attack cases ------------------------------------------------------

def attack(s, mode, seconds, protocol_reasons, frames=90, extra=()):
    """mode runs on evil while good draws; good must stay exact."""
    peer = s.start_peer(mode, seconds, extra)
    start = time.monotonic()
    cpu0 = s.weston_cpu()
    time.sleep(1.0)                     # the attack is on

    a, dump_a = pattern(s, "good", "during", frames=frames)
    t = time.monotonic()
    try:
        s.wait_line(a, "ready", timeout=25)
    except Failure as e:
        raise Failure(f"the good client did not finish its {frames} "
                      f"frames during {mode} ({e})")
    print(f"good client: {frames} frames in {time.monotonic() - t:.1f} s "
          f"during the attack")
    view = s.wait_view("[good] during")
    if peer.poll() is None:
        compare_window(s, view, dump_a, 240, 180)
        print("  (compared while the attack was still on)")

    log = s.wait_peer(seconds + 20)
    cpu = s.weston_cpu() - cpu0
    wall = time.monotonic() - start
    print("\n".join(ln for ln in log.splitlines()
                    if ln.startswith("hostile-peer:")))
    print(f"weston used {cpu:.1f} s CPU in {wall:.1f} s of attack")
    s.check_weston()

    compare_window(s, s.wait_view("[good] during"), dump_a, 240, 180)
    b, dump_b = pattern(s, "good", "after")
    try:
        s.wait_line(b, "ready", timeout=20)
    except Failure as e:
        raise Failure(f"a new good client failed after {mode} ({e})")
    compare_window(s, s.wait_view("[good] after"), dump_b, 240, 180)
    check_closings(s, protocol_reasons, tolerate_null=True)
    return log


def spared(extra):
    """Keeps the request prod 8-aligned: the partial-header hang has its
    own case.  IVWL_HOSTILE_NO_SPARE=1 attacks with it too (once the
    plugin is fixed)."""
    if os.environ.get("IVWL_HOSTILE_NO_SPARE") == "1":
        return extra
    print("sparing the partial-header hang (its own case: "
          "bug-partial-header-hang)")
    return extra + ["--spare", "partial-header"]


def case_garbage_records(s):
    log = attack(s, "garbage-records", 10, True)
    st = peer_stats(log, "garbage-records")
    if int(st["acks"]) == 0 or int(st["records"]) == 0:
        raise Failure("the attack never reached a served connection")


def case_bad_indices(s):
    log = attack(s, "bad-indices", 10, True, extra=spared([]))
    st = peer_stats(log, "bad-indices")
    if int(st["acks"]) == 0 or int(st["closed"]) == 0:
        raise Failure("no served connection was ever closed")


def case_scribble(s):
    # weston-debug ivwl watches meanwhile: it reads the scribbled rings'
    # indices and the relay's figures the evil side writes
    live = LiveView(s)
    try:
        log = attack(s, "scribble", 10, True, extra=spared([]))
        evil = wait_for("the live view of the evil VM",
                        lambda: live.of("vm", name="evil"))
    finally:
        live.close()
    if int(peer_stats(log, "scribble")["flips"]) == 0:
        raise Failure("nothing was scribbled")
    # its connections live shorter than a tick: seen as they close
    closed = live.of("closed", vm="evil")
    if not closed or not all(c["why"] for c in closed):
        raise Failure("the live view showed no evil closure with its reason")
    conns = live.of("conn", vm="evil")
    if any(int(c[ring].split("/")[0]) > int(c[ring].split("/")[1])
           for c in conns for ring in ("request_ring", "event_ring")):
        raise Failure("the live view showed a ring fuller than its size")
    print(f"the live view stayed well formed: {len(evil)} lines of the "
          f"evil VM, {len(closed)} closures, {len(conns)} connections")
    # the side block's wake_vectors was scribbled too: weston rings a
    # slot's own vector only below the server's count, so the server
    # never had a reason to drop it
    with open(s.path("server-evil.log"), errors="replace") as f:
        dropped = [ln for ln in f if "display peer 0: it" in ln]
    if dropped:
        raise Failure(f"the evil VM's server dropped weston: {dropped[0]}")


def case_slot_churn(s):
    log = attack(s, "slot-churn", 10, False)
    st = peer_stats(log, "slot-churn")
    if int(st["acks"]) == 0:
        raise Failure("the display never served a churned slot")
    if not any(c[0] == "evil" for c in closings(s)):
        raise Failure("no churned connection was ever closed")


def case_doorbell_storm(s):
    # the good client must still finish within its timeout: attack()
    attack(s, "doorbell-storm", 10, False, frames=120)


def case_record_flood(s):
    # valid records that give libwayland nothing: nothing pushes back
    attack(s, "record-flood", 10, False)


def case_all(s):
    log = attack(s, "all", 15, True, extra=spared([]))
    for mode in ("garbage-records", "bad-indices", "scribble",
                 "slot-churn", "doorbell-storm"):
        peer_stats(log, mode)


# ---- reproducers of known bugs ---------------------------------------------

def case_bug_partial_header_hang(s):
    """prod published 1..7 bytes past cons.  plugin/connection.c
    pump_requests() gets -EAGAIN from ivwl_ring_read() while
    ivwl_ring_readable() stays true, and re-adds its idle source on every
    pass; libwayland's wl_event_loop_dispatch_idle() runs idles until the
    list is empty, so weston never returns to epoll."""
    s.start_peer("partial-header", 6)
    a, dump = pattern(s, "good", "during", frames=30)
    try:
        s.wait_line(a, "ready", timeout=20)
    except Failure:
        raise Failure("BUG partial-header hang: after the evil VM "
                      "published a request prod 4 bytes past cons, the "
                      "good VM's client never finished (weston spins in "
                      "plugin/connection.c pump_requests via its idle "
                      "source)")
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
    the good VM's client crawls."""
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
    a, dump = pattern(s, "good", "during", frames=90)
    t = time.monotonic()
    try:
        s.wait_line(a, "ready", timeout=10)
    except Failure as e:
        raise Failure(f"BUG window flood: with {mapped} windows of the "
                      f"evil VM on screen the good VM's client did not "
                      f"draw 90 frames in 10 s ({e}); nothing bounds "
                      f"surfaces per VM")
    print(f"good client: 90 frames in {time.monotonic() - t:.1f} s")
    s.check_weston()


def bomb_case(s, mode, what):
    """mode merges disjoint 1x1 rectangles into one pixman region of
    weston's: quadratic work for linear bytes.  After a few seconds of
    it the good VM's client must still draw 90 frames in 10 s."""
    s.start_peer(mode, 22)
    time.sleep(8)
    a, dump = pattern(s, "good", "during", frames=90)
    t = time.monotonic()
    try:
        s.wait_line(a, "ready", timeout=10)
    except Failure as e:
        s.wait_peer(40)
        print(s.peer_log().strip())
        raise Failure(f"BUG {mode}: while the evil VM {what} the good "
                      f"VM's client did not draw 90 frames in 10 s ({e})")
    print(f"good client: 90 frames in {time.monotonic() - t:.1f} s")
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


def rss_mib(pid):
    """weston's own resident memory (RssAnon): the pages of the regions
    it maps are the VMs' memory, shared with them and bounded by the
    regions' sizes, and would read as growth as weston touches them."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("RssAnon"):
                return int(line.split()[1]) >> 10
    return 0


def case_bug_clipboard_flood_grows_weston(s):
    """The evil VM offers a selection (weston takes any serial while none
    is set, no focus needed) and feeds weston's clipboard manager, which
    keeps every byte in memory: nothing bounds the bytes a VM may send
    through a channel, so weston grows by what the VM sends."""
    before = rss_mib(s.weston.pid)
    s.start_peer("clipboard-flood", 20, ["--count", "512"])
    wait_for("the selection's transfer", lambda: "MiB written" in
             s.peer_log() or s.peer.poll() is not None, timeout=30)
    print(s.peer_log().strip())
    s.check_weston()
    grown = rss_mib(s.weston.pid) - before
    print(f"weston's RSS grew by {grown} MiB")
    if grown > 160:
        raise Failure(f"BUG clipboard flood: weston keeps what the evil "
                      f"VM sends as its selection, {grown} MiB so far "
                      f"(nothing bounds a channel's bytes; a VM can make "
                      f"weston run out of memory)")
    a, dump = pattern(s, "good", "after")
    s.wait_line(a, "ready", timeout=20)
    compare_window(s, s.wait_view("[good] after"), dump, 240, 180)


def case_bug_clipboard_hang(s):
    """A selection bigger than the plugin's pipe-thread buffer (64 MiB),
    cached by weston's clipboard manager, received by a focused client
    of the evil VM that grants no credit: the pipe thread stops reading
    once its buffer is full, and libweston writes the selection with one
    blocking write() from the main thread, which then never returns."""
    s.start_peer("clipboard-hang", 15)
    wait_for("the receive", lambda: "granting no credit" in s.peer_log()
             or s.peer.poll() is not None, timeout=30)
    if "granting no credit" not in s.peer_log():
        print(s.peer_log().strip())
        # Since the per-pipe limit, a VM cannot hand weston the 128 MiB
        # selection this needs; tests/unit/test-pipe-thread.c covers the
        # stall itself with a blocked writer nobody drains.
        if "closing: the app sent more through one pipe" in s.weston_log():
            print("the plugin refused the 128 MiB selection: no hang "
                  "can be set up")
            s.check_weston()
            return
        raise Failure("the reproducer did not get to receive the "
                      "selection")
    time.sleep(2)
    if not s.weston_responsive(5):
        raise Failure("BUG clipboard hang: weston stopped answering its "
                      "clients once the evil VM received a 128 MiB "
                      "selection without granting credit (libweston's "
                      "clipboard blocks in write() while "
                      "plugin/pipe-thread.c stops reading at "
                      "IVWL_PIPE_THREAD_BUFFER)")
    a, dump = pattern(s, "good", "after")
    s.wait_line(a, "ready", timeout=20)
    compare_window(s, s.wait_view("[good] after"), dump, 240, 180)
    print(s.wait_peer(40).strip())


def case_clipboard_guess(s):
    """The good VM copies; the evil VM (isolated, the default) maps a
    window and takes the keyboard: it must hear of no offer, only of no
    selection.  It then asks for the selection through the id weston gave
    the withheld offer: the plugin ends that connection, and no byte of
    the good VM's selection reaches the evil one."""
    secret = s.path("secret.txt")
    with open(secret, "w") as f:
        f.write("ivwl-good-secret\n")
    s.client(["sh", "-c", f"exec wl-copy --foreground < {secret}"],
             vm="good", log="wl-copy-good.log")
    wait_for("the good VM's selection", lambda: s.local(
        ["wl-paste", "-n"], capture_output=True,
        timeout=20).stdout == b"ivwl-good-secret\n", timeout=20, step=0.3)
    log = peer_run(s, "clipboard-guess", 10)
    m = re.search(r"heard (\d+) data offers, (\d+) selection events, "
                  r"the last (\w+)", log)
    if not m:
        raise Failure("the evil window never got the keyboard")
    offers, selections, last = int(m.group(1)), int(m.group(2)), m.group(3)
    if offers or last != "null":
        raise Failure(f"BUG clipboard: the isolated evil VM was offered "
                      f"the good VM's selection ({offers} offers)")
    if selections < 1:
        raise Failure("the evil window never heard of the selection: no "
                      "keyboard focus, nothing tested")
    if "connection closed" not in log:
        raise Failure("BUG clipboard: a receive on a withheld offer's id "
                      "was let through")
    if "withheld the selection offer of good's data" not in \
            s.weston_log():
        raise Failure("weston's log does not say what it withheld")
    check_closings(s, True)
    good_client_after(s)


def case_clipboard_paste(s):
    """The user copies the good VM's selection with the trusted binding
    and pastes it into the evil VM's window.  The paste's offer is the
    plugin's own, not weston's: the evil VM gets nothing for a type the
    copy does not hold, the whole copy once, nothing the second time
    through the same offer, and the end of its client for finish (only
    a drag's offer takes it).  The good VM keeps its selection: its
    wl-copy runs on and weston still offers its data."""
    secret = b"ivwl-good-secret\n"
    path = s.path("secret.txt")
    with open(path, "wb") as f:
        f.write(secret)
    copier = s.client(["sh", "-c", f"exec wl-copy --foreground < {path}"],
                      vm="good", log="wl-copy-good.log")

    def local_paste():
        return s.local(["wl-paste", "-n"], capture_output=True,
                       timeout=20).stdout
    wait_for("the good VM's selection", lambda: local_paste() == secret,
             timeout=20, step=0.3)
    pattern(s, "good", "good-focus", frames=1000000)
    s.wait_view("[good] good-focus")
    time.sleep(0.3)
    s.xdotool("key", "super+shift+c")
    wait_for("the trusted copy", lambda: "trusted copy from good: " in
             s.weston_log(), timeout=20)
    s.start_peer("clipboard-paste", 30)
    wait_for("the evil window to have the keyboard", lambda:
             "waiting for the paste" in s.peer_log() or
             s.peer.poll() is not None, timeout=20)
    if "waiting for the paste" not in s.peer_log():
        raise Failure(f"the evil window never got the keyboard: "
                      f"{s.peer_log()[-500:]}")
    s.xdotool("key", "super+shift+v")
    log = s.wait_peer(60)
    print("\n".join(ln for ln in log.splitlines() if "bytes, read" in ln))
    m = re.search(r"an unoffered type (-?\d+) bytes, read (-?\d+) bytes, "
                  r"again (-?\d+); finish: ([\w ]+), connection (\w+)", log)
    if not m:
        raise Failure("the evil VM never got the paste's offer")
    other, first, again = (int(m.group(i)) for i in (1, 2, 3))
    if other != 0 or again != 0:
        raise Failure(f"BUG paste: the paste's offer gave {other} bytes "
                      f"for a type it does not hold and {again} bytes a "
                      f"second time")
    if first != len(secret):
        raise Failure(f"the paste's one read gave {first} bytes, not "
                      f"{len(secret)}")
    # weston ends the client as it posts the error: the plugin may see
    # the connection go before the error event
    if m.group(5) != "closed":
        raise Failure(f"finish on the paste's offer: {m.group(4)}, "
                      f"connection {m.group(5)}")
    if not re.search(r"\[evil\] slot \d+: finish, only valid for drag and "
                     r"drop, on the trusted paste's offer: a protocol "
                     r"error", s.weston_log()):
        raise Failure("weston's log does not say why the evil client went")
    if copier.poll() is not None or local_paste() != secret:
        raise Failure("BUG paste: the good VM lost its selection")
    check_closings(s, False)
    good_client_after(s)


def case_bug_eventfd_block_hangs_weston(s, legacy=False):
    """With ivwl-server the app peer holds the very eventfds that ring it:
    it clears O_NONBLOCK on them, fills each counter to
    0xfffffffffffffffe and opens a slot.  The server writes them for
    weston (protocol/server-msg.h); with legacy (the evil VM's server
    runs --no-rings, like QEMU's) weston does, and once blocked forever in
    write() (protocol/device.c ivwl_eventfd_ring <- server_ring <-
    ivwl_display_side_kick <- ivwl_display_side_sync <- plugin/vm.c
    on_vector).  Then it clears O_NONBLOCK on the display's own vectors
    and empties them right after ringing, so a read() after epoll blocks
    too.  weston must keep going; legacy, it ends the evil VM's
    connections with a reason (its ringer gave up on them); else the
    server says it drops what the app blocks, and serves on."""
    reason = "the app side blocks its doorbells"
    s.start_peer("eventfd-block", 8)
    time.sleep(1.0)
    a, dump = pattern(s, "good", "during", frames=60)
    try:
        s.wait_line(a, "ready", timeout=20)
    except Failure as e:
        raise Failure(f"BUG eventfd block: the evil VM cleared O_NONBLOCK "
                      f"on its shared eventfds and filled them, and the "
                      f"good VM's client stopped ({e}): weston blocks in "
                      f"write() ringing the evil VM (protocol/device.c "
                      f"ivwl_eventfd_ring from plugin/vm.c on_vector)")
    log = s.wait_peer(30)
    print("\n".join(ln for ln in log.splitlines()
                    if ln.startswith("hostile-peer:")))
    if s.weston.poll() is None and not s.weston_responsive():
        raise Failure("BUG eventfd block: weston stopped answering once "
                      "the evil VM emptied the display's vectors right "
                      "after ringing them: it sleeps in read() after epoll "
                      "said readable (protocol/device.c "
                      "ivwl_eventfd_drain)")
    s.check_weston()
    compare_window(s, s.wait_view("[good] during"), dump, 240, 180)
    if "phase 2:" not in log:
        raise Failure("the reproducer did not get to its second phase")
    b, dump_b = pattern(s, "good", "after")
    try:
        s.wait_line(b, "ready", timeout=20)
    except Failure as e:
        raise Failure(f"a new good client failed after the attack ({e})")
    compare_window(s, s.wait_view("[good] after"), dump_b, 240, 180)
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


# ---- Wayland semantics weston 10 does not survive (semantics.c) ------------

def peer_run(s, mode, seconds, extra=()):
    """Runs mode to its end; weston must have lived through it."""
    s.start_peer(mode, seconds, extra)
    log = s.wait_peer(seconds + 30)
    print("\n".join(ln for ln in log.splitlines()
                    if ln.startswith("hostile-peer:")))
    if s.weston.poll() is not None:
        raise Failure(f"BUG {mode}: weston died; its log ends with:\n"
                      f"{s.weston_log()[-3000:]}")
    if "did NOT answer" in log:
        raise Failure(f"BUG {mode}: the display stopped answering new "
                      f"connections")
    return log


def good_client_after(s):
    a, dump = pattern(s, "good", "after")
    s.wait_line(a, "ready", timeout=20)
    compare_window(s, s.wait_view("[good] after"), dump, 240, 180)


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
    a, dump = pattern(s, "good", "during", frames=60)
    s.wait_line(a, "ready", timeout=20)
    compare_window(s, s.wait_view("[good] during"), dump, 240, 180)


def case_bug_fuzz_findings_crash_weston(s):
    """What the Wayland fuzzer found past the firewall's first rules:
    set_parent to a toplevel never committed (desktop-shell SEGV at
    0x40) and a viewport with a fractional source destroyed before a
    commit (assertion in surface_commit).  The plugin lets both through
    made harmless; weston must live and answer after each."""
    log = peer_run(s, "fuzz-findings", 20)
    lines = re.findall(r"fuzz-findings: (.*): the display \w+ it; then it "
                       r"answered", log)
    if len(lines) != 2:
        raise Failure(f"weston answered after {len(lines)} of 2 variants")
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
    log = peer_run(s, "popup-chain", 20, ["--count", str(count)])
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


CASES = {
    "garbage-records": case_garbage_records,
    "bad-indices": case_bad_indices,
    "scribble": case_scribble,
    "slot-churn": case_slot_churn,
    "doorbell-storm": case_doorbell_storm,
    "record-flood": case_record_flood,
    "all": case_all,
    "bug-partial-header-hang": case_bug_partial_header_hang,
    "bug-shm-stride-overread": case_bug_shm_stride_overread,
    "bug-pool-flood-exhausts-mappings": case_bug_pool_flood_exhausts_mappings,
    "bug-vanished-app-keeps-connections":
        case_bug_vanished_app_keeps_connections,
    "bug-event-cons-lie-without-reason":
        case_bug_event_cons_lie_without_reason,
    "bug-budget-lost-wakeup": case_bug_budget_lost_wakeup,
    "bug-window-flood-stalls-good-vm": case_bug_window_flood_stalls_good_vm,
    "bug-region-bomb-stalls-good-vm": case_bug_region_bomb_stalls_good_vm,
    "bug-damage-bomb-stalls-good-vm": case_bug_damage_bomb_stalls_good_vm,
    "bug-clipboard-flood-grows-weston":
        case_bug_clipboard_flood_grows_weston,
    "bug-clipboard-hang": case_bug_clipboard_hang,
    "clipboard-guess": case_clipboard_guess,
    "clipboard-paste": case_clipboard_paste,
    "bug-eventfd-block-hangs-weston": case_bug_eventfd_block_hangs_weston,
    "bug-eventfd-block-hangs-weston-legacy":
        case_bug_eventfd_block_hangs_weston_legacy,
    "bug-subsurface-of-xdg-surface-aborts-weston":
        case_bug_subsurface_of_xdg_surface_aborts_weston,
    "bug-mime-flood-grows-weston": case_bug_mime_flood_grows_weston,
    "bug-inert-role-objects-crash-weston":
        case_bug_inert_role_objects_crash_weston,
    "bug-destroy-storm-stalls-good-vm": case_bug_destroy_storm_stalls_good_vm,
    "bug-fuzz-findings-crash-weston": case_bug_fuzz_findings_crash_weston,
    "budget-fill": case_budget_fill_within_memory_bound,
    "bug-popup-chain-app-close-crashes-weston":
        case_bug_popup_chain_app_close_crashes_weston,
    "bug-popup-chain-plugin-close-crashes-weston":
        case_bug_popup_chain_plugin_close_crashes_weston,
    "bug-keyboard-flood-exhausts-fds": case_bug_keyboard_flood_exhausts_fds,
    "bug-shutdown-with-popups-crashes-weston":
        case_bug_shutdown_with_popups_crashes_weston,
}

# Cases that need weston with a seat (x11 backend in an Xvfb).
SEAT_CASES = {"bug-clipboard-flood-grows-weston", "bug-clipboard-hang",
              "clipboard-guess", "clipboard-paste",
              "bug-popup-chain-app-close-crashes-weston",
              "bug-popup-chain-plugin-close-crashes-weston",
              "bug-keyboard-flood-exhausts-fds",
              "bug-shutdown-with-popups-crashes-weston"}


# Cases whose VMs' ivwl-servers take arguments.
SERVER_ARGS = {"bug-eventfd-block-hangs-weston-legacy":
               {"evil": ["--no-rings"]}}


# Cases that end weston themselves (and check how it ended).
STOPS_WESTON = {"bug-shutdown-with-popups-crashes-weston"}


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in CASES:
        print(f"usage: {sys.argv[0]} ({'|'.join(CASES)})")
        return 2
    kw = {}
    if sys.argv[1] in SEAT_CASES:
        if not shutil.which("Xvfb"):
            print(f"SKIP {sys.argv[1]}: needs Xvfb for a seat")
            return 77
        kw["backend"] = "x11"
    kw["server_args"] = SERVER_ARGS.get(sys.argv[1])
    s = HostileSession(**kw)
    try:
        CASES[sys.argv[1]](s)
        if sys.argv[1] not in STOPS_WESTON:
            s.check_weston()
        print(f"PASS {sys.argv[1]}")
        return 0
    except (Failure, subprocess.TimeoutExpired) as e:
        print(f"FAIL {sys.argv[1]}: {e}")
        s.diagnose()
        s.dump_logs()
        return 1
    finally:
        s.close()


if __name__ == "__main__":
    sys.exit(main())
