#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 200
#
# Counters survive down/up and reconfiguration (MTU change): rx/tx packets
# and bytes never go backwards, and keep counting new traffic afterwards.
source "$(dirname "$0")/lib.sh"
need_cmd ping

scx_setup channels=2
ping_ok "" "$IP1" 20

# get_all: scx0 tx and scx1 rx in ethtool -S and ip -s link.
get_all() {
	eth_dump scx0; local etp=${ETH[tx_packets]} etb=${ETH[tx_bytes]}
	eth_dump scx1 "$NS"; local erp=${ETH[rx_packets]} erb=${ETH[rx_bytes]}
	link_dump scx0; local ltp=${LINK[tx_packets]}
	link_dump scx1 "$NS"; local lrp=${LINK[rx_packets]}
	echo "$etp $etb $erp $erb $ltp $lrp"
}
names=("scx0 ethtool tx_packets" "scx0 ethtool tx_bytes" "scx1 ethtool rx_packets" "scx1 ethtool rx_bytes" "scx0 ip -s link tx_packets" "scx1 ip -s link rx_packets")
# check_ge BEFORE AFTER WHAT
check_ge() {
	local -a b=($1) a=($2); local i
	for i in "${!names[@]}"; do
		assert_ge "${names[$i]} after $3 (was ${b[$i]})" "${b[$i]}" "${a[$i]}"
	done
}

before=$(get_all)
assert_ge "scx1 rx_packets after 20 pings" 20 "$(echo "$before" | cut -d' ' -f3)"

ip -n "$NS" link set scx1 down
ip link set scx0 down
mid=$(get_all)
check_ge "$before" "$mid" "both down"
ip link set scx0 up
ip -n "$NS" link set scx1 up
wait_carrier scx0; wait_carrier scx1 "$NS"
after=$(get_all)
check_ge "$before" "$after" "down/up"

ip link set scx0 mtu 9000; ip -n "$NS" link set scx1 mtu 9000
ip link set scx0 mtu 1500; ip -n "$NS" link set scx1 mtu 1500
wait_carrier scx0; wait_carrier scx1 "$NS"
after2=$(get_all)
check_ge "$after" "$after2" "MTU changes"

# Still counting.
ping_ok "" "$IP1" 10
final=$(get_all)
read -r _ _ r_before _ <<< "$after2"
read -r _ _ r_final _ <<< "$final"
assert_ge "scx1 rx_packets delta after 10 more pings" 10 $((r_final - r_before))
assert_counters_agree scx0 tx
assert_counters_agree scx1 rx "$NS"
