#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 200
#
# CQ overrun: /sys/kernel/debug/softcx/scx1/inject_rx_cq_overrun makes
# scx1's RX CQ stop publishing its consumer index (set_ci), as a driver bug
# would. A ring of frames later the device finds the CQ full: it overwrites
# nothing, drops the frame (rx_cq_overrun), stops the CQ (cq_overrun) and
# raises a CQ error event; NAPI finds the CQ (QUERY_CQ), logs it and
# recovers the RQ (rx_recover), and traffic resumes without a down/up.
# Before, the device overwrote CQEs the driver had not read.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool ping iperf3 python3

scx_setup channels=1
debugfs_hook scx1/inject_rx_cq_overrun
ping_ok "" "$IP1" 3

echo 1 > "$INJ"
# more frames than the RQ's ring (1024): the CQ fills as the device sees it
in_ns "" ping -n -q -f -c 1500 -W 1 "$IP1" >/dev/null 2>&1 || true
wait_for 10 sh -c "[ \$(ip netns exec $NS ethtool -S scx1 | sed -n 's/^ *rx_recover: //p') -ge 1 ]" ||
	fail "no RX recovery: $(in_ns "$NS" ethtool -S scx1 | grep -E ' (cq_overrun|rx_cq_overrun|rx_recover):' | tr '\n' ' ')"
ping_ok "" "$IP1" 5
eth_dump scx1 "$NS"
assert_eq "cq_overrun (one overrun, one event)" 1 "${ETH[cq_overrun]}"
assert_ge "rx_cq_overrun" 1 "${ETH[rx_cq_overrun]}"
assert_eq "rx_recover" 1 "${ETH[rx_recover]}"
assert_eq "rx_wqe_err" 0 "${ETH[rx_wqe_err]}"

iperf_server "$NS" 5201
timeout 60 iperf3 -c "$IP1" -p 5201 -t 2 -J > "$SCX_TEST_OUT/tcp.json" || fail "iperf3 after recovery failed"
bps=$(json_get "$SCX_TEST_OUT/tcp.json" 'int(j["end"]["sum_received"]["bits_per_second"])')
assert_gt "iperf3 TCP bits/s after recovery" 0 "$bps"
eth_dump scx1 "$NS"
assert_eq "cq_overrun after iperf3" 1 "${ETH[cq_overrun]}"
klog_has 'scx1: CQ 0x[0-9a-f]* of RQ 0x[0-9a-f]*: error event' || fail "no CQ error line naming scx1 in the kernel log"
klog_has 'scx1: RQ 0x[0-9a-f]* recovered from a CQ error' || fail "no RQ recovery line naming scx1 in the kernel log"
