#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 600
#
# The device's RX address filter (ndo_set_rx_mode -> MODIFY_NIC_VPORT_CONTEXT).
# pktgen on scx0 sends N frames to one destination MAC at a time; scx1
# (netns ns1) takes them (its driver's rx_packets +N, rx_steer_missed_packets
# +0) or its device turns them away (rx_packets +0, rx_steer_missed_packets
# +N), and the port's MAC counts them either way (rx_packets_phy +N); a
# filtered frame is not an RX drop (ip -s link RX dropped +0), as mlx5:
#  1. scx1's own MAC: taken; another unicast MAC: turned away;
#  2. promisc on: the other MAC taken; promisc off: turned away again;
#  3. a macvlan on scx1 with that MAC: taken while scx1 stays non-promiscuous
#     (IFF_UNICAST_FLT: a secondary unicast address in the device's list);
#     the macvlan deleted: turned away;
#  4. multicast 01:00:5e:01:02:03: turned away, taken after ip maddr add,
#     turned away after ip maddr del, taken with allmulticast on;
#  5. broadcast: taken;
#  6. scx1's address changed while up: frames to the new one taken, to the
#     old one turned away;
#  7. more unicast addresses than the device lists (33 macvlans, 32 the caps):
#     the port takes every unicast frame (the device's unicast promiscuous
#     mode) without IFF_PROMISC; back under the limit, turned away again.
#  8. VLANs (pktgen puts the tag in the frame; rx-vlan-filter on by default,
#     as mlx5): VLAN 100 turned away, taken once scx1.100 exists, VLAN 200
#     still turned away; taken with rx-vlan-filter off, and with promisc on;
#     turned away again after each is undone (VLAN 100 taken again after
#     rx-vlan-filter off and on: the kernel removes the IDs and adds them
#     back) and after scx1.100 is deleted.
#     802.1ad (from an S-VLAN device on scx0): S-tag 300 turned away, also
#     with rx-vlan-filter off (that is 802.1Q's; 802.1ad's is [fixed] on),
#     taken once scx1 has an 802.1ad VLAN device 300.
# The driver sets the filter from ndo_set_rx_mode itself: each change holds
# when the command that made it returns, so no step waits for it.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool
modprobe macvlan || fail "modprobe macvlan failed"
modprobe 8021q || fail "modprobe 8021q failed"
scx_setup
N=200
DST=10.11.0.250
MAC1=$(dev_mac scx1 "$NS")
OTHER=02:de:ad:be:ef:01

# send COUNT MAC: COUNT paced 60-byte frames from PG_DEV (scx0, or a VLAN
# device on it) to MAC, with the pktgen settings in PG_EXTRA (e.g. a tag).
PG_DEV=scx0
PG_EXTRA=()
send() {
	local c
	pktgen_setup $PG_DEV "$1" $DST "$2" 20000 60
	for c in "${PG_EXTRA[@]}"; do pg_cmd $PG_DEV "$c"; done
	assert_eq "pktgen sent to $2" "$1" "$(pktgen_run $PG_DEV 60)"
}
# counts: "rx_packets missed phy rx_dropped" of scx1.
counts() {
	local rx miss phy
	read -r rx miss phy <<< "$(cnt scx1 "$NS" rx_packets rx_steer_missed_packets rx_packets_phy)"
	echo "$rx $miss $phy $(link_stat scx1 rx_dropped "$NS")"
}
# expect LABEL MAC taken|missed: N frames to MAC, every counter checked.
expect() {
	local label=$1 mac=$2 want=$3 r0 m0 p0 d0 r1 m1 p1 d1
	read -r r0 m0 p0 d0 <<< "$(counts)"
	send $N "$mac"
	sleep 0.3
	read -r r1 m1 p1 d1 <<< "$(counts)"
	assert_eq "$label: rx_packets_phy" $N $((p1 - p0))
	assert_eq "$label: ip -s link RX dropped" 0 $((d1 - d0))
	if [ "$want" == taken ]; then
		assert_eq "$label: rx_packets" $N $((r1 - r0))
		assert_eq "$label: rx_steer_missed_packets" 0 $((m1 - m0))
	else
		assert_eq "$label: rx_packets" 0 $((r1 - r0))
		assert_eq "$label: rx_steer_missed_packets" $N $((m1 - m0))
	fi
	log "ok: $label: $want"
}
promisc_flag() { ip -n "$NS" -o link show dev scx1 | grep -c PROMISC || true; }

