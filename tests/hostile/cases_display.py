# SPDX-License-Identifier: MIT
"""test-hostile.py's cases aimed at what the display shows and answers
beside the Wayland objects: the titles the live view prints
(plugin/live-view.c) and the clock link's answerer (plugin/vm.c).  The
peer's side is bugs-display.c."""

import re
import shlex
import time

from ivwltest.hostile_session import (Failure, LiveView, check_closings,
                             compare_window, good_client_after,
                             good_client_during, peer_finished, peer_stats,
                             rss_mib, wait_for)

TITLE = re.compile(r"hostile-peer: title-bytes: slot (\d+) window (\d+) "
                   r"title ([0-9a-f]+)$", re.M)
SANITIZER = re.compile(r"(ERROR: AddressSanitizer|runtime error:).*")
# the live view lists up to this many windows per connection
WINDOWS_MAX = 16
# what a line must never hold raw: controls, C1, line and paragraph
# separators, bidi overrides and isolates (they reorder what follows)
FORBIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e"
                       "\u2066-\u2069]")


def quoted_fields(raw):
    """{key: bytes} of the key="..." fields of one raw line, decoded by
    the live view's own rules: \\" \\\\ and \\xNN (one byte each)."""
    out = {}
    for m in re.finditer(rb' (\w+)="', raw):
        i, val = m.end(), bytearray()
        while i < len(raw) and raw[i:i + 1] != b'"':
            if raw[i:i + 1] == b"\\":
                nxt = raw[i + 1:i + 2]
                if nxt in (b'"', b"\\"):
                    val += nxt
                    i += 2
                    continue
                if nxt == b"x":
                    val.append(int(raw[i + 2:i + 4], 16))
                    i += 4
                    continue
                raise Failure(f"unknown escape in {raw[:120]!r}")
            val += raw[i:i + 1]
            i += 1
        out[m.group(1).decode()] = bytes(val)
    return out


