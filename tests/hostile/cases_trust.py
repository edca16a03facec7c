# SPDX-License-Identifier: MIT
"""test-hostile.py's cases on the trusted path (docs/security.md,
"Trusted path"): the keyboard goes only where the user clicked, and
everything a VM shows lies inside the frame weston draws in its colour.
Both VMs run an agent here: the attacker is an app of VM evil,
ivwl-trust-client (trust-client.c), speaking plain Wayland through the
shim, on a seated weston (tests/seat) typed into by the test."""

import subprocess
import time

from ivwltest.hostile_session import ENV, Failure, LiveView, wait_for
from ivwltest.session import (ATTENTION_HEIGHT, StdoutLines,
                              beside_indicator, pixel)

# the session's colours: evil is the first VM, good the second
EVIL = (0x30, 0x70, 0xc0)
GOOD = (0xc0, 0x30, 0x30)
MAGENTA = (0xff, 0x00, 0xff)
AMBER = (0xff, 0xb0, 0x00)      # label.c's attention bar
TEXT = "the quick brown fox jumps over the lazy dog " * 2


def trust_client(s, vm, args, name):
    p = s.client([ENV["IVWL_TRUST_CLIENT"]] + args, vm=vm, log=f"{name}.log")
    return StdoutLines(p)


def click_until(s, view, lines, what, tries=5):
    """Clicks into view until its client says what."""
    for _ in range(tries):
        s.click_window(view)
        try:
            wait_for(f"{what} after a click", lambda: what in lines.lines,
                     timeout=2)
            return
        except Failure:
            pass
    raise Failure(f"{view['title']!r} never said {what!r} after "
                  f"{tries} clicks")


def evil_views(s):
    return [v for v in s.scene()
            if v["title"] and v["title"].startswith("[evil] ") and v["rect"]]


# ---- focus ---------------------------------------------------------------

def case_focus_theft(s):
    """While the user types into VM good's window, VM evil maps a window
    every 100 ms, asking in turn for nothing, fullscreen, maximized and a
    grabbing popup with a serial from wl_display.sync: no key, and no
    keyboard enter, may reach evil, its windows carry the attention bar
    and map below good's (desktop-shell raises every new window), and
    good gets what was typed."""
    typist = trust_client(s, "good", ["--mode", "typist"], "typist")
    typist.wait("mapped")
    click_until(s, s.wait_view("[good] typist"), typist, "enter")
    thief = trust_client(s, "evil", ["--mode", "thief", "--seconds", "14",
                                     "--interval-ms", "100"], "thief")
    time.sleep(1.5)
    before = len(typist.starting("key "))
    s.seat.type(TEXT, delay=0.04)
    covered = over_typist(s)
    # weston key bindings held down a while (the trusted copy): the
    # keyboard grab weston holds meanwhile is no user's choice of window
    for _ in range(6):
        s.seat.keydown("super+shift+c")
        time.sleep(0.25)
        s.seat.keyup("super+shift+c")
    s.seat.type(TEXT, delay=0.04)
    typed = 2 * len(TEXT)
    wait_for("the thief to end",
             lambda: thief.starting("thief:") or
             thief.proc.poll() is not None, timeout=30)
    summary = thief.starting("thief:")
    if not summary:
        raise Failure(f"the thief printed no summary: {thief.lines[-5:]}")
    print(summary[0])
    covered += over_typist(s)
    if covered:
        raise Failure(f"BUG focus theft: evil's windows {sorted(covered)} "
                      f"stood over the window with the keyboard")
    stats = dict(kv.split("=") for kv in summary[0].split()[1:])
    got = len(typist.starting("key ")) - before
    print(f"typed {typed} keys: good got {got}, evil got "
          f"{stats['keys']} in {stats['maps']} maps")
    if int(stats["keys"]) > 0:
        raise Failure(f"BUG focus theft: {stats['keys']} of {typed} keys "
                      f"typed into good's window reached evil")
    if int(stats["enters"]) > 0:
        raise Failure(f"BUG focus theft: evil heard {stats['enters']} "
                      f"keyboard enters (each tells the keys held down)")
    if int(stats["maps"]) < 20:
        raise Failure(f"the thief mapped only {stats['maps']} windows")
    if got < typed * 9 // 10:
        raise Failure(f"good got only {got} of {typed} keys typed into it")
    if int(stats["popups"]) and int(stats["dismissed"]) < \
            int(stats["popups"]) // 2:
        raise Failure(f"weston kept {stats['popups']} grabbing popups of "
                      f"a VM without the keyboard (dismissed "
                      f"{stats['dismissed']})")
    check_attention(s)
    s.check_weston()


