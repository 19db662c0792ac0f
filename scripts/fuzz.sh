#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make fuzz`: build the libFuzzer targets (tests/fuzz/) and run each for a
# fixed budget, starting from its seed corpus (tests/fuzz/corpus/<target>/).
# Prints per target and in total the executions, the crashes and the
# coverage table the target keeps (WQE opcodes, commands, CQE kinds, ...);
# a target passes when it did not crash and reached every required entry.
# First the seed corpus runs alone: it must reach every required entry
# (one result per target), so a drifted corpus fails every time, not by
# chance. Then every input in tests/fuzz/known/<target>/ (crashes found
# earlier and not fixed yet) is replayed: one that still crashes counts as
# a failure.
# Ends with "N passed, N failed".
#
# Budget (per target):
#   FUZZ_RUNS=N       executions of each target; the default splits 10^7
#                     over the targets (weights below)
#   FUZZ_SECONDS=S    instead: S seconds each (make check: 20)
#   FUZZ_JOBS=J       targets run side by side (default 1); each is nice'd
#   FUZZ_TARGETS="wqe rx"  a subset
# Logs, new corpus units and crash artifacts go to build/fuzz/.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$ROOT/build/fuzz

ALL_TARGETS="wqe cmd rx cqe shampo"
TARGETS=${FUZZ_TARGETS:-$ALL_TARGETS}
JOBS=${FUZZ_JOBS:-1}
# Share of the default 10^7 executions, by cost per execution (cqe builds two
# ports per input; wqe and cmd are cheap; shampo about as rx).
declare -A WEIGHT=([wqe]=41 [cmd]=32 [rx]=12 [cqe]=6 [shampo]=9)
# Longest input (-max_len), for speed: with the default (4 KiB, from the
# corpus) an execution of wqe cost up to 20 times as much. Most sequences
# the targets read still fit (a WQE, command, frame or driver operation
# takes a few to a few dozen bytes).
declare -A MAXLEN=([wqe]=512 [cmd]=384 [rx]=512 [cqe]=384 [shampo]=512)

echo "fuzz: building (tests/fuzz)"
mkdir -p "$OUT"
if ! nice make --no-print-directory -s -C tests/fuzz -j2 >"$OUT/build.log" 2>&1; then
	cat "$OUT/build.log"
	echo "fuzz: build failed"
	echo "0 passed, 1 failed"
	exit 1
fi

# The host OS layer: silent logs, misuse fatal (the core's stack in the report).
export SOFTCX_HOST_QUIET=1 SOFTCX_HOST_FATAL=1
# A 16 MiB quarantine (default 256) still catches use after free within an
# input and doubles the speed (fewer fresh pages).
export ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=16:malloc_context_size=10:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# known_env T: the settings of tests/fuzz/known/T.env (that keep the target
# off classes of known bugs), one VAR=value a line
known_env() {
	[ -f "tests/fuzz/known/$1.env" ] && grep -E '^[A-Z_]+=' "tests/fuzz/known/$1.env"
	return 0
}

# unreached T LOG: the required entries LOG's coverage table never reached, comma-separated
unreached() {
	grep -E "^fuzz-cov $1 .*NEVER REACHED \(required\)" "$2" |
		sed -E "s/^fuzz-cov $1 +//; s/ +0 +NEVER.*//" | paste -sd, -
}

# run_target T: fuzz T for its budget; writes $OUT/T.log and $OUT/T.result
run_target() {
	local t=$1 budget
	local log=$OUT/$t.log art=$OUT/artifacts/$t/ work=$OUT/corpus/$t
	mkdir -p "$art" "$work"
	rm -f "$art"/crash-* "$art"/leak-* "$art"/timeout-* "$art"/oom-*
	if [ -n "${FUZZ_SECONDS:-}" ]; then
		budget="-max_total_time=$FUZZ_SECONDS"
	else
		budget="-runs=${FUZZ_RUNS:-$((10000000 * ${WEIGHT[$t]} / 100))}"
	fi
	local envs=()
	mapfile -t envs < <(known_env "$t")
	local start=$SECONDS
	env "${envs[@]}" nice -n 19 "$OUT/fuzz_$t" $budget -max_len="${MAXLEN[$t]}" -timeout=20 \
		-rss_limit_mb=4096 \
		-print_final_stats=1 -artifact_prefix="$art" "$work" "tests/fuzz/corpus/$t" \
		>"$log" 2>&1
	local rc=$?
	local execs crashes unreached
	execs=$(awk -v t="$t" '$1 == "fuzz-summary" && $2 == t { print $4 }' "$log" | tail -n 1)
	[ -n "$execs" ] || execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	unreached=$(awk -v t="$t" '$1 == "fuzz-summary" && $2 == t { print $6 }' "$log" | tail -n 1)
	crashes=$(find "$art" -maxdepth 1 -type f | wc -l)
	[ "$rc" -ne 0 ] && [ "$crashes" -eq 0 ] && crashes=1
	echo "$t ${execs:-0} $crashes ${unreached:--} $rc $((SECONDS - start)) ${envs[*]:-}" \
		>"$OUT/$t.result"
}

