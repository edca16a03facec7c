#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Integration cases: real weston + ivwl.so + unmodified clients.

    test-weston.py CASE      (meson runs one case per test)
"""

import os
import pwd
import signal
import subprocess
import sys
import time

from ivwltest.session import (ENV, FRAME_BORDER, Failure, Listing, Session,  # noqa: E402
                     case_main, check_border, compare_window, wait_for)


def pattern(session, vm, name, frames=12, w=240, h=180, extra=(),
            extra_env=None):
    dump = session.path(f"{name}.raw")
    p = session.client([ENV["IVWL_PATTERN_CLIENT"], "--frames", str(frames),
                        "--width", str(w), "--height", str(h), "--title",
                        name, "--dump", dump, *extra], vm=vm,
                       log=f"{name}.log", extra_env=extra_env)
    return p, dump


def case_pattern_pixels(s):
    p, dump = pattern(s, "work", "pattern")
    s.wait_line(p, "ready")
    view = s.wait_view("[work] pattern")
    compare_window(s, view, dump, 240, 180)


def relay_stats(session, proc, log):
    """Ends the client; returns its relay's IVWL_STATS numbers."""
    proc.terminate()
    proc.wait()
    path = session.path(log)

    def stats_line():
        with open(path) as f:
            for line in f:
                if line.startswith("ivwl-stats:"):
                    return line
        return None
    line = wait_for(f"the relay's stats line in {log}", stats_line, 10.0)
    return {k: int(v) for k, v in
            (kv.split("=") for kv in line.split()[1:])}


def zero_copy_run(s, name, pool, env=None, frames=12, w=240, h=180):
    """A pattern client with --pool pool: pixel-exact, then its stats."""
    dump = s.path(f"{name}.raw")
    p = s.client([ENV["IVWL_PATTERN_CLIENT"], "--frames", str(frames),
                  "--title", name, "--dump", dump, "--pool", pool,
                  "--width", str(w), "--height", str(h)],
                 log=f"{name}.log", extra_env=dict(env or {},
                                                   IVWL_STATS="1"))
    s.wait_line(p, "ready")
    compare_window(s, s.wait_view(f"[work] {name}"), dump, w, h)
    st = relay_stats(s, p, f"{name}.log")
    print(f"{name}: {st}")
    if st["commits"] < frames:
        raise Failure(f"{name}: {st['commits']} commits for {frames} "
                      f"frames")
    return st


def expect(name, ok, what):
    if not ok:
        raise Failure(f"{name}: expected {what}")


def case_zero_copy(s):
    st = zero_copy_run(s, "zc-auto", "own")
    expect("zc-auto", st["zero_copy_pools"] == 1 and st["copy_pools"] == 0
           and st["copied_bytes"] == 0 and
           st["zero_copy_commits"] == st["commits"],
           "its own memfd drawn in place, no byte copied")
    st = zero_copy_run(s, "zc-off", "own", {"IVWL_ZERO_COPY": "off"})
    expect("zc-off", st["zero_copy_pools"] == 0 and
           st["copied_bytes"] >= 240 * 180 * 4,
           "IVWL_ZERO_COPY=off to copy")
    st = zero_copy_run(s, "zc-forced", "child", {"IVWL_ZERO_COPY": "on"})
    expect("zc-forced", st["zero_copy_pools"] == 1 and
           st["copied_bytes"] == 0,
           "IVWL_ZERO_COPY=on to draw even a child's memfd in place")
    # chromium's shape: another process makes the file and draws; this
    # one maps it too (its --dump reads the grant it follows) and sends
    # it.  Pixel-exact, and the dump must match the window.
    st = zero_copy_run(s, "zc-drawer", "drawer", w=480, h=360)
    expect("zc-drawer", st["zero_copy_pools"] == 1 and
           st["copy_pools"] == 0 and st["copied_bytes"] == 0 and
           st["zero_copy_commits"] == st["commits"],
           "a memfd another process of the app made and draws in to be "
           "drawn in place, no byte copied")
    st = zero_copy_run(s, "zc-drawer-off", "drawer",
                       {"IVWL_ZERO_COPY": "off"}, w=480, h=360)
    expect("zc-drawer-off", st["zero_copy_pools"] == 0 and
           st["copied_bytes"] > 0,
           "IVWL_ZERO_COPY=off to copy the drawer's pixels")


def probe_results(path):
    with open(path) as f:
        return dict(line.split(" ", 1) for line in f.read().splitlines())


