# SPDX-License-Identifier: MIT
"""weston's seat, driven by the tests (tests/seat/seat-module.c).

The module gives the headless backend a seat with a pointer, a keyboard
and a touch screen (or takes the x11 backend's) and takes input on a
control socket at output coordinates: a click lands where the test
moved, whatever pointer there was before.
"""

import socket
import time


class SeatError(Exception):
    pass


class Seat:
    # what xdotool calls the buttons: 1 left, 2 middle, 3 right
    def __init__(self, path):
        self.path = path
        self.sock = None
        self.buf = b""

    def _connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(10)
        self.sock.connect(self.path)
        self.buf = b""

    def reset(self):
        """Forgets the connection (a new weston listens anew)."""
        if self.sock:
            self.sock.close()
        self.sock = None

    def ask(self, line):
        """Sends one command; its answer after "ok", or SeatError."""
        for attempt in (0, 1):
            try:
                if not self.sock:
                    self._connect()
                self.sock.sendall(line.encode() + b"\n")
                while b"\n" not in self.buf:
                    chunk = self.sock.recv(256)
                    if not chunk:
                        raise ConnectionResetError("weston closed it")
                    self.buf += chunk
                break
            except (ConnectionError, FileNotFoundError) as e:
                # weston restarted: its module listens again on the path
                self.reset()
                if attempt:
                    raise SeatError(f"cannot reach the test seat at "
                                    f"{self.path} (is weston gone?): {e}")
                time.sleep(0.2)
        answer, self.buf = self.buf.split(b"\n", 1)
        answer = answer.decode()
        if not answer.startswith("ok"):
            raise SeatError(f"the test seat refused {line!r}: {answer}")
        return answer[2:].strip()

    # ---- pointer ------------------------------------------------------

    def move(self, x, y):
        self.ask(f"move {x} {y}")

    def where(self):
        x, y = self.ask("where").split()
        return int(x), int(y)

    def down(self, button=1):
        self.ask(f"button {button} down")

    def up(self, button=1):
        self.ask(f"button {button} up")

    def click(self, button=1, at=None, hold=0.03):
        """Clicks button, at (x, y) if given, as a hand does: moves,
        presses, holds it down for hold seconds, lets go."""
        if at is not None:
            self.move(*at)
            time.sleep(0.05)
        self.down(button)
        time.sleep(hold)
        self.up(button)

    def drag(self, start, end, steps=10, button=1, pause=0.03):
        """Presses at start, moves in steps to end, lets go there."""
        self.move(*start)
        time.sleep(0.1)
        self.down(button)
        time.sleep(0.1)
        for i in range(1, steps + 1):
            self.move(start[0] + (end[0] - start[0]) * i // steps,
                      start[1] + (end[1] - start[1]) * i // steps)
            time.sleep(pause)
        time.sleep(0.1)
        self.up(button)

    # ---- keyboard -----------------------------------------------------

    def keydown(self, combo):
        for name in combo.split("+"):
            self.ask(f"key down {name}")

    def keyup(self, combo):
        for name in reversed(combo.split("+")):
            self.ask(f"key up {name}")

    def key(self, *combos, delay=0.02):
        """Presses and lets go each combo in turn ("super+shift+c")."""
        for combo in combos:
            self.keydown(combo)
            self.keyup(combo)
            time.sleep(delay)

    def type(self, text, delay=0.02):
        """Types text key by key, with shift where the keymap needs it."""
        for ch in text:
            if ch == "\n":
                self.ask("key down Return")
                self.ask("key up Return")
            else:
                self.ask(f"text {ch}")
            time.sleep(delay)

    # ---- touch --------------------------------------------------------

    def touch(self, state, x, y, touch_id=0):
        """state: down, motion or up."""
        self.ask(f"touch {state} {touch_id} {x} {y}")

    def tap(self, x, y, touch_id=0):
        self.touch("down", x, y, touch_id)
        time.sleep(0.03)
        self.touch("up", x, y, touch_id)
