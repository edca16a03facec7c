#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ivwl-wayland-fuzzer against a real weston + ivwl.so, watched.

    fuzz-weston.py --minutes N [--findings DIR]        long mode
    fuzz-weston.py --ci SEEDFILE [--findings DIR]      fixed seeds, CI
    fuzz-weston.py --run SEED BACKEND SECONDS          one run
    fuzz-weston.py --minimise TRACE --backend B [--budget S]

Each run starts weston (headless, or the x11 backend in an Xvfb for a
seat) with the plugin and two VMs: "evil", whose app side is the fuzzer,
and "good", whose pattern client draws meanwhile.  It watches for

  crash   weston exits, or its log has a sanitizer report or "caught
          signal";
  hang    a client of weston's own socket doing wl_display.sync every
          20 ms (the bystander) waits more than 1 s for an answer; its
          p99 is reported beside the good VM's frame rate;
  memory  weston's own resident memory (RssAnon, not the regions' shared
          pages), sampled each second, over its baseline;
  fps     the good VM's frames per second against a baseline measured
          before the fuzzer starts.

A finding (a crash, a hang, or more than --max-growth MiB) is saved with
weston's log, the fuzzer's trace and its seed under the findings
directory; the long mode goes on with a fresh weston, the CI mode fails.
--minimise replays a trace (ivwl-wayland-fuzzer --replay) against fresh
westons and keeps the shortest prefix, then the fewest connections and
lines, that still crash weston.

Environment: as test-hostile.py, plus IVWL_WAYLAND_FUZZER.
"""

import argparse
import os
import random
import re
import select
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
from ivwltest.session import ENV, Failure, wait_for  # noqa: E402
from ivwltest.hostile_session import (BENIGN, CLOSING,  # noqa: E402
                             HostileSession, backtrace, rss_mib)

CRASH = re.compile(r"ERROR: AddressSanitizer|runtime error:|caught signal|"
                   r"Assertion .* failed|ERROR: LeakSanitizer")
FRAME = re.compile(r"^\s*#\d+ ")
GOOD_FRAMES = 60
GOOD_TIMEOUT = 60


def normalise(reason):
    """A closing reason without its object ids and numbers, so that the
    same rule broken on different objects counts once."""
    reason = re.sub(r"@\d+", "@N", reason)
    reason = re.sub(r"0x[0-9a-fA-F]+|\b\d+\b", "N", reason)
    return reason.strip()


WESTON_ERROR = re.compile(r"ivwl: \[([\w.-]+)\] slot \d+ generation \d+: "
                          r"weston sent a protocol error: (.*)")


def closing_reasons(log, vm="evil"):
    """{normalised reason: count} of the connections of vm that ended:
    ivwl's closings, and weston's protocol errors ("weston: ...")."""
    hist = {}
    for m in CLOSING.finditer(log):
        if m.group(1) == vm:
            why = normalise(m.group(4))
            hist[why] = hist.get(why, 0) + 1
    for m in WESTON_ERROR.finditer(log):
        if m.group(1) == vm:
            why = "weston: " + normalise(m.group(2))
            hist[why] = hist.get(why, 0) + 1
    return hist


CONN_END = re.compile(r"^# conn \d+ slot \d+: (\d+) requests,.*ended: (.*)$")
REQUEST = re.compile(r"^#\d+ slot \d+ conn \d+: ([\w?]+)@\d+\.([\w#?]+)\(")


def read_trace(trace):
    """(requests each connection of the fuzzer's trace sent, {reason:
    count} of those the display ended with no violation sent).  The
    trace does not hold weston's protocol error, so such an ending is
    named after the connection's last request."""
    depths, surprises = [], {}
    last, surprise = None, False

    def close_block():
        if surprise:
            why = (f"weston ended it, last request {last}" if last else
                   "weston ended it, no request")
            surprises[why] = surprises.get(why, 0) + 1
    try:
        with open(trace, errors="replace") as f:
            for line in f:
                m = CONN_END.match(line)
                if m:
                    close_block()
                    depths.append(int(m.group(1)))
                    surprise = "no violation sent" in m.group(2)
                    last = None
                    continue
                m = REQUEST.match(line)
                if m:
                    last = f"{m.group(1)}.{m.group(2)}"
        close_block()
    except FileNotFoundError:
        pass
    return depths, surprises


