#!/bin/bash
# SPDX-License-Identifier: MIT
# Runs a command in a Debian root made with mmdebstrap, as a system of
# its own would: /dev, /proc, /sys and a fresh /tmp, the checkout at
# /src and at its own path.
#
#   tools/root-run.sh ROOT CMD...
#
# Commands run in a mount namespace of their own whose root is ROOT
# (pivot_root, not chroot): the kernel refuses user namespaces to a
# chrooted process, and chromium's sandbox needs them.  The mounts go
# with the namespace when CMD exits.  The directory $IVWL_ROOT_SHARE,
# if set, is at its own path under the root's /tmp: a path made outside
# means the same file inside.  CMD keeps the pid the caller started, so
# signals reach it.  Used by tools/trixie-root.sh and tools/fresh-check.sh.
set -eu

if [ $# -lt 2 ]; then
	sed -n '3,8s/^# \{0,1\}//p' "$0" >&2
	exit 2
fi
root=$1
shift
src=$(cd "$(dirname "$0")/.." && pwd)
if [ "$(id -u)" -ne 0 ]; then
	echo "ivwl: running in a root needs root (mounts)" >&2
	exit 1
fi
[ -x "$root/usr/bin/apt-get" ] || {
	echo "ivwl: $root is no Debian root" >&2
	exit 1
}
share=${IVWL_ROOT_SHARE:-}
case $share in
"") ;;
/tmp/?*) [ -d "$share" ] || { echo "ivwl: no directory $share" >&2; exit 1; } ;;
*) echo "ivwl: IVWL_ROOT_SHARE must be a directory under /tmp" >&2; exit 1 ;;
esac
mkdir -p "$root/src" "$root/.old-root"
cp /etc/resolv.conf "$root/etc/resolv.conf"
# the inner script runs in the new namespace, with the root, the
# checkout and the shared directory passed as arguments
exec unshare --mount --propagation private bash -eu -c '
	root=$1 src=$2 share=$3; shift 3
	mount --bind "$root" "$root"
	mount --rbind /dev "$root/dev"
	mount -t proc proc "$root/proc"
	mount --rbind /sys "$root/sys"
	mount -t tmpfs tmpfs "$root/tmp"
	mount --bind "$src" "$root/src"
	mkdir -p "$root$src"
	mount --bind "$src" "$root$src"
	if [ -n "$share" ]; then
		mkdir -p "$root$share"
		mount --bind "$share" "$root$share"
	fi
	cd "$root"
	pivot_root . .old-root
	exec chroot . /bin/bash -c "umount -l /.old-root && cd /src && exec \"\$@\"" \
		run "$@"' root-run "$root" "$src" "$share" "$@"
