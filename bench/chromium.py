#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`ivwl-bench chromium`: a real browser (Debian's chromium, or firefox-esr
with --browser firefox) showing pages that animate, through weston by
every path of `ivwl-bench frames`, side by side in one run:

    chromium.py chromium --build DIR [--sizes WxH,..] [--pages P,..]
                [--paths P,..] [--repeat N] [--warmup S] [--measure S]
                [--quick] [--browser chromium|firefox] [--json]

Pages (bench/pages/, file:// URLs, no network): `full` (a canvas as large
as the window, every pixel new each frame), `small` (one 64x64 element
with a CSS animation on a static page), `scroll` (a long text page
scrolled by 4 px each frame), `video` (a <video> as large as the window;
its WebM file is made with ffmpeg, and the page is skipped when ffmpeg is
missing), `video-fullscreen` (the same, the browser started with --kiosk:
its window fullscreen, the VM's fullscreen=always).  Each page counts its requestAnimationFrame callbacks over the
measured window and writes the result to the console; the browser copies
console messages to its stderr (chromium: --enable-logging=stderr, CONSOLE
lines; firefox: devtools.console.stdout.content), where this script reads
them.  The page's own lines also mark the window: CPU is sampled when the
"measure" line appears and again at the "done" line.

CPU is counted from /proc/PID/stat, utime + stime plus cutime + cstime
(the times of children a process has reaped), of every process that
descends from this driver, zombies included, at both ends of the window;
see cpu_between.  One weston per size (headless, pixman, output as large
as the window) serves every path; the paths are frames.py's
(bench_display.py's PATHS), except that ivwl-zero-copy leaves
IVWL_ZERO_COPY unset (auto, the default mode).
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_display import (  # noqa: E402  (beside this file)
    PATHS, TRANSPORT, Display, available_paths)
from bench_proc import (  # noqa: E402
    BenchError, cpu_ns, log, parse_kv, read, reap_orphans)
from bench_report import (  # noqa: E402
    add_ratios, emit_json, fmt_bytes, fmt_ratio, machine_line, median_rows,
    table)
from bench_run import (  # noqa: E402
    add_common_args, parse_sizes, run, try_case)

PAGES = ("full", "small", "scroll", "video", "video-fullscreen")
# pages shown fullscreen (the browser's --kiosk), and the HTML file of each
FULLSCREEN_PAGES = ("video-fullscreen",)
PAGE_FILES = {"video-fullscreen": "video"}
PAGES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                         "pages")
CLK_TCK = os.sysconf("SC_CLK_TCK")
ROLES = ("browser", "weston", "ivwl-relay", "ivwl-agent", "ivwl-server",
         "waypipe")
LINE = re.compile(r"ivwl-bench: (ready|measure|done|error) ([^\"\n]*)")


# ---- CPU of process trees that fork and exit --------------------------

def proc_times(pid):
    """(comm, ppid, state, starttime, own ticks, reaped children's ticks)
    from /proc/PID/stat, or None.  A zombie keeps its times until its
    parent reaps it."""
    s = read(f"/proc/{pid}/stat")
    if not s:
        return None
    comm = s[s.index("(") + 1:s.rindex(")")]
    f = s[s.rindex(")") + 2:].split()
    # fields 3.. of proc(5): state ppid ... utime(14) stime cutime cstime
    return (comm, int(f[1]), f[0], int(f[19]), int(f[11]) + int(f[12]),
            int(f[13]) + int(f[14]))


def tree(root):
    """pid -> proc_times of every process under root, zombies too."""
    info = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            t = proc_times(int(name))
            if t:
                info[int(name)] = t
    children = {}
    for pid, t in info.items():
        children.setdefault(t[1], []).append(pid)
    out, todo = {}, [root]
    while todo:
        for c in children.get(todo.pop(), []):
            out[c] = info[c]
            todo.append(c)
    return out


def roles_of(snap, fixed, browser_root):
    """pid -> role: fixed[pid] (weston, ivwl-server, ivwl-agent, the
    waypipes), relays by name, weston's helpers, everything under
    browser_root, and the browser's orphans: processes it started that
    left its tree (chromium's crashpad handler, firefox's crash helper)
    and came to this driver, the subreaper, which starts nothing else
    while a browser runs."""
    me = os.getpid()

    def role(pid):
        seen = set()
        p = pid
        while p in snap and p not in seen:
            seen.add(p)
            if p in fixed:
                return fixed[p]
            if snap[p][0].startswith("ivwl-relay"):
                return "ivwl-relay"
            if snap[p][0].startswith("waypipe"):
                return "waypipe"
            if p == browser_root or snap[p][1] == me:
                return "browser"
            p = snap[p][1]
        return "other:" + snap[pid][0]
    return {pid: role(pid) for pid in snap}


def cpu_between(before, after, roles):
    """role -> seconds on CPU between two tree() snapshots.

    A process alive at both ends adds the growth of its own and of its
    reaped children's times; one born in the window adds all of them.
    One that died and was reaped in the window shows up in its parent's
    reaped-children times with its whole life, so what it had used before
    the window is taken off again.  Threads that exit stay in their
    process's times.  Missed: processes reaped by a parent outside the
    tree (only this driver, which reaps nothing during the window)."""
    out = {}

    def same(pid):
        b = before.get(pid)
        return b if b and b[3] == after[pid][3] else None

    for pid, t in after.items():
        b = same(pid)
        ticks = t[4] + t[5] - ((b[4] + b[5]) if b else 0)
        r = roles.get(pid, "other:" + t[0])
        out[r] = out.get(r, 0) + ticks
    for pid, b in before.items():
        if pid in after and after[pid][3] == b[3]:
            continue
        r = roles.get(pid, "other:" + b[0])
        out[r] = out.get(r, 0) - (b[4] + b[5])
    return {r: v / CLK_TCK for r, v in out.items()}


def thread_ticks(snap, want):
    """(pid, tid) -> (thread name, ticks on CPU) of the threads of the
    processes of snap that want(pid) picks."""
    out = {}
    for pid in snap:
        if not want(pid):
            continue
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            s = read(f"/proc/{pid}/task/{tid}/stat")
            if not s:
                continue
            f = s[s.rindex(")") + 2:].split()
            out[(pid, tid)] = (s[s.index("(") + 1:s.rindex(")")],
                               int(f[11]) + int(f[12]))
    return out


def threads_between(before, after, top=4):
    """The top threads by CPU between two thread_ticks(), summed by
    name over processes (chromium's renderers and GPU process each have a
    "Compositor" thread): [(name, seconds)], most first.  A thread born
    in the window counts whole."""
    by = {}
    for key, (name, ticks) in after.items():
        b = before.get(key)
        by[name] = by.get(name, 0) + ticks - (b[1] if b else 0)
    ranked = sorted(by.items(), key=lambda kv: -kv[1])[:top]
    return [(name, t / CLK_TCK) for name, t in ranked if t > 0]


# Processes whose wake-ups are counted: weston and the transport's.  The
# browser's dozens of threads are left out; what it pays is in its CPU.
WAKE_ROLES = ("weston", "ivwl-relay", "ivwl-agent", "ivwl-server", "waypipe")


def sched_runs(snap):
    """pid -> (start time, times scheduled in, ns on CPU) for the
    processes of snap whose name is one of WAKE_ROLES (bench_proc.cpu_ns
    counts them)."""
    out = {}
    for pid, t in snap.items():
        if t[0].startswith(WAKE_ROLES):
            c = cpu_ns(pid)
            if c:
                out[pid] = (t[3], c[1], c[0])
    return out


def runs_between(before, after, roles):
    """role -> (times scheduled in, seconds on CPU) between two
    sched_runs(), of the processes alive at both (a relay born in the
    window is start-up).  The seconds are the scheduler's own count: the
    transport runs for tens of microseconds at a time, far below the
    4 ms tick that /proc/PID/stat samples."""
    out = {}
    for pid, (start, n, ns) in after.items():
        b = before.get(pid)
        if b and b[0] == start:
            r = roles.get(pid, "other")
            o = out.get(r, (0, 0.0))
            out[r] = (o[0] + n - b[1], o[1] + (ns - b[2]) / 1e9)
    return out


# ---- browsers ---------------------------------------------------------

def chromium_argv(profile, w, h, url, fullscreen=False):
    argv = ["chromium", "--ozone-platform=wayland", "--disable-gpu",
            "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync",
            "--password-store=basic", f"--user-data-dir={profile}",
            f"--window-size={w},{h}", "--enable-logging=stderr", "--v=0",
            "--autoplay-policy=no-user-gesture-required", "--test-type"]
    if os.geteuid() == 0:
        argv.append("--no-sandbox")   # chromium refuses root otherwise
    if fullscreen:
        argv.append("--kiosk")
    return argv + [url], {}


FIREFOX_PREFS = """\
user_pref("devtools.console.stdout.content", true);
user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("browser.startup.homepage_override.mstone", "ignore");
user_pref("browser.aboutwelcome.enabled", false);
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);
user_pref("app.update.auto", false);
user_pref("app.normandy.enabled", false);
user_pref("browser.safebrowsing.update.enabled", false);
user_pref("extensions.update.enabled", false);
user_pref("media.autoplay.default", 0);
user_pref("gfx.webrender.software", true);
"""


def firefox_argv(profile, w, h, url, fullscreen=False):
    with open(os.path.join(profile, "user.js"), "w") as f:
        f.write(FIREFOX_PREFS)
    return (["firefox-esr", "-no-remote", "-profile", profile, "-width",
             str(w), "-height", str(h)] + (["--kiosk"] if fullscreen else
                                           []) + [url],
            {"MOZ_ENABLE_WAYLAND": "1", "MOZ_HEADLESS": ""})


BROWSERS = {
    # name: (executable, comm of its main process, argv maker)
    "chromium": ("chromium", "chromium", chromium_argv),
    "firefox": ("firefox-esr", "firefox-esr", firefox_argv),
}


# ---- one page in one browser through one path -------------------------

def make_video(dirpath, w, h, fps=30):
    """A 4 s VP8 WebM of the window's size at fps, or (None, why not)."""
    if not shutil.which("ffmpeg"):
        return None, "ffmpeg is not installed (apt-get install ffmpeg)"
    out = os.path.join(dirpath, f"video-{w}x{h}-{fps}.webm")
    if os.path.exists(out):
        return out, None
    p = subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i",
                        f"testsrc2=size={w}x{h}:rate={fps}", "-t", "4",
                        "-c:v", "libvpx", "-deadline", "realtime",
                        "-cpu-used", "8", "-b:v", "8M", "-y", out],
                       capture_output=True, timeout=300)
    if p.returncode != 0:
        return None, ("ffmpeg could not make a VP8 file: " +
                      p.stderr.decode(errors="replace")[-300:])
    return out, None