def merge(total, hist):
    for why, n in hist.items():
        total[why] = total.get(why, 0) + n
    return total


def print_histogram(hist, top=10, indent="    "):
    n = sum(hist.values())
    ivwl = [why for why in hist if not why.startswith("weston ") and
            not any(why.startswith(b) for b in BENIGN)]
    print(f"{indent}closing reasons: {n} closings, {len(hist)} distinct, "
          f"{len(ivwl)} of them ivwl's (firewall and wire checks), "
          f"{sum(hist[w] for w in ivwl)} closings"
          f"{'; top ' + str(top) if len(hist) > top else ''}:")
    for why, k in sorted(hist.items(), key=lambda kv: -kv[1])[:top]:
        print(f"{indent}  {k:7d} {100.0 * k / n:5.1f} %  {why[:150]}")


def depth_line(depths):
    if not depths:
        return "no connection ended"
    d = sorted(depths)
    return (f"{len(d)} connections, requests each: median "
            f"{statistics.median(d):.0f}, p10 {d[len(d) // 10]}, p90 "
            f"{d[(len(d) * 9) // 10]}, max {d[-1]}")


def fuzzer_bin():
    path = ENV.get("IVWL_WAYLAND_FUZZER")
    if path:
        return path
    root = ENV.get("IVWL_BUILD_ROOT", os.path.join(HERE, "..", "..",
                                                   "build"))
    return os.path.join(root, "tests", "hostile", "ivwl-wayland-fuzzer")


def signature(log):
    """The first report line and the top frames after it."""
    lines = log.splitlines()
    for i, line in enumerate(lines):
        if CRASH.search(line):
            frames = [ln.strip() for ln in lines[i + 1:i + 40]
                      if FRAME.match(ln)][:6]
            return [line.strip()] + frames
    return []


class Probe(threading.Thread):
    """A client of weston's own socket, the bystander: wl_display.sync
    every 20 ms.  Records every wait, the longest, and how many times
    one passed 1 s."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.path = path
        self.worst = 0.0
        self.waits = []
        self.hangs = 0
        self.gone = False
        self.done = threading.Event()

    def run(self):
        try:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(self.path)
        except OSError:
            self.gone = True
            return
        sock.settimeout(0.1)
        buf = b""
        while not self.done.is_set():
            # wl_display.sync(callback 2): id 2 comes back by delete_id
            try:
                sock.sendall(struct.pack("<III", 1, (12 << 16) | 0, 2))
            except OSError:
                self.gone = True
                return
            t0 = time.monotonic()
            hung = False
            answered = False
            while not answered and not self.done.is_set():
                try:
                    chunk = sock.recv(4096)
                    if not chunk:
                        self.gone = True
                        return
                    buf += chunk
                except socket.timeout:
                    pass
                except OSError:
                    self.gone = True
                    return
                while len(buf) >= 8:
                    obj, word = struct.unpack("<II", buf[:8])
                    size = word >> 16
                    if size < 8 or len(buf) < size:
                        break
                    if obj == 1 and word & 0xffff == 1:
                        answered = True     # delete_id(2): done, and free
                    buf = buf[size:]
                wait = time.monotonic() - t0
                if wait > 1.0 and not hung:
                    hung = True
                    self.hangs += 1
            wait = time.monotonic() - t0
            if answered:
                self.waits.append(wait)
            self.worst = max(self.worst, wait)
            time.sleep(0.02)
        sock.close()

    def p99_ms(self):
        """The waits' 99th percentile in ms (0 without any)."""
        if not self.waits:
            return 0.0
        w = sorted(self.waits)
        return 1000.0 * w[min(len(w) - 1, int(len(w) * 0.99))]


