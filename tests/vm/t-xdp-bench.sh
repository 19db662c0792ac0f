#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 300
#
# xdp-bench (xdp-tools) drop, pass and tx on scx1 while pktgen floods 60-byte
# frames from scx0 to scx1's MAC: each runs (native mode) for a few seconds,
# prints nonzero rates, and the driver's counters show where the frames went
# (drop: rx_xdp_drop; pass: rx_packets; tx with swap-macs: rx_xdp_tx_xmit on
# scx1 and rx_packets on scx0). xdp-bench detaches its program on exit.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool xdp-bench
bpf_build

SECS=${SCX_XDP_BENCH_SECS:-6}
scx_setup channels=2
ip netns exec "$NS" sysctl -qw net.ipv4.ip_forward=0
MAC1=$(dev_mac scx1 "$NS")

# bench MODE COUNTER_DEV COUNTER_NS COUNTER [ARGS...]
bench() {
	local mode=$1 cdev=$2 cns=$3 cname=$4 c0 c1 out rate re='([0-9][0-9,]*) rx/s'
	shift 4
	c0=$(ethtool_stat "$cdev" "$cname" "$cns")
	pktgen_setup scx0 0 10.11.0.250 "$MAC1" 0 60
	bg_start sh -c "echo start > $PG/pgctrl"
	local pg=$BG_PID
	out=$(ip netns exec "$NS" timeout -s INT $((SECS + 20)) \
		sh -c "timeout -s INT $SECS xdp-bench $mode -i 1 $* scx1; echo \"xdp-bench exit status \$?\"" 2>&1) || true
	echo stop > $PG/pgctrl
	bg_stop "$pg"
	echo "$out" > "$SCX_TEST_OUT/xdp-bench-$mode.txt"
	log "xdp-bench $mode $*:"
	echo "$out" | grep -vE '^\s*$' | tail -n 12 | sed 's/^/    /'
	c1=$(ethtool_stat "$cdev" "$cname" "$cns")
	[[ "$out" =~ $re ]] || fail "xdp-bench $mode printed no 'N rx/s' rate"
	rate=0
	while read -r l; do
		[[ "$l" =~ $re ]] && { rate=${BASH_REMATCH[1]//,/}; [ "$rate" -gt 0 ] && break; }
	done <<< "$out"
	assert_gt "xdp-bench $mode: a nonzero rx/s rate" 0 "$rate"
	assert_gt "xdp-bench $mode: $cdev $cname delta" 0 $((c1 - c0))
	assert_eq "XDP on scx1 after xdp-bench $mode exits" "" "$(xdp_attached scx1 "$NS")"
}

bench drop scx1 "$NS" rx_xdp_drop
bench pass scx1 "$NS" rx_packets
bench tx scx1 "$NS" rx_xdp_tx_xmit -p swap-macs
ping_ok "" "$IP1" 3
