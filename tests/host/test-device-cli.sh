#!/bin/bash
# SPDX-License-Identifier: MIT
# ivwl-agent --device and the plugin's device= without a VM: each refusal
# says what is wrong in words, the agent exits, weston keeps running and
# retries.  The working path is tests/vm/deploy-b (and tests/vm/kernel).
#
# Environment: IVWL_AGENT_BIN, IVWL_PLUGIN (optional: weston part skipped
# without it or without weston).
set -u

fails=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ivwl-device-cli.XXXXXX")
weston_pid=
cleanup()
{
	[ -n "$weston_pid" ] && kill "$weston_pid" 2>/dev/null && wait "$weston_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

fail()
{
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# expect NAME STATUS PATTERN ARGS...: the agent exits with STATUS and its
# stderr matches PATTERN (grep -E).
expect()
{
	local name=$1 want=$2 pattern=$3 status

	shift 3
	"$IVWL_AGENT_BIN" "$@" >"$tmp/out" 2>&1
	status=$?
	if [ "$status" != "$want" ]; then
		fail "$name: exit status $status, want $want"
		cat "$tmp/out"
	elif ! grep -qE -- "$pattern" "$tmp/out"; then
		fail "$name: no /$pattern/ in:"
		cat "$tmp/out"
	else
		echo "ok   $name: $(head -n 1 "$tmp/out")"
	fi
}

expect both-backends 2 'exactly one of --server and --device' \
	--server "$tmp/s" --device /dev/ivwl0 --listen "$tmp/a"
expect no-listen 2 '--listen PATH is required' --device /dev/ivwl0
expect missing-node 1 '/nonexistent/ivwl0: no such device node .*is ivwl.ko loaded' \
	--device /nonexistent/ivwl0 --listen "$tmp/a"
touch "$tmp/file"
expect not-chardev 1 'not a character device' \
	--device "$tmp/file" --listen "$tmp/a"
expect not-ivwl 1 '/dev/null: not an ivwl device' \
	--device /dev/null --listen "$tmp/a"
[ -e "$tmp/a" ] && fail "the agent left a listening socket behind after refusing"

# Permission denied: a node we may not open (as nobody when root).
touch "$tmp/node" && chmod 0600 "$tmp/node" && chmod 0755 "$tmp"
if [ "$(id -u)" = 0 ]; then
	if command -v setpriv >/dev/null 2>&1; then
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$IVWL_AGENT_BIN" --device "$tmp/node" --listen "$tmp/a" \
			>"$tmp/out" 2>&1
		status=$?
		if [ $status = 1 ] && grep -q 'permission denied.*60-ivwl.rules' "$tmp/out"; then
			echo "ok   permission-denied: $(head -n 1 "$tmp/out")"
		else
			fail "permission-denied: status $status: $(cat "$tmp/out")"
		fi
	else
		echo "skip permission-denied: no setpriv"
	fi
else
	chmod 0 "$tmp/node"
	expect permission-denied 1 'permission denied.*60-ivwl.rules' \
		--device "$tmp/node" --listen "$tmp/a"
fi

# A sanitized ivwl.so (tests/run.sh's sanitizer pass) needs ASan's
# runtime loaded into weston first.
weston_env=()
if [ -n "${IVWL_ASAN_RUNTIME:-}" ]; then
	weston_env=(LD_PRELOAD="$IVWL_ASAN_RUNTIME" ASAN_OPTIONS=detect_leaks=0)
fi

# The plugin: device= on a missing node and on /dev/null; weston stays up.
if [ -n "${IVWL_PLUGIN:-}" ] && command -v weston >/dev/null 2>&1; then
	mkdir -m 0700 "$tmp/run"
	cat >"$tmp/weston.ini" <<INI
[core]
modules=$IVWL_PLUGIN

[ivwl-vm]
name=gone
device=/nonexistent/ivwl0
color=0xff3070c0

[ivwl-vm]
name=null
device=/dev/null
color=0xffc03030
INI
	env -u WAYLAND_DISPLAY -u DISPLAY "${weston_env[@]}" \
		XDG_RUNTIME_DIR="$tmp/run" \
		weston --backend=headless-backend.so --use-pixman \
		--socket=wl-devcli --idle-time=0 --config="$tmp/weston.ini" \
		>"$tmp/weston.log" 2>&1 &
	weston_pid=$!
	for ((i = 0; i < 150; i++)); do
		grep -q '\[null\] /dev/null: not an ivwl device' "$tmp/weston.log" && break
		kill -0 "$weston_pid" 2>/dev/null || break
		sleep 0.1
	done
	sleep 2.5	# two more retries: each kind of failure is logged once
	if ! kill -0 "$weston_pid" 2>/dev/null; then
		fail "weston exited with device= nodes it cannot use"
		cat "$tmp/weston.log"
	else
		for want in '\[gone\] device=/nonexistent/ivwl0: no such device node.*retrying every' \
			    '\[null\] device=/dev/null: not an ivwl device.*retrying every'; do
			n=$(grep -cE "$want" "$tmp/weston.log")
			if [ "$n" = 1 ]; then
				echo "ok   plugin: $(grep -oE "$want" "$tmp/weston.log")"
			else
				fail "plugin: /$want/ logged $n times, want once"
				cat "$tmp/weston.log"
			fi
		done
	fi
	kill "$weston_pid" 2>/dev/null
	wait "$weston_pid" 2>/dev/null
	weston_pid=

	# A bad app-timeout= stops weston, as any bad [ivwl-vm] section.
	cat >"$tmp/bad.ini" <<INI
[core]
modules=$IVWL_PLUGIN

[ivwl-vm]
name=bad
device=/dev/null
color=0xff3070c0
app-timeout=-1
INI
	env -u WAYLAND_DISPLAY -u DISPLAY "${weston_env[@]}" \
		XDG_RUNTIME_DIR="$tmp/run" \
		timeout 30 weston --backend=headless-backend.so --use-pixman \
		--socket=wl-devcli --idle-time=0 --config="$tmp/bad.ini" \
		>"$tmp/bad.log" 2>&1
	status=$?
	if [ $status = 0 ] || [ $status = 124 ] ||
	   ! grep -q 'app-timeout=-1 is not 0 to 3600 seconds' "$tmp/bad.log"; then
		fail "plugin: app-timeout=-1: weston status $status"
		cat "$tmp/bad.log"
	else
		echo "ok   plugin: app-timeout=-1 refused, weston exited $status"
	fi
else
	echo "skip plugin: no IVWL_PLUGIN or no weston"
fi

if [ $fails -gt 0 ]; then
	echo "$fails failure(s)"
	exit 1
fi
echo PASS
