#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 600
#
# rx-gro-hw (SHAMPO: header-data split and hardware GRO, cx7):
# - off by default and changeable (ethtool -k), on while up (the safe
#   channel switch); `ethtool -g` shows TCP data split on with it, as mlx5;
# - TCP over IPv4 and IPv6 scx0 -> scx1 with it on: a file's SHA-256 and
#   length at the receiver, no checksum errors, the device's sessions
#   delivered as skbs of many segments (rx_gro_packets several times
#   rx_gro_skbs), every segment counted in rx_packets; iperf3 both ways;
# - the same traffic with it off: no rx_gro_* movement;
# - refusals: XDP attach while on (the extack message), rx-gro-hw on with
#   XDP attached (stays off, the reason in the log), the private flags
#   rx_striding_rq off / rx_cqe_compress on while on; on cx6dx the feature
#   is fixed off.
# run-all checks the kernel log (page_pool leaks, WARNs) after rmmod.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool python3 iperf3
unset SCX_RX_CQE_COMPRESS SCX_RX_STRIDING SCX_RX_HW_GRO	# this test sets what it needs
bpf_build

A0=fd00:12::1 A1=fd00:12::2

feat() { in_ns "${2:-}" ethtool -k "$1" | sed -n 's/^rx-gro-hw: *//p'; }
hds() { in_ns "${2:-}" ethtool -g "$1" | sed -n 's/^TCP data split:[[:space:]]*//p'; }
set_gro() {	# on|off on both ports, while up
	ethtool -K scx0 rx-gro-hw "$1"
	ip netns exec "$NS" ethtool -K scx1 rx-gro-hw "$1"
	assert_eq "rx-gro-hw $1 (scx1)" "$1" "$(feat scx1 "$NS")"
	wait_carrier scx0
	wait_carrier scx1 "$NS"
}

# iperf LABEL ADDR: 3 s of iperf3 TCP to ns1, must move data
iperf_run() {
	local js=$SCX_TEST_OUT/iperf-$1.json bytes
	timeout 60 iperf3 -c "$2" -p 5310 -t 3 -J > "$js" || fail "$1: iperf3 client failed"
	bytes=$(json_get "$js" 'j["end"]["sum_received"]["bytes"]')
	assert_gt "$1: iperf3 bytes received" 0 "$bytes"
	log "$1: iperf3 $(json_get "$js" 'round(j["end"]["sum_received"]["bits_per_second"] / 1e6, 1)') Mbit/s"
}

# traffic LABEL: TCP v4 + v6 (hashed files), iperf3 v4 + v6; sets D_GP D_GS D_RX (scx1 deltas)
traffic() {
	local gp0 gs0 rx0 c1
	gp0=$(ethtool_stat scx1 rx_gro_packets "$NS"); gs0=$(ethtool_stat scx1 rx_gro_skbs "$NS")
	rx0=$(ethtool_stat scx1 rx_packets "$NS"); c1=$(csum_errors "$NS")
	tcp_verified "$1-v4" $((8 << 20))
	tcp_verified "$1-v6" $((8 << 20)) $A1
	iperf_run "$1-v4" "$IP1"
	iperf_run "$1-v6" "$A1"
	assert_eq "$1: ns1 checksum errors" 0 $(( $(csum_errors "$NS") - c1 ))
	D_GP=$(( $(ethtool_stat scx1 rx_gro_packets "$NS") - gp0 ))
	D_GS=$(( $(ethtool_stat scx1 rx_gro_skbs "$NS") - gs0 ))
	D_RX=$(( $(ethtool_stat scx1 rx_packets "$NS") - rx0 ))
	log "$1: scx1 rx_packets +$D_RX, rx_gro_packets +$D_GP, rx_gro_skbs +$D_GS"
	assert_eq "$1: scx1 rx_wqe_err" 0 "$(ethtool_stat scx1 rx_wqe_err "$NS")"
	assert_eq "$1: scx1 rx_skb_err" 0 "$(ethtool_stat scx1 rx_skb_err "$NS")"
}

