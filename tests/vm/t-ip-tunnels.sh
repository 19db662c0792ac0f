#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 480
#
# GRE and IP-in-IP offloads, as mlx5 has them (tunnel_stateless_gre from
# ConnectX-4, tunnel_stateless_ip_over_ip from ConnectX-5): scx0 offers
# tx-gre-segmentation, tx-gre-csum-segmentation (as GSO_PARTIAL),
# tx-ipxip4-segmentation and tx-ipxip6-segmentation. TCP over gretap, over
# GRE with a key, over GRE with checksums and over IPIP arrives intact
# (SHA-256) with its segmentation and inner checksums offloaded
# (tx_tso_inner_packets, tx_csum_partial_inner) and no checksum error.
# GRE segmentation off: software GSO, inner checksums still offloaded.
# Over IPv6: ip6gre offloaded; ip6gre with its default encapsulation
# limit option (an extension header) and IPv4 in IPv6 in software.
# With rx_no_csum_complete on, scx1 hands the tunnels' frames up
# CHECKSUM_UNNECESSARY one level deeper (rx_csum_unnecessary_inner). UDP
# flows inside one GRE tunnel spread over scx1's channels by their inner
# addresses and ports, as mlx5's inner RSS spreads them. On a
# cx4 device IP in IP and GENEVE stay in software (no features, no inner
# counters, no inner verdicts, data intact) while GRE is offloaded.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/tunnel.sh"
need_cmd ip ethtool python3
for m in ip_gre ipip ip6_gre ip6_tunnel geneve; do
	modprobe "$m" || fail "cannot load the $m module"
done

# ip_pair NAME N TYPE [OPTS]: tunnel devices NAME0 (root) and NAME1 (ns1)
# of ip-link type TYPE between the pair's addresses, options OPTS
ip_pair() {
	local n=$1 type=$3 opts=(${4:-})
	ip link add "${n}0" type "$type" local "$IP0" remote "$IP1" "${opts[@]}"
	ip -n "$NS" link add "${n}1" type "$type" local "$IP1" remote "$IP0" "${opts[@]}"
	tunnel_up "$n" "$2" "$type ${n}0 <-> ${n}1 ${opts[*]}"
}
# features DEV STATE F...: each feature F of DEV is STATE (on, off [fixed], ...)
features() {
	local dev=$1 state=$2 feat f
	shift 2
	feat=$(ethtool -k "$dev")
	for f in "$@"; do
		grep -q "^$f: $state" <<< "$feat" ||
			fail "$dev feature $f is not $state: $(grep "^$f:" <<< "$feat")"
	done
}

scx_setup channels=2
features scx0 on tx-gre-segmentation tx-gre-csum-segmentation tx-ipxip4-segmentation \
	tx-ipxip6-segmentation tx-gso-partial

ip_pair gta 1 gretap
ip_pair grb 2 gre "key 7"
ip_pair grc 3 gre csum
ip_pair ipa 4 ipip
xfer "gretap" 1 1 1
xfer "gre, key" 2 1 1
xfer "gre, checksums (GSO_PARTIAL)" 3 1 1
xfer "ipip" 4 1 1

ethtool -K scx0 tx-gre-segmentation off tx-gre-csum-segmentation off
xfer "gre, GRE segmentation off" 2 0 1
ethtool -K scx0 tx-gre-segmentation on tx-gre-csum-segmentation on
xfer "gre, GRE segmentation on again" 2 1 1

in_ns "$NS" ethtool --set-priv-flags scx1 rx_no_csum_complete on
rx_verdicts "gretap, RX verdict handed up" 1 1
rx_verdicts "gre with checksums, RX verdict handed up" 3 1
rx_verdicts "ipip, RX verdict handed up" 4 1
in_ns "$NS" ethtool --set-priv-flags scx1 rx_no_csum_complete off

# Inner RSS (mlx5's inner TTC): UDP flows inside one GRE tunnel, the same
# outer addresses for all, spread over scx1's channels by their inner
# addresses and ports, as rss_flows.py predicts bit by bit from scx1's key,
# table and udp4 fields; 8 datagrams a flow. Static neighbours: no ARP
# frame among the counted ones.
PY=$(dirname "$0")/rss_flows.py
ip neigh replace "$IP1" lladdr "$(dev_mac scx1 "$NS")" dev scx0 nud permanent
ip -n "$NS" neigh replace "$IP0" lladdr "$(dev_mac scx0)" dev scx1 nud permanent
in_ns "$NS" ethtool -x scx1 > "$SCX_TEST_OUT/x.scx1"
in_ns "$NS" ethtool -n scx1 rx-flow-hash udp4 > "$SCX_TEST_OUT/n.scx1"
flows=()
for p in $(seq 40001 40016); do flows+=("10.72.0.1:$p->10.72.0.2:5001"); done
read -r -a pred <<< "$(python3 "$PY" predict "$SCX_TEST_OUT/x.scx1" "$SCX_TEST_OUT/n.scx1" \
	"${flows[@]}")"
