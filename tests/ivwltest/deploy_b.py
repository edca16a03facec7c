#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Deployment B end to end: an app-vm under QEMU (TCG) shows a window in
weston on the host.

The host runs ivwl-server and weston (headless, pixman) with ivwl.so
attached to the server's display socket as a host peer, as the integration
tests do (tests/ivwltest/session.py), but no host agent: the app side
is a QEMU guest booting this machine's kernel with an initramfs that holds
ivwl.ko, ivwl-agent, ivwl-relay, libivwl-shim.so and ivwl-pattern-client
(with their shared libraries, tests/vm/mkinitramfs.sh).  In the guest
(guest.sh): insmod ivwl.ko, ivwl-agent --device /dev/ivwl0, the pattern
client with LD_PRELOAD=libivwl-shim.so.

The guest sends the buffer its client drew over the serial console, and
the host checks that every visible pixel of the window in weston's
screenshot equals it, and the VM's border colour (session.py's
compare_window and check_border).  Then the host tells the guest (a line
on the console) to end the client: the window must leave weston's scene,
the agent must exit cleanly, ivwl.ko must unload and the guest kernel must
log no warning.

    test-deploy-b.py --module KO --kernel VMLINUZ --mkinitramfs SH
                     --guest-script SH [--zero-copy auto|on|off]

Environment: IVWL_SERVER_BIN, IVWL_PLUGIN (host side), IVWL_AGENT_BIN,
IVWL_RELAY_BIN, IVWL_SHIM, IVWL_PATTERN_CLIENT (guest side), and
optionally IVWL_VM_QEMU (default qemu-system-x86_64), IVWL_VM_TIMEOUT
(hard limit of the QEMU run, default 240 s), IVWL_VM_KEEP=1 (keep logs).
"""

import argparse
import base64
import gzip
import os
import re
import shutil
import signal
import subprocess
import sys
import time

from ivwltest.session import (ENV, Failure, Session, check_border,  # noqa: E402
                     compare_window, wait_for)

VM = "work"
TITLE = "pattern"
WIDTH, HEIGHT, FRAMES = 240, 180, 12
# QEMU's vectors=: vector 0 and one per slot (docs/region.md "Wake
# vectors").  ivwl-server gets 1 here, as a deployment that left an old
# --vectors 1 would: the agent must find that only vector 0 carries
# doorbells.  deploy-a gives the server as many as QEMU.
VECTORS = 33
BORDER = (0x30, 0x70, 0xc0)     # session.py's colour for the first VM


class HostSide(Session):
    """Session without a host agent: the app side is the VM."""

    # one vector where QEMU has VECTORS: the agent's probe must notice
    server_vectors = 1

    def _start_agent(self, vm):
        pass

    def app_socket(self):
        return self.path(f"{VM}.sock")


def app_run(wait=False, zero_copy="auto"):
    """ivwl.run= of the app-vm: guest.sh and its arguments."""
    return (f"/bin/guest.sh,{WIDTH},{HEIGHT},{FRAMES},{TITLE},"
            f"{'wait' if wait else 'now'},{zero_copy}")


class Guest:
    """One QEMU (TCG) with ivshmem-doorbell on sock; run is ivwl.run=
    (mkinitramfs.sh), the console is log and QEMU's stdin."""

    def __init__(self, qemu, kernel, initrd, sock, log, limit, run,
                 memory=512, extra=()):
        append = f"console=ttyS0 quiet panic=-1 ivwl.run={run}"
        self.log = log
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen(
            ["timeout", "--foreground", "-k", "5", str(limit), qemu,
             "-machine", "q35", "-accel", "tcg", "-smp", "1",
             "-m", str(memory),
             "-nodefaults", "-no-user-config", "-display", "none",
             "-serial", "stdio", "-no-reboot",
             "-kernel", kernel, "-initrd", initrd, "-append", append,
             "-chardev", f"socket,path={sock},id=iv",
             "-device", f"ivshmem-doorbell,chardev=iv,vectors={VECTORS}"]
            + list(extra),
            stdin=subprocess.PIPE, stdout=open(log, "wb"),
            stderr=subprocess.STDOUT)

    def console(self):
        with open(self.log, "rb") as f:
            return f.read().decode(errors="replace").replace("\r", "")

    def elapsed(self):
        return time.monotonic() - self.t0

    def wait_line(self, marker, timeout, count=1):
        """Waits until marker is on the console count times."""
        def seen():
            if self.console().count(marker) >= count:
                return True
            if self.proc.poll() is not None:
                raise Failure(f"QEMU exited ({self.proc.returncode}) "
                              f"before the guest said {marker!r}")
            return False
        wait_for(f"the guest to say {marker!r}", seen, timeout, 0.1)
        return self.elapsed()

    def say(self, line):
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def guest_dump(console, path):
    m = re.search(r"GUEST: DUMP BEGIN\n(.*?)GUEST: DUMP END", console, re.S)
    if not m:
        raise Failure("no dump of the client's buffer on the console")
    data = gzip.decompress(base64.b64decode("".join(m.group(1).split())))
    if len(data) != WIDTH * HEIGHT * 4:
        raise Failure(f"the guest's dump has {len(data)} bytes")
    with open(path, "wb") as f:
        f.write(data)


