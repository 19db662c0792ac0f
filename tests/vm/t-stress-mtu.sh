#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 4
# vm-timeout: 300
# vm-timeout-per-cycle: 90
#
# Stress: MTU changes under traffic, SCX_STRESS_CYCLES cycles: the receiver
# scx1 first, then the sender scx0, through 9000, 1500, 3000 and 576 (each
# change while up builds a new channel set, RX buffers of another order,
# and switches to it), so the two ends disagree for a while. The MTU reads
# back as set. After each cycle the kernel log is clean and packet
# conservation holds both ways (frames longer than the receiver's buffers:
# rx_oversize_pkts_buffer).
source "$(dirname "$0")/lib.sh"
stress_setup
MTUS=(9000 1500 3000 576)

mtu() {   # CYCLE DEV NS MTU
	assert_ok "cycle $1: $2 mtu $4" in_ns "$3" ip link set dev "$2" mtu "$4"
	assert_eq "cycle $1: $2 MTU" "$4" "$(dev_mtu "$2" "$3")"
	sleep 0.1
}
cycle() {
	local m=${MTUS[$1 % ${#MTUS[@]}]}
	mtu "$1" scx1 "$NS" "$m"
	mtu "$1" scx0 "" "$m"
	STRESS_WHAT="MTU $m, scx1 then scx0"
}
stress_loop cycle
