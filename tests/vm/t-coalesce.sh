#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 400
#
# Interrupt moderation (ethtool -c/-C, the CQ moderation of the device):
# - `ethtool -c` shows mlx5's defaults: adaptive RX and TX on (6.1's
#   mlx5e_build_nic_params), rx-usecs 3 (rx_cqe_moder on: from CQE),
#   rx-frames 32, tx-usecs 16, tx-frames 32;
# - `ethtool -C` while up applies in place: read back, the CQs keep their
#   numbers (debugfs softcx/scx0/cqs: no channel rebuild), a TCP transfer
#   arrives intact (sha256) and ping flows;
# - values wider than the device's CQ fields are refused with the reason
#   (extack); nothing changes;
# - the private flags rx_cqe_moder / tx_cqe_moder switch the period mode
#   (in place), rx-usecs following the mode's default like mlx5; so do
#   `ethtool -C cqe-mode-rx/tx`, which `ethtool -c` shows ("CQE mode");
# - under a pktgen flood (burst 1: a doorbell per frame) to scx1,
#   rx-usecs 100 rx-frames 64 gives clearly fewer interrupts per received
#   frame (bus_interrupts) than rx-usecs 0 rx-frames 1;
# - ping RTT (-c 40 -i 0.03) with adaptive moderation, RX period from CQE
#   (the default) and from EQE, and with moderation off: printed, not
#   asserted (wall clock under TCG).
source "$(dirname "$0")/lib.sh"
need_cmd ethtool ping python3


# coal DEV FIELD [NS]: one value of `ethtool -c` ("rx-usecs", "Adaptive RX", ...)
coal() {
	local out
	out=$(in_ns "${3:-}" ethtool -c "$1") || fail "ethtool -c $1"
	case $2 in
	"Adaptive RX") echo "$out" | sed -n 's/^Adaptive RX: *\([a-z]*\).*/\1/p' ;;
	"Adaptive TX") echo "$out" | sed -n 's/^Adaptive RX:.*TX: *\([a-z]*\)$/\1/p' ;;
	"CQE mode RX") echo "$out" | sed -n 's/^CQE mode RX: *\([a-z]*\).*/\1/p' ;;
	"CQE mode TX") echo "$out" | sed -n 's/^CQE mode RX:.*TX: *\([a-z]*\)$/\1/p' ;;
	*) echo "$out" | sed -n "s/^$2: *//p" ;;
	esac
}
pflag() { in_ns "${2:-}" ethtool --show-priv-flags scx0 | sed -n "s/^$1 *: *//p"; }

scx_setup channels=1
debugfs_hook scx0/cqs
CQS=$INJ

# ---- defaults
assert_eq "default Adaptive RX" on "$(coal scx0 'Adaptive RX')"
assert_eq "default Adaptive TX" on "$(coal scx0 'Adaptive TX')"
assert_eq "default rx-usecs" 3 "$(coal scx0 rx-usecs)"
assert_eq "default rx-frames" 32 "$(coal scx0 rx-frames)"
assert_eq "default tx-usecs" 16 "$(coal scx0 tx-usecs)"
assert_eq "default tx-frames" 32 "$(coal scx0 tx-frames)"
assert_eq "default rx_cqe_moder" on "$(pflag rx_cqe_moder)"
assert_eq "default tx_cqe_moder" off "$(pflag tx_cqe_moder)"
assert_eq "default CQE mode RX" on "$(coal scx0 'CQE mode RX')"
assert_eq "default CQE mode TX" off "$(coal scx0 'CQE mode TX')"

