#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM benchmark: skb_tx_mpwqe on vs off measured at the same time, so that
# whatever the host takes from the guest hits both alike. softcx nr_pairs=2
# channels=1: scx0 -> scx1 and scx2 -> scx3, the receivers in netns of their
# own with xdp_drop.o native (no address). Two pktgen threads, kpktgend_0 on
# CPU 0 sending on scx0 and kpktgend_1 on CPU 1 sending on scx2: 64-byte
# frames (pkt_size 60), one UDP flow each, burst BURST, clone_skb 0, delay 0,
# NO_TIMESTAMP, without end. Each sender's CPU also runs its device model and
# its receiver's NAPI (the device raises the interrupt where the doorbell
# rang), so the two halves are alike but for the flag. Runs inside the guest:
#
#   scripts/vm-run.sh --timeout 1200 bench/vm/mpwqe-ab.sh
#
# Per round: one port has skb_tx_mpwqe on, the other off; both send for
# WARM seconds, then tx_packets of both are read at the start and the end of
# the same SECS-second window: rate = delta / window. Rounds alternate which
# port (which CPU) has the flag on, so each pair of rounds cancels any
# difference between the two CPUs; the ratio on/off of a pair is the
# geometric mean of its two rounds' ratios. Prints every round, and the
# median over pairs. Also the pps of sender CPU without the emulated device
# (emul_timing=1): window minus each sender port's emul_ns delta.
# Summary: $SCX_RESULTS/mpwqe-ab-summary.txt.
#
# Environment: SCX_BENCH_ROUNDS (8, even), SCX_BENCH_SECS (3),
# SCX_BENCH_WARM (1), SCX_BENCH_BURST (32), SCX_BENCH_CLONE (0: pktgen builds
# one skb per burst; N: reuses it for N bursts).
source "$(dirname "$0")/../../tests/vm/lib.sh"
need_cmd ip ethtool awk

ROUNDS=${SCX_BENCH_ROUNDS:-8}
SECS=${SCX_BENCH_SECS:-3}
WARM=${SCX_BENCH_WARM:-1}
BURST=${SCX_BENCH_BURST:-32}
CLONE=${SCX_BENCH_CLONE:-0}
OUTF=${SCX_RESULTS:-$SCX_TEST_OUT}/mpwqe-ab-summary.txt
say() { log "$*"; echo "$*" >> "$OUTF"; }
: > "$OUTF"
[ "$(nproc)" -ge 2 ] || fail "needs 2 CPUs"

say "guest kernel $(uname -r), $(nproc) CPUs"
modprobe pktgen
bpf_build
scx_load channels=1 nr_pairs=2 emul_timing=1
for p in "scx0 scx1 bench-ab1" "scx2 scx3 bench-ab3"; do
	read -r tx rx ns <<< "$p"
	ns_create "$ns"
	sysctl -qw "net.ipv6.conf.$tx.disable_ipv6=1"
	ip link set "$rx" netns "$ns"
	ip link set "$tx" up
	ip -n "$ns" link set "$rx" up
	wait_carrier "$tx"
	wait_carrier "$rx" "$ns"
	xdp_attach "$rx" "$ns" "$BPF/xdp_drop.o" xdpdrv
done
MAC1=$(dev_mac scx1 bench-ab1)
MAC3=$(dev_mac scx3 bench-ab3)

pg_dev() {   # THREAD DEV MAC
	pg_cmd "$1" rem_device_all
	pg_cmd "$1" add_device "$2"
	pg_cmd "$2" count 0
	pg_cmd "$2" clone_skb "$CLONE"
	pg_cmd "$2" burst "$BURST"
	pg_cmd "$2" pkt_size 60
	pg_cmd "$2" delay 0
	pg_cmd "$2" flag NO_TIMESTAMP
	pg_cmd "$2" dst_mac "$3"
	pg_cmd "$2" src_min 10.99.0.1
	pg_cmd "$2" src_max 10.99.0.1
	pg_cmd "$2" dst_min 10.99.0.2
	pg_cmd "$2" dst_max 10.99.0.2
	pg_cmd "$2" udp_src_min 9
	pg_cmd "$2" udp_src_max 9
	pg_cmd "$2" udp_dst_min 9
	pg_cmd "$2" udp_dst_max 9
}

