#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM benchmark: skb_tx_mpwqe on vs off, same boot, interleaved. pktgen
# 64-byte frames (pkt_size 60 + 4 FCS), one fixed UDP flow, burst BURST
# (xmit_more batches: one doorbell per burst; pktgen sends one skb BURST
# times), clone_skb CLONE, delay 0, NO_TIMESTAMP, on kpktgend_0 (CPU 0), scx0
# -> scx1's MAC (scx1 in its own netns without an address). softcx loaded
# with channels=1 emul_timing=1. Runs inside the guest:
#
#   scripts/vm-run.sh --timeout 1200 bench/vm/mpwqe.sh
#
# Sequence: one warm-up run per setting, then REPS repetitions of (on, off).
# Per run: pps (pktgen's Result line), scx0 tx_mpwqe_pkts/blks deltas,
# TX-side bus bytes per packet from scx0's device counters (descriptor
# reads + data reads + CQE writes + doorbell-record reads, over the
# tx_packets delta: deterministic for a given burst), scx1's receive and
# drop counters, and the sender's CPU rate without the emulated device:
# packets / (pktgen's elapsed time - scx0's emul_ns). pktgen keeps CPU 0
# busy for its whole run, so its elapsed time is CPU 0's time; emul_ns is
# the time the device model spent inside scx0's doorbells (TX engine, wire,
# scx1's RX engine, CQ arms), which a real NIC does not take from the CPU.
# Prints the medians, the ratios of the medians and the median of the
# per-repetition ratios. Summary: $SCX_RESULTS/mpwqe-summary.txt.
#
# Booted with scripts/vm-run.sh --icount-percpu, it ends with exact
# instruction counts (bench/icount): per setting SCX_BENCH_IC_REPS (2) pairs
# of SCX_BENCH_IC_N1 (20000) and SCX_BENCH_IC_N2 (60000) packets, this script
# pinned away from CPU 0; with scx1's NAPI on CPU 1 (the default) the
# sender's instructions per packet are vCPU 0's minus the device model's
# (pktgen, the stack, driver TX and scx0's completions; issue 12's TX MPWQE
# goal: off / on >= 1.30), else pktgen + driver TX + shim TX by function;
# emul_timing is turned off for these runs (its clock reads would count).
#
# Environment: SCX_BENCH_COUNT (300000), SCX_BENCH_WARMUP (100000),
# SCX_BENCH_REPS (9), SCX_BENCH_BURST (32), SCX_BENCH_CLONE (0: a new skb
# per burst, as the kernel's pktgen_sample03_burst_single_flow.sh; N: each
# skb is reused for N bursts), and where scx1 receives (defaults: CPU 1,
# xdp_drop, 100:50000; an empty value turns that part off):
#   SCX_BENCH_RXCPU   empty: scx1's NAPI runs where the device raises its
#                     interrupt, the sending CPU; a CPU number: scx1's NAPI
#                     is threaded (/sys/class/net/scx1/threaded) and its
#                     kthread pinned there, beside the sender as on another
#                     machine;
#   SCX_BENCH_RXPROG  an XDP object from tests/bpf (e.g. xdp_drop), attached
#                     native on scx1; empty: the stack drops at IP;
#   SCX_BENCH_RXDEFER N:NS, e.g. 100:50000: scx1's napi_defer_hard_irqs and
#                     gro_flush_timeout, so that scx1 is polled from a timer
#                     on its own CPU rather than woken by every interrupt;
#   SCX_BENCH_RPS     a CPU mask written to scx1's rx-0 rps_cpus (the stack
#                     above GRO on that CPU).
source "$(dirname "$0")/../../tests/vm/lib.sh"
source "$(dirname "$0")/icount-lib.sh"
source "$(dirname "$0")/setup.sh"
need_cmd ip ethtool

COUNT=${SCX_BENCH_COUNT:-300000}
WARMUP=${SCX_BENCH_WARMUP:-100000}
REPS=${SCX_BENCH_REPS:-9}
BURST=${SCX_BENCH_BURST:-32}
RPS=${SCX_BENCH_RPS:-}
CLONE=${SCX_BENCH_CLONE:-0}
# Defaults: the receiver polled from a timer on CPU 1 and dropping with XDP,
# so it keeps up and takes nothing from the sender's CPU (set a variable to
# the empty string to turn its part off).
RXCPU=${SCX_BENCH_RXCPU-1}
RXPROG=${SCX_BENCH_RXPROG-xdp_drop}
RXDEFER=${SCX_BENCH_RXDEFER-100:50000}
NSB=bench-mpwqe
OUTF=${SCX_RESULTS:-$SCX_TEST_OUT}/mpwqe-summary.txt
say() { log "$*"; echo "$*" >> "$OUTF"; }
: > "$OUTF"

