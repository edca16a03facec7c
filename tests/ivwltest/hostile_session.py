# SPDX-License-Identifier: MIT
"""What every case of test-hostile.py runs on: a Session whose evil VM
gets the hostile peer for its app side, the pattern client of the good
VM, and the checks of weston's health and of why it closed connections.
fuzz-weston.py uses it too.

Also gives the cases what they use of session.py.
"""

import os
import random
import re
import signal
import subprocess
import sys
import time

from ivwltest.session import (ENV, Failure, LiveView, Session,  # noqa: E402
                     compare_window, wait_for)

__all__ = ["BENIGN", "CLOSING", "ENV", "Failure", "HostileSession",
           "LiveView", "backtrace", "bystander", "check_closings",
           "click_when_asked", "closings", "frames_timed", "kept_share",
           "SYNC_P99_MS", "sync_p99",
           "compare_window", "good_client_after", "good_client_during",
           "pattern", "peer_run",
           "peer_stats", "rss_mib", "wait_for"]


def pattern(session, vm, name, frames=12, w=240, h=180):
    """test-weston.py's pattern client, with the shim saying why a
    connection ended (IVWL_DEBUG) in its log."""
    dump = session.path(f"{name}.raw")
    p = session.client([ENV["IVWL_PATTERN_CLIENT"], "--frames", str(frames),
                        "--width", str(w), "--height", str(h), "--title",
                        name, "--dump", dump], vm=vm, log=f"{name}.log",
                       extra_env={"IVWL_DEBUG": "1"})
    return p, dump

# No attack may keep weston from answering a local client (the
# bystander's wl_display.sync round trips) longer than this at p99.
# Under ASan and UBSan weston runs several times slower and a 64 MiB
# realloc in its clipboard manager takes 100-210 ms: 10 times as long
# there (the plain build's run of the same cases holds to 50 ms).
SYNC_P99_MS = 500 if os.environ.get("IVWL_ASAN_RUNTIME") else 50
# The good VM's frame rate an attack must leave it.  Under the
# sanitizers the plugin's own accounting of the attacker's 2,000 views a
# repaint runs several times slower, inside the very repaints that are
# measured (75-80 % kept there, 88-93 % in the plain build under load):
# the plain weston 14 pass holds the 80 %, as it holds the 50 ms above.
KEPT_SHARE = 0.6 if os.environ.get("IVWL_ASAN_RUNTIME") else 0.8
# ASan's quarantine keeps what weston frees (up to 256 MiB by default),
# so its RSS counts memory an attack only churned: twice the growth an
# attack may cause there (overdraw-grow's 256 scattered windows: 73 MiB
# under ASan, 12-31 MiB in the plain builds).
GROWTH_SCALE = 2 if os.environ.get("IVWL_ASAN_RUNTIME") else 1

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
        self.peer_seed = None
        super().__init__(vms, **kw)

    def _start_agent(self, vm):
        if vm not in self.evil:
            super()._start_agent(vm)

    def start_peer(self, mode, seconds, extra=()):
        seed = int(os.environ.get("IVWL_HOSTILE_SEED", "0")) or \
            random.randrange(1, 2**63)
        self.peer_seed = seed
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

    def replay_env(self):
        env = super().replay_env()
        if self.peer_seed is not None:
            env += f" IVWL_HOSTILE_SEED={self.peer_seed}"
        return env

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
        if not lines:
            # say why there is none (no ptrace, no such process)
            lines = (text + out.stderr.decode(errors="replace")
                     ).splitlines()[-8:]
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


def rss_mib(pid):
    """weston's own resident memory (RssAnon): the pages of the regions
    it maps are the VMs' memory, shared with them and bounded by the
    regions' sizes, and would read as growth as weston touches them."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("RssAnon"):
                return int(line.split()[1]) >> 10
    return 0


def peer_finished(s, seconds, start, cpu0, what):
    """Waits for the peer to end, prints its lines and weston's CPU since
    start (cpu0 then), checks weston lived; the peer's log."""
    log = s.wait_peer(seconds + 20)
    cpu = s.weston_cpu() - cpu0
    wall = time.monotonic() - start
    print("\n".join(ln for ln in log.splitlines()
                    if ln.startswith("hostile-peer:")))
    print(f"weston used {cpu:.1f} s CPU in {wall:.1f} s of {what}")
    s.check_weston()
    return log


