#!/bin/sh
# SPDX-License-Identifier: MIT
# The app-vm of tests/vm/deploy-b: ivwl.ko, ivwl-agent on /dev/ivwl0 and
# one unmodified Wayland client through the shim.  Prints "GUEST: ..."
# milestones (with the guest's uptime) that test-deploy-b.py waits for.
#
#   guest.sh WIDTH HEIGHT FRAMES TITLE [now|wait] [auto|on|off]
#
# With "wait", the client starts only once the host says "go" on the
# console (deploy-a: the display side is then a VM that boots alongside).
# The last word is the shim's IVWL_ZERO_COPY (default auto); the shim's
# IVWL_DEBUG lines are printed at the end.  Once the client is up, the
# host may say "restart" (deploy-a: the display goes and comes back):
# the client's pid and start time are printed, then whether its relay
# got its windows back.  "done" ends the test.
width=$1 height=$2 frames=$3 title=$4 start=${5:-now} zero_copy=${6:-auto}

say()
{
	echo "GUEST: $* (uptime $(cut -d' ' -f1 /proc/uptime) s)"
}

fail()
{
	echo "GUEST: FAIL: $*"
	echo "----- agent log -----"; cat /tmp/agent.log 2>/dev/null
	echo "----- client stderr -----"; cat /tmp/client.err 2>/dev/null
	dmesg | tail -n 30
	echo "GUEST RESULT: FAIL $*"
	exit 1
}

# wait_for TENTHS WHAT COMMAND...: polls every 0.1 s
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

insmod /lib/modules/ivwl.ko || fail "insmod ivwl.ko"
wait_for 100 /dev/ivwl0 test -c /dev/ivwl0
say "driver loaded"

agent_log=/tmp/agent.log
ivwl-agent --device /dev/ivwl0 --listen /run/ivwl-agent.sock --verbose \
	>$agent_log 2>&1 &
agent=$!
agent_up()
{
	kill -0 $agent 2>/dev/null || fail "ivwl-agent exited: $(cat $agent_log)"
	test -S /run/ivwl-agent.sock
}
wait_for 300 "the agent's socket" agent_up
say "agent listening"

# A second agent on the same device is refused with the line that says
# what to do, and leaves the first one serving.
status=0
second=$(ivwl-agent --device /dev/ivwl0 --listen /run/ivwl-agent2.sock 2>&1) ||
	status=$?
[ $status = 1 ] || fail "a second agent on /dev/ivwl0 exited with $status"
case $second in
*"--device /dev/ivwl0: another ivwl-agent (or weston) has it open; stop that one first"*) ;;
*) fail "a second agent said: $second" ;;
esac
agent_up || fail "the first agent did not survive a second one"
say "second agent refused"

# Presentation times against the guest's clock (guest-clock.sh).
[ "$title" = clock ] && . /bin/guest-clock.sh

if [ "$start" = wait ]; then
	say "waiting to start the client"
	read -r answer || fail "no answer from the host"
	[ "$answer" = go ] || fail "the host said '$answer'"
fi

# No Wayland socket in the runtime dir: only the region can carry it.
mkdir -m 0700 /run/app
XDG_RUNTIME_DIR=/run/app WAYLAND_DISPLAY=wayland-0 \
	IVWL_AGENT=/run/ivwl-agent.sock IVWL_RELAY=/bin/ivwl-relay \
	LD_PRELOAD=/lib/ivwl/libivwl-shim.so IVWL_ZERO_COPY="$zero_copy" \
	IVWL_DEBUG=1 \
	ivwl-pattern-client --width "$width" --height "$height" \
	--frames "$frames" --title "$title" --dump /tmp/pattern.raw \
	--hold-ms 600000 >/tmp/client.out 2>/tmp/client.err &
client=$!
client_ready()
{
	grep -qx ready /tmp/client.out && return 0
	kill -0 $client 2>/dev/null || fail "the client exited: $(cat /tmp/client.err)"
	return 1
}
wait_for 1200 "the client's frames" client_ready
say "client ready"

echo "GUEST: DUMP BEGIN"
gzip -c /tmp/pattern.raw | base64
echo "GUEST: DUMP END"

