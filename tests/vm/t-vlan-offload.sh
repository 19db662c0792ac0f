#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 600
#
# VLAN offloads (ethtool -K rx-vlan-offload / tx-vlan-offload): both on by
# default. VLAN 100 on both ports (scx0.100 in the root netns, scx1.100 in
# ns1, 10.12.0.0/24). For each setting of the two offloads on both sides
# (all on, all off, and each side with one on and the other off): ethtool
# -k shows it, ping and a TCP transfer with SHA-256 check work over the
# VLAN, and the counters move only where the offload is on:
# tx_added_vlan_packets on the sender with tx-vlan-offload (the tag goes
# in metadata to the device), rx_removed_vlan_packets on the receiver with
# rx-vlan-offload (the device strips it; the stack gets the TCI as the
# skb's tag). Switching rx-vlan-offload is live (no channel rebuild: the
# RQs are modified; the CQ numbers in debugfs stay, no rx_recover). AF_PACKET on
# scx1 sees the tag as auxdata with stripping on, in the frame's bytes
# with it off. An 802.1ad VLAN (200) works with tx-vlan-stag-hw-insert on
# (the device inserts the S-tag) and off. At the end ethtool -S agrees with
# ip -s link.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool ping python3
modprobe 8021q

scx_setup channels=2
VIP0=10.12.0.1 VIP1=10.12.0.2

for d in scx0 scx1; do
	ns=; [ $d == scx1 ] && ns=$NS
	feat=$(in_ns "$ns" ethtool -k $d)
	for f in rx-vlan-offload tx-vlan-offload; do
		[[ "$feat" =~ $f:\ on ]] || fail "$d: $f is not on by default: $(grep "$f" <<< "$feat")"
	done
done

ip link add link scx0 name scx0.100 type vlan id 100
ip -n "$NS" link add link scx1 name scx1.100 type vlan id 100
echo 1 > /proc/sys/net/ipv6/conf/scx0.100/disable_ipv6
ip addr add "$VIP0/24" dev scx0.100
ip -n "$NS" addr add "$VIP1/24" dev scx1.100
ip link set scx0.100 up
ip -n "$NS" link set scx1.100 up

# set_vlan DEV NS RX TX: ethtool -K, then check it.
set_vlan() {
	in_ns "$2" ethtool -K "$1" rxvlan "$3" txvlan "$4"
	feat_is "$1" "$2" rx-vlan-offload "$3"
	feat_is "$1" "$2" tx-vlan-offload "$4"
}

# delta_check LABEL DEV NS COUNTER BEFORE ON: COUNTER grew when ON, else stayed.
delta_check() {
	local d=$(( $(ethtool_stat "$2" "$4" "$3") - $5 ))
	if [ "$6" == on ]; then
		assert_gt "$1: $2 $4 delta" 0 "$d"
	else
		assert_eq "$1: $2 $4 delta" 0 "$d"
	fi
	log "$1: $2 $4 +$d"
}

# The ports' CQ numbers (debugfs): a rebuilt channel set has new ones.
debugfs_hook scx0/cqs
cqs() { cat /sys/kernel/debug/softcx/scx0/cqs /sys/kernel/debug/softcx/scx1/cqs; }

# run LABEL RX0 TX0 RX1 TX1: offloads of scx0 and scx1, then traffic both ways over VLAN 100.
run() {
	local label=$1 a0 r0 a1 r1 rec0 rec1 cq0
	cq0=$(cqs)
	set_vlan scx0 "" "$2" "$3"
	set_vlan scx1 "$NS" "$4" "$5"
	assert_eq "$label: CQ numbers after ethtool -K (no rebuild)" "$cq0" "$(cqs)"
	a0=$(ethtool_stat scx0 tx_added_vlan_packets); r0=$(ethtool_stat scx0 rx_removed_vlan_packets)
	a1=$(ethtool_stat scx1 tx_added_vlan_packets "$NS")
	r1=$(ethtool_stat scx1 rx_removed_vlan_packets "$NS")
	rec0=$(ethtool_stat scx0 rx_recover); rec1=$(ethtool_stat scx1 rx_recover "$NS")
	ping_ok "" "$VIP1" 10
	ping_ok "$NS" "$VIP0" 10
	IP1=$VIP1 tcp_verified "$label" 2000000
	delta_check "$label" scx0 "" tx_added_vlan_packets "$a0" "$3"
	delta_check "$label" scx1 "$NS" rx_removed_vlan_packets "$r1" "$4"
	delta_check "$label" scx1 "$NS" tx_added_vlan_packets "$a1" "$5"
	delta_check "$label" scx0 "" rx_removed_vlan_packets "$r0" "$2"
	assert_eq "$label: scx0 rx_recover delta" 0 $(( $(ethtool_stat scx0 rx_recover) - rec0 ))
	assert_eq "$label: scx1 rx_recover delta" 0 $(( $(ethtool_stat scx1 rx_recover "$NS") - rec1 ))
}

