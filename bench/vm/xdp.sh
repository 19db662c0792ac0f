#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM benchmark: native XDP on softcx, in one guest boot, interleaved. Runs
# inside the guest:
#
#   make -C tests/bpf && scripts/vm-run.sh --timeout 1800 bench/vm/xdp.sh
#
# With scripts/vm-run.sh --icount-percpu it ends with phase 4: exact
# instruction counts per frame (see phase 4 below; SCX_BENCH_E2E=0
# SCX_BENCH_RXCPU=0 SCX_BENCH_THREAD=off leave phase 4 alone).
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
#
# Two measurements of every configuration, in the same boot:
#
# End to end (phase 1, no probes): frames the receiver handled (xdp-drop: scx1
# rx_xdp_drop; tc-drop: scx1 rx_packets, which tc then drops; veth-xdp: veth1
# rx_queue_0_xdp_drops; tx: scx1 rx_xdp_tx_xmit) over pktgen's elapsed time;
# pktgen's own pps is printed too. Device drops (rx_out_of_buffer) are
# printed. For tx: scx1's bus bytes (every bus_* byte counter, RX placement
# included, which is the same on and off) per reflected frame, and frames per
# multi-packet WQE.
#
# Receiver CPU (phase 2, bpftrace bench/vm/rxcpu.bt attached once for the
# whole phase): the same runs again, timing every call of the receiver's NAPI
# poll function (softcx scx_napi_poll of scx1, veth_poll of veth1) with a
# kprobe + kretprobe pair, and, nested in scx1's polls, the device model's
# SQ doorbell handler (softcx::hw::sq_schedule: an XDP SQ doorbell runs the
# TX engine, the wire and scx0's RX engine synchronously; a real NIC costs
# the CPU one MMIO write there). CQ arm doorbells stay in the receiver's
# time (a real NIC costs an MMIO write per CQ arm too). The probes' own
# cost is calibrated right before every probed run with bench/vm/scxbt_cal.c
# (a near-empty syscall function, getpid, probed the same way: b = its
# apparent duration, an upper bound of the probe time that falls inside a
# measured window; C = the whole cost of a probe pair, probed minus unprobed
# loop) and subtracted, per run:
#   rx (with device model)   = poll ns - polls*b - doorbells*C
#   device model             = doorbell ns - doorbells*b
#   rx (without device model) = rx - device model   <- what a real NIC costs
# Rate = handled frames / rx (frames per receiver-CPU-second), and ns per
# frame. Polls that used the whole budget are counted: GRO's batched delivery
# (net.core.gro_normal_batch) runs after the poll function returns only for
# those, so with none the whole receive path is inside the window.
#
# Receiver on its own CPU (phase 3, no probes): the receiver's NAPI is made
# threaded (/sys/class/net/DEV/threaded = 1, scx1 and veth1) and every
# napi/DEV-* kthread is pinned to CPU SCX_BENCH_THREAD (1), while pktgen,
# scx0's TX path and the device model stay on CPU 0 (kpktgend_0). The device
# raises scx1's interrupt from CPU 0 and the kernel wakes the kthread on CPU
# 1, as a NIC's MSI-X vector would raise the softirq there; veth0's xmit wakes
# veth1's kthread the same way. Receiver CPU = the kthreads' on-CPU time
# (/proc/PID/schedstat, ns, the scheduler's own accounting: no probe). By
# default both receivers are polled from a timer (napi_defer_hard_irqs 100,
# gro_flush_timeout 1 ms; SCX_BENCH_THREAD_DEFER): without it a receiver
# that finds its ring empty sleeps and the next frame wakes it, a wake-up
# that costs about 20 us under TCG and would be most of a one-frame poll,
# while veth1's poll reschedules itself as long as its ring is not empty
# and hardly ever sleeps; with it every receiver takes what arrived in the
# last millisecond, the same for all of them, as a NIC's interrupt
# moderation does at high rates. The figures include the timer's wake-up
# once per poll,
# which stands in for the hard interrupt, minus scx1's emul_ns (softcx's emul_timing is on for this
# phase: the device model's time inside scx1's doorbells, the CQ arms and,
# for tx-on/off, the XDP_TX doorbells that run the emulated TX engine, the
# wire and scx0's RX engine); rate = handled frames / that time (printed
# with the device's time too). The receiver is not paced by the sender here:
# when it is slower it finds several frames per poll, so frames per poll
# (scx1 ch_poll; kthread time slices for both) are printed.
#
# Medians and ratios (end to end and receiver CPU): xdp-drop/tc-drop (burst 1
# and BURST), xdp-drop/veth-xdp, tx-on/tx-off; the goals are checked on the
# receiver-CPU rate without the device model. Summary:
# $SCX_RESULTS/xdp-summary.txt.
#
# Environment: SCX_BENCH_COUNT (200000), SCX_BENCH_WARMUP (50000),
# SCX_BENCH_REPS (3), SCX_BENCH_BURST (32), SCX_BENCH_CONFIGS (a subset of
# the configurations above, space-separated; default all), SCX_BENCH_RXCPU
# (1; 0 skips phase 2), SCX_BENCH_BT_WAIT (900: seconds bpftrace may take to
# attach under TCG), SCX_BENCH_THREAD (1: the CPU of phase 3; off skips it),
# SCX_BENCH_THREAD_DEFER (100:1000000: napi_defer_hard_irqs and
# gro_flush_timeout ns of scx1 and veth1 in phase 3; empty: not set),
# SCX_BENCH_E2E (1; 0 skips phase 1).
source "$(dirname "$0")/../../tests/vm/lib.sh"
source "$(dirname "$0")/icount-lib.sh"
need_cmd ip ethtool tc
RXCPU=${SCX_BENCH_RXCPU:-1}
[ "$RXCPU" == 0 ] || need_cmd bpftrace gcc
THCPU=${SCX_BENCH_THREAD:-1}
[ "$THCPU" == off ] || need_cmd taskset pgrep
THDEFER=${SCX_BENCH_THREAD_DEFER-100:1000000}
E2E=${SCX_BENCH_E2E:-1}

