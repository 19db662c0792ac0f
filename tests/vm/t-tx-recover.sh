#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 200
#
# TX error recovery, for real: /sys/kernel/debug/softcx/scx0/inject_tx_error
# makes the next WQE of each SQ carry a bad lkey; the device answers with an
# error CQE (tx_cqe_err), the queue stops, the recovery work flushes the SQ
# (every skb and mapping released), resets it to RDY and wakes the queue
# (tx_recover); traffic resumes (ping, then iperf3). With skb_tx_mpwqe on
# (the failing WQE is a session) and off (a SEND).
source "$(dirname "$0")/lib.sh"
need_cmd ethtool ping iperf3 python3

scx_setup channels=1
debugfs_hook scx0/inject_tx_error
ping_ok "" "$IP1" 3

n=0
for mode in on off; do
	ethtool --set-priv-flags scx0 skb_tx_mpwqe $mode
	wait_carrier scx0
	wait_carrier scx1 "$NS"
	ping_ok "" "$IP1" 2
	n=$((n + 1))
	echo 1 > "$INJ"
	# the first packet after the injection fails; ARP/ping retries resume
	in_ns "" ping -n -q -c 3 -i 0.2 -W 1 "$IP1" >/dev/null 2>&1 || true
	wait_for 10 sh -c "[ \$(ethtool -S scx0 | sed -n 's/^ *tx_recover: //p') -ge $n ]" ||
		fail "mpwqe $mode: tx_recover did not reach $n: $(ethtool -S scx0 | grep -E ' tx_(cqe_err|recover):' | tr '\n' ' ')"
	assert_ge "mpwqe $mode: tx_cqe_err" "$n" "$(ethtool_stat scx0 tx_cqe_err)"
	ping_ok "" "$IP1" 5
	log "mpwqe $mode: tx_cqe_err $(ethtool_stat scx0 tx_cqe_err), tx_recover $(ethtool_stat scx0 tx_recover)"
done

iperf_server "$NS" 5201
timeout 60 iperf3 -c "$IP1" -p 5201 -t 2 -J > "$SCX_TEST_OUT/tcp.json" || fail "iperf3 after recovery failed"
bps=$(json_get "$SCX_TEST_OUT/tcp.json" 'int(j["end"]["sum_received"]["bits_per_second"])')
assert_gt "iperf3 TCP bits/s after recovery" 0 "$bps"
klog_has "TX queue [0-9][0-9]*: recovered after an error CQE" || fail "no TX recovery line in the kernel log"