# ---- set while up: in place
cqs0=$(cat $CQS)
log "CQs: $cqs0"
[ -n "$cqs0" ] || fail "no live CQs in $CQS"
ethtool -C scx0 adaptive-rx off adaptive-tx off rx-usecs 50 rx-frames 16 tx-usecs 30 tx-frames 8
assert_eq "rx-usecs after -C" 50 "$(coal scx0 rx-usecs)"
assert_eq "rx-frames after -C" 16 "$(coal scx0 rx-frames)"
assert_eq "tx-usecs after -C" 30 "$(coal scx0 tx-usecs)"
assert_eq "tx-frames after -C" 8 "$(coal scx0 tx-frames)"
assert_eq "Adaptive RX after -C" off "$(coal scx0 'Adaptive RX')"
assert_eq "Adaptive TX after -C" off "$(coal scx0 'Adaptive TX')"
assert_eq "CQs after -C (no channel rebuild)" "$cqs0" "$(cat $CQS)"
ping_ok "" "$IP1" 10
tcp_verified static-50us-16
ethtool -C scx0 adaptive-rx on adaptive-tx on
assert_eq "Adaptive RX after -C on" on "$(coal scx0 'Adaptive RX')"
assert_eq "Adaptive TX after -C on" on "$(coal scx0 'Adaptive TX')"
ping_ok "" "$IP1" 10
tcp_verified adaptive-rx-tx
assert_eq "CQs after adaptive on (no channel rebuild)" "$cqs0" "$(cat $CQS)"

# ---- bad values: refused with the reason, nothing changed
for bad in "rx-usecs 4096" "tx-usecs 5000" "rx-frames 65536" "tx-frames 70000"; do
	rc=0; out=$(ethtool -C scx0 $bad 2>&1) || rc=$?
	assert_ne "ethtool -C scx0 $bad: exit status" 0 "$rc"
	echo "$out" | grep -q "${bad%% *} above" || fail "ethtool -C scx0 $bad: no reason given: $out"
	log "refused: ethtool -C scx0 $bad: $out"
done
assert_eq "rx-usecs after refusals" 50 "$(coal scx0 rx-usecs)"
assert_eq "tx-frames after refusals" 8 "$(coal scx0 tx-frames)"

# ---- private flags: the period mode, in place
ethtool --set-priv-flags scx0 rx_cqe_moder off
assert_eq "rx_cqe_moder after off" off "$(pflag rx_cqe_moder)"
assert_eq "rx-usecs from EQE (mode default)" 16 "$(coal scx0 rx-usecs)"
ethtool --set-priv-flags scx0 tx_cqe_moder on
assert_eq "tx_cqe_moder after on" on "$(pflag tx_cqe_moder)"
assert_eq "CQs after the period mode flags (no channel rebuild)" "$cqs0" "$(cat $CQS)"
ping_ok "" "$IP1" 10
ethtool --set-priv-flags scx0 rx_cqe_moder on
ethtool --set-priv-flags scx0 tx_cqe_moder off
assert_eq "rx-usecs from CQE again" 3 "$(coal scx0 rx-usecs)"
# the same modes through ethtool -C cqe-mode-rx/tx (as mlx5): the flags follow
ethtool -C scx0 cqe-mode-rx off cqe-mode-tx on
assert_eq "CQE mode RX after -C off" off "$(coal scx0 'CQE mode RX')"
assert_eq "CQE mode TX after -C on" on "$(coal scx0 'CQE mode TX')"
assert_eq "rx_cqe_moder after cqe-mode-rx off" off "$(pflag rx_cqe_moder)"
assert_eq "tx_cqe_moder after cqe-mode-tx on" on "$(pflag tx_cqe_moder)"
assert_eq "rx-usecs after cqe-mode-rx off (mode default)" 16 "$(coal scx0 rx-usecs)"
assert_eq "CQs after cqe-mode (no channel rebuild)" "$cqs0" "$(cat $CQS)"
ping_ok "" "$IP1" 5
ethtool -C scx0 cqe-mode-rx on cqe-mode-tx off
assert_eq "rx_cqe_moder after cqe-mode-rx on" on "$(pflag rx_cqe_moder)"
assert_eq "tx_cqe_moder after cqe-mode-tx off" off "$(pflag tx_cqe_moder)"
assert_eq "rx-usecs after cqe-mode-rx on (mode default)" 3 "$(coal scx0 rx-usecs)"

# ---- remembered across a channel rebuild (MTU change)
ethtool -C scx0 adaptive-rx off rx-usecs 40 rx-frames 20
ip link set scx0 mtu 2000
wait_carrier scx0
[ "$(cat $CQS)" != "$cqs0" ] || fail "an MTU change should rebuild the channels (new CQs)"
assert_eq "rx-usecs after a rebuild" 40 "$(coal scx0 rx-usecs)"
ip link set scx0 mtu 1500
wait_carrier scx0
ping_ok "" "$IP1" 5

