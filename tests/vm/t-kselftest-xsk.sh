#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 300
#
# The kernel's AF_XDP test (tools/testing/selftests/bpf/xskxceiver.c, built
# from linux-source-6.1 by scripts/kselftest.sh) over the pair, as its
# test_xsk.sh runs it over a veth pair: scx0 sends, scx1 (netns ns1)
# receives, each with an AF_XDP socket in copy mode on queue 0, first with
# generic XDP (SKB mode), then with the program attached natively (DRV
# mode: softcx's XDP_REDIRECT into the XSKMAP). Every test of both modes
# must pass: packets arrive in order and intact, poll() and need_wakeup,
# invalid TX descriptors dropped and counted, RX ring full and fill ring
# empty counted, sockets torn down and created again, both directions, the
# XSKMAP entry replaced, 2K frames and UMEM headroom; unaligned chunks on
# 2 MB huge pages (when the guest has them). Zero-copy is not offered (no
# XSK buffer pools): the program finds no ZC mode to run, as on veth.
# STAT_RX_DROPPED is skipped (scripts/kselftest.sh says why). The frames
# the test sends carry its own MACs, which the ports take (softcx filters
# RX by address, veth does not), and one queue takes every flow (`ethtool -X equal 1`: the test binds its
# sockets to queue 0, and RSS would spread the return direction).
# Each port then accounts for every frame its MAC received: rx_packets
# (SKB mode: the stack saw them) + rx_xdp_redirect + rx_xdp_drop (DRV
# mode: into the socket, or refused by a full ring) == rx_packets_phy.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool

BIN=$SCX_ROOT/build/kselftest/bin
[ -x "$BIN/xskxceiver" ] || fail "$BIN/xskxceiver not built (scripts/kselftest.sh; make vm-test builds it)"

scx_setup channels=2
ip addr flush dev scx0
ip -n "$NS" addr flush dev scx1
# xskxceiver's MAC2 sends to MAC1, and back in its bidirectional test
ip link set scx0 address 00:0a:56:9e:ee:61
ip -n "$NS" link set scx1 address 00:0a:56:9e:ee:62
ethtool -X scx0 equal 1
ip netns exec "$NS" ethtool -X scx1 equal 1
# Its unaligned-chunk tests map 2 MB pages (two UMEMs of 8 MB at most);
# without them they are skipped, which a fragmented guest may force.
echo 16 > /proc/sys/vm/nr_hugepages
want=36
hp=$(cat /proc/sys/vm/nr_hugepages)
[ "$hp" -ge 8 ] || { want=32; log "only $hp huge pages: the two unaligned-chunk tests of each mode skip"; }

# counts DEV NS: rx_packets_phy rx_packets rx_xdp_redirect rx_xdp_drop
counts() {
	eth_dump "$1" "$2"
	echo "$(eth_get rx_packets_phy) $(eth_get rx_packets) $(eth_get rx_xdp_redirect) $(eth_get rx_xdp_drop)"
}
read -r -a c0 <<< "$(counts scx0 "")"
read -r -a c1 <<< "$(counts scx1 "$NS")"

out=$SCX_TEST_OUT/xskxceiver.log
rc=0
(cd "$SCX_TEST_OUT" && timeout 240 "$BIN/xskxceiver" -i scx0 -i "scx1,$NS") > "$out" 2>&1 || rc=$?
grep -E '^(ok|not ok) |Totals' "$out" | while read -r l; do log "xskxceiver: $l"; done
[ $rc -eq 0 ] || fail "xskxceiver: exit $rc: $(grep -m 3 -E '^not ok|ERROR' "$out" | tr '\n' ' ')"
tot=$(grep '^# Totals' "$out")
[[ "$tot" =~ pass:([0-9]+)\ fail:([0-9]+) ]] || fail "xskxceiver: no totals line"
assert_eq "xskxceiver: failed tests" 0 "${BASH_REMATCH[2]}"
# 19 tests in each of SKB and DRV mode, RX_DROPPED skipped in both
assert_eq "xskxceiver: passed tests" "$want" "${BASH_REMATCH[1]}"
drv=(RUN_TO_COMPLETION POLL_RX BIDIRECTIONAL STAT_TX_INVALID STAT_RX_FULL BPF_RES)
[ "$want" == 36 ] && drv+=(UNALIGNED_MODE)
for t in "${drv[@]}"; do
	grep -q "^ok [0-9]* PASS: DRV $t\$" "$out" || fail "xskxceiver: DRV $t did not pass: $(grep -m 1 "DRV $t" "$out")"
done

read -r -a d0 <<< "$(counts scx0 "")"
read -r -a d1 <<< "$(counts scx1 "$NS")"
for p in 0 1; do
	eval "a=(\"\${c$p[@]}\") b=(\"\${d$p[@]}\")"
	phy=$(( b[0] - a[0] )) pk=$(( b[1] - a[1] )) rd=$(( b[2] - a[2] )) dr=$(( b[3] - a[3] ))
	log "scx$p: rx_packets_phy +$phy, rx_packets +$pk, rx_xdp_redirect +$rd, rx_xdp_drop +$dr"
	assert_gt "scx$p rx_xdp_redirect delta (DRV mode: into the socket)" 0 "$rd"
	assert_eq "scx$p rx_packets + rx_xdp_redirect + rx_xdp_drop deltas" "$phy" $(( pk + rd + dr ))
done
assert_gt "scx1 rx_xdp_drop delta (DRV mode: RX ring full, fill ring empty)" 0 "${dr}"
echo 0 > /proc/sys/vm/nr_hugepages
