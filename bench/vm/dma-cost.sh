#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Instructions per packet of the device's DMA view (shim/dma.c): guest
# kernel instructions counted by the scx_icount QEMU plugin (bench/icount/,
# `scripts/vm-run.sh --icount`, one vCPU, single-threaded TCG) over pktgen
# windows of N1 and N2 packets, with dma_view=1 and dma_view=0; per packet
# = (I(N2) - I(N1)) / (N2 - N1), which cancels each window's fixed costs
# (bench/vm/icount-lib.sh). Run on the host:
#
#   bench/vm/dma-cost.sh [OUTDIR]     (default build/bench-results/dma-<date>)
#
# Environment: SCX_DMA_COST_N1 (20000), SCX_DMA_COST_N2 (60000),
# SCX_DMA_COST_VIEWS ("1 0 1 0": the load order; each is a repetition).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-$ROOT/build/bench-results/dma-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
make -s -C "$ROOT" module
"$ROOT/scripts/vm-run.sh" --quiet --icount --smp 1 --timeout 1800 --results "$OUT/vm" \
	"$ROOT/bench/vm/dma-cost-guest.sh"
grep -v '^#' "$OUT/vm/icount/report.txt" | sed -n '1,/^$/p' | tee "$OUT/result.txt"
grep '^RESULT' "$OUT/vm/icount/report.txt" | tee -a "$OUT/result.txt"
