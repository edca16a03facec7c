#!/bin/bash
# SPDX-License-Identifier: MIT
# Runs every test: installs dependencies, builds, runs the suite, with
# the unit, fuzz, host, transport, config, hostile and weston-fuzz tests
# and the integration cases with our own clients under ASan + UBSan (the
# plugin inside weston, the shim inside clients) and the rest in a plain
# build, then every fuzz target under libFuzzer for 10 s; then against
# weston 14: the unit, integration (restart included), clipboard,
# hostile, weston-fuzz and package suites built and run in a Debian
# trixie root (tools/trixie-root.sh, kept between runs); then the same
# against weston 16 in a sid root (tools/sid-root.sh); then the app
# side of each system under each other's display
# (tests/integration/cross.sh).
# Ends with one line "N passed, N failed, N skipped", the skipped
# tests named above it.
#   tests/run.sh [--quick]   --quick: everything in the plain build, no
#                            sanitizer, libFuzzer, weston 14 or 16 pass
set -eu

cd "$(dirname "$0")/.."
quick=0
[ "${1:-}" = "--quick" ] && quick=1

tools/deps.sh

# The trixie (weston 14) and sid (weston 16) roots are made meanwhile:
# on a fresh machine that is minutes of downloads and unpacking, mostly
# waiting on the network and the disk.  deps.sh brought mmdebstrap, so
# nothing here runs apt on this system while the package suite does.
root_log=$(mktemp)
sid_log=$(mktemp)
root_pid=
sid_pid=
if [ $quick -eq 0 ]; then
	tools/trixie-root.sh ensure >"$root_log" 2>&1 &
	root_pid=$!
	tools/sid-root.sh ensure >"$sid_log" 2>&1 &
	sid_pid=$!
fi

total_pass=0
total_fail=0
total_skip=0
# failing tests with the end of their output, printed again just before
# the summary: CI keeps only the end of a run's output
failures=$(mktemp)
# tests that skipped (a tool missing, say), named before the summary
skipped=$(mktemp)
trap 'rm -f "$failures" "$skipped" "$root_log" "$sid_log"' EXIT

in_root=()	# a command prefix that runs meson and ninja elsewhere

# meson_build DIR SETUP_ARGS...: configures and builds DIR (through
# in_root); false, counted as a failure, when it does not build
meson_build() {
	local dir=$1; shift

	if [ -f "$dir/build.ninja" ]; then
		"${in_root[@]}" meson setup --reconfigure "$dir" "$@" >/dev/null
	else
		rm -rf "$dir"
		"${in_root[@]}" meson setup "$dir" "$@" >/dev/null
	fi
	if ! "${in_root[@]}" ninja -C "$dir"; then
		echo "build failed in $dir"
		echo "FAILED build of $dir" >>"$failures"
		total_fail=$((total_fail + 1))
		return 1
	fi
}

# meson_tally DIR START [WHAT]: the tests DIR's last meson test ran into
# the totals, said "== DIR[ WHAT]: ... (the minutes since START)"
meson_tally() {
	local dir=$1 start=$2 what=${3:+ $3} p f s

	read -r p f s < <(python3 - "$dir/meson-logs/testlog.json" "$dir" \
		3>>"$failures" 4>>"$skipped" <<'PY'
import json, os, sys
p = f = s = 0
out = os.fdopen(3, "w")
skips = os.fdopen(4, "w")
for line in open(sys.argv[1]):
    t = json.loads(line)
    r = t["result"]
    if r in ("OK", "EXPECTEDFAIL"):
        p += 1
        if r == "EXPECTEDFAIL":
            skips.write("EXPECTED TO FAIL %s / %s (a known weston bug)\n" %
                        (sys.argv[2], t["name"]))
    elif r == "SKIP":
        s += 1
        skips.write("SKIPPED %s / %s\n" % (sys.argv[2], t["name"]))
    else:
        f += 1
        tail = ((t.get("stdout") or "") +
                (t.get("stderr") or "")).splitlines()[-15:]
        out.write("FAILED %s / %s (%s, %.0f s)\n" %
                  (sys.argv[2], t["name"], r, t.get("duration", 0)))
        out.write("".join("    %s\n" % l for l in tail))
print(p, f, s)
PY
) || true	# no log to read: counted as one failure below
	echo "== $dir$what: ${p:-0} passed, ${f:-1} failed, ${s:-0} skipped" \
		"($(minutes "$start"))"
	total_pass=$((total_pass + ${p:-0}))
	total_fail=$((total_fail + ${f:-1}))
	total_skip=$((total_skip + ${s:-0}))
}

