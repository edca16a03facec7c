#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`ivwl-bench frames` and `ivwl-bench mpv`: one Wayland client through
weston by every path, CPU of every process, bytes copied, latency.

    frames.py frames --build DIR [--sizes WxH,..] [--damage full,band]
                     [--frames N] [--warmup N] [--paths P,..] [--json]
    frames.py mpv --build DIR [--seconds S] [--paths P,..] [--json]

One weston (headless backend, pixman renderer, ivwl.so loaded with one
[ivwl-vm]) serves every path:

  native          the client on weston's own socket
  ivwl-copy       through libivwl-shim.so, ivwl-relay, ivwl-agent and the
                  region, IVWL_ZERO_COPY=off
  ivwl-zero-copy  the same, IVWL_ZERO_COPY=on
  waypipe         `waypipe --compress none --no-gpu` server (app side) and
                  client (display side) over a unix socket

and, only when asked for with --paths:

  ivwl-copy-no-replay  ivwl-copy with IVWL_RESTART_WAIT=0: the relay keeps
                  no model to replay after a compositor restart, so the
                  two copy paths side by side show what the model costs

CPU is read from /proc: the sum over a process's threads of the time on
CPU in /proc/PID/task/TID/schedstat (ns), for every process that descends
from this driver (it makes itself a child subreaper, so the relay, which
detaches from the client, is one of them too), between the client's
"ready" line (after warm-up) and its "done" line (every measured frame
presented or discarded; the client stays connected until told).
"""

import argparse
import ctypes
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import stages

PATHS = ("native", "ivwl-copy", "ivwl-zero-copy", "waypipe")
# Not run by default (see the top of this file).
EXTRA_PATHS = ("ivwl-copy-no-replay",)
ALL_PATHS = PATHS + EXTRA_PATHS
MPV_PATHS = ("native", "ivwl-copy", "ivwl-zero-copy", "waypipe")
PR_SET_CHILD_SUBREAPER = 36


class BenchError(Exception):
    pass


def log(msg):
    print(f"ivwl-bench: {msg}", file=sys.stderr, flush=True)


def wait_for(what, cond, timeout=20.0, step=0.05):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = cond()
        if got:
            return got
        time.sleep(step)
    raise BenchError(f"timed out waiting for {what}")


# ---- /proc ------------------------------------------------------------

def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def proc_stat(pid):
    """(comm, ppid, state) or None."""
    s = read(f"/proc/{pid}/stat")
    if not s:
        return None
    comm = s[s.index("(") + 1:s.rindex(")")]
    rest = s[s.rindex(")") + 2:].split()
    return comm, int(rest[1]), rest[0]


def descendants(root):
    """pid -> comm of every live process under root (root excluded)."""
    children = {}
    info = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        st = proc_stat(int(name))
        if st:
            info[int(name)] = st
            children.setdefault(st[1], []).append(int(name))
    out, todo = {}, [root]
    while todo:
        for c in children.get(todo.pop(), []):
            if info[c][2] != "Z":
                out[c] = info[c][0]
            todo.append(c)
    return out


def cpu_ns(pid):
    """(ns on CPU, times scheduled in) summed over pid's threads, or
    None if it is gone.  Times scheduled in counts wake-ups and
    preemptions: what costs most in a guest, where every context switch
    goes through the hypervisor."""
    total, runs, seen = 0, 0, False
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    for tid in tids:
        s = read(f"/proc/{pid}/task/{tid}/schedstat")
        if s:
            f = s.split()
            total += int(f[0])
            runs += int(f[2])
            seen = True
    return (total, runs) if seen else None


def io_bytes(pid):
    """(rchar, wchar) of pid: bytes through read/write-like system calls."""
    s = read(f"/proc/{pid}/io")
    if not s:
        return 0, 0
    d = dict(line.split(": ") for line in s.strip().splitlines())
    return int(d.get("rchar", 0)), int(d.get("wchar", 0))


def snapshot(root):
    snap = {}
    for pid, comm in descendants(root).items():
        c = cpu_ns(pid)
        if c is not None:
            snap[pid] = (comm, c, io_bytes(pid))
    return snap


def reap_orphans(keep):
    """Reaps zombie children that are not Popen's (relays, waypipes)."""
    me = os.getpid()
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in keep:
            continue
        st = proc_stat(int(name))
        if st and st[1] == me and st[2] == "Z":
            try:
                os.waitpid(int(name), os.WNOHANG)
            except ChildProcessError:
                pass


