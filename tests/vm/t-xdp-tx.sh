#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 480
#
# XDP_TX: xdp_reflect.o on scx1 swaps the MAC addresses of every frame and
# sends it back out of scx1. pktgen sends 60-byte UDP frames from scx0 to
# scx1's MAC; they come back to scx0 (destination scx0's MAC, source scx1's),
# where tc_check.o on scx0's ingress verifies each one byte for byte (MACs,
# IPv4 header and checksum, lengths, pktgen magic, zero payload).
# - paced run (N frames): scx1 rx_xdp_tx_xmit +N (= the sum of rxN_), rx_xdp_tx_cqe
#   > 0, rx_xdp_tx_full/err +0, rx_xdp_drop +0, rx_packets +0; scx0 rx_packets +N
#   (ethtool -S and ip -s link) and N intact frames, none damaged;
# - flood run (burst 32, no pacing): every frame is accounted for:
#   scx1 rx_xdp_tx_xmit + rx_xdp_drop + rx_out_of_buffer = sent, scx0
#   rx_packets + rx_out_of_buffer = scx1 rx_xdp_tx_xmit, all intact;
# - xdp_tx_mpwqe on (default on cx7): rx_xdp_tx_mpwqe > 0 (and the flood packs
#   >= 2 frames per multi-packet WQE); off (channels rebuilt, program kept):
#   rx_xdp_tx_mpwqe +0, same traffic results;
# - model=cx4: xdp_tx_mpwqe off and cannot be turned on; XDP_TX works with
#   rx_xdp_tx_mpwqe +0 (L2 headers inline).
source "$(dirname "$0")/lib.sh"
need_cmd ethtool
bpf_build

N=2000
NF=20000
DST=10.11.0.250

pflag() { ip netns exec "$NS" ethtool --show-priv-flags scx1 | sed -n 's/^xdp_tx_mpwqe *: *//p'; }

setup() {   # PARAMS...
	scx_setup "$@"
	ip netns exec "$NS" sysctl -qw net.ipv4.ip_forward=0
	MAC0=$(dev_mac scx0) MAC1=$(dev_mac scx1 "$NS")
	chk_attach scx0 "" "$MAC0" "$MAC1"
	xdp_attach scx1 "$NS" "$BPF/xdp_reflect.o"
}

S=()
snap() {
	eth_dump scx1 "$NS"
	S=("$(eth_get rx_xdp_tx_xmit)" "$(eth_get rx_xdp_tx_mpwqe)" "$(eth_get rx_xdp_tx_cqe)"
	   "$(eth_get rx_xdp_tx_full)" "$(eth_get rx_xdp_tx_err)" "$(eth_get rx_xdp_drop)"
	   "$(eth_get rx_packets)" "$(eth_get rx_out_of_buffer)" "$(eth_get rx_xdp_tx_inlnw)"
	   "$(eth_get rx0_xdp_tx_xmit)" "$(eth_get rx1_xdp_tx_xmit)" "$(eth_get rx_xdp_tx_nops)")
	eth_dump scx0
	S+=("$(eth_get rx_packets)" "$(eth_get rx_out_of_buffer)" "$(link_stat scx0 rx_packets)")
	chk_read "$CHK"
	S+=("$CHK_OK" "$((CHK_BAD_L2 + CHK_BAD_HDR + CHK_BAD_PAYLOAD))")
}
# run LABEL COUNT DELAY BURST: sets D_* deltas.
run() {
	local label=$1 count=$2 delay=$3 burst=$4 sent b
	snap; b=("${S[@]}")
	pktgen_setup scx0 "$count" $DST "$MAC1" "$delay" 60
	[ "$burst" -le 1 ] || pg_cmd scx0 burst "$burst"
	sent=$(pktgen_run scx0 180)
	count=$(pktgen_sent "$label" "$count" "$burst" "$sent")
	sleep 0.5
	snap
	D_XMIT=$((S[0] - b[0])) D_MPWQE=$((S[1] - b[1])) D_CQE=$((S[2] - b[2])) D_FULL=$((S[3] - b[3]))
	D_ERR=$((S[4] - b[4])) D_DROP=$((S[5] - b[5])) D_RXP1=$((S[6] - b[6])) D_OOB1=$((S[7] - b[7]))
	D_INL=$((S[8] - b[8])) D_X0=$((S[9] - b[9])) D_X1=$((S[10] - b[10])) D_NOPS=$((S[11] - b[11]))
	D_RXP0=$((S[12] - b[12])) D_OOB0=$((S[13] - b[13])) D_LRXP0=$((S[14] - b[14]))
	D_OK=$((S[15] - b[15])) D_BAD=$((S[16] - b[16]))
	log "$label: scx1 rx_xdp_tx_xmit +$D_XMIT (rx0 +$D_X0 rx1 +$D_X1) mpwqe +$D_MPWQE inlnw +$D_INL nops +$D_NOPS cqe +$D_CQE full +$D_FULL err +$D_ERR rx_xdp_drop +$D_DROP rx_packets +$D_RXP1 rx_out_of_buffer +$D_OOB1 | scx0 rx_packets +$D_RXP0 (ip -s link +$D_LRXP0) rx_out_of_buffer +$D_OOB0 | tc_check intact +$D_OK damaged +$D_BAD"
	assert_eq "$label: scx1 rx0_xdp_tx_xmit + rx1_xdp_tx_xmit delta" "$D_XMIT" $((D_X0 + D_X1))
	assert_eq "$label: scx1 rx_packets delta (nothing passed to the stack)" 0 "$D_RXP1"
	assert_eq "$label: scx1 rx_xdp_tx_err delta" 0 "$D_ERR"
	assert_eq "$label: frames damaged on the way back (tc_check)" 0 "$D_BAD"
	assert_eq "$label: scx0 rx_packets delta ethtool vs ip -s link" "$D_RXP0" "$D_LRXP0"
	assert_eq "$label: intact frames at scx0 vs scx0 rx_packets delta" "$D_RXP0" "$D_OK"
	assert_gt "$label: scx1 rx_xdp_tx_cqe delta" 0 "$D_CQE"
	if [ "$delay" -gt 0 ]; then
		assert_eq "$label: scx1 rx_xdp_tx_xmit delta" "$count" "$D_XMIT"
		assert_eq "$label: scx1 rx_xdp_tx_full delta" 0 "$D_FULL"
		assert_eq "$label: scx1 rx_xdp_drop delta" 0 "$D_DROP"
		assert_eq "$label: scx1 rx_out_of_buffer delta" 0 "$D_OOB1"
		assert_eq "$label: scx0 rx_packets delta" "$count" "$D_RXP0"
		assert_eq "$label: scx0 rx_out_of_buffer delta" 0 "$D_OOB0"
	else
		assert_eq "$label: scx1 rx_xdp_tx_xmit + rx_xdp_drop + rx_out_of_buffer delta" "$count" \
			$((D_XMIT + D_DROP + D_OOB1))
		assert_eq "$label: scx0 rx_packets + rx_out_of_buffer delta vs scx1 rx_xdp_tx_xmit" "$D_XMIT" \
			$((D_RXP0 + D_OOB0))
		assert_gt "$label: scx1 rx_xdp_tx_xmit delta" 0 "$D_XMIT"
	fi
}

