#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Deployment B, presentation times in the app-vm's own clock.

The guest (QEMU TCG) boots fresh, so its CLOCK_MONOTONIC is seconds
while the host's, weston's presentation clock, is the host's uptime.  In
the guest, ivwl-frames-client --check-clock compares every presented
time with its own clock when the event arrives (within 2 ms, allowing
one refresh): it must pass with the relay's translation, and fail for
every frame with IVWL_CLOCK_TRANSLATE=off, or the test proves nothing.
The agent's log shows the estimate it reached (bound, round trips).

    test-deploy-b-clock.py --module KO --kernel VMLINUZ --mkinitramfs SH
                           --guest-script SH --guest-clock SH

Environment as test-deploy-b.py, plus IVWL_FRAMES_CLIENT.
"""

import os
import re
import subprocess
import sys
import time



from ivwltest import deploy_b as B  # noqa: E402
from ivwltest.session import ENV, Failure  # noqa: E402

FRAMES = 120
# The guest must live in another time than the host for this to test
# anything: its clock is far behind weston's (the host's uptime).
MIN_APART_S = 60


def build_initramfs(args, out):
    files = [
        ENV["IVWL_AGENT_BIN"],
        ENV["IVWL_RELAY_BIN"],
        ENV["IVWL_FRAMES_CLIENT"],
        ENV["IVWL_SHIM"] + "=/lib/ivwl/libivwl-shim.so",
        args.guest_script + "=/bin/guest.sh",
        args.guest_clock + "=/bin/guest-clock.sh",
        args.module + "=/lib/modules/ivwl.ko",
    ]
    for f in files:
        if not os.path.exists(f.split("=")[0]):
            raise Failure(f"{f.split('=')[0]} not found: build it first")
    subprocess.run([args.mkinitramfs, out] + files, check=True)


def frames_result(console, name):
    m = re.search(rf"GUEST: {name} status (\d+): done (.*)", console)
    if not m:
        raise Failure(f"no result of {name} on the console")
    fields = dict(kv.split("=", 1) for kv in m.group(2).split())
    print(f"deploy-b-clock: {name}: status {m.group(1)}: "
          f"presented {fields['presented']} discarded "
          f"{fields['discarded']} ahead {fields['clock_future']} too old "
          f"{fields['clock_late']} "
          f"receipt - presented {fields['clock_dev_min_us']} .. "
          f"{fields['clock_dev_max_us']} us")
    return int(m.group(1)), fields


def check(console, host_monotonic, errors):
    m = re.search(r"GUEST: clocks: monotonic ([\d.]+) s \(uptime", console)
    if not m:
        errors.append("the guest did not say its clock")
    elif host_monotonic - float(m.group(1)) < MIN_APART_S:
        errors.append(f"the guest's clock ({m.group(1)} s) is not far "
                      f"from the host's ({host_monotonic:.0f} s)")
    status, on = frames_result(console, "clock-on")
    if status != 0 or on["clock_future"] != "0":
        errors.append(f"translated: {on['clock_future']} presented times "
                      f"ahead of the guest's clock, {on['clock_late']} too "
                      f"old (status {status})")
    if int(on["presented"]) < FRAMES * 9 // 10 or on["discarded"] != "0":
        errors.append(f"translated: {on['presented']} presented, "
                      f"{on['discarded']} discarded of {FRAMES}")
    status, off = frames_result(console, "clock-off")
    if status != 3 or int(off["clock_bad"]) < int(off["presented"]):
        errors.append(f"untranslated: {off['clock_bad']} of "
                      f"{off['presented']} presented times wrong: the "
                      f"check cannot tell")
    for line in re.findall(r"ivwl-agent: clock: .*", console):
        print(f"deploy-b-clock: {line}")


def run(args):
    qemu, limit = B.qemu_and_limit(args)

    def body(host, errors, hold):
        initrd = host.path("initramfs.gz")
        build_initramfs(args, initrd)
        run_arg = f"/bin/guest.sh,64,64,{FRAMES},clock,now,auto"
        guest = hold(B.Guest(qemu, args.kernel, initrd, host.app_socket(),
                             host.path("console.log"), limit, run_arg))
        guest.wait_line("GUEST: clocks:", 180)
        host_monotonic = time.clock_gettime(time.CLOCK_MONOTONIC_RAW)
        guest.proc.wait(limit)
        console = guest.console()
        B.check_guest_log(console, errors)
        check(console, host_monotonic, errors)
        print(f"deploy-b-clock: QEMU ran {guest.elapsed():.1f} s")

    B.with_guest("deploy-b-clock", body)


def main():
    return B.deployment_main("deploy-b-clock", lambda ap: ap.add_argument(
        "--guest-clock", required=True), run)


if __name__ == "__main__":
    sys.exit(main())
