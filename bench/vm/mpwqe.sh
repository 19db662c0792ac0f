#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM benchmark: skb_tx_mpwqe on vs off, same boot, interleaved. pktgen
# 64-byte frames (pkt_size 60 + 4 FCS), one fixed UDP flow, burst BURST
# (xmit_more batches: one doorbell per burst), clone_skb 0, delay 0,
# NO_TIMESTAMP, on kpktgend_0, scx0 -> scx1's MAC (scx1 in its own netns
# without an address: the receiving stack drops each frame at IP). softcx
# loaded with channels=1. Runs inside the guest:
#
#   scripts/vm-run.sh --timeout 1200 bench/vm/mpwqe.sh
#
# Sequence: one warm-up run per setting, then REPS repetitions of (on, off).
# Per run: pps (pktgen's Result line), scx0 tx_mpwqe_pkts/blks deltas, and
# TX-side bus bytes per packet from scx0's device counters (descriptor
# reads + data reads + CQE writes + doorbell-record reads, over the
# tx_packets delta: deterministic for a given burst). Prints the medians and
# the ratios on/off. Summary: $SCX_RESULTS/mpwqe-summary.txt.
#
# Environment: SCX_BENCH_COUNT (300000), SCX_BENCH_WARMUP (100000),
# SCX_BENCH_REPS (3), SCX_BENCH_BURST (32), SCX_BENCH_RPS (unset: scx1's
# receive stack runs in its NAPI on the sending CPU; a CPU mask, e.g. 2, is
# written to scx1's rx-0 rps_cpus so that the stack above GRO runs on that
# CPU and the sending CPU keeps pktgen, the driver, the device model and
# the receiver's NAPI poll).
source "$(dirname "$0")/../../tests/vm/lib.sh"
need_cmd ip ethtool

COUNT=${SCX_BENCH_COUNT:-300000}
WARMUP=${SCX_BENCH_WARMUP:-100000}
REPS=${SCX_BENCH_REPS:-3}
BURST=${SCX_BENCH_BURST:-32}
RPS=${SCX_BENCH_RPS:-}
NSB=bench-mpwqe
OUTF=${SCX_RESULTS:-$SCX_TEST_OUT}/mpwqe-summary.txt
say() { log "$*"; echo "$*" >> "$OUTF"; }
: > "$OUTF"

say "guest kernel $(uname -r), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
modprobe pktgen
scx_load channels=1
ns_create "$NSB"
sysctl -qw net.ipv6.conf.scx0.disable_ipv6=1
ip link set scx1 netns "$NSB"
ip link set scx0 up
ip -n "$NSB" link set scx1 up
wait_carrier scx0
wait_carrier scx1 "$NSB"
MAC=$(dev_mac scx1 "$NSB")
if [ -n "$RPS" ]; then
	ip netns exec "$NSB" sh -c "echo $RPS > /sys/class/net/scx1/queues/rx-0/rps_cpus" ||
		fail "cannot set scx1 rps_cpus"
fi

pg_config() {   # COUNT
	pg_cmd pgctrl reset
	pg_cmd kpktgend_0 rem_device_all
	pg_cmd kpktgend_0 add_device scx0
	pg_cmd scx0 count "$1"
	pg_cmd scx0 clone_skb 0
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
}

run() {   # LABEL MODE COUNT: sets PPS, BUSPP (x100), DESCPP (x100)
	local label=$1 mode=$2 count=$3 txt re='([0-9]+)pps' b a
	set_mpwqe "$mode"
	pg_config "$count"
	snap b
	timeout 600 sh -c "echo start > /proc/net/pktgen/pgctrl" || fail "pktgen did not finish"
	snap a
	txt=$(< /proc/net/pktgen/scx0)
	[[ "$txt" =~ $re ]] || fail "no pps in pktgen output"
	PPS=${BASH_REMATCH[1]}
	local n=$((a[0] - b[0]))
	BUSPP=$(( (a[4] - b[4]) * 100 / n )); DESCPP=$(( (a[3] - b[3]) * 100 / n ))
	say "$(printf '%-12s %8s pps | tx_packets +%d mpwqe_pkts +%d mpwqe_blks +%d | bus %d.%02d B/pkt (desc %d.%02d)' \
		"$label" "$PPS" "$n" $((a[1] - b[1])) $((a[2] - b[2])) $((BUSPP / 100)) $((BUSPP % 100)) \
		$((DESCPP / 100)) $((DESCPP % 100)))"
}
median() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }

say "pktgen: pkt_size 60 (+4 FCS), count $COUNT, burst $BURST, clone_skb 0, delay 0, NO_TIMESTAMP, 1 flow, channels=1${RPS:+, scx1 rps_cpus $RPS}"
run "warmup on" on "$WARMUP"
run "warmup off" off "$WARMUP"
ON=() OFF=() BON=() BOFF=()
for ((r = 1; r <= REPS; r++)); do
	run "rep$r on" on "$COUNT"; ON+=("$PPS"); BON+=("$BUSPP")
	run "rep$r off" off "$COUNT"; OFF+=("$PPS"); BOFF+=("$BUSPP")
done
mon=$(median "${ON[@]}"); moff=$(median "${OFF[@]}")
bon=$(median "${BON[@]}"); boff=$(median "${BOFF[@]}")
say "median pps: on $mon, off $moff, ratio on/off $((mon * 1000 / moff))/1000"
say "median bus bytes/packet: on $((bon / 100)).$((bon % 100)), off $((boff / 100)).$((boff % 100)), cut $(( (boff - bon) * 1000 / boff ))/1000"
set_mpwqe on
