# SPDX-License-Identifier: MIT
# Sourced by guest.sh when its TITLE is "clock" (test-deploy-b-clock.py):
# instead of the pattern client, ivwl-frames-client --check-clock twice,
# with the relay's time translation and without, then a clean end.  The
# guest's clocks started at its boot, seconds ago; the host's weston
# reports times of a clock that started at the host's.

run_frames()
{
	local name=$1

	shift
	env "$@" XDG_RUNTIME_DIR=/run/app WAYLAND_DISPLAY=wayland-0 \
		IVWL_AGENT=/run/ivwl-agent.sock IVWL_RELAY=/bin/ivwl-relay \
		LD_PRELOAD=/lib/ivwl/libivwl-shim.so \
		IVWL_ZERO_COPY="$zero_copy" \
		ivwl-frames-client --width "$width" --height "$height" \
		--frames "$frames" --warmup 5 --title "$name" --check-clock \
		</dev/null >/tmp/$name.out 2>/tmp/$name.err
	echo "GUEST: $name status $?: $(grep '^done' /tmp/$name.out)"
	sed "s/^/GUEST: $name stderr: /" /tmp/$name.err
}

mkdir -m 0700 /run/app
say "clocks: monotonic $(cut -d' ' -f1 /proc/uptime) s"
run_frames clock-on IVWL_CLOCK_TRANSLATE=on
run_frames clock-off IVWL_CLOCK_TRANSLATE=off
kill $agent
wait $agent
status=$?
say "agent ended (status $status)"
echo "----- agent log -----"
cat $agent_log
echo "----- end of agent log -----"
[ $status = 0 ] || fail "ivwl-agent exited with $status"
rmmod ivwl || fail "rmmod ivwl"
echo "----- guest dmesg -----"
dmesg | grep -v -E 'ivwl: (loading out-of-tree|module verification failed)'
echo "----- end of guest dmesg -----"
echo "GUEST RESULT: PASS"
exit 0
