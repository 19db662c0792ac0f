#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 240
#
# Counters are exact: pktgen sends N UDP frames of 60 bytes from scx0 to
# scx1's MAC (random source ports, so RSS spreads them over the channels; to
# an address ns1 does not own, with forwarding off, so ns1 sends nothing
# back). With IPv6 off there is no other traffic, so:
#   scx0 tx_packets/bytes delta == N / N*60, scx1 rx_packets/bytes delta == N / N*60
# in both `ethtool -S` and `ip -s link`; the per-channel rxN_/txN_ counters
# add up to the totals. Then a flood (no pacing): every frame is either
# received or counted in rx_out_of_buffer. Then ping: deltas >= the pings.
# Last, emul_ns: 0 with emul_timing off (the default), grows on the ringing
# port once /sys/module/softcx/parameters/emul_timing is 1, stops again at 0.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool ping

scx_setup channels=2
ip netns exec "$NS" sysctl -qw net.ipv4.ip_forward=0
MAC1=$(dev_mac scx1 "$NS")
DST=10.11.0.250   # on the subnet, not owned by ns1: dropped by its stack silently
sleep 1           # let the link settle (no traffic expected at all)

# snap: scx0 TX and scx1 RX in both views, into S_* variables.
snap() {
	eth_dump scx0
	S_E0_TXP=$(eth_get tx_packets); S_E0_TXB=$(eth_get tx_bytes)
	eth_dump scx1 "$NS"
	S_E1_RXP=$(eth_get rx_packets); S_E1_RXB=$(eth_get rx_bytes); S_E1_OOB=$(eth_get rx_out_of_buffer)
	link_dump scx0
	S_L0_TXP=${LINK[tx_packets]}; S_L0_TXB=${LINK[tx_bytes]}
	link_dump scx1 "$NS"
	S_L1_RXP=${LINK[rx_packets]}; S_L1_RXB=${LINK[rx_bytes]}
}
# check_deltas LABEL N: exact deltas since the snapshot in B_* variables.
check_deltas() {
	local what=$1 n=$2
	assert_eq "$what: scx0 ethtool tx_packets delta" "$n" $((S_E0_TXP - B_E0_TXP))
	assert_eq "$what: scx0 ip -s link tx_packets delta" "$n" $((S_L0_TXP - B_L0_TXP))
	assert_eq "$what: scx0 ethtool tx_bytes delta" $((n * 60)) $((S_E0_TXB - B_E0_TXB))
	assert_eq "$what: scx0 ip -s link tx_bytes delta" $((n * 60)) $((S_L0_TXB - B_L0_TXB))
	assert_eq "$what: scx1 ethtool rx_packets delta" "$n" $((S_E1_RXP - B_E1_RXP))
	assert_eq "$what: scx1 ip -s link rx_packets delta" "$n" $((S_L1_RXP - B_L1_RXP))
	assert_eq "$what: scx1 ethtool rx_bytes delta" $((n * 60)) $((S_E1_RXB - B_E1_RXB))
	assert_eq "$what: scx1 ip -s link rx_bytes delta" $((n * 60)) $((S_L1_RXB - B_L1_RXB))
	assert_eq "$what: scx1 rx_out_of_buffer delta" 0 $((S_E1_OOB - B_E1_OOB))
}
save_before() {
	snap
	B_E0_TXP=$S_E0_TXP B_E0_TXB=$S_E0_TXB B_E1_RXP=$S_E1_RXP B_E1_RXB=$S_E1_RXB B_E1_OOB=$S_E1_OOB
	B_L0_TXP=$S_L0_TXP B_L0_TXB=$S_L0_TXB B_L1_RXP=$S_L1_RXP B_L1_RXB=$S_L1_RXB
}

# 1. Paced run (~40 us apart): nothing may be dropped.
N=2000
save_before
pktgen_setup scx0 $N $DST "$MAC1" 40000
sent=$(pktgen_run scx0 90)
assert_eq "pktgen (paced) packets sent" $N "$sent"
sleep 0.5
snap
check_deltas "paced pktgen" $N
assert_counters_agree scx0 tx
assert_counters_agree scx1 rx "$NS"
read -r s n <<< "$(ethtool_sum scx1 'rx[0-9]+_packets' "$NS")"
assert_eq "scx1 number of rxN_packets counters (channels=2)" 2 "$n"

# 2. Flood: received + rx_out_of_buffer == sent.
N=20000
save_before
pktgen_setup scx0 $N $DST "$MAC1" 0
sent=$(pktgen_run scx0 120)
assert_eq "pktgen (flood) packets sent" $N "$sent"
sleep 0.5
snap
assert_eq "flood: scx0 tx_packets delta (ethtool)" $N $((S_E0_TXP - B_E0_TXP))
assert_eq "flood: scx0 tx_packets delta (ip -s link)" $N $((S_L0_TXP - B_L0_TXP))
rx=$((S_E1_RXP - B_E1_RXP)); oob=$((S_E1_OOB - B_E1_OOB))
log "flood: scx1 received $rx, rx_out_of_buffer +$oob"
assert_eq "flood: scx1 rx_packets + rx_out_of_buffer delta" $N $((rx + oob))
assert_eq "flood: scx1 rx_packets delta ip -s link vs ethtool" $rx $((S_L1_RXP - B_L1_RXP))
assert_counters_agree scx0 tx
assert_counters_agree scx1 rx "$NS"

# 3. ping: 50 requests each way land (ARP may add a few).
rx0=$(ethtool_stat scx1 rx_packets "$NS"); tx0=$(ethtool_stat scx0 tx_packets)
ping_ok "" "$IP1" 50
assert_ge "scx1 rx_packets delta after 50 pings" 50 $(( $(ethtool_stat scx1 rx_packets "$NS") - rx0 ))
assert_ge "scx0 tx_packets delta after 50 pings" 50 $(( $(ethtool_stat scx0 tx_packets) - tx0 ))
assert_pair_counters_agree

# 4. emul_timing: the emulated device's own time, only when asked for.
P=/sys/module/softcx/parameters/emul_timing
assert_eq "emul_timing default" N "$(< $P)"
assert_eq "scx0 emul_ns with emul_timing off" 0 "$(ethtool_stat scx0 emul_ns)"
echo 1 > $P
assert_eq "emul_timing after writing 1" Y "$(< $P)"
ping_ok "" "$IP1" 10
assert_gt "scx0 emul_ns after 10 pings with emul_timing on" 0 "$(ethtool_stat scx0 emul_ns)"
assert_gt "scx1 emul_ns after 10 pings with emul_timing on" 0 "$(ethtool_stat scx1 emul_ns "$NS")"
echo 0 > $P
# the baseline is read once timing is off: a doorbell of the stack's own
# (a neighbour probe, a NAPI re-arm) between a read taken while on and the
# switch would add to it (CI saw 2061576 -> 2127806)
e0=$(ethtool_stat scx0 emul_ns)
ping_ok "" "$IP1" 10
assert_eq "scx0 emul_ns frozen with emul_timing off again" "$e0" "$(ethtool_stat scx0 emul_ns)"
assert_fails "emul_timing rejects a non-boolean" sh -c "echo maybe > $P"
