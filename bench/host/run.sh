#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host microbenchmark: build bench/host, then for each OS layer (os_host =
# tests/host/os_host.cpp as is, os_lean = bench/host/os_lean.cpp):
#   1. wall clock: RUNS timed runs of PACKETS packets after a warm-up, median ns/packet;
#   2. callgrind: one run of N1 and one of N2 packets (no warm-up),
#      instructions/packet = (Ir(N2) - Ir(N1)) / (N2 - N1), plus the per-layer split.
#
#   bench/host/run.sh [OUTDIR]      (default build/bench-results/host-<date>)
#
# Environment: BENCH_RUNS (5), BENCH_PACKETS_HOST (300000), BENCH_PACKETS_LEAN
# (2000000), BENCH_N1 (32768), BENCH_N2 (163840), BENCH_NO_CALLGRIND=1.
# N1 and N2 are multiples of 8192 so the OS layer's record collection
# (every 8192 packets) is charged evenly.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-$ROOT/build/bench-results/host-$(date +%Y%m%d-%H%M%S)}
RUNS=${BENCH_RUNS:-5}
N1=${BENCH_N1:-32768}
N2=${BENCH_N2:-163840}
mkdir -p "$OUT"

make --no-print-directory -s -C "$ROOT/bench/host" all

echo "== host microbenchmark ($(uname -r) host, $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), g++ $(g++ -dumpfullversion))"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

for os in host lean; do
	bin=$ROOT/build/bench/softcx-bench-$os
	if [ $os = host ]; then pk=${BENCH_PACKETS_HOST:-300000}; else pk=${BENCH_PACKETS_LEAN:-2000000}; fi
	echo
	echo "-- wall clock, OS layer $os"
	"$bin" --packets "$pk" --runs "$RUNS" --warmup $((pk / 5)) | tee "$OUT/wall-$os.txt"
	if [ "${BENCH_NO_CALLGRIND:-0}" = 1 ]; then
		continue
	fi
	command -v valgrind >/dev/null || { echo "valgrind missing: no instruction counts"; continue; }
	echo
	echo "-- callgrind, OS layer $os: $N1 and $N2 packets"
	for n in "$N1" "$N2"; do
		valgrind --tool=callgrind --compress-strings=no --compress-pos=no \
			--callgrind-out-file="$OUT/callgrind.$os.$n" \
			"$bin" --packets "$n" --runs 1 --warmup 0 > "$OUT/callgrind.$os.$n.log" 2>&1 ||
			{ echo "callgrind run failed: $OUT/callgrind.$os.$n.log"; tail -n 5 "$OUT/callgrind.$os.$n.log"; exit 1; }
	done
	python3 "$ROOT/bench/host/callgrind_split.py" "$N1" "$OUT/callgrind.$os.$N1" \
		"$N2" "$OUT/callgrind.$os.$N2" | tee "$OUT/split-$os.txt"
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "raw outputs: $OUT"
