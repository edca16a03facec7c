#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`ivwl-bench scale`: the windows of N app-VMs on one weston, through ivwl
and natively, side by side: what every more VM costs weston and the
transport, busy and idle.

    scale.py scale --build DIR [--vms N,..] [--busy S] [--idle S]
                   [--nofile N] [--quick] [--json]

For each N, two westons, one after the other, started alike
(bench_display.py's Display, as frames.py's are: headless, pixman,
ivwl.so, repaint-window 16) under RLIMIT_NOFILE --nofile (soft and hard,
as a desktop session has):

  native  no [ivwl-vm] section: the 2N clients on weston's own socket
  ivwl    N [ivwl-vm] sections, each VM its own ivwl-server (--region,
          64M) and ivwl-agent; the 2N clients through libivwl-shim.so,
          two per VM

Not one weston for both: the attached VMs would count in the native
figures (fds, RSS), and where ivwl runs out of fds the native comparison
would break with it.

Every VM (natively: every pair of clients) has one window that animates
(ivwl-frames-client --control, 256x256, one frame per frame callback) and
one that is idle (--idle: one frame, then nothing).  Phases:

  start-up  the 2N clients start at once; a window is up when its client
            prints "up" (the first frame's wp_presentation feedback came
            back presented: weston put it on its output; or discarded by
            a relay whose clock estimate was not yet trustworthy, a
            loaded machine's, while its frame callback came back done).  Bounded by
            --up-timeout; windows that never come up are reported per VM
            with what weston's log says about that VM, and the run goes
            on with the others
  busy      the animating windows animate for --busy S
  idle      the animating clients are told to stop committing (they stay
            connected), then --idle S

CPU and wake-ups come from /proc/PID/task/TID/schedstat (bench_proc.py's
snapshot): time on CPU (field 1) and times switched onto a CPU (field 3,
"pcount"), summed over threads, differenced over the phase, per role
(weston with its helpers, ivwl-relay, ivwl-agent, ivwl-server,
client-anim, client-idle).  fps: frames presented per second, from two
counts of every animating client and its own CLOCK_MONOTONIC.
"""

import argparse
import os
import re
import resource
import select
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_display import Display  # noqa: E402  (beside this file)
from bench_proc import (  # noqa: E402
    BenchError, descendants, log, parse_kv, read, reap_orphans, snapshot,
    usage_between, wait_for)
from bench_report import (  # noqa: E402
    add_ratios, emit_json, fmt_ratio, machine_line, table)
from bench_run import add_common_args, parse_sizes, run  # noqa: E402

PATHS = ("native", "ivwl")
ROLES = ("weston", "ivwl-relay", "ivwl-agent", "ivwl-server",
         "client-anim", "client-idle")
TRANSPORT_ROLES = ("ivwl-relay", "ivwl-agent", "ivwl-server")
VM_LINE = re.compile(r"ivwl: \[([\w.-]+)\] (.*)")
SHELL_LAUNCHED = re.compile(r"launching '[^']*weston-desktop-shell'")


# ---- weston with N VMs ------------------------------------------------

class Vm:
    """One app-VM: its region's ivwl-server and its ivwl-agent."""

    def __init__(self, name, disp):
        self.name = name
        self.sock = disp.path(f"{name}.sock")
        self.agent_sock = disp.path(f"{name}-agent.sock")
        self.server = None
        self.agent = None


class ScaleDisplay(Display):
    """bench_display.py's Display with n_vms VMs (0 for the native path) and
    weston under RLIMIT_NOFILE.  A VM weston does not attach is not an
    error: the run goes on and reports it."""

    def __init__(self, args, n_vms):
        self.n_vms = n_vms
        self.nofile = args.nofile
        self.region = args.region
        self.wait_s = args.up_timeout
        self.vms = []
        self.setup_s = None
        super().__init__(args.build, args.output[0], args.output[1],
                         args.keep_logs, args.repaint_window)

    def _start(self, width, height):
        t0 = time.monotonic()
        self.vms = [Vm(f"vm{i + 1}", self) for i in range(self.n_vms)]
        for vm in self.vms:
            vm.server = self.start_server(vm.sock, self.region,
                                          f"{vm.name}-server.log")
        wait_for("every ivwl-server", lambda: all(
            os.path.exists(vm.sock + ".display") for vm in self.vms))
        limit = self.nofile
        self.weston = self.start_weston(
            width, height, [(vm.name, vm.sock + ".display")
                            for vm in self.vms],
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE,
                                                  (limit, limit)))
        sock = os.path.join(self.gui_runtime, "wl-bench")
        wait_for("weston's socket", lambda: os.path.exists(sock) or
                 self.weston.poll() is not None, self.wait_s)
        self.check_weston()
        self.wait_vms()
        for vm in self.vms:
            vm.agent = self.start_agent(vm.sock, vm.agent_sock,
                                        f"{vm.name}-agent.log")
        wait_for("every ivwl-agent", lambda: all(
            os.path.exists(vm.agent_sock) for vm in self.vms))
        self.setup_s = time.monotonic() - t0

    def wait_vms(self):
        """Until weston has said, for every VM, that it attached it or
        failed to, or has finished loading its modules (ivwl.so tries
        every VM then, at most 2 s each): weston launches
        weston-desktop-shell from its event loop, so that line comes
        after (weston-keyboard's comes before ivwl.so loads).  A VM it
        said nothing about by then is "silent": ivwl.so retries it every
        second without a word."""
        def known():
            if self.weston.poll() is not None or \
                    SHELL_LAUNCHED.search(self.weston_log()):
                return True
            return all(s != "silent" for s in self.vm_states().values())
        wait_for("weston's word on every VM", known, self.wait_s)
        self.check_weston()

    def check_weston(self):
        """A BenchError that says what became of the VMs and weston's last
        words, if weston has exited."""
        if self.weston.poll() is None:
            return
        tail = self.weston_log().rstrip().splitlines()[-8:]
        raise BenchError(f"weston exited ({self.weston.returncode}); VMs: "
                         f"{self.vm_summary()}; weston's log ends:\n  " +
                         "\n  ".join(tail))

    def weston_log(self):
        return read(self.path("weston.log")) or ""

    def vm_lines(self):
        """vm name -> ivwl.so's log lines about it, oldest first."""
        out = {vm.name: [] for vm in self.vms}
        for line in self.weston_log().splitlines():
            m = VM_LINE.search(line)
            if m and m.group(1) in out:
                out[m.group(1)].append(m.group(2))
        return out

    def vm_states(self):
        """vm name -> attached, failed (ivwl.so said why and retries it)
        or silent (weston has said nothing about it)."""
        out = {}
        for name, lines in self.vm_lines().items():
            if any(ln.startswith("attached to ") for ln in lines):
                out[name] = "attached"
            else:
                out[name] = "failed" if lines else "silent"
        return out

    def vm_summary(self):
        """One line: which VMs are in which state, and for the failed ones
        the last thing weston said."""
        states, lines = self.vm_states(), self.vm_lines()
        parts = []
        for state in ("attached", "failed", "silent"):
            names = [n for n, s in states.items() if s == state]
            if not names:
                continue
            text = f"{state} {len(names)}: {', '.join(names)}"
            said = {lines[n][-1] for n in names if lines[n]}
            if state == "failed":
                text += f" ({'; '.join(sorted(said))})"
            parts.append(text)
        return "; ".join(parts) or "no VM"

    def display_joins(self, name):
        """How often weston connected to this VM's ivwl-server: more than
        once means it attached, failed and tried again."""
        return (read(self.path(f"{name}-server.log")) or "").count(
            "display peer 0 joined")

    def roles(self):
        r = {self.weston.pid: "weston"}
        for vm in self.vms:
            r[vm.server.pid] = "ivwl-server"
            if vm.agent:
                r[vm.agent.pid] = "ivwl-agent"
        return r


