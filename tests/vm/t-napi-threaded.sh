#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 300
#
# Threaded NAPI (`echo 1 > /sys/class/net/scx1/threaded`), as the benchmarks
# use it to put the receiver on its own CPU:
# - one napi/scx1-* kthread per channel appears; pinned to the last CPU, the
#   polls run there (the kthreads' on-CPU time and ch_poll grow while iperf3
#   TCP runs), and ethtool -S and ip -s link agree afterwards;
# - pktgen (no pacing) into an XDP_DROP program: every frame is counted,
#   rx_xdp_drop + rx_out_of_buffer = frames sent;
# - a channel rebuild (XDP attach/detach, MTU change) keeps the port threaded:
#   softcx keeps one NAPI per channel slot for the life of the port, so the
#   same kthreads poll the new channel set (and traffic flows through them);
# - threaded back to 0 and rmmod with threaded channels work.
source "$(dirname "$0")/lib.sh"
need_cmd iperf3 python3 pgrep taskset

scx_setup channels=2
CPU=$(( $(nproc) - 1 ))

# kthreads NS: the pids of scx1's napi kthreads, one line.
kthreads() { echo $(pgrep '^napi/scx1-' || true); }
# ontime: scx1's kthreads' on-CPU ns, summed (/proc/PID/schedstat field 1).
ontime() {
	local p a t=0
	for p in $(kthreads); do read -r a _ < "/proc/$p/schedstat" && t=$((t + a)); done
	echo $t
}
set_threaded() {   # 0|1
	ip netns exec "$NS" sh -c "echo $1 > /sys/class/net/scx1/threaded" ||
		fail "cannot write $1 to /sys/class/net/scx1/threaded"
	assert_eq "scx1 threaded" "$1" "$(ip netns exec "$NS" cat /sys/class/net/scx1/threaded)"
}
check_kthreads() {   # LABEL: two kthreads (their pids in KT), pinned to CPU
	local p
	KT=$(kthreads)
	assert_eq "$1: napi/scx1-* kthreads" 2 "$(wc -w <<< "$KT")"
	for p in $KT; do taskset -p -c "$CPU" "$p" > /dev/null || fail "$1: cannot pin kthread $p"; done
}

[ -z "$(kthreads)" ] || fail "napi kthreads before threaded=1: $(kthreads)"
set_threaded 1
check_kthreads "threaded=1"; K1=$KT
log "ok: threaded=1 gave kthreads $K1, pinned to CPU $CPU"

# TCP through the kthreads.
iperf_server "$NS" 5201
t0=$(ontime); p0=$(ethtool_stat scx1 ch_poll "$NS")
timeout 60 iperf3 -c "$IP1" -p 5201 -t 3 -J > "$SCX_TEST_OUT/tcp.json" ||
	fail "iperf3 TCP over threaded NAPI failed"
bps=$(json_get "$SCX_TEST_OUT/tcp.json" 'int(j["end"]["sum_received"]["bits_per_second"])')
assert_gt "iperf3 TCP bits/s (threaded)" 0 "$bps"
assert_gt "scx1 ch_poll delta (threaded)" 0 $(( $(ethtool_stat scx1 ch_poll "$NS") - p0 ))
assert_gt "scx1 napi kthreads' on-CPU ns delta" 0 $(( $(ontime) - t0 ))
log "ok: iperf3 TCP $((bps / 1000000)) Mbit/s with scx1's polls in its kthreads"
sleep 0.5
assert_counters_agree scx1 rx "$NS"
assert_counters_agree scx0 tx

# Unpaced pktgen into XDP_DROP: every frame counted somewhere.
bpf_build
xdp_attach scx1 "$NS" "$BPF/xdp_drop.o" xdpdrv
check_kthreads "after XDP attach"
assert_eq "napi kthreads after XDP attach (one NAPI per channel slot)" "$K1" "$KT"
N=20000
eth_dump scx1 "$NS"; d0=$(eth_get rx_xdp_drop); o0=$(eth_get rx_out_of_buffer); t0=$(ontime)
pktgen_setup scx0 $N "$IP1" "$(dev_mac scx1 "$NS")"
sent=$(pktgen_run scx0 120)
assert_eq "pktgen frames sent" $N "$sent"
sleep 0.5
eth_dump scx1 "$NS"; d=$(( $(eth_get rx_xdp_drop) - d0 )); o=$(( $(eth_get rx_out_of_buffer) - o0 ))
assert_eq "scx1 rx_xdp_drop + rx_out_of_buffer (threaded receiver)" $N $((d + o))
assert_gt "scx1 napi kthreads' on-CPU ns delta (XDP)" 0 $(( $(ontime) - t0 ))
log "ok: $N frames: rx_xdp_drop +$d, rx_out_of_buffer +$o"
xdp_detach scx1 "$NS"
check_kthreads "after XDP detach"

# MTU change: another rebuild, still threaded; traffic works through the kthreads.
ip -n "$NS" link set scx1 mtu 4000
check_kthreads "after MTU 4000"
wait_carrier scx1 "$NS"
t0=$(ontime)
ping_ok "" "$IP1" 5
assert_gt "scx1 napi kthreads' on-CPU ns delta (MTU 4000)" 0 $(( $(ontime) - t0 ))
ip -n "$NS" link set scx1 mtu 1500
check_kthreads "after MTU 1500"
wait_carrier scx1 "$NS"
ping_ok "" "$IP1" 5

# Back to softirq NAPI, traffic still flows; then rmmod with kthreads present.
set_threaded 0
ping_ok "" "$IP1" 5
set_threaded 1
check_kthreads "threaded=1 again"
ping_ok "" "$IP1" 5
scx_unload
log "ok: threaded 0/1 and rmmod with threaded channels"