# ---- ping RTT: adaptive moderation in both RX period modes vs moderation off,
# both ports, three rounds alternating. From CQE (mlx5's default) every frame
# that finds the CQ idle waits DIM's period (8 us at start); from EQE the
# period runs from the last interrupt, so an idle CQ signals at once.
rtt() {   # LABEL: prints min/avg/max/mdev
	local out
	out=$(ping -n -q -c 40 -i 0.03 "$IP1" 2>&1) || fail "$1: ping failed: $out"
	echo "$out" | grep -q ' 0% packet loss' || fail "$1: ping lost packets: $out"
	echo "$out" | sed -n 's/^rtt [^=]*= *//p'
}
moder_both() {
	ethtool -C scx0 "$@"
	in_ns "$NS" ethtool -C scx1 "$@"
}
rx_mode_both() {
	ethtool --set-priv-flags scx0 rx_cqe_moder "$1"
	in_ns "$NS" ethtool --set-priv-flags scx1 rx_cqe_moder "$1"
}
rtt_cqe=""; rtt_eqe=""; rtt_off=""
for i in 1 2 3; do
	rx_mode_both on
	moder_both adaptive-rx on adaptive-tx on rx-usecs 3 rx-frames 32 tx-usecs 16 tx-frames 32
	rtt_cqe+="${rtt_cqe:+; }$(rtt "adaptive, from CQE")"
	rx_mode_both off
	moder_both adaptive-rx on adaptive-tx on rx-usecs 16 rx-frames 32 tx-usecs 16 tx-frames 32
	rtt_eqe+="${rtt_eqe:+; }$(rtt "adaptive, from EQE")"
	moder_both adaptive-rx off adaptive-tx off rx-usecs 0 rx-frames 1 tx-usecs 0 tx-frames 1
	rtt_off+="${rtt_off:+; }$(rtt "moderation off")"
done
rx_mode_both on
log "ping RTT min/avg/max/mdev (ms): adaptive, RX from CQE (default) $rtt_cqe"
log "ping RTT min/avg/max/mdev (ms): adaptive, RX from EQE (rx_cqe_moder off) $rtt_eqe"
log "ping RTT min/avg/max/mdev (ms): moderation off $rtt_off"

# ---- interrupts per frame under a flood to scx1, burst 1
N=20000
DST=10.11.0.250   # on ns1's subnet, not owned by it: dropped by its stack
in_ns "$NS" sysctl -qw net.ipv4.ip_forward=0
flood() {   # LABEL: sets IPP (interrupts per 1000 frames received by scx1)
	local mac i0 r0 di dr
	mac=$(dev_mac scx1 "$NS")
	i0=$(ethtool_stat scx1 bus_interrupts "$NS"); r0=$(ethtool_stat scx1 rx_packets "$NS")
	pktgen_setup scx0 "$N" "$DST" "$mac" 0 60
	pg_cmd scx0 burst 1
	pktgen_run scx0 120 >/dev/null
	sleep 0.5
	di=$(( $(ethtool_stat scx1 bus_interrupts "$NS") - i0 ))
	dr=$(( $(ethtool_stat scx1 rx_packets "$NS") - r0 ))
	assert_gt "$1: frames received" $((N / 2)) "$dr"
	IPP=$(( di * 1000 / dr ))
	log "$1: scx1 received $dr frames, $di interrupts: $IPP per 1000 frames"
	echo stop > /proc/net/pktgen/pgctrl 2>/dev/null || true
	pg_cmd kpktgend_0 rem_device_all
}
in_ns "$NS" ethtool -C scx1 adaptive-rx off rx-usecs 0 rx-frames 1
flood "rx-usecs 0 rx-frames 1"
ipp_off=$IPP
in_ns "$NS" ethtool -C scx1 adaptive-rx off rx-usecs 100 rx-frames 64
flood "rx-usecs 100 rx-frames 64"
ipp_on=$IPP
assert_gt "interrupts per 1000 frames: moderation off ($ipp_off) > 4x moderated ($ipp_on)" \
	$((ipp_on * 4)) "$ipp_off"
echo "RESULT coalesce: irq per 1000 frames off=$ipp_off moderated=$ipp_on; rtt adaptive-cqe=[$rtt_cqe] adaptive-eqe=[$rtt_eqe] off=[$rtt_off]"
