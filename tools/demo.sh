#!/bin/bash
# SPDX-License-Identifier: MIT
# The ivwl demo: weston with ivwl.so showing the windows of two "app-vms"
# whose clients reach it only through shared memory.  Every piece runs as
# a host process (deployment C, docs/architecture.md):
#
#   ivwl-server (one region per VM)  <->  weston + ivwl.so
#   ivwl-agent (one per VM)  <->  clients with LD_PRELOAD=libivwl-shim.so
#
# The clients get an XDG_RUNTIME_DIR with no Wayland socket in it: their
# windows can only come through the region.
#
#   tools/demo.sh [--seconds N] [--installed] [--out FILE]
#
# Headless by default: it saves a screenshot to FILE (default
# ivwl-demo.png at the top of the tree), kills weston and starts another
# (the apps' windows come back on it) and stops after N seconds
# (default 5).  Under a running Wayland or X11 session (WAYLAND_DISPLAY
# or DISPLAY set) weston opens a window instead and the demo runs until
# Ctrl-C.
#
# --installed runs what the packages (or meson install) put on the
# system instead of the build tree: ivwl-server and ivwl-agent from PATH,
# ivwl.so from weston's module directory, libivwl-shim.so from the
# library path; it builds nothing (tests/package).
set -eu
cd "$(dirname "$0")/.."
top=$PWD
seconds=5
installed=0
out=$top/ivwl-demo.png
while [ $# -gt 0 ]; do
	case $1 in
	--seconds) seconds=${2:?}; shift 2 ;;
	--installed) installed=1; shift ;;
	--out) out=${2:?}; shift 2 ;;
	*) echo "usage: tools/demo.sh [--seconds N] [--installed] [--out FILE]" >&2
	   exit 2 ;;
	esac
done

if [ $installed = 1 ]; then
	server=ivwl-server
	agent=ivwl-agent
	module=ivwl.so
	shim=libivwl-shim.so
else
	tools/deps.sh
	[ -d build ] || meson setup build >/dev/null
	ninja -C build >/dev/null
	b=$top/build
	server=$b/host/ivwl-server
	agent=$b/agent/ivwl-agent
	module=$b/plugin/ivwl.so
	shim=$b/shim/libivwl-shim.so
fi

dir=$(mktemp -d /tmp/ivwl-demo.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$dir"
}
trap cleanup EXIT INT TERM

