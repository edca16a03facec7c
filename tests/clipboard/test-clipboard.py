#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Clipboard policy and the trusted copy and paste between VMs, on a
seated weston (tests/seat) with ivwl.so: wl-copy/wl-paste
and GTK in VMs through the shim, and local clients on weston's socket.

    test-clipboard.py CASE
"""
import os
import re
import signal
import subprocess
import sys
import time

from ivwltest.session import (ENV, Failure, Listing, Session, case_main,  # noqa: E402
                     wait_for)

TEXT_MIME = "text/plain;charset=utf-8"


def copy_in(s, vm, payload, mime=None, name=None):
    """wl-copy in vm (None: a local client), serving payload (bytes)."""
    name = name or f"copy-{vm}-{len(s.clients)}"
    path = s.path(name + ".in")
    with open(path, "wb") as f:
        f.write(payload)
    if vm is not None:
        focus(s, vm)
    argv = "exec wl-copy --foreground" + (f" -t '{mime}'" if mime else "")
    argv += f" < {path}"
    if vm is None:
        p = subprocess.Popen(["sh", "-c", argv], env=s._debug_env(),
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        s.clients.append(p)
    else:
        p = s.client(["sh", "-c", argv], vm=vm, log=name + ".log")
    return p


def paste_in(s, vm, mime=TEXT_MIME, timeout=60):
    """(returncode, bytes) of wl-paste in vm (None: local)."""
    argv = ["wl-paste", "-n", "-t", mime]
    if vm is not None:
        focus(s, vm)
    if vm is None:
        r = s.local(argv, capture_output=True, timeout=timeout)
        return r.returncode, r.stdout
    p = s.client(argv, vm=vm, log=f"paste-{vm}-{len(s.clients)}.log")
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        raise Failure(f"wl-paste in {vm} hung")
    return p.returncode, out


def wait_selection(s, payload, mime=TEXT_MIME):
    """Waits until wl-copy's selection is weston's: a local paste sees
    it (local clients read every selection)."""
    def got():
        rc, out = paste_in(s, None, mime)
        return rc == 0 and out == payload
    wait_for("the selection to be set", got, timeout=20, step=0.3)


def expect_paste(s, vm, payload, mime=TEXT_MIME):
    rc, out = paste_in(s, vm, mime)
    if rc != 0 or out != payload:
        raise Failure(f"{vm} pasted {len(out)} bytes (rc {rc}), not the "
                      f"{len(payload)} bytes copied")


def expect_no_paste(s, vm, mime=TEXT_MIME, secret=None):
    rc, out = paste_in(s, vm, mime)
    if rc == 0 or (secret and secret in out):
        raise Failure(f"{vm} read a selection its policy keeps from it "
                      f"({len(out)} bytes)")


def window(s, vm, name):
    p = s.client([ENV["IVWL_PATTERN_CLIENT"], "--frames", "1000000",
                  "--width", "160", "--height", "120", "--title", name],
                 vm=vm, log=f"{name}.log")
    s.wait_view(f"[{vm}] {name}")
    return p


def focus(s, vm):
    """Gives vm the keyboard as a user does: a click on a window of vm
    (one made the first time).  Its clients may take the keyboard then,
    as wl-copy and wl-paste do for a moment (docs/security.md)."""
    name = f"{vm}-keyboard"
    if name not in getattr(s, "keyboard_windows", set()):
        s.keyboard_windows = getattr(s, "keyboard_windows", set()) | {name}
        window(s, vm, name)
    s.click_window(s.wait_view(f"[{vm}] {name}"))


def wait_log(s, text, timeout=20):
    wait_for(f"weston to log {text!r}", lambda: text in s.weston_log(),
             timeout=timeout, step=0.2)


def wait_log_re(s, pattern, timeout=20):
    """The first line of weston's log that matches pattern."""
    m = wait_for(f"weston to log /{pattern}/",
                 lambda: re.search(pattern + ".*", s.weston_log()),
                 timeout=timeout, step=0.2)
    return m.group(0)


def trusted_copy(s, vm, expect):
    focus(s, vm)
    s.seat.key("super+shift+c")
    wait_log(s, expect)


