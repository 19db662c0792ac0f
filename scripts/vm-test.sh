#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the VM integration suite (tests/vm/t-*.sh) in one VM boot.
#
#   scripts/vm-test.sh [t-name[@variant] ...]   (variants: tests/vm/run-all.sh)
#
# Environment:
#   VM_TESTS="t-ping t-iperf"  run a subset (same as arguments)
#   VM_TIMEOUT=S               whole-VM timeout per boot (default 3000: the 2-vCPU boot
#                              runs ~1300 s on a quiet machine, TCG varies up to 2x)
#   VM_START_TIMEOUT=S         the guest must start the suite (write planned.txt)
#                              within S s of boot (default 300; it takes 5-60 s);
#                              a boot that hangs before that, with softcx not yet
#                              loaded, is retried once, with the console's
#                              lockup report printed
#   VM_QUIET=1                 do not stream the guest console
#   SCX_KO=/path/softcx.ko     module to test (default <repo>/softcx.ko)
#
# Prints the per-test PASS/FAIL lines and ends with "N passed, N failed".
# A VM that does not boot, crashes or times out counts as a failure, and so
# does every planned test that produced no result. Exit status 0 only when
# everything passed. Logs: build/vm-results/<run>/ (printed at the end).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD

tests=("$@")
[ ${#tests[@]} -gt 0 ] || read -r -a tests <<< "${VM_TESTS:-}"

RES="$ROOT/build/vm-results/$(date +%Y%m%d-%H%M%S)-vm-test"
mkdir -p "$RES"
ln -sfn "$(basename "$RES")" "$ROOT/build/vm-results/latest"

# The XDP tests' BPF objects: built here, in seconds, rather than by the
# emulated guest (which falls back to building its own copy if this fails).
make -s -C tests/bpf >/dev/null || echo "vm-test: tests/bpf did not build on the host; the guest will try" >&2
# The kernel's own selftest programs that t-kselftest-* run (from
# linux-source-6.1): a test whose program did not build fails there.
scripts/kselftest.sh || echo "vm-test: scripts/kselftest.sh failed; the t-kselftest-* tests will fail" >&2

# One boot per vCPU count: a test that needs more CPUs says "# vm-smp: N"
# (default 2) and runs in a boot of its own with N vCPUs.
groups=()
if [ ${#tests[@]} -gt 0 ]; then files=("${tests[@]}"); else files=(tests/vm/t-*.sh); fi
for t in "${files[@]}"; do
	case "$t" in */*) f=$t ;; *) f=tests/vm/$(basename "${t%@*}" .sh).sh ;; esac
	g=$(sed -n 's/^# vm-smp: *\([0-9]*\).*/\1/p' "$f" 2>/dev/null | head -n 1)
	g=${g:-2}
	[[ " ${groups[*]} " == *" $g "* ]] || groups+=("$g")
done
mapfile -t groups < <(printf '%s\n' "${groups[@]}" | sort -n)

start=$(date +%s)
pass=0 failed=0 vrc=0
lines=()
for g in "${groups[@]}"; do
	gres=$RES/smp$g
	mkdir -p "$gres"
	opts=(--timeout "${VM_TIMEOUT:-3000}" --results "$gres" --smp "$g" --env "VM_SMP_GROUP=$g"
		--started planned.txt --start-timeout "${VM_START_TIMEOUT:-300}")
	[ "${VM_QUIET:-0}" = 1 ] && opts+=(--quiet)
	for try in 1 2; do
		scripts/vm-run.sh "${opts[@]}" tests/vm/run-all.sh "${tests[@]}"
		grc=$?
		[ $grc -eq 123 ] || break
		# The guest hung before run-all.sh planned a test: no softcx code had
		# run. Show why (the kernel's lockup or stall report), keep the
		# console, and boot once more.
		echo "vm-test: the guest ($g vCPUs) did not start the suite within ${VM_START_TIMEOUT:-300}s (boot $try); its console says:"
		grep -m 1 -A 30 -E 'soft lockup|rcu.*stall|Kernel panic|BUG:' "$gres/console.log" | sed 's/^/  | /'
		tail -n 5 "$gres/console.log" | sed 's/^/  $ /'
		cp "$gres/console.log" "$gres/console-stalled-boot$try.log" 2>/dev/null
		[ $try -eq 1 ] && echo "vm-test: booting the $g-vCPU guest again"
	done
	[ $grc -eq 0 ] || vrc=$grc
	gfail=0
	if [ -f "$gres/results.txt" ]; then
		while IFS= read -r l; do
			case "$l" in
			PASS\ *) pass=$((pass + 1)); lines+=("$l") ;;
			FAIL\ *) failed=$((failed + 1)); gfail=$((gfail + 1)); lines+=("$l") ;;
			esac
		done < "$gres/results.txt"
	fi
	# Planned tests without a result: the VM died or timed out during them.
	if [ -f "$gres/planned.txt" ]; then
		while IFS= read -r t; do
			[ -n "$t" ] || continue
			grep -qE "^(PASS|FAIL) $t(:|$)" "$gres/results.txt" 2>/dev/null && continue
			failed=$((failed + 1)); gfail=$((gfail + 1))
			if [ $grc -eq 124 ]; then
				lines+=("FAIL $t: no result: the VM ($g vCPUs) timed out (${VM_TIMEOUT:-3000}s)")
			else
				lines+=("FAIL $t: no result: the VM ($g vCPUs) stopped early (status $grc, see $gres/console.log)")
			fi
		done < "$gres/planned.txt"
	else
		failed=$((failed + 1)); gfail=$((gfail + 1))
		lines+=("FAIL vm-boot: the guest ($g vCPUs) never started the suite (vm-run status $grc, see $gres/console.log)")
	fi
	# The suite failed without a failing test line (run-all itself broke).
	if [ $grc -ne 0 ] && [ $gfail -eq 0 ]; then
		failed=$((failed + 1))
		lines+=("FAIL vm-run: status $grc with no failing test ($g vCPUs, see $gres/console.log)")
	fi
done
elapsed=$(( $(date +%s) - start ))

echo
echo "== VM tests (kernel ${KVER:-$(scripts/kver.sh)}, ${elapsed}s, logs in $RES/)"
[ ${#lines[@]} -gt 0 ] && printf '%s\n' "${lines[@]}"
echo "$pass passed, $failed failed"
[ $failed -eq 0 ] && [ $vrc -eq 0 ]
