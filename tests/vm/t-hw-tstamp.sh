#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 420
#
# Hardware timestamps and the PTP hardware clock (shim/ptp.c):
# - ethtool -T shows hardware TX/RX/raw stamping, TX types off/on, RX
#   filters none/all and a PTP clock index; /dev/ptpN exists, per port;
# - phc_ctl: set (to CLOCK_REALTIME), adj, freq: +1% shows as 1% drift
#   against CLOCK_REALTIME (hwts.py drift: both clocks read in one
#   process), 0 as the device oscillator's own +20 ppm;
# - SIOCSHWTSTAMP (hwstamp_ctl): a PTP filter is promoted to ALL and
#   reported back; with the RX filter and TX type off, a UDP socket with
#   SO_TIMESTAMPING gets no hardware stamps either way;
# - on: every datagram received on scx1 carries a hardware stamp, strictly
#   increasing, within the PHC's time read before and after; every
#   datagram sent on scx0 gets its TX stamp from the error queue
#   (OPT_TSONLY), likewise; tx_timestamps = tx_timestamps_delivered,
#   none lost; every datagram arrived (rx_packets);
# - RX stamps and rx_cqe_compress are refused together, either order.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool python3 phc_ctl hwstamp_ctl
unset SCX_RX_CQE_COMPRESS	# the rule with compression is tested here
HW=$SCX_ROOT/tests/vm/hwts.py
N=40
PORT=5320

scx_setup channels=1

# phc_index DEV [NS]: the PTP clock index ethtool -T reports
phc_index() { in_ns "${2:-}" ethtool -T "$1" | sed -n 's/^PTP Hardware Clock: *//p'; }

for d in scx0 scx1; do
	ns=; [ $d == scx1 ] && ns=$NS
	t=$(in_ns "$ns" ethtool -T $d)
	for cap in hardware-transmit hardware-receive hardware-raw-clock software-transmit; do
		grep -q -- "$cap" <<< "$t" || fail "$d: ethtool -T lacks $cap: $t"
	done
	grep -q -- "^	on" <<< "$t" || fail "$d: ethtool -T: no TX type on: $t"
	grep -q -- "^	all" <<< "$t" || fail "$d: ethtool -T: no RX filter all: $t"
done
P0=$(phc_index scx0) P1=$(phc_index scx1 "$NS")
log "PTP clocks: scx0 /dev/ptp$P0, scx1 /dev/ptp$P1"
assert_ne "one PHC per port" "$P0" "$P1"
for p in "$P0" "$P1"; do
	[ -c "/dev/ptp$p" ] || fail "/dev/ptp$p missing"
	grep -q softcx "/sys/class/ptp/ptp$p/clock_name" || fail "ptp$p is not softcx's: $(cat /sys/class/ptp/ptp$p/clock_name)"
done
PTP0=/dev/ptp$P0 PTP1=/dev/ptp$P1

