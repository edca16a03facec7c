#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Windows survive a weston restart.

    test-restart.py CASE      (meson runs one case per test)

Each case starts clients through the shim (IVWL_DEBUG=1: their relays log
to the client's log), waits for their windows and notes their processes
(pid and start time), restarts weston with Session.restart_weston() --
SIGKILL, a crash, or SIGTERM, a clean shutdown; the ivwl-servers, agents,
Xvfb and clients stay -- and checks what came back.  "Back" means the
window is in the new weston's scene with its VM's label, and its client
is the same process, still running; how long that took after the new
weston was started is printed, never asserted.

shm-kill     SIGKILL.  ivwl-pattern-client and weston-simple-shm: both
             back; the pattern client's next frame (SIGUSR1) is shown
             pixel for pixel with the VM's border; simple-shm draws new
             frames.
shm-clean    The same after a clean shutdown (weston exits with 0).
terminal     Seated (tests/seat), SIGKILL.  foot and weston-terminal each run a
             script that writes every line it reads to a file.  A line
             typed into foot before the restart is the control; after
             it, a line typed into each must reach its file.
gtk          Seated, SIGKILL.  gtk3-widget-factory back; a click on
             its header bar's middle switcher button (Page 2) must change
             most of the window.
many         Three clients in two VMs (two pattern clients, simple-shm),
             SIGKILL: all back, pixel-exact, each with its VM's border.
twice        SIGKILL, then SIGTERM: back after each, pixel-exact after
             each next frame; then a new client works too.
popup-or-unsupported
             Seated, SIGKILL.  weston-confine holds a
             zwp_confined_pointer_v1 (a click confines the pointer; its
             WAYLAND_DEBUG log shows confined()), which a replay cannot
             carry over: its connection must end with a relay log line
             naming the interface, the client must exit (no hang), and a
             plain pattern client of the same VM must come back.
came-back    Seated, two VMs, SIGKILL: windows that only came back take
             no keyboard and wear no attention bar until the user clicks.
places       Seated, two VMs, five windows each dragged by its bar to its
             own place, SIGKILL: each comes back where it stood (within
             2 px), stacked as before, none with an attention bar.
stack-stop   weston, the agent and ivwl-server killed together: pattern
             clients (zero-copy and copy) and simple-shm end within
             IVWL_RESTART_WAIT (20 s here), each relay saying once that
             the agent went away.
region-gone  ivwl-server alone killed: the region goes away under the
             agent, which exits; a pattern client ends as in stack-stop,
             its window leaves the scene, weston stays.
stack-stop-terminals
             Seated.  The same for foot and weston-terminal.
stack-stop-x11
             The same for ivwl-xwm running xterm: ivwl-xwm, its
             Xwayland and the xterm end.
new-client-after-restart
             Seated.  The harness itself, passing with or without
             replay: after a SIGKILL a new pattern client is shown pixel
             for pixel with its border and draws its next frame, and
             weston-eventdemo gets a click and a key; after a SIGTERM
             restart a new pattern client is shown pixel for pixel.
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import time

from ivwltest.session import (ENV, FRAME_BORDER, Failure, Listing,  # noqa: E402
                              Session, case_main, check_border, compare_window,
                              covering, pixel, wait_for, wayland_debug_re)

# session.py's colours: the first VM, the second
BORDER = {"work": (0x30, 0x70, 0xc0), "home": (0xc0, 0x30, 0x30)}
GTK_ENV = {"GDK_BACKEND": "wayland", "NO_AT_BRIDGE": "1"}
# weston's pointer-constraints demo and its title: weston-confine up to
# weston 12, weston-constraints after
CONFINE = (("weston-confine", "Wayland Confine")
           if shutil.which("weston-confine") else
           ("weston-constraints", "simple-constraints"))


def start_time(pid):
    """The process's start time (clock ticks after boot): a pid given to
    another process has another."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            # fields after "(comm)": state is field 3, starttime 22
            return int(f.read().rsplit(")", 1)[1].split()[19])
    except OSError:
        return None


class App:
    """A client of the session: its process, its window's title, its log
    (stderr, where its relay logs too)."""

    def __init__(self, s, argv, title, vm="work", log=None, extra_env=None):
        self.s = s
        self.title = f"[{vm}] {title}"
        self.vm = vm
        self.log = log or f"{title.replace(' ', '-').lower()}.log"
        self.proc = s.client(argv, vm=vm, log=self.log,
                             extra_env=dict({"IVWL_DEBUG": "1"},
                                            **(extra_env or {})))
        self.born = None

    def log_text(self):
        with open(self.s.path(self.log), errors="replace") as f:
            return f.read()

    def said(self):
        """Why its connection ended, as its relay or the client says."""
        lines = [ln for ln in self.log_text().splitlines()
                 if "connection over" in ln or "connection lost" in ln
                 or "rror" in ln]
        return "; ".join(lines[-3:]) or "nothing in its log"

    def shown(self, timeout=20.0):
        view = self.s.wait_view(self.title, timeout)
        self.born = start_time(self.proc.pid)
        print(f"{self.title!r} shown, pid {self.proc.pid}")
        return view

    def alive(self):
        if self.proc.poll() is not None:
            raise Failure(f"{self.title!r}: its client (pid "
                          f"{self.proc.pid}) exited with "
                          f"{self.proc.returncode}: {self.said()}")
        if start_time(self.proc.pid) != self.born:
            raise Failure(f"{self.title!r}: pid {self.proc.pid} is "
                          "another process now")

    def back(self, timeout=20.0):
        """Its window in the new weston, the same process drawing it."""
        def find():
            self.alive()
            for v in self.s.scene():
                if v["title"] == self.title and v["rect"]:
                    return v
            return None
        try:
            view = wait_for(f"{self.title!r} back", find, timeout, 0.2)
        except Failure as e:
            if "timed out" not in str(e):
                raise       # alive() said why
            seen = [v["title"] for v in self.s.scene() if v["title"]]
            raise Failure(f"{e}; weston shows {seen}; {self.said()}") \
                from None
        took = time.monotonic() - self.s.weston_started
        print(f"{self.title!r} back {took:.2f} s after the new weston "
              f"started, pid {self.proc.pid} unchanged")
        return view


class Pattern(App):
    """ivwl-pattern-client: its last frame is in its dump, and SIGUSR1
    makes it draw (and dump) one more."""

    def __init__(self, s, name, vm="work", w=240, h=180):
        self.dump = s.path(f"{name}.raw")
        self.w, self.h = w, h
        self.agains = 0
        super().__init__(s, [ENV["IVWL_PATTERN_CLIENT"], "--frames", "12",
                             "--width", str(w), "--height", str(h),
                             "--title", name, "--dump", self.dump,
                             "--hold-ms", "600000"], name, vm,
                         f"{name}.log")

    def shown(self, timeout=20.0):
        self.s.wait_line(self.proc, "ready")
        view = super().shown(timeout)
        compare_window(self.s, view, self.dump, self.w, self.h)
        return view

    def next_frame_exact(self):
        """Its next frame, on weston's output pixel for pixel, inside its
        VM's border."""
        self.alive()
        self.agains += 1
        self.proc.send_signal(signal.SIGUSR1)
        try:
            self.s.wait_line(self.proc, f"again {self.agains}")
        except Failure as e:
            raise Failure(f"{self.title!r}: {e}; {self.said()}") from None
        view = self.s.wait_view(self.title)
        compare_window(self.s, view, self.dump, self.w, self.h)
        check_border(self.s, view, BORDER[self.vm])


def simple_shm(s, vm="work"):
    return App(s, ["weston-simple-shm"], "simple-shm", vm,
               f"simple-shm-{vm}.log")


def uncovered(s, view, step=16):
    """Visible sample points of view: on the output, under no view."""
    above = covering(s, view)
    x0, y0, x1, y1 = view["rect"]
    return [(x, y) for y in range(max(y0, 0) + 4, min(y1, s.height), step)
            for x in range(max(x0, 0) + 4, min(x1, s.width), step)
            if not any(a <= x < c and b <= y < d for a, b, c, d in above)]


def samples(s, view):
    sw, sh, bpp, rows = s.screenshot()
    return {(x, y): rows[y][x * bpp:x * bpp + 3]
            for x, y in uncovered(s, view, 4)}


def differ(a, b):
    """How many of the sample points shown in both differ."""
    return sum(a[p] != b[p] for p in a if p in b)


def draws(s, app):
    """app's window shows new frames: simple-shm's pattern moves."""
    app.alive()
    first = samples(s, s.wait_view(app.title))

    def moved():
        app.alive()
        now = samples(s, s.wait_view(app.title))
        return differ(now, first) > 20 and now
    now = wait_for(f"{app.title!r} to draw a new frame", moved, 20.0, 0.3)
    colours = len(set(now.values()))
    if colours < 50:
        raise Failure(f"{app.title!r} shows {colours} colours only")
    print(f"{app.title!r} draws new frames ({colours} colours)")


def restart(s, kill):
    """restart_weston(), its old weston's exit checked."""
    status = s.restart_weston(kill=kill)
    if kill and status != -signal.SIGKILL:
        raise Failure(f"weston exited with {status}, not killed")
    if not kill and status != 0:
        raise Failure(f"weston exited with {status} on SIGTERM")
    print(f"weston {'killed' if kill else 'shut down'} and started again "
          f"(weston #{s.weston_starts}); it attached to every VM")


# Client-side shadows take input from no one: toytoolkit's (weston-
# terminal) are 32 px wide.  A click goes further in than that.
SHADOW = 40


def click_at(s, view, point=None):
    """A click into view, where nothing covers it (its centre if it can),
    inside its shadow."""
    x0, y0, x1, y1 = view["rect"]
    if point is None:
        free = [(x, y) for x, y in uncovered(s, view)
                if x0 + SHADOW <= x < x1 - SHADOW and
                y0 + SHADOW <= y < y1 - SHADOW]
        if not free:
            raise Failure(f"{view['title']!r} at {view['rect']} is covered "
                          f"all over by {covering(s, view)}")
        cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
        point = min(free, key=lambda p: abs(p[0] - cx) + abs(p[1] - cy))
    s.seat.click(at=point)
    time.sleep(0.3)


def type_line(s, app, text):
    click_at(s, s.wait_view(app.title))
    s.seat.type(text)
    s.seat.key("Return")


def line_reader(s, name, lines=2):
    """A script writing each of the lines it reads to NAME-1.txt, ...,
    then staying, so that its terminal stays too."""
    script = s.path(f"{name}.sh")
    body = "".join(f"read line\necho \"$line\" > "
                   f"{s.path(f'{name}-{i}.txt')}\n"
                   for i in range(1, lines + 1))
    with open(script, "w") as f:
        f.write(f"#!/bin/sh\n{body}exec sleep 3600\n")
    os.chmod(script, 0o755)
    return script


def got_line(s, app, name, i, text):
    path = s.path(f"{name}-{i}.txt")

    def line():
        app.alive()
        return os.path.exists(path) and open(path).read().strip()
    try:
        got = wait_for(f"line {i} typed into {app.title!r}", line, 15.0)
    except Failure as e:
        if "timed out" not in str(e):
            raise       # alive() said why
        raise Failure(f"{e}: the keys did not reach it") from None
    if got != text:
        raise Failure(f"{app.title!r} received {got!r}, not {text!r}")
    print(f"{app.title!r} got the typed line {got!r}")


# ---- cases ----------------------------------------------------------------

def shm(s, kill):
    a = Pattern(s, "pattern")
    b = simple_shm(s)
    a.shown()
    b.shown()
    restart(s, kill)
    a.back()
    b.back()
    a.next_frame_exact()
    draws(s, b)
    a.alive()
    b.alive()


def case_shm_kill(s):
    shm(s, True)


def case_shm_clean(s):
    shm(s, False)


def case_terminal(s):
    # tall and narrow: however the two are placed, each shows beside the
    # other (weston 10 and 14 place weston-terminal at 806x491 so that
    # it covers a foot of the default size, or one of 400x300)
    foot = App(s, ["foot", "--window-size-pixels=300x740",
                   line_reader(s, "foot")], "foot", log="foot.log")
    term = App(s, ["weston-terminal",
                   f"--shell={line_reader(s, 'weston-terminal')}"],
               "Wayland Terminal", log="weston-terminal.log")
    foot.shown()
    term.shown()
    time.sleep(0.5)
    # the control: typing reaches foot while nothing was restarted
    type_line(s, foot, "typed before")
    got_line(s, foot, "foot", 1, "typed before")
    restart(s, True)
    foot.back()
    term.back()
    time.sleep(0.5)
    type_line(s, foot, "typed after the restart")
    got_line(s, foot, "foot", 2, "typed after the restart")
    type_line(s, term, "typed into weston-terminal")
    got_line(s, term, "weston-terminal", 1, "typed into weston-terminal")
    foot.alive()
    term.alive()


def case_x11(s):
    """An X application's window (ivwl-xwm: rootless Xwayland behind a
    proxy) comes back after weston is killed: the relay replays
    ivwl-xwm's connection, the proxy's own xdg_toplevel with it, and
    keys reach the same xterm."""
    term = App(s, [ENV["IVWL_XWM_BIN"], "--", "xterm", "-T", "ivwl-x11",
                   "-e", line_reader(s, "xterm")], "ivwl-x11",
               log="xterm.log")
    term.shown(timeout=30)
    time.sleep(0.5)
    type_line(s, term, "typed before")
    got_line(s, term, "xterm", 1, "typed before")
    restart(s, True)
    term.back()
    time.sleep(0.5)
    type_line(s, term, "typed after the restart")
    got_line(s, term, "xterm", 2, "typed after the restart")
    term.alive()


def settled(s, title):
    """(view, its samples) once two screenshots nearly agree (its
    spinners turn on)."""
    last = {}

    def quiet():
        nonlocal last
        view = s.wait_view(title)
        now = samples(s, view)
        ok = last and differ(now, last) < len(now) * 0.02
        last = now
        return ok and (view, now)
    return wait_for(f"{title!r} to settle", quiet, 20.0, 0.3)


def case_gtk(s):
    gtk = App(s, ["gtk3-widget-factory"], "gtk3-widget-factory",
              log="gtk.log", extra_env=GTK_ENV)
    gtk.shown(timeout=30)
    restart(s, True)
    gtk.back(timeout=30)
    view, before = settled(s, gtk.title)
    # The switcher (Page 1, 2, 3) sits in the middle of the header bar,
    # 45 pixels below the top of the surface with its shadow.
    x0, y0, x1, y1 = view["rect"]
    click_at(s, view, ((x0 + x1) // 2, y0 + 45))

    def changed():
        gtk.alive()
        diff = differ(samples(s, view), before)
        return diff > len(before) * 0.3 and (diff, len(before))
    try:
        diff, total = wait_for("the click to show Page 2", changed, 15.0,
                               0.5)
    except Failure as e:
        if "timed out" not in str(e):
            raise       # alive() said why
        raise Failure(f"{e}: the click did not reach gtk3-widget-factory") \
            from None
    gtk.alive()
    print(f"the click after the restart switched to Page 2: {diff} of "
          f"{total} samples changed")


def case_many(s):
    alpha = Pattern(s, "alpha")
    shm_app = simple_shm(s)
    beta = Pattern(s, "beta", vm="home", w=200, h=150)
    for app in (alpha, shm_app, beta):
        app.shown()
    restart(s, True)
    for app in (alpha, shm_app, beta):
        app.back()
    alpha.next_frame_exact()
    beta.next_frame_exact()
    draws(s, shm_app)
    for app in (alpha, shm_app, beta):
        app.alive()


def case_twice(s):
    a = Pattern(s, "pattern")
    b = simple_shm(s)
    a.shown()
    b.shown()
    for kill in (True, False):
        restart(s, kill)
        a.back()
        b.back()
        a.next_frame_exact()
        draws(s, b)
    c = Pattern(s, "newcomer")
    c.shown()
    c.next_frame_exact()
    for app in (a, b, c):
        app.alive()


def confinement_alive(app):
    """weston-confine asked for a confined pointer and has not destroyed
    it (its one constraint)."""
    text = app.log_text()
    asked = re.findall(wayland_debug_re("zwp_pointer_constraints_v1",
                                        "confine_pointer"), text, re.M)
    gone = re.findall(wayland_debug_re("zwp_confined_pointer_v1",
                                       "destroy"), text, re.M)
    return len(asked) > len(gone)


def confined(app):
    """weston-confine's pointer confinement is on: confined() came after
    its last unconfined() and destroy.  set_region, which the client
    sends when it redraws, changes neither."""
    said = [m for m in re.findall(
                wayland_debug_re("zwp_confined_pointer_v1", r"(\w+)"),
                app.log_text(), re.M) if m != "set_region"]
    return said[-1:] == ["confined"]


def case_unsupported(s):
    # first: a window mapped later takes the pointer, which ends the
    # confinement
    bystander = Pattern(s, "bystander")
    bystander.shown()
    # weston 14 renamed weston-confine, which now also locks
    confine = App(s, [CONFINE[0]], CONFINE[1],
                  log="confine.log", extra_env={"WAYLAND_DEBUG": "1"})
    click_at(s, confine.shown())
    wait_for("weston-confine to ask for a confined pointer",
             lambda: confinement_alive(confine), 15.0)
    # weston 10 and 14 confine it; weston 16 does not (the confined
    # surface is a subsurface, the keyboard is on its parent).  The
    # object the relay cannot replay is there either way.
    try:
        wait_for("weston to confine it", lambda: confined(confine), 3.0)
        state = "confined"
    except Failure:
        state = "not confined by this weston"
    time.sleep(0.5)
    if not confinement_alive(confine):
        raise Failure("weston-confine destroyed its confined pointer "
                      "before the restart")
    print(f"weston-confine holds a zwp_confined_pointer_v1 ({state})")
    mark = len(confine.log_text())
    restart(s, True)
    try:
        confine.proc.wait(20)
    except subprocess.TimeoutExpired:
        raise Failure("weston-confine still runs 20 s after the restart: "
                      "its connection hangs") from None
    # the relay's lines (ivwl-...), not WAYLAND_DEBUG's ([time] ...)
    said = [ln for ln in confine.log_text()[mark:].splitlines()
            if ln.startswith("ivwl-")]
    why = [ln for ln in said if "zwp_confined_pointer_v1" in ln]
    if not why:
        raise Failure("no relay log line names zwp_confined_pointer_v1 "
                      f"as why the connection ended; the relay said: "
                      f"{said}")
    print(f"weston-confine ended ({confine.proc.returncode}): {why[0]}")
    bystander.back()
    bystander.next_frame_exact()
    bystander.alive()


AMBER = (0xff, 0xb0, 0x00)     # the attention bar (plugin/label.c)


def case_came_back(s):
    """Windows that only came back after a restart take no keyboard and
    wear no attention bar: two VMs' typists, the user in work's; after
    weston is killed and started again, neither hears an enter until the
    user clicks one, and nothing on screen asks for attention."""
    work, _ = s.typist("work", "w-typist")
    home, _ = s.typist("home", "h-typist")
    s.click_window(s.wait_view("[work] w-typist"))
    wait_for("work's typist to have the keyboard",
             lambda: "enter" in work.lines, timeout=5)
    restart(s, True)
    before = {t: len(t.lines) for t in (work, home)}
    views = [s.wait_view(f"[{vm}] {t}-typist", timeout=30)
             for vm, t in (("work", "w"), ("home", "h"))]
    time.sleep(1.5)
    for t, name in ((work, "work"), (home, "home")):
        if "enter" in t.lines[before[t]:]:
            raise Failure(f"{name}'s window took the keyboard when it "
                          "came back")
    amber = amber_around(s, views)
    if amber:
        raise Failure(f"{amber} attention-bar pixels around windows that "
                      "only came back")
    s.click_window(s.wait_view("[home] h-typist"))
    wait_for("a click to give home's window the keyboard",
             lambda: "enter" in home.lines[before[home]:], timeout=5)
    print("after the restart no window took the keyboard or asked for "
          "attention; a click gave it")


def amber_around(s, views):
    """Attention-bar pixels around views' frames, on screen now."""
    shot = s.screenshot()
    return sum(pixel(shot, x, y) == AMBER
               for x0, y0, x1, y1 in (s.frame_box(v) for v in views)
               for x in range(max(x0 - 8, 0), min(x1 + 8, s.width), 2)
               for y in range(max(y0 - 8, 0), min(y1 + 8, s.height), 2))


# where case_places drags its windows: apart, below the panel
PLACES = ((30, 100), (360, 100), (690, 100), (30, 440), (360, 440))


def case_places(s):
    """Windows come back where the user left them, without asking for
    attention: five windows of two VMs, each dragged by weston's title
    bar to a place of its own as it maps (on top then, its bar
    uncovered); after weston is killed and started again, the shell
    would place them as new windows (desktop-shell: at random), the
    places weston kept put each back within 2 px."""
    names = [("work", "w1"), ("work", "w2"), ("work", "w3"),
             ("home", "h1"), ("home", "h2")]
    bar = s.bar_height()
    typists = []
    for (vm, name), (tx, ty) in zip(names, PLACES):
        lines, v = s.typist(vm, name)
        typists.append(lines)
        x0, y0, x1, y1 = v["rect"]
        grip = y0 - FRAME_BORDER - bar // 2
        s.seat.drag((x0 + 20, grip), (tx + 20, ty - FRAME_BORDER - bar // 2))
        moved = wait_for(f"{name} to move to {tx},{ty}", lambda: (
            lambda r: r if r[:2] == (tx, ty) else None)(
                s.wait_view(f"[{vm}] {name}")["rect"]), timeout=5)
        if moved[2] - moved[0] > 300 or moved[3] - moved[1] > 300:
            raise Failure(f"{name} is too big for its place: {moved}")
    # a click on w2's bar raises it: the stack is no longer the order
    # the windows mapped in, which a replay repeats
    w2 = s.wait_view("[work] w2")["rect"]
    s.seat.click(at=(w2[0] + 20, w2[1] - FRAME_BORDER - bar // 2))
    time.sleep(1.5)     # weston keeps places a second after a move
    before = {n: s.wait_view(f"[{vm}] {n}")["rect"] for vm, n in names}
    titles = {f"[{vm}] {n}" for vm, n in names}
    order = [v["title"] for v in s.scene() if v["title"] in titles]
    restart(s, True)
    views = [s.wait_view(f"[{vm}] {n}", timeout=30) for vm, n in names]
    time.sleep(1.0)
    views = [s.wait_view(f"[{vm}] {n}") for vm, n in names]
    off = {v["title"]: (v["rect"], before[n])
           for (vm, n), v in zip(names, views)
           if max(abs(a - b) for a, b in zip(v["rect"], before[n])) > 2}
    if off:
        raise Failure(f"windows came back elsewhere (now, before): {off}")
    again = [v["title"] for v in s.scene() if v["title"] in titles]
    if again != order:
        raise Failure(f"windows came back stacked {again}, not {order} "
                      "(top first)")
    amber = amber_around(s, views)
    if amber:
        raise Failure(f"{amber} attention-bar pixels around windows that "
                      "only came back")
    print(f"5 windows of 2 VMs came back where they stood: {before}, "
          f"stacked as before {order}; no attention bar")


def case_first_map(s):
    """After a restart the keyboard waits for the user: VM evil maps a
    new window before the user's windows come back (not a replay, so not
    "came back"), three restarts in a row; it never hears an enter or a
    key, and a click gives work's window the keyboard and the keys."""
    work, _ = s.typist("work", "w-typist")
    s.click_window(s.wait_view("[work] w-typist"))
    wait_for("work's typist to have the keyboard",
             lambda: "enter" in work.lines, timeout=5)
    for i in range(3):
        restart(s, True)
        evil, _ = s.typist("evil", f"evil-{i}")
        view = s.wait_view("[work] w-typist", timeout=30)
        time.sleep(1.0)
        n = len(work.lines)
        for _ in range(5):
            s.click_window(view)
            try:
                wait_for("a click to give work's window the keyboard",
                         lambda: "enter" in work.lines[n:], timeout=2)
                break
            except Failure:
                pass
        s.seat.type("abc", delay=0.04)
        wait_for("work to hear the keys",
                 lambda: len(work.starting("key ")) >= 3 * (i + 1),
                 timeout=5)
        heard = [ln for ln in evil.lines if ln == "enter" or
                 ln.startswith("key ")]
        if heard:
            raise Failure(f"BUG restart: evil's first window heard "
                          f"{heard} after restart {i + 1}")
        evil.proc.terminate()
        evil.proc.wait(10)
    print("3 restarts: evil's window mapped first each time and heard "
          "nothing; a click gave work the keyboard")


# The bound stack-stop holds the clients to; without the agent's end
# (nothing tells a relay that a killed weston left) they would wait for
# good.
STACK_RESTART_WAIT = 20


def stack_app(s, argv, title, log, extra_env=None):
    return App(s, argv, title, log=log,
               extra_env=dict({"IVWL_RESTART_WAIT": str(STACK_RESTART_WAIT)},
                              **(extra_env or {})))


def stop_stack(s, apps, others=(), server_only=False):
    """SIGKILLs weston, the agent and the ivwl-server of "work" together
    (server_only: the ivwl-server alone, the region going away under
    its agent, which exits); every app, and every pid of others, must
    end within IVWL_RESTART_WAIT, each app's relay saying once why."""
    for app in apps:
        app.shown(timeout=30)
    t0 = time.monotonic()
    for p in ((s.servers["work"],) if server_only else
              (s.weston, s.agents["work"], s.servers["work"])):
        p.send_signal(signal.SIGKILL)
    ended = {}
    for app in apps:
        try:
            app.proc.wait(max(0.1, STACK_RESTART_WAIT -
                              (time.monotonic() - t0)))
        except subprocess.TimeoutExpired:
            raise Failure(f"{app.title!r} still runs {STACK_RESTART_WAIT} s "
                          f"(IVWL_RESTART_WAIT) after the stack stopped: "
                          f"{app.said()}")
        ended[app.title] = time.monotonic() - t0
    for name, pid in others:
        wait_for(f"{name} (pid {pid}) to end",
                 lambda: start_time(pid) is None or
                 open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1]
                 .split()[0] == "Z",
                 timeout=max(0.1, STACK_RESTART_WAIT -
                             (time.monotonic() - t0)))
    for app in apps:
        why = [ln for ln in app.log_text().splitlines()
               if "connection over" in ln]
        if len(why) != 1 or "ivwl-agent went away" not in why[0]:
            raise Failure(f"{app.title!r}'s relay said {why}, not once "
                          "that the agent went away")
    print("ended after the kill: " +
          ", ".join(f"{t} {d:.1f} s" for t, d in ended.items()) +
          (f"; and {', '.join(n for n, _ in others)}" if others else ""))


def case_stack_stop(s):
    """weston, the VM's agent and its ivwl-server killed together (the
    whole stack stops): no display can come back on that region, so
    every client of the VM ends, its relay saying why, within
    IVWL_RESTART_WAIT (at once in fact: the relay sees the agent's
    socket end)."""
    pattern = [ENV["IVWL_PATTERN_CLIENT"], "--frames", "1000000",
               "--width", "200", "--height", "150", "--title"]
    stop_stack(s, [
        stack_app(s, pattern + ["stack-zc"], "stack-zc", "stack-zc.log"),
        stack_app(s, pattern + ["stack-copy"], "stack-copy",
                  "stack-copy.log", {"IVWL_ZERO_COPY": "off"}),
        stack_app(s, ["weston-simple-shm"], "simple-shm",
                  "simple-shm.log")])


def case_region_gone(s):
    """ivwl-server alone killed: the region goes away under the agent,
    which exits; weston stays.  The VM's clients end as in stack-stop."""
    stop_stack(s, [
        stack_app(s, [ENV["IVWL_PATTERN_CLIENT"], "--frames", "1000000",
                      "--title", "region-gone"], "region-gone",
                  "region-gone.log")], server_only=True)
    wait_for("the agent to exit", lambda: s.agents["work"].poll()
             is not None, timeout=5)
    wait_for("the window to leave weston's scene",
             lambda: all(v["title"] != "[work] region-gone"
                         for v in s.scene()), timeout=5)


def case_stack_stop_terminals(s):
    """The same for terminals, foot (as in the report) and
    weston-terminal."""
    stop_stack(s, [
        stack_app(s, ["foot", "--title=stack-foot", "sh", "-c",
                      "sleep 100000"], "stack-foot", "foot.log"),
        stack_app(s, ["weston-terminal", "--shell=/bin/sh"],
                  "Wayland Terminal", "weston-terminal.log")])


def case_stack_stop_x11(s):
    """The same for an X application: ivwl-xwm, its Xwayland and the
    xterm all end."""
    xwm = stack_app(s, [ENV["IVWL_XWM_BIN"], "--", "xterm", "-T",
                        "stack-x11", "-e", "sleep", "100000"],
                    "stack-x11", "xterm.log")
    xwm.shown(timeout=30)
    kids = subprocess.run(["pgrep", "-P", str(xwm.proc.pid)],
                          capture_output=True, text=True).stdout.split()
    others = []
    for pid in kids:
        with open(f"/proc/{pid}/comm") as f:
            others.append((f.read().strip(), int(pid)))
    if sorted(n for n, _ in others) != ["Xwayland", "xterm"]:
        raise Failure(f"ivwl-xwm's children are {others}")
    stop_stack(s, [xwm], others)


def case_new_client_after_restart(s):
    """Passes today: what the other cases rely on."""
    old = Pattern(s, "before")
    old.shown()
    restart(s, True)
    after = Pattern(s, "after-kill")
    after.shown()
    after.next_frame_exact()
    demo = App(s, ["weston-eventdemo"], "EventDemo", log="eventdemo.log",
               extra_env={"WAYLAND_DEBUG": "1"})
    click_at(s, demo.shown())
    s.seat.key("x")

    def got(event):
        def seen():
            demo.alive()
            return re.search(wayland_debug_re(r"wl_\w+", event),
                             demo.log_text(), re.M)
        return seen
    wait_for("the click to reach weston-eventdemo", got("button"), 15.0)
    wait_for("the key to reach weston-eventdemo", got("key"), 15.0)
    print("a click and a key reached a client started after the restart")
    restart(s, False)
    again = Pattern(s, "after-clean")
    again.shown()
    again.next_frame_exact()


CASES = {
    "shm-kill": (case_shm_kill, ("work",)),
    "shm-clean": (case_shm_clean, ("work",)),
    "terminal": (case_terminal, ("work",), "seat"),
    "gtk": (case_gtk, ("work",), "seat", (1600, 900)),
    "many": (case_many, ("work", "home"), "headless", (1024, 768)),
    "twice": (case_twice, ("work",)),
    "popup-or-unsupported": (case_unsupported, ("work",), "seat"),
    "new-client-after-restart": (case_new_client_after_restart, ("work",),
                                 "seat"),
    "x11": (case_x11, ("work",), "seat"),
    "stack-stop": (case_stack_stop, ("work",)),
    "region-gone": (case_region_gone, ("work",)),
    "stack-stop-terminals": (case_stack_stop_terminals, ("work",), "seat"),
    "stack-stop-x11": (case_stack_stop_x11, ("work",), "seat"),
    "came-back": (case_came_back, ("work", "home"), "seat"),
    "places": (case_places, ("work", "home"), "seat"),
    "first-map": (case_first_map, ("work", "evil"), "seat"),
}


def start(name):
    run, vms, *rest = CASES[name]
    backend = rest[0] if rest else "headless"
    width, height = rest[1] if len(rest) > 1 else (1024, 768)
    s = Session(vms, width=width, height=height, backend=backend)
    return s, run, name.startswith("stack-stop")


if __name__ == "__main__":
    # Under the sanitizers: the replay's paths (kill, clean stop, two in
    # a row, one it cannot replay); the rest only adds clients.  Typing
    # and clicking want a machine not busy with more.
    sys.exit(case_main(CASES, start, Listing(
        prefix="restart-",
        more_suites=dict({c: ["sanitized"] for c in (
            "shm-kill", "twice", "popup-or-unsupported", "stack-stop")},
            x11=["x11"], **{"stack-stop-x11": ["x11"]}),
        timeouts={"twice": 180, "new-client-after-restart": 180},
        parallel=set(CASES) - {"terminal", "gtk", "x11",
                               "stack-stop-terminals", "stack-stop-x11"})))