def case_zero_copy_trust(s):
    """The relay's listening socket (relay-zc.c) under attack: from a
    process of the app, odd requests fail and the relay keeps serving;
    from outside the app, or as another user, nothing is served."""
    inside = s.path("probe-inside.txt")
    dump = s.path("zc-trust.raw")
    p = s.client([ENV["IVWL_PATTERN_CLIENT"], "--title", "zc-trust",
                  "--dump", dump, "--spawn", ENV["IVWL_ZC_PROBE"]],
                 log="zc-trust.log", extra_env={"IVWL_STATS": "1", "IVWL_DEBUG": "1",
                                                "IVWL_PROBE_OUT": inside})
    s.wait_line(p, "ready")
    got = probe_results(inside)
    print(f"inside the app: {got}")
    want = {"offer-no-fd": "-9", "offer-other-file": "-9",
            "offer-huge": "-122", "short-message": "closed",
            "follow-unmoved": "-2", "unfollow-unfollowed": "-2",
            "revert-not-granted": "-2", "unknown-op": "-22",
            "offer": "0"}
    for k, v in want.items():
        expect(k, got.get(k) == v, f"status {v}, got {got.get(k)}")
    # None of the probe's files became a buffer: 32 MiB at most, 1 of
    # them to the plain offer.
    mib = int(got["granted-mib"])
    expect("granted-mib", 24 <= mib <= 31,
           f"24..31 MiB of files no pool uses, got {mib}")
    compare_window(s, s.wait_view("[work] zc-trust"), dump, 240, 180)

    outside = s.path("probe-outside.txt")
    env = dict(os.environ, IVWL_PROBE_OUT=outside)
    subprocess.run([ENV["IVWL_ZC_PROBE"], str(p.pid)], env=env, check=True,
                   timeout=30)
    got = probe_results(outside)
    print(f"outside the app: {got}")
    expect("outside", list(got) in (["connect"], ["offer-no-fd"]) and
           "closed" in got[list(got)[0]],
           "a process outside the app to be shut out")
    if os.geteuid() == 0:
        other = s.path("probe-user.txt")
        open(other, "w").close()
        os.chown(other, 65534, 65534)
        os.chmod(s.dir, 0o711)
        subprocess.run(["setpriv", "--reuid=65534", "--regid=65534",
                        "--clear-groups", "--", ENV["IVWL_ZC_PROBE"],
                        str(p.pid)], env=dict(env, IVWL_PROBE_OUT=other),
                       check=True, timeout=30)
        got = probe_results(other)
        print(f"another user: {got}")
        expect("another-user", "closed" in "".join(got.values()) and
               "offer" not in got, "another user to be shut out")
    st = relay_stats(s, p, "zc-trust.log")
    expect("zc-trust", st["zero_copy_commits"] == st["commits"] > 0,
           "the client still drawn in place after the attacks")


def case_zero_copy_fallbacks(s):
    st = zero_copy_run(s, "zc-child", "child")
    expect("zc-child", st["zero_copy_pools"] == 0 and
           st["copy_pools"] == 1 and st["copied_bytes"] > 0,
           "copy mode for a memfd another process made")
    for mode in ("regrow", "remap"):
        name = f"zc-{mode}"
        st = zero_copy_run(s, name, mode)
        expect(name, st["zero_copy_pools"] == 1 and
               0 < st["zero_copy_commits"] < st["commits"] and
               st["copied_bytes"] > 0,
               "zero-copy first, copy mode once the pool "
               f"{mode.rstrip('e')}s")
    st = zero_copy_run(s, "zc-close", "close")
    expect("zc-close", st["zero_copy_pools"] == 1 and
           st["copied_bytes"] == 0 and
           st["zero_copy_commits"] == st["commits"],
           "a pool closed and unmapped to stay shown from its grant, "
           "nothing written back or copied")
    st = zero_copy_run(s, "zc-sparse", "sparse")
    expect("zc-sparse", st["copy_pools"] == 1 and st["copied_bytes"] > 0,
           "copy mode for a pool bigger than the region's free heap")


def case_simple_shm(s):
    s.client(["weston-simple-shm"])
    view = s.wait_view("[work] simple-shm")
    time.sleep(0.5)
    sw, sh, bpp, rows = s.screenshot()
    x0, y0, x1, y1 = view["rect"]
    colours = set()
    for y in range(max(y0, 0), min(y1, sh), 4):
        for x in range(max(x0, 0), min(x1, sw), 4):
            colours.add(rows[y][x * bpp:x * bpp + 3])
    # simple-shm paints a many-coloured animated pattern
    if len(colours) < 50:
        raise Failure(f"the window shows only {len(colours)} colours")
    print(f"simple-shm window shows {len(colours)} colours")


def case_flower(s):
    s.client(["weston-flower"])
    views = wait_for("a weston-flower view", lambda: [
        v for v in s.scene() if v["title"] and v["title"].startswith(
            "[work] ")], timeout=20)
    print("mapped:", views[0]["title"])


def case_two_vms(s):
    a, dump_a = pattern(s, "work", "alpha", frames=8)
    b, dump_b = pattern(s, "home", "beta", frames=9, w=200, h=150)
    s.wait_line(a, "ready")
    s.wait_line(b, "ready")
    # each VM's window carries its own VM's name, decided by weston
    va = s.wait_view("[work] alpha")
    vb = s.wait_view("[home] beta")
    compare_window(s, va, dump_a, 240, 180)
    compare_window(s, vb, dump_b, 200, 150)
    # session.py gives work 0xff3070c0 and home 0xffc03030
    check_border(s, s.wait_view("[work] alpha"), (0x30, 0x70, 0xc0))
    check_border(s, s.wait_view("[home] beta"), (0xc0, 0x30, 0x30))


def case_lazy_release(s):
    """A buffer release that no frame callback will ever carry (its
    surface has no role) still reaches the client: the plugin holds
    releases back only as long as its bound, then rings."""
    p, dump = pattern(s, "work", "lazy", frames=4,
                      extra=["--hidden-release"])
    s.wait_line(p, "hidden release")
    s.wait_line(p, "ready")
    compare_window(s, s.wait_view("[work] lazy"), dump, 240, 180)


def case_client_killed(s):
    p, _ = pattern(s, "work", "victim", frames=1000000)
    s.wait_view("[work] victim")
    p.send_signal(signal.SIGKILL)
    p.wait()
    wait_for("the victim's view to go", lambda: not any(
        v["title"] == "[work] victim" for v in s.scene()))
    if s.weston.poll() is not None:
        raise Failure("weston died")
    # the VM is still served: a new client works, pixel for pixel
    q, dump = pattern(s, "work", "after")
    s.wait_line(q, "ready")
    compare_window(s, s.wait_view("[work] after"), dump, 240, 180)


