#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""weston survives a VM's windows that ask for a state and are destroyed
before weston's configure goes out (ivwl-role-race-client): weston 14
sends that configure through the freed xdg_toplevel or xdg_popup unless
ivwl holds the destroy back (a toplevel's until its xdg_surface goes:
plugin/firewall/firewall-xdg.c; then, as a popup's, behind a sync:
plugin/translate.c, "barrier").  The same client on weston 14's own
socket, without ivwl, takes weston down.

    test-role-race.py default
"""

import subprocess
import sys
import time

from ivwltest.session import ENV, Failure, Session, case_main  # noqa: E402

ROUNDS = "40"


def run_default(s):
    p = s.client([ENV["IVWL_ROLE_RACE_CLIENT"], ROUNDS], log="race.log")
    try:
        out, _ = p.communicate(timeout=40)
    except subprocess.TimeoutExpired:
        p.kill()
        raise Failure("the VM's client hung")
    time.sleep(0.5)
    if s.weston.poll() is not None:
        raise Failure(f"weston died ({s.weston.returncode}) under the VM's "
                      "client")
    if out.decode().strip() != f"done {ROUNDS}":
        raise Failure(f"the VM's client did not finish: {out!r}")
    print(f"{ROUNDS} rounds through ivwl; weston lives")


def start(name):
    return Session(), run_default, False


if __name__ == "__main__":
    sys.exit(case_main(["default"], start))
