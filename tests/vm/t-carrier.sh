#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 150
#
# Carrier is up only while both ends of a cable are up: both down -> no
# carrier; one end up -> NO-CARRIER on it; both up -> carrier on both; one
# end down -> the other loses carrier. With two pairs, the cables are
# scx0<->scx1 and scx2<->scx3 and independent.
source "$(dirname "$0")/lib.sh"

# expect DEV CARRIER OPERSTATE: CARRIER 1|0|- ("-": device down); OPERSTATE
# "down" also accepts "lowerlayerdown" (what a device reporting its peer as
# iflink, like veth, shows without carrier).
expect() {
	local c o f
	if ! wait_for 5 _state_is "$@"; then
		c=$(dev_carrier "$1"); o=$(dev_operstate "$1"); f=$(dev_flags "$1")
		fail "$1: expected carrier=$2 operstate=$3, got carrier=$c operstate=$o flags <$f>"
	fi
	f=$(dev_flags "$1")
	case "$2" in
	1) [[ ",$f," == *,LOWER_UP,* ]] || fail "$1: carrier but flags <$f> lack LOWER_UP" ;;
	0) [[ ",$f," == *,NO-CARRIER,* ]] || fail "$1: up without carrier but flags <$f> lack NO-CARRIER" ;;
	-) [[ ",$f," != *,UP,* ]] || fail "$1: expected down, flags <$f>" ;;
	esac
	log "ok: $1 carrier=$2 operstate=$3 <$f>"
}
_state_is() {
	local o; o=$(dev_operstate "$1")
	[ "$(dev_carrier "$1")" == "$2" ] && { [ "$o" == "$3" ] || [ "$3-$o" == down-lowerlayerdown ]; }
}

scx_load nr_pairs=2
expect scx0 - down
expect scx1 - down

ip link set scx0 up
expect scx0 0 down
expect scx1 - down

ip link set scx1 up
expect scx0 1 up
expect scx1 1 up
# The other pair is not cabled to this one.
expect scx2 - down
ip link set scx2 up
expect scx2 0 down
expect scx0 1 up

ip link set scx1 down
expect scx0 0 down
expect scx1 - down
expect scx2 0 down

ip link set scx3 up
expect scx2 1 up
expect scx3 1 up
expect scx0 0 down

ip link set scx1 up
expect scx0 1 up
expect scx1 1 up

ip link set scx0 down
expect scx1 0 down

# Carrier also follows the peer across network namespaces.
ip link set scx0 up
ns_create "$NS"
ip link set scx1 netns "$NS"
ip -n "$NS" link set scx1 up
wait_carrier scx0
wait_carrier scx1 "$NS"
ip -n "$NS" link set scx1 down
expect scx0 0 down
log "ok: carrier follows a peer in another netns"
