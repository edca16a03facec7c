#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Doorbells per frame to the app for a client that draws by frame
callbacks and asks for presentation feedback (bench/frames-client.c).

    test-doorbells.py presented-rides    repaint-window=16: a presented
                                         rides with the next frame's done
    test-doorbells.py presented-alone    weston's default window (7 ms):
                                         the next done is 9.7 ms away,
                                         so a presented rings at once

The client also syncs behind every commit (wl_display.sync, its own
round trip figure), whose done rings on its own: three doorbells a frame
when presented rings alone, two when it rides.  The plugin counts the
presented events it held back for a done (presented_held): most frames'
when it rides, next to none when the done is 9.7 ms away (a presented
held then would reach the client late for nothing).  Both check every
presented time against the client's clock at receipt
(--check-clock): holding one must not make it arrive late.  The counts
are the plugin's own (weston-debug ivwl: the VM's frames, bells_out and
presented_held, which keep the counts of connections gone).
"""

import os
import sys

from ivwltest.session import (ENV, Failure, Listing, LiveView,  # noqa: E402
                              Session, case_main, wait_for)

FRAMES = 150


def run_frames(s):
    """The frames client to its end; the VM's live-view line after it."""
    sub = LiveView(s)
    try:
        p = s.client([ENV["IVWL_FRAMES_CLIENT"], "--width", "64",
                      "--height", "64", "--frames", str(FRAMES),
                      "--warmup", "5", "--title", "bells", "--check-clock"],
                     log="frames.log")
        out, _ = p.communicate(timeout=60)
        done = [ln for ln in out.decode().splitlines()
                if ln.startswith("done")]
        if p.returncode != 0 or not done:
            raise Failure(f"the frames client failed (status "
                          f"{p.returncode}): {done}")
        print(done[0])
        vm = wait_for("the VM's line after the client", lambda: [
            f for f in sub.of("vm", name="work")
            if f["closed"] == "1" and f["connections"] == "0"])[-1]
    finally:
        sub.close()
    frames, bells = int(vm["frames"]), int(vm["bells_out"])
    held = int(vm["presented_held"])
    if frames < FRAMES:
        raise Failure(f"{frames} frames shown for {FRAMES + 5} drawn")
    print(f"{bells} doorbells to the app for {frames} frames: "
          f"{bells / frames:.2f} a frame; {held} presented held for a done")
    return bells / frames, held / frames


def case_rides(s):
    per_frame, held = run_frames(s)
    if per_frame > 2.4 or held < 0.5:
        raise Failure(f"{per_frame:.2f} doorbells a frame, {held:.2f} "
                      f"presented held a frame: presented does not ride "
                      f"with the next frame's done")


def case_alone(s):
    per_frame, held = run_frames(s)
    if per_frame < 2.6 or held > 0.1:
        raise Failure(f"{per_frame:.2f} doorbells a frame, {held:.2f} "
                      f"presented held a frame: a presented waited for a "
                      f"done 9.7 ms away")


CASES = {
    "presented-rides": (case_rides, ["repaint-window=16"]),
    "presented-alone": (case_alone, []),
}


def main():
    return case_main(list(CASES), lambda name: (
        Session(("work",), core_options=CASES[name][1]), CASES[name][0],
        False), Listing(suites=("integration", "sanitized"), timeout=90))


if __name__ == "__main__":
    sys.exit(main())
