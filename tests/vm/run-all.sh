#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the VM test suite inside the guest (started by scripts/vm-test.sh via
# scripts/vm-run.sh; usable by hand in any VM or machine that can load modules).
#
#   tests/vm/run-all.sh [t-name ...]     (default: $VM_TESTS, else all)
#
# A name with a slash is taken as the path of an ad-hoc test script.
# VM_SMP_GROUP=N keeps only the tests whose "# vm-smp: N" line says N (no
# such line: 2); scripts/vm-test.sh boots one VM per group with N vCPUs.
#
# Each tests/vm/t-*.sh runs in a clean state (softcx unloaded, no netns, no
# pktgen), under a per-test timeout (a "# vm-timeout: S" line in the test,
# default 150 s; a stress test adds "# vm-timeout-per-cycle: S", counted
# SCX_STRESS_CYCLES times, default 5). After each test the state is cleaned again and the kernel
# log written during the test is checked for WARN/BUG/Oops/leak/lockdep/...
# splats and the kernel taint flags for new W/D/B/L bits; any of these fails
# the test.
#
# Output, one line per test:  PASS t-name  |  FAIL t-name: reason
# Results directory ($SCX_RESULTS, else build/vm-results/manual):
#   planned.txt   tests to run, in order (written first)
#   results.txt   the PASS/FAIL lines
#   timings.txt   seconds per test
#   tests/t-name.log, tests/t-name.dmesg, tests/t-name/ (test artifacts)
# Exit status: 0 when every test passed.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
RES=${SCX_RESULTS:-$ROOT/build/vm-results/manual}
OUT=$RES/tests
mkdir -p "$OUT"

# The suite's order: cheap sanity first, destructive last.
ORDER="t-harness t-insmod t-params t-carrier t-ping t-counters t-iperf t-tso t-mpwqe t-tx-recover t-stats-persist t-mac t-mtu t-rmmod-traffic"
# t-name@variant: the test again in another data path mode (variant_env);
# the full suite runs these after the rest. Any test takes any variant by
# hand: run-all.sh t-xdp-pass@cyclic-cqe.
MATRIX="t-ping@cqe t-iperf@cqe t-xdp-tx@cqe t-rx-recover@cqe t-iperf@cyclic t-iperf@cyclic-cqe t-xdp-tx@cyclic-cqe t-rx-recover@cyclic-cqe t-iperf@hwgro t-tso@hwgro t-rx-recover@hwgro t-mtu@hwgro t-bigtcp@hwgro t-kselftest-gro@hwgro t-kselftest-gro@cqe t-kselftest-gro@cyclic t-kselftest-toeplitz@cqe"

# variant_env VARIANT: the SCX_* settings of a variant (tests/vm/lib.sh scx_rq_type)
variant_env() {
	case $1 in
	cqe) echo SCX_RX_CQE_COMPRESS=on ;;
	cyclic) echo SCX_RX_STRIDING=off ;;
	cyclic-cqe) echo SCX_RX_STRIDING=off SCX_RX_CQE_COMPRESS=on ;;
	hwgro) echo SCX_RX_HW_GRO=on ;;
	*) return 1 ;;
	esac
}