class FuzzSession(HostileSession):
    def start_fuzzer(self, argv):
        print("run:", " ".join(argv[1:]), flush=True)
        # A hostile VM has CPUs of its own; here it shares two cores with
        # weston and the good VM, so it runs last in line: the good VM's
        # frame rate then says what the attack's requests cost weston,
        # not what the fuzzer's own work costs the machine.
        self.peer = self._spawn(["nice", "-n", "19"] + argv, "fuzzer.log")
        wait_for("the fuzzer to attach",
                 lambda: "attached as peer" in self.fuzzer_log() or
                 self.peer.poll() is not None, timeout=10)
        return self.peer

    def fuzzer_log(self):
        try:
            with open(self.path("fuzzer.log"), errors="replace") as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def good_client(self, n):
        return self.client([ENV["IVWL_PATTERN_CLIENT"], "--frames",
                            str(GOOD_FRAMES), "--hold-ms", "0", "--title",
                            f"good-{n}"], vm="good", log=f"good-{n}.log")

    def crashed(self):
        """A list of lines saying how weston crashed, or []."""
        status = self.weston.poll()
        sig = signature(self.weston_log())
        if sig:
            return sig
        if status is not None:
            return [f"weston exited with status {status}"]
        return []

    def stop_fuzzer(self, timeout=20):
        if self.peer and self.peer.poll() is None:
            self.peer.send_signal(signal.SIGTERM)
            try:
                self.peer.wait(timeout)
            except subprocess.TimeoutExpired:
                self.peer.kill()
                self.peer.wait()


def ready_now(proc, buf):
    """Reads what proc printed; True once it said "ready"."""
    os.set_blocking(proc.stdout.fileno(), False)
    chunk = proc.stdout.read()
    if chunk:
        buf += chunk
    return b"ready" in buf.splitlines(), buf


def measure_good(s, n):
    """Seconds the good VM takes for GOOD_FRAMES frames, or None.  The
    timeout leaves room for a pattern client and shim under ASan."""
    p = s.good_client(n)
    t0 = time.monotonic()
    try:
        s.wait_line(p, "ready", timeout=GOOD_TIMEOUT)
    except Failure:
        return None
    return time.monotonic() - t0


def good_baseline(s):
    """The good VM's seconds for GOOD_FRAMES before the fuzzer starts:
    the median of two measures, a third try if one failed.  Without one
    no run can say how much the fuzzer slowed the good VM: a Failure."""
    base = []
    for i in range(3):
        t = measure_good(s, f"base{i}")
        if t:
            base.append(t)
        if len(base) == 2:
            break
    if not base:
        raise Failure(f"the good VM never drew {GOOD_FRAMES} frames in "
                      f"{GOOD_TIMEOUT} s with no fuzzer running")
    return statistics.median(base)


