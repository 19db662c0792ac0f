#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 420
#
# VXLAN offloads, as mlx5 has them: scx0 and scx1 offer
# tx-udp_tnl-segmentation, tx-udp_tnl-csum-segmentation (as GSO_PARTIAL)
# and rx-udp_tunnel-port-offload, and the kernel's
# UDP tunnel port table (`ethtool --show-tunnels`) shows IANA's 4789 (put in
# the device at probe) and the ports of the VXLAN devices the system
# creates, up to the device's table. A VXLAN tunnel over the pair carries
# TCP intact (SHA-256) with its segmentation and inner checksums offloaded
# (tx_tso_inner_packets, tx_csum_partial_inner), no checksum error
# anywhere. Traffic the device cannot parse goes out with software GSO and
# checksums, intact: a port past the full table, a port after
# rx-udp_tunnel-port-offload off (the kernel takes it out of the device),
# tunnel segmentation off (inner checksums only). Deleting the VXLAN
# devices empties the table. GENEVE on IANA's 6081 gets the same offloads
# without a table entry (the default model, cx7, parses it; cx4 would
# not). With rx_no_csum_complete on, scx1 hands up
# the frames of a tunnel to a port in its table CHECKSUM_UNNECESSARY one
# level deeper (rx_csum_unnecessary_inner), the others with the outer
# verdict (rx_csum_unnecessary).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tunnel.sh"
need_cmd ip ethtool python3
modprobe vxlan || fail "cannot load the vxlan module"

scx_setup channels=2
feat=$(ethtool -k scx0)
for f in tx-udp_tnl-segmentation tx-udp_tnl-csum-segmentation tx-gso-partial \
	rx-udp_tunnel-port-offload; do
	[[ "$feat" =~ $f:\ on ]] || fail "scx0 feature $f is not on: $(grep "$f" <<< "$feat")"
done
ethtool --show-tunnels scx0 > "$SCX_TEST_OUT/tunnels-0.txt" || fail "ethtool --show-tunnels scx0"
grep -q "port 4789, vxlan" "$SCX_TEST_OUT/tunnels-0.txt" ||
	fail "scx0's port table lacks IANA's 4789: $(cat "$SCX_TEST_OUT/tunnels-0.txt")"
grep -q "Size: 3" "$SCX_TEST_OUT/tunnels-0.txt" ||
	fail "scx0's port table should have 3 entries beside 4789: $(cat "$SCX_TEST_OUT/tunnels-0.txt")"

# vxlan_pair NAME ID PORT N [OPTS]: VXLAN devices NAME0 (root) and NAME1
# (ns1) over the pair, VNI ID, UDP port PORT, addresses 10.7N.0.1/.2,
# ip-link options OPTS.
vxlan_pair() {
	local n=$1 id=$2 port=$3 opts=(${5:-})
	ip link add "${n}0" type vxlan id "$id" local "$IP0" remote "$IP1" dstport "$port" dev scx0 \
		"${opts[@]}"
	ip -n "$NS" link add "${n}1" type vxlan id "$id" local "$IP1" remote "$IP0" dstport "$port" \
		dev scx1 "${opts[@]}"
	tunnel_up "$n" "$4" "VXLAN ${n}0 <-> ${n}1, VNI $id, port $port"
}
# geneve_pair NAME ID N OPTS: GENEVE devices NAME0/NAME1 as vxlan_pair's
# (IANA's 6081, which the device parses without a table entry)
geneve_pair() {
	local n=$1 id=$2 opts=(${4:-})
	ip link add "${n}0" type geneve id "$id" remote "$IP1" "${opts[@]}"
	ip -n "$NS" link add "${n}1" type geneve id "$id" remote "$IP0" "${opts[@]}"
	tunnel_up "$n" "$3" "GENEVE ${n}0 <-> ${n}1, VNI $id"
}
# in_table DEV PORT [NS]: the kernel's port table of DEV lists PORT
in_table() { in_ns "${3:-}" ethtool --show-tunnels "$1" 2>/dev/null | grep -q "port $2, vxlan"; }

# IANA's port: the device has it from probe on. Linux's VXLAN sends outer
# UDP checksums (udpcsum): GSO_PARTIAL, the device keeps the checksum.
vxlan_pair vxa 42 4789 1
xfer "vxlan 4789" 1 1 1

# Linux's own default port: the kernel puts it in both devices' tables.
# Without outer UDP checksums (noudpcsum): plain tunnel GSO.
vxlan_pair vxb 43 8472 2 noudpcsum
in_table scx0 8472 || fail "8472 not in scx0's port table: $(ethtool --show-tunnels scx0)"
in_table scx1 8472 "$NS" || fail "8472 not in scx1's port table"
xfer "vxlan 8472" 2 1 1

