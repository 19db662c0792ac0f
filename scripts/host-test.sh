#!/bin/bash
# Host unit tests of the core (gtest, ASan, UBSan) and a build of the host
# microbenchmarks; ends with "N passed, N failed".
set -o pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
make --no-print-directory -C tests/host run 2>&1 | tee "$log"
rc=$?
pass=$(grep -oE '^\[  PASSED  \] [0-9]+' "$log" | grep -oE '[0-9]+$' | tail -n 1)
fail=$(grep -oE '^\[  FAILED  \] [0-9]+ tests?, listed' "$log" | grep -oE '[0-9]+' | tail -n 1)
rm -f "$log"
pass=${pass:-0}; fail=${fail:-0}
[ "$rc" -ne 0 ] && [ "$fail" -eq 0 ] && fail=1
# The host microbenchmarks build against the same C ABI: one more check, so
# that an ABI change cannot leave them broken unnoticed.
if make --no-print-directory -s -C bench/host all; then
	pass=$((pass + 1)); echo "PASS bench/host builds"
else
	fail=$((fail + 1)); echo "FAIL bench/host does not build"; [ "$rc" -ne 0 ] || rc=1
fi
echo "host: $pass passed, $fail failed"
exit $rc
