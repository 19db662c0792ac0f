#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 420
# vm-timeout-per-cycle: 90
#
# ethtool -l/-L (combined channels), as an mlx5 user sets them:
# - loaded with channels=4, `ethtool -l` shows 4 of at most 4;
# - SCX_STRESS_CYCLES changes of the channel count on both ends under
#   iperf3 and pktgen, each read back with the stack's queue counts
#   following; after each, the kernel log is clean and packet conservation
#   holds both ways (the stress framework of lib.sh);
# - RSS spreads over exactly the channels in use: with 2 channels a pktgen
#   stream of random source ports lands on rx0 and rx1 only (their deltas add
#   up to the total), with 4 on all four;
# - 0, 5 and separate RX channels are refused and change nothing;
# - set while down, the count holds when the port comes up.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool
STRESS_CYCLES=${SCX_STRESS_CYCLES:-4}
stress_setup channels=4

_chan_field() { ethtool_field -l "$@"; }	# DEV NS max|cur FIELD
nqueues() {	# DEV NS: "tx rx" queues the stack sees
	echo "$(in_ns "$2" ls "/sys/class/net/$1/queues" | grep -c '^tx-') $(in_ns "$2" ls "/sys/class/net/$1/queues" | grep -c '^rx-')"
}
set_chan() {	# LABEL DEV NS N
	assert_ok "$1: $2 combined $4" in_ns "$3" ethtool -L "$2" combined "$4"
	assert_eq "$1: $2 combined read back" "$4" "$(_chan_field "$2" "$3" cur Combined)"
	assert_eq "$1: $2 stack queues" "$4 $4" "$(nqueues "$2" "$3")"
}

assert_eq "scx0 combined max" 4 "$(_chan_field scx0 "" max Combined)"
assert_eq "scx0 combined" 4 "$(_chan_field scx0 "" cur Combined)"

COUNTS=(2 1 3 4)
cycle() {
	local k=$(($1 % ${#COUNTS[@]}))
	set_chan "cycle $1" scx1 "$NS" "${COUNTS[$k]}"
	set_chan "cycle $1" scx0 "" "${COUNTS[$(((k + 1) % 4))]}"
	STRESS_WHAT="channels: scx1 ${COUNTS[$k]}, then scx0 ${COUNTS[$(((k + 1) % 4))]}"
}
stress_loop cycle

# RSS over the channels in use
MAC1=$(dev_mac scx1 "$NS")
spread() {	# N: pktgen 2000 frames to scx1 with N channels; SPREAD: per-channel deltas
	local i before=() tot0 tot1 sent
	set_chan "spread" scx1 "$NS" "$1"
	wait_carrier scx1 "$NS"
	eth_dump scx1 "$NS"
	tot0=$(eth_get rx_packets)
	for i in 0 1 2 3; do before[$i]=$(eth_get rx${i}_packets); done
	pktgen_setup scx0 2000 10.11.0.250 "$MAC1" 20000 60
	sent=$(pktgen_run scx0 120)
	sleep 0.5
	eth_dump scx1 "$NS"
	tot1=$(eth_get rx_packets)
	SPREAD=()
	for i in 0 1 2 3; do SPREAD[$i]=$(($(eth_get rx${i}_packets) - before[i])); done
	log "$1 channels: $sent sent, rx_packets +$((tot1 - tot0)), per channel ${SPREAD[*]}"
	assert_eq "$1 channels: per-channel deltas add up" "$((tot1 - tot0))" \
		"$((SPREAD[0] + SPREAD[1] + SPREAD[2] + SPREAD[3]))"
}
spread 2
assert_gt "2 channels: rx0" 0 "${SPREAD[0]}"
assert_gt "2 channels: rx1" 0 "${SPREAD[1]}"
assert_eq "2 channels: rx2 and rx3" "0 0" "${SPREAD[2]} ${SPREAD[3]}"
spread 4
for i in 0 1 2 3; do assert_gt "4 channels: rx$i" 0 "${SPREAD[$i]}"; done

# refusals
set_chan "refusals" scx0 "" 3
assert_fails "scx0 combined 0 refused" ethtool -L scx0 combined 0
assert_fails "scx0 combined 5 refused" ethtool -L scx0 combined 5
assert_fails "scx0 rx 1 refused" ethtool -L scx0 rx 1
assert_eq "scx0 combined after the refusals" 3 "$(_chan_field scx0 "" cur Combined)"

# while down
ip link set scx0 down
set_chan "down" scx0 "" 1
ip link set scx0 up
wait_carrier scx0
assert_eq "scx0 combined after up" 1 "$(_chan_field scx0 "" cur Combined)"
ping_ok "" "$IP1" 10
stress_kernel_log_clean "channel changes"
