#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The relay's replay (docs/architecture.md, "Compositor restart") against
clients that build and keep changing random object graphs
(replay-fuzz-client.c), on a real weston that restarts under them.

Three fuzz clients of different seeds run through the shim, one in copy
mode (IVWL_ZERO_COPY=off), the others zero-copy.  weston is killed
(SIGKILL), shut down (SIGTERM), then restarted twice in a row.  After each
restart, every client must still run (the same process), none may have
seen a protocol error, each relay must say its windows are back (or end
for a reason docs/architecture.md lists), the new weston must close none
of their connections, and every anchor window must be back on screen.

IVWL_FUZZ_SEEDS=a,b,c picks the seeds (by default 11,22,33), so a loop
of runs can try many; a failure names its seeds.
"""

import os
import random
import re
import subprocess
import sys
import time

from ivwltest.session import Failure, Listing, Session, case_main, wait_for

FUZZ = os.environ.get("IVWL_REPLAY_FUZZ_CLIENT")
ANCHORS = 2
# What docs/architecture.md says is not replayed: such an end is allowed.
NOT_REPLAYED = re.compile(
    r"a (zwp_locked_pointer_v1|zwp_confined_pointer_v1|zwp_tablet\w*|"
    r"zwp_linux_\w+|xdg_activation_token_v1) cannot be replayed")


def seeds():
    text = os.environ.get("IVWL_FUZZ_SEEDS", "11,22,33")
    try:
        out = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        out = []
    if not 1 <= len(out) <= 3:
        raise Failure(f"IVWL_FUZZ_SEEDS={text!r}: give 1 to 3 integers")
    return out


class Fuzzer:
    """One fuzz client and how far its log has been checked."""

    def __init__(self, s, seed, copy_mode, anchors=ANCHORS, args=()):
        self.seed = seed
        self.anchors = anchors
        self.log = f"fuzz-{seed}.log"
        self.mode = "copy" if copy_mode else "zero-copy"
        env = {"IVWL_ZERO_COPY": "off"} if copy_mode else {}
        self.proc = s.client([FUZZ, "--seed", str(seed), "--windows",
                              str(anchors)] + list(args), log=self.log,
                             extra_env=env)
        self.pid = self.proc.pid
        self.path = s.path(self.log)
        self.checked = 0        # bytes of the log already looked at

    def text(self):
        with open(self.path, errors="replace") as f:
            return f.read()

    def name(self):
        return f"seed {self.seed} ({self.mode})"

    def check_alive(self):
        if self.proc.poll() is not None:
            raise Failure(f"{self.name()} exited ({self.proc.returncode}):"
                          f" {self.last_words()}")
        if self.proc.pid != self.pid:
            raise Failure(f"{self.name()} is another process")
        errors = [line for line in self.text().splitlines()
                  if "protocol error" in line or "connection lost" in line]
        if errors:
            raise Failure(f"{self.name()}: {errors[0]}")

    def last_words(self):
        lines = [line for line in self.text().splitlines()
                 if "fuzz-client: protocol" in line or "ivwl-relay[" in line
                 or "fuzz-client: connection" in line]
        return " | ".join(lines[-4:]) or "(nothing logged)"

    def replay_state(self):
        """'back', 'ended' (with why) or None, from the relay's lines
        since the last check."""
        new = self.text()[self.checked:]
        ended = re.search(r"cannot outlive the display's restart: (.*)", new)
        if ended:
            return "ended", ended.group(1)
        over = re.search(r"connection over: (.*)", new)
        if over:
            return "ended", over.group(1)
        # the last replay must have finished: a double restart replays twice
        starts = [m.end() for m in re.finditer(
            r"replaying the client's windows", new)]
        backs = [m.end() for m in re.finditer(
            r"the client's windows are back", new)]
        if starts and backs and backs[-1] > starts[-1]:
            return "back", None
        return None, None

    def slots(self):
        return set(re.findall(r"slot (\d+) generation \d+: replaying",
                              self.text()))


def weston_errors(s):
    """The protocol errors every weston of the session sent (the plugin
    logs them): a client that died of EPIPE may not have read its own."""
    out = []
    for name in sorted(os.listdir(s.dir)):
        if name.startswith("weston") and name.endswith(".log"):
            with open(s.path(name), errors="replace") as f:
                out += [f"{name}: {m.group(0)}" for m in re.finditer(
                    r"slot \d+ generation \d+: weston sent a protocol "
                    r"error: .*", f.read())]
    return out


def wait_replayed(s, fuzzers, what, timeout=20.0):
    end = time.monotonic() + timeout
    pending = list(fuzzers)
    while pending and time.monotonic() < end:
        for f in list(pending):
            f.check_alive()
            state, why = f.replay_state()
            if state == "ended":
                if not NOT_REPLAYED.search(why):
                    raise Failure(f"{f.name()} did not survive {what}: "
                                  f"{why}")
                # the model holds what the docs say is not replayed
                print(f"{f.name()} ended after {what} as documented: {why}")
                fuzzers.remove(f)
                pending.remove(f)
                continue
            if state == "back":
                f.checked = len(f.text())
                pending.remove(f)
        time.sleep(0.1)
    if pending:
        raise Failure(f"no 'windows are back' after {what} for " +
                      ", ".join(f"{f.name()}: {f.last_words()}"
                                for f in pending))


def check_weston(s, fuzzers, what):
    slots = set()
    for f in fuzzers:
        slots |= f.slots()
    closing = [line for line in s.weston_log().splitlines()
               if ("closing:" in line or "protocol error" in line) and
               re.search(r"slot (\d+) ", line) and
               re.search(r"slot (\d+) ", line).group(1) in slots]
    if closing:
        raise Failure(f"after {what} weston closed a replayed connection: "
                      f"{closing[0]}")


def wait_anchors(s, fuzzers, what):
    want = [f"[work] fuzz-{f.seed}-a{k}" for f in fuzzers
            for k in range(f.anchors)]

    def missing():
        titles = [v["title"] for v in s.scene() if v["title"] and v["rect"]]
        return [w for w in want if not any(
            t == w or t.startswith(w + " ~") for t in titles)]
    try:
        wait_for(f"the anchor windows after {what}",
                 lambda: not missing(), 15.0, 0.2)
    except Failure:
        raise Failure(f"after {what} weston does not show {missing()}")


def case_replay_fuzz(s):
    try:
        fuzz(s)
    except Failure as e:
        errors = weston_errors(s)
        if errors:
            raise Failure(f"{e}; weston said: {' | '.join(errors)}")
        raise


def fuzz(s):
    if not FUZZ:
        raise Failure("IVWL_REPLAY_FUZZ_CLIENT is not set")
    picked = seeds()
    print(f"seeds {picked}, logs in {s.dir}")
    rng = random.Random(picked[0])
    fuzzers = [Fuzzer(s, seed, copy_mode=i == 0)
               for i, seed in enumerate(picked)]
    for f in fuzzers:
        s.wait_line(f.proc, "ready")
    wait_anchors(s, fuzzers, "the start")
    plan = [("SIGKILL", ["kill"]), ("a clean shutdown", ["term"]),
            ("two restarts in a row", ["kill", "term"])]
    for what, steps in plan:
        time.sleep(rng.uniform(1.5, 3.5))
        for f in fuzzers:
            f.check_alive()
        for i, step in enumerate(steps):
            if i:
                # the second may cut the relays' slot opening or replay
                time.sleep(rng.uniform(0.0, 0.6))
            s.restart_weston(kill=step == "kill")
        wait_replayed(s, fuzzers, what)
        if not fuzzers:
            raise Failure("no fuzz client is left to fuzz the replay")
        wait_anchors(s, fuzzers, what)
        check_weston(s, fuzzers, what)
        print(f"{what}: {len(fuzzers)} fuzz clients replayed")
    time.sleep(1.0)
    for f in fuzzers:
        f.check_alive()
    check_weston(s, fuzzers, "the last restart")
    # a clean end: SIGTERM, a summary, status 0
    for f in fuzzers:
        f.proc.terminate()
    for f in fuzzers:
        try:
            status = f.proc.wait(10)
        except subprocess.TimeoutExpired:
            raise Failure(f"{f.name()} did not end on SIGTERM")
        out = (f.proc.stdout.read() or b"").decode(errors="replace")
        summary = [line for line in out.splitlines()
                   if line.startswith("summary")]
        if status != 0 or not summary:
            raise Failure(f"{f.name()} ended with {status}: {out[-300:]}")
        print(f"{f.name()}: {summary[0]}")


def case_replay_ids(s):
    """A client whose highest id is 171 (found by the fuzzer): the relay's
    171 syncs on the new display end with a delete_id that
    libwayland-server 1.21 queues behind its full 4 KiB buffer and sends
    only with the next event it posts, and the relay holds the client
    until it comes.  The replay must not wait for it until its timeout
    (10 s); the same holds at 512 ids."""
    if not FUZZ:
        raise Failure("IVWL_REPLAY_FUZZ_CLIENT is not set")
    for seed, ids in ((7, 172), (8, 513)):
        f = Fuzzer(s, seed, copy_mode=False, anchors=1,
                   args=["--pad-ids", str(ids)])
        s.wait_line(f.proc, "padded")     # it says "ready" before
        wait_anchors(s, [f], "the start")
        for how in ("kill", "term"):
            start = time.monotonic()
            s.restart_weston(kill=how == "kill")
            wait_replayed(s, [f], f"a {how} with {ids} ids", timeout=5.0)
            wait_anchors(s, [f], f"a {how} with {ids} ids")
            print(f"{ids} ids: windows back {time.monotonic() - start:.1f}"
                  f" s after a {how} restart")
        f.proc.terminate()
        if f.proc.wait(10) != 0:
            raise Failure(f"{f.name()} did not end cleanly")


CASES = {
    "replay-fuzz": case_replay_fuzz,
    "replay-ids": case_replay_ids,
}


def start(name):
    # a seat, so selections, focus and pastes are replayed too
    s = Session(backend="seat" if name == "replay-fuzz" else "headless",
                width=640, height=480)
    return s, CASES[name], False


if __name__ == "__main__":
    sys.exit(case_main(list(CASES), start,
                       Listing(timeouts={"replay-fuzz": 180})))
