#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 200
#
# ping both ways between scx0 (root netns) and scx1 (ns1) without loss, with
# small, 1400-byte and (after MTU 9000 on both) 8000-byte unfragmented packets.
source "$(dirname "$0")/lib.sh"
need_cmd ping

scx_setup
ping_ok "" "$IP1" 20
ping_ok "$NS" "$IP0" 20
ping_ok "" "$IP1" 5 -s 1400 -Mdo
ping_ok "$NS" "$IP0" 5 -s 1400 -Mdo
# A 1473-byte payload does not fit MTU 1500 unfragmented: refused locally.
assert_fails "ping -s 1473 -Mdo at MTU 1500" ping -n -q -c 1 -W 1 -s 1473 -Mdo "$IP1"

ip link set scx0 mtu 9000
ip -n "$NS" link set scx1 mtu 9000
assert_eq "scx0 mtu" 9000 "$(dev_mtu scx0)"
assert_eq "scx1 mtu" 9000 "$(dev_mtu scx1 "$NS")"
wait_carrier scx0
wait_carrier scx1 "$NS"
ping_ok "" "$IP1" 5 -s 8000 -Mdo
ping_ok "$NS" "$IP0" 5 -s 8000 -Mdo
ping_ok "" "$IP1" 3 -s 8972 -Mdo
# Fragmented (no -Mdo) still works at 1500 after switching back.
ip link set scx0 mtu 1500
ip -n "$NS" link set scx1 mtu 1500
wait_carrier scx0
wait_carrier scx1 "$NS"
ping_ok "" "$IP1" 3 -s 8000
ping_ok "$NS" "$IP0" 5
