#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM benchmark: one TCP stream into scx1, software GRO vs hardware GRO
# (rx-gro-hw, SHAMPO; issue 14), in one boot:
#
#   scripts/vm-run.sh --icount-percpu --timeout 3600 bench/vm/gro.sh   (make bench-gro)
#
# iperf3 TCP over IPv4, scx0 (root netns, client pinned to CPU 0) -> scx1
# (netns, server pinned to CPU 1), channels=1, cx7 striding RQ. scx1's NAPI
# is threaded and pinned to CPU 1 with the server, so vCPU 1 holds the
# receiver: NAPI, GRO, TCP and the copy to the server; scx0's NAPI is
# threaded and pinned to CPU 0, so the sender's TCP (its ACK processing
# and the transmissions it triggers) and the device model's work for the
# data stay on vCPU 0. rx-gro-hw is set on scx1 only (scx0 receives the
# ACKs as always).
# - Exact (bench/icount): receiver instructions per KiB received = vCPU 1's
#   kernel instructions minus the device model's there, over the KiB the
#   server received (rx1-* configurations, window pairs of
#   SCX_BENCH_GRO_N1 / _N2 bytes: 16 / 48 MiB, SCX_BENCH_IC_REPS (3)
#   repetitions), software / hardware GRO.
# - Throughput (wall clock, moves under TCG: compare within this run):
#   iperf3 -t SCX_BENCH_GRO_SECS (5) per mode, SCX_BENCH_GRO_REPS (3)
#   times, alternating.
# - Per mode the device's work: scx1 rx_packets, rx_gro_packets,
#   rx_gro_skbs (skbs the stack got per segment).
# Summary: $SCX_RESULTS/gro-summary.txt.
source "$(dirname "$0")/../../tests/vm/lib.sh"
source "$(dirname "$0")/icount-lib.sh"
source "$(dirname "$0")/setup.sh"
need_cmd ip ethtool taskset pgrep iperf3

NSB=bench-gro
IPS=10.98.0.1 IPR=10.98.0.2
OUTF=${SCX_RESULTS:-$SCX_TEST_OUT}/gro-summary.txt
N1=${SCX_BENCH_GRO_N1:-$((16 << 20))}
N2=${SCX_BENCH_GRO_N2:-$((48 << 20))}
SECS=${SCX_BENCH_GRO_SECS:-5}
say() { log "$*"; echo "$*" >> "$OUTF"; }
: > "$OUTF"

bench_scx_pair "$NSB" channels=1
ip addr add $IPS/24 dev scx0
ip -n "$NSB" addr add $IPR/24 dev scx1
taskset -p -c 0 $$ > /dev/null || fail "cannot pin the benchmark to CPU 0"
bench_napi_thread scx1 "$NSB" 1
bench_napi_thread scx0 "" 0
wait_for 20 ping -c 1 -W 1 $IPR > /dev/null || fail "no IPv4 between scx0 and scx1"
bg_start ip netns exec "$NSB" taskset -c 1 iperf3 -s -p 5320
wait_for 10 sh -c "ip netns exec $NSB ss -Htln 'sport = :5320' | grep -q ." || fail "iperf3 server did not start"
say "guest kernel $(uname -r), $(nproc --all) CPUs; softcx cx7 channels=1, striding RQ; iperf3 TCP/IPv4 scx0 (client and NAPI kthread on CPU 0) -> scx1 (netns, server and NAPI kthread on CPU 1)"

gro() {	# on|off on scx1 (a channel switch), NAPI threaded and pinned again
	ip netns exec "$NSB" ethtool -K scx1 rx-gro-hw "$1" || fail "ethtool -K scx1 rx-gro-hw $1"
	wait_carrier scx1 "$NSB"
	bench_napi_thread scx1 "$NSB" 1
}

CNT=(rx_packets rx_gro_packets rx_gro_skbs rx_out_of_buffer)
snap() { local c; eth_dump scx1 "$NSB"; S=(); for c in "${CNT[@]}"; do S+=("$(eth_get "$c")"); done; }

# xfer BYTES: one iperf3 transfer of BYTES; PPS = Mbit/s, IC_HANDLED = KiB received
xfer() {
	local js=$SCX_TEST_OUT/gro-xfer.json
	timeout 600 iperf3 -c $IPR -p 5320 -n "$1" -J > "$js" || fail "iperf3 -n $1 failed"
	read -r b bps <<< "$(json_get "$js" 'j["end"]["sum_received"]["bytes"]' 'int(j["end"]["sum_received"]["bits_per_second"] / 1e6)')"
	IC_HANDLED=$((b / 1024))
	PPS=$bps
}

# timed MODE: SECS of iperf3, Mbit/s in MBPS, counters' deltas in D
timed() {
	local js=$SCX_TEST_OUT/gro-timed.json a b i
	snap; b=("${S[@]}")
	timeout 120 iperf3 -c $IPR -p 5320 -t "$SECS" -J > "$js" || fail "iperf3 -t $SECS failed"
	snap; a=("${S[@]}")
	D=(); for i in "${!a[@]}"; do D+=($((a[i] - b[i]))); done
	MBPS=$(json_get "$js" 'round(j["end"]["sum_received"]["bits_per_second"] / 1e6, 1)')
}

declare -A TP=()
for ((k = 1; k <= ${SCX_BENCH_GRO_REPS:-3}; k++)); do
	for m in off on; do
		gro $m
		timed $m
		TP[$m]="${TP[$m]:-} $MBPS"
		say "$(printf 'rx-gro-hw %-3s run %d: %8s Mbit/s | scx1 rx_packets +%s rx_gro_packets +%s rx_gro_skbs +%s rx_out_of_buffer +%s' \
			$m "$k" "$MBPS" "${D[0]}" "${D[1]}" "${D[2]}" "${D[3]}")"
	done
done
med() { tr ' ' '\n' <<< "$1" | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }
off_m=$(med "${TP[off]}") on_m=$(med "${TP[on]}")
say "throughput median: software GRO $off_m Mbit/s, hardware GRO $on_m Mbit/s, ratio x$(awk -v a="$on_m" -v b="$off_m" 'BEGIN {printf "%.2f", a / b}')"

if ic_on; then
	for ((k = 1; k <= ${SCX_BENCH_IC_REPS:-3}; k++)); do
		gro off
		ic_pair rx1-tcp-swgro "$N1" "$N2" xfer
		gro on
		ic_pair rx1-tcp-hwgro "$N1" "$N2" xfer
	done
	ic_report "bench/vm/gro.sh, guest $(uname -r), $(date -u '+%Y-%m-%d %H:%M UTC') (rx1: per KiB received)" \
		--ratio "software GRO / HW-GRO, receiver instructions per KiB=rx1-tcp-swgro/rx1-tcp-hwgro:rx_cpu1" |
		while IFS= read -r l; do say "$l"; done
	say "instruction count report (tables, top-30 functions): $IC_OUT/report.txt"
else
	say "(no instruction counts: boot with scripts/vm-run.sh --icount-percpu)"
fi
gro off
taskset -p -c 0-$(($(nproc) - 1)) $$ > /dev/null || true
