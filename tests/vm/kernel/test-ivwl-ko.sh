#!/bin/bash
# SPDX-License-Identifier: MIT
# VM test of kernel/ivwl.ko: a QEMU (TCG) guest with ivshmem-doorbell,
# served by ivwl-server, loads ivwl.ko from a busybox initramfs and runs
# ivwl-ko-guest against /dev/ivwl0 while tests/vm/host-peer is peer 0.
# The guest also unbinds, unloads and reloads the driver with clients
# attached (see ivwl-ko-guest.c).  Passes only when the guest and
# host-peer both pass, rmmod works, both probes (pages, then the
# no_pages=1 fallback) were logged, and the guest kernel logged no
# warning.  See docs/vm-testing.md for the
# exchange (the same as guest-probe's, through the driver).
#
#   test-ivwl-ko.sh --server PATH --guest PATH --host-peer PATH
#                   --module PATH --kernel PATH [--mkinitramfs PATH]
#                   [--params 'P=V ...'] [--bar high|low] [--vectors N]
#
# --params: ivwl.ko parameters (insmod and the guest's reload).  --bar:
# where BAR2 must end up, high (above 4 GiB, write-back: move_high's
# default) or low (left in the MTRR-uncached 32-bit PCI hole with
# move_high=0: uncached-minus, and the driver must say so).  --vectors:
# doorbell vectors of the device (default IVWL_VM_VECTORS, else 4).
#
# Environment (all optional):
#   IVWL_VM_QEMU     QEMU binary (default qemu-system-x86_64)
#   IVWL_VM_SIZE     region size in bytes (default 64 MiB)
#   IVWL_VM_VECTORS  doorbell vectors when --vectors is not given (default 4)
#   IVWL_VM_TIMEOUT  hard limit for the QEMU run, seconds (default 200)
#   IVWL_VM_KEEP     1: keep the temporary directory with all logs
set -eu

here=$(cd "$(dirname "$0")" && pwd)
server=
guest=
host_peer=
module=
kernel=
mkinitramfs=$here/../mkinitramfs.sh
params=
bar=high
vectors=${IVWL_VM_VECTORS:-4}

die()
{
	echo "test-ivwl-ko: FAIL: $*" >&2
	exit 1
}

while [ $# -gt 0 ]; do
	case $1 in
	--server) server=$2; shift 2 ;;
	--guest) guest=$2; shift 2 ;;
	--host-peer) host_peer=$2; shift 2 ;;
	--module) module=$2; shift 2 ;;
	--kernel) kernel=$2; shift 2 ;;
	--mkinitramfs) mkinitramfs=$2; shift 2 ;;
	--params) params=$2; shift 2 ;;
	--bar) bar=$2; shift 2 ;;
	--vectors) vectors=$2; shift 2 ;;
	*) die "unknown argument $1" ;;
	esac
done
[ -n "$server" ] && [ -n "$guest" ] && [ -n "$host_peer" ] &&
	[ -n "$module" ] && [ -n "$kernel" ] ||
	die "usage: $0 --server PATH --guest PATH --host-peer PATH --module PATH --kernel PATH"

qemu=${IVWL_VM_QEMU:-qemu-system-x86_64}
size=${IVWL_VM_SIZE:-67108864}
limit=${IVWL_VM_TIMEOUT:-200}

command -v "$qemu" >/dev/null 2>&1 ||
	die "$qemu not found: install the qemu-system-x86 package"
[ -f "$kernel" ] || die "$kernel: no such kernel image"
[ -r "$kernel" ] || die "$kernel is not readable by $(id -un)"
command -v timeout >/dev/null 2>&1 || die "timeout not found: install coreutils"
[ -x "$server" ] || die "ivwl-server not found at $server: build host/ivwl-server"
[ -x "$guest" ] || die "ivwl-ko-guest not found at $guest"
[ -x "$host_peer" ] || die "host-peer not found at $host_peer"
[ -f "$module" ] || die "ivwl.ko not found at $module"

. "$(dirname "$0")/../vm-lib.sh"
vm_workdir ivwl-ko-vm test-ivwl-ko

echo "test-ivwl-ko: kernel $kernel, $($qemu --version | head -n 1)"
echo "test-ivwl-ko: module $module ($(modinfo -F vermagic "$module" 2>/dev/null || echo '?'))"
echo "test-ivwl-ko: region $size bytes, $vectors vectors, limit ${limit}s, params '$params', BAR2 $bar"
case $bar in
high) memtype=write-back ;;
low) memtype='NOT write-back' ;;
*) die "--bar high or low, not $bar" ;;
esac

