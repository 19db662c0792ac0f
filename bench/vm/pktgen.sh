#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM benchmark: pktgen 64-byte frames (pkt_size 60 = what pktgen puts in the
# skb; the 4-byte FCS is not in it) scx0 -> scx1 and veth0 -> veth1 in the
# same guest, interleaved, and their ratio. Runs inside the guest:
#
#   scripts/vm-run.sh --timeout 900 bench/vm/pktgen.sh
#
# Layout: the senders scx0 and veth0 are up in the root netns without
# addresses; the receivers scx1 and veth1 are up, each in its own netns with
# no IP address (lo only). pktgen sends UDP 10.99.0.1:9 -> 10.99.0.2:9 to the
# receiver's MAC, so the receiving stack takes each frame up to IPv4
# (eth_type_trans -> GRO/netif_receive_skb -> ip_rcv), finds no route and drops
# it (counted in the receiver netns' Ip InAddrErrors). softcx is loaded with
# channels=1; veth has one queue: one flow, one CPU (pktgen's kpktgend_0 on CPU 0
# also runs the receive softirq: softcx's device model delivers synchronously
# from the doorbell and veth uses netif_rx on the sending CPU).
#
# pktgen settings, the same on both devices: count COUNT, clone_skb 0,
# burst 1, delay 0, flag NO_TIMESTAMP, one fixed UDP flow. veth does not set
# IFF_TX_SKB_SHARING, so pktgen refuses clone_skb > 0 and burst > 1 on it (the
# script checks and prints pktgen's answer). softcx accepts both; one extra
# softcx-only configuration (burst BURST: the same skb sent BURST times with
# xmit_more, one doorbell per burst) is measured for information, outside the
# ratio.
#
# Sequence: one warm-up run per device (WARMUP packets), then REPS
# repetitions of: softcx, veth, softcx with burst. Prints each rate (pps from
# pktgen's Result line: packets pktgen handed to the driver per second), the
# delivered rate (the receiver's rx_packets delta over pktgen's elapsed time:
# lower when the receiver drops), the medians, the ratios softcx/veth, and
# the receiver-side deltas that show where the packets went.
#
# Environment: SCX_BENCH_COUNT (300000), SCX_BENCH_WARMUP (100000),
# SCX_BENCH_REPS (3), SCX_BENCH_BURST (32; 0 = skip the extra configuration).
source "$(dirname "$0")/../../tests/vm/lib.sh"
need_cmd ip ethtool

COUNT=${SCX_BENCH_COUNT:-300000}
WARMUP=${SCX_BENCH_WARMUP:-100000}
REPS=${SCX_BENCH_REPS:-3}
BURST=${SCX_BENCH_BURST:-32}
SIZE=60
NS_S=bench-scx
NS_V=bench-veth
SRC_IP=10.99.0.1
DST_IP=10.99.0.2
OUTF=${SCX_RESULTS:-$SCX_TEST_OUT}/pktgen-summary.txt

say() { log "$*"; echo "$*" >> "$OUTF"; }
: > "$OUTF"

say "guest kernel $(uname -r), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
say "guest uptime at start: $(cut -d' ' -f1 /proc/uptime) s"

# ------------------------------------------------------------------ setup
source "$(dirname "$0")/setup.sh"
bench_setup_pairs
say "softcx: scx0 -> scx1 ($MAC_S, netns $NS_S), channels=1, tx queues $(ls -d /sys/class/net/scx0/queues/tx-* | wc -l)"
say "softcx private flags (module defaults): $(ethtool --show-priv-flags scx0 2>/dev/null | sed -n 's/^\([a-z_0-9]*\) *: *\([a-z]*\)$/\1=\2/p' | tr '\n' ' ')"
say "veth:   veth0 -> veth1 ($MAC_V, netns $NS_V), tx queues $(ls -d /sys/class/net/veth0/queues/tx-* | wc -l)"

# ------------------------------------------------------------------ pktgen
# pg_try FILE CMD: write one command; prints pktgen's answer (its Result line,
# or the write error when pktgen refuses the command); status 1 if not OK.
pg_try() {
	local f=$PG/$1 l err; shift
	if ! err=$( { echo "$*" > "$f"; } 2>&1 ); then
		echo "refused (${err##*: })"
		return 1
	fi
	while IFS= read -r l; do
		if [[ "$l" == *"Result:"* ]]; then
			echo "${l#*Result: }"
			[[ "$l" == *"Result: OK"* ]]
			return
		fi
	done < "$f"
	echo "no result line"
	return 1
}