COUNT=${SCX_BENCH_COUNT:-200000}
WARMUP=${SCX_BENCH_WARMUP:-50000}
REPS=${SCX_BENCH_REPS:-3}
BURST=${SCX_BENCH_BURST:-32}
BT_WAIT=${SCX_BENCH_BT_WAIT:-900}
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
	pg_detach_all
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

# ---- receiver CPU probes (phase 2)
BTOUT=${SCX_RESULTS:-$SCX_TEST_OUT}/rxcpu-bpftrace.out
BTSEQ=0
declare -A BT=()
# bt_dump: make bpftrace print its cumulative sums, wait for them, parse them
# into BT[ns1] BT[polls1] ... BT[dm_ns] BT[cal_n] ...
bt_dump() {
	local l on=0 re='^@([a-z_]+)(\[([0-9]+)\])?: (-?[0-9]+)$' t
	BTSEQ=$((BTSEQ + 1))
	/tmp/scxbt_dump
	for ((t = 0; t < 600; t++)); do
		grep -qx "DUMP $BTSEQ" "$BTOUT" && break
		sleep 0.05
	done
	[ $t -lt 600 ] || fail "bpftrace did not answer dump $BTSEQ: $(tail -n 3 "$BTOUT" | tr '\n' ' ')"
	BT=()
	while IFS= read -r l; do
		if [ "$l" == "BEGINDUMP $BTSEQ" ]; then on=1; continue; fi
		[ $on -eq 1 ] || continue
		[ "$l" == "DUMP $BTSEQ" ] && break
		[[ "$l" =~ $re ]] && BT[${BASH_REMATCH[1]}${BASH_REMATCH[3]}]=${BASH_REMATCH[4]}
	done < "$BTOUT"
	return 0
}
BTK=(ns1 polls1 work1 full1 ns2 polls2 work2 full2 dm_ns dm_n cal_ns cal_n)
# bt_snap: BTV=(the values of BTK, in that order), from a new dump.
BTV=()
bt_snap() { local k; bt_dump; BTV=(); for k in "${BTK[@]}"; do BTV+=("${BT[$k]:-0}"); done; }

