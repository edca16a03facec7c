# SPDX-License-Identifier: MIT
"""A weston with ivwl.so and its app-vms, every piece a host process.

Deployment C from docs/architecture.md: one ivwl-server and one ivwl-agent
per VM, weston (headless, pixman) with the plugin attached to each server,
and clients started through the shim with a runtime dir that holds no
Wayland socket, so nothing but the region can carry their windows.
"""

import array
import os
import random
import re
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib

from ivwltest.palette import vm_color
from ivwltest.seat import Seat, SeatError

ENV = os.environ


def sanitized(env, preload=None):
    """env for a program that loads our sanitized code into a plain
    binary (weston with ivwl.so, a client with the shim): with
    IVWL_ASAN_RUNTIME set, ASan's runtime must be loaded first."""
    runtime = ENV.get("IVWL_ASAN_RUNTIME")
    libs = [runtime] if runtime else []
    if preload:
        libs.append(preload)
    if libs:
        env["LD_PRELOAD"] = ":".join(libs)
    if runtime:
        # weston and clients are not ours: their leaks are not our bugs.
        # A small quarantine: the hostile tests bound weston's memory
        # growth, and ASan's default keeps 256 MiB of freed memory.
        env["ASAN_OPTIONS"] = "detect_leaks=0:quarantine_size_mb=16"
    return env


def app_side(argv, env):
    """argv and env for a process of an app-VM's side (the agent, a
    client).  IVWL_APP_PREFIX, a command prefix, runs them in another
    system than the display's: the cross tests run trixie's app side
    under bookworm's weston and the reverse (tools/trixie-root.sh run,
    nsenter).  The prefix's own programs get no LD_PRELOAD: the shim of
    one system need not load in the other's libc; env(1) sets it for
    argv only."""
    prefix = shlex.split(ENV.get("IVWL_APP_PREFIX", ""))
    if not prefix:
        return argv, env
    env = dict(env)
    preload = env.pop("LD_PRELOAD", None)
    return prefix + (["env", f"LD_PRELOAD={preload}"] if preload
                     else []) + list(argv), env


class Failure(Exception):
    pass


def start_ivwl_server(spawn, sock, log, vectors=None, extra=()):
    """ivwl-server for a 64 MiB region on sock, once it listens."""
    argv = [ENV["IVWL_SERVER_BIN"], "--socket", sock, "--size", "64M"]
    if vectors:
        argv += ["--vectors", str(vectors)]
    p = spawn(argv + list(extra), log)
    wait_for(f"ivwl-server on {sock}",
             lambda: os.path.exists(sock + ".display"))
    return p


class StdoutLines:
    """Every line a client prints on stdout, read as they come."""

    def __init__(self, proc):
        self.proc = proc
        self.lines = []
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        for raw in self.proc.stdout:
            self.lines.append(raw.decode(errors="replace").rstrip("\n"))

    def wait(self, line, timeout=20):
        wait_for(f"the client to say {line!r}",
                 lambda: line in self.lines or self.proc.poll() is not None,
                 timeout=timeout)
        if line not in self.lines:
            raise Failure(f"the client exited ({self.proc.returncode}) "
                          f"before saying {line!r}: {self.lines[-5:]}")

    def starting(self, prefix):
        return [ln for ln in self.lines if ln.startswith(prefix)]


def nameplate(*args):
    """Runs ivwl-nameplate with args (its stdout): what the plugin draws
    on a title bar, drawn by the same code.  Under ASan its fontconfig
    cache, kept for the life of the process, is no leak of ours."""
    env = dict(ENV)
    env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
    return subprocess.run([ENV["IVWL_NAMEPLATE"]] + [str(a) for a in args],
                          check=True, capture_output=True, timeout=20,
                          env=env).stdout


# plugin/label.c's frame width and attention bar height
FRAME_BORDER = 4
ATTENTION_HEIGHT = 8
BUTTONS = 2     # label.c's: close and maximize, at the bar's right end


