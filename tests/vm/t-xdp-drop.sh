#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 420
#
# XDP_DROP, XDP_ABORTED and unknown verdicts on scx1, attach modes.
# pktgen sends N paced 60-byte UDP frames from scx0 to scx1's MAC (random
# source ports: RSS spreads them over both channels) to an address ns1 does
# not own. For each setting, exact deltas on scx1:
# - native drop (`ip link set dev scx1 xdp obj xdp_drop.o sec xdp`: plain
#   `xdp` picks native): rx_xdp_drop +N, the per-channel rxN_xdp_drop add up
#   to it (both channels used), rx_packets +0 in ethtool -S and ip -s link,
#   ns1's Ip InReceives +0 (nothing reached the stack), rx_out_of_buffer +0;
#   ping across the pair fails;
# - XDP_ABORTED (program replaced with `ip -force ... xdp obj`): rx_xdp_drop
#   +N and N xdp:xdp_exception tracepoint hits with action ABORTED;
# - unknown verdict 7: rx_xdp_drop +N and N xdp_exception hits;
# - detached (`xdp off`): rx_packets +N, rx_xdp_drop +0, ping works;
# - attached while the port is down (`xdpdrv`), then up: drops as above;
# - `xdp-loader load -m native` / `unload`: drops counted, then gone;
# - generic (`xdpgeneric`): the driver's rx_packets +N (the skb exists),
#   rx_xdp_drop +0, Ip InReceives +0;
# - offload (`xdpoffload`): refused, nothing attached.
# All 18 XDP counter names exist globally and per channel (rxN_xdp_tx_cqes per channel, as mlx5).
source "$(dirname "$0")/lib.sh"
need_cmd ethtool ping xdp-loader
bpf_build

N=2000
DST=10.11.0.250
scx_setup channels=2
ip netns exec "$NS" sysctl -qw net.ipv4.ip_forward=0
MAC1=$(dev_mac scx1 "$NS")

XDP_CNT="rx_xdp_drop rx_xdp_redirect rx_xdp_tx_xmit rx_xdp_tx_mpwqe rx_xdp_tx_inlnw rx_xdp_tx_nops rx_xdp_tx_full rx_xdp_tx_err rx_xdp_tx_cqe tx_xdp_xmit tx_xdp_mpwqe tx_xdp_inlnw tx_xdp_nops tx_xdp_full tx_xdp_err tx_xdp_cqes rx_xdp_tx_recover tx_xdp_recover"
for d in scx0 scx1; do
	ns=; [ $d == scx1 ] && ns=$NS
	eth_dump $d "$ns"
	for c in $XDP_CNT; do
		eth_get "$c" >/dev/null
		for ch in 0 1; do
			pc=${c/x_/x${ch}_}
			# mlx5: rx_xdp_tx_cqe in total, rxN_xdp_tx_cqes per channel
			[ "$c" != rx_xdp_tx_cqe ] || pc=${pc}s
			eth_get "$pc" >/dev/null
		done
	done
	[ -z "${ETH[rx0_xdp_tx_cqe]+x}" ] || fail "$d: per-channel rx0_xdp_tx_cqe (mlx5: rx0_xdp_tx_cqes)"
done
log "ok: the 18 XDP counters exist on scx0 and scx1, globally and for channels 0 and 1"

# snap: scx1 counters into S_* (ethtool -S, ip -s link, ns1 Ip InReceives).
snap() {
	eth_dump scx1 "$NS"
	S_RXP=$(eth_get rx_packets) S_DROP=$(eth_get rx_xdp_drop) S_OOB=$(eth_get rx_out_of_buffer)
	S_D0=$(eth_get rx0_xdp_drop) S_D1=$(eth_get rx1_xdp_drop)
	S_TXX=$(eth_get rx_xdp_tx_xmit) S_RED=$(eth_get rx_xdp_redirect)
	S_LRXP=$(link_stat scx1 rx_packets "$NS")
	S_IPIN=$(snmp_get Ip InReceives "$NS")
}
# run LABEL: N paced frames; deltas in D_* (RXP DROP OOB D0 D1 LRXP IPIN).
run() {
	local sent b
	snap
	b=("$S_RXP" "$S_DROP" "$S_OOB" "$S_D0" "$S_D1" "$S_LRXP" "$S_IPIN" "$S_TXX" "$S_RED")
	pktgen_setup scx0 $N $DST "$MAC1" 40000
	sent=$(pktgen_run scx0 120)
	assert_eq "$1: pktgen packets sent" $N "$sent"
	sleep 0.3
	snap
	D_RXP=$((S_RXP - b[0])) D_DROP=$((S_DROP - b[1])) D_OOB=$((S_OOB - b[2]))
	D_D0=$((S_D0 - b[3])) D_D1=$((S_D1 - b[4])) D_LRXP=$((S_LRXP - b[5])) D_IPIN=$((S_IPIN - b[6]))
	log "$1: scx1 rx_xdp_drop +$D_DROP (rx0 +$D_D0, rx1 +$D_D1), rx_packets +$D_RXP (ip -s link +$D_LRXP), Ip InReceives +$D_IPIN, rx_out_of_buffer +$D_OOB"
	assert_eq "$1: scx1 rx_out_of_buffer delta" 0 "$D_OOB"
	assert_eq "$1: scx1 rx_xdp_tx_xmit delta" 0 $((S_TXX - b[7]))
	assert_eq "$1: scx1 rx_xdp_redirect delta" 0 $((S_RED - b[8]))
}
# dropped LABEL: every frame dropped by the driver's XDP, none in the stack.
dropped() {
	assert_eq "$1: scx1 rx_xdp_drop delta" $N "$D_DROP"
	assert_eq "$1: scx1 rx0_xdp_drop + rx1_xdp_drop delta" $N $((D_D0 + D_D1))
	assert_gt "$1: scx1 rx0_xdp_drop delta (RSS spreads)" 0 "$D_D0"
	assert_gt "$1: scx1 rx1_xdp_drop delta (RSS spreads)" 0 "$D_D1"
	assert_eq "$1: scx1 rx_packets delta (ethtool)" 0 "$D_RXP"
	assert_eq "$1: scx1 rx_packets delta (ip -s link)" 0 "$D_LRXP"
	assert_eq "$1: ns1 Ip InReceives delta" 0 "$D_IPIN"
}
# passed LABEL: every frame reached the stack, none dropped by XDP.
passed() {
	assert_eq "$1: scx1 rx_xdp_drop delta" 0 "$D_DROP"
	assert_eq "$1: scx1 rx_packets delta (ethtool)" $N "$D_RXP"
	assert_eq "$1: scx1 rx_packets delta (ip -s link)" $N "$D_LRXP"
	assert_ge "$1: ns1 Ip InReceives delta" $N "$D_IPIN"
}

