#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 240
#
# Harness self-test on a veth pair, independent of softcx: proves that the
# VM, the netns layout (pair_setup), ping, carrier detection, counter reading
# (ethtool -S exact names, ip -s link both ways) and the pktgen helper work,
# and that the assertions do fail when they should.
source "$(dirname "$0")/lib.sh"
need_cmd ip ethtool ping python3

modprobe veth
ip link add veth0 type veth peer name veth1
pair_setup veth0 veth1

# Traffic both ways.
ping_ok "" "$IP1" 10
ping_ok "$NS" "$IP0" 10
ping_ok "" "$IP1" 3 -s 1400 -Mdo

# Negative controls: an unanswered ping and an oversized DF ping must fail,
# and a failing assertion must exit non-zero.
assert_fails "ping to an absent host" ping -n -q -c 2 -W 1 -w 3 10.11.0.99
assert_fails "ping -s 1500 -Mdo at MTU 1500" ping -n -q -c 1 -W 1 -s 1500 -Mdo "$IP1"
assert_fails "assert_eq on different values" bash -c "source '$SCX_ROOT/tests/vm/lib.sh'; assert_eq x 1 2"

# ethtool -S exact-name matching (veth has peer_ifindex and rx_queue_0_xdp_packets).
peer=$(ethtool_stat veth0 peer_ifindex)
assert_eq "veth0 peer_ifindex" "$(ip netns exec "$NS" cat /sys/class/net/veth1/ifindex)" "$peer"
assert_fails "a counter name that is only a prefix" ethtool_stat veth0 peer
ethtool_has veth0 rx_queue_0_xdp_packets || fail "ethtool_has: veth rx_queue_0_xdp_packets not found"
read -r s n <<< "$(ethtool_sum veth0 'rx_queue_[0-9]+_xdp_packets')"
assert_eq "number of veth rx_queue_N_xdp_packets counters" 1 "$n"

# Both views of the interface counters agree (ip -s -j link vs sysfs).
assert_eq "veth1 rx_packets ip -s -j link vs sysfs" "$(ip netns exec "$NS" cat /sys/class/net/veth1/statistics/rx_packets)" "$(link_stat veth1 rx_packets "$NS")"
assert_eq "veth0 tx_bytes ip -s -j link vs sysfs" "$(sysfs_stat veth0 tx_bytes)" "$(link_stat veth0 tx_bytes)"
assert_ge "veth0 tx_packets after the pings" 23 "$(link_stat veth0 tx_packets)"

# Carrier follows the peer (veth has the same rule as softcx).
ip -n "$NS" link set veth1 down
wait_for 5 sh -c '[ "$(cat /sys/class/net/veth0/carrier)" = 0 ]' || fail "veth0 kept carrier with veth1 down"
dev_flags veth0 | grep -q NO-CARRIER || fail "veth0 flags lack NO-CARRIER: $(dev_flags veth0)"
ip -n "$NS" link set veth1 up
wait_carrier veth0
wait_carrier veth1 "$NS"

# pktgen: an exact number of packets into veth1's MAC. Paced so that the
# peer's backlog never overflows: every packet must be counted.
N=500
rx0=$(link_stat veth1 rx_packets "$NS")
rxb0=$(link_stat veth1 rx_bytes "$NS")
pktgen_setup veth0 $N 10.11.0.250 "$(dev_mac veth1 "$NS")" 20000
sent=$(pktgen_run veth0 60)
assert_eq "pktgen packets sent" $N "$sent"
assert_eq "veth1 rx_packets delta" $N $(( $(link_stat veth1 rx_packets "$NS") - rx0 ))
assert_eq "veth1 rx_bytes delta (60-byte frames)" $((N * 60)) $(( $(link_stat veth1 rx_bytes "$NS") - rxb0 ))

# snmp reader.
v=$(snmp_get Udp InCsumErrors "$NS")
[[ "$v" =~ ^[0-9]+$ ]] || fail "snmp_get Udp InCsumErrors: '$v'"

# iperf3 (short) across the pair with the JSON helpers.
if command -v iperf3 >/dev/null; then
	iperf_server "$NS" 5201
	timeout 30 iperf3 -c "$IP1" -p 5201 -t 2 -J > "$SCX_TEST_OUT/tcp.json" || fail "iperf3 over veth failed"
	bps=$(json_get "$SCX_TEST_OUT/tcp.json" 'int(j["end"]["sum_received"]["bits_per_second"])')
	assert_gt "iperf3 TCP over veth bits/s" 0 "$bps"
fi
log "harness OK"