# pg_config DEV DST_MAC COUNT CLONE BURST
pg_config() {
	local dev=$1 mac=$2 count=$3 clone=$4 burst=$5
	pg_cmd pgctrl reset
	pg_cmd kpktgend_0 rem_device_all
	pg_cmd kpktgend_0 add_device "$dev"
	pg_cmd "$dev" count "$count"
	pg_cmd "$dev" clone_skb "$clone"
	pg_cmd "$dev" burst "$burst"
	pg_cmd "$dev" pkt_size "$SIZE"
	pg_cmd "$dev" delay 0
	pg_cmd "$dev" flag NO_TIMESTAMP
	pg_cmd "$dev" dst_mac "$mac"
	pg_cmd "$dev" src_min "$SRC_IP"
	pg_cmd "$dev" src_max "$SRC_IP"
	pg_cmd "$dev" dst_min "$DST_IP"
	pg_cmd "$dev" dst_max "$DST_IP"
	pg_cmd "$dev" udp_src_min 9
	pg_cmd "$dev" udp_src_max 9
	pg_cmd "$dev" udp_dst_min 9
	pg_cmd "$dev" udp_dst_max 9
}

# What veth accepts: clone_skb > 0 and burst > 1 need IFF_TX_SKB_SHARING.
pg_cmd pgctrl reset
pg_cmd kpktgend_0 rem_device_all
pg_cmd kpktgend_0 add_device veth0
r1=$(pg_try veth0 clone_skb 1000) || true
r2=$(pg_try veth0 burst "${BURST:-32}") || true
say "veth0: 'clone_skb 1000' -> $r1; 'burst ${BURST:-32}' -> $r2"
pg_cmd kpktgend_0 add_device scx0
r1=$(pg_try scx0 clone_skb 1000) || true
r2=$(pg_try scx0 burst "${BURST:-32}") || true
say "scx0:  'clone_skb 1000' -> $r1; 'burst ${BURST:-32}' -> $r2"

# Receiver-side counters, one line: link rx_packets, link rx_dropped, Ip
# InReceives, Ip InAddrErrors (receiver's netns), and for scx1 the ethtool -S
# rx_packets and rx_out_of_buffer (device drops: no RX buffer posted).
# ethtool -S first: it queries the device's counters, which ip -s link
# otherwise shows as of the last periodic refresh.
rx_counters() {   # DEV NS
	local hdr= val= i l inr=0 iae=0 erx=0 eoob=0
	local -a h v
	if [ "$1" == scx1 ]; then
		eth_dump scx1 "$2"
		erx=$(eth_get rx_packets); eoob=$(eth_get rx_out_of_buffer)
	fi
	link_dump "$1" "$2"
	while IFS= read -r l; do
		[[ "$l" == Ip:* ]] || continue
		if [ -z "$hdr" ]; then hdr=$l; else val=$l; fi
	done < <(ip netns exec "$2" cat /proc/net/snmp)
	read -r -a h <<< "$hdr"; read -r -a v <<< "$val"
	for i in "${!h[@]}"; do
		[ "${h[$i]}" == InReceives ] && inr=${v[$i]}
		[ "${h[$i]}" == InAddrErrors ] && iae=${v[$i]}
	done
	echo "${LINK[rx_packets]} ${LINK[rx_dropped]} $inr $iae $erx $eoob"
}

