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
# 2. 10 detach/attach cycles (each rebuilds the channels).
# No crash and no WARN (run-all checks the kernel log and taint); afterwards
# the counters add up in both directions: every packet the sender's
# tx_packets counted is, at the receiver, in rx_packets (stack), rx_xdp_drop,
# rx_xdp_tx_xmit, rx_xdp_redirect or a device drop counter (rx_out_of_buffer,
# rx_if_down_packets, rx_oversize_pkts_buffer, rx_malformed, rx_wqe_err), with
# rx_xdp_drop/tx_xmit/redirect +0 (pass programs only); ethtool -S agrees with
# ip -s link and the per-channel sums.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool iperf3 python3
bpf_build

SWAPS=${SCX_XDP_SWAPS:-100}
CYCLES=${SCX_XDP_CYCLES:-10}
scx_setup channels=2
PROGS=("$BPF/xdp_pass.o" "$BPF/xdp_count.o" "$BPF/xdp_meta.o")
xdp_attach scx1 "$NS" "${PROGS[0]}"
iperf_server "$NS" 5201

RXC=(rx_packets rx_xdp_drop rx_xdp_tx_xmit rx_xdp_redirect rx_out_of_buffer rx_if_down_packets rx_oversize_pkts_buffer rx_malformed rx_wqe_err)
# totals DEV NS: "tx_packets sum-of-RXC rx_xdp_drop+tx_xmit+redirect"
totals() {
	local c s=0
	eth_dump "$1" "${2:-}"
	for c in "${RXC[@]}"; do s=$((s + $(eth_get "$c"))); done
	echo "$(eth_get tx_packets) $s $(( $(eth_get rx_xdp_drop) + $(eth_get rx_xdp_tx_xmit) + $(eth_get rx_xdp_redirect) ))"
}
carrier_changes() { ip netns exec "$NS" cat /sys/class/net/scx1/carrier_changes; }

read -r tx0a rx0a _ <<< "$(totals scx0)"
read -r tx1a rx1a x1a <<< "$(totals scx1 "$NS")"

STOP=$SCX_TEST_OUT/stop
STATUS=$SCX_TEST_OUT/iperf-status
rm -f "$STOP"; : > "$STATUS"
iperf_loop() {
	local i=0 rc
	while [ ! -e "$STOP" ]; do
		i=$((i + 1)); rc=0
		timeout 60 iperf3 -c "$IP1" -p 5201 -t 15 -J > "$SCX_TEST_OUT/iperf-$i.json" 2>&1 || rc=$?
		echo "$i $rc" >> "$STATUS"
	done
}
bg_start iperf_loop
LOOP=$BG_PID
sleep 3

# ---- 1. replacements
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

# ---- 2. detach/attach cycles (channels rebuilt each time)
for ((i = 1; i <= CYCLES; i++)); do
	assert_ok "cycle $i: detach" ip -n "$NS" link set dev scx1 xdp off
	assert_ok "cycle $i: attach" ip -n "$NS" link set dev scx1 xdp obj "${PROGS[i % ${#PROGS[@]}]}" sec xdp
done
read -r mode _ <<< "$(xdp_attached scx1 "$NS")"
assert_eq "after the cycles: XDP mode" 1 "$mode"
kill -0 "$LOOP" 2>/dev/null || fail "the iperf3 loop ended during the attach/detach cycles"

touch "$STOP"
wait "$LOOP" || true
runs=0 bad=0
while read -r n rc; do
	runs=$((runs + 1))
	rcvd=$(json_get "$SCX_TEST_OUT/iperf-$n.json" 'int(j["end"]["sum_received"]["bytes"])' 2>/dev/null || echo 0)
	log "iperf3 run $n: status $rc, $rcvd bytes received"
	if [ "$rc" != 0 ] || [ "${rcvd:-0}" -le 0 ]; then bad=$((bad + 1)); fi
done < "$STATUS"
assert_gt "iperf3 runs during the test" 0 "$runs"
assert_eq "iperf3 runs that failed or received nothing" 0 "$bad"
ping_ok "" "$IP1" 5

sleep 1
read -r tx0b rx0b _ <<< "$(totals scx0)"
read -r tx1b rx1b x1b <<< "$(totals scx1 "$NS")"
log "scx0 tx_packets +$((tx0b - tx0a)), scx1 received in all counters +$((rx1b - rx1a)); scx1 tx_packets +$((tx1b - tx1a)), scx0 received +$((rx0b - rx0a))"
assert_eq "scx0 -> scx1: every packet sent is counted at scx1" $((tx0b - tx0a)) $((rx1b - rx1a))
assert_eq "scx1 -> scx0: every packet sent is counted at scx0" $((tx1b - tx1a)) $((rx0b - rx0a))
assert_eq "scx1 rx_xdp_drop + rx_xdp_tx_xmit + rx_xdp_redirect delta (pass programs)" 0 $((x1b - x1a))
for d in scx0 scx1; do
	ns=; [ $d == scx1 ] && ns=$NS
	assert_counters_agree $d rx "$ns"
	assert_counters_agree $d tx "$ns"
done
xdp_detach scx1 "$NS"
