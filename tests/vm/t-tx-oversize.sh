#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 200
#
# An skb longer than the device sends never reaches the SQ: pktgen with
# pkt_size 10200 (linear skbs over the device's 10000-byte frame limit) and
# 30000-byte pings from lo redirected to scx0 by tc mirred are dropped and
# counted in tx_dropped (and ip -s link TX dropped), one rate-limited line
# names the interface, and the queue never goes to error: no tx_cqe_err, no
# recovery, nothing flushed, traffic goes on. Before the check the first
# such skb put the SQ in ERR and flushed everything queued behind it.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool ping tc

scx_setup channels=1
ping_ok "" "$IP1" 3
mac1=$(dev_mac scx1 "$NS")

d0=$(ethtool_stat scx0 tx_dropped)
l0=$(link_stat scx0 tx_dropped)
pktgen_setup scx0 200 "$IP1" "$mac1" 0 10200
sent=$(pktgen_run scx0 60)
assert_eq "pktgen packets handed to scx0" 200 "$sent"
assert_eq "tx_dropped after 200 oversize skbs" $((d0 + 200)) "$(ethtool_stat scx0 tx_dropped)"
assert_eq "ip -s link TX dropped" $((l0 + 200)) "$(link_stat scx0 tx_dropped)"

# tc mirred from lo (MTU 65536): 30042-byte frames reach scx0's xmit
modprobe -a sch_ingress cls_flower act_mirred || fail "modprobe sch_ingress cls_flower act_mirred failed"
tc qdisc add dev lo clsact
tc filter add dev lo egress protocol ip flower dst_ip 127.0.0.9 action mirred egress redirect dev scx0
in_ns "" ping -n -q -c 5 -i 0.2 -W 1 -s 30000 127.0.0.9 >/dev/null 2>&1 || true
tc qdisc del dev lo clsact
assert_eq "tx_dropped after 5 mirred 30 KB frames" $((d0 + 205)) "$(ethtool_stat scx0 tx_dropped)"

eth_dump scx0
for c in tx_cqe_err tx_recover tx_flushed tx_timeout; do
	assert_eq "scx0 $c" 0 "$(eth_get $c)"
done
klog_has 'scx0: TX queue 0: dropped a [0-9][0-9]*-byte linear skb the device cannot send' ||
	fail "no rate-limited drop line naming scx0 in the kernel log"
ping_ok "" "$IP1" 10
