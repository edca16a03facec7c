# SPDX-License-Identifier: MIT
"""The display side the benchmarks run their clients against: one
weston (headless backend, pixman renderer, ivwl.so loaded with one
[ivwl-vm]), the VM's ivwl-server and ivwl-agent, waypipe's display side
when asked for, and the paths a client reaches weston by (frames.py's
docstring says what each is).
"""

import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from bench_proc import BenchError, log, read, reap_orphans, wait_for

# the VM colours weston-ivwl(7) gives (tests/ivwltest/palette.py)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tests"))
from ivwltest.palette import vm_color  # noqa: E402

# A VM's counters in weston's live view (plugin/live-view.c), summed from
# what each of its relays publishes in the region.
LIVE_APP_KEYS = ("app_buffer_commits", "app_damaged_bytes",
                 "app_copied_bytes", "app_zero_copy_commits")

PATHS = ("native", "ivwl-copy", "ivwl-zero-copy", "waypipe")
# Not run by default (see the top of frames.py).
EXTRA_PATHS = ("ivwl-copy-no-replay", "ivwl-in-process")
ALL_PATHS = PATHS + EXTRA_PATHS
MPV_PATHS = ("native", "ivwl-copy", "ivwl-zero-copy", "waypipe")
# mpv --vo=x11 (`ivwl-bench mpv --paths x11-native,x11-ivwl`): on
# weston's own Xwayland, and on ivwl-xwm's through the region.
X_PATHS = ("x11-native", "x11-ivwl")
# The processes that carry a path's frames: its transport.
TRANSPORT = {
    "native": (),
    "ivwl-copy": ("ivwl-relay", "ivwl-agent", "ivwl-server"),
    "ivwl-zero-copy": ("ivwl-relay", "ivwl-agent", "ivwl-server"),
    "ivwl-copy-no-replay": ("ivwl-relay", "ivwl-agent", "ivwl-server"),
    # the relay runs in the client's process: its CPU is the client's
    "ivwl-in-process": ("ivwl-agent", "ivwl-server"),
    "waypipe": ("waypipe",),
    "x11-native": (),
    "x11-ivwl": ("ivwl-relay", "ivwl-agent", "ivwl-server", "ivwl-xwm"),
}


# ---- the display side: ivwl-server, weston + ivwl.so, ivwl-agent --------