# calibrate: DPROBED (whole cost of a probe pair) or, without probes, DBASE;
# with probes also CALB (getpid's apparent duration).
calibrate() {   # LABEL PROBED(0|1) [N ROUNDS]
	local out p u x=() y=() i
	[ "$2" == 0 ] || { bt_snap; x=("${BTV[@]}"); }
	out=$(/tmp/scxbt_cal "${3:-20000}" "${4:-9}") || fail "scxbt_cal failed"
	read -r p u <<< "$out"
	if [ "$2" == 0 ]; then
		CALD=$(awk -v p="$p" -v u="$u" 'BEGIN { printf "%.1f", p - u }')
		say "$(printf '%-16s getpid %s ns, invalid syscall %s ns, difference %s ns (no probes)' "$1" "$p" "$u" "$CALD")"
		return 0
	fi
	bt_snap; y=("${BTV[@]}")
	CALD=$(awk -v p="$p" -v u="$u" 'BEGIN { printf "%.1f", p - u }')
	CALB=$(awk -v n="$((y[10] - x[10]))" -v c="$((y[11] - x[11]))" 'BEGIN { printf "%.1f", (c > 0 ? n / c : 0) }')
	say "$(printf '%-16s getpid %s ns, invalid syscall %s ns, difference %s ns (probed); apparent duration of the probed getpid %s ns over %s calls' "$1" "$p" "$u" "$CALD" "$CALB" "$((y[11] - x[11]))")"
}

# ---- receiver NAPI kthreads (phase 3)
th_dev() { case "$1" in veth-xdp) echo veth1 ;; *) echo scx1 ;; esac; }
th_on() {   # scx1 and veth1: threaded NAPI, polled from a timer per THDEFER
	local d dn dns
	for d in "scx1 $NS_S" "veth1 $NS_V"; do
		read -r dn dns <<< "$d"
		ip netns exec "$dns" sh -c "echo 1 > /sys/class/net/$dn/threaded" || fail "cannot make $dn's NAPI threaded"
		[ -n "$THDEFER" ] || continue
		ip netns exec "$dns" sh -c "echo ${THDEFER%%:*} > /sys/class/net/$dn/napi_defer_hard_irqs &&
			echo ${THDEFER#*:} > /sys/class/net/$dn/gro_flush_timeout" ||
			fail "cannot set $dn napi_defer_hard_irqs:gro_flush_timeout $THDEFER"
	done
}
th_off() {
	ip netns exec $NS_S sh -c "echo 0 > /sys/class/net/scx1/threaded; echo 0 > /sys/class/net/scx1/napi_defer_hard_irqs; echo 0 > /sys/class/net/scx1/gro_flush_timeout"
	ip netns exec $NS_V sh -c "echo 0 > /sys/class/net/veth1/threaded; echo 0 > /sys/class/net/veth1/napi_defer_hard_irqs; echo 0 > /sys/class/net/veth1/gro_flush_timeout"
}
th_pin() {   # DEV: pin every napi/DEV-* kthread to THCPU
	local p pids
	pids=$(pgrep "^napi/$1-") || fail "no napi/$1-* kthread: threaded NAPI is off"
	for p in $pids; do
		taskset -p -c "$THCPU" "$p" > /dev/null || fail "cannot pin napi kthread $p to CPU $THCPU"
	done
}
th_snap() {   # DEV: "on-CPU ns, time slices" summed over the napi/DEV-* kthreads
	local p ns=0 n=0 a w c
	for p in $(pgrep "^napi/$1-"); do
		read -r a w c < "/proc/$p/schedstat" || continue
		ns=$((ns + a)); n=$((n + c))
	done
	echo "$ns $n"
}
th_polls() {   # DEV: scx1's "ch_poll emul_ns", "0 0" for veth1
	[ "$1" == scx1 ] || { echo 0 0; return 0; }
	eth_dump scx1 $NS_S
	echo "$(eth_get ch_poll) $(eth_get emul_ns)"
}

# run LABEL CONFIG COUNT [PROBED]: sets RATE (handled frames/s) and PPS
# (pktgen's); with PROBED=1 also RXRAW "F polls work full ns dm_ns dm_n" for
# the receiver (bpftrace deltas, F the handled frames); with PROBED=2 (phase
# 3) THRAW "F ns slices polls emul_ns" (the receiver kthreads' deltas and
# scx1's emulated-device time).
run() {
	local label=$1 cfg=$2 count=$3 probed=${4:-0} dev mac burst=1 b a d=() i txt usec pps handled extra=''
	local x=() y=() k=1
	local re_pps='([0-9]+)pps' re_us='OK: ([0-9]+)\('
	case "$cfg" in
	veth-xdp) dev=veth0 mac=$MAC_V ;;
	xdp-drop|tc-drop) dev=scx0 mac=$MAC_S; scx1_mode "$cfg" ;;
	xdp-drop-b|tc-drop-b) dev=scx0 mac=$MAC_S burst=$BURST; scx1_mode "${cfg%-b}" ;;
	tx-on|tx-off) dev=scx0 mac=$MAC_S burst=$BURST; scx1_mode "$cfg" ;;
	esac
	pg_config "$dev" "$mac" "$count" "$burst"
	local thd tb=() ta=()
	if [ "$probed" == 2 ]; then
		thd=$(th_dev "$cfg")
		th_pin "$thd"
		read -r -a tb <<< "$(th_snap "$thd") $(th_polls "$thd")"
	fi
	# Probe cost, measured right before the run (the host's load drifts).
	[ "$probed" != 1 ] || calibrate "$label cal" 1 10000 5
	read -r -a b <<< "$(counters "$cfg")"
	[ "$probed" != 1 ] || { bt_snap; x=("${BTV[@]}"); }
	timeout 600 sh -c "echo start > $PG/pgctrl" || fail "pktgen on $dev did not finish"
	sleep 0.2
	[ "$probed" != 1 ] || { bt_snap; y=("${BTV[@]}"); }
	[ "$probed" != 2 ] || read -r -a ta <<< "$(th_snap "$thd") $(th_polls "$thd")"
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
	RATE=$(( handled * 1000000 / usec )) PPS=$pps HANDLED=$handled
	say "$(printf '%-16s %7s handled/s  pktgen %7s pps %9s us sent %s | %s' "$label" "$RATE" "$PPS" "$usec" "$count" "$extra")"
	[ "$probed" == 0 ] && return 0
	if [ "$probed" == 2 ]; then
		THRAW="$handled $((ta[0] - tb[0])) $((ta[1] - tb[1])) $((ta[2] - tb[2])) $((ta[3] - tb[3]))"
		# shellcheck disable=SC2086
		say "$(printf '%-16s rx thread: frames %s on-CPU ns %s time slices %s polls (ch_poll) %s scx1 emul_ns %s' "$label" $THRAW)"
		return 0
	fi
	[ "$cfg" == veth-xdp ] && k=2
	local o=$(( (k - 1) * 4 ))
	RXRAW="$CALB $CALD $handled $((y[o + 1] - x[o + 1])) $((y[o + 2] - x[o + 2])) $((y[o + 3] - x[o + 3])) $((y[o] - x[o])) $((y[8] - x[8])) $((y[9] - x[9]))"
	# shellcheck disable=SC2086
	say "$(printf '%-16s rx probes: b %s ns, probed-unprobed syscall %s ns | frames %s polls %s work %s full-budget polls %s poll ns %s | nested device model ns %s doorbells %s' "$label" $RXRAW)"
}

median() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }

read -r -a CFGS <<< "${SCX_BENCH_CONFIGS:-xdp-drop tc-drop veth-xdp xdp-drop-b tc-drop-b tx-on tx-off}"
if [ "$RXCPU" != 0 ]; then
	gcc -O2 -o /tmp/scxbt_cal "$(dirname "$0")/scxbt_cal.c" || fail "cannot build scxbt_cal"
	cp /bin/true /tmp/scxbt_dump
fi
declare -A R=() P=() B=() F=() X=() PR=()
CD0=() CD1=() CB=()
[ "$E2E" == 0 ] || say "phase 1: end to end, no probes"
[ "$E2E" == 0 ] || say "warm-up ($WARMUP frames each):"
[ "$E2E" == 0 ] || for c in "${CFGS[@]}"; do run "warmup $c" "$c" "$WARMUP"; done
for ((r = 1; r <= REPS && E2E != 0; r++)); do
	say "repetition $r:"
	for c in "${CFGS[@]}"; do
		run "$c" "$c" "$COUNT"
		R[$c]+=" $RATE"; P[$c]+=" $PPS"
		case $c in tx-*) B[$c]+=" $BUSPP"; F[$c]+=" $FPW" ;; esac
	done
done

if [ "$RXCPU" != 0 ]; then
	say "phase 2: receiver CPU (bpftrace $(bpftrace --version | cut -d' ' -f2), kprobe + kretprobe)"
	for r in 1 2 3; do calibrate "cal unprobed $r" 0; CD0+=("$CALD"); done
	: > "$BTOUT"
	t0=${EPOCHREALTIME/./}
	bpftrace -B none "$(dirname "$0")/rxcpu.bt" >> "$BTOUT" 2> "${BTOUT%.out}.err" &
	BTPID=$!
	for ((t = 0; t < BT_WAIT * 2; t++)); do
		grep -qx READY "$BTOUT" && break
		kill -0 $BTPID 2>/dev/null || fail "bpftrace exited: $(grep -v -e WARNING -e '~' -e '^ *$' "${BTOUT%.out}.err" | head -n 5 | tr '\n' ' ')"
		sleep 0.5
	done
	grep -qx READY "$BTOUT" || fail "bpftrace not attached after ${BT_WAIT}s"
	say "bpftrace attached after $(( (${EPOCHREALTIME/./} - t0) / 1000000 )) s"
	say "warm-up with probes ($WARMUP frames each):"
	for c in "${CFGS[@]}"; do run "warmup $c" "$c" "$WARMUP" 1; done
	for ((r = 1; r <= REPS; r++)); do
		say "repetition $r (probed):"
		for c in "${CFGS[@]}"; do
			run "$c" "$c" "$COUNT" 1
			X[$c]+="${X[$c]:+,}$RXRAW"; PR[$c]+=" $RATE"
			read -r cb cd _ <<< "$RXRAW"; CB+=("$cb"); CD1+=("$cd")
		done
	done
	kill -INT $BTPID; wait $BTPID || true
	for r in 4 5 6; do calibrate "cal unprobed $r" 0; CD0+=("$CALD"); done