# vgem (from the booted kernel's modules) gives the guest a DRM device
# to import dma-bufs into: the exporter's attach/map path.  Without it
# that part is skipped, and said so.  modprobe lists it with what it
# needs, in load order (6.1: drm, drm_shmem_helper; 6.12 adds
# drm_kms_helper); mkinitramfs decompresses *.ko.xz.
kver=$(basename "$kernel")
kver=${kver#vmlinuz-}
vgem_files=()
vgem_mods=()
vgem_arg=
if deps=$(modprobe --show-depends -S "$kver" vgem 2>/dev/null); then
	while read -r word path _; do
		[ "$word" = insmod ] || continue
		name=$(basename "$path")
		name=${name%.xz}
		vgem_files+=("$path=/lib/modules/$name")
		vgem_mods+=("${name%.ko}")
	done <<<"$deps"
fi
if [ ${#vgem_mods[@]} -gt 0 ]; then
	vgem_arg=--vgem
	echo "test-ivwl-ko: vgem with ${vgem_mods[*]}: device import of dma-bufs tested"
else
	echo "test-ivwl-ko: NOTE: modprobe finds no vgem for $kver: device import of dma-bufs not tested"
fi

# The guest's command: load the driver, run the test program (which
# unbinds, unloads and reloads it), unload.
cat >"$tmp/run-ivwl-ko" <<GUEST
#!/bin/sh
# debugfs: the guest checks BAR2's PAT memory type
mount -t debugfs debugfs /sys/kernel/debug
if [ -n "$vgem_arg" ]; then
	for m in ${vgem_mods[*]}; do
		insmod /lib/modules/\$m.ko || { echo "GUEST: FAIL: insmod \$m"; exit 1; }
	done
fi
insmod /lib/modules/ivwl.ko $params || { echo "GUEST RESULT: FAIL insmod"; exit 1; }
i=0
while [ ! -c /dev/ivwl0 ] && [ \$i -lt 100 ]; do
	sleep 0.1
	i=\$((i + 1))
done
ls -l /dev/ivwl* /dev/dri 2>/dev/null
/bin/ivwl-ko-guest --module /lib/modules/ivwl.ko $vgem_arg --bar $bar \\
	--params "$params" "\$@"
status=\$?
grep -E 'CPU|ivwl' /proc/interrupts
if rmmod ivwl; then
	echo "GUEST: rmmod OK"
else
	echo "GUEST: FAIL: rmmod"
fi
echo "----- guest dmesg -----"
dmesg | grep -v -E 'ivwl: (loading out-of-tree|module verification failed)'
echo "----- end of guest dmesg -----"
exit \$status
GUEST
chmod 0755 "$tmp/run-ivwl-ko"

"$mkinitramfs" "$tmp/initramfs.gz" "$guest" "$tmp/run-ivwl-ko" \
	"$module=/lib/modules/ivwl.ko" "${vgem_files[@]}" ||
	die "cannot build the initramfs (see above)"

# The guest unbinds, unloads and reloads the driver after host-peer
# is done: give it time.
vm_boot test-ivwl-ko /bin/run-ivwl-ko 'IVWL-INIT: exit status' 60000

errors=()
grep -q '^GUEST RESULT: PASS' <<<"$console" ||
	errors+=("guest: $(grep -o 'GUEST RESULT: .*' <<<"$console" || echo 'no GUEST RESULT line')")
while read -r line; do
	errors+=("guest: $line")
done < <(grep -o '^GUEST: FAIL: .*' <<<"$console" || true)
grep -q '^GUEST: rmmod OK' <<<"$console" ||
	errors+=("the guest could not unload ivwl.ko")
grep -q "ivwl0: [0-9]* MiB region (pages), [0-9]* vectors, peer 1, max_peers 2, $memtype at" <<<"$console" ||
	errors+=("no probe line from ivwl.ko in the guest's dmesg ($memtype)")
grep -q "ivwl0: [0-9]* MiB region (memremap), [0-9]* vectors, peer 1, max_peers 2, $memtype at" <<<"$console" ||
	errors+=("no probe line from the reloaded ivwl.ko (no_pages=1) in the guest's dmesg ($memtype)")
if [ "$bar" = high ]; then
	grep -q 'ivwl [0-9a-f:.]*: BAR 2 moved from \[mem 0x[0-9a-f]\{1,8\}-[^]]*\] to \[mem 0x[1-9a-f][0-9a-f]\{8,\}-' <<<"$console" ||
		errors+=("no 'BAR 2 moved' line above 4 GiB in the guest's dmesg")
else
	grep -q 'region at 0x[0-9a-f]* is not mapped write-back' <<<"$console" ||
		errors+=("the driver did not warn that the region is not write-back")
fi
if grep 'devm_memremap_pages failed' <<<"$console"; then
	errors+=("devm_memremap_pages failed on the first load (above)")
fi
if grep -E 'WARNING:|BUG:|Oops|Call Trace|general protection|refcount_t|list_(add|del) corruption|INFO: task' <<<"$console"; then
	errors+=("the guest kernel logged a warning or oops (above)")
fi
vm_check_host_side
vm_verdict test-ivwl-ko