# 1.
expect "own MAC" "$MAC1" taken
expect "other unicast MAC" $OTHER missed
# 2.
ip -n "$NS" link set scx1 promisc on
expect "other MAC, promisc on" $OTHER taken
ip -n "$NS" link set scx1 promisc off
expect "other MAC, promisc off" $OTHER missed
# 3.
ip -n "$NS" link add link scx1 name mv0 address $OTHER type macvlan mode bridge
ip -n "$NS" link set mv0 up
assert_eq "scx1 not promiscuous with a macvlan" 0 "$(promisc_flag)"
expect "macvlan's MAC" $OTHER taken
ip -n "$NS" link del mv0
expect "macvlan deleted" $OTHER missed
# 4.
GROUP=01:00:5e:01:02:03
expect "multicast, not joined" $GROUP missed
ip -n "$NS" maddr add $GROUP dev scx1
expect "multicast, joined" $GROUP taken
ip -n "$NS" maddr del $GROUP dev scx1
expect "multicast, left" $GROUP missed
ip -n "$NS" link set scx1 allmulticast on
expect "multicast, allmulticast" $GROUP taken
ip -n "$NS" link set scx1 allmulticast off
# 5.
expect "broadcast" ff:ff:ff:ff:ff:ff taken
# 6.
NEW=02:11:22:33:44:66
assert_ok "scx1 address $NEW while up" ip -n "$NS" link set scx1 address $NEW
expect "new own MAC" $NEW taken
expect "old own MAC" "$MAC1" missed
# 7.
for i in $(seq 1 33); do
	ip -n "$NS" link add link scx1 name mv$i address "02:aa:00:00:00:$(printf %02x "$i")" \
		type macvlan mode bridge
	ip -n "$NS" link set mv$i up
done
assert_eq "scx1 not promiscuous with 33 macvlans" 0 "$(promisc_flag)"
expect "33 secondary addresses: unlisted unicast" $OTHER taken
for i in $(seq 2 33); do ip -n "$NS" link del mv$i; done
expect "one secondary address again: unlisted unicast" $OTHER missed
expect "the remaining secondary address" 02:aa:00:00:00:01 taken
# 8.
feat_is scx1 "$NS" rx-vlan-filter on
feat_is scx1 "$NS" rx-vlan-stag-filter "on \[fixed\]"
PG_EXTRA=("vlan_id 100")
expect "VLAN 100, no VLAN device" $NEW missed
ip -n "$NS" link add link scx1 name scx1.100 type vlan id 100
expect "VLAN 100 with scx1.100" $NEW taken
PG_EXTRA=("vlan_id 200")
expect "VLAN 200" $NEW missed
in_ns "$NS" ethtool -K scx1 rx-vlan-filter off
feat_is scx1 "$NS" rx-vlan-filter off
expect "VLAN 200, rx-vlan-filter off" $NEW taken
in_ns "$NS" ethtool -K scx1 rx-vlan-filter on
expect "VLAN 200, rx-vlan-filter on again" $NEW missed
PG_EXTRA=("vlan_id 100")
expect "VLAN 100, rx-vlan-filter on again (the kernel added scx1.100's ID back)" $NEW taken
PG_EXTRA=("vlan_id 200")
ip -n "$NS" link set scx1 promisc on
expect "VLAN 200, promisc on" $NEW taken
ip -n "$NS" link set scx1 promisc off
expect "VLAN 200, promisc off" $NEW missed
# 802.1ad frames from an S-VLAN device on scx0 (pktgen's own svlan_id
# writes 0x8100 twice); tx-vlan-stag-hw-insert: the device puts the tag in
PG_EXTRA=()
ip link add link scx0 name scx0.s300 type vlan proto 802.1ad id 300
ip link set scx0.s300 up
PG_DEV=scx0.s300
expect "S-tag 300" $NEW missed
in_ns "$NS" ethtool -K scx1 rx-vlan-filter off
expect "S-tag 300, rx-vlan-filter off" $NEW missed
in_ns "$NS" ethtool -K scx1 rx-vlan-filter on
ip -n "$NS" link add link scx1 name scx1.s300 type vlan proto 802.1ad id 300
expect "S-tag 300 with an 802.1ad VLAN device" $NEW taken
PG_DEV=scx0
ip link del scx0.s300
ip -n "$NS" link del scx1.100
PG_EXTRA=("vlan_id 100")
expect "VLAN 100, scx1.100 deleted" $NEW missed
PG_EXTRA=()
expect "untagged" $NEW taken
