#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install whatever softcx's build, tests, VM runs and demo need on Debian 12,
# and nothing else. Idempotent and silent when everything is present; runs
# `apt-get update` once, and only when something is missing.
#
# Run by `make deps`, `make check` and `make demo` (as root on CI).
#
# Also makes sure the kernel image for the version scripts/kver.sh picks (the
# newest kernel with headers) is installed: the VM boots /boot/vmlinuz-$KVER
# and loads modules from /lib/modules/$KVER, which must match what softcx.ko
# is built against.
set -euo pipefail
cd "$(dirname "$0")/.."

# Package list, one per line with what needs it.
PKGS=(
	linux-image-amd64 linux-headers-amd64	# kernel the VM boots + its build tree
	linux-source-6.1			# KUnit (UML build), pktgen samples
	dkms					# make check builds softcx.ko through DKMS (dkms.conf)
	qemu-system-x86				# VM runner (TCG)
	busybox-static				# VM initramfs
	kmod cpio xz-utils			# modprobe/insmod, initramfs, source tarball
	iperf3 ethtool iproute2 iputils-ping procps	# VM tests (run from the host root)
	linuxptp				# t-hw-tstamp: phc_ctl, hwstamp_ctl
	jq					# t-kselftest-ethtool: the forwarding tests' lib.sh
	netsniff-ng				# t-kselftest-bridge: mausezahn
	bc flex bison libelf-dev libssl-dev make	# kernel builds
	python3
	gcc-12 g++-12				# the kernel's compiler, C++ core
	libgtest-dev libbenchmark-dev valgrind	# host tests and benches
	clang llvm libbpf-dev bpftool xdp-tools linux-libc-dev	# BPF/XDP tests (asm/types.h: linux-libc-dev)
	libclang-rt-14-dev			# fuzz targets: libFuzzer and the sanitizer runtimes for clang
	bpftrace				# bench/vm/xdp.sh: receiver CPU time (kprobes)
	gcc libc6-dev binutils			# bench/icount: QEMU plugin (cc), static marker (libc.a), c++filt
)

# Packages not in state "install ok installed".
missing=()
for p in "${PKGS[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
	[[ "$st" == ii* ]] || missing+=("$p")
done

apt_updated=0
apt_install() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "deps: missing packages: $*; run 'make deps' as root" >&2
		exit 1
	fi
	if [ $apt_updated -eq 0 ]; then
		echo "deps: apt-get update" >&2
		DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
		apt_updated=1
	fi
	echo "deps: installing $*" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends -o Dpkg::Use-Pty=0 "$@" >/dev/null
}

if [ ${#missing[@]} -gt 0 ]; then
	apt_install "${missing[@]}"
fi

# The image matching the headers' version. The two meta packages move
# together, but a machine may hold headers of a version whose image was
# removed (or the reverse): check the version kver.sh picks.
KVER=$(scripts/kver.sh)
if [ -z "$KVER" ]; then
	echo "deps: no kernel build tree under /lib/modules/*/build after install" >&2
	exit 1
fi
if [ ! -r "/boot/vmlinuz-$KVER" ] || [ ! -d "/lib/modules/$KVER/kernel" ]; then
	apt_install "linux-image-$KVER"
fi
if [ ! -r "/boot/vmlinuz-$KVER" ]; then
	echo "deps: /boot/vmlinuz-$KVER still missing after installing linux-image-$KVER" >&2
	exit 1
fi
exit 0
