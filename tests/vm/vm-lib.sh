# SPDX-License-Identifier: MIT
# Shared by the VM tests (sourced): start ivwl-server and host-peer, boot
# QEMU with the caller's initramfs, wait, and judge what the host side saw.
# The caller defines die(), calls vm_workdir and sets server, host_peer,
# qemu, kernel, size, vectors and limit.

# vm_workdir PREFIX NAME: a fresh $tmp (PREFIX.XXXXXX) with the paths of
# the server's sockets, and a cleanup at exit that stops what vm_boot
# started and removes $tmp (kept with IVWL_VM_KEEP=1; NAME says where).
vm_workdir()
{
	vm_name=$2
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
	sock=$tmp/ivshmem.sock
	dsock=$tmp/ivshmem.display.sock
	server_pid=
	peer_pid=
	qemu_pid=
	trap cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

cleanup()
{
	local pid

	trap - EXIT INT TERM
	for pid in $qemu_pid $peer_pid $server_pid; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in $qemu_pid $peer_pid $server_pid; do
		wait "$pid" 2>/dev/null || true
	done
	if [ "${IVWL_VM_KEEP:-0}" = 1 ]; then
		echo "$vm_name: logs kept in $tmp"
	else
		rm -rf "$tmp"
	fi
}

now_ms()
{
	local t=${EPOCHREALTIME/[.,]/}

	echo $((t / 1000))
}

# wait_for SECONDS DESCRIPTION COMMAND...: polls COMMAND every 0.1 s.
wait_for()
{
	local secs=$1 what=$2 i

	shift 2
	for ((i = 0; i < secs * 10; i++)); do
		if "$@"; then
			return 0
		fi
		sleep 0.1
	done
	die "timed out after ${secs}s waiting for $what"
}

show_log()
{
	echo "----- $1 -----"
	tr -d '\r' <"$2" || true
	echo "----- end of $1 -----"
}

vm_sockets_ready()
{
	kill -0 "$server_pid" 2>/dev/null ||
		{ show_log ivwl-server "$tmp/server.log"; die "ivwl-server exited at start"; }
	[ -S "$sock" ] && [ -S "$dsock" ]
}

vm_peer_ready()
{
	kill -0 "$peer_pid" 2>/dev/null ||
		{ show_log host-peer "$tmp/host-peer.log"; die "host-peer exited at start"; }
	grep -q '^HOST-PEER: ready' "$tmp/host-peer.log"
}

# vm_boot NAME RUN DONE_MARKER GRACE_MS: RUN is the guest's ivwl.run=
# command (commas for spaces) before "--size,...", DONE_MARKER what the
# guest prints at its end.  Once host-peer has given up, the guest gets
# GRACE_MS to print DONE_MARKER before QEMU is stopped.  Sets qemu_rc,
# peer_rc, server_alive, t0, t1, console and peer_log.
vm_boot()
{
	local name=$1 run=$2 done_marker=$3 grace_ms=$4 append peer_done_ms i

	"$server" --socket "$sock" --display-socket "$dsock" --size "$size" \
		--vectors "$vectors" >"$tmp/server.log" 2>&1 &
	server_pid=$!
	wait_for 10 "ivwl-server's sockets" vm_sockets_ready

	"$host_peer" --socket "$dsock" --size "$size" --vectors "$vectors" \
		--timeout-ms $(((limit + 30) * 1000)) >"$tmp/host-peer.log" 2>&1 &
	peer_pid=$!
	wait_for 20 "host-peer to attach" vm_peer_ready

	# the guest waits at most this long for each step
	append="console=ttyS0 quiet panic=-1"
	append="$append ivwl.run=$run,--size,$size,--vectors,$vectors,--timeout-ms,$((limit * 1000 / 3))"

	t0=$(now_ms)
	timeout --foreground -k 5 "$limit" "$qemu" \
		-machine q35 -accel tcg -smp 1 -m 512 \
		-nodefaults -no-user-config -display none -serial stdio \
		-no-reboot \
		-kernel "$kernel" -initrd "$tmp/initramfs.gz" -append "$append" \
		-chardev socket,path="$sock",id=iv \
		-device ivshmem-doorbell,chardev=iv,vectors="$vectors" \
		</dev/null >"$tmp/console.log" 2>&1 &
	qemu_pid=$!

	peer_done_ms=
	while kill -0 "$qemu_pid" 2>/dev/null; do
		if [ -z "$peer_done_ms" ] && ! kill -0 "$peer_pid" 2>/dev/null; then
			peer_done_ms=$(now_ms)
		fi
		if [ -n "$peer_done_ms" ] &&
		   [ $(($(now_ms) - peer_done_ms)) -gt "$grace_ms" ] &&
		   ! grep -q "$done_marker" "$tmp/console.log"; then
			echo "$name: host-peer is done, stopping QEMU"
			kill "$qemu_pid" 2>/dev/null || true
		fi
		sleep 0.1
	done
	qemu_rc=0
	wait "$qemu_pid" || qemu_rc=$?
	qemu_pid=
	t1=$(now_ms)

	# host-peer notices the guest leaving; give it a moment to say so
	for ((i = 0; i < 100; i++)); do
		kill -0 "$peer_pid" 2>/dev/null || break
		sleep 0.1
	done
	kill "$peer_pid" 2>/dev/null || true
	peer_rc=0
	wait "$peer_pid" || peer_rc=$?
	peer_pid=

	server_alive=1
	kill -0 "$server_pid" 2>/dev/null || server_alive=0

	show_log "guest console" "$tmp/console.log"
	show_log host-peer "$tmp/host-peer.log"
	show_log ivwl-server "$tmp/server.log"
	console=$(tr -d '\r' <"$tmp/console.log")
	peer_log=$(cat "$tmp/host-peer.log")
}

# Appends to errors what QEMU, host-peer and ivwl-server got wrong.
vm_check_host_side()
{
	local v

	case $qemu_rc in
	0) ;;
	124|137) errors+=("QEMU hit the hard limit of ${limit}s") ;;
	*) errors+=("QEMU exited with status $qemu_rc") ;;
	esac
	grep -q '^HOST-PEER: reply pattern OK' <<<"$peer_log" ||
		errors+=("host-peer did not see the guest's reply pattern")
	for ((v = 0; v < vectors; v++)); do
		grep -q "^HOST-PEER: doorbell from the guest on vector $v\$" <<<"$peer_log" ||
			errors+=("host-peer did not see the guest's doorbell on vector $v")
	done
	grep -q '^HOST-PEER: guest saw our doorbells' <<<"$peer_log" ||
		errors+=("the guest did not confirm host-peer's doorbells")
	if [ "$peer_rc" != 0 ] || ! grep -q '^HOST-PEER RESULT: PASS' <<<"$peer_log"; then
		errors+=("host-peer: $(grep -o 'HOST-PEER RESULT: .*' <<<"$peer_log" || echo "no result line, status $peer_rc")")
	fi
	[ "$server_alive" = 1 ] || errors+=("ivwl-server died during the test")
}

# vm_verdict NAME: prints the errors and exits 1, or PASS.
vm_verdict()
{
	local e

	echo "$1: QEMU ran $((t1 - t0)) ms (boot, test and power-off)"
	if [ ${#errors[@]} -gt 0 ]; then
		for e in "${errors[@]}"; do
			echo "$1: FAIL: $e"
		done
		exit 1
	fi
	echo "$1: PASS"
}
