#!/bin/bash
# The ivwl demo.  Today: the transport on its own, as deployment C (every
# piece a host process): ivwl-server holds a region, a minimal display side
# attaches as peer 0, ivwl-agent takes the app side, and two app processes
# get slots from the agent and stream checked records through the region.
# The Wayland demo (weston + plugin + real clients) replaces this next.
set -eu
cd "$(dirname "$0")/.."

tools/deps.sh
[ -d build ] || meson setup build >/dev/null
ninja -C build >/dev/null

dir=$(mktemp -d /tmp/ivwl-demo.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$dir"
}
trap cleanup EXIT

run_bg() {
	echo "+ $*"
	"$@" &
	pids+=($!)
}

wait_socket() {
	local i
	for i in $(seq 100); do [ -S "$1" ] && return 0; sleep 0.05; done
	echo "demo: $1 never appeared" >&2
	exit 1
}

b=build
run_bg $b/host/ivwl-server --socket "$dir/app.sock" --size 256M
wait_socket "$dir/app.sock.display"
run_bg $b/tests/transport/ivwl-transfer display \
	--server "$dir/app.sock.display" --slots 2
display=${pids[-1]}
run_bg $b/client-shim/ivwl-agent --server "$dir/app.sock" \
	--listen "$dir/agent.sock" --verbose
wait_socket "$dir/agent.sock"
sleep 0.2

run_bg $b/tests/transport/ivwl-transfer app --agent "$dir/agent.sock" \
	--bytes $((512 << 20)) --seed 1
a=${pids[-1]}
run_bg $b/tests/transport/ivwl-transfer app --agent "$dir/agent.sock" \
	--bytes $((512 << 20)) --seed 2
c=${pids[-1]}
wait "$a"
wait "$c"
wait "$display"
echo "demo: 1 GiB crossed the region in two connections, every record checked"
