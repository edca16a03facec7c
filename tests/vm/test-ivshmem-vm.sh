#!/bin/bash
# SPDX-License-Identifier: MIT
# VM test: proves that ivwl-server serves a real QEMU ivshmem-doorbell
# device.  Starts ivwl-server, host-peer (peer 0, display side) and a QEMU
# TCG guest (peer 1, app side) running guest-probe from a busybox
# initramfs; passes only when both ends saw each other's pattern and
# doorbells.  See docs/vm-testing.md.
#
#   test-ivshmem-vm.sh --server PATH --guest-probe PATH --host-peer PATH
#                      [--mkinitramfs PATH]
#
# Environment (all optional):
#   IVWL_VM_QEMU     QEMU binary (default qemu-system-x86_64)
#   IVWL_VM_KERNEL   guest kernel (default: newest /boot/vmlinuz-*)
#   IVWL_VM_SIZE     region size in bytes (default 64 MiB)
#   IVWL_VM_VECTORS  doorbell vectors (default 4)
#   IVWL_VM_TIMEOUT  hard limit for the QEMU run, seconds (default 200)
#   IVWL_VM_KEEP     1: keep the temporary directory with all logs
set -eu

here=$(cd "$(dirname "$0")" && pwd)
server=
guest_probe=
host_peer=
mkinitramfs=$here/mkinitramfs.sh

die()
{
	echo "test-ivshmem-vm: FAIL: $*" >&2
	exit 1
}

while [ $# -gt 0 ]; do
	case $1 in
	--server) server=$2; shift 2 ;;
	--guest-probe) guest_probe=$2; shift 2 ;;
	--host-peer) host_peer=$2; shift 2 ;;
	--mkinitramfs) mkinitramfs=$2; shift 2 ;;
	*) die "unknown argument $1" ;;
	esac
done
[ -n "$server" ] && [ -n "$guest_probe" ] && [ -n "$host_peer" ] ||
	die "usage: $0 --server PATH --guest-probe PATH --host-peer PATH"

qemu=${IVWL_VM_QEMU:-qemu-system-x86_64}
size=${IVWL_VM_SIZE:-67108864}
vectors=${IVWL_VM_VECTORS:-4}
limit=${IVWL_VM_TIMEOUT:-200}

# Missing pieces are failures, never skips: CI must install them.
command -v "$qemu" >/dev/null 2>&1 ||
	die "$qemu not found: install the qemu-system-x86 package"
if [ -n "${IVWL_VM_KERNEL:-}" ]; then
	kernel=$IVWL_VM_KERNEL
else
	kernel=$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1)
fi
if [ -n "${IVWL_VM_KERNEL:-}" ]; then
	[ -f "$kernel" ] || die "IVWL_VM_KERNEL=$kernel: no such file"
fi
[ -n "$kernel" ] && [ -f "$kernel" ] ||
	die "no kernel in /boot/vmlinuz-*: install the linux-image-amd64 package"
[ -r "$kernel" ] ||
	die "$kernel is not readable by $(id -un): make it readable (chmod 0644) or set IVWL_VM_KERNEL"
command -v timeout >/dev/null 2>&1 || die "timeout not found: install coreutils"
[ -x "$server" ] || die "ivwl-server not found at $server: build host/ivwl-server"
[ -x "$guest_probe" ] || die "guest-probe not found at $guest_probe"
[ -x "$host_peer" ] || die "host-peer not found at $host_peer"

. "$(dirname "$0")/vm-lib.sh"
vm_workdir ivwl-vm test-ivshmem-vm

echo "test-ivshmem-vm: kernel $kernel, $($qemu --version | head -n 1)"
echo "test-ivshmem-vm: region $size bytes, $vectors vectors, limit ${limit}s"

"$mkinitramfs" "$tmp/initramfs.gz" "$guest_probe" ||
	die "cannot build the initramfs (see above)"

vm_boot test-ivshmem-vm /bin/guest-probe 'PROBE RESULT:' 5000

errors=()
grep -q 'PROBE: BAR2 size [0-9]* matches' <<<"$console" ||
	errors+=("the guest did not confirm BAR2 size $size")
grep -q 'PROBE RESULT: PASS' <<<"$console" ||
	errors+=("guest: $(grep -o 'PROBE RESULT: .*' <<<"$console" || echo 'no PROBE RESULT line')")
vm_check_host_side
vm_verdict test-ivshmem-vm
