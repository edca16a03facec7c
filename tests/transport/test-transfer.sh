#!/bin/bash
# SPDX-License-Identifier: MIT
# Two processes on one region through ivwl-server and ivwl-agent:
#   bulk    1 GiB of random-size records, every one checked
#   jitter  small records with random pauses: the display sleeps and is
#           woken thousands of times; a lost wakeup fails on a timeout
#   pair    two app connections at once on two slots
# With a second argument "wake", ivwl-server has a vector per slot
# (--vectors 33) and the display must ring each slot on its own one.
set -eu

mode=${1:?mode}
wake=${2:-}
vectors=1
[ "$wake" = wake ] && vectors=33
dir=$(mktemp -d /tmp/ivwl-transfer.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	cat "$dir/display.log" 2>/dev/null || true
	rm -rf "$dir"
}
trap cleanup EXIT

wait_for() {
	local i
	for i in $(seq 100); do
		[ -S "$1" ] && return 0
		sleep 0.05
	done
	echo "timed out waiting for $1"
	exit 1
}

"$IVWL_SERVER_BIN" --socket "$dir/app.sock" --size 64M --vectors "$vectors" &
pids+=($!)
wait_for "$dir/app.sock.display"

expect=1
[ "$mode" = pair ] && expect=2
"$IVWL_TRANSFER_BIN" display --server "$dir/app.sock.display" \
	--slots "$expect" > "$dir/display.log" &
display=$!
pids+=($display)

"$IVWL_AGENT_BIN" --server "$dir/app.sock" --listen "$dir/agent.sock" &
pids+=($!)
wait_for "$dir/agent.sock"
# the display marks itself ready before the agent can serve slots
sleep 0.2

case $mode in
bulk)
	"$IVWL_TRANSFER_BIN" app --agent "$dir/agent.sock" \
		--bytes $((1 << 30)) --seed 7
	;;
jitter)
	"$IVWL_TRANSFER_BIN" app --agent "$dir/agent.sock" \
		--bytes $((6 << 20)) --jitter --seed 11 --timeout-ms 5000
	;;
pair)
	"$IVWL_TRANSFER_BIN" app --agent "$dir/agent.sock" \
		--bytes $((128 << 20)) --seed 1 &
	a=$!
	"$IVWL_TRANSFER_BIN" app --agent "$dir/agent.sock" \
		--bytes $((128 << 20)) --seed 2 &
	b=$!
	wait $a
	wait $b
	;;
*)
	echo "unknown mode $mode"
	exit 2
	;;
esac

# the display exits by itself once every connection finished
wait $display
if [ "$mode" = jitter ]; then
	sleeps=$(sed -n 's/.*slept \([0-9]*\) times.*/\1/p' "$dir/display.log")
	# the hunt only counts if the display really went to sleep often
	if [ "${sleeps:-0}" -lt 1000 ]; then
		echo "FAIL: the display slept only ${sleeps:-0} times"
		exit 1
	fi
fi
# the display rings a slot's own vector when there is one, never else
rang=$(sed -n 's/.*rang slot vectors \([0-9]*\) times.*/\1/p' \
	"$dir/display.log")
if [ "$wake" = wake ] && [ "${rang:-0}" -lt 100 ]; then
	echo "FAIL: with a vector per slot the display rang them ${rang:-0} times"
	exit 1
fi
if [ "$wake" != wake ] && [ "${rang:-0}" -ne 0 ]; then
	echo "FAIL: with one vector the display rang slot vectors $rang times"
	exit 1
fi
echo "PASS: $mode $wake (slot vectors rung ${rang:-0} times)"
