#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 300
#
# The link as ethtool shows and sets it (cx7 by default: 1G .. 400G):
# - ports down: no speed; one end up: "Link detected: no (Autoneg, No
#   partner detected)"; both up: 400000Mb/s full duplex, autoneg on, Direct
#   Attach Copper, every mode supported and advertised, the partner's modes.
# - advertising only 25G's modes on scx0: both ends run 25G, scx1 sees
#   them as the partner's.
# - scx1 forced to 200G against scx0's 25G: no carrier at either end, and
#   each says why ("... during force mode" at the forced end); each counts
#   one link_down_events_phy (the speed change before was none), scx1 a
#   second one when scx0 goes down and up.
# - scx0 then negotiating 200G (ethtool -s speed 200000 autoneg on): up at
#   200G, ping crosses.
# - refused, settings unchanged: a speed no protocol has, half duplex.
# - cx4: nothing above 100G; forcing 200G is refused.
# softcx's settings stay in the device across down/up (as the PTYS admin
# register of mlx5).
source "$(dirname "$0")/lib.sh"
need_cmd ethtool ping

# ethtool's whole output first: a reader that stops early (head, awk's
# exit) would end ethtool with SIGPIPE, a failure under pipefail.
# field DEV NS NAME: the value after "NAME:" in `ethtool DEV`
field() {
	local out; out=$(in_ns "$2" ethtool "$1")
	sed -n "s/^[[:space:]]*$3: *//p" <<< "$out" | sed -n 1p
}
# modes DEV NS SECTION: the link modes of a section ("Supported link modes", ...), one line
modes() {
	local out; out=$(in_ns "$2" ethtool "$1")
	awk -v s="$3:" '
		index($0, s) { on = 1; sub(".*" s, ""); print; next }
		on && /^\t[^\t ]/ { on = 0 }
		on { print }' <<< "$out" | tr -s ' \t\n' ' ' | sed 's/^ //; s/ $//'
}
expect_field() {
	local got; got=$(field "$1" "$2" "$3")
	[ "$got" == "$4" ] || fail "$1: $3 is '$got', expected '$4'"
}
expect_modes() {
	local got; got=$(modes "$1" "$2" "$3")
	[ "$got" == "$4" ] || fail "$1: $3: '$got', expected '$4'"
}

M25="25000baseCR/Full 25000baseKR/Full 25000baseSR/Full"

scx_load
expect_field scx0 "" Speed "Unknown!"
ip link set scx0 up
wait_no_carrier scx0
expect_field scx0 "" "Link detected" "no (Autoneg, No partner detected)"

ns_create "$NS"
ip link set scx1 netns "$NS"
ip addr add "$IP0/24" dev scx0
ip -n "$NS" addr add "$IP1/24" dev scx1
ip -n "$NS" link set scx1 up
wait_carrier scx0
wait_carrier scx1 "$NS"
for d in scx0:"" scx1:"$NS"; do
	dev=${d%%:*} ns=${d#*:}
	expect_field "$dev" "$ns" Speed 400000Mb/s
	expect_field "$dev" "$ns" Duplex Full
	expect_field "$dev" "$ns" Auto-negotiation on
	expect_field "$dev" "$ns" Port "Direct Attach Copper"
	expect_field "$dev" "$ns" "Link detected" yes
	sup=$(modes "$dev" "$ns" "Supported link modes")
	for m in 1000baseKX/Full 10000baseCR/Full 25000baseCR/Full 40000baseCR4/Full \
		50000baseCR2/Full 50000baseCR/Full 100000baseCR4/Full 100000baseCR2/Full \
		100000baseCR/Full 200000baseCR4/Full 200000baseCR2/Full 400000baseCR4/Full; do
		[[ " $sup " == *" $m "* ]] || fail "$dev: $m not in the supported link modes '$sup'"
	done
	expect_modes "$dev" "$ns" "Advertised link modes" "$sup"
	expect_modes "$dev" "$ns" "Link partner advertised link modes" "$sup"
done
log "ok: both up at 400G, autoneg, every mode offered"

# 25000baseCR/KR/SR_Full are link mode bits 31, 32, 33
ethtool -s scx0 advertise 0x380000000
wait_carrier scx0
wait_carrier scx1 "$NS"
expect_field scx0 "" Speed 25000Mb/s
expect_field scx1 "$NS" Speed 25000Mb/s
expect_modes scx0 "" "Advertised link modes" "$M25"
expect_modes scx1 "$NS" "Link partner advertised link modes" "$M25"
ping_ok "" "$IP1" 10
log "ok: scx0 offers 25G only: both run 25G"

ip netns exec "$NS" ethtool -s scx1 speed 200000 autoneg off
wait_no_carrier scx0
wait_no_carrier scx1 "$NS"
expect_field scx0 "" Speed "Unknown!"
expect_field scx0 "" "Link detected" "no (Autoneg, No partner detected)"
expect_field scx1 "$NS" "Link detected" "no (Autoneg, No partner detected during force mode)"
expect_field scx1 "$NS" Auto-negotiation off
expect_modes scx1 "$NS" "Advertised link modes" \
	"200000baseKR4/Full 200000baseSR4/Full 200000baseLR4_ER4_FR4/Full 200000baseDR4/Full 200000baseCR4/Full 200000baseKR2/Full 200000baseSR2/Full 200000baseLR2_ER2_FR2/Full 200000baseDR2/Full 200000baseCR2/Full"
assert_eq "scx0 link_down_events_phy" 1 "$(cnt scx0 "" link_down_events_phy)"
assert_eq "scx1 link_down_events_phy" 1 "$(cnt scx1 "$NS" link_down_events_phy)"
log "ok: 25G offered against a forced 200G: down at both ends, with the reasons, one down event each"

ethtool -s scx0 speed 200000 autoneg on
wait_carrier scx0
wait_carrier scx1 "$NS"
expect_field scx0 "" Speed 200000Mb/s
expect_field scx1 "$NS" Speed 200000Mb/s
ping_ok "" "$IP1" 10
log "ok: scx0 negotiating 200G against scx1 forced to it: up, ping crosses"

dmesg -C
assert_fails "speed 12345" ethtool -s scx0 speed 12345 autoneg off
klog_has "scx0: link: speed 12345 is not supported" || fail "no reason in the log for speed 12345"
assert_fails "half duplex" ethtool -s scx0 duplex half
expect_field scx0 "" Speed 200000Mb/s
expect_field scx0 "" Auto-negotiation on
log "ok: a speed of no protocol and half duplex refused, settings unchanged"

# the settings are the device's: kept across down and up
ip link set scx0 down
ip link set scx0 up
wait_carrier scx0
expect_field scx0 "" Speed 200000Mb/s
assert_eq "scx1 link_down_events_phy after scx0 down/up" 2 "$(cnt scx1 "$NS" link_down_events_phy)"

scx_load model=cx4
sup=$(modes scx0 "" "Supported link modes")
[[ "$sup" == *100000baseCR4/Full* && "$sup" != *200000* && "$sup" != *400000* ]] ||
	fail "cx4: supported link modes '$sup'"
assert_fails "cx4: 200G" ethtool -s scx0 speed 200000 autoneg off
ip link set scx0 up
ip link set scx1 up
wait_carrier scx0
expect_field scx0 "" Speed 100000Mb/s
log "ok: cx4 runs up to 100G and refuses 200G"
