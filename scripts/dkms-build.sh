#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build softcx.ko through DKMS (dkms.conf), as `dkms add` and `dkms build` do
# on a user's machine, against the headers of $KVER (scripts/kver.sh; $KDIR
# if given), and copy the module DKMS built to ./softcx.ko, where `make
# module` puts it and the VM tests load it from. Run as root by `make
# check`'s module stage (scripts/check.sh).
#
#   scripts/dkms-build.sh
#
# DKMS runs on trees of its own under build/dkms/ (dkms --sourcetree,
# --dkmstree) instead of /usr/src and /var/lib/dkms, so that a softcx the
# machine has installed with DKMS is left alone and two checkouts can check
# side by side: `dkms add` copies the module's sources to
# build/dkms/src/softcx-<version>, `dkms build` copies them on to
# build/dkms/tree/softcx/<version>/build and runs dkms.conf's MAKE there
# (scripts/build-module.sh: Kbuild, the C++ object guard, no objtool or
# modpost warning). Nothing is installed (`dkms install` writes to
# /lib/modules) and nothing is signed (DKMS would make itself a key). `dkms
# remove` and the removal of build/dkms/ run at the end and before the
# start, so an interrupted run leaves nothing the next one trips on.
# The build's output (dkms's make.log) is kept as build/dkms-make.log.
#
# Checks: dkms.conf's PACKAGE_VERSION is SCX_DRV_VERSION (shim/softcx.h),
# and the module built reports that version (modinfo).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
KVER=${KVER:-$(scripts/kver.sh)}
rm -f softcx.ko		# a failed check or build must leave no older module to test

pkg_ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
drv_ver=$(sed -n 's/^#define[[:space:]]\+SCX_DRV_VERSION[[:space:]]\+"\(.*\)"$/\1/p' shim/softcx.h)
if [ -z "$pkg_ver" ] || [ "$pkg_ver" != "$drv_ver" ]; then
	echo "dkms-build: dkms.conf PACKAGE_VERSION '$pkg_ver' is not SCX_DRV_VERSION '$drv_ver' (shim/softcx.h)" >&2
	exit 1
fi
command -v dkms >/dev/null || { echo "dkms-build: dkms missing (run 'make deps')" >&2; exit 1; }

TOP=$ROOT/build/dkms
MOD=softcx/$pkg_ver
dk() { dkms "$@" --sourcetree "$TOP/src" --dkmstree "$TOP/tree"; }
cleanup() {
	[ ! -d "$TOP/tree/softcx/$pkg_ver" ] || dk remove "$MOD" --all >/dev/null || true
	rm -rf "$TOP"
}
cleanup
trap cleanup EXIT
mkdir -p "$TOP/stage/scripts" "$TOP/src" "$TOP/tree"

# What `dkms add .` of a clean checkout copies, less what the module's build
# does not read (tests, benchmarks, documentation, KUnit).
cp -a dkms.conf Kbuild include shim src "$TOP/stage/"
cp -a scripts/build-module.sh scripts/cxx-guard.sh scripts/cxx.mk scripts/kver.sh "$TOP/stage/scripts/"
find "$TOP/stage" \( -name '*.o' -o -name '*.cmd' -o -name '*.d' -o -name '*.mod' -o -name '*.mod.[co]' \) -delete

echo "dkms-build: dkms add, build $MOD for $KVER"
dk add "$TOP/stage"
kdir_opt=()
[ -z "${KDIR:-}" ] || kdir_opt=(--kernelsourcedir "$KDIR")
# sign_file: DKMS signs only when this exists (dkms(8), framework.conf).
if ! sign_file=/nonexistent dk build "$MOD" -k "$KVER" "${kdir_opt[@]}"; then
	log=$TOP/tree/softcx/$pkg_ver/build/make.log
	[ ! -f "$log" ] || { echo "--- $log"; cat "$log"; }
	echo "dkms-build: dkms build failed" >&2
	exit 1
fi
ko=$(find "$TOP/tree/softcx/$pkg_ver/$KVER" -path '*/module/softcx.ko' | head -n 1)
[ -n "$ko" ] || { echo "dkms-build: no softcx.ko in the DKMS tree" >&2; exit 1; }
cp "$ko" softcx.ko
# The build's output, which dkms keeps to itself, outlives the tree.
cp "$(dirname "$ko")/../log/make.log" build/dkms-make.log 2>/dev/null || true
ko_ver=$(modinfo -F version softcx.ko)
if [ "$ko_ver" != "$pkg_ver" ]; then
	echo "dkms-build: softcx.ko reports version '$ko_ver', dkms.conf '$pkg_ver'" >&2
	exit 1
fi
dk status -m softcx
echo "dkms-build: softcx.ko $ko_ver built by DKMS for $KVER"
