#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 4
# vm-timeout: 900
#
# Defect 1's regression test: frames redirected into another port
# (ndo_xdp_xmit) belong to the page_pool of the RQ they were received on;
# the redirect SQ's completion, in the target port's NAPI on whatever CPU,
# must not recycle them into that pool's lockless per-CPU cache.
# nr_pairs=2 channels=2 on 4 vCPUs: pktgen from 3 threads (3 CPUs, each its
# own sequence numbers) on scx0 to scx1, where xdp_redirect_map.o sends
# every frame to scx3 (devmap); scx3 completes them in its NAPI, threaded
# (kthreads) and then in softirq; the frames arrive at scx2, where
# tc_check.o verifies each one (MACs, IPv4 header and checksum, lengths,
# pktgen magic, zero payload) and sums the sequence numbers of the intact
# ones. Paced (40 us between a thread's packets): exact counts everywhere,
# every frame intact, sequence sum
# 3 * N(N+1)/2 (no frame lost, duplicated or replaced by another's page);
# a paced phase in which scx1's RQ or scx3's SQ still filled for a moment
# (a NAPI starved of CPU under TCG: rx_out_of_buffer, tx_xdp_full) must be
# exact up to those counted drops, and at least one paced phase must be
# complete. scx1's RX ring is 4096 so that such a stall rarely drops.
# Flood (burst 8): the chain adds up exactly (scx1 redirected = scx3 posted
# + refused; scx3 posted = scx2 received + dropped), no damaged frame.
# run-all then checks the kernel log (Bad page state, page_pool, WARN) and
# that every pool drains.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool
bpf_build

THREADS=3
EXACT=0
N=${SCX_REDIR_N:-1500}
FLOOD=${SCX_REDIR_FLOOD:-30000}
[ "$(nproc)" -ge 4 ] || fail "needs 4 vCPUs (# vm-smp: 4), have $(nproc)"
scx_load nr_pairs=2 channels=2
redirect_topology
chk_attach scx2 $NS2 "$MAC1" "$MAC0"
CHK2=$CHK
assert_ok "scx1 rx ring 4096" ip netns exec $NSR ethtool -G scx1 rx 4096
xdp_attach scx1 $NSR "$BPF/xdp_redirect_map.o"
bpf_map_set_u32 "$(bpf_map_id tx_port)" 0 "$(ifindex scx3 $NSR)" $NSR

