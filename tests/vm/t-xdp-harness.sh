#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 360
#
# Self-test of the XDP test tooling on a veth pair, independent of softcx
# (what t-harness is for the basic helpers): the BPF programs of tests/bpf
# build, load and do what the softcx tests rely on, and the checkers fail
# when they should. veth0 (root) -> veth1 (ns1), pktgen N paced frames:
# - xdp_drop.o native on veth1: veth's rx_queue_0_xdp_drops +N;
# - xdp_aborted.o: N xdp:xdp_exception hits with action ABORTED;
# - tc_check.o on veth1: N intact; with wrong MACs configured, N bad L2;
#   expecting a trailer that is not there, N bad headers;
# - xdp_tail.o + tc_check.o (trailer 16): N intact, ping works;
# - xdp_meta.o + tc_meta.o: ping works, no skb without metadata; tc_meta.o
#   alone: ping fails, skbs without metadata counted;
# - xdp-loader load/unload and xdp-bench drop on veth1.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool ping xdp-loader xdp-bench
bpf_build
modprobe veth

N=500
ip link add veth0 type veth peer name veth1
pair_setup veth0 veth1
MAC0=$(dev_mac veth0) MAC1=$(dev_mac veth1 "$NS")
ip netns exec "$NS" sysctl -qw net.ipv4.ip_forward=0
send() { pktgen_setup veth0 "$N" 10.11.0.250 "$MAC1" 20000 "${1:-60}"; assert_eq "pktgen sent" "$N" "$(pktgen_run veth0 60)"; sleep 0.3; }

# ---- drop, aborted
xdp_attach veth1 "$NS" "$BPF/xdp_drop.o" xdpdrv
d0=$(ethtool_stat veth1 rx_queue_0_xdp_drops "$NS")
send
assert_eq "veth1 rx_queue_0_xdp_drops delta (xdp_drop)" "$N" $(( $(ethtool_stat veth1 rx_queue_0_xdp_drops "$NS") - d0 ))
xdp_exc_start
assert_ok "replace with xdp_aborted.o" ip -n "$NS" -force link set dev veth1 xdp obj "$BPF/xdp_aborted.o" sec xdp
send
assert_eq "xdp_exception hits with action ABORTED" "$N" "$(xdp_exc_count action=ABORTED)"
xdp_exc_stop
xdp_detach veth1 "$NS"

# ---- tc_check, and its negative controls
chk_attach veth1 "$NS" "$MAC1" "$MAC0"
send 200
chk_read "$CHK"
assert_eq "tc_check: intact" "$N" "$CHK_OK"
assert_eq "tc_check: bytes" $((N * 200)) "$CHK_BYTES"
assert_eq "tc_check: damaged" 0 $((CHK_BAD_L2 + CHK_BAD_HDR + CHK_BAD_PAYLOAD))
chk_attach veth1 "$NS" "$MAC0" "$MAC1"
send
chk_read "$CHK"
assert_eq "tc_check with swapped MACs: bad L2" "$N" "$CHK_BAD_L2"
chk_attach veth1 "$NS" "$MAC1" "$MAC0" 16
send
chk_read "$CHK"
assert_eq "tc_check expecting a missing trailer: bad header" "$N" "$CHK_BAD_HDR"

# ---- xdp_tail + tc_check trailer
xdp_attach veth1 "$NS" "$BPF/xdp_tail.o" xdpdrv
chk_attach veth1 "$NS" "$MAC1" "$MAC0" 16
send
chk_read "$CHK"
assert_eq "xdp_tail: intact frames with the trailer" "$N" "$CHK_OK"
assert_eq "xdp_tail: bytes" $((N * 76)) "$CHK_BYTES"
ping_ok "" "$IP1" 3
xdp_detach veth1 "$NS"
chk_detach veth1 "$NS"

# ---- metadata
xdp_attach veth1 "$NS" "$BPF/xdp_meta.o" xdpdrv
ip netns exec "$NS" tc qdisc replace dev veth1 clsact
ip netns exec "$NS" tc filter replace dev veth1 ingress pref 1 handle 1 bpf direct-action obj "$BPF/tc_meta.o" sec tc
MC=$(bpf_map_id meta_cnt)
ping_ok "" "$IP1" 5
bpf_map_dump "$MC"
assert_eq "meta: skbs without metadata" 0 "${BPFV[1]}"
assert_ge "meta: skbs with metadata" 5 "${BPFV[0]}"
xdp_detach veth1 "$NS"
assert_fails "ping with tc_meta.o but no metadata" ping -n -q -c 2 -W 1 -w 3 "$IP1"
bpf_map_dump "$MC"
assert_gt "meta: skbs without metadata (dropped)" 0 "${BPFV[1]}"
ip netns exec "$NS" tc qdisc del dev veth1 clsact

# ---- the VLAN programs load
xdp_attach veth1 "$NS" "$BPF/xdp_vlan_pop.o" xdpdrv
xdp_detach veth1 "$NS"
xdp_attach veth1 "$NS" "$BPF/xdp_vlan_push.o" xdpdrv
xdp_detach veth1 "$NS"
ping_ok "" "$IP1" 3

# ---- xdp-loader, xdp-bench
assert_ok "xdp-loader load -m native veth1" ip netns exec "$NS" xdp-loader load -m native veth1 "$BPF/xdp_drop.o"
read -r mode _ <<< "$(xdp_attached veth1 "$NS")"
assert_eq "xdp-loader: mode" 1 "$mode"
assert_ok "xdp-loader unload --all" ip netns exec "$NS" xdp-loader unload veth1 --all
assert_eq "after xdp-loader unload" "" "$(xdp_attached veth1 "$NS")"
pktgen_setup veth0 0 10.11.0.250 "$MAC1" 0 60
bg_start sh -c "echo start > $PG/pgctrl"
pg=$BG_PID
out=$(ip netns exec "$NS" timeout -s INT 5 xdp-bench drop -i 1 veth1 2>&1) || true
echo stop > $PG/pgctrl
bg_stop "$pg"
echo "$out" | tail -n 8 | sed 's/^/    /'
[[ "$out" =~ [1-9][0-9,]*\ rx/s ]] || fail "xdp-bench drop on veth1: no nonzero rx/s rate"
log "ok: xdp-bench drop on veth1 printed rates"