class Log:
    """The page's lines, read as the browser appends them to its log."""

    def __init__(self, path):
        self.path = path
        self.pos = 0
        self.buf = ""

    def wait(self, kind, timeout, alive):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with open(self.path, errors="replace") as f:
                f.seek(self.pos)
                chunk = f.read()
                self.pos = f.tell()
            self.buf += chunk
            while "\n" in self.buf:
                line, self.buf = self.buf.split("\n", 1)
                m = LINE.search(line)
                if m and m.group(1) == "error":
                    raise BenchError(f"the page says: {m.group(2)}")
                if m and m.group(1) == kind:
                    return parse_kv(m.group(2))
            if not alive():
                raise BenchError(f"the browser exited before '{kind}'")
            time.sleep(0.02)
        raise BenchError(f"no '{kind}' line from the page in {timeout} s")


def relay_lines(text):
    """Sum of every relay's IVWL_STATS line (one per Wayland connection:
    chromium opens two)."""
    total, n = {}, 0
    for line in text.splitlines():
        if line.startswith("ivwl-stats:"):
            n += 1
            for k, v in parse_kv(line).items():
                total[k] = total.get(k, 0) + v
    return (total, n) if n else (None, 0)


def kill_all(pids, sig):
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def close_browser(p, main_pids, timeout=30.0):
    """SIGTERM to the browser's main process: it closes its windows and
    its Wayland connection, so each relay prints its IVWL_STATS line."""
    kill_all(main_pids, signal.SIGTERM)
    try:
        p.wait(timeout)
        return True
    except subprocess.TimeoutExpired:
        kill_all(tree(p.pid), signal.SIGKILL)
        p.kill()
        p.wait()
        return False


