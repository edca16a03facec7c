#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Runs the kernel's checkpatch.pl over the driver's sources, then the
# tree's kernel-doc over their doc comments (meson target checkpatch-ko).
# checkpatch.pl is not in Debian's headers package; it is found, in
# order, as $CHECKPATCH, KDIR/scripts/, or extracted (once, with its
# data files) from Debian's linux-source tarball into CACHEDIR.
#
#   checkpatch.sh KDIR SRCDIR CACHEDIR
set -eu
kdir=$1 src=$2 cache=$3

cp=${CHECKPATCH:-}
if [ -z "$cp" ] && [ -f "$kdir/scripts/checkpatch.pl" ]; then
	cp=$kdir/scripts/checkpatch.pl
fi
if [ -z "$cp" ]; then
	tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -rV | head -n 1)
	if [ -z "$tarball" ]; then
		echo "checkpatch.sh: set CHECKPATCH, or install linux-source" >&2
		exit 1
	fi
	top=$(basename "$tarball" .tar.xz)
	cp=$cache/$top/scripts/checkpatch.pl
	if [ ! -f "$cp" ]; then
		echo "checkpatch.sh: extracting checkpatch.pl from $tarball"
		mkdir -p "$cache"
		tar -xJf "$tarball" -C "$cache" "$top/scripts/checkpatch.pl" \
			"$top/scripts/spelling.txt" \
			"$top/scripts/const_structs.checkpatch"
	fi
fi
# LINUX_VERSION_CODE: ivwl_compat.h exists to test it, for the kernels
# an out-of-tree module is built for.
perl "$cp" --no-tree --strict --ignore BIT_MACRO,LINUX_VERSION_CODE -f \
	"$src"/*.c "$src"/*.h "$src/uapi/ivwl.h"
# The kernel-doc comments of the structs and ioctls, with the tree's own
# parser when it ships one (Debian's headers do).
if [ -x "$kdir/scripts/kernel-doc" ]; then
	"$kdir/scripts/kernel-doc" -none -Werror \
		"$src"/*.c "$src"/*.h "$src/uapi/ivwl.h"
	echo "kernel-doc: no warnings"
fi
