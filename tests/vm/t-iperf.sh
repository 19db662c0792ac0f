#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 240
#
# iperf3 TCP and UDP from scx0 (root netns) to an iperf3 server on scx1
# (ns1) complete with non-zero throughput; afterwards the receiver's RX
# counters cover what iperf3 says it received, `ethtool -S` and `ip -s link`
# agree (totals and per-channel sums), and no checksum errors were counted
# (/proc/net/snmp InCsumErrors, both namespaces, TCP and UDP).
source "$(dirname "$0")/lib.sh"
need_cmd iperf3 python3

scx_setup channels=2
c0=$(csum_errors ""); c1=$(csum_errors "$NS")
iperf_server "$NS" 5201
J=$SCX_TEST_OUT

# TCP
rxp0=$(ethtool_stat scx1 rx_packets "$NS"); rxb0=$(ethtool_stat scx1 rx_bytes "$NS")
timeout 60 iperf3 -c "$IP1" -p 5201 -t 5 -J > "$J/tcp.json" ||
	fail "iperf3 TCP failed: $(json_get "$J/tcp.json" 'j.get("error","")' 2>/dev/null)"
read -r rcvd bps retr <<< "$(json_get "$J/tcp.json" 'int(j["end"]["sum_received"]["bytes"])' \
	'int(j["end"]["sum_received"]["bits_per_second"])' 'j["end"]["sum_sent"].get("retransmits", 0)')"
log "iperf3 TCP: $((bps / 1000000)) Mbit/s, $rcvd bytes received, $retr retransmits"
assert_gt "iperf3 TCP bits/s" 0 "$bps"
assert_ge "scx1 rx_bytes delta vs iperf3 TCP bytes received" "$rcvd" $(( $(ethtool_stat scx1 rx_bytes "$NS") - rxb0 ))
assert_gt "scx1 rx_packets delta (TCP)" 0 $(( $(ethtool_stat scx1 rx_packets "$NS") - rxp0 ))

# UDP, 1400-byte datagrams at 50 Mbit/s (TCG may not reach it; losses are
# reported by iperf3, not a failure).
rxp0=$(ethtool_stat scx1 rx_packets "$NS")
timeout 60 iperf3 -c "$IP1" -p 5201 -u -b 50M -l 1400 -t 5 -J > "$J/udp.json" ||
	fail "iperf3 UDP failed: $(json_get "$J/udp.json" 'j.get("error","")' 2>/dev/null)"
read -r pk lost bps <<< "$(json_get "$J/udp.json" 'int(j["end"]["sum"]["packets"])' \
	'int(j["end"]["sum"]["lost_packets"])' 'int(j["end"]["sum"]["bits_per_second"])')"
log "iperf3 UDP: $((bps / 1000000)) Mbit/s, $pk datagrams sent, $lost lost"
assert_gt "iperf3 UDP bits/s" 0 "$bps"
assert_gt "iperf3 UDP datagrams received" 0 $((pk - lost))
assert_ge "scx1 rx_packets delta vs iperf3 UDP datagrams received" $((pk - lost)) $(( $(ethtool_stat scx1 rx_packets "$NS") - rxp0 ))

sleep 0.5
assert_pair_counters_agree
assert_eq "root netns Tcp+Udp InCsumErrors delta" 0 $(( $(csum_errors "") - c0 ))
assert_eq "ns1 Tcp+Udp InCsumErrors delta" 0 $(( $(csum_errors "$NS") - c1 ))