def boxes_meet(a, b):
    """Whether boxes (x0, y0, x1, y1) a and b overlap."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def beside_indicator(width, x):
    """Whether column x of an output width wide lies beside the keyboard
    indicator (plugin/indicator.c), which names the VM with the keyboard
    on its colour at the top middle, over the panel: the middle 320
    columns hold it for the tests' short VM names."""
    return abs(x - width // 2) >= 160


def pixel(shot, x, y):
    """(r, g, b) at x, y of a screenshot(), None off it."""
    w, h, bpp, rows = shot
    if not (0 <= x < w and 0 <= y < h):
        return None
    return tuple(rows[y][x * bpp:x * bpp + 3])


def wait_for(what, cond, timeout=15.0, step=0.05):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = cond()
        if got:
            return got
        time.sleep(step)
    raise Failure(f"timed out waiting for {what}")


class Session:
    """backend "headless" has no seat; "seat" is headless with the seat
    the tests drive (tests/seat: ivwl-test-seat.so), so input and the
    clipboard work; "x11" runs weston's x11 backend in an Xvfb of its
    own, its seat driven the same way (self.seat) or, for the cases
    that test X's own input path, with xdotool (x_pointer_sync() first).
    A seated session's pointer starts at a random spot of the output
    ($IVWL_TEST_SEED repeats one): no case may depend on where."""

    def __init__(self, vms=("work",), width=800, height=600,
                 backend="headless", vm_options=None, ivwl_options=(),
                 server_args=None, core_options=(), panel="none",
                 renderer="pixman", animations=False):
        """vm_options: {vm: ["key=value", ...]} for its [ivwl-vm]
        section; ivwl_options: lines of the [ivwl] section; server_args:
        {vm: [arg, ...]} for its ivwl-server; core_options: more lines of
        [core]; panel: the shell's panel-position (none: windows may sit
        anywhere); renderer: weston's, "pixman" or "gl" (llvmpipe where
        there is no GPU); animations: the shell's fades, as a user has
        them (by default none: pixels are compared exactly)."""
        self.dir = tempfile.mkdtemp(prefix="ivwl-it.")
        self.procs = []
        self.clients = []
        self.vms = list(vms)
        self.width, self.height = width, height
        self.gui_runtime = self._mkdir("gui")
        self.weston = None
        self.weston_starts = 0      # how many westons this session ran
        self.weston_started = None  # time.monotonic() of the current one
        self.backend = backend
        self.vm_options = vm_options or {}
        self.ivwl_options = list(ivwl_options)
        self.core_options = list(core_options)
        self.panel = panel
        self.renderer = renderer
        self.animations = animations
        self.server_args = server_args or {}
        self.servers = {}
        self.agents = {}
        self.x_display = None
        self.seat = Seat(self.path("seat.sock")) \
            if backend in ("seat", "x11") else None
        seed = ENV.get("IVWL_TEST_SEED") or str(random.randrange(1 << 30))
        self.random = random.Random(int(seed))
        self.seed = seed
        try:
            if backend == "x11":
                self._start_xvfb()
            for vm in self.vms:
                self._start_server(vm)
            self._start_weston()
            for vm in self.vms:
                self._start_agent(vm)
        except BaseException:
            self.close()
            raise

    # ---- set-up -------------------------------------------------------

    def _mkdir(self, name):
        path = os.path.join(self.dir, name)
        os.mkdir(path, 0o700)
        return path

    def path(self, name):
        return os.path.join(self.dir, name)

    def _spawn(self, argv, log, env=None):
        out = open(self.path(log), "wb")
        p = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT,
                             env=env or dict(ENV), stdin=subprocess.DEVNULL)
        self.procs.append(p)
        return p

    def _start_xvfb(self):
        r, w = os.pipe()
        p = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0",
                              f"{self.width}x{self.height}x24", "-nolisten",
                              "tcp"], pass_fds=(w,),
                             stdout=open(self.path("xvfb.log"), "wb"),
                             stderr=subprocess.STDOUT)
        self.procs.append(p)
        os.close(w)
        with os.fdopen(r) as f:
            number = f.readline().strip()
        if not number:
            raise Failure("Xvfb did not start")
        self.x_display = ":" + number

    def xdotool(self, *args):
        """X's own input (x11 backend): weston's x11 backend moves its
        pointer by the difference between X's motion events, so
        x_pointer_sync() must bring the two pointers together first."""
        env = dict(ENV, DISPLAY=self.x_display)
        env.pop("LD_PRELOAD", None)
        subprocess.run(["xdotool"] + list(args), env=env, check=True,
                       capture_output=True, timeout=30)

    def x_pointer_sync(self):
        """Brings X's pointer and weston's together at the output's
        corner (0,0): from there X's moves land where asked, as long as
        no move pushes against an edge (weston clamps, X may not)."""
        self.xdotool("mousemove", str(self.width - 1),
                     str(self.height - 1))
        time.sleep(0.1)
        self.xdotool("mousemove", "0", "0")
        time.sleep(0.1)
        where = self.seat.where()
        # weston 14's x11 backend rounds X's moves: a pixel off at most
        if max(map(abs, where)) > 1:
            raise Failure(f"weston's pointer is at {where} after X's "
                          "went to 0,0")

    def _pointer_anywhere(self):
        """Puts the pointer of a new weston at a random spot."""
        if not self.seat:
            return
        self.seat.reset()
        x = self.random.randrange(self.width)
        y = self.random.randrange(self.height)
        self.seat.move(x, y)
        print(f"the pointer starts at {x},{y} (IVWL_TEST_SEED={self.seed})")

    def spot_in(self, view):
        """A point of view that no other window covers (their frames and
        title bars included: a click there is theirs), its middle if it
        can be.  Windows above that cover it all are moved aside first,
        the topmost first, as a user would: a VM's window that did not
        get the keyboard maps below the one that has it."""
        x0, y0, x1, y1 = view["rect"]
        # its middle first (small windows have nothing else), then a grid
        spots = [((x0 + x1) // 2, (y0 + y1) // 2)] + [
            (x, y) for y in range(y0 + 8, y1 - 8, 8)
            for x in range(x0 + 8, x1 - 8, 8)]
        for _ in range(4):
            seen = self.in_sight(view, spots)
            if seen:
                return seen[0]
            over = [v for v in self.scene_above(view)
                    if boxes_meet(self.frame_box(v), view["rect"])]
            if not over:
                break
            self.move_aside(over[0])
        raise Failure(f"{view['title']!r} is covered: nowhere to click")

    def click_window(self, view, button=1, hold=0.03):
        """Clicks view where no other window covers it: the user gives
        its VM the keyboard (docs/security.md, "Trusted path")."""
        self.seat.move(*self.spot_in(view))
        time.sleep(0.1)
        self.seat.click(button, hold=hold)
        time.sleep(0.2)

    def scene_above(self, view):
        """The windows (titled views) stacked above view."""
        above = []
        for v in self.scene():
            if v["title"] == view["title"]:
                return above
            if v["title"] and v["rect"]:
                above.append(v)
        raise Failure(f"{view['title']!r} left the scene")

    def in_sight(self, view, points):
        """Those of points (x, y) on the output that no window stacked
        above view hides (with its frame and bars)."""
        boxes = [self.frame_box(a) for a in self.scene_above(view)]
        return [(x, y) for x, y in points
                if 0 <= x < self.width and 0 <= y < self.height and
                not any(a <= x < c and b <= y < d
                        for a, b, c, d in boxes)]

    def move_aside(self, view):
        """Drags view by its title bar down to the output's bottom edge,
        as a user moves a window out of the way (the keyboard stays
        where it is: a press on a window of the VM that has it)."""
        x0, y0, x1, _ = view["rect"]
        grip = (min(max(x0 + 10, 2), x1 - 2),
                y0 - FRAME_BORDER - self.bar_height() // 2)
        self.seat.drag(grip, (grip[0], self.height - 2))
        time.sleep(0.3)

    def type_into(self, view, text):
        """Clicks into view and types text, then Return."""
        self.click_window(view)
        time.sleep(0.1)
        self.seat.type(text)
        self.seat.key("Return")

    def local(self, argv, **kw):
        """Runs argv as a client of weston's own socket (not through ivwl)."""
        env = self._debug_env()
        return subprocess.run(argv, env=env, **kw)

    # ivwl-server's --vectors; None: its default
    server_vectors = None

    def _start_server(self, vm):
        self.servers[vm] = start_ivwl_server(
            self._spawn, self.path(f"{vm}.sock"), f"server-{vm}.log",
            self.server_vectors, self.server_args.get(vm, ()))

    def server_alive(self, vm):
        return self.servers[vm].poll() is None

    def _write_weston_ini(self):
        modules = ENV["IVWL_PLUGIN"]
        if self.seat:
            modules += "," + ENV["IVWL_TEST_SEAT"]
        ini = ["[core]", f"modules={modules}", "idle-time=0"]
        # no fades or dimming: pixels are compared exactly
        quiet = [] if self.animations else [
            "animation=none", "close-animation=none",
            "startup-animation=none", "focus-animation=none"]
        ini += self.core_options + [
            "", "[shell]", f"panel-position={self.panel}"] + quiet + [
            "", "[ivwl]"] + self.ivwl_options
        ini.append("")
        if self.seat:
            ini += ["[ivwl-test-seat]", f"socket={self.seat.path}", ""]
        for i, vm in enumerate(self.vms):
            ini += ["[ivwl-vm]", f"name={vm}",
                    f"server={self.path(vm + '.sock')}.display",
                    f"color={vm_color(i)}"]
            ini += self.vm_options.get(vm, []) + [""]
        with open(self.path("weston.ini"), "w") as f:
            f.write("\n".join(ini))

    def _weston_log_name(self):
        n = self.weston_starts
        return "weston.log" if n <= 1 else f"weston-{n}.log"

    def _start_weston(self):
        if not self.weston_starts:
            self._write_weston_ini()
        self.weston_starts += 1
        env = sanitized(dict(ENV, XDG_RUNTIME_DIR=self.gui_runtime))
        env.pop("WAYLAND_DISPLAY", None)
        env.pop("DISPLAY", None)
        backend = "--backend=headless-backend.so"
        if self.backend == "x11":
            env["DISPLAY"] = self.x_display
            backend = "--backend=x11-backend.so"
        self.weston_started = time.monotonic()
        # IVWL_WESTON_PREFIX: a command weston runs under, to debug it
        # ("gdb -batch -ex run -ex bt --args"); its output goes to the log
        prefix = shlex.split(ENV.get("IVWL_WESTON_PREFIX", ""))
        self.weston = self._spawn(
            prefix + ["weston", backend, f"--use-{self.renderer}",
             f"--width={self.width}", f"--height={self.height}",
             "--socket=wl-ivwl", "--idle-time=0", "--debug",
             f"--config={self.path('weston.ini')}"],
            self._weston_log_name(), env)
        for vm in self.vms:
            wait_for(f"plugin attached to {vm}",
                     lambda: self._weston_up() and
                     f"[{vm}] attached to" in self.weston_log())
        self._pointer_anywhere()

    def _weston_up(self):
        """True while weston runs: one that cannot start (its socket
        taken, say) fails at once, its log says why."""
        if self.weston.poll() is not None:
            raise Failure(f"weston exited ({self.weston.returncode}) "
                          f"while starting; see {self._weston_log_name()}")
        return True

    def restart_weston(self, kill=False, timeout=10.0):
        """Ends weston and starts another with the same weston.ini and
        socket; ivwl-servers, agents, Xvfb and clients stay.  kill: SIGKILL
        (a crash: weston leaves its socket and lock file behind, which the
        new one takes over as their lock is free, and marks no side block
        GONE), else SIGTERM (a clean shutdown).  Returns the
        old weston's exit status; its log stays (weston.log, then
        weston-2.log, ...), and weston_log(), scene(), wait_view() and
        screenshot() look at the new one once it attached to every VM."""
        if self.weston.poll() is not None:
            raise Failure(f"weston exited ({self.weston.returncode}) "
                          "before its restart")
        if kill:
            self.weston.send_signal(signal.SIGKILL)
            try:
                status = self.weston.wait(timeout)
            except subprocess.TimeoutExpired:
                raise Failure("weston did not die of SIGKILL")
        else:
            status = self.stop_weston(timeout)
        self._start_weston()
        return status

    def _start_agent(self, vm):
        sock = self.path(f"{vm}-agent.sock")
        argv, env = app_side([ENV["IVWL_AGENT_BIN"], "--server",
                              self.path(f"{vm}.sock"), "--listen", sock,
                              "--verbose"], dict(ENV))
        self.agents[vm] = self._spawn(argv, f"agent-{vm}.log", env)
        wait_for(f"agent of {vm}", lambda: os.path.exists(sock))
        self._mkdir(f"app-{vm}")

    # ---- clients ------------------------------------------------------

    def client(self, argv, vm="work", log=None, extra_env=None):
        """Starts argv as an app of vm: through the shim, no socket."""
        env = dict(ENV, XDG_RUNTIME_DIR=self.path(f"app-{vm}"),
                   WAYLAND_DISPLAY="wayland-0",
                   IVWL_AGENT=self.path(f"{vm}-agent.sock"))
        sanitized(env, ENV["IVWL_SHIM"])
        env.pop("DISPLAY", None)
        env.update(extra_env or {})
        log = log or f"client-{len(self.clients)}.log"
        argv, env = app_side(argv, env)
        out = open(self.path(log), "wb")
        p = subprocess.Popen(argv, stdout=subprocess.PIPE,
                             stderr=out, env=env, stdin=subprocess.DEVNULL)
        self.clients.append(p)
        return p

    def local_client(self, argv, log):
        """Starts argv as a client of weston's own socket, a window of
        the gui-VM's desktop (no VM's, no shim)."""
        out = open(self.path(log), "wb")
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=out,
                             env=self._debug_env(),
                             stdin=subprocess.DEVNULL)
        self.clients.append(p)
        return p

    def typist(self, vm, title, extra=()):
        """ivwl-trust-client --mode typist as an app of vm, once mapped:
        (its StdoutLines: "enter", "leave", "key K"; its view)."""
        p = self.client([ENV["IVWL_TRUST_CLIENT"], "--mode", "typist",
                         "--title", title] + list(extra), vm=vm,
                        log=f"typist-{len(self.clients)}.log")
        lines = StdoutLines(p)
        lines.wait("mapped")
        return lines, self.wait_view(f"[{vm}] {title}")

    def wait_line(self, proc, text, timeout=20.0):
        """Reads proc's stdout until a line equal to text."""
        os.set_blocking(proc.stdout.fileno(), False)
        buf = b""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            chunk = proc.stdout.read()
            if chunk:
                buf += chunk
                if text.encode() in buf.splitlines():
                    return
            elif proc.poll() is not None:
                raise Failure(f"client exited ({proc.returncode}) before "
                              f"saying {text!r}")
            time.sleep(0.05)
        raise Failure(f"client never said {text!r}")

    # ---- looking at weston --------------------------------------------

    def weston_log(self):
        """The current weston's log (restart_weston() starts another)."""
        with open(self.path(self._weston_log_name()),
                  errors="replace") as f:
            return f.read()

    def _debug_env(self):
        env = dict(ENV, XDG_RUNTIME_DIR=self.gui_runtime,
                   WAYLAND_DISPLAY="wl-ivwl")
        env.pop("LD_PRELOAD", None)
        return env

    def bar_height(self):
        """The height of the title bars weston draws, as it said at
        start (it depends on the font)."""
        m = re.search(r"ivwl: title bars (\d+) px high", self.weston_log())
        if not m:
            raise Failure("weston did not say how high its title bars are")
        return int(m.group(1))

    def vm_rgb(self, vm):
        """The (r, g, b) of vm's colour, as weston.ini has it."""
        c = int(vm_color(self.vms.index(vm)), 16)
        return ((c >> 16) & 0xff, (c >> 8) & 0xff, c & 0xff)

    def expected_plate(self, vm, title, width):
        """The nameplate weston should draw on a bar width wide, drawn
        by ivwl-nameplate with the plugin's own code: a decoded PNG."""
        out = self.path(f"plate-{vm}.png")
        nameplate("--name", vm, "--title", title, "--color",
                  vm_color(self.vms.index(vm)), "--width", width, "--out",
                  out)
        return decode_png(out)

    def check_plate(self, shot, view, vm, title):
        """view's title bar shows, pixel for pixel, the plate
        ivwl-nameplate draws, then vm's colour to its end; the bar lies
        above the window's top strip, or inside it where the panel or the
        screen's edge leaves no room.  Returns the pixels compared."""
        x0, y0, x1, y1 = view["rect"]
        bar = self.bar_height()
        fx0, _, fx1, _ = self.frame_box(view)
        want = self.expected_plate(vm, title, fx1 - fx0 - BUTTONS * bar)
        if want[1] != bar:
            raise Failure(f"ivwl-nameplate drew {want[1]} rows, weston's "
                          f"bars are {bar}")
        px = x0 - FRAME_BORDER
        py = y0 - FRAME_BORDER - bar
        if py < (32 if self.panel == "top" else 0):
            py = y0 + FRAME_BORDER
        compared = wrong = 0
        for y in range(want[1]):
            for x in range(want[0]):
                got = pixel(shot, px + x, py + y)
                if got is None:
                    continue
                compared += 1
                wrong += got != pixel(want, x, y)
        if compared < want[0] * want[1] // 2:
            raise Failure(f"{view['title']!r}: its bar is mostly off "
                          "screen")
        if wrong:
            raise Failure(f"{view['title']!r}: {wrong} of {compared} "
                          "pixels of its bar differ from ivwl-nameplate's "
                          f"({self.renderer})")
        rest = [pixel(shot, x, py + bar // 2)
                for x in range(px + want[0], fx1 - BUTTONS * bar)]
        if any(p != self.vm_rgb(vm) for p in rest if p is not None):
            raise Failure(f"{view['title']!r}: its bar past the plate is "
                          f"not all {self.vm_rgb(vm)}")
        # and at its end, the maximize and close buttons
        for i, button in enumerate(("close", "maximize")):
            out = self.path(f"{button}-{vm}.png")
            nameplate(f"--{button}", bar, "--name", vm, "--color",
                      vm_color(self.vms.index(vm)), "--out", out)
            want = decode_png(out)
            bx = fx1 - (i + 1) * bar
            wrong = sum(pixel(shot, bx + x, py + y) != pixel(want, x, y)
                        for y in range(bar) for x in range(bar)
                        if pixel(shot, bx + x, py + y) is not None)
            if wrong:
                raise Failure(f"{view['title']!r}: {wrong} pixels of its "
                              f"{button} button differ from "
                              "ivwl-nameplate's")
        return compared

    def frame_box(self, view):
        """What weston draws of a VM's window when all its sides show
        outside it: the window, its frame, title bar and attention bar;
        as wide as its VM's name and the bar's buttons at least."""
        x0, y0, x1, y1 = view["rect"]
        top = FRAME_BORDER + self.bar_height() + ATTENTION_HEIGHT
        vm = re.match(r"\[([^]]+)\]", view["title"] or "")
        if vm and vm.group(1) in self.vms:
            x1 = max(x1 + FRAME_BORDER,
                     x0 - FRAME_BORDER + self.plate_min(vm.group(1)) +
                     BUTTONS * self.bar_height())
        else:
            x1 += FRAME_BORDER
        return (x0 - FRAME_BORDER, y0 - top, x1, y1 + FRAME_BORDER)

    def plate_min(self, vm):
        """The width of vm's nameplate without a title: a frame is at
        least that wide."""
        out = nameplate("--name", vm, "--color",
                        vm_color(self.vms.index(vm)), "--width", 4096,
                        "--out", self.path("plate-min.png"))
        return int(out.split()[1])

    def scene(self):
        """Views of weston's scene graph: role, title, geometry, buffer."""
        out = subprocess.run(["weston-debug", "scene-graph"],
                             env=self._debug_env(), capture_output=True,
                             timeout=10).stdout
        return parse_scene(out)

    def wait_view(self, title, timeout=20.0):
        def find():
            for v in self.scene():
                # idle windows show "[buffer not available]": pixman
                # keeps their pixels without holding the buffer
                if v["title"] == title and v["rect"]:
                    return v
            return None
        try:
            return wait_for(f"a view titled {title!r}", find, timeout, 0.2)
        except Failure as e:
            # what was there instead tells a slow client from a lost one
            try:
                seen = [(v["title"], v["rect"]) for v in self.scene()]
            except Exception as why:
                seen = f"(no scene graph: {why})"
            raise Failure(f"{e}; weston shows {seen}") from None

    def screenshot(self):
        """(width, height, rows of (r, g, b)) of weston's output."""
        shots = self.path("shots")
        os.makedirs(shots, exist_ok=True)
        before = set(os.listdir(shots))
        subprocess.run(["weston-screenshooter"], env=self._debug_env(),
                       cwd=shots, capture_output=True, timeout=20,
                       check=True)
        new = sorted(set(os.listdir(shots)) - before)
        if not new:
            raise Failure("weston-screenshooter wrote no file")
        return decode_png(os.path.join(shots, new[-1]))

    def keep_screenshot(self, name):
        """Copies the last screenshot to $IVWL_KEEP_SHOTS/name.png, if
        set (the pictures in docs/ come from there)."""
        where = os.environ.get("IVWL_KEEP_SHOTS")
        if not where:
            return
        shots = self.path("shots")
        os.makedirs(where, exist_ok=True)
        shutil.copy(os.path.join(shots, sorted(os.listdir(shots))[-1]),
                    os.path.join(where, name + ".png"))

    def chromium(self, page, vm="work"):
        """chromium of vm showing the local file page, on Wayland, as
        quiet as it goes on a machine without a network."""
        return self.client(
            ["chromium", "--ozone-platform=wayland", "--disable-gpu",
             "--no-sandbox", "--no-first-run",
             "--disable-background-networking",
             "--disable-component-update", "--disable-sync",
             "--disable-features=Translate", "--password-store=basic",
             f"--user-data-dir={self.path('chromium-profile')}",
             f"file://{page}"], vm=vm, log="chromium.log")

    # ---- tear-down ----------------------------------------------------

    def stop_weston(self, timeout=10.0):
        self.weston.send_signal(signal.SIGTERM)
        try:
            return self.weston.wait(timeout)
        except subprocess.TimeoutExpired:
            raise Failure("weston did not exit on SIGTERM")

    def close(self):
        for p in self.clients + list(reversed(self.procs)):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in self.clients + self.procs:
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            if p.stdout:
                p.stdout.close()

    def replay_env(self):
        """The environment that replays this run's random choices."""
        return f"IVWL_TEST_SEED={self.seed}"

    def dump_logs(self, failure=None):
        """Prints the end of every log; then failure again, if any, with
        what replays the run: CI keeps only the end of the output."""
        for name in sorted(os.listdir(self.dir)):
            if name.endswith(".log"):
                with open(self.path(name), errors="replace") as f:
                    text = f.read()
                print(f"---- {name} ----\n{text[-4000:]}")
        if failure is not None:
            print(f"FAIL (again, after the logs): {failure} "
                  f"[replay: {self.replay_env()}]")


def wayland_debug_re(interface, message):
    """A regular expression for a WAYLAND_DEBUG line of that message:
    libwayland 1.21's "[t] wl_pointer@12.button(", 1.23's
    "[t] {Default Queue} wl_pointer#12.button(" and 1.24's, whose time
    is the wall clock's "[20:37:37.457860]", alike."""
    return (rf"^\[[\d.: ]+\] +(?:\{{[^}}]*\}} +)?(?:-> +)?{interface}"
            rf"[@#]\d+\.{message}\(")


def parse_scene(out):
    """The views in what weston-debug scene-graph printed (bytes)."""
    views = []
    text = out.decode(errors="replace")
    for block in re.split(r"\n\s*View [\w-]+ \(", text)[1:]:
        head = block.split("\n", 1)[0]
        m = re.search(r"top-level window '([^']*)'", head)
        pos = re.search(r"position: \((-?\d+), (-?\d+)\) -> "
                        r"\((-?\d+), (-?\d+)\)", block)
        views.append({
            "head": head,
            "title": m.group(1) if m else None,
            "rect": tuple(map(int, pos.groups())) if pos else None,
            "shm": "SHM buffer" in block,
        })
    return views


def _on_sigterm(signum, frame):
    # meson's timeout: unwind so the session stops what it started
    raise Failure("killed by SIGTERM (timeout?)")


class Listing:
    """How meson registers a script's cases: `SCRIPT --list` prints one
    line a case, "TEST CASE SUITES TIMEOUT parallel|serial", which the
    meson.build beside the script reads, so that a case is named once,
    in the script.  TEST is prefix + CASE; every case is in suites, and
    in more_suites[CASE] too; timeouts[CASE] overrides timeout; the
    cases in parallel may run beside others; those in skip are
    registered by hand in meson (an environment of their own)."""

    def __init__(self, prefix="", suites=("integration",), timeout=120,
                 more_suites=None, timeouts=None, parallel=(), skip=()):
        self.prefix = prefix
        self.suites = tuple(suites)
        self.timeout = timeout
        self.more_suites = more_suites or {}
        self.timeouts = timeouts or {}
        self.parallel = set(parallel)
        self.skip = set(skip)

    def print(self, names):
        for name in names:
            if name in self.skip:
                continue
            suites = self.suites + tuple(self.more_suites.get(name, ()))
            print(self.prefix + name, name, ",".join(suites),
                  self.timeouts.get(name, self.timeout),
                  "parallel" if name in self.parallel else "serial")


def case_main(names, start, listing=None):
    """main() of a script of cases: argv names one of names; start(name)
    gives (its Session, its function, whether weston may stop).
    --list prints the cases for meson (listing, a Listing)."""
    if sys.argv[1:] == ["--list"]:
        (listing or Listing()).print(names)
        return 0
    signal.signal(signal.SIGTERM, _on_sigterm)
    if len(sys.argv) != 2 or sys.argv[1] not in names:
        print(f"usage: {sys.argv[0]} ({'|'.join(names)})")
        return 2
    s, run, weston_may_stop = start(sys.argv[1])
    return run_case(sys.argv[1], s, run, weston_may_stop)


def run_case(name, s, run, weston_may_stop=False):
    """Runs case run on session s, says PASS or FAIL (with the logs) and
    closes s; the exit status."""
    try:
        run(s)
        if not weston_may_stop and s.weston.poll() is not None:
            raise Failure("weston is gone")
        print(f"PASS {name}")
        return 0
    except (Failure, SeatError) as e:
        print(f"FAIL {name}: {e}")
        s.dump_logs(e)
        return 1
    finally:
        s.close()


class FakeServer:
    """An ivshmem-server socket that misbehaves in one way (mode): "hung"
    accepts and never answers, "version" speaks another protocol version,
    "size" hands over a region of 1 MiB + 4 KiB (no ivwl region has that
    size, and ivwl-server refuses to make it)."""

    def __init__(self, path, mode):
        self.path = path
        self.mode = mode
        self.conns = []
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path)
        self.sock.listen(16)
        threading.Thread(target=self._serve, daemon=True).start()

    def _send(self, conn, value, fd=None):
        data = struct.pack("<q", value)
        if fd is None:
            conn.sendall(data)
        else:
            conn.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                   array.array("i", [fd]))])

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(conn)     # held open: no EOF for "hung"
            try:
                if self.mode == "version":
                    self._send(conn, 9)
                elif self.mode == "size":
                    self._send(conn, 0)
                    self._send(conn, 1)
                    fd = os.memfd_create("ivwl-bad-region")
                    os.ftruncate(fd, (1 << 20) + 4096)
                    self._send(conn, -1, fd)
                    os.close(fd)
            except OSError:
                pass

    def close(self):
        self.sock.close()
        for c in self.conns:
            c.close()


