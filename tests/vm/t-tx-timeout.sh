#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 200
# vm-allow-log: NETDEV WATCHDOG
#
# TX watchdog: /sys/kernel/debug/softcx/scx0/inject_tx_stall makes the SQ's
# doorbells get lost, so pktgen fills the queue and it stops; after
# watchdog_timeo (15 s, as mlx5e) the kernel calls ndo_tx_timeout, the driver counts
# tx_timeout and recovers the SQ (what the device never sent is flushed:
# tx_flushed), the queue wakes, pktgen finishes and traffic resumes. Every
# packet pktgen handed over is sent, flushed or dropped, exactly once.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool ping

scx_setup channels=1
debugfs_hook scx0/inject_tx_stall
# static neighbours: no ARP of either side may add to scx0's TX while it is counted
mac1=$(dev_mac scx1 "$NS")
ip neigh replace "$IP1" lladdr "$mac1" dev scx0 nud permanent
ip -n "$NS" neigh replace "$IP0" lladdr "$(dev_mac scx0)" dev scx1 nud permanent
ping_ok "" "$IP1" 3
sleep 1	# the pings' completions
eth_dump scx0
p0=${ETH[tx_packets]} f0=${ETH[tx_flushed]} d0=${ETH[tx_dropped]}

echo 1 > "$INJ"
pktgen_setup scx0 3000 "$IP1" "$mac1" 0 60
sent=$(pktgen_run scx0 120)
assert_eq "pktgen packets handed to scx0" 3000 "$sent"
wait_for 40 sh -c "[ \$(ethtool -S scx0 | sed -n 's/^ *tx_recover: //p') -ge 1 ]" ||
	fail "no recovery: $(ethtool -S scx0 | grep -E ' tx_(timeout|recover|flushed):' | tr '\n' ' ')"
sleep 1
eth_dump scx0
assert_ge "tx_timeout" 1 "${ETH[tx_timeout]}"
assert_gt "tx_flushed (posted while the doorbells were lost)" "$f0" "${ETH[tx_flushed]}"
assert_eq "tx_cqe_err" 0 "${ETH[tx_cqe_err]}"
assert_eq "sent + flushed + dropped = what pktgen handed over" 3000 \
	$(( ${ETH[tx_packets]} - p0 + ${ETH[tx_flushed]} - f0 + ${ETH[tx_dropped]} - d0 ))
klog_has 'NETDEV WATCHDOG: .*transmit queue 0 timed out' || fail "no watchdog line"
klog_has 'scx0: TX queue 0: recovered after a TX timeout' || fail "no recovery line"
ping_ok "" "$IP1" 10