def fd_kinds(pid):
    """{kind: count} of pid's open fds: eventfd, socket, memfd, ... (the
    target of /proc/PID/fd/N without its inode number)."""
    kinds = {}
    try:
        names = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return kinds
    for name in names:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{name}")
        except OSError:
            continue
        kind = re.sub(r":?\[\d+\]$", "", target)
        kind = re.sub(r"^anon_inode:\[?([\w-]+)\]?", r"\1", kind)
        if kind.startswith("/memfd:"):
            kind = "memfd"
        elif kind.startswith("/"):
            kind = "file"
        kinds[kind] = kinds.get(kind, 0) + 1
    return kinds


def weston_usage(pid):
    """(open fds, {VmRSS, RssAnon, RssFile, RssShmem} in KiB) of pid."""
    try:
        fds = len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        fds = 0
    mem = {}
    for line in (read(f"/proc/{pid}/status") or "").splitlines():
        k, _, v = line.partition(":")
        if k in ("VmRSS", "RssAnon", "RssFile", "RssShmem"):
            mem[k] = int(v.split()[0])
    return fds, mem


# ---- the clients ------------------------------------------------------

class Client:
    """One window's ivwl-frames-client --control and what it said."""

    def __init__(self, proc, vm, kind, logpath):
        self.proc = proc
        self.vm = vm
        self.kind = kind
        self.logpath = logpath
        self.buf = b""
        self.eof = False
        self.up_at = None
        self.reply = None    # the last answer: parse_kv of its line

    def feed(self):
        """Reads what its stdout has (poll said readable)."""
        chunk = os.read(self.proc.stdout.fileno(), 65536)
        if not chunk:
            self.eof = True
            return
        self.buf += chunk
        while b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
            self.heard(line.decode(errors="replace"))

    def heard(self, line):
        word, _, rest = line.partition(" ")
        if word == "up" and self.up_at is None:
            self.up_at = time.monotonic()
        elif word in ("count", "stopped"):
            self.reply = parse_kv(rest)

    def send(self, cmd):
        """A command line; False if the client is gone."""
        self.reply = None
        try:
            self.proc.stdin.write(cmd.encode() + b"\n")
            self.proc.stdin.flush()
            return True
        except (BrokenPipeError, ValueError):
            return False


