#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM benchmark: the RX path's instructions per frame, cyclic vs striding RQ
# and CQE compression off vs on (issue 13), exact (bench/icount), in one
# boot:
#
#   scripts/vm-run.sh --icount-percpu --timeout 3600 bench/vm/rx.sh   (make bench-rx)
#
# pktgen 64-byte frames (pkt_size 60 + 4 FCS), one UDP flow, burst 32,
# scx0 -> scx1 (channels=1, scx1 in a netns without addresses). scx1's NAPI
# is threaded, pinned to CPU 1 and polled from a timer (napi_defer_hard_irqs
# 100, gro_flush_timeout 1 ms), this script and pktgen on CPU 0: receiver
# instructions per frame = vCPU 1's kernel instructions minus the device
# model's there, over the frames scx1 handled (rx1-* configurations of
# bench/icount/icount.py). Configurations: rx_striding_rq off/on x
# rx_cqe_compress off/on, each with two receivers: xdp (xdp_drop.o native:
# the driver's RX alone) and ip (no program: skb, GRO, IP drops the frame).
# Per configuration also the deterministic device figures: CQE bytes and
# bus bytes per frame (scx1's device counters).
#
# Environment: SCX_BENCH_IC_REPS (2) pairs of SCX_BENCH_IC_N1 (20000) and
# SCX_BENCH_IC_N2 (60000) frames; SCX_BENCH_WARMUP (20000);
# SCX_BENCH_RX_RECV ("xdp ip"). Summary: $SCX_RESULTS/rx-summary.txt.
source "$(dirname "$0")/../../tests/vm/lib.sh"
source "$(dirname "$0")/icount-lib.sh"
source "$(dirname "$0")/setup.sh"
need_cmd ip ethtool taskset pgrep
ic_on || fail "bench/vm/rx.sh counts instructions: boot it with scripts/vm-run.sh --icount-percpu"

WARMUP=${SCX_BENCH_WARMUP:-20000}
RECV=${SCX_BENCH_RX_RECV:-xdp ip}
NSB=bench-rx
OUTF=${SCX_RESULTS:-$SCX_TEST_OUT}/rx-summary.txt
say() { log "$*"; echo "$*" >> "$OUTF"; }
: > "$OUTF"

bpf_build
modprobe pktgen
bench_scx_pair "$NSB" channels=1
echo 0 > /sys/module/softcx/parameters/emul_timing || fail "cannot turn softcx emul_timing off"
taskset -p -c 0 $$ > /dev/null || fail "cannot pin the benchmark to CPU 0"
say "guest kernel $(uname -r), $(nproc) CPUs; softcx channels=1, scx0 -> scx1 ($MAC, netns $NSB)"
say "pktgen: pkt_size 60 (+4 FCS), burst 32, 1 flow, delay 0; scx1 NAPI threaded on CPU 1, napi_defer_hard_irqs 100, gro_flush_timeout 1 ms"

nsx() { ip netns exec "$NSB" "$@"; }
# scx1_set STRIDING COMPRESS RECV: scx1's flags and program; its NAPI kthread on CPU 1
scx1_set() {
	[ -z "$(xdp_attached scx1 "$NSB")" ] || xdp_detach scx1 "$NSB"
	nsx ethtool --set-priv-flags scx1 rx_striding_rq "$1" rx_cqe_compress "$2"
	[ "$3" != xdp ] || xdp_attach scx1 "$NSB" "$BPF/xdp_drop.o" xdpdrv
	wait_carrier scx1 "$NSB"
	bench_napi_thread scx1 "$NSB" 1
}

CNT=(rx_packets rx_xdp_drop rx_out_of_buffer rx_cqe_compress_pkts bus_wr_cqe_bytes bus_rd_desc_bytes bus_wr_data_bytes bus_rd_dbr_bytes)
snap() { local c; eth_dump scx1 "$NSB"; S=(); for c in "${CNT[@]}"; do S+=("$(eth_get "$c")"); done; }
# ic_run N: N frames; IC_HANDLED the frames scx1 handled
ic_run() {
	local b a i
	snap; b=("${S[@]}")
	pktgen_setup scx0 "$1" 10.99.0.2 "$MAC" 0 60
	pg_cmd scx0 burst 32
	pktgen_run scx0 900 > /dev/null
	sleep 0.3
	snap; a=("${S[@]}")
	D=(); for i in "${!a[@]}"; do D+=($((a[i] - b[i]))); done
	IC_HANDLED=$((D[0] + D[1]))
	[ "$IC_HANDLED" -gt 0 ] || fail "scx1 handled no frame"
}

for st in off on; do
	for cq in off on; do
		cfg=$([ $st == on ] && echo str || echo cyc)-$([ $cq == on ] && echo cqe || echo plain)
		for r in $RECV; do
			scx1_set "$st" "$cq" "$r"
			ic_run "$WARMUP"
			h=$IC_HANDLED
			say "$(printf '%-18s frames %s (of %s) out_of_buffer +%s mini CQEs +%s | bytes/frame x100: CQE %s desc %s data %s dbr %s' \
				"$cfg-$r" "$h" "$WARMUP" "${D[2]}" "${D[3]}" $((D[4] * 100 / h)) $((D[5] * 100 / h)) \
				$((D[6] * 100 / h)) $((D[7] * 100 / h)))"
			for ((k = 1; k <= ${SCX_BENCH_IC_REPS:-2}; k++)); do
				ic_pair "rx1-$cfg-$r" "${SCX_BENCH_IC_N1:-20000}" "${SCX_BENCH_IC_N2:-60000}" ic_run
			done
		done
	done
done
[ -z "$(xdp_attached scx1 "$NSB")" ] || xdp_detach scx1 "$NSB"
taskset -p -c 0-$(($(nproc) - 1)) $$ > /dev/null || true

ratios=()
for r in $RECV; do
	ratios+=(--ratio "cyclic / striding RQ, receiver $r, per frame=rx1-cyc-plain-$r/rx1-str-plain-$r:rx_cpu1"
		 --ratio "striding RQ, compression off / on, receiver $r, per frame=rx1-str-plain-$r/rx1-str-cqe-$r:rx_cpu1"
		 --ratio "cyclic RQ, compression off / on, receiver $r, per frame=rx1-cyc-plain-$r/rx1-cyc-cqe-$r:rx_cpu1")
done
ic_report "bench/vm/rx.sh, guest $(uname -r), $(date -u '+%Y-%m-%d %H:%M UTC')" "${ratios[@]}" |
	while IFS= read -r l; do say "$l"; done
say "instruction count report (tables, top-30 functions): $IC_OUT/report.txt"
