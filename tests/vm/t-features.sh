#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 600
#
# ethtool -K: every offload the ports show as changeable (not [fixed])
# changes what the driver and the device do, on a live port, and traffic
# stays intact both ways:
# - rx-checksum off on scx1: no CQE checksum verdict reaches the stack,
#   every packet counts as rx_csum_none (exactly rx_packets' growth, none
#   as rx_csum_complete or rx_csum_unnecessary), UDP datagrams still
#   intact; on again, rx_csum_complete grows again (1000-byte datagrams:
#   the CQE's sum, as mlx5; t-rx-csum has the rest).
# - tx-checksumming off on scx0: the stack checksums (tx_csum_partial
#   stays, tx_csum_none grows), the kernel drops TSO with it (no LSO WQE);
#   a TCP transfer's SHA-256 at the receiver is the sender's.
# - scatter-gather off: TSO goes with it too (no LSO WQE), transfer intact.
# - tx-udp-segmentation: UDP GSO sends (UDP_SEGMENT) become one LSO WQE
#   each (tx_tso_packets) with it on and none with it off; every datagram
#   intact at the receiver both ways.
# - receive-hashing off on scx1: UDP skbs reach tc ingress without a flow
#   hash (tests/bpf/tc_hash.c), with it on every one has the device's.
# highdma is on and [fixed], as mlx5's. No checksum errors anywhere, and
# ethtool -S agrees with ip -s link at the end. (VLAN offloads, rx-fcs,
# rx-all, rx-gro-hw, ntuple-filters and rx-vlan-filter have their own
# tests: t-vlan-offload, t-rx-fcs, t-hw-gro, t-ntuple, t-rx-filter.)
source "$(dirname "$0")/lib.sh"
need_cmd ethtool python3

scx_setup channels=2
bpf_build

feat=$(ethtool -k scx0)
for f in rx-checksumming tx-checksum-ip-generic tx-checksum-ipv4 tx-checksum-ipv6 \
	scatter-gather tcp-segmentation-offload tx-tcp6-segmentation tx-udp-segmentation \
	receive-hashing rx-vlan-offload tx-vlan-offload rx-vlan-filter rx-fcs rx-all ntuple-filters; do
	line=$(grep -E "^[[:space:]]*$f:" <<< "$feat") || true
	case $f in
	tx-checksum-ip-generic) [[ "$line" =~ off\ \[fixed\] ]] ||
		fail "scx0 $f: expected off [fixed] (the device checksums IPv4 and IPv6 only): '$line'" ;;
	*) [ -n "$line" ] && [[ ! "$line" =~ fixed ]] || fail "scx0 $f is not changeable: '$line'" ;;
	esac
done
[[ "$feat" =~ highdma:\ on\ \[fixed\] ]] ||
	fail "scx0 highdma: expected on [fixed]: $(grep highdma <<< "$feat")"
c0=$(csum_errors ""); c1=$(csum_errors "$NS")

# -- rx-checksum
rx_csum_phase() {	# LABEL N: N datagrams to scx1; sets D_PKTS D_NONE D_UNN D_COMP (deltas)
	local p0 n0 u0 k0
	eth_dump scx1 "$NS"
	p0=$(eth_get rx_packets); n0=$(eth_get rx_csum_none); u0=$(eth_get rx_csum_unnecessary)
	k0=$(eth_get rx_csum_complete)
	udp_verified "$1" "$2" "$2"
	eth_dump scx1 "$NS"
	D_PKTS=$(( $(eth_get rx_packets) - p0 ))
	D_NONE=$(( $(eth_get rx_csum_none) - n0 ))
	D_UNN=$(( $(eth_get rx_csum_unnecessary) - u0 ))
	D_COMP=$(( $(eth_get rx_csum_complete) - k0 ))
	log "$1: rx_packets +$D_PKTS, rx_csum_none +$D_NONE, rx_csum_unnecessary +$D_UNN, rx_csum_complete +$D_COMP"
}
in_ns "$NS" ethtool -K scx1 rx off
feat_is scx1 "$NS" rx-checksumming off
rx_csum_phase rxcsum-off 200
assert_ge "scx1 rx_packets delta with rx-checksum off" 200 "$D_PKTS"
assert_eq "scx1 rx_csum_none delta = rx_packets delta with rx-checksum off" "$D_PKTS" "$D_NONE"
assert_eq "scx1 rx_csum_unnecessary delta with rx-checksum off" 0 "$D_UNN"
assert_eq "scx1 rx_csum_complete delta with rx-checksum off" 0 "$D_COMP"
in_ns "$NS" ethtool -K scx1 rx on
feat_is scx1 "$NS" rx-checksumming on
rx_csum_phase rxcsum-on 200
assert_ge "scx1 rx_csum_complete delta with rx-checksum on (200 UDP datagrams)" 200 "$D_COMP"