def case_kill_binding(s):
    """weston's kill binding (mod+K) on a VM's window ends that window's
    connection (weston would SIGKILL its own pid for a socketpair client);
    the VM's other window stays, pixel for pixel."""
    other, other_dump = pattern(s, "work", "bystander")
    s.wait_line(other, "ready")
    # IVWL_DEBUG: the relay logs why its connection ended
    victim, _ = pattern(s, "work", "victim", frames=1000000,
                        extra_env={"IVWL_DEBUG": "1"})
    view = s.wait_view("[work] victim")
    s.click_window(view)
    time.sleep(0.1)
    s.seat.key("super+k")
    wait_for("the victim's view to go", lambda: not any(
        v["title"] == "[work] victim" for v in s.scene()))
    if "closing: killed by the user" not in s.weston_log():
        raise Failure("weston's log does not say the user killed it")
    try:
        victim.wait(10)
    except subprocess.TimeoutExpired:
        raise Failure("the killed client did not see its connection end")
    if s.weston.poll() is not None or other.poll() is not None:
        raise Failure("the kill took more than the victim")
    # the display's reason reached the app side (a DISCONNECT record)
    said = "the display closed the connection: killed by the user"
    wait_for("the victim's relay to log why", lambda: said in open(
        s.path("victim.log"), errors="replace").read())
    compare_window(s, s.wait_view("[work] bystander"), other_dump, 240, 180)
    print("mod+K ended the victim's connection only, and the app was told")


def case_weston_shutdown(s):
    """The relays keep their clients for a weston that comes back, but
    only for IVWL_RESTART_WAIT seconds: then the connection ends."""
    wait = {"IVWL_RESTART_WAIT": "2"}
    a, _ = pattern(s, "work", "one", frames=1000000, extra_env=wait)
    b, _ = pattern(s, "work", "two", frames=3, extra_env=wait)
    s.wait_view("[work] one")
    s.wait_view("[work] two")
    status = s.stop_weston()
    log = s.weston_log()
    if status != 0 or "Segmentation" in log or "Aborted" in log:
        raise Failure(f"weston exited with {status} at shutdown")
    # the clients lose their connection instead of hanging
    for p in (a, b):
        try:
            p.wait(20)
        except Exception:
            raise Failure("a client hung after weston went away")
    for name in ("one", "two"):
        with open(s.path(f"{name}.log"), errors="replace") as f:
            text = f.read()
        if "no display came back in time" not in text:
            raise Failure(f"{name}'s relay did not say why it ended")
    print("weston exited cleanly with clients connected; they ended "
          "after IVWL_RESTART_WAIT")


def case_shutdown_animated(s):
    """weston stops while a VM's windows fade out (the shell's close
    animation keeps their surfaces a while): it exits 0, no assertion
    (weston 10's desktop-shell asserts on a surface of a client's left
    in its layers, which the plugin's title bars are)."""
    wait = {"IVWL_RESTART_WAIT": "1"}
    for i in range(3):
        a, _ = pattern(s, "work", f"fade-{i}", frames=1000000,
                       extra_env=wait)
        s.wait_view(f"[work] fade-{i}")
    # the windows go, and weston with them while they fade
    for p in list(s.clients):
        p.terminate()
    time.sleep(0.05)
    status = s.stop_weston()
    log = s.weston_log()
    if status != 0 or "Assertion" in log or "Segmentation" in log:
        raise Failure(f"weston exited with {status} at shutdown: "
                      f"{log.strip().splitlines()[-1]}")
    print("weston stopped cleanly while the windows faded")


def case_mpv(s):
    """mpv --vo=wlshm plays 3 s of a lavfi source to the end through the
    region (it paces itself on weston's frame callbacks).  Its pixels are
    not compared: this mpv shows a white window under a local headless
    weston too."""
    start = time.monotonic()
    p = s.client(["mpv", "--vo=wlshm", "--no-audio", "--no-config",
                  "--title=mpv-test", "--length=3",
                  "av://lavfi:testsrc2=size=640x360:rate=30"], log="mpv.log")
    s.wait_view("[work] mpv-test", timeout=30)
    try:
        status = p.wait(60)
    except subprocess.TimeoutExpired:
        raise Failure("mpv did not finish its 3 s of video")
    if status != 0:
        raise Failure(f"mpv exited with {status}")
    print(f"mpv played 3 s of video in {time.monotonic() - start:.1f} s")


def case_chromium(s):
    """chromium --ozone-platform=wayland shows a local page through the
    region: its colour fills the page area of the window."""
    page = s.path("page.html")
    colour = (0x12, 0x9a, 0x56)
    with open(page, "w") as f:
        f.write("<html><head><title>ivwl-page</title></head><body "
                "style='margin:0;background:#129a56'></body></html>")
    s.chromium(page)
    view = s.wait_view("[work] ivwl-page - Chromium", timeout=60)

    def page_shown():
        sw, sh, bpp, rows = s.screenshot()
        x0, y0, x1, y1 = view["rect"]
        total = hits = 0
        for y in range(max(y0, 0), min(y1, sh), 2):
            for x in range(max(x0, 0), min(x1, sw), 2):
                total += 1
                hits += tuple(rows[y][x * bpp:x * bpp + 3]) == colour
        return total and hits / total > 0.3 and (hits, total)
    hits, total = wait_for("chromium to paint the page", page_shown,
                           timeout=30, step=1.0)
    print(f"chromium shows the page colour in {hits} of {total} samples")