run all-on on on on on
run all-off off off off off
run mixed-a on off off on
run mixed-b off on on off

# AF_PACKET on scx1 while scx0.100 pings: the tag comes as auxdata
# (TP_STATUS_VLAN_VALID, TCI 100), never in the frame's bytes. With
# stripping on, the device's TCI is what the skb carries; with it off the
# stack untags in software before the taps, so auxdata shows it too.
# Prints: frames seen, with a valid auxdata tag 100, with 0x8100/100 in the bytes.
# Creates $1 once its socket is bound (the pings wait for it).
pkt_vlan() {
	in_ns "$NS" timeout 60 python3 - "$1" <<'EOF'
import socket, struct, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
s.bind(("scx1", 0))
s.setsockopt(263, 8, 1)          # SOL_PACKET, PACKET_AUXDATA
s.settimeout(1.0)
open(sys.argv[1], "w").close()
n = aux = inb = 0
end = time.time() + 8
while time.time() < end and n < 6:
    try:
        data, anc, _, _ = s.recvmsg(2048, socket.CMSG_SPACE(20))
    except socket.timeout:
        continue
    for lvl, typ, cd in anc:
        if lvl == 263 and typ == 8 and len(cd) >= 20:
            st, _, _, _, _, tci, tpid = struct.unpack("IIIHHHH", cd[:20])
            if st & 0x10 and tci & 0xfff == 100:
                aux += 1
    if data[12:14] == b"\x81\x00" and struct.unpack("!H", data[14:16])[0] & 0xfff == 100:
        inb += 1
    n += 1
print(n, aux, inb)
EOF
}
for rx in on off; do
	set_vlan scx1 "$NS" "$rx" on
	set_vlan scx0 "" on on
	rm -f "$SCX_TEST_OUT/packet-$rx.ready"
	pkt_vlan "$SCX_TEST_OUT/packet-$rx.ready" > "$SCX_TEST_OUT/packet-$rx.txt" &
	pid=$!
	wait_for 30 test -e "$SCX_TEST_OUT/packet-$rx.ready" || fail "AF_PACKET reader (rx-vlan-offload $rx) did not start"
	ping -n -q -c 10 -i 0.2 "$VIP1" > /dev/null || true
	wait "$pid" || fail "AF_PACKET reader (rx-vlan-offload $rx) failed"
	read -r n aux inb < "$SCX_TEST_OUT/packet-$rx.txt"
	log "AF_PACKET on scx1, rx-vlan-offload $rx: $n frames, $aux tag in auxdata, $inb tag in bytes"
	assert_gt "AF_PACKET frames seen (rx-vlan-offload $rx)" 0 "$n"
	assert_eq "rx-vlan-offload $rx: frames with the tag as auxdata" "$n" "$aux"
	assert_eq "rx-vlan-offload $rx: frames with the tag in the bytes" 0 "$inb"
done

# 802.1ad: an S-VLAN device (200) on each port; tx-vlan-stag-hw-insert (on
# by default, as mlx5) hands the S-tag to the device (tx_added_vlan_packets
# grows), off puts it in the data (the counter stays); traffic works both
# ways either way (the receiver's C-tag stripping leaves an S-tag alone).
ip link add link scx0 name scx0.200 type vlan proto 802.1ad id 200
ip -n "$NS" link add link scx1 name scx1.200 type vlan proto 802.1ad id 200
echo 1 > /proc/sys/net/ipv6/conf/scx0.200/disable_ipv6
ip addr add 10.13.0.1/24 dev scx0.200
ip -n "$NS" addr add 10.13.0.2/24 dev scx1.200
ip link set scx0.200 up
ip -n "$NS" link set scx1.200 up
feat_is scx0 "" tx-vlan-stag-hw-insert on
for st in on off; do
	ethtool -K scx0 tx-vlan-stag-hw-insert "$st"
	feat_is scx0 "" tx-vlan-stag-hw-insert "$st"
	a0=$(ethtool_stat scx0 tx_added_vlan_packets)
	ping_ok "" 10.13.0.2 10
	ping_ok "$NS" 10.13.0.1 5
	IP1=10.13.0.2 tcp_verified "stag-$st" 2000000
	delta_check "802.1ad, stag insert $st" scx0 "" tx_added_vlan_packets "$a0" "$st"
done

sleep 0.5
assert_pair_counters_agree
assert_eq "scx0 tx_cqe_err" 0 "$(ethtool_stat scx0 tx_cqe_err)"
assert_eq "scx1 tx_cqe_err" 0 "$(ethtool_stat scx1 tx_cqe_err "$NS")"
