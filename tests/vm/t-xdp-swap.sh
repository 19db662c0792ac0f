#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 720
#
# Live program changes under iperf3 TCP (scx0 -> scx1, back-to-back 15 s runs
# until the changes are done; every run must complete with data received):
# 1. 100 replacements on scx1 (`ip -force link set dev scx1 xdp obj ...`),
#    cycling xdp_pass.o, xdp_count.o, xdp_meta.o (all XDP_PASS): each one
#    succeeds and installs a new program id, the link never flaps
#    (carrier_changes unchanged: a replacement does not rebuild the channels);
#    After the phase (traffic stopped) the counters add up in both
#    directions: every packet the sender's tx_packets counted is, at the
#    receiver, in rx_packets (stack), rx_xdp_drop, rx_xdp_tx_xmit,
#    rx_xdp_redirect, rx_flushed (placed in an RQ of a channel set closed
#    before NAPI saw it) or a device drop counter (rx_out_of_buffer,
#    rx_if_down_packets, rx_oversize_pkts_buffer, rx_malformed, rx_wqe_err),
#    with rx_xdp_drop/tx_xmit/redirect +0 (pass programs only);
# 2. 10 detach/attach cycles (each rebuilds the channels) under a new iperf3
#    loop: every run completes, and the counters add up as in 1.
# Both phases: ethtool -S agrees with ip -s link and the per-channel sums; no
# crash and no WARN (run-all checks the kernel log and taint).
source "$(dirname "$0")/lib.sh"
need_cmd ethtool iperf3 python3
bpf_build

SWAPS=${SCX_XDP_SWAPS:-100}
CYCLES=${SCX_XDP_CYCLES:-10}
scx_setup channels=2
PROGS=("$BPF/xdp_pass.o" "$BPF/xdp_count.o" "$BPF/xdp_meta.o")
xdp_attach scx1 "$NS" "${PROGS[0]}"
iperf_server "$NS" 5201

RXC=(rx_packets rx_xdp_drop rx_xdp_tx_xmit rx_xdp_redirect rx_flushed rx_out_of_buffer rx_if_down_packets rx_oversize_pkts_buffer rx_malformed rx_wqe_err)
# totals DEV NS: "tx_packets sum-of-RXC rx_xdp_drop+tx_xmit+redirect"; the
# RXC values themselves in RXV_<dev>.
# shellcheck disable=SC2034
declare -A RXV_scx0=() RXV_scx1=()
# shellcheck disable=SC2034,SC2004
totals() {
	local c s=0 v
	local -n rxv=RXV_$1
	eth_dump "$1" "${2:-}"
	for c in "${RXC[@]}"; do v=$(eth_get "$c"); rxv[$c]=$v; s=$((s + v)); done
	echo "$(eth_get tx_packets) $s $(( $(eth_get rx_xdp_drop) + $(eth_get rx_xdp_tx_xmit) + $(eth_get rx_xdp_redirect) ))"
}
carrier_changes() { ip netns exec "$NS" cat /sys/class/net/scx1/carrier_changes; }

