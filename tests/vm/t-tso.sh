#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 240
#
# TSO: scx0 offers tso/tso6/tx-udp-segmentation; iperf3 TCP scx0 -> scx1
# with TSO on makes tx_tso_packets grow (one LSO WQE per GSO skb, the
# device segments), the receiver sees only valid frames (no checksum errors
# in either netns, no RQ error CQEs, no oversize drops), tx_packets counts
# wire packets in both `ethtool -S` and `ip -s link`. With TSO off the same
# traffic adds nothing to tx_tso_packets.
source "$(dirname "$0")/lib.sh"
need_cmd iperf3 python3 ethtool

scx_setup channels=2
feat=$(ethtool -k scx0)
for f in tcp-segmentation-offload tx-tcp6-segmentation tx-udp-segmentation scatter-gather tx-checksumming; do
	[[ "$feat" =~ $f:\ on ]] || fail "scx0 feature $f is not on: $(grep "$f" <<< "$feat")"
done
c0=$(csum_errors ""); c1=$(csum_errors "$NS")
iperf_server "$NS" 5201
J=$SCX_TEST_OUT

tso0=$(ethtool_stat scx0 tx_tso_packets); tsob0=$(ethtool_stat scx0 tx_tso_bytes)
wqe0=$(ethtool_stat scx1 rx_wqe_err "$NS"); ovs0=$(ethtool_stat scx1 rx_oversize_pkts_buffer "$NS")
timeout 60 iperf3 -c "$IP1" -p 5201 -t 4 -J > "$J/tcp.json" ||
	fail "iperf3 TCP failed: $(json_get "$J/tcp.json" 'j.get("error","")' 2>/dev/null)"
read -r rcvd bps <<< "$(json_get "$J/tcp.json" 'int(j["end"]["sum_received"]["bytes"])' \
	'int(j["end"]["sum_received"]["bits_per_second"])')"
tso=$(( $(ethtool_stat scx0 tx_tso_packets) - tso0 )); tsob=$(( $(ethtool_stat scx0 tx_tso_bytes) - tsob0 ))
log "iperf3 TCP, TSO on: $((bps / 1000000)) Mbit/s, $rcvd bytes; tx_tso_packets +$tso, tx_tso_bytes +$tsob"
assert_gt "iperf3 TCP bits/s" 0 "$bps"
assert_gt "scx0 tx_tso_packets delta with TSO on" 0 "$tso"
assert_gt "scx0 tx_tso_bytes delta with TSO on" 0 "$tsob"
assert_eq "scx1 rx_wqe_err delta" 0 $(( $(ethtool_stat scx1 rx_wqe_err "$NS") - wqe0 ))
assert_eq "scx1 rx_oversize_pkts_buffer delta" 0 $(( $(ethtool_stat scx1 rx_oversize_pkts_buffer "$NS") - ovs0 ))
assert_eq "scx0 tx_cqe_err" 0 "$(ethtool_stat scx0 tx_cqe_err)"

ethtool -K scx0 tso off
tso0=$(ethtool_stat scx0 tx_tso_packets)
timeout 60 iperf3 -c "$IP1" -p 5201 -t 2 -J > "$J/tcp-notso.json" ||
	fail "iperf3 TCP (TSO off) failed"
bps=$(json_get "$J/tcp-notso.json" 'int(j["end"]["sum_received"]["bits_per_second"])')
log "iperf3 TCP, TSO off: $((bps / 1000000)) Mbit/s"
assert_gt "iperf3 TCP bits/s (TSO off)" 0 "$bps"
assert_eq "scx0 tx_tso_packets delta with TSO off" 0 $(( $(ethtool_stat scx0 tx_tso_packets) - tso0 ))
ethtool -K scx0 tso on

sleep 0.5
assert_pair_counters_agree
assert_eq "root netns Tcp+Udp InCsumErrors delta" 0 $(( $(csum_errors "") - c0 ))
assert_eq "ns1 Tcp+Udp InCsumErrors delta" 0 $(( $(csum_errors "$NS") - c1 ))
