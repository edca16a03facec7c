#!/bin/bash
# SPDX-License-Identifier: MIT
# The region's format is the contract between an app-VM and the gui-VM,
# whichever Debian each runs: test-weston.py cases with the display side
# (ivwl-server, weston, ivwl.so) of one system and the app side (agent,
# shim, relay, clients) of another, for every ordered pair of the
# systems named.  A system is this one (bookworm) or a root made by
# tools/SYSTEM-root.sh (trixie, sid).  A case runs where its display
# side does; its app side runs through SYSTEM-root.sh run, or, from
# inside a root, first back into this system's mounts by nsenter.
# Their files meet in one directory under /tmp that all of them see
# (IVWL_TRIXIE_SHARE).
#
#   tests/integration/cross.sh SYSTEM=BUILD... [-- CASE...]
#   e.g. cross.sh bookworm=build trixie=build-weston14 sid=build-weston16
#
# Root only.  Prints "ok|FAIL APP-app/DISPLAY-display CASE" per run,
# then "N passed, N failed"; exits non-zero on a failure.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
usage="usage: cross.sh SYSTEM=BUILD SYSTEM=BUILD... [-- CASE...]"
names=()
declare -A build
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	case $1 in
	?*=?*) ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
	name=${1%%=*}
	build[$name]=$(cd "${1#*=}" && pwd) || exit 2
	names+=("$name")
	shift
done
[ $# -gt 0 ] && shift
[ ${#names[@]} -ge 2 ] || { echo "$usage" >&2; exit 2; }
cases=("$@")
[ ${#cases[@]} -gt 0 ] ||
	cases=(pattern-pixels zero-copy simple-shm keyboard-foot gtk)

# The system this script runs on; the others are roots.
host=$(. /etc/os-release && echo "$VERSION_CODENAME")

# The variables of meson's integration_env: the display's from $1, the
# app side's from $2.
display_env()
{
	echo "IVWL_BUILD_ROOT=$1" "IVWL_SERVER_BIN=$1/host/ivwl-server" \
		"IVWL_PLUGIN=$1/plugin/ivwl.so" \
		"IVWL_TEST_SEAT=$1/tests/seat/ivwl-test-seat.so"
}
app_env()
{
	echo "IVWL_AGENT_BIN=$1/agent/ivwl-agent" \
		"IVWL_SHIM=$1/shim/libivwl-shim.so" \
		"IVWL_PATTERN_CLIENT=$1/tests/integration/ivwl-pattern-client" \
		"IVWL_ZC_PROBE=$1/tests/integration/ivwl-zc-probe"
}

pass=0
fail=0
share=$(mktemp -d /tmp/ivwl-cross.XXXXXX)
trap 'rm -rf "$share"' EXIT
run_case()
{
	local direction=$1 case=$2 out rc
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc = 0 ]; then
		echo "ok $direction $case"
		pass=$((pass + 1))
	else
		echo "FAIL $direction $case"
		# the case's own verdict, then the end of the logs it printed
		echo "$out" | grep -E 'Failure|^FAIL|Error' | head -5 |
			sed 's/^/    /'
		echo "$out" | tail -8 | sed 's/^/    /'
		fail=$((fail + 1))
	fi
}

# One case, app side of system $1 under the display of system $2.
cross_case()
{
	local app=$1 display=$2 case=$3 prefix=""
	local direction="$app-app/$display-display"
	local test=(env $(display_env "${build[$display]}")
		    $(app_env "${build[$app]}") PYTHONPATH="$src/tests"
		    TMPDIR="$share" IVWL_TRIXIE_SHARE="$share"
		    python3 "$src/tests/integration/test-weston.py" "$case")

	[ "$app" = "$host" ] || prefix="$src/tools/$app-root.sh run"
	if [ "$display" = "$host" ]; then
		run_case "$direction" "$case" \
			env IVWL_APP_PREFIX="$prefix" "${test[@]}"
		return
	fi
	# The test holds this system's mount namespace as fd 9 (a process
	# in the root may not open /proc/1/ns/mnt); its pid stays through
	# the execs, so its app side enters that namespace through it, and
	# from there another root's.
	# shellcheck disable=SC2016
	run_case "$direction" "$case" \
		env IVWL_TRIXIE_SHARE="$share" CROSS_PREFIX="$prefix" bash -c '
		IVWL_APP_PREFIX="nsenter --mount=/proc/$$/fd/9 -- env --chdir=/ $CROSS_PREFIX" \
			exec "$@" 9</proc/self/ns/mnt' cross \
		"$src/tools/$display-root.sh" run "${test[@]}"
}

for case in "${cases[@]}"; do
	for display in "${names[@]}"; do
		for app in "${names[@]}"; do
			[ "$app" = "$display" ] ||
				cross_case "$app" "$display" "$case"
		done
	done
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
