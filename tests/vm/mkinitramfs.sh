#!/bin/bash
# SPDX-License-Identifier: MIT
# Builds a gzip'd cpio initramfs for the VM tests:
#
#   mkinitramfs.sh OUT FILE...
#
# The image holds busybox-static (/init makes a symlink per applet at
# boot), an /init and each FILE: "path" lands in /bin/<basename of path>,
# "path=/dest/name" lands in /dest/name (for modules, data files...).
# A dynamically linked FILE (program or shared library) brings its shared
# library closure as ldd resolves it on this machine, each library at the
# path ldd names, the program interpreter included: the guest boots this
# machine's kernel, so this machine's libraries are the right ones.
# An xz-compressed kernel module (Debian's 6.12 ships *.ko.xz) is stored
# decompressed, its destination without ".xz": busybox's insmod loads
# plain modules only.
#
# /init mounts proc, sys, dev and /tmp, then runs the command named on the
# kernel command line by ivwl.run=, words separated by commas:
#
#   ivwl.run=/bin/guest-probe,--size,67108864
#
# prints "IVWL-INIT: exit status N" and powers the machine off.  Without
# ivwl.run= it starts a shell on the console.  Needs no root: ownership in
# the archive is set by cpio.
#
# BUSYBOX overrides the busybox binary (default: /bin/busybox of
# busybox-static); it must be statically linked.
set -eu

die()
{
	echo "mkinitramfs: $*" >&2
	exit 1
}

# True when an ELF file asks for a program interpreter (dynamic binary).
is_dynamic()
{
	command -v readelf >/dev/null 2>&1 || return 1
	LC_ALL=C readelf -l "$1" 2>/dev/null | grep -q 'program interpreter'
}

# True when an ELF file (program or library) needs shared libraries.
needs_libs()
{
	command -v readelf >/dev/null 2>&1 || return 1
	LC_ALL=C readelf -d "$1" 2>/dev/null | grep -q '(NEEDED)'
}

# Copies what ldd says FILE loads into the image, at the same paths.
copy_closure()
{
	local lib

	command -v ldd >/dev/null 2>&1 || die "ldd not found: install libc-bin"
	LC_ALL=C ldd "$1" >"$tmp/ldd" 2>&1 || die "ldd $1 failed: $(cat "$tmp/ldd")"
	if grep -q 'not found' "$tmp/ldd"; then
		die "$1 needs libraries this machine lacks: $(grep 'not found' "$tmp/ldd")"
	fi
	# "name => /path (addr)", "/path/ld.so (addr)"; skip the vDSO
	for lib in $(awk '$2 == "=>" && $3 ~ /^\// { print $3 }
			  $1 ~ /^\// { print $1 }' "$tmp/ldd"); do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}

[ $# -ge 1 ] || die "usage: mkinitramfs.sh OUT [FILE[=/DEST]]..."
out=$1
shift

busybox=${BUSYBOX:-/bin/busybox}
[ -x "$busybox" ] ||
	die "$busybox not found: install the busybox-static package"
if is_dynamic "$busybox"; then
	die "$busybox is dynamically linked: install busybox-static"
fi
command -v cpio >/dev/null 2>&1 || die "cpio not found: install cpio"
command -v gzip >/dev/null 2>&1 || die "gzip not found: install gzip"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ivwl-initramfs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root

mkdir -p "$root"/bin "$root"/sbin "$root"/usr/bin "$root"/usr/sbin \
	"$root"/proc "$root"/sys "$root"/dev "$root"/tmp "$root"/run \
	"$root"/etc "$root"/lib/modules
cp "$busybox" "$root"/bin/busybox
chmod 0755 "$root"/bin/busybox

# /init installs a symlink per applet at boot (busybox --install): much
# faster than a few hundred ln calls here.  Only sh is needed up front.
"$busybox" --list | grep -qx sh || die "$busybox has no sh applet"
ln -s busybox "$root"/bin/sh

for spec in "$@"; do
	case $spec in
	*=/*)
		src=${spec%%=/*}
		dest=/${spec#*=/}
		;;
	*)
		src=$spec
		dest=/bin/$(basename "$spec")
		;;
	esac
	[ -f "$src" ] || die "$src: no such file"
	if is_dynamic "$src" || needs_libs "$src"; then
		copy_closure "$src"
	fi
	mkdir -p "$root$(dirname "$dest")"
	case $src in
	*.ko.xz)
		command -v xz >/dev/null 2>&1 ||
			die "$src: xz not found: install xz-utils"
		xz -dc "$src" >"$root${dest%.xz}" || die "$src: xz failed"
		;;
	*) cp "$src" "$root$dest" ;;
	esac
done

cat >"$root"/init <<'EOF'
#!/bin/sh
# ivwl VM test init: see tests/vm/mkinitramfs.sh
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
/bin/busybox mount -t proc proc /proc
/bin/busybox --install -s /bin 2>/dev/null
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
exec 0</dev/console 1>/dev/console 2>&1

set -f
run=
for arg in $(cat /proc/cmdline); do
	case $arg in
	ivwl.run=*) run=${arg#ivwl.run=} ;;
	esac
done

if [ -z "$run" ]; then
	echo "IVWL-INIT: no ivwl.run= on the kernel command line, starting a shell"
	/bin/sh
	status=$?
else
	cmd=$(echo "$run" | tr ',' ' ')
	echo "IVWL-INIT: running $cmd"
	$cmd
	status=$?
fi
echo "IVWL-INIT: exit status $status"
sync
poweroff -f
# poweroff -f does not return; should it fail, panic=-1 and -no-reboot
# still end the VM when init exits.
exit "$status"
EOF
chmod 0755 "$root"/init

(cd "$root" && find . -print0 | LC_ALL=C sort -z |
	cpio --quiet -o -0 -H newc -R 0:0) | gzip -9n >"$tmp"/initramfs.gz
mv "$tmp"/initramfs.gz "$out"
