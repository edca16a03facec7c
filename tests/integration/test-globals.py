#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every global weston offers is decided by a protocol descriptor
(protocol/wayland/descriptors/, docs/protocols.md), and a VM's client sees
exactly the globals whose descriptor says allow (less the ones the relay
hides for their times) and ivwl.so's own, which local clients do not
see, each at no newer a version than its descriptor
says the firewall was reviewed for, with real weston and ivwl.so.

    test-globals.py default
"""

import os
import subprocess
import sys
import tomllib

from ivwltest.session import ENV, Failure, Session, case_main  # noqa: E402

DESCRIPTORS = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           "..", "..", "protocol", "wayland", "descriptors")


def descriptors():
    """{interface: its descriptor entry} from every descriptor file."""
    entries = {}
    for name in sorted(os.listdir(DESCRIPTORS)):
        if not name.endswith(".toml"):
            continue
        with open(os.path.join(DESCRIPTORS, name), "rb") as f:
            data = tomllib.load(f)
        data.pop("xml", None)
        data.pop("since", None)
        entries.update(data)
    return entries


# The globals ivwl.so itself offers, to VMs' clients only.
VM_ONLY = {"zxdg_decoration_manager_v1"}


def globals_of(output):
    """{interface: the highest version offered}"""
    lines = output.decode(errors="replace").splitlines()
    if "done" not in lines:
        raise Failure(f"the globals client did not finish: {lines[-5:]}")
    offered = {}
    for line in lines[:lines.index("done")]:
        name, version = line.split()
        offered[name] = max(offered.get(name, 0), int(version))
    return offered


def run_default(s):
    desc = descriptors()
    local = s.local([ENV["IVWL_GLOBALS_CLIENT"]], capture_output=True,
                    timeout=20)
    offered = globals_of(local.stdout)
    undecided = sorted(g for g in offered
                       if desc.get(g, {}).get("global") is None)
    if undecided:
        raise Failure(f"weston offers globals no descriptor decides: "
                      f"{undecided} (add them to "
                      f"protocol/wayland/descriptors/)")
    p = s.client([ENV["IVWL_GLOBALS_CLIENT"]])
    try:
        out, _ = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        raise Failure("the VM's globals client hung")
    seen = globals_of(out)
    newer = sorted(f"{g} {v} > {desc[g]['version']}" for g, v in seen.items()
                   if g in desc and v > desc[g]["version"])
    if newer:
        raise Failure(f"a VM was offered versions newer than the firewall "
                      f"was reviewed for: {newer}")
    clamped = sorted(f"{g} {offered[g]} -> {v}" for g, v in seen.items()
                     if offered.get(g, 0) > v)
    seen = set(seen)
    # the relay hides these while it cannot put their times in the app's
    # clock (always, for input timestamps)
    timed = {g for g, e in desc.items() if "global" in e.get("time", [])}
    want = {g for g in offered if desc[g]["global"] == "allow"}
    # ivwl.so's own, for VMs alone: weston draws their windows' bars
    if set(offered) & VM_ONLY:
        raise Failure(f"a local client saw the VMs' own globals: "
                      f"{sorted(set(offered) & VM_ONLY)}")
    want |= VM_ONLY
    if seen - want:
        raise Failure(f"a VM saw globals not allowed by default: "
                      f"{sorted(seen - want)}")
    if want - timed - seen:
        raise Failure(f"a VM missed allowed globals: "
                      f"{sorted(want - timed - seen)}")
    print(f"weston offers {len(offered)} globals, all decided; the VM "
          f"sees {len(seen)} of the {len(want)} allowed; versions taken "
          f"down to the reviewed ones: {clamped or 'none'}")


def start(name):
    return Session(), run_default, False


if __name__ == "__main__":
    sys.exit(case_main(["default"], start))