def trusted_paste(s, vm, expect):
    focus(s, vm)
    s.seat.key("super+shift+v")
    wait_log(s, expect)


def responsive(s):
    """weston answers a client while a transfer is stuck."""
    t = time.monotonic()
    if not any(v["title"] for v in s.scene()):
        raise Failure("weston's scene has no windows")
    return time.monotonic() - t


# ---- cases ---------------------------------------------------------------

def case_isolated(s):
    """Default policy: a VM reads no other VM's selection, with focus
    (wl-paste maps a surface and takes the keyboard) or without, and no
    primary selection; its own VM's clients and local clients still do."""
    secret = b"ivwl-secret-of-vm-a\n"
    copy_in(s, "a", secret)
    wait_selection(s, secret)
    window(s, "b", "b-win")
    focus(s, "b")
    expect_no_paste(s, "b", secret=secret)
    rc, out = paste_in(s, "b", "text/plain")
    if rc == 0 or secret in out:
        raise Failure("b read a's selection as text/plain")
    expect_paste(s, "a", secret)
    # weston 10 has no primary selection; the global is hidden anyway
    rc, out = s_primary(s, "b")
    if rc == 0 or secret in out:
        raise Failure("b read a primary selection")
    if "[b] slot" not in s.weston_log() or "withheld the selection offer "\
            "of a's data (clipboard=isolated)" not in s.weston_log():
        raise Failure("weston's log does not say what it withheld")
    # nor the gui-VM's own
    local = b"ivwl-local-secret\n"
    copy_in(s, None, local)
    wait_selection(s, local)
    expect_no_paste(s, "a", secret=local)
    expect_no_paste(s, "b", secret=local)
    if secret.strip() in s.weston_log().encode():
        raise Failure("the data is in weston's log")
    print("isolated VMs read only their own selections")


def s_primary(s, vm):
    p = s.client(["wl-paste", "-n", "--primary"], vm=vm,
                 log=f"primary-{vm}.log")
    try:
        out, _ = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        raise Failure("wl-paste --primary hung")
    return p.returncode, out


def case_policies(s):
    """import, export and shared: data crosses only from a VM that exports
    (or a local client) to one that imports."""
    # a exports, b imports, c shares, d is isolated
    results = []
    for src in ["a", "b", "c", None]:
        data = f"from-{src or 'local'}-{time.monotonic()}\n".encode()
        copy_in(s, src, data)
        wait_selection(s, data)
        for dst in ["a", "b", "c", "d"]:
            exports = src is None or src in ("a", "c")
            imports = dst in ("b", "c")
            if dst == src or (exports and imports):
                expect_paste(s, dst, data)
                results.append(f"{src or 'local'}->{dst}")
            else:
                expect_no_paste(s, dst, secret=data)
    log = s.weston_log()
    if "[b] slot" not in log or "reads text/plain;charset=utf-8 of a's " \
            "selection" not in log:
        raise Failure("weston's log does not say b read a's selection")
    print("crossed as documented:", ", ".join(results))

    # what crossed is measured at both ends, more than a channel's
    # window (256 KiB) so that credit comes into it
    marker = b"ivwl-size-marker"
    data = marker + os.urandom(300_000 - len(marker))
    mime = "application/x-ivwl-size"
    copy_in(s, "a", data, mime)
    wait_selection(s, data, mime)
    expect_paste(s, "b", data, mime)
    n = len(data)
    lines = [
        wait_log_re(s, rf"\[b\] slot \d+: read {n} bytes of {mime} of "
                    rf"a's selection: complete"),
        wait_log_re(s, rf"\[a\] slot \d+: gave {n} bytes of {mime} of "
                    rf"its selection to b: complete"),
        # the local paste of wait_selection read it from a too
        wait_log_re(s, rf"\[a\] slot \d+: gave {n} bytes of {mime} of "
                    rf"its selection to local: complete")]
    print("\n".join(lines))
    if marker.decode() in s.weston_log():
        raise Failure("the data is in weston's log")
    print(f"a {n}-byte crossing a -> b logged with its size at both ends")

    # a reader that leaves early: b's end says how much came, and that
    # the transfer was cut (4 MiB: more than the channel and pipes hold)
    big = os.urandom(4 << 20)
    copy_in(s, "a", big, mime)
    wait_selection(s, big, mime)
    focus(s, "b")
    cut = s.client(["sh", "-c", f"wl-paste -n -t {mime} | head -c 1000 "
                    f">/dev/null"], vm="b", log="paste-cut.log")
    cut.wait(timeout=30)
    line = wait_log_re(s, rf"\[b\] slot \d+: read \d+ bytes of {mime} of "
                       rf"a's selection: cut short")
    got = int(re.search(r"read (\d+) bytes", line).group(1))
    if not 0 < got < len(big):
        raise Failure(f"a cut transfer logged {got} bytes of {len(big)}")
    print(line)


