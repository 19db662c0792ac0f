#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 300
#
# linuxptp over the pair with hardware timestamps: ptp4l on scx0 (master,
# priority1 1) and on scx1 (slave only, netns ns1), UDP/IPv4, 4 syncs a
# second, 40 s. scx1's PHC starts 3 s off; the slave must lock (SLAVE),
# the median of its last five rms offsets within 100 us, every path delay
# positive (a TX stamp before the peer's RX stamp of the frame), and the
# two PHCs must then agree (phc_ctl cmp against CLOCK_REALTIME, both) to
# within 2 ms. No TX timestamp may be lost (tx_timestamps_lost 0, no
# "timed out while polling for tx timestamp" in ptp4l's logs).
source "$(dirname "$0")/lib.sh"
need_cmd ethtool ptp4l phc_ctl
unset SCX_RX_CQE_COMPRESS	# RX stamps exclude compression

scx_setup channels=1
phc_index() { in_ns "${2:-}" ethtool -T "$1" | sed -n 's/^PTP Hardware Clock: *//p'; }
PTP0=/dev/ptp$(phc_index scx0) PTP1=/dev/ptp$(phc_index scx1 "$NS")
phc_off() { phc_ctl "$1" cmp 2>&1 | sed -n 's/.*offset from CLOCK_REALTIME is \(-\?[0-9]*\)ns.*/\1/p'; }
phc_ctl "$PTP0" set > /dev/null 2>&1
phc_ctl "$PTP1" set > /dev/null 2>&1
phc_ctl "$PTP1" adj 3 > /dev/null 2>&1
log "before: realtime - PHC: scx0 $(phc_off "$PTP0") ns, scx1 $(phc_off "$PTP1") ns"

OPTS=(-H -4 -m --logSyncInterval=-2 --tx_timestamp_timeout=200)
M=$SCX_TEST_OUT/ptp4l-master.log S=$SCX_TEST_OUT/ptp4l-slave.log
bg_start sh -c "exec timeout 45 ptp4l -i scx0 ${OPTS[*]} --priority1=1 > $M 2>&1"
MPID=$BG_PID
bg_start in_ns "$NS" sh -c "exec timeout 45 ptp4l -i scx1 ${OPTS[*]} -s > $S 2>&1"
SPID=$BG_PID
sleep 40	# (no polling: every exec is slow under TCG)
bg_stop "$SPID" "$MPID"
grep -q "UNCALIBRATED to SLAVE" "$S" || fail "the slave never locked: $(tail -n 5 "$S" | tr '\n' '|')"
# once a second, locked: "rms R max M freq F +/- S [delay D +/- S]"
mapfile -t rms < <(sed -n '/UNCALIBRATED to SLAVE/,$s/.* rms *\([0-9]*\) max.*/\1/p' "$S")
mapfile -t delay < <(sed -n '/UNCALIBRATED to SLAVE/,$s/.* delay *\(-\?[0-9]*\) +\/-.*/\1/p' "$S")
log "slave: ${#rms[@]} summaries locked; rms ${rms[*]}; path delay ${delay[*]}"
assert_ge "summaries while locked" 10 "${#rms[@]}"
# the median of the last five (TCG has scheduling hiccups of 100 ms)
med=$(printf '%s\n' "${rms[@]: -5}" | sort -n | sed -n 3p)
assert_ge "median rms offset of the last five seconds within 100 us (100000 - rms)" 0 $(( 100000 - med ))
# a TX stamp never after the peer's RX stamp of the same frame: positive delays
neg=0
for d in "${delay[@]}"; do [ "$d" -ge 0 ] || neg=$((neg + 1)); done
assert_eq "negative path delays" 0 "$neg"
a=$(phc_off "$PTP0") b=$(phc_off "$PTP1")
log "after: realtime - PHC: scx0 $a ns, scx1 $b ns"
d=$(( a - b )); d=${d#-}
assert_ge "the PHCs 3 s apart now agree within 2 ms (2000000 - |diff|)" 0 $(( 2000000 - d ))
! grep -q "timed out while polling for tx timestamp" "$S" "$M" ||
	fail "ptp4l lost a TX timestamp: $(grep -h "timed out" "$S" "$M" | head -n 1)"
assert_eq "scx0 tx_timestamps_lost" 0 "$(ethtool_stat scx0 tx_timestamps_lost)"
assert_eq "scx1 tx_timestamps_lost" 0 "$(ethtool_stat scx1 tx_timestamps_lost "$NS")"
assert_gt "scx1 tx_timestamps_delivered (delay requests)" 0 "$(ethtool_stat scx1 tx_timestamps_delivered "$NS")"
