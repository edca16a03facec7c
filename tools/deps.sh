#!/bin/bash
# SPDX-License-Identifier: MIT
# Installs what building, testing and the demo need on Debian bookworm.
# Does nothing when everything is already there.
set -eu

packages=(
	build-essential meson ninja-build pkg-config gcc make clang
	libclang-rt-14-dev python3
	clang-format
	libwayland-dev wayland-protocols libpixman-1-dev
	weston libweston-10-dev
	qemu-system-x86 linux-image-amd64 linux-headers-amd64 busybox-static cpio
	xz-utils
	xvfb xdotool x11-utils wl-clipboard foot mpv chromium gtk-3-examples
	waypipe
	dpkg-dev debhelper dh-dkms dkms lintian adduser mandoc man-db
	mmdebstrap
	libxcb1-dev libxcb-composite0-dev libxcb-xfixes0-dev xwayland xterm
	x11-apps xfonts-base xclip qtbase5-examples qtwayland5 tk
	libegl-mesa0 libgl1-mesa-dri libgles2
	libcairo2-dev libpango1.0-dev fonts-dejavu-core
)

installed()
{
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null |
		grep -q "install ok installed"
}

missing=()
for p in "${packages[@]}"; do
	installed "$p" || missing+=("$p")
done

# The VM tests also boot bookworm's Linux 6.12 (ivwl.ko is built and
# tested on 6.1 and 6.12).  Its packages carry the ABI in their names
# and have no metapackage: keep an installed image with its headers,
# else take the newest one apt offers (after the update below).
kernel_612_headers()
{
	local release=${1#linux-image-}
	echo "linux-headers-${release%-unsigned}"
}
kernel_612=
for p in $(dpkg-query -W -f='${Package}\n' \
	   'linux-image-6.12.*+deb12-amd64-unsigned' 2>/dev/null | sort -rV); do
	if installed "$p" && installed "$(kernel_612_headers "$p")"; then
		kernel_612=$p
		break
	fi
done

[ ${#missing[@]} -eq 0 ] && [ -n "$kernel_612" ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || {
		echo "ivwl: need root (or sudo) to install: ${missing[*]} ${kernel_612:-Linux 6.12}" >&2
		exit 1
	}
	sudo=sudo
fi
$sudo apt-get update -q
if [ -z "$kernel_612" ]; then
	kernel_612=$(apt-cache search --names-only \
		'^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$' |
		cut -d' ' -f1 | sort -V | tail -n 1)
	if [ -z "$kernel_612" ]; then
		echo "ivwl: apt offers no linux-image-6.12.*+deb12-amd64-unsigned (bookworm-security or bookworm-backports needed)" >&2
		exit 1
	fi
	missing+=("$kernel_612" "$(kernel_612_headers "$kernel_612")")
fi
echo "ivwl: installing ${missing[*]}"
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
