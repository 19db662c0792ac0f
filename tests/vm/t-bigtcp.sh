#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 300
#
# IPv6 BIG TCP and IPv6 extension headers.
# - `ip link set scx0 gso_max_size 131072` (tso_max_size is 256 KiB): TCP
#   over IPv6 hands the driver TSO skbs over 64 KiB carrying a hop-by-hop
#   jumbo header; the driver leaves it out of the LSO template, so a 16 MB
#   transfer arrives byte for byte (sha256), skbs over 64 KiB were really
#   sent (net_dev_xmit tracepoint) and the SQ never went to error. Before,
#   the device refused the template and every such skb flushed the queue.
# - A hop-by-hop options header on every packet (IPV6_HOPOPTS, TCP and
#   UDP): the device parses no extension header, so ndo_features_check
#   hands checksum and segmentation back to the stack; all data arrives
#   intact. Before, UDP went out with unfinished checksums (dropped by the
#   receiver) and TSO skbs put the SQ in error.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool python3 ip

X6=$SCX_ROOT/tests/vm/xfer6.py
A0=fd00:11::1 A1=fd00:11::2
scx_setup channels=2
pair_ipv6 "$A0" "$A1"

# tcp_xfer NAME BYTES [hbh]: one transfer scx0 -> scx1, sha256 compared
tcp_xfer() {
	local name=$1 bytes=$2 out=$SCX_TEST_OUT/$1.recv sent got
	rm -f "$out"
	# an 8 MB receive buffer: a window that lets the sender build skbs over
	# 64 KiB however slowly the TCG receiver reads (autotuning may not grow)
	bg_start in_ns "$NS" timeout 120 python3 "$X6" tcp-recv 5301 "$out" $((8 << 20))
	wait_for 10 sh -c "ip netns exec $NS ss -Htln 'sport = :5301' | grep -q ." || fail "$name: receiver did not start"
	sent=$(timeout 120 python3 "$X6" tcp-send $A1 5301 "$bytes" ${3:-}) || fail "$name: sender failed"
	wait_for 20 test -s "$out" || fail "$name: receiver wrote nothing"
	got=$(cat "$out")
	assert_eq "$name: sha256 and length at the receiver" "$sent" "$got"
}

# net_dev_xmit of scx0 skbs longer than 64 KiB, in a trace instance of our own
TI=/sys/kernel/tracing
[ -d $TI/instances ] || TI=/sys/kernel/debug/tracing
mkdir -p $TI/instances/bigtcp || fail "no trace instances"
TI=$TI/instances/bigtcp
echo 'len > 65536' > $TI/events/net/net_dev_xmit/filter
echo 1 > $TI/events/net/net_dev_xmit/enable

tcp_xfer plain-64k $((4 << 20))
assert_eq "skbs over 64 KiB with gso_max_size 65536" 0 "$(grep -c net_dev_xmit $TI/trace || true)"

ip link set dev scx0 gso_max_size 131072
sysctl -qw net.ipv4.tcp_min_tso_segs=100	# large TSO skbs even under TCG's slow pacing
tcp_xfer bigtcp $((16 << 20))
sysctl -qw net.ipv4.tcp_min_tso_segs=2
big=$(grep -c 'dev=scx0' $TI/trace || true)
echo 0 > $TI/events/net/net_dev_xmit/enable
rmdir $TI 2>/dev/null || true
assert_gt "BIG TCP skbs (over 64 KiB) sent by scx0" 0 "$big"
log "BIG TCP: $big skbs over 64 KiB"

tcp_xfer tcp-hbh $((4 << 20)) hbh
rm -f "$SCX_TEST_OUT/udp.recv"
bg_start in_ns "$NS" timeout 60 python3 "$X6" udp-recv 5302 200 "$SCX_TEST_OUT/udp.recv"
wait_for 10 sh -c "ip netns exec $NS ss -Hlun 'sport = :5302' | grep -q ." || fail "UDP receiver did not start"
python3 "$X6" udp-send $A1 5302 200 hbh
wait_for 20 test -s "$SCX_TEST_OUT/udp.recv" || fail "UDP receiver wrote nothing"
# where a lost datagram went: bad checksum, full socket buffer, or the driver
eth_dump scx1 "$NS"
log "receiver: Udp6InDatagrams $(snmp6 Udp6InDatagrams "$NS") Udp6InCsumErrors $(snmp6 Udp6InCsumErrors "$NS")" \
	"Udp6RcvbufErrors $(snmp6 Udp6RcvbufErrors "$NS") Udp6NoPorts $(snmp6 Udp6NoPorts "$NS"); scx1 rx_out_of_buffer ${ETH[rx_out_of_buffer]:-?}"
assert_eq "UDP datagrams with a hop-by-hop header received intact" 200 "$(cat "$SCX_TEST_OUT/udp.recv")"
assert_eq "Udp6InCsumErrors at the receiver" 0 "$(snmp6 Udp6InCsumErrors "$NS")"

eth_dump scx0
for c in tx_cqe_err tx_recover tx_flushed; do
	assert_eq "scx0 $c" 0 "${ETH[$c]}"
done
assert_gt "tx_tso_packets" 0 "${ETH[tx_tso_packets]}"
