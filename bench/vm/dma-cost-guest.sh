#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# In the guest, for bench/vm/dma-cost.sh (booted with --icount): pktgen
# windows of N1 and N2 60-byte packets scx0 -> scx1 (netns, no address: IP
# drops them), clone_skb 0 (a new skb, so a new mapping, per packet), with
# the device's DMA view on (dma_view=1) and off (dma_view=0), after a
# 5000-packet warm-up; the instruction counts per window and the report
# come from bench/vm/icount-lib.sh.
source "$(dirname "$0")/../../tests/vm/lib.sh"
source "$(dirname "$0")/icount-lib.sh"
source "$(dirname "$0")/setup.sh"
need_cmd ip
ic_on || fail "no instruction counter: boot with scripts/vm-run.sh --icount"
N1=${SCX_DMA_COST_N1:-20000}
N2=${SCX_DMA_COST_N2:-60000}
NSB=bench-dma
modprobe pktgen

send() {   # N: N packets, all of them handed to scx0
	local sent
	pg_cmd scx0 count "$1"
	sent=$(pktgen_run scx0 600)
	[ "$sent" == "$1" ] || fail "pktgen sent $sent of $1"
	PPS=-
}

for view in ${SCX_DMA_COST_VIEWS:-1 0 1 0}; do
	bench_scx_pair "$NSB" channels=1 dma_view=$view
	pktgen_setup scx0 5000 10.98.0.2 "$MAC"
	pktgen_run scx0 300 > /dev/null	# warm-up: translation, pool pages, chunk counters
	ic_pair "dma_view$view" "$N1" "$N2" send
	assert_eq "bus_dma_faults with dma_view=$view" 0 "$(ethtool_stat scx0 bus_dma_faults)"
	scx_unload
done
ic_report "bench/vm/dma-cost.sh: the DMA view on vs off, guest $(uname -r), $(date -u '+%Y-%m-%d %H:%M UTC')" \
	--ratio 'view off/on=dma_view0/dma_view1:total'
