#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 420
# vm-timeout-per-cycle: 90
#
# ethtool -g/-G (ring sizes), as an mlx5 user sets them:
# - `ethtool -g` shows 1024/1024 and the maxima 8192/8192;
# - SCX_STRESS_CYCLES changes on both ends under iperf3 and pktgen, each
#   read back; after each, the kernel log is clean and packet conservation
#   holds both ways (the stress framework of lib.sh);
# - the RX ring really is the size set: a pktgen flood in bursts of 256
#   overruns a 64-entry RX ring (rx_out_of_buffer) far more than a
#   4096-entry one;
# - 1000 is rounded up to 1024 and the log says so; 32 (below mlx5's
#   minimum, 64) is refused with the message, 16384 (above the maximum) is
#   refused; a refused change leaves the rings as they were;
# - set while down, the size holds when the port comes up.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool
STRESS_CYCLES=${SCX_STRESS_CYCLES:-4}
stress_setup channels=1

# ring DEV NS: "rx tx" as ethtool -g reports them now; ring_max: the maxima
_ring_field() { ethtool_field -g "$@"; }	# DEV NS max|cur FIELD
ring() { echo "$(_ring_field "$1" "$2" cur RX) $(_ring_field "$1" "$2" cur TX)"; }
ring_max() { echo "$(_ring_field "$1" "$2" max RX) $(_ring_field "$1" "$2" max TX)"; }
set_ring() {	# LABEL DEV NS RX TX
	assert_ok "$1: $2 rx $4 tx $5" in_ns "$3" ethtool -G "$2" rx "$4" tx "$5"
	assert_eq "$1: $2 rings read back" "$4 $5" "$(ring "$2" "$3")"
}

assert_eq "scx0 default rings" "1024 1024" "$(ring scx0 "")"
assert_eq "scx0 ring maxima" "8192 8192" "$(ring_max scx0 "")"

# under traffic, both ends, sizes the two ends disagree on
RX_SIZES=(4096 64 256 1024)
TX_SIZES=(64 8192 512 1024)
cycle() {
	local k=$(($1 % ${#RX_SIZES[@]}))
	set_ring "cycle $1" scx1 "$NS" "${RX_SIZES[$k]}" "${TX_SIZES[$k]}"
	set_ring "cycle $1" scx0 "" "${RX_SIZES[$(((k + 1) % 4))]}" "${TX_SIZES[$(((k + 2) % 4))]}"
	STRESS_WHAT="rings rx/tx: scx1 ${RX_SIZES[$k]}/${TX_SIZES[$k]}, then scx0"
}
stress_loop cycle
set_ring "after the cycles" scx0 "" 1024 1024

# the RX ring is the size set: bursts of 256 into 64 entries overrun it
MAC1=$(dev_mac scx1 "$NS")
flood_oob() {	# RX_SIZE: rx_out_of_buffer of scx1 over 4096 frames in bursts of 256
	local before after sent
	set_ring "flood" scx1 "$NS" "$1" 1024
	wait_carrier scx1 "$NS"
	before=$(ethtool_stat scx1 rx_out_of_buffer "$NS")
	pktgen_setup scx0 4096 10.11.0.250 "$MAC1" 0 60
	pg_cmd scx0 "burst 256"
	sent=$(pktgen_run scx0 120)
	sleep 0.5
	after=$(ethtool_stat scx1 rx_out_of_buffer "$NS")
	log "rx ring $1: $sent frames sent in bursts of 256, rx_out_of_buffer +$((after - before))"
	OOB=$((after - before))
}
flood_oob 64
oob_small=$OOB
flood_oob 4096
oob_big=$OOB
assert_gt "rx_out_of_buffer with a 64-entry ring" 0 "$oob_small"
assert_gt "rx_out_of_buffer: 64 entries vs 4096 entries" "$oob_big" "$oob_small"
set_ring "after the flood" scx1 "$NS" 1024 1024

# rounding, refusals
mark="softcx-ringparam $RANDOM"
echo "<6>$mark" > /dev/kmsg
set_ring "rounding" scx0 "" 1024 1024
assert_ok "scx0 rx 1000" ethtool -G scx0 rx 1000
assert_eq "scx0 rx 1000 rounded up" "1024 1024" "$(ring scx0 "")"
assert_ok "scx0 tx 100" ethtool -G scx0 tx 100
assert_eq "scx0 tx 100 rounded up" "1024 128" "$(ring scx0 "")"
dmesg_since "$mark" | grep -c "scx0: tx ring size 100 rounded up to 128" > /dev/null ||
	fail "no log line for the rounded tx size: $(dmesg_since "$mark" | tail -n 3 | tr '\n' ' ')"
out=$(ethtool -G scx0 rx 32 2>&1) && fail "rx 32 accepted"
[[ "$out" == *"below the minimum (64)"* ]] || fail "rx 32: no extack message, ethtool said: $out"
log "ok: rx 32 refused: $out"
assert_fails "scx0 tx 16384 refused" ethtool -G scx0 tx 16384
assert_eq "scx0 rings after the refusals" "1024 128" "$(ring scx0 "")"

# while down
ip link set scx0 down
set_ring "down" scx0 "" 256 2048
ip link set scx0 up
wait_carrier scx0
assert_eq "scx0 rings after up" "256 2048" "$(ring scx0 "")"
ping_ok "" "$IP1" 10
stress_kernel_log_clean "ring changes"
