#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 600
#
# XDP_PASS after the program moved the frame's head, tail or metadata: the
# driver must build the skb from the adjusted xdp_buff. ping (10) and an
# iperf3 TCP run (3 s) from the root netns to ns1 must work in each case:
# 1. pop (bpf_xdp_adjust_head +4): scx0.100 (VLAN 100 on scx0) sends tagged
#    frames; xdp_vlan_pop.o on scx1 removes the tag, and scx1 (no VLAN device)
#    only understands them untagged. Replies go back untagged to scx0.
# 2. push (bpf_xdp_adjust_head -4): scx0 sends untagged frames; xdp_vlan_push.o
#    on scx1 inserts tag 100, and only scx1.100 holds ns1's address. Replies
#    come back tagged to scx0.100.
#    (Static neighbours, and rp_filter off in the root netns: the two
#    directions use different devices there; ns1 filters strictly.) The program's counters show that it rewrote the frames.
# 3. metadata (bpf_xdp_adjust_meta -4): xdp_meta.o writes a magic value in
#    front of each frame; tc_meta.o on scx1's ingress drops every skb without
#    exactly those 4 bytes of metadata (so nothing works unless they arrive)
#    and counts: no skb may lack them.
# 4. tail (bpf_xdp_adjust_tail +16): xdp_tail.o appends a 16-byte trailer to
#    every IPv4 frame; tc_check.o on scx1's ingress verifies N pktgen frames
#    arrive with it, intact; the IP layer trims it, so ping and TCP work.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool ping iperf3 python3
bpf_build
modprobe 8021q

scx_load channels=2
echo 1 > /proc/sys/net/ipv6/conf/scx0/disable_ipv6
ns_create "$NS"
ip link set scx1 netns "$NS"
ip link set scx0 up
ip -n "$NS" link set scx1 up
wait_carrier scx0
wait_carrier scx1 "$NS"
MAC0=$(dev_mac scx0) MAC1=$(dev_mac scx1 "$NS")
sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 net.ipv4.conf.scx0.rp_filter=0
# The tags must be in the frame's bytes, where the programs see them: VLAN
# offloads off (with rx-vlan-offload the device strips the tag before XDP).
ethtool -K scx0 rxvlan off txvlan off
ip netns exec "$NS" ethtool -K scx1 rxvlan off txvlan off
ip link add link scx0 name scx0.100 type vlan id 100
ip -n "$NS" link add link scx1 name scx1.100 type vlan id 100
echo 0 > /proc/sys/net/ipv4/conf/scx0.100/rp_filter
# ns1 filters strictly: a frame must come in on the device its source routes
# through (so push's negative control cannot sneak in untagged).
ip netns exec "$NS" sysctl -qw net.ipv4.ip_forward=0 net.ipv4.conf.all.rp_filter=1
iperf_server "$NS" 5201

# layout DEV0 DEV1: 10.11.0.1 on DEV0 (root), 10.11.0.2 on DEV1 (ns1), all
# four devices up, static neighbours towards the peer's MAC.
layout() {
	ip addr flush dev scx0; ip addr flush dev scx0.100
	ip -n "$NS" addr flush dev scx1; ip -n "$NS" addr flush dev scx1.100
	ip neigh flush all 2>/dev/null || true; ip -n "$NS" neigh flush all 2>/dev/null || true
	ip link set scx0.100 mtu 1400; ip -n "$NS" link set scx1.100 mtu 1400
	ip link set scx0.100 up; ip -n "$NS" link set scx1.100 up
	ip addr add "$IP0/24" dev "$1"
	ip -n "$NS" addr add "$IP1/24" dev "$2"
	ip neigh replace "$IP1" lladdr "$MAC1" dev "$1" nud permanent
	ip -n "$NS" neigh replace "$IP0" lladdr "$MAC0" dev "$2" nud permanent
	wait_carrier scx0
	wait_carrier scx1 "$NS"
	log "layout: $1 ($IP0) -> $2 ($IP1, netns $NS)"
}

# traffic LABEL: ping 10 and 3 s of iperf3 TCP; scx1 rx_packets must cover them.
traffic() {
	local rx0 rcvd bps
	rx0=$(ethtool_stat scx1 rx_packets "$NS")
	ping_ok "" "$IP1" 10
	timeout 60 iperf3 -c "$IP1" -p 5201 -t 3 -J > "$SCX_TEST_OUT/$1.json" ||
		fail "$1: iperf3 TCP failed: $(json_get "$SCX_TEST_OUT/$1.json" 'j.get("error","")' 2>/dev/null)"
	read -r rcvd bps <<< "$(json_get "$SCX_TEST_OUT/$1.json" 'int(j["end"]["sum_received"]["bytes"])' \
		'int(j["end"]["sum_received"]["bits_per_second"])')"
	log "$1: iperf3 TCP $((bps / 1000000)) Mbit/s, $rcvd bytes received"
	assert_gt "$1: iperf3 TCP bytes received" 0 "$rcvd"
	assert_gt "$1: scx1 rx_packets delta" 10 $(( $(ethtool_stat scx1 rx_packets "$NS") - rx0 ))
	assert_eq "$1: scx1 rx_xdp_drop" 0 "$(ethtool_stat scx1 rx_xdp_drop "$NS")"
}