R1=(rx_xdp_redirect rx_xdp_drop rx_packets rx_out_of_buffer)
R3=(tx_xdp_xmit tx_xdp_full tx_xdp_err)
R2=(rx_packets rx_out_of_buffer)
# run LABEL COUNT SIZE DELAY BURST: pktgen from THREADS threads; deltas in
# D1 (R1 of scx1), D3 (R3 of scx3), D2 (R2 of scx2), OK/BAD/SEQ (tc_check).
run() {
	local label=$1 count=$2 size=$3 delay=$4 burst=$5 b1 b3 b2 a1 a3 a2 i d bok bbad bseq sent
	read -r -a b1 <<< "$(cnt scx1 $NSR "${R1[@]}")"
	read -r -a b3 <<< "$(cnt scx3 $NSR "${R3[@]}")"
	read -r -a b2 <<< "$(cnt scx2 $NS2 "${R2[@]}")"
	chk_read "$CHK2"; bok=$CHK_OK bbad=$((CHK_BAD_L2 + CHK_BAD_HDR + CHK_BAD_PAYLOAD)) bseq=$CHK_SEQSUM
	pktgen_setup_mt scx0 $THREADS "$count" 10.11.0.250 "$MAC1" "$delay" "$size"
	if [ "$burst" -gt 1 ]; then for d in "${PG_DEVS[@]}"; do pg_cmd "$d" burst "$burst"; done; fi
	sent=$(pktgen_run scx0 300)
	# (with a burst, a thread may overshoot its count by part of one burst)
	if [ "$burst" -gt 1 ]; then
		assert_ge "$label: pktgen packets sent by $THREADS threads" $((THREADS * count)) "$sent"
	else
		assert_eq "$label: pktgen packets sent by $THREADS threads" $((THREADS * count)) "$sent"
	fi
	sleep 0.5
	read -r -a a1 <<< "$(cnt scx1 $NSR "${R1[@]}")"
	read -r -a a3 <<< "$(cnt scx3 $NSR "${R3[@]}")"
	read -r -a a2 <<< "$(cnt scx2 $NS2 "${R2[@]}")"
	chk_read "$CHK2"
	D1=() D3=() D2=()
	for i in "${!R1[@]}"; do D1+=($((a1[i] - b1[i]))); done
	for i in "${!R3[@]}"; do D3+=($((a3[i] - b3[i]))); done
	for i in "${!R2[@]}"; do D2+=($((a2[i] - b2[i]))); done
	OK=$((CHK_OK - bok)) BAD=$((CHK_BAD_L2 + CHK_BAD_HDR + CHK_BAD_PAYLOAD - bbad)) SEQ=$((CHK_SEQSUM - bseq))
	log "$label: scx1 ${R1[*]} +${D1[*]} | scx3 ${R3[*]} +${D3[*]} | scx2 ${R2[*]} +${D2[*]} | tc_check intact +$OK damaged +$BAD seqsum +$SEQ"
	assert_eq "$label: damaged frames at scx2" 0 "$BAD"
	assert_eq "$label: scx1 rx_packets delta (everything redirected)" 0 "${D1[2]}"
	assert_eq "$label: scx3 tx_xdp_err delta" 0 "${D3[2]}"
	assert_eq "$label: scx1 rx_xdp_redirect + rx_xdp_drop + rx_out_of_buffer vs sent" "$sent" \
		$((D1[0] + D1[1] + D1[3]))
	assert_eq "$label: scx3 tx_xdp_xmit + tx_xdp_full vs scx1 rx_xdp_redirect" "${D1[0]}" $((D3[0] + D3[1]))
	assert_eq "$label: scx2 rx_packets + rx_out_of_buffer vs scx3 tx_xdp_xmit" "${D3[0]}" $((D2[0] + D2[1]))
	assert_eq "$label: intact frames at scx2 vs scx2 rx_packets" "${D2[0]}" "$OK"
	if [ "$delay" -gt 0 ] && [ "${D3[1]}" -eq 0 ] && [ "${D1[3]}" -eq 0 ]; then
		assert_eq "$label: scx1 rx_xdp_redirect (paced: every frame)" "$sent" "${D1[0]}"
		assert_eq "$label: scx3 tx_xdp_xmit (paced: every frame)" "$sent" "${D3[0]}"
		assert_eq "$label: intact frames at scx2 (paced: every frame)" "$sent" "$OK"
		assert_eq "$label: sequence number sum at scx2 ($THREADS x 1..$count)" \
			$((THREADS * count * (count + 1) / 2)) "$SEQ"
		EXACT=$((EXACT + 1))
	elif [ "$delay" -gt 0 ]; then
		# scx1's RQ or scx3's SQ was full for a moment (a NAPI starved of
		# CPU under TCG): those frames are dropped and counted
		# (rx_out_of_buffer, tx_xdp_full), the rest must still be exact
		log "$label: scx1 out of buffer ${D1[3]}, scx3 refused ${D3[1]} (SQ full): sequence sum only bounded"
		assert_eq "$label: scx1 rx_xdp_redirect (paced: every frame but out of buffer)" \
			$((sent - D1[3])) "${D1[0]}"
		assert_eq "$label: intact frames at scx2 vs scx3 tx_xdp_xmit" "${D3[0]}" "$OK"
		assert_ge "$label: sequence number sum bound ($THREADS x 1..$count)" "$SEQ" \
			$((THREADS * count * (count + 1) / 2))
	else
		assert_gt "$label: intact frames at scx2" 0 "$OK"
	fi
}

# Which CPUs scx1 and scx3 polled on: more than one each, or the test
# proves nothing about cross-CPU completion.
polls() { local s; eth_dump "$1" "$2"; read -r s _ <<< "$(eth_sum 'ch[0-9]+_poll')"; echo "$s"; }

napi_threaded scx3 $NSR 1
log "scx3 NAPI threaded: $(echo $(pgrep '^napi/scx3-' || true))"
p3=$(polls scx3 $NSR)
run "threaded scx3, 60B paced" "$N" 60 40000 1
run "threaded scx3, 1000B paced" $((N / 2)) 1000 40000 1
run "threaded scx3, 60B flood" "$FLOOD" 60 0 8
assert_gt "scx3 NAPI polls while threaded" "$p3" "$(polls scx3 $NSR)"

napi_threaded scx3 $NSR 0
run "softirq scx3, 60B paced" "$N" 60 40000 1
run "softirq scx3, 60B flood" "$FLOOD" 60 0 8

# xdp_tx_mpwqe off on scx3 (SEND WQEs instead of sessions), threaded again.
assert_ok "scx3 xdp_tx_mpwqe off" ip netns exec $NSR ethtool --set-priv-flags scx3 xdp_tx_mpwqe off
napi_threaded scx3 $NSR 1
run "threaded scx3, no MPWQE, 60B flood" "$FLOOD" 60 0 8

# at least one paced phase was complete (its sequence sum checked exactly)
assert_gt "paced phases with every frame through" 0 "$EXACT"
xdp_detach scx1 $NSR
pg_cmd pgctrl reset
