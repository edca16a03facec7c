#!/bin/bash
# SPDX-License-Identifier: MIT
# The Debian packages, end to end, on this machine (root only; CI is a
# fresh bookworm machine): builds them from a copy of the source tree
# with dpkg-buildpackage, checks them with lintian, installs them with
# dpkg, builds ivwl.ko through DKMS for every kernel whose headers are
# installed, runs the demo from the installed paths only, then removes
# and purges them and checks that nothing of them is left.
#
#   test-packages.sh SRCDIR
set -u
src=$(cd "${1:?usage: test-packages.sh SRCDIR}" && pwd)
pkgs=(weston-ivwl ivwl-app ivwl-server ivwl-dkms)
export DEBIAN_FRONTEND=noninteractive

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: installs packages with dpkg: run as root"
	exit 77
fi
for tool in dpkg-buildpackage lintian dkms; do
	command -v $tool >/dev/null || {
		echo "FAIL: $tool is missing (tools/deps.sh installs it)"
		exit 1
	}
done

# Installed by someone on purpose, or left by a run that was killed:
# either way not this test's to purge.
for p in "${pkgs[@]}"; do
	if dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null |
	   grep -q '^.[^n]'; then
		echo "SKIP: $p is installed here; dpkg --purge ${pkgs[*]} to run this test"
		exit 77
	fi
done

work=$(mktemp -d /tmp/ivwl-pkg.XXXXXX)
fail=0
step() { printf '\n== %s (%ds)\n' "$*" $SECONDS; }
bad() { echo "FAIL: $*"; fail=1; }
purge_all() {
	local p
	for p in "${pkgs[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'not-installed' ||
			dpkg --purge "$p" >/dev/null 2>&1 || true
	done
}
cleanup() {
	purge_all
	rm -rf "$work"
}
trap cleanup EXIT
trap "exit 1" INT TERM

step "copy of the source tree"
mkdir "$work/src"
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
	# what git tracks and what it would track: no build directories
	(cd "$src" && git ls-files -co --exclude-standard -z |
		tar --null -T - -cf -) | tar -xf - -C "$work/src"
else
	tar -C "$src" --exclude='./build*' --exclude='./obj-*' -cf - . |
		tar -xf - -C "$work/src"
fi

step "dpkg-buildpackage -us -uc -b"
# The unit and man suites run in the tree's own build; nocheck here.
if ! (cd "$work/src" && DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" \
	nice dpkg-buildpackage -us -uc -b >"$work/build.log" 2>&1); then
	tail -40 "$work/build.log"
	echo "FAIL: dpkg-buildpackage"
	exit 1
fi
debs=()
for p in "${pkgs[@]}"; do
	deb=$(ls "$work"/${p}_*.deb 2>/dev/null | head -1)
	[ -n "$deb" ] || { bad "no package $p was built"; continue; }
	debs+=("$deb")
	echo "$(basename "$deb"): $(dpkg-deb -c "$deb" | grep -vc '/$') files"
done
[ $fail = 0 ] || exit 1
# ivwl.so loads into the weston major it was built for, and says so
# (dpkg-gencontrol keeps the stronger of ours and shlibs', >= 14.0.2)
major=
for m in 16 14 10; do
	pkg-config --exists libweston-$m && { major=$m; break; }
done
depends=$(dpkg-deb -f "$work"/weston-ivwl_*.deb Depends)
case $depends in
*"weston (>= $major"*"weston (<< $((major + 1)))"*)
	echo "weston-ivwl: Depends: $depends" ;;
*) bad "weston-ivwl does not depend on weston $major: $depends" ;;
esac

step "lintian"
lintian --display-info "$work"/ivwl_*.changes >"$work/lintian.log" 2>&1
cat "$work/lintian.log"
# Errors and warnings fail; debian/*.lintian-overrides explain the rest.
grep -q '^[EW]: ' "$work/lintian.log" && bad "lintian errors or warnings"

