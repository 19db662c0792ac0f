#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 4
# vm-timeout: 300
# vm-timeout-per-cycle: 90
#
# Stress: XDP attach, replace and detach on the receiver scx1 under traffic
# (iperf3 TCP and pktgen scx0 -> scx1), SCX_STRESS_CYCLES cycles: attach
# xdp_pass.o (channels rebuilt), replace (no rebuild) with xdp_tx_pktgen.o
# (pktgen's frames go back to scx0 by XDP_TX, TCP passes), xdp_drop.o and
# xdp_count.o, detach (rebuilt); the programs are loaded once and pinned
# (bpf_pin). Each step installs another program id; after
# each cycle the kernel log is clean and packet conservation holds both
# ways (rx_xdp_drop, rx_xdp_tx_xmit at scx1; scx1's XDP_TX frames counted
# as sent by scx1 and received at scx0).
source "$(dirname "$0")/lib.sh"
need_cmd bpftool
bpf_build
bpf_pin xdp_pass xdp_tx_pktgen xdp_drop xdp_count
stress_setup

xdp_id() { local m id; read -r m id <<< "$(xdp_attached scx1 "$NS")"; echo "${m:-none}:${id:-0}"; }
xdp_step() {   # CYCLE NAME: replace (or attach) with the pinned program, check the id changed
	local before after
	before=$(xdp_id)
	assert_ok "cycle $1: $2 on scx1" ip -n "$NS" -force link set dev scx1 xdp pinned "$BPF_PIN/$2"
	after=$(xdp_id)
	[[ "$after" == 1:* ]] && [ "$after" != "$before" ] ||
		fail "cycle $1: $2: attached program $before -> $after (want native, another id)"
	sleep 0.1
}
cycle() {
	local p
	for p in xdp_pass xdp_tx_pktgen xdp_drop xdp_count; do xdp_step "$1" "$p"; done
	xdp_detach scx1 "$NS"
	STRESS_WHAT="XDP attach, 3 replacements, detach"
}
stress_loop cycle
