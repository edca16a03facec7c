#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""X11 applications of an app-VM through ivwl-xwm: real weston + ivwl.so,
ivwl-xwm (rootless Xwayland and its window manager) under the shim as a
VM's client, unmodified X clients on its display.

    test-x11.py CASE      (meson runs one case per test)
"""

import os
import shutil
import sys
import time

from ivwltest.session import (ENV, Failure, Session, case_main,  # noqa: E402
                              check_border, wait_for)


def x11_client(s, argv, log, extra_env=None):
    """argv on the display of an ivwl-xwm of the VM "work"."""
    for tool in ("Xwayland", argv[0]):
        if not shutil.which(tool):
            raise Failure(f"{tool} is not installed (tools/deps.sh)")
    return s.client([ENV["IVWL_XWM_BIN"], "--", *argv], log=log,
                    extra_env=extra_env)


def colours_in(s, view):
    sw, sh, bpp, rows = s.screenshot()
    x0, y0, x1, y1 = view["rect"]
    return {rows[y][x * bpp:x * bpp + 3]
            for y in range(max(y0, 0), min(y1, sh), 2)
            for x in range(max(x0, 0), min(x1, sw), 2)}


def case_xeyes(s):
    """An X toplevel is a window of the VM's: prefixed, framed, drawn."""
    p = x11_client(s, ["xeyes", "-geometry", "200x150"], "xeyes.log")
    view = s.wait_view("[work] xeyes", timeout=30)
    time.sleep(1)
    if p.poll() is not None:
        raise Failure(f"ivwl-xwm exited ({p.returncode})")
    check_border(s, view, (0x30, 0x70, 0xc0))  # the first VM's colour
    colours = colours_in(s, view)
    # the eyes: white, black pupils and outline, the window's background
    if len(colours) < 2:
        raise Failure(f"the xeyes window shows {len(colours)} colour(s)")
    print(f"xeyes mapped at {view['rect']}, {len(colours)} colours")


def case_xterm(s):
    """Keys typed into an X terminal reach it: the X input focus follows
    the window the user chose."""
    out = s.path("typed.txt")
    script = s.path("read-line.sh")
    with open(script, "w") as f:
        f.write(f"#!/bin/sh\nread line\necho \"$line\" > {out}\n")
    os.chmod(script, 0o755)
    x11_client(s, ["xterm", "-T", "ivwl-xterm", "-e", script], "xterm.log")
    view = s.wait_view("[work] ivwl-xterm", timeout=30)
    time.sleep(1)
    s.type_into(view, "ivwl typed this in X")
    got = wait_for("the typed line", lambda: os.path.exists(out) and
                   open(out).read().strip(), timeout=15)
    if got != "ivwl typed this in X":
        raise Failure(f"xterm received {got!r}")
    print("xterm got the typed line:", got)


CASES = {
    "x11-xeyes": (case_xeyes, ("work",)),
    "x11-xterm": (case_xterm, ("work",), "x11"),
}


def start(name):
    run, vms, *backend = CASES[name]
    s = Session(vms, backend=backend[0] if backend else "headless")
    return s, run, False


if __name__ == "__main__":
    sys.exit(case_main(CASES, start))