GREEN = (0x12, 0x9a, 0x56)
RED = (0xc0, 0x30, 0x20)
HERE = os.path.dirname(os.path.abspath(__file__))


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


def case_chromium_sandboxed(s):
    """chromium with its sandbox on (as nobody when root): the GPU
    process's buffers drawn in place, the page's colours exact."""
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
        "--password-store=basic", "--window-size=640,480",
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


def case_gtk(s):
    """A GTK 3 application maps, stays up and paints its widgets."""
    p = s.client(["gtk3-widget-factory"], log="gtk.log",
                 extra_env={"GDK_BACKEND": "wayland", "NO_AT_BRIDGE": "1"})
    view = s.wait_view("[work] gtk3-widget-factory", timeout=30)
    time.sleep(2)
    if p.poll() is not None:
        raise Failure(f"gtk3-widget-factory exited ({p.returncode})")
    sw, sh, bpp, rows = s.screenshot()
    x0, y0, x1, y1 = view["rect"]
    colours = {rows[y][x * bpp:x * bpp + 3]
               for y in range(max(y0, 0), min(y1, sh), 3)
               for x in range(max(x0, 0), min(x1, sw), 3)}
    if len(colours) < 30:
        raise Failure(f"the GTK window shows {len(colours)} colours only")
    print(f"gtk3-widget-factory shows {len(colours)} colours")


def case_refusals(s):
    """A client that cannot have a connection says why, in one line of
    its stderr naming the agent's socket, and the agent's log says it
    too, once for each connection: a wait that is no number of seconds
    is said; no agent; no display, after the wait
    (IVWL_DISPLAY_WAIT) the line gives, the agent saying when the relay
    gave up; a client started a moment before
    the display attaches waits for it and shows its window, the agent
    saying how long it waited; and the display gone again, a new client
    refused is logged again."""
    agent_log = s.path("agent-work.log")
    no_display = "no connection: the display (weston with ivwl.so) has " \
        "not attached"

    def refused(log, env, why):
        t0 = time.monotonic()
        p = s.client(["weston-simple-shm"], log=log, extra_env=env)
        try:
            rc = p.wait(30)
        except subprocess.TimeoutExpired:
            raise Failure(f"{log}: the client hangs instead of failing")
        with open(s.path(log), errors="replace") as f:
            said = [ln for ln in f if "cannot connect to the display" in ln]
        if rc == 0 or len(said) != 1 or why not in said[0]:
            raise Failure(f"{log}: exit {rc}, said {said}, not {why!r}")
        print(f"refused in {time.monotonic() - t0:.1f} s: {said[0].strip()}")
        return time.monotonic() - t0

    def agent_said(text, n):
        """The agent's log has text n times, the last within 5 s."""
        def count():
            with open(agent_log, errors="replace") as f:
                return f.read().count(text)
        wait_for(f"the agent to say {text!r} {n} times",
                 lambda: count() >= n, timeout=5)
        time.sleep(0.3)
        if count() != n:
            raise Failure(f"the agent said {text!r} {count()} times, "
                          f"not {n}")

    # a wait that is no number of seconds is said, not taken silently
    bad = s.client(["weston-simple-shm"], log="bad-wait.log",
                   extra_env={"IVWL_DISPLAY_WAIT": "forever"})
    wait_for("the relay to say IVWL_DISPLAY_WAIT is wrong", lambda:
             "IVWL_DISPLAY_WAIT=forever is not 0 to 60 seconds; using 5"
             in open(s.path("bad-wait.log"), errors="replace").read(),
             timeout=10)
    bad.terminate()
    bad.wait(10)
    nowhere = s.path("nowhere.sock")
    refused("no-agent.log", {"IVWL_AGENT": nowhere},
            f"through {nowhere}: no ivwl-agent listens at its socket")
    s.stop_weston()
    took = refused("no-display.log", {"IVWL_DISPLAY_WAIT": "1"},
                   "has not attached to the region yet after waiting 1 s")
    if took < 1.0:
        raise Failure(f"refused after {took:.1f} s: IVWL_DISPLAY_WAIT=1 "
                      "was not waited")
    # its relay asked 10 times: one line, and one when it gave up
    agent_said(no_display, 1)
    agent_said("gave up waiting for the display after", 1)
    early = s.client([ENV["IVWL_PATTERN_CLIENT"], "--title", "early",
                      "--frames", "1000000"], log="early.log",
                     extra_env={"IVWL_DISPLAY_WAIT": "30"})
    time.sleep(1.5)
    if early.poll() is not None:
        raise Failure(f"the early client gave up ({early.returncode})")
    s._start_weston()
    s.wait_view("[work] early", timeout=30)
    agent_said(no_display, 2)
    agent_said("the display attached: a connection after waiting", 1)
    print("a client started before the display attached waited and shows")
    # the display gone again: a new client's refusal is news again
    s.stop_weston()
    refused("no-display-again.log", {"IVWL_DISPLAY_WAIT": "0"},
            "has not attached to the region yet after waiting 0 s")
    agent_said(no_display, 3)
    agent_said("gave up waiting for the display after", 2)
    s._start_weston()
    print("the agent said each refusal once, for each connection")


def case_weston_terminal(s):
    s.client(["weston-terminal"], log="weston-terminal.log")
    s.wait_view("[work] Wayland Terminal")
    print("weston-terminal mapped")


