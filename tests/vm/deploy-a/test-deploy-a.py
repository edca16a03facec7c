#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Deployment A end to end: two QEMU (TCG) guests on one ivwl-server.

- gui-vm (peer 0, the server's display socket): ivwl.ko, then weston +
  ivwl.so with device=/dev/ivwl0, run from this machine's root shared
  read-only over 9p (gui.sh).  weston needs modules, a shell helper and
  data files it loads by name at run time, which an ldd closure misses;
  the host's own root has them all.
- app-vm (peer 1, the app socket): the image of tests/vm/deploy-b
  (ivwl.ko, ivwl-agent --device /dev/ivwl0, the pattern client through
  the shim), told to start its client once weston is attached.

No ivwl process runs on the host besides ivwl-server.  The host checks
what the gui-vm's weston shows with the integration checks
(session.py's compare_window and check_border): the gui-vm writes
weston-debug's scene graph and weston-screenshooter's PNGs into the
test's directory, shared writable over 9p at the same path.

Then the app-vm's QEMU is killed: the guest driver gives the gui-vm no
word of it, so its window must leave when the agent stops answering
the plugin's liveness probe (one per app-timeout), not before.  (deploy-b covers
the clean end: client, relay, agent, rmmod.)  Last the gui-vm's weston
exits 0 and ivwl.ko unloads.

With --restart, before the app-vm dies, the gui-vm's QEMU is killed
(SIGKILL) and a new gui-vm boots on the same ivwl-server: the app-vm's
window must come back in the new weston, the same pixels, drawn by the
same client process (pid and start time), its relay having logged "the
client's windows are back".  The app-vm's end then plays out on the new
gui-vm.

    test-deploy-a.py --module KO --kernel VMLINUZ --mkinitramfs SH
                     --guest-script SH --gui-script SH [--restart]

Environment as tests/vm/deploy-b/test-deploy-b.py.
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import time



from ivwltest import deploy_b as B  # noqa: E402
from ivwltest import session  # noqa: E402
from ivwltest.session import ENV, Failure, Session, wait_for  # noqa: E402

VM = B.VM
GUI_WIDTH, GUI_HEIGHT = 800, 600
# The plugin's app-timeout: how long a silent app side keeps its windows.
APP_TIMEOUT_S = 5


class HostSide(B.HostSide):
    """Only ivwl-server on the host: weston is in the gui-vm, the agent
    in the app-vm (B.HostSide has no agent).  scene() and screenshot()
    ask the gui-vm."""

    gui = None
    # as many as QEMU's: a vector per slot (docs/region.md "Wake vectors")
    server_vectors = B.VECTORS

    def _start_weston(self):
        ini = ["[core]", f"modules={ENV['IVWL_PLUGIN']}", "idle-time=0", "",
               # as session.py: no fades or dimming, pixels compared exactly
               "[shell]", "panel-position=none", "animation=none",
               "close-animation=none", "startup-animation=none",
               "focus-animation=none", "",
               "[ivwl-vm]", f"name={VM}", "device=/dev/ivwl0",
               "color=0xff3070c0", f"app-timeout={APP_TIMEOUT_S}", ""]
        with open(self.path("weston.ini"), "w") as f:
            f.write("\n".join(ini))
        os.chmod(self.dir, 0o755)

    def _ask_gui(self, command, marker):
        seen = self.gui.console().count(marker)
        self.gui.say(command)
        self.gui.wait_line(marker, 120, count=seen + 1)

    def live_vm_line(self):
        """The plugin's live view line of our VM (weston-debug ivwl)."""
        self._ask_gui("live", "GUI: live done")
        with open(self.path("live.txt"), errors="replace") as f:
            for line in f:
                if line.startswith(f"vm name={VM} "):
                    return line
        raise Failure("weston-debug ivwl in the gui-vm showed no vm line")

    def weston_fd_links(self):
        """Where each of the gui-vm's weston's fds points."""
        self._ask_gui("fds", "GUI: fds done")
        with open(self.path("fds.txt")) as f:
            return [line.strip() for line in f if line.strip()]

    def scene(self):
        self._ask_gui("scene", "GUI: scene done")
        with open(self.path("scene.txt"), "rb") as f:
            out = f.read()
        # what weston-debug printed in the gui-vm
        return session.parse_scene(out)

    def screenshot(self):
        shots = self.path("shots")
        before = set(os.listdir(shots)) if os.path.isdir(shots) else set()
        self._ask_gui("shot", "GUI: shot done")
        new = sorted(set(os.listdir(shots)) - before)
        if not new:
            raise Failure("weston-screenshooter in the gui-vm wrote no file")
        return session.decode_png(os.path.join(shots, new[-1]))


def check_weston_fds(host, errors):
    """weston opens the node once: it maps, rings and binds its vector
    through one file (IVWL_DEVICE_PRIVATE), with one eventfd for it."""
    links = host.weston_fd_links()
    # weston runs chrooted into the host's root, /dev/ivwl0 of the gui-vm
    # mounted into it: the link names it from the guest's root
    nodes = sum(link.endswith("/dev/ivwl0") for link in links)
    print(f"deploy-a: weston holds {len(links)} fds, {nodes} of them "
          f"/dev/ivwl0")
    if nodes != 1:
        errors.append(f"weston holds /dev/ivwl0 open {nodes} times, "
                      f"want 1: {links}")


def check_wake_vectors(host, errors):
    """With a vector per slot the gui-vm's weston rings the app-vm's
    relay on its slot's own vector (docs/region.md "Wake vectors"): its
    doorbell names the vector, so nothing but vectors= limits it."""
    m = re.search(r" vector_rings=(\d+) ", host.live_vm_line())
    rings = int(m.group(1)) if m else 0
    print(f"deploy-a: weston rang the relay's own vector {rings} times")
    if rings == 0:
        errors.append("weston never rang a slot's own vector (wake "
                      "vectors), with vectors=" + str(B.VECTORS))


def build_gui_initramfs(args, out, kernel_version):
    """busybox, ivwl.ko, 9p over virtio-pci and gui.sh."""
    lines = []
    # one module per call: modprobe --show-depends ignores the others
    for module in ("9p", "9pnet_virtio", "virtio_pci"):
        deps = subprocess.run(
            ["modprobe", "--show-depends", "-S", kernel_version, module],
            capture_output=True, text=True)
        if deps.returncode != 0:
            raise Failure(f"modprobe --show-depends {module}: "
                          f"{deps.stderr.strip()}")
        lines += deps.stdout.splitlines()
    order, files = [], []
    for line in lines:
        words = line.split()
        if len(words) < 2 or words[0] != "insmod":
            continue        # builtin
        # mkinitramfs.sh stores a *.ko.xz decompressed, without .xz
        name = os.path.basename(words[1]).removesuffix(".xz")
        if name not in order:
            order.append(name)
            files.append(f"{words[1]}=/lib/modules/{name}")
    with open(out + ".order", "w") as f:
        f.write("\n".join(order) + "\n")
    files += [out + ".order=/lib/modules/order",
              args.module + "=/lib/modules/ivwl.ko",
              args.gui_script + "=/bin/gui.sh"]
    subprocess.run([args.mkinitramfs, out] + files, check=True)


def qemu_pid(guest):
    """QEMU's pid: guest.proc is timeout(1), QEMU its only child."""
    pid = guest.proc.pid
    with open(f"/proc/{pid}/task/{pid}/children") as f:
        children = f.read().split()
    if len(children) != 1:
        raise Failure(f"timeout(1) has children {children}, want QEMU")
    return int(children[0])


def client_status(app):
    """(pid, start time, state) of the app-vm's client, as it last said
    (guest.sh's client_status)."""
    got = re.findall(r"GUEST: client pid (\d+) start (\S+) (\w+)",
                     app.console())
    if not got:
        raise Failure("the app-vm never said its client's pid")
    return got[-1]


def times_seen(marks, timeout):
    """marks: {name: (guest, marker)}.  The host's time at which each
    marker first showed on its guest's console, polled every 0.1 s.  A
    FAIL line or a QEMU that exits ends the wait with what it said."""
    got = {}
    end = time.monotonic() + timeout
    guests = {id(g): g for g, _ in marks.values()}.values()
    while True:
        now = time.monotonic()
        texts = {id(g): g.console() for g in guests}
        for name, (guest, marker) in marks.items():
            if name not in got and marker in texts[id(guest)]:
                got[name] = now
        if len(got) == len(marks):
            return got
        for guest in guests:
            text = texts[id(guest)]
            fails = re.findall(r"^(?:GUEST|GUI): FAIL: .*", text, re.M)
            if fails:
                logs = re.findall(r"^GUEST: client log: (.*)", text, re.M)
                raise Failure(f"{fails[-1]}" + (
                    f"; the relay logged: {' | '.join(logs)}"
                    if logs else ""))
            if guest.proc.poll() is not None:
                raise Failure(f"QEMU exited ({guest.proc.returncode}) "
                              f"while the host waited for "
                              f"{[m for _, m in marks.values()]}")
        if now > end:
            raise Failure(f"timed out after {timeout} s waiting for " +
                          ", ".join(repr(m) for n, (_, m) in marks.items()
                                    if n not in got))
        time.sleep(0.1)


def restart_gui(host, app, start_gui, title, dump, errors):
    """Kills the gui-vm's QEMU and boots a new gui-vm on the same
    server; returns it once the app-vm's window is back on its weston."""
    app.say("restart")
    app.wait_line("GUEST: watching the client across the display's "
                  "restart", 60)
    before = client_status(app)
    if before[2] != "running":
        raise Failure(f"the app-vm's client is {before[2]} before the "
                      f"restart")
    # No word to anyone: the display side just stops.
    os.kill(qemu_pid(host.gui), signal.SIGKILL)
    host.gui.proc.wait(30)
    t_kill = time.monotonic()
    server_log = host.path(f"server-{VM}.log")

    def server_said(text):
        with open(server_log) as f:
            return f.read().count(text)
    wait_for("ivwl-server to see the gui-vm's QEMU leave",
             lambda: server_said("display peer 0 left"), 30, 0.1)
    # the new weston logs to the same path, checked as the first one was
    os.rename(host.path("weston.log"), host.path("weston-1.log"))
    gui = host.gui = start_gui("gui2-console.log")
    t = times_seen({
        "started": (gui, "GUI: weston started"),
        "attached": (gui, "GUI: weston attached"),
        "back": (app, "GUEST: the client's windows are back"),
    }, 420)
    view = host.wait_view(title, timeout=120)
    t_view = time.monotonic()
    print(f"deploy-a: gui-vm's QEMU killed; a new gui-vm's weston started "
          f"{t['started'] - t_kill:.1f} s later and attached to /dev/ivwl0 "
          f"{t['attached'] - t['started']:.1f} s after its start")
    print(f"deploy-a: from the new weston's start, the app-vm's relay said "
          f"its windows are back after {t['back'] - t['started']:.1f} s, "
          f"weston's scene graph showed {title!r} after "
          f"{t_view - t['started']:.1f} s")
    own = weston_times(host.weston_log())
    if own:
        print(f"deploy-a: by the new weston's log, from its first line: "
              f"plugin attached after {own[0]:.2f} s, the relay's new "
              f"slot (the replay) opened after {own[1]:.2f} s")
    B.compare_window(host, view, dump, B.WIDTH, B.HEIGHT)
    B.check_border(host, host.wait_view(title), B.BORDER)

    after = client_status(app)
    print(f"deploy-a: the app-vm's client: pid {before[0]} start "
          f"{before[1]} before, pid {after[0]} start {after[1]} "
          f"{after[2]} after")
    if after != before:
        errors.append(f"the app-vm's client was pid {before[0]} (start "
                      f"{before[1]}) before the restart, pid {after[0]} "
                      f"(start {after[1]}, {after[2]}) after")
    relay = re.findall(r"^GUEST: client log: (.*)", app.console(), re.M)
    for want in ("the display left; keeping the client's windows",
                 "replaying the client's windows on the new display",
                 "the client's windows are back"):
        if not any(want in line for line in relay):
            errors.append(f"the app-vm's relay never logged {want!r}: "
                          f"{relay}")
    if host.procs[0].poll() is not None:
        errors.append(f"ivwl-server exited ({host.procs[0].returncode}) "
                      f"across the gui-vm's restart")
    joined = server_said("display peer 0 joined")
    if joined != 2:
        errors.append(f"ivwl-server logged 'display peer 0 joined' "
                      f"{joined} times, want 2")
    return gui


def run(args):
    qemu = ENV.get("IVWL_VM_QEMU", "qemu-system-x86_64")
    limit = int(ENV.get("IVWL_VM_TIMEOUT", "280"))
    if not shutil.which(qemu):
        raise Failure(f"{qemu} not found: install qemu-system-x86")
    kernel_version = os.path.basename(args.kernel).split("vmlinuz-", 1)[1]

    t_start = time.monotonic()
    host = HostSide([VM])
    app = None
    guis = []           # every gui-vm booted, the current one last
    errors = []
    consoles = {}
    try:
        app_initrd = host.path("app-initramfs.gz")
        gui_initrd = host.path("gui-initramfs.gz")
        B.build_initramfs(args, app_initrd)
        build_gui_initramfs(args, gui_initrd, kernel_version)

        display_sock = host.app_socket() + ".display"
        p9 = "security_model=none,multidevs=remap"

        def start_gui(log):
            guis.append(B.Guest(
                qemu, args.kernel, gui_initrd, display_sock,
                host.path(log), limit,
                f"/bin/gui.sh,{host.dir},{GUI_WIDTH},{GUI_HEIGHT}",
                memory=1024, extra=[
                    "-fsdev", f"local,id=hostroot,path=/,readonly=on,{p9}",
                    "-device", "virtio-9p-pci,fsdev=hostroot,"
                    "mount_tag=hostroot",
                    "-fsdev", f"local,id=out,path={host.dir},{p9}",
                    "-device", "virtio-9p-pci,fsdev=out,mount_tag=out"]))
            return guis[-1]

        gui = host.gui = start_gui("gui-console.log")
        app = B.Guest(qemu, args.kernel, app_initrd, host.app_socket(),
                      host.path("app-console.log"), limit,
                      B.app_run(wait=True))

        t_app = app.wait_line("GUEST: waiting to start the client", 120)
        t_gui = gui.wait_line("GUI: weston attached", 240)
        print(f"deploy-a: app-vm agent ready at {t_app:.1f} s, gui-vm "
              f"weston attached at {t_gui:.1f} s")
        app.say("go")
        t_ready = app.wait_line("GUEST: client ready", 120)
        app.wait_line("GUEST: waiting for the host", 60)
        print(f"deploy-a: {B.FRAMES} frames drawn at {t_ready:.1f} s")

        dump = host.path("pattern.raw")
        B.guest_dump(app.console(), dump)
        title = f"[{VM}] {B.TITLE}"
        view = host.wait_view(title, timeout=120)
        B.compare_window(host, view, dump, B.WIDTH, B.HEIGHT)
        B.check_border(host, host.wait_view(title), B.BORDER)
        check_weston_fds(host, errors)
        check_wake_vectors(host, errors)
        if args.restart:
            gui = restart_gui(host, app, start_gui, title, dump, errors)

        # The app-vm dies without a word (QEMU killed): nothing tells the
        # gui-vm but a liveness probe its agent no longer answers.
        app.stop()
        t_kill = time.monotonic()
        wait_for("the dead app-vm's window to leave the gui-vm's weston",
                 lambda: not any(v["title"] == title
                                 for v in host.scene()),
                 APP_TIMEOUT_S + 60, 0.5)
        gone = time.monotonic() - t_kill
        print(f"deploy-a: app-vm killed; its window left weston "
              f"{gone:.1f} s later (app-timeout={APP_TIMEOUT_S})")
        if gone < APP_TIMEOUT_S - 1:
            errors.append(f"the window left after {gone:.1f} s, before "
                          f"app-timeout={APP_TIMEOUT_S} s")
        # One probe per period: the one out when it died goes unanswered
        # by the next, so at most two periods (and TCG's slowness).
        if gone > 2 * APP_TIMEOUT_S + 10:
            errors.append(f"the window left after {gone:.1f} s, long "
                          f"after two app-timeout periods")
        gui.say("quit")
        gui.proc.wait(60)
        print(f"deploy-a: gui-vm ran {gui.elapsed():.1f} s, the whole "
              f"test {time.monotonic() - t_start:.1f} s")
        check_weston_logs(host, args.restart, errors)
        if gui.proc.returncode != 0:
            errors.append(f"the gui-vm's QEMU exited with "
                          f"{gui.proc.returncode}")
    except BaseException:
        for name, vm in named_vms(app, guis):
            vm.stop()
            print(f"---- {name} console ----\n{vm.console()}")
        host.dump_logs()
        raise
    finally:
        for name, vm in named_vms(app, guis):
            vm.stop()
            consoles[name] = vm.console()
        host.close()
        if ENV.get("IVWL_VM_KEEP") == "1":
            print(f"deploy-a: logs kept in {host.dir}")
        else:
            shutil.rmtree(host.dir, ignore_errors=True)
    # The app-vm was killed mid-run, and so was the first gui-vm with
    # --restart: no result line, no dmesg dump, no clean exit; what they
    # printed must still hold no failure or oops.
    last = named_vms(app, guis)[-1][0]
    for name, text in consoles.items():
        tag, peer = ("GUEST", 1) if name == "app-vm" else ("GUI", 0)
        if name == last:
            B.check_guest_log(text, errors, tag, peer)
            continue
        killed = []
        B.check_guest_log(text, killed, tag, peer)
        errors += [e for e in killed if "FAIL:" in e or "oops" in e]
    if errors:
        for name, text in consoles.items():
            print(f"---- {name} console ----\n{text}")
        raise Failure("; ".join(errors))


def named_vms(app, guis):
    """[(name, guest)] of the VMs started, the app-vm first."""
    vms = [("app-vm", app)] if app else []
    return vms + [("gui-vm" if i == 0 else f"gui-vm {i + 1}", gui)
                  for i, gui in enumerate(guis)]


def check_weston_logs(host, restart, errors):
    """What each gui-vm's weston logged: the plugin attached, the app's
    client came (after a restart: its relay took a new slot for the
    replay), and the last one ended the app side's connections once the
    app-vm died."""
    logs = [("the gui-vm's weston", host.weston_log())]
    if restart:
        with open(host.path("weston-1.log"), errors="replace") as f:
            logs.insert(0, ("the first gui-vm's weston", f.read()))
        logs[1] = ("the second gui-vm's weston", logs[1][1])
    for name, log in logs:
        if f"[{VM}] attached to /dev/ivwl0" not in log:
            errors.append(f"{name} never logged '[{VM}] attached to "
                          f"/dev/ivwl0'")
        if not re.search(rf"\[{VM}\] slot \d+ generation \d+: new client",
                         log):
            errors.append(f"{name} never logged a new client of {VM}")
    want = (f"[{VM}] app side did not answer for {APP_TIMEOUT_S} s; "
            f"ending its connections")
    if want not in logs[-1][1]:
        errors.append(f"{logs[-1][0]} never logged {want!r}")


def weston_times(log):
    """Seconds from weston's first log line to the plugin's attach and
    to the first client of VM, by weston's own timestamps (None when a
    line is missing)."""
    def stamp(pattern):
        m = re.search(r"^\[(\d+):(\d+):(\d+\.\d+)\] " + pattern, log,
                      re.M)
        if not m:
            return None
        h, mi, sec = m.groups()
        return int(h) * 3600 + int(mi) * 60 + float(sec)
    t0 = stamp("")
    attach = stamp(re.escape(f"ivwl: [{VM}] attached to"))
    client = stamp(re.escape(f"ivwl: [{VM}] slot ") + r".*: new client")
    if None in (t0, attach, client):
        return None
    # a log that runs across midnight
    return ((attach - t0) % 86400, (client - t0) % 86400)


def main():
    def extra_args(ap):
        ap.add_argument("--gui-script", required=True)
        ap.add_argument("--restart", action="store_true",
                        help="kill the gui-vm's QEMU and boot a new one "
                        "while the app-vm's window is up")
    return B.deployment_main("deploy-a", extra_args, run)


if __name__ == "__main__":
    sys.exit(main())