fi

declare -A TX=() TP=()
if [ "$THCPU" != off ]; then
	say "phase 3: receiver NAPI threaded on CPU $THCPU, on-CPU time from /proc/PID/schedstat (no probes)"
	th_on
	echo 1 > /sys/module/softcx/parameters/emul_timing || fail "cannot turn softcx emul_timing on"
	[ -z "$THDEFER" ] || say "phase 3: scx1 and veth1 napi_defer_hard_irqs:gro_flush_timeout $THDEFER (polled from a timer)"
	say "warm-up threaded ($WARMUP frames each):"
	for c in "${CFGS[@]}"; do run "warmup $c" "$c" "$WARMUP" 2; done
	for ((r = 1; r <= REPS; r++)); do
		say "repetition $r (threaded receiver):"
		for c in "${CFGS[@]}"; do
			run "$c" "$c" "$COUNT" 2
			TX[$c]+="${TX[$c]:+,}$THRAW"; TP[$c]+=" $RATE"
		done
	done
	th_off
	echo 0 > /sys/module/softcx/parameters/emul_timing
fi

# Phase 4 (booted with scripts/vm-run.sh --icount-percpu): exact instruction
# counts, with the receivers laid out as in phase 3 (threaded NAPI on CPU 1,
# timer-polled) and this script on CPU 0 beside pktgen, so that vCPU 1 runs
# the receiver only; emul_timing off. Per configuration one warm-up and
# SCX_BENCH_IC_REPS (2) pairs of SCX_BENCH_IC_N1 (20000) and SCX_BENCH_IC_N2
# (60000) frames; receiver instructions per handled frame = vCPU 1's minus
# the device model's there (bench/icount/icount.py, rx1-* configurations).
if ic_on; then
	[ "$THCPU" != off ] || THCPU=1
	need_cmd taskset pgrep
	say "phase 4: instruction counts (bench/icount), receiver NAPI threaded on CPU $THCPU${THDEFER:+, napi_defer_hard_irqs:gro_flush_timeout $THDEFER}, this script on CPU 0"
	[ "$THCPU" == 1 ] || fail "phase 4 needs the receiver on CPU 1 (SCX_BENCH_THREAD=1)"
	th_on
	taskset -p -c 0 $$ > /dev/null || fail "cannot pin the benchmark to CPU 0"
	ic_run() { run "icount $1" "$1" "$2" 2; IC_HANDLED=$HANDLED; }
	for c in "${CFGS[@]}"; do
		run "icount warmup $c" "$c" "$WARMUP" 2
		for ((r = 1; r <= ${SCX_BENCH_IC_REPS:-2}; r++)); do
			ic_pair "rx1-$c" "${SCX_BENCH_IC_N1:-20000}" "${SCX_BENCH_IC_N2:-60000}" ic_run "$c"
		done
	done
	th_off
	taskset -p -c 0-$(($(nproc) - 1)) $$ > /dev/null || true
	ic_report "bench/vm/xdp.sh phase 4, guest $(uname -r), $(date -u '+%Y-%m-%d %H:%M UTC')" \
		--ratio "tc matchall drop / XDP_DROP, burst 1, receiver per frame (goal: XDP_DROP <= 0.33x)=rx1-tc-drop/rx1-xdp-drop:rx_cpu1:3.03" \
		--ratio "tc matchall drop / XDP_DROP, burst $BURST, receiver per frame (goal: XDP_DROP <= 0.33x)=rx1-tc-drop-b/rx1-xdp-drop-b:rx_cpu1:3.03" \
		--ratio "veth XDP_DROP / softcx XDP_DROP, burst 1, receiver per frame=rx1-veth-xdp/rx1-xdp-drop:rx_cpu1" \
		--ratio "XDP_TX xdp_tx_mpwqe off / on, burst $BURST, receiver per frame=rx1-tx-off/rx1-tx-on:rx_cpu1" |
		while IFS= read -r l; do say "$l"; done
	say "phase 4 report (tables, top-30 functions): $IC_OUT/report.txt"
