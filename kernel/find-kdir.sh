#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Prints the kernel build trees to build ivwl.ko against, one per line:
# the tree and its release (UTS_RELEASE), separated by a space.  The
# first line is the main one (BUILD/kernel/ivwl.ko); kernel/meson.build
# builds a module for each line and the VM tests boot each kernel.
#
#   find-kdir.sh auto|PATH[,PATH...]
#
# auto takes one tree per kernel series (6.1, 6.12, ...): the running
# kernel's /lib/modules/$(uname -r)/build first, then the newest of the
# other series among /lib/modules/*/build and
# /usr/src/linux-headers-*-amd64 (Debian: linux-headers-amd64 and
# linux-headers-6.12.*+deb12-amd64), newest first.  A list of paths
# takes exactly those trees, the first being the main one.  Exits 1
# (auto: nothing found) or 2 (a PATH is not a prepared build tree).
set -u

release_of()
{
	sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' \
		"$1/include/generated/utsrelease.h" 2>/dev/null
}

usable()
{
	[ -f "$1/Makefile" ] && [ -n "$(release_of "$1")" ]
}

# 6.12.117+deb12-amd64 -> 6.12
series_of()
{
	echo "$1" | sed -n 's/^\([0-9]*\.[0-9]*\).*/\1/p'
}

if [ "${1:-auto}" != auto ]; then
	old_ifs=$IFS
	IFS=,
	set -f
	for k in $1; do
		if ! usable "$k"; then
			echo "$k: no Makefile and include/generated/utsrelease.h: not a prepared kernel build tree" >&2
			exit 2
		fi
		echo "$(cd "$k" && pwd -P) $(release_of "$k")"
	done
	IFS=$old_ifs
	exit 0
fi

# "release tree" of every candidate, newest release first; the running
# kernel's tree goes first whatever its release.
candidates()
{
	running=/lib/modules/$(uname -r)/build
	if usable "$running"; then
		echo "$(release_of "$running") $running"
	fi
	for k in /lib/modules/*/build /usr/src/linux-headers-*-amd64; do
		if usable "$k"; then
			echo "$(release_of "$k") $k"
		fi
	done | sort -rV
}

seen=
found=1
candidates | {
	while read -r release k; do
		series=$(series_of "$release")
		case " $seen " in
		*" $series "*) continue ;;
		esac
		seen="$seen $series"
		echo "$(cd "$k" && pwd -P) $release"
		found=0
	done
	exit $found
}
