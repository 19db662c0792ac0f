#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM benchmark: native XDP on softcx, in one guest boot, interleaved. Runs
# inside the guest:
#
#   make -C tests/bpf && scripts/vm-run.sh --timeout 1800 bench/vm/xdp.sh
#
# Layout (bench/vm/setup.sh): softcx channels=1, scx0 (root netns) -> scx1
# (netns bench-scx, no address), veth0 -> veth1 (netns bench-veth). pktgen on
# kpktgend_0: COUNT 60-byte frames (64 with FCS) of one UDP flow, clone_skb 0,
# delay 0, NO_TIMESTAMP, to the receiver's MAC. softcx's device model runs in
# the sender's context, so every softcx figure includes pktgen and scx0's TX
# path as well as scx1's receive path (one CPU does all of it).
#
# Configurations (REPS repetitions each, interleaved, after one warm-up each):
#   xdp-drop     xdp_drop.o native on scx1                        burst 1
#   tc-drop      tc clsact ingress matchall action drop on scx1   burst 1
#   veth-xdp     xdp_drop.o native on veth1                       burst 1
#   xdp-drop-b   as xdp-drop, pktgen burst BURST (xmit_more: one doorbell per burst)
#   tc-drop-b    as tc-drop, burst BURST
#   tx-on        xdp_reflect.o (swap MACs, XDP_TX) on scx1, xdp_tx_mpwqe on,
#                xdp_drop.o on scx0 for the frames coming back, burst BURST
#   tx-off       the same with xdp_tx_mpwqe off
# Rate: frames the receiver handled (xdp-drop: scx1 rx_xdp_drop; tc-drop:
# scx1 rx_packets, which tc then drops; veth-xdp: veth1 rx_queue_0_xdp_drops;
# tx: scx1 rx_xdp_tx_xmit) over pktgen's elapsed time; pktgen's own pps is
# printed too. Device drops (rx_out_of_buffer) are printed. For tx: scx1's
# bus bytes (every bus_* byte counter, RX placement included, which is the
# same on and off) per reflected frame, and frames per multi-packet WQE.
# Medians and ratios: xdp-drop/tc-drop (burst 1 and BURST), xdp-drop/veth-xdp,
# tx-on/tx-off. Summary: $SCX_RESULTS/xdp-summary.txt.
#
# Environment: SCX_BENCH_COUNT (200000), SCX_BENCH_WARMUP (50000),
# SCX_BENCH_REPS (3), SCX_BENCH_BURST (32), SCX_BENCH_CONFIGS (a subset of
# the configurations above, space-separated; default all).
source "$(dirname "$0")/../../tests/vm/lib.sh"
need_cmd ip ethtool tc

COUNT=${SCX_BENCH_COUNT:-200000}
WARMUP=${SCX_BENCH_WARMUP:-50000}
REPS=${SCX_BENCH_REPS:-3}
BURST=${SCX_BENCH_BURST:-32}
NS_S=bench-scx
NS_V=bench-veth
OUTF=${SCX_RESULTS:-$SCX_TEST_OUT}/xdp-summary.txt
say() { log "$*"; echo "$*" >> "$OUTF"; }
: > "$OUTF"

bpf_build
say "guest kernel $(uname -r), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
say "guest uptime at start: $(cut -d' ' -f1 /proc/uptime) s"
source "$(dirname "$0")/setup.sh"
bench_setup_pairs
modprobe -a cls_matchall act_gact
xdp_attach veth1 "$NS_V" "$BPF/xdp_drop.o" xdpdrv
ethtool_has veth1 rx_queue_0_xdp_drops "$NS_V" || fail "veth1 has no rx_queue_0_xdp_drops counter"
say "softcx scx0 -> scx1 ($MAC_S, netns $NS_S), channels=1; veth0 -> veth1 ($MAC_V, netns $NS_V, xdp_drop.o native)"
say "pktgen: pkt_size 60 (+4 FCS), count $COUNT, clone_skb 0, delay 0, NO_TIMESTAMP, 1 flow; burst 1 unless noted, BURST=$BURST"

pg_config() {   # DEV MAC COUNT BURST
	pg_cmd pgctrl reset
	pg_cmd kpktgend_0 rem_device_all
	pg_cmd kpktgend_0 add_device "$1"
	pg_cmd "$1" count "$3"
	pg_cmd "$1" clone_skb 0
	pg_cmd "$1" burst "$4"
	pg_cmd "$1" pkt_size 60
	pg_cmd "$1" delay 0
	pg_cmd "$1" flag NO_TIMESTAMP
	pg_cmd "$1" dst_mac "$2"
	pg_cmd "$1" src_min 10.99.0.1
	pg_cmd "$1" src_max 10.99.0.1
	pg_cmd "$1" dst_min 10.99.0.2
	pg_cmd "$1" dst_max 10.99.0.2
	pg_cmd "$1" udp_src_min 9
	pg_cmd "$1" udp_src_max 9
	pg_cmd "$1" udp_dst_min 9
	pg_cmd "$1" udp_dst_max 9
}

