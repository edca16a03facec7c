#!/usr/bin/env python3
"""Presentation times in the app's own clock (deployment C).

Here both sides share one machine's clocks, so the app side is made to
live in another time: the agent, the relays and the client all add
IVWL_TEST_CLOCK_OFFSET_NS (3 days and a bit) to every clock read, as an
app-vm booted at another moment would see.  The frames client checks
each presented time against its own clock when the event arrives (within
2 ms, allowing one refresh); with the relay's translation turned off
(IVWL_CLOCK_TRANSLATE=off) every one of them must be wrong, or the test
proves nothing.
"""

import os
import signal
import sys

OFFSET_NS = 3 * 86400 * 10**9 + 1234567891
os.environ["IVWL_TEST_CLOCK_OFFSET_NS"] = str(OFFSET_NS)

from session import ENV, Failure, Session, wait_for  # noqa: E402

FRAMES = 120


def frames(s, name, extra_env=None):
    """Runs the frames client to its end; its "done" fields and status."""
    p = s.client([ENV["IVWL_FRAMES_CLIENT"], "--width", "64", "--height",
                  "64", "--frames", str(FRAMES), "--warmup", "5",
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


def run(s):
    line = wait_for("the agent's first clock estimate",
                    lambda: agent_estimate(s), 10.0)
    print(line)
    got, status = frames(s, "clock-on")
    if status != 0 or got["clock_bad"] != "0":
        raise Failure(f"translated: {got['clock_bad']} presented times "
                      f"off our clock (status {status})")
    if int(got["presented"]) < FRAMES * 9 // 10 or got["discarded"] != "0":
        raise Failure(f"translated: {got['presented']} presented, "
                      f"{got['discarded']} discarded of {FRAMES}")
    if got["clock_id"] != "1":
        raise Failure(f"clock_id {got['clock_id']}, not CLOCK_MONOTONIC")
    # The negative control: the same run, nothing translated.
    got, status = frames(s, "clock-off", {"IVWL_CLOCK_TRANSLATE": "off"})
    if int(got["clock_bad"]) < int(got["presented"]) or status != 3:
        raise Failure(f"untranslated times passed the check "
                      f"({got['clock_bad']} of {got['presented']} bad)")
    print(agent_estimate(s))


def on_sigterm(signum, frame):
    raise Failure("killed by SIGTERM (timeout?)")


def main():
    signal.signal(signal.SIGTERM, on_sigterm)
    s = Session(("work",))
    try:
        run(s)
        print("PASS presentation-clock")
        return 0
    except Failure as e:
        print(f"FAIL presentation-clock: {e}")
        s.dump_logs()
        return 1
    finally:
        s.close()


if __name__ == "__main__":
    sys.exit(main())