assert_eq "predictions" ${#flows[@]} ${#pred[@]}
want=(0 0) before=() got=()
for q in "${pred[@]}"; do want[$q]=$((want[q] + 8)); done
eth_dump scx1 "$NS"
for q in 0 1; do before+=("$(eth_get rx${q}_packets)"); done
python3 "$PY" send 8 "${flows[@]}"
sleep 0.3
eth_dump scx1 "$NS"
for q in 0 1; do got+=("$(($(eth_get rx${q}_packets) - before[q]))"); done
log "GRE inner flows predicted on rx ${pred[*]}"
assert_eq "GRE: datagrams per queue (rx0 rx1), by their inner flows" "${want[*]}" "${got[*]}"
assert_gt "flows on rx0" 0 "${want[0]}"
assert_gt "flows on rx1" 0 "${want[1]}"

# IPv6 outside: ip6gre without the encapsulation limit option offloaded;
# ip6gre with its default limit (a destination options header, which the
# device does not parse) goes out in software, intact. So does IPv4 in
# IPv6 (ip6tnl): it leaves the transport header on the inner packet, which
# this kernel's skb_csum_hwoffload_help() takes for an IPv6 extension
# header and checksums in software (a GSO skb there: skb_warn_bad_offload);
# the driver keeps such skbs from offloads first, so no warning (the suite
# checks the kernel log).
pair_ipv6 fd00:10::1 fd00:10::2
ip6_pair() {
	local n=$1 type=$3 opts=(${4:-})
	ip link add "${n}0" type "$type" local fd00:10::1 remote fd00:10::2 "${opts[@]}"
	ip -n "$NS" link add "${n}1" type "$type" local fd00:10::2 remote fd00:10::1 "${opts[@]}"
	tunnel_up "$n" "$2" "$type ${n}0 <-> ${n}1 over IPv6 ${opts[*]}"
}
ip6_pair g6a 7 ip6gre "encaplimit none"
ip6_pair g6b 9 ip6gre "key 9"
ip6_pair t6a 8 ip6tnl "mode ipip6 encaplimit none"
xfer "ip6gre" 7 1 1
xfer "ip6gre with an encapsulation limit, software" 9 0 0
xfer "ipip6, software" 8 0 0

assert_eq "scx0 tx_cqe_err" 0 "$(ethtool_stat scx0 tx_cqe_err)"
assert_eq "scx1 rx_wqe_err" 0 "$(ethtool_stat scx1 rx_wqe_err "$NS")"
sleep 0.5
assert_pair_counters_agree
for n in gta grb grc ipa g6a g6b t6a; do ip link del "${n}0"; done

# ConnectX-4: GRE parsed, IP in IP and GENEVE not
scx_setup channels=2 model=cx4
features scx0 on tx-gre-segmentation tx-gre-csum-segmentation
features scx0 "off \[fixed\]" tx-ipxip4-segmentation tx-ipxip6-segmentation
ip_pair gta 1 gretap
ip_pair ipa 4 ipip
ip link add gna0 type geneve id 60 remote "$IP1"
ip -n "$NS" link add gna1 type geneve id 60 remote "$IP0"
tunnel_up gna 6 "GENEVE gna0 <-> gna1"
xfer "cx4: gretap" 1 1 1
xfer "cx4: ipip, software" 4 0 0
xfer "cx4: geneve, software" 6 0 0
in_ns "$NS" ethtool --set-priv-flags scx1 rx_no_csum_complete on
rx_verdicts "cx4: gretap, RX verdict handed up" 1 1
# IP in IP unparsed: no TCP or UDP checksum the device checked, CHECKSUM_NONE
n0=$(ethtool_stat scx1 rx_csum_none "$NS"); i0=$(ethtool_stat scx1 rx_csum_unnecessary_inner "$NS")
xfer "cx4: ipip, software, RX verdict handed up" 4 0 0
assert_eq "cx4: ipip: scx1 rx_csum_unnecessary_inner delta" 0 \
	$(( $(ethtool_stat scx1 rx_csum_unnecessary_inner "$NS") - i0 ))
assert_gt "cx4: ipip: scx1 rx_csum_none delta" 2700 $(( $(ethtool_stat scx1 rx_csum_none "$NS") - n0 ))
in_ns "$NS" ethtool --set-priv-flags scx1 rx_no_csum_complete off
assert_eq "cx4: scx0 tx_cqe_err" 0 "$(ethtool_stat scx0 tx_cqe_err)"
sleep 0.5
assert_pair_counters_agree
for n in gta ipa gna; do ip link del "${n}0"; done