# ---- the clock: phc_ctl
# phc_off DEV: CLOCK_REALTIME - PHC in ns (phc_ctl cmp; phc_ctl logs on stderr)
phc_off() { phc_ctl "$1" cmp 2>&1 | sed -n 's/.*offset from CLOCK_REALTIME is \(-\?[0-9]*\)ns.*/\1/p'; }
abs() { local v=$1; echo "${v#-}"; }
# assert_le WHAT MAX ACTUAL (integers)
assert_le() {
	[[ "$3" =~ ^-?[0-9]+$ ]] || fail "$1: expected a number <= $2, got '$3'"
	[ "$3" -le "$2" ] || fail "$1: expected <= $2, got $3"
	log "ok: $1 = $3 (<= $2)"
}
phc_ctl "$PTP0" set > /dev/null 2>&1
off=$(phc_off "$PTP0")
log "after set: realtime - PHC = $off ns"
assert_le "|offset| after set (< 0.2 s)" 200000000 "$(abs "$off")"
phc_ctl "$PTP0" adj 10 > /dev/null 2>&1
off=$(phc_off "$PTP0")
log "after adj 10: realtime - PHC = $off ns"
assert_ge "|offset| after adj 10 (>= 9.8 s)" 9800000000 "$(abs "$off")"
assert_le "|offset| after adj 10 (<= 10.2 s)" 10200000000 "$(abs "$off")"
out=$(phc_ctl "$PTP0" get 2>&1)
grep -q "clock time is" <<< "$out" || fail "phc_ctl get: $out"
# drift DEV PPB: at freq PPB, how far the PHC ran ahead of CLOCK_REALTIME
# (D, ns) over about 2 s of it (T, ns), read in one process (hwts.py)
drift() {
	local out
	phc_ctl "$1" freq "$2" > /dev/null 2>&1
	out=$(python3 "$HW" drift "$1" 2)
	T=$(sed -n 's/.*real=\([0-9]*\).*/\1/p' <<< "$out")
	D=$(( $(sed -n 's/^phc=\(-\?[0-9]*\) .*/\1/p' <<< "$out") - T ))
}
drift "$PTP0" 10000000
log "freq +1%: PHC ahead by $D ns over $T ns"
out=$(phc_ctl "$PTP0" freq 2>&1)
grep -q "offset is 10000000" <<< "$out" || fail "phc_ctl freq: $out"
# 1% of T, within 10% of it (the two instants are read to a few us; the device adds 20 ppm)
assert_ge "drift at +1% (>= 0.9% of the time)" $(( T * 9 / 1000 )) "$D"
assert_le "drift at +1% (<= 1.1% of the time)" $(( T * 11 / 1000 )) "$D"
drift "$PTP0" 0
log "freq 0: PHC ahead by $D ns over $T ns"
# freq 0: the PHC runs at the nominal rate, so the device's own +20 ppm shows
assert_ge "drift at freq 0: the device's +20 ppm (>= 15 ppm)" $(( T / 1000000 * 15 )) "$D"
assert_le "drift at freq 0: the device's +20 ppm (<= 25 ppm)" $(( T / 1000000 * 25 )) "$D"
phc_ctl "$PTP1" set > /dev/null 2>&1

# ---- SIOCSHWTSTAMP
out=$(in_ns "$NS" hwstamp_ctl -i scx1 -r 12)	# HWTSTAMP_FILTER_PTP_V2_EVENT
grep -A2 "new settings" <<< "$out" | grep -q "rx_filter 1" || fail "PTP_V2_EVENT not promoted to ALL: $out"
in_ns "$NS" hwstamp_ctl -i scx1 -r 0 > /dev/null

# stamps DIR LABEL: UDP scx0 -> scx1, N datagrams; RX or TX stamps; sets CNT HWN MONO INWIN
stamps() {
	local out f
	if [ "$1" == rx ]; then
		f=$SCX_TEST_OUT/rx-$2.txt
		rm -f "$f"
		bg_start in_ns "$NS" sh -c "python3 $HW rx $PORT $N $PTP1 > $f"
		wait_for 10 sh -c "ip netns exec $NS ss -Huln 'sport = :$PORT' | grep -q ." ||
			fail "$2: receiver did not start"
		python3 - "$IP1" "$PORT" "$N" <<-'PY'
		import socket, sys, time
		s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
		for i in range(int(sys.argv[3])):
		    s.sendto(b"rx%04d" % i + bytes(100), (sys.argv[1], int(sys.argv[2])))
		    time.sleep(0.01)
		PY
		wait_for 30 test -s "$f" || fail "$2: receiver wrote nothing"
		out=$(cat "$f")
	else
		bg_start in_ns "$NS" timeout 60 python3 -c "
import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(('0.0.0.0', $PORT))
while True: s.recv(2048)"
		# TX type off: nothing will come, do not wait long for it
		out=$(python3 "$HW" tx "$IP1" "$PORT" "$N" "$PTP0" "$([ "$2" == tx-off ] && echo 0.2 || echo 2)")
		bg_stop "$BG_PID"
	fi
	log "$2: $out"
	CNT=$(sed -n 's/.*count=\([0-9]*\).*/\1/p' <<< "$out")
	HWN=$(sed -n 's/.*hw=\([0-9]*\).*/\1/p' <<< "$out")
	MONO=$(sed -n 's/.*mono=\([0-9]*\).*/\1/p' <<< "$out")
	INWIN=$(sed -n 's/.*inwin=\([0-9]*\).*/\1/p' <<< "$out")
}