# One run: pg_run LABEL DEV RXDEV NS MAC COUNT CLONE BURST; sets PPS.
pg_run() {
	local label=$1 dev=$2 rxdev=$3 ns=$4 mac=$5 count=$6 clone=$7 burst=$8
	local b a rc=0 txt pps= usec= sofar= errors= re_pps='([0-9]+)pps' re_us='OK: ([0-9]+)\(' \
		re_sofar='pkts-sofar: ([0-9]+)' re_err='errors: ([0-9]+)' extra=
	pg_config "$dev" "$mac" "$count" "$clone" "$burst"
	read -r -a b <<< "$(rx_counters "$rxdev" "$ns")"
	timeout 300 sh -c "echo start > $PG/pgctrl" || rc=$?
	if [ $rc -ne 0 ]; then
		echo stop > $PG/pgctrl 2>/dev/null || true
		fail "pktgen on $dev did not finish within 300 s (status $rc)"
	fi
	sleep 0.2
	read -r -a a <<< "$(rx_counters "$rxdev" "$ns")"
	txt=$(< "$PG/$dev")
	[[ "$txt" =~ $re_pps ]] && pps=${BASH_REMATCH[1]}
	[[ "$txt" =~ $re_us ]] && usec=${BASH_REMATCH[1]}
	[[ "$txt" =~ $re_sofar ]] && sofar=${BASH_REMATCH[1]}
	[[ "$txt" =~ $re_err ]] && errors=${BASH_REMATCH[1]}
	[ -n "$pps" ] || fail "pktgen $dev: no pps in: $(grep -A2 Result <<< "$txt" | tr '\n' ' ')"
	[ "$rxdev" == scx1 ] &&
		extra=" | ethtool rx_packets +$((a[4] - b[4])) rx_out_of_buffer +$((a[5] - b[5]))"
	PPS=$pps
	# Delivered rate: what reached the receiver over pktgen's elapsed time.
	RXPPS=$(( (a[0] - b[0]) * 1000000 / (usec > 0 ? usec : 1) ))
	say "$(printf '%-14s %7s pps (delivered %7s pps) %9s us, sent %s, tx errors %s | %s: rx_packets +%d rx_dropped +%d | netns Ip InReceives +%d InAddrErrors +%d%s' \
		"$label" "$pps" "$RXPPS" "$usec" "$sofar" "$errors" "$rxdev" \
		$((a[0] - b[0])) $((a[1] - b[1])) $((a[2] - b[2])) $((a[3] - b[3])) "$extra")"
}

median3() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }

say "pktgen: pkt_size $SIZE (+4 FCS = 64-byte frames), count $COUNT, clone_skb 0, burst 1, delay 0, NO_TIMESTAMP, 1 flow, kpktgend_0"
say "warm-up ($WARMUP packets each):"
pg_run "warmup softcx" scx0 scx1 "$NS_S" "$MAC_S" "$WARMUP" 0 1
pg_run "warmup veth" veth0 veth1 "$NS_V" "$MAC_V" "$WARMUP" 0 1

S=() V=() B=() SD=() VD=() BD=()
for ((r = 1; r <= REPS; r++)); do
	say "repetition $r:"
	pg_run "softcx" scx0 scx1 "$NS_S" "$MAC_S" "$COUNT" 0 1; S+=("$PPS"); SD+=("$RXPPS")
	pg_run "veth" veth0 veth1 "$NS_V" "$MAC_V" "$COUNT" 0 1; V+=("$PPS"); VD+=("$RXPPS")
	if [ "$BURST" -gt 1 ]; then
		pg_run "softcx b$BURST" scx0 scx1 "$NS_S" "$MAC_S" "$COUNT" 0 "$BURST"; B+=("$PPS"); BD+=("$RXPPS")
	fi
done

ms=$(median3 "${S[@]}"); mv=$(median3 "${V[@]}")
msd=$(median3 "${SD[@]}"); mvd=$(median3 "${VD[@]}")
ratio=$(awk -v s="$ms" -v v="$mv" 'BEGIN { printf "%.3f", s / v }')
ratiod=$(awk -v s="$msd" -v v="$mvd" 'BEGIN { printf "%.3f", (v > 0 ? s / v : 0) }')
say "RESULT softcx pktgen pps: ${S[*]} median $ms"
say "RESULT veth   pktgen pps: ${V[*]} median $mv"
say "RESULT ratio softcx/veth (pktgen pps medians): $ratio"
say "RESULT softcx delivered pps: ${SD[*]} median $msd"
say "RESULT veth   delivered pps: ${VD[*]} median $mvd"
say "RESULT ratio softcx/veth (delivered pps medians): $ratiod"
if [ ${#B[@]} -gt 0 ]; then
	say "RESULT softcx burst $BURST (information, not in the ratio): pktgen pps ${B[*]} median $(median3 "${B[@]}"); delivered pps ${BD[*]} median $(median3 "${BD[@]}")"
fi
eth_dump scx1 "$NS_S"
say "scx1 ethtool -S at the end: rx_packets $(eth_get rx_packets) rx_bytes $(eth_get rx_bytes)"
say "guest uptime at end: $(cut -d' ' -f1 /proc/uptime) s"

# Leave the guest clean (the VM is thrown away anyway).
ip link del veth0 2>/dev/null || true
ip netns del "$NS_S" 2>/dev/null || true
ip netns del "$NS_V" 2>/dev/null || true
pg_cmd pgctrl reset
scx_unload
