#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 4
# vm-timeout: 240
# vm-timeout-per-cycle: 90
#
# Stress: link down/up under traffic (iperf3 TCP and pktgen scx0 -> scx1),
# SCX_STRESS_CYCLES cycles (lib.sh stress_loop): odd cycles take the
# receiver scx1 down and up, even ones the sender scx0; every third cycle
# instead sets scx1's FEC off and back to auto at 25G (scx1 advertises 25G
# only from then on: 400G runs RS whatever the policy), a FEC mismatch that
# takes the link down at both ends while the ports stay up. After each
# cycle the kernel log is clean and packet conservation holds both ways (frames sent
# while the other end is down: tx_discards_phy at the sender, whose MAC
# finds the link down; frames that reach a port closing its RQs:
# rx_if_down_packets; placed but not polled before the close: rx_flushed).
source "$(dirname "$0")/lib.sh"
stress_setup

flap() {
	local dev=scx1 ns=$NS
	if (($1 % 3 == 0)); then
		# 25000baseCR/KR/SR_Full: link mode bits 31, 32, 33
		in_ns "$NS" ethtool -s scx1 advertise 0x380000000
		wait_carrier scx0
		in_ns "$NS" ethtool --set-fec scx1 encoding off
		wait_no_carrier scx0
		in_ns "$NS" ethtool --set-fec scx1 encoding auto
		wait_carrier scx0
		wait_carrier scx1 "$NS"
		STRESS_WHAT="scx1 FEC off/auto"
		return
	fi
	(($1 % 2)) || { dev=scx0; ns=; }
	in_ns "$ns" ip link set "$dev" down
	sleep 0.1
	[ "$(dev_carrier "$dev" "$ns")" == - ] || fail "cycle $1: $dev still up after 'ip link set down'"
	in_ns "$ns" ip link set "$dev" up
	wait_carrier scx0
	wait_carrier scx1 "$NS"
	STRESS_WHAT="$dev down/up"
}
stress_loop flap
