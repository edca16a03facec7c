#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Builds ivwl.ko out of tree through kbuild without writing into the
# source tree: copies the sources into a private directory and runs
# kbuild there (Linux 6.1 kbuild has no separate output directory for
# M=).  W=1, and any compiler warning fails the build.  Used by
# kernel/meson.build; by hand, kernel/Makefile does the same in place.
#
#   build-ko.sh KDIR SRCDIR WORKDIR OUT
set -eu
[ $# -eq 4 ] || { echo "usage: build-ko.sh KDIR SRCDIR WORKDIR OUT" >&2; exit 2; }
kdir=$1 src=$2 work=$3 out=$4

mkdir -p "$work/uapi"
cp "$src"/Kbuild "$src"/Makefile "$src"/*.c "$src"/*.h "$work/"
cp "$src/uapi/ivwl.h" "$work/uapi/"
log=$work/build.log
if ! make -C "$kdir" M="$(cd "$work" && pwd)" W=1 modules >"$log" 2>&1; then
	cat "$log" >&2
	exit 1
fi
# Warnings are errors here: the module must build clean.
if grep -E 'warning:|error:' "$log" >&2; then
	echo "build-ko: warnings while building ivwl.ko (see above)" >&2
	exit 1
fi
cp "$work/ivwl.ko" "$out"