# ---- receiver modes on scx1: none | xdp-drop | tc-drop | tx-on | tx-off
MODE=none
scx1_mode() {
	[ "$MODE" == "$1" ] && return 0
	# undo
	ip netns exec $NS_S tc qdisc del dev scx1 clsact 2>/dev/null || true
	[ -z "$(xdp_attached scx1 $NS_S)" ] || xdp_detach scx1 $NS_S
	[ -z "$(xdp_attached scx0)" ] || xdp_detach scx0
	case "$1" in
	xdp-drop) xdp_attach scx1 $NS_S "$BPF/xdp_drop.o" xdpdrv ;;
	tc-drop)
		ip netns exec $NS_S tc qdisc add dev scx1 clsact
		ip netns exec $NS_S tc filter add dev scx1 ingress pref 1 matchall action drop ;;
	tx-on|tx-off)
		ip netns exec $NS_S ethtool --set-priv-flags scx1 xdp_tx_mpwqe "${1#tx-}"
		xdp_attach scx1 $NS_S "$BPF/xdp_reflect.o" xdpdrv
		xdp_attach scx0 "" "$BPF/xdp_drop.o" xdpdrv ;;
	esac
	wait_carrier scx0
	wait_carrier scx1 $NS_S
	MODE=$1
}

BUSC=(bus_rd_desc_bytes bus_rd_data_bytes bus_wr_data_bytes bus_wr_cqe_bytes bus_rd_dbr_bytes bus_doorbells)
# counters CONFIG: one line of the numbers this configuration needs.
counters() {
	local c v=()
	case "$1" in
	veth-xdp)
		eth_dump veth1 $NS_V
		v=("$(eth_get rx_queue_0_xdp_drops)" 0 0 0 0) ;;
	*)
		eth_dump scx1 $NS_S
		v=("$(eth_get rx_xdp_drop)" "$(eth_get rx_packets)" "$(eth_get rx_out_of_buffer)"
		   "$(eth_get rx_xdp_tx_xmit)" "$(eth_get rx_xdp_tx_mpwqe)" "$(eth_get rx_xdp_tx_inlnw)"
		   "$(eth_get rx_xdp_tx_full)")
		for c in "${BUSC[@]}"; do v+=("$(eth_get "$c")"); done
		eth_dump scx0
		v+=("$(eth_get rx_xdp_drop)" "$(eth_get rx_out_of_buffer)") ;;
	esac
	echo "${v[*]}"
}

