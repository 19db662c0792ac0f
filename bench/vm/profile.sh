#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where the guest spends its time during the pktgen benchmark (the same layout
# and pktgen settings as bench/vm/pktgen.sh, clone_skb 0, burst 1): one
# `perf record -C 0 -e cpu-clock` per device around a pktgen run (CPU 0 runs
# kpktgend_0 and the receive softirq), then the time per module (softcx vs
# the rest of the kernel) and the hottest symbols. Runs inside the guest:
#
#   scripts/vm-run.sh --timeout 600 bench/vm/profile.sh
#
# Environment: SCX_BENCH_PROFILE_COUNT (100000 packets per device).
# Under TCG a profile shows what is expensive to emulate, which tracks the
# instruction count rather than real cycles; read it as a hint.
source "$(dirname "$0")/../../tests/vm/lib.sh"
need_cmd ip perf

COUNT=${SCX_BENCH_PROFILE_COUNT:-100000}
OUT=${SCX_RESULTS:-$SCX_TEST_OUT}
NS_S=bench-scx
NS_V=bench-veth

source "$(dirname "$0")/setup.sh"
bench_setup_pairs

for dev in scx0 veth0; do
	if [ $dev == scx0 ]; then mac=$MAC_S; else mac=$MAC_V; fi
	pktgen_setup "$dev" "$COUNT" 10.99.0.2 "$mac"
	pg_cmd "$dev" udp_src_min 9
	pg_cmd "$dev" udp_src_max 9
	pg_cmd "$dev" flag '!UDPSRC_RND'
	pg_cmd "$dev" src_min 10.99.0.1
	pg_cmd "$dev" src_max 10.99.0.1
	perf record -q -C 0 -e cpu-clock -F 499 -o "$OUT/perf-$dev.data" -- \
		sh -c "echo start > $PG/pgctrl" 2> "$OUT/perf-record-$dev.log"
	log "$dev: $(grep -m1 -o '[0-9]*pps' "$PG/$dev")"
	{
		# Module symbols resolve through kallsyms, so perf's dso column says
		# [kernel.kallsyms] for them too: sum softcx's own symbols instead.
		perf report -i "$OUT/perf-$dev.data" --stdio --sort sym 2>/dev/null | grep -v '^#' |
			awk '$1 ~ /%$/ { p = $1; sub(/%/, "", p); t += p;
				if ($3 ~ /^(_ZN6softcx|scx_)/) s += p; if ($3 == "native_safe_halt") h += p }
				END { printf "-- softcx module code (C++ core + shim, symbols _ZN6softcx*/scx_*): %.1f %%; idle: %.1f %%; total %.1f %%\n", s, h, t }'
		echo "-- by symbol"
		perf report -i "$OUT/perf-$dev.data" --stdio --sort dso,sym --percent-limit 0.7 \
			2>/dev/null | grep -v '^#' | grep -v '^$' | head -n 40
	} > "$OUT/perf-$dev.txt"
	log "$dev: where CPU 0 spent its time:"
	cat "$OUT/perf-$dev.txt"
done
ip link del veth0 2>/dev/null || true
ip netns del "$NS_S" 2>/dev/null || true
ip netns del "$NS_V" 2>/dev/null || true
pg_cmd pgctrl reset
scx_unload
