#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every module parameter is described: each module_param*() of shim/*.c has
# a MODULE_PARM_DESC in softcx.ko's .modinfo (what `modinfo` prints), and a
# row in README.md's table of module parameters, which lists no other.
# Run by `make check`'s module stage (scripts/check.sh) after the build.
#
#   scripts/modinfo-check.sh [MODULE.ko]      (default ./softcx.ko)
set -euo pipefail
cd "$(dirname "$0")/.."
ko=${1:-softcx.ko}
[ -f "$ko" ] || { echo "modinfo-check: no $ko" >&2; exit 1; }

# Parameter names as the source declares them (the first argument of every
# module_param, module_param_named, module_param_cb, ... is the name).
src_params=$(grep -ohE '^[[:space:]]*module_param[a-z_]*\([[:space:]]*[A-Za-z0-9_]+' shim/*.c |
	sed -E 's/.*\([[:space:]]*//' | sort -u)
# "parm=NAME:DESCRIPTION" records of .modinfo.
modinfo_raw=$(objcopy -O binary --only-section=.modinfo "$ko" /dev/stdout | tr '\0' '\n')
# Names in the first column of README.md's "Module parameters" table.
readme_params=$(sed -n '/^## Module parameters/,/^## /p' README.md |
	sed -nE 's/^\| `([A-Za-z0-9_]+)`[[:space:]]*\|.*/\1/p' | sort -u)

fail=0
[ -n "$src_params" ] || { echo "modinfo-check: no module_param in shim/*.c" >&2; exit 1; }
for p in $src_params; do
	desc=$(printf '%s\n' "$modinfo_raw" | sed -n "s/^parm=$p://p")
	if [ -z "$desc" ]; then
		echo "modinfo-check: parameter $p has no MODULE_PARM_DESC"; fail=1
	fi
	if ! grep -qx "$p" <<< "$readme_params"; then
		echo "modinfo-check: parameter $p is not in README.md's table"; fail=1
	fi
done
for p in $readme_params; do
	grep -qx "$p" <<< "$src_params" ||
		{ echo "modinfo-check: README.md's table lists $p, which the module does not have"; fail=1; }
done
[ $fail -eq 0 ] || exit 1
echo "modinfo-check: $(wc -w <<< "$src_params") parameters, each described in modinfo and README.md:" $src_params
