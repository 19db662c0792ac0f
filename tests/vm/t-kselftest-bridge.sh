#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 900
#
# The kernel's bridge and VLAN tests (tools/testing/selftests/net/forwarding,
# from linux-source-6.1 by scripts/kselftest.sh), unchanged, on two cabled
# pairs: h1 = scx0 <-> scx1 = swp1, swp2 = scx2 <-> scx3 = h2, the topology
# they are written for (a host's NIC port cabled to a switch port). The
# switch ports are softcx ports in a Linux bridge, the hosts softcx ports in
# VRFs. What they take from the driver: promiscuous and all-multicast mode
# (a bridge port's, and a host's in the flooding and learning tests), the
# multicast address list, the VLAN filter (a VLAN-aware bridge adds its VLANs
# to its ports, VLAN 1 too), VLAN tag insertion and stripping, and frames of
# any MAC address and ethertype (mausezahn's).
# - bridge_vlan_aware.sh, bridge_vlan_unaware.sh: ping, learning, unknown
#   unicast and unregistered multicast flooding, VLAN deletion, extern_learn;
# - router_vid_1.sh, router_bridge_vlan.sh: routing over VLAN 1 and over a
#   VLAN-aware bridge's VLAN interface;
# - bridge_igmp.sh, bridge_mld.sh: IGMPv2/v3 and MLDv2 snooping, the groups
#   and sources forwarded to the port that asked for them, and no others.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool jq ping tc bridge mausezahn

# the guest autoloads no module: VRFs (simple_if_init), the bridge, VLAN
# devices, and tc's ingress qdisc with flower and its drop action (the
# tests count frames that way)
for m in vrf bridge 8021q sch_ingress cls_flower act_gact; do
	modprobe $m || fail "cannot load the $m module"
done
scx_load nr_pairs=2
PORTS=(scx0 scx1 scx2 scx3)
# the suite's ports are born without IPv6; these tests ping6 and snoop MLD,
# on the ports and on the bridges, VRFs and VLAN devices they create
echo 0 > /proc/sys/net/ipv6/conf/default/disable_ipv6
for d in "${PORTS[@]}"; do echo 0 > "/proc/sys/net/ipv6/conf/$d/disable_ipv6"; done

fwd_selftest bridge_vlan_aware.sh "" 8 "${PORTS[@]}"
fwd_selftest bridge_vlan_unaware.sh "" 5 "${PORTS[@]}"
fwd_selftest router_vid_1.sh "" 2 "${PORTS[@]}"
fwd_selftest router_bridge_vlan.sh "" 3 "${PORTS[@]}"
# The snooping tests forge h1's IGMPv3 and MLDv2 reports with mausezahn
# and then send the group's traffic from h2: h1 joins no group, so a NIC's
# multicast filter drops what the bridge forwards to it (on veth, which
# they were written on, nothing filters). h1 takes every group here, as a
# multicast router port would; IGMPv2's test joins and leaves on h2 for
# real, and whether traffic arrives after the leave is the bridge's
# verdict either way.
ip link set dev scx0 allmulticast on || fail "cannot set scx0 allmulticast"
# A report and a leave that h2 makes itself (IGMPv2), and for IGMPv3 and
# MLDv2 an include report and a *,G exclude. The other cases (about 15 s
# each) exercise the bridge's state machine, not the driver, and those
# with source timers (exclude timeout, block: the blocked sources forward
# until the last member query time runs out, 10 s, while four sources are
# probed a second or more apart) fail by TCG's pace alone.
fwd_selftest bridge_igmp.sh "v2reportleave_test v3include_test v3star_ex_auto_add_test" 4 \
	"${PORTS[@]}"
fwd_selftest bridge_mld.sh "mldv2include_test mldv2star_ex_auto_add_test" 2 "${PORTS[@]}"
ip link set dev scx0 allmulticast off