def fnv(data):
    """FNV-1a 64 of data, as ivwl-dnd-client prints it."""
    h = 0xcbf29ce484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001b3) & 0xffffffffffffffff
    return f"{h:016x}"


def still_owns(s, vm, copier, payload, mime=TEXT_MIME):
    """The trusted paste left vm's selection alone: its wl-copy was not
    cancelled, vm's own paste and a local one still get payload."""
    if copier.poll() is not None:
        raise Failure(f"{vm}'s wl-copy exited: the paste took {vm}'s "
                      f"selection away")
    expect_paste(s, vm, payload, mime)
    rc, out = paste_in(s, None, mime)
    if rc != 0 or out != payload:
        raise Failure(f"weston's selection is no longer {vm}'s")


def case_bindings(s):
    """The trusted copy and paste move text (every type wl-copy offers)
    and a 20 MiB image byte for byte from a to b, read once, and to no
    third VM; a keeps its selection throughout; the log names VMs, types
    and sizes, never the data."""
    text = b"ivwl trusted text \xe2\x9c\x93\n"
    a_copy = copy_in(s, "a", text)
    wait_selection(s, text)
    expect_no_paste(s, "b", secret=text)
    trusted_copy(s, "a", "trusted copy from a: ")
    trusted_paste(s, "b", "trusted paste of a's copy into b")
    # wl-paste is a client of b's of its own: the paste follows the
    # keyboard there, and is read once
    expect_paste(s, "b", text)
    expect_no_paste(s, "b", secret=text)
    expect_no_paste(s, "b", "text/plain", secret=text)
    expect_no_paste(s, "c", secret=text)
    if s.weston_log().count("of the trusted paste of a's copy") != 1:
        raise Failure("b did not read the paste exactly once")
    still_owns(s, "a", a_copy, text)
    # once: the plugin's clipboard is empty after the paste
    s.seat.key("super+shift+v")
    wait_log(s, "trusted paste: nothing copied")

    image = os.urandom(20 << 20)
    a_image = copy_in(s, "a", image, "image/png")
    wait_selection(s, image, "image/png")
    trusted_copy(s, "a",
                 "trusted copy from a: 1 types, 20971520 bytes "
                 "(image/png 20971520)")
    trusted_paste(s, "b", "into b: 1 types, 20971520 bytes")
    expect_paste(s, "b", image, "image/png")
    wait_log_re(s, r"trusted paste: image/png, 20971520 bytes, written to "
                r"\[b\] slot \d+")
    expect_no_paste(s, "b", "image/png")
    expect_no_paste(s, "c", "image/png")
    still_owns(s, "a", a_image, image, "image/png")

    # one client of b reading the offer twice gets it once, whole
    data = os.urandom(100_000)
    a_data = copy_in(s, "a", data, "application/x-ivwl-twice")
    wait_selection(s, data, "application/x-ivwl-twice")
    trusted_copy(s, "a", "trusted copy from a: 1 types, 100000 bytes")
    twice = s.client([ENV["IVWL_DND_CLIENT"], "--title", "b-twice",
                      "twice", "application/x-ivwl-twice"], vm="b",
                     log="b-twice.log")
    s.click_window(s.wait_view("[b] b-twice"))
    s.seat.key("super+shift+v")
    wait_log(s, "trusted paste of a's copy into b: 1 types, 100000 bytes")
    lines = Lines(twice)
    wait_for("b-twice to read twice", lambda: len(
        [l for l in lines.read() if l.startswith("pasted")]) >= 2,
        timeout=20, step=0.2)
    got = [l for l in lines.read() if l.startswith("pasted")]
    if got[:2] != [f"pasted {len(data)} bytes fnv {fnv(data)}",
                   "pasted 0 bytes fnv cbf29ce484222325"]:
        raise Failure(f"two reads of one paste offer gave {got}")
    still_owns(s, "a", a_data, data, "application/x-ivwl-twice")
    if text.strip() in s.weston_log().encode(errors="replace"):
        raise Failure("the copied text is in weston's log")
    print("text, a 20 MiB image and 100000 bytes moved a -> b byte for "
          "byte, read once each; a kept its selection")


