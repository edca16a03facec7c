#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Fails when the code reads something its man page does not name: every
environment variable the app side (app/, shim/, relay/, agent/) and protocol/ read (ivwl-shim.7), every
weston.ini key plugin/ reads (weston-ivwl.7), every long option of
ivwl-server and ivwl-agent (their section 8 pages) and of ivwl-xwm.

    check-coverage.py SRCDIR
"""
import glob
import os
import re
import sys

src = sys.argv[1]


def read(*parts):
    with open(os.path.join(src, *parts), encoding="utf-8") as f:
        return f.read()


def sources(pattern):
    text = ""
    for path in sorted(glob.glob(os.path.join(src, pattern))):
        with open(path, encoding="utf-8") as f:
            text += f.read()
    return text


def page_words(page):
    """The page's text with roff font escapes and \\& removed."""
    text = read("docs", "man", page)
    return re.sub(r"\\f[BIRP]|\\&", "", text).replace("\\-", "-")


checks = [
    # the shim and the relay link protocol/ too
    ("ivwl-shim.7", "environment variable",
     set(re.findall(r'getenv\("([A-Z_][A-Z0-9_]*)"\)',
                    sources("app/*.c") + sources("shim/*.c") + sources("relay/*.c") +
                    sources("relay/replay/*.c") + sources("agent/*.c") +
                    sources("protocol/*/*.c")))),
    ("weston-ivwl.7", "weston.ini key",
     {k + "=" for k in re.findall(
         r'weston_config_section_get_\w+\(\s*\w+,\s*"([^"]+)"',
         sources("plugin/*.c"))}
     # keys read through a table or a helper (plugin/clipboard*.c)
     | {k + "=" for block in re.findall(
         r'key_names\[\]\s*=\s*\{(.*?)\};', sources("plugin/*.c"),
         re.S) for k in re.findall(r'"([^"]+)"', block)}
     | {k + "=" for k in re.findall(
         r'bind_key\(\s*\w+,\s*\w+,\s*"([^"]+)"',
         sources("plugin/*.c"))}),
    ("ivwl-server.8", "option",
     {"--" + o for o in re.findall(
         r'\{\s*"([a-z][a-z-]*)",\s*(?:required|no|optional)_argument',
         read("host", "server-options.c"))}),
    ("ivwl-agent.8", "option",
     {"--" + o for o in re.findall(
         r'\{\s*"([a-z][a-z-]*)",\s*(?:required|no|optional)_argument',
         read("agent", "agent.c"))}),
    ("ivwl-xwm.1", "option",
     {"--" + o for o in re.findall(
         r'\{\s*"([a-z][a-z-]*)",\s*(?:required|no|optional)_argument',
         read("xwm", "main.c"))}),
]

missing = 0
for page, what, names in checks:
    if not names:
        print(f"{page}: found no {what} in the code: the pattern is stale")
        missing += 1
        continue
    text = page_words(page)
    absent = 0
    for name in sorted(names):
        end = "" if name.endswith("=") else r"(?![\w-])"
        if not re.search(r"(?<![\w-])" + re.escape(name) + end, text):
            print(f"{page}: the code reads {what} {name}; the page does "
                  "not name it")
            absent += 1
    print(f"{page}: {len(names)} {what}s, "
          f"{'all named' if not absent else f'{absent} not named'}")
    missing += absent
sys.exit(1 if missing else 0)