# ---- the display side: ivwl-server, weston + ivwl.so, ivwl-agent --------

class Display:
    def __init__(self, build, width, height, keep_logs=False,
                 repaint_window=None, trace=False):
        self.repaint_window = repaint_window
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
            "agent": f"{build}/client-shim/ivwl-agent",
            "plugin": f"{build}/plugin/ivwl.so",
            "shim": f"{build}/client-shim/libivwl-shim.so",
            "client": f"{build}/bench/ivwl-frames-client",
        }
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
        for name, server in vms:
            ini += ["[ivwl-vm]", f"name={name}", f"server={server}",
                    "color=0xff3070c0", ""]
        with open(self.path("weston.ini"), "w") as f:
            f.write("\n".join(ini))
        env = self.traced(dict(os.environ, XDG_RUNTIME_DIR=self.gui_runtime))
        for k in ("WAYLAND_DISPLAY", "DISPLAY", "LD_PRELOAD"):
            env.pop(k, None)
        return self.spawn(
            ["weston", "--backend=headless-backend.so", "--use-pixman",
             f"--width={width}", f"--height={height}",
             "--socket=wl-bench", "--idle-time=0",
             f"--config={self.path('weston.ini')}"], "weston.log", env,
            **kw)

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
                  "WAYLAND_SOCKET", "IVWL_ZERO_COPY", "IVWL_STATS"):
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
                       IVWL_ZERO_COPY="on" if path == "ivwl-zero-copy"
                       else "off")
            if path == "ivwl-copy-no-replay":
                env["IVWL_RESTART_WAIT"] = "0"
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


# ---- one client run ---------------------------------------------------

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


def classify(pid, comm, roles, client_pid):
    if pid == client_pid:
        return "client"
    if pid in roles:
        return roles[pid]
    if comm.startswith("ivwl-relay"):
        return "ivwl-relay"
    if comm.startswith("waypipe"):
        return "waypipe"
    if comm.startswith("weston"):
        return "weston"   # its shell helpers (desktop-shell, keyboard)
    if comm.startswith("mpv") or comm.startswith("vo") or \
            comm.startswith("vd-"):
        return "client"
    return "other:" + comm


def usage_between(before, after, roles, client_pid):
    """role -> {cpu_ns, rchar, wchar, processes}."""
    out = {}
    for pid, (comm, (cpu, runs), (rc, wc)) in after.items():
        b = before.get(pid)
        if b and b[0] != comm and not comm.startswith("ivwl-relay"):
            b = None
        d = out.setdefault(classify(pid, comm, roles, client_pid),
                           {"cpu_ns": 0, "runs": 0, "rchar": 0, "wchar": 0,
                            "processes": 0})
        d["cpu_ns"] += cpu - (b[1][0] if b else 0)
        d["runs"] += runs - (b[1][1] if b else 0)
        d["rchar"] += rc - (b[2][0] if b else 0)
        d["wchar"] += wc - (b[2][1] if b else 0)
        d["processes"] += 1
    return out


def parse_kv(line):
    out = {}
    for m in re.finditer(r"(\w+)=(\S+)", line):
        v = m.group(2)
        try:
            v = int(v)
        except ValueError:
            try:
                v = float(v)
            except ValueError:
                pass
        out[m.group(1)] = v
    return out


