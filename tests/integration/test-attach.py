#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Attach failures: every VM that cannot attach gets one log line naming
the VM, where and why, and the others attach regardless.

    test-attach.py (failures|fd-limit)

failures  one weston, five [ivwl-vm] sections: a server that accepts and
          never answers, one that speaks another protocol version, one
          that hands over a region of a size no ivwl region has, a
          socket path with nothing behind it, and a real ivwl-server.
          Each bad one logs its reason; the good one attaches before the
          silent server's attempt times out (attaching does not wait for
          the others), and weston stays up.
fd-limit  weston under an open-file limit (soft = hard, so the plugin
          cannot raise it) too small for all of its twelve VMs: the
          VMs that do not fit log "Too many open files", those that fit
          attach, and weston, which the plugin leaves a quarter of the
          limit (its shell must start), stays up.
"""

import os
import resource
import sys
import time


from ivwltest.palette import vm_color  # noqa: E402
from ivwltest.session import (ENV, FakeServer, Failure, Listing, case_main,  # noqa: E402
                     sanitized, wait_for)

import subprocess  # noqa: E402
import tempfile  # noqa: E402


class Weston:
    def __init__(self, vms, nofile=None):
        """vms: [(name, server socket path)]"""
        self.dir = tempfile.mkdtemp(prefix="ivwl-attach.")
        self.procs = []
        self.fakes = []
        self.vms = vms
        self.nofile = nofile

    def path(self, name):
        return os.path.join(self.dir, name)

    def server(self, name):
        sock = self.path(f"{name}.sock")
        out = open(self.path(f"server-{name}.log"), "wb")
        self.procs.append(subprocess.Popen(
            [ENV["IVWL_SERVER_BIN"], "--socket", sock, "--size", "4M"],
            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL))
        wait_for(f"ivwl-server of {name}",
                 lambda: os.path.exists(sock + ".display"))
        return sock + ".display"

    def fake(self, name, mode):
        path = self.path(f"{name}.fake")
        self.fakes.append(FakeServer(path, mode))
        return path

    def start(self):
        ini = ["[core]", f"modules={ENV['IVWL_PLUGIN']}", "idle-time=0", ""]
        for i, (name, server) in enumerate(self.vms):
            ini += ["[ivwl-vm]", f"name={name}", f"server={server}",
                    f"color={vm_color(i)}", ""]
        with open(self.path("weston.ini"), "w") as f:
            f.write("\n".join(ini))
        runtime = self.path("gui")
        os.mkdir(runtime, 0o700)
        env = sanitized(dict(ENV, XDG_RUNTIME_DIR=runtime))
        env.pop("WAYLAND_DISPLAY", None)
        env.pop("DISPLAY", None)
        limit = self.nofile

        def set_limit():
            if limit:
                resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))

        out = open(self.path("weston.log"), "wb")
        self.weston = subprocess.Popen(
            ["weston", "--backend=headless-backend.so", "--use-pixman",
             "--socket=wl-attach", "--idle-time=0",
             f"--config={self.path('weston.ini')}"],
            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env=env, preexec_fn=set_limit)
        self.procs.append(self.weston)

    def log(self):
        with open(self.path("weston.log"), errors="replace") as f:
            return f.read()

    def lines(self, vm):
        return [ln for ln in self.log().splitlines()
                if f"ivwl: [{vm}] " in ln]

    def alive(self):
        if self.weston.poll() is not None:
            raise Failure(f"weston exited with {self.weston.returncode}")

    def close(self):
        for p in reversed(self.procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(5)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        for f in self.fakes:
            f.close()

    def dump_logs(self):
        print("---- weston.log")
        print(self.log()[-6000:])


def first_index(lines, text):
    for i, ln in enumerate(lines):
        if text in ln:
            return i
    return None


def case_failures(w):
    hung = w.fake("hung", "hung")
    vms = [("hung", hung),
           ("version", w.fake("version", "version")),
           ("size", w.fake("size", "size")),
           ("absent", w.path("nothing-here.sock")),
           ("good", w.server("good"))]
    w.vms = vms
    w.start()
    want = {
        "hung": f"[hung] server={hung}: timed out waiting for the region; "
                "retrying every",
        "version": "server speaks another protocol version; retrying every",
        "size": "the region is too small for its slots: make it a power of "
                "two from 2M to 64G (ivwl-server --size, QEMU's "
                "memory-backend size=); retrying every",
        "absent": "cannot connect to the server socket (No such file or "
                  "directory); retrying every",
        "good": "[good] attached to",
    }
    for vm, text in want.items():
        wait_for(f"{vm}'s line '{text}'",
                 lambda: any(text in ln for ln in w.lines(vm)), timeout=20)
    w.alive()
    # the silent server did not hold the others up
    log = [ln for ln in w.log().splitlines() if "ivwl: [" in ln]
    good = first_index(log, want["good"])
    hung_at = first_index(log, "[hung] ")
    if good is None or hung_at is None or good > hung_at:
        raise Failure("the good VM attached only after the silent "
                      "server's attempt gave up")
    # once per kind: the retries of the last 3 s did not repeat the lines
    time.sleep(3)
    for vm in ("version", "size", "absent"):
        n = len(w.lines(vm))
        if n != 1:
            raise Failure(f"{vm}: {n} lines, want its reason once")
    w.alive()


def case_fd_limit(w):
    names = [f"vm{i}" for i in range(12)]
    w.vms = [(n, w.server(n)) for n in names]
    w.nofile = 72
    w.start()
    wait_for("every VM attached or said why", lambda: all(
        any("attached to" in ln or "retrying every" in ln
            for ln in w.lines(n)) for n in names), timeout=30)
    w.alive()
    attached = [n for n in names
                if any("attached to" in ln for ln in w.lines(n))]
    refused = [n for n in names
               if any("Too many open files" in ln and "retrying every" in ln
                      for ln in w.lines(n))]
    print(f"attached: {attached}\nout of fds: {refused}")
    if not attached:
        raise Failure("no VM attached under the limit")
    if not refused:
        raise Failure("no VM said it ran out of fds")
    unexplained = set(names) - set(attached) - set(refused)
    if unexplained:
        raise Failure(f"VMs neither attached nor out of fds: {unexplained}")


CASES = {"failures": case_failures, "fd-limit": case_fd_limit}


def main():
    # each case watches weston itself
    return case_main(CASES, lambda name: (Weston([]), CASES[name], True),
                     Listing(prefix="attach-", timeout=90,
                             suites=("integration", "sanitized")))


if __name__ == "__main__":
    sys.exit(main())