def pump(clients, done, timeout, give_up=None):
    """Reads the clients' stdout until done(c) holds for every client that
    still has its stdout open, timeout s have passed or give_up(waiting)
    holds; the clients for which done(c) does not hold.  poll(), not
    select(): 2N pipes can go past FD_SETSIZE."""
    end = time.monotonic() + timeout
    while True:
        waiting = {c.proc.stdout.fileno(): c for c in clients
                   if not done(c) and not c.eof}
        left = end - time.monotonic()
        if not waiting or left <= 0 or \
                (give_up and give_up(list(waiting.values()))):
            return [c for c in clients if not done(c)]
        p = select.poll()
        for fd in waiting:
            p.register(fd, select.POLLIN)
        for fd, _ in p.poll(min(left, 0.5) * 1000):
            waiting[fd].feed()


def ask(clients, cmd, timeout=20.0):
    """Sends cmd to every client and waits for the answers; {client:
    answer} of those that answered."""
    sent = [c for c in clients if c.send(cmd)]
    pump(sent, lambda c: c.reply is not None, timeout)
    return {c: c.reply for c in sent if c.reply is not None}


def start_clients(disp, path, n, args):
    """Two clients per VM, anim and idle, all at once: [Client]."""
    w, h = args.window
    out = []
    for i in range(n):
        name = f"vm{i + 1}"
        if path == "native":
            _, env = disp.env_for("native")
        else:
            _, env = disp.env_for("ivwl", {
                "IVWL_AGENT": disp.vms[i].agent_sock})
            env.pop("IVWL_ZERO_COPY", None)   # the shim's default: auto
        for kind in ("anim", "idle"):
            argv = [disp.bin["client"], "--width", str(w), "--height",
                    str(h), "--control", "--title", f"{name}-{kind}"]
            if kind == "idle":
                argv.append("--idle")
            logname = f"client-{path}-{name}-{kind}.log"
            p = disp.spawn(argv, logname, env, stdout=subprocess.PIPE,
                           stdin=subprocess.PIPE)
            out.append(Client(p, name, kind, disp.path(logname)))
    return out


def stop_clients(clients, timeout=10.0):
    """End of file to every client (it disconnects), SIGKILL to those that
    do not go (a window that never came up hangs in its first round
    trip), then the relays, which end with their connections."""
    for c in clients:
        if c.up_at is None and c.proc.poll() is None:
            c.proc.kill()
        try:
            c.proc.stdin.close()
        except OSError:
            pass
    end = time.monotonic() + timeout
    for c in clients:
        try:
            c.proc.wait(max(end - time.monotonic(), 0.1))
        except subprocess.TimeoutExpired:
            c.proc.kill()
            c.proc.wait()
        c.proc.stdout.close()
    me = os.getpid()
    if not wait_gone(lambda: [pid for pid, comm in descendants(me).items()
                              if comm.startswith("ivwl-relay")], timeout):
        log("some ivwl-relay did not end with its connection: killed")
    reap_orphans(set())