class LiveView:
    """weston-debug ivwl (the plugin's live view), its lines parsed as
    they come."""

    def __init__(self, session, name="live-view.txt"):
        self.path = session.path(name)
        self.proc = subprocess.Popen(
            ["weston-debug", "ivwl"], env=session._debug_env(),
            stdout=open(self.path, "wb"), stderr=subprocess.STDOUT)

    def lines(self):
        """[(kind, {key: value})] so far; values are str, as written."""
        out = []
        with open(self.path, errors="replace") as f:
            for line in f:
                if not line.endswith("\n"):
                    break       # still being written
                words = shlex.split(line)
                if not words or words[0] not in ("vm", "conn", "closed") \
                        or not all("=" in w for w in words[1:]):
                    raise Failure(f"not a live view line: {line!r}")
                out.append((words[0], dict(w.split("=", 1)
                                           for w in words[1:])))
        return out

    def of(self, kind, **match):
        return [f for k, f in self.lines() if k == kind and
                all(f.get(key) == v for key, v in match.items())]

    def close(self):
        self.proc.terminate()
        self.proc.wait(5)


def covering(session, view):
    """Rects of the views stacked above view (the scene lists top first)."""
    rects = []
    for v in session.scene():
        if v["title"] == view["title"]:
            return rects
        if v["rect"]:
            rects.append(v["rect"])
    raise Failure(f"{view['title']!r} left the scene")