fi

declare -A M=()
for c in "${CFGS[@]}"; do
	[ -n "${R[$c]:-}" ] || continue
	# shellcheck disable=SC2086
	M[$c]=$(median ${R[$c]})
	# shellcheck disable=SC2086
	say "RESULT $(printf '%-11s' "$c") end-to-end handled/s:${R[$c]} median ${M[$c]} | pktgen pps:${P[$c]} median $(median ${P[$c]})"
done

# Receiver CPU: per configuration and repetition, the corrected rates.
declare -A RI=() RE=() NI=() NE=() RW=()
if [ "$RXCPU" != 0 ]; then
	read -r BIAS PAIR D0 <<< "$(printf '%s\n' "${CB[*]}" "${CD1[*]}" "${CD0[*]}" | awk '
		function med(s,   a, n, i, j, t) { n = split(s, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
			return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
		NR == 1 { b = med($0) } NR == 2 { d1 = med($0) } NR == 3 { d0 = med($0) }
		END { c = d1 - d0; if (c < b) c = b; printf "%.1f %.1f %.1f\n", b, c, d0 }')"
	say "RESULT probe calibration (one before every probed run; each run is corrected with its own): in-window cost per probed call b: median $BIAS ns (apparent duration of the probed getpid, an upper bound: ${CB[*]}); whole cost of a probe pair C: median $PAIR ns (getpid - invalid syscall with probes: ${CD1[*]}; minus the median without probes, $D0 ns, of ${CD0[*]}; at least b)"
	for c in "${CFGS[@]}"; do
		[ -n "${X[$c]:-}" ] || continue
		out=$(awk -v runs="${X[$c]}" -v d0="$D0" 'BEGIN {
			n = split(runs, R, ",")
			for (i = 1; i <= n; i++) {
				split(R[i], v, " ")	# b cal-diff F polls work full ns dm_ns dm_n
				b = v[1]; C = v[2] - d0; if (C < b) C = b
				F = v[3]; P = v[4]; W = v[5]; FU = v[6]; T = v[7]; DT = v[8]; D = v[9]
				inc = T - P * b - D * C; dm = DT - D * b; exc = inc - dm
				pr = pr sprintf(" | rep %d: frames %d polls %d (%.2f frames/poll, %d full) b %.0f C %.0f raw %.0f ns/frame, probes %.0f, device model %.0f, rx %.0f ns/frame with device model, %.0f without", i, F, P, (P ? W / P : 0), FU, b, C, T / F, (P * b + D * C) / F, dm / F, inc / F, exc / F)
				ri = ri " " int(F * 1e9 / inc); re = re " " int(F * 1e9 / exc); rw = rw " " int(F * 1e9 / T)
				ni = ni " " sprintf("%.0f", inc / F); ne = ne " " sprintf("%.0f", exc / F)
			}
			printf "%s\n%s\n%s\n%s\n%s\n%s\n", substr(ri, 2), substr(re, 2), substr(ni, 2), substr(ne, 2), substr(rw, 2), substr(pr, 4)
		}')
		{ read -r "RI[$c]"; read -r "RE[$c]"; read -r "NI[$c]"; read -r "NE[$c]"; read -r "RW[$c]"; read -r detail; } <<< "$out"
		say "RESULT $(printf '%-11s' "$c") rx-cpu detail: $detail"
		# shellcheck disable=SC2086
		say "RESULT $(printf '%-11s' "$c") rx-cpu frames/s without device model: ${RE[$c]} median $(median ${RE[$c]}) (ns/frame ${NE[$c]}) | with device model: ${RI[$c]} median $(median ${RI[$c]}) (ns/frame ${NI[$c]}) | uncorrected (probes included): ${RW[$c]} median $(median ${RW[$c]}) | pktgen-measured handled/s with probes:${PR[$c]}"
	done
fi

declare -A RT=() RTW=()
for c in "${CFGS[@]}"; do
	[ -n "${TX[$c]:-}" ] || continue
	out=$(awk -v runs="${TX[$c]}" 'BEGIN {
		n = split(runs, R, ",")
		for (i = 1; i <= n; i++) {
			split(R[i], v, " ")	# F ns slices polls emul_ns
			x = v[2] - v[5]	# without the emulated device
			rt = rt " " (x > 0 ? int(v[1] * 1e9 / x) : 0)
			rw = rw " " (v[2] > 0 ? int(v[1] * 1e9 / v[2]) : 0)
			pr = pr sprintf(" | rep %d: frames %d, %.0f ns/frame of which device %.0f, %.2f frames/time slice%s", i, v[1], (v[1] ? v[2] / v[1] : 0), (v[1] ? v[5] / v[1] : 0), (v[3] ? v[1] / v[3] : 0), (v[4] ? sprintf(", %.2f frames/poll", v[1] / v[4]) : ""))
		}
		printf "%s\n%s\n%s\n", substr(rt, 2), substr(rw, 2), substr(pr, 4)
	}')
	{ read -r "RT[$c]"; read -r "RTW[$c]"; read -r detail; } <<< "$out"
	# shellcheck disable=SC2086
	say "RESULT $(printf '%-11s' "$c") rx-thread frames per receiver-CPU-second without the emulated device: ${RT[$c]} median $(median ${RT[$c]}) | with it: ${RTW[$c]} median $(median ${RTW[$c]}) | $detail | pktgen-measured handled/s:${TP[$c]}"
done

ratio_line() {   # TEXT A B [GOAL]
	local e='-' i x w met
	[ -z "${M[$2]:-}" ] || [ -z "${M[$3]:-}" ] || e=$(ratio "${M[$2]}" "${M[$3]}")
	if [ -n "${RE[$2]:-}" ] && [ -n "${RE[$3]:-}" ]; then
		# shellcheck disable=SC2086
		x=$(ratio "$(median ${RE[$2]})" "$(median ${RE[$3]})")
		# shellcheck disable=SC2086
		i=$(ratio "$(median ${RI[$2]})" "$(median ${RI[$3]})")
		# shellcheck disable=SC2086
		w=$(ratio "$(median ${RW[$2]})" "$(median ${RW[$3]})")
		met=''
		[ -z "${4:-}" ] || met=$(awk -v x="$x" -v g="$4" 'BEGIN { print (x >= g ? "MET" : "NOT MET") }')
		say "RESULT ratio $1: receiver CPU (no device model) $x${4:+ (goal >= $4: $met)}; receiver CPU with device model $i; receiver CPU uncorrected for probes $w; end to end $e"
	elif [ "$e" != - ]; then
		say "RESULT ratio $1: end to end $e${4:+ (goal >= $4; no receiver-CPU figure)}"
	fi
	if [ -n "${RT[$2]:-}" ] && [ -n "${RT[$3]:-}" ]; then
		# shellcheck disable=SC2086
		x=$(ratio "$(median ${RT[$2]})" "$(median ${RT[$3]})")
		met=''
		[ -z "${4:-}" ] || met=$(awk -v x="$x" -v g="$4" 'BEGIN { print (x >= g ? "MET" : "NOT MET") }')
		# shellcheck disable=SC2086
		w=$(ratio "$(median ${RTW[$2]})" "$(median ${RTW[$3]})")
		say "RESULT ratio $1: receiver on its own CPU (threaded NAPI, no probes), without the emulated device $x${4:+ (goal >= $4: $met)}; with it $w"
	fi
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