def wait_gone(pids_fn, timeout):
    """Waits until pids_fn() is empty; SIGKILLs what is left then.  True
    if nothing had to be killed."""
    end = time.monotonic() + timeout
    while pids_fn() and time.monotonic() < end:
        time.sleep(0.1)
    left = pids_fn()
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return not left


# ---- one path at one N ------------------------------------------------

# The threads that write a peer's eventfds in deployment C (ringer.h):
# with the guest driver (deployments A and B) weston rings through an
# ioctl and has none.
RINGER_THREAD = "ivwl-ring"


def thread_cpu_ns(pid, comm):
    """ns on CPU of pid's threads named comm, the ones alive now."""
    total = 0
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0
    for tid in tids:
        if not (read(f"/proc/{pid}/task/{tid}/comm") or "").startswith(comm):
            continue
        s = read(f"/proc/{pid}/task/{tid}/schedstat")
        if s:
            total += int(s.split()[0])
    return total


def measure(roles, seconds):
    """role -> {cpu_ns, runs, processes} over seconds, and the seconds
    between the middles of the two snapshots (reading /proc for hundreds
    of processes takes a while)."""
    me = os.getpid()
    t0 = time.monotonic()
    before = snapshot(me)
    t1 = time.monotonic()
    time.sleep(seconds)
    t2 = time.monotonic()
    after = snapshot(me)
    t3 = time.monotonic()
    return usage_between(before, after, roles, -1), \
        (t2 + t3) / 2 - (t0 + t1) / 2


def per_second(usage, wall):
    """(cpu s per s, wake-ups per s, processes) per role."""
    cpu = {r: u["cpu_ns"] / 1e9 / wall for r, u in usage.items()}
    wakeups = {r: u["runs"] / wall for r, u in usage.items()}
    procs = {r: u["processes"] for r, u in usage.items()}
    return cpu, wakeups, procs


def fps_between(a, b):
    """{client: fps} from two sets of count answers."""
    out = {}
    for c, x in a.items():
        y = b.get(c)
        if y and y["now_ns"] > x["now_ns"]:
            out[c] = (y["presented"] - x["presented"]) * 1e9 / \
                (y["now_ns"] - x["now_ns"])
    return out


def wait_up(disp, clients, timeout, quiet=5.0):
    """Waits for every window to come up, at most timeout s; gives up
    sooner when every window still missing belongs to a VM weston has not
    attached and none came up for quiet s (weston would have to attach
    the VM first, and would say so)."""
    def hopeless(waiting):
        states = disp.vm_states()
        last = max((c.up_at for c in clients if c.up_at), default=t0)
        return time.monotonic() - last > quiet and all(
            states.get(c.vm, "native") not in ("attached", "native")
            for c in waiting)
    t0 = time.monotonic()
    pump(clients, lambda c: c.up_at is not None, timeout, hopeless)
    return time.monotonic() - t0


def missing_vms(disp, clients):
    """[{vm, windows_up, attached, weston_log, client_log}] of the VMs
    with a window that never came up."""
    states = disp.vm_states()
    lines = disp.vm_lines()
    out = []
    for name in sorted({c.vm for c in clients}, key=lambda v: int(v[2:])):
        mine = [c for c in clients if c.vm == name]
        if all(c.up_at is not None for c in mine):
            continue
        late = [c for c in mine if c.up_at is None][0]
        out.append({
            "vm": name,
            "windows_up": sum(c.up_at is not None for c in mine),
            "attached": states.get(name, "native"),
            "weston_log": lines.get(name, [])[-3:],
            "weston_joined_server": disp.display_joins(name)
            if disp.vms else None,
            "client_log": (read(late.logpath) or "").strip()[-300:],
        })
    return out


def describe_missing(m):
    """One line on a VM whose windows did not all come up."""
    text = f"{m['vm']}: {m['windows_up']}/2 windows up; "
    if m["attached"] == "silent":
        text += "weston said nothing about this VM"
    else:
        text += f"weston's VM state: {m['attached']}"
    if m["weston_log"]:
        text += f" (last: {m['weston_log'][-1]})"
    if m["weston_joined_server"] and m["attached"] != "attached":
        text += (f"; weston connected to its ivwl-server "
                 f"{m['weston_joined_server']} times and left again")
    return text