def compare_window(session, view, dump_path, width, height):
    """Every visible pixel of the window equals the client's buffer."""
    above = covering(session, view)
    with open(dump_path, "rb") as f:
        drawn = f.read()
    if len(drawn) != width * height * 4:
        raise Failure("the client's dump has the wrong size")
    sw, sh, bpp, rows = session.screenshot()
    x0, y0 = view["rect"][:2]
    compared = wrong = 0
    first = None
    for y in range(height):
        sy = y0 + y
        if not 0 <= sy < sh:
            continue
        row = rows[sy]
        for x in range(width):
            sx = x0 + x
            if not 0 <= sx < sw or any(
                    a <= sx < c and b <= sy < d for a, b, c, d in above):
                continue
            i = (y * width + x) * 4
            want = (drawn[i + 2], drawn[i + 1], drawn[i])   # XRGB LE
            got = tuple(row[sx * bpp:sx * bpp + 3])
            compared += 1
            if got != want:
                wrong += 1
                first = first or (x, y, want, got)
    if compared < width * height // 4:
        raise Failure(f"only {compared} pixels of the window visible")
    if wrong:
        raise Failure(f"{wrong} of {compared} pixels differ; first at "
                      f"{first[:2]}: drew {first[2]}, weston shows "
                      f"{first[3]}")
    print(f"{compared} pixels equal what the client drew")


