#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 300
#
# FEC as ethtool shows and sets it (--show-fec, --set-fec; mlx5's PPLM
# semantics), cx7 by default:
# - both up at 400G under the auto policy: "Configured: Auto", active RS
#   (RS(544,514), the only FEC of PAM4 lanes); `ethtool scx0` lists the
#   supported FEC modes None RS BASER LLRS and advertises the active one.
# - a noisy cable (debugfs scx0/inject_bit_error 3): the RS FEC corrects
#   the errors, every ping arrives, scx1's `ethtool -I --show-fec` counts 3
#   corrected blocks and no CRC error; an FCS error (inject_fcs_error 1)
#   is an uncorrectable block and a CRC error, that ping lost.
# - at 25G (scx0 advertises 25G only) auto runs RS(528,514). scx0 off
#   against scx1's RS: no carrier at either end, each naming the FEC that
#   did not lock ("PCS did not acquire block lock" at the end without
#   FEC, "RS FEC is not locked" at the other), active FEC None, one
#   link_down_events_phy each. scx1 off too: up without FEC, ping crosses;
#   bit errors are then CRC errors (those pings lost), and no FEC
#   statistics are shown.
# - BASE-R at both ends at 25G: up, active BaseR; back at 400G the same
#   policy runs RS (400G runs nothing else), ping crosses.
# - LLRS at 25G, which 25G does not run: the speed's default (RS).
# - refused with the reason in the log, policy unchanged: two encodings
#   at once; on cx4 (no 50G lanes) LLRS, which none of its speeds runs.
# The policy is the device's: kept across down and up.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool ping

# fec DEV NS: "CONFIGURED/ACTIVE" from ethtool --show-fec
fec() {
	local out; out=$(in_ns "$2" ethtool --show-fec "$1") || fail "ethtool --show-fec $1 failed"
	echo "$(sed -n 's/^.*Configured FEC encodings: *//p' <<< "$out" | xargs)/$(sed -n 's/^Active FEC encoding: *//p' <<< "$out" | xargs)"
}
expect_fec() { local got; got=$(fec "$1" "$2"); [ "$got" == "$3" ] || fail "$1: FEC configured/active '$got', expected '$3'"; }
set_fec() { in_ns "$2" ethtool --set-fec "$1" encoding "${@:3}" || fail "ethtool --set-fec $1 encoding ${*:3} failed"; }
# field DEV NS NAME: the value after "NAME:" in `ethtool DEV`, spaces squeezed
field() {
	local out; out=$(in_ns "$2" ethtool "$1")
	sed -n "s/^[[:space:]]*$3: *//p" <<< "$out" | sed -n 1p | tr -s ' \t' ' '
}
# fec_stat NAME: scx1's FEC statistic NAME (ethtool -I --show-fec), "-" when none is shown
fec_stat() {
	local out; out=$(in_ns "$NS" ethtool -I --show-fec scx1) || fail "ethtool -I --show-fec scx1 failed"
	local v; v=$(sed -n "s/^ *$1: *//p" <<< "$out")
	echo "${v:--}"
}
# pings N: echo requests scx0 -> scx1, N sent; prints how many came back
pings() {
	local out; out=$(ping -n -q -c "$1" -i 0.05 -W 1 "$IP1" 2>&1) || true
	sed -n 's/.* \([0-9]*\) received.*/\1/p' <<< "$out"
}
expect_field() {
	local got; got=$(field "$1" "$2" "$3")
	[ "$got" == "$4" ] || fail "$1: $3 is '$got', expected '$4'"
}

