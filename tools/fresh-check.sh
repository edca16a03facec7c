#!/bin/bash
# SPDX-License-Identifier: MIT
# README's test command as a newcomer runs it: on a fresh Debian
# bookworm system (a root made here with mmdebstrap: what debootstrap
# installs, priorities required and important, and git), in a clean
# clone of this checkout's HEAD, RUNS times in a row (default 1).  Nothing this machine installed, cached or ran
# before reaches it: tests/run.sh installs what it needs and makes its
# own trixie root inside.
#
#   tools/fresh-check.sh [RUNS]
#
# The root is made anew in $IVWL_FRESH_ROOT (default
# /var/tmp/ivwl-fresh-root) and left there for a look afterwards; each
# run's output goes to $IVWL_FRESH_ROOT.logs/run-N.log, and its last
# line ("N passed, N failed, N skipped") is printed.  Exits non-zero
# when any run failed.
set -eu

runs=${1:-1}
root=${IVWL_FRESH_ROOT:-/var/tmp/ivwl-fresh-root}
mirror=${IVWL_FRESH_MIRROR:-http://deb.debian.org/debian}
src=$(cd "$(dirname "$0")/.." && pwd)
logs=$root.logs

if [ "$(id -u)" -ne 0 ]; then
	echo "ivwl: a fresh root needs root (mmdebstrap, mounts)" >&2
	exit 1
fi
command -v mmdebstrap >/dev/null || {
	echo "ivwl: install mmdebstrap first (tools/deps.sh does)" >&2
	exit 1
}
rm -rf "$root" "$logs"
mkdir -p "$logs"
echo "ivwl: making a fresh bookworm root in $root"
# the security updates too, as a bookworm machine installed today has
mmdebstrap --variant=important --include=git,ca-certificates bookworm \
	"$root" \
	"deb $mirror bookworm main" \
	"deb $mirror bookworm-updates main" \
	"deb http://deb.debian.org/debian-security bookworm-security main"
git clone -q --no-local "$src" "$root/ivwl"
git -C "$root/ivwl" log --oneline -1

failed=0
for n in $(seq 1 "$runs"); do
	start=$(date +%s)
	if "$src/tools/root-run.sh" "$root" bash -c \
		'cd /ivwl && CI=true tests/run.sh' </dev/null \
		>"$logs/run-$n.log" 2>&1; then
		rc=0
	else
		rc=$?
		failed=1
	fi
	echo "run $n: exit $rc, $(( ($(date +%s) - start) / 60 )) min:" \
		"$(tail -1 "$logs/run-$n.log")"
done
exit $failed
