#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""X11 applications of an app-VM through ivwl-xwm: real weston + ivwl.so,
ivwl-xwm (rootless Xwayland and its window manager) under the shim as a
VM's client, unmodified X clients on its display.

    test-x11.py CASE      (meson runs one case per test)
"""

import os
import shutil
import struct
import subprocess
import sys
import time
from collections import Counter

from ivwltest.session import (ENV, FRAME_BORDER, Failure, Listing,  # noqa: E402
                              Session, StdoutLines, case_main, check_border,
                              pixel,
                              wait_for)


# ivwl-xwm's own title bar (xwm/frame.h), drawn only where the
# compositor does not decorate the window; under ivwl.so, which does, an
# X window's content starts at its top
XWM_BAR = 24


def x11_client(s, argv, log, extra_env=None):
    """argv on the display of an ivwl-xwm of the VM "work"."""
    for tool in ("Xwayland", argv[0]):
        if not shutil.which(tool):
            raise Failure(f"{tool} is not installed (tools/deps.sh)")
    return s.client([ENV["IVWL_XWM_BIN"], "--", *argv], log=log,
                    extra_env=extra_env)


def screen_pixels(s, rect, step=1):
    """Counter of the (b, g, r) pixels in rect on the X server that shows
    weston's output (x11 backend): what the user sees.  (weston's
    screenshooter shows X windows too since ivwl-xwm's frames are ARGB,
    which x11-xeyes and check_drawn() check; an override-redirect menu
    is still XRGB, with an X byte of 0 that weston 10's pixman copies
    into its output.)"""
    data = subprocess.run(["xwd", "-root", "-silent"],
                          env=dict(os.environ, DISPLAY=s.x_display),
                          capture_output=True, timeout=20, check=True).stdout
    header = struct.unpack(">25I", data[:100])
    size, width, height, line = header[0], header[4], header[5], header[12]
    pixels = data[size + header[19] * 12:]
    x0, y0, x1, y1 = rect
    return Counter(pixels[y * line + x * 4:y * line + x * 4 + 3]
                   for y in range(max(y0, 0), min(y1, height), step)
                   for x in range(max(x0, 0), min(x1, width), step))


def case_xeyes(s):
    """An X toplevel is a window of the VM's: prefixed, framed, drawn."""
    p = x11_client(s, ["xeyes", "-geometry", "200x150"], "xeyes.log")
    view = s.wait_view("[work] xeyes", timeout=30)
    time.sleep(1)
    if p.poll() is not None:
        raise Failure(f"ivwl-xwm exited ({p.returncode})")
    check_border(s, view, (0x30, 0x70, 0xc0))  # the first VM's colour
    colours = screen_pixels(s, view["rect"], 2)
    # the eyes: white, black pupils and outline, anti-aliased edges
    if len(colours) < 2:
        raise Failure(f"the xeyes window shows {len(colours)} colour(s)")
    # weston's screenshot has them too: the frame is ARGB, opaque, not
    # XRGB with an X byte of 0 that pixman copies into its output (it
    # shows in its bar's colours where xeyes' shape leaves its top rows)
    shot = s.screenshot()
    x0, y0, x1, y1 = view["rect"]
    bar = [pixel(shot, x, y) for x in range(x0 + 4, x1 - 2 * XWM_BAR, 4)
           for y in range(y0 + 2, y0 + XWM_BAR - 2, 4)]
    if sum(px in ((0x5a, 0x64, 0x70), (0x2b, 0x3a, 0x4a)) for px in bar) \
            < len(bar) // 2:
        raise Failure(f"weston's screenshot does not show the frame "
                      f"around xeyes' shape: {sorted(set(bar))[:6]}")
    print(f"xeyes mapped at {view['rect']}, {len(colours)} colours; "
          f"weston's screenshot shows its frame")


def shot_pixels(shot, rect):
    """Counter of the (r, g, b, a) pixels in rect of weston's screenshot
    (a is 255 where the PNG has no alpha)."""
    w, h, bpp, rows = shot
    x0, y0, x1, y1 = rect
    return Counter(tuple(rows[y][x * bpp:x * bpp + 3]) +
                   ((rows[y][x * bpp + 3] if bpp == 4 else 255),)
                   for y in range(max(y0, 0), min(y1, h))
                   for x in range(max(x0, 0), min(x1, w)))


def resize_client(s, size, rgb, title):
    """ivwl-x11-resize-client: its window made 1x1, resized to size and
    mapped at once, filled with rgb (0xRRGGBB)."""
    return x11_client(s, [ENV["IVWL_X11_RESIZE_CLIENT"], str(size[0]),
                          str(size[1]), f"{rgb:06x}", title],
                      f"{title}.log")


def sized_view(s, title, timeout=30):
    """The view of title once it is wider than 1 px, a second later."""
    wait_for(f"{title} wider than 1 px", lambda: (
        lambda v: v if v["rect"][2] - v["rect"][0] > 1 else None)(
            s.wait_view(title, timeout=timeout)), timeout=10)
    time.sleep(1)
    return s.wait_view(title)


