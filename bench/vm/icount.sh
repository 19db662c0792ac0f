#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM benchmark: exact guest instructions per packet (the scx_icount QEMU
# plugin, bench/icount/) for the configurations of issue 12. Runs inside a
# guest booted with the plugin:
#
#   scripts/vm-run.sh --icount-percpu --timeout 1800 bench/vm/icount.sh
#
# (--icount counts the same totals with an inline add, faster, but without
# the per-vCPU split the -rxcpu1 sender figures need.) With the default
# settings, interrupt moderation's timers decide how many frames share an
# interrupt, and under TCG that follows the host's speed: boot with
#
#   scripts/vm-run.sh --smp 1 --virtual-clock --icount bench/vm/icount.sh
#
# (make bench-icount-vclock) for figures that repeat: the guest's clock then
# advances one nanosecond per instruction. One vCPU: everything shares CPU 0
# and the -rxcpu1 configurations are left out.
#
# Layout (bench/vm/setup.sh): softcx channels=1, scx0 (root netns) -> scx1
# (netns bench-scx, no address), veth0 -> veth1 (netns bench-veth). pktgen on
# kpktgend_0 (CPU 0): 60-byte frames (64 with FCS), one UDP flow
# 10.99.0.1:9 -> 10.99.0.2:9, clone_skb 0, delay 0, NO_TIMESTAMP, to the
# receiver's MAC: the receiving stack takes every frame up to IPv4 and drops
# it (no route). Configurations:
#   veth-b1             veth0 -> veth1, burst 1
#   scx-b1-on/off       scx0 -> scx1, burst 1, skb_tx_mpwqe on/off
#   scx-b32-on/off      the same at burst BURST (xmit_more: one doorbell per
#                       burst; pktgen sends one skb BURST times)
#   scx-b32-on/off-rxcpu1
#                       burst BURST with scx1's NAPI threaded and pinned to
#                       CPU 1 and polled from a timer (napi_defer_hard_irqs
#                       100, gro_flush_timeout 50 us), dropping with XDP
#                       (tests/bpf xdp_drop.o, so that it keeps up and the
#                       device model finds RX buffers), so that vCPU 0 runs
#                       only the sender (pktgen, the stack, driver TX, scx0's
#                       TX completions) and the device model: the sender's
#                       instructions are vCPU 0's minus the device model's
#                       (needs --icount-percpu). The TX MPWQE goal of issue 12.
# In the first five every device delivers on CPU 0 (softcx's device model runs
# from the doorbell, scx1's NAPI in CPU 0's softirq; veth uses netif_rx).
#
# Per configuration: one warm-up run of WARMUP packets (outside any window),
# then REPS repetitions of a pair of windows of N1 and N2 packets;
# instructions/packet = (I(N2) - I(N1)) / (N2 - N1) per function and group
# (bench/icount/icount.py), pps of each run from pktgen. Report:
# $SCX_ICOUNT_DIR/report.txt (table, RESULT lines, top-30 functions per
# configuration); the RESULT lines also in $SCX_RESULTS/icount-summary.txt.
#
# Environment: SCX_BENCH_N1 (20000), SCX_BENCH_N2 (60000), SCX_BENCH_WARMUP
# (10000), SCX_BENCH_REPS (2), SCX_BENCH_BURST (32), SCX_BENCH_CONFIGS (a
# subset of the configurations, space-separated; default all).
source "$(dirname "$0")/../../tests/vm/lib.sh"
source "$(dirname "$0")/icount-lib.sh"
need_cmd ip ethtool taskset pgrep
ic_on || fail "no instruction counter: boot with scripts/vm-run.sh --icount or --icount-percpu"