# ---- 1. pop a VLAN tag
layout scx0.100 scx1
xdp_attach scx1 "$NS" "$BPF/xdp_vlan_pop.o"
traffic "pop"
bpf_map_dump "$(bpf_map_id pop_cnt)"
log "xdp_vlan_pop: popped ${BPFV[0]}, untouched ${BPFV[1]}"
assert_gt "pop: frames whose tag the program popped" 10 "${BPFV[0]}"
xdp_detach scx1 "$NS"
assert_fails "pop: ping without the program (tagged frames, no VLAN device on scx1)" \
	ping -n -q -c 2 -W 1 -w 3 "$IP1"

# ---- 2. push a VLAN tag
layout scx0 scx1.100
xdp_attach scx1 "$NS" "$BPF/xdp_vlan_push.o"
traffic "push"
bpf_map_dump "$(bpf_map_id push_cnt)"
log "xdp_vlan_push: pushed ${BPFV[0]}, untouched ${BPFV[1]}"
assert_gt "push: frames the program tagged" 10 "${BPFV[0]}"
xdp_detach scx1 "$NS"
assert_fails "push: ping without the program (untagged frames, address on scx1.100)" \
	ping -n -q -c 2 -W 1 -w 3 "$IP1"

# ---- 3. metadata
layout scx0 scx1
ip -n "$NS" link set scx1.100 down
xdp_attach scx1 "$NS" "$BPF/xdp_meta.o"
ip netns exec "$NS" tc qdisc replace dev scx1 clsact
ip netns exec "$NS" tc filter replace dev scx1 ingress pref 1 handle 1 bpf direct-action obj "$BPF/tc_meta.o" sec tc
MC=$(bpf_map_id meta_cnt)
ping -n -q -c 3 -i 0.2 -W 1 "$IP1" >/dev/null 2>&1 || true
bpf_map_dump "$MC"
log "tc_meta after 3 pings: with metadata ${BPFV[0]}, without ${BPFV[1]}"
assert_eq "meta: skbs without the XDP metadata" 0 "${BPFV[1]}"
assert_ge "meta: skbs with the XDP metadata" 3 "${BPFV[0]}"
traffic "meta"
bpf_map_dump "$MC"
log "tc_meta after ping and iperf3: with metadata ${BPFV[0]}, without ${BPFV[1]}"
assert_eq "meta: skbs without the XDP metadata" 0 "${BPFV[1]}"
assert_gt "meta: skbs with the XDP metadata" 13 "${BPFV[0]}"
ip netns exec "$NS" tc qdisc del dev scx1 clsact
xdp_detach scx1 "$NS"

# ---- 4. tail
N=1000
xdp_attach scx1 "$NS" "$BPF/xdp_tail.o"
chk_attach scx1 "$NS" "$MAC1" "$MAC0" 16
TC=$(bpf_map_id tail_cnt)
rxb0=$(ethtool_stat scx1 rx_bytes "$NS"); rxp0=$(ethtool_stat scx1 rx_packets "$NS")
pktgen_setup scx0 $N 10.11.0.250 "$MAC1" 40000 60
assert_eq "tail: pktgen packets sent" $N "$(pktgen_run scx0 120)"
sleep 0.3
chk_read "$CHK"
log "tail: tc_check intact $CHK_OK (bytes $CHK_BYTES), bad L2 $CHK_BAD_L2, bad header $CHK_BAD_HDR, bad payload/trailer $CHK_BAD_PAYLOAD, other $CHK_OTHER; scx1 rx_packets +$(( $(ethtool_stat scx1 rx_packets "$NS") - rxp0 )) rx_bytes +$(( $(ethtool_stat scx1 rx_bytes "$NS") - rxb0 ))"
assert_eq "tail: pktgen frames intact with the 16-byte trailer" $N "$CHK_OK"
assert_eq "tail: their bytes (60 + 16 each)" $((N * 76)) "$CHK_BYTES"
assert_eq "tail: damaged frames" 0 $((CHK_BAD_L2 + CHK_BAD_HDR + CHK_BAD_PAYLOAD))
bpf_map_dump "$TC"
assert_eq "tail: adjust_tail refusals" 0 "${BPFV[2]}"
traffic "tail"
bpf_map_dump "$TC"
log "xdp_tail: grown ${BPFV[0]}, not IPv4 ${BPFV[1]}, refused ${BPFV[2]}"
assert_eq "tail: adjust_tail refusals" 0 "${BPFV[2]}"
assert_gt "tail: frames grown" $((N + 10)) "${BPFV[0]}"
chk_detach scx1 "$NS"
xdp_detach scx1 "$NS"
ping_ok "" "$IP1" 3
