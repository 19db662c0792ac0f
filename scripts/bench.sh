#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmarks (figures, not pass/fail tests):
#   1. host microbenchmark of the TX -> device -> RX path (bench/host/run.sh):
#      ns/packet (wall clock, median) and instructions/packet (callgrind),
#      with tests/host/os_host.cpp and with the lean bench OS layer;
#   2. VM benchmark (bench/vm/pktgen.sh in a VM via scripts/vm-run.sh):
#      pktgen 64-byte frames scx0 -> scx1 and veth0 -> veth1, medians of
#      three interleaved repetitions and their ratio;
#   3. VM instruction counts (bench/vm/icount.sh in a VM booted with
#      scripts/vm-run.sh --icount-percpu, the QEMU plugin of bench/icount/):
#      exact guest instructions per packet for veth and softcx (burst 1 and
#      32, skb_tx_mpwqe on and off), by group, the sender's for the TX MPWQE
#      goal, top-30 functions, next to pps under the plugin;
#   4. the same on one vCPU with the virtual clock (scripts/vm-run.sh
#      --smp 1 --virtual-clock --icount): the default settings' figures,
#      which with moderation on follow the host's speed in part 3, repeat
#      from boot to boot (no -rxcpu1 configurations).
#
#   scripts/bench.sh            (or: make bench)
#
# Environment: BENCH_SKIP_HOST=1, BENCH_SKIP_VM=1, BENCH_SKIP_ICOUNT=1, BENCH_SKIP_VCLOCK=1,
# BENCH_VM_TIMEOUT (900), BENCH_ICOUNT_TIMEOUT (2400),
# plus those of bench/host/run.sh (BENCH_*) and bench/vm/pktgen.sh (SCX_BENCH_*,
# passed into the guest by vm-run.sh).
# Results: build/bench-results/<date>/ (host/, vm/, icount/, icount-vclock/, summary.txt;
# icount/icount/report.txt has the tables and the top-30 functions).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$ROOT/build/bench-results/$(date +%Y%m%d-%H%M%S)
mkdir -p "$OUT"
ln -sfn "$(basename "$OUT")" "$ROOT/build/bench-results/latest"
SUM=$OUT/summary.txt

