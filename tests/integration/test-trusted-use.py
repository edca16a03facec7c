#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Ordinary use under the trusted path (docs/security.md, "Trusted
path"), on a seated weston (tests/seat) with the panel: the
rules that stop a hostile VM must leave what users do working.

    test-trusted-use.py CASE

IVWL_KEEP_SHOTS=DIR keeps the screenshots the cases look at (docs/).
"""
import subprocess
import sys
import time

from ivwltest.palette import vm_color
from ivwltest.session import (ENV, FRAME_BORDER, Failure, Listing, Session,
                              StdoutLines, beside_indicator, case_main,
                              decode_png, nameplate, pixel, wait_for)

# the session's colour of its first VM, and label.c's attention bar
FIRST_VM = (0x30, 0x70, 0xc0)
AMBER = (0xff, 0xb0, 0x00)
PANEL = 32      # desktop-shell's panel height at the top
GREY = (0x80, 0x80, 0x80)   # the test pages' and clients' fill


def case_new_window_keyboard(s):
    """A window the user clicked has the keyboard; a new window of the
    same VM takes it (a dialog), one of another VM does not until the
    user clicks it, and shows the attention bar meanwhile; the window
    switcher (super+tab) moves the keyboard between VMs."""
    a, va = s.typist("work", "first")
    s.click_window(va)
    wait_for("the first window to get the keyboard",
             lambda: "enter" in a.lines, timeout=5)
    b, _ = s.typist("work", "dialog")
    wait_for("the same VM's new window to take the keyboard",
             lambda: "enter" in b.lines, timeout=5)
    c, vc = s.typist("other", "other")
    time.sleep(1.5)
    if "enter" in c.lines:
        raise Failure("another VM's new window took the keyboard")
    # it maps below the window with the keyboard, not over it
    above = [v["title"] for v in s.scene_above(vc)]
    if "[work] dialog" not in above:
        raise Failure(f"another VM's new window mapped over the window "
                      f"with the keyboard (above it: {above})")
    x0, y0, x1, y1 = vc["rect"]
    top = s.frame_box(vc)[1]
    bar = [(x, y) for x in range(x0, x1) for y in range(max(top - 4, 0), y0)]
    if not s.in_sight(vc, bar):
        s.move_aside(s.wait_view("[work] dialog"))

    def bar_shows():
        shot = s.screenshot()
        return AMBER in [pixel(shot, x, y) for x, y in s.in_sight(vc, bar)]
    if not bar_shows():
        raise Failure("the other VM's new window shows no attention bar")
    s.click_window(vc)
    wait_for("a click to give the other VM the keyboard",
             lambda: "enter" in c.lines, timeout=5)
    time.sleep(0.3)
    if bar_shows():
        raise Failure("the attention bar stayed after the click")
    s.seat.type("ok", delay=0.04)
    wait_for("the keys to reach it", lambda: len(c.starting("key ")) >= 2,
             timeout=5)
    # the window switcher is the user's too: super+tab back to work
    before = a.lines.count("enter") + b.lines.count("enter")
    s.seat.key("super+Tab")
    wait_for("the switcher to give work's window the keyboard",
             lambda: a.lines.count("enter") + b.lines.count("enter") >
             before, timeout=5)
    print("same VM's new window took the keyboard; another VM's waited "
          "for a click, with the attention bar; the switcher moved it "
          "back")


def case_gtk_menu(s):
    """gtk3-demo's context menu: a right click in an entry opens a
    grabbing popup (the VM holds the keyboard and the press's serial
    backs the grab), which stays until Escape closes it."""
    p = s.client(["gtk3-demo", "--run=clipboard"], vm="work",
                 log="gtk.log", extra_env={"GDK_BACKEND": "wayland",
                                           "NO_AT_BRIDGE": "1"})
    dialog = s.wait_view("[work] Clipboard", timeout=60)
    time.sleep(1.5)
    x0, y0, x1, y1 = dialog["rect"]
    # the first entry: a third of the way across, 40 % down the dialog
    s.seat.move(x0 + (x1 - x0) * 2 // 5, y0 + (y1 - y0) * 2 // 5)
    time.sleep(0.3)
    s.seat.click(3)
    menu = wait_for("the context menu", lambda: popups(s), timeout=10,
                    step=0.2)
    time.sleep(1.0)
    if not popups(s):
        raise Failure("the context menu was dismissed at once")
    s.screenshot()
    s.keep_screenshot("trusted-menu")
    print(f"the context menu is up at {menu[0]['rect']}")
    s.seat.key("Escape")
    wait_for("Escape to close the menu", lambda: not popups(s), timeout=5)
    if p.poll() is not None:
        raise Failure("gtk3-demo exited")


def popups(s):
    return [v for v in s.scene() if "role xdg_popup" in v["head"] and
            v["rect"] and v["rect"][2] > v["rect"][0]]


def case_chromium_menu(s):
    """chromium's context menu: a right click in the page opens its menu
    (an xdg_popup with a grab), which Escape closes."""
    page = s.path("page.html")
    with open(page, "w") as f:
        f.write("<html><head><title>ivwl-menu</title></head><body "
                "style='margin:0;background:#129a56'></body></html>")
    s.chromium(page)
    view = s.wait_view("[work] ivwl-menu - Chromium", timeout=60)
    time.sleep(2)
    x0, y0, x1, y1 = view["rect"]
    for _ in range(3):
        s.seat.move((x0 + x1) // 2, (y0 + y1) * 3 // 5)
        time.sleep(0.3)
        s.seat.click(3)
        try:
            menu = wait_for("the context menu", lambda: popups(s),
                            timeout=5, step=0.2)
            break
        except Failure:
            s.seat.key("Escape")
    else:
        raise Failure("chromium's context menu never opened")
    time.sleep(1.0)
    if not popups(s):
        raise Failure("chromium's context menu was dismissed at once")
    print(f"chromium's context menu is up at {menu[0]['rect']}")
    s.seat.key("Escape")
    wait_for("Escape to close the menu", lambda: not popups(s), timeout=5)


def case_chromium_fullscreen(s):
    """chromium as a user sends a page fullscreen: a double click on the
    page calls requestFullscreen(), chromium asks weston for
    fullscreen, and the VM's window gets the whole output (its page
    viewport the output's size, shown 1:1) with its frame inside the
    output's edges; super+esc gives it its window back.  The page at
    load asks too, with no user input: chromium refuses that itself
    (browsers ask a user gesture), and the window stays as it was."""
    page = s.path("fs.html")
    with open(page, "w") as f:
        f.write("<html><head><title>ivwl-fs</title></head><body "
                "style='margin:0;background:#808080' ondblclick="
                "'document.documentElement.requestFullscreen()' onload="
                "'document.documentElement.requestFullscreen()"
                ".catch(()=>{})'></body></html>")
    s.chromium(page)
    view = s.wait_view("[work] ivwl-fs - Chromium", timeout=60)
    time.sleep(2)
    before = view["rect"]
    if before == (0, 0, s.width, s.height):
        raise Failure("chromium went fullscreen without the user")
    x0, y0, x1, y1 = before
    full = (0, 0, s.width, s.height)
    for _ in range(3):
        s.seat.move((x0 + x1) // 2, (y0 + y1) * 3 // 5)
        time.sleep(0.3)
        s.seat.click()
        time.sleep(0.08)
        s.seat.click()
        try:
            wait_for("chromium to go fullscreen", lambda: s.wait_view(
                "[work] ivwl-fs - Chromium")["rect"] == full, timeout=8,
                step=0.3)
            break
        except Failure:
            pass
    else:
        raise Failure(f"a double click did not make chromium fullscreen: "
                      f"{s.wait_view('[work] ivwl-fs - Chromium')['rect']}")
    w, h = s.width, s.height
    # chromium draws its page at the new size a few frames after weston
    # gave it the output; a loaded machine can take seconds for that.
    seen = []

    def page_fills():
        seen[:] = [s.screenshot()]
        return pixel(seen[0], w // 4, h // 2) == GREY

    try:
        wait_for("the page to fill the output", page_fills, timeout=10,
                 step=0.3)
    except Failure:
        s.keep_screenshot("trusted-chromium-fullscreen")
        raise Failure(f"the page does not fill the output: ({w // 4},"
                      f"{h // 2}) shows {pixel(seen[0], w // 4, h // 2)}")
    shot = seen[0]
    s.keep_screenshot("trusted-chromium-fullscreen")
    for x, y in ((40, 1), (1, h // 2), (w - 2, h // 2), (w // 2, h - 2)):
        if pixel(shot, x, y) != FIRST_VM:
            raise Failure(f"chromium's fullscreen edge at ({x},{y}) shows "
                          f"{pixel(shot, x, y)}, not its VM's frame")
    print(f"a double click made chromium fullscreen {w}x{h}, framed")
    s.seat.move(w - 10, h - 10)
    s.seat.key("super+esc")
    wait_for("super+esc to take chromium out of fullscreen",
             lambda: s.wait_view("[work] ivwl-fs - Chromium")["rect"] !=
             full, timeout=8, step=0.3)
    print("super+esc: chromium's window is back at "
          f"{s.wait_view('[work] ivwl-fs - Chromium')['rect']}")


def case_mpv_fullscreen(s):
    """mpv --fs asks for fullscreen: it fills the screen below the panel,
    with its VM's frame inside its edges."""
    p = s.client(["mpv", "--vo=wlshm", "--no-audio", "--no-config", "--fs",
                  "--title=mpv-fs", "--length=8",
                  "av://lavfi:testsrc2=size=640x360:rate=30"], log="mpv.log")
    v = s.wait_view("[work] mpv-fs", timeout=30)
    wait_for("mpv to fill the screen below the panel", lambda: s.wait_view(
        "[work] mpv-fs")["rect"] == (0, PANEL, s.width, s.height),
        timeout=10, step=0.2)
    time.sleep(0.5)
    shot = s.screenshot()
    s.keep_screenshot("trusted-mpv-fullscreen")
    edges = {"top": (s.width // 2, PANEL + 1),
             "left": (1, (PANEL + s.height) // 2),
             "right": (s.width - 2, (PANEL + s.height) // 2),
             "bottom": (s.width // 2, s.height - 2)}
    for side, (x, y) in edges.items():
        if pixel(shot, x, y) != FIRST_VM:
            raise Failure(f"mpv's {side} edge shows {pixel(shot, x, y)}, "
                          f"not its VM's frame")
    if any(pixel(shot, x, 2) == FIRST_VM for x in range(s.width)
           if beside_indicator(s.width, x)):
        raise Failure("the panel is covered")
    print(f"mpv fullscreen at {v['rect']}: below the panel, framed")
    try:
        p.wait(30)
    except subprocess.TimeoutExpired:
        raise Failure("mpv did not finish its video")

DESKTOP = (0x30, 0x30, 0x30)    # indicator.c's colour for the desktop
# the session's colours (Session._write_weston_ini), by VM
VM_COLOURS = {"work": FIRST_VM, "home": (0xc0, 0x30, 0x30),
              "media": (0x30, 0xa0, 0x40)}


def close_to(seen, want, slack=2):
    return seen is not None and all(abs(a - b) <= slack
                                    for a, b in zip(seen, want))


def case_label_colours(s):
    """Every side of every VM's frame, and the attention bar, read back
    in exactly the configured colour (within 2 of 255 a channel), on the
    renderer the case names: bookworm's llvmpipe showed weston 10's
    solid-colour surfaces with their channels shifted by one."""
    views = {}
    for vm in ("work", "home"):
        _, views[vm] = s.typist(vm, f"{vm}-window")
    s.click_window(views["work"])
    # a window of a VM the user did not click: the attention bar
    _, views["media"] = s.typist("media", "media-window")
    time.sleep(1.0)
    views = {vm: s.wait_view(v["title"]) for vm, v in views.items()}
    shot = s.screenshot()
    checked = 0
    read = set()        # the VMs whose colour was read
    for vm, v in views.items():
        x0, y0, x1, y1 = v["rect"]
        mx, my = (x0 + x1) // 2, (y0 + y1) // 2
        sides = {"top": (mx, y0 - 2), "bottom": (mx, y1 + 1),
                 "left": (x0 - 2, my), "right": (x1 + 1, my)}
        # what windows above (their frames and bars too) hide: one look
        # at the scene a window
        seen_at = set(s.in_sight(v, list(sides.values())))
        for side, (x, y) in sides.items():
            if (x, y) not in seen_at or pixel(shot, x, y) is None:
                continue
            seen = pixel(shot, x, y)
            if not close_to(seen, VM_COLOURS[vm]):
                raise Failure(f"{v['title']!r}: its frame's {side} side "
                              f"reads {seen}, configured "
                              f"{VM_COLOURS[vm]} ({s.renderer})")
            checked += 1
            read.add(vm)
    if checked < 6 or len(read) < len(views):
        raise Failure(f"only {checked} frame sides were on screen, of "
                      f"{sorted(read)}")
    x0, y0, x1, y1 = views["media"]["rect"]
    top = s.frame_box(views["media"])[1]
    # it mapped below the window with the keyboard: where that hides it
    # there is no bar to read
    spots = [(x, y) for x in range(x0, x1, 7)
             for y in range(max(top - 4, 0), y0)]
    if not s.in_sight(views["media"], spots):
        s.move_aside(s.wait_view(views["work"]["title"]))
        shot = s.screenshot()
    bar = [pixel(shot, x, y) for x, y in s.in_sight(views["media"], spots)]
    if not any(close_to(p, AMBER) for p in bar):
        raise Failure(f"no attention bar in {AMBER} by the media window: "
                      f"{sorted(set(p for p in bar if p))[:6]} "
                      f"({s.renderer})")
    print(f"{checked} frame sides and the attention bar in their "
          f"configured colours under {s.renderer}")


def case_title_bar(s):
    """Above each VM window weston draws a bar in the VM's colour with
    the VM's name and the window's title: the screen shows exactly what
    ivwl-nameplate draws with the same code (pixel for pixel).  A title
    that would read backwards (a bidi override) or hide characters shows
    cleaned; a window that sets a new title gets a new plate."""
    titles = {"work": "Firefox — news",
              "home": "\u202eknab\u202c Online\u200b banking"}
    lines, views = {}, {}
    for vm, title in titles.items():
        extra = ["--retitle", "Firefox — mail", "--seconds", "6"] \
            if vm == "work" else []
        lines[vm], views[vm] = s.typist(vm, title, extra)
    time.sleep(1.0)
    bar = s.bar_height()
    for vm, title in titles.items():
        # on top, so that nothing covers its bar
        s.click_window(s.wait_view(f"[{vm}] {title}"))
        v = s.wait_view(f"[{vm}] {title}")
        shot = s.screenshot()
        if s.renderer == "pixman":
            s.keep_screenshot("title-bar")
        compared = s.check_plate(shot, v, vm, title)
        print(f"{v['title']!r}: {compared} pixels of its nameplate as "
              f"drawn by ivwl-nameplate")
    # a new title, a new plate
    lines["work"].wait("retitled", timeout=10)
    v = s.wait_view("[work] Firefox — mail")
    s.click_window(v)
    s.check_plate(s.screenshot(), v, "work", "Firefox — mail")
    print("a new title: the plate followed")


def indicator_shows(s, name, colour):
    """Whether the top middle of the screen shows the keyboard indicator
    as ivwl-nameplate draws it: NAME has the keyboard, on colour."""
    out = s.path(f"indicator-{name}.png")
    nameplate("--name", name, "--title", "has the keyboard", "--color",
              "0xff%02x%02x%02x" % colour, "--width", 4096, "--out", out)
    want = decode_png(out)
    # the pointer starts anywhere: not over the indicator
    s.seat.move(s.width - 1, s.height - 1)
    time.sleep(0.1)
    shot = s.screenshot()
    x0 = (s.width - want[0]) // 2
    return all(pixel(shot, x0 + x, y) == pixel(want, x, y)
               for y in range(want[1]) for x in range(want[0]))


def case_keyboard_indicator(s):
    """At the top middle of the screen, above the panel, weston names
    whoever has the keyboard: "desktop" at first, the VM whose window
    took it, not one whose window was refused it, the one the user
    clicked, and "desktop" again when that window goes."""
    def expect(name, colour, why):
        wait_for(f"the indicator to say {name} ({why})",
                 lambda: indicator_shows(s, name, colour), timeout=5,
                 step=0.3)
        print(f"the indicator says {name}: {why}")
    expect("desktop", DESKTOP, "no window yet")
    work, vw = s.typist("work", "work-window")
    wait_for("work's window to take the keyboard",
             lambda: "enter" in work.lines, timeout=5)
    expect("work", VM_COLOURS["work"], "the first window took it")
    s.keep_screenshot("keyboard-indicator")
    home, vh = s.typist("home", "home-window")
    time.sleep(1.0)
    expect("work", VM_COLOURS["work"], "home's new window was refused it")
    s.click_window(vh)
    wait_for("home's window to get the keyboard",
             lambda: "enter" in home.lines, timeout=5)
    expect("home", VM_COLOURS["home"], "the user clicked home's window")
    home.proc.terminate()
    home.proc.wait(10)
    expect("desktop", DESKTOP, "home's window went")


def case_xray(s):
    """While the user holds super+alt, every VM window is darkened and
    shows its VM's name large in its middle (as ivwl-nameplate --big
    draws it); the window under the pointer keeps its keyboard and hears
    no key meanwhile; let go, the screen is as before."""
    lines, views = {}, {}
    for vm in ("work", "home"):
        lines[vm], views[vm] = s.typist(vm, f"{vm}-window")
    s.click_window(views["work"])
    wait_for("work's window to get the keyboard",
             lambda: "enter" in lines["work"].lines, timeout=5)
    # the pointer's image off the names: to a corner no window covers
    boxes = [s.frame_box(v) for v in views.values()]
    s.seat.move(*next(
        (x, y) for x, y in ((2, s.height - 3), (s.width - 3, s.height - 3),
                            (2, PANEL + 2), (s.width - 3, PANEL + 2))
        if not any(a <= x < c and b <= y < d for a, b, c, d in boxes)))
    time.sleep(0.5)
    before = s.screenshot()
    keys = len(lines["work"].starting("key "))
    leaves = lines["work"].lines.count("leave")
    s.seat.keydown("super+alt")
    time.sleep(0.8)
    shot = s.screenshot()
    s.keep_screenshot("xray")
    s.seat.keyup("super+alt")
    for vm in ("work", "home"):
        v = s.wait_view(f"[{vm}] {vm}-window")
        above = [s.frame_box(a) for a in s.scene_above(v)]
        out = s.path(f"xray-{vm}.png")
        nameplate("--big", "--name", vm, "--color",
                  "0xff%02x%02x%02x" % VM_COLOURS[vm], "--out", out)
        want = decode_png(out)
        x0, y0, x1, y1 = v["rect"]
        nx = x0 + (x1 - x0 - want[0]) // 2
        ny = y0 + (y1 - y0 - want[1]) // 2
        wrong = compared = 0
        for y in range(want[1]):
            for x in range(want[0]):
                px, py = nx + x, ny + y
                if not (x0 <= px < x1 and y0 <= py < y1) or any(
                        a <= px < c and b <= py < d
                        for a, b, c, d in above):
                    continue
                compared += 1
                wrong += pixel(shot, px, py) != pixel(want, x, y)
        if compared < 200:
            raise Failure(f"{v['title']!r}: its name is mostly covered")
        if wrong:
            raise Failure(f"{v['title']!r}: {wrong} of {compared} pixels "
                          "of its X-ray name differ from ivwl-nameplate's")
        # a corner of the window, darkened
        cx, cy = x0 + 3, y1 - 3
        if not any(a <= cx < c and b <= cy < d for a, b, c, d in above):
            lit, dark = pixel(before, cx, cy), pixel(shot, cx, cy)
            if sum(dark) * 2 > sum(lit):
                raise Failure(f"{v['title']!r} is not darkened: {lit} "
                              f"-> {dark}")
        print(f"{v['title']!r}: darkened, its name across it "
              f"({compared} pixels as ivwl-nameplate draws them)")
    time.sleep(0.5)
    after = s.screenshot()
    # (the panel's clock may turn meanwhile)
    if after[3][PANEL:] != before[3][PANEL:]:
        raise Failure("the screen is not as before once super+alt was "
                      "let go")
    got = lines["work"].starting("key ")[keys:]
    # super went down before the binding; alt (56) is X-ray's
    if any(k.split()[1] == "56" for k in got):
        raise Failure(f"the window heard X-ray's key: {got}")
    if lines["work"].lines.count("leave") > leaves:
        raise Failure("work's window lost the keyboard during X-ray")
    print("super+alt let go: the screen as before, no key heard")


def case_title_bar_use(s):
    """The title bar weston draws is the user's: a drag on it moves the
    window by as much as the pointer moved, raises it and gives its VM
    the keyboard, as a click into the window does; its close button asks
    the client to close (the client exits 0)."""
    lines, views = {}, {}
    for vm in ("work", "home"):
        lines[vm], views[vm] = s.typist(vm, f"{vm}-window")
    s.click_window(s.wait_view("[work] work-window"))
    wait_for("work's window to get the keyboard",
             lambda: "enter" in lines["work"].lines, timeout=5)
    v = s.wait_view("[home] home-window")
    x0, y0, x1, y1 = v["rect"]
    bar = s.bar_height()
    # home's bar, where no window above covers it
    above = [s.frame_box(a) for a in s.scene_above(v)]
    start = next(((x, y0 - FRAME_BORDER - bar // 2)
                  for x in range(x0 + 10, x1 - bar - 10, 10)
                  if not any(a <= x < c and b <= y0 - FRAME_BORDER - bar // 2
                             < d for a, b, c, d in above)), None)
    if start is None:
        raise Failure(f"home's bar is covered: {above}")
    dx = -40 if x0 > 200 else 40
    dy = 50 if y1 < s.height - 100 else -30
    s.seat.drag(start, (start[0] + dx, start[1] + dy))
    time.sleep(0.3)
    moved = s.wait_view("[home] home-window")["rect"]
    if moved != (x0 + dx, y0 + dy, x1 + dx, y1 + dy):
        raise Failure(f"a drag by ({dx},{dy}) moved home's window from "
                      f"{v['rect']} to {moved}")
    wait_for("home's window to get the keyboard from its bar",
             lambda: "enter" in lines["home"].lines, timeout=5)
    if s.scene_above(s.wait_view("[home] home-window")):
        raise Failure("home's window is not on top after a press on its "
                      "bar")
    print(f"a drag on home's bar moved it by ({dx},{dy}), raised it and "
          "gave it the keyboard")
    fx1 = s.frame_box(s.wait_view("[home] home-window"))[2]
    s.seat.click(at=(fx1 - bar // 2, moved[1] - FRAME_BORDER - bar // 2))
    lines["home"].wait("closed", timeout=5)
    if lines["home"].proc.wait(10) != 0:
        raise Failure("home's client did not exit 0 after its close "
                      "button")
    if lines["work"].proc.poll() is not None:
        raise Failure("work's client ended too")
    print("the close button closed home's window; its client exited 0")


NOTICE = "is full screen \u2014 super+esc leaves"


def notice_shows(s, shot, vm):
    """Whether shot shows plugin/fullscreen.c's notice for vm at the top
    middle, below the keyboard indicator, as ivwl-nameplate draws it."""
    out = s.path(f"notice-{vm}.png")
    nameplate("--name", vm, "--title", NOTICE, "--color",
              vm_color(s.vms.index(vm)), "--width", 4096, "--out", out)
    want = decode_png(out)
    x0, y0 = (s.width - want[0]) // 2, 2 * want[1]
    return all(pixel(shot, x0 + x, y0 + y) == pixel(want, x, y)
               for y in range(want[1]) for x in range(want[0]))


def fullscreener(s, vm, title, delay_ms):
    p = s.client([ENV["IVWL_TRUST_CLIENT"], "--mode", "fullscreener",
                  "--title", title, "--color", "0x808080", "--delay-ms",
                  str(delay_ms), "--seconds", "120"], vm=vm,
                 log=f"fullscreener-{len(s.clients)}.log")
    lines = StdoutLines(p)
    lines.wait("mapped")
    return lines, s.wait_view(f"[{vm}] {title}")


def rect_size(r):
    return (r[2] - r[0], r[3] - r[1])


def sizes_after_ask(lines):
    i = lines.lines.index("asked")
    return [ln for ln in lines.lines[i:] if ln.startswith("size ")]


def case_fullscreen_user(s):
    """A VM window that asks for fullscreen right after the user clicked
    it covers the whole output, above the panel, at the output's size:
    its pixels shown 1:1, its frame in its VM's colour inside the
    output's edges over them, a notice naming its VM below the keyboard
    indicator.  super+esc takes it back to its own size.  The same
    request 4 s after the click (past IVWL_FULLSCREEN_INPUT_MS) is
    served as maximize, below the panel; a VM with fullscreen=never is
    never fullscreen."""
    lines, v = fullscreener(s, "work", "fs-now", 0)
    s.click_window(v)
    lines.wait("asked")
    full = f"size {s.width}x{s.height}"
    wait_for("weston to make it fullscreen",
             lambda: full in sizes_after_ask(lines), timeout=5)
    wait_for("it to cover the output", lambda: s.wait_view(
        "[work] fs-now")["rect"] == (0, 0, s.width, s.height),
        timeout=5, step=0.2)
    time.sleep(0.5)
    shot = s.screenshot()
    s.keep_screenshot("trusted-fullscreen-user")
    w, h = s.width, s.height
    edges = {"top": (40, 1), "left": (1, h // 2), "right": (w - 2, h // 2),
             "bottom": (w // 2, h - 2)}
    for side, (x, y) in edges.items():
        if pixel(shot, x, y) != FIRST_VM:
            raise Failure(f"the fullscreen window's {side} edge shows "
                          f"{pixel(shot, x, y)}, not its VM's frame")
    inside = [(FRAME_BORDER, PANEL // 2), (w // 4, h // 2),
              (w - 1 - FRAME_BORDER, h - 1 - FRAME_BORDER)]
    for x, y in inside:
        if pixel(shot, x, y) != GREY:
            raise Failure(f"({x},{y}) shows {pixel(shot, x, y)}, not the "
                          "window's own pixel: not 1:1 inside its frame")
    if not notice_shows(s, shot, "work"):
        raise Failure("no notice names work's fullscreen window")
    print(f"fullscreen {w}x{h} after the click: framed inside the output, "
          "notice shown, content 1:1")
    s.seat.move(w // 4, h // 2)
    wait_for("the notice to go after a few seconds",
             lambda: not notice_shows(s, s.screenshot(), "work"),
             timeout=10, step=0.5)
    s.seat.move(w // 4, 0)
    wait_for("the pointer at the top edge to bring the notice back",
             lambda: notice_shows(s, s.screenshot(), "work"), timeout=5,
             step=0.3)
    print("the notice went, and came back with the pointer at the top")
    s.seat.move(w - 10, h - 10)
    s.seat.key("super+esc")
    try:
        wait_for("super+esc to give it its own size back",
                 lambda: sizes_after_ask(lines)[-1] == "size 0x0",
                 timeout=5)
    except Failure:
        raise Failure(f"super+esc: the window's sizes were {lines.lines}")
    wait_for("it to be 300x200 again", lambda: rect_size(s.wait_view(
        "[work] fs-now")["rect"]) == (300, 200), timeout=5, step=0.2)
    print("super+esc: back to 300x200")

    late, v2 = fullscreener(s, "work", "fs-late", 4000)
    s.click_window(v2)
    late.wait("asked", timeout=10)
    time.sleep(1.0)
    got = sizes_after_ask(late)
    if full in got:
        raise Failure("a fullscreen asked 4 s after the click was granted")
    rect = s.wait_view("[work] fs-late")["rect"]
    if not got or rect[1] < PANEL:
        raise Failure(f"the late request was not served as maximize "
                      f"below the panel: {got}, at {rect}")
    print(f"asked 4 s after the click: {got[-1]} at {rect}, below the "
          "panel")

    # the maximized window goes: kiosk's maps below the one with the
    # keyboard, and a user clicks what they see
    late.proc.terminate()
    late.proc.wait(timeout=10)
    never, v3 = fullscreener(s, "kiosk", "fs-never", 0)
    s.click_window(v3)
    never.wait("asked", timeout=10)
    time.sleep(1.0)
    if full in sizes_after_ask(never):
        raise Failure("a VM with fullscreen=never went fullscreen")
    print("fullscreen=never: maximized after the click")


def own_bars(s):
    """Subsurfaces shown in the scene: foot draws its own title bar and
    borders in subsurfaces unless told the server decorates (trixie's
    keeps an empty one too)."""
    return [v for v in s.scene() if "role wl_subsurface" in v["head"] and
            v["rect"] and v["rect"][2] > v["rect"][0] and
            v["rect"][3] > v["rect"][1]]


def window_geometry(s, shot, view, vm):
    """view with the rect of its window geometry, which the frame follows
    (chromium's surface has a margin for its shadow), found on the
    screen: the frame's sides read along the window's middle, its top
    where the left side and the bar above it end."""
    x0, y0, x1, y1 = view["rect"]
    xm, ym = (x0 + x1) // 2, (y0 + y1) // 2
    colour = s.vm_rgb(vm)
    left = [x for x in range(x0 - FRAME_BORDER, xm)
            if pixel(shot, x, ym) == colour]
    # the first run only: chromium keeps small windows of its own
    # (framed too) beside its main one
    right = [x for x in range(xm, x1 + FRAME_BORDER)
             if pixel(shot, x, ym) == colour][:FRAME_BORDER]
    if not left or not right:
        raise Failure(f"{view['title']!r}: no frame in {vm}'s colour")
    top = ym
    while top > 0 and pixel(shot, left[0], top - 1) == colour:
        top -= 1
    return dict(view, rect=(left[0] + FRAME_BORDER,
                            top + s.bar_height() + FRAME_BORDER,
                            right[-1] + 1 - FRAME_BORDER, y1))


def maximize_and_back(s, title):
    """The maximize button of title's bar maximizes it below the panel;
    the bar is inside the window then, and takes clicks, since the
    client draws none of its own: its button gives the window back its
    size."""
    v = s.wait_view(title)
    before = v["rect"]
    bar = s.bar_height()
    fx0, _, fx1, _ = s.frame_box(v)
    s.seat.click(at=(fx1 - bar - bar // 2,
                     before[1] - FRAME_BORDER - bar // 2))
    full = (0, PANEL, s.width, s.height)
    wait_for(f"{title} to be maximized", lambda: s.wait_view(title)["rect"]
             == full, timeout=8, step=0.2)
    time.sleep(0.5)
    s.seat.click(at=(s.width - bar - bar // 2,
                     PANEL + FRAME_BORDER + bar // 2))
    try:
        wait_for(f"{title} to get its size back", lambda: s.wait_view(
            title)["rect"][2:] != full[2:], timeout=8, step=0.2)
    except Failure:
        raise Failure(f"the maximize button of {title}'s bar inside the "
                      f"maximized window did nothing")
    after = s.wait_view(title)["rect"]
    if (after[2] - after[0], after[3] - after[1]) != \
            (before[2] - before[0], before[3] - before[1]):
        raise Failure(f"{title} came back {after}, was {before}")
    print(f"{title}: maximized from weston's bar to {full}, and back to "
          f"its size from the bar inside it")


QT_APP = "/usr/lib/x86_64-linux-gnu/qt5/examples/widgets/mainwindows/" \
    "application/application"


def qt_window(s, title, env):
    """The size of Qt's example application's window, started with env,
    as weston shows it; the client is closed after."""
    p = s.client([QT_APP], log=f"{title}.log", extra_env=dict(
        env, QT_QPA_PLATFORM="wayland"))
    v = wait_for("Qt's window", lambda: next(
        (v for v in s.scene() if v["title"] == "[work] untitled.txt" and
         v["rect"]), None), timeout=30, step=0.3)
    time.sleep(1.0)
    v = s.wait_view("[work] untitled.txt")
    x0, y0, x1, y1 = v["rect"]
    return p, v, (x1 - x0, y1 - y0)


def qt_one_bar(s):
    """A Qt 5 application on Wayland shows weston's bar and none of its
    own: its window is as large as with Qt's decorations switched off
    (Qt draws its bar inside its window: 6 px wider and 33 px higher)."""
    p, _, bare = qt_window(s, "qt-bare",
                           {"QT_WAYLAND_DISABLE_WINDOWDECORATION": "1"})
    p.terminate()
    p.wait(10)
    wait_for("the first Qt window to go", lambda: not any(
        v["title"] == "[work] untitled.txt" for v in s.scene()), timeout=10)
    p, v, size = qt_window(s, "qt", {})
    if size != bare:
        raise Failure(f"Qt draws a bar of its own under weston's: its "
                      f"window is {size}, {bare} without decorations")
    s.click_window(v)
    time.sleep(0.5)
    n = s.check_plate(s.screenshot(), s.wait_view("[work] untitled.txt"),
                      "work", "untitled.txt")
    print(f"Qt: one bar, weston's ({size[0]}x{size[1]}, as without Qt's "
          f"decorations), {n} pixels as ivwl-nameplate draws them")
    p.terminate()


def case_title_bar_apps(s):
    """Real applications under weston's title bar: foot, mpv, Qt and
    chromium each show the bar with their VM's name and their title,
    pixel for pixel as ivwl-nameplate draws it.  ivwl.so offers VMs
    zxdg_decoration_manager_v1 and answers server_side: foot, mpv and Qt
    draw no bar of their own, so the user sees one bar, weston's; its
    maximize button works outside the window and, maximized, inside."""
    page = s.path("bar.html")
    with open(page, "w") as f:
        f.write("<html><head><title>ivwl-bar</title></head><body "
                "style='margin:0;background:#808080'></body></html>")
    apps = [
        (["foot", "--title=ivwl-foot", "--window-size-pixels=420x200",
          "sleep", "120"], "ivwl-foot"),
        (["mpv", "--vo=wlshm", "--no-audio", "--no-config",
          "--title=ivwl-mpv", "--loop", "--geometry=320x180",
          "av://lavfi:testsrc2=size=320x180:rate=10"], "ivwl-mpv"),
    ]
    for argv, title in apps:
        s.client(argv, log=f"{title}.log")
        v = s.wait_view(f"[work] {title}", timeout=30)
        time.sleep(1.0)
        extra = own_bars(s)
        if extra:
            raise Failure(f"{title} draws a bar of its own under weston's: "
                          f"{len(extra)} subsurfaces {extra[0]['rect']}")
        s.click_window(v)
        time.sleep(0.5)
        v = s.wait_view(f"[work] {title}")
        n = s.check_plate(s.screenshot(), v, "work", title)
        print(f"{title}: one bar, weston's, {n} pixels as ivwl-nameplate "
              f"draws them")
    maximize_and_back(s, "[work] ivwl-foot")
    qt_one_bar(s)
    s.chromium(page)
    title = "ivwl-bar - Chromium"
    v = s.wait_view(f"[work] {title}", timeout=60)
    time.sleep(2.0)
    s.click_window(v)
    time.sleep(0.5)
    v = s.wait_view(f"[work] {title}")
    shot = s.screenshot()
    s.keep_screenshot("title-bar-chromium")
    n = s.check_plate(shot, window_geometry(s, shot, v, "work"), "work",
                      title)
    print(f"chromium: weston's bar, {n} pixels as ivwl-nameplate draws "
          "them")


def case_oversized_fit(s):
    """A window larger than the screen (foot asking for 1400x1000 on a
    1024x768 output) is asked to fit, as a window manager does: it
    resizes, and its frame, title bar and attention bar end on the
    screen, below the panel."""
    s.client(["foot", "--title=ivwl-big", "--window-size-pixels=1400x1000",
              "sleep", "120"], log="big.log")
    v = s.wait_view("[work] ivwl-big", timeout=30)

    def inside():
        box = s.frame_box(s.wait_view("[work] ivwl-big"))
        return box if (box[0] >= 0 and box[1] >= PANEL and
                       box[2] <= s.width and box[3] <= s.height) else None
    try:
        box = wait_for("foot's window to fit the screen", inside, timeout=10)
    except Failure:
        raise Failure(f"foot's window stays larger than the screen: "
                      f"{s.wait_view('[work] ivwl-big')['rect']} (mapped at "
                      f"{v['rect']}), frame off a {s.width}x{s.height} "
                      "screen")
    if "asked to fit" not in s.weston_log():
        raise Failure("weston's log does not say it asked foot to fit")
    print(f"foot asked for 1400x1000, mapped at {v['rect']}; fitted, its "
          f"frame at {box} on a {s.width}x{s.height} screen")


CASES = {
    "title-bar-apps": (case_title_bar_apps, ("work",)),
    "oversized-fit": (case_oversized_fit, ("work",)),
    "new-window-keyboard": (case_new_window_keyboard, ("work", "other")),
    "gtk-menu": (case_gtk_menu, ("work",)),
    "chromium-menu": (case_chromium_menu, ("work",)),
    "mpv-fullscreen": (case_mpv_fullscreen, ("work",)),
    "chromium-fullscreen": (case_chromium_fullscreen, ("work",)),
    "label-colours-pixman": (case_label_colours, ("work", "home", "media")),
    "label-colours-gl": (case_label_colours, ("work", "home", "media")),
    "title-bar-pixman": (case_title_bar, ("work", "home")),
    "title-bar-gl": (case_title_bar, ("work", "home")),
    "keyboard-indicator": (case_keyboard_indicator, ("work", "home")),
    "xray": (case_xray, ("work", "home")),
    "title-bar-use": (case_title_bar_use, ("work", "home")),
    "fullscreen-user": (case_fullscreen_user, ("work", "kiosk")),
}


def start(name):
    run, vms = CASES[name]
    renderer = "gl" if name.endswith("-gl") else "pixman"
    return Session(vms, backend="seat", panel="top", renderer=renderer,
                   vm_options={"kiosk": ["fullscreen=never"]}), run, False


if __name__ == "__main__":
    sys.exit(case_main(CASES, start, Listing(more_suites={
        "new-window-keyboard": ["sanitized"]})))