def run_once(seed, backend, seconds, findings, extra=()):
    """One weston, one fuzzer run.  Returns a dict of what was seen."""
    out = {"seed": seed, "backend": backend, "seconds": seconds,
           "finding": None, "growth": 0, "fps": [], "hangs": 0,
           "worst_ms": 0, "p99_ms": 0.0, "reasons": {}, "depths": [],
           "base_fps": 0}
    s = FuzzSession(backend=backend)
    probe = None
    try:
        pid = s.weston.pid
        rss0 = rss_mib(pid)
        baseline = good_baseline(s)
        out["base_fps"] = GOOD_FRAMES / baseline
        rss0 = max(rss0, rss_mib(pid))
        trace = s.path("trace.txt")
        argv = [fuzzer_bin(), "--socket", s.path("evil.sock"), "--seed",
                str(seed), "--seconds", str(seconds), "--trace", trace] + \
            [a for name in ARGS.spare for a in ("--spare", name)] + \
            list(extra)
        s.start_fuzzer(argv)
        probe = Probe(os.path.join(s.gui_runtime, "wl-ivwl"))
        probe.start()
        good, buf, t_good, n = None, b"", 0.0, 0
        crash = []
        t_start = time.monotonic()
        end = t_start + seconds + GOOD_TIMEOUT
        while time.monotonic() < end:
            crash = s.crashed()
            if crash or probe.gone:
                break
            if s.weston.poll() is None:
                out["growth"] = max(out["growth"], rss_mib(pid) - rss0)
            if good is None:
                n += 1
                good, buf, t_good = s.good_client(n), b"", time.monotonic()
            else:
                done, buf = ready_now(good, buf)
                took = time.monotonic() - t_good
                if done or good.poll() is not None or took > GOOD_TIMEOUT:
                    out["fps"].append(100.0 * baseline / took
                                      if done else 0.0)
                    good = None
            # a good client started under the fuzzer is waited for:
            # every run says how fast the good VM was meanwhile
            if s.peer.poll() is not None and (out["fps"] or good is None):
                break
            # woken by the good client's output: its time is exact, not
            # rounded up to this loop's half second
            select.select([good.stdout] if good else [], [], [], 0.5)
        fuzzer_took = time.monotonic() - t_start
        if not crash and (probe.gone or s.peer.poll() is not None):
            # the fuzzer's last closes torn down; or weston's socket
            # closed on the bystander: weston died since the last look
            time.sleep(2.0)
            crash = s.crashed()
        if probe.hangs and not crash:
            out["hangs"] = probe.hangs
        out["worst_ms"] = int(probe.worst * 1000)
        out["p99_ms"] = probe.p99_ms()
        s.stop_fuzzer()
        print("\n".join(ln for ln in s.fuzzer_log().splitlines()
                        if ln.startswith("wayland-fuzzer:")), flush=True)
        kind = None
        summary = [ln for ln in s.fuzzer_log().splitlines()
                   if ln.startswith("wayland-fuzzer: seconds=")]
        if crash:
            kind = "crash"
        elif not summary or s.peer.returncode not in (0, -15):
            # the fuzzer itself failed (a sanitizer report, a bug of its
            # own): the run tested less than it says
            kind = "fuzzer"
            crash = [f"ivwl-wayland-fuzzer exited with status "
                     f"{s.peer.returncode} after {fuzzer_took:.0f} s of "
                     f"{seconds}; its log ends with:"] + \
                s.fuzzer_log().splitlines()[-12:]
        elif probe.hangs:
            kind = "hang"
            crash = [f"weston did not answer a wl_display.sync for "
                     f"{probe.worst:.1f} s ({probe.hangs} times)"]
            if s.weston.poll() is None:
                crash.append(backtrace(pid))
        elif out["growth"] > ARGS.max_growth:
            kind = "memory"
            crash = [f"weston grew by {out['growth']} MiB"]
        out["reasons"] = closing_reasons(s.weston_log())
        out["depths"], surprises = read_trace(trace)
        merge(out["reasons"], surprises)
        if kind:
            out["finding"] = save(s, kind, seed, backend, seconds, crash,
                                  findings)
    finally:
        if probe:
            probe.done.set()
        s.stop_fuzzer()
        s.close()
        shutil.rmtree(s.dir, ignore_errors=True)
    return out


def save(s, kind, seed, backend, seconds, lines, findings):
    where = os.path.join(findings, f"{time.strftime('%Y%m%d-%H%M%S')}-"
                         f"{kind}-{backend}-{seed}")
    os.makedirs(where, exist_ok=True)
    for name in ("weston.log", "trace.txt", "fuzzer.log"):
        if os.path.exists(s.path(name)):
            shutil.copy(s.path(name), where)
    with open(os.path.join(where, "finding.txt"), "w") as f:
        f.write(f"{kind}: seed {seed} backend {backend} seconds "
                f"{seconds}\n")
        f.write("\n".join(lines) + "\n")
        f.write(f"replay: fuzz-weston.py --minimise {where}/trace.txt "
                f"--backend {backend}\n")
    print(f"FINDING {kind} (seed {seed}, {backend}): saved in {where}")
    for line in lines[:8]:
        print(f"  {line}")
    return {"kind": kind, "where": where, "lines": lines,
            "seed": seed, "backend": backend}


def have_seat():
    return shutil.which("Xvfb") is not None