set_flag() {   # DEV on|off
	[ "$(ethtool --show-priv-flags "$1" | sed -n 's/^skb_tx_mpwqe *: *//p')" == "$2" ] && return 0
	ethtool --set-priv-flags "$1" skb_tx_mpwqe "$2"
	wait_carrier "$1"
}

snap() {   # DEV: "tx_packets tx_mpwqe_pkts emul_ns"
	eth_dump "$1"
	echo "$(eth_get tx_packets) $(eth_get tx_mpwqe_pkts) $(eth_get emul_ns)"
}

PAIRS=() SPAIRS=()
say "pktgen: 2 threads (CPU 0: scx0, CPU 1: scx2), pkt_size 60 (+4 FCS), burst $BURST, clone_skb $CLONE, delay 0, 1 flow each; receivers xdp_drop; window ${SECS}s after ${WARM}s"
for ((r = 1; r <= ROUNDS; r++)); do
	if [ $((r % 2)) -eq 1 ]; then on=scx0 off=scx2; else on=scx2 off=scx0; fi
	set_flag "$on" on
	set_flag "$off" off
	pg_cmd pgctrl reset
	pg_dev kpktgend_0 scx0 "$MAC1"
	pg_dev kpktgend_1 scx2 "$MAC3"
	bg_start sh -c "echo start > $PG/pgctrl"
	pg=$BG_PID
	sleep "$WARM"
	read -r a0 m0 e0 <<< "$(snap "$on")"; read -r b0 n0 f0 <<< "$(snap "$off")"
	t0=${EPOCHREALTIME/./}
	sleep "$SECS"
	read -r a1 m1 e1 <<< "$(snap "$on")"; read -r b1 n1 f1 <<< "$(snap "$off")"
	t1=${EPOCHREALTIME/./}
	echo stop > $PG/pgctrl
	wait "$pg" 2>/dev/null || true
	us=$((t1 - t0))
	[ $((m1 - m0)) -gt 0 ] || fail "round $r: $on sent no MPWQE packet with skb_tx_mpwqe on"
	[ $((n1 - n0)) -eq 0 ] || fail "round $r: $off sent MPWQE packets with skb_tx_mpwqe off"
	read -r pon poff ratio son soff sratio <<< "$(awk -v a=$((a1 - a0)) -v b=$((b1 - b0)) -v us="$us" \
		-v ea=$((e1 - e0)) -v eb=$((f1 - f0)) 'BEGIN {
		pa = a * 1e6 / us; pb = b * 1e6 / us
		sa = a * 1e9 / (us * 1000 - ea); sb = b * 1e9 / (us * 1000 - eb)
		printf "%d %d %.4f %d %d %.4f\n", pa, pb, pa / pb, sa, sb, sa / sb }')"
	say "$(printf 'round %d: on %s %d pps, off %s %d pps, ratio %s | sender CPU without the device: on %d, off %d, ratio %s' \
		"$r" "$on" "$pon" "$off" "$poff" "$ratio" "$son" "$soff" "$sratio")"
	if [ $((r % 2)) -eq 1 ]; then prev=$ratio sprev=$sratio; else
		PAIRS+=("$(awk -v x="$prev" -v y="$ratio" 'BEGIN { printf "%.4f", sqrt(x * y) }')")
		SPAIRS+=("$(awk -v x="$sprev" -v y="$sratio" 'BEGIN { printf "%.4f", sqrt(x * y) }')")
	fi
done
med() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
say "RESULT pairs of rounds (flag on CPU 0, then on CPU 1), ratio on/off: ${PAIRS[*]}; median $(med "${PAIRS[@]}")"
say "RESULT sender CPU without the emulated device, ratio on/off: ${SPAIRS[*]}; median $(med "${SPAIRS[@]}")"
pg_cmd pgctrl reset
ip netns del bench-ab1 2>/dev/null || true
ip netns del bench-ab3 2>/dev/null || true
scx_unload
