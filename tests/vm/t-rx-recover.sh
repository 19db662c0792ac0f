#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 200
#
# RX recovery: /sys/kernel/debug/softcx/scx1/inject_rx_error spoils the
# memory key of scx1's posted RX buffers, so the next frame gets an error
# CQE (a striding RQ's: the first frame in its next WQE, after at most the
# 32 strides of the one being filled, or with rx-gro-hw the 64 packets a
# SHAMPO WQE takes, hence 80 pings) and the RQ goes to ERR; NAPI recovers
# it (ERR -> RST -> RDY, ring
# refilled: rx_wqe_err, rx_recover) and traffic resumes without a down/up.
# Before, the channel stayed dead until the port was restarted.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool ping iperf3 python3

scx_setup channels=2
debugfs_hook scx1/inject_rx_error
ping_ok "" "$IP1" 3

for round in 1 2 3; do
	echo 1 > "$INJ"
	in_ns "" ping -n -q -c 80 -i 0.05 -W 1 "$IP1" >/dev/null 2>&1 || true
	wait_for 10 sh -c "[ \$(ip netns exec $NS ethtool -S scx1 | sed -n 's/^ *rx_recover: //p') -ge 1 ]" ||
		fail "round $round: no RX recovery: $(in_ns "$NS" ethtool -S scx1 | grep -E ' rx_(wqe_err|recover):' | tr '\n' ' ')"
	ping_ok "" "$IP1" 5
done
eth_dump scx1 "$NS"
assert_ge "rx_wqe_err" 1 "${ETH[rx_wqe_err]}"
assert_ge "rx_recover" 1 "${ETH[rx_recover]}"
assert_eq "rx_recover = rx_wqe_err (one recovery per error CQE)" "${ETH[rx_wqe_err]}" "${ETH[rx_recover]}"

iperf_server "$NS" 5201
timeout 60 iperf3 -c "$IP1" -p 5201 -t 2 -J > "$SCX_TEST_OUT/tcp.json" || fail "iperf3 after recovery failed"
bps=$(json_get "$SCX_TEST_OUT/tcp.json" 'int(j["end"]["sum_received"]["bits_per_second"])')
assert_gt "iperf3 TCP bits/s after recovery" 0 "$bps"
klog_has 'scx1: RQ 0x[0-9a-f]* recovered from an error CQE' || fail "no RQ recovery line naming scx1 in the kernel log"