def build_initramfs(args, out):
    """The app-vm's image: driver, agent, relay, shim and client."""
    files = [
        ENV["IVWL_AGENT_BIN"],
        ENV["IVWL_RELAY_BIN"],
        ENV["IVWL_PATTERN_CLIENT"],
        ENV["IVWL_SHIM"] + "=/lib/ivwl/libivwl-shim.so",
        args.guest_script + "=/bin/guest.sh",
        args.module + "=/lib/modules/ivwl.ko",
    ]
    for f in files:
        src = f.split("=")[0]
        if not os.path.exists(src):
            raise Failure(f"{src} not found: build it first")
    subprocess.run([args.mkinitramfs, out] + files, check=True)


def check_guest_log(console, errors, tag="GUEST", peer=1):
    """What a guest's console must show: tag RESULT: PASS, no tag: FAIL,
    ivwl.ko's probe line as peer, no kernel warning, init's status 0."""
    name = tag.lower()
    if f"{tag} RESULT: PASS" not in console:
        got = re.findall(f"{tag} RESULT: .*", console)
        errors.append(f"{name}: " + (got[0] if got else
                                     f"no {tag} RESULT line"))
    errors += [f"{name}: " + e for e in re.findall(f"{tag}: FAIL: .*",
                                                   console)]
    if not re.search(r"ivwl0: \d+ MiB region \(pages\), \d+ vectors, "
                     f"peer {peer}", console):
        errors.append(f"{name}: no probe line from ivwl.ko in dmesg")
    # "WARNING: CPU": weston's own "WARNING: debug protocol" is no oops
    if re.search(r"WARNING: CPU|BUG:|Oops|Call Trace|general protection",
                 console):
        errors.append(f"{name}: the kernel logged a warning or oops")
    if "IVWL-INIT: exit status 0" not in console:
        errors.append(f"{name}: the init script did not exit with 0")


def check_probed_vectors(console, errors):
    """QEMU has VECTORS, ivwl-server 1: the agent says so and keeps its
    relays on vector 0 (a relay on another would never wake)."""
    said = f"doorbells reach 1 of its first {VECTORS} vectors"
    if said not in console:
        errors.append(f"the agent did not say '{said}'")


def check_buffer_mode(console, zero_copy, errors):
    """The shim took the path asked for (its IVWL_DEBUG lines)."""
    zero = re.search(r"pool \d+: zero-copy", console) is not None
    if zero_copy == "on" and not zero:
        errors.append("IVWL_ZERO_COPY=on but no pool went zero-copy")
    if zero_copy == "off" and zero:
        errors.append("IVWL_ZERO_COPY=off but a pool went zero-copy")
    # with the guest driver the client maps its grant alone, not the region
    if zero and "mapped through a dma-buf of the grant alone" not in console:
        errors.append("a zero-copy client mapped more than its grant "
                      "(no dma-buf of the grant)")
    how = "in place (zero-copy)" if zero else "by copy"
    print(f"deploy-b: the client's pixels reached the region {how}")


def qemu_and_limit(args):
    """The QEMU binary and the hard limit of its run, both checked."""
    qemu = ENV.get("IVWL_VM_QEMU", "qemu-system-x86_64")
    limit = int(ENV.get("IVWL_VM_TIMEOUT", "240"))
    if not shutil.which(qemu):
        raise Failure(f"{qemu} not found: install qemu-system-x86")
    if not os.access(args.kernel, os.R_OK):
        raise Failure(f"{args.kernel} is not readable")
    return qemu, limit