N1=${SCX_BENCH_N1:-20000}
N2=${SCX_BENCH_N2:-60000}
WARMUP=${SCX_BENCH_WARMUP:-10000}
REPS=${SCX_BENCH_REPS:-2}
BURST=${SCX_BENCH_BURST:-32}
B=$BURST
ALL="veth-b1 scx-b1-on scx-b1-off scx-b$B-on scx-b$B-off"
[ "$(nproc)" -lt 2 ] || ALL+=" scx-b$B-on-rxcpu1 scx-b$B-off-rxcpu1"
read -r -a CFGS <<< "${SCX_BENCH_CONFIGS:-$ALL}"
RXCPU1=0
[[ " ${CFGS[*]} " != *-rxcpu1\ * ]] || RXCPU1=1
[ "$RXCPU1" == 0 ] || bpf_build   # xdp_drop.o for the -rxcpu1 receiver
NS_S=bench-scx
NS_V=bench-veth
OUTF=${SCX_RESULTS:-$SCX_TEST_OUT}/icount-summary.txt
say() { log "$*"; echo "$*" >> "$OUTF"; }
: > "$OUTF"

say "guest kernel $(uname -r), $(nproc) CPUs; instruction counter $([ "${SCX_ICOUNT_PERCPU:-0}" == 1 ] && echo 'per vCPU (callback per block)' || echo 'inline add per block')$([ "${SCX_VIRTUAL_CLOCK:-0}" == 1 ] && echo '; virtual clock (one instruction a ns)')"
source "$(dirname "$0")/setup.sh"
bench_setup_pairs
# This script and everything it starts (pktgen's configuration, the marker,
# ethtool) run on CPU 1, so that vCPU 0 runs the packets only: kpktgend_0 and
# what it calls, the softirqs and timers there.
# With one vCPU (scripts/vm-run.sh --virtual-clock) everything shares CPU 0:
# the script is blocked in pktgen's start while a window runs, and the
# configurations that need a second CPU are refused.
if [ "$(nproc)" -ge 2 ]; then
	taskset -p -c 1 $$ > /dev/null || fail "cannot pin the benchmark to CPU 1"
else
	[ "$RXCPU1" == 0 ] || fail "the -rxcpu1 configurations need 2 CPUs"
fi
say "pktgen: pkt_size 60 (+4 FCS), 1 flow, clone_skb 0, delay 0, NO_TIMESTAMP, kpktgend_0; windows of $N1 and $N2 packets, $REPS repetitions, warm-up $WARMUP; softcx channels=1"

send() {   # DEV MAC BURST COUNT: sets PPS
	local dev=$1 mac=$2 burst=$3 count=$4 txt re='([0-9]+)pps'
	pg_cmd pgctrl reset
	pg_detach_all
	pg_cmd kpktgend_0 add_device "$dev"
	pg_cmd "$dev" count "$count"
	pg_cmd "$dev" clone_skb 0
	[ "$burst" == 1 ] || pg_cmd "$dev" burst "$burst"
	pg_cmd "$dev" pkt_size 60
	pg_cmd "$dev" delay 0
	pg_cmd "$dev" flag NO_TIMESTAMP
	pg_cmd "$dev" dst_mac "$mac"
	pg_cmd "$dev" src_min 10.99.0.1
	pg_cmd "$dev" src_max 10.99.0.1
	pg_cmd "$dev" dst_min 10.99.0.2
	pg_cmd "$dev" dst_max 10.99.0.2
	pg_cmd "$dev" udp_src_min 9
	pg_cmd "$dev" udp_src_max 9
	pg_cmd "$dev" udp_dst_min 9
	pg_cmd "$dev" udp_dst_max 9
	timeout 900 sh -c "echo start > /proc/net/pktgen/pgctrl" || fail "pktgen on $dev did not finish"
	txt=$(< "/proc/net/pktgen/$dev")
	[[ "$txt" =~ $re ]] || fail "no pps in pktgen's output for $dev"
	PPS=${BASH_REMATCH[1]}
}

set_mpwqe() {   # on|off
	[ "$(ethtool --show-priv-flags scx0 | sed -n 's/^skb_tx_mpwqe *: *//p')" == "$1" ] && return 0
	ethtool --set-priv-flags scx0 skb_tx_mpwqe "$1" || fail "cannot set skb_tx_mpwqe $1"
	wait_carrier scx0
	wait_carrier scx1 "$NS_S"
}

