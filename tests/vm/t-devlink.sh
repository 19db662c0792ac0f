#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 600
#
# devlink, as mlx5 users read it:
# - `devlink dev info platform/softcx`: driver softcx, a serial number, the
#   device generation (asic.id) and a running fw version; one physical port
#   per netdev (`devlink port show`);
# - each port has health reporters tx and rx, healthy with no errors after
#   load; an RX error CQE on scx1 (inject_rx_error) shows as one rx error
#   and one recovery, the dump names the RQ; a TX error CQE on scx0
#   (inject_tx_error) as tx errors and recoveries equal to tx_recover, the
#   dump names the SQ; both reporters healthy again, traffic flowing;
# - diagnose lists the port's channels with their CQ numbers (as in
#   debugfs softcx/scxN/cqs);
# - recover on a healthy reporter changes nothing; with auto_recover off a
#   TX error leaves the tx reporter in error (errors counted, no recovery;
#   the queue runs again, as the driver recovered it) until `devlink health
#   recover` rebuilds scx0's channels: healthy, recover count + 1, new CQ
#   numbers, traffic flowing.
source "$(dirname "$0")/lib.sh"
need_cmd devlink ethtool ping python3
DL=platform/softcx
scx_setup channels=2 model=cx6dx
OUT=$SCX_TEST_OUT

# health PORT REPORTER: "state error recover" from devlink's JSON
health() {
	devlink -j health show "$DL/$1" reporter "$2" > "$OUT/health.json" ||
		fail "devlink health show $DL/$1 reporter $2"
	python3 -c 'import json, sys
h = json.load(open(sys.argv[1]))["health"]
r = [r for v in h.values() for r in v if r["reporter"] == sys.argv[2]][0]
print(r["state"], r["error"], r["recover"])' "$OUT/health.json" "$2"
}

info=$(devlink dev info "$DL") || fail "devlink dev info $DL"
log "devlink dev info: $(echo "$info" | tr -s ' \n' ' ')"
assert_ok "driver softcx" grep -q 'driver softcx' <<< "$info"
assert_ok "serial number" grep -q 'serial_number softcx' <<< "$info"
assert_ok "asic.id cx6dx" grep -Eq 'asic.id cx6dx' <<< "$info"
assert_ok "running fw version" grep -Eq 'fw [0-9]' <<< "$info"
# ethtool -i as on mlx5: that firmware version with the board (the model); the kernel's release as version
fw=$(sed -n 's/^ *fw \([0-9][^ ]*\)$/\1/p' <<< "$info")
drv=$(ethtool -i scx0) || fail "ethtool -i scx0"
assert_eq "ethtool -i firmware-version" "$fw (cx6dx)" "$(sed -n 's/^firmware-version: //p' <<< "$drv")"
assert_eq "ethtool -i version" "$(uname -r)" "$(sed -n 's/^version: //p' <<< "$drv")"
ports=$(devlink port show) || fail "devlink port show"
log "devlink port show: $(echo "$ports" | tr '\n' '|')"
assert_eq "devlink ports" 2 "$(grep -c "^$DL/" <<< "$ports")"
assert_ok "port 0 is scx0, physical" grep -Eq "^$DL/0: type eth netdev scx0 flavour physical port 0" <<< "$ports"

for p in 0 1; do
	for r in tx rx; do assert_eq "port $p $r after load" "healthy 0 0" "$(health $p $r)"; done
done

# RX: an error CQE on scx1
debugfs_hook scx1/inject_rx_error
ping_ok "" "$IP1" 2
echo 1 > "$INJ"
# (a striding RQ checks a WQE when it starts it: up to 32 frames later)
in_ns "" ping -n -q -c 40 -i 0.05 -W 1 "$IP1" >/dev/null 2>&1 || true
wait_for 10 sh -c "[ \$(ip netns exec $NS ethtool -S scx1 | sed -n 's/^ *rx_recover: //p') -ge 1 ]" ||
	fail "no RX recovery"
wait_for 5 sh -c "devlink health show $DL/1 reporter rx | grep -q 'error 1 '" || true
assert_eq "port 1 rx after one RX error" "healthy 1 1" "$(health 1 rx)"
assert_eq "port 1 tx untouched" "healthy 0 0" "$(health 1 tx)"
dump=$(devlink health dump show "$DL/1" reporter rx) || fail "devlink health dump show rx"
log "rx dump: $(echo "$dump" | tr -s ' \n' ' ')"
assert_ok "rx dump names the RQ" grep -q 'queue: RQ' <<< "$dump"
ping_ok "" "$IP1" 3

# tx_error N: an error CQE on each of scx0's SQs, until tx_recover > N
tx_error() {
	debugfs_hook scx0/inject_tx_error
	echo 1 > "$INJ"
	in_ns "" ping -n -q -c 3 -i 0.2 -W 1 "$IP1" >/dev/null 2>&1 || true
	wait_for 10 sh -c "[ \$(ethtool -S scx0 | sed -n 's/^ *tx_recover: //p') -gt $1 ]" ||
		fail "no TX recovery"
	sleep 1	# the report follows from a work
}
tx_error 0
read -r st er rc <<< "$(health 0 tx)"
rec=$(ethtool_stat scx0 tx_recover)
log "port 0 tx: state $st error $er recover $rc; tx_recover $rec"
assert_eq "port 0 tx healthy" healthy "$st"
assert_eq "port 0 tx errors = tx_recover" "$rec" "$er"
assert_eq "port 0 tx recoveries = tx_recover" "$rec" "$rc"
dump=$(devlink health dump show "$DL/0" reporter tx) || fail "devlink health dump show tx"
assert_ok "tx dump names the SQ" grep -q 'queue: SQ' <<< "$dump"
ping_ok "" "$IP1" 3

