#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# In the guest, for bench/vm/dma-cost.sh: pktgen windows of N1 and N2
# 60-byte packets scx0 -> scx1 (netns, no address: IP drops them), with the
# device's DMA view on (dma_view=1) and off (dma_view=0), each window
# between two executions of the marker program, so the TCG plugin records
# the guest's instruction count around it. Prints one line per window in
# the order the plugin sees the marker pairs.
source "$(dirname "$0")/../../tests/vm/lib.sh"
source "$(dirname "$0")/setup.sh"
need_cmd ip
MARK=$SCX_ROOT/build/bench/scx_mark
[ -x "$MARK" ] || fail "$MARK missing (bench/vm/dma-cost.sh builds it)"
N1=${SCX_DMA_COST_N1:-20000}
N2=${SCX_DMA_COST_N2:-60000}
NSB=bench-dma
modprobe pktgen
for view in ${SCX_DMA_COST_VIEWS:-1 0 1 0}; do
	bench_scx_pair "$NSB" channels=1 dma_view=$view
	pktgen_setup scx0 5000 10.98.0.2 "$MAC"
	pktgen_run scx0 300 > /dev/null	# warm-up: translation, pool pages, xarray nodes
	for n in $N1 $N2; do
		pg_cmd scx0 count "$n"
		"$MARK"
		sent=$(pktgen_run scx0 600)
		"$MARK"
		echo "window view=$view packets=$n sent=$sent faults=$(ethtool_stat scx0 bus_dma_faults)"
	done
	scx_unload
done
