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
(test-weston.py's compare_window and check_border): the gui-vm writes
weston-debug's scene graph and weston-screenshooter's PNGs into the
test's directory, shared writable over 9p at the same path.

Then the app-vm's QEMU is killed: the guest driver gives the gui-vm no
word of it, so its window must leave when the agent stops answering
the plugin's liveness probe (one per app-timeout), not before.  (deploy-b covers
the clean end: client, relay, agent, rmmod.)  Last the gui-vm's weston
exits 0 and ivwl.ko unloads.

    test-deploy-a.py --module KO --kernel VMLINUZ --mkinitramfs SH
                     --guest-script SH --gui-script SH

Environment as tests/vm/deploy-b/test-deploy-b.py.
"""

import importlib.util
import os
import shutil
import subprocess
import sys
import time
import types
import unittest.mock

HERE = os.path.dirname(os.path.abspath(__file__))


def load_deploy_b():
    spec = importlib.util.spec_from_file_location(
        "ivwl_deploy_b", os.path.join(HERE, "..", "deploy-b",
                                      "test-deploy-b.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


B = load_deploy_b()
session = sys.modules["session"]        # loaded by deploy-b
ENV, Failure, Session, wait_for = (session.ENV, session.Failure,
                                   session.Session, session.wait_for)

VM = B.VM
GUI_WIDTH, GUI_HEIGHT = 800, 600
# The plugin's app-timeout: how long a silent app side keeps its windows.
APP_TIMEOUT_S = 5


class HostSide(B.HostSide):
    """Only ivwl-server on the host: weston is in the gui-vm, the agent
    in the app-vm (B.HostSide has no agent).  scene() and screenshot()
    ask the gui-vm."""

    gui = None

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

    def weston_fd_links(self):
        """Where each of the gui-vm's weston's fds points."""
        self._ask_gui("fds", "GUI: fds done")
        with open(self.path("fds.txt")) as f:
            return [line.strip() for line in f if line.strip()]

    def scene(self):
        self._ask_gui("scene", "GUI: scene done")
        with open(self.path("scene.txt"), "rb") as f:
            out = f.read()
        # Session.scene parses what weston-debug printed: give it the
        # gui-vm's output instead of running weston-debug here.
        done = types.SimpleNamespace(stdout=out)
        with unittest.mock.patch.object(session.subprocess, "run",
                                        return_value=done):
            return Session.scene(self)

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


def run(args):
    qemu = ENV.get("IVWL_VM_QEMU", "qemu-system-x86_64")
    limit = int(ENV.get("IVWL_VM_TIMEOUT", "280"))
    if not shutil.which(qemu):
        raise Failure(f"{qemu} not found: install qemu-system-x86")
    kernel_version = os.path.basename(args.kernel).split("vmlinuz-", 1)[1]

    t_start = time.monotonic()
    host = HostSide([VM])
    gui = app = None
    errors = []
    consoles = {}
    try:
        app_initrd = host.path("app-initramfs.gz")
        gui_initrd = host.path("gui-initramfs.gz")
        B.build_initramfs(args, app_initrd)
        build_gui_initramfs(args, gui_initrd, kernel_version)

        display_sock = host.app_socket() + ".display"
        p9 = "security_model=none,multidevs=remap"
        gui = host.gui = B.Guest(
            qemu, args.kernel, gui_initrd, display_sock,
            host.path("gui-console.log"), limit,
            f"/bin/gui.sh,{host.dir},{GUI_WIDTH},{GUI_HEIGHT}",
            memory=1024, extra=[
                "-fsdev", f"local,id=hostroot,path=/,readonly=on,{p9}",
                "-device", "virtio-9p-pci,fsdev=hostroot,"
                "mount_tag=hostroot",
                "-fsdev", f"local,id=out,path={host.dir},{p9}",
                "-device", "virtio-9p-pci,fsdev=out,mount_tag=out"])
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
        log = host.weston_log()
        for want in (f"[{VM}] attached to /dev/ivwl0",
                     f"[{VM}] slot 0 generation 1: new client",
                     f"[{VM}] app side did not answer for "
                     f"{APP_TIMEOUT_S} s; ending its connections"):
            if want not in log:
                errors.append(f"the gui-vm's weston never logged {want!r}")
        if gui.proc.returncode != 0:
            errors.append(f"the gui-vm's QEMU exited with "
                          f"{gui.proc.returncode}")
    except BaseException:
        for name, vm in (("app-vm", app), ("gui-vm", gui)):
            if vm:
                vm.stop()
                print(f"---- {name} console ----\n{vm.console()}")
        host.dump_logs()
        raise
    finally:
        for name, vm in (("app-vm", app), ("gui-vm", gui)):
            if vm:
                vm.stop()
                consoles[name] = vm.console()
        host.close()
        if ENV.get("IVWL_VM_KEEP") == "1":
            print(f"deploy-a: logs kept in {host.dir}")
        else:
            shutil.rmtree(host.dir, ignore_errors=True)
    # The app-vm was killed mid-run: no result line, no dmesg dump, no
    # clean exit; what it printed must still hold no failure or oops.
    app_errors = []
    B.check_guest_log(consoles["app-vm"], app_errors, "GUEST", 1)
    errors += [e for e in app_errors if "FAIL:" in e or "oops" in e]
    B.check_guest_log(consoles["gui-vm"], errors, "GUI", 0)
    if errors:
        for name, text in consoles.items():
            print(f"---- {name} console ----\n{text}")
        raise Failure("; ".join(errors))


def main():
    return B.deployment_main("deploy-a", lambda ap: ap.add_argument(
        "--gui-script", required=True), run)


if __name__ == "__main__":
    sys.exit(main())