def check_drawn(s, view, rgb, what):
    """Most of view is rgb (0xRRGGBB) on the screen and, all opaque, in
    weston's screenshot (pixman's: an X window's buffer whose alpha was
    left 0 shows transparent there, title bar and all)."""
    x0, y0, x1, y1 = view["rect"]
    area = (x1 - x0) * (y1 - y0)
    want = ((rgb >> 16) & 0xff, (rgb >> 8) & 0xff, rgb & 0xff)
    seen = screen_pixels(s, view["rect"])
    on_screen = seen[bytes(reversed(want))]      # (b, g, r)
    if on_screen < area // 2:
        raise Failure(f"{what}: {on_screen} of {area} pixels on screen "
                      f"are #{rgb:06x}: {seen.most_common(4)}")
    shot = shot_pixels(s.screenshot(), view["rect"])
    in_shot = shot[want + (255,)]
    if in_shot < on_screen * 9 // 10:
        raise Failure(f"{what}: weston's screenshot has {in_shot} opaque "
                      f"#{rgb:06x} pixels of the {on_screen} on screen: "
                      f"{shot.most_common(4)}")
    return on_screen, in_shot


def case_tk(s):
    """A Tk window (wish) maps at the size it asked for, its widgets
    drawn: Tk resizes its window just before mapping it, and the frame
    is made at the map request, before the resize's configure notify
    (it was 1 px wide).  So does a bare X client that does the same
    (ivwl-x11-resize-client).  Both show in weston's screenshot too
    (pixman), opaque."""
    resize_client(s, (300, 200), 0xc03080, "ivwl-resized")
    view = sized_view(s, "[work] ivwl-resized")
    x0, y0, x1, y1 = view["rect"]
    if (x1 - x0, y1 - y0) != (300, 200):
        raise Failure(f"the window resized before its map is "
                      f"{x1 - x0}x{y1 - y0}, not 300x200")
    got, shot = check_drawn(s, view, 0xc03080, "the resized window")
    print(f"the window resized before its map: {view['rect']}, "
          f"{got} px of its colour on screen, {shot} in the screenshot")

    if not shutil.which("wish"):
        raise Failure("wish is not installed (tk, tools/deps.sh)")
    script, go = s.path("tk.tcl"), s.path("tk-dialog")
    with open(script, "w") as f:
        # the dialog once the test made the file go: the main window is
        # checked before it may cover part of it
        f.write("proc dialog {} {\n"
                f"  if {{![file exists {go}]}} {{after 100 dialog; return}}\n"
                "  toplevel .d -background #c06020\n"
                "  wm title .d ivwl-tk-dialog\n"
                "  wm transient .d .\n"
                "  wm geometry .d 240x160\n"
                "}\n"
                "dialog\n"
                "wm title . ivwl-tk\n"
                "wm geometry . 320x240\n"
                "label .l -text {ivwl Tk} -background #20a060 "
                "-foreground white\n"
                "pack .l -fill both -expand 1\n"
                "button .b -text Hello\n"
                "pack .b -fill x\n")
    x11_client(s, ["wish", script], "wish.log")
    view = sized_view(s, "[work] ivwl-tk")
    x0, y0, x1, y1 = view["rect"]
    if abs(x1 - x0 - 320) > 2 or abs(y1 - y0 - 240) > 2:
        raise Failure(f"the Tk window is {x1 - x0}x{y1 - y0}, not "
                      f"320x240")
    colours = screen_pixels(s, view["rect"], 2)
    if len(colours) < 3:
        raise Failure(f"the Tk window shows {len(colours)} colour(s): "
                      f"not its label and button")
    # the label fills what the button leaves: most of the window
    label, shot = check_drawn(s, view, 0x20a060, "Tk's green label")
    print(f"wish mapped at {view['rect']}, {len(colours)} colours, its "
          f"label {label} px on screen and {shot} in weston's screenshot")
    # its dialog (a transient toplevel) too
    open(go, "w").close()
    dialog = sized_view(s, "[work] ivwl-tk-dialog")
    x0, y0, x1, y1 = dialog["rect"]
    if abs(x1 - x0 - 240) > 2 or abs(y1 - y0 - 160) > 2:
        raise Failure(f"the Tk dialog is {x1 - x0}x{y1 - y0}, not "
                      f"240x160")
    got, shot = check_drawn(s, dialog, 0xc06020, "Tk's dialog")
    print(f"its dialog at {dialog['rect']}, {got} px of its colour, "
          f"{shot} in the screenshot")


def granted_size(s, title, asked):
    """The last size ivwl-x11-resize-client titled title says it was
    given (its log), else asked."""
    with open(s.path(f"{title}.log"), errors="replace") as f:
        sizes = [ln.split()[1] for ln in f if ln.startswith("configured ")]
    return tuple(map(int, sizes[-1].split("x"))) if sizes else asked


