#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 150
#
# A unicast MAC address can be set (on a running port, as mlx5 allows) and is
# used: after flushing the peer's neighbour cache, ping works and the peer
# learns the new address. Multicast and all-zero addresses are refused and
# leave the address unchanged.
source "$(dirname "$0")/lib.sh"
need_cmd ping

scx_setup
NEW=02:11:22:33:44:55
ping_ok "" "$IP1" 3
assert_ok "set scx0 address $NEW (port up)" ip link set scx0 address $NEW
assert_eq "scx0 address (sysfs)" $NEW "$(dev_mac scx0)"
ip -o link show dev scx0 | grep -q "link/ether $NEW " || fail "ip link show scx0 does not show $NEW: $(ip -o link show dev scx0)"
log "ok: ip link shows $NEW"

ip -n "$NS" neigh flush dev scx1
ping_ok "$NS" "$IP0" 5
ping_ok "" "$IP1" 5
lladdr=$(ip -n "$NS" neigh show "$IP0" dev scx1 | sed -n 's/.*lladdr \([0-9a-f:]*\).*/\1/p')
assert_eq "ns1 neighbour entry for $IP0" $NEW "$lladdr"

assert_fails "multicast address refused" ip link set scx0 address 01:00:5e:00:00:01
assert_fails "all-zero address refused" ip link set scx0 address 00:00:00:00:00:00
assert_eq "scx0 address after refusals" $NEW "$(dev_mac scx0)"

# Also while down, and the new address survives up.
ip link set scx0 down
assert_ok "set scx0 address while down" ip link set scx0 address 02:aa:bb:cc:dd:01
ip link set scx0 up
wait_carrier scx0
assert_eq "scx0 address after up" 02:aa:bb:cc:dd:01 "$(dev_mac scx0)"
ip -n "$NS" neigh flush dev scx1
ping_ok "" "$IP1" 3