def check_border(session, view, colour):
    """The VM's colour, drawn by weston just outside the window."""
    sw, sh, bpp, rows = session.screenshot()
    x0, y0, x1, y1 = view["rect"]
    samples = [((x0 + x1) // 2, y0 - 2), ((x0 + x1) // 2, y1 + 1),
               (x0 - 2, (y0 + y1) // 2), (x1 + 1, (y0 + y1) // 2)]
    seen = [tuple(rows[y][x * bpp:x * bpp + 3]) for x, y in samples
            if 0 <= x < sw and 0 <= y < sh]
    if sum(px == colour for px in seen) < 2:
        raise Failure(f"{view['title']!r} has no {colour} border: {seen}")
    print(f"{view['title']!r} has its VM's border colour {colour}")


def decode_png(path):
    """Just enough PNG for weston-screenshooter's 8-bit RGB(A) files."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise Failure(f"{path} is not a PNG")
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(
                ">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise Failure(f"unexpected PNG kind in {path}")
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        unfilter(ftype, line, prev, bpp)
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def unfilter(ftype, line, prev, bpp):
    if ftype == 0:
        return
    for i in range(len(line)):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        if ftype == 1:
            line[i] = (line[i] + a) & 0xff
        elif ftype == 2:
            line[i] = (line[i] + b) & 0xff
        elif ftype == 3:
            line[i] = (line[i] + ((a + b) >> 1)) & 0xff
        elif ftype == 4:
            c = prev[i - bpp] if i >= bpp else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            line[i] = (line[i] + pred) & 0xff
        else:
            raise Failure(f"PNG filter {ftype}")
