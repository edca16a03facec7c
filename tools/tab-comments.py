#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Filter after clang-format: trailing comments start at a tab stop,
reached with tabs, as in weston.  clang-format aligns a block of them to
one column with spaces; each such column rounds up to the same tab stop,
so the block stays aligned (unless that would take a line past 80
columns: it then stays where clang-format put it).  Reads stdin (or a file), writes stdout."""
import re
import sys

TRAILING = re.compile(r"^(.*?\S)([ \t]+)(/\*.*\*/)[ \t]*$")


def width(text):
    col = 0
    for ch in text:
        col = (col // 8 + 1) * 8 if ch == "\t" else col + 1
    return col


def fix(line):
    m = TRAILING.match(line)
    if not m or m.group(1).lstrip().startswith(("/*", "*", "//")):
        return line
    code = m.group(1)
    end = width(code)
    col = width(code + m.group(2))
    stop = (col + 7) // 8 * 8
    if stop + len(m.group(3)) > 80 >= col + len(m.group(3)):
        return line     # a tab stop would push it past 80 columns
    tabs = stop // 8 - end // 8
    return code + "\t" * max(tabs, 1) + m.group(3) + "\n"


def main():
    src = open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin
    sys.stdout.write("".join(fix(line) for line in src))


if __name__ == "__main__":
    main()
