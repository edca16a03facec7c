#!/bin/sh
# SPDX-License-Identifier: MIT
# The gui-vm of tests/vm/deploy-a: ivwl.ko, then weston + ivwl.so with
# device=/dev/ivwl0, run from this machine's root shared read-only over
# 9p (chroot), so weston finds its modules, helpers and data as on the
# host.  OUT (the test's directory on the host, shared writable at the
# same path) receives weston.log, scene.txt and screenshots.
#
#   gui.sh OUT WIDTH HEIGHT
#
# Then it answers lines from the host on the console: "scene" (weston-debug
# scene-graph into OUT/scene.txt), "shot" (weston-screenshooter into
# OUT/shots), "live" (weston-debug ivwl into OUT/live.txt), "fds" (where
# weston's fds point, into OUT/fds.txt), "quit".  Milestones are "GUI: ..." lines.
out=$1 width=$2 height=$3

say()
{
	echo "GUI: $* (uptime $(cut -d' ' -f1 /proc/uptime) s)"
}

fail()
{
	echo "GUI: FAIL: $*"
	[ -f "/host$out/weston.log" ] && tail -n 40 "/host$out/weston.log"
	dmesg | tail -n 30
	echo "GUI RESULT: FAIL $*"
	exit 1
}

wait_for()
{
	local n=$1 what=$2 i=0

	shift 2
	while ! "$@"; do
		i=$((i + 1))
		[ $i -lt "$n" ] || fail "timed out waiting for $what"
		sleep 0.1
	done
}

# 9p over virtio-pci, in the order modprobe --show-depends gave
for m in $(cat /lib/modules/order); do
	insmod "/lib/modules/$m" || fail "insmod $m"
done
insmod /lib/modules/ivwl.ko || fail "insmod ivwl.ko"
wait_for 100 /dev/ivwl0 test -c /dev/ivwl0
say "driver loaded"

p9=trans=virtio,version=9p2000.L,msize=512000
mkdir -p /host
mount -t 9p -o "$p9,ro" hostroot /host || fail "mount the host root"
# The host's own /proc, /sys, /dev and /run stay hidden.  /tmp stays
# visible (read-only): build trees and OUT may live there.
mount -t proc proc /host/proc
mount -t sysfs sysfs /host/sys
mount -o bind /dev /host/dev
mount -t tmpfs tmpfs /host/run
[ -d "/host$out" ] || fail "$out is not visible in the shared root"
mount -t 9p -o "$p9" out "/host$out" || fail "mount the test directory"
mkdir -m 0700 /host/run/gui /host/run/gui/home
say "host root mounted"

# in_root CMD...: runs CMD in the host's root with weston's environment
in_root()
{
	chroot /host /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin \
		HOME=/run/gui/home XDG_RUNTIME_DIR=/run/gui \
		WAYLAND_DISPLAY=wl-ivwl "$@"
}

# Not through in_root: $! must be weston itself (chroot and env exec).
chroot /host /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin \
	HOME=/run/gui/home XDG_RUNTIME_DIR=/run/gui \
	weston --backend=headless-backend.so --use-pixman \
	--width="$width" --height="$height" --socket=wl-ivwl --idle-time=0 \
	--debug --config="$out/weston.ini" --log="$out/weston.log" &
weston=$!
say "weston started"
attached()
{
	kill -0 $weston 2>/dev/null || fail "weston exited"
	grep -q '\[work\] attached to /dev/ivwl0' "/host$out/weston.log" 2>/dev/null
}
wait_for 1800 "weston and the plugin on /dev/ivwl0" attached
say "weston attached"

while read -r cmd; do
	case $cmd in
	scene)
		in_root weston-debug scene-graph >"/host$out/scene.txt" 2>&1
		say "scene done"
		;;
	shot)
		mkdir -p "/host$out/shots"
		in_root sh -c "cd '$out/shots' && exec weston-screenshooter" ||
			echo "GUI: FAIL: weston-screenshooter"
		say "shot done"
		;;
	live)
		# one look at the plugin's live view: it prints on subscribing
		in_root timeout 8 weston-debug ivwl >"/host$out/live.txt" 2>&1
		say "live done"
		;;
	fds)
		for f in /proc/$weston/fd/*; do
			readlink "$f"
		done >"/host$out/fds.txt" 2>&1
		say "fds done"
		;;
	quit)
		break
		;;
	esac
done

kill $weston
wait $weston
status=$?
say "weston ended (status $status)"
[ $status = 0 ] || fail "weston exited with $status"
rmmod ivwl || fail "rmmod ivwl"
echo "----- gui-vm dmesg -----"
dmesg | grep -v -E 'ivwl: (loading out-of-tree|module verification failed)'
echo "----- end of gui-vm dmesg -----"
echo "GUI RESULT: PASS"