# ---- cx7: xdp_tx_mpwqe on by default
setup channels=2
assert_eq "xdp_tx_mpwqe default on cx7" on "$(pflag)"
run "cx7 mpwqe on, paced" $N 40000 1
assert_gt "cx7 mpwqe on, paced: rx_xdp_tx_mpwqe delta" 0 "$D_MPWQE"
assert_ge "cx7 mpwqe on, paced: rx_xdp_tx_xmit >= rx_xdp_tx_mpwqe" "$D_MPWQE" "$D_XMIT"
run "cx7 mpwqe on, flood" $NF 0 32
assert_gt "cx7 mpwqe on, flood: rx_xdp_tx_mpwqe delta" 0 "$D_MPWQE"
assert_ge "cx7 mpwqe on, flood: frames per multi-packet WQE (x1)" 2 $((D_XMIT / D_MPWQE))

ip netns exec "$NS" ethtool --set-priv-flags scx1 xdp_tx_mpwqe off
assert_eq "xdp_tx_mpwqe after off" off "$(pflag)"
wait_carrier scx1 "$NS"
wait_carrier scx0
read -r mode _ <<< "$(xdp_attached scx1 "$NS")"
assert_eq "XDP program still attached (native) after the flag change" 1 "$mode"
run "cx7 mpwqe off, paced" $N 40000 1
assert_eq "cx7 mpwqe off, paced: rx_xdp_tx_mpwqe delta" 0 "$D_MPWQE"
run "cx7 mpwqe off, flood" $NF 0 32
assert_eq "cx7 mpwqe off, flood: rx_xdp_tx_mpwqe delta" 0 "$D_MPWQE"
ip netns exec "$NS" ethtool --set-priv-flags scx1 xdp_tx_mpwqe on
assert_eq "xdp_tx_mpwqe back on" on "$(pflag)"
wait_carrier scx1 "$NS"
wait_carrier scx0
run "cx7 mpwqe on again, paced" $N 40000 1
assert_gt "cx7 mpwqe on again: rx_xdp_tx_mpwqe delta" 0 "$D_MPWQE"
pg_cmd pgctrl reset

# ---- cx4: never
scx_unload
setup channels=2 model=cx4
assert_eq "xdp_tx_mpwqe default on cx4" off "$(pflag)"
rc=0; out=$(ip netns exec "$NS" ethtool --set-priv-flags scx1 xdp_tx_mpwqe on 2>&1) || rc=$?
assert_ne "set xdp_tx_mpwqe on, cx4: exit status" 0 "$rc"
log "cx4 refusal: ethtool said '$out'; kernel log: $(dmesg | tail -n 5 | grep -i xdp_tx_mpwqe | tail -n 1)"
assert_eq "xdp_tx_mpwqe on cx4 after refusal" off "$(pflag)"
run "cx4, paced" $N 40000 1
assert_eq "cx4, paced: rx_xdp_tx_mpwqe delta" 0 "$D_MPWQE"
run "cx4, flood" $NF 0 32
assert_eq "cx4, flood: rx_xdp_tx_mpwqe delta" 0 "$D_MPWQE"