def run_case(args, path, n):
    """One weston, N VMs' worth of windows through path: a row."""
    disp = ScaleDisplay(args, n if path == "ivwl" else 0)
    clients = []
    try:
        # weston's first repaint touches its output buffers (16 MiB at
        # 1080p) a few 100 ms after start: not a client's doing
        time.sleep(args.settle)
        fds0, mem0 = weston_usage(disp.weston.pid)
        t0 = time.monotonic()
        clients = start_clients(disp, path, n, args)
        waited = wait_up(disp, clients, args.up_timeout)
        disp.check_weston()
        fds_up, _ = weston_usage(disp.weston.pid)
        up = [c for c in clients if c.up_at is not None]
        last_up = max((c.up_at for c in up), default=t0) - t0
        missing = missing_vms(disp, clients)
        for m in missing:
            log(f"{path} N={n}: NOT UP after {waited:.0f} s: "
                f"{describe_missing(m)}")
        if missing:
            log(f"{path} N={n}: weston holds {fds_up} fds, "
                f"RLIMIT_NOFILE {args.nofile}")
        anim = [c for c in up if c.kind == "anim"]
        roles = disp.roles()
        roles.update({c.proc.pid: "client-" + c.kind for c in clients})
        time.sleep(args.settle)

        counts0 = ask(anim, "count")
        ring0 = thread_cpu_ns(disp.weston.pid, RINGER_THREAD)
        busy, busy_wall = measure(roles, args.busy)
        ring1 = thread_cpu_ns(disp.weston.pid, RINGER_THREAD)
        counts1 = ask(anim, "count")
        fds, mem = weston_usage(disp.weston.pid)
        kinds = fd_kinds(disp.weston.pid)
        stopped = ask(anim, "stop")
        # the frames still in flight land, and the clock link's last
        # burst, which frames asked for, ends (docs/region.md)
        time.sleep(max(args.settle, args.idle_settle))
        idle, idle_wall = measure(roles, args.idle)
        counts2 = ask(anim, "count")
        disp.check_weston()
        states = disp.vm_states()
    finally:
        stop_clients(clients)
        disp.close()

    fps = fps_between(counts0, counts1)
    frames = sum(counts1[c]["presented"] - counts0[c]["presented"]
                 for c in fps)
    cpu_b, wake_b, procs = per_second(busy, busy_wall)
    cpu_i, wake_i, _ = per_second(idle, idle_wall)
    transport_runs = sum(busy.get(k, {"runs": 0})["runs"]
                         for k in TRANSPORT_ROLES)
    up_at = {}
    for c in up:
        up_at[c.vm] = max(up_at.get(c.vm, 0.0), c.up_at - t0)
    return {
        "path": path,
        "vms": n,
        "nofile": args.nofile,
        "region": args.region if path == "ivwl" else None,
        "window": "%dx%d" % tuple(args.window),
        "output": "%dx%d" % tuple(args.output),
        "busy_s": busy_wall,
        "idle_s": idle_wall,
        "setup_s": disp.setup_s,
        "windows_expected": 2 * n,
        "windows_up": len(up),
        "vms_up": n - len(missing),
        "vms_attached": sum(s == "attached" for s in states.values())
        if disp.vms else None,
        "vm_states": states,
        "vms_missing": missing,
        "startup_s": last_up if not missing else None,
        "startup_last_window_s": last_up,
        "weston_fds_start": fds0,
        "weston_fds_up": fds_up,
        "weston_fds": fds,
        "weston_fd_kinds": kinds,
        "weston_rss_kib_start": mem0.get("VmRSS", 0),
        "weston_rss_kib": mem.get("VmRSS", 0),
        "weston_rss_kib_detail": mem,
        "weston_cpu_busy": cpu_b.get("weston", 0.0),
        "weston_cpu_idle": cpu_i.get("weston", 0.0),
        "weston_ringer_cpu_busy": (ring1 - ring0) / 1e9 / busy_wall,
        "weston_cpu_busy_less_ringers": cpu_b.get("weston", 0.0) -
        (ring1 - ring0) / 1e9 / busy_wall,
        "transport_cpu_busy": sum(cpu_b.get(k, 0.0)
                                  for k in TRANSPORT_ROLES),
        "transport_cpu_idle": sum(cpu_i.get(k, 0.0)
                                  for k in TRANSPORT_ROLES),
        "cpu_busy_by_role": cpu_b,
        "cpu_idle_by_role": cpu_i,
        "wakeups_busy": wake_b,
        "wakeups_idle": wake_i,
        "processes": procs,
        "fps_mean": sum(fps.values()) / len(fps) if fps else 0.0,
        "fps_min": min(fps.values(), default=0.0),
        "fps_max": max(fps.values(), default=0.0),
        "frames_busy": frames,
        "windows_stopped": len(stopped),
        "commits_idle": sum(counts2[c]["committed"] -
                            stopped[c]["committed"]
                            for c in counts2 if c in stopped),
        "transport_wakeups_per_frame": transport_runs / frames if frames
        else 0.0,
        "per_vm_detail": [{"vm": c.vm, "up_s": up_at.get(c.vm),
                           "fps": fps.get(c)} for c in anim],
    }


