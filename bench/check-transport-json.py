#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Smoke test for `ivwl-bench transport`: runs the quick benchmark and
checks that stdout is exactly one JSON object with every required key,
each a positive number, and that the receivers verified the data.
It asserts nothing about timing."""

import json
import sys

import smoke

REQUIRED = [
    "ring_gbps", "ring_spin_gbps", "socket_gbps", "stopwait_gbps",
    "ring_gbps_64k", "socket_gbps_64k", "stopwait_gbps_64k",
    "ring_rtt_p50_us", "ring_spin_rtt_p50_us", "socket_rtt_p50_us",
    "stopwait_rtt_p50_us",
    "ring_rtt_p99_us", "socket_rtt_p99_us",
    "doorbells_per_1000", "stopwait_doorbells_per_1000",
    "messages_checked", "messages_hashed",
]


def main():
    argv = smoke.bench_argv("check-transport-json.py", "transport")
    if argv is None:
        return 2
    out = smoke.run(argv + ["--quick", "--json"] + sys.argv[2:], 170)
    if out is None:
        return 1
    try:
        data = json.loads(out)
    except json.JSONDecodeError as e:
        print(f"stdout is not one JSON object: {e}\n{out}")
        return 1
    if not isinstance(data, dict):
        print(f"stdout is JSON but not an object:\n{out}")
        return 1

    failed = False
    for key in REQUIRED:
        v = data.get(key)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0:
            print(f"{key}: want a positive number, got {v!r}")
            failed = True
    if data.get("checksums_ok") is not True:
        print(f"checksums_ok is {data.get('checksums_ok')!r}")
        failed = True
    if data.get("messages_bad") != 0:
        print(f"messages_bad is {data.get('messages_bad')!r}")
        failed = True
    if failed:
        print(out)
        return 1
    print(json.dumps(data, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