def relay_stats(logpath, timeout=10.0):
    """The relay's IVWL_STATS line (written once the client has left)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        text = read(logpath) or ""
        for line in text.splitlines():
            if line.startswith("ivwl-stats:"):
                return parse_kv(line)
        time.sleep(0.05)
    return None


TRANSPORT = {
    "native": (),
    "ivwl-copy": ("ivwl-relay", "ivwl-agent", "ivwl-server"),
    "ivwl-zero-copy": ("ivwl-relay", "ivwl-agent", "ivwl-server"),
    "ivwl-copy-no-replay": ("ivwl-relay", "ivwl-agent", "ivwl-server"),
    "waypipe": ("waypipe",),
}


def run_frames(disp, path, w, h, damage, frames, warmup, index):
    prefix, env = disp.env_for(path)
    logname = f"client-{index}-{path}-{w}x{h}-{damage}.log"
    argv = prefix + [disp.bin["client"], "--width", str(w), "--height",
                     str(h), "--damage", damage, "--frames", str(frames),
                     "--warmup", str(warmup),
                     "--title", f"frames-{path}-{w}x{h}-{damage}"]
    p, lines, roles, alive = disp.start_measured(path, argv, env, logname)
    try:
        ready = None
        while ready is None:
            line = lines.next(60 + warmup, alive)
            if line is None:
                raise BenchError(f"{path} {w}x{h}: client never got ready; "
                                 f"see {disp.path(logname)}:\n" +
                                 (read(disp.path(logname)) or "")[-2000:])
            if line.startswith("ready "):
                ready = int(line.split()[1])
        before = snapshot(os.getpid())
        t0 = time.monotonic()
        line = None
        while line is None or not line.startswith("done "):
            line = lines.next(60 + frames, alive)
            if line is None:
                raise BenchError(f"{path} {w}x{h}: client never finished; "
                                 f"see {disp.path(logname)}:\n" +
                                 (read(disp.path(logname)) or "")[-2000:])
        after = snapshot(os.getpid())
        wall = time.monotonic() - t0
        done = parse_kv(line)
        p.stdin.write(b"bye\n")
        p.stdin.close()
        p.wait(30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        p.stdout.close()
    stats = None
    if path.startswith("ivwl"):
        stats = relay_stats(disp.path(logname))
        if stats is None:
            raise BenchError(f"{path}: no IVWL_STATS line from the relay")
    reap_orphans({q.pid for q in disp.procs})

    usage = usage_between(before, after, roles, ready)
    presented = done.get("presented", 0)
    per = max(presented, 1)
    cpu = {k: v["cpu_ns"] / 1e6 / per for k, v in usage.items()}
    total = sum(cpu.values())
    transport = sum(cpu.get(k, 0.0) for k in TRANSPORT[path])
    r = {
        "path": path,
        "size": f"{w}x{h}",
        "damage": damage,
        "cpu_ms_per_frame": total,
        "transport_cpu_ms_per_frame": transport,
        "copied_bytes_per_frame": 0.0,
        "latency_p50_us": done.get("latency_p50_us", 0.0),
        "latency_p99_us": done.get("latency_p99_us", 0.0),
        "fps": done.get("fps", 0.0),
        "commit_rtt_p50_us": done.get("commit_rtt_p50_us", 0.0),
        "commit_rtt_p99_us": done.get("commit_rtt_p99_us", 0.0),
        "frames_committed": done.get("committed", 0),
        "frames_presented": presented,
        "frames_discarded": done.get("discarded", 0),
        "cpu_ms_per_frame_by_process": cpu,
        "switches_per_frame": sum(v["runs"] for v in usage.values()) / per,
        "switches_per_frame_by_process":
            {k: v["runs"] / per for k, v in usage.items()},
        "processes": {k: v["processes"] for k, v in usage.items()},
        "wall_s": wall,
        "client_touched_bytes_per_frame":
            done.get("touched_bytes", 0) / max(done.get("committed", 0) +
                                               warmup, 1),
        "damage_bytes_per_frame": (w * h * 4 if damage == "full" else
                                   w * max(h // 8, 1) * 4),
    }
    if disp.trace:
        st = stages.stage_figures(disp.trace, ready)
        if st:
            r.update(st)
    if stats:
        commits = max(stats.get("commits", 0), 1)
        r["copied_bytes_per_frame"] = stats.get("copied_bytes", 0) / commits
        r["copied_bytes_source"] = ("ivwl-relay IVWL_STATS copied_bytes / "
                                    "commits (whole connection, warm-up "
                                    "included)")
        r["relay_stats"] = stats
    elif path == "waypipe":
        wp = usage.get("waypipe", {"rchar": 0, "wchar": 0})
        r["copied_bytes_per_frame"] = (wp["rchar"] + wp["wchar"]) / per
        r["copied_bytes_source"] = ("waypipe /proc/PID/io rchar+wchar of "
                                    "both waypipes (bytes through "
                                    "system calls; its memcpy into "
                                    "mirrors is not counted)")
        r["waypipe_wchar_per_frame"] = wp["wchar"] / per
    else:
        r["copied_bytes_source"] = "none: the compositor reads the " \
                                   "client's memfd"
    return r


# ---- reports ----------------------------------------------------------

def ratio(a, b):
    return a / b if b else None


def fmt_ratio(x):
    return "-" if x is None else f"{x:.2f}x"


def fmt_bytes(b):
    if b >= 1 << 20:
        return f"{b / (1 << 20):.2f} MiB"
    if b >= 1 << 10:
        return f"{b / 1024:.1f} KiB"
    return f"{b:.0f} B"


FRAMES_RATIOS = (("cpu", "cpu_ms_per_frame", ("native", "waypipe")),
                 ("latency_p50", "latency_p50_us", ("native", "waypipe")),
                 ("transport_cpu", "transport_cpu_ms_per_frame",
                  ("waypipe",)))


def add_ratios(rows, case, ratios):
    """r[NAME_vs_BASE] = r[field] / the same case's BASE row's, for every
    (NAME, field, BASEs) of ratios; a case is the rows that agree on the
    keys of case and differ in path."""
    for r in rows:
        same = {x["path"]: x for x in rows
                if all(x[k] == r[k] for k in case)}
        for name, field, bases in ratios:
            for base in bases:
                b = same.get(base)
                if b and b is not r:
                    r[f"{name}_vs_{base}"] = ratio(r[field], b[field])


def table(paths, by):
    """Prints the paths' header line; returns row(label, fn), which
    prints fn(by[path]) for every path."""
    print(f"{'':34}" + "".join(f"{p:>16}" for p in paths))

    def row(label, fn):
        print(f"{label:34}" + "".join(f"{fn(by[p]):>16}" for p in paths))
    return row


def print_table(rows, header):
    print(header)
    groups = []
    for r in rows:
        key = (r["size"], r["damage"])
        if key not in groups:
            groups.append(key)
    for size, damage in groups:
        g = [r for r in rows if r["size"] == size and r["damage"] == damage]
        by = {r["path"]: r for r in g}
        paths = [p for p in ALL_PATHS if p in by]
        print(f"\n{size}, {damage} damage "
              f"({fmt_bytes(g[0]['damage_bytes_per_frame'])} per frame)")
        row = table(paths, by)
        row("frames presented / committed",
            lambda r: f"{r['frames_presented']}/{r['frames_committed']}")
        row("fps", lambda r: f"{r['fps']:.1f}")
        row("latency p50, us", lambda r: f"{r['latency_p50_us']:.0f}")
        row("latency p99, us", lambda r: f"{r['latency_p99_us']:.0f}")
        row("commit round trip p50, us",
            lambda r: f"{r['commit_rtt_p50_us']:.0f}")
        row("commit round trip p99, us",
            lambda r: f"{r['commit_rtt_p99_us']:.0f}")
        row("CPU ms / frame, all processes",
            lambda r: f"{r['cpu_ms_per_frame']:.3f}")
        for proc in ("client", "weston", "ivwl-relay", "ivwl-agent",
                     "ivwl-server", "waypipe"):
            if any(proc in r["cpu_ms_per_frame_by_process"] for r in g):
                row(f"  {proc}", lambda r, proc=proc: "%.3f" % r[
                    "cpu_ms_per_frame_by_process"].get(proc, 0.0))
        others = sorted({k for r in g for k in r["cpu_ms_per_frame_by_process"]
                         if k.startswith("other:")})
        for proc in others:
            row(f"  {proc}", lambda r, proc=proc: "%.3f" % r[
                "cpu_ms_per_frame_by_process"].get(proc, 0.0))
        row("scheduled in / frame, all",
            lambda r: f"{r['switches_per_frame']:.1f}")
        row("transport CPU ms / frame",
            lambda r: f"{r['transport_cpu_ms_per_frame']:.3f}")
        row("transport copied / frame",
            lambda r: fmt_bytes(r["copied_bytes_per_frame"]))
        stages.print_rows(row, g)
        if "native" in by:
            row("CPU vs native", lambda r: fmt_ratio(r.get("cpu_vs_native")))
            row("latency p50 vs native",
                lambda r: fmt_ratio(r.get("latency_p50_vs_native")))
        if "waypipe" in by:
            row("CPU vs waypipe",
                lambda r: fmt_ratio(r.get("cpu_vs_waypipe")))
            row("transport CPU vs waypipe",
                lambda r: fmt_ratio(r.get("transport_cpu_vs_waypipe")))
    print("\nCPU: time on CPU between the client's first measured commit "
          "and its last feedback, / frames presented.\ntransport: ivwl = "
          "relay + agent + server (the plugin runs inside weston); "
          "waypipe = both waypipes.\ncopied: ivwl = the relay's "
          "IVWL_STATS copied_bytes / commits; waypipe = /proc io "
          "rchar+wchar of both waypipes / frames.")


def print_targets(rows):
    """Issue 5's targets, met or missed, from the rows that exist."""
    def get(path, size, damage="full"):
        for r in rows:
            if (r["path"], r["size"], r["damage"]) == (path, size, damage):
                return r
        return None

    def verdict(ok):
        return "met" if ok else "MISSED"

    out = []
    zc = [r for r in rows if r["path"] == "ivwl-zero-copy"]
    if zc:
        worst = max(r["copied_bytes_per_frame"] for r in zc)
        out.append(f"zero-copy copies 0 bytes/frame: max "
                   f"{fmt_bytes(worst)} -> {verdict(worst == 0)}")
        a, b = get("ivwl-zero-copy", "3840x2160"), \
            get("ivwl-zero-copy", "1920x1080")
        if a and b and b["transport_cpu_ms_per_frame"] > 0:
            x = a["transport_cpu_ms_per_frame"] / \
                b["transport_cpu_ms_per_frame"]
            out.append(f"zero-copy transport CPU 4K / 1080p (full): "
                       f"{a['transport_cpu_ms_per_frame']:.3f} / "
                       f"{b['transport_cpu_ms_per_frame']:.3f} ms = "
                       f"{x:.2f}x (<= 1.5x) -> {verdict(x <= 1.5)}")
    for path in ("ivwl-copy", "ivwl-zero-copy"):
        r, n, w = get(path, "2560x1440"), get("native", "2560x1440"), \
            get("waypipe", "2560x1440")
        if r and n:
            x = r["cpu_ms_per_frame"] / n["cpu_ms_per_frame"]
            out.append(f"{path} 2560x1440 full, total CPU vs native: "
                       f"{x:.2f}x (<= 1.2x) -> {verdict(x <= 1.2)}")
        if r and w:
            x = r["cpu_ms_per_frame"] / w["cpu_ms_per_frame"]
            out.append(f"{path} 2560x1440 full, total CPU vs waypipe: "
                       f"{x:.2f}x (<= 0.5x) -> {verdict(x <= 0.5)}")
    for path in ("ivwl-copy", "ivwl-zero-copy"):
        for r in rows:
            n = get("native", r["size"], r["damage"])
            if r["path"] != path or not n:
                continue
            d = r["latency_p50_us"] - n["latency_p50_us"]
            out.append(f"{path} {r['size']} {r['damage']}: latency p50 "
                       f"native {'+' if d >= 0 else ''}{d:.0f} us "
                       f"(<= +200) -> {verdict(d <= 200)}")
    if out:
        print("\nTargets (issue 5):")
        for line in out:
            print("  " + line)


