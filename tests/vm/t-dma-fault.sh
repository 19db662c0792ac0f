#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 240
#
# The device reaches only memory mapped for it (shim/dma.c, issue 10 item 7).
# /sys/kernel/debug/softcx/inject_dma_fault hands the driver core the next
# skb head the adapter maps at the bus address of a page softcx holds but
# never maps: RAM that belongs to nobody's mapping. Without the view the
# device read it silently and sent its bytes; with it the TX engine's
# translation is refused: an error CQE (tx_cqe_err), one bus_dma_faults on
# the port that sent it, the recovery (tx_recover) releases the skb and its
# real mapping, and traffic resumes (ping, then iperf3). With skb_tx_mpwqe
# on (the faulting segment is in a session) and off (a SEND).
# With the check bypassed (scx_os_dma_to_cpu back to "any valid pfn", the
# defect) this test fails: "mpwqe on: tx_recover did not reach 1 (faults 0,
# cqe_err 0)", the device having sent the poison page's bytes.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool ping iperf3 python3

scx_setup channels=1
debugfs_hook inject_dma_fault
assert_eq "dma_view parameter" Y "$(cat /sys/module/softcx/parameters/dma_view)"
ping_ok "" "$IP1" 3

# A counter summed over both ports (the injection hits whichever maps next).
both() { echo $(( $(ethtool_stat scx0 "$1") + $(ethtool_stat scx1 "$1" "$NS") )); }
assert_eq "bus_dma_faults before any injection" 0 "$(both bus_dma_faults)"

n=0
for mode in on off; do
	ethtool --set-priv-flags scx0 skb_tx_mpwqe $mode
	in_ns "$NS" ethtool --set-priv-flags scx1 skb_tx_mpwqe $mode
	wait_carrier scx0
	wait_carrier scx1 "$NS"
	ping_ok "" "$IP1" 2
	assert_eq "mpwqe $mode: no fault from normal traffic" "$n" "$(both bus_dma_faults)"
	n=$((n + 1))
	echo 1 > "$INJ"
	# the packet whose head was poisoned is lost; ping's next ones go through
	in_ns "" ping -n -q -c 3 -i 0.2 -W 1 "$IP1" >/dev/null 2>&1 || true
	# a deadline, not a count of tries: each try costs several execs under TCG
	deadline=$((SECONDS + 20))
	until [ "$(both tx_recover)" -ge $n ]; do
		[ $SECONDS -lt $deadline ] ||
			fail "mpwqe $mode: tx_recover did not reach $n (faults $(both bus_dma_faults), cqe_err $(both tx_cqe_err))"
		sleep 0.2
	done
	assert_eq "mpwqe $mode: bus_dma_faults" "$n" "$(both bus_dma_faults)"
	assert_eq "mpwqe $mode: tx_cqe_err" "$n" "$(both tx_cqe_err)"
	ping_ok "" "$IP1" 5
	log "mpwqe $mode: scx0 faults $(ethtool_stat scx0 bus_dma_faults) scx1 faults $(ethtool_stat scx1 bus_dma_faults "$NS"), tx_recover $(both tx_recover)"
done

iperf_server "$NS" 5201
timeout 60 iperf3 -c "$IP1" -p 5201 -t 2 -J > "$SCX_TEST_OUT/tcp.json" || fail "iperf3 after recovery failed"
bps=$(json_get "$SCX_TEST_OUT/tcp.json" 'int(j["end"]["sum_received"]["bits_per_second"])')
assert_gt "iperf3 TCP bits/s after recovery" 0 "$bps"
assert_eq "no DMA fault from iperf3 (TSO, page frags)" "$n" "$(both bus_dma_faults)"
klog_has "TX queue [0-9][0-9]*: recovered after an error CQE" || fail "no TX recovery line in the kernel log"