# The seed corpus alone must reach every required entry: a target whose
# input decoding changed leaves old seeds short, and a short run on a slow
# machine then finds the rest only by chance. This check is deterministic.
seed_lines=()
seed_fail=0
for t in $TARGETS; do
	[ -x "$OUT/fuzz_$t" ] || continue
	sd=$OUT/seeds-only/$t
	rm -rf "$sd"; mkdir -p "$sd"
	cp tests/fuzz/corpus/"$t"/* "$sd"/ 2>/dev/null
	mapfile -t envs < <(known_env "$t")
	env "${envs[@]}" nice "$OUT/fuzz_$t" -runs=0 -max_len="${MAXLEN[$t]}" "$sd" >"$OUT/seeds-$t.log" 2>&1
	miss=$(unreached "$t" "$OUT/seeds-$t.log")
	if [ -n "$miss" ] || ! grep -q "^fuzz-summary $t " "$OUT/seeds-$t.log"; then
		seed_lines+=("FAIL fuzz seeds $t: the seed corpus alone misses: ${miss:-(no summary: see build/fuzz/seeds-$t.log)}; re-pick with tests/fuzz/pick-seeds.py $t build/fuzz/corpus/$t tests/fuzz/corpus/$t")
		seed_fail=$((seed_fail + 1))
	else
		seed_lines+=("seeds $t: $(ls tests/fuzz/corpus/"$t" | wc -l) inputs reach every required entry")
	fi
done
printf '%s\n' "${seed_lines[@]}"

running=0
for t in $TARGETS; do
	[ -x "$OUT/fuzz_$t" ] || { echo "fuzz: no target $t"; exit 1; }
	if [ -n "${FUZZ_SECONDS:-}" ]; then
		echo "fuzz: $t: $FUZZ_SECONDS s (log build/fuzz/$t.log)"
	else
		echo "fuzz: $t: ${FUZZ_RUNS:-$((10000000 * ${WEIGHT[$t]} / 100))} runs (log build/fuzz/$t.log)"
	fi
	run_target "$t" &
	running=$((running + 1))
	if [ "$running" -ge "$JOBS" ]; then
		wait -n
		running=$((running - 1))
	fi
done
wait

pass=$(( $(echo $TARGETS | wc -w) - seed_fail ))
fail=$seed_fail
total_execs=0
total_crashes=0
echo
for t in $TARGETS; do
	read -r _ execs crashes unreached rc secs envs <"$OUT/$t.result"
	echo "=== $t: coverage"
	grep -E "^fuzz-cov $t " "$OUT/$t.log" | sed -E "s/^fuzz-cov $t /  /"
	if [ "$crashes" -gt 0 ]; then
		echo "  CRASH: see build/fuzz/$t.log; input in build/fuzz/artifacts/$t/"
		grep -E -m 3 'ERROR|INVARIANT|runtime error' "$OUT/$t.log" | sed 's/^/    /'
	fi
	total_execs=$((total_execs + execs))
	total_crashes=$((total_crashes + crashes))
	if [ "$crashes" -eq 0 ] && [ "$unreached" = 0 ] && [ "$rc" -eq 0 ]; then
		pass=$((pass + 1))
		verdict=ok
	else
		fail=$((fail + 1))
		verdict=FAILED
		# one line CI's excerpt keeps: what failed
		echo "FAIL fuzz $t: $crashes crashes, rc $rc, unreached: $(unreached "$t" "$OUT/$t.log")"
	fi
	printf -v "line_$t" 'fuzz %-6s %11d execs %3d crashes %3s unreached %5ds  %s%s' "$t" \
		"$execs" "$crashes" "$unreached" "$secs" "$verdict" "${envs:+  ($envs)}"
done

# Known crashes: replay each input once.
known_lines=()
for t in $TARGETS; do
	for f in tests/fuzz/known/"$t"/*; do
		[ -f "$f" ] || continue
		if nice "$OUT/fuzz_$t" -runs=1 "$f" >"$OUT/known-$t-$(basename "$f").log" 2>&1; then
			known_lines+=("known $t/$(basename "$f"): no longer crashes (fixed? remove it from tests/fuzz/known/ and widen known/$t.env)")
			pass=$((pass + 1))
		else
			known_lines+=("known $t/$(basename "$f"): still crashes (build/fuzz/known-$t-$(basename "$f").log)")
			fail=$((fail + 1))
		fi
	done
done

echo
echo "=== fuzz summary"
for t in $TARGETS; do
	v=line_$t
	echo "${!v}"
done
printf 'fuzz total %11d execs %3d crashes\n' "$total_execs" "$total_crashes"
for l in "${seed_lines[@]}" "${known_lines[@]}"; do
	echo "$l"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