def wait_gone(pids, snap, timeout=20.0):
    """Waits for the processes of a snapshot to end, kills those that do
    not; True if none had to be killed."""
    def left():
        out = []
        for pid in pids:
            t = proc_times(pid)
            if t and t[3] == snap[pid][3] and t[2] != "Z":
                out.append(pid)
        return out
    end = time.monotonic() + timeout
    while left() and time.monotonic() < end:
        time.sleep(0.1)
    rest = left()
    kill_all(rest, signal.SIGKILL)
    return not rest


def wait_relays_gone(timeout=20.0):
    """Relays detach from the browser and end (after their stats line)
    once their connection is over."""
    end = time.monotonic() + timeout
    me = os.getpid()
    while time.monotonic() < end:
        left = [pid for pid, t in tree(me).items()
                if t[0].startswith("ivwl-relay") and t[2] != "Z"]
        if not left:
            return True
        time.sleep(0.1)
    return False


def run_page(disp, args, path, page, w, h, index, video):
    """One browser on one page through path: a row of figures."""
    measure = args.measure
    _, comm, make_argv = BROWSERS[args.browser]
    prefix, env = disp.env_for(path)
    if path == "ivwl-zero-copy" and args.zero_copy == "auto":
        env.pop("IVWL_ZERO_COPY", None)
    elif path == "ivwl-zero-copy":
        env["IVWL_ZERO_COPY"] = args.zero_copy
    profile = disp.path(f"profile-{index}")
    os.mkdir(profile, 0o700)
    query = f"warmup={int(args.warmup * 1000)}&measure=" \
            f"{int(measure * 1000)}"
    if page.startswith("video"):
        query += "&video=file://" + video
    url = f"file://{PAGES_DIR}/{PAGE_FILES.get(page, page)}.html?{query}"
    argv, extra_env = make_argv(profile, w, h, url,
                                page in FULLSCREEN_PAGES)
    env.update(extra_env)
    for k, v in extra_env.items():
        if not v:
            env.pop(k, None)
    logname = f"{args.browser}-{index}-{path}-{page}-{w}x{h}.log"
    # stdout too goes to the log: firefox writes console messages there
    p = disp.spawn(prefix + argv, logname, env)
    fixed = disp.roles()
    if path == "waypipe" and disp.waypipe:
        fixed[disp.waypipe.pid] = "waypipe"

    def alive():
        return p.poll() is None

    me = os.getpid()
    log_ = Log(disp.path(logname))
    try:
        ready = log_.wait("ready", 120, alive)
        log_.wait("measure", args.warmup + 60, alive)
        live0 = disp.live_app() if path.startswith("ivwl") else None
        before = tree(me)
        runs_before = sched_runs(before)
        threads_before = thread_ticks(before, lambda pid: True)
        t0 = time.monotonic()
        done = log_.wait("done", measure + 60, alive)
        after = tree(me)
        runs_after = sched_runs(after)
        threads_after = thread_ticks(after, lambda pid: True)
        wall = time.monotonic() - t0
        live1 = disp.live_app() if live0 is not None else None
        # the browser's main process: under waypipe, the server's child
        main_pids = [p.pid] if path != "waypipe" else \
            [pid for pid, t in after.items() if t[1] == p.pid and
             t[0] == comm]
        browser_root = main_pids[0] if main_pids else -1
    except BenchError as e:
        close_browser(p, [p.pid], 5)
        raise BenchError(f"{path} {page} {w}x{h}: {e}; see "
                         f"{disp.path(logname)}:\n" +
                         (read(disp.path(logname)) or "")[-2000:])
    clean = close_browser(p, main_pids)
    # and every process it started: none may run on into the next case
    roles = roles_of({**before, **after}, fixed, browser_root)
    clean = wait_gone([pid for pid, r in roles.items()
                       if r == "browser" and pid in after], after) and clean
    stats, connections = None, 0
    if path.startswith("ivwl"):
        wait_relays_gone()
        stats, connections = relay_lines(read(disp.path(logname)) or "")
    reap_orphans({q.pid for q in disp.procs})
    shutil.rmtree(profile, ignore_errors=True)
    if path.startswith("ivwl") and stats is None:
        raise BenchError(f"{path} {page} {w}x{h}: no IVWL_STATS line "
                         f"from the relay (closed cleanly: {clean})")

    cpu = cpu_between(before, after,
                      roles_of({**before, **after}, fixed, browser_root))
    browser_pids = {pid for pid, r in roles.items() if r == "browser"}
    threads = threads_between(
        {k: v for k, v in threads_before.items() if k[0] in browser_pids},
        {k: v for k, v in threads_after.items() if k[0] in browser_pids})
    total = sum(cpu.values())
    fps = done.get("fps", 0.0)
    per_frame = 1000.0 / (fps * wall) if fps and wall else 0.0
    transport = sum(cpu.get(k, 0.0) for k in TRANSPORT[path])
    frames_in_window = fps * wall
    sched = runs_between(runs_before, runs_after, roles)
    wakes = {r: n / frames_in_window if frames_in_window else 0.0
             for r, (n, _) in sched.items()}
    sched_s = {r: s for r, (_, s) in sched.items()}
    r = {
        "browser": args.browser,
        "path": path,
        "page": page,
        "size": f"{w}x{h}",
        "viewport": done.get("viewport", ready.get("viewport")),
        "window": "fullscreen" if page in FULLSCREEN_PAGES else "windowed",
        "browser_threads_cpu_s": threads,
        "fps": fps,
        "frames": done.get("frames", 0),
        "page_ms": done.get("ms", 0.0),
        "wall_s": wall,
        "cpu_s": total,
        "cpu_percent": 100.0 * total / wall if wall else 0.0,
        "cpu_ms_per_frame": total * per_frame,
        "transport_cpu_s": transport,
        "transport_cpu_ms_per_frame": transport * per_frame,
        "cpu_s_by_process": cpu,
        "sched_cpu_s_by_process": sched_s,
        "transport_sched_cpu_ms_per_frame": sum(
            sched_s.get(k, 0.0) for k in TRANSPORT[path]) * per_frame,
        "wakeups_per_frame_by_process": wakes,
        "transport_wakeups_per_frame": sum(
            wakes.get(k, 0.0) for k in TRANSPORT[path]),
        "copied_bytes_per_frame": 0.0,
        "closed_cleanly": clean,
    }
    for k in ("raf_fps", "raf_frames", "video_dropped"):
        if k in done:
            r[k] = done[k]
    if stats:
        commits = max(stats.get("commits", 0), 1)
        r["copied_bytes_per_commit_whole_run"] = \
            stats.get("copied_bytes", 0) / commits
        r["copied_bytes_per_frame"] = r["copied_bytes_per_commit_whole_run"]
        r["damaged_bytes_per_frame"] = stats.get("damaged_bytes", 0) / \
            commits
        r["copied_bytes_source"] = (
            "ivwl-relay IVWL_STATS copied_bytes / commits, every "
            "connection, whole run (start-up and warm-up included)")
        r["relay_stats"] = stats
        r["relay_connections"] = connections
        window_figures(r, live0, live1)
    elif path == "waypipe":
        r["copied_bytes_source"] = "not measured for waypipe"
    else:
        r["copied_bytes_source"] = "none: weston reads the browser's shm"
    return r


