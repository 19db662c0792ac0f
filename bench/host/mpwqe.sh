#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host microbenchmark, skb_tx_mpwqe off vs on: instructions per packet of
# the whole TX -> device -> RX -> completion path (pair_bench, lean OS
# layer, batch 32 = one doorbell per 32 packets as pktgen burst 32), from
# callgrind: Ir(N2) - Ir(N1) over N2 - N1 packets (no warm-up effects), and
# the median thread-CPU ns/packet of RUNS runs (wall clock is noisy on a shared host).
#
#   bench/host/mpwqe.sh [OUTDIR]    (default build/bench-results/mpwqe-<date>)
#
# Environment: BENCH_RUNS (5), BENCH_PACKETS (2000000), BENCH_N1 (32768), BENCH_N2 (163840).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-$ROOT/build/bench-results/mpwqe-$(date +%Y%m%d-%H%M%S)}
RUNS=${BENCH_RUNS:-5}
PACKETS=${BENCH_PACKETS:-2000000}
N1=${BENCH_N1:-32768}
N2=${BENCH_N2:-163840}
BIN=$ROOT/build/bench/softcx-bench-lean
mkdir -p "$OUT"
make --no-print-directory -s -C "$ROOT/bench/host" all

echo "== skb_tx_mpwqe host microbenchmark ($(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), g++ $(g++ -dumpfullversion))"
ir() {   # ir MPWQE N: total instructions of one run of N packets
	local f=$OUT/cg-$1-$2.out
	valgrind --tool=callgrind --callgrind-out-file="$f" "$BIN" --mpwqe "$1" --packets "$2" \
		--warmup 0 --runs 1 > /dev/null 2>&1
	callgrind_annotate "$f" 2>/dev/null | sed -n 's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' | tr -d ,
}
for m in 0 1; do
	wall=$("$BIN" --mpwqe $m --packets "$PACKETS" --runs "$RUNS" | tee "$OUT/wall-$m.txt" |
		sed -n 's/.*cpu_ns_per_packet_median=\([0-9.]*\).*/\1/p' | tail -n 1)
	a=$(ir $m "$N1"); b=$(ir $m "$N2")
	ipp=$(( (b - a) / (N2 - N1) ))
	echo "skb_tx_mpwqe $([ $m = 1 ] && echo on || echo off): $ipp instructions/packet (callgrind), median ${wall:-?} ns/packet (thread CPU time)"
	eval "IPP$m=$ipp"
done
echo "instructions/packet on/off: $(( IPP1 * 1000 / IPP0 ))/1000"
