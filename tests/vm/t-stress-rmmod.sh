#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 4
# vm-timeout: 300
# vm-timeout-per-cycle: 90
#
# Stress: rmmod and insmod, SCX_STRESS_CYCLES cycles. Each cycle loads
# softcx, sets up scx0 <-> scx1, runs the traffic (iperf3 TCP and pktgen
# scx0 -> scx1) once to a stop and checks packet conservation over the
# pair (the counters die with the module), then starts it again and
# unloads the module under it: rmmod succeeds, the ports are gone, pktgen
# ends by itself. The kernel log stays clean through every cycle (run-all
# checks after the test that every page_pool drained).
source "$(dirname "$0")/lib.sh"
need_cmd rmmod
t0=$SECONDS
for ((i = 1; i <= STRESS_CYCLES; i++)); do
	stress_setup
	stress_traffic_start
	sleep 1.5
	stress_traffic_stop
	stress_check "cycle $i: before rmmod"
	assert_gt "cycle $i: packets scx0 sent" 0 "$STRESS_SENT"
	stress_traffic_start
	sleep 0.5
	scx_unload
	dev_exists scx0 && fail "cycle $i: scx0 still present after rmmod"
	wait_for 20 sh -c "! kill -0 $STRESS_PG 2>/dev/null" || fail "cycle $i: pktgen still running 20 s after rmmod"
	bg_stop "$STRESS_IPERF" "$STRESS_SRV"
	# the unloaded pools' pages on idle CPUs' skb defer lists (kernel-log.sh)
	flush_skb_defer_lists
	STRESS_FLUSHED=$SECONDS
	stress_kernel_log_clean "cycle $i: rmmod under traffic"
	ip -all netns delete
done
log "$STRESS_CYCLES rmmod/insmod cycles in $((SECONDS - t0)) s"
