#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Instructions per packet of the device's DMA view (shim/dma.c): the whole
# guest's instruction count (QEMU TCG plugin bench/vm/insn_window.c, one
# vCPU, single-threaded TCG) over pktgen windows of N1 and N2 packets,
# with dma_view=1 and dma_view=0, per packet = (I(N2) - I(N1)) / (N2 - N1),
# which cancels each window's fixed costs. Run on the host:
#
#   bench/vm/dma-cost.sh [OUTDIR]     (default build/bench-results/dma-<date>)
#
# Environment: SCX_DMA_COST_N1 (20000), SCX_DMA_COST_N2 (60000),
# SCX_DMA_COST_VIEWS ("1 0 1 0": the load order).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-$ROOT/build/bench-results/dma-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT" "$ROOT/build/bench"
gcc -O2 -shared -fPIC -fvisibility=hidden -Wall -o "$ROOT/build/bench/insn_window.so" \
	"$ROOT/bench/vm/insn_window.c"
gcc -O2 -Wall -o "$ROOT/build/bench/scx_mark" "$ROOT/bench/vm/scx_mark.c"
make -s -C "$ROOT" module
"$ROOT/scripts/vm-run.sh" --quiet --smp 1 --timeout 1800 --results "$OUT/vm" \
	--qemu -accel --qemu tcg,thread=single \
	--qemu -plugin --qemu "$ROOT/build/bench/insn_window.so,arg=out=$OUT/marks.txt" \
	"$ROOT/bench/vm/dma-cost-guest.sh"
python3 - "$OUT/marks.txt" "$OUT/vm/output.log" <<'PY' | tee "$OUT/result.txt"
import re, sys
marks = [int(l.split()[-1]) for l in open(sys.argv[1]) if l.startswith("mark ")]
wins = [dict(re.findall(r"(\w+)=(\d+)", l)) for l in open(sys.argv[2]) if l.startswith("window ")]
assert len(marks) == 2 * len(wins), (len(marks), len(wins))
for w, (a, b) in zip(wins, zip(marks[0::2], marks[1::2])):
    w["insns"] = b - a
per = {}
for i in range(0, len(wins), 2):
    w1, w2 = wins[i], wins[i + 1]
    assert w1["sent"] == w1["packets"] and w2["sent"] == w2["packets"], (w1, w2)
    ipp = (w2["insns"] - w1["insns"]) / (int(w2["packets"]) - int(w1["packets"]))
    per.setdefault(w1["view"], []).append(ipp)
    print("dma_view=%s: %d and %d packets: %d and %d instructions: %.1f per packet"
          % (w1["view"], int(w1["packets"]), int(w2["packets"]), w1["insns"], w2["insns"], ipp))
on, off = per.get("1", []), per.get("0", [])
if on and off:
    print("view on - off: %.1f instructions per packet (on %s, off %s)"
          % (sum(on) / len(on) - sum(off) / len(off), on, off))
PY