def summary_line(r):
    fps = r["fps"]
    return (f"seed {r['seed']} {r['backend']} {r['seconds']} s: "
            f"growth {r['growth']} MiB, good fps "
            f"{min(fps):.0f}..{statistics.median(fps):.0f} % of "
            f"{r['base_fps']:.0f}/s ({len(fps)} samples), "
            if fps else
            f"seed {r['seed']} {r['backend']} {r['seconds']} s: "
            f"growth {r['growth']} MiB, no good fps (the run ended "
            f"before a good client finished), ") + \
        f"bystander sync p99 {r['p99_ms']:.1f} ms, longest " \
        f"{r['worst_ms']} ms, " + \
        (f"FINDING {r['finding']['kind']}" if r["finding"] else "clean")


def print_run(r):
    print(summary_line(r))
    print("    " + depth_line(r["depths"]))
    print_histogram(r["reasons"])
    sys.stdout.flush()


def report(results):
    fps = [x for r in results for x in r["fps"]]
    found = [r["finding"] for r in results if r["finding"]]
    print(f"\n== {len(results)} runs, seeds: "
          f"{' '.join(str(r['seed']) for r in results)}")
    for r in results:
        print("  " + summary_line(r))
    print(f"findings: {len(found)}")
    for fd in found:
        print(f"  {fd['kind']} seed {fd['seed']} {fd['backend']}: "
              f"{fd['where']}")
        for line in fd["lines"][:3]:
            print(f"      {line[:160]}")
    print(f"max RSS growth: {max((r['growth'] for r in results), default=0)}"
          f" MiB")
    if fps:
        print(f"good-VM fps: min {min(fps):.0f} %, median "
              f"{statistics.median(fps):.0f} % of baseline")
    p99 = [r["p99_ms"] for r in results]
    if p99:
        print(f"bystander sync p99: worst run {max(p99):.1f} ms, median "
              f"run {statistics.median(p99):.1f} ms")
    print(f"hangs: {sum(r['hangs'] for r in results)}")
    print("depth: " + depth_line([d for r in results for d in r["depths"]]))
    total = {}
    for r in results:
        merge(total, r["reasons"])
    print_histogram(total, indent="")
    return found


def mode_long(minutes, findings):
    end = time.monotonic() + minutes * 60
    results = []
    backends = ["headless", "x11"] if have_seat() else ["headless"]
    i = 0
    while time.monotonic() + 20 < end:
        seconds = int(min(ARGS.run_seconds, end - time.monotonic() - 15))
        if seconds < 10:
            break
        seed = random.randrange(1, 2**63)
        backend = backends[i % len(backends)]
        i += 1
        results.append(run_once(seed, backend, seconds, findings))
        print_run(results[-1])
    found = report(results)
    print(f"fuzz-weston: long mode: {len(results)} runs, {len(found)} "
          f"findings")
    return 0


def read_seeds(path):
    seeds = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                seed, backend, seconds = line.split()
                seeds.append((int(seed, 0), backend, int(seconds)))
    return seeds


def mode_ci(path, findings):
    results = []
    for seed, backend, seconds in read_seeds(path):
        if backend == "x11" and not have_seat():
            print(f"skipping seed {seed}: x11 needs Xvfb")
            continue
        results.append(run_once(seed, backend, seconds, findings))
        print_run(results[-1])
    found = report(results)
    if found:
        print(f"FAIL wayland-fuzz: {len(found)} findings in "
              f"{len(results)} runs (saved under {findings})")
        return 1
    print(f"PASS wayland-fuzz: {len(results)} runs, no finding")
    return 0


# ---- minimising -------------------------------------------------------------

def trace_lines(path):
    with open(path) as f:
        return [ln.rstrip("\n") for ln in f if ln.startswith("#") and
                not ln.startswith("# ")]


def replay_crashes(lines, backend, hold=3.0):
    """Replays lines against a fresh weston; the crash lines or []."""
    s = FuzzSession(backend=backend)
    try:
        path = s.path("min.txt")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        s.start_fuzzer([fuzzer_bin(), "--socket", s.path("evil.sock"),
                        "--replay", path, "--seconds", str(hold)])
        end = time.monotonic() + 60
        while s.peer.poll() is None and time.monotonic() < end:
            if s.crashed():
                break
            time.sleep(0.2)
        time.sleep(1.5)
        return s.crashed()
    finally:
        s.stop_fuzzer()
        s.close()
        shutil.rmtree(s.dir, ignore_errors=True)