def case_gtk(s):
    """A GTK application in a types and copies (ctrl+c); the trusted
    bindings bring it to wl-paste in b."""
    # the first window of the session: nobody held the keyboard, so the
    # demo gets it
    gtk = s.client(["gtk3-demo", "--run=clipboard"], vm="a", log="gtk.log",
                   extra_env={"GDK_BACKEND": "wayland",
                              "NO_AT_BRIDGE": "1"})
    s.wait_view("[a] Clipboard", timeout=40)
    time.sleep(1)
    # the demo's first entry has the focus: replace its text and copy it
    s.seat.key("ctrl+a")
    s.seat.type("ivwl from gtk", delay=0.03)
    s.seat.key("ctrl+a", "ctrl+c")
    wait_selection(s, b"ivwl from gtk")
    trusted_copy(s, "a", "trusted copy from a: ")
    trusted_paste(s, "b", "trusted paste of a's copy into b")
    expect_paste(s, "b", b"ivwl from gtk")
    if gtk.poll() is not None:
        raise Failure("gtk3-demo exited")
    print("GTK's copy reached b through the trusted paste")


def case_stall_flood(s):
    """A VM that stalls or floods during a trusted copy, or stalls reading
    a trusted paste, costs a stall timer: weston answers throughout, the
    receiving VM's other window stays, and the next paste is whole."""
    bwin = window(s, "b", "b-win")
    # a stalls: its wl-copy is stopped while weston asks it for data
    stuck = copy_in(s, "a", b"never sent\n")
    wait_selection(s, b"never sent\n")
    os.kill(stuck.pid, signal.SIGSTOP)
    focus(s, "a")
    s.seat.key("super+shift+c")
    took = responsive(s)
    wait_log(s, "stalled after 0 bytes")
    wait_log(s, "trusted copy from a: nothing copied")
    os.kill(stuck.pid, signal.SIGCONT)
    print(f"stalled source given up; weston answered in {took:.2f} s")

    # a floods: more than the budget (32 MiB here) in one type
    copy_in(s, "a", os.urandom(48 << 20), "application/x-flood")
    wait_for("the flood's selection", lambda: "application/x-flood" in
             s.local(["wl-paste", "-l"], capture_output=True,
                     timeout=30).stdout.decode(), timeout=30, step=0.5)
    focus(s, "a")
    s.seat.key("super+shift+c")
    wait_log(s, "application/x-flood is over the budget")
    responsive(s)
    print("flooding source cut at the budget")

    # b stalls reading the paste: its wl-paste's stdout is never read.
    # The plugin's pipe thread takes the VM's share: the paste's writer
    # is done, and weston and b's other window go on.
    image = os.urandom(20 << 20)
    copy_in(s, "a", image, "image/png")
    wait_selection(s, image, "image/png")
    trusted_copy(s, "a", "trusted copy from a: 1 types")
    trusted_paste(s, "b", "into b: 1 types")
    reader = s.client(["wl-paste", "-n", "-t", "image/png"], vm="b",
                      log="stalled-reader.log")
    wait_log(s, "reads image/png of the trusted paste of a's copy")
    responsive(s)
    wait_log_re(s, r"trusted paste: image/png, 20971520 bytes, written to "
                r"\[b\] slot \d+")
    if bwin.poll() is not None or reader.poll() is not None:
        raise Failure("b's clients went with the stalled reader")
    print("a stalled reader in b blocks neither weston nor b")

    # a local reader, whose pipe weston writes into directly, that
    # stalls stalls the paste's own writer: given up after the stall
    # timer.  a's selection is the image still: copy it again, then set
    # another, or the reader would stall on a's own.
    copied = s.weston_log().count("trusted copy from a: 1 types")
    focus(s, "a")
    s.seat.key("super+shift+c")
    wait_for("the second copy", lambda: s.weston_log().count(
        "trusted copy from a: 1 types") > copied, timeout=20, step=0.2)
    copy_in(s, "a", b"other\n", "text/x-other")
    wait_selection(s, b"other\n", "text/x-other")
    local = subprocess.Popen([ENV["IVWL_DND_CLIENT"], "--title",
                              "local-stall", "stall", "image/png"],
                             env=s._debug_env(), stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
    s.clients.append(local)
    s.wait_view("local-stall")
    s.seat.key("super+shift+v")
    wait_log(s, "trusted paste of a's copy into local")
    wait_log(s, "trusted paste: local, the reader of image/png, stalled "
             "after")
    responsive(s)
    if local.poll() is not None:
        raise Failure("the stalled local reader went")
    print("a stalled reader of the paste given up")


def case_many_pastes(s):
    """A connection's pipes come and go while it runs: one wl-copy in a
    VM serves more local pastes than a connection holds pipes at once
    (IVWL_CHANNEL_MAX, 64), each larger than a pipe's credit window
    (256 KiB), and each comes whole."""
    payload = os.urandom(300 << 10)
    mime = "application/x-many"
    copy_in(s, "a", payload, mime)
    wait_selection(s, payload, mime)
    for i in range(72):
        rc, out = paste_in(s, None, mime)
        if rc != 0 or out != payload:
            raise Failure(f"paste {i + 1} got {len(out)} bytes (rc {rc}), "
                          f"not the {len(payload)} copied")
    print("72 pastes of one copy came whole")


def relay_cpu_s(s, vm):
    """CPU seconds of the relays serving vm's clients (/proc ticks)."""
    agent = s.path(f"{vm}-agent.sock").encode()
    ticks = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                st = f.read()
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            continue
        if st[st.index("(") + 1:st.rindex(")")] != "ivwl-relay" or \
                b"IVWL_AGENT=" + agent not in env:
            continue
        f = st[st.rindex(")") + 2:].split()
        ticks += int(f[11]) + int(f[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def case_slow_reader(s):
    """A writer in a VM that is done while its relay waits for the
    reader: wl-copy writes all it serves and closes its pipe while the
    local reader takes nothing, so the relay holds the rest with no
    credit.  It sleeps meanwhile (a closed pipe it cannot act on woke it
    again and again: 2.95 s of CPU in 3 s at 448 and 512 KiB), and the
    paste comes whole.  That state needs a copy larger than what the
    display side takes in at once (the credit window and the pipes),
    and by at most the writer's own pipe: three sizes around it."""
    mime = "application/x-slow"
    for kib in (448, 480, 512):
        payload = os.urandom(kib << 10)
        copy_in(s, "a", payload, mime)
        wait_selection(s, payload, mime)
        # its stdout is read only at the end: it stops reading at once
        reader = subprocess.Popen(["wl-paste", "-n", "-t", mime],
                                  env=s._debug_env(),
                                  stdout=subprocess.PIPE)
        s.clients.append(reader)
        time.sleep(2)     # wl-copy is done, the relay waits for credit
        before = relay_cpu_s(s, "a")
        time.sleep(2)
        spent = relay_cpu_s(s, "a") - before
        got, _ = reader.communicate(timeout=60)
        print(f"{kib} KiB: the relay used {spent:.2f} s of CPU in 2 s "
              f"of waiting")
        if got != payload:
            raise Failure(f"the slow reader got {len(got)} bytes, not "
                          f"the {len(payload)} copied")
        if spent > 0.4:
            raise Failure(f"the relay spun while it waited: {spent:.2f} "
                          f"s of CPU in 2 s")


def free_point(s, title):
    """A point of title's window no other window covers."""
    views = [v for v in s.scene() if v["title"] and v["rect"]]
    mine = [v for v in views if v["title"] == title]
    if not mine:
        raise Failure(f"no window {title!r}")
    x0, y0, x1, y1 = mine[0]["rect"]
    others = [v["rect"] for v in views if v["title"] != title]
    for y in range((y0 + y1) // 2, y1 - 5, 7):
        for x in range((x0 + x1) // 2, x1 - 5, 7):
            if not any(a <= x < c and b <= y < d for a, b, c, d in others):
                return x, y
    raise Failure(f"{title!r} is covered by other windows")


class Lines:
    """What a client printed so far, kept across looks."""
    def __init__(self, proc):
        self.proc = proc
        self.text = b""
        os.set_blocking(proc.stdout.fileno(), False)

    def read(self):
        chunk = self.proc.stdout.read()
        if chunk:
            self.text += chunk
        return self.text.decode(errors="replace").splitlines()

    def forget(self):
        self.read()
        self.text = b""


def drag(s, src_title, dst_title):
    sx, sy = free_point(s, src_title)
    dx, dy = free_point(s, dst_title)
    s.seat.move(sx, sy)
    time.sleep(0.3)
    s.seat.down()
    time.sleep(0.3)
    for i in range(1, 11):
        s.seat.move(sx + (dx - sx) * i // 10, sy + (dy - sy) * i // 10)
        time.sleep(0.05)
    time.sleep(0.5)
    s.seat.up()


def case_drag(s):
    """A drag from a (drag-and-drop=export) into isolated c is refused:
    c hears of no drag and a's source is cancelled; into b (import) it
    crosses and the drop is read."""
    def dnd(vm, title, role):
        p = s.client([ENV["IVWL_DND_CLIENT"], "--title", title, role],
                     vm=vm, log=f"{title}.log")
        s.wait_view(f"[{vm}] {title}")
        return Lines(p)
    src = dnd("a", "a-src", "source")
    b = dnd("b", "b-dst", "target")
    c = dnd("c", "c-dst", "target")
    drag(s, "[a] a-src", "[c] c-dst")
    wait_for("a's drag to be cancelled", lambda: "cancelled" in src.read(),
             timeout=15, step=0.2)
    if "dragging" not in src.read():
        raise Failure("a never started its drag")
    if any(l.startswith("enter") or l.startswith("got") for l in c.read()):
        raise Failure("the drag reached isolated c")
    wait_log(s, "withheld a drag offer of a's data "
             "(drag-and-drop=isolated)")
    print("a's drag into isolated c refused")

    b.forget()
    src.forget()
    drag(s, "[a] a-src", "[b] b-dst")
    wait_for("b to read the drop", lambda: "got ivwl-dnd-payload" in
             b.read(), timeout=15, step=0.2)
    if "enter" not in b.read():
        raise Failure("b read a drop it never saw enter")
    if any(l.startswith("enter") or l.startswith("got") for l in c.read()):
        raise Failure("the drag reached isolated c")
    wait_log(s, "reads text/x-ivwl-dnd of a's drag")
    print("a's drag into b (import) crossed and was dropped")


CASES = {
    "isolated": (case_isolated, ("a", "b"), {}),
    "policies": (case_policies, ("a", "b", "c", "d"), {
        "a": ["clipboard=export"], "b": ["clipboard=import"],
        "c": ["clipboard=shared"]}),
    "bindings": (case_bindings, ("a", "b", "c"), {}),
    "gtk": (case_gtk, ("a", "b"), {}),
    "stall-flood": (case_stall_flood, ("a", "b"), {}),
    "many-pastes": (case_many_pastes, ("a",), {}),
    "slow-reader": (case_slow_reader, ("a",), {}),
    "drag": (case_drag, ("a", "b", "c"), {
        "a": ["drag-and-drop=export"], "b": ["drag-and-drop=import"]}),
}
IVWL_OPTIONS = {
    "stall-flood": ["clipboard-budget-mib=32", "clipboard-stall-ms=1000"],
}


def start(name):
    run, vms, options = CASES[name]
    s = Session(vms, backend="seat", vm_options=options,
                ivwl_options=IVWL_OPTIONS.get(name, ()))
    return s, run, False


if __name__ == "__main__":
    # GTK under ASan's preloaded runtime is left out of the sanitized
    # pass, as in tests/integration
    sys.exit(case_main(CASES, start, Listing(
        prefix="clipboard-", suites=("clipboard",), timeout=180,
        more_suites={c: ["sanitized"] for c in CASES if c != "gtk"})))
