# SPDX-License-Identifier: MIT
"""What the benchmarks (frames.py, chromium.py, scale.py) know of
processes: their errors and log, and from /proc the processes under this
driver, their CPU, wake-ups and bytes through system calls, summed per
role between two snapshots.

CPU is the sum over a process's threads of the time on CPU in
/proc/PID/task/TID/schedstat (ns), for every process that descends from
the driver (it makes itself a child subreaper: bench_run.run).
"""

import os
import re
import sys
import time


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


# ---- CPU and bytes per role, the relay's figures -------------------------

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
    if comm in ("Xwayland", "ivwl-xwm"):
        return comm
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