scx_setup channels=1
pair_ipv6 "$A0" "$A1"
iperf_server "$NS" 5310

assert_eq "rx-gro-hw default" off "$(feat scx1 "$NS")"
assert_eq "ethtool -g TCP data split with rx-gro-hw off" off "$(hds scx1 "$NS")"
traffic gro-off
assert_eq "rx-gro-hw off: rx_gro_packets" 0 "$D_GP"

set_gro on
assert_eq "ethtool -g TCP data split with rx-gro-hw on (SHAMPO)" on "$(hds scx1 "$NS")"
traffic gro-on
assert_gt "rx-gro-hw on: rx_gro_skbs" 0 "$D_GS"
# the device merges most segments: many per skb
assert_ge "rx-gro-hw on: rx_gro_packets >= 4 x rx_gro_skbs" "$(( 4 * D_GS ))" "$D_GP"
assert_ge "rx-gro-hw on: most packets merged (rx_gro_packets x 2 >= rx_packets)" "$D_RX" $(( 2 * D_GP ))
gm=$(ethtool_stat scx1 rx_gro_match_packets "$NS")
assert_gt "rx_gro_match_packets" 0 "$gm"
assert_gt "rx_hds_nodata_packets (the receiver's ACKs at scx0)" 0 "$(ethtool_stat scx0 rx_hds_nodata_packets)"

# ---- refusals
bpf_pin xdp_pass
out=$(ip -n "$NS" link set dev scx1 xdpdrv pinned "$BPF_PIN/xdp_pass" 2>&1) && fail "XDP attached with rx-gro-hw on"
grep -q "HW-GRO is incompatible with XDP" <<< "$out" || fail "XDP refusal without the reason: $out"
assert_eq "no XDP program after the refusal" "" "$(xdp_attached scx1 "$NS")"
for f in "rx_striding_rq off" "rx_cqe_compress on"; do
	rc=0
	in_ns "$NS" ethtool --set-priv-flags scx1 $f 2>/dev/null || rc=$?
	assert_ne "private flag $f with rx-gro-hw on: exit status" 0 "$rc"
	dmesg | tail -n 20 | grep -c "private flags refused: HW-GRO" > /dev/null ||
		fail "no kernel log line for the refused private flag $f"
done
set_gro off
traffic gro-off-again
assert_eq "rx-gro-hw off again: rx_gro_packets" 0 "$D_GP"
# with XDP attached, rx-gro-hw stays off and says why; it comes back when XDP goes
ip -n "$NS" link set dev scx1 xdpdrv pinned "$BPF_PIN/xdp_pass" || fail "XDP attach with rx-gro-hw off"
ip netns exec "$NS" ethtool -K scx1 rx-gro-hw on >/dev/null 2>&1 || true
assert_eq "rx-gro-hw with XDP attached (wanted, held off)" "off [requested on]" "$(feat scx1 "$NS")"
dmesg | tail -n 20 | grep -c "rx-gro-hw stays off: HW-GRO is incompatible with XDP" > /dev/null ||
	fail "no kernel log line for rx-gro-hw held off by XDP"
xdp_detach scx1 "$NS"
wait_for 10 sh -c "[ \"\$(ip netns exec $NS ethtool -k scx1 | sed -n 's/^rx-gro-hw: *//p')\" = on ]" ||
	fail "rx-gro-hw did not come back after XDP went"
wait_carrier scx1 "$NS"
ping_ok "" "$IP1" 3 -s 1000

# ---- cx6dx: no SHAMPO
scx_unload
scx_load model=cx6dx channels=1
assert_eq "cx6dx rx-gro-hw" "off [fixed]" "$(feat scx0)"
ethtool -K scx0 rx-gro-hw on >/dev/null 2>&1 || true
assert_eq "cx6dx rx-gro-hw after -K on" "off [fixed]" "$(feat scx0)"
log "PASS"