# ----------------------------------------------------------------- selection
if [ $# -gt 0 ]; then
	sel="$*"
elif [ -n "${VM_TESTS:-}" ]; then
	sel=$VM_TESTS
else
	sel=$ORDER
	for f in "$HERE"/t-*.sh; do
		n=$(basename "$f" .sh)
		[[ " $ORDER " == *" $n "* ]] || sel="$sel $n"
	done
	sel="$sel $MATRIX"
fi
# The vCPU group of every test in one grep (a process per test costs
# minutes under TCG on a slow machine).
declare -A smp_of=()
if [ -n "${VM_SMP_GROUP:-}" ]; then
	while IFS= read -r l; do
		[[ "$l" =~ ^(.*):#\ vm-smp:\ *([0-9]+) ]] && smp_of[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
	done < <(grep -H -m 1 '^# vm-smp:' "$HERE"/t-*.sh)
fi
tests=() paths=()
for n in $sel; do
	name=${n##*/}; name=${name%.sh}	# t-name[@variant]
	case "$n" in
	*/*) p=$(realpath -m "$n")
	     [ -z "${VM_SMP_GROUP:-}" ] ||
		smp_of[$p]=$(sed -n 's/^# vm-smp: *\([0-9]*\).*/\1/p' "$p" 2>/dev/null | head -n 1) ;;
	*) p=${n%@*}; p=${p##*/}; p=$HERE/${p%.sh}.sh ;;
	esac
	[ -z "${VM_SMP_GROUP:-}" ] || [ "${smp_of[$p]:-2}" = "$VM_SMP_GROUP" ] || continue
	tests+=("$name")
	paths+=("$p")
done
printf '%s\n' "${tests[@]}" > "$RES/planned.txt"
: > "$RES/results.txt"
: > "$RES/timings.txt"

# ----------------------------------------------------------------- helpers
kmsg() { echo "<6>$*" > /dev/kmsg 2>/dev/null || true; }

# BAD_RE, OK_RE, dmesg_since, bad_lines: what in the kernel log fails a test.
source "$HERE/kernel-log.sh"

# Taint bits that a test must not add: B(32) bad page, D(128) oops/BUG,
# W(512) warning, L(16384) soft lockup.
taint_new() {
	local before=$1 after=$2 s="" b
	for b in 32:B 128:D 512:W 16384:L; do
		if (( (after & ${b%:*}) && !(before & ${b%:*}) )); then s+=${b#*:}; fi
	done
	echo "$s"
}

# Clean state: no traffic generators, no test netns/veth, softcx and pktgen
# unloaded. Prints problems (a module that will not unload) on stdout.
cleanup() {
	local ns p t
	[ -w /proc/net/pktgen/pgctrl ] && echo stop > /proc/net/pktgen/pgctrl 2>/dev/null
	for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
		for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
	done
	ip -all netns delete 2>/dev/null
	for p in $(ip -o link show type veth 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1); do
		ip link del "$p" 2>/dev/null
	done
	# tunnels, bridges and VRFs a failed test left in the root netns (their
	# routes would capture the next test's addresses); the fallback devices
	# stay
	for t in vxlan geneve gre gretap ipip ip6gre ip6tnl bridge vrf; do
		for p in $(ip -o link show type $t 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1); do
			ip link del "$p" 2>/dev/null || true
		done
	done
	if [ -d /sys/module/softcx ]; then
		# Devices of a netns being dismantled return to init_net first.
		sleep 0.5
		timeout 60 rmmod softcx 2>&1 || echo "rmmod softcx failed or hung after the test"
	fi
	if [ -d /sys/module/pktgen ]; then
		timeout 30 rmmod pktgen 2>&1 || echo "rmmod pktgen failed or hung after the test"
	fi
	echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6
}

# page_pool leak check: the page_pool_release tracepoint fires each time a
# pool being destroyed counts its pages in flight (at destroy, then every
# second until 0, when the pool is freed). After a test and its teardown,
# every pool's last count must reach 0 within PP_WAIT seconds; the kernel's
# own "stalled pool shutdown" message would only come after 60 s.
PP_WAIT=15
TR=/sys/kernel/tracing
[ -d $TR/events ] || TR=/sys/kernel/debug/tracing
PP_EV=$TR/events/page_pool/page_pool_release/enable
pp_trace=0
if [ -w "$PP_EV" ]; then
	echo 4096 > $TR/buffer_size_kb 2>/dev/null
	echo 1 > "$PP_EV" && echo 1 > $TR/tracing_on && pp_trace=1
fi
# flush_skb_defer_lists (kernel-log.sh): a page still in flight after it is
# a real leak.
# pp_pending: "N pool(s), M pages" still in flight, or nothing.
pp_pending() {
	awk '/page_pool_release:/ {
		p = ""; v = ""
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^page_pool=/) p = $i
			if ($i ~ /^inflight=/) { v = $i; sub(/^inflight=/, "", v) }
		}
		if (p != "") last[p] = v + 0
	}
	END { for (p in last) if (last[p] != 0) { n++; s += last[p] } if (n) printf "%d pool(s), %d pages\n", n, s }' $TR/trace
}

# ----------------------------------------------------------------- header
{
	echo "run-all: kernel $(uname -r), $(nproc) CPUs, $(date -u +%FT%TZ)"
	if [ -f "$ROOT/softcx.ko" ]; then
		echo "run-all: $ROOT/softcx.ko $(stat -c '%s bytes, built %y' "$ROOT/softcx.ko")"
	else
		echo "run-all: $ROOT/softcx.ko not built: softcx tests will fail"
	fi
} | tee "$RES/header.txt"

pass=0 failed=0
suite_start=$(date +%s)
for i in "${!tests[@]}"; do
	t=${tests[$i]} f=${paths[$i]}
	log=$OUT/$t.log
	if [ ! -f "$f" ]; then
		line="FAIL $t: no such test ($f)"
		echo "$line" | tee -a "$RES/results.txt"
		failed=$((failed + 1))
		continue
	fi
	venv=()
	if [[ $t == *@* ]]; then
		if ! v=$(variant_env "${t#*@}"); then
			line="FAIL $t: no such variant (${t#*@}; see variant_env)"
			echo "$line" | tee -a "$RES/results.txt"
			failed=$((failed + 1))
			continue
		fi
		read -r -a venv <<< "$v"
	fi
	tmo=$(sed -n 's/^# vm-timeout: *\([0-9]*\).*/\1/p' "$f" | head -n 1)
	# '# vm-allow-log: ERE': kernel log lines the test provokes on purpose
	# (it must check them itself), e.g. the TX watchdog's own message
	allow=$(sed -n 's/^# vm-allow-log: *//p' "$f" | head -n 1)
	tmo=${tmo:-150}
	# stress tests: plus S per cycle ("# vm-timeout-per-cycle: S")
	tpc=$(sed -n 's/^# vm-timeout-per-cycle: *\([0-9]*\).*/\1/p' "$f" | head -n 1)
	[ -z "$tpc" ] || tmo=$((tmo + tpc * ${SCX_STRESS_CYCLES:-5}))

	pre=$(cleanup)
	mark="softcx-vm-test: begin $t $RANDOM"
	kmsg "$mark"
	taint0=$(cat /proc/sys/kernel/tainted)
	[ $pp_trace = 1 ] && : > $TR/trace
	t0=$(date +%s.%N)

	# timeout(1) puts the test in its own process group: kill the group's
	# leftovers (background traffic) afterwards.
	env "${venv[@]}" SCX_TEST_OUT="$OUT/$t" timeout -k 5 "$tmo" bash "$f" </dev/null >"$log" 2>&1 &
	tpid=$!
	wait $tpid
	rc=$?
	kill -KILL -- -$tpid 2>/dev/null
	post=$(cleanup)
	[ -n "$post" ] && echo "run-all cleanup: $post" >>"$log"
	pp=
	if [ $pp_trace = 1 ]; then
		# at once: a slow cleanup must not outlast the kernel's own 60 s
		flush_skb_defer_lists
		for ((w = 0; w <= PP_WAIT; w++)); do
			pp=$(pp_pending)
			[ -z "$pp" ] && break
			flush_skb_defer_lists
			sleep 1
		done
		grep 'page_pool_release:' $TR/trace > "$OUT/$t.page_pool" 2>/dev/null
		[ -s "$OUT/$t.page_pool" ] || rm -f "$OUT/$t.page_pool"
	fi

	dt=$(echo "$(date +%s.%N) - $t0" | bc)
	kmsg "softcx-vm-test: end $t"
	dmesg_since "$mark" | grep -v 'softcx-vm-test: end' > "$OUT/$t.dmesg"
	bad=$(bad_lines < "$OUT/$t.dmesg")
	[ -n "$allow" ] && [ -n "$bad" ] && bad=$(echo "$bad" | grep -Ev "$allow" || true)
	taint=$(taint_new "$taint0" "$(cat /proc/sys/kernel/tainted)")
	printf '%s %.1f\n' "$t" "$dt" >> "$RES/timings.txt"

	reason=
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		reason="timed out after ${tmo}s"
		last=$(grep '^FAIL:' "$log" | head -n 1 | sed 's/^FAIL: //')
		[ -n "$last" ] && reason+=" ($last)"
	elif [ $rc -ne 0 ]; then
		reason=$(grep '^FAIL:' "$log" | head -n 1 | sed 's/^FAIL: //')
		[ -n "$reason" ] || reason="exit status $rc: $(tail -n 1 "$log")"
	fi
	if [ -z "$reason" ] && [ -n "$pre" ]; then
		reason="could not reach a clean state before the test: $pre"
	fi
	if [ -z "$reason" ] && [ -n "$post" ]; then
		reason=$post
	fi
	if [ -z "$reason" ] && [ -n "$pp" ]; then
		reason="page_pool leak: $pp still in flight ${PP_WAIT}s after the test and teardown (see $OUT/$t.page_pool)"
	fi
	if [ -z "$reason" ] && [ -n "$bad" ]; then
		reason="kernel log: $(echo "$bad" | head -n 1 | sed 's/^\[[ 0-9.]*\] //')"
	fi
	if [ -z "$reason" ] && [ -n "$taint" ]; then
		reason="kernel taint flags gained during the test: $taint"
	fi

	if [ -z "$reason" ]; then
		line="PASS $t"
		pass=$((pass + 1))
	else
		line="FAIL $t: $reason"
		failed=$((failed + 1))
	fi
	echo "$line" >> "$RES/results.txt"
	echo "$line"
	if [ -n "$reason" ]; then
		# Enough context for a CI log where the results directory is gone.
		echo "  --- last lines of $t output ($log):"
		tail -n 25 "$log" | sed 's/^/  | /'
		if [ -n "$bad" ]; then
			echo "  --- kernel log during $t ($OUT/$t.dmesg):"
			grep -Ev "$OK_RE" "$OUT/$t.dmesg" | head -n 60 | sed 's/^/  | /'
		fi
	fi
done

# Late kernel messages (after the last test's window), e.g. the kernel's own
# 60 s page_pool stall warning.
late=
[ ${#tests[@]} -gt 0 ] && late=$(dmesg_since "softcx-vm-test: end ${tests[-1]}" | bad_lines)
if [ -n "$late" ]; then
	line="FAIL dmesg-after-suite: $(echo "$late" | head -n 1 | sed 's/^\[[ 0-9.]*\] //')"
	echo "$line" | tee -a "$RES/results.txt"
	failed=$((failed + 1))
fi

echo "run-all: $pass pass, $failed fail in $(( $(date +%s) - suite_start ))s"
[ $failed -eq 0 ]