class Display:
    def __init__(self, build, width, height, keep_logs=False,
                 repaint_window=None, trace=False, xwayland=False,
                 vm_options=()):
        """vm_options: more lines of the VM's [ivwl-vm] section."""
        self.repaint_window = repaint_window
        self.vm_options = list(vm_options)
        self.xwayland = xwayland
        self.build = build
        self.dir = tempfile.mkdtemp(prefix="ivwl-bench-frames.")
        self.keep_logs = keep_logs
        self.procs = []
        self.gui_runtime = self._mkdir("gui")
        self.app_runtime = self._mkdir("app")
        self.wp_runtime = self._mkdir("waypipe")
        # IVWL_FRAME_TRACE of weston, the agent, relays and clients
        self.trace = self._mkdir("trace") if trace else None
        self.waypipe = None
        self.bin = {
            "server": f"{build}/host/ivwl-server",
            "agent": f"{build}/agent/ivwl-agent",
            "plugin": f"{build}/plugin/ivwl.so",
            "shim": f"{build}/shim/libivwl-shim.so",
            "client": f"{build}/bench/ivwl-frames-client",
        }
        if xwayland:
            self.bin["xwm"] = f"{build}/xwm/ivwl-xwm"
        for k, v in self.bin.items():
            if not os.path.exists(v):
                raise BenchError(f"{k} not built: {v}")
        try:
            self._start(width, height)
        except BaseException:
            self.close()
            raise

    def _mkdir(self, name):
        p = os.path.join(self.dir, name)
        os.mkdir(p, 0o700)
        return p

    def path(self, name):
        return os.path.join(self.dir, name)

    def spawn(self, argv, logname, env=None, **kw):
        out = open(self.path(logname), "wb")
        p = subprocess.Popen(argv, stdout=kw.pop("stdout", out),
                             stderr=out, env=env or dict(os.environ),
                             stdin=kw.pop("stdin", subprocess.DEVNULL),
                             **kw)
        self.procs.append(p)
        return p

    def _start(self, width, height):
        sock = self.path("vm.sock")
        self.server = self.start_server(sock, "256M", "server.log")
        wait_for("ivwl-server", lambda: os.path.exists(sock + ".display"))
        self.weston = self.start_weston(width, height,
                                        [("bench", sock + ".display")])
        wait_for("weston with ivwl.so attached",
                 lambda: "[bench] attached to" in
                 (read(self.path("weston.log")) or ""))
        agent_sock = self.path("agent.sock")
        self.agent = self.start_agent(sock, agent_sock, "agent.log")
        wait_for("ivwl-agent", lambda: os.path.exists(agent_sock))

    def start_server(self, sock, size, logname):
        """An ivwl-server for one region: the display side attaches to
        sock.display, the agent to sock."""
        return self.spawn([self.bin["server"], "--socket", sock,
                           "--size", size], logname)

    def start_weston(self, width, height, vms, **kw):
        """weston, headless and pixman, with ivwl.so and one [ivwl-vm]
        per (name, display socket) of vms, logging to weston.log; kw goes
        to Popen."""
        ini = ["[core]", f"modules={self.bin['plugin']}", "idle-time=0"]
        if self.repaint_window is not None:
            ini.append(f"repaint-window={self.repaint_window}")
        ini += ["",
               "[shell]", "panel-position=none", "animation=none",
               "close-animation=none", "startup-animation=none",
               "focus-animation=none", ""]
        self.vm_names = [name for name, _ in vms]
        for i, (name, server) in enumerate(vms):
            ini += ["[ivwl-vm]", f"name={name}", f"server={server}",
                    f"color={vm_color(i)}"] + self.vm_options + [""]
        with open(self.path("weston.ini"), "w") as f:
            f.write("\n".join(ini))
        env = self.traced(dict(os.environ, XDG_RUNTIME_DIR=self.gui_runtime))
        for k in ("WAYLAND_DISPLAY", "DISPLAY", "LD_PRELOAD"):
            env.pop(k, None)
        return self.spawn(
            ["weston", "--backend=headless-backend.so", "--use-pixman",
             f"--width={width}", f"--height={height}",
             "--socket=wl-bench", "--idle-time=0", "--debug",
             f"--config={self.path('weston.ini')}"] +
            (["--xwayland"] if self.xwayland else []), "weston.log", env,
            **kw)

    def native_x_display(self):
        """The display of weston's own Xwayland (started on demand)."""
        m = wait_for("weston's Xwayland", lambda: re.search(
            r"xserver listening on display (:\d+)",
            read(self.path("weston.log")) or ""))
        return m.group(1)

    def live_app(self, timeout=5.0):
        """What the relays of every VM counted so far (their buffer
        commits, damaged and copied bytes, zero-copy commits), summed
        over the VMs, as weston's live view shows a new subscriber at
        once: each VM's line covers every connection it had."""
        env = dict(os.environ, XDG_RUNTIME_DIR=self.gui_runtime,
                   WAYLAND_DISPLAY="wl-bench")
        env.pop("LD_PRELOAD", None)
        p = subprocess.Popen(["weston-debug", "ivwl"], env=env,
                             stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
        total, seen, buf = {}, 0, b""
        end = time.monotonic() + timeout
        try:
            while seen < len(self.vm_names):
                left = end - time.monotonic()
                if left <= 0 or not select.select([p.stdout], [], [],
                                                  left)[0]:
                    raise BenchError("weston's live view (weston-debug "
                                     "ivwl) showed no line for every VM")
                chunk = os.read(p.stdout.fileno(), 65536)
                if not chunk:
                    raise BenchError("weston-debug ivwl ended before it "
                                     "showed every VM")
                buf += chunk
                *lines, buf = buf.split(b"\n")
                for line in lines:
                    words = line.decode(errors="replace").split()
                    if not words or words[0] != "vm":
                        continue
                    seen += 1
                    for w in words[1:]:
                        k, _, v = w.partition("=")
                        if k in LIVE_APP_KEYS:
                            total[k] = total.get(k, 0) + int(v)
        finally:
            p.terminate()
            p.wait(5)
        return total

    def start_agent(self, sock, agent_sock, logname):
        """An ivwl-agent for the region of the server at sock, serving
        shims on agent_sock."""
        return self.spawn([self.bin["agent"], "--server", sock,
                           "--listen", agent_sock], logname,
                          self.traced(dict(os.environ)))

    def traced(self, env):
        """env with IVWL_FRAME_TRACE when stages are traced."""
        if self.trace:
            env["IVWL_FRAME_TRACE"] = self.trace
        return env

    def start_waypipe(self):
        """The display side of waypipe, listening for app-side servers."""
        if self.waypipe:
            return
        env = dict(os.environ, XDG_RUNTIME_DIR=self.gui_runtime,
                   WAYLAND_DISPLAY="wl-bench")
        env.pop("LD_PRELOAD", None)
        sock = self.path("waypipe.sock")
        self.waypipe = self.spawn(["waypipe", "--compress", "none",
                                   "--no-gpu", "-s", sock, "client"],
                                  "waypipe-client.log", env)
        wait_for("waypipe client", lambda: os.path.exists(sock))

    def env_for(self, path, extra=None):
        """(argv prefix, env) that runs a client by path."""
        env = dict(os.environ)
        for k in ("WAYLAND_DISPLAY", "DISPLAY", "LD_PRELOAD",
                  "WAYLAND_SOCKET", "IVWL_ZERO_COPY", "IVWL_STATS",
                  "IVWL_IN_PROCESS"):
            env.pop(k, None)
        prefix = []
        if path == "native":
            env.update(XDG_RUNTIME_DIR=self.gui_runtime,
                       WAYLAND_DISPLAY="wl-bench")
        elif path.startswith("ivwl"):
            # The app side's runtime dir holds no socket: only the
            # region can carry the window.
            env.update(XDG_RUNTIME_DIR=self.app_runtime,
                       WAYLAND_DISPLAY="wayland-0",
                       IVWL_AGENT=self.path("agent.sock"),
                       LD_PRELOAD=self.bin["shim"], IVWL_STATS="1",
                       IVWL_ZERO_COPY="on" if path in ("ivwl-zero-copy",
                                                       "ivwl-in-process")
                       else "off")
            if path == "ivwl-in-process":
                env["IVWL_IN_PROCESS"] = "on"
            if path == "ivwl-copy-no-replay":
                env["IVWL_RESTART_WAIT"] = "0"
        elif path == "x11-native":
            env.update(DISPLAY=self.native_x_display())
        elif path == "x11-ivwl":
            # Xwayland inherits the shim: its pixmaps go zero-copy
            env.update(XDG_RUNTIME_DIR=self.app_runtime,
                       WAYLAND_DISPLAY="wayland-0",
                       IVWL_AGENT=self.path("agent.sock"),
                       LD_PRELOAD=self.bin["shim"], IVWL_STATS="1")
            prefix = [self.bin["xwm"], "--"]
        elif path == "waypipe":
            self.start_waypipe()
            env.update(XDG_RUNTIME_DIR=self.wp_runtime)
            prefix = ["waypipe", "--compress", "none", "--no-gpu", "-s",
                      self.path("waypipe.sock"), "--display",
                      "wayland-wp", "server", "--"]
        else:
            raise BenchError(f"unknown path {path}")
        env.update(extra or {})
        return prefix, self.traced(env)

    def roles(self):
        r = {self.weston.pid: "weston", self.server.pid: "ivwl-server",
             self.agent.pid: "ivwl-agent"}
        return r

    def start_measured(self, path, argv, env, logname):
        """Starts a measured client through path: the process, its stdout
        lines, the roles of the processes to account (waypipe's display
        side among them) and a liveness test."""
        p = self.spawn(argv, logname, env, stdout=subprocess.PIPE,
                       stdin=subprocess.PIPE)
        roles = self.roles()
        if path == "waypipe" and self.waypipe:
            roles[self.waypipe.pid] = "waypipe"
        return p, Lines(p.stdout), roles, lambda: p.poll() is None

    def close(self):
        for p in reversed(self.procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in reversed(self.procs):
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        reap_orphans(set())
        if not self.keep_logs:
            shutil.rmtree(self.dir, ignore_errors=True)
        else:
            log(f"logs kept in {self.dir}")


# ---- a client's lines -------------------------------------------------

class Lines:
    """Reads lines from a pipe without blocking forever."""

    def __init__(self, f):
        self.f = f
        self.buf = b""

    def next(self, timeout, alive):
        end = time.monotonic() + timeout
        while True:
            if b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                return line.decode(errors="replace")
            left = end - time.monotonic()
            if left <= 0:
                return None
            r, _, _ = select.select([self.f], [], [], min(left, 0.5))
            if r:
                chunk = os.read(self.f.fileno(), 65536)
                if not chunk:
                    if not alive():
                        return None
                    time.sleep(0.05)
                self.buf += chunk
            elif not alive():
                return None


# ---- the paths --------------------------------------------------------

def available_paths(wanted):
    out = []
    for p in wanted:
        if p not in ALL_PATHS + X_PATHS:
            raise SystemExit(f"unknown path {p!r}; paths: "
                             f"{', '.join(ALL_PATHS + X_PATHS)}")
        if p in X_PATHS and not shutil.which("Xwayland"):
            log("Xwayland is not installed (tools/deps.sh): skipping "
                f"{p}")
            continue
        if p == "waypipe" and not shutil.which("waypipe"):
            log("waypipe is not installed (tools/deps.sh): skipping it")
            continue
        out.append(p)
    return out