def bystander(s, seconds):
    """ivwl-sync-probe on weston's own socket, for seconds or until
    SIGINT: its process (its last line says the round trips' p50, p99
    and max)."""
    return subprocess.Popen([ENV["IVWL_SYNC_PROBE"], "--seconds",
                             str(seconds)], env=s._debug_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def sync_p99(probe, stop=False):
    """The bystander's p99 in ms (stop: end it now); prints its line."""
    if stop and probe.poll() is None:
        probe.send_signal(signal.SIGINT)
    out = probe.communicate(timeout=60)[0].decode(errors="replace")
    m = re.search(r"sync: n=(\d+) p50_ms=([\d.]+) p99_ms=([\d.]+) "
                  r"max_ms=([\d.]+)", out)
    if not m or int(m.group(1)) == 0:
        raise Failure(f"the bystander measured nothing: {out!r}")
    print("bystander " + out.strip())
    return float(m.group(3))


def click_when_asked(s, title):
    """The peer asked for a click on its window titled title (a grab
    needs a press the user made): the user clicks it."""
    wait_for("the peer to ask for a click",
             lambda: "waiting for a click" in s.peer_log() or
             s.peer.poll() is not None, timeout=20)
    time.sleep(0.3)     # the window maps after the peer said so
    if "waiting for a click" in s.peer_log():
        s.click_window(s.wait_view(title))


def peer_run(s, mode, seconds, extra=(), click=None):
    """Runs mode to its end, clicking its window titled click when it
    asks; weston must have lived through it."""
    s.start_peer(mode, seconds, extra)
    if click:
        click_when_asked(s, click)
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


def good_client_during(s, frames, timeout, why):
    """A client of the good VM draws frames within timeout while the
    attack goes on, else Failure(why(its error)): (client, its dump, the
    seconds it took)."""
    a, dump = pattern(s, "good", "during", frames=frames)
    t = time.monotonic()
    try:
        s.wait_line(a, "ready", timeout=timeout)
    except Failure as e:
        raise Failure(why(e))
    return a, dump, time.monotonic() - t


def good_client_after(s, what=None):
    """A new client of the good VM draws pixel for pixel; what, if any,
    names what it came after in the failure."""
    a, dump = pattern(s, "good", "after")
    try:
        s.wait_line(a, "ready", timeout=20)
    except Failure as e:
        if what is None:
            raise
        raise Failure(f"a new good client failed after {what} ({e})")
    compare_window(s, s.wait_view("[good] after"), dump, 240, 180)


def frames_timed(s, name, frames=150):
    """Seconds the good VM's client takes for frames frames, and the
    bystander's sync p99 (ms) meanwhile."""
    probe = bystander(s, 6)
    t = time.monotonic()
    a, _ = pattern(s, "good", name, frames=frames)
    s.wait_line(a, "ready", timeout=120)
    took = time.monotonic() - t
    p99 = sync_p99(probe)
    print(f"good drew {frames} frames in {took:.2f} s "
          f"({frames / took:.1f} frames/s)")
    return took, p99


def kept_share(s, what, base, rss0, during, max_growth):
    """The good VM's frames and a local bystander under an attack named
    what: base and during are frames_timed() before and during it, rss0
    weston's RssAnon before.  Fails unless the good VM kept >= 80 % of
    its frame rate (KEPT_SHARE under sanitizers), the bystander's p99
    stayed <= 50 ms (SYNC_P99_MS), weston grew by max_growth MiB at
    most (GROWTH_SCALE times under sanitizers) and never veiled or slowed the good VM for what the attack
    drew."""
    ratio = base[0] / during[0]
    grown = rss_mib(s.weston.pid) - rss0
    print(f"good's frame rate under attack: {ratio:.0%} of its own "
          f"without; bystander p99 {during[1]:.1f} ms (without: "
          f"{base[1]:.1f} ms); weston grew by {grown} MiB")
    if ratio < KEPT_SHARE:
        raise Failure(f"BUG {what}: the good VM kept only {ratio:.0%} of "
                      f"its frame rate (at least {KEPT_SHARE:.0%})")
    if during[1] > SYNC_P99_MS:
        raise Failure(f"BUG {what}: weston answered a local client in "
                      f"{during[1]:.0f} ms at p99 (at most {SYNC_P99_MS})")
    if grown > max_growth * GROWTH_SCALE:
        raise Failure(f"weston grew by {grown} MiB (at most "
                      f"{max_growth * GROWTH_SCALE})")
    paid = re.findall(r"ivwl: vm good: .*", s.weston_log())
    if paid:
        raise Failure(f"BUG {what}: the good VM paid for it: {paid[0]}")