# diagnose: the port's channels and their CQs
diag=$(devlink health diagnose "$DL/0" reporter rx) || fail "devlink health diagnose"
log "rx diagnose: $(echo "$diag" | tr -s ' \n' ' ')"
assert_eq "diagnose lists 2 channels" 2 "$(grep -o 'channel: [0-9]' <<< "$diag" | wc -l)"
debugfs_hook scx0/cqs
cq0=$(awk '$1 == "ch0" { print $3 }' "$INJ")
assert_ok "diagnose: channel 0's RQ CQ as in debugfs ($cq0)" grep -q "cqn: $((cq0))" <<< "$diag"

# auto_recover off: the reporter stays in error (the driver recovered the
# queue all the same) until `devlink health recover` rebuilds the channels;
# a recover on a healthy reporter changes nothing
assert_ok "recover while healthy" devlink health recover "$DL/0" reporter tx
assert_eq "port 0 tx after a recover while healthy" "healthy $er $rc" "$(health 0 tx)"
assert_eq "no rebuild while healthy" "$cq0" "$(awk '$1 == "ch0" { print $3 }' "$INJ")"
assert_ok "port 0 tx auto_recover false" devlink health set "$DL/0" reporter tx auto_recover false
tx_error "$rec"
read -r st er2 rc2 <<< "$(health 0 tx)"
log "port 0 tx without auto_recover: state $st error $er2 recover $rc2"
assert_eq "port 0 tx in error" error "$st"
assert_gt "port 0 tx errors counted" "$er" "$er2"
assert_eq "port 0 tx no recovery counted" "$rc" "$rc2"
ping_ok "" "$IP1" 3
assert_ok "devlink health recover port 0 tx" devlink health recover "$DL/0" reporter tx
assert_eq "port 0 tx recovered on demand" "healthy $er2 $((rc + 1))" "$(health 0 tx)"
debugfs_hook scx0/cqs
cq1=$(awk '$1 == "ch0" { print $3 }' "$INJ")
assert_ne "channel 0's RQ CQ is new after the rebuild" "$cq0" "$cq1"
wait_carrier scx0
ping_ok "" "$IP1" 5

# Lock order under concurrency. devlink calls diagnose and recover with its
# instance lock held, and both take RTNL inside it (devlink lock, then
# RTNL: the order of the 6.1 kernel, which calls the devlink lock from
# `ethtool -i` only after RTNL is released). ip link, ethtool -L/-S/-i and
# scx0's own recoveries take RTNL alone. All of them run at once for a
# while, scx0's tx reporter pushed into error before each on-demand
# recover (auto_recover is off), so that every recover rebuilds the
# channels under both locks. Nothing may hang (each command under
# `timeout`), every command must succeed, and the port must work after.
CONC_N=12
conc_loop() {	# NAME SCRIPT: CONC_N times `bash -c SCRIPT`, failures into $OUT/conc.NAME
	local name=$1 i rc
	: > "$OUT/conc.$name"
	for ((i = 1; i <= CONC_N; i++)); do
		rc=0
		timeout 120 bash -c "set -e; $2" > /dev/null 2>"$OUT/conc.$name.err" || rc=$?
		[ $rc -eq 0 ] || echo "$name $i: status $rc: $(tr '\n' ' ' < "$OUT/conc.$name.err")" >> "$OUT/conc.$name"
	done
}
declare -A JOBS=(
	[diag]="devlink health diagnose $DL/0 reporter tx; devlink health diagnose $DL/0 reporter rx"
	# a TX error CQE (nothing while scx0 is down), then recover on demand
	[recover]="echo 1 > /sys/kernel/debug/softcx/scx0/inject_tx_error 2>/dev/null || true
		ping -n -q -c 2 -i 0.2 -W 1 $IP1 > /dev/null 2>&1 || true
		devlink health recover $DL/0 reporter tx"
	[channels]="ethtool -L scx0 combined 1; ethtool -L scx0 combined 2"
	[link]="ip link set scx0 down; ip link set scx0 up"
	[info]="ethtool -i scx0; devlink dev info $DL; ethtool -S scx0; devlink health show"
)
read -r _ _ rc0 <<< "$(health 0 tx)"
t0=$SECONDS
pids=()
for job in "${!JOBS[@]}"; do
	bg_start conc_loop "$job" "${JOBS[$job]}"
	pids+=("$BG_PID")
done
for p in "${pids[@]}"; do wait "$p"; done
log "lock-order run: $CONC_N rounds of 5 concurrent jobs in $((SECONDS - t0)) s"
for job in "${!JOBS[@]}"; do
	assert_eq "lock-order run: $job failures" "" "$(cat "$OUT/conc.$job")"
done
read -r _ _ rc1 <<< "$(health 0 tx)"
log "port 0 tx on-demand recoveries during the run: $((rc1 - rc0))"
assert_gt "lock-order run: channel rebuilds by devlink health recover" "$rc0" "$rc1"
assert_eq "no task blocked (hung task detector)" 0 "$(dmesg | grep -c 'blocked for more than' || true)"
# new queues (an error injected last may still be armed on an idle SQ),
# then the reporter out of error
assert_ok "ethtool -L scx0 combined 1" ethtool -L scx0 combined 1
assert_ok "ethtool -L scx0 combined 2" ethtool -L scx0 combined 2
assert_ok "port 0 tx reporter recovers" devlink health recover "$DL/0" reporter tx
assert_eq "port 0 tx healthy after the run" healthy "$(health 0 tx | cut -d' ' -f1)"
wait_carrier scx0
ping_ok "" "$IP1" 5
