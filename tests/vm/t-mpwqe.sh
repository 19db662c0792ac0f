#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 300
#
# skb_tx_mpwqe: pktgen 60-byte frames (64 on the wire with FCS), burst 32
# (xmit_more batches, IFF_TX_SKB_SHARING) from scx0 to scx1's MAC:
# - default on (cx7): tx_mpwqe_pkts / tx_mpwqe_blks > 20, every frame posted;
# - `ethtool --set-priv-flags scx0 skb_tx_mpwqe off` (rebuilds the channels
#   while up): tx_mpwqe_blks stays 0, traffic still flows;
# - model=cx4: the flag is off and cannot be turned on (clear message in the
#   kernel log, EOPNOTSUPP); the same traffic passes with the MPWQE counters at 0.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool

N=20000
DST=10.11.0.250   # on ns1's subnet, not owned by it: dropped by its stack silently

pflag() { ethtool --show-priv-flags scx0 | sed -n 's/^skb_tx_mpwqe *: *//p'; }

# run_pktgen LABEL: N frames, burst 32; sets D_PKTS D_BLKS D_TX D_RX (deltas).
run_pktgen() {
	local mac p0 b0 t0 r0 sent
	mac=$(dev_mac scx1 "$NS")
	p0=$(ethtool_stat scx0 tx_mpwqe_pkts); b0=$(ethtool_stat scx0 tx_mpwqe_blks)
	t0=$(ethtool_stat scx0 tx_packets); r0=$(ethtool_stat scx1 rx_packets "$NS")
	pktgen_setup scx0 "$N" "$DST" "$mac" 0 60
	pg_cmd scx0 burst 32
	sent=$(pktgen_sent "$1" "$N" 32 "$(pktgen_run scx0 120)")
	sleep 0.3
	D_PKTS=$(( $(ethtool_stat scx0 tx_mpwqe_pkts) - p0 ))
	D_BLKS=$(( $(ethtool_stat scx0 tx_mpwqe_blks) - b0 ))
	D_TX=$(( $(ethtool_stat scx0 tx_packets) - t0 ))
	D_RX=$(( $(ethtool_stat scx1 rx_packets "$NS") - r0 ))
	log "$1: pktgen sent $sent; tx_packets +$D_TX, tx_mpwqe_pkts +$D_PKTS, tx_mpwqe_blks +$D_BLKS, scx1 rx_packets +$D_RX"
	assert_eq "$1: scx0 tx_packets delta" "$sent" "$D_TX"
	assert_gt "$1: scx1 rx_packets delta" 0 "$D_RX"
	assert_eq "$1: scx0 tx_cqe_err" 0 "$(ethtool_stat scx0 tx_cqe_err)"
}

# ---- cx7: on by default
scx_setup channels=1
ip netns exec "$NS" sysctl -qw net.ipv4.ip_forward=0
assert_eq "skb_tx_mpwqe default on cx7" on "$(pflag)"
run_pktgen "cx7 mpwqe on"
assert_gt "tx_mpwqe_pkts delta" 0 "$D_PKTS"
assert_gt "tx_mpwqe_pkts / tx_mpwqe_blks (x1, > 20)" 20 $(( D_PKTS / (D_BLKS ? D_BLKS : 1) ))
assert_eq "tx_mpwqe_pkts delta vs tx_packets delta" "$D_TX" "$D_PKTS"

ethtool --set-priv-flags scx0 skb_tx_mpwqe off
assert_eq "skb_tx_mpwqe after off" off "$(pflag)"
wait_carrier scx0
wait_carrier scx1 "$NS"
run_pktgen "cx7 mpwqe off"
assert_eq "tx_mpwqe_blks delta with skb_tx_mpwqe off" 0 "$D_BLKS"
ethtool --set-priv-flags scx0 skb_tx_mpwqe on
assert_eq "skb_tx_mpwqe back on" on "$(pflag)"
wait_carrier scx0
ping_ok "" "$IP1" 3
echo stop > /proc/net/pktgen/pgctrl 2>/dev/null || true
pg_cmd kpktgend_0 rem_device_all

# ---- cx4: never
scx_unload
scx_setup channels=1 model=cx4
ip netns exec "$NS" sysctl -qw net.ipv4.ip_forward=0
assert_eq "skb_tx_mpwqe default on cx4" off "$(pflag)"
pflag_refused scx0 skb_tx_mpwqe
run_pktgen "cx4"
assert_eq "cx4 tx_mpwqe_blks delta" 0 "$D_BLKS"
assert_eq "cx4 tx_mpwqe_pkts delta" 0 "$D_PKTS"
ping_ok "" "$IP1" 3