step "dpkg -i"
# dpkg goes on configuring the others when one fails (ivwl-dkms when
# ivwl.ko does not build for a kernel): the checks below still run.
if ! dpkg -i "${debs[@]}" >"$work/install.log" 2>&1; then
	cat "$work/install.log"
	tail -30 /var/lib/dkms/ivwl/*/build/make.log 2>/dev/null
	bad "dpkg -i"
else
	grep -E 'Building|Installing to' "$work/install.log" | sed 's/^/    /'
fi
getent group ivwl >/dev/null || bad "the ivwl group was not created"
getent passwd ivwl >/dev/null || bad "the ivwl user was not created"
enabled=$(find /etc/systemd/system -name 'ivwl-*' 2>/dev/null)
[ -z "$enabled" ] || bad "installing enabled units: $enabled"
# weston 14 and 16 install no weston.pc: their modules are in
# libweston's libdir
weston_dir=$(pkg-config --variable=pkglibexecdir weston 2>/dev/null) ||
	weston_dir=$(pkg-config --variable=libdir libweston-$major)/weston
for f in /usr/bin/ivwl-server /usr/bin/ivwl-agent /usr/libexec/ivwl/ivwl-relay \
	 "$weston_dir/ivwl.so" /lib/udev/rules.d/60-ivwl.rules \
	 /usr/share/man/man7/weston-ivwl.7.gz /usr/share/man/man7/ivwl-shim.7.gz \
	 /usr/share/man/man8/ivwl-server.8.gz /usr/share/man/man8/ivwl-agent.8.gz \
	 /usr/bin/ivwl-xwm /usr/lib/systemd/user/ivwl-xwm.service \
	 /usr/share/man/man1/ivwl-xwm.1.gz; do
	[ -e "$f" ] || bad "$f is not installed"
done
ldconfig -p | grep -q 'libivwl-shim.so ' || bad "libivwl-shim.so is not in the library path"

step "DKMS: ivwl.ko for each kernel with headers"
version=$(dpkg-query -W -f='${Version}' ivwl-dkms)
[ -f "/usr/src/ivwl-$version/dkms.conf" ] || bad "no /usr/src/ivwl-$version/dkms.conf"
dkms status ivwl
kernels=0
for build in /lib/modules/*/build; do
	[ -d "$build" ] || continue
	kver=$(basename "$(dirname "$build")")
	kernels=$((kernels + 1))
	if ! dkms build -m ivwl -v "$version" -k "$kver" >"$work/dkms-$kver.log" 2>&1 &&
	   ! grep -q 'already built' "$work/dkms-$kver.log"; then
		cat "$work/dkms-$kver.log"
		cat /var/lib/dkms/ivwl/"$version"/build/make.log 2>/dev/null | tail -30
		bad "dkms build for $kver"
		continue
	fi
	ko=$(ls /var/lib/dkms/ivwl/"$version"/"$kver"/*/module/ivwl.ko* 2>/dev/null | head -1)
	if [ -z "$ko" ]; then
		bad "dkms built no ivwl.ko for $kver"
		continue
	fi
	vermagic=$(modinfo -F vermagic "$ko")
	case $vermagic in
	"$kver "*) echo "ok: $kver: $ko ($vermagic)" ;;
	*) bad "$ko is for '$vermagic', not $kver" ;;
	esac
done
[ $kernels -gt 0 ] || bad "no kernel headers installed (linux-headers-amd64: tools/deps.sh)"
echo "running kernel $(uname -r): headers $([ -d "/lib/modules/$(uname -r)/build" ] && echo installed || echo 'not installed, so not built for it')"

step "the demo from the installed paths"
# Nothing of the source or build tree on any path: a clean environment,
# and the demo's --installed mode, which takes every program, module and
# library from the system.
(cd / && env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
	bash "$work/src/tools/demo.sh" --installed --seconds 1 \
	--out "$work/demo.png") >"$work/demo.log" 2>&1
demo_rc=$?
cat "$work/demo.log"
[ $demo_rc = 0 ] || bad "the demo failed ($demo_rc)"
grep -q "modules=ivwl.so" "$work/demo.log" || bad "weston was not given the installed ivwl.so"
grep -q "ivwl: \[work\] attached" "$work/demo.log" || bad "ivwl.so did not attach to the region"
relays=$(sed -n '/^== the relays serving them/,/^==/p' "$work/demo.log" |
	grep '^    [0-9]')
echo "$relays" | grep -q ' /usr/libexec/ivwl/ivwl-relay$' ||
	bad "no client was served by the installed ivwl-relay"
echo "$relays" | grep -v ' /usr/libexec/ivwl/ivwl-relay$' | grep -q . &&
	bad "relays other than the installed one: $relays"
grep -q "^    '\[work\] " "$work/demo.log" ||
	bad "no window of VM work came through the region (weston-debug scene-graph)"
[ "$(head -c 8 "$work/demo.png" 2>/dev/null | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] ||
	bad "no screenshot"
[ -n "${IVWL_PKG_SHOT:-}" ] && cp "$work/demo.png" "$IVWL_PKG_SHOT"

step "dpkg -r, then dpkg -P"
lists=$work/files
for p in "${pkgs[@]}"; do dpkg -L "$p"; done | sort -u >"$lists"
dpkg -r "${pkgs[@]}" >"$work/remove.log" 2>&1 || { cat "$work/remove.log"; bad "dpkg -r"; }
dpkg -P "${pkgs[@]}" >"$work/purge.log" 2>&1 || { cat "$work/purge.log"; bad "dpkg -P"; }
for p in "${pkgs[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null)
	[ -z "$st" ] || [ "$st" = "un " ] || bad "$p is still known to dpkg: '$st'"
done
# Every file the packages held is gone (directories other packages
# share stay); so is what DKMS built and installed.
while read -r f; do
	[ -d "$f" ] && continue
	[ -e "$f" ] || [ -L "$f" ] && bad "left after purge: $f"
done <"$lists"
[ -e "/usr/src/ivwl-$version" ] && bad "left after purge: /usr/src/ivwl-$version"
[ -e /var/lib/dkms/ivwl ] && bad "left after purge: /var/lib/dkms/ivwl"
left=$(find /lib/modules -name 'ivwl.ko*' 2>/dev/null)
[ -z "$left" ] || bad "left after purge: $left"
[ -n "$(dkms status ivwl 2>/dev/null)" ] && bad "dkms still lists ivwl"
left=$(find /etc/systemd /var/lib/systemd -name '*ivwl*' 2>/dev/null)
[ -z "$left" ] || bad "left after purge: $left"
# The ivwl user and group stay, as Debian leaves system users: files
# they own may be left elsewhere.

printf '\n== done in %ds\n' $SECONDS
[ $fail = 0 ] && echo "packages: built, lintian clean, installed, demo ran, purged clean"
exit $fail
