#!/bin/bash
# `make check`: install what is missing, build softcx.ko, run the host unit
# tests, a short fuzz run, KUnit on UML and the VM integration suite. Every
# stage ends with "N passed, N failed"; the totals are the last line.
#
#   scripts/check.sh [STAGE...]     (default: every stage, in this order)
#
# Stages: module (softcx.ko through DKMS, its version and parameter
# descriptions), host (scripts/host-test.sh, as `make host-test`), fuzz,
# kunit, vm. The packages are installed first whatever the stages.
set -u
cd "$(dirname "$0")/.."
mkdir -p build/check

ALL_STAGES=(module host fuzz kunit vm)
if [ $# -eq 0 ]; then
	stages=("${ALL_STAGES[@]}")
else
	stages=("$@")
	for s in "${stages[@]}"; do
		[[ " ${ALL_STAGES[*]} " == *" $s "* ]] ||
			{ echo "check: unknown stage '$s' (stages: ${ALL_STAGES[*]})" >&2; exit 2; }
	done
fi
want() { [[ " ${stages[*]} " == *" $1 "* ]]; }

total_pass=0
total_fail=0
summary=()

# run_stage NAME CMD...: runs CMD, logs to build/check/NAME.log, reads its
# last "N passed, N failed" line (a stage that prints none counts as 1 failure).
run_stage() {
	local name=$1; shift
	local log=build/check/$name.log
	local start=$SECONDS
	echo "=== $name: $*"
	"$@" 2>&1 | tee "$log"
	local rc=${PIPESTATUS[0]}
	local line p f
	line=$(grep -E '^([A-Za-z-]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	if [ -n "$line" ]; then
		p=$(echo "$line" | sed -E 's/^([A-Za-z-]+: )?([0-9]+) passed, ([0-9]+) failed.*/\2/')
		f=$(echo "$line" | sed -E 's/^([A-Za-z-]+: )?([0-9]+) passed, ([0-9]+) failed.*/\3/')
	else
		p=0; f=1
	fi
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1	# a stage that failed must not count as green
	fi
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	summary+=("$(printf '%-10s %4d passed, %4d failed  (exit %d, %ds)' "$name" "$p" "$f" "$rc" $((SECONDS - start)))")
}

# The module stage: softcx.ko built through DKMS as a user's machine builds
# it (dkms.conf, scripts/dkms-build.sh: the same Kbuild, C++ object guard
# and objtool/modpost check as `make module`; the version of dkms.conf is the
# driver's), copied to ./softcx.ko for the VM stage; then every module
# parameter described (scripts/modinfo-check.sh).
stage_module() {
	local pass=0 fail=0
	if scripts/dkms-build.sh; then
		pass=$((pass + 1)); echo "PASS softcx.ko builds through DKMS"
	else
		fail=$((fail + 1)); echo "FAIL softcx.ko does not build through DKMS"
	fi
	if [ -f softcx.ko ] && scripts/modinfo-check.sh softcx.ko; then
		pass=$((pass + 1)); echo "PASS every module parameter is described"
	else
		fail=$((fail + 1)); echo "FAIL module parameter descriptions"
	fi
	echo "module: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}

# Installing packages is a prerequisite, not a test: it must succeed.
echo "=== deps: scripts/deps.sh"
if ! scripts/deps.sh; then
	echo "check: installing the dependencies failed"
	echo "0 passed, 1 failed"
	exit 1
fi
want module && run_stage module stage_module
want host && run_stage host scripts/host-test.sh
# A short fuzz run (20 s a target from the seed corpora); `make fuzz` is the long one.
want fuzz && run_stage fuzz env FUZZ_SECONDS=${FUZZ_SECONDS:-20} scripts/fuzz.sh
want kunit && run_stage kunit scripts/kunit.sh
if want vm; then
	if [ -f softcx.ko ]; then
		run_stage vm scripts/vm-test.sh
	else
		summary+=("vm         skipped: softcx.ko did not build")
		total_fail=$((total_fail + 1))
	fi
fi

echo
echo "=== summary"
printf '%s\n' "${summary[@]}"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