# run LABEL CONFIG COUNT: sets RATE (handled frames/s) and PPS (pktgen's).
run() {
	local label=$1 cfg=$2 count=$3 dev mac burst=1 b a d=() i txt usec pps handled extra=''
	local re_pps='([0-9]+)pps' re_us='OK: ([0-9]+)\('
	case "$cfg" in
	veth-xdp) dev=veth0 mac=$MAC_V ;;
	xdp-drop|tc-drop) dev=scx0 mac=$MAC_S; scx1_mode "$cfg" ;;
	xdp-drop-b|tc-drop-b) dev=scx0 mac=$MAC_S burst=$BURST; scx1_mode "${cfg%-b}" ;;
	tx-on|tx-off) dev=scx0 mac=$MAC_S burst=$BURST; scx1_mode "$cfg" ;;
	esac
	pg_config "$dev" "$mac" "$count" "$burst"
	read -r -a b <<< "$(counters "$cfg")"
	timeout 600 sh -c "echo start > $PG/pgctrl" || fail "pktgen on $dev did not finish"
	sleep 0.2
	read -r -a a <<< "$(counters "$cfg")"
	for i in "${!a[@]}"; do d+=($((a[i] - b[i]))); done
	txt=$(< "$PG/$dev")
	[[ "$txt" =~ $re_pps ]] && pps=${BASH_REMATCH[1]}
	[[ "$txt" =~ $re_us ]] && usec=${BASH_REMATCH[1]}
	if [ -z "${pps:-}" ] || [ "${usec:-0}" -eq 0 ]; then
		fail "pktgen $dev: no result: $(grep -A2 Result <<< "$txt" | tr '\n' ' ')"
	fi
	case "$cfg" in
	veth-xdp) handled=${d[0]}; extra="veth1 rx_queue_0_xdp_drops +${d[0]}" ;;
	xdp-drop*) handled=${d[0]}; extra="scx1 rx_xdp_drop +${d[0]} rx_packets +${d[1]} rx_out_of_buffer +${d[2]}" ;;
	tc-drop*) handled=${d[1]}; extra="scx1 rx_packets +${d[1]} (dropped by tc) rx_xdp_drop +${d[0]} rx_out_of_buffer +${d[2]}" ;;
	tx-*)
		handled=${d[3]}
		local bus=0 bd=''
		for i in "${!BUSC[@]}"; do
			[ "${BUSC[i]}" == bus_doorbells ] || bus=$((bus + d[7 + i]))
			bd+=" ${BUSC[i]#bus_} $(( d[7 + i] * 100 / (handled > 0 ? handled : 1) ))"
		done
		BUSPP=$(( bus * 100 / (handled > 0 ? handled : 1) ))
		FPW=$(( d[4] > 0 ? handled * 100 / d[4] : 0 ))	# 0: no multi-packet WQE
		extra="scx1 rx_xdp_tx_xmit +${d[3]} mpwqe +${d[4]} inlnw +${d[5]} full +${d[6]} rx_xdp_drop +${d[0]} rx_out_of_buffer +${d[2]} | scx0 rx_xdp_drop +${d[13]} rx_out_of_buffer +${d[14]} | scx1 bus bytes/frame $((BUSPP / 100)).$(printf %02d $((BUSPP % 100))) (x100 per counter:$bd) frames/mpwqe x100 $FPW" ;;
	esac
	RATE=$(( handled * 1000000 / usec )) PPS=$pps
	say "$(printf '%-16s %7s handled/s  pktgen %7s pps %9s us sent %s | %s' "$label" "$RATE" "$PPS" "$usec" "$count" "$extra")"
}

median() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }

read -r -a CFGS <<< "${SCX_BENCH_CONFIGS:-xdp-drop tc-drop veth-xdp xdp-drop-b tc-drop-b tx-on tx-off}"
say "warm-up ($WARMUP frames each):"
for c in "${CFGS[@]}"; do run "warmup $c" "$c" "$WARMUP"; done
declare -A R=() P=() B=() F=()
for ((r = 1; r <= REPS; r++)); do
	say "repetition $r:"
	for c in "${CFGS[@]}"; do
		run "$c" "$c" "$COUNT"
		R[$c]+=" $RATE"; P[$c]+=" $PPS"
		case $c in tx-*) B[$c]+=" $BUSPP"; F[$c]+=" $FPW" ;; esac
	done
done
declare -A M=()
for c in "${CFGS[@]}"; do
	# shellcheck disable=SC2086
	M[$c]=$(median ${R[$c]})
	# shellcheck disable=SC2086
	say "RESULT $(printf '%-11s' "$c") handled/s:${R[$c]} median ${M[$c]} | pktgen pps:${P[$c]} median $(median ${P[$c]})"
done
ratio_line() {   # TEXT A B [GOAL]
	[ -n "${M[$2]:-}" ] && [ -n "${M[$3]:-}" ] || return 0
	say "RESULT ratio $1: $(ratio "${M[$2]}" "${M[$3]}")${4:+ (goal >= $4)}"
}
ratio_line "XDP_DROP / tc matchall drop, burst 1" xdp-drop tc-drop 2.45
ratio_line "XDP_DROP / tc matchall drop, burst $BURST" xdp-drop-b tc-drop-b 2.45
ratio_line "softcx XDP_DROP / veth XDP_DROP, burst 1" xdp-drop veth-xdp 2
ratio_line "XDP_TX xdp_tx_mpwqe on / off, burst $BURST" tx-on tx-off
for c in tx-on tx-off; do
	[ -n "${B[$c]:-}" ] || continue
	# shellcheck disable=SC2086
	bm=$(median ${B[$c]})
	# shellcheck disable=SC2086
	fm=$(median ${F[$c]})
	say "RESULT $c scx1 bus bytes per reflected frame:${B[$c]} (x100) median $((bm / 100)).$(printf %02d $((bm % 100))); frames per multi-packet WQE (x100):${F[$c]} median $fm"
done
say "guest uptime at end: $(cut -d' ' -f1 /proc/uptime) s"

scx1_mode none
xdp_detach veth1 "$NS_V"
ip link del veth0 2>/dev/null || true
ip netns del "$NS_S" 2>/dev/null || true
ip netns del "$NS_V" 2>/dev/null || true
pg_cmd pgctrl reset
scx_unload
