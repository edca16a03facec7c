#!/usr/bin/env python3
"""chromium through ivwl with its sandbox on: zero-copy and exact colours.

    test-chromium.py sandboxed

chromium refuses its sandbox as root, so as root the browser runs as
nobody (setpriv), with a profile and HOME of its own.  The GPU process
must run under seccomp (the sandbox is really on), the window must show
the page's exact colours, and the relay must have drawn every commit of
the window in place: chromium's buffers are made and drawn by its GPU
process and sent by its browser process (client-shim/zero-copy-app.c).
"""

import os
import pwd
import shutil
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from session import Failure, Session, wait_for  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
GREEN = (0x12, 0x9a, 0x56)
RED = (0xc0, 0x30, 0x20)


def as_user(s):
    """argv prefix and env running chromium unprivileged when root."""
    if os.geteuid() != 0:
        return [], {}
    u = pwd.getpwnam("nobody")
    home = s.path("chromium-home")
    os.mkdir(home)
    os.chown(home, u.pw_uid, u.pw_gid)
    os.chmod(s.dir, 0o711)
    os.chown(s.path("app-work"), u.pw_uid, u.pw_gid)
    os.chmod(s.path("work-agent.sock"), 0o666)
    return (["setpriv", f"--reuid={u.pw_uid}", f"--regid={u.pw_gid}",
             "--clear-groups", "--"], {"HOME": home})


def gpu_process_seccomp():
    """Seccomp mode of chromium's GPU process (2: filtered), or None."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read()
            if b"--type=gpu-process" not in cmd:
                continue
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("Seccomp:"):
                        return int(line.split()[1])
        except OSError:
            continue
    return None


def wrong_pixels(rows, bpp, rect, colour):
    """Pixels of rect (screen coordinates) that are not colour."""
    return sum(tuple(rows[y][x * bpp:x * bpp + 3]) != colour
               for y in range(rect[1], rect[3])
               for x in range(rect[0], rect[2]))


def page_exact(s, view):
    """The box (200 x 120, red) and the green beside it, exactly: None
    until the page shows, else the count of wrong pixels."""
    sw, sh, bpp, rows = s.screenshot()
    x0, y0, x1, y1 = view["rect"]
    red = [(x, y) for y in range(max(y0, 0), min(y1, sh), 4)
           for x in range(max(x0, 0), min(x1, sw), 4)
           if tuple(rows[y][x * bpp:x * bpp + 3]) == RED]
    if not red:
        return None
    left = min(x for x, _ in red)
    top = min(y for _, y in red)
    while left > 0 and tuple(rows[top][(left - 1) * bpp:left * bpp]) == RED:
        left -= 1
    while top > 0 and tuple(rows[top - 1][left * bpp:left * bpp + 3]) == RED:
        top -= 1
    # The box is 200 x 120 at page (40, 40); the dot moves below it.
    return (wrong_pixels(rows, bpp, (left, top, left + 200, top + 120), RED)
            + wrong_pixels(rows, bpp, (left + 220, top - 30, left + 520,
                                       top + 150), GREEN))


def all_stats(path):
    with open(path) as f:
        return [{k: int(v) for k, v in (kv.split("=") for kv in
                                         line.split()[1:])}
                for line in f if line.startswith("ivwl-stats:")]


def case_sandboxed(s):
    prefix, env = as_user(s)
    profile = s.path("chromium-profile")
    os.mkdir(profile)
    if prefix:
        u = pwd.getpwnam("nobody")
        os.chown(profile, u.pw_uid, u.pw_gid)
    page = s.path("zero-copy.html")
    with open(os.path.join(HERE, "pages", "zero-copy.html")) as src, \
            open(page, "w") as dst:
        dst.write(src.read())
    os.chmod(page, 0o644)
    p = s.client(prefix + [
        "chromium", "--ozone-platform=wayland", "--disable-gpu",
        "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync",
        "--password-store=basic", "--window-size=800,600",
        f"--user-data-dir={profile}", f"file://{page}"],
        log="chromium.log", extra_env=dict(env, IVWL_STATS="1",
                                           IVWL_DEBUG="1"))
    view = s.wait_view("[work] ivwl-zc - Chromium", timeout=90)
    mode = wait_for("chromium's GPU process", gpu_process_seccomp, 30)
    if mode != 2:
        raise Failure(f"chromium's GPU process has Seccomp {mode}: the "
                      "sandbox is off")
    print("chromium's GPU process runs under seccomp (sandbox on)")

    wait_for("the page's exact colours",
             lambda: page_exact(s, view) == 0, 30, 1.0)
    print("the page shows its green and red exactly")
    time.sleep(3)
    p.send_signal(signal.SIGTERM)
    p.wait(30)
    stats = wait_for("the relays' stats", lambda: [
        st for st in all_stats(s.path("chromium.log"))
        if st["commits"] > 0], 20)
    commits = sum(st["commits"] for st in stats)
    in_place = sum(st["zero_copy_commits"] for st in stats)
    copied = sum(st["copied_bytes"] for st in stats)
    print(f"chromium: {commits} commits, {in_place} drawn in place, "
          f"{copied} bytes copied")
    if commits < 30:
        raise Failure(f"only {commits} commits from the animated page")
    # The first buffer, made before the window had its size, may be too
    # small to move (under 512 KiB): at most a couple of commits.
    if in_place < commits - 2:
        raise Failure(f"{commits - in_place} of {commits} commits copied")


CASES = {"sandboxed": case_sandboxed}


def main():
    signal.signal(signal.SIGTERM, lambda *a: (_ for _ in ()).throw(
        Failure("killed by SIGTERM (timeout?)")))
    if len(sys.argv) != 2 or sys.argv[1] not in CASES:
        print(f"usage: {sys.argv[0]} ({'|'.join(CASES)})")
        return 2
    if not shutil.which("chromium") or not shutil.which("setpriv"):
        print("SKIP: chromium or setpriv is not installed")
        return 77
    s = Session(("work",), width=1024, height=768)
    try:
        CASES[sys.argv[1]](s)
        print(f"PASS chromium-{sys.argv[1]}")
        return 0
    except Failure as e:
        print(f"FAIL chromium-{sys.argv[1]}: {e}")
        s.dump_logs()
        return 1
    finally:
        s.close()


if __name__ == "__main__":
    sys.exit(main())