# off: no hardware stamps either way
r0=$(ethtool_stat scx1 rx_packets "$NS")
stamps rx "rx-off"
assert_eq "rx-off: datagrams received" "$N" "$CNT"
assert_eq "rx-off: hardware stamps" 0 "$HWN"
stamps tx "tx-off"
assert_eq "tx-off: error-queue stamps" 0 "$CNT"
assert_eq "tx_timestamps with TX type off" 0 "$(ethtool_stat scx0 tx_timestamps)"

# on
out=$(in_ns "$NS" hwstamp_ctl -i scx1 -r 1)
grep -A2 "new settings" <<< "$out" | grep -q "rx_filter 1" || fail "hwstamp_ctl -r 1 on scx1: $out"
out=$(hwstamp_ctl -i scx0 -t 1)
grep -A2 "new settings" <<< "$out" | grep -q "tx_type 1" || fail "hwstamp_ctl -t 1 on scx0: $out"
stamps rx "rx-on"
assert_eq "rx-on: datagrams received" "$N" "$CNT"
assert_eq "rx-on: every datagram hardware-stamped" "$N" "$HWN"
assert_eq "rx-on: stamps strictly increasing" 1 "$MONO"
assert_eq "rx-on: stamps within the PHC's before/after" "$N" "$INWIN"
stamps tx "tx-on"
assert_eq "tx-on: error-queue stamps" "$N" "$CNT"
assert_eq "tx-on: every one a hardware stamp" "$N" "$HWN"
assert_eq "tx-on: stamps strictly increasing" 1 "$MONO"
assert_eq "tx-on: stamps within the PHC's before/after" "$N" "$INWIN"
sleep 0.5
assert_eq "tx_timestamps" "$N" "$(ethtool_stat scx0 tx_timestamps)"
assert_eq "tx_timestamps_delivered" "$N" "$(ethtool_stat scx0 tx_timestamps_delivered)"
assert_eq "tx_timestamps_lost" 0 "$(ethtool_stat scx0 tx_timestamps_lost)"
assert_ge "scx1 rx_packets: every datagram of the four runs" $(( 4 * N )) \
	$(( $(ethtool_stat scx1 rx_packets "$NS") - r0 ))

# ---- the rule with CQE compression (refused either way)
rc=0; in_ns "$NS" ethtool --set-priv-flags scx1 rx_cqe_compress on 2>/dev/null || rc=$?
assert_ne "rx_cqe_compress on while RX stamps are on: refused" 0 "$rc"
klog_has "RX hardware timestamps are incompatible with CQE compression" ||
	fail "no kernel log line for the refused rx_cqe_compress"
in_ns "$NS" hwstamp_ctl -i scx1 -r 0 > /dev/null
in_ns "$NS" ethtool --set-priv-flags scx1 rx_cqe_compress on
rc=0; in_ns "$NS" hwstamp_ctl -i scx1 -r 1 > /dev/null 2>&1 || rc=$?
assert_ne "RX stamps while rx_cqe_compress is on: refused" 0 "$rc"
out=$(in_ns "$NS" hwstamp_ctl -i scx1)
grep -q "rx_filter 0" <<< "$out" || fail "RX filter after the refusal: $out"
in_ns "$NS" ethtool --set-priv-flags scx1 rx_cqe_compress off
hwstamp_ctl -i scx0 -t 0 > /dev/null
assert_pair_counters_agree