say() { printf '\n== %s\n' "$*"; }
run_bg() {
	local log=$1; shift
	echo "+ $*"
	"$@" >"$dir/$log" 2>&1 &
	pids+=($!)
}
wait_for() {
	local i
	for i in $(seq 200); do eval "$1" && return 0; sleep 0.05; done
	echo "demo: timed out waiting for: $1" >&2
	tail -20 "$dir"/*.log >&2
	exit 1
}

vms=(work personal)
colors=(0xff3070c0 0xffc03030)

say "one ivwl-server per app-vm: a 64 MiB region each"
for vm in "${vms[@]}"; do
	run_bg "server-$vm.log" "$server" --socket "$dir/$vm.sock" \
		--size 64M
	wait_for "[ -S $dir/$vm.sock.display ]"
done

{
	echo "[core]"
	echo "modules=$module"
	echo "idle-time=0"
	for i in "${!vms[@]}"; do
		echo
		echo "[ivwl-vm]"
		echo "name=${vms[$i]}"
		echo "server=$dir/${vms[$i]}.sock.display"
		echo "color=${colors[$i]}"
	done
} >"$dir/weston.ini"
say "weston with ivwl.so, configured by $dir/weston.ini:"
sed 's/^/    /' "$dir/weston.ini"

mkdir -m 700 "$dir/gui"
if [ -n "${WAYLAND_DISPLAY:-}" ]; then
	backend=(--backend=wayland-backend.so)
	windowed=1
elif [ -n "${DISPLAY:-}" ]; then
	backend=(--backend=x11-backend.so)
	windowed=1
else
	backend=(--backend=headless-backend.so)
	windowed=0
fi
# weston's own socket goes in its runtime dir; a windowed weston needs the
# session's, where the parent compositor is.
gui_runtime=$dir/gui
[ $windowed = 1 ] && gui_runtime=${XDG_RUNTIME_DIR:?}
start_weston() {
	run_bg "$1" env XDG_RUNTIME_DIR="$gui_runtime" weston "${backend[@]}" \
		--use-pixman --width=1024 --height=640 --socket=wl-ivwl-demo \
		--idle-time=0 --debug --config="$dir/weston.ini"
	weston_pid=${pids[-1]}
	for vm in "${vms[@]}"; do
		wait_for "grep -q '\[$vm\] attached' $dir/$1"
	done
	grep 'ivwl:' "$dir/$1" | sed 's/^/    /'
}
start_weston weston.log

say "one ivwl-agent per app-vm"
for vm in "${vms[@]}"; do
	run_bg "agent-$vm.log" "$agent" \
		--server "$dir/$vm.sock" --listen "$dir/$vm-agent.sock"
	wait_for "[ -S $dir/$vm-agent.sock ]"
	mkdir -m 700 "$dir/app-$vm"
done

app_pids=()
app() {
	local vm=$1; shift
	run_bg "client-$vm-$(basename "$1").log" env -u DISPLAY XDG_RUNTIME_DIR="$dir/app-$vm" \
		WAYLAND_DISPLAY=wayland-0 IVWL_AGENT="$dir/$vm-agent.sock" \
		LD_PRELOAD="$shim" "$@"
	app_pids+=("${pids[-1]}")
}
say "unmodified clients, started through the shim (no Wayland socket)"
app work weston-simple-shm
app personal weston-flower
# a test client of the tree's, not installed
[ $installed = 1 ] ||
	app work "$b/tests/integration/ivwl-pattern-client" --title pattern \
		--hold-ms 600000

wait_for "grep -q 'new client' $dir/weston.log"
sleep 2
windows() {
	XDG_RUNTIME_DIR="$gui_runtime" WAYLAND_DISPLAY=wl-ivwl-demo timeout 10 \
		weston-debug scene-graph 2>/dev/null | grep "top-level window" |
		sed "s/.*top-level window \('[^']*'\).*/    \1/" | sort
}
say "what weston shows (weston-debug scene-graph):"
shown=$(windows)
echo "$shown"
say "the relays serving them (started by the shim):"
for p in $(pgrep -x ivwl-relay); do
	grep -qz "^IVWL_AGENT=$dir/" "/proc/$p/environ" 2>/dev/null &&
		readlink "/proc/$p/exe"
done | sort | uniq -c | sed 's/^ */    /'
say "what each VM and connection is doing (weston-debug ivwl, 2 s):"
XDG_RUNTIME_DIR="$gui_runtime" WAYLAND_DISPLAY=wl-ivwl-demo timeout 2.5 \
	weston-debug ivwl 2>/dev/null >"$dir/live-view.txt" || true
# the last tick: one line per VM and per connection
last=$(awk '$1 == "vm" { t = $3 } END { print t }' "$dir/live-view.txt")
grep -F " $last " "$dir/live-view.txt" | fold -w 76 -s | sed 's/^/    /'

if [ $windowed = 1 ]; then
	say "running in a window; Ctrl-C to stop"
	wait "${pids[@]}"
	exit 0
fi

shots=$dir/shots
mkdir "$shots"
(cd "$shots" && XDG_RUNTIME_DIR="$gui_runtime" WAYLAND_DISPLAY=wl-ivwl-demo \
	timeout 20 weston-screenshooter >/dev/null 2>&1) || true
shot=$(ls "$shots"/*.png 2>/dev/null | head -1)
if [ -z "$shot" ]; then
	echo "demo: no screenshot was taken" >&2
	exit 1
fi
cp "$shot" "$out"
say "screenshot of weston's output: $out"

# The apps outlive their compositor (docs/architecture.md, "Compositor
# restart"): weston is killed, another one starts, the same windows of
# the same processes come back.
say "weston is killed and started again; the apps keep running"
kill -9 "$weston_pid"
wait "$weston_pid" 2>/dev/null || true
start_weston weston-2.log
for i in $(seq 50); do
	[ "$(windows)" = "$shown" ] && break
	sleep 0.2
done
say "what the new weston shows:"
windows
if [ "$(windows)" != "$shown" ]; then
	echo "demo: the windows did not come back after the restart" >&2
	tail -5 "$dir"/client-*.log >&2
	exit 1
fi
for p in "${app_pids[@]}"; do
	kill -0 "$p" 2>/dev/null || {
		echo "demo: app process $p did not survive the restart" >&2
		exit 1
	}
done
echo "    the same ${#app_pids[@]} app processes drew them; their relays said:"
grep -h "windows are back" "$dir"/client-*.log | sed 's/^/    /'
sleep "$seconds"
say "stopping"