# What was measured: the commit plus a hash of the sources (the tree may be dirty).
src_hash=$(find src shim include Kbuild -type f \( -name '*.cpp' -o -name '*.h' -o -name '*.c' -o -name Kbuild \) \
	-print0 | sort -z | xargs -0 cat | sha256sum | cut -c1-12)
{
	echo "softcx benchmarks, $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')$([ -z "$(git status --porcelain -- src shim include Kbuild 2>/dev/null)" ] || echo ' + uncommitted changes'), sources sha256 $src_hash"
	echo "machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(free -g | awk '/^Mem:/ {print $2}') GiB, load $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$SUM"

# The machine may be shared: sample the load and the QEMU processes (ours is
# one of them during the VM part) every 10 s into load.log.
(
	while :; do
		echo "$(date +%T) load $(cut -d' ' -f1-3 /proc/loadavg) qemu-system processes $(pgrep -c qemu-system || true)"
		sleep 10
	done
) > "$OUT/load.log" 2>&1 &
SAMPLER=$!
trap 'kill "$SAMPLER" 2>/dev/null || true' EXIT

if [ "${BENCH_SKIP_HOST:-0}" != 1 ]; then
	bench/host/run.sh "$OUT/host"
	{
		echo
		echo "host microbenchmark (bench/host), 64-byte frames (60 B + FCS), batch 32:"
		for os in host lean; do
			w=$(grep -h '^RESULT' "$OUT/host/wall-$os.txt" | sed 's/^RESULT //')
			i=$(grep -h '^RESULT' "$OUT/host/split-$os.txt" 2>/dev/null | sed 's/^RESULT //' || true)
			echo "  os_$os: $w ${i:-(no callgrind)}"
		done
	} | tee -a "$SUM"
fi

if [ "${BENCH_SKIP_VM:-0}" != 1 ]; then
	KVER=${KVER:-$(scripts/kver.sh)}
	# Build the module when it is missing or older than any of its sources.
	if [ ! -f softcx.ko ] || [ -n "$(find src shim include Kbuild scripts/cxx.mk -newer softcx.ko -type f \
			\( -name '*.cpp' -o -name '*.h' -o -name '*.c' -o -name Kbuild -o -name '*.mk' \) | head -n 1)" ]; then
		echo "bench: building softcx.ko"
		make --no-print-directory module
	fi
	echo
	echo "bench: VM benchmark (guest $KVER, TCG); the console goes to $OUT/vm/console.log"
	others=$(pgrep -c qemu-system || true)
	[ "$others" = 0 ] || echo "bench: WARNING: $others other qemu-system process(es) running: the VM figures will be noisy" | tee -a "$SUM"
	rc=0
	scripts/vm-run.sh --quiet --timeout "${BENCH_VM_TIMEOUT:-900}" --results "$OUT/vm" bench/vm/pktgen.sh || rc=$?
	{
		echo
		echo "VM benchmark (bench/vm/pktgen.sh, guest $KVER, QEMU TCG -smp 2):"
		if [ -f "$OUT/vm/pktgen-summary.txt" ]; then
			sed 's/^/  /' "$OUT/vm/pktgen-summary.txt"
		fi
		[ $rc -eq 0 ] || echo "  FAILED: vm-run status $rc (see $OUT/vm/output.log, console.log)"
	} | tee -a "$SUM"
fi
if [ "${BENCH_SKIP_ICOUNT:-0}" != 1 ]; then
	[ "${BENCH_SKIP_VM:-0}" != 1 ] || { KVER=${KVER:-$(scripts/kver.sh)}; make --no-print-directory module; }
	echo
	echo "bench: VM instruction counts (bench/vm/icount.sh, QEMU plugin bench/icount); the console goes to $OUT/icount/console.log"
	rc=0
	scripts/vm-run.sh --quiet --icount-percpu --timeout "${BENCH_ICOUNT_TIMEOUT:-2400}" --results "$OUT/icount" \
		bench/vm/icount.sh || rc=$?
	{
		echo
		echo "VM instruction counts (bench/vm/icount.sh, guest $KVER, exact; report: $OUT/icount/icount/report.txt):"
		[ ! -f "$OUT/icount/icount-summary.txt" ] || grep '^RESULT' "$OUT/icount/icount-summary.txt" | sed 's/^/  /'
		[ $rc -eq 0 ] || echo "  FAILED: vm-run status $rc (see $OUT/icount/output.log, console.log)"
	} | tee -a "$SUM"
fi
if [ "${BENCH_SKIP_VCLOCK:-0}" != 1 ]; then
	# parts 2 and 3 built the module unless both were skipped
	[ "${BENCH_SKIP_VM:-0}" != 1 ] || [ "${BENCH_SKIP_ICOUNT:-0}" != 1 ] ||
		{ KVER=${KVER:-$(scripts/kver.sh)}; make --no-print-directory module; }
	echo
	echo "bench: VM instruction counts on the virtual clock (one vCPU); the console goes to $OUT/icount-vclock/console.log"
	rc=0
	scripts/vm-run.sh --quiet --smp 1 --virtual-clock --icount --timeout "${BENCH_ICOUNT_TIMEOUT:-2400}" \
		--results "$OUT/icount-vclock" bench/vm/icount.sh || rc=$?
	{
		echo
		echo "VM instruction counts on the virtual clock (one vCPU, the default settings repeatable; report: $OUT/icount-vclock/icount/report.txt):"
		[ ! -f "$OUT/icount-vclock/icount-summary.txt" ] || grep '^RESULT' "$OUT/icount-vclock/icount-summary.txt" | sed 's/^/  /'
		[ $rc -eq 0 ] || echo "  FAILED: vm-run status $rc (see $OUT/icount-vclock/output.log, console.log)"
	} | tee -a "$SUM"
fi
{
	echo
	echo "1-min load average during the run (load.log): $(awk '{print $3}' "$OUT/load.log" | sort -n | sed -n '1p;$p' | tr '\n' ' ' | sed 's/ $//; s/ / to /'), \
at most $(awk '{print $NF}' "$OUT/load.log" | sort -n | tail -n 1) qemu-system processes at once (ours included)"
} | tee -a "$SUM"
echo "bench: results in $OUT (summary.txt)"