def case_focus_climb(s):
    """While the user types into VM good's window, VM evil's window,
    mapped below it, asks every 150 ms in turn for maximized, not
    maximized, fullscreen, not fullscreen and a new size, each
    answered with a new buffer (minimized would take it off the
    screen, no climb): none of it may lift it over the
    window with the keyboard (xdg-shell has no raise request; a state
    change must not be one), nor bring it a key."""
    typist = trust_client(s, "good", ["--mode", "typist"], "typist")
    typist.wait("mapped")
    click_until(s, s.wait_view("[good] typist"), typist, "enter")
    climber = trust_client(s, "evil", ["--mode", "climber", "--seconds",
                                       "8", "--interval-ms", "150"],
                           "climber")
    climber.wait("mapped")
    before = len(typist.starting("key "))
    covered, looks = [], 0
    while climber.proc.poll() is None and not climber.starting("climber:"):
        s.seat.type(TEXT[:12], delay=0.03)
        covered += over_typist(s)
        looks += 1
    summary = climber.starting("climber:")
    if not summary:
        raise Failure(f"the climber printed no summary: "
                      f"{climber.lines[-5:]}")
    print(f"{summary[0]}; {looks} looks at the stacking")
    stats = dict(kv.split("=") for kv in summary[0].split()[1:])
    if covered:
        raise Failure(f"BUG focus climb: evil's window stood over the "
                      f"window with the keyboard in {len(covered)} of "
                      f"{looks} looks")
    if int(stats["keys"]) or int(stats["enters"]):
        raise Failure(f"BUG focus climb: evil heard {stats['keys']} keys "
                      f"and {stats['enters']} keyboard enters")
    if int(stats["asks"]) < 24 or looks < 5:
        raise Failure(f"the climber asked {stats['asks']} times, looked "
                      f"at {looks} times: too few to tell")
    got = len(typist.starting("key ")) - before
    if got < 12 * looks * 9 // 10:
        raise Failure(f"good got only {got} of {12 * looks} keys typed "
                      f"into it")
    s.check_weston()


def over_typist(s):
    """The titles of evil's windows stacked above good's typist, which
    has the keyboard: a window refused it maps (and, activated, goes)
    below it."""
    return [v["title"] for v in s.scene_above(s.wait_view("[good] typist"))
            if v["title"].startswith("[evil] ")]


def check_attention(s):
    """The thief's last window, still up, carries the attention bar
    where the typist above it leaves it in sight (moved aside if it
    hides all)."""
    thieves = [v for v in evil_views(s) if v["title"] == "[evil] thief"]
    if not thieves:
        raise Failure("the thief's last window is not on screen")

    def spots(v):
        x0, y0, x1, y1 = s.frame_box(v)
        return s.in_sight(v, [(x, y) for x in range(x0, x1)
                              for y in range(y0 - 4, y1 + 12)])
    if not any(spots(v) for v in thieves):
        s.move_aside(s.wait_view("[good] typist"))
    shot = s.screenshot()
    for v in thieves:
        near = [pixel(shot, x, y) for x, y in spots(v)]
        if AMBER in near:
            print(f"{v['title']!r} at {v['rect']} shows the attention bar")
            return
    raise Failure(f"no attention bar by evil's windows "
                  f"{[v['rect'] for v in thieves]}")


# ---- labels --------------------------------------------------------------

def frames(s):
    """Rects that evil's frames enclose, frame and title bar included."""
    return [s.frame_box(v) for v in evil_views(s)]


def inside(x, y, rects):
    return any(a <= x < c and b <= y < d for a, b, c, d in rects)


def check_sides(s, shot, view, above):
    """Each side of the window that is on screen, and not under a window
    above it (rects above), shows evil's colour just outside its edge or
    just inside it."""
    x0, y0, x1, y1 = view["rect"]
    w, h = shot[0], shot[1]
    mx, my = (max(x0, 0) + min(x1, w)) // 2, (max(y0, 0) + min(y1, h)) // 2
    # a window narrower than its VM's name has a frame as wide as that
    right = max(x1 + 1, s.frame_box(view)[2] - 2)
    sides = {"top": [(mx, y0 - 2), (mx, y0 + 1)],
             "bottom": [(mx, y1 + 1), (mx, y1 - 2)],
             "left": [(x0 - 2, my), (x0 + 1, my)],
             "right": [(right, my), (x1 - 2, my)]}
    checked = 0
    for side, points in sides.items():
        seen = [pixel(shot, x, y) for x, y in points
                if not inside(x, y, above)]
        if all(p is None for p in seen):
            continue            # off screen, or under another window
        checked += 1
        if EVIL not in seen:
            raise Failure(f"BUG label escape: {view['title']!r} at "
                          f"{view['rect']} shows no frame on its {side} "
                          f"side: {seen}")
    return checked