STOP=$SCX_TEST_OUT/stop
STATUS=$SCX_TEST_OUT/iperf-status
: > "$STATUS"
iperf_loop() {
	local i=$1 rc
	while [ ! -e "$STOP" ]; do
		i=$((i + 1)); rc=0
		timeout 60 iperf3 -c "$IP1" -p 5201 -t 15 -J > "$SCX_TEST_OUT/iperf-$i.json" 2>&1 || rc=$?
		echo "$i $rc" >> "$STATUS"
	done
}
# traffic_start PHASE / traffic_stop PHASE: the iperf3 loop of one phase
# (runs numbered PHASE*100+1...); traffic_stop waits for the current run and
# fails the test if any run failed or received nothing.
traffic_start() {
	rm -f "$STOP"
	bg_start iperf_loop $(($1 * 100))
	LOOP=$BG_PID
	sleep 3
}
traffic_stop() {
	local runs=0 bad=0 n rc rcvd
	kill -0 "$LOOP" 2>/dev/null || fail "phase $1: the iperf3 loop ended early"
	touch "$STOP"
	wait "$LOOP" || true
	while read -r n rc; do
		[ $((n / 100)) -eq "$1" ] || continue
		runs=$((runs + 1))
		rcvd=$(json_get "$SCX_TEST_OUT/iperf-$n.json" 'int(j["end"]["sum_received"]["bytes"])' 2>/dev/null || echo 0)
		log "phase $1: iperf3 run $n: status $rc, $rcvd bytes received"
		if [ "$rc" != 0 ] || [ "${rcvd:-0}" -le 0 ]; then bad=$((bad + 1)); fi
	done < "$STATUS"
	assert_gt "phase $1: iperf3 runs" 0 "$runs"
	assert_eq "phase $1: iperf3 runs that failed or received nothing" 0 "$bad"
	sleep 1
}
# add_up PHASE STRICT: the counters since the last snapshot (A_*); STRICT 1:
# every packet sent must be counted at the receiver.
declare -A B_scx1=()
snapshot() {
	totals scx0 > "$SCX_TEST_OUT/totals"; read -r A_TX0 A_RX0 _ < "$SCX_TEST_OUT/totals"
	totals scx1 "$NS" > "$SCX_TEST_OUT/totals"; read -r A_TX1 A_RX1 A_X1 < "$SCX_TEST_OUT/totals"
	local c; for c in "${RXC[@]}"; do B_scx1[$c]=${RXV_scx1[$c]}; done
}
add_up() {
	local tx0 rx0 tx1 rx1 x1 c d=''
	totals scx0 > "$SCX_TEST_OUT/totals"; read -r tx0 rx0 _ < "$SCX_TEST_OUT/totals"
	totals scx1 "$NS" > "$SCX_TEST_OUT/totals"; read -r tx1 rx1 x1 < "$SCX_TEST_OUT/totals"
	for c in "${RXC[@]}"; do d+=" $c +$((RXV_scx1[$c] - B_scx1[$c]))"; done
	log "phase $1: scx0 tx_packets +$((tx0 - A_TX0)), counted at scx1 +$((rx1 - A_RX1)) (missing $((tx0 - A_TX0 - rx1 + A_RX1))); scx1 tx_packets +$((tx1 - A_TX1)), counted at scx0 +$((rx0 - A_RX0))"
	log "phase $1: scx1 receive counters:$d"
	assert_eq "phase $1: scx1 rx_xdp_drop + rx_xdp_tx_xmit + rx_xdp_redirect delta (pass programs)" 0 $((x1 - A_X1))
	if [ "$2" == 1 ]; then
		assert_eq "phase $1: scx0 -> scx1: every packet sent is counted at scx1" $((tx0 - A_TX0)) $((rx1 - A_RX1))
		assert_eq "phase $1: scx1 -> scx0: every packet sent is counted at scx0" $((tx1 - A_TX1)) $((rx0 - A_RX0))
	fi
	assert_pair_counters_agree
}

# ---- 1. replacements
snapshot
traffic_start 1
cc0=$(carrier_changes)
read -r _ id <<< "$(xdp_attached scx1 "$NS")"
failed=0
for ((i = 1; i <= SWAPS; i++)); do
	p=${PROGS[i % ${#PROGS[@]}]}
	if ! out=$(ip -n "$NS" -force link set dev scx1 xdp obj "$p" sec xdp 2>&1); then
		failed=$((failed + 1))
		log "swap $i (${p##*/}) failed: $(echo "$out" | tail -n 2 | tr '\n' ' ')"
	fi
	if ((i % 10 == 0)); then
		read -r mode id2 <<< "$(xdp_attached scx1 "$NS")"
		assert_eq "swap $i: XDP mode" 1 "$mode"
		assert_ne "swap $i: program id (last checked at swap $((i - 10)))" "$id" "$id2"
		id=$id2
		kill -0 "$LOOP" 2>/dev/null || fail "the iperf3 loop ended during the swaps"
		log "swap $i done (program id $id2, iperf3 runs so far: $(wc -l < "$STATUS"))"
	fi
done
assert_eq "failed replacements" 0 "$failed"
assert_eq "scx1 carrier_changes across $SWAPS replacements" "$cc0" "$(carrier_changes)"
traffic_stop 1
add_up 1 1

# ---- 2. detach/attach cycles (channels rebuilt each time). Frames the
# device had already written to the old RQ but NAPI had not yet polled may be
# dropped with the old channel set, so the phase's totals are logged, not
# required to match.
snapshot
traffic_start 2
for ((i = 1; i <= CYCLES; i++)); do
	assert_ok "cycle $i: detach" ip -n "$NS" link set dev scx1 xdp off
	assert_ok "cycle $i: attach" ip -n "$NS" link set dev scx1 xdp obj "${PROGS[i % ${#PROGS[@]}]}" sec xdp
done
read -r mode _ <<< "$(xdp_attached scx1 "$NS")"
assert_eq "after the cycles: XDP mode" 1 "$mode"
traffic_stop 2
add_up 2 1
ping_ok "" "$IP1" 5
xdp_detach scx1 "$NS"