# ---- native drop; plain `xdp` picks native mode
run "no program"
passed "no program"
xdp_attach scx1 "$NS" "$BPF/xdp_drop.o" xdp
read -r mode id <<< "$(xdp_attached scx1 "$NS")"
assert_eq "mode of 'ip link set xdp' (1 = native)" 1 "$mode"
run "native drop"
dropped "native drop"
assert_fails "ping with every frame dropped on scx1" ping -n -q -c 2 -W 1 -w 3 "$IP1"

# ---- XDP_ABORTED, replacing the program in place
xdp_exc_start
assert_ok "replace drop with aborted (ip -force)" ip -n "$NS" -force link set dev scx1 xdp obj "$BPF/xdp_aborted.o" sec xdp
read -r mode id2 <<< "$(xdp_attached scx1 "$NS")"
assert_eq "mode after replace" 1 "$mode"
assert_ne "program id after replace" "$id" "$id2"
run "aborted"
dropped "aborted"
assert_eq "xdp_exception hits with action ABORTED" $N "$(xdp_exc_count 'action=ABORTED')"

# ---- unknown verdict
xdp_exc_stop; xdp_exc_start
assert_ok "replace aborted with unknown-verdict" ip -n "$NS" -force link set dev scx1 xdp obj "$BPF/xdp_unknown.o" sec xdp
run "verdict 7"
dropped "verdict 7"
assert_eq "xdp_exception hits for verdict 7" $N "$(xdp_exc_count)"
xdp_exc_stop

# ---- detach
xdp_detach scx1 "$NS"
run "detached"
passed "detached"
ping_ok "" "$IP1" 3

# ---- attach while down (only the parameter is stored), then up
ip -n "$NS" link set scx1 down
xdp_attach scx1 "$NS" "$BPF/xdp_drop.o" xdpdrv
ip -n "$NS" link set scx1 up
wait_carrier scx1 "$NS"
wait_carrier scx0
read -r mode _ <<< "$(xdp_attached scx1 "$NS")"
assert_eq "mode of xdpdrv attached while down" 1 "$mode"
run "attached while down"
dropped "attached while down"
ip -n "$NS" link set scx1 down
xdp_detach scx1 "$NS"
ip -n "$NS" link set scx1 up
wait_carrier scx1 "$NS"
wait_carrier scx0
run "detached while down"
passed "detached while down"

# ---- xdp-loader (libxdp; bpf_build set LIBXDP_BPFFS)
assert_ok "xdp-loader load -m native scx1 xdp_drop.o" ip netns exec "$NS" xdp-loader load -m native scx1 "$BPF/xdp_drop.o"
read -r mode _ <<< "$(xdp_attached scx1 "$NS")"
assert_eq "mode after xdp-loader load -m native" 1 "$mode"
log "xdp-loader status: $(ip netns exec "$NS" xdp-loader status scx1 2>&1 | grep -E 'scx1|xdp_drop' | tr -s ' ' | tr '\n' ';')"
run "xdp-loader native drop"
dropped "xdp-loader native drop"
assert_ok "xdp-loader unload --all" ip netns exec "$NS" xdp-loader unload scx1 --all
assert_eq "XDP after xdp-loader unload" "" "$(xdp_attached scx1 "$NS")"
run "after xdp-loader unload"
passed "after xdp-loader unload"

# ---- generic mode: the kernel runs the program on the skb the driver built
xdp_attach scx1 "$NS" "$BPF/xdp_drop.o" xdpgeneric
read -r mode _ <<< "$(xdp_attached scx1 "$NS")"
assert_eq "mode of xdpgeneric (2 = skb)" 2 "$mode"
run "generic drop"
assert_eq "generic drop: scx1 rx_xdp_drop delta (not the driver's)" 0 "$D_DROP"
assert_eq "generic drop: scx1 rx_packets delta (ethtool)" $N "$D_RXP"
assert_eq "generic drop: ns1 Ip InReceives delta" 0 "$D_IPIN"
ip -n "$NS" link set dev scx1 xdpgeneric off
assert_eq "XDP after xdpgeneric off" "" "$(xdp_attached scx1 "$NS")"

# ---- offload: refused
assert_fails "xdpoffload on scx1" ip -n "$NS" link set dev scx1 xdpoffload obj "$BPF/xdp_drop.o" sec xdp
assert_eq "XDP after the refused offload" "" "$(xdp_attached scx1 "$NS")"
ping_ok "" "$IP1" 3