def same(crash, want):
    """Same signature: the report's first frames agree."""
    def key(lines):
        frames = [re.sub(r"0x[0-9a-f]+", "", ln) for ln in lines[1:3]]
        head = re.sub(r"0x[0-9a-f]+|==\d+==", "", lines[0]) if lines else ""
        return (head, tuple(frames))
    return bool(crash) and (not want or key(crash) == key(want))


def mode_minimise(path, backend, budget):
    end = time.monotonic() + budget
    lines = trace_lines(path)
    lines.sort(key=lambda ln: int(ln[1:].split(" ", 1)[0]))
    print(f"minimising {len(lines)} lines of {path} on {backend}, "
          f"{budget} s")
    want = replay_crashes(lines, backend)
    if not want:
        print("the whole trace does not crash weston on replay")
        return 1
    print("reproduces: " + " | ".join(want[:3]))

    def test(cand):
        if time.monotonic() > end:
            return False
        ok = same(replay_crashes(cand, backend), want)
        print(f"  {len(cand)} lines: {'crash' if ok else 'no'}",
              flush=True)
        return ok

    # shortest prefix
    lo, hi = 1, len(lines)
    while lo < hi and time.monotonic() < end:
        mid = (lo + hi) // 2
        if test(lines[:mid]):
            hi = mid
        else:
            lo = mid + 1
    lines = lines[:hi]
    # fewest connections
    for conn in sorted({ln.split(" conn ", 1)[1].split(":", 1)[0]
                        for ln in lines}):
        cand = [ln for ln in lines
                if ln.split(" conn ", 1)[1].split(":", 1)[0] != conn]
        if cand and test(cand):
            lines = cand
    # chunks of lines, halving (ddmin's complement step)
    n = 2
    while len(lines) >= 2 and time.monotonic() < end:
        size = max(1, len(lines) // n)
        removed = False
        for i in range(0, len(lines), size):
            cand = lines[:i] + lines[i + size:]
            if cand and test(cand):
                lines, removed = cand, True
                n = max(n - 1, 2)
                break
        if not removed:
            if size == 1:
                break
            n = min(n * 2, len(lines))
    out = path + ".min"
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"minimised to {len(lines)} lines: {out}")
    for ln in lines:
        print("  " + re.sub(r" = [0-9a-f ]+.*$", "", ln))
    return 0


def main():
    global ARGS
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--minutes", type=float)
    g.add_argument("--ci", metavar="SEEDFILE")
    g.add_argument("--run", nargs=3, metavar=("SEED", "BACKEND", "SECONDS"))
    g.add_argument("--minimise", metavar="TRACE")
    p.add_argument("--findings", default=os.path.abspath("fuzz-findings"))
    p.add_argument("--backend", default="headless")
    p.add_argument("--budget", type=float, default=600)
    p.add_argument("--run-seconds", type=int, default=60)
    p.add_argument("--spare", action="append", default=[],
                   help="a known weston bug the fuzzer steers clear of "
                   "(ivwl-wayland-fuzzer --spare), to look past it")
    p.add_argument("--max-growth", type=int, default=512,
                   help="MiB of RSS growth that count as a finding")
    ARGS = p.parse_args()
    try:
        if ARGS.minutes is not None:
            rc = mode_long(ARGS.minutes, ARGS.findings)
        elif ARGS.ci:
            rc = mode_ci(ARGS.ci, ARGS.findings)
        elif ARGS.run:
            r = run_once(int(ARGS.run[0], 0), ARGS.run[1],
                         int(ARGS.run[2]), ARGS.findings)
            report([r])
            rc = 1 if r["finding"] else 0
            print(f"fuzz-weston: run: {'FINDING' if rc else 'clean'}")
        else:
            rc = mode_minimise(ARGS.minimise, ARGS.backend, ARGS.budget)
    except Failure as e:
        print(f"FAIL fuzz-weston: {e}")
        return 1
    return rc


ARGS = None

if __name__ == "__main__":
    sys.exit(main())