rx_layout() {   # cpu0|cpu1: where scx1's NAPI runs (cpu1: with XDP_DROP)
	local t=0 d=0 g=0 p
	[ "$1" == cpu1 ] && t=1 d=100 g=50000
	if [ "$1" == cpu1 ] && [ -z "$(xdp_attached scx1 $NS_S)" ]; then
		xdp_attach scx1 $NS_S "$BPF/xdp_drop.o" xdpdrv
		wait_carrier scx1 "$NS_S"
	elif [ "$1" == cpu0 ] && [ -n "$(xdp_attached scx1 $NS_S)" ]; then
		xdp_detach scx1 $NS_S
		wait_carrier scx1 "$NS_S"
	fi
	ip netns exec $NS_S sh -c "echo $t > /sys/class/net/scx1/threaded &&
		echo $d > /sys/class/net/scx1/napi_defer_hard_irqs &&
		echo $g > /sys/class/net/scx1/gro_flush_timeout" || fail "cannot set scx1's NAPI layout $1"
	[ "$t" == 1 ] || return 0
	for p in $(pgrep '^napi/scx1-'); do
		taskset -p -c 1 "$p" > /dev/null || fail "cannot pin napi kthread $p to CPU 1"
	done
}

for c in "${CFGS[@]}"; do
	case "$c" in
	veth-b1) cmd=(send veth0 "$MAC_V" 1) ;;
	scx-b*-on*|scx-b*-off*)
		b=${c#scx-b}; b=${b%%-*}
		m=${c#scx-b"$b"-}; m=${m%%-*}
		set_mpwqe "$m"
		if [[ "$c" == *-rxcpu1 ]]; then rx_layout cpu1; else rx_layout cpu0; fi
		cmd=(send scx0 "$MAC_S" "$b") ;;
	*) fail "unknown configuration $c" ;;
	esac
	"${cmd[@]}" "$WARMUP"
	say "$(printf '%-22s warm-up %d packets: %s pps' "$c" "$WARMUP" "$PPS")"
	eth_dump scx1 "$NS_S"
	oob=$(eth_get rx_out_of_buffer)
	for ((r = 1; r <= REPS; r++)); do
		ic_pair "$c" "$N1" "$N2" "${cmd[@]}"
	done
	eth_dump scx1 "$NS_S"
	say "$(printf '%-22s scx1 rx_out_of_buffer +%d in the windows (frames the device dropped for want of RX buffers)' "$c" $(( $(eth_get rx_out_of_buffer) - oob )))"
done
rx_layout cpu0
set_mpwqe on

ic_report "bench/vm/icount.sh, guest $(uname -r), $(date -u '+%Y-%m-%d %H:%M UTC')" \
	--ratio "TX MPWQE sender on vs off, burst $B (sender on vCPU 0, device model and receiver excluded)=scx-b$B-off-rxcpu1/scx-b$B-on-rxcpu1:sender_cpu0:1.30" \
	--ratio "TX MPWQE sender on vs off, burst $B (pktgen + driver TX + shim TX, receiver on CPU 0)=scx-b$B-off/scx-b$B-on:sender_fn" \
	--ratio "softcx / veth, burst 1, mpwqe on (total)=scx-b1-on/veth-b1:total:" \
	--ratio "burst $B mpwqe off / on (total)=scx-b$B-off/scx-b$B-on:total" \
	> "$OUTF.tmp" || fail "icount report failed"
cat "$OUTF.tmp" >> "$OUTF"; cat "$OUTF.tmp"; rm -f "$OUTF.tmp"
say "report: $IC_OUT/report.txt"
ip link del veth0 2>/dev/null || true
ip netns del $NS_S 2>/dev/null || true
ip netns del $NS_V 2>/dev/null || true
pg_cmd pgctrl reset
scx_unload