# The table holds 3 besides 4789: the fifth port stays in software
vxlan_pair vxc 44 9001 3
vxlan_pair vxd 45 9002 4
vxlan_pair vxe 46 9003 5
in_table scx0 9002 || fail "9002 not in scx0's port table"
if in_table scx0 9003; then fail "9003 in a full table: $(ethtool --show-tunnels scx0)"; fi
xfer "vxlan 9003, table full" 5 0 0
xfer "vxlan 9002" 4 1 1

# rx-udp_tunnel-port-offload off: the kernel takes its ports out of the
# device (4789 stays, the driver's own); on again, they come back
ethtool -K scx0 rx-udp_tunnel-port-offload off
wait_for 5 sh -c "! ethtool --show-tunnels scx0 | grep -q 'port 8472, vxlan'" ||
	fail "8472 still in scx0's table with rx-udp_tunnel-port-offload off"
xfer "vxlan 8472, port offload off" 2 0 0
xfer "vxlan 4789, port offload off" 1 1 1
ethtool -K scx0 rx-udp_tunnel-port-offload on
wait_for 5 sh -c "ethtool --show-tunnels scx0 | grep -q 'port 8472, vxlan'" ||
	fail "8472 not back in scx0's table with rx-udp_tunnel-port-offload on"
xfer "vxlan 8472, port offload on again" 2 1 1

# tunnel segmentation off (both kinds: these tunnels have outer UDP
# checksums): software GSO, the segments' inner checksums still offloaded
ethtool -K scx0 tx-udp_tnl-segmentation off tx-udp_tnl-csum-segmentation off
xfer "vxlan 4789, tunnel segmentation off" 1 0 1
ethtool -K scx0 tx-udp_tnl-segmentation on tx-udp_tnl-csum-segmentation on

# GENEVE on 6081 (the default model parses it; the kernel's table does not
# list it, as mlx5's does not): the same offloads, with outer UDP
# checksums (GSO_PARTIAL) and without
modprobe geneve || fail "cannot load the geneve module"
geneve_pair gna 50 6 udpcsum
geneve_pair gnb 51 7 noudpcsum
xfer "geneve 6081 udpcsum" 6 1 1
xfer "geneve 6081 noudpcsum" 7 1 1
if in_table scx0 6081; then fail "6081 in scx0's VXLAN port table"; fi

# RX verdicts: with rx_no_csum_complete on scx1 hands up the CQE's verdict.
# The frames of a tunnel whose port is in scx1's table come up
# CHECKSUM_UNNECESSARY one level deeper (the device checked the inner
# checksums too): rx_csum_unnecessary_inner; the kernel takes the inner TCP
# checksums as checked, and the data stay intact. 9003 is not in the
# table: the outer verdict alone, rx_csum_unnecessary.
in_ns "$NS" ethtool --set-priv-flags scx1 rx_no_csum_complete on
rx_verdicts "vxlan 4789, RX verdict handed up" 1 1
rx_verdicts "vxlan 8472, RX verdict handed up" 2 1
rx_verdicts "geneve 6081, RX verdict handed up" 6 1
rx_verdicts "vxlan 9003, table full, RX verdict handed up" 5 0
in_ns "$NS" ethtool --set-priv-flags scx1 rx_no_csum_complete off

# Deleting the VXLAN devices empties the table (4789 stays)
ip link del gna0; ip link del gnb0
ip -n "$NS" link del gna1; ip -n "$NS" link del gnb1
for n in vxa vxb vxc vxd vxe; do
	ip link del "${n}0"
	ip -n "$NS" link del "${n}1"
done
ethtool --show-tunnels scx0 > "$SCX_TEST_OUT/tunnels-1.txt"
if grep -E "port (8472|9001|9002|9003), vxlan" "$SCX_TEST_OUT/tunnels-1.txt"; then
	fail "ports left in scx0's table after the VXLAN devices went: $(cat "$SCX_TEST_OUT/tunnels-1.txt")"
fi
grep -q "port 4789, vxlan" "$SCX_TEST_OUT/tunnels-1.txt" || fail "4789 gone from scx0's table"
assert_eq "scx0 tx_cqe_err" 0 "$(ethtool_stat scx0 tx_cqe_err)"
assert_eq "scx1 rx_wqe_err" 0 "$(ethtool_stat scx1 rx_wqe_err "$NS")"
sleep 0.5
assert_pair_counters_agree