def case_oversize(s):
    """An X window larger than the output is fitted to it as a window
    manager does (gnumeric's Save dialog asked 1096x880 on a 1024x768
    screen): no wider than the output, and low enough that weston's
    title bar above it is on the output with all of it."""
    want = (s.width + 300, s.height + 200)
    p = resize_client(s, want, 0x3060c0, "ivwl-oversize")
    view = sized_view(s, "[work] ivwl-oversize")
    # weston cuts a view at the output's edges: the X window's size is
    # what its client was given
    width, height = granted_size(s, "ivwl-oversize", want)
    x0, y0, x1, y1 = view["rect"]
    f0, g0, f1, g1 = s.frame_box(view)
    room = (y0 - g0) + (g1 - y1)    # weston's bars and frame
    if width + 2 * FRAME_BORDER > s.width or height + room > s.height:
        raise Failure(f"the window asked {want[0]}x{want[1]} is "
                      f"{width}x{height} on a {s.width}x{s.height} output: "
                      f"no room for weston's {room} px of bars and frame")
    if (x1 - x0, y1 - y0) != (width, height) or g0 < 0 or g1 > s.height:
        raise Failure(f"the window of {width}x{height} shows at "
                      f"{view['rect']}, its bar and frame at "
                      f"{(f0, g0, f1, g1)}: not on the output")
    got, shot = check_drawn(s, view, 0x3060c0, "the oversized window")
    if p.poll() is not None:
        raise Failure(f"ivwl-xwm exited ({p.returncode})")
    print(f"asked {want[0]}x{want[1]}, fitted to {width}x{height} at "
          f"{view['rect']} on {s.width}x{s.height}, {room} px of weston's "
          f"bars and frame; "
          f"{got} px drawn, {shot} in the screenshot")


def case_xterm(s):
    """Keys typed into an X terminal reach it: the X input focus follows
    the window the user chose."""
    out = s.path("typed.txt")
    script = s.path("read-line.sh")
    with open(script, "w") as f:
        f.write(f"#!/bin/sh\nread line\necho \"$line\" > {out}\n")
    os.chmod(script, 0o755)
    x11_client(s, ["xterm", "-T", "ivwl-xterm", "-bg", "blue", "-fg",
                   "yellow", "-e", script], "xterm.log")
    view = s.wait_view("[work] ivwl-xterm", timeout=30)
    time.sleep(1)
    s.type_into(view, "ivwl typed this in X")
    got = wait_for("the typed line", lambda: os.path.exists(out) and
                   open(out).read().strip(), timeout=15)
    if got != "ivwl typed this in X":
        raise Failure(f"xterm received {got!r}")
    print("xterm got the typed line:", got)


def case_xterm_text(s):
    """An X terminal's text shows: the server's drawing of the window's
    background and of core-font text reaches the screen."""
    script = s.path("echo.sh")
    with open(script, "w") as f:
        f.write("#!/bin/sh\necho ivwl shows X text; sleep 60\n")
    os.chmod(script, 0o755)
    x11_client(s, ["xterm", "-T", "ivwl-text", "-bg", "blue", "-fg",
                   "yellow", "-e", script], "xterm.log")
    view = s.wait_view("[work] ivwl-text", timeout=30)
    blue, yellow = b"\xff\x00\x00", b"\x00\xff\xff"

    def drawn():
        px = screen_pixels(s, view["rect"])
        return px if px[yellow] > 100 else None
    try:
        px = wait_for("yellow text on blue", drawn, timeout=15)
    except Failure:
        px = screen_pixels(s, view["rect"])
        raise Failure(f"xterm's text does not show: {px.most_common(4)}")
    area = (view["rect"][2] - view["rect"][0]) * \
        (view["rect"][3] - view["rect"][1])
    if px[blue] < area // 2:
        raise Failure(f"xterm's background is not blue: "
                      f"{px.most_common(4)}")
    print(f"xterm shows {px[yellow]} text pixels on {px[blue]} of "
          f"background")


def case_xterm_menu(s):
    """xterm's ctrl-click menu (an override-redirect window) shows over
    its window at the pointer, drawn."""
    x11_client(s, ["xterm", "-T", "ivwl-menu"], "xterm.log")
    view = s.wait_view("[work] ivwl-menu", timeout=30)
    time.sleep(1)
    x0, y0, x1, y1 = view["rect"]
    px, py = (x0 + x1) // 2, y0 + (y1 - y0) // 3
    s.seat.move(px, py)
    time.sleep(0.3)
    s.seat.keydown("ctrl")
    s.seat.down()
    try:
        menu = wait_for("the menu", lambda: [
            v for v in s.scene() if "wl_subsurface" in v["head"] and
            v["rect"] and v["rect"][2] > v["rect"][0]], timeout=10)[0]
        m0, n0, m1, n1 = menu["rect"]
        if not (m0 - 40 <= px <= m1 + 40 and n0 - 40 <= py <= n1 + 40):
            raise Failure(f"the menu at {menu['rect']} is not at the "
                          f"pointer ({px}, {py})")
        colours = screen_pixels(s, (m0, n0, min(m1, x1), min(n1, y1)))
        if len(colours) < 2:
            raise Failure(f"the menu shows {len(colours)} colour(s)")
        print(f"xterm's menu at {menu['rect']} (pointer at {px}, {py}), "
              f"{len(colours)} colours")
    finally:
        s.seat.up()
        s.seat.keyup("ctrl")
    wait_for("the menu to go", lambda: not [
        v for v in s.scene() if "wl_subsurface" in v["head"] and
        v["rect"]], timeout=10)


