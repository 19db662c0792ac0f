#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 240
#
# The MTU range is mlx5's, 68 to 9978 (ip -d link: minmtu, maxmtu). MTU
# changes on both ports (1500 -> 9000 -> 9978 -> 1280 -> 1500) while iperf3
# TCP runs: each change succeeds (iperf3 itself may fail across them), then
# a ping filling each MTU exactly (DF set) passes. Out-of-range MTUs (60,
# 9979) are refused and leave the MTU unchanged. run-all checks for WARNs.
source "$(dirname "$0")/lib.sh"
need_cmd iperf3 ping

scx_setup
range=$(ip -d link show scx0 | grep -o 'minmtu [0-9]* maxmtu [0-9]*')
assert_eq "scx0 MTU range" "minmtu 68 maxmtu 9978" "$range"
set_mtu() {
	assert_ok "scx0 mtu $1" ip link set scx0 mtu "$1"
	assert_ok "scx1 mtu $1" ip -n "$NS" link set scx1 mtu "$1"
	assert_eq "scx0 mtu" "$1" "$(dev_mtu scx0)"
	assert_eq "scx1 mtu" "$1" "$(dev_mtu scx1 "$NS")"
}

iperf_server "$NS" 5201
bg_start timeout 60 iperf3 -c "$IP1" -p 5201 -t 8 -J --logfile "$SCX_TEST_OUT/tcp.json"
client=$BG_PID
sleep 2
for m in 9000 9978 1280 1500; do
	set_mtu $m
	sleep 1.5
done
rc=0; wait "$client" || rc=$?
log "iperf3 across the MTU changes exited with status $rc (a failure there is tolerated)"

for m in 9000 9978 1280 1500; do
	set_mtu $m
	wait_carrier scx0
	wait_carrier scx1 "$NS"
	ping_ok "" "$IP1" 3 -s $((m - 28)) -Mdo
	ping_ok "$NS" "$IP0" 3 -s $((m - 28)) -Mdo
done

for bad in 60 9979; do
	assert_fails "scx0 mtu $bad refused" ip link set scx0 mtu $bad
	assert_eq "scx0 mtu after refused $bad" 1500 "$(dev_mtu scx0)"
	assert_fails "scx1 mtu $bad refused" ip -n "$NS" link set scx1 mtu $bad
done
ping_ok "" "$IP1" 3