def window_figures(r, live0, live1):
    """The measured window's commits, damage and copies: the relays'
    counters as weston's live view showed them at the page's 'measure'
    and 'done' lines (the relays publish them in the region as they
    change), per frame the page counted and per commit (chromium commits
    once a frame, firefox 1.5 to 2 times)."""
    d = {k: live1.get(k, 0) - live0.get(k, 0) for k in live1}
    commits = d.get("app_buffer_commits", 0)
    frames = r.get("frames", 0)
    r["window_live_view"] = d
    r["window_commits"] = commits
    r["window_zero_copy_commits"] = d.get("app_zero_copy_commits", 0)
    if frames <= 0:
        return
    r["commits_per_frame"] = commits / frames
    for key in ("copied_bytes", "damaged_bytes"):
        b = d.get(f"app_{key}", 0)
        r[f"{key}_per_frame"] = b / frames
        if commits > 0:
            r[f"{key}_per_commit"] = b / commits
    r["copied_bytes_source"] = (
        "weston's live view (weston-debug ivwl): the relays' counters at "
        "the page's 'measure' and 'done' lines, per frame the page counted")


# ---- reports ----------------------------------------------------------

MEDIAN_KEYS = ("fps", "raf_fps", "cpu_ms_per_frame",
               "transport_cpu_ms_per_frame", "cpu_percent",
               "copied_bytes_per_frame", "transport_wakeups_per_frame")
