#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Frame pacing through ivwl against native weston, in one session
(weston 15 and later, ivwl built with wayland-protocols 1.38 or later):

    test-timing.py commit-timing    frames at set times
    test-timing.py fifo             frames behind fifo barriers
    test-timing.py timing-restart   both, weston killed under them

ivwl-timing-client runs on weston's own socket, then as an app of a VM,
whose side meson puts IVWL_TEST_CLOCK_OFFSET_NS ahead (the agent, the
relay and the client add it to every clock read).  commit-timing: every
frame through ivwl is shown at the time it asked, in its own clock, as
native weston shows it: never before, no more often a refresh or more
after it than natively (weston 16 headless shows most frames one to two
refreshes after their time, natively too), and the mean of presented -
asked, as the client measures it, within a refresh of native's; with
the relay's translation off
(IVWL_CLOCK_TRANSLATE=off) the times reach weston in the wrong clock
and no frame is: the negative control.  fifo: every commit shown, none
discarded, one refresh apart with the queue fed, as many such intervals
(within a tenth of the frames) as native weston shows.
"""

import os
import subprocess
import sys
import time

from ivwltest.session import ENV, Failure, Session, case_main  # noqa: E402

FRAMES = 60


def fields(out, who):
    lines = out.decode(errors="replace").splitlines()
    done = [ln for ln in lines if ln.startswith("done ")]
    if not done:
        raise Failure(f"{who}: no 'done' line: {lines[-3:]}")
    print(f"{who}: {done[0]}")
    return {k: (v if k == "mode" else int(v)) for k, v in
            (kv.split("=", 1) for kv in done[0].split()[1:])}


def native(s, mode):
    env = s._debug_env()
    env.pop("IVWL_TEST_CLOCK_OFFSET_NS", None)
    p = subprocess.run([ENV["IVWL_TIMING_CLIENT"], "--mode", mode,
                        "--frames", str(FRAMES)], env=env,
                       capture_output=True, timeout=60)
    if p.returncode == 3:
        # weston before 15: nothing to carry (the session still closes)
        print(f"SKIP: weston does not offer what --mode {mode} needs: "
              f"{p.stdout.decode().strip()}")
        sys.exit(77)
    if p.returncode != 0:
        raise Failure(f"native {mode}: status {p.returncode}: "
                      f"{p.stderr.decode(errors='replace')[-300:]}")
    return fields(p.stdout, f"native {mode}")


def via_ivwl(s, mode, name, extra_env=None):
    p = s.client([ENV["IVWL_TIMING_CLIENT"], "--mode", mode,
                  "--frames", str(FRAMES)], log=f"{name}.log",
                 extra_env=extra_env)
    try:
        out, _ = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        out, _ = p.communicate()
    if p.returncode == 3:
        raise Failure(f"{name}: the VM's client was not offered what "
                      f"--mode {mode} needs: {out.decode().strip()}")
    if p.returncode != 0:
        return None
    return fields(out, name)


def check_offset():
    if int(ENV.get("IVWL_TEST_CLOCK_OFFSET_NS", "0")) < 60 * 10**9:
        raise Failure("IVWL_TEST_CLOCK_OFFSET_NS must put the app side "
                      "at least a minute ahead")


def case_commit_timing(s):
    check_offset()
    nat = native(s, "timed")
    got = via_ivwl(s, "timed", "timed-ivwl")
    if got is None:
        raise Failure("through ivwl the timed client failed; see "
                      "timed-ivwl.log")
    refresh = got["refresh_ns"] or nat["refresh_ns"]
    for who, f in (("native", nat), ("ivwl", got)):
        if f["presented"] != FRAMES or f["discarded"]:
            raise Failure(f"{who}: {f['presented']} of {FRAMES} presented, "
                          f"{f['discarded']} discarded")
    if got["early"] or got["late"] > nat["late"] + FRAMES // 20:
        raise Failure(f"through ivwl {got['early']} frames were shown "
                      f"before their time and {got['late']} a refresh or "
                      f"more after it (native: {nat['early']}, "
                      f"{nat['late']})")
    if abs(got["dev_mean_ns"] - nat["dev_mean_ns"]) >= refresh:
        raise Failure(f"through ivwl frames came {got['dev_mean_ns']} ns "
                      f"after their time on average, native "
                      f"{nat['dev_mean_ns']} ns: more than a refresh "
                      f"({refresh} ns) apart")
    print(f"commit-timing: presented - asked, ivwl "
          f"{got['dev_min_ns'] / 1e6:.2f}..{got['dev_max_ns'] / 1e6:.2f} ms "
          f"(mean {got['dev_mean_ns'] / 1e6:.2f}), native "
          f"{nat['dev_min_ns'] / 1e6:.2f}..{nat['dev_max_ns'] / 1e6:.2f} ms "
          f"(mean {nat['dev_mean_ns'] / 1e6:.2f}); refresh "
          f"{refresh / 1e6:.2f} ms")
    # The negative control: the app's times reach weston untranslated.
    off = via_ivwl(s, "timed", "timed-untranslated",
                   {"IVWL_CLOCK_TRANSLATE": "off"})
    if off is not None and not off["early"] and \
            off["late"] <= nat["late"] + FRAMES // 20:
        raise Failure(f"untranslated, the frames still came on time: "
                      f"{off}")
    print("untranslated: " + ("the client stalled (weston waits for a "
                              "time far ahead)" if off is None else
                              f"{off['early']} early, {off['late']} late"))


def case_fifo(s):
    nat = native(s, "fifo")
    got = via_ivwl(s, "fifo", "fifo-ivwl")
    if got is None:
        raise Failure("through ivwl the fifo client failed; see "
                      "fifo-ivwl.log")
    for who, f in (("native", nat), ("ivwl", got)):
        if f["presented"] != FRAMES or f["discarded"]:
            raise Failure(f"{who}: {f['presented']} of {FRAMES} presented, "
                          f"{f['discarded']} discarded (lost)")
    if got["one"] < nat["one"] - FRAMES // 10:
        raise Failure(f"through ivwl {got['one']} frames were shown one "
                      f"refresh after the last, {got['held']} held longer "
                      f"(native: {nat['one']}, {nat['held']})")
    print(f"fifo: frames a refresh apart, ivwl {got['one']} (held "
          f"{got['held']}, gaps {got['gap_min_ns'] / 1e6:.2f}.."
          f"{got['gap_max_ns'] / 1e6:.2f} ms), native {nat['one']} (held "
          f"{nat['held']}, gaps {nat['gap_min_ns'] / 1e6:.2f}.."
          f"{nat['gap_max_ns'] / 1e6:.2f} ms) of {FRAMES - 2}")


RESTART_FRAMES = 300


def case_restart(s):
    """Both clients through ivwl while weston is killed and started
    again: the relay replays their wp_commit_timer_v1 and wp_fifo_v1 on
    the new weston, and they run to their end, every frame accounted
    for (presented, or discarded for the weston that went), none shown
    before its time but while the new display's clock is estimated
    anew (the relay drops set_timestamp meanwhile)."""
    native(s, "fifo")     # skips on a weston without them
    procs = {mode: s.client([ENV["IVWL_TIMING_CLIENT"], "--mode", mode,
                             "--frames", str(RESTART_FRAMES)],
                            log=f"restart-{mode}.log")
             for mode in ("timed", "fifo")}
    time.sleep(3.0)
    status = s.restart_weston(kill=True)
    print(f"weston killed ({status}) and started again")
    for mode, p in procs.items():
        try:
            out, _ = p.communicate(timeout=90)
        except subprocess.TimeoutExpired:
            p.kill()
            raise Failure(f"{mode}: still running 90 s after the restart")
        if p.returncode != 0:
            raise Failure(f"{mode}: status {p.returncode} after the "
                          f"restart; see restart-{mode}.log")
        f = fields(out, f"restart {mode}")
        if f["presented"] + f["discarded"] != RESTART_FRAMES:
            raise Failure(f"{mode}: {f['presented']} presented and "
                          f"{f['discarded']} discarded of "
                          f"{RESTART_FRAMES}")
        if f["presented"] < RESTART_FRAMES // 2:
            raise Failure(f"{mode}: only {f['presented']} presented")


CASES = {
    "commit-timing": case_commit_timing,
    "fifo": case_fifo,
    "timing-restart": case_restart,
}


def start(name):
    return Session(), CASES[name], False


if __name__ == "__main__":
    if "IVWL_TIMING_CLIENT" not in os.environ and len(sys.argv) > 1 and \
            sys.argv[1] != "--list":
        print("no ivwl-timing-client: wayland-protocols before 1.38")
        sys.exit(77)
    sys.exit(case_main(list(CASES), start))