say "guest kernel $(uname -r), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
modprobe pktgen
bench_scx_pair "$NSB" channels=1 emul_timing=1
if [ -n "$RPS" ]; then
	ip netns exec "$NSB" sh -c "echo $RPS > /sys/class/net/scx1/queues/rx-0/rps_cpus" ||
		fail "cannot set scx1 rps_cpus"
fi
if [ -n "$RXPROG" ]; then
	bpf_build
	xdp_attach scx1 "$NSB" "$BPF/$RXPROG.o"
fi
if [ -n "$RXDEFER" ]; then
	ip netns exec "$NSB" sh -c "echo ${RXDEFER%%:*} > /sys/class/net/scx1/napi_defer_hard_irqs &&
		echo ${RXDEFER#*:} > /sys/class/net/scx1/gro_flush_timeout" ||
		fail "cannot set scx1 napi_defer_hard_irqs/gro_flush_timeout to $RXDEFER"
fi
if [ -n "$RXCPU" ]; then
	need_cmd taskset pgrep
	ip netns exec "$NSB" sh -c "echo 1 > /sys/class/net/scx1/threaded" ||
		fail "cannot make scx1's NAPI threaded"
	pids=$(pgrep '^napi/scx1-') || fail "no napi/scx1-* kthread after threaded=1"
	for p in $pids; do
		taskset -p -c "$RXCPU" "$p" > /dev/null || fail "cannot pin napi kthread $p to CPU $RXCPU"
	done
	say "scx1 NAPI threaded: kthreads $(echo $pids) on CPU $RXCPU"
fi

pg_config() {   # COUNT
	pg_cmd pgctrl reset
	pg_detach_all
	pg_cmd kpktgend_0 add_device scx0
	pg_cmd scx0 count "$1"
	pg_cmd scx0 clone_skb "$CLONE"
	pg_cmd scx0 burst "$BURST"
	pg_cmd scx0 pkt_size 60
	pg_cmd scx0 delay 0
	pg_cmd scx0 flag NO_TIMESTAMP
	pg_cmd scx0 dst_mac "$MAC"
	pg_cmd scx0 src_min 10.99.0.1
	pg_cmd scx0 src_max 10.99.0.1
	pg_cmd scx0 dst_min 10.99.0.2
	pg_cmd scx0 dst_max 10.99.0.2
	pg_cmd scx0 udp_src_min 9
	pg_cmd scx0 udp_src_max 9
	pg_cmd scx0 udp_dst_min 9
	pg_cmd scx0 udp_dst_max 9
}

set_mpwqe() {   # on|off
	[ "$(ethtool --show-priv-flags scx0 | sed -n 's/^skb_tx_mpwqe *: *//p')" == "$1" ] && return 0
	ethtool --set-priv-flags scx0 skb_tx_mpwqe "$1"
	wait_carrier scx0
	wait_carrier scx1 "$NSB"
}

BUSC="bus_rd_desc_bytes bus_rd_data_bytes bus_wr_cqe_bytes bus_rd_dbr_bytes"
snap() {   # into an array name
	local -n s=$1
	eth_dump scx0
	s=( "$(eth_get tx_packets)" "$(eth_get tx_mpwqe_pkts)" "$(eth_get tx_mpwqe_blks)" "$(eth_get bus_rd_desc_bytes)" )
	local t=0 c
	for c in $BUSC; do t=$((t + $(eth_get "$c"))); done
	s+=( "$t" )
	s+=( "$(eth_get emul_ns)" )
	eth_dump scx1 "$NSB"
	s+=( "$(eth_get rx_packets)" "$(eth_get rx_xdp_drop)" "$(eth_get rx_out_of_buffer)" )
}

# run LABEL MODE COUNT: sets PPS, BUSPP (x100), DESCPP (x100), EMUL (the
# device emulation's share of the run, x1000) and SPS: packets per second of
# sender CPU without the emulated device (pktgen's elapsed time minus scx0's
# emul_ns: pktgen keeps its CPU busy, so its elapsed time is that CPU's time).
run() {
	local label=$1 mode=$2 count=$3 txt re='([0-9]+)pps' re_us='OK: ([0-9]+)\(' b a usec
	set_mpwqe "$mode"
	pg_config "$count"
	snap b
	timeout 600 sh -c "echo start > /proc/net/pktgen/pgctrl" || fail "pktgen did not finish"
	snap a
	txt=$(< /proc/net/pktgen/scx0)
	[[ "$txt" =~ $re ]] || fail "no pps in pktgen output"
	PPS=${BASH_REMATCH[1]}
	[[ "$txt" =~ $re_us ]] || fail "no elapsed time in pktgen output"
	usec=${BASH_REMATCH[1]}
	local n=$((a[0] - b[0])) emul=$((a[5] - b[5]))
	BUSPP=$(( (a[4] - b[4]) * 100 / n )); DESCPP=$(( (a[3] - b[3]) * 100 / n ))
	EMUL=$(( emul / usec ))
	[ $((usec * 1000 - emul)) -gt 0 ] || fail "emul_ns $emul exceeds pktgen's elapsed $usec us"
	SPS=$(( n * 1000000000 / (usec * 1000 - emul) ))
	say "$(printf '%-12s %8s pps | tx_packets +%d mpwqe_pkts +%d mpwqe_blks +%d | bus %d.%02d B/pkt (desc %d.%02d) | scx1 rx_packets +%d rx_xdp_drop +%d rx_out_of_buffer +%d | %d us, emul_ns +%d (%d/1000 of it): %d pps of sender CPU without the device' \
		"$label" "$PPS" "$n" $((a[1] - b[1])) $((a[2] - b[2])) $((BUSPP / 100)) $((BUSPP % 100)) \
		$((DESCPP / 100)) $((DESCPP % 100)) $((a[6] - b[6])) $((a[7] - b[7])) $((a[8] - b[8])) \
		"$usec" "$emul" "$EMUL" "$SPS")"
}
median() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }

say "pktgen: pkt_size 60 (+4 FCS), count $COUNT, burst $BURST, clone_skb $CLONE, delay 0, NO_TIMESTAMP, 1 flow, channels=1${RPS:+, scx1 rps_cpus $RPS}${RXCPU:+, scx1 NAPI threaded on CPU $RXCPU}${RXPROG:+, $RXPROG on scx1}${RXDEFER:+, scx1 napi_defer_hard_irqs:gro_flush_timeout $RXDEFER}"
run "warmup on" on "$WARMUP"
run "warmup off" off "$WARMUP"
ON=() OFF=() BON=() BOFF=() SON=() SOFF=()
for ((r = 1; r <= REPS; r++)); do
	run "rep$r on" on "$COUNT"; ON+=("$PPS"); BON+=("$BUSPP"); SON+=("$SPS")
	run "rep$r off" off "$COUNT"; OFF+=("$PPS"); BOFF+=("$BUSPP"); SOFF+=("$SPS")
done
mon=$(median "${ON[@]}"); moff=$(median "${OFF[@]}")
bon=$(median "${BON[@]}"); boff=$(median "${BOFF[@]}")
say "median pps: on $mon, off $moff, ratio on/off $((mon * 1000 / moff))/1000"
son=$(median "${SON[@]}"); soff=$(median "${SOFF[@]}")
say "median pps of sender CPU without the emulated device: on $son (${SON[*]}), off $soff (${SOFF[*]}), ratio on/off $((son * 1000 / soff))/1000"
# Per repetition (on and off back to back): the ratio, then their median.
PR=() SR=()
for ((r = 0; r < REPS; r++)); do
	PR+=( $(( ON[r] * 1000 / OFF[r] )) ); SR+=( $(( SON[r] * 1000 / SOFF[r] )) )
done
say "median of the per-repetition ratios on/off (x1000): pps $(median "${PR[@]}") (${PR[*]}), sender CPU without the device $(median "${SR[@]}") (${SR[*]})"
say "median bus bytes/packet: on $((bon / 100)).$((bon % 100)), off $((boff / 100)).$((boff % 100)), cut $(( (boff - bon) * 1000 / boff ))/1000"
set_mpwqe on

if ic_on; then
	# The clock reads of emul_timing would be counted: off for the counts.
	echo 0 > /sys/module/softcx/parameters/emul_timing || fail "cannot turn softcx emul_timing off"
	sfx=
	if [ "$RXCPU" == 1 ]; then
		sfx=-rxcpu1
		taskset -p -c 1 $$ > /dev/null || fail "cannot pin the benchmark to CPU 1"
		metric=sender_cpu0
	else
		metric=sender_fn
	fi
	for mode in on off; do
		run "icount warmup $mode" "$mode" "$WARMUP"
		for ((r = 1; r <= ${SCX_BENCH_IC_REPS:-2}; r++)); do
			ic_pair "mpwqe-$mode$sfx" "${SCX_BENCH_IC_N1:-20000}" "${SCX_BENCH_IC_N2:-60000}" run "icount $mode" "$mode"
		done
	done
	set_mpwqe on
	ic_report "bench/vm/mpwqe.sh, burst $BURST, guest $(uname -r), $(date -u '+%Y-%m-%d %H:%M UTC')" \
		--ratio "TX MPWQE sender skb_tx_mpwqe off / on, burst $BURST=mpwqe-off$sfx/mpwqe-on$sfx:$metric:1.30" \
		--ratio "skb_tx_mpwqe off / on, burst $BURST, whole guest kernel=mpwqe-off$sfx/mpwqe-on$sfx:total" |
		while IFS= read -r l; do say "$l"; done
	say "instruction count report (tables, top-30 functions): $IC_OUT/report.txt"
fi