# -- tx-checksumming and scatter-gather: TSO goes with either
tx_phase() {	# LABEL: a TCP transfer scx0 -> scx1; sets D_PART D_NONE D_TSO
	local a0 n0 t0
	eth_dump scx0
	a0=$(eth_get tx_csum_partial); n0=$(eth_get tx_csum_none); t0=$(eth_get tx_tso_packets)
	tcp_verified "$1" 3000000
	eth_dump scx0
	D_PART=$(( $(eth_get tx_csum_partial) - a0 ))
	D_NONE=$(( $(eth_get tx_csum_none) - n0 ))
	D_TSO=$(( $(eth_get tx_tso_packets) - t0 ))
	log "$1: tx_csum_partial +$D_PART, tx_csum_none +$D_NONE, tx_tso_packets +$D_TSO"
}
tx_phase tx-on
assert_gt "scx0 tx_tso_packets delta, all on" 0 "$D_TSO"
assert_gt "scx0 tx_csum_partial delta, all on" 0 "$D_PART"
ethtool -K scx0 tx off
feat_is scx0 "" tx-checksumming off
feat_is scx0 "" tcp-segmentation-offload off
tx_phase txcsum-off
assert_eq "scx0 tx_csum_partial delta with tx-checksumming off" 0 "$D_PART"
assert_gt "scx0 tx_csum_none delta with tx-checksumming off" 1000 "$D_NONE"
assert_eq "scx0 tx_tso_packets delta with tx-checksumming off" 0 "$D_TSO"
ethtool -K scx0 tx on
feat_is scx0 "" tcp-segmentation-offload on
ethtool -K scx0 sg off
feat_is scx0 "" scatter-gather off
feat_is scx0 "" tcp-segmentation-offload off
tx_phase sg-off
assert_eq "scx0 tx_tso_packets delta with scatter-gather off" 0 "$D_TSO"
ethtool -K scx0 sg on
feat_is scx0 "" tcp-segmentation-offload on
tx_phase tx-on-again
assert_gt "scx0 tx_tso_packets delta, all on again" 0 "$D_TSO"

# -- tx-udp-segmentation: 240 datagrams, 8 to a send
udp_gso_phase() {	# LABEL: sets D_TSO
	local t0
	t0=$(ethtool_stat scx0 tx_tso_packets)
	udp_verified "$1" 240 240 8
	D_TSO=$(( $(ethtool_stat scx0 tx_tso_packets) - t0 ))
	log "$1: 30 UDP GSO sends of 8 datagrams: tx_tso_packets +$D_TSO"
}
udp_gso_phase udp-gso-on
assert_eq "scx0 tx_tso_packets delta, 30 UDP GSO sends with tx-udp-segmentation on" 30 "$D_TSO"
ethtool -K scx0 tx-udp-segmentation off
feat_is scx0 "" tx-udp-segmentation off
udp_gso_phase udp-gso-off
assert_eq "scx0 tx_tso_packets delta with tx-udp-segmentation off (the stack segments)" 0 "$D_TSO"
ethtool -K scx0 tx-udp-segmentation on

# -- receive-hashing: what tc ingress sees of skb->hash
in_ns "$NS" tc qdisc replace dev scx1 clsact
in_ns "$NS" tc filter replace dev scx1 ingress pref 1 handle 1 bpf direct-action obj "$BPF/tc_hash.o" sec tc
HC=$(bpf_map_id hash_cnt)
hash_phase() {	# LABEL: sets D_NOHASH D_HASH
	local h0 n0
	bpf_map_dump "$HC"; n0=${BPFV[0]}; h0=${BPFV[1]}
	udp_verified "$1" 100 100
	bpf_map_dump "$HC"
	D_NOHASH=$(( BPFV[0] - n0 )); D_HASH=$(( BPFV[1] - h0 ))
	log "$1: UDP skbs at scx1's tc ingress with a hash +$D_HASH, without +$D_NOHASH"
}
hash_phase rxhash-on
assert_ge "UDP skbs with a hash, receive-hashing on" 100 "$D_HASH"
assert_eq "UDP skbs without a hash, receive-hashing on" 0 "$D_NOHASH"
in_ns "$NS" ethtool -K scx1 rxhash off
feat_is scx1 "$NS" receive-hashing off
hash_phase rxhash-off
assert_ge "UDP skbs without a hash, receive-hashing off" 100 "$D_NOHASH"
assert_eq "UDP skbs with a hash, receive-hashing off" 0 "$D_HASH"
in_ns "$NS" ethtool -K scx1 rxhash on
in_ns "$NS" tc qdisc del dev scx1 clsact

sleep 0.5
assert_eq "scx0/scx1 rx_recover (no rebuild or recovery for any switch)" 0 \
	$(( $(ethtool_stat scx0 rx_recover) + $(ethtool_stat scx1 rx_recover "$NS") ))
assert_pair_counters_agree
assert_eq "root netns Tcp+Udp InCsumErrors delta" 0 $(( $(csum_errors "") - c0 ))
assert_eq "ns1 Tcp+Udp InCsumErrors delta" 0 $(( $(csum_errors "$NS") - c1 ))
