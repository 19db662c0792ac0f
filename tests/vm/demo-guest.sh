#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The demo, inside the VM (run by scripts/demo.sh through scripts/vm-run.sh):
# load softcx, put scx1 in netns ns1, ping, iperf3 TCP for a few seconds,
# then show the counters. Output goes to the VM console.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool iperf3 ping

step() { printf '\n### %s\n' "$*"; }
show() { printf '$ %s\n' "$*"; "$@"; }

step "insmod softcx.ko ${*:-(default parameters)}"
scx_load "$@"
show ethtool -i scx0
show ip -br link show

step "scx0 10.11.0.1/24 in the root netns <-> scx1 10.11.0.2/24 in netns ns1"
pair_setup scx0 scx1
show ip -br addr show dev scx0
show ip -n ns1 -br addr show dev scx1

step "ping"
show ping -c 5 -i 0.2 10.11.0.2
show ip netns exec ns1 ping -c 5 -i 0.2 10.11.0.1

step "iperf3 TCP, 5 s (server in ns1)"
ip netns exec ns1 iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
for i in $(seq 40); do [ -n "$(ip netns exec ns1 ss -Htln "sport = :5201")" ] && break; sleep 0.25; done
show timeout 60 iperf3 -c 10.11.0.2 -p 5201 -t 5 -f m
wait || true

step "counters"
show ethtool -S scx0
show ip netns exec ns1 ethtool -S scx1
show ip -s link show dev scx0
show ip -n ns1 -s link show dev scx1

step "rmmod softcx"
ip netns del ns1
scx_unload
echo "demo done"