def check_line(raw):
    """One line of the live view: UTF-8, nothing raw a terminal or a
    Unicode reader takes for a control or a line end, shell words of a
    known kind then key=value.  The words, or Failure."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Failure(f"BUG live view titles: a line is not UTF-8 ({e}): "
                      f"{raw[:200]!r}")
    bad = FORBIDDEN.search(text)
    if bad:
        raise Failure(f"BUG live view titles: a line holds "
                      f"U+{ord(bad.group()):04X} raw, which a terminal or "
                      f"a Unicode-aware reader takes for a control or a "
                      f"line break: {raw[:200]!r}")
    try:
        words = shlex.split(text)
    except ValueError as e:
        raise Failure(f"BUG live view titles: a line does not split into "
                      f"words ({e}; cut inside a quoted title?), "
                      f"{len(raw)} bytes ending {raw[-120:]!r}")
    if not words or words[0] not in ("vm", "conn", "closed") or \
            not all("=" in w for w in words[1:]):
        raise Failure(f"BUG live view titles: not a live view line: "
                      f"{raw[:200]!r}")
    return words


def case_live_view_titles(s):
    """Three evil connections map 20 windows each (more than the live
    view lists) titled past the plugin's length with every byte value
    0x01-0xff, one per connection made to forge fields and lines (quotes,
    newlines, ESC, UTF-8 C1 CSI, U+2028, a bidi override, malformed
    UTF-8), while weston-debug subscribes to the live view.  Every line
    must stay one parseable line per object, UTF-8 with nothing raw that
    a terminal takes for a control, each evil connection's line must
    keep its budgets (the last field, feedbacks) and list 16 windows
    whose titles decode to the start of what the app set; weston's
    memory stays bounded and the good VM draws on."""
    sub = LiveView(s)
    rss0 = rss_mib(s.weston.pid)
    s.start_peer("title-bytes", 16)
    wait_for("the titled windows", lambda: "holding" in s.peer_log() or
             s.peer.poll() is not None, timeout=15)
    log = s.peer_log()
    print("\n".join(ln for ln in log.splitlines()
                    if "maps" in ln or "holding" in ln))
    titles = {}
    for m in TITLE.finditer(log):
        titles.setdefault(int(m.group(1)), []).append(
            bytes.fromhex(m.group(3)))
    mapped = [int(n) for n in re.findall(r"slot \d+ maps (\d+)", log)]
    if len(mapped) != 3 or min(mapped) < WINDOWS_MAX:
        raise Failure(f"the peer did not map its titled windows: {mapped}")
    # a second subscriber gets a snapshot at once (no rates)
    late = LiveView(s, "live-view-late.txt")
    _, dump, _ = good_client_during(
        s, 30, 20, lambda e: f"the good VM's client failed while the "
        f"evil VM's titles were in the live view ({e})")
    time.sleep(2.5)             # two ticks, with the good client's line
    rss1 = rss_mib(s.weston.pid)
    s.check_weston()
    compare_window(s, s.wait_view("[good] during"), dump, 240, 180)
    seen = 0
    for view in (sub, late):
        with open(view.path, "rb") as f:
            raws = f.read().split(b"\n")[:-1]
        if not raws:
            raise Failure("the live view printed nothing")
        for raw in raws:
            words = check_line(raw)
            fields = dict(w.split("=", 1) for w in words[1:])
            if words[0] != "conn" or fields.get("vm") != "evil":
                continue
            slot = int(fields["slot"])
            if "feedbacks" not in fields:
                raise Failure(f"BUG live view titles: evil slot {slot}'s "
                              f"line lost its budgets (cut at "
                              f"{len(raw)} bytes): {raw[-120:]!r}")
            if fields.get("windows") != str(WINDOWS_MAX):
                raise Failure(f"evil slot {slot} lists "
                              f"windows={fields.get('windows')}, not "
                              f"{WINDOWS_MAX}")
            for key, val in quoted_fields(raw).items():
                if not key.startswith("window"):
                    continue
                whole = [b"[evil] " + t for t in titles.get(slot, [])]
                if len(val) < 32 and not any(val == w for w in whole):
                    raise Failure(f"evil slot {slot} {key} shows only "
                                  f"{val!r}")
                if not any(w.startswith(val) for w in whole):
                    raise Failure(f"BUG live view titles: evil slot {slot} "
                                  f"{key} decodes to {val[:80]!r}..., not "
                                  f"the start of a title the app set")
                seen += 1
    sub.close()
    late.close()
    print(f"{seen} evil titles shown and decoded; weston RssAnon "
          f"{rss0} -> {rss1} MiB")
    if seen < 3 * WINDOWS_MAX:
        raise Failure(f"only {seen} evil titles in the live view")
    if rss1 - rss0 > 64:
        raise Failure(f"weston grew by {rss1 - rss0} MiB with 60 titled "
                      f"windows and two live view subscribers")
    s.wait_peer(30)
    s.check_weston()
    good_client_after(s, "the titled windows")
    check_sanitizers(s)


def check_sanitizers(s):
    """A sanitized weston says what it found in its log and may go on
    (UBSan): that is a finding too."""
    found = SANITIZER.search(s.weston_log())
    if found:
        raise Failure(f"weston's sanitizers report: {found.group()}")


# protocol/region/clock-link.h IVWL_CLOCK_ANSWER_MIN_NS: 2 ms between answers
CLOCK_ANSWERS_MAX = 500


def case_clock_flood(s):
    """The evil VM rings the clock link's bit without end, garbage in its
    clock line, slot bits of eight live connections alongside, and
    counts the answers it sees (plugin/vm.c on_doorbell,
    protocol/region/clock-link.c ivwl_clock_answer).  The display must answer,
    but no faster than its rate limit (each answer rings the app and
    flushes the ringer from weston's main loop), and the good VM must
    draw 120 frames meanwhile, pixel for pixel."""
    seconds = 12
    s.start_peer("clock-flood", seconds)
    cpu0 = s.weston_cpu()
    start = time.monotonic()
    time.sleep(1.0)
    _, dump, took = good_client_during(
        s, 120, 10, lambda e: f"BUG clock flood: the good VM's client did "
        f"not draw 120 frames in 10 s while the evil VM rang the clock "
        f"link ({e})")
    print(f"good client: 120 frames in {took:.1f} s during the flood")
    compare_window(s, s.wait_view("[good] during"), dump, 240, 180)
    log = peer_finished(s, seconds, start, cpu0, "flood")
    peer_stats(log, "clock-flood")      # it ran to its end
    found = re.search(r"hostile-peer: clock-flood: (asks=.*)", log)
    if not found:
        raise Failure("the peer printed no clock-flood counts")
    st = dict(kv.split("=", 1) for kv in found.group(1).split())
    rate = float(st["answers/s"])
    if int(st["slots"]) == 0:
        raise Failure("the peer opened no connection to ring alongside")
    if rate < 50:
        raise Failure(f"the display answered the clock link {rate:.0f} "
                      f"times a second under the flood: it should answer "
                      f"at its rate limit ({CLOCK_ANSWERS_MAX}/s)")
    if rate > CLOCK_ANSWERS_MAX * 1.1:
        raise Failure(f"BUG clock flood: the display answered the clock "
                      f"link {rate:.0f} times a second, past its limit of "
                      f"{CLOCK_ANSWERS_MAX}: each answer rings the app "
                      f"and flushes the ringer from weston's main loop "
                      f"(protocol/region/clock-link.c ivwl_clock_answer)")
    good_client_after(s, "the clock flood")
    check_closings(s, False)
    check_sanitizers(s)