RATIOS = (("cpu", "cpu_ms_per_frame", ("native", "waypipe")),)


def print_table(rows, header):
    print(header)
    groups = []
    for r in rows:
        if (r["size"], r["page"]) not in groups:
            groups.append((r["size"], r["page"]))
    for size, page in groups:
        by = {r["path"]: r for r in rows
              if r["size"] == size and r["page"] == page}
        paths = [p for p in PATHS if p in by]
        first = by[paths[0]]
        print(f"\n{size}, page {page} (viewport {first['viewport']}, "
              f"{first.get('runs', 1)} run(s))")
        row = table(paths, by)
        row("viewport", lambda r: r["viewport"] + (
            "" if r["viewport"] == size else " (not the output's)"))
        row("fps (the page's count)", lambda r: f"{r['fps']:.1f}")
        if any("video_dropped" in r for r in by.values()):
            row("  video frames dropped", lambda r:
                str(r.get("video_dropped", "-")))
        if any(r.get("raf_fps", r["fps"]) != r["fps"] for r in by.values()):
            row("  requestAnimationFrame / s", lambda r:
                f"{r.get('raf_fps', 0):.1f}")
        row("CPU % of one core, all", lambda r: f"{r['cpu_percent']:.0f}")
        row("CPU ms / frame, all", lambda r: f"{r['cpu_ms_per_frame']:.2f}")
        for proc in ROLES:
            if any(proc in r["cpu_s_by_process"] for r in by.values()):
                row(f"  {proc}, CPU %", lambda r, proc=proc: "%.1f" % (
                    100 * r["cpu_s_by_process"].get(proc, 0.0) /
                    r["wall_s"]))
        others = sorted({k for r in by.values() for k in r["cpu_s_by_process"]
                         if k.startswith("other:")})
        for proc in others:
            row(f"  {proc}, CPU %", lambda r, proc=proc: "%.1f" % (
                100 * r["cpu_s_by_process"].get(proc, 0.0) / r["wall_s"]))
        for i in range(3):
            row(f"  browser thread {i + 1}, CPU %" if i else
                "  browser's busiest threads, CPU %",
                lambda r, i=i: "%s %.1f" % (
                    r["browser_threads_cpu_s"][i][0][:10],
                    100 * r["browser_threads_cpu_s"][i][1] / r["wall_s"])
                if len(r.get("browser_threads_cpu_s", ())) > i else "-")
        row("transport CPU ms / frame",
            lambda r: f"{r['transport_cpu_ms_per_frame']:.3f}")
        row("  by the scheduler's count", lambda r: "%.3f" % r.get(
            "transport_sched_cpu_ms_per_frame", 0.0))
        row("wake-ups / frame: weston",
            lambda r: "%.2f" % r["wakeups_per_frame_by_process"].get(
                "weston", 0.0))
        row("  transport", lambda r: "%.2f" % r["transport_wakeups_per_frame"])
        row("damage / frame (relay)", lambda r: fmt_bytes(
            r["damaged_bytes_per_frame"]) if "relay_stats" in r else "-")
        row("copied / frame (relay)", lambda r: fmt_bytes(
            r["copied_bytes_per_frame"]) if "relay_stats" in r else "-")
        row("commits / frame (relay)", lambda r: "%.2f" %
            r["commits_per_frame"] if "commits_per_frame" in r else "-")
        row("zero-copy commits / all", lambda r: "%d/%d" % (
            r.get("window_zero_copy_commits",
                  r["relay_stats"].get("zero_copy_commits", 0)),
            r.get("window_commits", r["relay_stats"].get("commits", 0)))
            if "relay_stats" in r else "-")
        if "native" in by:
            row("CPU vs native", lambda r: fmt_ratio(r.get("cpu_vs_native")))
        if "waypipe" in by:
            row("CPU vs waypipe",
                lambda r: fmt_ratio(r.get("cpu_vs_waypipe")))
    print("\nCPU: /proc utime+stime (+ reaped children) of every process "
          "between the page's 'measure' and 'done' lines; per frame = CPU "
          "per second / the page's fps.\nwake-ups: times each process's "
          "threads were scheduled in (/proc/PID/task/*/schedstat), per "
          "frame the page counted; 'by the scheduler's count': the ns they "
          "ran by the same file, exact where the 4 ms tick samples.\n"
          "transport: ivwl = relay + agent + "
          "server (the plugin runs inside weston); waypipe = both "
          "waypipes.\ndamage, copied, commits: the relays' counters in "
          "weston's live view (weston-debug ivwl) at the page's 'measure' "
          "and 'done' lines,\nper frame the page counted.")