def case_keyboard_foot(s):
    """Keys typed on X's keyboard (xdotool into the x11 backend's window,
    as a nested weston's user types) reach a VM's terminal: the keymap
    crossed."""
    out = s.path("typed.txt")
    script = s.path("read-line.sh")
    with open(script, "w") as f:
        f.write(f"#!/bin/sh\nread line\necho \"$line\" > {out}\n")
    os.chmod(script, 0o755)
    s.client(["foot", script], log="foot.log")
    view = s.wait_view("[work] foot")
    time.sleep(0.5)
    s.x_pointer_sync()
    x, y = s.spot_in(view)
    s.xdotool("mousemove", str(x), str(y))
    time.sleep(0.2)
    s.xdotool("click", "1")
    time.sleep(0.2)
    s.xdotool("type", "--delay", "20", "ivwl typed this")
    s.xdotool("key", "Return")
    got = wait_for("the typed line", lambda: os.path.exists(out) and
                   open(out).read().strip(), timeout=15)
    if got != "ivwl typed this":
        raise Failure(f"foot received {got!r}")
    print("foot got the typed line:", got)


def clipboard_payload(s, name, size=50 << 20):
    path = s.path(name)
    with open(path, "wb") as f:
        f.write(os.urandom(size))
    return path


def same_file(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


def case_clipboard(s):
    """50 MiB each way between a VM client and a local one, byte exact."""
    # one type per direction: a paste can only get the selection meant
    mime = "application/x-ivwl-to-local"
    # VM copies, local pastes
    payload = clipboard_payload(s, "to-local.bin")
    # wl-copy reads stdin: a shell hands it the file
    sh = s.client(["sh", "-c", f"exec wl-copy -t {mime} --foreground "
                   f"< {payload}"], log="wl-copy-vm.log")
    pasted = s.path("pasted-local.bin")

    def paste_local():
        with open(pasted, "wb") as out:
            r = s.local(["wl-paste", "-n", "-t", mime], stdout=out,
                        stderr=subprocess.DEVNULL, timeout=60)
        return r.returncode == 0 and os.path.getsize(pasted) > 0
    wait_for("a local paste of the VM's selection", paste_local,
             timeout=30, step=0.5)
    if not same_file(payload, pasted):
        raise Failure("the local paste differs from what the VM copied")
    sh.kill()
    sh.wait()
    print("50 MiB from the VM pasted locally, byte for byte")

    # local copies, VM pastes
    mime = "application/x-ivwl-to-vm"
    payload = clipboard_payload(s, "to-vm.bin")
    local = subprocess.Popen(["sh", "-c", f"exec wl-copy -t {mime} "
                              f"--foreground < {payload}"],
                             env=s._debug_env())
    s.clients.append(local)
    pasted = s.path("pasted-vm.bin")

    # wl-copy and wl-paste each map a surface to be given the keyboard:
    # a VM's only while no local window holds it (the trusted path), so
    # the VM pastes once the local copy is done and its surface gone
    def offered_locally():
        r = s.local(["wl-paste", "-l"], stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL, timeout=10)
        return mime in r.stdout.decode(errors="replace").split()
    wait_for("the local selection", offered_locally, timeout=30, step=0.5)
    hung = []

    def paste_vm():
        p = s.client(["wl-paste", "-n", "-t", mime], log="wl-paste.log")
        try:
            data, _ = p.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            # refused the keyboard (a local surface held it): again
            p.kill()
            p.wait()
            hung.append(p)
            return False
        with open(pasted, "wb") as out:
            out.write(data)
        return p.returncode == 0 and len(data) > 0
    try:
        wait_for("a VM paste of the local selection", paste_vm,
                 timeout=60, step=0.5)
    except Failure:
        raise Failure(f"wl-paste in the VM hung ({len(hung)} times)")
    if not same_file(payload, pasted):
        raise Failure("the VM's paste differs from what was copied")
    print("50 MiB from a local client pasted in the VM, byte for byte")


# ---- copy mode: surface damage through viewport, scale and transform ----
# The relay maps wl_surface.damage to buffer pixels (relay/
# damage-map.c); a pixel it maps wrong stays stale in the region and
# shows.  Each client runs twice, natively on weston's own socket and
# through the region in copy mode, one after the other at the same place
# in the scene, and the two windows must be equal pixel for pixel.

COPY_ENV = {"IVWL_ZERO_COPY": "off", "IVWL_STATS": "1"}


def local_client(s, argv, log):
    """argv as a client of weston's own socket: the native run."""
    p = subprocess.Popen(argv, stdout=subprocess.PIPE,
                         stderr=open(s.path(log), "wb"),
                         env=s._debug_env(), stdin=subprocess.DEVNULL)
    s.clients.append(p)
    return p


def window_pixels(s, view):
    """The view's rectangle of weston's output: rows of RGB bytes."""
    sw, sh, bpp, rows = s.screenshot()
    x0, y0, x1, y1 = view["rect"]
    if x0 < 0 or y0 < 0 or x1 > sw or y1 > sh:
        raise Failure(f"{view['title']!r} at {view['rect']} is not all "
                      f"on the {sw}x{sh} output")
    out = []
    for y in range(y0, y1):
        row = rows[y][x0 * bpp:x1 * bpp]
        if bpp == 4:
            row = bytes(b for i, b in enumerate(row) if i % 4 != 3)
        out.append(row)
    return out


def settled(s, title, timeout=20.0):
    """((w, h), pixels) of the window once two screenshots agree."""
    last = None
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        view = s.wait_view(title)
        x0, y0, x1, y1 = view["rect"]
        now = ((x1 - x0, y1 - y0), window_pixels(s, view))
        if now == last:
            return now
        last = now
        time.sleep(0.2)
    raise Failure(f"{title!r} kept changing")


def same_as_native(what, native, vm, tolerance=0):
    """The window through ivwl is the native one, pixel for pixel, or
    each channel within tolerance: a scaled crop is filtered, and weston
    14's pixman renderer rounds its filter by where the window sits (two
    native runs at two places differ by a few levels, a few pixels by 4;
    a stale box differs by a hundred)."""
    (size, want), (vm_size, got) = native, vm
    if size != vm_size:
        raise Failure(f"{what}: {vm_size[0]}x{vm_size[1]} through ivwl, "
                      f"{size[0]}x{size[1]} natively")
    wrong, near, first = 0, 0, None
    for y, (a, b) in enumerate(zip(want, got)):
        if a == b:
            continue
        for x in range(size[0]):
            pa, pb = a[x * 3:x * 3 + 3], b[x * 3:x * 3 + 3]
            if pa == pb:
                continue
            if max(abs(i - j) for i, j in zip(pa, pb)) <= tolerance:
                near += 1
                continue
            wrong += 1
            first = first or (x, y, tuple(pa), tuple(pb))
    if wrong:
        raise Failure(f"{what}: {wrong} of {size[0] * size[1]} pixels "
                      f"differ from the native run; first at {first[:2]}: "
                      f"native {first[2]}, through ivwl {first[3]}")
    print(f"{what}: {size[0]}x{size[1]} pixels equal to the native run"
          + (f" ({near} within {tolerance} a channel)" if near else ""))


def gone(s, title):
    wait_for(f"{title!r} to go", lambda: not any(
        v["title"] == title for v in s.scene()))


def end_native(s, proc, title):
    proc.terminate()
    proc.wait()
    gone(s, title)


def copy_stats(s, proc, log, title, what):
    """Ends a VM client run with COPY_ENV; its stats, copy mode checked."""
    st = relay_stats(s, proc, log)
    gone(s, title)
    print(f"{what}: {st}")
    expect(what, st["copy_pools"] > 0 and st["zero_copy_pools"] == 0 and
           st["copied_bytes"] > 0, "copy mode (IVWL_ZERO_COPY=off)")
    return st


def case_scaler(s):
    """weston-scaler's modes: viewport source and destination (fractional
    source, buffer scale 2), destination only, source only, none."""
    title = "Scaler Test Box"
    for mode in ("-b", "-d", "-s", "-n"):
        p = local_client(s, ["weston-scaler", mode],
                         f"scaler{mode}-native.log")
        want = settled(s, title)
        end_native(s, p, title)
        log = f"scaler{mode}.log"
        p = s.client(["weston-scaler", mode], log=log, extra_env=COPY_ENV)
        same_as_native(f"weston-scaler {mode}", want,
                       settled(s, "[work] " + title))
        copy_stats(s, p, log, "[work] " + title, f"weston-scaler {mode}")


# weston-transformed takes its buffer transform and scale from keys:
# Left and Right rotate, space flips, z toggles scale 1 and 2.  From
# (normal, 1) these steps reach all 8 transforms and both scales.
TRANSFORMED_STEPS = (("Right", 1, 1), ("Right", 2, 1), ("space", 6, 1),
                     ("z", 6, 2), ("Right", 7, 2), ("space", 3, 2),
                     ("Left", 2, 2), ("Left", 1, 2), ("z", 1, 1),
                     ("space", 5, 1), ("Left", 4, 1), ("Left", 7, 1),
                     ("z", 7, 2), ("space", 3, 2), ("Right", 0, 2))


def transformed_run(s, title, proc, vm_bar):
    """The window after each of TRANSFORMED_STEPS (proc line-buffered).

    The pointer never enters the window: weston 10's toytoolkit
    destroys its cursor surface on every pointer leave, and
    weston-transformed never makes one (it hides the cursor), so the
    first leave after an enter crashes it (SIGSEGV in
    wl_proxy_get_version), natively too.  A press in the window makes
    that leave whenever the client's move request reaches weston
    before the release.  So the native window keeps the keyboard the
    shell gives it at map, with the pointer away on the panel, and a
    VM's window gets it by a click on its title bar (vm_bar), which
    weston draws: no pointer event reaches the client."""
    shots = [settled(s, title)]
    if vm_bar:
        x0, y0, x1, _ = s.wait_view(title)["rect"]
        s.xdotool("mousemove", str(x0 + 10),
                  str(y0 - FRAME_BORDER - s.bar_height() // 2), "click", "1",
                  "mousemove", "0", "0")  # its image off the window
    for key, transform, scale in TRANSFORMED_STEPS:
        s.xdotool("key", key)
        s.wait_line(proc, f"setting buffer transform to {transform}")
        time.sleep(0.2)
        shots.append(settled(s, title))
    return shots


def transformed_client(s, start):
    """start() with the pointer at 0,0, on the panel, where no window
    maps (see transformed_run); X's pointer and weston's meet there, as
    the steps' keys go through X."""
    s.x_pointer_sync()
    return start()


def case_transformed(s):
    """weston-transformed under every buffer transform at scale 1 and 2."""
    title = "Transformed"
    # stdbuf: its "setting buffer transform" lines say a key arrived
    argv = ["stdbuf", "-oL", "weston-transformed"]
    p = transformed_client(s, lambda: local_client(
        s, argv, "transformed-native.log"))
    want = transformed_run(s, title, p, vm_bar=False)
    end_native(s, p, title)
    p = transformed_client(s, lambda: s.client(
        argv, log="transformed.log", extra_env=COPY_ENV))
    got = transformed_run(s, "[work] " + title, p, vm_bar=True)
    steps = [("normal", 0, 1)] + list(TRANSFORMED_STEPS)
    for (key, transform, scale), w, g in zip(steps, want, got):
        same_as_native(f"weston-transformed transform {transform} scale "
                       f"{scale}", w, g)
    st = copy_stats(s, p, "transformed.log", "[work] " + title,
                    "weston-transformed")
    expect("weston-transformed", st["commits"] > len(TRANSFORMED_STEPS),
           "a commit at least per step")


def case_copy_damage_viewport(s):
    """A 64x64 box repainted per frame and damaged with wl_surface.damage
    in a 480x320 buffer, in copy mode: with an identity wp_viewport (as
    Chromium makes one), a buffer transform, scale 2, or a fractional crop
    scaled, each commit copies about the box of the last two frames (two
    buffers), not the window; and the window equals the native run."""
    w, h, box, frames = 480, 320, 64, 40
    full, box_bytes = w * h * 4, box * box * 4
    runs = (("identity-viewport", ["--viewport"]),
            ("viewport-90", ["--viewport", "--transform", "1"]),
            ("flipped-270-scale-2", ["--transform", "7", "--scale", "2"]),
            ("crop-scaled", ["--source", "8.5,4.25,300.75,170",
                             "--destination", "451,255"]))
    for name, extra in runs:
        argv = [ENV["IVWL_PATTERN_CLIENT"], "--frames", str(frames),
                "--width", str(w), "--height", str(h), "--band",
                f"{box}x{box}", "--surface-damage", "--title", name] + extra
        p = local_client(s, argv, f"{name}-native.log")
        s.wait_line(p, "ready")
        want = settled(s, name)
        end_native(s, p, name)
        dump = s.path(f"{name}.raw")
        log = f"{name}.log"
        p = s.client(argv + ["--dump", dump], log=log, extra_env=COPY_ENV)
        s.wait_line(p, "ready")
        view = s.wait_view(f"[work] {name}")
        if name == "identity-viewport":
            compare_window(s, view, dump, w, h)
        # crop-scaled is filtered: where the window sits rounds it
        same_as_native(name, want, settled(s, f"[work] {name}"),
                       4 if name == "crop-scaled" else 0)
        st = copy_stats(s, p, log, f"[work] {name}", name)
        # the first frame of each buffer is copied whole
        steady = (st["copied_bytes"] - 2 * full) / max(st["commits"] - 2, 1)
        print(f"{name}: {steady:.0f} bytes copied per commit after the "
              f"first two, the box is {box_bytes}, the buffer {full}")
        expect(name, st["commits"] >= frames and steady <= 3 * box_bytes,
               f"at most 3 boxes ({3 * box_bytes} bytes) copied per commit")


def case_copy_damage_rotation(s):
    """A 64x64 box moving each frame in a 480x320 buffer, in copy mode,
    the buffers taken in turn: 6 of them, and 6 whose wl_buffer is
    destroyed once released and made anew over the same bytes before
    each reuse, as firefox does every frame.  A buffer's region copy
    then needs the boxes of the frames since it was last shown, and
    only them: after each buffer's first frame at most one box per
    buffer in turn (and one more) is copied per commit, not the window;
    the window equals the client's last buffer and the native run."""
    w, h, box, frames, n = 480, 320, 64, 40, 6
    full, box_bytes = w * h * 4, box * box * 4
    for name, extra in (("rotate-6", []), ("recreate-6", ["--recreate"])):
        argv = [ENV["IVWL_PATTERN_CLIENT"], "--frames", str(frames),
                "--width", str(w), "--height", str(h), "--band",
                f"{box}x{box}", "--buffers", str(n), "--title",
                name] + extra
        p = local_client(s, argv, f"{name}-native.log")
        s.wait_line(p, "ready")
        want = settled(s, name)
        end_native(s, p, name)
        dump = s.path(f"{name}.raw")
        log = f"{name}.log"
        p = s.client(argv + ["--dump", dump], log=log, extra_env=COPY_ENV)
        s.wait_line(p, "ready")
        compare_window(s, s.wait_view(f"[work] {name}"), dump, w, h)
        same_as_native(name, want, settled(s, f"[work] {name}"))
        st = copy_stats(s, p, log, f"[work] {name}", name)
        # each buffer's first frame is copied whole
        steady = (st["copied_bytes"] - n * full) / max(st["commits"] - n, 1)
        print(f"{name}: {steady:.0f} bytes copied per commit after the "
              f"first {n}, the box is {box_bytes}, the buffer {full}")
        expect(name, st["commits"] >= frames and
               steady <= (n + 1) * box_bytes,
               f"at most {n + 1} boxes ({(n + 1) * box_bytes} bytes) "
               f"copied per commit")


CLOCK_FRAMES = 120


def clock_frames(s, name, extra_env=None):
    """Runs the frames client to its end; its "done" fields and status."""
    p = s.client([ENV["IVWL_FRAMES_CLIENT"], "--width", "64", "--height",
                  "64", "--frames", str(CLOCK_FRAMES), "--warmup", "5",
                  "--title", name, "--check-clock"],
                 log=f"{name}.log", extra_env=extra_env)
    out, _ = p.communicate(timeout=60)
    done = [ln for ln in out.decode().splitlines() if ln.startswith("done")]
    if not done:
        raise Failure(f"{name}: no 'done' line (status {p.returncode})")
    fields = dict(kv.split("=", 1) for kv in done[0].split()[1:])
    print(f"{name}: status {p.returncode}: {done[0]}")
    return fields, p.returncode


def agent_estimate(s):
    with open(s.path("agent-work.log")) as f:
        lines = [ln for ln in f if "clock: display clock" in ln]
    return lines[-1].strip() if lines else None


def case_presentation_clock(s):
    """Presentation times in the app's own clock; the app side is made
    to live IVWL_TEST_CLOCK_OFFSET_NS ahead (meson sets it for this
    case: the agent, relays and client all add it to every clock read),
    as an app-vm booted at another moment would.  The frames client
    checks each presented time against its own clock at receipt (within
    2 ms, allowing one refresh); with the relay's translation turned off
    (IVWL_CLOCK_TRANSLATE=off) every one of them must be wrong, or the
    test proves nothing."""
    if int(ENV.get("IVWL_TEST_CLOCK_OFFSET_NS", "0")) < 60 * 10**9:
        raise Failure("IVWL_TEST_CLOCK_OFFSET_NS must put the app side "
                      "at least a minute ahead")
    line = wait_for("the agent's first clock estimate",
                    lambda: agent_estimate(s), 10.0)
    print(line)
    got, status = clock_frames(s, "clock-on")
    if status != 0 or got["clock_future"] != "0":
        raise Failure(f"translated: {got['clock_future']} presented times "
                      f"ahead of our clock, {got['clock_late']} too old "
                      f"(status {status})")
    if int(got["presented"]) < CLOCK_FRAMES * 9 // 10 or \
            got["discarded"] != "0":
        raise Failure(f"translated: {got['presented']} presented, "
                      f"{got['discarded']} discarded of {CLOCK_FRAMES}")
    if got["clock_id"] != "1":
        raise Failure(f"clock_id {got['clock_id']}, not CLOCK_MONOTONIC")
    # The negative control: the same run, nothing translated.
    got, status = clock_frames(s, "clock-off", {"IVWL_CLOCK_TRANSLATE": "off"})
    if int(got["clock_bad"]) < int(got["presented"]) or status != 3:
        raise Failure(f"untranslated times passed the check "
                      f"({got['clock_bad']} of {got['presented']} bad)")
    print(agent_estimate(s))
    # Sampling comes in bursts: after the last, the agent sleeps.
    time.sleep(IVWL_AGENT_CLOCK_ACTIVE_MS / 1000 + 1.0)
    agent = [pr for pr in s.procs if "ivwl-agent" in " ".join(pr.args)][0]
    before = switches(agent.pid)
    time.sleep(2.0)
    if switches(agent.pid) != before:
        raise Failure("the agent still wakes with no client showing time")


def switches(pid):
    """Times the process's threads were switched onto a CPU."""
    n = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
            n += int(f.read().split()[2])
    return n


# app/agent-proto.h
IVWL_AGENT_CLOCK_ACTIVE_MS = 3000



CASES = {
    "pattern-pixels": (case_pattern_pixels, ("work",)),
    "presentation-clock": (case_presentation_clock, ("work",)),
    "zero-copy": (case_zero_copy, ("work",)),
    "zero-copy-fallbacks": (case_zero_copy_fallbacks, ("work",)),
    "zero-copy-trust": (case_zero_copy_trust, ("work",)),
    "simple-shm": (case_simple_shm, ("work",)),
    "flower": (case_flower, ("work",)),
    "two-vms": (case_two_vms, ("work", "home")),
    "client-killed": (case_client_killed, ("work",)),
    "lazy-release": (case_lazy_release, ("work",)),
    "weston-shutdown": (case_weston_shutdown, ("work",)),
    "shutdown-animated": (case_shutdown_animated, ("work",)),
    "mpv": (case_mpv, ("work",)),
    "chromium": (case_chromium, ("work",)),
    "chromium-sandboxed": (case_chromium_sandboxed, ("work",)),
    "weston-terminal": (case_weston_terminal, ("work",)),
    "refusals": (case_refusals, ("work",)),
    "keyboard-foot": (case_keyboard_foot, ("work",), "x11"),
    "clipboard-50mib": (case_clipboard, ("work",), "seat"),
    "gtk": (case_gtk, ("work",), "seat"),
    "kill-binding": (case_kill_binding, ("work",), "seat"),
    "scaler": (case_scaler, ("work",)),
    "transformed": (case_transformed, ("work",), "x11"),
    "copy-damage-viewport": (case_copy_damage_viewport, ("work",)),
    "copy-damage-rotation": (case_copy_damage_rotation, ("work",)),
}


# Run again by tests/run.sh with ivwl.so, the shim and every ivwl process
# under ASan + UBSan: clients of our own or weston's demos, which take
# ASan's runtime preloaded (IVWL_ASAN_RUNTIME).  presentation-clock has
# its own meson test: the app side's clock offset is in its environment.
LISTING = Listing(more_suites={case: ["sanitized"] for case in (
    "pattern-pixels", "zero-copy", "zero-copy-fallbacks", "zero-copy-trust",
    "simple-shm", "flower", "two-vms", "client-killed", "lazy-release",
    "weston-shutdown", "shutdown-animated", "scaler",
    "copy-damage-viewport", "refusals",
    "copy-damage-rotation")}, skip=("presentation-clock",))


# A VM's clipboard is isolated unless its section says otherwise.
VM_OPTIONS = {
    "clipboard-50mib": {"work": ["clipboard=import"]},
}


def start(name):
    run, vms, *backend = CASES[name]
    s = Session(vms, backend=backend[0] if backend else "headless",
                vm_options=VM_OPTIONS.get(name),
                animations=name == "shutdown-animated")
    return s, run, name in ("weston-shutdown", "shutdown-animated")


if __name__ == "__main__":
    sys.exit(case_main(CASES, start, LISTING))