def add_per_vm(rows):
    """Per VM figures: CPU and wake-ups / N; fds and RSS less a weston
    with no VM and no client (the native weston before its clients), / N,
    so a VM's share is what it adds."""
    bare = {r["vms"]: r for r in rows if r["path"] == "native"}
    for r in rows:
        n, b = r["vms"], bare.get(r["vms"])
        r["weston_fds_bare"] = b["weston_fds_start"] if b else None
        r["weston_rss_kib_bare"] = b["weston_rss_kib_start"] if b else None
        pv = {k: r[k] / n for k in ("weston_cpu_busy", "weston_cpu_idle",
                                    "transport_cpu_busy",
                                    "transport_cpu_idle")}
        pv["wakeups_busy"] = {k: v / n for k, v in r["wakeups_busy"].items()}
        pv["wakeups_idle"] = {k: v / n for k, v in r["wakeups_idle"].items()}
        pv["weston_fds"] = (r["weston_fds"] - b["weston_fds_start"]) / n \
            if b else None
        pv["weston_rss_kib"] = (r["weston_rss_kib"] -
                                b["weston_rss_kib_start"]) / n if b else None
        r["per_vm"] = pv
    add_ratios(rows, ("vms",), (
        ("weston_cpu_busy", "weston_cpu_busy", ("native",)),
        ("weston_cpu_busy_less_ringers", "weston_cpu_busy_less_ringers",
         ("native",)),
        ("weston_cpu_idle", "weston_cpu_idle", ("native",))))


# ---- reports ----------------------------------------------------------

def cell(total, per_vm=None, fmt="{:.3f}"):
    """A table line's cells: fn(row, is_per_vm_column)."""
    def fn(r, pv):
        f = per_vm if pv else total
        if f is None:
            return "-"
        v = f(r)
        return "-" if v is None else fmt.format(v)
    return fn


def role_cells(key, role):
    return cell(lambda r: r[key].get(role, 0.0),
                lambda r: r["per_vm"][key].get(role, 0.0), "{:.1f}")