# ---- main -------------------------------------------------------------

def main_chromium(args):
    exe = BROWSERS[args.browser][0]
    if not shutil.which(exe):
        raise SystemExit(f"{exe} is not installed")
    if args.quick:
        args.warmup, args.measure, args.repeat = 2.0, 3.0, 1
    sizes = parse_sizes(args.sizes)
    pages = [p.strip() for p in args.pages.split(",")]
    for p in pages:
        if p not in PAGES:
            raise SystemExit(f"bad page {p!r} ({', '.join(PAGES)})")
    paths = available_paths([p.strip() for p in args.paths.split(",")])
    if not paths:
        raise SystemExit("no path to run")
    load0 = machine_line()
    rows, failed, skipped = [], [], []
    i = 0
    for w, h in sizes:
        # a kiosk VM: its browser's fullscreen asks no user input
        disp = Display(args.build, w, h, args.keep_logs,
                       args.repaint_window,
                       vm_options=["fullscreen=always"])
        try:
            video, why, run_pages = None, None, pages
            if any(p.startswith("video") for p in pages):
                video, why = make_video(disp.dir, w, h, args.video_fps)
                if why:
                    log(f"skipping the video pages: {why}")
                    skipped.append(f"video {w}x{h}: {why}")
                    run_pages = [p for p in pages
                                 if not p.startswith("video")]
            for rep in range(args.repeat):
                for page in run_pages:
                    for path in paths:
                        if not args.json:
                            log(f"{args.browser} {page} {w}x{h} via {path}"
                                f" (run {rep + 1}/{args.repeat})")
                        r = try_case(disp, failed, f"{path} {page} {w}x{h}",
                                     run_page, disp, args, path, page, w, h,
                                     i, video)
                        i += 1
                        if not r:
                            continue
                        r["repeat"] = rep
                        rows.append(r)
        finally:
            disp.close()
    rows = median_rows(rows, ("path", "page", "size"), MEDIAN_KEYS,
                       ("cpu_ms_per_frame", "fps", "copied_bytes_per_frame"))
    add_ratios(rows, ("size", "page"), RATIOS)
    for r in rows:
        if r["path"] in ("native", "waypipe"):
            r[f"cpu_vs_{r['path']}"] = 1.0
    if failed:
        log(f"{len(failed)} case(s) failed: {', '.join(failed)}")
    if not emit_json(rows, args):
        print_table(rows, f"ivwl-bench chromium: {args.browser}, "
                    f"{args.warmup:g} s warm-up then {args.measure:g} s "
                    f"measured, median of {args.repeat} interleaved runs, "
                    f"weston headless pixman\nbefore: {load0}\n"
                    f"after:  {machine_line()}")
        for s in skipped:
            print(f"skipped: {s}")
    return 1 if failed else 0


