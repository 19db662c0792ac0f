#!/bin/bash
# Build softcx.ko against $KDIR and fail on any objtool or modpost warning.
set -o pipefail
cd "$(dirname "$0")/.."
KVER=${KVER:-$(scripts/kver.sh)}
KDIR=${KDIR:-/lib/modules/$KVER/build}
if [ ! -d "$KDIR" ]; then
	echo "build-module: no kernel build tree at '$KDIR' (run 'make deps')" >&2
	exit 1
fi
mkdir -p build
make -C "$KDIR" M="$PWD" modules 2>&1 | tee build/module.log
rc=$?
[ $rc -eq 0 ] || exit $rc
if grep -E 'warning: objtool:|WARNING: modpost:|objtool: .*warning|^WARNING:' build/module.log | grep -v 'Skipping BTF generation'; then
	echo "build-module: objtool/modpost warnings are fatal" >&2
	rm -f softcx.ko
	exit 1
fi
# Two sections of one name (a function of an anonymous namespace defined in
# two C++ files gets the same mangled name in each; -ffunction-sections
# makes a section of it) load, but the kernel cannot list both under
# /sys/module/softcx/sections and says so with a stack trace at insmod.
dups=$(readelf -SW softcx.ko | sed -n 's/^ *\[ *[0-9]*\] \([^ ]*\) .*/\1/p' |
	grep -vE '^\.(group|rela.*)$' | sort | uniq -d)
if [ -n "$dups" ]; then
	echo "build-module: sections defined twice in softcx.ko (rename the functions):" $dups >&2
	rm -f softcx.ko
	exit 1
fi
exit 0