# ---- mpv --------------------------------------------------------------

MPV_LUA = r"""
-- Prints mpv's frame counters on stdout once the video has reached its
-- end (--keep-open holds it there until the driver ends it).
local started = false
local function counters()
    local function p(name)
        local v = mp.get_property_number(name)
        if v == nil then return "na" end
        return string.format("%d", v)
    end
    return "frame_drop=" .. p("frame-drop-count") ..
        " decoder_drop=" .. p("decoder-frame-drop-count") ..
        " vo_delayed=" .. p("vo-delayed-frame-count")
end
mp.register_event("playback-restart", function()
    if not started then
        started = true
        io.stdout:write("ivwl-mpv-start\n")
        io.stdout:flush()
    end
end)
mp.observe_property("eof-reached", "bool", function(_, v)
    if v then
        io.stdout:write("ivwl-mpv-done " .. counters() .. "\n")
        io.stdout:flush()
    end
end)
"""


def run_mpv(disp, path, seconds, size, rate, index):
    prefix, env = disp.env_for(path)
    lua = disp.path("ivwl-mpv.lua")
    with open(lua, "w") as f:
        f.write(MPV_LUA)
    logname = f"mpv-{index}-{path}.log"
    w, h = size
    argv = prefix + ["mpv", "--vo=wlshm", "--no-audio", "--no-config",
                     "--keep-open=yes", f"--length={seconds}",
                     f"--script={lua}", "--msg-level=all=warn",
                     f"--title=mpv-{path}",
                     f"av://lavfi:testsrc2=size={w}x{h}:rate={rate}"]
    p, lines, roles, alive = disp.start_measured(path, argv, env, logname)
    # mpv's own pid is the one named "mpv"; under waypipe p is waypipe.
    try:
        line = None
        while line is None or not line.startswith("ivwl-mpv-start"):
            line = lines.next(60, alive)
            if line is None:
                raise BenchError(f"mpv via {path} never started; see "
                                 f"{disp.path(logname)}:\n" +
                                 (read(disp.path(logname)) or "")[-2000:])
        before = snapshot(os.getpid())
        t0 = time.monotonic()
        line = None
        while line is None or not line.startswith("ivwl-mpv-done"):
            line = lines.next(seconds * 4 + 60, alive)
            if line is None:
                raise BenchError(f"mpv via {path} never reached its end; "
                                 f"see {disp.path(logname)}")
        after = snapshot(os.getpid())
        wall = time.monotonic() - t0
    finally:
        mpv_pids = [pid for pid, comm in descendants(os.getpid()).items()
                    if comm == "mpv"]
        for pid in mpv_pids:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        try:
            p.wait(20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        p.stdout.close()
    stats = relay_stats(disp.path(logname)) if path.startswith("ivwl") \
        else None
    reap_orphans({q.pid for q in disp.procs})
    client_pid = [pid for pid, (comm, _, _) in after.items()
                  if comm == "mpv"]
    usage = usage_between(before, after, roles,
                          client_pid[0] if client_pid else -1)
    cpu_s = {k: v["cpu_ns"] / 1e9 for k, v in usage.items()}
    counters = parse_kv(line)
    r = {
        "path": path,
        "size": f"{w}x{h}",
        "rate": rate,
        "seconds": seconds,
        "wall_s": wall,
        "frames_expected": int(seconds * rate),
        "cpu_s": sum(cpu_s.values()),
        "cpu_percent": 100.0 * sum(cpu_s.values()) / wall if wall else 0.0,
        "transport_cpu_s": sum(cpu_s.get(k, 0.0) for k in TRANSPORT[path]),
        "cpu_s_by_process": cpu_s,
    }
    r.update({k: v for k, v in counters.items()})
    if stats:
        r["relay_stats"] = stats
    return r


def print_mpv(rows, header):
    print(header)
    paths = [r["path"] for r in rows]
    by = {r["path"]: r for r in rows}
    row = table(paths, by)
    row("wall s (first frame to end)", lambda r: f"{r['wall_s']:.2f}")
    row("frames dropped (VO)", lambda r: str(r.get("frame_drop", "na")))
    row("frames dropped (decoder)",
        lambda r: str(r.get("decoder_drop", "na")))
    row("frames delayed (VO)", lambda r: str(r.get("vo_delayed", "na")))
    row("commits through the relay",
        lambda r: str(r["relay_stats"]["commits"]) if "relay_stats" in r
        else "-")
    row("relay copied / commit", lambda r: fmt_bytes(
        r["relay_stats"]["copied_bytes"] /
        max(r["relay_stats"]["commits"], 1)) if "relay_stats" in r
        else "-")
    row("CPU s, all processes", lambda r: f"{r['cpu_s']:.2f}")
    row("CPU %, all processes (of 1 core)",
        lambda r: f"{r['cpu_percent']:.0f}")
    for proc in ("client", "weston", "ivwl-relay", "ivwl-agent",
                 "ivwl-server", "waypipe"):
        if any(proc in r["cpu_s_by_process"] for r in rows):
            row(f"  {proc}", lambda r, proc=proc: "%.2f" %
                r["cpu_s_by_process"].get(proc, 0.0))
    row("transport CPU s", lambda r: f"{r['transport_cpu_s']:.2f}")
    if "native" in by:
        row("CPU vs native", lambda r: fmt_ratio(
            ratio(r["cpu_s"], by["native"]["cpu_s"])))
    if "waypipe" in by:
        row("CPU vs waypipe", lambda r: fmt_ratio(
            ratio(r["cpu_s"], by["waypipe"]["cpu_s"])))


# ---- main -------------------------------------------------------------

def parse_sizes(s):
    out = []
    for part in s.split(","):
        m = re.fullmatch(r"(\d+)x(\d+)", part.strip())
        if not m:
            raise SystemExit(f"bad size {part!r} (want WxH)")
        out.append((int(m.group(1)), int(m.group(2))))
    return out


def available_paths(wanted):
    out = []
    for p in wanted:
        if p not in ALL_PATHS:
            raise SystemExit(f"unknown path {p!r}; paths: "
                             f"{', '.join(ALL_PATHS)}")
        if p == "waypipe" and not shutil.which("waypipe"):
            log("waypipe is not installed (tools/deps.sh): skipping it")
            continue
        out.append(p)
    return out


def machine_line():
    model = "?"
    for line in (read("/proc/cpuinfo") or "").splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    load = (read("/proc/loadavg") or "? ? ?").split()[:3]
    return (f"{os.cpu_count()} CPUs ({model}), load average "
            f"{' '.join(load)}")


def main_frames(args):
    sizes = parse_sizes(args.sizes)
    damages = [d.strip() for d in args.damage.split(",")]
    for d in damages:
        if d not in ("full", "band"):
            raise SystemExit(f"bad damage {d!r} (full, band)")
    paths = available_paths([p.strip() for p in args.paths.split(",")])
    if not paths:
        raise SystemExit("no path to run")
    ow = max(w for w, _ in sizes)
    oh = max(h for _, h in sizes)
    load0 = machine_line()
    disp = Display(args.build, ow, oh, args.keep_logs, args.repaint_window,
                   trace=not args.no_stages)
    rows, failed = [], []
    try:
        i = 0
        for rep in range(args.repeat):
            for w, h in sizes:
                for damage in damages:
                    for path in paths:
                        if not args.json:
                            log(f"{path} {w}x{h} {damage} "
                                f"({args.frames} frames)")
                        r = try_case(disp, failed,
                                     f"{path} {w}x{h} {damage}",
                                     run_frames, disp, path, w, h, damage,
                                     args.frames, args.warmup, i)
                        i += 1
                        if r:
                            r["repeat"] = rep
                            rows.append(r)
    finally:
        disp.close()
    if args.repeat > 1:
        rows = median_rows(rows, ("path", "size", "damage"),
                           ("latency_p50_us", "latency_p99_us", "fps",
                            "commit_rtt_p50_us", "commit_rtt_p99_us",
                            "transport_cpu_ms_per_frame"))
    add_ratios(rows, ("size", "damage"), FRAMES_RATIOS)
    status = 1 if failed else 0
    if failed:
        log(f"{len(failed)} case(s) failed: {', '.join(failed)}")
    if emit_json(rows, args):
        return status
    print_table(rows, f"ivwl-bench frames: {args.frames} measured frames "
                f"after {args.warmup} warm-up, weston headless pixman "
                f"{ow}x{oh}, median of {args.repeat}\n"
                f"before: {load0}\nafter:  {machine_line()}")
    print_targets(rows)
    return status


def try_case(disp, failed, name, fn, *args, **kw):
    """fn(*args, **kw), a row; None if it raised a BenchError, whose
    case is then added to failed: one broken path must not hide the
    others."""
    try:
        return fn(*args, **kw)
    except BenchError as e:
        log(f"FAILED: {name}: {e}")
        failed.append(name)
        reap_orphans({q.pid for q in disp.procs})
        return None


def median_rows(rows, case, medians, runs=("cpu_ms_per_frame",)):
    """Per case (the rows that agree on the keys of case, path among them)
    the run with the median total CPU per frame, in the order the cases
    came; each key of medians is the median of its own, runs_KEY lists
    every run's KEY for each key of runs."""
    groups = {}
    for r in rows:
        groups.setdefault(tuple(r[k] for k in case), []).append(r)
    out = []
    for g in groups.values():
        g = sorted(g, key=lambda r: r["cpu_ms_per_frame"])
        m = dict(g[len(g) // 2])
        m["runs"] = len(g)
        for k in runs:
            m[f"runs_{k}"] = [r[k] for r in g]
        for k in medians:
            vals = sorted(r[k] for r in g)
            m[k] = vals[len(vals) // 2]
        out.append(m)
    return out


def emit_json(rows, args):
    """--json-out FILE gets the rows as JSON lines; with --json stdout
    gets them too, and True says the table is not wanted."""
    if args.json_out:
        with open(args.json_out, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
    if args.json:
        for r in rows:
            print(json.dumps(r))
    return args.json


def main_mpv(args):
    paths = available_paths([p.strip() for p in args.paths.split(",")])
    if not shutil.which("mpv"):
        raise SystemExit("mpv is not installed (tools/deps.sh)")
    size = parse_sizes(args.size)[0]
    load0 = machine_line()
    disp = Display(args.build, size[0], size[1], args.keep_logs,
                   args.repaint_window)
    rows = []
    try:
        for i, path in enumerate(paths):
            if not args.json:
                log(f"mpv via {path}, {args.seconds} s")
            rows.append(run_mpv(disp, path, args.seconds, size, args.rate,
                                i))
    finally:
        disp.close()
    if emit_json(rows, args):
        return 0
    print_mpv(rows, f"ivwl-bench mpv: mpv --vo=wlshm, lavfi testsrc2 "
              f"{size[0]}x{size[1]} at {args.rate} fps for {args.seconds} s"
              f" ({int(args.seconds * args.rate)} frames)\n"
              f"before: {load0}\nafter:  {machine_line()}")
    return 0


def main():
    ap = argparse.ArgumentParser(prog="ivwl-bench")
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("frames", help="frames-client through every path")
    f.add_argument("--build", required=True,
                   help="build tree with host/, client-shim/, plugin/, "
                        "bench/ (ivwl-bench passes its own)")
    f.add_argument("--sizes", default="1920x1080,2560x1440,3840x2160",
                   help="window sizes, WxH,... (default %(default)s)")
    f.add_argument("--damage", default="full,band",
                   help="full and/or band (1/8 of the height)")
    f.add_argument("--frames", type=int, default=300,
                   help="measured frames per case (default %(default)s)")
    f.add_argument("--warmup", type=int, default=30,
                   help="frames before measuring (default %(default)s)")
    f.add_argument("--repeat", type=int, default=1,
                   help="runs per case, interleaved; median reported")
    f.add_argument("--no-stages", action="store_true",
                   help="no frame trace (IVWL_FRAME_TRACE): no per-stage "
                        "times, doorbells and wake-ups, and no write(2) "
                        "per traced event in the CPU figures")
    add_common_args(f, PATHS)
    m = sub.add_parser("mpv", help="mpv --vo=wlshm through every path")
    m.add_argument("--build", required=True)
    m.add_argument("--seconds", type=float, default=10)
    m.add_argument("--size", default="1920x1080")
    m.add_argument("--rate", type=int, default=60)
    add_common_args(m, MPV_PATHS)
    args = ap.parse_args()
    return run(args, main_frames if args.cmd == "frames" else main_mpv)


def add_common_args(parser, paths):
    """The options of every subcommand that runs a Display."""
    parser.add_argument("--paths", default=",".join(paths),
                        help="default %(default)s; waypipe is skipped "
                             "when not installed")
    parser.add_argument("--json", action="store_true",
                        help="one JSON object per line, one line per case")
    parser.add_argument("--json-out", metavar="FILE",
                        help="also write the JSON lines to FILE")
    parser.add_argument("--keep-logs", action="store_true",
                        help="keep the temporary dir with every process's "
                             "log")
    parser.add_argument("--repaint-window", type=int, default=16,
                        help="weston.ini [core] repaint-window, ms "
                             "(weston's default: 7)")


def run(args, fn):
    """fn(args) as a child subreaper (the relays, which detach from the
    client, come to us), a BenchError its message and exit status 1."""
    args.build = os.path.abspath(args.build)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        log("cannot become a child subreaper: the relay's CPU may be lost")
    try:
        return fn(args)
    except BenchError as e:
        log(str(e))
        return 1


if __name__ == "__main__":
    sys.exit(main())
