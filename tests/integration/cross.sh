#!/bin/bash
# SPDX-License-Identifier: MIT
# The region's format is the contract between an app-VM and the gui-VM,
# whichever Debian each runs: test-weston.py cases with the display side
# (ivwl-server, weston, ivwl.so) of one system and the app side (agent,
# shim, relay, clients) of the other.  trixie's app side under
# bookworm's weston 10 runs here, the app side through
# tools/trixie-root.sh run; bookworm's app side under trixie's weston 14
# runs in the trixie root, the app side through nsenter into this
# system's mounts.  Their files meet in one directory under /tmp that
# both see (IVWL_TRIXIE_SHARE).
#
#   tests/integration/cross.sh BOOKWORM_BUILD TRIXIE_BUILD [CASE...]
#
# Root only.  Prints "ok|FAIL DIRECTION CASE" per run, then "N passed,
# N failed"; exits non-zero on a failure.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
bookworm=$(cd "${1:?usage: cross.sh BOOKWORM_BUILD TRIXIE_BUILD [CASE...]}" && pwd)
trixie=$(cd "${2:?usage: cross.sh BOOKWORM_BUILD TRIXIE_BUILD [CASE...]}" && pwd)
shift 2
cases=("$@")
[ ${#cases[@]} -gt 0 ] ||
	cases=(pattern-pixels zero-copy simple-shm keyboard-foot gtk)

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

for case in "${cases[@]}"; do
	# shellcheck disable=SC2046 # word splitting of the VAR=value lists
	run_case "trixie-app/bookworm-display" "$case" \
		env $(display_env "$bookworm") $(app_env "$trixie") \
		PYTHONPATH="$src/tests" TMPDIR="$share" \
		IVWL_TRIXIE_SHARE="$share" \
		IVWL_APP_PREFIX="$src/tools/trixie-root.sh run" \
		python3 "$src/tests/integration/test-weston.py" "$case"
	# The test holds this system's mount namespace as fd 9 (a process
	# in the root may not open /proc/1/ns/mnt); its pid stays through
	# the execs, so its app side enters that namespace through it.
	# shellcheck disable=SC2046,SC2016
	run_case "bookworm-app/trixie-display" "$case" \
		env IVWL_TRIXIE_SHARE="$share" bash -c '
		IVWL_APP_PREFIX="nsenter --mount=/proc/$$/fd/9 -- env --chdir=/" \
			exec "$@" 9</proc/self/ns/mnt' cross \
		"$src/tools/trixie-root.sh" run \
		env $(display_env "$trixie") $(app_env "$bookworm") \
		PYTHONPATH="$src/tests" TMPDIR="$share" \
		python3 "$src/tests/integration/test-weston.py" "$case"
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