# client_state: sets state ("running", or "gone" once the client exited:
# a zombie until waited for) and start, its start time in clock ticks
# since boot (a new process under the same pid would have another).
# Builtins only: the restart watch calls it ten times a second.
client_state()
{
	local stat

	state=gone start=-
	read -r stat 2>/dev/null </proc/$client/stat || return 0
	# after "(comm) ": the state is field 3, starttime field 22
	set -- ${stat##*") "}
	start=${20}
	[ "$1" = Z ] || state=running
}

client_status()
{
	client_state
	say "client pid $client start $start $state"
}

# relay_lines TEXT [TEXT]: how many of the client's stderr lines (its
# relay's log) hold a TEXT
relay_lines()
{
	grep -c -F -e "$1" -e "${2:-$1}" /tmp/client.err
}

# deploy-a's restart: the display is about to go and come back.  Says
# when the client's relay logs that its windows are back, or that the
# connection or the client ended meanwhile; then the relay's lines
# about it.
watch_restart()
{
	local back over either

	back=$(relay_lines "windows are back")
	over=$(relay_lines "connection over")
	either=$((back + over))
	while [ "$(relay_lines "windows are back" "connection over")" = $either ]
	do
		client_state
		[ $state = running ] || break
		sleep 0.1
	done
	if [ "$(relay_lines "windows are back")" != $back ] &&
	   [ "$(relay_lines "connection over")" = $over ]; then
		say "the client's windows are back"
		grep -F -e 'the display left' -e 'replaying' \
			-e 'windows are back' /tmp/client.err |
			sed 's/^/GUEST: client log: /'
	else
		grep -F -e ivwl-shim -e ivwl-relay /tmp/client.err | tail -n 20 |
			sed 's/^/GUEST: client log: /'
		echo "GUEST: FAIL: the client's connection did not survive" \
			"the display's restart"
	fi
	client_status
}

# The host compares pixels, then answers with a line on the console:
# "restart" (deploy-a: the display restarts) or "done".
say "waiting for the host"
while :; do
	read -r answer || fail "no answer from the host"
	case $answer in
	done)
		break
		;;
	restart)
		client_status
		watch_restart &
		say "watching the client across the display's restart"
		;;
	*)
		fail "the host said '$answer'"
		;;
	esac
done

# A crashed agent's successor binds the device at once, while a
# zero-copy client may still hold /dev/ivwl0 open.  The old agent's
# relay ends its connection as soon as the agent's socket ends (no
# display can come back on a region without it), saying why, and lets
# go of the device.
kill -9 $agent
wait $agent 2>/dev/null
rm -f /run/ivwl-agent.sock
agent_log=/tmp/agent2.log
ivwl-agent --device /dev/ivwl0 --listen /run/ivwl-agent.sock --verbose \
	>$agent_log 2>&1 &
agent=$!
wait_for 300 "a restarted agent's socket" agent_up
say "agent restarted after a crash"
# rmmod fails while any process holds the node
no_relay()
{
	! pidof ivwl-relay >/dev/null
}
wait_for 100 "ivwl-relay to end with its agent" no_relay
[ "$(relay_lines "ivwl-agent went away")" -ge 1 ] ||
	fail "the relay did not say that its agent went away"
say "relay ended with its agent"

kill $client 2>/dev/null
wait $client
say "client ended (status $?)"
kill $agent
wait $agent
status=$?
say "agent ended (status $status)"
echo "----- agent log -----"
cat /tmp/agent.log $agent_log
echo "----- end of agent log -----"
echo "----- client stderr -----"
cat /tmp/client.err
echo "----- end of client stderr -----"
[ $status = 0 ] || fail "ivwl-agent exited with $status"
grep -q 'peer 1, region 64 MiB' $agent_log ||
	fail "the agent did not report peer 1 and a 64 MiB region"
rmmod ivwl || fail "rmmod ivwl"
echo "----- guest dmesg -----"
dmesg | grep -v -E 'ivwl: (loading out-of-tree|module verification failed)'
echo "----- end of guest dmesg -----"
echo "GUEST RESULT: PASS"
