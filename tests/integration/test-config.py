#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The configuration mistakes people make, each answered by one line that
names the key and the fix (docs/deploy.md, "Configuration errors"), with
real weston, ivwl.so, ivwl-server and ivwl-agent.

    test-config.py CASE      (meson runs one case per test)
"""

import os
import signal
import subprocess
import sys
import tempfile
import time

from ivwltest.palette import vm_color  # noqa: E402
from ivwltest.session import (ENV, FakeServer, Failure, Listing, case_main,  # noqa: E402
                     sanitized, start_ivwl_server, wait_for)


class Setup:
    """Servers, agents and one weston in a directory of their own."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="ivwl-config.")
        self.procs = []
        self.fakes = []
        self.weston = None

    def path(self, name):
        return os.path.join(self.dir, name)

    def spawn(self, argv, log, env=None):
        p = subprocess.Popen(argv, stdout=open(self.path(log), "wb"),
                             stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL,
                             env=env or dict(ENV))
        self.procs.append(p)
        return p

    def log(self, name):
        with open(self.path(name), errors="replace") as f:
            return f.read()

    def server(self, name):
        sock = self.path(f"{name}.sock")
        start_ivwl_server(self.spawn, sock, f"server-{name}.log")
        return sock

    def agent(self, server, name, wait=True):
        """Runs ivwl-agent --server server; returns the process."""
        listen = self.path(f"{name}-agent.sock")
        p = self.spawn([ENV["IVWL_AGENT_BIN"], "--server", server,
                        "--listen", listen], f"agent-{name}.log")
        if wait:
            wait_for(f"agent {name}", lambda: os.path.exists(listen))
        return p

    def start_weston(self, ini):
        """weston (headless) with ini lines after [core]; the log file
        is weston.log."""
        runtime = self.path("gui")
        os.makedirs(runtime, 0o700, exist_ok=True)
        with open(self.path("weston.ini"), "w") as f:
            f.write("\n".join(ini) + "\n")
        env = sanitized(dict(ENV, XDG_RUNTIME_DIR=runtime))
        env.pop("WAYLAND_DISPLAY", None)
        env.pop("DISPLAY", None)
        self.weston = self.spawn(
            ["weston", "--backend=headless-backend.so", "--use-pixman",
             "--socket=wl-ivwl-config", "--idle-time=0",
             f"--config={self.path('weston.ini')}"], "weston.log", env)
        return self.weston

    def weston_log(self):
        return self.log("weston.log")

    def expect_log(self, text, timeout=15.0):
        wait_for(f"{text!r} in weston's log",
                 lambda: text in self.weston_log(), timeout)
        line = next(ln for ln in self.weston_log().splitlines()
                    if text in ln)
        print(f"weston said: {line.strip()}")

    def expect_refused(self, text):
        """weston does not start, and says why in one line."""
        try:
            status = self.weston.wait(20)
        except subprocess.TimeoutExpired:
            raise Failure("weston kept running with a bad configuration")
        if status == 0:
            raise Failure("weston exited 0 with a bad configuration")
        if "Sanitizer" in self.weston_log():
            raise Failure("weston stopped on a sanitizer's report")
        self.expect_log(text, 1.0)

    def close(self):
        for f in self.fakes:
            f.close()
        for p in reversed(self.procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in self.procs:
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def dump_logs(self):
        for name in sorted(os.listdir(self.dir)):
            if name.endswith(".log"):
                print(f"---- {name} ----\n{self.log(name)[-3000:]}")


SECTIONS = [0]    # sections written: each gets the next palette colour


def vm_section(name, server=None, device=None, color="next"):
    """An [ivwl-vm] section; color=None leaves the key out."""
    lines = ["[ivwl-vm]", f"name={name}"]
    if server:
        lines.append(f"server={server}")
    if device:
        lines.append(f"device={device}")
    if color == "next":
        color = vm_color(SECTIONS[0])
        SECTIONS[0] += 1
    if color:
        lines.append(f"color={color}")
    return lines + [""]


def core(modules=None):
    return ["[core]", f"modules={modules or ENV['IVWL_PLUGIN']}", ""]


def case_app_socket(s):
    """server= naming ivwl-server's app socket: weston sees the app's peer
    id, lets go at once and for good, and names the display socket; the
    real agent then attaches."""
    sock = s.server("work")
    s.start_weston(core() + vm_section("work", server=sock))
    s.expect_log(f"[work] server={sock} is ivwl-server's app socket")
    s.expect_log(f"use server={sock}.display")
    # Not retried: ivwl-server saw one app peer only, and the agent gets
    # the role weston let go of.
    time.sleep(2.5)
    joins = s.log("server-work.log").count("app peer 1 joined")
    if joins != 1:
        raise Failure(f"weston joined as the app {joins} times")
    s.agent(sock, "work")
    wait_for("the agent's peer id",
             lambda: "peer 1, region" in s.log("agent-work.log"))
    if s.weston.poll() is not None:
        raise Failure("weston exited")
    # The other order: the agent first, then weston on its socket.
    s.weston.terminate()
    s.weston.wait(10)
    s.start_weston(core() + vm_section("late", server=sock))
    s.expect_log(f"[late] server={sock}: ivwl-server refused us: this "
                 "socket's role is held; if it is the app socket (the "
                 "agent holds it), use SOCKET.display")


def case_module_twice(s):
    """ivwl.so twice in modules=: the second load does nothing and says
    so; the VM is attached once."""
    sock = s.server("work")
    plugin = ENV["IVWL_PLUGIN"]
    s.start_weston(core(f"{plugin},{plugin}") +
                   vm_section("work", server=sock + ".display"))
    s.expect_log("ivwl.so is listed twice ([core] modules= or --modules): "
                 "list it once")
    s.expect_log("[work] attached to")
    time.sleep(1.5)
    log = s.weston_log()
    if log.count("[work] attached to") != 1 or "role is taken" in log:
        raise Failure("the VM was attached twice")
    s.agent(sock, "work")


def case_same_name(s):
    a, b = s.server("a"), s.server("b")
    s.start_weston(core() + vm_section("work", server=a + ".display") +
                   vm_section("work", server=b + ".display"))
    s.expect_refused("[ivwl-vm] name=work is used by two sections: give "
                     "each VM its own name")


def case_same_server(s):
    a = s.server("a")
    s.start_weston(core() + vm_section("one", server=a + ".display") +
                   vm_section("two", server=a + ".display"))
    s.expect_refused(f"[two] server={a}.display is also [one]'s: one "
                     "section per region")


def case_same_device(s):
    s.start_weston(core() + vm_section("one", device="/dev/ivwl7") +
                   vm_section("two", device="/dev/ivwl7"))
    s.expect_refused("[two] device=/dev/ivwl7 is also [one]'s")
    # two names of one node, as a udev link makes
    link = s.path("by-name-work")
    os.symlink("/dev/null", link)
    s.start_weston(core() + vm_section("one", device="/dev/null") +
                   vm_section("two", device=link))
    s.expect_refused(f"[two] device={link} is also [one]'s")


def case_bad_color(s):
    for color in ("red", "0x123", "0x1ff3070c0"):
        sock = s.server(f"c{len(s.procs)}")
        s.start_weston(core() + vm_section("work", server=sock + ".display",
                                           color=color))
        s.expect_refused(f"[work] color={color} is not 0xAARRGGBB: write 8 "
                         "hex digits, alpha first, e.g. color=0xff3070c0")


def case_color_rules(s):
    """Every VM has a colour of its own, opaque, and far enough from
    every other VM's to tell apart: weston refuses a section without
    one, a translucent one, and two VMs of one colour or of two close
    ones, naming both."""
    sock = s.server("a") + ".display"
    s.start_weston(core() + vm_section("work", server=sock, color=None))
    s.expect_refused("[work] has no color=: each VM needs a colour of its "
                     "own for its windows' frames and title bars")
    s.start_weston(core() + vm_section("work", server=sock,
                                       color="0x803070c0"))
    s.expect_refused("[work] color=0x803070c0 is not opaque: a label must "
                     "not show what lies under it; write ff for alpha, "
                     "e.g. color=0xff3070c0")
    other = s.server("b") + ".display"
    for a, b in (("0xff3070c0", "0xff3070c0"), ("0xff3070c0", "0xff3878c8"),
                 ("0xffc03030", "0xffd03838")):
        s.start_weston(core() + vm_section("work", server=sock, color=a) +
                       vm_section("home", server=other, color=b))
        s.expect_refused(f"[home] color={b} and [work] color={a} are too "
                         "close to tell apart")
    # the palette the man page gives is taken whole
    ini = core()
    for i in range(32):
        ini += vm_section(f"vm{i}", server=f"{sock}-{i}",
                          color=vm_color(i))
    s.start_weston(ini)
    s.expect_log("[vm31] server=")
    if "too close" in s.weston_log() or s.weston.poll() is not None:
        raise Failure("weston refused the palette of weston-ivwl(7)")


def case_bad_fullscreen(s):
    """fullscreen= is user, never or always; anything else is refused,
    naming the three."""
    sock = s.server("a") + ".display"
    s.start_weston(core() + vm_section("work", server=sock)[:-1] +
                   ["fullscreen=yes", ""])
    s.expect_refused("[work] fullscreen=yes is not one of user, never, "
                     "always")


def case_small_region(s):
    """A region smaller than its 32 slots need (QEMU with size=1M): weston
    and the agent each name the size and what to make it."""
    path = s.path("fake.sock")
    s.fakes.append(FakeServer(path, "size"))
    s.start_weston(core() + vm_section("work", server=path))
    fix = ("the region is too small for its slots: make it a power of two "
           "from 2M to 64G (ivwl-server --size, QEMU's memory-backend size=)")
    want = f"[work] server={path}: {fix}"
    s.expect_log(want)
    p = s.agent(path, "work", wait=False)
    if p.wait(20) != 1:
        raise Failure("the agent did not refuse the region")
    log = s.log("agent-work.log")
    print(f"the agent said: {log.strip()}")
    if f"--server {path}: {fix}" not in log:
        raise Failure("the agent did not name the region's size and fix")
    # weston retries each second (a new region may come) but says it once
    time.sleep(1.5)
    if s.weston_log().count(want) != 1:
        raise Failure("weston said it more than once")


def case_agent_twice(s):
    """A second agent on one region, and an agent given the display
    socket: each exits with one line naming --server and the fix."""
    sock = s.server("work")
    s.agent(sock, "first")
    second = s.agent(sock, "second", wait=False)
    if second.wait(20) != 1:
        raise Failure("the second agent did not exit 1")
    log = s.log("agent-second.log")
    print(f"the second agent said: {log.strip()}")
    if (f"--server {sock}: ivwl-server refused us: its app role is held, "
            "by another ivwl-agent") not in log:
        raise Failure("the second agent did not say the role is held")
    display = s.agent(sock + ".display", "display", wait=False)
    if display.wait(20) != 1:
        raise Failure("the agent on the display socket did not exit 1")
    log = s.log("agent-display.log")
    print(f"the agent on the display socket said: {log.strip()}")
    if (f"--server {sock}.display is ivwl-server's display socket") \
            not in log:
        raise Failure("the agent did not name the display socket")


CASES = {
    "app-socket": case_app_socket,
    "module-twice": case_module_twice,
    "same-name": case_same_name,
    "same-server": case_same_server,
    "same-device": case_same_device,
    "bad-color": case_bad_color,
    "color-rules": case_color_rules,
    "bad-fullscreen": case_bad_fullscreen,
    "small-region": case_small_region,
    "agent-twice": case_agent_twice,
}


def main():
    # weston is meant to stop in most cases: each checks it itself
    return case_main(CASES, lambda name: (Setup(), CASES[name], True),
                     Listing(prefix="config-", timeout=60,
                             suites=("integration", "config")))


if __name__ == "__main__":
    sys.exit(main())
