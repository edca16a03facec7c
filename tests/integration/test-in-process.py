#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""In-process mode (IVWL_IN_PROCESS=on, shim/in-process.c): the client's
own process relays its connection, no ivwl-relay.

    test-in-process.py in-process-fork     a forked child uses the
                                           connection while its parent
                                           runs: refused (EPIPE), one
                                           line why; the parent goes on
    test-in-process.py in-process-daemon   the parent exits at once, as
                                           a client that goes into the
                                           background does: its child
                                           goes on with the connection
    test-in-process.py in-process-wl-copy  wl-copy as people run it,
                                           into the background: a local
                                           paste gets its bytes (its
                                           child forks a writer per paste)
    test-in-process.py in-process-CASE     another script's CASE, whole,
                                           in in-process mode (VARIANTS)

Every case runs with IVWL_RELAY naming a program that fails: a
connection that started an ivwl-relay would fail, so none passes in the
default mode by mistake.
"""

import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from ivwltest.session import (ENV, Failure, Listing, Session,  # noqa: E402
                              case_main, wait_for)

HERE = os.path.dirname(os.path.abspath(__file__))
IN_PROCESS = {"IVWL_IN_PROCESS": "on", "IVWL_RELAY": "/bin/false"}

# Other scripts' cases that cover what the relay does besides frames:
# zero-copy across processes (chromium, Xwayland and its X clients),
# pipes (a 50 MiB copy, X's clipboard), replay after a compositor
# restart, a client killed, doorbells a frame.
# name: (script, its case, timeout)
VARIANTS = {
    "pattern-pixels": ("test-weston.py", "pattern-pixels", 120),
    "chromium": ("test-weston.py", "chromium", 120),
    "client-killed": ("test-weston.py", "client-killed", 120),
    "clipboard-50mib": ("test-weston.py", "clipboard-50mib", 120),
    "restart-twice": ("test-restart.py", "twice", 180),
    "restart-gtk": ("test-restart.py", "gtk", 120),
    "restart-x11": ("test-restart.py", "x11", 120),
    "x11-zero-copy": ("test-x11.py", "x11-zero-copy", 120),
    "x11-clipboard": ("test-x11.py", "x11-clipboard", 120),
    "presented-rides": ("test-doorbells.py", "presented-rides", 90),
}


def read_until_eof(proc, timeout):
    """Every line proc's stdout gets until its last writer closes it."""
    os.set_blocking(proc.stdout.fileno(), False)
    buf = b""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            chunk = proc.stdout.read()
        except BlockingIOError:
            chunk = None
        if chunk == b"":
            return buf.decode(errors="replace").splitlines()
        if chunk:
            buf += chunk
        else:
            time.sleep(0.05)
    raise Failure(f"the fork client's processes still write after "
                  f"{timeout} s: {buf!r}")


def fork_client(s, mode):
    p = s.client([ENV["IVWL_FORK_CLIENT"], mode], log=f"fork-{mode}.log",
                 extra_env=dict(IN_PROCESS, IVWL_DEBUG="1"))
    lines = read_until_eof(p, 30)
    p.wait(10)
    print(f"{mode}: {lines}")
    with open(s.path(f"fork-{mode}.log"), errors="replace") as f:
        return lines, f.read()


def case_fork(s):
    lines, log = fork_client(s, "both")
    for want in ("connected", "child: refused (Broken pipe)",
                 "parent: ok"):
        if want not in lines:
            raise Failure(f"no {want!r} from the fork client: {lines}")
    why = ("a forked process cannot use its parent's connection to the "
           "display in in-process mode (IVWL_IN_PROCESS=on): the process "
           "that holds it still runs")
    if why not in log:
        raise Failure(f"the child's refusal is not in its log: {why!r}")


def case_daemon(s):
    lines, log = fork_client(s, "daemon")
    if lines != ["connected", "child: ok"]:
        raise Failure(f"the daemon's child did not go on with the "
                      f"connection: {lines}")
    if "goes on with the connection its parent left" not in log:
        raise Failure("the child did not say it took the connection over")


def case_wl_copy(s):
    mime = "application/x-ivwl-in-process"
    payload = s.path("payload.bin")
    with open(payload, "wb") as f:
        f.write(os.urandom(1 << 20))
    # no --foreground: wl-copy forks, its parent exits, its child serves
    sh = s.client(["sh", "-c", f"wl-copy -t {mime} < {payload}"],
                  log="wl-copy.log", extra_env=IN_PROCESS)
    if sh.wait(30) != 0:
        raise Failure(f"wl-copy's parent ended with status {sh.returncode}")
    pasted = s.path("pasted.bin")

    def paste_local():
        try:
            with open(pasted, "wb") as out:
                r = s.local(["wl-paste", "-n", "-t", mime], stdout=out,
                            stderr=subprocess.DEVNULL, timeout=10)
        except subprocess.TimeoutExpired:
            return False
        return r.returncode == 0 and os.path.getsize(pasted) > 0
    wait_for("a local paste of the background wl-copy's selection",
             paste_local, timeout=30, step=0.5)
    with open(payload, "rb") as a, open(pasted, "rb") as b:
        if a.read() != b.read():
            raise Failure("the local paste differs from what wl-copy "
                          "copied")
    print("1 MiB from a wl-copy in the background, byte for byte")


def run_variant(name):
    script, case, _ = VARIANTS[name]
    env = dict(os.environ, **IN_PROCESS)
    print(f"{script} {case} with {IN_PROCESS}", flush=True)
    return subprocess.run([sys.executable, os.path.join(HERE, script),
                           case], env=env).returncode


CASES = {
    "fork": case_fork,
    "daemon": case_daemon,
    "wl-copy": case_wl_copy,
}


def start(name):
    if name != "wl-copy":
        return Session(("work",))
    # a seat, for the selection's serial; the VM's selection may go local
    return Session(("work",), backend="seat",
                   vm_options={"work": ["clipboard=import"]})


def main():
    names = list(CASES) + list(VARIANTS)
    if sys.argv[1:] != ["--list"] and len(sys.argv) == 2 and \
       sys.argv[1] in VARIANTS:
        return run_variant(sys.argv[1])
    # Suite in-process: bookworm's weston alone (the mode is the app
    # side's; what weston sees does not change), fork and daemon under
    # the sanitizers.
    listing = Listing(prefix="in-process-", suites=("in-process",),
                      timeout=60, timeouts={k: v[2] + 30 for k, v in
                                            VARIANTS.items()},
                      more_suites={"fork": ("sanitized",),
                                   "daemon": ("sanitized",),
                                   "wl-copy": ("sanitized",),
                                   "restart-x11": ("x11",),
                                   "x11-zero-copy": ("x11",),
                                   "x11-clipboard": ("x11",)})
    return case_main(names, lambda name: (start(name), CASES[name],
                                          False), listing)


if __name__ == "__main__":
    sys.exit(main())