def with_guest(name, body):
    """Runs body(host, errors, hold) with a fresh HostSide; body starts
    its QEMU as hold(Guest(...)), which returns it.  On an exception the
    guest's console and the host's logs are printed; guest and host side
    are always stopped and their directory removed (kept with
    IVWL_VM_KEEP=1); errors body appended fail the test after the
    console is printed."""
    host = HostSide([VM])
    guests, errors = [], []
    console = ""
    try:
        body(host, errors, lambda g: guests.append(g) or g)
    except BaseException:
        for guest in guests:
            guest.stop()
            print("---- guest console ----\n" + guest.console())
        host.dump_logs()
        raise
    finally:
        for guest in guests:
            guest.stop()
            console = guest.console()
        host.close()
        if ENV.get("IVWL_VM_KEEP") == "1":
            print(f"{name}: logs kept in {host.dir}")
        else:
            shutil.rmtree(host.dir, ignore_errors=True)
    if errors:
        print("---- guest console ----\n" + console)
        raise Failure("; ".join(errors))


def run(args):
    qemu, limit = qemu_and_limit(args)
    t_start = time.monotonic()

    def body(host, errors, hold):
        initrd = host.path("initramfs.gz")
        build_initramfs(args, initrd)
        print(f"deploy-b: initramfs {os.path.getsize(initrd) >> 10} KiB, "
              f"host side up in {time.monotonic() - t_start:.1f} s")

        guest = hold(Guest(qemu, args.kernel, initrd, host.app_socket(),
                           host.path("console.log"), limit,
                           app_run(zero_copy=args.zero_copy)))
        t_driver = guest.wait_line("GUEST: driver loaded", 120)
        t_agent = guest.wait_line("GUEST: agent listening", 60)
        guest.wait_line("GUEST: second agent refused", 30)
        t_ready = guest.wait_line("GUEST: client ready", 120)
        guest.wait_line("GUEST: waiting for the host", 60)
        print(f"deploy-b: guest driver at {t_driver:.1f} s, agent at "
              f"{t_agent:.1f} s, {FRAMES} frames drawn at {t_ready:.1f} s")

        dump = host.path("pattern.raw")
        guest_dump(guest.console(), dump)
        view = host.wait_view(f"[{VM}] {TITLE}")
        compare_window(host, view, dump, WIDTH, HEIGHT)
        check_border(host, host.wait_view(f"[{VM}] {TITLE}"), BORDER)
        if f"[{VM}] app side attached" not in host.weston_log():
            errors.append("the plugin never saw the VM attach")

        # The client goes, then the agent, then the driver.
        guest.say("done")
        wait_for("the window to leave weston's scene", lambda: not any(
            v["title"] == f"[{VM}] {TITLE}" for v in host.scene()), 60, 0.2)
        print(f"deploy-b: the window left weston at "
              f"{guest.elapsed():.1f} s")
        guest.proc.wait(60)
        t_end = guest.elapsed()
        check_guest_log(guest.console(), errors)
        check_probed_vectors(guest.console(), errors)
        check_buffer_mode(guest.console(), args.zero_copy, errors)
        if guest.proc.returncode != 0:
            errors.append(f"QEMU exited with {guest.proc.returncode}")
        wait_for("the plugin to see the VM go",
                 lambda: f"[{VM}] app side left" in host.weston_log(), 10)
        if host.weston.poll() is not None:
            errors.append("weston is gone")
        print(f"deploy-b: QEMU ran {t_end:.1f} s, the whole test "
              f"{time.monotonic() - t_start:.1f} s")

    with_guest("deploy-b", body)


def deployment_main(name, extra_args, run_test):
    """What deploy-a and deploy-b share: the arguments every deployment
    takes plus extra_args(parser), SIGTERM (meson's timeout) as a Failure,
    the skip (77) without the pattern client, and the verdict line."""
    ap = argparse.ArgumentParser()
    for arg in ("--module", "--kernel", "--mkinitramfs", "--guest-script"):
        ap.add_argument(arg, required=True)
    extra_args(ap)
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *a: (_ for _ in ()).throw(
        Failure("killed by SIGTERM (timeout?)")))
    if not os.path.exists(ENV.get("IVWL_PATTERN_CLIENT", "")):
        # built by tests/integration only with wayland-client
        print(f"{name}: SKIP: no ivwl-pattern-client in this build")
        return 77
    try:
        run_test(args)
    except Failure as e:
        print(f"{name}: FAIL: {e}")
        return 1
    print(f"{name}: PASS")
    return 0


def main():
    return deployment_main("deploy-b", lambda ap: ap.add_argument(
        "--zero-copy", choices=("auto", "on", "off"), default="auto",
        help="the guest shim's IVWL_ZERO_COPY"), run)


if __name__ == "__main__":
    sys.exit(main())
