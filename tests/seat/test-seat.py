#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The seat the tests drive (ivwl-test-seat.so) does what the seated
cases rely on: a move puts weston's pointer exactly there, a click gives
the window under it the keyboard, keys and text arrive as the keymap
types them, a touch counts as the user's, and a bad command is refused.

    test-seat.py CASE
"""
import sys
import time

from ivwltest.seat import SeatError
from ivwltest.session import (Failure, Listing, Session, case_main,
                              wait_for)

# evdev codes of the us keymap weston starts with
KEY_A, KEY_Z, KEY_1, KEY_LEFTSHIFT, KEY_ENTER = 30, 44, 2, 42, 28


def keys(lines):
    return [int(ln.split()[1]) for ln in lines.starting("key ")]


def case_input(s):
    for x, y in ((0, 0), (s.width - 1, s.height - 1), (123, 457),
                 (s.width // 2, 7)):
        s.seat.move(x, y)
        if s.seat.where() != (x, y):
            raise Failure(f"moved to {x},{y}; weston's pointer is at "
                          f"{s.seat.where()}")
    a, va = s.typist("work", "seat-a")
    b, vb = s.typist("other", "seat-b")
    s.click_window(va)
    wait_for("a click to give work's window the keyboard",
             lambda: "enter" in a.lines, timeout=5)
    s.seat.type("aZ1\n")
    want = [KEY_A, KEY_LEFTSHIFT, KEY_Z, KEY_1, KEY_ENTER]
    wait_for("the typed keys", lambda: len(keys(a)) >= len(want),
             timeout=5)
    if keys(a) != want:
        raise Failure(f"typed 'aZ1\\n', the window heard {keys(a)}, "
                      f"not {want}")
    s.seat.key("ctrl+a")
    wait_for("ctrl+a", lambda: len(keys(a)) >= len(want) + 2, timeout=5)
    if keys(a)[len(want):] != [29, KEY_A]:
        raise Failure(f"ctrl+a came as {keys(a)[len(want):]}")
    # a finger on the other VM's window is the user's too (the x11
    # backend's seat has no touch screen: a click there)
    if s.backend == "seat":
        s.seat.tap(*s.spot_in(vb))
    else:
        s.click_window(vb)
    wait_for("a tap or click to give the other VM's window the keyboard",
             lambda: "enter" in b.lines, timeout=5)
    wait_for("work's window to lose it", lambda: "leave" in a.lines,
             timeout=5)
    for bad in ("key down no-such-key", "button 9 down", "frobnicate"):
        try:
            s.seat.ask(bad)
        except SeatError as e:
            print(f"refused: {e}")
            continue
        raise Failure(f"the seat took {bad!r}")
    print(f"move, where, click, text, keys, tap: all as asked "
          f"(keys {keys(a)})")


def case_restart(s):
    """The seat comes back with a new weston, the pointer anywhere."""
    s.restart_weston(kill=True)
    s.seat.move(11, 13)
    if s.seat.where() != (11, 13):
        raise Failure(f"after the restart the pointer is at "
                      f"{s.seat.where()}")
    print("a new weston's seat is driven as the first's")


CASES = {
    "input": (case_input, ("work", "other"), "seat"),
    "restart": (case_restart, ("work",), "seat"),
    "input-x11": (case_input, ("work", "other"), "x11"),
}


def start(name):
    run, vms, backend = CASES[name]
    return Session(vms, backend=backend), run, name == "restart"


if __name__ == "__main__":
    sys.exit(case_main(list(CASES), start, Listing(
        prefix="seat-", timeout=60,
        more_suites={"input": ["sanitized"]})))
