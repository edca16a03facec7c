#!/bin/bash
# Installs what building, testing and the demo need on Debian bookworm.
# Does nothing when everything is already there.
set -eu

packages=(
	meson ninja-build pkg-config gcc make clang libclang-rt-14-dev python3
	libwayland-dev wayland-protocols libpixman-1-dev
	weston libweston-10-dev
	qemu-system-x86 linux-image-amd64 linux-headers-amd64 busybox-static cpio
	xvfb xdotool x11-utils wl-clipboard foot mpv chromium gtk-3-examples
	waypipe
)

missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
	     grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "ivwl: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || {
		echo "ivwl: need root (or sudo) to install: ${missing[*]}" >&2
		exit 1
	}
	sudo=sudo
fi
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
