#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A misbehaving ivwl-server against weston + ivwl.so: the region's fd,
which weston borrows from the server for each wl_shm.create_pool
(docs/region.md, "The server protocol": REGION), never comes, or comes
as another file.

    test-evil-server.py CASE      (meson runs one case per test)

Two VMs with agents and clients: "evil", whose display socket is a
proxy (server_proxy.py) in front of its real ivwl-server, and "good".

region-never-lent  once evil has a window up, the proxy drops weston's
                   asks: a new evil client's create_pool waits for ever,
                   and nothing else does: the first evil window draws
                   on, good draws, weston answers and idles meanwhile,
                   asks once, and forgets the waiter when it goes.
region-wrong-file  the proxy answers each ask with a memfd of the
                   region's size that is not the region: weston refuses
                   it, says why, detaches evil (its connections end),
                   and goes on serving good.
"""

import os
import re
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
from ivwltest.session import (ENV, Failure, LiveView, Session,  # noqa: E402
                     compare_window, start_ivwl_server, wait_for)
from ivwltest.server_proxy import ServerProxy  # noqa: E402


def pattern(s, vm, name, frames=12):
    dump = s.path(f"{name}.raw")
    p = s.client([ENV["IVWL_PATTERN_CLIENT"], "--frames", str(frames),
                  "--title", name, "--dump", dump], vm=vm,
                 log=f"{name}.log", extra_env={"IVWL_DEBUG": "1"})
    return p, dump


class EvilServerSession(Session):
    """evil's display socket is a ServerProxy's; its ivwl-server listens
    for the display elsewhere."""

    def __init__(self):
        self.proxy = None
        super().__init__(("evil", "good"))

    def _start_server(self, vm):
        if vm != "evil":
            super()._start_server(vm)
            return
        sock = self.path("evil.sock")
        real = self.path("evil.real-display")
        self.proxy = ServerProxy(sock + ".display", real)
        self.servers[vm] = start_ivwl_server(
            self._spawn, sock, "server-evil.log", None,
            ["--display-socket", real])
        wait_for("evil's real display socket", lambda: os.path.exists(real))

    def close(self):
        super().close()
        if self.proxy:
            self.proxy.close()

    def weston_cpu(self):
        with open(f"/proc/{self.weston.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf(
            "SC_CLK_TCK")

    def check_weston(self):
        if self.weston.poll() is not None:
            raise Failure(f"weston died (status {self.weston.returncode})")
        try:
            subprocess.run(["weston-debug", "-l"], env=self._debug_env(),
                           capture_output=True, timeout=5)
        except subprocess.TimeoutExpired:
            raise Failure("weston no longer answers its clients (hung)")


def good_draws(s, name):
    p, dump = pattern(s, "good", name)
    s.wait_line(p, "ready")
    compare_window(s, s.wait_view(f"[good] {name}"), dump, 240, 180)


def case_region_never_lent(s):
    first, dump_first = pattern(s, "evil", "first")
    s.wait_line(first, "ready")
    compare_window(s, s.wait_view("[evil] first"), dump_first, 240, 180)

    s.proxy.mode = "mute"
    stuck, _ = pattern(s, "evil", "stuck")
    wait_for("weston's ask to be dropped", lambda: s.proxy.dropped >= 1)
    live = LiveView(s)
    try:
        live_waiters(live, "1")
        run_muted(s, first, dump_first, stuck)
        # the waiter goes: nothing is left of it
        stuck.send_signal(signal.SIGTERM)
        stuck.wait(10)
        live_waiters(live, "0")
    finally:
        live.close()
    first.send_signal(signal.SIGUSR1)
    s.wait_line(first, "again 2")
    compare_window(s, s.wait_view("[evil] first"), dump_first, 240, 180)
    good_draws(s, "after")


def live_waiters(live, n):
    """Until the live view's last line of evil shows n waiters."""
    wait_for(f"the live view to show {n} region waiters of evil",
             lambda: [f["region_waiters"] for f in
                      live.of("vm", name="evil")][-1:] == [n])


def run_muted(s, first, dump_first, stuck):
    """While stuck's create_pool waits for a region that never comes."""
    # weston idles while the connection waits: no busy loop, no retry
    cpu0 = s.weston_cpu()
    time.sleep(2.0)
    cpu = s.weston_cpu() - cpu0
    print(f"weston used {cpu:.2f} s CPU in 2 s with a connection waiting")
    if cpu > 0.5:
        raise Failure(f"weston spins while a connection waits for the "
                      f"region ({cpu:.2f} s CPU in 2 s)")
    s.check_weston()
    # the rest of evil, and good, go on
    first.send_signal(signal.SIGUSR1)
    s.wait_line(first, "again 1")
    compare_window(s, s.wait_view("[evil] first"), dump_first, 240, 180)
    good_draws(s, "during")
    if any(v["title"] == "[evil] stuck" for v in s.scene()):
        raise Failure("the window whose pool weston could not make is up")
    if s.proxy.dropped != 1:
        raise Failure(f"weston asked {s.proxy.dropped} times for one "
                      f"region fd")


def attached_again(log):
    """evil attached after its last detach."""
    detached = log.rfind("[evil] server=")
    return detached >= 0 and log.find("[evil] attached to", detached) >= 0


def case_region_wrong_file(s):
    s.proxy.mode = "wrong"
    victim, _ = pattern(s, "evil", "victim")
    why = "the server lent a file that is not the region it sent at the " \
          "setup"
    wait_for("weston to refuse the file", lambda: re.search(
        r"\[evil\] server=\S+: " + re.escape(why) + r"; detached",
        s.weston_log()), timeout=20)
    print(f"the proxy replaced {s.proxy.replaced} answers")
    wait_for("the victim's connection to end", lambda: re.search(
        r"\[evil\] slot \d+ generation \d+: closing: region detached",
        s.weston_log()))
    # A server that lends the region again: evil is served again.  At
    # once: weston tries again a second after the detach, and an attach
    # that still got the wrong file (the victim's relay replays its
    # window, which asks) would detach evil once more.
    s.proxy.mode = "pass"
    s.check_weston()
    good_draws(s, "after")
    wait_for("weston to attach evil again", lambda: attached_again(
        s.weston_log()), timeout=20)
    late, dump_late = pattern(s, "evil", "late")
    s.wait_line(late, "ready")
    compare_window(s, s.wait_view("[evil] late"), dump_late, 240, 180)
    s.check_weston()


CASES = {
    "region-never-lent": case_region_never_lent,
    "region-wrong-file": case_region_wrong_file,
}


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in CASES:
        print(f"usage: {sys.argv[0]} ({'|'.join(CASES)})")
        return 2
    s = EvilServerSession()
    try:
        CASES[sys.argv[1]](s)
        s.check_weston()
        print(f"PASS {sys.argv[1]}")
        return 0
    except (Failure, subprocess.TimeoutExpired) as e:
        print(f"FAIL {sys.argv[1]}: {e}")
        s.dump_logs(e)
        return 1
    finally:
        s.close()


if __name__ == "__main__":
    sys.exit(main())