def main():
    top = argparse.ArgumentParser(prog="ivwl-bench")
    sub = top.add_subparsers(dest="cmd", required=True)
    ap = sub.add_parser("chromium", help="browsers through every path")
    ap.add_argument("--build", required=True,
                    help="build tree (ivwl-bench passes its own)")
    ap.add_argument("--browser", choices=sorted(BROWSERS),
                    default="chromium")
    ap.add_argument("--sizes", default="1920x1080,2560x1440",
                    help="window = weston output sizes, WxH,... "
                         "(default %(default)s)")
    ap.add_argument("--pages", default=",".join(PAGES),
                    help="default %(default)s")
    ap.add_argument("--repeat", type=int, default=3,
                    help="runs per case, interleaved; median reported")
    ap.add_argument("--warmup", type=float, default=5.0,
                    help="seconds of animation before measuring")
    ap.add_argument("--measure", type=float, default=15.0,
                    help="seconds measured")
    ap.add_argument("--video-fps", type=int, default=30,
                    help="frame rate of the video pages' clip "
                         "(default %(default)s)")
    ap.add_argument("--quick", action="store_true",
                    help="smoke run: 2 s warm-up, 3 s measured, 1 run")
    ap.add_argument("--zero-copy", default="auto", choices=("auto", "on"),
                    help="IVWL_ZERO_COPY of the ivwl-zero-copy path "
                         "(default: unset, i.e. auto)")
    add_common_args(ap, PATHS)
    return run(top.parse_args(), main_chromium)


if __name__ == "__main__":
    sys.exit(main())
