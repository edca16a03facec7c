#!/bin/sh
# Prints the kernel build tree to build ivwl.ko against and its release
# (UTS_RELEASE), one per line, for kernel/meson.build.
#
#   find-kdir.sh auto|PATH
#
# auto tries, in order: the running kernel's /lib/modules/$(uname -r)/build,
# the newest /lib/modules/*/build, the newest
# /usr/src/linux-headers-*-amd64 (Debian: linux-headers-amd64).  Exits 1
# (auto: nothing found) or 2 (PATH is not a prepared build tree).
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

if [ "${1:-auto}" != auto ]; then
	if usable "$1"; then
		(cd "$1" && pwd -P)
		release_of "$1"
		exit 0
	fi
	echo "$1: no Makefile and include/generated/utsrelease.h: not a prepared kernel build tree" >&2
	exit 2
fi

for k in "/lib/modules/$(uname -r)/build" \
	$(ls -d /lib/modules/*/build 2>/dev/null | sort -rV) \
	$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -rV); do
	if usable "$k"; then
		(cd "$k" && pwd -P)
		release_of "$k"
		exit 0
	fi
done
exit 1
