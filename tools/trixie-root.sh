#!/bin/bash
# SPDX-License-Identifier: MIT
# A Debian trixie root (weston 14, libwayland 1.23) to build and test
# ivwl in from a bookworm machine, and a way to run commands in it;
# with IVWL_ROOT_SUITE=sid (tools/sid-root.sh), a sid root (weston 16,
# libwayland 1.24) the same way.
#
#   tools/trixie-root.sh ensure       make the root, or bring it up to
#                                     date when the package list changed
#   tools/trixie-root.sh run CMD...   run CMD in the root, in /src (this
#                                     checkout), with /dev, /proc, /sys
#
# The root stays in $IVWL_TRIXIE_ROOT (default /var/cache/ivwl/trixie-root;
# for sid $IVWL_SID_ROOT, default /var/cache/ivwl/sid-root) between runs.  Commands run as tools/root-run.sh runs them: in a mount
# namespace of their own, the checkout at /src and at its own path, and
# the directory $IVWL_TRIXIE_SHARE, if set, at its own path under the
# root's /tmp.
set -eu

suite=${IVWL_ROOT_SUITE:-trixie}
mirror=${IVWL_TRIXIE_MIRROR:-http://deb.debian.org/debian}
src=$(cd "$(dirname "$0")/.." && pwd)
# what differs between the suites: the weston, clang's runtime, and sid's
# Release files, which a mirror's snapshot lets expire (apt then refuses
# the suite: "Release file ... is expired")
apt_opts=() mm_opts=()
case $suite in
trixie)
	root=${IVWL_TRIXIE_ROOT:-/var/cache/ivwl/trixie-root}
	suite_packages=(libweston-14-dev libclang-rt-19-dev)
	;;
sid)
	root=${IVWL_SID_ROOT:-/var/cache/ivwl/sid-root}
	suite_packages=(libweston-16-dev libclang-rt-dev mount)
	apt_opts=(-o 'Acquire::Check-Valid-Until=false')
	mm_opts=(--aptopt='Acquire::Check-Valid-Until "false"')
	;;
*)
	echo "ivwl: IVWL_ROOT_SUITE is trixie or sid, not $suite" >&2
	exit 2
	;;
esac

# What the build, the tests and the packages need there.
packages=(
	build-essential meson ninja-build pkgconf python3
	"${suite_packages[@]}" weston libwayland-dev wayland-protocols
	libpixman-1-dev libxkbcommon-dev
	foot mpv chromium gtk-3-examples wl-clipboard waypipe
	xvfb xdotool x11-utils
	clang
	dpkg-dev debhelper fakeroot lintian dkms dh-dkms linux-headers-amd64
	adduser
	mandoc
	libxcb1-dev libxcb-composite0-dev libxcb-xfixes0-dev xwayland xterm
	x11-apps xfonts-base xclip qtbase5-examples qtwayland5 tk
	libegl-mesa0 libgl1-mesa-dri libgles2
	libcairo2-dev libpango1.0-dev fonts-dejavu-core
)

need_root()
{
	if [ "$(id -u)" -ne 0 ]; then
		echo "ivwl: the $suite root needs root (mmdebstrap, mounts)" >&2
		exit 1
	fi
}

ensure()
{
	local stamp="$root/.ivwl-packages" want
	want=$(printf '%s\n' "${packages[@]}")
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
		return
	fi
	need_root
	if ! command -v mmdebstrap >/dev/null; then
		apt-get update -q
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends mmdebstrap
	fi
	if [ ! -x "$root/usr/bin/apt-get" ]; then
		echo "ivwl: making a $suite root in $root"
		rm -rf "$root.tmp"
		mkdir -p "$(dirname "$root")"
		mmdebstrap --variant=apt \
			"${mm_opts[@]}" \
			--include="$(IFS=,; echo "${packages[*]}")" \
			"$suite" "$root.tmp" "$mirror"
		rm -rf "$root"
		mv "$root.tmp" "$root"
	else
		echo "ivwl: bringing the $suite root in $root up to date"
		cp /etc/resolv.conf "$root/etc/resolv.conf"
		chroot "$root" apt-get "${apt_opts[@]}" update -q
		chroot "$root" env DEBIAN_FRONTEND=noninteractive \
			apt-get "${apt_opts[@]}" install -y -q \
			--no-install-recommends \
			"${packages[@]}"
	fi
	echo "$want" >"$stamp"
}

run()
{
	[ -x "$root/usr/bin/weston" ] || {
		echo "ivwl: no $suite root in $root: run '$0 ensure'" >&2
		exit 1
	}
	IVWL_ROOT_SHARE=${IVWL_TRIXIE_SHARE:-} exec "$src/tools/root-run.sh" \
		"$root" "$@"
}

case "${1:-}" in
ensure) ensure ;;
run) shift; [ $# -gt 0 ] || set -- bash; run "$@" ;;
*) sed -n '3,10s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
esac
