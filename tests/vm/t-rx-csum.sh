#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 600
#
# RX checksums as mlx5e hands them up (mlx5e_handle_csum): an IP frame over
# 64 bytes goes up with the CQE's one's-complement sum (CHECKSUM_COMPLETE,
# rx_csum_complete), and the stack checks every TCP/UDP checksum with it:
# a wrong sum of a good packet is a "hw csum failure" splat and a drop,
# which the kernel-log check and the transfers' SHA-256 catch. scx0 -> scx1:
# - defaults: a TCP transfer and UDP datagrams; every frame scx1 gets is
#   counted complete but the short ones (the handshake's bare ACKs: the
#   verdict, rx_csum_unnecessary) and ARP (no verdict);
# - MTU 576 on both ports: 1000-byte UDP datagrams come as two IP
#   fragments each, reassembled (Ip ReasmOKs) from the fragments' sums;
# - rx-vlan-offload off on scx1 and a VLAN over the pair: the tag stays in
#   the frame, outside the device's sum (from the IP header); the driver
#   adds its bytes;
# - rx-fcs on scx1: the FCS stays at the frame's end, inside the sum;
# - the private flag rx_no_csum_complete (off by default): the verdict
#   instead (rx_csum_unnecessary), in place; off again, the sum;
# - an XDP program on scx1 (xdp_pass): the verdict, as mlx5 with XDP.
# No TCP/UDP checksum errors at scx1 throughout.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool python3
modprobe 8021q || fail "modprobe 8021q failed"
bpf_build

scx_setup channels=1
c0=$(csum_errors "$NS")

# phase LABEL [IP]: 2 MB of TCP and 300 UDP datagrams of 1000 bytes
# scx0 -> scx1 (TCP to IP if given); sets D_PK D_CO D_UN D_NO (scx1's deltas)
phase() {
	local p0 co0 un0 no0
	eth_dump scx1 "$NS"
	p0=$(eth_get rx_packets); co0=$(eth_get rx_csum_complete)
	un0=$(eth_get rx_csum_unnecessary); no0=$(eth_get rx_csum_none)
	IP1=${2:-$IP1} tcp_verified "$1" 2000000
	[ -n "${2:-}" ] || udp_verified "$1" 300 300
	eth_dump scx1 "$NS"
	D_PK=$(( $(eth_get rx_packets) - p0 ))
	D_CO=$(( $(eth_get rx_csum_complete) - co0 ))
	D_UN=$(( $(eth_get rx_csum_unnecessary) - un0 ))
	D_NO=$(( $(eth_get rx_csum_none) - no0 ))
	log "$1: scx1 rx_packets +$D_PK: rx_csum_complete +$D_CO, rx_csum_unnecessary +$D_UN, rx_csum_none +$D_NO"
	assert_eq "$1: every packet counted once" "$D_PK" $(( D_CO + D_UN + D_NO ))
	assert_eq "$1: TCP/UDP checksum errors at scx1" 0 $(( $(csum_errors "$NS") - c0 ))
}
# most WHAT SUM N: SUM covers all N but a few (the bare ACKs of the TCP
# handshake, short frames: the verdict; ARP: nothing)
most() { assert_ge "$1 (of $3)" $(( $3 - 8 )) "$2"; }

assert_eq "rx_no_csum_complete default" off \
	"$(in_ns "$NS" ethtool --show-priv-flags scx1 | sed -n 's/^rx_no_csum_complete *: *//p')"

phase defaults
most "defaults: rx_csum_complete" "$D_CO" "$D_PK"
assert_ge "defaults: rx_csum_none (ARP at most)" "$D_NO" 4

# ---- IP fragments: the reassembled datagram's sum is the fragments'
ip link set scx0 mtu 576
ip -n "$NS" link set scx1 mtu 576
wait_carrier scx0
wait_carrier scx1 "$NS"
r0=$(snmp_get Ip ReasmOKs "$NS")
phase fragments
assert_ge "fragments: datagrams reassembled at scx1" 300 $(( $(snmp_get Ip ReasmOKs "$NS") - r0 ))
most "fragments: rx_csum_complete" "$D_CO" "$D_PK"
ip link set scx0 mtu 1500
ip -n "$NS" link set scx1 mtu 1500
wait_carrier scx0
wait_carrier scx1 "$NS"

# ---- a VLAN tag left in the frame
VIP0=10.13.0.1 VIP1=10.13.0.2
in_ns "$NS" ethtool -K scx1 rxvlan off
feat_is scx1 "$NS" rx-vlan-offload off
ip link add link scx0 name scx0.300 type vlan id 300
ip -n "$NS" link add link scx1 name scx1.300 type vlan id 300
ip link set scx0.300 up
ip -n "$NS" link set scx1.300 up
ip addr add "$VIP0/24" dev scx0.300
ip -n "$NS" addr add "$VIP1/24" dev scx1.300
ping_ok "" "$VIP1" 5
phase vlan-in-frame "$VIP1"
most "vlan-in-frame: rx_csum_complete" "$D_CO" "$D_PK"
assert_eq "vlan-in-frame: the tags stayed (rx_removed_vlan_packets)" 0 \
	"$(ethtool_stat scx1 rx_removed_vlan_packets "$NS")"
ip link del scx0.300
in_ns "$NS" ethtool -K scx1 rxvlan on

# ---- the FCS at the frame's end
in_ns "$NS" ethtool -K scx1 rx-fcs on
feat_is scx1 "$NS" rx-fcs on
phase fcs
most "fcs: rx_csum_complete" "$D_CO" "$D_PK"
in_ns "$NS" ethtool -K scx1 rx-fcs off

# ---- rx_no_csum_complete: the verdict, in place
in_ns "$NS" ethtool --set-priv-flags scx1 rx_no_csum_complete on
phase no-csum-complete
assert_eq "rx_no_csum_complete on: rx_csum_complete" 0 "$D_CO"
most "rx_no_csum_complete on: rx_csum_unnecessary" "$D_UN" "$D_PK"
in_ns "$NS" ethtool --set-priv-flags scx1 rx_no_csum_complete off
phase csum-complete-again
most "rx_no_csum_complete off again: rx_csum_complete" "$D_CO" "$D_PK"

# ---- XDP: the verdict
bpf_pin xdp_pass
ip -n "$NS" link set dev scx1 xdpdrv pinned "$BPF_PIN/xdp_pass" || fail "XDP attach"
wait_carrier scx1 "$NS"
phase xdp
assert_eq "xdp: rx_csum_complete" 0 "$D_CO"
most "xdp: rx_csum_unnecessary" "$D_UN" "$D_PK"
ip -n "$NS" link set dev scx1 xdpdrv off
wait_carrier scx1 "$NS"
phase after-xdp
most "after xdp: rx_csum_complete" "$D_CO" "$D_PK"
log "ok"