def case_gtk(s):
    """A GTK 3 application on X (GDK_BACKEND=x11) maps and paints its
    widgets."""
    p = x11_client(s, ["gtk3-widget-factory"], "gtk.log",
                   extra_env={"GDK_BACKEND": "x11", "NO_AT_BRIDGE": "1"})
    view = s.wait_view("[work] gtk3-widget-factory", timeout=60)
    time.sleep(2)
    if p.poll() is not None:
        raise Failure(f"ivwl-xwm exited ({p.returncode})")
    colours = screen_pixels(s, view["rect"], 3)
    if len(colours) < 30:
        raise Failure(f"the GTK window shows {len(colours)} colours only")
    print(f"gtk3-widget-factory on X shows {len(colours)} colours")


def bar_pixels(s, view):
    """Pixels of ivwl-xwm's title bar colours (active or not) in the top
    XWM_BAR rows of view."""
    x0, y0, x1, _ = view["rect"]
    px = screen_pixels(s, (x0, y0, x1, y0 + XWM_BAR))
    return px[b"\x4a\x3a\x2b"] + px[b"\x70\x64\x5a"]


def case_frame(s):
    """An X window's title bar is weston's: ivwl-xwm asks for server-side
    decorations and draws no bar of its own once weston grants them.
    weston's bar names the VM, as over any window of it; a drag of it
    moves the window, its buttons maximize (and restore, from the bar
    inside the maximized window) and close, politely: xterm takes
    WM_DELETE_WINDOW and exits."""
    p = x11_client(s, ["xterm", "-T", "ivwl-frame"], "xterm.log")
    view = s.wait_view("[work] ivwl-frame", timeout=30)
    time.sleep(1)
    x0, y0, x1, y1 = view["rect"]
    own = bar_pixels(s, view)
    if own:
        raise Failure(f"ivwl-xwm draws a bar of its own under weston's: "
                      f"{own} pixels")
    # the pointer (anywhere at start) off the bar
    s.seat.move((x0 + x1) // 2, (y0 + y1) // 2)
    time.sleep(0.3)
    plate = s.check_plate(s.screenshot(), view, "work", "ivwl-frame")
    print(f"weston's bar over the X window: {plate} pixels as "
          "ivwl-nameplate draws them; none of ivwl-xwm's")
    bar = s.bar_height()
    # drag weston's bar by 100 and 60 px, away from the screen's edges
    # (where the shell placed the window: anywhere)
    want = (-100 if x0 > 150 else 100, -60 if y0 > 120 else 60)
    by = y0 - FRAME_BORDER - bar // 2
    s.seat.move(x0 + 60, by)
    time.sleep(0.3)
    s.seat.down()
    for i in range(1, 6):
        s.seat.move(x0 + 60 + want[0] * i // 5, by + want[1] * i // 5)
        time.sleep(0.1)
    s.seat.up()
    moved = wait_for("the window to move", lambda: (
        lambda v: v if v["rect"][:2] != (x0, y0) else None)(
            s.wait_view("[work] ivwl-frame")), timeout=10)
    dx, dy = moved["rect"][0] - x0, moved["rect"][1] - y0
    if abs(dx - want[0]) > 4 or abs(dy - want[1]) > 4:
        raise Failure(f"the window moved by ({dx}, {dy}), not {want}")
    # maximize with the bar's button, then restore with the button of
    # the bar inside the maximized window
    x0, y0, x1, y1 = moved["rect"]
    fx1 = s.frame_box(moved)[2]
    s.seat.move(fx1 - bar - bar // 2, y0 - FRAME_BORDER - bar // 2)
    time.sleep(0.3)
    s.seat.click()
    big = wait_for("the window maximized", lambda: (
        lambda v: v if v["rect"][2] - v["rect"][0] >= s.width - 20
        else None)(s.wait_view("[work] ivwl-frame")), timeout=10)
    time.sleep(0.5)
    b0, c0, b1, _ = big["rect"]
    s.seat.move(b1 - bar - bar // 2, c0 + FRAME_BORDER + bar // 2)
    time.sleep(0.3)
    s.seat.click()
    wait_for("the window restored", lambda: (
        lambda v: v if v["rect"][2] - v["rect"][0] == x1 - x0
        else None)(s.wait_view("[work] ivwl-frame")), timeout=10)
    # weston's own resize (super + right-drag) reaches the X window
    view = s.wait_view("[work] ivwl-frame")
    x0, y0, x1, y1 = view["rect"]
    s.seat.move(x1 - 20, y1 - 20)
    time.sleep(0.3)
    s.seat.keydown("super")
    s.seat.down(3)
    for i in range(1, 6):
        s.seat.move(x1 - 20 + 12 * i, y1 - 20 + 8 * i)
        time.sleep(0.1)
    s.seat.up(3)
    s.seat.keyup("super")
    grown = wait_for("the window resized", lambda: (
        lambda v: v if v["rect"][2] - v["rect"][0] > x1 - x0 + 30 and
        v["rect"][3] - v["rect"][1] > y1 - y0 + 20 else None)(
            s.wait_view("[work] ivwl-frame")), timeout=10)
    print(f"dragged by ({dx}, {dy}); maximized "
          f"to {big['rect']} and restored; resized by weston to "
          f"{grown['rect']}")
    # close with weston's button: xterm is asked (WM_DELETE_WINDOW)
    # and exits
    view = s.wait_view("[work] ivwl-frame")
    x0, y0, x1, _ = view["rect"]
    fx1 = s.frame_box(view)[2]
    s.seat.move(x0 + 100, y0 + 100)
    time.sleep(0.3)
    s.seat.move(fx1 - bar // 2, y0 - FRAME_BORDER - bar // 2)
    time.sleep(0.3)
    s.seat.click()
    try:
        rc = p.wait(timeout=15)
    except subprocess.TimeoutExpired:
        raise Failure("xterm did not exit when its close button was "
                      "clicked")
    if rc != 0:
        raise Failure(f"ivwl-xwm -- xterm ended with {rc}: xterm was "
                      "killed, not asked")
    print("the close button asked xterm to close; it exited with 0")


def case_fullscreen(s):
    """An X application that starts fullscreen (xterm -fullscreen sets
    _NET_WM_STATE before it maps) covers the output without a bar of
    ivwl-xwm's: under weston's frame and title bar (drawn inside a
    window as big as the output), the rows are xterm's own."""
    x11_client(s, ["xterm", "-T", "ivwl-full", "-fullscreen", "-bg",
                   "blue"], "xterm.log")
    view = wait_for("xterm fullscreen", lambda: (
        lambda v: v if v["rect"] == (0, 0, s.width, s.height) else None)(
            s.wait_view("[work] ivwl-full", timeout=30)), timeout=15)
    time.sleep(1)
    y0 = FRAME_BORDER + s.bar_height()
    top = screen_pixels(s, (0, y0, s.width, y0 + XWM_BAR))
    if top[b"\xff\x00\x00"] < s.width * XWM_BAR // 2:
        raise Failure(f"the top rows are not xterm's: "
                      f"{top.most_common(3)}")
    print(f"xterm -fullscreen: {view['rect']}, its own pixels up to the "
          f"top edge")


def menus(s):
    return [v for v in s.scene() if "wl_subsurface" in v["head"] and
            v["rect"] and v["rect"][2] > v["rect"][0]]


def selected(s, rect):
    """Pixels of GTK's selection (blue) in rect."""
    px = screen_pixels(s, rect)
    return sum(n for (b, g, r), n in px.items() if b > 180 and r < 100)


def case_gtk_menu(s):
    """A GTK 3 context menu on X opens at the pointer (an override-
    redirect window: a subsurface over its window) and its item works:
    "Select All" selects the entry's text."""
    x11_client(s, ["gtk3-widget-factory"], "gtk.log",
               extra_env={"GDK_BACKEND": "x11", "NO_AT_BRIDGE": "1"})
    view = s.wait_view("[work] gtk3-widget-factory", timeout=60)
    time.sleep(2)
    x0, y0 = view["rect"][0], view["rect"][1]
    # the fifth entry of the first column, which holds the text "entry"
    px, py = x0 + 190, y0 + 253
    entry = (x0 + 16, y0 + 240, x0 + 330, y0 + 267)
    before = selected(s, entry)
    s.seat.move(px, py)
    time.sleep(0.3)
    s.seat.click(3)
    menu = wait_for("the context menu", lambda: menus(s), timeout=10)[0]
    m0, n0, m1, n1 = menu["rect"]
    if not (m0 - 8 <= px <= m0 + 8 and n0 - 8 <= py <= n0 + 8):
        raise Failure(f"the menu at {menu['rect']} is not at the pointer "
                      f"({px}, {py})")
    s.screenshot()
    s.keep_screenshot("x11-gtk-menu")
    # Cut, Copy, Paste, Delete, a separator, Select All, a separator,
    # Insert Emoji: "Select All" is the fifth item, 117 px down
    # GTK selects a menu item on motion over it: move within it
    for dx, dy in ((50, 110), (60, 117), (62, 118)):
        s.seat.move(m0 + dx, n0 + dy)
        time.sleep(0.15)
    s.seat.click()
    wait_for("the menu to go", lambda: not menus(s), timeout=10)
    after = wait_for("the entry's text selected", lambda: (
        lambda n: n if n > before + 100 else None)(selected(s, entry)),
        timeout=10)
    print(f"the context menu opened at {menu['rect']} (pointer at {px}, "
          f"{py}); Select All selected the entry: {before} -> {after} "
          f"selection pixels")


QT_APP = "/usr/lib/x86_64-linux-gnu/qt5/examples/widgets/mainwindows/" \
    "application/application"


def case_qt(s):
    """A Qt 5 application on X (QT_QPA_PLATFORM=xcb): mapped with the
    VM's prefix and frame and drawn; keys typed reach its editor and
    its title follows (Qt marks the document modified); its File menu
    opens under the menu bar."""
    if not os.path.exists(QT_APP):
        raise Failure(f"{QT_APP} is not installed (tools/deps.sh)")
    x11_client(s, [QT_APP], "qt.log", extra_env={"QT_QPA_PLATFORM": "xcb"})
    view = s.wait_view("[work] untitled.txt", timeout=60)
    time.sleep(2)
    check_border(s, view, (0x30, 0x70, 0xc0))
    colours = screen_pixels(s, view["rect"], 2)
    if len(colours) < 10:
        raise Failure(f"the Qt window shows {len(colours)} colours only")
    s.type_into(view, "typed into Qt")
    # "untitled.txt[*]": Qt shows the mark once the text changed
    view = s.wait_view("[work] untitled.txt*", timeout=15)
    x0, y0 = view["rect"][0], view["rect"][1]
    s.seat.move(x0 + 14, y0 + 10)
    time.sleep(0.3)
    # the first click just after typing is sometimes not taken by Qt's
    # menu bar (weston 10's and 14's alike): as a user does, again
    for tries in range(1, 4):
        s.seat.click()
        try:
            menu = wait_for("the File menu", lambda: menus(s),
                            timeout=4)[0]
            break
        except Failure:
            if tries == 3:
                raise
    m0, n0 = menu["rect"][:2]
    if not (abs(m0 - x0) <= 10 and y0 + 10 < n0 <= y0 + 40):
        raise Failure(f"the File menu at {menu['rect']} is not under the "
                      f"menu bar of the window at {view['rect']}")
    s.seat.key("Escape")
    wait_for("the menu to go", lambda: not menus(s), timeout=10)
    print(f"Qt on X: {len(colours)} colours, typing marked it modified, "
          f"its File menu at {menu['rect']} under the window at "
          f"({x0}, {y0}), click {tries}")

    # its text copied in Qt (ctrl+a, ctrl+c) pastes in a Wayland client
    s.click_window(view)
    s.seat.key("ctrl+a", "ctrl+c")
    got = wait_for("a Wayland paste of Qt's copy", lambda: vm_paste(
        s, "text/plain;charset=utf-8"), timeout=60, step=0.5)
    if got.decode(errors="replace").strip() != "typed into Qt":
        raise Failure(f"wl-paste got {got!r} of Qt's copy")
    print(f"Qt's copy pasted in Wayland: {got.decode()!r}")


def relay_stats(s, log):
    """The relay's closing "ivwl-stats:" line in log (IVWL_STATS=1)."""
    def line():
        with open(s.path(log), errors="replace") as f:
            return next((ln for ln in f if ln.startswith("ivwl-stats:")),
                        None)
    got = wait_for(f"the relay's stats in {log}", line, timeout=15)
    return {k: int(v) for k, v in (kv.split("=") for kv in got.split()[1:])}


def case_zero_copy(s):
    """Xwayland's pools are the region's: Xwayland draws straight into
    region memory and the relay copies nothing (zero-copy across the
    processes of one app: ivwl-xwm holds the connection, Xwayland makes
    and sends the files)."""
    p = x11_client(s, ["xterm", "-T", "ivwl-zc", "-bg", "blue", "-fg",
                       "yellow", "-e", "sh", "-c",
                       "while :; do date +%N; sleep 0.1; done"],
                   "xwm-zc.log", extra_env={"IVWL_STATS": "1"})
    view = s.wait_view("[work] ivwl-zc", timeout=30)
    time.sleep(3)
    px = screen_pixels(s, view["rect"])
    if px[b"\x00\xff\xff"] < 50:
        raise Failure(f"xterm's text does not show: {px.most_common(3)}")
    p.terminate()
    p.wait(timeout=10)
    st = relay_stats(s, "xwm-zc.log")
    print(f"xterm through ivwl-xwm: {st}")
    # the cursor's small pool stays in copy mode (small files are not
    # moved): a few hundred bytes of all that was drawn
    if not (st["zero_copy_pools"] >= 1 and st["zero_copy_commits"] > 10 and
            st["copied_bytes"] * 100 < st["damaged_bytes"]):
        raise Failure(f"Xwayland's pools are not zero-copy: {st}")


def case_qt_dialog(s):
    """A transient dialog (Qt's file dialog, WM_TRANSIENT_FOR its main
    window) is a window of its own that stays above its parent, even
    when the user clicks the parent."""
    if not os.path.exists(QT_APP):
        raise Failure(f"{QT_APP} is not installed (tools/deps.sh)")
    x11_client(s, [QT_APP], "qt.log", extra_env={
        "QT_QPA_PLATFORM": "xcb", "QT_QPA_PLATFORMTHEME": ""})
    main = s.wait_view("[work] untitled.txt", timeout=60)
    time.sleep(1)
    s.click_window(main)
    s.seat.key("ctrl+o")
    dialog = wait_for("the file dialog", lambda: [
        v for v in s.scene() if v["title"] and v["rect"] and
        v["title"].startswith("[work] ") and
        v["title"] != "[work] untitled.txt"], timeout=20)[0]

    def above(a, b):
        titles = [v["title"] for v in s.scene() if v["title"]]
        return titles.index(a) < titles.index(b)
    if not above(dialog["title"], main["title"]):
        raise Failure(f"{dialog['title']!r} is not above its parent")
    # the parent clicked where the dialog does not cover it
    x0, y0, x1, y1 = main["rect"]
    d0, e0, d1, e1 = dialog["rect"]
    spots = [(x, y) for y in range(y0 + 30, y1 - 4, 10)
             for x in range(x0 + 4, x1 - 4, 10)
             if not (d0 - 8 <= x < d1 + 8 and e0 - 8 <= y < e1 + 8)]
    if not spots:
        raise Failure("the dialog covers all of its parent")
    s.seat.move(spots[0][0], spots[0][1])
    time.sleep(0.3)
    s.seat.click()
    time.sleep(1)
    if not above(dialog["title"], main["title"]):
        raise Failure("the dialog went under its parent when the parent "
                      "was clicked")
    print(f"{dialog['title']!r} at {dialog['rect']} stays above its "
          f"parent at {main['rect']}")


# ---- the clipboard between X and Wayland --------------------------------

def x_env(display):
    env = dict(os.environ, DISPLAY=display)
    env.pop("LD_PRELOAD", None)
    return env


def x_terminal(s, title, vm="work"):
    """An xterm on ivwl-xwm's display, clicked: Xwayland has the
    keyboard (the compositor shows it the clipboard only then).  (Its
    view, the display: Xwayland picks a free one, ivwl-xwm says which;
    another run's tests may run beside this one's, in another root.)"""
    p = s.client([ENV["IVWL_XWM_BIN"], "--", "xterm", "-T", title], vm=vm,
                 log=f"xwm-{vm}.log")
    out = StdoutLines(p)
    wait_for("ivwl-xwm's display", lambda: out.starting("DISPLAY=") or
             p.poll() is not None, timeout=30)
    if not out.starting("DISPLAY="):
        raise Failure(f"ivwl-xwm exited ({p.returncode}) before it said "
                      f"its display")
    display = out.starting("DISPLAY=")[0].split("=", 1)[1]
    view = s.wait_view(f"[{vm}] {title}", timeout=30)
    time.sleep(1)
    if p.poll() is not None:
        raise Failure(f"ivwl-xwm exited ({p.returncode})")
    s.click_window(view)
    return view, display


def x_paste(display, target, timeout=20):
    """What X's CLIPBOARD gives for target (xclip -o), or None."""
    try:
        r = subprocess.run(["xclip", "-o", "-selection", "clipboard", "-t",
                            target], env=x_env(display),
                           capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    return r.stdout if r.returncode == 0 else None


def vm_paste(s, mime, vm="work"):
    """wl-paste in vm: the bytes, or None (no such type offered).  It
    maps a surface to be given the keyboard: retried while refused."""
    p = s.client(["wl-paste", "-n", "-t", mime], vm=vm, log="wl-paste.log")
    try:
        data, _ = p.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        return None
    return data if p.returncode == 0 else None


def case_clipboard(s):
    """X -> Wayland and back in one VM: 8 MiB of one type each way (INCR
    on the X side, byte for byte) and UTF-8 text as X's UTF8_STRING."""
    if not shutil.which("xclip"):
        raise Failure("xclip is not installed (tools/deps.sh)")
    view, display = x_terminal(s, "ivwl-clip")

    # X copies (xclip owns CLIPBOARD), a Wayland client of the VM pastes
    payload = os.urandom(8 << 20)
    src = s.path("from-x.bin")
    with open(src, "wb") as f:
        f.write(payload)
    xclip = subprocess.Popen(["xclip", "-quiet", "-selection", "clipboard",
                              "-t", "application/x-ivwl-from-x", "-i",
                              src], env=x_env(display),
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    s.clients.append(xclip)
    got = wait_for("a Wayland paste of X's copy", lambda: vm_paste(
        s, "application/x-ivwl-from-x"), timeout=60, step=0.5)
    if got != payload:
        raise Failure(f"the Wayland paste of X's copy differs: "
                      f"{len(got)} bytes of {len(payload)}")
    print(f"{len(got)} bytes copied in X pasted by wl-paste, byte for byte")
    # a reader that leaves after 1000 bytes, in the middle of X's INCR:
    # ivwl-xwm stays (no SIGPIPE), lets the owner finish, and the next
    # paste is whole
    cut = s.client(["sh", "-c", "wl-paste -n -t application/x-ivwl-from-x "
                    "| head -c 1000 > /dev/null"], log="wl-paste-cut.log")
    cut.wait(timeout=60)
    got = wait_for("a Wayland paste after a reader left", lambda: vm_paste(
        s, "application/x-ivwl-from-x"), timeout=60, step=0.5)
    if got != payload:
        raise Failure("the paste after a reader left differs")
    print("a reader that left after 1000 bytes: the next paste is whole")
    # the owner (xclip 0.13) serves one transfer at a time: asked while
    # it still sent the first reader's chunks, it dropped the request
    # and the paste stalled 10 s before it came back empty and was
    # asked again; ivwl-xwm now asks only once the first is done
    with open(s.path("xwm-work.log"), errors="replace") as f:
        stalls = [ln for ln in f if "stalled" in ln]
    if stalls:
        raise Failure(f"a paste from X stalled: {stalls[0].strip()}")
    xclip.kill()
    text = "ivwl: X to Wayland \u2713"
    subprocess.run(["xclip", "-selection", "clipboard", "-i"],
                   input=text.encode(), env=x_env(display), check=True,
                   timeout=10)
    got = wait_for("a Wayland paste of X's text", lambda: vm_paste(
        s, "text/plain;charset=utf-8"), timeout=60, step=0.5)
    if got.decode() != text:
        raise Failure(f"wl-paste got {got!r} for X's {text!r}")
    print(f"X's text pasted in Wayland: {got.decode()!r}")

    # a Wayland client copies, X pastes once an X window has the keyboard
    payload = os.urandom(8 << 20)
    src = s.path("from-wayland.bin")
    with open(src, "wb") as f:
        f.write(payload)
    s.client(["sh", "-c", "exec wl-copy -t application/x-ivwl-from-wl "
              f"--foreground < {src}"], log="wl-copy.log")

    def pasted_in_x():
        s.click_window(view)
        return x_paste(display, "application/x-ivwl-from-wl")
    got = wait_for("an X paste of the Wayland copy", pasted_in_x,
                   timeout=60, step=1)
    if got != payload:
        raise Failure(f"the X paste of Wayland's copy differs: "
                      f"{len(got)} bytes of {len(payload)}")
    print(f"{len(got)} bytes copied by wl-copy pasted in X, byte for byte")
    text = "ivwl: Wayland to X \u2713"
    s.client(["wl-copy", "--foreground", text], log="wl-copy-text.log")

    def text_in_x():
        s.click_window(view)
        got = x_paste(display, "UTF8_STRING")
        return got if got and got.decode(errors="replace") == text else None
    got = wait_for("X's UTF8_STRING of the Wayland text", text_in_x,
                   timeout=60, step=1)
    print(f"Wayland's text pasted in X: {got.decode()!r}")


def home_copies(s, text):
    """wl-copy in the VM home, after the user clicked a window of home
    (its clients may take the keyboard then: the trusted path)."""
    s.client([ENV["IVWL_PATTERN_CLIENT"], "--frames", "1000000", "--width",
              "160", "--height", "120", "--title", "home-window"],
             vm="home", log="home-window.log")
    s.click_window(s.wait_view("[home] home-window"))
    s.client(["wl-copy", "--foreground", "-t", "text/plain", text],
             vm="home", log="wl-copy-home.log")
    time.sleep(2)


def expect_x_paste(s, view, display, text):
    """X's clipboard gives text once an X window has the keyboard."""
    def in_x():
        s.click_window(view)
        return x_paste(display, "UTF8_STRING", timeout=10)
    got = wait_for(f"{text!r} pasted in X", in_x, timeout=60, step=1)
    if got != text:
        raise Failure(f"work's X pasted {got!r}, not {text!r}")


def case_clipboard_isolated(s):
    """Across VMs the clipboard policy decides: an isolated VM's X
    clients never see what another VM copied."""
    view, display = x_terminal(s, "ivwl-clip")
    home_copies(s, "copied in home")
    for _ in range(3):
        s.click_window(view)
        time.sleep(1)
        got = x_paste(display, "UTF8_STRING", timeout=10)
        if got:
            raise Failure(f"work's X pasted {got!r} of home's selection")
    # not for want of a copy: weston offered it, the plugin withheld it
    if "withheld the selection offer of home's data (clipboard=" \
            "isolated)" not in s.weston_log():
        raise Failure("weston's log says no offer of home's copy was "
                      "withheld from work")
    # the same bridge carries work's own copy: the path is open
    s.client(["wl-copy", "--foreground", "-t", "text/plain", "work's"],
             log="wl-copy-work.log")

    expect_x_paste(s, view, display, b"work's")
    print("an isolated VM's X saw nothing of home's copy, and its own")


def case_clipboard_import(s):
    """work imports, home exports: home's copy pastes in work's X."""
    view, display = x_terminal(s, "ivwl-clip")
    home_copies(s, "copied in home")

    expect_x_paste(s, view, display, b"copied in home")
    print("home's copy pasted in work's X (work imports, home exports)")


CASES = {
    "x11-xeyes": (case_xeyes, ("work",), "x11"),
    "x11-tk": (case_tk, ("work",), "x11"),
    "x11-oversize": (case_oversize, ("work",), "x11"),
    "x11-xterm": (case_xterm, ("work",), "x11"),
    "x11-xterm-text": (case_xterm_text, ("work",), "x11"),
    "x11-xterm-menu": (case_xterm_menu, ("work",), "x11"),
    "x11-gtk": (case_gtk, ("work",), "x11"),
    "x11-gtk-menu": (case_gtk_menu, ("work",), "x11"),
    "x11-qt": (case_qt, ("work",), "x11"),
    "x11-qt-dialog": (case_qt_dialog, ("work",), "x11"),
    "x11-frame": (case_frame, ("work",), "x11"),
    "x11-fullscreen": (case_fullscreen, ("work",), "x11"),
    "x11-zero-copy": (case_zero_copy, ("work",), "x11"),
    "x11-clipboard": (case_clipboard, ("work",), "x11"),
    "x11-clipboard-isolated": (case_clipboard_isolated, ("work", "home"),
                               "x11"),
    "x11-clipboard-import": (case_clipboard_import, ("work", "home"),
                             "x11"),
}

VM_OPTIONS = {
    "x11-clipboard-import": {"work": ["clipboard=import"],
                             "home": ["clipboard=export"]},
}


def start(name):
    run, vms, *backend = CASES[name]
    s = Session(vms, backend=backend[0] if backend else "headless",
                vm_options=VM_OPTIONS.get(name))
    return s, run, False


if __name__ == "__main__":
    sys.exit(case_main(CASES, start, Listing(suites=("integration",
                                                    "x11"))))
