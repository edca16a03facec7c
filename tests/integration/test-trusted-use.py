#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Ordinary use under the trusted path (docs/security.md, "Trusted
path"), on a seated weston (tests/seat) with the panel: the
rules that stop a hostile VM must leave what users do working.

    test-trusted-use.py CASE

IVWL_KEEP_SHOTS=DIR keeps the screenshots the cases look at (docs/).
"""
import subprocess
import sys
import time

from ivwltest.session import (Failure, Listing, Session, case_main, pixel,
                              wait_for)

# the session's colour of its first VM, and label.c's attention bar
FIRST_VM = (0x30, 0x70, 0xc0)
AMBER = (0xff, 0xb0, 0x00)
PANEL = 32      # desktop-shell's panel height at the top


def case_new_window_keyboard(s):
    """A window the user clicked has the keyboard; a new window of the
    same VM takes it (a dialog), one of another VM does not until the
    user clicks it, and shows the attention bar meanwhile; the window
    switcher (super+tab) moves the keyboard between VMs."""
    a, va = s.typist("work", "first")
    s.click_window(va)
    wait_for("the first window to get the keyboard",
             lambda: "enter" in a.lines, timeout=5)
    b, _ = s.typist("work", "dialog")
    wait_for("the same VM's new window to take the keyboard",
             lambda: "enter" in b.lines, timeout=5)
    c, vc = s.typist("other", "other")
    time.sleep(1.5)
    if "enter" in c.lines:
        raise Failure("another VM's new window took the keyboard")
    x0, y0, x1, y1 = vc["rect"]

    def bar_shows():
        shot = s.screenshot()
        return AMBER in [pixel(shot, x, y) for x in range(x0, x1)
                         for y in range(max(y0 - 16, 0), y0)]
    if not bar_shows():
        raise Failure("the other VM's new window shows no attention bar")
    s.click_window(vc)
    wait_for("a click to give the other VM the keyboard",
             lambda: "enter" in c.lines, timeout=5)
    time.sleep(0.3)
    if bar_shows():
        raise Failure("the attention bar stayed after the click")
    s.seat.type("ok", delay=0.04)
    wait_for("the keys to reach it", lambda: len(c.starting("key ")) >= 2,
             timeout=5)
    # the window switcher is the user's too: super+tab back to work
    before = a.lines.count("enter") + b.lines.count("enter")
    s.seat.key("super+Tab")
    wait_for("the switcher to give work's window the keyboard",
             lambda: a.lines.count("enter") + b.lines.count("enter") >
             before, timeout=5)
    print("same VM's new window took the keyboard; another VM's waited "
          "for a click, with the attention bar; the switcher moved it "
          "back")


def case_gtk_menu(s):
    """gtk3-demo's context menu: a right click in an entry opens a
    grabbing popup (the VM holds the keyboard and the press's serial
    backs the grab), which stays until Escape closes it."""
    p = s.client(["gtk3-demo", "--run=clipboard"], vm="work",
                 log="gtk.log", extra_env={"GDK_BACKEND": "wayland",
                                           "NO_AT_BRIDGE": "1"})
    dialog = s.wait_view("[work] Clipboard", timeout=60)
    time.sleep(1.5)
    x0, y0, x1, y1 = dialog["rect"]
    # the first entry: a third of the way across, 40 % down the dialog
    s.seat.move(x0 + (x1 - x0) * 2 // 5, y0 + (y1 - y0) * 2 // 5)
    time.sleep(0.3)
    s.seat.click(3)
    menu = wait_for("the context menu", lambda: popups(s), timeout=10,
                    step=0.2)
    time.sleep(1.0)
    if not popups(s):
        raise Failure("the context menu was dismissed at once")
    s.screenshot()
    s.keep_screenshot("trusted-menu")
    print(f"the context menu is up at {menu[0]['rect']}")
    s.seat.key("Escape")
    wait_for("Escape to close the menu", lambda: not popups(s), timeout=5)
    if p.poll() is not None:
        raise Failure("gtk3-demo exited")


def popups(s):
    return [v for v in s.scene() if "role xdg_popup" in v["head"] and
            v["rect"] and v["rect"][2] > v["rect"][0]]


def case_chromium_menu(s):
    """chromium's context menu: a right click in the page opens its menu
    (an xdg_popup with a grab), which Escape closes."""
    page = s.path("page.html")
    with open(page, "w") as f:
        f.write("<html><head><title>ivwl-menu</title></head><body "
                "style='margin:0;background:#129a56'></body></html>")
    s.chromium(page)
    view = s.wait_view("[work] ivwl-menu - Chromium", timeout=60)
    time.sleep(2)
    x0, y0, x1, y1 = view["rect"]
    for _ in range(3):
        s.seat.move((x0 + x1) // 2, (y0 + y1) * 3 // 5)
        time.sleep(0.3)
        s.seat.click(3)
        try:
            menu = wait_for("the context menu", lambda: popups(s),
                            timeout=5, step=0.2)
            break
        except Failure:
            s.seat.key("Escape")
    else:
        raise Failure("chromium's context menu never opened")
    time.sleep(1.0)
    if not popups(s):
        raise Failure("chromium's context menu was dismissed at once")
    print(f"chromium's context menu is up at {menu[0]['rect']}")
    s.seat.key("Escape")
    wait_for("Escape to close the menu", lambda: not popups(s), timeout=5)


def case_mpv_fullscreen(s):
    """mpv --fs asks for fullscreen: it fills the screen below the panel,
    with its VM's frame inside its edges."""
    p = s.client(["mpv", "--vo=wlshm", "--no-audio", "--no-config", "--fs",
                  "--title=mpv-fs", "--length=8",
                  "av://lavfi:testsrc2=size=640x360:rate=30"], log="mpv.log")
    v = s.wait_view("[work] mpv-fs", timeout=30)
    wait_for("mpv to fill the screen below the panel", lambda: s.wait_view(
        "[work] mpv-fs")["rect"] == (0, PANEL, s.width, s.height),
        timeout=10, step=0.2)
    time.sleep(0.5)
    shot = s.screenshot()
    s.keep_screenshot("trusted-mpv-fullscreen")
    edges = {"top": (s.width // 2, PANEL + 1),
             "left": (1, (PANEL + s.height) // 2),
             "right": (s.width - 2, (PANEL + s.height) // 2),
             "bottom": (s.width // 2, s.height - 2)}
    for side, (x, y) in edges.items():
        if pixel(shot, x, y) != FIRST_VM:
            raise Failure(f"mpv's {side} edge shows {pixel(shot, x, y)}, "
                          f"not its VM's frame")
    if any(pixel(shot, x, 2) == FIRST_VM for x in range(s.width)):
        raise Failure("the panel is covered")
    print(f"mpv fullscreen at {v['rect']}: below the panel, framed")
    try:
        p.wait(30)
    except subprocess.TimeoutExpired:
        raise Failure("mpv did not finish its video")


CASES = {
    "new-window-keyboard": (case_new_window_keyboard, ("work", "other")),
    "gtk-menu": (case_gtk_menu, ("work",)),
    "chromium-menu": (case_chromium_menu, ("work",)),
    "mpv-fullscreen": (case_mpv_fullscreen, ("work",)),
}


def start(name):
    run, vms = CASES[name]
    return Session(vms, backend="seat", panel="top"), run, False


if __name__ == "__main__":
    sys.exit(case_main(CASES, start, Listing(more_suites={
        "new-window-keyboard": ["sanitized"]})))