def check_contained(s, shot, others):
    """Every magenta pixel, and every pixel in good's colour outside
    good's own frames (others), lies inside one of evil's frames; each
    side of evil's windows that shows has evil's colour."""
    w, h = shot[0], shot[1]
    rects = frames(s)
    # the keyboard indicator names good, in good's colour
    rects.append((w // 2 - 160, 0, w // 2 + 160, s.bar_height()))
    escaped = []
    magenta = 0
    for y in range(h):
        for x in range(w):
            p = pixel(shot, x, y)
            if p == MAGENTA:
                magenta += 1
                if not inside(x, y, rects):
                    escaped.append((x, y, "magenta"))
            elif p == GOOD and not inside(x, y, rects) and \
                    not inside(x, y, others):
                escaped.append((x, y, "good's colour"))
    print(f"{magenta} magenta pixels; evil's frames: {rects}")
    if magenta == 0:
        raise Failure("evil's content does not show at all")
    if escaped:
        raise Failure(f"BUG label escape: {len(escaped)} pixels of evil's "
                      f"content outside its frames, first {escaped[:3]}")
    sides = sum(check_sides(s, shot, v,
                            [w["rect"] for w in s.scene_above(v)])
                for v in evil_views(s))
    if sides < 4:
        raise Failure(f"only {sides} sides of evil's windows show")
    print(f"every pixel of evil lies inside its frames, {sides} sides "
          f"show its colour")


def check_panel(shot):
    w = shot[0]
    panel = [pixel(shot, x, y) for y in range(0, 16) for x in range(w)
             if beside_indicator(w, x)]
    if MAGENTA in panel or EVIL in panel or GOOD in panel:
        raise Failure("BUG label escape: evil's pixels cover the panel")


def case_label_escape(s):
    """VM evil's content tries to leave its label.  First a subsurface
    painted as a window of VM good (good's colour around magenta) far
    outside evil's 16x16 toplevel, a popup far outside it and a
    4096x4096 cursor under the pointer; then a fullscreen fake desktop.
    Every magenta pixel, and every pixel in good's colour that is not
    good's own frame, must lie inside one of evil's frames; every side of
    evil's windows that shows has evil's colour, its title bar exactly
    what weston draws; the panel shows no pixel of evil."""
    good = trust_client(s, "good", ["--mode", "typist", "--title",
                                    "real"], "typist")
    good.wait("mapped")
    good_frame = [s.frame_box(s.wait_view("[good] real"))]
    fake = ["--fake-color", "0x%02x%02x%02x" % GOOD]
    esc = trust_client(s, "evil", ["--mode", "escape", "--seconds", "60"]
                       + fake, "escape")
    esc.wait("ready")
    s.wait_view("[evil] escape")
    x0, y0, x1, y1 = s.wait_view("[evil] escape")["rect"]
    s.seat.move(x0 + 4, y0 + 4)
    wait_for("evil to set its cursor", lambda: "cursor" in esc.lines,
             timeout=10)
    time.sleep(0.5)
    shot = s.screenshot()
    check_contained(s, shot, good_frame)
    check_panel(shot)
    # the subsurface painted as good's window lies over where evil's
    # title bar is: the bar shows, untouched, what weston drew
    s.check_plate(shot, s.wait_view("[evil] escape"), "evil", "escape")
    s.keep_screenshot("trusted-label-escape")

    desk = trust_client(s, "evil", ["--mode", "fake-desktop", "--seconds",
                                    "60"] + fake, "fake-desktop")
    desk.wait("ready")
    s.wait_view("[evil] fake desktop")
    time.sleep(0.5)
    shot = s.screenshot()
    check_contained(s, shot, good_frame)
    check_panel(shot)
    s.keep_screenshot("trusted-fullscreen")
    print("the panel shows above evil's fullscreen window")
    s.check_weston()


def case_local_window_closes(s):
    """The user types into VM good's window; VM evil maps one (refused
    the keyboard); the gui-VM's own window (a terminal the user
    started) maps and takes it, and the user types there.  When it
    closes, desktop-shell hands the keyboard to evil's window, next in
    the stack, which must not stand (before, nobody holding the
    keyboard then counted as a desktop just started)."""
    good = trust_client(s, "good", ["--mode", "typist", "--title", "real"],
                        "typist")
    good.wait("mapped")
    click_until(s, s.wait_view("[good] real"), good, "enter")
    evil = trust_client(s, "evil", ["--mode", "typist", "--title",
                                    "next"], "next")
    evil.wait("mapped")
    p = subprocess.Popen([ENV["IVWL_TRUST_CLIENT"], "--mode", "typist",
                          "--title", "local"], env=s._debug_env(),
                         stdout=subprocess.PIPE, stdin=subprocess.DEVNULL,
                         stderr=open(s.path("local.log"), "wb"))
    s.clients.append(p)
    local = StdoutLines(p)
    local.wait("mapped")
    click_until(s, s.wait_view("local"), local, "enter")
    n = len(evil.lines)
    p.terminate()
    p.wait(10)
    time.sleep(1.0)
    s.seat.type("secret", delay=0.04)
    time.sleep(1.0)
    heard = [ln for ln in evil.lines[n:] if ln == "enter" or
             ln.startswith("key ")]
    if heard:
        raise Failure(f"BUG focus after a local window: evil heard {heard}")
    print("the local window closed; evil's window next in the stack got "
          "no keyboard and no key")


def case_invisible_layer(s):
    """VM evil lays a 2048x2048 window of fully transparent pixels over
    VM good's window, moved by an attach offset so that every edge of it
    lies off the screen: before, no pixel of evil's frame or bar showed,
    the screen looked as if good's window were on top, and the keys the
    user typed after clicking it went to evil.  Now evil's frame shows
    at the screen's edges (the top one under the panel), and its window
    is opaque (a black backdrop under it): good's window cannot be seen
    through it, so the user sees whose window a click would reach."""
    # evil's window first: the desktop's first, it takes the keyboard,
    # so good's maps below it (a VM's new window goes below the one
    # with the keyboard)
    evil = trust_client(s, "evil", ["--mode", "invisible", "--seconds",
                                    "60"], "invisible")
    evil.wait("ready")
    # weston-debug shows the window's box cut to the screen (its mask)
    wait_for("evil's window to cover the screen", lambda: s.wait_view(
        "[evil] invisible")["rect"] == (0, 0, s.width, s.height),
        timeout=10, step=0.2)
    good = trust_client(s, "good", ["--mode", "typist", "--title", "real",
                                    "--color", "0x20c060"], "typist")
    good.wait("mapped")
    gview = s.wait_view("[good] real")
    if "[evil] invisible" not in [v["title"] for v in s.scene_above(gview)]:
        raise Failure("good's window did not map below evil's, which has "
                      "the keyboard")
    gbox = s.frame_box(gview)
    rect = (-600, 32 - 600, 2048 - 600, 2048 + 32 - 600)
    time.sleep(0.5)
    shot = s.screenshot()
    s.keep_screenshot("trusted-invisible-layer")
    evil_rgb = s.vm_rgb("evil")
    w, h = s.width, s.height
    sides = {"left": [(1, y) for y in range(40, h - 8, 16)],
             "right": [(w - 2, y) for y in range(40, h - 8, 16)],
             "bottom": [(x, h - 2) for x in range(8, w - 8, 16)]}
    for side, spots in sides.items():
        seen = sum(pixel(shot, x, y) == evil_rgb for x, y in spots)
        if seen < len(spots) * 0.9:
            raise Failure(f"BUG invisible layer: evil's frame shows on "
                          f"{seen} of {len(spots)} spots of the screen's "
                          f"{side} edge")
    green = sum(pixel(shot, x, y) == (0x20, 0xc0, 0x60)
                for x in range(gbox[0], gbox[2], 2)
                for y in range(gbox[1], gbox[3], 2))
    if green:
        raise Failure(f"BUG invisible layer: {green} pixels of good's "
                      "window show through evil's transparent one")
    print(f"evil's window at {rect}: its frame at the screen's edges, "
          "good's window hidden under it, not seen through it")


def case_switcher_offscreen(s):
    """VM evil moves its window wholly off the screen with an attach
    offset; the window switcher (super+tab) still offers it, and must
    not give it the keyboard: the user cannot see whose it is.  VM
    good's window, clicked before, keeps the keys."""
    good = trust_client(s, "good", ["--mode", "typist", "--title", "real"],
                        "typist")
    good.wait("mapped")
    evil = trust_client(s, "evil", ["--mode", "offscreen", "--seconds",
                                    "60"], "offscreen")
    evil.wait("gone")
    click_until(s, s.wait_view("[good] real"), good, "enter")
    rect = s.wait_view("[evil] offscreen")["rect"]
    if rect[0] < s.width and rect[1] < s.height:
        raise Failure(f"evil's window did not leave the screen: {rect}")
    for _ in range(3):
        s.seat.keydown("super")
        s.seat.key("tab")
        time.sleep(0.3)
        s.seat.keyup("super")
        time.sleep(0.5)
        s.seat.type("ab", delay=0.04)
        time.sleep(0.3)
    heard = [ln for ln in evil.lines if ln == "enter" or
             ln.startswith("key ")]
    if heard:
        raise Failure(f"BUG switcher: evil's window off the screen at "
                      f"{rect} heard {heard}")
    print(f"evil's window at {rect}: super+tab gave it nothing")


def magenta_in(shot, box):
    x0, y0, x1, y1 = box
    return sum(pixel(shot, x, y) == MAGENTA for x in range(x0, x1)
               for y in range(y0, y1))


def case_pointer_images(s):
    """VM good's window lies above VM evil's maximized window (it mapped
    below, evil's having the keyboard; the user's window switcher raised
    it).  With the pointer on evil's window right beside good's frame,
    evil's 64x64 cursor reaches into good's window: none of it may show
    inside good's frame box.  Then evil starts a drag (a press on its
    window, which raises it), a window of the desktop maps above it
    meanwhile (a VM's would map below evil's, which has the keyboard),
    and the pointer goes beside that one: evil's 64x64 icon, offset 60
    px right of and below the pointer, lies over that window, and none
    of it may show there either (before, the cursor was cut to evil's
    window's box, windows above it not counted, and a drag icon only in
    size)."""
    evil = trust_client(s, "evil", ["--mode", "images", "--icon-offset",
                                    "60", "--seconds", "60"], "images")
    evil.wait("ready")
    ev = s.wait_view("[evil] images")["rect"]

    def beside(box):
        """box: what a window draws; the pointer goes right beside it,
        on evil's window."""
        at = (box[0] - 8, box[1] + 8)
        if not (ev[0] + 8 < at[0] and ev[1] + 8 < at[1]):
            raise Failure(f"a window at {box} leaves no room beside it "
                          f"on evil's window {ev}")
        return box, at

    good = trust_client(s, "good", ["--mode", "typist", "--title", "real"],
                        "typist")
    good.wait("mapped")
    s.seat.key("super+Tab")
    wait_for("the switcher to give good's window the keyboard",
             lambda: "enter" in good.lines, timeout=5)
    # its frame and bar; no attention bar once it has the keyboard
    x0, y0, x1, y1 = s.frame_box(s.wait_view("[good] real"))
    box, at = beside((x0, y0 + ATTENTION_HEIGHT, x1, y1))
    s.seat.move(*at)
    wait_for("evil to set its cursor", lambda: "cursor" in evil.lines,
             timeout=10)
    time.sleep(0.5)
    n = magenta_in(s.screenshot(), box)
    if n:
        raise Failure(f"BUG pointer images: {n} pixels of evil's cursor "
                      "inside good's window")
    print("evil's cursor beside good's window: 0 pixels inside it")
    s.seat.move(ev[0] + 20, ev[3] - 20)
    time.sleep(0.2)
    s.seat.down()
    try:
        evil.wait("dragging", timeout=10)
        late = StdoutLines(s.local_client(
            [ENV["IVWL_TRUST_CLIENT"], "--mode", "typist", "--title",
             "late"], "late.log"))
        late.wait("mapped")
        box, at = beside(s.wait_view("late")["rect"])  # no frame
        s.seat.move(*at)
        time.sleep(0.8)
        shot = s.screenshot()
        s.keep_screenshot("trusted-drag-icon")
    finally:
        s.seat.up()
    n = magenta_in(shot, box)
    if n:
        raise Failure(f"BUG pointer images: {n} pixels of evil's drag icon "
                      "inside the desktop's window")
    print("evil's drag icon offset over the desktop's window: 0 pixels "
          "inside it")


def case_title_flood(s):
    """VM evil sets a new title and commits as fast as weston takes them
    (thousands a second): weston draws its nameplate again at most ten
    times a second (plugin/label.c, PLATE_INTERVAL_MS), and the bar ends
    on the last title."""
    flood = trust_client(s, "evil", ["--mode", "title-flood", "--seconds",
                                     "3", "--count", "1"], "flood")
    flood.wait("ready")
    start = time.monotonic()
    live = LiveView(s)
    try:
        last = wait_for("the flood to end", lambda: flood.starting("last "),
                        timeout=30)[0].split(" ", 1)[1]
        took = time.monotonic() - start
        time.sleep(0.5)
        plates = max(int(f["plates"]) for f in live.of("vm", name="evil"))
    finally:
        live.close()
    titles = int(last.split()[1])
    print(f"evil set {titles} titles in {took:.1f} s; weston drew "
          f"{plates} nameplates")
    if titles < 300:
        raise Failure(f"the flood set only {titles} titles")
    if plates > took * 10 + 5:
        raise Failure(f"BUG title flood: {plates} nameplates drawn in "
                      f"{took:.1f} s, at most {took * 10 + 5:.0f}")
    v = s.wait_view(f"[evil] {last}")
    s.check_plate(s.screenshot(), v, "evil", last)
    print("the bar shows the last title")
    s.check_weston()


def case_decoration_misuse(s):
    """VM evil misuses the decoration manager ivwl.so offers
    (plugin/decoration.c): asks for client-side decorations (told
    server_side: weston's bar is drawn anyway), asks again through the
    decoration object of a window it destroyed, then asks a second
    object for one window.  Only evil's connection ends, with the
    protocol's error; weston and the window of VM good stay."""
    good, view = s.typist("good", "good-window")
    evil = trust_client(s, "evil", ["--mode", "decorations", "--title",
                                    "evil-decorated"], "decorations")
    evil.wait("mapped", timeout=20)
    if "mode server_side" not in evil.lines:
        raise Failure(f"evil was not told server_side: {evil.lines}")
    if "orphan asked" not in evil.lines:
        raise Failure(f"evil's orphaned decoration lost it: {evil.lines}")
    refused = wait_for("evil's second decoration object to be refused",
                       lambda: evil.starting("refused "), timeout=10)[0]
    if refused == "refused 0":
        raise Failure("a second decoration object for one window was "
                      "accepted")
    print(f"evil was told server_side, its orphan was ignored, its "
          f"second object {refused} (EPROTO)")
    wait_for("evil's window to go", lambda: not evil_views(s), timeout=10)
    click_until(s, s.wait_view(view["title"]), good, "enter")
    s.seat.type("ok")
    wait_for("good to hear its keys", lambda: good.starting("key "),
             timeout=5)
    print("good's window still hears its keys")


def case_plate_queue(s):
    """VM evil keeps 150 windows retitling in turn, as fast as weston
    takes the titles: each of its windows wants a new nameplate all the
    time.  VM good's window then sets a new title once: its plate is
    drawn on its VM's turn, not after every one of evil's windows (the
    queue goes round the VMs: plugin/label.c).  Counted in evil's
    plates drawn meanwhile, from the live view: a queue of windows
    draws the 150 waiting first (about 300 were counted before the
    fix); round the VMs, one, read off the live view's lines a second
    apart (25 plates a second): at most two seconds' worth."""
    good, view = s.typist("good", "good-window",
                          ["--retitle", "good-renamed", "--seconds", "6"])
    flood = trust_client(s, "evil", ["--mode", "title-flood", "--count",
                                     "150", "--seconds", "20"], "flood")
    live = LiveView(s)
    try:
        flood.wait("ready", timeout=30)
        good.wait("retitled", timeout=20)
        start = len(live.lines())

        def good_drawn():
            lines = live.lines()
            base = next((int(f["plates"]) for k, f in lines[:start]
                         [::-1] if k == "vm" and f.get("name") == "good"),
                        0)
            for i, (k, f) in enumerate(lines[start:], start):
                if k == "vm" and f.get("name") == "good" and \
                        int(f["plates"]) > base:
                    return lines, i
            return None

        lines, at = wait_for("good's new plate", good_drawn, timeout=30,
                             step=0.2)
    finally:
        live.close()

    def evil_plates(upto):
        return max((int(f["plates"]) for k, f in lines[:upto]
                    if k == "vm" and f.get("name") == "evil"), default=0)
    drawn = evil_plates(at) - evil_plates(start)
    print(f"evil's plates drawn before good's new one: {drawn}")
    if drawn > 100:
        raise Failure(f"BUG plate queue: good's new title waited for "
                      f"{drawn} of evil's plates")
    s.wait_view("[good] good-renamed")