# meson_run DIR SETUP_ARGS... -- TEST_ARGS...: built, tested, tallied
meson_run() {
	local dir=$1; shift
	local setup=() start=$SECONDS
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do setup+=("$1"); shift; done
	[ $# -gt 0 ] && shift

	meson_build "$dir" "${setup[@]}" || return 0
	"${in_root[@]}" meson test -C "$dir" --print-errorlogs "$@" || true
	meson_tally "$dir" "$start"
}

# Minutes since $1 (a $SECONDS), said as "N.N min": each section's line
# says what it took, the run's time budget is spent by section
minutes()
{
	local t=$((SECONDS - $1))
	printf '%d.%d min' $((t / 60)) $((t % 60 / 6))
}

# A script's own "N passed, N failed" line (its last) into the totals,
# said as "== NAME: ... (the minutes since START)"; no such line counts
# as one failure.  tally NAME OUTPUT START
tally()
{
	local p f
	read -r p f < <(echo "$2" |
		sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' | tail -1)
	echo "== $1: ${p:-0} passed, ${f:-1} failed ($(minutes "$3"))"
	total_pass=$((total_pass + ${p:-0}))
	total_fail=$((total_fail + ${f:-1}))
}

# What the sanitized build runs again below, it runs only there: the
# same checks with ASan and UBSan watching (both builds are debug
# builds).  The hostile cases run under the sanitizers for memory
# errors (weston's answers to a local client within 500 ms at p99 there)
# and, plain, against weston 14 below, where the 50 ms p99 that ASan's
# slowness would blur is checked: the plugin's code is the same, and a
# third pass would not fit CI's time.
sanitized_suites=(unit fuzz host transport hostile weston-fuzz sanitized
		  config)
plain_skips=(unit fuzz host transport hostile weston-fuzz sanitized config)
if [ $quick -eq 0 ]; then
	meson_run build -Dwerror=true -- "${plain_skips[@]/#/--no-suite=}"
else
	meson_run build -Dwerror=true --
fi
if [ $quick -eq 0 ]; then
	# ivwl.so and the shim load into weston and clients that are not
	# sanitized: ASan's runtime has to be loaded into those first
	IVWL_ASAN_RUNTIME=$(gcc -print-file-name=libasan.so)
	export IVWL_ASAN_RUNTIME
	meson_run build-sanitize -Dwerror=true -Db_sanitize=address,undefined \
		-Dc_args=-fno-sanitize-recover=all \
		-Db_lundef=false -- "${sanitized_suites[@]/#/--suite=}"
	unset IVWL_ASAN_RUNTIME
	# the same targets under libFuzzer, coverage-guided, for a while each
	start=$SECONDS
	fuzz_out=$(tools/fuzz.sh 10 2>&1) || true
	echo "$fuzz_out" | grep -E '^(ok|FAIL) ' || echo "$fuzz_out" | tail -20
	tally libFuzzer "$fuzz_out" $start
	echo "$fuzz_out" | grep '^FAIL ' >>"$failures" || true
fi

if [ $quick -eq 0 ]; then
	# weston 14 (Debian trixie) and 16 (Debian sid, forky): what
	# depends on the weston and the libwayland it runs with (the VM and
	# host suites do not), and their packages, each built in its root
	systems=(bookworm=build)
	roots=()
	if wait "$root_pid"; then
		cat "$root_log"
		in_root=(tools/trixie-root.sh run)
		meson_build build-weston14 -Dwerror=true &&
			roots+=("trixie build-weston14")
	else
		tail -20 "$root_log"
		{ echo "FAILED making the trixie root"; tail -20 "$root_log"; } \
			>>"$failures"
		total_fail=$((total_fail + 1))
	fi
	if wait "$sid_pid"; then
		cat "$sid_log"
		in_root=(tools/sid-root.sh run)
		meson_build build-weston16 -Dwerror=true &&
			roots+=("sid build-weston16")
	else
		tail -20 "$sid_log"
		{ echo "FAILED making the sid root"; tail -20 "$sid_log"; } \
			>>"$failures"
		total_fail=$((total_fail + 1))
	fi
	in_root=()
	# Their unit, integration and clipboard suites run side by side,
	# one weston's beside the other's (a root each, Xwayland picking
	# free displays): a case mostly waits on frames and timers, and one
	# at a time left both cores over 90 % idle.  Their hostile and
	# weston-fuzz suites then run one root after the other: they bound
	# how long weston keeps a local client waiting (50 ms at p99), and
	# an attack in the other root once took a short case over it.  Then
	# their packages, one after the other: dpkg-buildpackage takes both
	# cores.
	start=$SECONDS
	pids=()
	for r in "${roots[@]}"; do
		set -- $r
		tools/$1-root.sh run meson test -C "$2" --print-errorlogs \
			--suite=unit --suite=integration --suite=clipboard \
			>"$2/suites.out" 2>&1 &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p" || true; done
	for r in "${roots[@]}"; do
		set -- $r
		cat "$2/suites.out"
		rm -f "$2/suites.out"
		meson_tally "$2" "$start"
	done
	for r in "${roots[@]}"; do
		set -- $r
		for suite in hostile weston-fuzz package; do
			start=$SECONDS
			tools/$1-root.sh run meson test -C "$2" \
				--print-errorlogs --suite=$suite || true
			meson_tally "$2" "$start" "($suite)"
		done
		systems+=("$1=$2")
	done
	# each system's app side under each other's display (its failures
	# are counted below, not run.sh's end)
	if [ ${#systems[@]} -ge 2 ]; then
		start=$SECONDS
		cross_out=$(tests/integration/cross.sh "${systems[@]}" 2>&1) ||
			true
		echo "$cross_out" | grep -E '^(ok|FAIL) ' ||
			echo "$cross_out" | tail -20
		tally cross "$cross_out" $start
		echo "$cross_out" | sed -n '/^FAIL /,/^ok /p' | grep -v '^ok ' \
			>>"$failures" || true
	fi
fi

cat "$skipped" "$failures"
echo "all: $(minutes 0)"
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ $total_fail -eq 0 ]