def print_case(rows, n):
    by_path = {r["path"]: r for r in rows if r["vms"] == n}
    cols, by = [], {}
    for p in PATHS:
        if p in by_path:
            cols += [p, f"{p} / VM"]
            by[p], by[f"{p} / VM"] = (by_path[p], False), (by_path[p], True)
    print(f"\nN = {n} VM(s), {2 * n} windows per path")
    line = table(cols, by)

    def row(label, fn):
        line(label, lambda c: fn(*c))

    row("windows up", cell(lambda r: f"{r['windows_up']}/"
                           f"{r['windows_expected']}", fmt="{}"))
    row("time until all up, s", cell(lambda r: r["startup_s"], fmt="{:.2f}"))
    row("animating fps, mean", cell(lambda r: r["fps_mean"], fmt="{:.1f}"))
    row("  min - max", cell(lambda r: f"{r['fps_min']:.1f}-"
                            f"{r['fps_max']:.1f}", fmt="{}"))
    row("weston fds", cell(lambda r: r["weston_fds"],
                           lambda r: r["per_vm"]["weston_fds"], "{:.1f}"))
    row("weston RSS, MiB", cell(
        lambda r: r["weston_rss_kib"] / 1024,
        lambda r: r["per_vm"]["weston_rss_kib"] / 1024
        if r["per_vm"]["weston_rss_kib"] is not None else None, "{:.2f}"))
    for phase in ("busy", "idle"):
        row(f"weston CPU s/s, {phase}", cell(
            lambda r, k=f"weston_cpu_{phase}": r[k],
            lambda r, k=f"weston_cpu_{phase}": r["per_vm"][k]))
        if phase == "busy":
            row("  of it ringer threads", cell(
                lambda r: r["weston_ringer_cpu_busy"]))
        row(f"transport CPU s/s, {phase}", cell(
            lambda r, k=f"transport_cpu_{phase}": r[k],
            lambda r, k=f"transport_cpu_{phase}": r["per_vm"][k]))
    for phase in ("busy", "idle"):
        row(f"wake-ups/s, {phase}", cell(
            lambda r, k=f"wakeups_{phase}": sum(r[k].values()),
            lambda r, k=f"wakeups_{phase}": sum(r["per_vm"][k].values()),
            "{:.1f}"))
        for role in ROLES:
            row(f"  {role}", role_cells(f"wakeups_{phase}", role))
    row("transport wake-ups / frame",
        cell(lambda r: r["transport_wakeups_per_frame"], fmt="{:.2f}"))
    row("commits while idle", cell(lambda r: r["commits_idle"], fmt="{}"))
    for phase in ("busy", "busy_less_ringers", "idle"):
        row(f"weston CPU vs native, {phase.replace('_', ' ')}", cell(
            lambda r, k=f"weston_cpu_{phase}_vs_native": fmt_ratio(r.get(k)),
            fmt="{}"))


def print_summary(rows):
    """One line per N and path: how the figures grow with N."""
    print("\nSummary (per VM: CPU and wake-ups / N; fds and RSS less a "
          "bare weston, / N)")
    print(f"{'N':>4} {'path':>7} {'up':>9} {'start s':>8} {'fps':>6} "
          f"{'fds':>6} {'fds/VM':>7} {'weston busy':>12} {'idle':>7} "
          f"{'transp. busy':>13} {'wake/s idle':>12} {'tr. wake/fr':>12}")
    for r in rows:
        pv = r["per_vm"]["weston_fds"]
        pv = "-" if pv is None else f"{pv:.1f}"
        up_s = "-" if r["startup_s"] is None else f"{r['startup_s']:.2f}"
        print(f"{r['vms']:>4} {r['path']:>7} "
              f"{r['windows_up']:>4}/{r['windows_expected']:<4} "
              f"{up_s:>8} {r['fps_mean']:>6.1f} {r['weston_fds']:>6} "
              f"{pv:>7} "
              f"{r['weston_cpu_busy']:>12.3f} {r['weston_cpu_idle']:>7.4f} "
              f"{r['transport_cpu_busy']:>13.3f} "
              f"{sum(r['wakeups_idle'].values()):>12.1f} "
              f"{r['transport_wakeups_per_frame']:>12.2f}")


def print_report(rows, failed, header):
    print(header)
    for n in sorted({r["vms"] for r in rows}):
        print_case(rows, n)
    print_summary(rows)
    for r in rows:
        kinds = ", ".join(f"{k} {v}" for k, v in
                          sorted(r["weston_fd_kinds"].items(),
                                 key=lambda kv: -kv[1]))
        print(f"weston fds, {r['path']} N={r['vms']}: {kinds}")
    for r in rows:
        for m in r["vms_missing"]:
            print(f"NOT UP: {r['path']} N={r['vms']} {describe_missing(m)}")
        if r["vms_missing"]:
            print(f"  (weston held {r['weston_fds_up']} fds, RLIMIT_NOFILE "
                  f"{r['nofile']}, when the wait for windows ended)")
    for f in failed:
        print(f"FAILED: {f['path']} N={f['vms']}: {f['error']}")
    print("\nCPU, wake-ups: /proc/PID/task/*/schedstat (ns on CPU; pcount, "
          "times switched onto a CPU), summed over threads and a role's "
          "processes,\ndifferenced over the phase, per second. transport "
          "= ivwl-relay + ivwl-agent + ivwl-server (the plugin runs inside "
          "weston).\nfds, RSS: weston's /proc/PID/fd and VmRSS after the "
          "busy phase. fps: frames presented per second of the animating "
          "windows (their own clock).")


# ---- main -------------------------------------------------------------

