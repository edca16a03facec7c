#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Gives every source file an SPDX-License-Identifier line.

Outside kernel/ the licence is meson.build's license:; kernel/ carries
the driver's GPL-2.0-only, and its UAPI header the dual licence that
lets the MIT userspace include it.  Files that have an SPDX line keep
it.  Run it again after new files land.

  tools/spdx.py           add the line where it is missing
  tools/spdx.py --check   list the files without the line, or with
                          another licence than theirs; exit 1 if any

One process reads every file once: the lint test runs it on loaded CI
machines, where a few processes per file took over 30 s.
"""
import os
import re
import subprocess
import sys

KERNEL = "GPL-2.0-only"
UAPI = "(GPL-2.0 WITH Linux-syscall-note) OR MIT"
HASH_NAMES = {"meson.build", "meson_options.txt", "Kbuild", "Makefile",
              "debian/rules", ".ci/run"}
HASH_SUFFIXES = (".py", ".sh", ".service.in", ".sysusers", ".postinst",
                 ".rules", ".conf.in")


def meson_license():
    with open("meson.build") as f:
        m = re.search(r"\blicense\s*:\s*'([^']*)'", f.read())
    if not m:
        sys.exit("spdx: no license: in meson.build")
    return m.group(1)


def tracked_files():
    try:
        out = subprocess.run(
            ["git", "ls-files", "-co", "--exclude-standard"],
            check=True, capture_output=True, text=True).stdout
        return out.splitlines()
    except (OSError, subprocess.CalledProcessError):
        pass
    # a tree without .git (the package build): every file but builds
    files = []
    for root, dirs, names in os.walk("."):
        dirs[:] = [d for d in dirs if d != ".git" and
                   not d.startswith(("build", "obj-"))]
        files += [os.path.relpath(os.path.join(root, n)) for n in names]
    return files


def licence_for(path, default):
    if path == "kernel/uapi/ivwl.h":
        return UAPI
    if path.startswith("kernel/"):
        return KERNEL
    return default


def comment_for(path, tag):
    """The comment that carries TAG in PATH, or None for a file that is
    not a source (data, docs, package metadata)."""
    name = os.path.basename(path)
    if path.endswith((".c", ".h", ".js")):
        return f"/* {tag} */"
    if (path in HASH_NAMES or name in HASH_NAMES or
            path.endswith(HASH_SUFFIXES) or
            (path.startswith("debian/") and path.endswith(".postinst"))):
        return f"# {tag}"
    if path.endswith(".html"):
        return f"<!-- {tag} -->"
    if re.fullmatch(r"docs/man/[^/]+\.[1-8]", path):
        return f'.\\" {tag}'
    return None


def found_tag(head):
    for line in head:
        m = re.search(r"SPDX-License-Identifier: (.*)", line)
        if m:
            return re.sub(r"\s*(\*/|-->)?\s*$", "", m.group(1))
    return None


def add_line(path, line):
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        lines = f.readlines()
    # after a #! line or an HTML doctype, which must stay first
    at = 1 if lines and re.match(r"#!|<!doctype", lines[0], re.I) else 0
    lines.insert(at, line + "\n")
    mode = os.stat(path).st_mode
    tmp = path + ".spdx-tmp"
    with open(tmp, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.writelines(lines)
    os.chmod(tmp, mode)
    os.replace(tmp, path)


def main():
    check = sys.argv[1:] == ["--check"]
    if sys.argv[1:] not in ([], ["--check"]):
        sys.exit(__doc__.split("\n\n")[2])
    os.chdir(os.environ.get("SPDX_ROOT") or
             os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    default = meson_license()
    bad = 0
    for path in tracked_files():
        if not os.path.isfile(path) or os.path.islink(path):
            continue
        licence = licence_for(path, default)
        line = comment_for(path, "SPDX-License-Identifier: " + licence)
        if not line:
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            head = [f.readline() for _ in range(5)]
        found = found_tag(head)
        if found is not None:
            if found != licence:
                print(f"{path}: '{found}', expected '{licence}'")
                bad += 1
        elif check:
            print(f"{path}: no SPDX-License-Identifier line")
            bad += 1
        else:
            add_line(path, line)
            print(f"spdx: {path}")
    if check:
        if bad == 0:
            print(f"every source has its SPDX line ('{default}' outside "
                  f"kernel/)")
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
