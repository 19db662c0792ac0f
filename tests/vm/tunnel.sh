# SPDX-License-Identifier: GPL-2.0
# Tunnels over the pair (t-vxlan, t-ip-tunnels): bring one up, carry TCP
# over it and check the offload counters, check the RX verdicts. After
# lib.sh and scx_setup.

# tunnel_up NAME N WHAT: addresses 10.7N.0.1/.2 on NAME0/NAME1, both up, a ping across
tunnel_up() {
	local n=$1 net=10.7$2.0 csum
	ip addr add "$net.1/24" dev "${n}0"
	ip -n "$NS" addr add "$net.2/24" dev "${n}1"
	ip link set "${n}0" up
	ip -n "$NS" link set "${n}1" up
	wait_for 10 ping -n -q -c 1 -W 1 "$net.2" > /dev/null || fail "no ping over $3"
	# its outer checksum setting, where the tunnel type has one
	csum=$(ip -d link show "${n}0" | grep -o 'noudpcsum\|udpcsum\|icsum\|ocsum' || true)
	log "$3: ${csum%%$'\n'*}"
}
# xfer LABEL NET EXPECT_TSO CSUM: 4 MB of TCP over the tunnel of NET (SHA-256
# checked); tx_tso_inner_packets must grow (1) or not (0); inner checksum
# offload (tx_csum_partial_inner) grows (CSUM 1) or not (0).
xfer() {
	local label=$1 net=10.7$2.0 want=$3 csum=$4
	local t0 tb0 c0 p0 e0 e1 t tb c
	t0=$(ethtool_stat scx0 tx_tso_inner_packets); tb0=$(ethtool_stat scx0 tx_tso_inner_bytes)
	c0=$(ethtool_stat scx0 tx_csum_partial_inner); p0=$(ethtool_stat scx0 tx_tso_packets)
	e0=$(csum_errors ""); e1=$(csum_errors "$NS")
	tcp_verified "$label" 4000000 "::ffff:$net.2"
	t=$(( $(ethtool_stat scx0 tx_tso_inner_packets) - t0 ))
	tb=$(( $(ethtool_stat scx0 tx_tso_inner_bytes) - tb0 ))
	c=$(( $(ethtool_stat scx0 tx_csum_partial_inner) - c0 ))
	log "$label: tx_tso_inner_packets +$t, tx_tso_inner_bytes +$tb, tx_csum_partial_inner +$c"
	if [ "$want" == 1 ]; then
		assert_gt "$label: tx_tso_inner_packets delta" 0 "$t"
		# the payload of 4 MB, less what went in skbs too small for GSO
		assert_gt "$label: tx_tso_inner_bytes delta" 2000000 "$tb"
	else
		assert_eq "$label: tx_tso_inner_packets delta" 0 "$t"
	fi
	if [ "$csum" == 1 ]; then
		assert_gt "$label: tx_csum_partial_inner delta" 0 "$c"
	else
		assert_eq "$label: tx_csum_partial_inner delta" 0 "$c"
	fi
	assert_eq "$label: tx_tso_packets delta (no plain LSO in a tunnel)" 0 \
		$(( $(ethtool_stat scx0 tx_tso_packets) - p0 ))
	assert_eq "$label: root netns Tcp+Udp InCsumErrors delta" 0 $(( $(csum_errors "") - e0 ))
	assert_eq "$label: ns1 Tcp+Udp InCsumErrors delta" 0 $(( $(csum_errors "$NS") - e1 ))
}

# rx_verdicts LABEL N INNER: xfer over tunnel N, scx1's counters' deltas (scx1's
# rx_no_csum_complete on): the tunnel's frames counted as
# rx_csum_unnecessary_inner (INNER 1) or rx_csum_unnecessary (0)
rx_verdicts() {
	local label=$1 i0 u0 di du
	i0=$(ethtool_stat scx1 rx_csum_unnecessary_inner "$NS")
	u0=$(ethtool_stat scx1 rx_csum_unnecessary "$NS")
	xfer "$label" "$2" "$3" "$3"
	di=$(( $(ethtool_stat scx1 rx_csum_unnecessary_inner "$NS") - i0 ))
	du=$(( $(ethtool_stat scx1 rx_csum_unnecessary "$NS") - u0 ))
	log "$label: scx1 rx_csum_unnecessary_inner +$di, rx_csum_unnecessary +$du"
	# 4 MB in segments of at most 1440 bytes (IP in IP's MTU 1480): over 2700 frames
	if [ "$3" == 1 ]; then
		assert_gt "$label: scx1 rx_csum_unnecessary_inner delta" 2700 "$di"
		# what is not tunneled (the handshake's ARP, if any) is a handful
		[ "$du" -le 20 ] || fail "$label: scx1 rx_csum_unnecessary +$du: tunneled frames counted as plain"
	else
		assert_eq "$label: scx1 rx_csum_unnecessary_inner delta" 0 "$di"
		assert_gt "$label: scx1 rx_csum_unnecessary delta" 2700 "$du"
	fi
}