def parse_vms(s):
    try:
        out = [int(x) for x in s.split(",")]
    except ValueError:
        out = []
    if not out or min(out) < 1:
        raise SystemExit(f"bad --vms {s!r} (want N,N,... with N >= 1)")
    return out


def main_scale(args):
    if args.quick:
        args.busy, args.idle, args.settle = 2.0, 2.0, 0.5
        args.idle_settle = 0.5
        args.vms = args.vms or "1,2"
    vms = parse_vms(args.vms or "1,8,32,64")
    args.window = parse_sizes(args.window)[0]
    args.output = parse_sizes(args.output)[0]
    paths = [p.strip() for p in args.paths.split(",")]
    if set(paths) - set(PATHS):
        raise SystemExit(f"paths: {', '.join(PATHS)}")
    load0 = machine_line()
    rows, failed = [], []
    for n in vms:
        for path in paths:
            if not args.json:
                log(f"{path}, N = {n}: {2 * n} windows")
            try:
                rows.append(run_case(args, path, n))
            except BenchError as e:
                log(f"FAILED: {path} N={n}: {e}")
                failed.append({"path": path, "vms": n,
                               "nofile": args.nofile, "error": str(e)})
    add_per_vm(rows)
    for r in rows:
        if r["path"] == "native":
            r["weston_cpu_busy_vs_native"] = 1.0
            r["weston_cpu_busy_less_ringers_vs_native"] = 1.0
            r["weston_cpu_idle_vs_native"] = 1.0
    not_up = [f"{r['path']} N={r['vms']}" for r in rows if r["vms_missing"]]
    if failed:
        log(f"{len(failed)} case(s) failed: " + ", ".join(
            f"{f['path']} N={f['vms']}" for f in failed))
    if not_up:
        log(f"windows that never came up in: {', '.join(not_up)}")
    # a failed case is an object too: {path, vms, nofile, error}
    if not emit_json(rows + failed, args):
        w, h = args.window
        ow, oh = args.output
        print_report(rows, failed, f"ivwl-bench scale: per VM one {w}x{h} "
                     f"window animating and one idle, busy {args.busy:g} "
                     f"s, idle {args.idle:g} s, weston headless pixman "
                     f"{ow}x{oh}, RLIMIT_NOFILE {args.nofile}, region "
                     f"{args.region}\nbefore: {load0}\n"
                     f"after:  {machine_line()}")
    return 1 if failed or not_up else 0


def main():
    top = argparse.ArgumentParser(prog="ivwl-bench")
    sub = top.add_subparsers(dest="cmd", required=True)
    ap = sub.add_parser("scale", help="N VMs' windows on one weston")
    ap.add_argument("--build", required=True,
                    help="build tree (ivwl-bench passes its own)")
    ap.add_argument("--vms", help="numbers of VMs, N,... (default "
                    "1,8,32,64; --quick: 1,2)")
    ap.add_argument("--busy", type=float, default=10.0,
                    help="seconds of animation measured (default "
                         "%(default)s)")
    ap.add_argument("--idle", type=float, default=10.0,
                    help="seconds measured with every window still "
                         "(default %(default)s)")
    ap.add_argument("--settle", type=float, default=1.0,
                    help="seconds before each phase (default %(default)s)")
    ap.add_argument("--idle-settle", type=float, default=4.0,
                    help="seconds from 'stop' to the idle phase, at least "
                         "--settle (default %(default)s: a clock-link "
                         "burst runs up to 3 s after the last frame's ask "
                         "and waits 0.2 s more for its last answer)")
    ap.add_argument("--nofile", type=int, default=1024,
                    help="weston's RLIMIT_NOFILE, soft and hard (default "
                         "%(default)s, a desktop session's)")
    ap.add_argument("--region", default="64M",
                    help="region size of every VM (default %(default)s)")
    ap.add_argument("--window", default="256x256",
                    help="size of every window (default %(default)s)")
    ap.add_argument("--output", default="1920x1080",
                    help="weston's output (default %(default)s)")
    ap.add_argument("--up-timeout", type=float, default=60.0,
                    help="seconds to wait for the windows to come up, and "
                         "for weston's word on its VMs (default "
                         "%(default)s)")
    ap.add_argument("--quick", action="store_true",
                    help="smoke run: 2 s busy, 2 s idle, N = 1,2")
    add_common_args(ap, PATHS)
    return run(top.parse_args(), main_scale)


if __name__ == "__main__":
    sys.exit(main())