scx_load
ns_create "$NS"
ip link set scx1 netns "$NS"
ip addr add "$IP0/24" dev scx0
ip -n "$NS" addr add "$IP1/24" dev scx1
ip link set scx0 up
ip -n "$NS" link set scx1 up
wait_carrier scx0
wait_carrier scx1 "$NS"
for d in scx0:"" scx1:"$NS"; do
	dev=${d%%:*} ns=${d#*:}
	expect_fec "$dev" "$ns" Auto/RS
	expect_field "$dev" "$ns" "Supported FEC modes" "None RS BASER LLRS"
	expect_field "$dev" "$ns" "Advertised FEC modes" RS
done
out=$(ethtool --json --show-fec scx0)
python3 -c 'import json, sys; d = json.loads(sys.argv[1])[0]; assert d["config"] == ["Auto"] and d["active"] == ["RS"], d' "$out" ||
	fail "ethtool --json --show-fec scx0: $out"
log "ok: 400G, auto: RS; supported None RS BASER LLRS"

# static neighbours: the damaged frames are the pings, not an ARP request
ip neigh replace "$IP1" lladdr "$(dev_mac scx1 "$NS")" dev scx0 nud permanent
ip -n "$NS" neigh replace "$IP0" lladdr "$(dev_mac scx0)" dev scx1 nud permanent
debugfs_hook scx0/inject_bit_error
BITS=$INJ
debugfs_hook scx0/inject_fcs_error
FCS=$INJ
assert_eq "scx1 corrected_blocks before" 0 "$(fec_stat corrected_blocks)"
echo 3 > "$BITS"
assert_eq "pings back through the noise (RS)" 5 "$(pings 5)"
assert_eq "scx1 corrected_blocks" 3 "$(fec_stat corrected_blocks)"
assert_eq "scx1 uncorrectable_blocks" 0 "$(fec_stat uncorrectable_blocks)"
assert_eq "scx1 rx_crc_errors_phy" 0 "$(cnt scx1 "$NS" rx_crc_errors_phy)"
echo 1 > "$FCS"
assert_eq "pings back after an uncorrectable error" 2 "$(pings 3)"
assert_eq "scx1 uncorrectable_blocks" 1 "$(fec_stat uncorrectable_blocks)"
assert_eq "scx1 rx_crc_errors_phy" 1 "$(cnt scx1 "$NS" rx_crc_errors_phy)"
log "ok: RS corrects bit errors (3 corrected blocks, pings intact); an FCS error is uncorrectable"

# 25000baseCR/KR/SR_Full are link mode bits 31, 32, 33
ethtool -s scx0 advertise 0x380000000
wait_carrier scx0
expect_field scx0 "" Speed 25000Mb/s
expect_fec scx0 "" Auto/RS
set_fec scx0 "" off
wait_no_carrier scx0
wait_no_carrier scx1 "$NS"
expect_fec scx0 "" Off/None
expect_fec scx1 "$NS" Auto/None
expect_field scx0 "" "Link detected" "no (Logical mismatch, PCS did not acquire block lock)"
expect_field scx1 "$NS" "Link detected" "no (Logical mismatch, RS FEC is not locked)"
assert_eq "scx0 link_down_events_phy" 1 "$(cnt scx0 "" link_down_events_phy)"
assert_eq "scx1 link_down_events_phy" 1 "$(cnt scx1 "$NS" link_down_events_phy)"
log "ok: 25G, FEC off against RS: down at both ends, each names the FEC that did not lock"

set_fec scx1 "$NS" off
wait_carrier scx0
wait_carrier scx1 "$NS"
expect_fec scx0 "" Off/Off
expect_fec scx1 "$NS" Off/Off
expect_field scx0 "" "Advertised FEC modes" None
ping_ok "" "$IP1" 5
echo 2 > "$BITS"
assert_eq "pings back through the noise (no FEC)" 2 "$(pings 4)"
assert_eq "scx1 rx_crc_errors_phy" 3 "$(cnt scx1 "$NS" rx_crc_errors_phy)"
assert_eq "scx1 FEC statistics without FEC" - "$(fec_stat corrected_blocks)"
log "ok: off at both ends: up without FEC, ping crosses; bit errors are CRC errors"

set_fec scx0 "" baser
set_fec scx1 "$NS" baser
wait_carrier scx0
expect_fec scx0 "" BaseR/BaseR
expect_fec scx1 "$NS" BaseR/BaseR
ping_ok "" "$IP1" 5
ethtool -s scx0 speed 400000 autoneg on
wait_carrier scx0
wait_carrier scx1 "$NS"
expect_field scx0 "" Speed 400000Mb/s
expect_fec scx0 "" BaseR/RS
expect_fec scx1 "$NS" BaseR/RS
ping_ok "" "$IP1" 5
log "ok: BASE-R at both ends: BaseR at 25G, RS at 400G (its only FEC)"

ethtool -s scx0 advertise 0x380000000
wait_carrier scx0
set_fec scx0 "" llrs
set_fec scx1 "$NS" auto
wait_carrier scx0
expect_fec scx0 "" LLRS/RS
expect_fec scx1 "$NS" Auto/RS
log "ok: LLRS at 25G, which 25G does not run: its default, RS"

dmesg -C
assert_fails "two encodings" ethtool --set-fec scx0 encoding rs off
klog_has "scx0: fec: give one encoding" || fail "no reason in the log for two encodings"
expect_fec scx0 "" LLRS/RS
ip link set scx0 down
ip link set scx0 up
wait_carrier scx0
expect_fec scx0 "" LLRS/RS
log "ok: two encodings refused; the policy kept across down and up"

scx_load model=cx4
expect_field scx0 "" "Supported FEC modes" "None RS BASER"
dmesg -C
assert_fails "cx4: llrs" ethtool --set-fec scx0 encoding llrs
klog_has "scx0: fec: no speed of the port runs that FEC mode" || fail "cx4: no reason in the log for llrs"
expect_fec scx0 "" Auto/None
ip link set scx0 up
ip link set scx1 up
wait_carrier scx0
expect_fec scx0 "" Auto/RS
log "ok: cx4 has no LLRS; 100G runs RS(528,514)"
