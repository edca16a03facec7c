#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A hostile app-vm against a real weston + ivwl.so.

    test-hostile.py CASE      (meson runs one case per test)

Two VMs: "evil" has no agent; ivwl-hostile-peer attaches to its region as
the app side and attacks the display side.  "good" is an ordinary VM whose
pattern client must keep working meanwhile and afterwards, pixel for
pixel, while weston stays up, keeps answering and says why it closed the
evil connections.

Cases named bug-* reproduce one known plugin bug each: they fail until the
plugin is fixed, and their failure message names the bug.

The cases live by what they attack: cases_modes.py (the general
attacks), cases_bugs.py (rings, surfaces, eventfds), cases_clipboard.py,
cases_semantics.py, cases_display.py (live view, clock link),
cases_trust.py (focus, labels) and cases_repaint.py (repaint cost);
tests/ivwltest/hostile_session.py has the session and checks they
share.

Environment: what tests/integration uses (tests/ on PYTHONPATH), plus
IVWL_HOSTILE_PEER; IVWL_HOSTILE_SEED to replay a run;
IVWL_HOSTILE_NO_SPARE=1 to attack with unaligned request indices too.
"""

import subprocess
import sys

import cases_bugs as bugs
import cases_clipboard as clipboard
import cases_display as display
import cases_modes as modes
import cases_repaint as repaint
import cases_semantics as semantics
import cases_trust as trust
from ivwltest.session import Listing  # noqa: E402
from ivwltest.hostile_session import (SYNC_P99_MS, Failure, HostileSession,
                             bystander, sync_p99)

CASES = {
    "garbage-records": modes.case_garbage_records,
    "bad-indices": modes.case_bad_indices,
    "scribble": modes.case_scribble,
    "slot-churn": modes.case_slot_churn,
    "doorbell-storm": modes.case_doorbell_storm,
    "record-flood": modes.case_record_flood,
    "all": modes.case_all,
    "bug-partial-header-hang": bugs.case_bug_partial_header_hang,
    "bug-shm-stride-overread": bugs.case_bug_shm_stride_overread,
    "bug-pool-flood-exhausts-mappings":
        bugs.case_bug_pool_flood_exhausts_mappings,
    "bug-vanished-app-keeps-connections":
        bugs.case_bug_vanished_app_keeps_connections,
    "bug-event-cons-lie-without-reason":
        bugs.case_bug_event_cons_lie_without_reason,
    "bug-budget-lost-wakeup": bugs.case_bug_budget_lost_wakeup,
    "window-churn": bugs.case_window_churn,
    "gone-windows": bugs.case_gone_windows,
    "bug-window-flood-stalls-good-vm":
        bugs.case_bug_window_flood_stalls_good_vm,
    "bug-region-bomb-stalls-good-vm": bugs.case_bug_region_bomb_stalls_good_vm,
    "bug-damage-bomb-stalls-good-vm": bugs.case_bug_damage_bomb_stalls_good_vm,
    "bug-clipboard-flood-grows-weston":
        clipboard.case_bug_clipboard_flood_grows_weston,
    "bug-clipboard-hang": clipboard.case_bug_clipboard_hang,
    "clipboard-cache-block": clipboard.case_clipboard_cache_block,
    "clipboard-guess": clipboard.case_clipboard_guess,
    "clipboard-paste": clipboard.case_clipboard_paste,
    "bug-eventfd-block-hangs-weston": bugs.case_bug_eventfd_block_hangs_weston,
    "bug-eventfd-block-hangs-weston-legacy":
        bugs.case_bug_eventfd_block_hangs_weston_legacy,
    "bug-full-doorbell-spins-weston": bugs.case_bug_full_doorbell_spins_weston,
    "bug-subsurface-of-xdg-surface-aborts-weston":
        semantics.case_bug_subsurface_of_xdg_surface_aborts_weston,
    "bug-mime-flood-grows-weston": semantics.case_bug_mime_flood_grows_weston,
    "bug-inert-role-objects-crash-weston":
        semantics.case_bug_inert_role_objects_crash_weston,
    "bug-destroy-storm-stalls-good-vm":
        bugs.case_bug_destroy_storm_stalls_good_vm,
    "bug-fuzz-findings-crash-weston":
        semantics.case_bug_fuzz_findings_crash_weston,
    "pacing-misuse": semantics.case_pacing_misuse,
    "budget-fill": semantics.case_budget_fill_within_memory_bound,
    "bug-popup-chain-app-close-crashes-weston":
        semantics.case_bug_popup_chain_app_close_crashes_weston,
    "bug-popup-chain-plugin-close-crashes-weston":
        semantics.case_bug_popup_chain_plugin_close_crashes_weston,
    "bug-keyboard-flood-exhausts-fds":
        semantics.case_bug_keyboard_flood_exhausts_fds,
    "bug-shutdown-with-popups-crashes-weston":
        semantics.case_bug_shutdown_with_popups_crashes_weston,
    "bug-live-view-titles-break-lines": display.case_live_view_titles,
    "clock-flood": display.case_clock_flood,
    "bug-focus-theft": trust.case_focus_theft,
    "focus-climb": trust.case_focus_climb,
    "bug-label-escape": trust.case_label_escape,
    "title-flood": trust.case_title_flood,
    "bug-local-window-closes": trust.case_local_window_closes,
    "bug-pointer-images": trust.case_pointer_images,
    "bug-switcher-offscreen": trust.case_switcher_offscreen,
    "bug-invisible-layer": trust.case_invisible_layer,
    "decoration-misuse": trust.case_decoration_misuse,
    "bug-plate-queue": trust.case_plate_queue,
    "overdraw": repaint.case_overdraw,
    "overdraw-seated": repaint.case_overdraw,
    "overdraw-spread": repaint.case_overdraw_spread,
    "overdraw-grow": repaint.case_overdraw_grow,
    "bug-popup-overdraw": repaint.case_popup_overdraw,
    "bug-scaled-overdraw": repaint.case_scaled_overdraw,
    "bug-scaled-overdraw-four": repaint.case_scaled_overdraw_four,
    "bug-overdraw-four": repaint.case_overdraw_four,
}

# Cases that need weston with a seat (tests/seat, driven by the case).
SEAT_CASES = {"bug-clipboard-flood-grows-weston", "bug-clipboard-hang",
              "clipboard-cache-block",
              "clipboard-guess", "clipboard-paste",
              "bug-popup-chain-app-close-crashes-weston",
              "bug-popup-chain-plugin-close-crashes-weston",
              "bug-keyboard-flood-exhausts-fds",
              "bug-shutdown-with-popups-crashes-weston",
              "bug-focus-theft", "focus-climb", "bug-label-escape",
              "overdraw-seated",
              "title-flood", "bug-local-window-closes",
              "bug-pointer-images", "bug-switcher-offscreen",
              "bug-invisible-layer", "decoration-misuse",
              "bug-plate-queue"}

# Cases whose attacker is an app of VM evil (its agent runs), and their
# other settings of the session.
SESSION_ARGS = {"bug-focus-theft": {"evil": ()},
                "focus-climb": {"evil": ()},
                "title-flood": {"evil": ()},
                "bug-local-window-closes": {"evil": ()},
                "bug-pointer-images": {"evil": ()},
                "bug-switcher-offscreen": {"evil": ()},
                "bug-invisible-layer": {"evil": (), "panel": "top"},
                "decoration-misuse": {"evil": ()},
                "bug-plate-queue": {"evil": ()},
                "bug-popup-overdraw": {"evil": ()},
                "bug-scaled-overdraw": {"evil": ()},
                "bug-scaled-overdraw-four": {
                    "evil": (),
                    "vms": ("evil", "evil2", "evil3", "evil4", "good")},
                "bug-overdraw-four": {
                    "evil": (),
                    "vms": ("evil", "evil2", "evil3", "evil4", "good")},
                "bug-label-escape": {"evil": (), "panel": "top"}}


# Cases whose VMs' ivwl-servers take arguments.
SERVER_ARGS = {"bug-eventfd-block-hangs-weston-legacy":
               {"evil": ["--no-rings"]},
               # room for a 4096x4096 cursor (64 MiB)
               "bug-label-escape": {"evil": ["--size", "256M"]}}


# Cases that end weston themselves (and check how it ended).
STOPS_WESTON = {"bug-shutdown-with-popups-crashes-weston"}


def main():
    if sys.argv[1:] == ["--list"]:
        Listing(suites=("hostile",), timeout=90).print(CASES)
        return 0
    if len(sys.argv) != 2 or sys.argv[1] not in CASES:
        print(f"usage: {sys.argv[0]} ({'|'.join(CASES)})")
        return 2
    kw = {}
    if sys.argv[1] in SEAT_CASES:
        kw["backend"] = "seat"
    kw["server_args"] = SERVER_ARGS.get(sys.argv[1])
    kw.update(SESSION_ARGS.get(sys.argv[1], {}))
    s = HostileSession(**kw)
    # a local client timing weston's answers all through the case
    probe = bystander(s, 3600)
    try:
        CASES[sys.argv[1]](s)
        if sys.argv[1] not in STOPS_WESTON:
            s.check_weston()
            p99 = sync_p99(probe, True)
            if p99 > SYNC_P99_MS:
                raise Failure(f"weston answered a local client in "
                              f"{p99:.0f} ms at p99 while the evil VM "
                              f"attacked (at most {SYNC_P99_MS})")
        print(f"PASS {sys.argv[1]}")
        return 0
    except (Failure, subprocess.TimeoutExpired) as e:
        print(f"FAIL {sys.argv[1]}: {e}")
        s.diagnose()
        s.dump_logs(e)
        return 1
    finally:
        if probe.poll() is None:
            probe.kill()
        probe.wait()
        s.close()


if __name__ == "__main__":
    sys.exit(main())
