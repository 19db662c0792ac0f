#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 4
# vm-timeout: 300
# vm-timeout-per-cycle: 90
#
# Stress: private flag switches under traffic, SCX_STRESS_CYCLES cycles.
# scx1 runs xdp_tx_pktgen.o: pktgen's frames from scx0 go back by XDP_TX
# (through scx1's XDP_TX SQ, in MPWQE sessions or SEND WQEs), iperf3 TCP
# passes to the stack. Each cycle flips skb_tx_mpwqe on scx0 and scx1,
# xdp_tx_mpwqe on scx1 and scx0, and rx_striding_rq on scx1 (under XDP)
# and scx0 (each change while up rebuilds the channels);
# the flags read back as set. After each cycle the kernel log is clean and
# packet conservation holds both ways.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool
bpf_build
stress_setup
xdp_attach scx1 "$NS" "$BPF/xdp_tx_pktgen.o"

# flag DEV NS NAME on|off
flag() {
	local out
	assert_ok "$1 $3 $4" in_ns "$2" ethtool --set-priv-flags "$1" "$3" "$4"
	out=$(in_ns "$2" ethtool --show-priv-flags "$1")
	grep -qE "^$3 *: +$4 *\$" <<< "$out" || fail "$1: $3 is not $4 after setting it: $(echo "$out" | tr '\n' ' ')"
	sleep 0.1
}
cycle() {
	local v=off
	(($1 % 2)) || v=on
	flag scx0 "" skb_tx_mpwqe $v
	flag scx1 "$NS" xdp_tx_mpwqe $v
	flag scx1 "$NS" skb_tx_mpwqe $v
	flag scx0 "" xdp_tx_mpwqe $v
	flag scx1 "$NS" rx_striding_rq $v
	flag scx0 "" rx_striding_rq $v
	STRESS_WHAT="skb_tx_mpwqe, xdp_tx_mpwqe and rx_striding_rq $v on both ports"
}
stress_loop cycle
eth_dump scx1 "$NS"
assert_gt "scx1 rx_xdp_tx_xmit (pktgen frames sent back)" 0 "$(eth_get rx_xdp_tx_xmit)"
